/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * WQE checks: turn a fetched WQE into a plan of checked memory spans, or into an
 * error. Every data segment (local and remote) is checked here, before any byte
 * of the WQE moves; a receive WQE of the responder is consumed here too.
 */
#include <string.h>

#include "fabric_port.h"
#include "host.h"
#include "sig_engine.h"
#include "srq_table.h"
#include "wqe_planner.h"
#include "wqe_special.h"

namespace mlx5sim {

namespace {

Verdict synd(uint8_t s)
{
	return Verdict{s, 0};
}

/** The responder moves to ERR with @p ev; its requester sees @p req. */
void responder_fault(PlanError *err, QpObj *resp, uint8_t req, enum ibv_event_type ev)
{
	err->req = synd(req);
	err->resp_qp = resp;
	err->resp_event = ev;
}

} // namespace

Verdict parse_local(const MrTable &mrt, const QpObj *qp, Plan *pl, uint32_t off, uint32_t end,
		    bool scatter)
{
	Span *spans = scatter ? pl->dst : pl->src;
	uint32_t *n = scatter ? &pl->ndst : &pl->nsrc;

	pl->total = 0;
	while (off < end) {
		uint32_t bc = mlx5_hw_ld_be32(pl->wqe + off);
		if (bc & MLX5_INLINE_SEG) {
			uint32_t len = bc & ~MLX5_INLINE_SEG;
			if (scatter || len > end - off - 4)
				return synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
			if (len)
				spans[(*n)++] = Span{pl->wqe + off + 4, len};
			pl->total += len;
			off += (4 + len + 15) & ~15u;
			continue;
		}
		uint32_t lkey = mlx5_hw_ld_be32(pl->wqe + off + 4);
		uint64_t addr = mlx5_hw_ld_be64(pl->wqe + off + 8);
		uint64_t len = hca_seg_len(bc);
		Verdict v = mrt.xlat_local(qp, lkey, addr, len, scatter, pl);
		if (v.syndrome)
			return v;
		pl->total += len;
		off += MLX5_HW_DS_BYTES;
	}
	if (pl->total > HCA_MAX_MSG)
		return synd(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	return Verdict{0, 0};
}

/** Remote segment of RDMA/atomic WQEs, checked against the responder. */
Verdict parse_remote(QpObj *resp, Plan *pl, uint32_t at, uint64_t len, int need, PlanError *err)
{
	uint64_t raddr = mlx5_hw_ld_be64(pl->wqe + at);
	uint32_t rkey = mlx5_hw_ld_be32(pl->wqe + at + 8);
	/* the responder QP must enable the operation: invalid request otherwise */
	if ((resp->access_flags & (uint32_t)need) != (uint32_t)need) {
		responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
				IBV_EVENT_QP_REQ_ERR);
		return err->req;
	}
	if (len == 0) /* nothing is accessed: no key check */
		return Verdict{0, 0};
	/* the responder's host checks its own MR table */
	Verdict v = resp->owner->mrt.xlat_remote(resp, rkey, raddr, len, need, pl,
						 need != IBV_ACCESS_REMOTE_READ);
	if (v.syndrome) {
		responder_fault(err, resp, v.syndrome, IBV_EVENT_QP_ACCESS_ERR);
		err->req = v;
		return v;
	}
	return Verdict{0, 0};
}

/**
 * Consume the responder's next receive WQE. With @p scatter its data segments
 * become pl->dst. Returns Stall when the RQ is empty.
 */
PlanResult take_recv(QpObj *resp, Plan *pl, bool scatter, PlanError *err, uint32_t skip)
{
	Host *host = resp->owner; /* the responder's host owns its receive queues and MRs */
	const uint8_t *wqe;
	uint32_t stride;

	if (resp->srq) {
		/* an SRQ WQE: data segments after its 16-byte next segment */
		uint16_t idx;
		wqe = take_srq_wqe(resp->srq, &idx);
		if (!wqe)
			return PlanResult::Stall;
		if (srq_limit_crossed(resp->srq))
			host->events.push(IBV_EVENT_SRQ_LIMIT_REACHED, 0, 0, resp->srq->srqn);
		stride = (1u << resp->srq->cfg.wqe_shift) - 16;
		pl->resp_idx = idx;
	} else {
		if (resp->cfg.rq_wqe_cnt == 0) {
			responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
					IBV_EVENT_QP_REQ_ERR);
			return PlanResult::Error;
		}
		uint32_t pi = __atomic_load_n(&resp->cfg.dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE);
		if ((uint16_t)(be32toh(pi) - resp->rq_ci) == 0)
			return PlanResult::Stall;
		stride = 1u << resp->cfg.rq_wqe_shift;
		wqe = static_cast<const uint8_t *>(resp->cfg.rq_buf) +
		      (size_t)(resp->rq_ci & (resp->cfg.rq_wqe_cnt - 1)) * stride;
		pl->resp_idx = (uint16_t)resp->rq_ci;
		resp->rq_ci++;
	}
	pl->resp_qp = resp;
	if (!scatter)
		return PlanResult::Ok;

	uint64_t room = 0;
	for (uint32_t off = 0; off < stride; off += MLX5_HW_DS_BYTES) {
		uint8_t seg[16];
		memcpy(seg, wqe + off, sizeof(seg));
		uint32_t lkey = mlx5_hw_ld_be32(seg + 4);
		if (lkey == MLX5_INVALID_LKEY)
			break;
		uint64_t len = hca_seg_len(mlx5_hw_ld_be32(seg));
		uint64_t addr = mlx5_hw_ld_be64(seg + 8);
		/* skipped bytes are neither checked nor written: the segment starts later */
		uint64_t k = skip < len ? skip : len;
		skip -= (uint32_t)k;
		addr += k;
		len -= k;
		if (len == 0)
			continue;
		Verdict v = host->mrt.xlat_local(resp, lkey, addr, len, true, pl);
		if (v.syndrome) {
			/* responder local error: its CQE, requester sees a remote op error */
			responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_OP_ERR,
					IBV_EVENT_COMM_EST);
			err->resp_cqe = true;
			err->resp = v;
			err->resp_idx = pl->resp_idx;
			return PlanResult::Error;
		}
		room += len;
	}
	if (room < pl->total || skip) {
		responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
				IBV_EVENT_COMM_EST);
		err->resp_cqe = true;
		err->resp = synd(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		err->resp_idx = pl->resp_idx;
		return PlanResult::Error;
	}
	return PlanResult::Ok;
}

/** memcpy MMO: src and dst data segments, opaque metadata key. */
static Verdict plan_mmo(const HcaCaps &caps, const MrTable &mrt, const QpObj *qp, Plan *pl,
			uint32_t ds)
{
	if (mlx5_hw_ctrl_opmod(reinterpret_cast<const struct mlx5_wqe_ctrl_seg *>(pl->wqe)) !=
		    MLX5_HW_OPC_MOD_MMO_DMA ||
	    caps.max_wr_memcpy_length == 0 || ds < 4)
		return synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	const uint8_t *meta = pl->wqe + 16, *src = pl->wqe + 32, *dst = pl->wqe + 48;
	uint64_t slen = hca_seg_len(mlx5_hw_ld_be32(src));
	uint64_t dlen = hca_seg_len(mlx5_hw_ld_be32(dst));
	if (slen != dlen || slen > caps.max_wr_memcpy_length)
		return synd(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	uint8_t *p;
	Verdict v = mrt.check_local(qp, mlx5_hw_ld_be32(meta + 4), mlx5_hw_ld_be64(meta + 8),
				    MLX5_HW_OPAQUE_BUF_LEN, true, &p);
	if (v.syndrome)
		return v;
	v = mrt.xlat_local(qp, mlx5_hw_ld_be32(src + 4), mlx5_hw_ld_be64(src + 8), slen, false, pl);
	if (v.syndrome)
		return v;
	v = mrt.xlat_local(qp, mlx5_hw_ld_be32(dst + 4), mlx5_hw_ld_be64(dst + 8), dlen, true, pl);
	if (v.syndrome)
		return v;
	pl->total = slen;
	pl->byte_cnt = (uint32_t)slen; /* bytes copied: 2 GiB is 0x80000000 */
	return Verdict{0, 0};
}

/** Atomics, the requester's half: the WQE's size and its 8-byte local result segment. */
Verdict atomic_result(const MrTable &mrt, const QpObj *qp, Plan *pl, uint32_t at, uint32_t ds)
{
	if (ds * MLX5_HW_DS_BYTES < at + 48)
		return synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	const uint8_t *data = pl->wqe + at + 32;
	if (mlx5_hw_ld_be32(data) != 8)
		return synd(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	bool odp = false;
	Verdict v = mrt.check_local(qp, mlx5_hw_ld_be32(data + 4), mlx5_hw_ld_be64(data + 8), 8,
				    true, &pl->atomic_result, &odp);
	pl->safe |= odp;
	return v;
}

Verdict atomic_target(QpObj *resp, Plan *pl, uint32_t at, PlanError *err)
{
	if (mlx5_hw_ld_be64(pl->wqe + at) & 7) {
		responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
				IBV_EVENT_QP_REQ_ERR);
		return err->req;
	}
	Verdict v = parse_remote(resp, pl, at, 8, IBV_ACCESS_REMOTE_ATOMIC, err);
	if (v.syndrome)
		return v;
	if (pl->ndst != 1 || (pl->dst[0].len & (HCA_SPAN_PATTERN | HCA_SPAN_SIG))) {
		/* an mkey that splits, repeats or protects the 8 bytes cannot be a target */
		responder_fault(err, resp, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				IBV_EVENT_QP_ACCESS_ERR);
		return err->req;
	}
	pl->atomic = true;
	pl->atomic_cs = pl->opcode == MLX5_OPCODE_ATOMIC_CS;
	pl->atomic_target = reinterpret_cast<uint64_t *>(pl->dst[--pl->ndst].p);
	pl->swap_add = mlx5_hw_ld_be64(pl->wqe + at + 16);
	pl->compare = mlx5_hw_ld_be64(pl->wqe + at + 24);
	pl->byte_cnt = 8;
	return Verdict{0, 0};
}

/** Atomics: raddr (at @p at), atomic segment, one 8-byte local data segment. */
static Verdict plan_atomic(const MrTable &mrt, QpObj *qp, QpObj *resp, Plan *pl, uint32_t at,
			   uint32_t ds, PlanError *err)
{
	Verdict v = atomic_result(mrt, qp, pl, at, ds);
	return v.syndrome ? v : atomic_target(resp, pl, at, err);
}

/**
 * SEND_INVAL: the rkey in imm names an mkey of the responder with en_rinval: it
 * is freed when the send executes. Any other rkey invalidates nothing.
 */
static void plan_remote_inval(const QpObj *resp, Plan *pl)
{
	MrTable &mrt = resp->owner->mrt;
	uint32_t rkey = be32toh(pl->imm_raw);
	uint32_t idx = rkey >> 8;
	MrEntry *mrp = mrt.entry(idx);
	if (!mrp)
		return;
	MrEntry &mr = *mrp;
	if (mr.used && mr.indirect && mrt.mkey(idx)->rinval && mr.variant == (rkey & 0xff) &&
	    mr.pdn == resp->cfg.pdn) {
		pl->xflags |= XF_INVAL;
		pl->target = &mr;
		pl->target_mk = mrt.mkey(idx);
	}
}

PlanResult WqePlanner::plan_wqe(QpObj *qp, Plan *pl, PlanError *err)
{
	pl->xflags = 0;
	pl->target = nullptr;
	pl->target_mk = nullptr;
	pl->npat = 0;
	pl->nsig = 0;
	pl->umr_has_bsf = false;
	pl->umr_sig_err = false;
	PlanResult r = plan_checked(qp, pl, err);
	if (r == PlanResult::Ok)
		plan_data_order(caps_, pl->peer ? &pl->peer->owner->caps : nullptr, pl);
	/* exec_plan() sends it to exec_general() without looking at xflags */
	if (r == PlanResult::Ok && pl->xflags)
		pl->nsrc |= HCA_NSRC_SPECIAL;
	return r;
}

PlanResult WqePlanner::plan_checked(QpObj *qp, Plan *pl, PlanError *err)
{
	const struct mlx5_wqe_ctrl_seg *ctrl =
		reinterpret_cast<const struct mlx5_wqe_ctrl_seg *>(pl->wqe);
	uint32_t ds = mlx5_hw_ctrl_ds(ctrl);
	uint32_t end = ds * MLX5_HW_DS_BYTES;
	uint8_t op = pl->opcode;
	Verdict v = {0, 0};

	*err = PlanError{};
	err->resp_event = IBV_EVENT_COMM_EST; /* none */
	pl->nsrc = pl->ndst = 0;
	pl->total = 0;
	pl->byte_cnt = 0;
	pl->atomic = false;
	pl->safe = false;
	pl->fault = 0;
	pl->resp_qp = nullptr;
	pl->peer = nullptr;
	pl->delay_us = 0;
	memcpy(&pl->imm_raw, &ctrl->imm, sizeof(pl->imm_raw));

	if (qp->fail_armed && (qp->fail_next || qp->fail_idx == pl->idx)) {
		qp->fail_armed = false;
		err->req = Verdict{qp->fail_synd, qp->fail_vendor};
		return PlanResult::Error;
	}

	if (qp->cfg.type == IBV_QPT_UD)
		return plan_ud(qp, pl, end, err);
	if (qp->cfg.type == IBV_QPT_UC)
		return plan_uc(qp, pl, end, err);
	bool remote = hca_remote_opcode(op);
	bool rdma = remote && op != MLX5_OPCODE_SEND && op != MLX5_OPCODE_SEND_IMM &&
		    op != MLX5_OPCODE_SEND_INVAL;
	/* a DCI's transport segments follow its address vector */
	uint32_t seg = qp->cfg.dc == DcRole::Dci && remote ? 16 + HCA_DC_AV_BYTES : 16;
	if (ds * MLX5_HW_DS_BYTES < seg + (rdma ? 16 : 0))
		v = synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);

	/* local segments first: a local error never reaches the wire */
	if (!v.syndrome) {
		switch (op) {
		case MLX5_OPCODE_NOP:
			break;
		case MLX5_OPCODE_SEND:
		case MLX5_OPCODE_SEND_IMM:
		case MLX5_OPCODE_SEND_INVAL:
			v = parse_local(mrt_, qp, pl, seg, end, false);
			break;
		case MLX5_OPCODE_RDMA_WRITE:
		case MLX5_OPCODE_RDMA_WRITE_IMM:
			v = parse_local(mrt_, qp, pl, seg + 16, end, false);
			break;
		case MLX5_OPCODE_RDMA_READ:
			v = parse_local(mrt_, qp, pl, seg + 16, end, true);
			break;
		case MLX5_OPCODE_ATOMIC_CS:
		case MLX5_OPCODE_ATOMIC_FA:
			break; /* plan_atomic below */
		case MLX5_OPCODE_MMO:
			v = plan_mmo(caps_, mrt_, qp, pl, ds);
			break;
		case MLX5_OPCODE_UMR:
			v = plan_umr(mrt_, psvs_, qp, pl, ds);
			break;
		case MLX5_OPCODE_SET_PSV:
			v = sig_.plan_set_psv(qp, pl, ds);
			break;
		default: /* masked atomics, ...: not modelled yet */
			v = synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
			break;
		}
	}
	if (v.syndrome) {
		err->req = v;
		return PlanResult::Error;
	}
	/* CorruptSig: the first transfer of the WQE that generates protection */
	for (uint32_t i = 0; qp->corrupt_sig_armed && i < pl->nsig; i++) {
		SigXfer &x = pl->sigs[i];
		if (x.scatter ? x.cfg.mem.pi : x.cfg.wire.pi) {
			x.corrupt = true;
			qp->corrupt_sig_armed = false;
		}
	}
	if (!remote)
		return PlanResult::Ok;
	/* a host of another process: executed now, as the head of its group */
	qp->stall_remote = false; /* until such a host answers with an RNR NAK */
	if (port_.leaves_process(qp, pl))
		return port_.xfabric_execute(qp, pl, seg, err);

	/* the responder: a QP of this device in a state that answers, or a DCT */
	QpObj *resp;
	if (qp->cfg.dc == DcRole::Dci) {
		resp = dc_target(qp, pl, &v);
		if (!resp) {
			err->req = v;
			return PlanResult::Error;
		}
	} else {
		Host *host;
		resp = port_.qp_at(qp->dest_lid, qp->dest_qpn, &host);
		/* only the peer the responder is connected to: anything else is dropped */
		if (!host || !host->port.rc_accepts(resp, caps_.lid, qp->qpn) ||
		    resp->cfg.type != IBV_QPT_RC || !port_.request_reaches(qp, host)) {
			err->req = synd(MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
			return PlanResult::Error;
		}
	}
	pl->peer = resp;
	pl->delay_us = port_.link_delay(resp->owner);
	PlanResult r = PlanResult::Ok;
	switch (op) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
		r = take_recv(resp, pl, true, err);
		if (r == PlanResult::Stall)
			qp->rnr_peer_timer = resp->min_rnr_timer; /* paces the retries */
		if (r == PlanResult::Ok && op == MLX5_OPCODE_SEND_INVAL)
			plan_remote_inval(resp, pl);
		pl->resp_opcode = op == MLX5_OPCODE_SEND       ? MLX5_CQE_RESP_SEND
				  : op == MLX5_OPCODE_SEND_IMM ? MLX5_CQE_RESP_SEND_IMM
							       : MLX5_CQE_RESP_SEND_INV;
		pl->byte_cnt = (uint32_t)pl->total;
		return r;
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		v = parse_remote(resp, pl, seg, pl->total, IBV_ACCESS_REMOTE_WRITE, err);
		if (v.syndrome)
			return PlanResult::Error;
		pl->byte_cnt = (uint32_t)pl->total;
		if (op == MLX5_OPCODE_RDMA_WRITE)
			return PlanResult::Ok;
		pl->resp_opcode = MLX5_CQE_RESP_WR_IMM;
		r = take_recv(resp, pl, false, err);
		if (r == PlanResult::Stall) {
			pl->ndst = 0; /* planned again later */
			qp->rnr_peer_timer = resp->min_rnr_timer;
		}
		return r;
	case MLX5_OPCODE_RDMA_READ:
		v = parse_remote(resp, pl, seg, pl->total, IBV_ACCESS_REMOTE_READ, err);
		pl->byte_cnt = (uint32_t)pl->total;
		return v.syndrome ? PlanResult::Error : PlanResult::Ok;
	default: /* atomics */
		v = plan_atomic(mrt_, qp, resp, pl, seg, ds, err);
		if (v.syndrome) {
			if (!err->req.syndrome)
				err->req = v;
			return PlanResult::Error;
		}
		return PlanResult::Ok;
	}
}

} // namespace mlx5sim
