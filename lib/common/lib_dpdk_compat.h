/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What differs for the offload libraries between the DPDK releases the project builds
 * against (22.11, 24.11, 25.11; README "DPDK releases"), in one place.
 */
#ifndef LIB_DPDK_COMPAT_H
#define LIB_DPDK_COMPAT_H

#include <stdint.h>

#include <rte_telemetry.h>
#include <rte_version.h>

/* A 64-bit counter into a telemetry dict: 23.03 renamed the call (_u64 to _uint) and
 * 25.11 removed the old name. */
static inline int lib_tel_dict_u64(struct rte_tel_data *d, const char *name, uint64_t val)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_dict_uint(d, name, val);
#else
	return rte_tel_data_add_dict_u64(d, name, val);
#endif
}

#endif /* LIB_DPDK_COMPAT_H */
