/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software HCA options: the one parser of the sim_* options (devargs of dma_mlx5,
 * MLX5_SIM_RDMA_DEVARGS of the kernel side) and the one check that turns a
 * mlx5_sim_device_attr into the device's capabilities. Shared by the seam's
 * backend (sim_backend.cpp, sim_registry.cpp) and the kernel side (../kernel).
 */
#ifndef MLX5_SIM_OPTIONS_H
#define MLX5_SIM_OPTIONS_H

#include <stddef.h>

#include "hca.h"
#include "mlx5_sim.h"

namespace mlx5sim {

/** @p s (a buffer of @p cap bytes) is a valid fabric name: [A-Za-z0-9_.-]*, terminated. */
bool sim_fabric_name_ok(const char *s, size_t cap);

/**
 * Defaults (mlx5_sim_device_attr_init), then the options @p opts (sim_exec,
 * sim_core, sim_fabric, sim_fabric_uids) into @p attr. 0, or -EINVAL with the
 * reason in @p why.
 */
int sim_parse_options(const struct mlx5_glue_option *opts, unsigned int n_opts,
		      struct mlx5_sim_device_attr *attr, char *why, size_t why_len);

/** Validate @p a and convert it; false on any out-of-range field. */
bool sim_attr_to_caps(const struct mlx5_sim_device_attr &a, HcaCaps *caps, ExecMode *mode);

} // namespace mlx5sim

#endif /* MLX5_SIM_OPTIONS_H */
