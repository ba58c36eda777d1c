/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Poll path internals shared by the legacy (cq_poll.cpp) and extended
 * (cq_poll_ex.cpp) CQ interfaces: CQE ownership, consumer counter, QP lookup and
 * the error-syndrome table. Everything here is inline and runs per CQE: no
 * allocation, locks, syscalls or logging.
 */
#ifndef MLX5_SIM_CQ_POLL_H
#define MLX5_SIM_CQ_POLL_H

#include <errno.h>

#include "mlx5_hw.h"
#include "provider.h"
#include "sim_mkey.h"

#define SIM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIM_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace mlx5sim {

/** Results of one CQE step, with libmlx5's values. */
enum CqStep {
	CQ_OK = 0,
	CQ_EMPTY = -1,
	CQ_POLL_ERR = -2,
	CQ_POLL_NODATA = ENOENT, /**< a CQE was consumed internally, nothing to report */
};

/** SimCq::cur_flags: per-CQE state of the lazy (extended) parse. */
enum : uint32_t {
	SIM_CQ_FLAG_RAW_WQE = 1u << 0, /**< the slot's wr_data is DRIVER2: report DRIVER2 */
};

/** The 64-byte CQE of entry @p n (the second half of a 128-byte entry). */
static inline struct mlx5_cqe64 *sim_cq_cqe64(const SimCq *cq, uint32_t n)
{
	uint8_t *e = cq->buf + (size_t)(n & (cq->ncqe - 1)) * cq->cqe_size;

	return reinterpret_cast<struct mlx5_cqe64 *>(e + cq->cqe_size - sizeof(struct mlx5_cqe64));
}

/**
 * The CQE at consumer counter @p n if software owns it: opcode not INVALID and
 * owner bit equal to the pass parity (n & ncqe). The acquire load pairs with the
 * device's release store of op_own, so the rest of the CQE is visible.
 */
static inline struct mlx5_cqe64 *sim_cq_sw_cqe(const SimCq *cq, uint32_t n)
{
	struct mlx5_cqe64 *cqe = sim_cq_cqe64(cq, n);
	uint8_t op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

	if (SIM_LIKELY((op_own >> MLX5_HW_CQE_OPCODE_SHIFT) != MLX5_CQE_INVALID) &&
	    !((op_own & MLX5_CQE_OWNER_MASK) ^ !!(n & cq->ncqe)))
		return cqe;
	return nullptr;
}

/** Take the next software-owned CQE, advancing the consumer counter. */
static inline int sim_cq_next_cqe(SimCq *cq, struct mlx5_cqe64 **out)
{
	struct mlx5_cqe64 *cqe = sim_cq_sw_cqe(cq, cq->cons_index);

	if (!cqe)
		return CQ_EMPTY;
	++cq->cons_index;
	*out = cqe;
	return CQ_OK;
}

/** Publish the consumer counter in the doorbell record (SET_CI). */
static inline void sim_cq_update_ci(SimCq *cq)
{
	__atomic_store_n(&cq->dbrec[0], htobe32(cq->cons_index & 0xffffff), __ATOMIC_RELEASE);
}

/**
 * The QP a CQE names: by user index (CQE version 1, bytes 32..35) or by QPN
 * (version 0, bytes 56..59). NULL when unknown.
 */
static inline SimQp *sim_cq_find_qp(SimCq *cq, const struct mlx5_cqe64 *cqe, uint32_t qpn)
{
	SimContext *ctx = cq->ctx;
	SimQp *qp;

	if (ctx->cqe_version)
		qp = ctx->qp_by_uidx.find(be32toh(cqe->srqn_uidx) & 0xffffff);
	else
		qp = ctx->qp_by_qpn.find(qpn);
	cq->cur_qp = qp;
	return qp;
}

/**
 * The QP of a responder CQE. With CQE version 0 a non-zero SRQ number names the
 * SRQ of the QP the CQE names. A QP with neither RQ nor that SRQ: unknown.
 */
static inline SimQp *sim_cq_find_resp_qp(SimCq *cq, const struct mlx5_cqe64 *cqe, uint32_t qpn)
{
	uint32_t srqn = cq->ctx->cqe_version ? 0 : be32toh(cqe->srqn_uidx) & 0xffffff;
	SimQp *qp = sim_cq_find_qp(cq, cqe, qpn);

	if (SIM_UNLIKELY(!qp))
		return nullptr;
	if (qp->srq)
		return !srqn && !cq->ctx->cqe_version  ? nullptr
		       : srqn && qp->srq->srqn != srqn ? nullptr
						       : qp;
	return qp->rq.wqe_cnt && !srqn ? qp : nullptr;
}

/** Error syndrome (byte 55) to ibv_wc_status, as libmlx5's mlx5_handle_error_cqe. */
static inline enum ibv_wc_status sim_cq_err_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

/**
 * Retire the send WQE a requester CQE names: every WR up to and including it is
 * done (unsignaled WRs before it complete implicitly). Returns the slot.
 */
static inline uint32_t sim_cq_sq_retire(SimQp *qp, const struct mlx5_cqe64 *cqe)
{
	uint32_t idx = be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1);

	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
	return idx;
}

/**
 * wr_id of a receive completion: the next WQE of a plain RQ (v44 takes it from
 * rq.tail), or the SRQ WQE the CQE names, which goes back to the free list.
 */
static inline uint64_t sim_cq_rq_retire(SimQp *qp, const struct mlx5_cqe64 *cqe)
{
	if (qp->srq) {
		uint16_t idx = be16toh(cqe->wqe_counter) & (qp->srq->wqe_cnt - 1);
		uint64_t wr_id = qp->srq->wrid[idx];

		sim_srq_free_wqe(qp->srq, idx);
		return wr_id;
	}
	uint64_t wr_id = qp->rq.wrid[qp->rq.tail & (qp->rq.wqe_cnt - 1)];

	++qp->rq.tail;
	return wr_id;
}

/**
 * A SIG_ERR CQE (opcode 12), libmlx5's MLX5_CQE_SIG_ERR case: the mkey is found
 * by (mkey >> 8); an unknown one fails the poll (CQ_POLL_ERR). Otherwise the error
 * is recorded on the mkey for mlx5dv_mkey_check (err_exists, err_count + 1, a
 * counter the next UMR pushes) and the caller moves on to the next CQE. v44.0
 * stores sig_type and domain unmasked. An mkey without a signature context is
 * treated as unknown (libmlx5 would dereference a NULL context there).
 */
static inline int sim_cq_sigerr(SimCq *cq, const struct mlx5_cqe64 *cqe)
{
	const auto *se = reinterpret_cast<const struct mlx5_hw_sigerr_cqe *>(cqe);
	SimMkey *mkey = cq->ctx->mkey_by_idx.find(be32toh(se->mkey) >> 8);
	SimMkeySig *sig;

	if (SIM_UNLIKELY(!mkey || !mkey->has_sig))
		return CQ_POLL_ERR;
	sig = &mkey->sig;
	sig->err_exists = true;
	sig->err_count++;
	sig->err_count_updated = true;
	sig->has_last_error = true;
	sig->last_error.syndrome = be16toh(se->syndrome);
	sig->last_error.expected = (uint64_t)be32toh(se->expected_trans_sig) << 32 |
				   be32toh(se->expected_ref_tag);
	sig->last_error.actual = (uint64_t)be32toh(se->actual_trans_sig) << 32 |
				 be32toh(se->actual_ref_tag);
	sig->last_error.offset = be64toh(se->sig_err_offset);
	sig->last_error.sig_type = se->sig_type;
	sig->last_error.domain = se->domain;
	return CQ_OK;
}

/**
 * Remove the CQEs of resource @p rsn (user index or QPN, per CQE version) from
 * @p cq and close the gap, as libmlx5's mlx5_cq_clean does when a QP is reset or
 * destroyed (cq_clean.cpp). Control path.
 */
void sim_cq_clean(SimCq *cq, uint32_t rsn, SimSrq *srq = nullptr);

} // namespace mlx5sim

#endif /* MLX5_SIM_CQ_POLL_H */
