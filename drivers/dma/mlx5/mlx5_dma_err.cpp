/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Slow paths of dma_mlx5: ops that cannot be executed as asked, error completions,
 * and the recovery that gives rte_dma its semantics on top of an RC QP.
 *
 * An error CQE moves the QP to ERR and the device flushes every WQE behind the failed
 * one. rte_dma wants the failed op reported and everything queued behind it executed.
 * So, like ioat: report the failing op (sticky until completed_status() consumes it),
 * reset the QP (RESET -> INIT -> RTR -> RTS), and re-post every WQE behind the failed
 * one, in order, from a copy of the ring: no op is lost or run twice.
 *
 * Ops whose address no registered MR covers, or whose length the device cannot do,
 * are not refused at enqueue (rte_dma reports such errors per op): they are posted as
 * a "trapped" WQE that the device is certain to reject (a read one byte past a 64-byte
 * MR), with the precise status recorded beforehand. One error mechanism serves both.
 */
#include <string.h>

#include <algorithm>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_sig.h"
#include "mlx5_dma_umr.h"
#include "mlx5_qp_state.h"

enum rte_dma_status_code mlx5_dma_status_of_syndrome(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return RTE_DMA_STATUS_INVALID_LENGTH;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return RTE_DMA_STATUS_INVALID_OPCODE;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return RTE_DMA_STATUS_INVALID_ADDR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return RTE_DMA_STATUS_NOT_ATTEMPTED;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return RTE_DMA_STATUS_BUS_ERROR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return RTE_DMA_STATUS_DEV_LINK_ERROR;
	default:
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	}
}

namespace {

/* The inverse of the provider's syndrome -> ibv_wc_status table (verbs path). */
uint8_t syndrome_of_wc_status(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_LOC_LEN_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	case IBV_WC_LOC_QP_OP_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	case IBV_WC_LOC_PROT_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	case IBV_WC_WR_FLUSH_ERR:
		return MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	case IBV_WC_MW_BIND_ERR:
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	case IBV_WC_BAD_RESP_ERR:
		return MLX5_CQE_SYNDROME_BAD_RESP_ERR;
	case IBV_WC_LOC_ACCESS_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR;
	case IBV_WC_REM_INV_REQ_ERR:
		return MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
	case IBV_WC_REM_ACCESS_ERR:
		return MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	case IBV_WC_REM_OP_ERR:
		return MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
	case IBV_WC_RETRY_EXC_ERR:
		return MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR;
	case IBV_WC_REM_ABORT_ERR:
		return MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR;
	default:
		return 0xff;
	}
}

} // namespace

enum rte_dma_status_code mlx5_dma_status_of_wc(enum ibv_wc_status status)
{
	return mlx5_dma_status_of_syndrome(syndrome_of_wc_status(status));
}

void mlx5_dma_cq_skip_all(struct mlx5_dma_vchan *vc)
{
	uint32_t ci = vc->cq_ci;

	for (;;) {
		struct mlx5_cqe64 *cqe = mlx5_dma_cqe_at(vc, ci);
		uint8_t op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

		if ((op_own & MLX5_CQE_OWNER_MASK) != ((ci >> vc->cq_log) & 1) ||
		    (op_own >> 4) == MLX5_CQE_INVALID)
			break;
		ci++;
	}
	mlx5_dma_cq_set_ci(vc, ci);
	vc->cq_ci_db = ci;
	/* also repairs the record libmlx5's RESET-time CQ clean rewrote from its own
	 * (never advanced) consumer index: the device must see ours */
	mlx5_dma_dbrec_store(vc->cq_dbrec, rte_cpu_to_be_32(ci & 0xffffff));
}

namespace {

/*
 * Re-post one saved WQE of the op that starts at @p op_start and spans @p op_nbb
 * WQEBBs, at producer counter @p pi, through the vchan's posting path. The op is
 * committed by the caller once all its WQEs are in.
 */
void repost_wqe(struct mlx5_dma_vchan *vc, const uint8_t *wqe, uint32_t nbb, uint32_t pi,
		uint32_t op_start, uint32_t op_nbb)
{
	auto *ctrl = (const struct mlx5_wqe_ctrl_seg *)wqe;

	if (nbb > 1) {
		vc->multi_start = pi;
		vc->multi_end = pi + nbb;
		vc->multi_valid = true;
	}
	if (vc->path == MLX5_DMA_PATH_DIRECT) {
		for (uint32_t i = 0; i < nbb; i++)
			memcpy(vc->sq + (((pi + i) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT),
			       wqe + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
		uint32_t *w0 = (uint32_t *)(vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT));
		uint32_t v = rte_be_to_cpu_32(*w0);
		*w0 = rte_cpu_to_be_32((v & 0xff0000ff) | (pi & 0xffff) << 8);
	} else {
		if (!vc->batch_open) {
			ibv_wr_start(vc->qpx);
			vc->batch_open = true;
		}
		vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, op_start, op_nbb);
		/* an MMO behind a UMR keeps its small fence only as raw bytes: the
		 * provider drops a pending small fence at a raw WQE */
		if (mlx5_hw_ctrl_opcode(ctrl) == MLX5_OPCODE_MMO &&
		    mlx5_hw_ctrl_opmod(ctrl) == MLX5_HW_OPC_MOD_MMO_DMA &&
		    !(ctrl->fm_ce_se & MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE)) {
			auto *mmo = (const struct mlx5_hw_mmo_wqe *)wqe;
			uint32_t len = rte_be_to_cpu_32(mmo->src.byte_count);

			vc->qpx->wr_flags =
				((ctrl->fm_ce_se & MLX5_WQE_CTRL_FENCE) ? IBV_SEND_FENCE : 0) |
				((ctrl->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) ? IBV_SEND_SIGNALED
									    : 0);
			mlx5dv_wr_memcpy(vc->dvqp, rte_be_to_cpu_32(mmo->dst.lkey),
					 rte_be_to_cpu_64(mmo->dst.addr),
					 rte_be_to_cpu_32(mmo->src.lkey),
					 rte_be_to_cpu_64(mmo->src.addr),
					 len ? len : MLX5_HW_DMA_MMO_MAX_SIZE);
		} else {
			mlx5dv_wr_raw_wqe(vc->dvqp, wqe);
		}
	}
}

/* Doorbell for the re-posted WQEs the application had already submitted. */
void ring_reposted(struct mlx5_dma_vchan *vc)
{
	uint32_t last = mlx5_dma_last_wqe_pi(vc);

	vc->db_pi = vc->pi;
	vc->multi_valid = false;
	if (vc->path == MLX5_DMA_PATH_VERBS) {
		if (vc->batch_open && ibv_wr_complete(vc->qpx))
			vc->stats.batch_failures++;
		vc->batch_open = false;
		return;
	}
	rte_io_wmb();
	mlx5_dma_dbrec_store(vc->sq_dbrec, rte_cpu_to_be_32(vc->pi & 0xffff));
	vc->ring_db(vc->qp, vc->bf_reg,
		    *(const uint64_t *)(vc->sq + ((last & vc->sq_mask) << MLX5_SEND_WQE_SHIFT)));
}

} // namespace

namespace {

/*
 * Verbs path: poll out the completions the old QP left (flushes of the WQEs about to
 * be re-posted). libmlx5 does not clean a CQ handed out by mlx5dv_init_obj when its
 * QP goes to RESET (DV-owned, __mlx5_cq_clean), so they would come back as ops of
 * the re-posted ring. Polled once the QP is in RESET, when the device writes no more;
 * the reconnect's own RESET then restarts the SQ counters the polling moved.
 */
void drain_verbs_cq(struct mlx5_dma_vchan *vc)
{
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RESET;
	if (vc->dev->glue->modify_qp(vc->qp, &attr, IBV_QP_STATE) != 0)
		return; /* the reconnect fails the same way and says so */
	if (ibv_start_poll(vc->cq_ex, &pattr) != 0)
		return;
	for (uint32_t n = 0; n < vc->cq_mask && ibv_next_poll(vc->cq_ex) == 0; n++)
		;
	ibv_end_poll(vc->cq_ex);
}

/*
 * Re-post every WQE from @p start_pi16 on as ops @p first_idx, ... after giving the
 * vchan a working QP: the same QP reset and reconnected, or (@p new_queues) a new CQ
 * and QP.
 */
int recover(struct mlx5_dma_vchan *vc, uint16_t start_pi16, uint16_t first_idx, bool new_queues)
{
	const struct mlx5_glue *glue = vc->dev->glue;
	uint32_t nbb = (uint16_t)((uint16_t)vc->pi - start_pi16);
	uint32_t start = vc->pi - nbb;
	uint32_t nbb_sub = (int32_t)(vc->db_pi - start) > 0 ? vc->db_pi - start : 0;
	uint16_t end_idx = vc->ring_idx;
	bool was_open = vc->batch_open;
	int ret;

	/* the ring is the only copy of the ops to re-post, and the slot table the only
	 * record of where each op (one WQE, or several: SG chain, UMR + MMO) ends: save
	 * both before the reset. The copy keeps ring positions so that the signature
	 * code can rewrite WQEs in it: the device may still be flushing the ring itself. */
	for (uint32_t i = 0; i < nbb; i++) {
		uint32_t pos = ((start + i) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT;

		memcpy(vc->scratch + pos, vc->sq + pos, MLX5_SEND_WQE_BB);
		vc->scratch_op_end[i] =
			(uint16_t)(vc->slots[(start + i) & vc->sq_mask].end_pi - (uint16_t)start);
	}
	uint8_t *ring = vc->sq;

	vc->sq = vc->scratch;
	mlx5_dma_sig_before_recover(vc, start);
	vc->sq = ring;
	/* then in posting order, WQEBB i of the copy at saved + i: rotated if it wraps */
	uint8_t *saved = vc->scratch + ((start & vc->sq_mask) << MLX5_SEND_WQE_SHIFT);

	if ((start & vc->sq_mask) + nbb > vc->sq_mask + 1) {
		std::rotate(vc->scratch, saved,
			    vc->scratch + ((size_t)(vc->sq_mask + 1) << MLX5_SEND_WQE_SHIFT));
		saved = vc->scratch;
	}
	if (was_open)
		ibv_wr_abort(vc->qpx); /* unsubmitted verbs batch: rebuilt below */
	vc->batch_open = false;
	if (new_queues) {
		ret = mlx5_dma_vchan_replace_queues(vc); /* a fresh CQ: nothing to skip */
	} else {
		if (vc->path == MLX5_DMA_PATH_VERBS)
			drain_verbs_cq(vc);
		ret = mlx5_qp_reconnect_rc(glue, vc->qp, vc->qp->qp_num, MLX5_DMA_VCHAN_QP_ACCESS);
		if (vc->path == MLX5_DMA_PATH_DIRECT)
			mlx5_dma_cq_skip_all(vc);
	}
	vc->pi = vc->bb_ci = vc->db_pi = 0;
	vc->multi_valid = false;
	vc->credits = 0; /* re-checked at the next enqueue */
	vc->fm_pending = 0;
	vc->err_gen++; /* a UMR may have failed: fills configure their mkeys again */
	vc->stats.recoveries++;
	if (ret) {
		/* The QP is unusable: every op behind the failure ends NOT_ATTEMPTED (or
		 * with the status it was trapped with), the vchan refuses new ops (-EIO)
		 * and reports HALTED_ERROR until the application stops and restarts it. */
		MLX5_DMA_LOG(ERR, "vchan %u: QP %#x recovery failed: %s", vc->vchan_id,
			     vc->qp->qp_num, strerror(-ret));
		for (uint16_t i = first_idx; i != end_idx; i++) {
			if (!vc->op_status[i & vc->sq_mask])
				vc->op_status[i & vc->sq_mask] = RTE_DMA_STATUS_NOT_ATTEMPTED;
			vc->err_pending++;
		}
		vc->stats.submitted += (uint16_t)(end_idx - vc->submitted_idx);
		vc->submitted_idx = end_idx;
		vc->done_upto = end_idx;
		vc->ring_idx = end_idx;
		vc->dead = true;
		return ret;
	}
	vc->ring_idx = first_idx;
	for (uint32_t off = 0; off < nbb;) {
		uint32_t op_end = vc->scratch_op_end[off];

		/* a slot that does not end after its op's start: ring bookkeeping is
		 * broken; the op is taken as one WQEBB rather than looping */
		if (op_end <= off || op_end > nbb)
			op_end = off + 1;
		for (uint32_t w = off; w < op_end;) {
			uint8_t *wqe = saved + w * MLX5_SEND_WQE_BB;
			uint32_t n = mlx5_hw_ds_to_wqebbs(
				mlx5_hw_ctrl_ds((const struct mlx5_wqe_ctrl_seg *)wqe));
			uint32_t *qpn_ds = (uint32_t *)wqe + 1;

			/* a new QP has a new number: the ctrl segment must name it */
			*qpn_ds = rte_cpu_to_be_32(vc->qp->qp_num << 8 |
						   (rte_be_to_cpu_32(*qpn_ds) & 0x3f));
			n = RTE_MIN(n ? n : 1, op_end - w);
			repost_wqe(vc, wqe, n, w, off, op_end - off);
			w += n;
		}
		mlx5_dma_commit_op(vc, op_end - off);
		off = op_end;
		if (off == nbb_sub)
			ring_reposted(vc);
	}
	return 0;
}

} // namespace

int mlx5_dma_recover(struct mlx5_dma_vchan *vc, uint16_t start_pi16, uint16_t first_idx)
{
	return recover(vc, start_pi16, first_idx, false);
}

void mlx5_dma_idle_check(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_dev *p = vc->dev;
	struct ibv_async_event ev;

	/* async events are the device's: mark the vchan each one is about */
	while (p->glue->get_async_event(p->ctx, &ev) == 0) {
		if (ev.event_type == IBV_EVENT_CQ_ERR) {
			for (uint16_t i = 0; i < p->args.max_vchans; i++) {
				struct ibv_cq_ex *cq = __atomic_load_n(&p->vchans[i].cq_ex,
								       __ATOMIC_ACQUIRE);

				if (cq && ibv_cq_ex_to_cq(cq) == ev.element.cq)
					__atomic_store_n(&p->vchans[i].cq_lost, true,
							 __ATOMIC_RELEASE);
			}
		}
		p->glue->ack_async_event(&ev);
	}
	if (vc->sig)
		mlx5_dma_sig_drain(vc); /* a signature error left the SQ draining */
	if (!__atomic_load_n(&vc->cq_lost, __ATOMIC_ACQUIRE) || vc->dead)
		return;
	/* Its completions are gone: whatever is not known complete runs again (a copy
	 * repeated writes the same bytes; see the guide for raw WQEs). */
	MLX5_DMA_LOG(WARNING,
		     "%s vchan %u: the device put CQ of QP %#x in error: new CQ and QP, "
		     "%u ops posted again",
		     p->name, vc->vchan_id, vc->qp->qp_num,
		     (uint16_t)(vc->ring_idx - vc->done_upto));
	recover(vc, (uint16_t)vc->bb_ci, vc->done_upto, true);
}

void mlx5_dma_handle_error_cqe(struct mlx5_dma_vchan *vc, const void *cqe_ptr)
{
	auto *cqe = (const struct mlx5_err_cqe *)cqe_ptr;
	uint8_t opcode = cqe->op_own >> 4;
	uint16_t wqe_counter = rte_be_to_cpu_16(cqe->wqe_counter);
	const struct mlx5_dma_slot *slot = &vc->slots[wqe_counter & vc->sq_mask];
	uint16_t idx = slot->ring_idx;

	if (opcode == MLX5_CQE_SIG_ERR) {
		mlx5_dma_sig_handle_cqe(vc, cqe_ptr); /* the op completes; its status is set */
		return;
	}
	if (opcode != MLX5_CQE_REQ_ERR) {
		/* not a requester completion: nothing of ours; skip it */
		return;
	}
	if (cqe->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR) {
		/* the QP went to ERR without failing one of our WQEs (fatal event):
		 * nothing failed, re-post from the flushed WQE's op on (all of it: a chain
		 * flushed half-way runs again whole, writing the same bytes) */
		uint16_t start = wqe_counter;

		while (start != (uint16_t)vc->bb_ci &&
		       vc->slots[(uint16_t)(start - 1) & vc->sq_mask].ring_idx == idx)
			start--;
		vc->done_upto = idx;
		mlx5_dma_recover(vc, start, idx);
		return;
	}
	vc->last_err.ring_idx = idx;
	vc->last_err.syndrome = cqe->syndrome;
	vc->last_err.vendor_syndrome = cqe->vendor_err_synd;
	vc->last_err.wqe_opcode = rte_be_to_cpu_32(cqe->s_wqe_opcode_qpn) >> 24;
	vc->last_err.valid = true;
	if (!vc->op_status[idx & vc->sq_mask])
		vc->op_status[idx & vc->sq_mask] = mlx5_dma_status_of_syndrome(cqe->syndrome);
	vc->err_pending++;
	vc->done_upto = idx + 1;
	mlx5_dma_recover(vc, slot->end_pi, idx + 1);
}

void mlx5_dma_handle_error_wc(struct mlx5_dma_vchan *vc, uint64_t wr_id, enum ibv_wc_status status,
			      uint32_t vendor_err)
{
	uint16_t idx = (uint16_t)wr_id;
	uint16_t end_pi = (uint16_t)(wr_id >> 16);
	uint16_t start_pi = (uint16_t)(wr_id >> 32);
	uint8_t syndrome = syndrome_of_wc_status(status);

	if (status == IBV_WC_WR_FLUSH_ERR) {
		vc->done_upto = idx;
		mlx5_dma_recover(vc, start_pi, idx);
		return;
	}
	vc->last_err.ring_idx = idx;
	vc->last_err.syndrome = syndrome;
	vc->last_err.vendor_syndrome = (uint8_t)vendor_err;
	vc->last_err.wqe_opcode = vc->sq[((start_pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT) + 3];
	vc->last_err.valid = true;
	if (!vc->op_status[idx & vc->sq_mask])
		vc->op_status[idx & vc->sq_mask] = mlx5_dma_status_of_syndrome(syndrome);
	vc->err_pending++;
	vc->done_upto = idx + 1;
	mlx5_dma_recover(vc, end_pi, idx + 1);
}

int mlx5_dma_enqueue_trapped(struct mlx5_dma_vchan *vc, enum rte_dma_status_code why,
			     uint64_t flags)
{
	uint64_t trap = (uintptr_t)vc->trap_buf;
	uint32_t key = vc->trap_mr->lkey;
	int idx;

	vc->credits--; /* the caller made sure there is room */
	/* one byte read just past the trap MR: every device rejects it (LOC_PROT) */
	if (vc->path == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, vc->pi, trap + MLX5_HW_OPAQUE_BUF_LEN, rte_cpu_to_be_32(key),
				   trap, rte_cpu_to_be_32(key), 1, flags);
		mlx5_dma_take_fence(vc, vc->pi);
	} else {
		mlx5_dma_build_mmo(vc, trap + MLX5_HW_OPAQUE_BUF_LEN, key, trap, key, 1, flags);
	}
	vc->op_status[vc->ring_idx & vc->sq_mask] = why;
	idx = mlx5_dma_commit_op(vc, 1);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

uint16_t mlx5_dma_report_with_errors(struct mlx5_dma_vchan *vc, uint16_t nb_cpls,
				     uint16_t *last_idx, bool *has_error,
				     enum rte_dma_status_code *status)
{
	uint16_t n = 0;
	uint16_t idx = vc->reported;

	while (n < nb_cpls && idx != vc->done_upto) {
		uint16_t *st = &vc->op_status[idx & vc->sq_mask];

		if (*st) {
			if (!status) {
				*has_error = true; /* sticky until completed_status() */
				break;
			}
			status[n] = (enum rte_dma_status_code) * st;
			*st = 0;
			vc->err_pending--;
			vc->stats.errors++;
		} else if (status) {
			status[n] = RTE_DMA_STATUS_SUCCESSFUL;
		}
		n++;
		idx++;
	}
	vc->reported = idx;
	vc->stats.completed += n;
	*last_idx = idx - 1;
	return n;
}
