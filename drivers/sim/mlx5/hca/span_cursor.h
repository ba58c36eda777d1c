/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A position in a list of checked spans (plain or repeat block) and the moves
 * between them, shared by the repeat-block executor (xlat_exec.cpp) and the
 * signature engine (sig_exec.cpp). Internal to the device model.
 */
#ifndef MLX5_SIM_SPAN_CURSOR_H
#define MLX5_SIM_SPAN_CURSOR_H

#include <string.h>

#include "mem_probe.h"
#include "wqe_plan.h"

namespace mlx5sim {

/** A position in a list of spans (plain or repeat block). */
struct Cursor {
	const Span *s;
	uint32_t n;
	uint32_t i;
	uint64_t off; /**< bytes consumed of span i */
};

inline bool is_pattern(const Span &s)
{
	return s.len & HCA_SPAN_PATTERN;
}

inline uint64_t span_len(const Span &s)
{
	return s.len & ~(HCA_SPAN_PATTERN | HCA_SPAN_SIG);
}

inline const Pattern *pattern_of(const Span &s)
{
	return reinterpret_cast<const Pattern *>(s.p);
}

/** The contiguous bytes at the cursor: their address and *avail, how many. */
inline uint8_t *piece(const Cursor &c, uint64_t *avail)
{
	const Span &s = c.s[c.i];
	uint64_t left = span_len(s) - c.off;
	if (!is_pattern(s)) {
		*avail = left;
		return s.p + c.off;
	}
	const Pattern *pt = pattern_of(s);
	uint64_t pos = pt->start + c.off;
	uint64_t rep = pos / pt->rep_bytes, in = pos % pt->rep_bytes;
	for (uint32_t e = 0; e < pt->nent; e++) {
		const PatEnt &pe = pt->ent[e];
		if (in < pe.bc) {
			uint64_t n = pe.bc - in;
			*avail = n < left ? n : left;
			return pe.p + rep * pe.stride + in;
		}
		in -= pe.bc;
	}
	*avail = 0; /* not reached: rep_bytes is the sum of the entries' bytes */
	return nullptr;
}

inline void advance(Cursor *c, uint64_t n)
{
	c->off += n;
	if (c->off == span_len(c->s[c->i])) {
		c->i++;
		c->off = 0;
	}
}

/** memmove, or through the kernel for on-demand memory; 0 or the side that faulted. */
inline int move(uint8_t *dst, const uint8_t *src, uint64_t n, bool safe)
{
	if (dst == src)
		return 0; /* a copy onto itself changes nothing: no page is touched for it */
	if (!safe) {
		memmove(dst, src, n);
		return 0;
	}
	return mem::safe_move(dst, src, n);
}

/** Move @p n bytes piece by piece. */
inline int copy_pieces(Cursor *s, Cursor *d, uint64_t n, bool safe)
{
	while (n && s->i < s->n && d->i < d->n) {
		uint64_t sa, da;
		const uint8_t *sp = piece(*s, &sa);
		uint8_t *dp = piece(*d, &da);
		uint64_t k = sa < da ? sa : da;
		if (n < k)
			k = n;
		if (k == 0)
			return 1;
		if (int side = move(dp, sp, k, safe))
			return side;
		advance(s, k);
		advance(d, k);
		n -= k;
	}
	return 0;
}

/** A cursor at byte @p off of spans @p s[0..n). */
inline Cursor cursor_at(const Span *s, uint32_t n, uint64_t off)
{
	Cursor c = {s, n, 0, 0};
	while (c.i < n && off >= span_len(s[c.i]))
		off -= span_len(s[c.i++]);
	c.off = off;
	return c;
}

} // namespace mlx5sim

#endif /* MLX5_SIM_SPAN_CURSOR_H */
