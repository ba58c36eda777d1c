/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * SQ sizing exactly as libmlx5 v44.0 computes it (rdma-core providers/mlx5/verbs.c,
 * _sq_overhead, mlx5_calc_send_wqe and mlx5_calc_sq_size; checked against every QP of the
 * golden vectors), including the v44.0 omission of the UMR reserve for a
 * QP whose only UMR-capable dv operation is MKEY_CONFIGURE.
 */
#include <errno.h>

#include "provider.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kRdmaOps = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			      IBV_QP_EX_WITH_RDMA_READ;
constexpr uint64_t kAtomicOps = IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
constexpr uint64_t kUmrOps = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
/* v44.0: MKEY_CONFIGURE is missing here (fixed in v44.1/v45). */
constexpr uint64_t kDvUmrOps = MLX5DV_QP_EX_WITH_MR_INTERLEAVED | MLX5DV_QP_EX_WITH_MR_LIST;

constexpr int kCtrlAndMin = 32;     /* what v44.0 reserves for any RC/DCI WQE */
constexpr int kRdmaOverhead = 32;   /* ctrl + raddr */
constexpr int kAtomicOverhead = 48; /* ctrl + raddr + atomic */
constexpr int kUmrOverhead = 192;   /* ctrl + UMR ctrl + mkey context + 64 */
constexpr int kAvOverhead = 48;     /* DC address vector */
constexpr int kDs = 16;

int align_up(int v, int a)
{
	return (v + a - 1) / a * a;
}

uint64_t roundup_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

int sq_overhead(bool is_dci, bool ops_valid, uint64_t ops, uint64_t dv_ops)
{
	int size = kCtrlAndMin;

	if (!ops_valid)
		ops = ~0ull; /* no mask supplied: every operation is assumed */
	if (ops & kRdmaOps)
		size = size > kRdmaOverhead ? size : kRdmaOverhead;
	if (ops & kAtomicOps)
		size = size > kAtomicOverhead ? size : kAtomicOverhead;
	if ((ops & kUmrOps) || (dv_ops & kDvUmrOps))
		size = size > kUmrOverhead ? size : kUmrOverhead;
	if (is_dci)
		size += kAvOverhead;
	return size;
}

} // namespace

SqGeometry sim_sq_size(const SimContext &ctx, enum ibv_qp_type type, bool is_dci,
		       const struct ibv_qp_cap &cap, bool send_ops_flags_valid,
		       uint64_t send_ops_flags, uint64_t dv_send_ops_flags)
{
	SqGeometry g = {-EINVAL, -1, 0, 0, 0, 0};
	int overhead, inl_size = 0, tot;
	uint64_t wq_size;

	(void)type; /* RC and DCI share the rule; the DCI adds its address vector */
	overhead = sq_overhead(is_dci, send_ops_flags_valid, send_ops_flags, dv_send_ops_flags);
	if ((int64_t)ctx.max_sq_desc_sz < overhead ||
	    cap.max_send_sge > (ctx.max_sq_desc_sz - overhead) / kDs)
		return g;
	if (cap.max_inline_data > ctx.max_sq_desc_sz)
		return g; /* cannot fit; also keeps the int arithmetic below in range */
	if (cap.max_inline_data)
		inl_size = overhead + align_up(4 + (int)cap.max_inline_data, kDs);
	tot = overhead + (int)cap.max_send_sge * kDs;
	if (inl_size > tot)
		tot = inl_size;
	if ((uint32_t)tot > ctx.max_sq_desc_sz)
		return g;
	g.wqe_size = align_up(tot, MLX5_SEND_WQE_BB);
	if (cap.max_send_wr == 0) {
		g.sizing_ret = 0;
		return g;
	}
	wq_size = roundup_pow2((uint64_t)cap.max_send_wr * (uint64_t)g.wqe_size);
	if (wq_size / MLX5_SEND_WQE_BB > ctx.max_send_wqebb)
		return g;
	g.sizing_ret = (int)wq_size;
	g.wqe_cnt = (uint32_t)(wq_size / MLX5_SEND_WQE_BB);
	g.max_post = (uint32_t)(wq_size / (uint64_t)g.wqe_size);
	g.max_send_sge = cap.max_send_sge;
	g.max_inline_data = g.wqe_size - overhead - 4;
	return g;
}

} // namespace mlx5sim
