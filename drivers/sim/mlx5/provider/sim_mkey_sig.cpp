/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The signature context of a BLOCK_SIGNATURE mkey, as libmlx5 v44.0 sets it up
 * (rdma-core providers/mlx5/verbs.c, mlx5_create_sig_ctx / mlx5_destroy_sig_ctx):
 * refused without signature caps, two PSVs from the device (memory domain first,
 * then wire), the error counter at 1 and marked for the first UMR to push.
 * mlx5dv_create_mkey calls sim_mkey_sig_create() after it created the device
 * mkey; mlx5dv_destroy_mkey calls sim_mkey_sig_destroy() before destroying it.
 */
#include <errno.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_mkey.h"

namespace mlx5sim {

int sim_mkey_sig_create(SimCtxFull *ctx, const SimPd *pd, SimMkey *mkey)
{
	SimMkeySig *sig = &mkey->sig;
	int ret;

	if (!ctx->sig_caps.block_prot)
		return EOPNOTSUPP;
	memset(sig, 0, sizeof(*sig));
	ret = -ctx->hca->create_psv(pd->pdn, &sig->mem_psv_index);
	if (ret)
		return ret;
	ret = -ctx->hca->create_psv(pd->pdn, &sig->wire_psv_index);
	if (ret) {
		ctx->hca->destroy_psv(sig->mem_psv_index);
		return ret;
	}
	sig->state = SigState::INIT;
	sig->err_count = 1;
	sig->err_count_updated = true; /* the first UMR writes sig_err_cnt */
	sig->err_exists = false;
	mkey->has_sig = true;
	return 0;
}

int sim_mkey_sig_destroy(SimCtxFull *ctx, SimMkey *mkey)
{
	SimMkeySig *sig = &mkey->sig;
	int ret;

	if (!mkey->has_sig)
		return 0;
	/* memory PSV first; a failure keeps what is left for a retry, as libmlx5 */
	if (sig->mem_psv_index) {
		ret = -ctx->hca->destroy_psv(sig->mem_psv_index);
		if (ret)
			return ret;
		sig->mem_psv_index = 0;
	}
	if (sig->wire_psv_index) {
		ret = -ctx->hca->destroy_psv(sig->wire_psv_index);
		if (ret)
			return ret;
		sig->wire_psv_index = 0;
	}
	mkey->has_sig = false;
	return 0;
}

} // namespace mlx5sim
