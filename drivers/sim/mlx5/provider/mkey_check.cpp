/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_mkey_check as libmlx5 v44.0 decodes the error a SIG_ERR CQE left on a
 * signature mkey (rdma-core providers/mlx5/verbs.c, _mlx5dv_mkey_check and
 * mlx5_decode_sigerr). An error is reported once: a successful report clears
 * err_exists. The error counter stays as it is (the next UMR pushes it).
 *
 * v44.0 details kept: err_info_size is not looked at; with no error only
 * err_type is written; the stored domain byte is not masked (values >= 8 fail).
 */
#include <errno.h>

#include "mlx5_hw.h"
#include "provider.h"
#include "sim_mkey.h"

namespace mlx5sim {

namespace {

constexpr uint16_t kKnownSyndromes = MLX5_HW_SIGERR_REFTAG | MLX5_HW_SIGERR_APPTAG |
				     MLX5_HW_SIGERR_GUARD;

/** One error, first in ref tag, app tag, guard order of the syndrome bits. */
void decode(const SimSigError &e, const SimSigDomain &d, struct mlx5dv_mkey_err *out)
{
	struct mlx5dv_sig_err *s = &out->err.sig;

	s->offset = e.offset;
	if (e.syndrome & MLX5_HW_SIGERR_REFTAG) {
		out->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG;
		s->expected_value = e.expected & 0xffffffff;
		s->actual_value = e.actual & 0xffffffff;
	} else if (e.syndrome & MLX5_HW_SIGERR_APPTAG) {
		out->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG;
		s->expected_value = (e.expected >> 32) & 0xffff;
		s->actual_value = (e.actual >> 32) & 0xffff;
	} else {
		out->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
		if (d.sig_type == MLX5DV_SIG_TYPE_T10DIF) {
			s->expected_value = e.expected >> 48;
			s->actual_value = e.actual >> 48;
		} else if (d.crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10) {
			s->expected_value = e.expected;
			s->actual_value = e.actual;
		} else {
			s->expected_value = e.expected >> 32; /* CRC32 / CRC32C */
			s->actual_value = e.actual >> 32;
		}
	}
}

} // namespace

int sim_dv_mkey_check(struct mlx5dv_mkey *dv_mkey, struct mlx5dv_mkey_err *err_info,
		      size_t err_info_size)
{
	SimMkey *mkey = to_sim_mkey(dv_mkey);
	const SimSigDomain *domain;
	SimMkeySig *sig;

	(void)err_info_size; /* v44.0 ignores it */
	if (!mkey->has_sig)
		return EINVAL;
	sig = &mkey->sig;
	if (!sig->err_exists) {
		err_info->err_type = MLX5DV_MKEY_NO_ERR;
		return 0;
	}
	const SimSigError &e = sig->last_error;

	if (!(e.syndrome & kKnownSyndromes) || e.sig_type != MLX5_HW_SIGERR_SIG_TYPE_BLOCK)
		return EINVAL;
	if (e.domain == MLX5_HW_SIGERR_DOMAIN_WIRE)
		domain = &sig->wire;
	else if (e.domain == MLX5_HW_SIGERR_DOMAIN_MEMORY)
		domain = &sig->mem;
	else
		return EINVAL;
	if (!domain->present)
		return EINVAL; /* an error for a domain without a signature */
	decode(e, *domain, err_info);
	sig->err_exists = false;
	return 0;
}

} // namespace mlx5sim
