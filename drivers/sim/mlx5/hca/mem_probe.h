/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: probes of the process's own memory (mem_probe.cpp), for
 * registration checks and on-demand (ODP) accesses.
 */
#ifndef MLX5_SIM_MEM_PROBE_H
#define MLX5_SIM_MEM_PROBE_H

#include <stdint.h>

namespace mlx5sim {

namespace mem {
/**
 * reg_mr of a non-ODP MR: [addr, addr + len) is mapped readable (and writable if
 * @p write) in /proc/self/maps, and every page can be faulted in like pinning
 * does (never raising SIGBUS at access time).
 */
bool range_pinnable(uint64_t addr, uint64_t len, bool write);
/** Every page of [addr, addr + len) can be read now (no fault possible). */
bool range_readable(uint64_t addr, uint64_t len);
/** Every page of [addr, addr + len) can be written now. */
bool range_writable(uint64_t addr, uint64_t len);
/**
 * memmove() through the kernel (process_vm_readv/writev on the own process): a
 * page that is not mapped gives an error, never a signal. Returns 0, 1 (reading
 * the source failed) or 2 (writing the destination failed); the bytes before the
 * failing chunk are moved.
 */
int safe_move(uint8_t *dst, const uint8_t *src, uint64_t n);
} // namespace mem

} // namespace mlx5sim

#endif /* MLX5_SIM_MEM_PROBE_H */
