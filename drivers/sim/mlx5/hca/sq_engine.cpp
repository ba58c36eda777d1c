/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Send-queue engine: reads the producer counter from the doorbell record, plans
 * WQEs in groups (a fenced WQE starts a new group: it waits for all earlier
 * WQEs), moves the data of a group (in reverse with caps.reorder_unfenced in
 * thread mode), writes the CQEs in WQE order, and handles errors: error CQE, QP
 * to ERR, one flush CQE per outstanding WQE. A send that finds no receive WQE waits
 * at the head of the SQ and is retried on the responder's RNR timer until rnr_retry
 * retries are spent (RNR_RETRY_EXC).
 */
#include <string.h>

#include "cq_table.h"
#include "dev_mutex.h"
#include "dev_stats.h"
#include "fabric_port.h"
#include "host.h"
#include "qp_table.h"
#include "sig_engine.h"
#include "sq_engine.h"
#include "wqe_exec.h"

namespace mlx5sim {

namespace {

/** RNR NAK timer values of the IB specification (min_rnr_timer 0..31), microseconds. */
constexpr uint32_t kRnrTimerUs[32] = {
	655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
	480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
	20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

} // namespace

SqEngine::SqEngine(const HcaCaps &caps, ExecMode mode, DevMutex &mu, MrTable &mrt, QpTable &qps,
		   CqTable &cqs, WqePlanner &planner, SigEngine &sig, FabricPort &port,
		   EventQueue &events, DevStats &stats)
	: caps_(caps), mode_(mode), mu_(mu), mrt_(mrt), qps_(qps), cqs_(cqs), planner_(planner),
	  sig_(sig), port_(port), events_(events), st_(stats), plans_(new Plan[HCA_MAX_GROUP]),
	  fast_plans_(new FastPlan[HCA_MAX_GROUP])
{
}

void SqEngine::fail_wqe(QpObj *qp, const Plan *pl, const PlanError &err)
{
	cqs_.write_err_cqe(qp, false, pl->opcode, pl->idx, err.req, pl->delay_us);
	QpObj *resp = err.resp_qp;
	/* the responder's consequences happen on its own host */
	if (resp && err.resp_cqe)
		resp->owner->cqs.write_err_cqe(resp, true, 0, err.resp_idx, err.resp);
	/* a DCI loses only the stream, until too many streams are in error */
	if (qp->cfg.dc == DcRole::Dci)
		qps_.dci_stream_failed(qp, pl->stream);
	else
		qps_.enter_err(qp);
	QpTable::responder_fails(err.resp_qp, err.resp_event, qp);
}

/** Requester and responder CQEs of an executed plan. */
inline void SqEngine::complete_plan(QpObj *qp, const Plan *pl)
{
	/* most WQEs of a burst are unsignaled and have no responder: no call */
	if (__builtin_expect(!pl->signaled && !pl->resp_qp && !(pl->nsrc & HCA_NSRC_SPECIAL), 1))
		return;
	/* a signature error's CQE comes before the WQE's own completion */
	if ((pl->nsrc & HCA_NSRC_SPECIAL) && (pl->xflags & XF_SIG) && sig_.complete(qp, pl) &&
	    qp->cfg.drain_sigerr)
		qp->sig_stop = true;
	if (pl->signaled)
		cqs_.write_req_cqe(qp, pl);
	if (pl->resp_qp)
		pl->resp_qp->owner->cqs.write_resp_cqe(pl->resp_qp, pl, qp->qpn);
}

namespace {

/**
 * exec_plan() of a plan_fast_mmo() plan: one span to one span of the same length,
 * pinned memory, no atomic (move_span(), wqe_exec.h).
 */
inline uint64_t exec_fast(const FastPlan *fp)
{
	uint64_t n = fp->len;

	move_span(fp->dst, fp->src, n);
	return n;
}

} // namespace

void SqEngine::run_fast_group(QpObj *qp, uint32_t n, bool reorder)
{
	const FastPlan *plans = fast_plans_.get();
	uint64_t bytes = 0;
	if (!reorder || n < 2) {
		for (uint32_t i = 0; i < n; i++)
			bytes += exec_fast(&plans[i]);
	} else {
		/* as run_group(): a fenced head first, the rest in reverse */
		uint32_t first = (plans[0].fm_ce_se & MLX5_HW_FM_MASK) ? 1 : 0;
		if (first)
			bytes += exec_fast(&plans[0]);
		for (uint32_t i = n; i-- > first;)
			bytes += exec_fast(&plans[i]);
	}
	st_.wqes.add(n);
	st_.bytes.add(bytes);
	/* no responder, no signature, no fault: only signaled WQEs have a CQE */
	for (uint32_t signaled = fast_signaled_; signaled; signaled &= signaled - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(signaled);
		cqs_.write_req_cqe(qp, MLX5_OPCODE_MMO, plans[i].idx, (uint32_t)plans[i].len, 0,
				   st_);
	}
}

bool SqEngine::run_group(QpObj *qp, uint32_t n, bool reorder)
{
	if (n == 0)
		return false;
	Plan *plans = plans_.get();
	uint64_t bytes = 0;
	uint32_t bad = n; /* first plan whose on-demand pages faulted while moving */
	if (!reorder || n < 2) {
		for (uint32_t i = 0; i < n && bad == n; i++) {
			bytes += exec_plan(&plans[i]);
			if (__builtin_expect(plans[i].safe, 0) && plans[i].fault)
				bad = i;
		}
	} else {
		/* a fenced head waits for nothing in this group, but nothing passes it */
		uint32_t first = plans[0].fenced ? 1 : 0;
		if (first)
			bytes += exec_plan(&plans[0]);
		for (uint32_t i = n; i-- > first;)
			bytes += exec_plan(&plans[i]);
		for (uint32_t i = 0; i < n && bad == n; i++)
			if (plans[i].safe && plans[i].fault)
				bad = i;
	}
	/*
	 * Statistics once per group, and before the CQEs: whoever polls a CQE finds
	 * its WQE counted.
	 */
	st_.wqes.add(n);
	st_.bytes.add(bytes);
	/* data of the group is visible before its CQEs: CQE stores are release stores */
	for (uint32_t i = 0; i < bad; i++)
		complete_plan(qp, &plans[i]);
	if (bad < n)
		fail_moved(qp, bad);
	return true;
}

void SqEngine::fail_moved(QpObj *qp, uint32_t bad)
{
	Plan *pl = &plans_[bad];
	const Verdict local = {MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
			       MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
	const Verdict remote = {MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
	PlanError err{};
	err.resp_event = IBV_EVENT_COMM_EST; /* none */
	err.req = local;
	uint8_t op = pl->opcode;
	bool send = op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
		    op == MLX5_OPCODE_SEND_INVAL;
	/* which side is the responder's memory: as check_remote()/take_recv() report it */
	bool remote_src = op == MLX5_OPCODE_RDMA_READ;
	bool remote_dst = op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM ||
			  pl->atomic;
	if (send && pl->fault == 2) {
		/* the responder's receive buffer: its CQE, the requester sees REM_OP */
		err.req = Verdict{MLX5_CQE_SYNDROME_REMOTE_OP_ERR, 0};
		err.resp_qp = pl->resp_qp;
		err.resp_cqe = true;
		err.resp = local;
		err.resp_idx = pl->resp_idx;
	} else if ((remote_src && pl->fault == 1) || (remote_dst && pl->fault == 2)) {
		err.req = remote;
		err.resp_qp = pl->peer;
		err.resp_event = IBV_EVENT_QP_ACCESS_ERR;
	}
	/* the later WQEs of the group are consumed: rewind so that enter_err flushes them */
	const struct mlx5_wqe_ctrl_seg *ctrl =
		reinterpret_cast<const struct mlx5_wqe_ctrl_seg *>(pl->wqe);
	uint16_t next = (uint16_t)(pl->idx + mlx5_hw_ds_to_wqebbs(mlx5_hw_ctrl_ds(ctrl)));
	qp->sq_ci -= (uint16_t)((uint16_t)qp->sq_ci - next);
	fail_wqe(qp, pl, err);
}

/**
 * Plan up to @p limit WQEs into plans_ (a fenced WQE only as the first). Returns
 * how many; *end says why it stopped early (Error: *bad and *err describe it).
 */
uint32_t SqEngine::plan_group(QpObj *qp, uint16_t pi, uint32_t limit, PlanResult *end, Plan **bad,
			      PlanError *err, bool *all_fast)
{
	uint32_t n = 0;
	*end = PlanResult::Ok;
	*all_fast = true;
	while (n < limit && (uint16_t)(pi - (uint16_t)qp->sq_ci)) {
		bool fence = false;
		uint32_t fast_from = n;
		/* draining after a signature error: every WQE is checked for FENCE below */
		if (!qp->sig_draining && qp->cfg.dc != DcRole::Dci)
			n = plan_fast_mmo(qp, pi, n, limit, &fence);
		bool stop = fence || n == limit || !(uint16_t)(pi - (uint16_t)qp->sq_ci);
		/* run_group() executes a group with general plans: the fast ones join plans_ */
		if (n != fast_from && (!stop || !*all_fast))
			expand_fast(fast_from, n);
		if (stop)
			break;
		/* a WQE for the general path follows (planned, failed or left posted) */
		*all_fast = false;
		/* the general path: one WQE the fast path declined */
		Plan *pl = &plans_[n];
		pl->delay_us = 0; /* a WQE that fails to fetch reaches nobody */
		uint32_t wqebbs;
		Verdict v = planner_.fetch_wqe(qp, pi, pl, &wqebbs);
		if (v.syndrome) {
			*err = PlanError{};
			err->req = v;
			err->resp_event = IBV_EVENT_COMM_EST;
			*end = PlanResult::Error;
			*bad = pl;
			qp->sq_ci += wqebbs;
			break;
		}
		if (pl->fenced && n > 0)
			break; /* fetched again as the head of the next group */
		/* a WQE to another process executes while planned: after all earlier ones */
		if (n > 0 && port_.leaves_process(qp, pl))
			break;
		if (qp->cfg.dc == DcRole::Dci && qps_.dci_stream_errored(qp, pl->stream)) {
			if (n > 0)
				break; /* flushed as the head of the next group, in WQE order */
			cqs_.write_err_cqe(
				qp, false, pl->opcode, pl->idx,
				Verdict{MLX5_CQE_SYNDROME_WR_FLUSH_ERR, HCA_FLUSH_VENDOR});
			qp->sq_ci += wqebbs;
			continue;
		}
		if (qp->sig_draining && (pl->wqe[11] & MLX5_WQE_CTRL_FENCE)) {
			qps_.sig_drain(qp); /* stops before the fenced WQE, which stays posted */
			break;
		}
		PlanResult r = planner_.plan_wqe(qp, pl, err);
		if (r == PlanResult::Stall) {
			if (!rnr_spent(qp)) {
				*end = r;
				break;
			}
			/* no receive WQE after every RNR retry: the requester gives up */
			*err = PlanError{};
			err->req = Verdict{MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, 0};
			err->resp_event = IBV_EVENT_COMM_EST;
			r = PlanResult::Error;
		}
		if (r == PlanResult::Error) {
			qp->stalled = false;
			qp->sq_ci += wqebbs;
			*end = r;
			*bad = pl;
			break;
		}
		qp->stalled = false;
		qp->sq_ci += wqebbs;
		n++;
		/* drain_sigerr: a signature WQE ends its group, so the SQ can stop after it */
		if (qp->cfg.drain_sigerr && (pl->xflags & XF_SIG))
			break;
	}
	return n;
}

bool SqEngine::rnr_spent(QpObj *qp)
{
	auto now = std::chrono::steady_clock::now();
	/* the timer the responder asked for in its RNR NAK */
	std::chrono::microseconds delay(kRnrTimerUs[qp->rnr_peer_timer & 31]);

	if (!qp->stalled) {
		qp->stalled = true;
		qp->rnr_since = now;
		qp->rnr_naks = 1;
	} else if (qp->rnr_retry != HCA_RNR_INFINITE) {
		/* one retry per timer period: NAKs = 1 + the periods elapsed since the first */
		uint64_t periods =
			(uint64_t)(now - qp->rnr_since).count() /
			(uint64_t)std::chrono::duration_cast<std::chrono::steady_clock::duration>(
				delay)
				.count();
		qp->rnr_naks = periods >= UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)periods + 1;
	}
	qp->rnr_due = qp->rnr_since + delay * qp->rnr_naks;
	if (qp->rnr_retry == HCA_RNR_INFINITE)
		qp->rnr_due = now + delay; /* the next retry, for a responder in another process */
	return qp->rnr_retry != HCA_RNR_INFINITE && qp->rnr_naks > qp->rnr_retry;
}

bool SqEngine::process_sq(QpObj *qp, uint32_t budget, bool *more)
{
	if (qp->state == IBV_QPS_ERR) {
		bool a = qps_.flush_sq(qp);
		bool b = qps_.flush_rq(qp);
		return a || b;
	}
	bool sqd = qp->state == IBV_QPS_SQD;
	if (qp->cfg.sq_wqe_cnt == 0 || (qp->state != IBV_QPS_RTS && !(sqd && qp->stalled)))
		return false;
	bool reorder = mode_ == ExecMode::Thread && caps_.reorder_unfenced;
	uint32_t limit = sqd ? 1 : HCA_MAX_GROUP; /* SQD: only finish the started WQE */
	bool did = false;
	/*
	 * The doorbell record once per call: WQEs posted after this read come with a
	 * doorbell of their own (inline: its own call; thread mode: db_pending, set
	 * after the record), so reading it again per group would only take its line
	 * from the posting core more often.
	 */
	const uint16_t pi = qp->sq_producer();

	for (uint32_t groups = 0;; groups++) {
		/*
		 * Budget spent: stop if anybody else may want the device (another QP, a
		 * caller waiting for the mutex); alone, go on (no extra pass per budget).
		 */
		if (groups >= budget && (qps_.live().size() > 1 || mu_.contended())) {
			/* WQEs may be left: the caller comes back after the other QPs */
			if (more)
				*more = (uint16_t)(pi - (uint16_t)qp->sq_ci) != 0;
			break;
		}
		PlanResult end = PlanResult::Ok;
		Plan *bad = nullptr;
		PlanError err;
		bool all_fast = false;
		uint32_t n = 0;
		/* in WQE order, the common case moves each WQE as soon as it is checked */
		uint32_t ran = 0;
		if (!reorder && !qp->sig_draining && qp->cfg.dc != DcRole::Dci)
			ran = run_fast_mmo(qp, pi, limit, st_);
		did |= ran != 0;
		/* a WQE it declined follows: the general path plans the rest of the group */
		if (ran < limit && (uint16_t)(pi - (uint16_t)qp->sq_ci))
			n = plan_group(qp, pi, limit - ran, &end, &bad, &err, &all_fast);
		if (all_fast && n) {
			run_fast_group(qp, n, reorder);
			did = true;
		} else if (n) {
			did |= run_group(qp, n, reorder);
		}
		/* ERR already: a copy in the group faulted and flushed this WQE too */
		if (end == PlanResult::Error && qp->state != IBV_QPS_ERR) {
			fail_wqe(qp, bad, err);
			did = true;
		}
		if (cqs_.overrun())
			qps_.drain_overruns();
		if (qp->sig_stop && qp->state == IBV_QPS_RTS) {
			qp->sig_stop = false;
			if (caps_.sigerr_stop_at_fence)
				qp->sig_draining = true;
			else
				qps_.sig_drain(qp);
		}
		/* a DCI that lost one stream goes on with the others */
		bool dci_goes_on = end == PlanResult::Error && qp->cfg.dc == DcRole::Dci;
		if ((end != PlanResult::Ok && !dci_goes_on) || qp->stalled || sqd ||
		    qp->state != IBV_QPS_RTS || (n == 0 && ran == 0 && !dci_goes_on))
			break;
		/* nothing posted after this group: the next one would plan nothing */
		if (!(uint16_t)(pi - (uint16_t)qp->sq_ci))
			break;
	}
	if (qp->state == IBV_QPS_SQD && qp->sqd_notify && !qp->stalled) {
		qp->sqd_notify = false;
		events_.push(IBV_EVENT_SQ_DRAINED, qp->qpn, 0);
	}
	return did;
}

bool SqEngine::retry_stalled()
{
	bool did = false;
	for (QpObj *qp : qps_.live())
		if (qp->stalled)
			did |= process_sq(qp);
	return did;
}

} // namespace mlx5sim
