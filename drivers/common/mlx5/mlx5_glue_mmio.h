/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Barriers and the 64-bit MMIO store of the hardware SQ doorbell.
 *
 * Ordering needed by an mlx5 doorbell: the WQE and the doorbell record live in
 * ordinary (write-back) memory, the BlueFlame register is write-combining MMIO.
 * Before the register store every earlier store must be visible to the device
 * (the HCA fetches WQEs up to the doorbell record's producer counter); after
 * it the write-combining buffer must be flushed so the store leaves the CPU now
 * instead of lingering until the buffer fills.
 */
#ifndef MLX5_GLUE_MMIO_H
#define MLX5_GLUE_MMIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Order all earlier stores to memory before a following store to WC MMIO. */
static inline void mlx5_glue_wc_start(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* WC stores are weakly ordered: fence the WB stores before them */
	__asm__ volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
	/* stores to outer-shareable memory before the device store */
	__asm__ volatile("dmb oshst" ::: "memory");
#elif defined(__powerpc64__)
	__asm__ volatile("sync" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/** Push pending write-combining stores out to the device. */
static inline void mlx5_glue_wc_flush(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
	/* dsb, not dmb: the store must complete, not merely be ordered */
	__asm__ volatile("dsb st" ::: "memory");
#elif defined(__powerpc64__)
	__asm__ volatile("sync" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/** One 64-bit store of @p val (bytes as in memory, no swap) to @p reg. */
static inline void mlx5_glue_mmio_write64(void *reg, uint64_t val)
{
	/* an atomic store: one 8-byte write even where a plain one might split */
	__atomic_store_n((volatile uint64_t *)reg, val, __ATOMIC_RELAXED);
}

/**
 * The SQ doorbell of hardware: make the WQE and the doorbell record (written by the
 * caller) visible, store the first 8 bytes of the last WQE's ctrl segment to the
 * BlueFlame register @p bf_reg in one write, flush write-combining. No register:
 * nothing to do.
 */
static inline void mlx5_glue_bf_doorbell(void *bf_reg, uint64_t ctrl8)
{
	if (bf_reg == NULL)
		return;
	mlx5_glue_wc_start();
	mlx5_glue_mmio_write64(bf_reg, ctrl8);
	mlx5_glue_wc_flush();
}

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_MMIO_H */
