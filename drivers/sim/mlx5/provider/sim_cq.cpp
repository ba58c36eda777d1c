/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Completion queues of the sim backend (libmlx5 v44.0 create_cq rules): the
 * ring of roundup_pow2(cqe + 1) 64-byte entries, all marked invalid (op_own
 * 0xf0), and a zeroed doorbell record, both 64-byte aligned, handed to the
 * device; then the extended poll functions per wc_flags.
 */
#include <errno.h>
#include <stdlib.h>

#include "cq_poll.h"
#include "sim_internal.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kWcFlagsSupported = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
				       IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
				       IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
				       IBV_WC_EX_WITH_DLID_PATH_BITS |
				       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
constexpr uint32_t kCqeSize = 64;
constexpr uint32_t kMaxNcqe = 1u << 24;

/** Check @p attr; 0 or a positive errno. Sets *ncqe. */
int check_attr(const SimCtxFull *ctx, const struct ibv_cq_init_attr_ex *attr, uint32_t *ncqe)
{
	if (!attr)
		return EINVAL;
	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	if (attr->wc_flags & ~kWcFlagsSupported)
		return EOPNOTSUPP;
	/* no interrupt model yet: completion channels cannot be served */
	if (attr->channel)
		return EOPNOTSUPP;
	if (attr->comp_vector >= (uint32_t)ctx->ibctx.num_comp_vectors)
		return EINVAL;
	if (!attr->cqe || attr->cqe > ctx->hca->caps().max_cqe || attr->cqe >= kMaxNcqe)
		return EINVAL;
	*ncqe = sim_roundup_pow2(attr->cqe + 1);
	return *ncqe > kMaxNcqe ? EINVAL : 0;
}

void free_cq(SimCqFull *cq)
{
	if (!cq)
		return;
	free(cq->buf);
	free(cq->dbrec);
	delete cq;
}

} // namespace

struct ibv_cq_ex *sim_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	SimCtxFull *ctx;
	SimCqFull *cq = nullptr;
	uint32_t ncqe = 0;
	CqConfig cfg;
	int ret;

	if (!sim_is_sim_context(context)) {
		ret = EINVAL;
		goto err;
	}
	ctx = to_ctx_full(context);
	ret = check_attr(ctx, attr, &ncqe);
	if (ret)
		goto err;
	cq = new (std::nothrow) SimCqFull();
	if (!cq || !(cq->buf = static_cast<uint8_t *>(sim_zalloc(64, (size_t)ncqe * kCqeSize))) ||
	    !(cq->dbrec = static_cast<uint32_t *>(sim_zalloc(64, 64)))) {
		ret = ENOMEM;
		goto err;
	}
	for (uint32_t i = 0; i < ncqe; i++)
		cq->buf[i * kCqeSize + kCqeSize - 1] = MLX5_HW_CQE_INVALID_OP_OWN;
	cq->ctx = ctx;
	cq->ncqe = ncqe;
	cq->cqe_size = kCqeSize;
	cq->wc_flags = attr->wc_flags;
	cfg.buf = cq->buf;
	cfg.ncqe = ncqe;
	cfg.cqe_size = kCqeSize;
	cfg.dbrec = cq->dbrec;
	ret = -ctx->hca->create_cq(cfg, &cq->cqn);
	if (ret)
		goto err;
	{
		std::lock_guard<std::mutex> g(ctx->lock);

		if (!ctx->cq_by_cqn.insert(cq->cqn, cq)) {
			ctx->hca->destroy_cq(cq->cqn);
			ret = ENOMEM;
			goto err;
		}
		ctx->n_cq++;
	}
	cq->cqx.context = context;
	cq->cqx.cq_context = attr->cq_context;
	cq->cqx.handle = cq->cqn;
	cq->cqx.cqe = (int)(ncqe - 1);
	pthread_mutex_init(&cq->cqx.mutex, nullptr);
	pthread_cond_init(&cq->cqx.cond, nullptr);
	sim_cq_install_poll_ops(cq);
	return &cq->cqx;
err:
	free_cq(cq);
	errno = ret;
	return nullptr;
}

int sim_destroy_cq(struct ibv_cq *ibcq)
{
	SimCtxFull *ctx;
	SimCqFull *cq;
	int ret;

	if (!ibcq || !sim_is_sim_context(ibcq->context))
		return EINVAL;
	ctx = to_ctx_full(ibcq->context);
	cq = to_cq_full(ibcq);
	{
		std::lock_guard<std::mutex> g(ctx->lock);

		if (cq->users)
			return EBUSY;
		ret = -ctx->hca->destroy_cq(cq->cqn);
		if (ret)
			return ret;
		ctx->cq_by_cqn.erase(cq->cqn);
		ctx->n_cq--;
	}
	/* like libibverbs: wait until every async event handed out was acked */
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->async_events_completed != cq->events_reported)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	free_cq(cq);
	return 0;
}

} // namespace mlx5sim
