/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_dma_stop() (doc/guides/dmadevs/mlx5.rst, "Stopping a device"): from then on every
 * op is refused with -EPERM and the device executes nothing of the vchans; what was
 * submitted completes first (or, past the 1 s bound, is aborted), what was only enqueued
 * is aborted, both reported once; rte_dma_start() gives working vchans, ring indices
 * from 0. Both posting paths, both execution modes.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <vector>

#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr uint32_t kLen = 4096;

bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

void test_stop_refuses_and_restarts(void)
{
	T_FOREACH_MODE (m) {
		int id = t_open("dma_mlx5_stop", t_args(m, NULL), 1, 64);
		t_bufs b(16 * kLen);
		enum rte_dma_status_code st[16];
		enum rte_dma_vchan_status vs;
		struct rte_dma_sge s = {}, d = {};
		struct rte_dma_info info;
		uint16_t last = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		CU_ASSERT_EQUAL(rte_dma_info_get(id, &info), 0);
		t_fill(b.src, 16 * kLen, 5);
		/* ops 0..3 submitted, 4..5 only enqueued */
		for (uint16_t i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * kLen),
						     t_iova(b.dst + i * kLen), kLen,
						     i == 3 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					i);
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		/* nothing is taken now, through any entry */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 6 * kLen),
					     t_iova(b.dst + 6 * kLen), kLen,
					     RTE_DMA_OP_FLAG_SUBMIT),
				-EPERM);
		s.addr = t_iova(b.src + 7 * kLen);
		d.addr = t_iova(b.dst + 7 * kLen);
		s.length = d.length = kLen;
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s, &d, 1, 1, RTE_DMA_OP_FLAG_SUBMIT),
				-EPERM);
		if (info.dev_capa & RTE_DMA_CAPA_OPS_FILL)
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0x1122334455667788ull,
						     t_iova(b.dst + 7 * kLen), kLen,
						     RTE_DMA_OP_FLAG_SUBMIT),
					-EPERM);
		CU_ASSERT_EQUAL(rte_dma_submit(id, 0), -EPERM);
		CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_vchan_status(id, 0, &vs), 0);
		CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE);
		/* the submitted ops ran, the others were aborted: each reported once */
		CU_ASSERT_EQUAL(rte_dma_completed_status(id, 0, 16, &last, st), 6);
		CU_ASSERT_EQUAL(last, 5);
		for (uint16_t i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(st[i], i < 4 ? RTE_DMA_STATUS_SUCCESSFUL
						     : RTE_DMA_STATUS_USER_ABORT);
		CU_ASSERT_EQUAL(rte_dma_completed_status(id, 0, 16, &last, st), 0);
		CU_ASSERT_EQUAL(last, 5);
		CU_ASSERT_TRUE(t_check(b.dst, 4 * kLen, 5));
		/* no byte written after stop returned (the engine thread had its chance) */
		usleep(50 * 1000);
		CU_ASSERT_TRUE(zero(b.dst + 4 * kLen, 12 * kLen));
		/* restarted: ring indices from 0, the aborted ops stay gone */
		CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		CU_ASSERT_TRUE(rte_dma_burst_capacity(id, 0) > 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 8 * kLen),
					     t_iova(b.dst + 8 * kLen), kLen,
					     RTE_DMA_OP_FLAG_SUBMIT),
				0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(last, 0);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst + 8 * kLen, b.src + 8 * kLen, kLen), 0);
		CU_ASSERT_TRUE(zero(b.dst + 4 * kLen, 4 * kLen));
		/* a second stop/start with nothing in flight */
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		CU_ASSERT_EQUAL(rte_dma_completed_status(id, 0, 16, &last, st), 0);
		CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 9 * kLen),
					     t_iova(b.dst + 9 * kLen), kLen,
					     RTE_DMA_OP_FLAG_SUBMIT),
				0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(memcmp(b.dst + 9 * kLen, b.src + 9 * kLen, kLen), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_stop"), 0);
	}
}

/* The rte_pmd_dma_mlx5 entries reach the vchan directly: they refuse too. */
void test_stop_pmd_api(void)
{
	T_FOREACH_MODE (m) {
		int id = t_open("dma_mlx5_stop_api", t_args(m, NULL), 1, 64);
		uint8_t wqe[64] = {};

		CU_ASSERT_TRUE_FATAL(id >= 0);
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		wqe[7] = 4; /* ds 4: one WQEBB; refused before its bytes are looked at */
		CU_ASSERT_EQUAL(
			rte_pmd_dma_mlx5_enqueue_raw_wqe(id, 0, wqe, RTE_DMA_OP_FLAG_SUBMIT),
			-EPERM);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_stop_api"), 0);
	}
}

/*
 * Submitted ops whose completions the device holds back past the stop's bound (thread
 * mode): stop returns after about 1 s, the ops are reported USER_ABORT, the restarted
 * vchan works.
 */
void test_stop_bound(void)
{
	T_FOREACH_MODE (m) {
		if (!m->thread)
			continue; /* held completions need the engine thread */
		int id = t_open("dma_mlx5_stop_bound", t_args(m, NULL), 1, 64);
		struct ibv_context *ctx = t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct mlx5_sim_fault f = {};
		enum rte_dma_status_code st[4];
		t_bufs b(4 * kLen);
		uint16_t last = 0;
		uint64_t t0, ms;

		CU_ASSERT_TRUE_FATAL(id >= 0 && ctx && b.ok());
		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
		f.qpn = vi.qpn;
		f.delay_us = 4000000;
		CU_ASSERT_EQUAL_FATAL(mlx5_sim_inject_fault(ctx, &f), 0);
		t_fill(b.src, 4 * kLen, 9);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), kLen, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + kLen), t_iova(b.dst + kLen),
					     kLen, RTE_DMA_OP_FLAG_SUBMIT),
				1);
		t0 = t_now_ms();
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		ms = t_now_ms() - t0;
		CU_ASSERT(ms >= 900 && ms < 3000);
		CU_ASSERT_EQUAL(rte_dma_completed_status(id, 0, 4, &last, st), 2);
		CU_ASSERT(st[0] == RTE_DMA_STATUS_USER_ABORT && st[1] == RTE_DMA_STATUS_USER_ABORT);
		f.delay_us = 0; /* no more held completions */
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 2 * kLen),
					     t_iova(b.dst + 2 * kLen), kLen,
					     RTE_DMA_OP_FLAG_SUBMIT),
				0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst + 2 * kLen, b.src + 2 * kLen, kLen), 0);
		t_sim_ctx_close(ctx);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_stop_bound"), 0);
	}
}

const struct cunit_test tests[] = {
	{"stop refuses ops, reports what it holds, start works again",
	 test_stop_refuses_and_restarts},
	{"stop: the rte_pmd_dma_mlx5 entries refuse too", test_stop_pmd_api},
	{"stop: submitted work past the bound is aborted", test_stop_bound},
};

} // namespace

const struct cunit_suite t_suite_stop = CUNIT_SUITE("stop", tests);
