/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the statistics the execution path counts (HcaStats). The
 * objects that count hold a reference; the device keeps them on the cache line
 * its engine writes (hca_impl.h).
 */
#ifndef MLX5_SIM_DEV_STATS_H
#define MLX5_SIM_DEV_STATS_H

#include <stdint.h>

#include <atomic>

namespace mlx5sim {

/**
 * Counters written by the engine (thread mode) or the doorbell caller (inline).
 * Relaxed: stats() may read them on any thread.
 */
struct DevStats {
	std::atomic<uint64_t> wqes{0};     /**< SQ engine, per group */
	std::atomic<uint64_t> cqes{0};     /**< CQ table, per CQE stored */
	std::atomic<uint64_t> err_cqes{0}; /**< CQ table, per error CQE */
	std::atomic<uint64_t> bytes{0};    /**< SQ engine per group, fabric per request */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_DEV_STATS_H */
