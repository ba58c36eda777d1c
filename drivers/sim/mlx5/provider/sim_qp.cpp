/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * QP creation and destruction of the sim backend, validated and sized like
 * libmlx5 v44.0 (mlx5dv_create_qp): one 4 KiB-aligned buffer with the RQ first
 * and the SQ after it, per-slot bookkeeping, a zeroed doorbell record, a user
 * index, the per-PD opaque MR for memcpy QPs, then the device QP and the
 * builders. Only RC QPs exist for now.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cq_poll.h"
#include "sim_internal.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kRcSendOps = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |
				IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
				IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
				IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
				IBV_QP_EX_WITH_BIND_MW;
constexpr uint64_t kRcDvOps = MLX5DV_QP_EX_WITH_MR_INTERLEAVED | MLX5DV_QP_EX_WITH_MR_LIST |
			      MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_RAW_WQE |
			      MLX5DV_QP_EX_WITH_MEMCPY;
constexpr uint32_t kQpMaskKnown = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
				  IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
				  IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH |
				  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
constexpr uint64_t kDvMaskKnown = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
				  MLX5DV_QP_INIT_ATTR_MASK_DC |
				  MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |
				  MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
constexpr uint32_t kBfBufSize = 256;

/** The QP's doorbell register: device doorbells with the WQE's first 8 bytes. */
class HcaUar final : public UarSink {
public:
	void mmio64(SimQp *qp, uint32_t, uint64_t value) override
	{
		qp->ctx->hca->sq_doorbell(qp->qpn, value);
	}
	void blueflame(SimQp *qp, uint32_t, const void *data, size_t len) override
	{
		uint64_t ctrl8 = 0;

		memcpy(&ctrl8, data, len < 8 ? len : 8);
		qp->ctx->hca->sq_doorbell(qp->qpn, ctrl8);
	}
};

HcaUar g_uar; /* stateless: one for all QPs */

/** Everything a QP needs decided before anything is allocated. */
struct QpPlan {
	bool ops_valid;
	uint64_t ops;
	uint64_t dv_ops;
	SqGeometry sq;
	uint32_t rq_wqe_cnt;
	uint32_t rq_wqe_shift;
	uint32_t rq_max_gs;
	bool drain_sigerr; /**< MLX5DV_QP_CREATE_SIG_PIPELINING */
	DcRole dc;
	SimSrq *srq; /**< receives come from here (no RQ then) */
	uint64_t dct_key;
	uint8_t dci_log_streams;
	uint8_t dci_log_errored;
};

/** A DCT (libmlx5's create_dct rules); 0 or a positive errno. */
int check_dct(SimCtxFull *ctx, const struct ibv_qp_init_attr_ex *attr,
	      const struct mlx5dv_qp_init_attr *dv, QpPlan *p)
{
	if (attr->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD)
		return EINVAL;
	if (dv->comp_mask &
	    ~(uint64_t)(MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS))
		return EINVAL;
	if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS) &&
	    (dv->create_flags & ~(uint32_t)MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE))
		return EINVAL;
	if (!attr->pd || attr->pd->context != &ctx->ibctx || !attr->recv_cq ||
	    attr->recv_cq->context != &ctx->ibctx)
		return EINVAL;
	/* the kernel's create_dct wants an SRQ and a CQ */
	if (!attr->srq || attr->srq->context != &ctx->ibctx)
		return EINVAL;
	p->srq = to_sim_srq(attr->srq);
	p->dc = DcRole::Dct;
	p->dct_key = dv->dc_init_attr.dct_access_key;
	return 0;
}

/** A DCI's DC attributes (streams against the device's caps); 0 or a positive errno. */
int check_dci(SimCtxFull *ctx, const struct mlx5dv_qp_init_attr *dv, QpPlan *p)
{
	const HcaCaps &caps = ctx->hca->caps();

	p->dc = DcRole::Dci;
	p->dci_log_streams = p->dci_log_errored = 0;
	if (!(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS))
		return 0;
	const struct mlx5dv_dci_streams &st = dv->dc_init_attr.dci_streams;
	if (st.log_num_concurent > caps.dci_max_log_streams ||
	    st.log_num_errored > caps.dci_max_log_errored)
		return EINVAL;
	p->dci_log_streams = st.log_num_concurent;
	p->dci_log_errored = st.log_num_errored;
	return 0;
}

/** IBV_QPT_DRIVER: a DC QP or nothing; 0, a positive errno, or -1 for "a DCI, go on". */
int check_driver_qp(SimCtxFull *ctx, const struct ibv_qp_init_attr_ex *attr,
		    const struct mlx5dv_qp_init_attr *dv, QpPlan *p)
{
	if (!dv || !(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC))
		return EINVAL;
	if (!ctx->hca->caps().dc)
		return EOPNOTSUPP;
	/* read as an integer: the caller's value may be out of the enum's range */
	int dc_type;
	memcpy(&dc_type, &dv->dc_init_attr.dc_type, sizeof(dc_type));
	switch (dc_type) {
	case MLX5DV_DCTYPE_DCT:
		if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)
			return EINVAL;
		return check_dct(ctx, attr, dv, p);
	case MLX5DV_DCTYPE_DCI: {
		int ret = check_dci(ctx, dv, p);
		return ret ? ret : -1;
	}
	default:
		return EINVAL;
	}
}

/** Type, masks and objects; 0 or a positive errno (mlx5_qp_fill_wr_pfns rules). */
int check_attr(SimCtxFull *ctx, const struct ibv_qp_init_attr_ex *attr,
	       const struct mlx5dv_qp_init_attr *dv, QpPlan *p)
{
	if (attr->comp_mask & ~kQpMaskKnown)
		return EINVAL;
	if (dv && (dv->comp_mask & ~kDvMaskKnown))
		return EINVAL;
	p->dc = DcRole::None;
	if (attr->qp_type == IBV_QPT_DRIVER) {
		int ret = check_driver_qp(ctx, attr, dv, p);
		if (ret >= 0)
			return ret; /* a DCT is complete, or refused */
	} else if (attr->qp_type != IBV_QPT_RC) {
		return EOPNOTSUPP; /* UC, UD, raw packet, XRC: not modelled */
	} else if (dv && (dv->comp_mask &
			  (MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS))) {
		return EINVAL; /* DC attributes on a non-DRIVER QP */
	}
	if (attr->comp_mask & (IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
			       IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)
		return EOPNOTSUPP;
	/*
	 * Only "never scatter to CQE" (the model never does it anyway) and signature
	 * pipelining, which needs the kernel's SQD->RTS support, as in libmlx5.
	 */
	p->drain_sigerr = false;
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS)) {
		if (dv->create_flags & ~(uint32_t)(MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
						   MLX5DV_QP_CREATE_SIG_PIPELINING))
			return EOPNOTSUPP;
		if (dv->create_flags & MLX5DV_QP_CREATE_SIG_PIPELINING) {
			if (!ctx->sqd2rts_supported)
				return EOPNOTSUPP;
			p->drain_sigerr = true;
		}
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != &ctx->ibctx)
		return EINVAL;
	if (!attr->send_cq || !attr->recv_cq || attr->send_cq->context != &ctx->ibctx ||
	    attr->recv_cq->context != &ctx->ibctx)
		return EINVAL;
	if (attr->srq && attr->srq->context != &ctx->ibctx)
		return EINVAL;
	p->srq = attr->srq ? to_sim_srq(attr->srq) : nullptr;
	p->ops_valid = attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	p->ops = p->ops_valid ? attr->send_ops_flags : 0;
	p->dv_ops = 0;
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS)) {
		if (!p->ops_valid)
			return EINVAL;
		p->dv_ops = dv->send_ops_flags;
	}
	if ((p->ops & ~kRcSendOps) || (p->dv_ops & ~kRcDvOps))
		return EOPNOTSUPP;
	/* a DCI takes the RC operations, and of the dv ones raw WQEs and memcpy */
	if (p->dc == DcRole::Dci &&
	    (p->dv_ops & ~(uint64_t)(MLX5DV_QP_EX_WITH_RAW_WQE | MLX5DV_QP_EX_WITH_MEMCPY)))
		return EOPNOTSUPP;
	if ((p->dv_ops & MLX5DV_QP_EX_WITH_MEMCPY) && !ctx->dma_mmo_max_size)
		return EOPNOTSUPP;
	return 0;
}

/** SQ and RQ geometry; 0 or a positive errno. */
int size_queues(SimCtxFull *ctx, struct ibv_qp_init_attr_ex *attr, QpPlan *p)
{
	const HcaCaps &caps = ctx->hca->caps();
	uint32_t wqe_size, wq_size;

	p->rq_wqe_cnt = p->rq_wqe_shift = p->rq_max_gs = 0;
	if (p->dc == DcRole::Dct) {
		p->sq = SqGeometry{0, -1, 0, 0, 0, 0}; /* a DCT has no queues of its own */
		return 0;
	}
	p->sq = sim_sq_size(*ctx, attr->qp_type, p->dc == DcRole::Dci, attr->cap, p->ops_valid,
			    p->ops, p->dv_ops);
	if (p->sq.sizing_ret < 0)
		return -p->sq.sizing_ret;
	if (!attr->cap.max_recv_wr || p->srq)
		return 0;
	if (attr->cap.max_recv_wr > caps.max_recv_wr || attr->cap.max_recv_sge > caps.max_sge)
		return EINVAL;
	/* mlx5_calc_rq_size: pow2 stride of data segments, ring of at least one WQEBB */
	wqe_size = sim_roundup_pow2((attr->cap.max_recv_sge ? attr->cap.max_recv_sge : 1) *
				    (uint32_t)sizeof(struct mlx5_wqe_data_seg));
	wq_size = sim_roundup_pow2(attr->cap.max_recv_wr) * wqe_size;
	if (wq_size < MLX5_SEND_WQE_BB)
		wq_size = MLX5_SEND_WQE_BB;
	p->rq_wqe_cnt = wq_size / wqe_size;
	p->rq_wqe_shift = (uint32_t)__builtin_ctz(wqe_size);
	p->rq_max_gs = wqe_size / sizeof(struct mlx5_wqe_data_seg);
	return 0;
}

void free_qp(SimQpFull *qp)
{
	if (!qp)
		return;
	free(qp->buf);
	free(qp->dbrec);
	free(qp->bf_reg);
	delete[] qp->sq.wrid;
	delete[] qp->sq.wqe_head;
	delete[] qp->sq.wr_data;
	delete[] qp->rq.wrid;
	delete qp;
}

/** Allocate rings, bookkeeping, doorbell record and register area per @p p. */
SimQpFull *alloc_qp(const QpPlan &p)
{
	SimQpFull *qp = new (std::nothrow) SimQpFull();
	size_t rq_bytes = (size_t)p.rq_wqe_cnt << p.rq_wqe_shift;
	size_t sq_bytes = (size_t)p.sq.wqe_cnt * MLX5_SEND_WQE_BB;
	/* a DCT has no rings: one page all the same, so that every QP owns a buffer */
	size_t total = (rq_bytes + sq_bytes + 4096) & ~(size_t)4095;
	uint32_t sq_n = p.sq.wqe_cnt ? p.sq.wqe_cnt : 1;
	uint32_t rq_n = p.rq_wqe_cnt ? p.rq_wqe_cnt : 1;

	if (!qp)
		return nullptr;
	qp->buf = sim_zalloc(4096, total);
	qp->dbrec = static_cast<uint32_t *>(sim_zalloc(64, 64));
	qp->bf_reg = sim_zalloc(4096, 4096);
	qp->sq.wrid = new (std::nothrow) uint64_t[sq_n]();
	qp->sq.wqe_head = new (std::nothrow) uint32_t[sq_n]();
	qp->sq.wr_data = new (std::nothrow) uint32_t[sq_n]();
	qp->rq.wrid = new (std::nothrow) uint64_t[rq_n]();
	if (!qp->buf || !qp->dbrec || !qp->bf_reg || !qp->sq.wrid || !qp->sq.wqe_head ||
	    !qp->sq.wr_data || !qp->rq.wrid) {
		free_qp(qp);
		return nullptr;
	}
	qp->rq.buf = static_cast<uint8_t *>(qp->buf);
	qp->rq.wqe_cnt = p.rq_wqe_cnt;
	qp->rq.wqe_shift = p.rq_wqe_shift;
	qp->rq.max_gs = p.rq_max_gs;
	qp->sq.buf = static_cast<uint8_t *>(qp->buf) + rq_bytes;
	qp->sq.qend = qp->sq.buf + sq_bytes;
	qp->sq.wqe_cnt = p.sq.wqe_cnt;
	qp->sq.max_post = p.sq.max_post;
	qp->sq.max_gs = p.sq.max_send_sge;
	qp->sq.max_inline_data = (uint32_t)p.sq.max_inline_data;
	return qp;
}

/** Fill the verbs-visible fields of a freshly allocated QP. */
void fill_qp(SimCtxFull *ctx, SimQpFull *qp, const struct ibv_qp_init_attr_ex *attr,
	     const QpPlan &p)
{
	struct ibv_qp *ib = &qp->qpx.qp_base;

	qp->ctx = ctx;
	qp->pd = reinterpret_cast<SimPd *>(attr->pd);
	qp->type = attr->qp_type;
	qp->is_dci = p.dc == DcRole::Dci;
	qp->is_dct = p.dc == DcRole::Dct;
	qp->send_ops_flags = p.ops;
	qp->dv_send_ops_flags = p.dv_ops;
	qp->operational = false;
	qp->sq.sq_signal_bits = attr->sq_sig_all ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
	qp->bf.uar = &g_uar;
	qp->bf.offset = 0;
	qp->bf.buf_size = kBfBufSize;
	/* a DCT only answers: its responder CQEs go to recv_cq */
	qp->send_cq = to_cq_full(attr->send_cq ? attr->send_cq : attr->recv_cq);
	qp->recv_cq = to_cq_full(attr->recv_cq);
	qp->has_qp_ex = p.ops_valid;
	qp->sq_sig_all = attr->sq_sig_all;
	ib->context = &ctx->ibctx;
	ib->qp_context = attr->qp_context;
	ib->pd = attr->pd;
	ib->send_cq = attr->send_cq;
	ib->recv_cq = attr->recv_cq;
	qp->srq = p.srq;
	ib->srq = attr->srq;
	ib->state = IBV_QPS_RESET;
	ib->qp_type = attr->qp_type;
	pthread_mutex_init(&ib->mutex, nullptr);
	pthread_cond_init(&ib->cond, nullptr);
}

/** Take a free user index for @p qp. Caller holds ctx->lock. */
bool take_uidx(SimCtxFull *ctx, SimQpFull *qp)
{
	for (uint32_t tries = 0; tries < (1u << 24); tries++) {
		uint32_t uidx = ctx->next_uidx++ & 0xffffff;

		if (ctx->qp_by_uidx.insert(uidx, qp)) {
			qp->uidx = uidx;
			return true;
		}
	}
	return false;
}

/** Device QP, tables and counts; 0 or a positive errno (nothing kept on failure). */
int attach_qp(SimCtxFull *ctx, SimQpFull *qp, bool memcpy_qp, const QpPlan &p)
{
	SimPdFull *pd = static_cast<SimPdFull *>(qp->pd);
	std::lock_guard<std::mutex> g(ctx->lock);
	QpConfig cfg{};
	int ret;

	if (memcpy_qp) {
		ret = sim_pd_opaque_get(ctx, pd);
		if (ret)
			return ret;
	}
	if (!take_uidx(ctx, qp))
		return ENOMEM;
	cfg.type = qp->type;
	cfg.pdn = pd->pdn;
	cfg.uidx = qp->uidx;
	cfg.sq_buf = qp->sq.buf;
	cfg.sq_wqe_cnt = qp->sq.wqe_cnt;
	cfg.rq_buf = qp->rq.buf;
	cfg.rq_wqe_cnt = qp->rq.wqe_cnt;
	cfg.rq_wqe_shift = qp->rq.wqe_shift;
	cfg.dbrec = qp->dbrec;
	cfg.send_cqn = qp->send_cq->cqn;
	cfg.recv_cqn = qp->recv_cq->cqn;
	cfg.srqn = qp->srq ? qp->srq->srqn : 0;
	cfg.drain_sigerr = p.drain_sigerr;
	cfg.dc = p.dc;
	cfg.dct_key = p.dct_key;
	cfg.dci_log_streams = p.dci_log_streams;
	cfg.dci_log_errored = p.dci_log_errored;
	ret = -ctx->hca->create_qp(cfg, &qp->qpn);
	if (ret)
		goto err_uidx;
	if (!ctx->qp_by_qpn.insert(qp->qpn, qp)) {
		ret = ENOMEM;
		goto err_hca;
	}
	/* a DCT gets its number at the modify to RTR (modify_dct), as in libmlx5 */
	qp->qpx.qp_base.qp_num = p.dc == DcRole::Dct ? 0 : qp->qpn;
	qp->qpx.qp_base.handle = qp->qpn;
	if (qp->has_qp_ex) {
		ret = sim_qp_install_wr_ops(qp);
		ret = ret < 0 ? -ret : ret;
		if (ret)
			goto err_qpn;
	}
	pd->users++;
	qp->send_cq->users++;
	qp->recv_cq->users++;
	ctx->n_qp++;
	return 0;
err_qpn:
	ctx->qp_by_qpn.erase(qp->qpn);
err_hca:
	ctx->hca->destroy_qp(qp->qpn);
err_uidx:
	ctx->qp_by_uidx.erase(qp->uidx);
	return ret;
}

/** Report the sizes actually granted, as libmlx5 writes them back. */
void write_back_caps(struct ibv_qp_init_attr_ex *attr, const QpPlan &p)
{
	attr->cap.max_send_wr = p.sq.wqe_cnt ? p.sq.max_post : 0;
	attr->cap.max_send_sge = p.sq.max_send_sge;
	attr->cap.max_inline_data = (uint32_t)p.sq.max_inline_data;
	attr->cap.max_recv_wr = p.rq_wqe_cnt;
	attr->cap.max_recv_sge = p.rq_max_gs;
}

} // namespace

struct ibv_qp *sim_dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr)
{
	SimCtxFull *ctx;
	SimQpFull *qp = nullptr;
	QpPlan plan{};
	int ret;

	if (!sim_is_sim_context(context) || !attr) {
		ret = EINVAL;
		goto err;
	}
	ctx = to_ctx_full(context);
	ret = check_attr(ctx, attr, dv_attr, &plan);
	if (!ret)
		ret = size_queues(ctx, attr, &plan);
	if (ret)
		goto err;
	qp = alloc_qp(plan);
	if (!qp) {
		ret = ENOMEM;
		goto err;
	}
	fill_qp(ctx, qp, attr, plan);
	ret = attach_qp(ctx, qp, plan.dv_ops & MLX5DV_QP_EX_WITH_MEMCPY, plan);
	if (ret) {
		pthread_cond_destroy(&qp->qpx.qp_base.cond);
		pthread_mutex_destroy(&qp->qpx.qp_base.mutex);
		goto err;
	}
	write_back_caps(attr, plan);
	qp->shadow.cap = attr->cap;
	return &qp->qpx.qp_base;
err:
	free_qp(qp);
	errno = ret;
	return nullptr;
}

int sim_destroy_qp(struct ibv_qp *ibqp)
{
	SimCtxFull *ctx;
	SimQpFull *qp;
	int ret;

	if (!ibqp || !sim_is_sim_context(ibqp->context))
		return EINVAL;
	ctx = to_ctx_full(ibqp->context);
	qp = to_qp_full(ibqp);
	{
		std::lock_guard<std::mutex> g(ctx->lock);

		ret = -ctx->hca->destroy_qp(qp->qpn);
		if (ret)
			return ret;
		/* drop the completions still queued for it, as libmlx5 does */
		sim_cq_clean(qp->recv_cq, sim_qp_rsn(qp), qp->srq);
		if (qp->send_cq != qp->recv_cq)
			sim_cq_clean(qp->send_cq, sim_qp_rsn(qp));
		ctx->qp_by_qpn.erase(qp->qpn);
		ctx->qp_by_uidx.erase(qp->uidx);
		static_cast<SimPdFull *>(qp->pd)->users--;
		qp->send_cq->users--;
		qp->recv_cq->users--;
		ctx->n_qp--;
	}
	/* like libibverbs: wait until every async event handed out was acked */
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != qp->events_reported)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&ibqp->mutex);
	free_qp(qp);
	return 0;
}

} // namespace mlx5sim
