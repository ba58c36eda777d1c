/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_dma_dump's vchan lines, and rte_dma_vchan_status: IDLE only once data landed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/* rte_dma_dump() of @p id into a string (free()d by the caller). */
char *dump_of(int id)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (rte_dma_dump(id, f) != 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

void test_dump(void)
{
	T_FOREACH_MODE (m) {
		uint8_t *src = (uint8_t *)rte_zmalloc(NULL, 4096, 64);
		uint8_t *bad = (uint8_t *)aligned_alloc(64, 64);
		int id = t_probe("dma_mlx5_dump", t_args(m, NULL));
		struct rte_dma_conf conf = {2, false};
		struct rte_dma_vchan_conf vc = {};
		struct rte_pmd_dma_mlx5_vchan_info vi;
		enum rte_dma_status_code st[2];
		char expect[128];
		uint16_t last;
		char *d;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && bad);
		CU_ASSERT_EQUAL(rte_dma_configure(id, &conf), 0);
		vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
		vc.nb_desc = 64;
		CU_ASSERT_EQUAL(rte_dma_vchan_setup(id, 0, &vc), 0);
		d = dump_of(id);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		snprintf(expect, sizeof(expect),
			 "dma_mlx5: device %s (%s backend), posting path %s", m->sim,
			 m->sim == t_kernel_dev ? "rdma-core" : "sim", m->path);
		CU_ASSERT_PTR_NOT_NULL(strstr(d, expect));
		CU_ASSERT_PTR_NOT_NULL(strstr(d, "vchan 1: not set up"));
		free(d);
		CU_ASSERT_EQUAL(rte_dma_vchan_setup(id, 1, &vc), 0);
		CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 1, t_iova(src), t_iova(src + 2048), 64, 0), 0);
		CU_ASSERT_EQUAL(
			rte_dma_copy(id, 1, t_iova(bad), t_iova(src), 64, RTE_DMA_OP_FLAG_SUBMIT),
			1);
		CU_ASSERT_EQUAL(t_wait_status(id, 1, 2, st, &last), 2);
		d = dump_of(id);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (uint16_t v = 0; v < 2; v++) {
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, v, &vi), 0);
			snprintf(expect, sizeof(expect), "vchan %u: QP %#x state %d, SQ 64 WQEBBs",
				 v, vi.qpn, IBV_QPS_RTS);
			CU_ASSERT_PTR_NOT_NULL(strstr(d, expect));
		}
		CU_ASSERT_PTR_NOT_NULL(strstr(d, "ring_idx 2 submitted 2 done 2 reported 2"));
		CU_ASSERT_PTR_NOT_NULL(strstr(d, "last error: op 1 syndrome 0x4"));
		CU_ASSERT_PTR_NULL(strstr(d, "not set up"));
		free(d);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_dump"), 0);
		rte_free(src);
		free(bad);
	}
}

/*
 * IDLE means every submitted op has landed. In thread mode the CQEs are held back
 * by an injected delay: the vchan must stay ACTIVE meanwhile, and whenever it says
 * IDLE the data must be there before completed() is called.
 */
void test_vchan_status(void)
{
	constexpr size_t kLen = 256 * 1024;

	T_FOREACH_MODE (m) {
		uint8_t *src = (uint8_t *)rte_malloc(NULL, kLen, 64);
		uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, kLen, 64);
		int id = t_open("dma_mlx5_st", t_args(m, NULL), 1, 32);
		/* the delay is injected in thread mode only (--kernel: never) */
		struct ibv_context *ctx = m->thread ? t_sim_ctx_open(m->sim) : NULL;
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct mlx5_sim_fault f = {};
		enum rte_dma_vchan_status vs = RTE_DMA_VCHAN_HALTED_ERROR;
		uint64_t deadline;
		uint16_t last;
		bool err;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst && (ctx || !m->thread));
		CU_ASSERT_EQUAL(rte_dma_vchan_status(id, 0, &vs), 0);
		CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE); /* nothing submitted */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		if (m->thread) {
			f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
			f.qpn = vi.qpn;
			f.delay_us = 1000 * 1000;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		}
		t_fill(src, kLen, 91);
		/* enqueued, not submitted: nothing in flight */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst), kLen / 2, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_vchan_status(id, 0, &vs), 0);
		CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src + kLen / 2), t_iova(dst + kLen / 2),
					     kLen / 2, RTE_DMA_OP_FLAG_SUBMIT),
				1);
		uint64_t t0 = t_now_ms();

		CU_ASSERT_EQUAL(rte_dma_vchan_status(id, 0, &vs), 0);
		if (m->thread) /* completions held back for 1 s */
			CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_ACTIVE);
		deadline = t_now_ms() + 5000;
		while (vs != RTE_DMA_VCHAN_IDLE && t_now_ms() < deadline)
			rte_dma_vchan_status(id, 0, &vs);
		CU_ASSERT_EQUAL(vs, RTE_DMA_VCHAN_IDLE);
		if (m->thread)
			CU_ASSERT_TRUE(t_now_ms() - t0 >= 950);
		CU_ASSERT_TRUE(t_check(dst, kLen, 91)); /* before completed() */
		CU_ASSERT_EQUAL(rte_dma_completed(id, 0, 2, &last, &err), 2);
		CU_ASSERT_EQUAL(last, 1);
		CU_ASSERT_FALSE(err);
		if (m->thread) {
			f.delay_us = 0;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		}
		CU_ASSERT_EQUAL(t_close("dma_mlx5_st"), 0);
		t_sim_ctx_close(ctx);
		rte_free(src);
		rte_free(dst);
	}
}

const struct cunit_test tests[] = {
	{"dump", test_dump},
	{"vchan_status", test_vchan_status},
};

} // namespace

const struct cunit_suite t_suite_status = CUNIT_SUITE("status", tests);
