/* SPDX-License-Identifier: BSD-3-Clause */
/* The dma_mlx5 PMD API: raw WQEs, vchan info, capabilities, last error. */
#include <errno.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <rte_malloc.h>

#include "mlx5_hw.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kChunk = 4096;

/* A NOP of @p ds octowords (the device ignores the rest of it). */
void build_nop(uint8_t *wqe, uint32_t qpn, uint8_t ds)
{
	memset(wqe, 0, (size_t)ds * MLX5_HW_DS_BYTES);
	/* the WQE index is the driver's to set: pass a wrong one */
	mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)wqe, 0xbeef, MLX5_OPCODE_NOP, 0, qpn, 0, ds,
			    0, 0);
}

/* A memcpy MMO with the metadata segment @p meta (learned from a PMD-built WQE). */
void build_mmo(struct mlx5_hw_mmo_wqe *w, uint32_t qpn, const struct mlx5_hw_mmo_meta_seg *meta,
	       uint32_t skey, const void *src, uint32_t dkey, void *dst, uint32_t len)
{
	memset(w, 0, sizeof(*w));
	mlx5dv_set_ctrl_seg(&w->ctrl, 0, MLX5_OPCODE_MMO, MLX5_HW_OPC_MOD_MMO_DMA, qpn, 0, 4, 0, 0);
	w->meta = *meta;
	mlx5dv_set_data_seg(&w->src, len, skey, (uintptr_t)src);
	mlx5dv_set_data_seg(&w->dst, len, dkey, (uintptr_t)dst);
}

/* WQE index in ring slot @p slot of vchan 0 (test-only ring hook). */
int ring_index_at(int id, uint32_t slot)
{
	const uint8_t *ring;
	uint32_t n;

	if (test_hook_sq_ring(id, 0, &ring, &n))
		return -1;
	return mlx5_hw_ctrl_index((const struct mlx5_wqe_ctrl_seg *)(ring + (slot % n) * 64));
}

/* NOPs and MMOs built by the caller complete through rte_dma with their ring index. */
void test_raw_wqe_ops(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(8 * kChunk);
		int id = t_open("dma_mlx5_raw", t_args(m, NULL), 1, 32);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct rte_pmd_dma_mlx5_error e;
		alignas(64) uint8_t wqe[4 * 64];
		struct mlx5_hw_mmo_wqe learned, mmo;
		enum rte_dma_status_code st[8];
		const uint8_t *ring;
		uint32_t nbb;
		uint16_t last;
		bool err;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.src && b.dst);
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		CU_ASSERT_EQUAL(vi.sq_wqebbs, 32);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id, 0, &ring, &nbb), 0);
		t_fill(b.src, 8 * kChunk, 71);
		/* op 0: a copy, whose WQE gives the keys a raw MMO needs */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), kChunk, 0), 0);
		memcpy(&learned, ring, sizeof(learned));
		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(&learned.ctrl), MLX5_OPCODE_MMO);
		/* op 1: NOP, op 2: 2-WQEBB NOP, op 3: raw MMO, op 4: copy */
		build_nop(wqe, vi.qpn, 1);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, 0), 1);
		CU_ASSERT_EQUAL(ring_index_at(id, 1), 1);
		build_nop(wqe, vi.qpn, 5);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, RTE_DMA_OP_FLAG_FENCE),
				2);
		CU_ASSERT_EQUAL(ring_index_at(id, 2), 2);
		CU_ASSERT_TRUE(((const struct mlx5_wqe_ctrl_seg *)(ring + 2 * 64))->fm_ce_se &
			       MLX5_WQE_CTRL_FENCE);
		build_mmo(&mmo, vi.qpn, &learned.meta, be32toh(learned.src.lkey), b.src + kChunk,
			  be32toh(learned.dst.lkey), b.dst + kChunk, kChunk);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, &mmo, 0), 3);
		CU_ASSERT_EQUAL(ring_index_at(id, 4), 4); /* after the 2-WQEBB NOP */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 2 * kChunk),
					     t_iova(b.dst + 2 * kChunk), kChunk,
					     RTE_DMA_OP_FLAG_SUBMIT),
				4);
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 5, &last, &err), 5);
		CU_ASSERT_FALSE(err);
		CU_ASSERT_EQUAL(last, 4);
		CU_ASSERT_EQUAL(memcmp(b.src, b.dst, 3 * kChunk), 0);
		CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 31);
		/* a raw MMO with a key of nobody: fails alone, with the device's syndrome */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), -ENOENT);
		build_mmo(&mmo, vi.qpn, &learned.meta, 0x00badd00, b.src, be32toh(learned.dst.lkey),
			  b.dst + 3 * kChunk, kChunk);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, &mmo, 0), 5);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 4 * kChunk),
					     t_iova(b.dst + 4 * kChunk), kChunk,
					     RTE_DMA_OP_FLAG_SUBMIT),
				6);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
		CU_ASSERT_EQUAL(last, 6);
		CU_ASSERT_NOT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(b.dst[3 * kChunk], 0);
		CU_ASSERT_EQUAL(memcmp(b.src + 4 * kChunk, b.dst + 4 * kChunk, kChunk), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		CU_ASSERT_EQUAL(e.ring_idx, 5);
		CU_ASSERT_EQUAL(e.syndrome, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_EQUAL(e.wqe_opcode, MLX5_OPCODE_MMO);
		/* a 1-WQEBB NOP, then 2-WQEBB NOPs straddling the end of the ring, to -ENOSPC */
		build_nop(wqe, vi.qpn, 1);
		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, RTE_DMA_OP_FLAG_SUBMIT), 7);
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 1, &last, &err), 1);
		CU_ASSERT_EQUAL(last, 7);
		int expect = 8, ret;

		build_nop(wqe, vi.qpn, 5);
		while ((ret = rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, 0)) >= 0) {
			CU_ASSERT_EQUAL(ret, expect);
			expect++;
		}
		CU_ASSERT_EQUAL(ret, -ENOSPC);
		CU_ASSERT_EQUAL(expect - 8, 16); /* 32 WQEBBs, 2 each */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 64, 0), -ENOSPC);
		CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 16, &last, &err), 16);
		CU_ASSERT_FALSE(err);
		CU_ASSERT_EQUAL(last, expect - 1);
		CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 31);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_raw"), 0);
	}
}

/* Argument checks of the PMD API. */
void test_pmd_api_args(void)
{
	const struct t_mode *m = t_kernel_dev ? &t_kernel_modes[0] : &t_modes[0];
	int id = t_probe("dma_mlx5_api", t_args(m, "max_vchans=2"));
	struct rte_pmd_dma_mlx5_vchan_info vi;
	struct rte_pmd_dma_mlx5_caps caps;
	struct rte_pmd_dma_mlx5_error e;
	struct rte_dma_conf conf = {1, false};
	struct rte_dma_vchan_conf vc = {};
	alignas(64) uint8_t wqe[64];

	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), 0);
	CU_ASSERT_EQUAL(caps.max_wr_memcpy_length, 1ull << 31);
	CU_ASSERT_STRING_EQUAL(caps.device, m->sim);
	/* --kernel: Debian's libibverbs + libmlx5 through the glue library */
	CU_ASSERT_STRING_EQUAL(caps.backend, t_kernel_dev ? "rdma-core" : "sim");
	CU_ASSERT_EQUAL(caps.direct_path, 1);
	CU_ASSERT_EQUAL(caps.sva, 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(-1, &caps), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(RTE_DMADEV_DEFAULT_MAX, &caps), -EINVAL);
	/* not configured yet */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), -EINVAL);
	build_nop(wqe, 0, 1);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_dma_configure(id, &conf), 0);
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = 100;
	CU_ASSERT_EQUAL(rte_dma_vchan_setup(id, 0, &vc), 0);
	CU_ASSERT_EQUAL(rte_dma_start(id), 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
	CU_ASSERT_EQUAL(vi.sq_wqebbs, 128);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 1, &vi), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(-1, 0, &vi), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), -ENOENT);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 1, &e), -EINVAL);
	build_nop(wqe, vi.qpn, 1);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 1, wqe, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(-1, 0, wqe, 0), -EINVAL);
	build_nop(wqe, vi.qpn, 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 127); /* nothing was taken */
	CU_ASSERT_EQUAL(t_close("dma_mlx5_api"), 0);
	/* a removed device is no longer ours */
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), -EINVAL);
}

const struct cunit_test tests[] = {
	{"raw_wqe_ops", test_raw_wqe_ops},
	{"pmd_api_args", test_pmd_api_args},
};

} // namespace

const struct cunit_suite t_suite_raw = CUNIT_SUITE("raw_wqe", tests);
