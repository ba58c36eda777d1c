/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the statistics the execution path counts (HcaStats). The
 * objects that count hold a reference; the device keeps them on the cache line
 * its engine writes (hca_impl.h), each engine thread has its own for its
 * unlocked passes (Engine).
 */
#ifndef MLX5_SIM_DEV_STATS_H
#define MLX5_SIM_DEV_STATS_H

#include <stdint.h>

#include <atomic>

namespace mlx5sim {

/**
 * A counter with one writer at a time, read on any thread. add() is a plain
 * load and store, not a locked add: a locked add is a full barrier, and the
 * engine's would wait for every copy store of its burst to reach the cache.
 */
class StatCounter {
public:
	/** Only the block's writer (see DevStats). */
	void add(uint64_t n)
	{
		v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
	}
	/** Any thread. */
	uint64_t get() const { return v_.load(std::memory_order_relaxed); }

private:
	std::atomic<uint64_t> v_{0};
};

/**
 * Counters written by the execution path. A block has one writer at a time: the
 * device's block (HcaImpl::st_) is written only under the device mutex, which no
 * unlocked pass overlaps (DevMutex); an engine thread's block (Engine) only by
 * its own unlocked passes. HcaImpl::stats() adds them up.
 */
struct DevStats {
	StatCounter wqes;      /**< SQ engine, per group */
	StatCounter cqes;      /**< CQ table, per CQE stored */
	StatCounter err_cqes;  /**< CQ table, per error CQE */
	StatCounter bytes;     /**< SQ engine per group, fabric per request */
	StatCounter fast_wqes; /**< WQEs the MMO fast path ran (tests) */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_DEV_STATS_H */
