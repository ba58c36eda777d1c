/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Execution of plans that need more than plain spans (HCA_NSRC_SPECIAL): a UMR
 * updates its mkey; data through repeat blocks streams piece by piece from the
 * Pattern snapshots the planner checked; SEND_INVAL frees its mkey after the
 * data. A fill (a repeat block whose strides are all 0, i.e. the same bytes in
 * every repetition) into contiguous memory writes one repetition and then doubles
 * what is written, so a 64 KiB fill from an 8-byte pattern costs a few memcpys.
 */
#include <string.h>

#include "hca_impl.h"

namespace mlx5sim {

namespace {

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
	return s.len & ~HCA_SPAN_PATTERN;
}

inline const Pattern *pattern_of(const Span &s)
{
	return reinterpret_cast<const Pattern *>(s.p);
}

/** The contiguous bytes at the cursor: their address and *avail, how many. */
uint8_t *piece(const Cursor &c, uint64_t *avail)
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

void advance(Cursor *c, uint64_t n)
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
int copy_pieces(Cursor *s, Cursor *d, uint64_t n, bool safe)
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

/**
 * The source is a periodic repeat block and the destination plain memory: write
 * one period, then double. Returns -1 when it does not apply (too short).
 */
int fill(Cursor *s, Cursor *d, uint64_t *total, bool safe)
{
	const Span &ss = s->s[s->i], &ds = d->s[d->i];
	uint64_t p = pattern_of(ss)->rep_bytes;
	uint64_t m = span_len(ss) - s->off;
	if (span_len(ds) - d->off < m)
		m = span_len(ds) - d->off;
	if (*total < m)
		m = *total;
	if (m < 2 * p)
		return -1;
	uint8_t *base = ds.p + d->off;
	if (int side = copy_pieces(s, d, p, safe))
		return side;
	/* base[k] == base[k % p]: copying a multiple of p keeps it so */
	for (uint64_t w = p; w < m;) {
		uint64_t c = w < m - w ? w : m - w;
		if (move(base + w, base, c, safe))
			return 2;
		w += c;
	}
	s->off += m - p; /* the pattern span has at least m - p bytes left */
	advance(s, 0);
	d->off += m - p;
	advance(d, 0);
	*total -= m;
	return 0;
}

} // namespace

uint64_t HcaImpl::exec_special(Plan *pl)
{
	if (pl->xflags & XF_UMR) {
		apply_umr(pl);
		return 0;
	}
	uint64_t total = pl->total;
	Cursor s = {pl->src, pl->nsrc & ~HCA_NSRC_SPECIAL, 0, 0};
	Cursor d = {pl->dst, pl->ndst, 0, 0};
	int fault = 0;
	while (total && s.i < s.n && d.i < d.n && !fault) {
		const Span &ss = s.s[s.i];
		if (is_pattern(ss) && pattern_of(ss)->periodic && !is_pattern(d.s[d.i])) {
			int r = fill(&s, &d, &total, pl->safe);
			if (r >= 0) {
				fault = r;
				continue;
			}
		}
		/* up to the end of the current source or destination span */
		uint64_t n = span_len(ss) - s.off;
		if (span_len(d.s[d.i]) - d.off < n)
			n = span_len(d.s[d.i]) - d.off;
		if (total < n)
			n = total;
		fault = copy_pieces(&s, &d, n, pl->safe);
		total -= n;
	}
	pl->fault = (uint8_t)fault;
	if ((pl->xflags & XF_INVAL) && !fault)
		pl->target_mk->free = true;
	return pl->total;
}

} // namespace mlx5sim
