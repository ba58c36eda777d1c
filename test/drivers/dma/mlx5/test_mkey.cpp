/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_dma_mlx5 indirect mkeys: list and interleaved layouts set by ops of the
 * vchan, copies through them as source and destination, invalidation, limits, bad
 * arguments, and destroy while in use, in every mode of the test matrix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/* Gather through a list mkey, scatter through another; the layout changes in order. */
void test_list_gather_scatter(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(64 * 1024);
		int id = t_open("dma_mlx5_mk", t_args(m, NULL), 1, 64);
		struct rte_pmd_dma_mlx5_mkey_limits lim;
		struct rte_pmd_dma_mlx5_mkey *gk = NULL, *sk = NULL;
		enum rte_dma_status_code st[8];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_limits(id, 0, &lim), 0);
		/* a 64-byte WQE slot (the default QP) leaves room for 2 list entries */
		CU_ASSERT_TRUE_FATAL(lim.max_list_entries >= 2);
		CU_ASSERT_EQUAL(lim.max_interleaved_entries, lim.max_list_entries - 1);
		CU_ASSERT_EQUAL(lim.max_copy_len, 1u << 31);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 2, &gk), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 2, &sk), 0);
		CU_ASSERT_TRUE_FATAL(gk && sk);
		t_fill(b.src, 64 * 1024, 61);
		struct rte_dma_sge g[3] = {{t_iova(b.src + 100), 300},
					   {t_iova(b.src + 5000), 1748},
					   {t_iova(b.src + 9000), 1000}};
		struct rte_dma_sge s[2] = {{t_iova(b.dst + 30000), 2000},
					   {t_iova(b.dst + 40000), 48}};
		struct rte_pmd_dma_mlx5_addr from_g = {gk, 0}, to_s = {sk, 0};
		struct rte_pmd_dma_mlx5_addr plain = {NULL, t_iova(b.dst)};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, gk, g, 2, 0), 0);
		/* a capacity query between the layout op and the next must not lose the
		 * small fence the next WQE carries */
		CU_ASSERT_TRUE(rte_dma_burst_capacity(id, 0) > 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, sk, s, 2, 0), 1);
		/* gather into plain memory, then mkey to mkey, then a window of each */
		CU_ASSERT_TRUE(rte_dma_burst_capacity(id, 0) > 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst + 50000), 8, 0), 2);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &from_g, &plain, 2048, 0), 3);
		const uint8_t *ring;
		uint32_t wqebbs;

		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id, 0, &ring, &wqebbs), 0);
		/* UMR (3 WQEBBs), UMR (3, small fence), copy (small fence), ... */
		CU_ASSERT_EQUAL(ring[3 * 64 + 11] & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
		CU_ASSERT_EQUAL(ring[6 * 64 + 11] & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
		CU_ASSERT_EQUAL(ring[7 * 64 + 11] & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE, 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &from_g, &to_s, 2048, 0), 4);
		struct rte_pmd_dma_mlx5_addr g_mid = {gk, 250},
					     plain2 = {NULL, t_iova(b.dst + 20000)};

		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_copy(id, 0, &g_mid, &plain2, 100, RTE_DMA_OP_FLAG_SUBMIT),
			5);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 6, st, &last), 6);
		for (int k = 0; k < 6; k++)
			CU_ASSERT_EQUAL(st[k], RTE_DMA_STATUS_SUCCESSFUL);
		uint8_t want[2048];

		memcpy(want, b.src + 100, 300);
		memcpy(want + 300, b.src + 5000, 1748);
		CU_ASSERT_EQUAL(memcmp(b.dst, want, 2048), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 30000, want, 2000), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 40000, want + 2000, 48), 0);
		CU_ASSERT_EQUAL(b.dst[40048], 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 20000, want + 250, 100), 0);
		/* beyond the layout: that op fails alone, before the device sees it */
		struct rte_pmd_dma_mlx5_addr g_end = {gk, 2000};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &g_end, &plain, 49, 0), 6);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &from_g, &to_s, 2049, 0), 7);
		/* invalidate: a copy through it fails; a new layout makes it work again */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_invalidate(id, 0, gk, 0), 8);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &from_g, &plain, 16, 0), 9);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, gk, &g[2], 1, 0), 10);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &from_g, &plain2, 1000,
						      RTE_DMA_OP_FLAG_SUBMIT),
				11);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 6, st, &last), 6);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[3], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(st[4], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[5], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst + 20000, b.src + 9000, 1000), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_destroy(id, 0, gk), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_destroy(id, 0, gk), -EINVAL);
		/* sk is left for the vchan's teardown */
		CU_ASSERT_EQUAL(t_close("dma_mlx5_mk"), 0);
	}
}

/* Interleaved: an entry with a stride, one of stride 0 (the same bytes repeated), and
 * an interleaved destination. */
void test_interleaved(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(64 * 1024);
		int id = t_open("dma_mlx5_mki", t_args(m, NULL), 1, 64);
		struct rte_pmd_dma_mlx5_mkey *k = NULL, *z = NULL;
		enum rte_dma_status_code st[4];
		uint16_t last;
		bool ok = true;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 1, &k), 0);
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 1, &z), 0);
		t_fill(b.src, 64 * 1024, 62);
		/* 6 repetitions of 8 bytes, 16 apart; 12 of the same 4 bytes */
		struct rte_pmd_dma_mlx5_interleaved e = {t_iova(b.src), 8, 16};
		struct rte_pmd_dma_mlx5_interleaved e0 = {t_iova(b.src + 1000), 4, 0};
		struct rte_pmd_dma_mlx5_addr src = {k, 0}, dst = {NULL, t_iova(b.dst + 64)};
		struct rte_pmd_dma_mlx5_addr src0 = {z, 0}, dst0 = {NULL, t_iova(b.dst + 256)};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_interleaved(id, 0, k, &e, 1, 6, 0), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_interleaved(id, 0, z, &e0, 1, 12, 0), 1);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &src, &dst, 48, 0), 2);
		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_copy(id, 0, &src0, &dst0, 48, RTE_DMA_OP_FLAG_SUBMIT), 3);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
		for (int k2 = 0; k2 < 4; k2++)
			CU_ASSERT_EQUAL(st[k2], RTE_DMA_STATUS_SUCCESSFUL);
		for (int r = 0; r < 6; r++)
			ok &= memcmp(b.dst + 64 + r * 8, b.src + r * 16, 8) == 0;
		for (int r = 0; r < 12; r++)
			ok &= memcmp(b.dst + 256 + r * 4, b.src + 1000, 4) == 0;
		CU_ASSERT_TRUE(ok);
		CU_ASSERT_EQUAL(b.dst[63], 0);
		CU_ASSERT_EQUAL(b.dst[64 + 48], 0);
		CU_ASSERT_EQUAL(b.dst[256 + 48], 0);
		/* as a destination: 48 bytes scattered to 6 x 8 bytes, 32 apart */
		struct rte_pmd_dma_mlx5_interleaved e2 = {t_iova(b.dst + 4096), 8, 32};
		struct rte_pmd_dma_mlx5_addr s2 = {NULL, t_iova(b.src + 2048)}, d2 = {k, 0};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_interleaved(id, 0, k, &e2, 1, 6, 0), 4);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &s2, &d2, 48, RTE_DMA_OP_FLAG_SUBMIT),
				5);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		ok = true;
		for (int r = 0; r < 6; r++) {
			ok &= memcmp(b.dst + 4096 + r * 32, b.src + 2048 + r * 8, 8) == 0;
			ok &= b.dst[4096 + r * 32 + 8] == 0;
		}
		CU_ASSERT_TRUE(ok);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_mki"), 0);
	}
}

/* Bad arguments: -EINVAL and nothing enqueued; busy mkeys are not destroyed. */
void test_bad_args(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(8192);
		uint8_t *heap = (uint8_t *)malloc(4096);
		int id = t_open("dma_mlx5_mkb", t_args(m, NULL), 1, 64);
		int id2 = t_open("dma_mlx5_mkb2", t_args(m, NULL), 1, 64);
		struct rte_pmd_dma_mlx5_mkey_limits lim;
		struct rte_pmd_dma_mlx5_mkey *k = NULL, *other = NULL;
		enum rte_dma_status_code st;
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && id2 >= 0 && b.ok() && heap);
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_limits(id, 0, &lim), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_limits(id, 1, &lim), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 0, &k), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_create(id, 0, lim.max_list_entries + 1, &k),
				-EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 2, NULL), -EINVAL);
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_create(id, 0, 2, &k), 0);
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_create(id2, 0, 2, &other), 0);
		struct rte_dma_sge g[3] = {
			{t_iova(b.src), 8}, {t_iova(b.src + 64), 8}, {t_iova(b.src + 128), 8}};
		struct rte_dma_sge h = {t_iova(heap), 8}, z = {t_iova(b.src), 0};
		struct rte_pmd_dma_mlx5_interleaved il = {t_iova(b.src), 8, 8};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, k, g, 3, 0),
				-EINVAL); /* > 2 */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, k, g, 0, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, k, &h, 1, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, k, &z, 1, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, other, g, 1, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_interleaved(id, 0, k, &il, 1, 0, 0),
				-EINVAL);
		/* the entry's repetitions run past the buffer's end? b.src is DPDK memory:
		 * far past it is not */
		il.stride = 65535;
		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_mkey_set_interleaved(id, 0, k, &il, 1, 1u << 20, 0),
			-EINVAL);
		struct rte_pmd_dma_mlx5_addr a = {other, 0}, p = {NULL, t_iova(b.dst)};

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, &a, &p, 8, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_copy(id, 0, NULL, &p, 8, 0), -EINVAL);
		/* nothing was enqueued: the next op is ring index 0; k busy until it completes */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_set_list(id, 0, k, g, 2, 0), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_destroy(id, 0, k), -EBUSY);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_destroy(id2, 0, k), -EINVAL);
		rte_dma_submit(id, 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
		CU_ASSERT_EQUAL(st, RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_mkey_destroy(id, 0, k), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_mkb"), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_mkb2"), 0);
		free(heap);
	}
}

const struct cunit_test tests[] = {
	{"list_gather_scatter", test_list_gather_scatter},
	{"interleaved", test_interleaved},
	{"bad_args", test_bad_args},
};

} // namespace

const struct cunit_suite t_suite_mkey = CUNIT_SUITE("mkey_api", tests);
