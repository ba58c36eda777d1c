/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the device mutex that guards every object of an instance
 * (or of a process fabric, whose hosts share one: fabric.h).
 */
#ifndef MLX5_SIM_DEV_MUTEX_H
#define MLX5_SIM_DEV_MUTEX_H

#include <stdint.h>

#include <atomic>
#include <mutex>
#include <sched.h>

namespace mlx5sim {

/**
 * The device mutex. Callers (control calls, inline doorbells, progress()) lock() it;
 * the engine thread takes it with lock_engine() between passes, which first lets
 * every caller that waits go: a plain mutex would let the engine re-take it right
 * after unlocking, and a caller woken from the futex would find it taken again.
 */
class DevMutex {
public:
	void lock()
	{
		waiting_.fetch_add(1, std::memory_order_relaxed);
		m_.lock();
		waiting_.fetch_sub(1, std::memory_order_relaxed);
	}
	bool try_lock() { return m_.try_lock(); }
	void unlock() { m_.unlock(); }
	/**
	 * The engine: lock once nobody else waits (a late arrival waits one pass). With
	 * several engine threads on the mutex, one that waits counts as a caller, so the
	 * others let it go first and cut their passes short for it (a plain mutex lets the
	 * thread that just unlocked win again and again).
	 */
	void lock_engine()
	{
		while (waiting_.load(std::memory_order_relaxed))
			sched_yield();
		if (several_.load(std::memory_order_relaxed))
			lock();
		else
			m_.lock();
	}
	/** More than one engine thread takes this mutex from now on. */
	void several_engines() { several_.store(true, std::memory_order_relaxed); }
	/** Somebody waits in lock() right now. */
	bool contended() const { return waiting_.load(std::memory_order_relaxed) != 0; }
	/** The mutex itself, for paths without an engine thread (inline doorbells). */
	std::mutex &raw() { return m_; }

private:
	std::mutex m_;
	std::atomic<uint32_t> waiting_{0};
	std::atomic<bool> several_{false};
};

/** A held DevMutex. */
using DevLock = std::lock_guard<DevMutex>;

} // namespace mlx5sim

#endif /* MLX5_SIM_DEV_MUTEX_H */
