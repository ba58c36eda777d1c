/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The provider's indirect mkey (libmlx5's mlx5_mkey): the public mlx5dv_mkey
 * plus what the UMR builders read and update (descriptor count, recorded layout
 * length) and the signature context a BLOCK_SIGNATURE mkey carries (rdma-core
 * providers/mlx5/verbs.c, _mlx5dv_create_mkey; providers/mlx5/mlx5.h, enum
 * mlx5_mkey_bsf_state; test/vectors/FORMAT.md §4).
 *
 * The signature context is set up by sim_mkey_sig_create(), configured by the UMR
 * builders (wr_umr_sig.cpp), updated by SIG_ERR CQEs (cq_poll.h) and read by
 * mlx5dv_mkey_check (mkey_check.cpp).
 */
#ifndef MLX5_SIM_MKEY_H
#define MLX5_SIM_MKEY_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

namespace mlx5sim {

/** libmlx5's mlx5_mkey_bsf_state (values as in v44). */
enum class SigState : uint8_t {
	INIT = 0,    /**< no signature in force */
	RESET = 1,   /**< attributes cleared by RESET_SIG_ATTR */
	SET = 2,     /**< attributes in force from an earlier UMR */
	UPDATED = 3, /**< attributes changed by the setter / written by the last UMR */
};

/** Stored attributes of one signature domain (FORMAT.md §5.3 encoding). */
struct SimSigDomain {
	bool present;        /**< false = no signature in this domain */
	uint32_t sig_type;   /**< MLX5DV_SIG_TYPE_* */
	uint32_t block_size; /**< MLX5DV_BLOCK_SIZE_* */
	uint64_t comp_mask;
	struct mlx5dv_sig_t10dif t10dif;
	struct mlx5dv_sig_crc crc;
};

/** Last signature error reported by a SIG_ERR CQE, for mlx5dv_mkey_check. */
struct SimSigError {
	uint16_t syndrome;
	uint64_t expected;
	uint64_t actual;
	uint64_t offset;
	uint8_t sig_type;
	uint8_t domain;
};

/** Signature context of a BLOCK_SIGNATURE mkey (libmlx5's mlx5_sig_ctx). */
struct SimMkeySig {
	uint32_t mem_psv_index; /**< 24-bit PSV numbers */
	uint32_t wire_psv_index;
	SigState state;
	uint32_t err_count;
	bool err_count_updated; /**< to be pushed by the next UMR (true when fresh) */
	bool err_exists;        /**< an unreported error is pending */
	SimSigDomain mem;
	SimSigDomain wire;
	uint32_t flags; /**< MLX5DV_SIG_BLOCK_ATTR_FLAG_* */
	uint8_t check_mask;
	uint8_t copy_mask;
	bool has_last_error;
	SimSigError last_error;
};

/** An indirect mkey. dv first: the public handle is the object. */
struct SimMkey {
	struct mlx5dv_mkey dv; /**< lkey == rkey; low byte = tag */
	uint16_t num_desc;     /**< translation entries (multiple of 4) */
	uint64_t length;       /**< layout length the last layout setter recorded */
	uint32_t create_flags; /**< MLX5DV_MKEY_INIT_ATTR_FLAGS_* */
	uint32_t pdn;
	struct ibv_pd *pd; /**< the PD it was created on (its context destroys it) */
	bool has_sig;      /**< created with BLOCK_SIGNATURE: sig is valid */
	SimMkeySig sig;
};

static inline SimMkey *to_sim_mkey(struct mlx5dv_mkey *mkey)
{
	return reinterpret_cast<SimMkey *>(mkey);
}

static_assert(offsetof(SimMkey, dv) == 0, "mlx5dv_mkey must be first");

} // namespace mlx5sim

#endif /* MLX5_SIM_MKEY_H */
