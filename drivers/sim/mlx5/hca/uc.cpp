/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UC transport on the device: RC's connection (remote LID and QPN in the QP
 * context) without acknowledgements. SEND, SEND with immediate, RDMA WRITE and
 * RDMA WRITE with immediate only; anything else is the requester's local QP
 * operation error. The requester completes as soon as the message leaves; a
 * message the responder cannot take (not its connected peer, not in a receiving
 * state, no receive WQE, a key or access that does not grant the write) is
 * dropped there and nobody hears of it; the responder QP keeps its state
 * (ASSUMPTIONS.md 81).
 */
#include "cq_table.h"
#include "fabric_port.h"
#include "host.h"
#include "wqe_planner.h"

namespace mlx5sim {

namespace {

/** ctrl segment: where a UC WQE's remote address or data segments start */
constexpr uint32_t kUcSeg = MLX5_HW_DS_BYTES;

/** The message is lost at the responder: nothing moves, the sender's CQE only. */
PlanResult drop(Plan *pl, PlanError *err)
{
	*err = PlanError{};
	err->resp_event = IBV_EVENT_COMM_EST; /* none */
	return plan_lost(pl);
}

} // namespace

bool uc_opcode(uint8_t op)
{
	return op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
	       op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM;
}

PlanResult WqePlanner::plan_uc(QpObj *qp, Plan *pl, uint32_t end, PlanError *err)
{
	uint8_t op = pl->opcode;
	if (op == MLX5_OPCODE_NOP)
		return PlanResult::Ok;
	bool write = op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM;
	/* no RDMA read, atomics, invalidation or device-local opcodes on UC */
	if (!uc_opcode(op) || end < kUcSeg + (write ? 16u : 0u)) {
		err->req = Verdict{MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
		return PlanResult::Error;
	}
	Verdict v = parse_local(mrt_, qp, pl, kUcSeg + (write ? 16 : 0), end, false);
	if (v.syndrome) {
		err->req = v;
		return PlanResult::Error;
	}
	pl->byte_cnt = (uint32_t)pl->total;
	qp->stall_remote = false;
	if (port_.leaves_process(qp, pl))
		return port_.xfabric_execute(qp, pl, kUcSeg, err);

	Host *host;
	QpObj *resp = port_.qp_at(qp->dest_lid, qp->dest_qpn, &host);
	if (!host || !resp || resp->cfg.type != IBV_QPT_UC ||
	    !host->port.rc_accepts(resp, caps_.lid, qp->qpn) || !port_.request_reaches(qp, host))
		return drop(pl, err);
	if (write) {
		/* a key or access the responder does not grant: the message is lost */
		v = parse_remote(resp, pl, kUcSeg, pl->total, IBV_ACCESS_REMOTE_WRITE, err);
		if (v.syndrome)
			return drop(pl, err);
		if (op == MLX5_OPCODE_RDMA_WRITE) {
			pl->peer = resp;
			pl->delay_us = port_.link_delay(host);
			return PlanResult::Ok;
		}
	}
	pl->resp_opcode = op == MLX5_OPCODE_SEND       ? MLX5_CQE_RESP_SEND
			  : op == MLX5_OPCODE_SEND_IMM ? MLX5_CQE_RESP_SEND_IMM
						       : MLX5_CQE_RESP_WR_IMM;
	PlanResult r = take_recv(resp, pl, !write, err);
	if (r == PlanResult::Stall)
		return drop(pl, err); /* no receive posted: no RNR NAK in UC */
	if (r == PlanResult::Error) {
		/* that receive WQE completes in error, the responder goes on (ud.cpp) */
		if (err->resp_cqe)
			resp->owner->cqs.write_err_cqe(resp, true, 0, err->resp_idx, err->resp);
		return drop(pl, err);
	}
	pl->peer = resp;
	pl->delay_us = port_.link_delay(host);
	return PlanResult::Ok;
}

} // namespace mlx5sim
