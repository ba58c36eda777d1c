/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Direct access to sim objects: mlx5dv_init_obj, the qp_ex views, the doorbell
 * hook of the seam and data-in-order.
 */
#include <errno.h>

#include "sim_internal.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kObjSupported = MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_PD;

int init_qp(const struct mlx5dv_obj &obj)
{
	struct ibv_qp *ibqp = obj.qp.in;
	struct mlx5dv_qp *out = obj.qp.out;
	SimQpFull *qp;

	if (!ibqp || !out || !sim_is_sim_context(ibqp->context))
		return EINVAL;
	qp = to_qp_full(ibqp);
	out->dbrec = reinterpret_cast<__be32 *>(qp->dbrec);
	out->sq.buf = qp->sq.buf;
	out->sq.wqe_cnt = qp->sq.wqe_cnt;
	out->sq.stride = MLX5_SEND_WQE_BB;
	out->rq.buf = qp->rq.buf;
	out->rq.wqe_cnt = qp->rq.wqe_cnt;
	out->rq.stride = qp->rq.wqe_cnt ? 1u << qp->rq.wqe_shift : 0;
	out->bf.reg = qp->bf_reg;
	out->bf.size = qp->bf.buf_size;
	out->comp_mask = 0; /* no UAR mmap offset, not a raw packet QP */
	return 0;
}

int init_cq(const struct mlx5dv_obj &obj)
{
	struct ibv_cq *ibcq = obj.cq.in;
	struct mlx5dv_cq *out = obj.cq.out;
	SimCqFull *cq;

	if (!ibcq || !out || !sim_is_sim_context(ibcq->context))
		return EINVAL;
	cq = to_cq_full(ibcq);
	out->buf = cq->buf;
	out->dbrec = reinterpret_cast<__be32 *>(cq->dbrec);
	out->cqe_cnt = cq->ncqe;
	out->cqe_size = cq->cqe_size;
	out->cq_uar = to_ctx_full(ibcq->context)->cq_uar;
	out->cqn = cq->cqn;
	out->comp_mask = 0;
	cq->dv_owned = true; /* its owner polls it now: no more cleaning on RESET */
	return 0;
}

int init_pd(const struct mlx5dv_obj &obj)
{
	if (!obj.pd.in || !obj.pd.out || !sim_is_sim_context(obj.pd.in->context))
		return EINVAL;
	obj.pd.out->pdn = to_pd_full(obj.pd.in)->pdn;
	obj.pd.out->comp_mask = 0;
	return 0;
}

} // namespace

int sim_dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	int ret = 0;

	if (!obj)
		return EINVAL;
	/* SRQ, RWQ, DM and AH objects do not exist in the model */
	if (obj_type & ~kObjSupported)
		return EOPNOTSUPP;
	if (obj_type & MLX5DV_OBJ_QP)
		ret = init_qp(*obj);
	if (!ret && (obj_type & MLX5DV_OBJ_CQ))
		ret = init_cq(*obj);
	if (!ret && (obj_type & MLX5DV_OBJ_PD))
		ret = init_pd(*obj);
	return ret;
}

struct ibv_qp_ex *sim_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	SimQpFull *qp;

	if (!ibqp || !sim_is_sim_context(ibqp->context)) {
		errno = EINVAL;
		return nullptr;
	}
	qp = to_qp_full(ibqp);
	/* libibverbs: only QPs created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS have one */
	if (!qp->has_qp_ex) {
		errno = EOPNOTSUPP;
		return nullptr;
	}
	return &qp->qpx;
}

struct mlx5dv_qp_ex *sim_dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
	if (!qpx) {
		errno = EINVAL;
		return nullptr;
	}
	return &to_sim_qp(qpx)->dv;
}

void sim_sq_doorbell(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8)
{
	SimQp *sqp = to_sim_qp(qp);

	(void)bf_reg; /* the device is told directly; the register area is never read */
	sqp->ctx->hca->sq_doorbell(sqp->qpn, ctrl8);
}

int sim_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	/*
	 * The seam's v46+ contract (mlx5_glue.h): unknown flags give 0; mlx5 ignores
	 * op and answers 0 unless the QP is in RTS (its cached state) or is a DCT in
	 * RTR; libibverbs adds
	 * ALIGNED_128_BYTES to WHOLE_MSG. An instance may also promise 128-byte blocks
	 * only, which the caps vector reports as ALIGNED_128_BYTES alone.
	 */
	(void)op;
	if (!qp || !sim_is_sim_context(qp->context) ||
	    (flags & ~(uint32_t)MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS))
		return 0;
	/* a DCT is asked with QUERY_DCT (data-in-order query): it answers once it exists, at RTR */
	bool dct = to_sim_qp(qp)->is_dct;
	if (qp->state != IBV_QPS_RTS && !(dct && qp->state == IBV_QPS_RTR))
		return 0;
	int caps = 0;
	switch (to_sim_ctx(qp->context)->hca->caps().data_in_order) {
	case DataInOrder::WholeMsg:
		caps = MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG |
		       MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
		break;
	case DataInOrder::Aligned128:
		caps = MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
		break;
	case DataInOrder::None:
		break;
	}
	if (flags & MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS)
		return caps;
	return !!(caps & MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG);
}

} // namespace mlx5sim
