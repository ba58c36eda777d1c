/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The contract between the seam and the rdma-core glue library.
 *
 * The glue library (librte_dma_mlx5_glue.so.<rdma-core major>) is the only
 * binary of the project linked against libibverbs and libmlx5. It exports one
 * symbol, MLX5_GLUE_LIB_SYMBOL, a struct mlx5_glue_lib whose first member is
 * the version string it was built with. The seam dlopen()s the library on first
 * use of the rdma-core backend, reads that one symbol and refuses the table
 * unless the version equals its own MLX5_GLUE_VERSION.
 */
#ifndef MLX5_GLUE_LIB_H
#define MLX5_GLUE_LIB_H

#include <stddef.h>

#include "mlx5_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Major release of the rdma-core headers the project is built with (meson passes it). */
#ifndef MLX5_GLUE_RDMA_CORE_MAJOR
#define MLX5_GLUE_RDMA_CORE_MAJOR 44
#endif

#define MLX5_GLUE_STR_(x) #x
#define MLX5_GLUE_STR(x) MLX5_GLUE_STR_(x)

/**
 * "<rdma-core major>.<table layout>": the glue library and the seam must agree
 * on both, as the table holds rdma-core structures by pointer and its own
 * layout is MLX5_GLUE_LAYOUT_VERSION.
 */
#define MLX5_GLUE_VERSION \
	MLX5_GLUE_STR(MLX5_GLUE_RDMA_CORE_MAJOR) "." MLX5_GLUE_STR(MLX5_GLUE_LAYOUT_VERSION)

/** Name of the glue library the seam loads (its soname). */
#define MLX5_GLUE_LIB_SONAME "librte_dma_mlx5_glue.so." MLX5_GLUE_STR(MLX5_GLUE_RDMA_CORE_MAJOR)

/** The one symbol the glue library exports. */
#define MLX5_GLUE_LIB_SYMBOL "mlx5_glue_rdma_core_lib"

/**
 * Environment variable: directories (':'-separated) searched for the glue library
 * before any other place.
 */
#define MLX5_GLUE_ENV_PATH "MLX5_GLUE_PATH"

/** What MLX5_GLUE_LIB_SYMBOL names. */
struct mlx5_glue_lib {
	const char *version; /**< MLX5_GLUE_VERSION of the library's build; first, always */
	size_t glue_size;    /**< sizeof(struct mlx5_glue) of the library's build */
	const struct mlx5_glue *glue; /**< the rdma-core table: every mandatory entry set */
};

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_LIB_H */
