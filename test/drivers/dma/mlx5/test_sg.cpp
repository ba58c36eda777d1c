/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_dma_copy_sg: every (nb_src, nb_dst) shape with random lengths and alignments,
 * the WQE chain it becomes, bad input, per-segment errors, and device faults on a
 * WQE in the middle of a chain, in every mode of the test matrix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>
#include <vector>

#include "mlx5_hw.h"
#include "mlx5_sim.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kArea = 1 << 20; /* per side */
constexpr uint8_t kGuard = 0xa5;

/* Split @p total into @p n random lengths (some may be 0 when total < n). */
void split(uint32_t total, uint16_t n, uint32_t *len, unsigned *seed)
{
	uint32_t left = total;

	for (uint16_t k = 0; k + 1 < n; k++) {
		uint32_t fair = left / (n - k);

		len[k] = fair ? (uint32_t)(rand_r(seed) % (2 * fair)) : 0;
		if (len[k] > left)
			len[k] = left;
		left -= len[k];
	}
	len[n - 1] = left;
}

/* One op's segments in a buffer, at random offsets with gaps of guard bytes between. */
void place(uint8_t *area, size_t *cursor, const uint32_t *len, uint16_t n, struct rte_dma_sge *sge,
	   unsigned *seed)
{
	for (uint16_t k = 0; k < n; k++) {
		*cursor += 1 + rand_r(seed) % 67; /* random alignment, a guard gap */
		sge[k].addr = t_iova(area + *cursor);
		sge[k].length = len[k];
		*cursor += len[k];
	}
}

struct sg_op {
	std::vector<struct rte_dma_sge> src, dst;
	uint32_t total;
};

/* Every byte of @p area outside the op's dst segments still holds the guard. */
bool guards_intact(const uint8_t *area, size_t used, const std::vector<sg_op> &ops)
{
	std::vector<bool> mine(used, false);

	for (const auto &op : ops)
		for (const auto &s : op.dst)
			for (uint32_t k = 0; k < s.length; k++)
				mine[(uint8_t *)(uintptr_t)s.addr - area + k] = true;
	for (size_t k = 0; k < used; k++)
		if (!mine[k] && area[k] != kGuard)
			return false;
	return true;
}

/* The gathered destination bytes of @p op equal the gathered source bytes. */
bool op_data_ok(const sg_op &op)
{
	std::vector<uint8_t> s, d;

	for (const auto &e : op.src)
		s.insert(s.end(), (uint8_t *)(uintptr_t)e.addr,
			 (uint8_t *)(uintptr_t)e.addr + e.length);
	for (const auto &e : op.dst)
		d.insert(d.end(), (uint8_t *)(uintptr_t)e.addr,
			 (uint8_t *)(uintptr_t)e.addr + e.length);
	return s == d && s.size() == op.total;
}

/*
 * Every (nb_src, nb_dst) in 1..max_sges, random lengths and offsets, 8 ops a burst;
 * @p extra: devargs (umr_entries=16: long lists take the UMR path).
 */
void all_shapes(const char *extra)
{
	T_FOREACH_MODE (m) {
		t_bufs b(kArea);
		int id = t_open("dma_mlx5_sg", t_args(m, extra), 1, 256);
		struct rte_dma_info info;
		unsigned seed = 7;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		CU_ASSERT_EQUAL_FATAL(rte_dma_info_get(id, &info), 0);
		CU_ASSERT_TRUE((info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG) != 0);
		CU_ASSERT_TRUE_FATAL(info.max_sges >= 2);
		t_fill(b.src, kArea, 41);
		memset(b.dst, kGuard, kArea);
		std::vector<sg_op> ops;
		size_t s_cur = 0, d_cur = 0;
		uint16_t next = 0, last = 0;
		int errors = 0;

		for (uint16_t ns = 1; ns <= info.max_sges; ns++) {
			for (uint16_t nd = 1; nd <= info.max_sges; nd++) {
				sg_op op;
				uint32_t ls[64], ld[64];

				op.total = 1 + rand_r(&seed) % 3000;
				op.src.resize(ns);
				op.dst.resize(nd);
				split(op.total, ns, ls, &seed);
				split(op.total, nd, ld, &seed);
				place(b.src, &s_cur, ls, ns, op.src.data(), &seed);
				place(b.dst, &d_cur, ld, nd, op.dst.data(), &seed);
				bool submit = ops.size() % 8 == 7;
				int r = rte_dma_copy_sg(id, 0, op.src.data(), op.dst.data(), ns, nd,
							submit ? RTE_DMA_OP_FLAG_SUBMIT : 0);
				CU_ASSERT_EQUAL(r, next);
				next++;
				ops.push_back(op);
				if (submit) {
					enum rte_dma_status_code st[8];

					CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
					for (int k = 0; k < 8; k++)
						errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
					CU_ASSERT_EQUAL(last, (uint16_t)(next - 1));
				}
			}
		}
		CU_ASSERT_TRUE_FATAL(s_cur < kArea && d_cur < kArea);
		rte_dma_submit(id, 0);
		uint16_t rest = (uint16_t)(ops.size() % 8);
		enum rte_dma_status_code st[8];

		CU_ASSERT_EQUAL(t_wait_status(id, 0, rest, st, &last), rest);
		for (uint16_t k = 0; k < rest; k++)
			errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
		CU_ASSERT_EQUAL(errors, 0);
		int bad = 0;

		for (const auto &op : ops)
			bad += !op_data_ok(op);
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_TRUE(guards_intact(b.dst, d_cur, ops));
		struct rte_dma_stats stats;

		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.submitted, ops.size());
		CU_ASSERT_EQUAL(stats.completed, ops.size());
		CU_ASSERT_EQUAL(stats.errors, 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sg"), 0);
	}
}

void test_all_shapes(void)
{
	all_shapes(NULL);
}

void test_all_shapes_umr(void)
{
	all_shapes("umr_entries=16");
}

/*
 * umr_entries=16: 16 x 16 segments whose boundaries all differ (a 31-WQE chain) go as
 * two list UMRs and one MMO through both mkeys (13 WQEBBs); a fault on the second
 * UMR fails that op alone (not on --kernel: no fault injection there); short lists
 * still take chains.
 */
void test_umr_path(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(64 * 1024);
		int id = t_open("dma_mlx5_sgu", t_args(m, "umr_entries=16"), 1, 64);
		bool kernel = m->sim == t_kernel_dev; /* no fault injection there */
		struct ibv_context *ctx = kernel ? NULL : t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct mlx5_sim_fault f = {};
		struct rte_dma_sge s[16], d[16];
		enum rte_dma_status_code st[4];
		const uint8_t *ring;
		uint32_t wqebbs, cqn;
		uint16_t last, wqe;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && (ctx || kernel));
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		CU_ASSERT_TRUE(vi.sq_wqebbs > 64); /* larger slots: a larger SQ */
		t_fill(b.src, 64 * 1024, 50);
		for (int k = 0; k < 16; k++) {
			s[k] = {t_iova(b.src + 1000 * k), 2};
			d[k] = {t_iova(b.dst + 500 * k), k == 0 ? 1u : k == 15 ? 3u : 2u};
		}
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d, 16, 16, RTE_DMA_OP_FLAG_SUBMIT), 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		uint8_t want[32], got[32];

		for (int k = 0; k < 16; k++)
			memcpy(want + 2 * k, b.src + 1000 * k, 2);
		for (int k = 0, at = 0; k < 16; k++) {
			memcpy(got + at, b.dst + 500 * k, d[k].length);
			at += d[k].length;
		}
		CU_ASSERT_EQUAL(memcmp(want, got, 32), 0);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id, 0, &ring, &wqebbs), 0);
		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode((const struct mlx5_wqe_ctrl_seg *)ring),
				MLX5_OPCODE_UMR);
		CU_ASSERT_EQUAL(
			mlx5_hw_ctrl_opcode((const struct mlx5_wqe_ctrl_seg *)(ring + 6 * 64)),
			MLX5_OPCODE_UMR);
		const auto *mmo = (const struct mlx5_hw_mmo_wqe *)(ring + 12 * 64);

		CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(&mmo->ctrl), MLX5_OPCODE_MMO);
		CU_ASSERT_EQUAL(mlx5_hw_ld_be32(&mmo->src.byte_count), 32);
		CU_ASSERT_EQUAL(mmo->ctrl.fm_ce_se & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
		if (kernel) {
			CU_ASSERT_EQUAL(t_close("dma_mlx5_sgu"), 0);
			continue;
		}
		/* a fault on the second UMR of the next such op: it fails, its neighbours not */
		CU_ASSERT_EQUAL(test_hook_next_wqe(id, 0, &wqe, &cqn), 0);
		f.kind = MLX5_SIM_FAULT_FAIL_WQE;
		f.qpn = vi.qpn;
		f.wqe_index = (uint16_t)(wqe + 1 + 6);
		f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		memset(b.dst, 0, 64 * 1024);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst + 20000), 64, 0),
				1);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d, 16, 16, 0), 2);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d, 16, 16, 0), 3);
		struct rte_dma_sge d2[2] = {{t_iova(b.dst + 30000), 3}, {t_iova(b.dst + 31000), 1}};

		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d2, 2, 2, RTE_DMA_OP_FLAG_SUBMIT), 4);
		enum rte_dma_status_code st4[4];

		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st4, &last), 4);
		CU_ASSERT_EQUAL(st4[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st4[1], RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(st4[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st4[3], RTE_DMA_STATUS_SUCCESSFUL);
		for (int k = 0, at = 0; k < 16; k++) {
			memcpy(got + at, b.dst + 500 * k, d[k].length);
			at += d[k].length;
		}
		CU_ASSERT_EQUAL(memcmp(want, got, 32), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 20000, b.src, 64), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 30000, b.src, 2), 0);
		CU_ASSERT_EQUAL(b.dst[30002], b.src[1000]);
		CU_ASSERT_EQUAL(b.dst[31000], b.src[1001]);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgu"), 0);
		t_sim_ctx_close(ctx);
	}
}

/* Blank what names per-device objects in a UMR WQE of @p nbb WQEBBs with @p n KLMs. */
void blank_umr(uint8_t *w, uint32_t n)
{
	memset(w + 4, 0, 3);  /* QPN */
	memset(w + 12, 0, 4); /* imm: the mkey */
	for (uint32_t k = 0; k < n; k++)
		memset(w + 128 + 16 * k + 4, 0, 4); /* KLM key: the device's MR */
}

/* The UMR path's bytes (2 list UMRs + MMO) are the same on the direct and verbs paths. */
void test_umr_direct_equals_verbs(void)
{
	for (int thread = 0; thread < t_exec_modes(); thread++) {
		const struct t_mode *md = t_path_mode(thread, false),
				    *mv = t_path_mode(thread, true);
		t_bufs b(64 * 1024);
		int id_d = t_open("dma_mlx5_sud", t_args(md, "umr_entries=16"), 1, 32);
		int id_v = t_open("dma_mlx5_suv", t_args(mv, "umr_entries=16"), 1, 32);
		struct rte_dma_sge s[16], d[16];
		enum rte_dma_status_code st;
		const uint8_t *rd, *rv;
		uint32_t nd, nv;
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id_d >= 0 && id_v >= 0 && b.ok());
		for (int k = 0; k < 16; k++) {
			s[k] = {t_iova(b.src + 1000 * k), 2};
			d[k] = {t_iova(b.dst + 500 * k), k == 0 ? 1u : k == 15 ? 3u : 2u};
		}
		for (int id : {id_d, id_v}) {
			CU_ASSERT_EQUAL(
				rte_dma_copy_sg(id, 0, s, d, 16, 16,
						RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_SUBMIT),
				0);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
			CU_ASSERT_EQUAL(st, RTE_DMA_STATUS_SUCCESSFUL);
		}
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_d, 0, &rd, &nd), 0);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_v, 0, &rv, &nv), 0);
		std::vector<uint8_t> wd(rd, rd + 13 * 64), wv(rv, rv + 13 * 64);

		for (auto *w : {&wd, &wv}) {
			uint8_t *p = w->data();

			blank_umr(p, 16);
			blank_umr(p + 6 * 64, 16);
			memset(p + 12 * 64 + 4, 0, 3);   /* MMO: QPN */
			memset(p + 12 * 64 + 12, 0, 20); /* imm, metadata */
			memset(p + 12 * 64 + 36, 0, 4);  /* source key (mkey) */
			memset(p + 12 * 64 + 52, 0, 4);  /* destination key (mkey) */
		}
		for (size_t k = 0; k < wd.size(); k++)
			if (wd[k] != wv[k]) {
				fprintf(stderr, "UMR path byte %zu: direct 0x%02x, verbs 0x%02x\n",
					k, wd[k], wv[k]);
				CU_FAIL("direct and verbs UMR-path WQEs differ");
				break;
			}
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sud"), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_suv"), 0);
	}
}

/* src [100, 50], dst [70, 80]: three MMO WQEs, FENCE on the first, one CQE request. */
void test_chain_bytes(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(4096);
		int id = t_open("dma_mlx5_sgb", t_args(m, NULL), 1, 32);
		const uint8_t *ring;
		uint32_t wqebbs;
		uint16_t last;
		enum rte_dma_status_code st;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		t_fill(b.src, 4096, 43);
		struct rte_dma_sge s[2] = {{t_iova(b.src), 100}, {t_iova(b.src + 1000), 50}};
		struct rte_dma_sge d[2] = {{t_iova(b.dst + 5), 70}, {t_iova(b.dst + 2000), 80}};

		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d, 2, 2,
						RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_SUBMIT),
				0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
		CU_ASSERT_EQUAL(st, RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst + 5, b.src, 70), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 2000, b.src + 70, 30), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 2030, b.src + 1000, 50), 0);
		CU_ASSERT_EQUAL(b.dst[4], 0);
		CU_ASSERT_EQUAL(b.dst[75], 0);
		CU_ASSERT_EQUAL(b.dst[2080], 0);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id, 0, &ring, &wqebbs), 0);
		static const uint32_t want_len[3] = {70, 30, 50};
		static const uint64_t want_src[3] = {0, 70, 1000};
		static const uint64_t want_dst[3] = {5, 2000, 2030};

		for (int w = 0; w < 3; w++) {
			const auto *mmo = (const struct mlx5_hw_mmo_wqe *)(ring + w * 64);

			CU_ASSERT_EQUAL(mlx5_hw_ctrl_opcode(&mmo->ctrl), MLX5_OPCODE_MMO);
			CU_ASSERT_EQUAL(mlx5_hw_ctrl_index(&mmo->ctrl), w);
			CU_ASSERT_EQUAL(mlx5_hw_ld_be32(&mmo->src.byte_count), want_len[w]);
			CU_ASSERT_EQUAL(mlx5_hw_ld_be64(&mmo->src.addr),
					t_iova(b.src) + want_src[w]);
			CU_ASSERT_EQUAL(mlx5_hw_ld_be64(&mmo->dst.addr),
					t_iova(b.dst) + want_dst[w]);
			CU_ASSERT_EQUAL(mmo->ctrl.fm_ce_se & MLX5_WQE_CTRL_FENCE,
					w == 0 ? MLX5_WQE_CTRL_FENCE : 0);
			CU_ASSERT_EQUAL(mmo->ctrl.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE,
					w == 2 ? MLX5_WQE_CTRL_CQ_UPDATE : 0);
		}
		/* the next op takes the next ring index and the WQEBB after the chain */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst + 3000), 8,
					     RTE_DMA_OP_FLAG_SUBMIT),
				1);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, &st, &last), 1);
		CU_ASSERT_EQUAL(mlx5_hw_ctrl_index((const struct mlx5_wqe_ctrl_seg *)(ring + 192)),
				3);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgb"), 0);
	}
}

/* Contract violations: -EINVAL, no ring index taken; per-segment faults: the op's status. */
void test_bad_input(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(8192);
		uint8_t *heap = (uint8_t *)aligned_alloc(64, 4096);
		int id = t_open("dma_mlx5_sgx", t_args(m, NULL), 1, 64);
		struct rte_dma_info info;
		enum rte_dma_status_code st[8];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && heap);
		CU_ASSERT_EQUAL_FATAL(rte_dma_info_get(id, &info), 0);
		std::vector<struct rte_dma_sge> many(info.max_sges + 1, {t_iova(b.src), 1});
		struct rte_dma_sge s1 = {t_iova(b.src), 64}, d1 = {t_iova(b.dst), 64};
		struct rte_dma_sge d2 = {t_iova(b.dst), 65};

		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, &d1, 0, 1, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, &d1, 1, 0, 0), -EINVAL);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, many.data(), &d1, info.max_sges + 1, 1, 0),
				-EINVAL);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, many.data(), 1, info.max_sges + 1, 0),
				-EINVAL);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, &d2, 1, 1, 0), -EINVAL);
		/* per op: an unregistered segment on either side, an empty op */
		t_fill(heap, 4096, 44);
		t_fill(b.src, 8192, 45);
		struct rte_dma_sge sh[2] = {{t_iova(b.src), 32}, {t_iova(heap), 32}};
		struct rte_dma_sge dh[2] = {{t_iova(b.dst + 100), 32}, {t_iova(heap + 64), 32}};
		struct rte_dma_sge z = {t_iova(b.src), 0}, zd = {t_iova(b.dst), 0};
		struct rte_dma_sge sd[2] = {{t_iova(b.dst + 200), 10}, {t_iova(b.dst + 300), 54}};

		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, sh, &d1, 2, 1, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, dh, 1, 2, 0), 1);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &z, &zd, 1, 1, 0), 2);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, &s1, sd, 1, 2, RTE_DMA_OP_FLAG_SUBMIT), 3);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_DST_ADDR);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(st[3], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(last, 3);
		CU_ASSERT_TRUE(t_check(heap, 4096, 44)); /* never written */
		CU_ASSERT_EQUAL(b.dst[0], 0);            /* failed ops wrote nothing */
		CU_ASSERT_EQUAL(b.dst[100], 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 200, b.src, 10), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 300, b.src + 10, 54), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgx"), 0);
		free(heap);
	}
}

/* Four 1 KiB chunks of @p dst as 3 segments from 4 source segments: 6 WQEs. */
struct chain4 {
	struct rte_dma_sge s[4], d[3];

	chain4(uint8_t *src, uint8_t *dst)
	{
		for (int k = 0; k < 4; k++)
			s[k] = {t_iova(src + k * 1024), 1024};
		d[0] = {t_iova(dst), 1000};
		d[1] = {t_iova(dst + 1000), 2100};
		d[2] = {t_iova(dst + 3100), 996};
	}
};

/*
 * A device failure on the third WQE of a six-WQE chain fails that op only; the chain's
 * other ops around it succeed, and a QP fatal error in the middle of chains loses
 * nothing: exact statuses and stats.
 */
void test_faults(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(64 * 1024);
		int id = t_open("dma_mlx5_sgf", t_args(m, NULL), 1, 64);
		struct ibv_context *ctx = t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct rte_pmd_dma_mlx5_error e;
		struct mlx5_sim_fault f = {};
		enum rte_dma_status_code st[8];
		struct rte_dma_stats stats;
		uint16_t last, wqe;
		uint32_t cqn;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok() && ctx);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		t_fill(b.src, 64 * 1024, 46);
		CU_ASSERT_EQUAL(test_hook_next_wqe(id, 0, &wqe, &cqn), 0);
		f.kind = MLX5_SIM_FAULT_FAIL_WQE;
		f.qpn = vi.qpn;
		f.wqe_index = (uint16_t)(wqe + 1 + 2); /* op 1 (a chain), its third WQE */
		f.syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		chain4 c1(b.src, b.dst + 8192), c2(b.src + 4096, b.dst + 16384);

		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), 4096, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, c1.s, c1.d, 4, 3, 0), 1);
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, c2.s, c2.d, 4, 3, RTE_DMA_OP_FLAG_FENCE), 2);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst + 4096), 4096,
					     RTE_DMA_OP_FLAG_SUBMIT),
				3);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
		CU_ASSERT_EQUAL(last, 3);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_INVALID_ADDR);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[3], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst, b.src, 4096), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 4096, b.src, 4096), 0);
		CU_ASSERT_EQUAL(memcmp(b.dst + 16384, b.src + 4096, 4096), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		CU_ASSERT_EQUAL(e.ring_idx, 1);
		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.submitted, 4);
		CU_ASSERT_EQUAL(stats.completed, 4);
		CU_ASSERT_EQUAL(stats.errors, 1);
		/* QP fatal: chains flushed anywhere run again whole, exactly once */
		memset(b.dst, 0, 64 * 1024);
		f = {};
		f.kind = MLX5_SIM_FAULT_QP_FATAL;
		f.qpn = vi.qpn;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		for (int k = 0; k < 8; k++) {
			chain4 c(b.src + k * 4096, b.dst + k * 4096);

			CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, c.s, c.d, 4, 3,
							k % 3 == 2 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					4 + k);
		}
		rte_dma_submit(id, 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
		CU_ASSERT_EQUAL(last, 11);
		for (int k = 0; k < 8; k++)
			CU_ASSERT_EQUAL(st[k], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst, b.src, 8 * 4096), 0);
		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.submitted, 12);
		CU_ASSERT_EQUAL(stats.completed, 12);
		CU_ASSERT_EQUAL(stats.errors, 1);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgf"), 0);
		t_sim_ctx_close(ctx);
	}
}

/* Chains and copies interleaved through a small ring: wraps, -ENOSPC, fences. */
void test_mixed_wrap(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(256 * 1024);
		int id = t_open("dma_mlx5_sgw", t_args(m, NULL), 1, 32);
		unsigned seed = 11;
		uint16_t next = 0, done = 0, last;
		int errors = 0, enospc = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		t_fill(b.src, 256 * 1024, 47);
		for (int op = 0; op < 3000; op++) {
			uint32_t slot = (op % 64) * 4096;
			uint64_t fl = (rand_r(&seed) % 5 == 0 ? RTE_DMA_OP_FLAG_FENCE : 0) |
				      (rand_r(&seed) % 4 == 0 ? RTE_DMA_OP_FLAG_SUBMIT : 0);
			int r;

			for (;;) {
				if (op % 3) {
					chain4 c(b.src + slot, b.dst + slot);

					r = rte_dma_copy_sg(id, 0, c.s, c.d, 4, 3, fl);
				} else {
					r = rte_dma_copy(id, 0, t_iova(b.src + slot),
							 t_iova(b.dst + slot), 4096, fl);
				}
				if (r != -ENOSPC)
					break;
				enospc++;
				rte_dma_submit(id, 0);
				enum rte_dma_status_code st[32];
				uint16_t n = rte_dma_completed_status(id, 0, 32, &last, st);

				for (uint16_t k = 0; k < n; k++)
					errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
				done += n;
			}
			CU_ASSERT_EQUAL(r, next);
			if (r != next)
				break;
			next++;
		}
		rte_dma_submit(id, 0);
		enum rte_dma_status_code st[64];
		uint16_t rest = (uint16_t)(next - done);

		CU_ASSERT_EQUAL(t_wait_status(id, 0, rest, st, &last), rest);
		for (uint16_t k = 0; k < rest; k++)
			errors += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
		CU_ASSERT_EQUAL(errors, 0);
		CU_ASSERT_TRUE(enospc > 0);
		CU_ASSERT_EQUAL(memcmp(b.dst, b.src, 256 * 1024), 0);
		CU_ASSERT_EQUAL(rte_dma_burst_capacity(id, 0), 31);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgw"), 0);
	}
}

/*
 * The longest chain (16 x 16 segments whose boundaries all differ: 31 WQEs) in a
 * 32-WQEBB SQ, then copies behind it: the SQ never fills completely (libmlx5 refuses
 * a batch that would), so every op completes on both paths.
 */
void test_full_sq(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(4096);
		int id = t_open("dma_mlx5_sgq", t_args(m, NULL), 1, 32);
		struct rte_dma_sge s[16], d[16];
		enum rte_dma_status_code st[4];
		uint16_t last;
		int r;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.ok());
		t_fill(b.src, 4096, 49);
		for (int k = 0; k < 16; k++) {
			s[k] = {t_iova(b.src + 2 * k), 2};
			d[k] = {t_iova(b.dst + (k ? 2 * k - 1 : 0)), k == 0    ? 1u
								     : k == 15 ? 3u
									       : 2u};
		}
		CU_ASSERT_EQUAL(rte_dma_copy_sg(id, 0, s, d, 16, 16, 0), 0);
		/* one WQEBB left: taking it would fill the SQ */
		r = rte_dma_copy(id, 0, t_iova(b.src + 100), t_iova(b.dst + 100), 8, 0);
		CU_ASSERT_EQUAL(r, -ENOSPC);
		rte_dma_submit(id, 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst, b.src, 32), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + 100), t_iova(b.dst + 100), 8,
					     RTE_DMA_OP_FLAG_SUBMIT),
				1);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.dst + 100, b.src + 100, 8), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sgq"), 0);
	}
}

const struct cunit_test tests[] = {
	{"full_sq", test_full_sq},
	{"all_shapes_umr_entries_16", test_all_shapes_umr},
	{"umr_path", test_umr_path},
	{"umr_direct_equals_verbs", test_umr_direct_equals_verbs},
	{"all_shapes", test_all_shapes},
	{"chain_bytes", test_chain_bytes},
	{"bad_input", test_bad_input},
	{"faults_in_chain", test_faults},
	{"mixed_ring_wrap", test_mixed_wrap},
};

} // namespace

const struct cunit_suite t_suite_sg = CUNIT_SUITE("copy_sg", tests);
