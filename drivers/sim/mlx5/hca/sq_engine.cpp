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

#include "hca_impl.h"

namespace mlx5sim {

namespace {

/** RNR NAK timer values of the IB specification (min_rnr_timer 0..31), microseconds. */
constexpr uint32_t kRnrTimerUs[32] = {
	655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
	480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
	20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

} // namespace

void HcaImpl::fail_wqe(QpObj *qp, const Plan *pl, const PlanError &err)
{
	cqt_.write_err_cqe(qp, false, pl->opcode, pl->idx, err.req, pl->delay_us);
	QpObj *resp = err.resp_qp;
	/* the responder's consequences happen on its own host */
	if (resp && err.resp_cqe)
		resp->owner->cqs.write_err_cqe(resp, true, 0, err.resp_idx, err.resp);
	/* a DCI loses only the stream, until too many streams are in error */
	if (qp->cfg.dc == DcRole::Dci)
		qpt_.dci_stream_failed(qp, pl->stream);
	else
		qpt_.enter_err(qp);
	QpTable::responder_fails(err.resp_qp, err.resp_event, qp);
}

/** Requester and responder CQEs of an executed plan. */
inline void HcaImpl::complete_plan(QpObj *qp, const Plan *pl)
{
	/* most WQEs of a burst are unsignaled and have no responder: no call */
	if (__builtin_expect(!pl->signaled && !pl->resp_qp && !(pl->nsrc & HCA_NSRC_SPECIAL), 1))
		return;
	/* a signature error's CQE comes before the WQE's own completion */
	if ((pl->nsrc & HCA_NSRC_SPECIAL) && (pl->xflags & XF_SIG) && sig_.complete(qp, pl) &&
	    qp->cfg.drain_sigerr)
		qp->sig_stop = true;
	if (pl->signaled)
		cqt_.write_req_cqe(qp, pl);
	if (pl->resp_qp)
		pl->resp_qp->owner->cqs.write_resp_cqe(pl->resp_qp, pl, qp->qpn);
}

namespace {

/**
 * exec_plan() of a plan_fast_mmo() plan: one span to one span of the same length,
 * pinned memory, no atomic. The usual 64-byte copy is inlined (the compiler loads
 * all 64 bytes before storing any, so it is a memmove).
 */
inline uint64_t exec_fast(const FastPlan *fp)
{
	uint8_t *d = fp->dst;
	const uint8_t *s = fp->src;
	uint64_t n = fp->len;
	/* a copy onto itself changes nothing: no page is touched for it */
	if (__builtin_expect(d != s, 1)) {
		if (n == 64) {
			/* all 64 bytes loaded before any is stored (a memmove), inline */
			typedef uint64_t u64x2 __attribute__((vector_size(16)));
			u64x2 a, b, c, e;
			memcpy(&a, s, 16);
			memcpy(&b, s + 16, 16);
			memcpy(&c, s + 32, 16);
			memcpy(&e, s + 48, 16);
			memcpy(d, &a, 16);
			memcpy(d + 16, &b, 16);
			memcpy(d + 32, &c, 16);
			memcpy(d + 48, &e, 16);
		} else {
			memmove(d, s, n);
		}
	}
	return n;
}

} // namespace

void HcaImpl::run_fast_group(QpObj *qp, uint32_t n, bool reorder)
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
	st_.wqes.fetch_add(n, std::memory_order_relaxed);
	st_.bytes.fetch_add(bytes, std::memory_order_relaxed);
	/* no responder, no signature, no fault: only signaled WQEs have a CQE */
	for (uint32_t signaled = fast_signaled_; signaled; signaled &= signaled - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(signaled);
		expand_fast(i, i + 1);
		cqt_.write_req_cqe(qp, &plans_[i]);
	}
}

bool HcaImpl::run_group(QpObj *qp, uint32_t n, bool reorder)
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
	 * Statistics once per group (an atomic per WQE costs more than the WQE), and
	 * before the CQEs: whoever polls a CQE finds its WQE counted.
	 */
	st_.wqes.fetch_add(n, std::memory_order_relaxed);
	st_.bytes.fetch_add(bytes, std::memory_order_relaxed);
	/* data of the group is visible before its CQEs: CQE stores are release stores */
	for (uint32_t i = 0; i < bad; i++)
		complete_plan(qp, &plans[i]);
	if (bad < n)
		fail_moved(qp, bad);
	return true;
}

/**
 * Plan up to @p limit WQEs into plans_ (a fenced WQE only as the first). Returns
 * how many; *end says why it stopped early (Error: *bad and *err describe it).
 */
uint32_t HcaImpl::plan_group(QpObj *qp, uint32_t limit, PlanResult *end, Plan **bad, PlanError *err,
			     bool *all_fast)
{
	uint16_t pi = qp->sq_producer();
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
		if (qp->cfg.dc == DcRole::Dci && qpt_.dci_stream_errored(qp, pl->stream)) {
			if (n > 0)
				break; /* flushed as the head of the next group, in WQE order */
			cqt_.write_err_cqe(qp, false, pl->opcode, pl->idx,
				      Verdict{MLX5_CQE_SYNDROME_WR_FLUSH_ERR, HCA_FLUSH_VENDOR});
			qp->sq_ci += wqebbs;
			continue;
		}
		if (qp->sig_draining && (pl->wqe[11] & MLX5_WQE_CTRL_FENCE)) {
			qpt_.sig_drain(qp); /* stops before the fenced WQE, which stays posted */
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

bool HcaImpl::rnr_spent(QpObj *qp)
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

bool HcaImpl::process_sq(QpObj *qp, uint32_t budget, bool *more)
{
	if (qp->state == IBV_QPS_ERR) {
		bool a = qpt_.flush_sq(qp);
		bool b = qpt_.flush_rq(qp);
		return a || b;
	}
	bool sqd = qp->state == IBV_QPS_SQD;
	if (qp->cfg.sq_wqe_cnt == 0 || (qp->state != IBV_QPS_RTS && !(sqd && qp->stalled)))
		return false;
	bool reorder = mode_ == ExecMode::Thread && caps_.reorder_unfenced;
	uint32_t limit = sqd ? 1 : HCA_MAX_GROUP; /* SQD: only finish the started WQE */
	bool did = false;

	for (uint32_t groups = 0;; groups++) {
		/*
		 * Budget spent: stop if anybody else may want the device (another QP, a
		 * caller waiting for the mutex); alone, go on (no extra pass per budget).
		 */
		if (groups >= budget && (qpt_.live().size() > 1 || mu_.contended())) {
			/* WQEs may be left: the caller comes back after the other QPs */
			if (more)
				*more = (uint16_t)(qp->sq_producer() - (uint16_t)qp->sq_ci) != 0;
			break;
		}
		PlanResult end;
		Plan *bad = nullptr;
		PlanError err;
		bool all_fast;
		uint32_t n = plan_group(qp, limit, &end, &bad, &err, &all_fast);
		if (all_fast && n) {
			run_fast_group(qp, n, reorder);
			did = true;
		} else {
			did |= run_group(qp, n, reorder);
		}
		/* ERR already: a copy in the group faulted and flushed this WQE too */
		if (end == PlanResult::Error && qp->state != IBV_QPS_ERR) {
			fail_wqe(qp, bad, err);
			did = true;
		}
		qpt_.drain_overruns();
		if (qp->sig_stop && qp->state == IBV_QPS_RTS) {
			qp->sig_stop = false;
			if (caps_.sigerr_stop_at_fence)
				qp->sig_draining = true;
			else
				qpt_.sig_drain(qp);
		}
		/* a DCI that lost one stream goes on with the others */
		bool dci_goes_on = end == PlanResult::Error && qp->cfg.dc == DcRole::Dci;
		if ((end != PlanResult::Ok && !dci_goes_on) || qp->stalled || sqd ||
		    qp->state != IBV_QPS_RTS || (n == 0 && !dci_goes_on))
			break;
		/* nothing posted after this group: the next one would plan nothing */
		if (!(uint16_t)(qp->sq_producer() - (uint16_t)qp->sq_ci))
			break;
	}
	if (qp->state == IBV_QPS_SQD && qp->sqd_notify && !qp->stalled) {
		qp->sqd_notify = false;
		events_.push(IBV_EVENT_SQ_DRAINED, qp->qpn, 0);
	}
	return did;
}

bool HcaImpl::retry_stalled()
{
	bool did = false;
	for (QpObj *qp : qpt_.live())
		if (qp->stalled)
			did |= process_sq(qp);
	return did;
}

} // namespace mlx5sim
