/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver-interface layout drivers/dma/mlx5/mlx5_dma_sdk.h declares, as a list of
 * (struct, member) whose offsets test_pmd_sdk_layout compares between our declarations
 * and DPDK's own driver-SDK headers (where devtools/setup.sh fetched them: 22.11).
 */
#ifndef SDK_LAYOUT_H
#define SDK_LAYOUT_H

#include <stddef.h>

#define SDK_LAYOUT_FIELDS(X)              \
	X(rte_driver, name)               \
	X(rte_driver, alias)              \
	X(rte_device, name)               \
	X(rte_device, bus_info)           \
	X(rte_device, driver)             \
	X(rte_device, bus)                \
	X(rte_device, numa_node)          \
	X(rte_device, devargs)            \
	X(rte_vdev_device, device)        \
	X(rte_vdev_driver, driver)        \
	X(rte_vdev_driver, probe)         \
	X(rte_vdev_driver, remove)        \
	X(rte_vdev_driver, dma_map)       \
	X(rte_vdev_driver, dma_unmap)     \
	X(rte_vdev_driver, drv_flags)     \
	X(rte_dma_dev_ops, dev_info_get)  \
	X(rte_dma_dev_ops, dev_configure) \
	X(rte_dma_dev_ops, dev_start)     \
	X(rte_dma_dev_ops, dev_stop)      \
	X(rte_dma_dev_ops, dev_close)     \
	X(rte_dma_dev_ops, vchan_setup)   \
	X(rte_dma_dev_ops, stats_get)     \
	X(rte_dma_dev_ops, stats_reset)   \
	X(rte_dma_dev_ops, vchan_status)  \
	X(rte_dma_dev_ops, dev_dump)      \
	X(rte_dma_dev_data, dev_name)     \
	X(rte_dma_dev_data, dev_id)       \
	X(rte_dma_dev_data, numa_node)    \
	X(rte_dma_dev_data, dev_private)  \
	X(rte_dma_dev_data, dev_conf)     \
	X(rte_dma_dev_data, reserved)     \
	X(rte_dma_dev, device)            \
	X(rte_dma_dev, data)              \
	X(rte_dma_dev, fp_obj)            \
	X(rte_dma_dev, dev_ops)           \
	X(rte_dma_dev, state)             \
	X(rte_dma_dev, reserved)

#define SDK_LAYOUT_STRUCTS(X) \
	X(rte_driver)         \
	X(rte_device)         \
	X(rte_vdev_device)    \
	X(rte_vdev_driver)    \
	X(rte_dma_dev_ops)    \
	X(rte_dma_dev_data)   \
	X(rte_dma_dev)

struct sdk_layout_entry {
	const char *what;
	size_t value;
};

/* fill @p out (room for @p n) with every offset, then every size and alignment */
size_t sdk_layout_ours(struct sdk_layout_entry *out, size_t n);
size_t sdk_layout_dpdk(struct sdk_layout_entry *out, size_t n);

#define SDK_LAYOUT_DEFINE(fn)                             \
	size_t fn(struct sdk_layout_entry *out, size_t n) \
	{                                                 \
		size_t i = 0;                             \
		SDK_LAYOUT_FIELDS(SDK_LAYOUT_OFF)         \
		SDK_LAYOUT_STRUCTS(SDK_LAYOUT_SIZE)       \
		return i;                                 \
	}
#define SDK_LAYOUT_OFF(s, m) \
	if (i < n)           \
		out[i++] = {#s "." #m, offsetof(struct s, m)};
#define SDK_LAYOUT_SIZE(s)                                     \
	if (i + 1 < n) {                                       \
		out[i++] = {"sizeof " #s, sizeof(struct s)};   \
		out[i++] = {"alignof " #s, alignof(struct s)}; \
	}

#endif /* SDK_LAYOUT_H */
