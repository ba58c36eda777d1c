/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_create_mkey / mlx5dv_destroy_mkey of the sim backend, with libmlx5 v44's
 * checks (verbs.c, _mlx5dv_create_mkey): the device command creates a free,
 * zero-based, KLM-mode mkey that UMR WQEs fill. Signature and crypto mkeys need
 * engines the model does not report (sig_caps.block_prot == 0, no AES-XTS), so
 * they fail with EOPNOTSUPP as on such hardware.
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
	/* no signature engine (sig_caps.block_prot == 0) and no AES-XTS engine */
	if (flags &
	    (MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE | MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO)) {
		errno = EOPNOTSUPP;
		return nullptr;
	}
	SimMkey *mkey = new (std::nothrow) SimMkey();
	if (!mkey) {
		errno = ENOMEM;
		return nullptr;
	}
	SimCtxFull *ctx = to_ctx_full(attr->pd->context);
	SimPdFull *pd = to_pd_full(attr->pd);
	/* like libmlx5: the descriptor count is a multiple of 4 (a u16: 65535 wraps to 0) */
	uint16_t num_desc = (uint16_t)((attr->max_entries + 3u) & ~3u);
	uint32_t hca_flags = 0;
	if (flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE)
		hca_flags |= HCA_MKEY_REMOTE_INVALIDATE;
	uint32_t key;
	int ret = ctx->hca->create_mkey(pd->pdn, num_desc, hca_flags, &key);
	if (ret) {
		delete mkey;
		errno = -ret;
		return nullptr;
	}
	mkey->dv.lkey = key;
	mkey->dv.rkey = key;
	mkey->num_desc = num_desc;
	mkey->create_flags = flags;
	mkey->pdn = pd->pdn;
	mkey->pd = attr->pd;
	attr->max_entries = num_desc;
	std::lock_guard<std::mutex> g(ctx->lock);
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
	int ret = ctx->hca->destroy_mkey(dv_mkey->lkey);
	if (ret)
		return -ret;
	std::lock_guard<std::mutex> g(ctx->lock);
	to_pd_full(mkey->pd)->users--;
	ctx->n_mr--;
	delete mkey;
	return 0;
}

} // namespace mlx5sim
