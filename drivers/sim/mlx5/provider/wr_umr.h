/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UMR builders of the new post-send API (mkey configure, its setters and the old
 * mr_list / mr_interleaved registration calls), as libmlx5 v44.0 writes them
 * (rdma-core providers/mlx5/qp.c, mlx5_send_wr_mkey_configure and its setters).
 * wr_umr.cpp holds the builders, wr_umr_layout.cpp the translation
 * area writers.
 */
#ifndef MLX5_SIM_WR_UMR_H
#define MLX5_SIM_WR_UMR_H

#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider.h"

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

/** Fill the UMR entries of the mlx5dv table (every dv flag installs them, as v44.0). */
void sim_umr_install_builders(struct mlx5dv_qp_ex *dv);

} // namespace mlx5sim

#endif /* MLX5_SIM_WR_UMR_H */
