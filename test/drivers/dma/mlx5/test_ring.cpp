/* SPDX-License-Identifier: BSD-3-Clause */
/* vchans, statistics, stop/start, ring sizes, burst capacity, ring index wrap. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kChunk = 2048;

void expect_stats(int id, uint16_t vchan, uint64_t sub, uint64_t comp, uint64_t errs)
{
	struct rte_dma_stats st;

	CU_ASSERT_EQUAL_FATAL(rte_dma_stats_get(id, vchan, &st), 0);
	CU_ASSERT_EQUAL(st.submitted, sub);
	CU_ASSERT_EQUAL(st.completed, comp);
	CU_ASSERT_EQUAL(st.errors, errs);
}

/* 4 vchans, each its own QP, copies interleaved; stats per vchan and in total. */
void test_multi_vchan(void)
{
	constexpr int kPer = 24;

	T_FOREACH_MODE (m) {
		t_bufs b(4 * kPer * kChunk);
		struct rte_pmd_dma_mlx5_vchan_info vi[4];
		uint8_t *bad = (uint8_t *)aligned_alloc(64, kChunk); /* not DPDK memory */
		int id = t_open("dma_mlx5_vc", t_args(m, NULL), 4, 64);

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && bad);
		for (uint16_t v = 0; v < 4; v++) {
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, v, &vi[v]), 0);
			CU_ASSERT_EQUAL(vi[v].sq_wqebbs, 64);
			for (uint16_t w = 0; w < v; w++)
				CU_ASSERT_NOT_EQUAL(vi[v].qpn, vi[w].qpn);
			expect_stats(id, v, 0, 0, 0);
		}
		t_fill(b.src, b.len, 5);
		for (int i = 0; i < 4 * kPer; i++) {
			uint16_t v = i % 4;
			size_t off = (size_t)i * kChunk;
			uint64_t fl = (i / 4) % 6 == 5 ? RTE_DMA_OP_FLAG_SUBMIT : 0;

			CU_ASSERT_EQUAL(rte_dma_copy(id, v, t_iova(b.src + off),
						     t_iova(b.dst + off), kChunk, fl),
					i / 4);
		}
		/* one failing op on vchan 2 only */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 2, t_iova(bad), t_iova(b.dst), 64, 0), kPer);
		for (uint16_t v = 0; v < 4; v++) {
			enum rte_dma_status_code st[kPer + 1];
			uint16_t n = v == 2 ? kPer + 1 : kPer;
			uint16_t last = 0;

			CU_ASSERT_EQUAL(rte_dma_submit(id, v), 0);
			CU_ASSERT_EQUAL(t_wait_status(id, v, n, st, &last), n);
			CU_ASSERT_EQUAL(last, n - 1);
			for (uint16_t k = 0; k < kPer; k++)
				CU_ASSERT_EQUAL(st[k], RTE_DMA_STATUS_SUCCESSFUL);
			if (v == 2)
				CU_ASSERT_EQUAL(st[kPer], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		}
		/* vchan 2's dst chunk 0 was only read from a bad src: data kept */
		CU_ASSERT_EQUAL(memcmp(b.src, b.dst, b.len), 0);
		for (uint16_t v = 0; v < 4; v++)
			expect_stats(id, v, v == 2 ? kPer + 1 : kPer, v == 2 ? kPer + 1 : kPer,
				     v == 2);
		expect_stats(id, RTE_DMA_ALL_VCHAN, 4 * kPer + 1, 4 * kPer + 1, 1);
		CU_ASSERT_EQUAL(rte_dma_stats_reset(id, 2), 0);
		expect_stats(id, 2, 0, 0, 0);
		expect_stats(id, 1, kPer, kPer, 0);
		expect_stats(id, RTE_DMA_ALL_VCHAN, 3 * kPer, 3 * kPer, 0);
		CU_ASSERT_EQUAL(rte_dma_stats_reset(id, RTE_DMA_ALL_VCHAN), 0);
		expect_stats(id, RTE_DMA_ALL_VCHAN, 0, 0, 0);
		for (uint16_t v = 0; v < 4; v++)
			expect_stats(id, v, 0, 0, 0);
		CU_ASSERT_EQUAL(rte_dma_stats_reset(id, 4), -EINVAL);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_vc"), 0);
		free(bad);
	}
}

/* stop/start: ring indices and stats back to 0, also with ops left in flight. */
void test_stop_start(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(16 * kChunk);
		int id = t_open("dma_mlx5_ss", t_args(m, NULL), 1, 32);
		uint16_t last = 0;
		bool err = true;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		t_fill(b.src, b.len, 11);
		for (int i = 0; i < 10; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), kChunk,
						     RTE_DMA_OP_FLAG_SUBMIT),
					i);
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 10, &last, &err), 10);
		/* leave work behind: submitted not collected, and enqueued not submitted */
		for (int i = 0; i < 5; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), kChunk,
						     i == 2 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					10 + i);
		expect_stats(id, 0, 13, 10, 0);
		for (int round = 0; round < 2; round++) {
			CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
			CU_ASSERT_EQUAL(rte_dma_start(id), 0);
			expect_stats(id, 0, 0, 0, 0);
			CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 31);
			/* nothing of the previous life is reported */
			CU_ASSERT_EQUAL(rte_dma_completed(id, 0, 32, &last, &err), 0);
			CU_ASSERT_EQUAL(last, 0xffff);
		}
		memset(b.dst, 0, b.len);
		for (int i = 0; i < 16; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * kChunk),
						     t_iova(b.dst + i * kChunk), kChunk,
						     i == 15 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					i);
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 16, &last, &err), 16);
		CU_ASSERT_FALSE(err);
		CU_ASSERT_EQUAL(last, 15);
		CU_ASSERT_EQUAL(memcmp(b.src, b.dst, b.len), 0);
		expect_stats(id, 0, 16, 16, 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_ss"), 0);
	}
}

/* Fill the ring to -ENOSPC one op at a time, then drain it: capacity exact throughout. */
void fill_and_drain(int id, const t_bufs &b, uint16_t wqe_cnt)
{
	uint16_t cap = rte_dma_burst_capacity(id, 0);
	uint16_t last = 0;
	bool err = true;
	int ret = 0;

	CU_ASSERT_EQUAL_FATAL(cap, wqe_cnt - 1);
	for (uint16_t i = 0; i < cap; i++) {
		ret = rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64, 0);
		if (ret != i)
			break;
		if (rte_dma_burst_capacity(id, 0) != cap - i - 1)
			break;
	}
	CU_ASSERT_EQUAL(ret, cap - 1);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 0);
	CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64, 0), -ENOSPC);
	CU_ASSERT_EQUAL(
		rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64, RTE_DMA_OP_FLAG_SUBMIT),
		-ENOSPC);
	CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 0); /* not before completion */
	CU_ASSERT_EQUAL(t_wait_done(id, 0, cap, &last, &err), cap);
	CU_ASSERT_FALSE(err);
	CU_ASSERT_EQUAL(last, cap - 1);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), cap);
	/* and once more, across the end of the ring */
	CU_ASSERT_EQUAL(
		rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64, RTE_DMA_OP_FLAG_SUBMIT), cap);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), cap - 1);
	CU_ASSERT_EQUAL(t_wait_done(id, 0, 1, &last, &err), 1);
	CU_ASSERT_EQUAL(last, cap);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), cap);
}

/* min_desc, max_desc and a non-power-of-two size; nb_desc outside refused. */
void test_ring_sizes(void)
{
	static const uint16_t sizes[] = {16, 100, 512, 32768};

	T_FOREACH_MODE (m) {
		t_bufs b(4096);
		struct rte_dma_info info;
		struct rte_dma_conf conf = {1, false};
		struct rte_dma_vchan_conf vc = {};
		int id = t_probe("dma_mlx5_rs", t_args(m, "min_desc=16,max_desc=32768"));

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		CU_ASSERT_EQUAL(rte_dma_info_get(id, &info), 0);
		CU_ASSERT_EQUAL(info.min_desc, 16);
		CU_ASSERT_EQUAL(info.max_desc, 32768);
		CU_ASSERT_EQUAL(info.max_vchans, 4);
		CU_ASSERT_EQUAL(rte_dma_configure(id, &conf), 0);
		vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
		vc.nb_desc = 8;
		CU_ASSERT_EQUAL(rte_dma_vchan_setup(id, 0, &vc), -EINVAL);
		for (uint16_t nb : sizes) {
			vc.nb_desc = nb;
			CU_ASSERT_EQUAL_FATAL(rte_dma_vchan_setup(id, 0, &vc), 0);
			CU_ASSERT_EQUAL_FATAL(rte_dma_start(id), 0);
			fill_and_drain(id, b, (uint16_t)rte_align32pow2(nb));
			CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		}
		CU_ASSERT_EQUAL(t_remove("dma_mlx5_rs"), 0);
	}
}

/*
 * More than 65536 ops on a 64-entry ring: ids wrap 65535 -> 0 with the ring, and a
 * failed op right at the wrap (ids 65535 and 0) is reported at its place.
 */
void test_index_wrap(void)
{
	constexpr uint32_t kOps = 66000;
	constexpr uint16_t kBurst = 63;

	T_FOREACH_MODE (m) {
		t_bufs b(kBurst * 64);
		uint8_t *bad = (uint8_t *)aligned_alloc(64, 64);
		int id = t_open("dma_mlx5_wr", t_args(m, NULL), 1, 64);
		uint32_t done = 0;
		unsigned bad_results = 0;
		bool ok = true;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && bad);
		t_fill(b.src, b.len, 17);
		while (done < kOps && ok) {
			enum rte_dma_status_code st[kBurst];
			uint16_t last = 0;

			for (uint16_t i = 0; i < kBurst && ok; i++) {
				uint16_t expect = (uint16_t)(done + i);
				rte_iova_t src = t_iova(b.src + i * 64);
				uint32_t len = 64;

				if (expect == 65535)
					src = t_iova(bad);
				if (expect == 0 && done)
					len = 0;
				ok = rte_dma_copy(id, 0, src, t_iova(b.dst + i * 64), len, 0) ==
				     expect;
			}
			ok = ok && rte_dma_submit(id, 0) == 0;
			ok = ok && t_wait_status(id, 0, kBurst, st, &last) == kBurst;
			ok = ok && last == (uint16_t)(done + kBurst - 1);
			for (uint16_t i = 0; i < kBurst && ok; i++) {
				uint16_t idx = (uint16_t)(done + i);

				if (idx == 65535 && done + i == 65535u) {
					ok = st[i] == RTE_DMA_STATUS_INVALID_SRC_ADDR;
					bad_results++;
				} else if (idx == 0 && done) {
					ok = st[i] == RTE_DMA_STATUS_INVALID_LENGTH;
					bad_results++;
				} else {
					ok = st[i] == RTE_DMA_STATUS_SUCCESSFUL;
				}
			}
			done += kBurst;
		}
		CU_ASSERT_TRUE(ok);
		CU_ASSERT_EQUAL(bad_results, 2);
		CU_ASSERT_TRUE(done >= kOps);
		expect_stats(id, 0, done, done, 2);
		CU_ASSERT_TRUE(t_check(b.dst, b.len, 17));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_wr"), 0);
		free(bad);
	}
}

const struct cunit_test tests[] = {
	{"multi_vchan", test_multi_vchan},
	{"stop_start", test_stop_start},
	{"ring_sizes", test_ring_sizes},
	{"index_wrap", test_index_wrap},
};

} // namespace

const struct cunit_suite t_suite_ring = CUNIT_SUITE("ring", tests);
