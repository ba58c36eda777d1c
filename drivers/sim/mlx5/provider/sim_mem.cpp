/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Protection domains and memory regions of the sim backend, plus the per-PD
 * MMO opaque buffer libmlx5 registers the first time a memcpy QP is created on
 * a PD.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "mlx5_hw.h"
#include "sim_internal.h"

namespace mlx5sim {

namespace {

/** Access bits the model implements; optional bits (20..29) may be ignored. */
constexpr int kAccessKnown = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			     IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB;
constexpr int kAccessOptional = 0x3ff00000;

/** Check @p access like the kernel; returns 0 or a positive errno. */
int check_access(int access)
{
	int rest = access & ~(kAccessKnown | kAccessOptional);

	if (rest & IBV_ACCESS_ZERO_BASED)
		return EOPNOTSUPP; /* zero-based MRs are not modelled */
	if (rest)
		return EINVAL;
	/* remote write/atomic need local write (IB spec, enforced by the kernel) */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

/** Register with the device and fill @p mr; 0 or a positive errno. */
int mr_register(SimCtxFull *ctx, SimPdFull *pd, void *addr, size_t length, int access, SimMr *mr)
{
	uint64_t len = length == SIZE_MAX ? UINT64_MAX : (uint64_t)length;
	uint32_t key;
	int ret;

	ret = ctx->hca->reg_mr(pd->pdn, (uint64_t)(uintptr_t)addr, len, access & kAccessKnown,
			       &key);
	if (ret)
		return -ret;
	mr->ibmr.context = &ctx->ibctx;
	mr->ibmr.pd = &pd->ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.handle = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

} // namespace

struct ibv_pd *sim_alloc_pd(struct ibv_context *context)
{
	SimCtxFull *ctx;
	SimPdFull *pd;
	int ret;

	if (!sim_is_sim_context(context)) {
		errno = EINVAL;
		return nullptr;
	}
	ctx = to_ctx_full(context);
	pd = new (std::nothrow) SimPdFull();
	if (!pd) {
		errno = ENOMEM;
		return nullptr;
	}
	ret = ctx->hca->alloc_pd(&pd->pdn);
	if (ret) {
		delete pd;
		errno = -ret;
		return nullptr;
	}
	pd->ibpd.context = context;
	pd->ibpd.handle = pd->pdn;
	std::lock_guard<std::mutex> g(ctx->lock);
	ctx->n_pd++;
	return &pd->ibpd;
}

int sim_dealloc_pd(struct ibv_pd *ibpd)
{
	SimCtxFull *ctx;
	SimPdFull *pd;
	int ret;

	if (!ibpd || !sim_is_sim_context(ibpd->context))
		return EINVAL;
	ctx = to_ctx_full(ibpd->context);
	pd = to_pd_full(ibpd);
	std::lock_guard<std::mutex> g(ctx->lock);
	if (pd->users)
		return EBUSY;
	if (pd->opaque_mr) {
		ret = ctx->hca->dereg_mr(pd->opaque_lkey);
		if (ret)
			return -ret;
		delete reinterpret_cast<SimMr *>(pd->opaque_mr);
		free(pd->opaque_buf);
		pd->opaque_mr = nullptr;
		pd->opaque_buf = nullptr;
		pd->opaque_lkey = 0;
	}
	ret = ctx->hca->dealloc_pd(pd->pdn);
	if (ret)
		return -ret; /* the opaque MR is recreated on demand */
	ctx->n_pd--;
	delete pd;
	return 0;
}

int sim_pd_opaque_get(SimCtxFull *ctx, SimPdFull *pd)
{
	SimMr *mr;
	void *buf;
	int ret;

	if (pd->opaque_mr)
		return 0;
	buf = sim_zalloc(MLX5_HW_OPAQUE_BUF_LEN, MLX5_HW_OPAQUE_BUF_LEN);
	mr = new (std::nothrow) SimMr();
	if (!buf || !mr) {
		ret = ENOMEM;
		goto err;
	}
	ret = mr_register(ctx, pd, buf, MLX5_HW_OPAQUE_BUF_LEN, IBV_ACCESS_LOCAL_WRITE, mr);
	if (ret)
		goto err;
	pd->opaque_buf = buf;
	pd->opaque_mr = &mr->ibmr;
	pd->opaque_lkey = mr->ibmr.lkey;
	return 0;
err:
	delete mr;
	free(buf);
	return ret;
}

struct ibv_mr *sim_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length, int access)
{
	SimCtxFull *ctx;
	SimPdFull *pd;
	SimMr *mr;
	int ret;

	if (!ibpd || !sim_is_sim_context(ibpd->context)) {
		errno = EINVAL;
		return nullptr;
	}
	ctx = to_ctx_full(ibpd->context);
	pd = to_pd_full(ibpd);
	ret = check_access(access);
	if (!ret && !length)
		ret = EINVAL;
	if (!ret && !addr && length == SIZE_MAX) {
		/* the implicit on-demand MR */
		if (!(access & IBV_ACCESS_ON_DEMAND))
			ret = EINVAL;
		else if (!ctx->hca->caps().odp_implicit)
			ret = EOPNOTSUPP;
	}
	if (ret) {
		errno = ret;
		return nullptr;
	}
	mr = new (std::nothrow) SimMr();
	if (!mr) {
		errno = ENOMEM;
		return nullptr;
	}
	ret = mr_register(ctx, pd, addr, length, access, mr);
	if (ret) {
		delete mr;
		errno = ret;
		return nullptr;
	}
	std::lock_guard<std::mutex> g(ctx->lock);
	pd->users++;
	ctx->n_mr++;
	return &mr->ibmr;
}

int sim_dereg_mr(struct ibv_mr *ibmr)
{
	SimCtxFull *ctx;
	int ret;

	if (!ibmr || !sim_is_sim_context(ibmr->context))
		return EINVAL;
	ctx = to_ctx_full(ibmr->context);
	ret = ctx->hca->dereg_mr(ibmr->lkey);
	if (ret)
		return -ret;
	std::lock_guard<std::mutex> g(ctx->lock);
	to_pd_full(ibmr->pd)->users--;
	ctx->n_mr--;
	delete reinterpret_cast<SimMr *>(ibmr);
	return 0;
}

} // namespace mlx5sim
