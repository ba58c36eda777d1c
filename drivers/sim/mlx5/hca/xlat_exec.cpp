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

#include "span_cursor.h"
#include "wqe_special.h"

namespace mlx5sim {

namespace {

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

uint64_t exec_special(Plan *pl)
{
	if (pl->xflags & XF_UMR) {
		apply_umr(pl);
		return 0;
	}
	if (pl->xflags & XF_PSV) {
		/* armed: a PSV in error takes part again */
		pl->psv_ent->transient_signature = pl->psv_ts;
		pl->psv_ent->error = false;
		return 0;
	}
	if (pl->xflags & XF_SIG)
		return exec_sig(pl);
	if (pl->xflags & XF_DIO) {
		exec_data_order(pl);
		if ((pl->xflags & XF_INVAL) && !pl->fault)
			pl->target_mk->free = true;
		return pl->total;
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
