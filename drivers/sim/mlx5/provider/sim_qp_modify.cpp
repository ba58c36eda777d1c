/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ibv_modify_qp / ibv_query_qp of the sim backend. The device runs the state
 * machine; the provider then applies libmlx5's own effects: on RESET its CQEs
 * are cleaned out of the CQs and the SQ/RQ counters and doorbell record go back
 * to zero. Posting works from the first modify to RTS until the next modify to
 * RESET, as libmlx5's set_qp_operational_state: a modify to SQD (signature
 * pipelining re-posts there) or ERR keeps it, like any state the device reaches
 * on its own.
 */
#include <errno.h>
#include <string.h>

#include "cq_poll.h"
#include "sim_internal.h"

namespace mlx5sim {

namespace {

/** Remember what modify_qp set, for query_qp. */
void shadow_update(struct ibv_qp_attr *s, const struct ibv_qp_attr *a, int mask)
{
	if (mask & IBV_QP_STATE)
		s->qp_state = a->qp_state;
	if (mask & IBV_QP_ACCESS_FLAGS)
		s->qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		s->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		s->port_num = a->port_num;
	if (mask & IBV_QP_AV)
		s->ah_attr = a->ah_attr;
	if (mask & IBV_QP_PATH_MTU)
		s->path_mtu = a->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		s->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		s->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		s->rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		s->rq_psn = a->rq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		s->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		s->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_SQ_PSN)
		s->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		s->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_DEST_QPN)
		s->dest_qp_num = a->dest_qp_num;
}

/*
 * A DCT moves with exactly the kernel's masks (mlx5_ib_modify_dct; libmlx5's modify_dct
 * passes them on unchecked): RESET->INIT with PKEY_INDEX, PORT, ACCESS_FLAGS; INIT->RTR
 * with AV, PATH_MTU, MIN_RNR_TIMER; no other transition. The kernel side refuses the
 * same (drivers/sim/mlx5/kernel/uverbs_qp.cpp, w_ex_modify_qp).
 */
bool dct_mask_ok(enum ibv_qp_state cur, const struct ibv_qp_attr *attr, int mask)
{
	if (!(mask & IBV_QP_STATE))
		return false;
	if (cur == IBV_QPS_RESET && attr->qp_state == IBV_QPS_INIT)
		return mask ==
		       (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (cur == IBV_QPS_INIT && attr->qp_state == IBV_QPS_RTR)
		return mask == (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER);
	return false;
}

/** libmlx5's provider work on a transition to RESET. */
void provider_reset(SimQpFull *qp)
{
	sim_cq_clean(qp->recv_cq, sim_qp_rsn(qp), qp->srq);
	if (qp->send_cq != qp->recv_cq)
		sim_cq_clean(qp->send_cq, sim_qp_rsn(qp));
	qp->sq.cur_post = 0;
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->rq.head = 0;
	qp->rq.tail = 0;
	/* atomic like every other store to the records: the engine loads them atomically */
	__atomic_store_n(&qp->dbrec[MLX5_RCV_DBR], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->dbrec[MLX5_SND_DBR], 0, __ATOMIC_RELEASE);
}

} // namespace

int sim_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	SimCtxFull *ctx;
	SimQpFull *qp;
	int ret;

	if (!ibqp || !attr || !sim_is_sim_context(ibqp->context))
		return EINVAL;
	ctx = to_ctx_full(ibqp->context);
	qp = to_qp_full(ibqp);
	/* silent, as libmlx5 (the kernel's refusal goes to its own log) */
	if (qp->is_dct && !dct_mask_ok(ibqp->state, attr, attr_mask))
		return EINVAL;
	ret = -ctx->hca->modify_qp(qp->qpn, *attr, attr_mask);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_RESET)
			provider_reset(qp);
		ibqp->state = attr->qp_state;
		/* modify_dct: the DCT number is known from RTR on */
		if (qp->is_dct && attr->qp_state == IBV_QPS_RTR)
			ibqp->qp_num = qp->qpn;
		if (attr->qp_state == IBV_QPS_RTS)
			qp->operational = true;
		else if (attr->qp_state == IBV_QPS_RESET)
			qp->operational = false;
	}
	shadow_update(&qp->shadow, attr, attr_mask);
	return 0;
}

int sim_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	SimCtxFull *ctx;
	SimQpFull *qp;
	QpInfo info;
	int ret;

	(void)attr_mask; /* like the kernel, every attribute is returned */
	if (!ibqp || !attr || !init_attr || !sim_is_sim_context(ibqp->context))
		return EINVAL;
	ctx = to_ctx_full(ibqp->context);
	qp = to_qp_full(ibqp);
	ret = -ctx->hca->query_qp(qp->qpn, &info);
	if (ret)
		return ret;
	*attr = qp->shadow;
	attr->qp_state = info.state;
	attr->cur_qp_state = info.state;
	attr->dest_qp_num = info.dest_qpn;
	attr->qp_access_flags = (int)info.access_flags;
	attr->sq_draining = info.state == IBV_QPS_SQD;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->cap = attr->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	ibqp->state = info.state;
	return 0;
}

} // namespace mlx5sim
