/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * How the model starts its threads (engines, fabric listener, doorbell watcher,
 * rdma-cm broker): start_thread() returns only once the new thread says it is set
 * up. A new thread allocates while it starts (the C++ runtime's and the sanitizers'
 * thread set-up). Where the allocator does not take its locks around fork(), as
 * GCC 12's AddressSanitizer does not, a fork() right after the start could give the
 * child an allocator lock that no thread of the child holds, and every thread the
 * child started would wait on it for ever. glibc's malloc is fork-safe; this is for
 * the sanitizer builds, at the cost of one wake-up per thread start.
 */
#ifndef MLX5_SIM_THREAD_UP_H
#define MLX5_SIM_THREAD_UP_H

#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

namespace mlx5sim {

/** Handed to a thread's body, which calls up() once, when it is set up. */
class ThreadUp {
public:
	/** The thread is set up: start_thread() may return. Once only. */
	void up()
	{
		std::lock_guard<std::mutex> g(mu_);
		up_ = true;
		cv_.notify_all();
	}

private:
	template <class F>
	friend std::thread start_thread(F body);
	std::mutex mu_;
	std::condition_variable cv_;
	bool up_ = false;
};

/**
 * Run body(ThreadUp &) on a new thread; return it once body called up(). Throws
 * what std::thread throws. The ThreadUp lives on this frame: body must not touch
 * it after up().
 */
template <class F>
std::thread start_thread(F body)
{
	ThreadUp u;
	std::thread t([&u, body]() mutable { body(u); });
	std::unique_lock<std::mutex> g(u.mu_);
	u.cv_.wait(g, [&u] { return u.up_; });
	return t;
}

} // namespace mlx5sim

#endif /* MLX5_SIM_THREAD_UP_H */
