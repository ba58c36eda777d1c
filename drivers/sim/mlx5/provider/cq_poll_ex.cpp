/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Extended CQ poll (ibv_start_poll / ibv_next_poll / ibv_end_poll and the
 * ibv_wc_read_* helpers) of the software HCA's provider, as libmlx5 v44.0: the
 * parse is lazy (only wr_id, status and the per-slot opcode are resolved at
 * poll time; every read_* decodes the current CQE), and the CQ doorbell record
 * moves only at end_poll.
 */
#include "cq_poll.h"

namespace mlx5sim {

namespace {

inline int lazy_req(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn)
{
	SimQp *qp = sim_cq_find_qp(cq, cqe, qpn);
	uint32_t idx;

	if (SIM_UNLIKELY(!qp || !qp->sq.wqe_cnt))
		return CQ_POLL_ERR;
	idx = be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1);
	switch (be32toh(cqe->sop_drop_qpn) >> 24) {
	case MLX5_OPCODE_UMR:
	case MLX5_OPCODE_SET_PSV:
	case MLX5_OPCODE_NOP:
	case MLX5_OPCODE_MMO:
		cq->cached_opcode = (uint8_t)qp->sq.wr_data[idx];
		break;
	default:
		break;
	}
	cq->cqx.wr_id = qp->sq.wrid[idx];
	cq->cqx.status = IBV_WC_SUCCESS;
	if (SIM_UNLIKELY(qp->sq.wr_data[idx] == IBV_WC_DRIVER2))
		cq->cur_flags |= SIM_CQ_FLAG_RAW_WQE;
	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
	return CQ_OK;
}

inline int lazy_resp(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn)
{
	SimQp *qp = sim_cq_find_resp_qp(cq, cqe, qpn);

	if (SIM_UNLIKELY(!qp))
		return CQ_POLL_ERR;
	cq->cqx.wr_id = sim_cq_rq_retire(qp, cqe);
	cq->cqx.status = IBV_WC_SUCCESS;
	return CQ_OK;
}

inline int lazy_err(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn, uint8_t opcode)
{
	const struct mlx5_err_cqe *ecqe = reinterpret_cast<const struct mlx5_err_cqe *>(cqe);
	SimQp *qp;

	cq->cqx.status = sim_cq_err_status(ecqe->syndrome);
	if (opcode == MLX5_CQE_REQ_ERR) {
		qp = sim_cq_find_qp(cq, cqe, qpn);
		if (SIM_UNLIKELY(!qp || !qp->sq.wqe_cnt))
			return CQ_POLL_ERR;
		cq->cqx.wr_id = qp->sq.wrid[sim_cq_sq_retire(qp, cqe)];
		return CQ_OK;
	}
	qp = sim_cq_find_resp_qp(cq, cqe, qpn);
	if (SIM_UNLIKELY(!qp))
		return CQ_POLL_ERR;
	cq->cqx.wr_id = sim_cq_rq_retire(qp, cqe);
	return CQ_OK;
}

/** mlx5_parse_lazy_cqe: remember the CQE, resolve wr_id/status, retire the WQE. */
inline int parse_lazy(SimCq *cq, struct mlx5_cqe64 *cqe)
{
	uint32_t qpn;
	uint8_t opcode;
	int err;

again:
	qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	opcode = mlx5dv_get_cqe_opcode(cqe);
	cq->cur_cqe = cqe;
	cq->cur_flags = 0;
	switch (opcode) {
	case MLX5_CQE_REQ:
		return lazy_req(cq, cqe, qpn);
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		return lazy_resp(cq, cqe, qpn);
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		return lazy_err(cq, cqe, qpn, opcode);
	case MLX5_CQE_NO_PACKET:
		return CQ_POLL_ERR; /* tag matching only: no TM SRQ exists in the model */
	case MLX5_CQE_SIG_ERR:
		/* consumed internally; ENOENT (CQ_POLL_NODATA) when nothing follows */
		err = sim_cq_sigerr(cq, cqe);
		if (SIM_UNLIKELY(err))
			return err;
		if (sim_cq_next_cqe(cq, &cqe) == CQ_EMPTY)
			return CQ_POLL_NODATA;
		goto again;
	case MLX5_CQE_RESIZE_CQ:
	default:
		return CQ_OK; /* reported; wr_id and status keep their previous values */
	}
}

int start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	SimCq *cq = to_sim_cq(ibcq);
	struct mlx5_cqe64 *cqe;

	if (SIM_UNLIKELY(attr->comp_mask))
		return EINVAL;
	cq->cur_qp = nullptr;
	if (sim_cq_next_cqe(cq, &cqe) == CQ_EMPTY)
		return ENOENT;
	return parse_lazy(cq, cqe);
}

int next_poll(struct ibv_cq_ex *ibcq)
{
	SimCq *cq = to_sim_cq(ibcq);
	struct mlx5_cqe64 *cqe;

	if (sim_cq_next_cqe(cq, &cqe) == CQ_EMPTY)
		return ENOENT;
	return parse_lazy(cq, cqe);
}

void end_poll(struct ibv_cq_ex *ibcq)
{
	sim_cq_update_ci(to_sim_cq(ibcq));
}

inline const struct mlx5_cqe64 *cur(struct ibv_cq_ex *ibcq)
{
	return to_sim_cq(ibcq)->cur_cqe;
}

enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *ibcq)
{
	SimCq *cq = to_sim_cq(ibcq);
	const struct mlx5_cqe64 *cqe = cq->cur_cqe;

	switch (cqe->op_own >> MLX5_HW_CQE_OPCODE_SHIFT) {
	case MLX5_CQE_RESP_WR_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		return IBV_WC_RECV;
	case MLX5_CQE_REQ:
		if (SIM_UNLIKELY(cq->cur_flags & SIM_CQ_FLAG_RAW_WQE))
			return IBV_WC_DRIVER2;
		switch (be32toh(cqe->sop_drop_qpn) >> 24) {
		case MLX5_OPCODE_RDMA_WRITE_IMM:
		case MLX5_OPCODE_RDMA_WRITE:
			return IBV_WC_RDMA_WRITE;
		case MLX5_OPCODE_SEND_IMM:
		case MLX5_OPCODE_SEND:
		case MLX5_OPCODE_SEND_INVAL:
			return IBV_WC_SEND;
		case MLX5_OPCODE_RDMA_READ:
			return IBV_WC_RDMA_READ;
		case MLX5_OPCODE_ATOMIC_CS:
			return IBV_WC_COMP_SWAP;
		case MLX5_OPCODE_ATOMIC_FA:
			return IBV_WC_FETCH_ADD;
		case MLX5_OPCODE_UMR:
		case MLX5_OPCODE_SET_PSV:
		case MLX5_OPCODE_NOP:
		case MLX5_OPCODE_MMO:
			return (enum ibv_wc_opcode)cq->cached_opcode;
		case MLX5_OPCODE_TSO:
			return IBV_WC_TSO;
		}
		break;
	}
	return (enum ibv_wc_opcode)0; /* error, resize and unmapped CQEs */
}

uint32_t read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return reinterpret_cast<const struct mlx5_err_cqe *>(cur(ibcq))->vendor_err_synd;
}

uint32_t read_byte_len(struct ibv_cq_ex *ibcq)
{
	return be32toh(cur(ibcq)->byte_cnt);
}

__be32 read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct mlx5_cqe64 *cqe = cur(ibcq);

	/* SEND_INV carries the invalidated rkey, returned in host order */
	if ((cqe->op_own >> MLX5_HW_CQE_OPCODE_SHIFT) == MLX5_CQE_RESP_SEND_INV)
		return (__be32)be32toh(cqe->imm_inval_pkey);
	return cqe->imm_inval_pkey;
}

uint32_t read_qp_num(struct ibv_cq_ex *ibcq)
{
	return be32toh(cur(ibcq)->sop_drop_qpn) & 0xffffff;
}

uint32_t read_src_qp(struct ibv_cq_ex *ibcq)
{
	return be32toh(cur(ibcq)->flags_rqpn) & 0xffffff;
}

unsigned int read_wc_flags(struct ibv_cq_ex *ibcq)
{
	const struct mlx5_cqe64 *cqe = cur(ibcq);
	unsigned int flags = 0;

	/* unlike the legacy poll, requester IMM opcodes give no WITH_IMM here */
	switch (cqe->op_own >> MLX5_HW_CQE_OPCODE_SHIFT) {
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND_IMM:
		flags |= IBV_WC_WITH_IMM;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		flags |= IBV_WC_WITH_INV;
		break;
	}
	flags |= ((be32toh(cqe->flags_rqpn) >> 28) & 3) ? IBV_WC_GRH : 0;
	return flags;
}

uint32_t read_slid(struct ibv_cq_ex *ibcq)
{
	return be16toh(cur(ibcq)->slid);
}

uint8_t read_sl(struct ibv_cq_ex *ibcq)
{
	return (be32toh(cur(ibcq)->flags_rqpn) >> 24) & 0xf;
}

uint8_t read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return cur(ibcq)->ml_path & 0x7f;
}

/** The raw device timestamp of the CQE (the model writes 0: no clock). */
uint64_t read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return be64toh(cur(ibcq)->timestamp);
}

} // namespace

void sim_cq_install_poll_ops(SimCq *cq)
{
	struct ibv_cq_ex *x = &cq->cqx;
	uint64_t f = cq->wc_flags;

	x->start_poll = start_poll;
	x->next_poll = next_poll;
	x->end_poll = end_poll;
	x->read_opcode = read_opcode;
	x->read_vendor_err = read_vendor_err;
	x->read_wc_flags = read_wc_flags;
	x->read_byte_len = (f & IBV_WC_EX_WITH_BYTE_LEN) ? read_byte_len : nullptr;
	x->read_imm_data = (f & IBV_WC_EX_WITH_IMM) ? read_imm_data : nullptr;
	x->read_qp_num = (f & IBV_WC_EX_WITH_QP_NUM) ? read_qp_num : nullptr;
	x->read_src_qp = (f & IBV_WC_EX_WITH_SRC_QP) ? read_src_qp : nullptr;
	x->read_slid = (f & IBV_WC_EX_WITH_SLID) ? read_slid : nullptr;
	x->read_sl = (f & IBV_WC_EX_WITH_SL) ? read_sl : nullptr;
	x->read_dlid_path_bits = (f & IBV_WC_EX_WITH_DLID_PATH_BITS) ? read_dlid_path_bits
								     : nullptr;
	x->read_completion_ts = (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) ? read_completion_ts
									  : nullptr;
	cq->cur_cqe = nullptr;
	cq->cur_qp = nullptr;
	cq->cur_flags = 0;
	cq->cached_opcode = 0;
}

} // namespace mlx5sim
