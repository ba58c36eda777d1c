/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Legacy ibv_poll_cq of the software HCA's provider, field for field what
 * libmlx5 v44.0 writes into struct ibv_wc. Fields libmlx5 leaves alone keep the
 * caller's contents: wc.opcode on error CQEs and unmapped requester opcodes,
 * everything but qp_num and wc_flags on RESIZE CQEs, byte_len and vendor_err on
 * good requester CQEs except where noted.
 */
#include "cq_poll.h"

namespace mlx5sim {

namespace {

/** Opcode, flags and byte_len of a good requester completion (handle_good_req). */
inline void req_fill_wc(struct ibv_wc *wc, const struct mlx5_cqe64 *cqe, const SimSq &sq,
			uint32_t idx)
{
	switch (be32toh(cqe->sop_drop_qpn) >> 24) {
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_RDMA_WRITE:
		wc->opcode = IBV_WC_RDMA_WRITE;
		break;
	case MLX5_OPCODE_SEND_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_INVAL:
		wc->opcode = IBV_WC_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		wc->opcode = IBV_WC_RDMA_READ;
		wc->byte_len = be32toh(cqe->byte_cnt);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		wc->opcode = IBV_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		wc->opcode = IBV_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_UMR:
	case MLX5_OPCODE_SET_PSV:
	case MLX5_OPCODE_NOP:
	case MLX5_OPCODE_MMO:
		/* the CQE cannot name these: the builder left the WC opcode in wr_data */
		wc->opcode = (enum ibv_wc_opcode)sq.wr_data[idx];
		break;
	case MLX5_OPCODE_TSO:
		wc->opcode = IBV_WC_TSO;
		break;
	default:
		break; /* unmapped: wc.opcode keeps its previous contents */
	}
	if (SIM_UNLIKELY(sq.wr_data[idx] == IBV_WC_DRIVER2))
		wc->opcode = IBV_WC_DRIVER2; /* raw WQE, whatever its opcode */
}

inline int parse_req(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn, struct ibv_wc *wc)
{
	SimQp *qp = sim_cq_find_qp(cq, cqe, qpn);
	uint32_t idx;

	if (SIM_UNLIKELY(!qp || !qp->sq.wqe_cnt))
		return CQ_POLL_ERR;
	idx = be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1);
	req_fill_wc(wc, cqe, qp->sq, idx);
	/* Inline-scatter CQEs (op_own bits 2..3) are never written by the model. */
	wc->wr_id = qp->sq.wrid[idx];
	wc->status = IBV_WC_SUCCESS;
	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
	return CQ_OK;
}

/** Receive completion on a plain RQ (handle_responder). */
inline int parse_resp(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn, struct ibv_wc *wc)
{
	SimQp *qp = sim_cq_find_resp_qp(cq, cqe, qpn);
	uint32_t flags_rqpn;

	if (SIM_UNLIKELY(!qp))
		return CQ_POLL_ERR;
	wc->byte_len = be32toh(cqe->byte_cnt);
	wc->wr_id = sim_cq_rq_retire(qp, cqe);
	switch (mlx5dv_get_cqe_opcode(cqe)) {
	case MLX5_CQE_RESP_WR_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND:
		wc->opcode = IBV_WC_RECV;
		break;
	case MLX5_CQE_RESP_SEND_IMM:
		wc->opcode = IBV_WC_RECV;
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		wc->opcode = IBV_WC_RECV;
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
		break;
	}
	flags_rqpn = be32toh(cqe->flags_rqpn);
	wc->slid = be16toh(cqe->slid);
	wc->sl = (flags_rqpn >> 24) & 0xf;
	wc->src_qp = flags_rqpn & 0xffffff;
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	wc->wc_flags |= ((flags_rqpn >> 28) & 3) ? IBV_WC_GRH : 0;
	wc->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
	wc->status = IBV_WC_SUCCESS;
	return CQ_OK;
}

/** REQ_ERR / RESP_ERR: status and vendor_err first, then the WQE it retires. */
inline int parse_err(SimCq *cq, struct mlx5_cqe64 *cqe, uint32_t qpn, uint8_t opcode,
		     struct ibv_wc *wc)
{
	const struct mlx5_err_cqe *ecqe = reinterpret_cast<const struct mlx5_err_cqe *>(cqe);
	SimQp *qp;

	wc->status = sim_cq_err_status(ecqe->syndrome);
	wc->vendor_err = ecqe->vendor_err_synd;
	if (opcode == MLX5_CQE_REQ_ERR) {
		qp = sim_cq_find_qp(cq, cqe, qpn);
		if (SIM_UNLIKELY(!qp || !qp->sq.wqe_cnt))
			return CQ_POLL_ERR;
		wc->wr_id = qp->sq.wrid[sim_cq_sq_retire(qp, cqe)];
		return CQ_OK;
	}
	qp = sim_cq_find_resp_qp(cq, cqe, qpn);
	if (SIM_UNLIKELY(!qp))
		return CQ_POLL_ERR;
	wc->wr_id = sim_cq_rq_retire(qp, cqe);
	return CQ_OK;
}

/**
 * One CQE into @p wc (mlx5_parse_cqe, non-lazy). A SIG_ERR CQE is consumed and
 * parsing goes on with the next one; CQ_POLL_NODATA when there is none.
 */
inline int parse_cqe(SimCq *cq, struct mlx5_cqe64 *cqe, struct ibv_wc *wc)
{
	uint32_t qpn;
	uint8_t opcode;
	int err;

again:
	qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	opcode = mlx5dv_get_cqe_opcode(cqe);
	wc->wc_flags = 0;
	wc->qp_num = qpn;
	switch (opcode) {
	case MLX5_CQE_REQ:
		return parse_req(cq, cqe, qpn, wc);
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		return parse_resp(cq, cqe, qpn, wc);
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		return parse_err(cq, cqe, qpn, opcode, wc);
	case MLX5_CQE_NO_PACKET:
		return CQ_POLL_ERR; /* tag matching only: no TM SRQ exists in the model */
	case MLX5_CQE_SIG_ERR:
		err = sim_cq_sigerr(cq, cqe);
		if (SIM_UNLIKELY(err))
			return err;
		if (sim_cq_next_cqe(cq, &cqe) == CQ_EMPTY)
			return CQ_POLL_NODATA;
		goto again;
	case MLX5_CQE_RESIZE_CQ:
	default:
		return CQ_OK; /* consumed and reported with only qp_num and wc_flags set */
	}
}

} // namespace

int sim_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	SimCq *cq = to_sim_cq(ibcq);
	struct mlx5_cqe64 *cqe;
	int err = CQ_OK;
	int npolled;

	for (npolled = 0; npolled < num_entries; ++npolled) {
		err = sim_cq_next_cqe(cq, &cqe);
		if (err != CQ_OK)
			break;
		err = parse_cqe(cq, cqe, wc + npolled);
		if (SIM_UNLIKELY(err != CQ_OK))
			break;
	}
	sim_cq_update_ci(cq);
	return err == CQ_POLL_ERR ? err : npolled;
}

} // namespace mlx5sim
