/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Shared receive queues of the sim backend, sized, linked and posted as libmlx5
 * v44.0 does (mlx5_create_srq, mlx5_post_srq_recv): max_wr + 1 WQEs rounded up
 * to a power of two, each a 16-byte next segment and max_sge data segments
 * (a power-of-two stride of at least 32 bytes), free WQEs linked in a list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "wr_segments.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kMinStride = 32;

void free_srq(SimSrq *srq)
{
	if (!srq)
		return;
	free(srq->buf);
	free(srq->dbrec);
	delete[] srq->wrid;
	delete srq;
}

} // namespace

struct ibv_srq *sim_create_srq(struct ibv_pd *ibpd, struct ibv_srq_init_attr *attr)
{
	SimSrq *srq = nullptr;
	int ret = EINVAL;

	if (!ibpd || !attr || !sim_is_sim_context(ibpd->context)) {
		errno = EINVAL;
		return nullptr;
	}
	SimCtxFull *ctx = to_ctx_full(ibpd->context);
	SimPdFull *pd = to_pd_full(ibpd);
	const HcaCaps &caps = ctx->hca->caps();
	if (!attr->attr.max_wr || attr->attr.max_wr >= caps.max_recv_wr ||
	    attr->attr.max_sge > caps.max_sge) {
		errno = EINVAL;
		return nullptr;
	}
	uint32_t cnt = sim_roundup_pow2(attr->attr.max_wr + 1);
	uint32_t stride = sim_roundup_pow2((uint32_t)sizeof(struct mlx5_wqe_srq_next_seg) +
					   (attr->attr.max_sge ? attr->attr.max_sge : 1) *
						   (uint32_t)sizeof(struct mlx5_wqe_data_seg));
	if (stride < kMinStride)
		stride = kMinStride;
	SrqConfig cfg{};

	srq = new (std::nothrow) SimSrq();
	if (!srq) {
		ret = ENOMEM;
		goto err;
	}
	srq->buf = static_cast<uint8_t *>(sim_zalloc(4096, (size_t)cnt * stride));
	srq->dbrec = static_cast<uint32_t *>(sim_zalloc(64, 64));
	srq->wrid = new (std::nothrow) uint64_t[cnt]();
	if (!srq->buf || !srq->dbrec || !srq->wrid) {
		ret = ENOMEM;
		goto err;
	}
	srq->ctx = ctx;
	srq->wqe_cnt = cnt;
	srq->wqe_shift = (uint32_t)__builtin_ctz(stride);
	srq->max_gs = (stride - (uint32_t)sizeof(struct mlx5_wqe_srq_next_seg)) /
		      (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	for (uint32_t i = 0; i < cnt; i++)
		sim_srq_wqe(srq, i)->next_wqe_index = htobe16((uint16_t)((i + 1) & (cnt - 1)));
	srq->head = 0;
	srq->tail = (uint16_t)(cnt - 1);
	cfg.pdn = pd->pdn;
	cfg.buf = srq->buf;
	cfg.wqe_cnt = cnt;
	cfg.wqe_shift = srq->wqe_shift;
	cfg.dbrec = srq->dbrec;
	ret = -ctx->hca->create_srq(cfg, &srq->srqn);
	if (ret)
		goto err;
	srq->ibsrq.context = ibpd->context;
	srq->ibsrq.srq_context = attr->srq_context;
	srq->ibsrq.pd = ibpd;
	srq->ibsrq.handle = srq->srqn;
	pthread_mutex_init(&srq->ibsrq.mutex, nullptr);
	pthread_cond_init(&srq->ibsrq.cond, nullptr);
	{
		std::lock_guard<std::mutex> g(ctx->lock);
		pd->users++;
	}
	attr->attr.max_wr = cnt - 1;
	attr->attr.max_sge = srq->max_gs;
	return &srq->ibsrq;
err:
	free_srq(srq);
	errno = ret;
	return nullptr;
}

int sim_destroy_srq(struct ibv_srq *ibsrq)
{
	if (!ibsrq || !sim_is_sim_context(ibsrq->context))
		return EINVAL;
	SimCtxFull *ctx = to_ctx_full(ibsrq->context);
	SimSrq *srq = to_sim_srq(ibsrq);
	int ret = -ctx->hca->destroy_srq(srq->srqn);
	if (ret)
		return ret; /* EBUSY while a QP uses it */
	{
		std::lock_guard<std::mutex> g(ctx->lock);
		to_pd_full(ibsrq->pd)->users--;
	}
	pthread_cond_destroy(&ibsrq->cond);
	pthread_mutex_destroy(&ibsrq->mutex);
	free_srq(srq);
	return 0;
}

int sim_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	SimSrq *srq = to_sim_srq(ibsrq);
	uint32_t nreq = 0;
	int err = 0;

	for (; wr; wr = wr->next, nreq++) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_gs) {
			err = EINVAL;
			break;
		}
		if (srq->head == srq->tail) { /* full: the last free WQE stays free */
			err = ENOMEM;
			break;
		}
		struct mlx5_wqe_srq_next_seg *next = sim_srq_wqe(srq, srq->head);
		auto *scat = reinterpret_cast<struct mlx5_wqe_data_seg *>(next + 1);
		int i;

		srq->wrid[srq->head] = wr->wr_id;
		srq->head = be16toh(next->next_wqe_index);
		for (i = 0; i < wr->num_sge; i++)
			wr_set_data(&scat[i], wr->sg_list[i].length, wr->sg_list[i].lkey,
				    wr->sg_list[i].addr);
		if ((uint32_t)i < srq->max_gs)
			wr_set_data(&scat[i], 0, MLX5_INVALID_LKEY, 0);
	}
	if (err)
		*bad_wr = wr;
	if (nreq) {
		srq->counter = (uint16_t)(srq->counter + nreq);
		/* WQEs before the record; the device reads it with an acquire load */
		__atomic_store_n(&srq->dbrec[0], htobe32(srq->counter), __ATOMIC_RELEASE);
		srq->ctx->hca->srq_notify(srq->srqn);
	}
	return err;
}

} // namespace mlx5sim
