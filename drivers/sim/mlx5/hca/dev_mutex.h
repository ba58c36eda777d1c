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
#include <new>
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
		exclude();
	}
	bool try_lock()
	{
		if (!m_.try_lock())
			return false;
		exclude();
		return true;
	}
	void unlock()
	{
		/* the holder's writes before it, for the next unlocked pass (enter_unlocked) */
		if (excl_.load(std::memory_order_relaxed))
			excl_.store(false, std::memory_order_release);
		m_.unlock();
	}
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
	/**
	 * Engine threads may run unlocked passes on this mutex from now on (set before
	 * they start; only for a mutex of one device: HcaImpl::start()).
	 */
	void allow_unlocked() { unlocked_.store(true, std::memory_order_seq_cst); }
	/** Somebody waits in lock() right now. */
	bool contended() const { return waiting_.load(std::memory_order_relaxed) != 0; }
	/**
	 * The mutex itself, for paths without an engine thread (inline doorbells): a
	 * device with no engine thread never has unlocked passes on its mutex (a fabric's
	 * shared mutex never has any), so there is nothing to exclude.
	 */
	std::mutex &raw() { return m_; }

	/**
	 * Unlocked passes (engine.cpp, HcaImpl::fast_pass()): an engine thread may run the
	 * MMO fast path of its own QPs without the mutex while nobody holds it. Each holder
	 * first raises excl_ and waits until no unlocked pass is left (they wait for
	 * nothing, so this ends), and a pass starts only while excl_ is down: everything
	 * the holder changes (MR table, QP states, the QP list, CQ arming) is never seen
	 * half done by a pass, and nothing a pass did is in flight once the holder runs.
	 * A Dekker pair: the pass's increment and the holder's flag, then each reads the
	 * other's word (all seq_cst).
	 * @return false: a holder is in; run the locked pass instead.
	 */
	bool enter_unlocked()
	{
		uint32_t others = active_.fetch_add(1, std::memory_order_seq_cst);
		if (__builtin_expect(!excl_.load(std::memory_order_seq_cst), 1)) {
			if (others)
				overlaps_.fetch_add(1, std::memory_order_relaxed);
			return true;
		}
		active_.fetch_sub(1, std::memory_order_seq_cst);
		return false;
	}
	/** The end of an unlocked pass (its writes before a holder's next look). */
	void leave_unlocked() { active_.fetch_sub(1, std::memory_order_seq_cst); }
	/** Unlocked passes that began while another one ran (tests: they overlap). */
	uint64_t overlaps() const { return overlaps_.load(std::memory_order_relaxed); }
	/**
	 * In a fork() child, the only thread there: free, with no waiter and no
	 * unlocked pass, whatever the parent's threads (not in the child) were doing.
	 */
	void after_fork()
	{
		new (&m_) std::mutex;
		waiting_.store(0, std::memory_order_relaxed);
		excl_.store(false, std::memory_order_relaxed);
		active_.store(0, std::memory_order_relaxed);
	}

private:
	/** The holder (m_ taken): no unlocked pass from now on, none still running. */
	__attribute__((noinline)) void exclude_wait()
	{
		excl_.store(true, std::memory_order_seq_cst);
		for (unsigned i = 1; active_.load(std::memory_order_seq_cst); i++) {
			if (i % 64)
				cpu_pause();
			else
				sched_yield(); /* the pass's CPU may be this one */
		}
	}
	void exclude()
	{
		if (unlocked_.load(std::memory_order_relaxed))
			exclude_wait();
	}
	static void cpu_pause()
	{
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}

	std::mutex m_;
	std::atomic<uint32_t> waiting_{0};
	std::atomic<bool> several_{false};
	std::atomic<bool> unlocked_{false}; /**< allow_unlocked() */
	std::atomic<bool> excl_{false};     /**< the holder excludes unlocked passes */
	std::atomic<uint32_t> active_{0};   /**< unlocked passes running */
	std::atomic<uint64_t> overlaps_{0}; /**< overlaps() */
};

/** A held DevMutex. */
using DevLock = std::lock_guard<DevMutex>;

} // namespace mlx5sim

#endif /* MLX5_SIM_DEV_MUTEX_H */
