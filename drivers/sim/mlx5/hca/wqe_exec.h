/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: moving the data of a checked plan. Runs
 * on plans only (everything was checked and resolved at plan time), so it needs
 * no device state: exec_plan() inline for the one-span case every MMO takes,
 * exec_general() (wqe_exec.cpp) for the rest, which hands special plans to
 * exec_special() (wqe_special.h).
 */
#ifndef MLX5_SIM_WQE_EXEC_H
#define MLX5_SIM_WQE_EXEC_H

#include <stdint.h>
#include <string.h>

#include "wqe_plan.h"

namespace mlx5sim {

/* ThreadSanitizer instruments each 16-byte access of the loop (4x slower than its
 * memmove interceptor's one range): the TSan build takes memmove. ASan keeps the
 * loop, every access bounds-checked. */
#if defined(__SANITIZE_THREAD__)
#define MLX5_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MLX5_SIM_TSAN 1
#endif
#endif

/**
 * memmove() of pinned memory, at the rate of a plain vector copy loop for disjoint
 * spans of 256 bytes or more: glibc's memmove takes ``rep movsb`` from 2 KiB up, which
 * moves about 5 % fewer bytes per cycle than 16-byte loads and stores on the CPUs this
 * runs on, and below that its call and size dispatch cost the engine about a tenth of
 * its 1 KiB rate (doc/guides/sim/software_hca.rst, Performance). Overlapping spans and
 * everything shorter keep memmove.
 */
static inline void move_pinned(uint8_t *d, const uint8_t *s, uint64_t n)
{
#if defined(__SSE2__) && !defined(MLX5_SIM_TSAN)
	uintptr_t da = (uintptr_t)d, sa = (uintptr_t)s;
	if (n >= 256 && (da + n <= sa || sa + n <= da)) {
		typedef uint64_t v2 __attribute__((vector_size(16), aligned(1)));
		const uint8_t *end = s + n;
		/* 128 bytes a step; the last step ends at the end (it may copy bytes twice:
		 * disjoint spans, so the same bytes) */
		for (;;) {
			if ((uint64_t)(end - s) < 128) {
				d -= 128 - (end - s);
				s = end - 128;
			}
			v2 a0, a1, a2, a3, a4, a5, a6, a7;
			memcpy(&a0, s, 16);
			memcpy(&a1, s + 16, 16);
			memcpy(&a2, s + 32, 16);
			memcpy(&a3, s + 48, 16);
			memcpy(&a4, s + 64, 16);
			memcpy(&a5, s + 80, 16);
			memcpy(&a6, s + 96, 16);
			memcpy(&a7, s + 112, 16);
			memcpy(d, &a0, 16);
			memcpy(d + 16, &a1, 16);
			memcpy(d + 32, &a2, 16);
			memcpy(d + 48, &a3, 16);
			memcpy(d + 64, &a4, 16);
			memcpy(d + 80, &a5, 16);
			memcpy(d + 96, &a6, 16);
			memcpy(d + 112, &a7, 16);
			s += 128;
			d += 128;
			if (s == end)
				return;
		}
	}
#endif
	memmove(d, s, n);
}

/**
 * The move of a checked WQE: one span to one span of the same length, pinned
 * memory. The usual 64-byte copy is inlined (the compiler loads all 64 bytes before
 * storing any, so it is a memmove); anything else is one move_pinned() of the whole span.
 */
static inline void move_span(uint8_t *d, const uint8_t *s, uint64_t n)
{
	/* a copy onto itself changes nothing: no page is touched for it */
	if (__builtin_expect(d == s, 0))
		return;
	if (n == 64) {
		typedef uint64_t u64x2 __attribute__((vector_size(16)));
		u64x2 a, b, c, e;
		memcpy(&a, s, 16);
		memcpy(&b, s + 16, 16);
		memcpy(&c, s + 32, 16);
		memcpy(&e, s + 48, 16);
		memcpy(d, &a, 16);
		memcpy(d + 16, &b, 16);
		memcpy(d + 32, &c, 16);
		memcpy(d + 48, &e, 16);
	} else {
		move_pinned(d, s, n);
	}
}

/** exec_plan() of atomics, gather/scatter lists and on-demand spans (wqe_exec.cpp). */
uint64_t exec_general(Plan *pl);

/** Move the data of a plan; returns the bytes moved (for statistics). */
static inline uint64_t exec_plan(Plan *pl)
{
	/* MMO and most other WQEs: one span to one span, a single memmove */
	if (pl->nsrc == 1 && pl->ndst == 1 && !pl->atomic && !pl->safe) {
		uint64_t n = pl->total;
		if (pl->src[0].len < n)
			n = pl->src[0].len;
		if (pl->dst[0].len < n)
			n = pl->dst[0].len;
		/* a copy onto itself changes nothing: no page is touched for it */
		if (n && pl->dst[0].p != pl->src[0].p)
			move_pinned(pl->dst[0].p, pl->src[0].p, n);
		return pl->total;
	}
	return exec_general(pl);
}

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_EXEC_H */
