/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_create_mkey / mlx5dv_destroy_mkey of the sim backend, with libmlx5 v44's
 * checks (verbs.c, _mlx5dv_create_mkey): the device command creates a free,
 * zero-based, KLM-mode mkey that UMR WQEs fill. A BLOCK_SIGNATURE mkey gets a
 * BSF (bsf_en, 4 octowords) and its signature context with two PSVs; it needs
 * sig_caps.block_prot. Crypto mkeys need an AES-XTS engine the model does not
 * report, so they fail with EOPNOTSUPP as on such hardware. Every mkey is in the
 * context's table under lkey >> 8, where SIG_ERR CQEs look it up.
 */
#include <errno.h>

#include <new>

#include "sim_internal.h"
#include "sim_mkey.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kKnownFlags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				 MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
				 MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO |
				 MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE;

} // namespace

struct mlx5dv_mkey *sim_dv_create_mkey(struct mlx5dv_mkey_init_attr *attr)
{
	if (!attr || !attr->pd || !sim_is_sim_context(attr->pd->context)) {
		errno = EINVAL;
		return nullptr;
	}
	uint32_t flags = attr->create_flags;
	/* UPDATE_TAG needs the kernel's MKEY_UPDATE_TAG, which the model does not report */
	if (flags == 0 || (flags & ~kKnownFlags)) {
		errno = EOPNOTSUPP;
		return nullptr;
	}
	SimCtxFull *ctx = to_ctx_full(attr->pd->context);
	bool sig = flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	/* no AES-XTS engine; signature needs the device's signature caps */
	if ((flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO) || (sig && !ctx->sig_caps.block_prot)) {
		errno = EOPNOTSUPP;
		return nullptr;
	}
	SimMkey *mkey = new (std::nothrow) SimMkey();
	if (!mkey) {
		errno = ENOMEM;
		return nullptr;
	}
	SimPdFull *pd = to_pd_full(attr->pd);
	/* like libmlx5: the descriptor count is a multiple of 4 (a u16: 65535 wraps to 0) */
	uint16_t num_desc = (uint16_t)((attr->max_entries + 3u) & ~3u);
	uint32_t hca_flags = 0;
	if (flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE)
		hca_flags |= HCA_MKEY_REMOTE_INVALIDATE;
	if (sig)
		hca_flags |= HCA_MKEY_BSF;
	uint32_t key;
	int ret = ctx->hca->create_mkey(pd->pdn, num_desc, hca_flags, &key);
	if (ret) {
		delete mkey;
		errno = -ret;
		return nullptr;
	}
	if (sig) {
		ret = sim_mkey_sig_create(ctx, pd, mkey);
		if (ret) {
			ctx->hca->destroy_mkey(key);
			delete mkey;
			errno = ret;
			return nullptr;
		}
	}
	mkey->dv.lkey = key;
	mkey->dv.rkey = key;
	mkey->num_desc = num_desc;
	mkey->create_flags = flags;
	mkey->pdn = pd->pdn;
	mkey->pd = attr->pd;
	std::lock_guard<std::mutex> g(ctx->lock);
	if (!ctx->mkey_by_idx.insert(key >> 8, mkey)) {
		sim_mkey_sig_destroy(ctx, mkey);
		ctx->hca->destroy_mkey(key);
		delete mkey;
		errno = ENOMEM;
		return nullptr;
	}
	attr->max_entries = num_desc;
	pd->users++;
	ctx->n_mr++;
	return &mkey->dv;
}

int sim_dv_destroy_mkey(struct mlx5dv_mkey *dv_mkey)
{
	if (!dv_mkey)
		return EINVAL;
	SimMkey *mkey = to_sim_mkey(dv_mkey);
	SimCtxFull *ctx = to_ctx_full(mkey->pd->context);
	/* like libmlx5: the PSVs first, then the mkey */
	int ret = sim_mkey_sig_destroy(ctx, mkey);
	if (ret)
		return ret;
	ret = ctx->hca->destroy_mkey(dv_mkey->lkey);
	if (ret)
		return -ret;
	std::lock_guard<std::mutex> g(ctx->lock);
	ctx->mkey_by_idx.erase(dv_mkey->lkey >> 8);
	to_pd_full(mkey->pd)->users--;
	ctx->n_mr--;
	delete mkey;
	return 0;
}

} // namespace mlx5sim
