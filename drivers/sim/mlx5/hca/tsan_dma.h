/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The device's memory accesses as ThreadSanitizer sees DMA: not at all. Hardware
 * orders its writes of application memory before the CQE, and the application's
 * poll orders its reads after it; when that poll is code TSan does not see
 * (Debian's libmlx5 under the kernel side, HcaCaps::dma_opaque), TSan would report
 * every completed copy as a race. A DmaScope makes the thread's memory accesses
 * invisible to TSan while it lives; locks and atomics stay tracked, so the model's
 * own state is still ordered by them. No-op outside TSan builds.
 */
#ifndef MLX5_SIM_TSAN_DMA_H
#define MLX5_SIM_TSAN_DMA_H

#include "wqe_exec.h" /* MLX5_SIM_TSAN */

#ifdef MLX5_SIM_TSAN
extern "C" void __tsan_ignore_thread_begin(void);
extern "C" void __tsan_ignore_thread_end(void);
#endif

namespace mlx5sim {

/** Hide this thread's memory accesses from TSan while it lives, if @p on. */
class DmaScope {
public:
	explicit DmaScope(bool on) : on_(on)
	{
#ifdef MLX5_SIM_TSAN
		if (on_)
			__tsan_ignore_thread_begin();
#endif
	}
	~DmaScope()
	{
#ifdef MLX5_SIM_TSAN
		if (on_)
			__tsan_ignore_thread_end();
#endif
	}
	DmaScope(const DmaScope &) = delete;
	DmaScope &operator=(const DmaScope &) = delete;

private:
	[[maybe_unused]] bool on_; /* read only in TSan builds */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_TSAN_DMA_H */
