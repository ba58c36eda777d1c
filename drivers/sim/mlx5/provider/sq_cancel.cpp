/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_qp_cancel_posted_send_wrs as libmlx5 v44.0 does it (rdma-core
 * providers/mlx5/qp.c: mlx5_qp_query_sqd, mlx5_qp_sq_next_idx,
 * mlx5dv_qp_cancel_wr): a QUERY_QP must show the SQ drained; from the first
 * WQEBB the device has not executed, every WQE whose wr_id matches becomes a NOP
 * that keeps its index, ds, fence and completion bits, with the WC opcode the
 * completion must report saved in wr_data.
 *
 * Reproduced v44.0 behaviour (FORMAT.md §9):
 * - the masked hardware index is compared with the unmasked producer counter, so
 *   after the ring wrapped "everything executed" still walks executed WQEs;
 * - a WQE that is already a NOP (or any opcode without a WC opcode) fails the
 *   cancel with -EINVAL, after the earlier matches were cancelled;
 * - stepping from the last slot reads one element past the wqe_head array: the
 *   model treats that element as never matching (as the vectors were recorded),
 *   so the search goes on at slot 1 and wraps round to slot 0.
 * Deviation: when no slot holds the next WR's wqe_head (bookkeeping corrupted by
 * the application), libmlx5 would spin for ever; the model ends the walk there.
 */
#include <errno.h>

#include "wr_segments.h"

namespace mlx5sim {

namespace {

/** libmlx5's mlx5_cmd_status_to_err: firmware status byte to errno. */
int cmd_status_errno(uint8_t status)
{
	switch (status) {
	case 0x0:
		return 0;
	case 0x2:
	case 0x3:
	case 0x5:
	case 0x9:
	case 0xa:
	case 0x10:
	case 0x30:
	case 0x40:
		return EINVAL;
	case 0x6:
		return EBUSY;
	case 0x8:
		return ENOMEM;
	case 0xf:
		return EAGAIN;
	default:
		return EIO; /* 0x1, 0x4, 0x50, 0x51 and unknown */
	}
}

/** mlx5_qp_query_sqd: 0 with the first not executed slot, or a negative errno. */
int query_sqd(SimQp *qp, uint32_t *idx)
{
	uint8_t status = 0;
	QpcInfo qpc = {};
	int err;

	if (!qp->ctx->devx)
		return -EOPNOTSUPP; /* a context without DEVX */
	err = qp->ctx->devx->query_qp(qp, &status, &qpc);
	if (err) {
		if (err == EREMOTEIO)
			err = cmd_status_errno(status);
		/*
		 * EREMOTEIO with status OK maps to 0: v44.0 then walks from an
		 * uninitialised index; the model reports that nothing was cancelled.
		 */
		if (!err)
			*idx = qp->sq.cur_post;
		return -err;
	}
	if (qpc.state != MLX5_HW_QPC_STATE_SQDRAINED)
		return -EINVAL;
	*idx = qpc.hw_sq_wqebb_counter & (qp->sq.wqe_cnt - 1);
	return 0;
}

/** mlx5_qp_sq_next_idx: the slot of the next WR, false at the end of the posted WRs. */
bool next_idx(const SimQp *qp, uint32_t cur, uint32_t *next)
{
	const uint32_t *wqe_head = qp->sq.wqe_head;
	uint32_t mask = qp->sq.wqe_cnt - 1;
	uint32_t next_head = wqe_head[cur] + 1;
	uint32_t idx = cur + 1;

	if (next_head == qp->sq.head)
		return false;
	for (uint32_t n = 0; n <= qp->sq.wqe_cnt; n++) {
		/* idx == wqe_cnt is the element past the array: never a match */
		if (idx < qp->sq.wqe_cnt && wqe_head[idx] == next_head) {
			*next = idx;
			return true;
		}
		idx = (idx + 1) & mask;
	}
	return false;
}

/** mlx5dv_qp_cancel_wr: 0, or -EINVAL for an opcode without a WC opcode. */
int cancel_wr(SimQp *qp, uint32_t idx)
{
	auto *ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(wr_slot(qp, idx));
	uint32_t *wr_data = &qp->sq.wr_data[idx];
	uint32_t v = be32toh(ctrl->opmod_idx_opcode);

	if (*wr_data != IBV_WC_DRIVER2) { /* raw WQEs become NOPs unchecked */
		switch (v & 0xff) {
		case MLX5_OPCODE_RDMA_WRITE_IMM:
		case MLX5_OPCODE_RDMA_WRITE:
			*wr_data = IBV_WC_RDMA_WRITE;
			break;
		case MLX5_OPCODE_SEND_IMM:
		case MLX5_OPCODE_SEND:
		case MLX5_OPCODE_SEND_INVAL:
			*wr_data = IBV_WC_SEND;
			break;
		case MLX5_OPCODE_RDMA_READ:
			*wr_data = IBV_WC_RDMA_READ;
			break;
		case MLX5_OPCODE_ATOMIC_CS:
			*wr_data = IBV_WC_COMP_SWAP;
			break;
		case MLX5_OPCODE_ATOMIC_FA:
			*wr_data = IBV_WC_FETCH_ADD;
			break;
		case MLX5_OPCODE_TSO:
			*wr_data = IBV_WC_TSO;
			break;
		case MLX5_OPCODE_UMR:
		case MLX5_OPCODE_SET_PSV:
		case MLX5_OPCODE_MMO:
			break; /* wr_data was set when the WQE was built */
		default:
			return -EINVAL;
		}
	}
	/* opcode and opmod 0 (NOP); the index stays */
	ctrl->opmod_idx_opcode = htobe32((v & 0xffff00) | MLX5_OPCODE_NOP);
	return 0;
}

} // namespace

int sim_dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	SimQp *qp = to_sim_qp(mqp);
	int canceled = 0;
	uint32_t idx = 0;
	int ret;

	if (!qp->sq.wqe_cnt)
		return -EINVAL; /* no SQ: nothing libmlx5 could walk */
	ret = query_sqd(qp, &idx);
	if (ret || idx == qp->sq.cur_post)
		return ret;
	do {
		if (qp->sq.wrid[idx] == wr_id) {
			canceled++;
			ret = cancel_wr(qp, idx);
			if (ret)
				return ret;
		}
	} while (next_idx(qp, idx, &idx));
	return canceled;
}

} // namespace mlx5sim
