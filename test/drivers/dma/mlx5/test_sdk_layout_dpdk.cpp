/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout as DPDK's own driver-SDK headers (.sdk/include) declare it (see sdk_layout.h). */
#include <bus_vdev_driver.h>
#include <rte_dmadev_pmd.h>

#include "sdk_layout.h"

SDK_LAYOUT_DEFINE(sdk_layout_dpdk)
