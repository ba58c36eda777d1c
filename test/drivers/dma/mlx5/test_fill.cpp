/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_dma_fill through an interleaved mkey over a pattern buffer: every length
 * 1..4096 at every alignment class, large fills, more patterns than slots, the WQEs
 * it becomes on both paths, and device faults on its UMR or its MMO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>

#include <rte_malloc.h>

#include "mlx5_hw.h"
#include "mlx5_sim.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr uint8_t kGuard = 0x5a;

/* Byte j of a fill with @p pattern, as rte_dmadev.h defines it. */
inline uint8_t pat_byte(uint64_t pattern, size_t j)
{
	return ((const uint8_t *)&pattern)[j % 8];
}

bool filled(const uint8_t *p, size_t len, uint64_t pattern)
{
	for (size_t j = 0; j < len; j++)
		if (p[j] != pat_byte(pattern, j))
			return false;
	return true;
}

bool all_guard(const uint8_t *p, size_t len)
{
	for (size_t j = 0; j < len; j++)
		if (p[j] != kGuard)
			return false;
	return true;
}

/* A device with fill: FILL advertised, and every length 1..4096 at offsets 0..63. */
void test_lengths(void)
{
	T_FOREACH_MODE (m) {
		constexpr size_t kSpan = 4096 + 128;
		constexpr int kBatch = 16;
		uint8_t *area = (uint8_t *)rte_malloc(NULL, kBatch * kSpan, 64);
		int id = t_open("dma_mlx5_fl", t_args(m, NULL), 1, 256);
		struct rte_dma_info info;
		uint16_t last, next = 0;
		int bad = 0, errors = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && area);
		CU_ASSERT_EQUAL_FATAL(rte_dma_info_get(id, &info), 0);
		CU_ASSERT_TRUE_FATAL((info.dev_capa & RTE_DMA_CAPA_OPS_FILL) != 0);
		for (uint32_t base = 1; base <= 4096; base += kBatch) {
			uint64_t pattern = 0x0123456789abcdefull * base ^ (uint64_t)base << 40;
			uint32_t off[kBatch], len[kBatch];
			int n = 0;

			memset(area, kGuard, kBatch * kSpan);
			for (int k = 0; k < kBatch && base + k <= 4096; k++, n++) {
				off[k] = (base + k * 13) % 64 + 64;
				len[k] = base + k;
				/* two patterns per batch: slots shared and not */
				uint64_t pt = k % 2 ? pattern : ~pattern;

				CU_ASSERT_EQUAL(rte_dma_fill(id, 0, pt,
							     t_iova(area + k * kSpan + off[k]),
							     len[k], 0),
						next);
				next++;
			}
			rte_dma_submit(id, 0);
			enum rte_dma_status_code st[kBatch];

			CU_ASSERT_EQUAL(t_wait_status(id, 0, n, st, &last), n);
			for (int k = 0; k < n; k++) {
				const uint8_t *p = area + k * kSpan;
				uint64_t pt = k % 2 ? pattern : ~pattern;

				errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
				bad += !filled(p + off[k], len[k], pt) || !all_guard(p, off[k]) ||
				       !all_guard(p + off[k] + len[k], kSpan - off[k] - len[k]);
			}
		}
		CU_ASSERT_EQUAL(errors, 0);
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_fl"), 0);
		rte_free(area);
	}
}

/*
 * 1 MiB and odd large fills; beyond the device's largest op and 0: INVALID_LENGTH (on
 * the imitation's 4 KiB instances too).
 */
void test_large(void)
{
	T_FOREACH_MODE (m) {
		constexpr size_t kBig = (1 << 20) + 4096;
		uint8_t *area = (uint8_t *)rte_malloc(NULL, kBig, 64);
		int id = t_open("dma_mlx5_flb", t_args(m, NULL), 1, 64);
		enum rte_dma_status_code st[4];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && area);
		memset(area, kGuard, kBig);
		CU_ASSERT_EQUAL(
			rte_dma_fill(id, 0, 0xfedcba9876543210ull, t_iova(area + 8), 1 << 20, 0),
			0);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0x1122334455667788ull,
					     t_iova(area + (1 << 20) + 100), 3001,
					     RTE_DMA_OP_FLAG_SUBMIT),
				1);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(all_guard(area, 8));
		CU_ASSERT_TRUE(filled(area + 8, 1 << 20, 0xfedcba9876543210ull));
		CU_ASSERT_TRUE(all_guard(area + 8 + (1 << 20), 92));
		CU_ASSERT_TRUE(filled(area + (1 << 20) + 100, 3001, 0x1122334455667788ull));
		CU_ASSERT_TRUE(all_guard(area + (1 << 20) + 3101, kBig - (1 << 20) - 3101));
		/* one past this device's largest op, and 0: refused, nothing written */
		struct rte_pmd_dma_mlx5_mkey_limits lim;

		CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_mkey_limits(id, 0, &lim), 0);
		memset(area, kGuard, kBig);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 9, t_iova(area), lim.max_copy_len + 1, 0), 2);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 9, t_iova(area), 0, 0), 3);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 9, t_iova(area), 64, RTE_DMA_OP_FLAG_SUBMIT),
				4);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 3, st, &last), 3);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(filled(area, 64, 9));
		CU_ASSERT_TRUE(all_guard(area + 64, kBig - 64));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flb"), 0);
		if (m->sim == t_kernel_dev) { /* no kernel device with a 4 KiB limit */
			rte_free(area);
			continue;
		}
		/* a device whose largest memcpy is 4 KiB */
		char args[128];

		snprintf(args, sizeof(args), "dev=%s,sim_exec=%s,path=%s",
			 m->thread ? T_SIM_SMALL_THREAD : T_SIM_SMALL_INLINE,
			 m->thread ? "thread" : "inline", m->path);
		id = t_open("dma_mlx5_fls", args, 1, 32);
		CU_ASSERT_TRUE_FATAL(id >= 0);
		memset(area, kGuard, kBig);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 7, t_iova(area), T_SMALL_MAX_LEN, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 7, t_iova(area + 8192), T_SMALL_MAX_LEN + 1, 0),
				1);
		CU_ASSERT_EQUAL(
			rte_dma_fill(id, 0, 7, t_iova(area + 8192), 0, RTE_DMA_OP_FLAG_SUBMIT), 2);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 3, st, &last), 3);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_TRUE(filled(area, T_SMALL_MAX_LEN, 7));
		CU_ASSERT_TRUE(all_guard(area + T_SMALL_MAX_LEN, 8192));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_fls"), 0);
		rte_free(area);
	}
}

/*
 * More distinct patterns in flight than the vchan has slots: -ENOSPC until one
 * completes, never a wrong pattern; the same pattern again needs no new slot.
 */
void test_pattern_churn(void)
{
	T_FOREACH_MODE (m) {
		uint8_t *area = (uint8_t *)rte_malloc(NULL, 64 * 256, 64);
		int id = t_open("dma_mlx5_flc", t_args(m, NULL), 1, 128);
		enum rte_dma_status_code st[64];
		uint16_t last, next = 0;
		int k, enospc = 0, bad = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && area);
		memset(area, kGuard, 64 * 256);
		/* 8 slots: 8 distinct patterns enqueue, the 9th waits for a completion */
		for (k = 0; k < 8; k++)
			CU_ASSERT_EQUAL(
				rte_dma_fill(id, 0, 100 + k, t_iova(area + k * 256), 200, 0),
				next++);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 108, t_iova(area + 8 * 256), 200, 0), -ENOSPC);
		/* a pattern a slot holds still goes */
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 103, t_iova(area + 9 * 256), 200, 0), next++);
		rte_dma_submit(id, 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, next, st, &last), next);
		for (k = 10; k < 64; k++) {
			int r;

			while ((r = rte_dma_fill(id, 0, 100 + k, t_iova(area + k * 256), 200, 0)) ==
			       -ENOSPC) {
				enospc++;
				rte_dma_submit(id, 0);
				rte_dma_completed_status(id, 0, 64, &last, st);
			}
			CU_ASSERT_EQUAL(r, next);
			next++;
		}
		rte_dma_submit(id, 0);
		struct rte_dma_stats stats;

		for (uint64_t t0 = t_now_ms(); t_now_ms() - t0 < 5000;) {
			rte_dma_completed_status(id, 0, 64, &last, st);
			CU_ASSERT_EQUAL_FATAL(rte_dma_stats_get(id, 0, &stats), 0);
			if (stats.completed == next)
				break;
		}
		CU_ASSERT_EQUAL(stats.completed, next);
		CU_ASSERT_EQUAL(stats.errors, 0);
		CU_ASSERT_TRUE(enospc > 0);
		for (k = 0; k < 64; k++) {
			uint64_t pt = k == 9 ? 103 : 100 + k;

			if (k == 8)
				continue;
			bad += !filled(area + k * 256, 200, pt) ||
			       !all_guard(area + k * 256 + 200, 56);
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_TRUE(all_guard(area + 8 * 256, 256));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flc"), 0);
		rte_free(area);
	}
}

/*
 * The WQEs of a fill, on both paths: a UMR (interleaved, one entry of stride 0 over
 * the pattern buffer, op FENCE) then an MMO from the mkey with the small fence; the
 * same pattern again once that op completed: the MMO alone.
 */
void test_wqe_bytes(void)
{
	T_FOREACH_MODE (m) {
		uint8_t *area = (uint8_t *)rte_malloc(NULL, 4096, 64);
		int id = t_open("dma_mlx5_flw", t_args(m, NULL), 1, 32);
		enum rte_dma_status_code st;
		const uint8_t *ring;
		uint32_t wqebbs;
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && area);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0xabcdef, t_iova(area), 1000,
					     RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_SUBMIT),
				0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
		CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0xabcdef, t_iova(area + 2000), 1000,
					     RTE_DMA_OP_FLAG_SUBMIT),
				1);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
		CU_ASSERT_TRUE(filled(area, 1000, 0xabcdef) && filled(area + 2000, 1000, 0xabcdef));
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id, 0, &ring, &wqebbs), 0);
		const auto *ctrl = (const struct mlx5_wqe_ctrl_seg *)ring;
		const auto *umr = (const struct mlx5_wqe_umr_ctrl_seg *)(ring + 16);
		const uint8_t *mk = ring + 64, *rb = ring + 128;
		uint32_t mkey = mlx5_hw_ld_be32(&ctrl->imm);

		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(ctrl), MLX5_OPCODE_UMR);
		CU_ASSERT_EQUAL(mlx5_hw_ctrl_ds(ctrl), 12);
		CU_ASSERT_EQUAL(ctrl->fm_ce_se, MLX5_WQE_CTRL_FENCE);
		CU_ASSERT_EQUAL(umr->flags, MLX5_WQE_UMR_CTRL_FLAG_INLINE);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be16(&umr->klm_octowords), 4);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be64(&umr->mkey_mask), 0x203c2001ull);
		CU_ASSERT_EQUAL(mk[0], 0);    /* valid */
		CU_ASSERT_EQUAL(mk[2], 0x08); /* local write */
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(mk + 4), 0xffffff00 | (mkey & 0xff));
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(rb), 64);        /* bytes per repetition */
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(rb + 4), 0x400); /* repeat block */
		CU_ASSERT_EQUAL(mlx5_hw_ld_be16(rb + 14), 1);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be64(mk + 24), 64ull * mlx5_hw_ld_be32(rb + 8));
		CU_ASSERT_TRUE(mlx5_hw_ld_be64(mk + 24) >= (1ull << 31) - 64);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be16(rb + 16), 0); /* stride 0: the same bytes */
		CU_ASSERT_EQUAL(mlx5_hw_ld_be16(rb + 18), 64);
		const auto *mmo = (const struct mlx5_hw_mmo_wqe *)(ring + 3 * 64);

		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(&mmo->ctrl), MLX5_OPCODE_MMO);
		CU_ASSERT_EQUAL(mmo->ctrl.fm_ce_se,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(&mmo->src.lkey), mkey);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be64(&mmo->src.addr), 0);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(&mmo->src.byte_count), 1000);
		const auto *again = (const struct mlx5_hw_mmo_wqe *)(ring + 4 * 64);

		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(&again->ctrl), MLX5_OPCODE_MMO);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(&again->src.lkey), mkey);
		CU_ASSERT_EQUAL(again->ctrl.fm_ce_se, MLX5_WQE_CTRL_CQ_UPDATE);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flw"), 0);
		rte_free(area);
	}
}

/* Blank the per-device fields of a fill's UMR + MMO (4 WQEBBs at @p w). */
void blank_fill(uint8_t *w)
{
	memset(w + 4, 0, 3);        /* QPN (ds stays) */
	memset(w + 12, 0, 4);       /* imm: the mkey */
	memset(w + 128 + 20, 0, 4); /* repeat entry: pattern buffer key ... */
	memset(w + 128 + 24, 0, 8); /* ... and address */
	uint8_t *mmo = w + 3 * 64;

	memset(mmo + 4, 0, 3);   /* QPN */
	memset(mmo + 12, 0, 4);  /* imm: not written by either path */
	memset(mmo + 20, 0, 12); /* MMO metadata: the PD's opaque buffer */
	memset(mmo + 36, 0, 4);  /* source key: the mkey */
	memset(mmo + 52, 0, 4);  /* destination key: the device's MR */
}

/*
 * The direct path writes the bytes libmlx5's builders write: one fill on a direct and
 * on a verbs device, rings compared byte for byte but for per-device names.
 */
void test_direct_equals_verbs(void)
{
	for (int thread = 0; thread < t_exec_modes(); thread++) {
		const struct t_mode *md = t_path_mode(thread, false),
				    *mv = t_path_mode(thread, true);
		uint8_t *area = (uint8_t *)rte_malloc(NULL, 4096, 64);
		int id_d = t_open("dma_mlx5_fld", t_args(md, NULL), 1, 32);
		int id_v = t_open("dma_mlx5_flv", t_args(mv, NULL), 1, 32);
		enum rte_dma_status_code st;
		const uint8_t *rd, *rv;
		uint32_t nd, nv;
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id_d >= 0 && id_v >= 0 && area && md->path[0] == 'd' &&
				     mv->path[0] == 'v');
		for (int id : {id_d, id_v}) {
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0x1234, t_iova(area + 8), 3000,
						     RTE_DMA_OP_FLAG_SUBMIT),
					0);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
			CU_ASSERT_EQUAL(st, RTE_DMA_STATUS_SUCCESSFUL);
		}
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_d, 0, &rd, &nd), 0);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_v, 0, &rv, &nv), 0);
		uint8_t d[4 * 64], v[4 * 64];

		memcpy(d, rd, sizeof(d));
		memcpy(v, rv, sizeof(v));
		blank_fill(d);
		blank_fill(v);
		for (size_t k = 0; k < sizeof(d); k++)
			if (d[k] != v[k]) {
				fprintf(stderr, "fill WQE byte %zu: direct 0x%02x, verbs 0x%02x\n",
					k, d[k], v[k]);
				CU_FAIL("direct and verbs fill WQEs differ");
				break;
			}
		CU_ASSERT_EQUAL(t_close("dma_mlx5_fld"), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flv"), 0);
		rte_free(area);
	}
}

/*
 * Faults on a fill's UMR and on its MMO: that op fails alone, the fills behind it
 * (same pattern, its mkey configured again) succeed; a QP fatal error loses nothing.
 */
void test_faults(void)
{
	T_FOREACH_MODE (m) {
		uint8_t *area = (uint8_t *)rte_malloc(NULL, 16 * 1024, 64);
		int id = t_open("dma_mlx5_flf", t_args(m, NULL), 1, 64);
		struct ibv_context *ctx = t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct mlx5_sim_fault f = {};
		enum rte_dma_status_code st[8];
		struct rte_dma_stats stats;
		uint16_t last, wqe;
		uint32_t cqn;

		CU_ASSERT_TRUE_FATAL(id >= 0 && area && ctx);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		for (int round = 0; round < 2; round++) {
			uint16_t base = (uint16_t)(round * 4);

			memset(area, kGuard, 16 * 1024);
			CU_ASSERT_EQUAL(test_hook_next_wqe(id, 0, &wqe, &cqn), 0);
			f = {};
			f.kind = MLX5_SIM_FAULT_FAIL_WQE;
			f.qpn = vi.qpn;
			/* round 0: the UMR of op 1 (after a 1-WQEBB copy); 1: its MMO */
			f.wqe_index = (uint16_t)(wqe + 1 + (round ? 3 : 0));
			f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
			uint64_t pt = 0x1111111111111111ull * (round + 3);

			CU_ASSERT_EQUAL(
				rte_dma_copy(id, 0, t_iova(area + 8192), t_iova(area), 64, 0),
				base);
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, pt, t_iova(area + 1024), 1024, 0),
					base + 1);
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, pt, t_iova(area + 2048), 1024, 0),
					base + 2);
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, ~pt, t_iova(area + 3072), 1024,
						     RTE_DMA_OP_FLAG_SUBMIT),
					base + 3);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
			CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_ADDR);
			CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_EQUAL(st[3], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_TRUE(all_guard(area + 1024, 1024));
			CU_ASSERT_TRUE(filled(area + 2048, 1024, pt));
			CU_ASSERT_TRUE(filled(area + 3072, 1024, ~pt));
		}
		/* QP fatal in the middle of fills: all run, exactly once */
		memset(area, kGuard, 16 * 1024);
		f = {};
		f.kind = MLX5_SIM_FAULT_QP_FATAL;
		f.qpn = vi.qpn;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		for (int k = 0; k < 8; k++)
			CU_ASSERT_EQUAL(rte_dma_fill(id, 0, 0x0102030405060708ull * (k % 3 + 1),
						     t_iova(area + k * 1024), 1000,
						     k % 3 == 2 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					8 + k);
		rte_dma_submit(id, 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
		for (int k = 0; k < 8; k++) {
			CU_ASSERT_EQUAL(st[k], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_TRUE(
				filled(area + k * 1024, 1000, 0x0102030405060708ull * (k % 3 + 1)));
			CU_ASSERT_TRUE(all_guard(area + k * 1024 + 1000, 24));
		}
		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.submitted, 16);
		CU_ASSERT_EQUAL(stats.completed, 16);
		CU_ASSERT_EQUAL(stats.errors, 2);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flf"), 0);
		t_sim_ctx_close(ctx);
		rte_free(area);
	}
}

/* Fills, copies and SG copies interleaved with fences through a small ring. */
void test_mixed(void)
{
	constexpr int kOps = 1500;
	constexpr uint32_t kOp = 1024;

	T_FOREACH_MODE (m) {
		t_bufs b(kOps * kOp);
		int id = t_open("dma_mlx5_flm", t_args(m, NULL), 1, 32);
		unsigned seed = 5;
		uint16_t next = 0, last;
		int errors = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		t_fill(b.src, kOps * kOp, 48);
		for (int op = 0; op < kOps; op++) {
			uint8_t *s = b.src + op * kOp, *d = b.dst + op * kOp;
			uint64_t fl = (rand_r(&seed) % 4 == 0 ? RTE_DMA_OP_FLAG_FENCE : 0) |
				      (rand_r(&seed) % 3 == 0 ? RTE_DMA_OP_FLAG_SUBMIT : 0);
			int r;

			for (;;) {
				switch (op % 3) {
				case 0:
					r = rte_dma_fill(id, 0, 0x0101010101010101ull * (op % 11),
							 t_iova(d), kOp, fl);
					break;
				case 1:
					r = rte_dma_copy(id, 0, t_iova(s), t_iova(d), kOp, fl);
					break;
				default: {
					struct rte_dma_sge sv[2] = {{t_iova(s), 100},
								    {t_iova(s + 100), 924}};
					struct rte_dma_sge dv[3] = {{t_iova(d), 10},
								    {t_iova(d + 10), 1000},
								    {t_iova(d + 1010), 14}};

					r = rte_dma_copy_sg(id, 0, sv, dv, 2, 3, fl);
				}
				}
				if (r != -ENOSPC)
					break;
				enum rte_dma_status_code st[32];

				rte_dma_submit(id, 0);
				uint16_t n = rte_dma_completed_status(id, 0, 32, &last, st);

				for (uint16_t k = 0; k < n; k++)
					errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
			}
			CU_ASSERT_EQUAL(r, next);
			next++;
		}
		rte_dma_submit(id, 0);
		struct rte_dma_stats stats = {};
		enum rte_dma_status_code st[32];

		for (uint64_t t0 = t_now_ms(); t_now_ms() - t0 < 5000;) {
			uint16_t n = rte_dma_completed_status(id, 0, 32, &last, st);

			for (uint16_t k = 0; k < n; k++)
				errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
			rte_dma_stats_get(id, 0, &stats);
			if (stats.completed == kOps)
				break;
		}
		CU_ASSERT_EQUAL(stats.completed, kOps);
		CU_ASSERT_EQUAL(errors, 0);
		int bad = 0;

		for (int op = 0; op < kOps; op++) {
			const uint8_t *d = b.dst + op * kOp;

			if (op % 3 == 0)
				bad += !filled(d, kOp, 0x0101010101010101ull * (op % 11));
			else
				bad += memcmp(d, b.src + op * kOp, kOp) != 0;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flm"), 0);
	}
}

const struct cunit_test tests[] = {
	{"every_length_1_4096", test_lengths},
	{"large_and_too_large", test_large},
	{"pattern_churn", test_pattern_churn},
	{"wqe_bytes", test_wqe_bytes},
	{"faults_on_umr_and_mmo", test_faults},
	{"mixed_with_copies", test_mixed},
	{"direct_equals_verbs", test_direct_equals_verbs},
};

} // namespace

const struct cunit_suite t_suite_fill = CUNIT_SUITE("fill", tests);
