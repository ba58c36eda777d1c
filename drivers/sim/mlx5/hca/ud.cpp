/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UD transport on the device: a send WQE carries its address vector (LID, SL,
 * remote QPN, Q_Key) in the datagram segment after the ctrl segment, and nothing
 * answers it. A datagram no QP takes (nobody at the LID, not a UD QP that
 * receives, wrong Q_Key, no receive posted, lost on the link) is dropped and the
 * sender completes successfully. The receiver's buffer starts with 40 bytes of
 * GRH space, left untouched (IB, no GRH); a datagram longer than the rest of the
 * buffer completes the receive WQE with a local length error and writes nothing
 * (ASSUMPTIONS.md 80).
 */
#include <string.h>

#include "cq_table.h"
#include "fabric_port.h"
#include "host.h"
#include "wqe_planner.h"

namespace mlx5sim {

namespace {

/** ctrl segment + datagram segment: where a UD send's data segments start */
constexpr uint32_t kUdSeg = MLX5_HW_DS_BYTES + HCA_DC_AV_BYTES;

} // namespace

uint32_t ud_wqe_qkey(const QpObj *qp, const Plan *pl)
{
	uint32_t qkey = mlx5_hw_ld_be32(pl->wqe + MLX5_HW_DS_BYTES);
	return (qkey & 0x80000000u) ? qp->qkey : qkey;
}

bool ud_accepts(const QpObj *resp, uint32_t qkey)
{
	if (!resp || resp->cfg.type != IBV_QPT_UD || resp->qkey != qkey)
		return false;
	/* a QP receives from RTR on, until it is reset or in error */
	return resp->state == IBV_QPS_RTR || resp->state == IBV_QPS_RTS ||
	       resp->state == IBV_QPS_SQD || resp->state == IBV_QPS_SQE;
}

PlanResult WqePlanner::plan_ud(QpObj *qp, Plan *pl, uint32_t end, PlanError *err)
{
	uint8_t op = pl->opcode;
	if (op == MLX5_OPCODE_NOP)
		return PlanResult::Ok;
	/* UD sends only: no RDMA, no atomics, no invalidation */
	if ((op != MLX5_OPCODE_SEND && op != MLX5_OPCODE_SEND_IMM) || end < kUdSeg) {
		err->req = Verdict{MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
		return PlanResult::Error;
	}
	Verdict v = parse_local(mrt_, qp, pl, kUdSeg, end, false);
	/* a datagram is one packet: longer than the port MTU never leaves the sender */
	if (!v.syndrome && pl->total > HCA_UD_MTU)
		v = Verdict{MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, 0};
	if (v.syndrome) {
		err->req = v;
		return PlanResult::Error;
	}
	pl->byte_cnt = (uint32_t)pl->total;
	const uint8_t *av = pl->wqe + MLX5_HW_DS_BYTES;
	uint32_t qkey = ud_wqe_qkey(qp, pl);
	uint32_t dqpn = mlx5_hw_ld_be32(av + 8) & 0xffffff;
	uint16_t dlid = mlx5_hw_ld_be16(av + 14);
	pl->ud_sl = av[12] & 0xf;
	pl->ud_slid = caps_.lid;
	pl->resp_opcode = op == MLX5_OPCODE_SEND ? MLX5_CQE_RESP_SEND : MLX5_CQE_RESP_SEND_IMM;
	qp->stall_remote = false;
	if (port_.leaves_process(qp, pl))
		return port_.xfabric_execute(qp, pl, kUdSeg, err);

	Host *host;
	QpObj *resp = port_.qp_at(dlid, dqpn, &host);
	if (!host || !ud_accepts(resp, qkey) || !port_.request_reaches(qp, host))
		return plan_lost(pl);
	PlanResult r = take_recv(resp, pl, true, err, HCA_UD_GRH_BYTES);
	if (r == PlanResult::Stall)
		return plan_lost(pl); /* no receive posted: no RNR in UD */
	if (r == PlanResult::Error) {
		/* the receiver's WQE completes in error, the receiver goes on; the sender
		 * never hears of it */
		if (err->resp_cqe)
			resp->owner->cqs.write_err_cqe(resp, true, 0, err->resp_idx, err->resp);
		*err = PlanError{};
		err->resp_event = IBV_EVENT_COMM_EST;
		return plan_lost(pl);
	}
	pl->peer = resp;
	pl->delay_us = port_.link_delay(host);
	return PlanResult::Ok;
}

} // namespace mlx5sim
