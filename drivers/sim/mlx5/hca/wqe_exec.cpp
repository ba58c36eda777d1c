/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * WQE execution: move the bytes of a checked plan (gather -> scatter streaming,
 * memmove so overlapping loopback buffers behave like a DMA read-then-write per
 * chunk) and perform atomics. Only spans checked by wqe_plan.cpp are touched.
 */
#include <string.h>

#include "hca_impl.h"

namespace mlx5sim {

namespace {

/** Copy @p total bytes from the src spans to the dst spans. */
void stream_copy(const Span *src, uint32_t nsrc, const Span *dst, uint32_t ndst, uint64_t total)
{
	uint32_t si = 0, di = 0;
	uint64_t soff = 0, doff = 0;
	while (total && si < nsrc && di < ndst) {
		uint64_t n = src[si].len - soff;
		if (dst[di].len - doff < n)
			n = dst[di].len - doff;
		if (total < n)
			n = total;
		/* a copy onto itself changes nothing: no page is touched for it */
		if (dst[di].p + doff != src[si].p + soff)
			memmove(dst[di].p + doff, src[si].p + soff, n);
		total -= n;
		soff += n;
		doff += n;
		if (soff == src[si].len) {
			si++;
			soff = 0;
		}
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
	}
}

/** Host-endian 8-byte atomic on the responder's memory; returns the old value. */
uint64_t do_atomic(const Plan *pl)
{
	uint64_t *t = pl->atomic_target;
	if (!pl->atomic_cs)
		return __atomic_fetch_add(t, pl->swap_add, __ATOMIC_SEQ_CST);
	uint64_t expected = pl->compare;
	__atomic_compare_exchange_n(t, &expected, pl->swap_add, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return expected; /* the old value either way */
}

} // namespace

uint64_t HcaImpl::exec_general(Plan *pl)
{
	if (pl->atomic) {
		uint64_t old = do_atomic(pl);
		memcpy(pl->atomic_result, &old, sizeof(old));
		return 8;
	}
	if (pl->total)
		stream_copy(pl->src, pl->nsrc, pl->dst, pl->ndst, pl->total);
	return pl->total;
}

} // namespace mlx5sim
