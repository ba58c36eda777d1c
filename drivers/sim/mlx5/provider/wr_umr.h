/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UMR builders of the new post-send API (mkey configure, its setters and the old
 * mr_list / mr_interleaved registration calls), as libmlx5 v44.0 writes them
 * (rdma-core providers/mlx5/qp.c, mlx5_send_wr_mkey_configure and its setters).
 * wr_umr.cpp holds the builders, wr_umr_layout.cpp the translation
 * area writers, wr_umr_sig.cpp the signature setter, BSF and SET_PSV WQEs.
 */
#ifndef MLX5_SIM_WR_UMR_H
#define MLX5_SIM_WR_UMR_H

#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider.h"
#include "sim_mkey.h"
#include "wr_segments.h"

namespace mlx5sim {

/** What a layout writer produced. */
struct UmrLayout {
	uint32_t wqe_bytes;  /**< translation area in the WQE (64-byte multiple) */
	uint32_t xlat_bytes; /**< meaningful bytes (klm_octowords = align64(this)/16) */
	uint64_t length;     /**< mkey length (v44.0 arithmetic) */
};

/**
 * KLM list at @p seg (wrapping at qend): one entry per SGE, zero entries up to a
 * 64-byte multiple. The length is summed in a signed 32-bit int, as v44.0 does.
 */
UmrLayout umr_write_klm_list(SimQp *qp, uint8_t *seg, uint16_t num_sges, const struct ibv_sge *sge);

/**
 * Repeat block at @p seg (wrapping at qend): header, one entry per element with
 * 16-bit byte_count/stride (truncating), zero entries up to a 64-byte multiple.
 */
UmrLayout umr_write_repeat_block(SimQp *qp, uint8_t *seg, uint32_t repeat_count,
				 uint16_t num_interleaved,
				 const struct mlx5dv_mr_interleaved *data);

/** The UMR ctrl segment of the open UMR (same WQEBB as its ctrl segment). */
static inline struct mlx5_wqe_umr_ctrl_seg *umr_ctrl(SimQp *qp)
{
	return reinterpret_cast<struct mlx5_wqe_umr_ctrl_seg *>(
		reinterpret_cast<uint8_t *>(qp->wr.cur_ctrl) + sizeof(struct mlx5_wqe_ctrl_seg));
}

/** The mkey context follows the UMR ctrl segment, possibly in slot 0. */
static inline struct mlx5_wqe_mkey_context_seg *umr_mkey_ctx(SimQp *qp)
{
	return reinterpret_cast<struct mlx5_wqe_mkey_context_seg *>(
		wr_wrap(qp, reinterpret_cast<uint8_t *>(umr_ctrl(qp)) +
				    sizeof(struct mlx5_wqe_umr_ctrl_seg)));
}

/** Count the open UMR and post it (libmlx5's umr_finalize_common). */
void umr_finalize_common(SimQp *qp);

/** One more setter done; finalise when it was the last one announced. */
void umr_setter_done(SimQp *qp);

/**
 * Finalise a UMR on a BLOCK_SIGNATURE mkey (wr_umr_sig.cpp): error counter, BSF
 * or BSF disable, SET_PSV WQEs, suppressed UMR completion (libmlx5's
 * umr_wqe_finalize).
 */
void umr_sig_finalize(SimQp *qp, SimMkey *mkey);

/** mlx5dv_wr_set_mkey_sig_block (wr_umr_sig.cpp). */
void sim_wr_set_mkey_sig_block(struct mlx5dv_qp_ex *dv, const struct mlx5dv_sig_block_attr *attr);

/** Fill the UMR entries of the mlx5dv table (every dv flag installs them, as v44.0). */
void sim_umr_install_builders(struct mlx5dv_qp_ex *dv);

} // namespace mlx5sim

#endif /* MLX5_SIM_WR_UMR_H */
