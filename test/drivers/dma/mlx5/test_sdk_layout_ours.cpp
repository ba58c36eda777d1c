/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout as drivers/dma/mlx5/mlx5_dma_sdk.h declares it (see sdk_layout.h). */
#include "mlx5_dma_sdk.h"
#include "sdk_layout.h"

SDK_LAYOUT_DEFINE(sdk_layout_ours)
