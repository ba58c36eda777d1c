/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, signature engine: PSV entries (psv_table.cpp, sig_bsf.cpp).
 */
#ifndef MLX5_SIM_PSV_TABLE_H
#define MLX5_SIM_PSV_TABLE_H

#include <stdint.h>

namespace mlx5sim {

/** A signature PSV: the signature state of one domain, set by SET_PSV WQEs. */
struct PsvEntry {
	bool used;
	uint32_t pdn;
	uint64_t transient_signature; /**< last SET_PSV value */
	bool error;                   /**< in error after a signature error, until re-armed */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_PSV_TABLE_H */
