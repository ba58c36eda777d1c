/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failed verifications of signature copies (mlx5_dma_sig.h).
 *
 * The device writes a SIG_ERR CQE (mkey, syndrome, expected / actual, offset) before
 * the failing WQE's own CQE; the data still moved and the QP stays usable. The op
 * that failed is the first in-flight signature op naming that mkey: every signature
 * MMO asks for its own CQE, so earlier users of the mkey are complete by then. Its
 * status becomes RTE_DMA_STATUS_DATA_POISION and the mkey is re-armed by its next
 * UMR.
 *
 * On a pipelining QP (drain_sigerr) the send queue also stops in SQD, somewhere
 * between the failing WQE and the next fenced one, which is the failed transfer's
 * response when it has one. Then: turn that response into a NOP (the cancel libmlx5's
 * mlx5dv_qp_cancel_posted_send_wrs() does, on the WQE the PMD wrote) or into the
 * error response, and move SQD -> RTS. Every WQE not executed yet runs after that,
 * once.
 */
#include <string.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_sig.h"

/* SIG_ERR CQE syndrome: the reference tag, the application tag failed (else the guard) */
#define MLX5_DMA_SIG_SYND_REFTAG (1u << 11)
#define MLX5_DMA_SIG_SYND_APPTAG (1u << 12)

namespace {

struct mlx5_dma_sig_op *live_op(struct mlx5_dma_sig_pool *p, const struct mlx5_dma_vchan *vc,
				uint16_t idx)
{
	struct mlx5_dma_sig_op *op = &p->ops[idx & vc->sq_mask];

	return op->sig && op->ring_idx == idx ? op : NULL;
}

/* First WQEBB of op @p idx in the ring (not yet executed), or false. */
bool op_start_pi(const struct mlx5_dma_vchan *vc, uint16_t idx, uint32_t *pi)
{
	for (uint32_t q = vc->bb_ci; q != vc->pi; q++)
		if (vc->slots[q & vc->sq_mask].ring_idx == idx) {
			*pi = q;
			return true;
		}
	return false;
}

/* mlx5dv_mkey_check()'s decoding of expected / actual for the failing field. */
uint64_t field(uint64_t v, uint8_t kind, enum rte_pmd_dma_mlx5_sig_type t)
{
	if (kind == RTE_PMD_DMA_MLX5_SIG_ERR_REFTAG)
		return (uint32_t)v;
	if (kind == RTE_PMD_DMA_MLX5_SIG_ERR_APPTAG)
		return (v >> 32) & 0xffff;
	switch (t) {
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC:
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM:
		return v >> 48;
	case RTE_PMD_DMA_MLX5_SIG_CRC64:
		return v;
	default:
		return v >> 32;
	}
}

} // namespace

void mlx5_dma_sig_handle_cqe(struct mlx5_dma_vchan *vc, const void *cqe)
{
	auto *c = (const struct mlx5_hw_sigerr_cqe *)cqe;
	struct mlx5_dma_sig_pool *p = vc->sig;
	uint32_t key = rte_be_to_cpu_32(c->mkey);
	struct mlx5_dma_sig_op *op = NULL;
	int mi = -1;
	uint16_t idx;

	if (!p)
		return;
	for (int i = 0; i < MLX5_DMA_SIG_MKEYS; i++)
		if (p->m[i].mk->lkey == key)
			mi = i;
	if (mi >= 0)
		p->m[mi].rearm = true; /* unusable until a UMR with the SIG_ERR mask */
	/* a re-posted op (recovery) may fail again: still the first user in flight */
	for (idx = vc->done_upto; mi >= 0 && idx != vc->ring_idx; idx++) {
		op = live_op(p, vc, idx);
		if (op && (op->mkey[0] == mi || op->mkey[1] == mi))
			break;
		op = NULL;
	}
	if (!op) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: signature error on mkey %#x of no op in flight",
			     vc->dev->name, vc->vchan_id, key);
		return;
	}
	struct mlx5_dma_sig_mkey *m = &p->m[mi];
	struct rte_pmd_dma_mlx5_sig_err *e = &p->errs[p->nb_errs++ % MLX5_DMA_SIG_ERRS];
	uint16_t syn = rte_be_to_cpu_16(c->syndrome);
	uint64_t exp = (uint64_t)rte_be_to_cpu_32(c->expected_trans_sig) << 32 |
		       rte_be_to_cpu_32(c->expected_ref_tag);
	uint64_t act = (uint64_t)rte_be_to_cpu_32(c->actual_trans_sig) << 32 |
		       rte_be_to_cpu_32(c->actual_ref_tag);
	uint32_t blk = m->lay.dom.block_size + mlx5_dma_sig_pi_bytes(m->lay.dom.type);

	op->failed = true;
	memset(e, 0, sizeof(*e));
	e->ring_idx = idx;
	e->kind = (syn & MLX5_DMA_SIG_SYND_REFTAG)   ? RTE_PMD_DMA_MLX5_SIG_ERR_REFTAG
		  : (syn & MLX5_DMA_SIG_SYND_APPTAG) ? RTE_PMD_DMA_MLX5_SIG_ERR_APPTAG
						     : RTE_PMD_DMA_MLX5_SIG_ERR_GUARD;
	e->is_dst = mi == op->mkey[1];
	e->offset = rte_be_to_cpu_64(c->sig_err_offset);
	e->block = blk ? (uint32_t)(e->offset / blk) : 0;
	e->expected = field(exp, e->kind, m->lay.dom.type);
	e->actual = field(act, e->kind, m->lay.dom.type);
	if (!vc->op_status[idx & vc->sq_mask]) {
		vc->op_status[idx & vc->sq_mask] = RTE_DMA_STATUS_DATA_POISION;
		vc->err_pending++;
	}
	if (vc->dev->sig_pipelining) {
		p->drain_pending = true;
		mlx5_dma_sig_drain(vc); /* or later, from the idle check */
	}
}

namespace {

/* Cancel or replace the response of every failed transfer whose response has not run. */
void withdraw_responses(struct mlx5_dma_vchan *vc, struct mlx5_dma_sig_pool *p)
{
	for (uint16_t idx = vc->done_upto - 1; idx != vc->ring_idx; idx++) {
		struct mlx5_dma_sig_op *op = live_op(p, vc, idx);
		uint16_t resp = idx + 1;
		uint32_t pi;

		if (!op || !op->failed || !op->has_resp || op->resp_done ||
		    (uint16_t)(resp - vc->done_upto) >= (uint16_t)(vc->ring_idx - vc->done_upto) ||
		    !op_start_pi(vc, resp, &pi))
			continue;
		uint8_t *w = vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT);

		if (op->err_src) {
			/* the error response in the response's place: same op, same slot */
			uint64_t bc = rte_cpu_to_be_32(op->err_len);

			mlx5_dma_st64(w + 32, bc | (uint64_t)rte_cpu_to_be_32(op->err_lkey) << 32);
			mlx5_dma_st64(w + 40, rte_cpu_to_be_64(op->err_src));
			mlx5_dma_st64(w + 48, bc | (uint64_t)(*(uint32_t *)(w + 52)) << 32);
		} else {
			/* libmlx5's cancel: opcode NOP, opmod 0, the rest kept */
			w[0] = 0;
			w[3] = MLX5_OPCODE_NOP;
			if (!vc->op_status[resp & vc->sq_mask]) {
				vc->op_status[resp & vc->sq_mask] = RTE_DMA_STATUS_NOT_ATTEMPTED;
				vc->err_pending++;
			}
		}
		op->resp_done = true;
		p->cancels++;
	}
}

} // namespace

void mlx5_dma_sig_drain(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_sig_pool *p = vc->sig;
	const struct mlx5_glue *glue = vc->dev->glue;
	struct ibv_qp_init_attr init = {};
	struct ibv_qp_attr a = {};

	if (!p || !p->drain_pending)
		return;
	if (glue->query_qp(vc->qp, &a, IBV_QP_STATE, &init) || a.qp_state != IBV_QPS_SQD)
		return; /* not stopped yet (or never: no fenced WQE behind the failure) */
	withdraw_responses(vc, p);
	rte_io_wmb(); /* the rewritten WQEs before the device resumes */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_SQD;
	if (glue->modify_qp(vc->qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE)) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: QP %#x SQD -> RTS failed", vc->dev->name,
			     vc->vchan_id, vc->qp->qp_num);
		return;
	}
	p->drain_pending = false;
	p->drains++;
}

namespace {

/*
 * A re-posted signature op runs its verification again, through mkeys its first run
 * may have put in error (its SIG_ERR CQE possibly lost with the CQ): each side's
 * region (UMR + PSVs, or the NOPs of a reused mkey) becomes a UMR that re-arms the
 * mkey, with the same layout, so the same number of WQEBBs.
 */
void rearm_reposted(struct mlx5_dma_vchan *vc, struct mlx5_dma_sig_pool *p, uint32_t start)
{
	uint8_t saved = vc->fm_pending;

	for (uint32_t q = start; q != vc->pi;) {
		const struct mlx5_dma_slot *sl = &vc->slots[q & vc->sq_mask];
		uint32_t nbb = (uint16_t)(sl->end_pi - (uint16_t)q);
		struct mlx5_dma_sig_op *op = live_op(p, vc, sl->ring_idx);
		uint32_t off = 0;

		if (nbb == 0 || nbb > vc->pi - q)
			break; /* bookkeeping broken: recover() copes */
		for (int side = 0; op && side < 2; side++) {
			int mi = op->mkey[side];
			uint32_t reg = op->reg_nbb[side];

			if (mi < 0 || !reg)
				continue;
			struct mlx5_dma_sig_mkey *m = &p->m[mi];
			struct mlx5_dma_sig_layout lay = m->lay;
			uint8_t fm =
				vc->sq[(((q + off) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT) + 11];

			if (m->umr_nbb == reg) {
				m->rearm = true;
				vc->fm_pending = fm & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
				mlx5_dma_sig_umr(vc, q + off, m, &lay, fm & MLX5_WQE_CTRL_FENCE);
			}
			off += reg;
		}
		q += nbb;
	}
	vc->fm_pending = saved;
}

} // namespace

void mlx5_dma_sig_before_recover(struct mlx5_dma_vchan *vc, uint32_t start)
{
	struct mlx5_dma_sig_pool *p = vc->sig;

	if (!p)
		return;
	/* the QP is reset: what is re-posted must not carry a withdrawn response */
	if (p->drain_pending) {
		withdraw_responses(vc, p);
		p->drain_pending = false;
	}
	/* a UMR that failed (or never ran) left its mkey as it was, possibly in error:
	 * every mkey's next UMR re-arms it */
	for (unsigned int i = 0; i < MLX5_DMA_SIG_MKEYS; i++)
		p->m[i].rearm = true;
	rearm_reposted(vc, p, start);
}
