/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * QP commands and the QP state machine of the verbs specification (RC, UC, UD):
 * legal transitions, required and optional attribute masks, attribute values.
 * Anything else gives -EINVAL and changes nothing.
 */
#include <errno.h>
#include <string.h>

#include <algorithm>

#include <new>

#include "cq_table.h"
#include "host.h"
#include "mr_table.h"
#include "qp_table.h"
#include "srq_table.h"

namespace mlx5sim {

namespace {

constexpr int kAny = -1; /**< "from any state" marker in Transition::from */

/** One legal transition: attributes it requires and attributes it accepts. */
struct Transition {
	int from; /**< enum ibv_qp_state, or kAny */
	int to;
	int req;
	int opt;
};

const Transition kTable[] = {
	{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
	{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
	{IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
	{IBV_QPS_INIT, IBV_QPS_RTR,
	 IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		 IBV_QP_MIN_RNR_TIMER,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
	{IBV_QPS_RTR, IBV_QPS_RTS,
	 IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_MAX_QP_RD_ATOMIC,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_RTS, IBV_QPS_RTS, 0,
	 IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER},
	{IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY},
	{IBV_QPS_SQD, IBV_QPS_RTS, 0,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_SQD, IBV_QPS_SQD, 0,
	 IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
		 IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC},
	{IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QP_ACCESS_FLAGS},
	{kAny, IBV_QPS_RESET, 0, 0},
	{kAny, IBV_QPS_ERR, 0, 0},
	{-2, 0, 0, 0}, /* end */
};

/*
 * A DCI has no remote end in its context: RTR needs only the MTU, and its
 * address vector comes with every WQE (ASSUMPTIONS.md: the kernel's DC masks).
 */
const Transition kDciTable[] = {
	{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
	{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT, IBV_QP_ACCESS_FLAGS},
	{IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
	{IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_PATH_MTU, IBV_QP_AV | IBV_QP_PKEY_INDEX},
	{IBV_QPS_RTR, IBV_QPS_RTS,
	 IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_MAX_QP_RD_ATOMIC,
	 IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER},
	{IBV_QPS_RTS, IBV_QPS_RTS, 0, IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER},
	{kAny, IBV_QPS_RESET, 0, 0},
	{kAny, IBV_QPS_ERR, 0, 0},
	{-2, 0, 0, 0},
};

/* A DCT stops in RTR: it only answers. */
const Transition kDctTable[] = {
	{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
	{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
	{IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER,
	 IBV_QP_AV | IBV_QP_PKEY_INDEX},
	{kAny, IBV_QPS_RESET, 0, 0},
	{-2, 0, 0, 0},
};

/*
 * UD: no remote end in the context (each WQE carries its address vector); the
 * Q_Key instead (the kernel's ib_modify_qp_is_ok rules for UD).
 */
const Transition kUdTable[] = {
	{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
	{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0},
	{IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
	{IBV_QPS_INIT, IBV_QPS_RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY},
	{IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN, IBV_QP_QKEY},
	{IBV_QPS_RTS, IBV_QPS_RTS, 0, IBV_QP_QKEY},
	{IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY},
	{IBV_QPS_SQD, IBV_QPS_RTS, 0, IBV_QP_QKEY},
	{IBV_QPS_SQD, IBV_QPS_SQD, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY},
	{IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QP_QKEY},
	{kAny, IBV_QPS_RESET, 0, 0},
	{kAny, IBV_QPS_ERR, 0, 0},
	{-2, 0, 0, 0},
};

/*
 * UC: RC's connection without its reliability: no timeout, retries, RNR timer or
 * RDMA read / atomic resources (the kernel's ib_modify_qp_is_ok rules for UC).
 */
const Transition kUcTable[] = {
	{IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
	{IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
	{IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
	{IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
	{IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_RTS, IBV_QPS_RTS, 0,
	 IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY},
	{IBV_QPS_SQD, IBV_QPS_RTS, 0,
	 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_SQD, IBV_QPS_SQD, 0,
	 IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
		 IBV_QP_PATH_MIG_STATE},
	{IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QP_ACCESS_FLAGS},
	{kAny, IBV_QPS_RESET, 0, 0},
	{kAny, IBV_QPS_ERR, 0, 0},
	{-2, 0, 0, 0},
};

constexpr int kQpAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

const Transition *find_transition(const QpConfig &cfg, int from, int to)
{
	DcRole role = cfg.dc;
	const Transition *t = role == DcRole::Dci      ? kDciTable
			      : role == DcRole::Dct    ? kDctTable
			      : cfg.type == IBV_QPT_UD ? kUdTable
			      : cfg.type == IBV_QPT_UC ? kUcTable
						       : kTable;
	for (; t->from != -2; t++)
		if (t->to == to && (t->from == from || t->from == kAny))
			return t;
	return nullptr;
}

/** Values the device accepts for the attributes named in @p mask. */
bool attr_values_ok(const struct ibv_qp_attr &a, int mask)
{
	if ((mask & IBV_QP_PORT) && a.port_num != 1)
		return false;
	if ((mask & IBV_QP_PKEY_INDEX) && a.pkey_index >= 128)
		return false;
	if ((mask & IBV_QP_ACCESS_FLAGS) && (a.qp_access_flags & ~kQpAccess))
		return false;
	int mtu;
	memcpy(&mtu, &a.path_mtu, sizeof(mtu));
	if ((mask & IBV_QP_PATH_MTU) && (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096))
		return false;
	if ((mask & IBV_QP_DEST_QPN) && a.dest_qp_num > 0xffffff)
		return false;
	if ((mask & IBV_QP_AV) && a.ah_attr.port_num != 1)
		return false;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a.max_rd_atomic > 16)
		return false;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a.max_dest_rd_atomic > 16)
		return false;
	if ((mask & IBV_QP_TIMEOUT) && a.timeout > 31)
		return false;
	if ((mask & IBV_QP_RETRY_CNT) && a.retry_cnt > 7)
		return false;
	if ((mask & IBV_QP_RNR_RETRY) && a.rnr_retry > 7)
		return false;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a.min_rnr_timer > 31)
		return false;
	if ((mask & IBV_QP_SQ_PSN) && a.sq_psn > 0xffffff)
		return false;
	if ((mask & IBV_QP_RQ_PSN) && a.rq_psn > 0xffffff)
		return false;
	return true;
}

bool pow2_or_zero(uint32_t v)
{
	return (v & (v - 1)) == 0;
}

} // namespace

QpTable::QpTable(const HcaCaps &caps, Host *owner, MrTable &mrt, CqTable &cqs, SrqTable &srqs,
		 EventQueue &events)
	: caps_(caps), max_qp_(caps.max_qp),
	  qpn_base_(HCA_QPN_BASE + ((uint32_t)caps.lid_member << HCA_MEMBER_SHIFT)), owner_(owner),
	  mrt_(mrt), cqs_(cqs), srqs_(srqs), events_(events),
	  slots_(new std::atomic<QpObj *>[caps.max_qp])
{
	for (uint32_t i = 0; i < caps.max_qp; i++)
		slots_[i].store(nullptr, std::memory_order_relaxed);
}

QpTable::~QpTable()
{
	for (QpObj *qp : qps_)
		delete qp;
}

void QpTable::seed(uint64_t r)
{
	qpn_start_ = (uint32_t)(r % caps_.max_qp);
}

int QpTable::check(const QpConfig &cfg, const uint32_t *qpn) const
{
	if (!qpn || !cfg.dbrec || cfg.uidx > 0xffffff)
		return -EINVAL;
	bool dc_ok = cfg.type == IBV_QPT_DRIVER && cfg.dc != DcRole::None && caps_.dc;
	bool rc_ud = cfg.type == IBV_QPT_RC || cfg.type == IBV_QPT_UC || cfg.type == IBV_QPT_UD;
	if ((!rc_ud || cfg.dc != DcRole::None) && !dc_ok)
		return -EOPNOTSUPP;
	if (cfg.dc == DcRole::Dct && (cfg.sq_wqe_cnt || cfg.rq_wqe_cnt))
		return -EINVAL; /* receives come from its SRQ */
	if (cfg.dc == DcRole::Dci && (cfg.dci_log_errored > caps_.dci_max_log_errored ||
				      cfg.dci_log_errored > HCA_DCI_MAX_LOG_ERRORED ||
				      cfg.dci_log_streams > caps_.dci_max_log_streams))
		return -EINVAL;
	if (!pow2_or_zero(cfg.sq_wqe_cnt) || cfg.sq_wqe_cnt > caps_.max_send_wqebb ||
	    (cfg.sq_wqe_cnt && !cfg.sq_buf))
		return -EINVAL;
	if (!pow2_or_zero(cfg.rq_wqe_cnt) || cfg.rq_wqe_cnt > caps_.max_recv_wr ||
	    (cfg.rq_wqe_cnt &&
	     (!cfg.rq_buf || cfg.rq_wqe_shift < 4 || cfg.rq_wqe_shift > HCA_RQ_MAX_SHIFT)))
		return -EINVAL;
	return 0;
}

int QpTable::create(const QpConfig &cfg, uint32_t *qpn)
{
	CqObj *scq = cqs_.find(cfg.send_cqn);
	CqObj *rcq = cqs_.find(cfg.recv_cqn);
	SrqObj *srq = cfg.srqn ? srqs_.find(cfg.srqn) : nullptr;
	if (!mrt_.pd_live(cfg.pdn) || !scq || !rcq)
		return -EINVAL;
	/* with an SRQ the QP has no receive queue of its own */
	if (cfg.srqn && (!srq || cfg.rq_wqe_cnt))
		return -EINVAL;
	if (qps_.size() >= caps_.max_qp)
		return -ENOMEM;
	/* the first free slot from a random one on (wrapping): QPNs differ per run */
	uint32_t slot = qpn_start_;
	while (slots_[slot].load(std::memory_order_relaxed))
		slot = slot + 1 == caps_.max_qp ? 0 : slot + 1;
	QpObj *qp = new (std::nothrow) QpObj();
	if (!qp)
		return -ENOMEM;
	try {
		qps_.push_back(qp);
	} catch (...) {
		delete qp;
		return -ENOMEM;
	}
	qp->cfg = cfg;
	qp->owner = owner_;
	qp->qpn = qpn_base_ + slot;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->srq = srq;
	qp->state = IBV_QPS_RESET;
	scq->refs++;
	rcq->refs++;
	if (srq)
		srq->refs++;
	mrt_.pd_get(cfg.pdn);
	slots_[slot].store(qp, std::memory_order_release);
	*qpn = qp->qpn;
	return 0;
}

int QpTable::destroy(uint32_t qpn)
{
	QpObj *qp = find(qpn);
	if (!qp)
		return -EINVAL;
	slots_[qpn - qpn_base_].store(nullptr, std::memory_order_release);
	qps_.erase(std::find(qps_.begin(), qps_.end(), qp));
	cqs_.forget(qp);
	qp->scq->refs--;
	qp->rcq->refs--;
	if (qp->srq)
		qp->srq->refs--;
	mrt_.pd_put(qp->cfg.pdn);
	delete qp;
	return 0;
}

int QpTable::query(uint32_t qpn, QpInfo *info) const
{
	QpObj *qp = find(qpn);
	if (!qp)
		return -EINVAL;
	info->state = qp->state;
	info->dest_qpn = qp->dest_qpn;
	info->hw_sq_wqebb_counter = (uint16_t)qp->sq_ci;
	info->access_flags = qp->access_flags;
	info->drain_sigerr = qp->cfg.drain_sigerr;
	info->qkey = qp->qkey;
	info->engine = qp->engine.load(std::memory_order_relaxed);
	return 0;
}

int QpTable::set_drain_sigerr(uint32_t qpn)
{
	QpObj *qp = find(qpn);
	if (!qp || qp->state != IBV_QPS_INIT)
		return -EINVAL;
	/* nothing executes before RTS: the SQ engine sees the flag from its first WQE */
	qp->cfg.drain_sigerr = true;
	return 0;
}

void QpTable::drain_overruns()
{
	while (QpObj *qp = cqs_.take_overrun())
		if (qp->state != IBV_QPS_ERR)
			enter_err(qp);
}

void QpTable::enter_err(QpObj *qp)
{
	qp->state = IBV_QPS_ERR;
	qp->stalled = false;
	qp->sqd_notify = false;
	qp->sig_stop = qp->sig_draining = false;
	flush_sq(qp);
	flush_rq(qp);
}

bool QpTable::flush_sq(QpObj *qp)
{
	if (qp->cfg.sq_wqe_cnt == 0)
		return false;
	uint16_t pi = qp->sq_producer();
	bool did = false;
	while ((uint16_t)(pi - (uint16_t)qp->sq_ci)) {
		/* a WQEBB that does not start a well-formed WQE is skipped silently */
		const uint8_t *p = static_cast<const uint8_t *>(qp->cfg.sq_buf) +
				   (size_t)(qp->sq_ci & (qp->cfg.sq_wqe_cnt - 1)) *
					   MLX5_SEND_WQE_BB;
		struct mlx5_wqe_ctrl_seg ctrl;
		memcpy(&ctrl, p, sizeof(ctrl));
		uint32_t avail = (uint16_t)(pi - (uint16_t)qp->sq_ci);
		uint32_t ds = mlx5_hw_ctrl_ds(&ctrl);
		uint32_t need = mlx5_hw_ds_to_wqebbs(ds);
		if (mlx5_hw_ctrl_index(&ctrl) == (uint16_t)qp->sq_ci && ds && need <= avail &&
		    need <= qp->cfg.sq_wqe_cnt) {
			cqs_.write_err_cqe(
				qp, false, mlx5_hw_ctrl_opcode(&ctrl), (uint16_t)qp->sq_ci,
				Verdict{MLX5_CQE_SYNDROME_WR_FLUSH_ERR, HCA_FLUSH_VENDOR});
			qp->sq_ci += need;
		} else {
			qp->sq_ci++;
		}
		did = true;
	}
	return did;
}

bool QpTable::flush_rq(QpObj *qp)
{
	if (qp->cfg.rq_wqe_cnt == 0)
		return false;
	uint16_t pi = qp->rq_producer();
	bool did = false;
	while ((uint16_t)(pi - (uint16_t)qp->rq_ci)) {
		cqs_.write_err_cqe(qp, true, 0, (uint16_t)qp->rq_ci,
				   Verdict{MLX5_CQE_SYNDROME_WR_FLUSH_ERR, HCA_FLUSH_VENDOR});
		qp->rq_ci++;
		did = true;
	}
	return did;
}

void QpTable::sig_drain(QpObj *qp)
{
	qp->sig_stop = false;
	qp->sig_draining = false;
	if (qp->state != IBV_QPS_RTS)
		return;
	qp->state = IBV_QPS_SQD;
	qp->sqd_notify = false;
	events_.push(IBV_EVENT_SQ_DRAINED, qp->qpn, 0);
}

void QpTable::responder_fails(QpObj *resp, enum ibv_event_type ev, const QpObj *requester)
{
	/* a DCT serves every DCI: one bad request does not stop it (ASSUMPTIONS.md) */
	if (!resp || resp->cfg.dc == DcRole::Dct)
		return;
	if (resp != requester && resp->state != IBV_QPS_ERR)
		resp->owner->qps.enter_err(resp);
	if (ev != IBV_EVENT_COMM_EST)
		resp->owner->events.push(ev, resp->qpn, 0);
}

int QpTable::modify(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask, Next *next_step)
{
	QpObj *qp = find(qpn);
	if (!qp)
		return -EINVAL;
	enum ibv_qp_state cur = qp->state;
	/* caller values are read as integers: they may be out of the enum's range */
	int req_cur, req_next;
	memcpy(&req_cur, &attr.cur_qp_state, sizeof(req_cur));
	memcpy(&req_next, &attr.qp_state, sizeof(req_next));
	if ((attr_mask & IBV_QP_CUR_STATE) && req_cur != (int)cur)
		return -EINVAL;
	const Transition *t = find_transition(qp->cfg, cur,
					      (attr_mask & IBV_QP_STATE) ? req_next : (int)cur);
	if (!t)
		return -EINVAL;
	enum ibv_qp_state next = (enum ibv_qp_state)t->to;
	int given = attr_mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE);
	if ((given & t->req) != t->req || (given & ~(t->req | t->opt)))
		return -EINVAL;
	if (!attr_values_ok(attr, given))
		return -EINVAL;

	/* accepted: apply */
	*next_step = Next::None;
	if (given & IBV_QP_ACCESS_FLAGS)
		qp->access_flags = attr.qp_access_flags;
	if (given & IBV_QP_DEST_QPN)
		qp->dest_qpn = attr.dest_qp_num;
	if ((given & IBV_QP_AV) && qp->cfg.dc == DcRole::None)
		qp->dest_lid = attr.ah_attr.dlid;
	if (given & IBV_QP_PORT)
		qp->port_num = attr.port_num;
	if (given & IBV_QP_PKEY_INDEX)
		qp->pkey_index = attr.pkey_index;
	if (given & IBV_QP_QKEY)
		qp->qkey = attr.qkey;
	if (given & IBV_QP_RNR_RETRY)
		qp->rnr_retry = attr.rnr_retry;
	if (given & IBV_QP_RETRY_CNT)
		qp->retry_cnt = attr.retry_cnt;
	if (given & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr.min_rnr_timer;

	switch (next) {
	case IBV_QPS_RESET:
		/* device counters restart; CQEs already written stay */
		qp->state = IBV_QPS_RESET;
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		qp->uc_next_off = 0;
		qp->stalled = false;
		qp->sqd_notify = false;
		qp->sig_stop = qp->sig_draining = false;
		qp->access_flags = 0;
		qp->dest_qpn = 0;
		qp->dest_lid = 0;
		qp->qkey = 0;
		qp->fail_armed = false;
		qp->corrupt_sig_armed = false;
		cqs_.forget(qp);
		qp->deferred = 0;
		qp->dci_errored = 0;
		*next_step = Next::Responders;
		break;
	case IBV_QPS_ERR:
		enter_err(qp);
		drain_overruns();
		*next_step = Next::Responders; /* sends stalled on it: TRANSPORT_RETRY_EXC now */
		break;
	case IBV_QPS_SQD:
		qp->state = IBV_QPS_SQD;
		if (cur == IBV_QPS_RTS)
			qp->sqd_notify = (given & IBV_QP_EN_SQD_ASYNC_NOTIFY) &&
					 attr.en_sqd_async_notify;
		/* nothing is half executed unless a send waits for a receive WQE */
		if (qp->sqd_notify && !qp->stalled) {
			qp->sqd_notify = false;
			events_.push(IBV_EVENT_SQ_DRAINED, qp->qpn, 0);
		}
		break;
	case IBV_QPS_RTS:
		qp->state = IBV_QPS_RTS;
		if (cur == IBV_QPS_SQD || cur == IBV_QPS_SQE)
			*next_step = Next::Resume; /* fetch what was posted meanwhile */
		break;
	default:
		qp->state = next;
		break;
	}
	return 0;
}

} // namespace mlx5sim
