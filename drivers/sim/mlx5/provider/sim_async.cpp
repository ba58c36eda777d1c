/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Asynchronous events of the sim backend: the device reports object numbers,
 * the provider hands out the verbs objects (ibv_get_async_event semantics, but
 * never blocking) and counts them so that destroy waits for their acks, as
 * libibverbs does.
 */
#include <errno.h>

#include "sim_internal.h"

namespace mlx5sim {

namespace {

bool is_qp_event(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return true;
	default:
		return false;
	}
}

/** Resolve @p ev into @p out; false when its object is gone (event dropped). */
bool resolve(SimCtxFull *ctx, const AsyncEvent &ev, struct ibv_async_event *out)
{
	std::lock_guard<std::mutex> g(ctx->lock);

	out->event_type = ev.type;
	if (is_qp_event(ev.type)) {
		SimQpFull *qp = static_cast<SimQpFull *>(ctx->qp_by_qpn.find(ev.qpn));

		if (!qp)
			return false;
		qp->events_reported++;
		out->element.qp = &qp->qpx.qp_base;
		return true;
	}
	if (ev.type == IBV_EVENT_CQ_ERR) {
		SimCqFull *cq = ctx->cq_by_cqn.find(ev.cqn);

		if (!cq)
			return false;
		cq->events_reported++;
		out->element.cq = ibv_cq_ex_to_cq(&cq->cqx);
		return true;
	}
	out->element.port_num = 1; /* port and device events */
	return true;
}

} // namespace

int sim_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	SimCtxFull *ctx;
	AsyncEvent ev;
	int ret;

	if (!sim_is_sim_context(context) || !event) {
		errno = EINVAL;
		return -1;
	}
	ctx = to_ctx_full(context);
	for (;;) {
		ret = ctx->hca->get_async_event(&ev);
		if (ret) {
			errno = -ret; /* EAGAIN when none is pending */
			return -1;
		}
		if (resolve(ctx, ev, event))
			return 0;
	}
}

void sim_ack_async_event(struct ibv_async_event *event)
{
	pthread_mutex_t *mutex = nullptr;
	pthread_cond_t *cond = nullptr;
	uint32_t *count = nullptr;

	if (!event)
		return;
	if (is_qp_event(event->event_type)) {
		struct ibv_qp *qp = event->element.qp;

		mutex = &qp->mutex;
		cond = &qp->cond;
		count = &qp->events_completed;
	} else if (event->event_type == IBV_EVENT_CQ_ERR) {
		struct ibv_cq *cq = event->element.cq;

		mutex = &cq->mutex;
		cond = &cq->cond;
		count = &cq->async_events_completed;
	} else {
		return;
	}
	pthread_mutex_lock(mutex);
	++*count;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
}

} // namespace mlx5sim
