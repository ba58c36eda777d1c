/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * WQE execution: move the bytes of a checked plan (gather -> scatter streaming,
 * memmove so overlapping loopback buffers behave like a DMA read-then-write per
 * chunk) and perform atomics. Only spans checked by wqe_plan.cpp are touched.
 *
 * Plans with an on-demand span (Plan::safe) move their bytes with mem::safe_move()
 * instead of memmove: the application may unmap on-demand pages at any time, and
 * a page gone between the check and the copy gives an ODP page-fault error CQE
 * (fail_moved()), never a signal. Pinned (non-ODP) MRs keep the plain memmove.
 */
#include <string.h>

#include "mem_probe.h"
#include "wqe_exec.h"
#include "wqe_special.h"

namespace mlx5sim {

namespace {

/**
 * Copy @p total bytes from the src spans to the dst spans; with @p safe through
 * mem::safe_move(). Returns 0 or which side faulted (1 source, 2 destination).
 */
int stream_copy(const Span *src, uint32_t nsrc, const Span *dst, uint32_t ndst, uint64_t total,
		bool safe)
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
		if (dst[di].p + doff != src[si].p + soff) {
			if (!safe)
				move_pinned(dst[di].p + doff, src[si].p + soff, n);
			else if (int side = mem::safe_move(dst[di].p + doff, src[si].p + soff, n))
				return side;
		}
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
	return 0;
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

uint64_t exec_general(Plan *pl)
{
	if (pl->nsrc & HCA_NSRC_SPECIAL)
		return exec_special(pl);
	if (pl->atomic) {
		/*
		 * On-demand: probe again right before (the plan may be old). An unmap
		 * between this probe and the 8-byte atomic is not survived: no system
		 * call performs an atomic on another mapping fault-safely.
		 */
		if (pl->safe && !mem::range_readable((uintptr_t)pl->atomic_target, 8)) {
			pl->fault = 2;
			return 0;
		}
		uint64_t old = do_atomic(pl);
		if (!pl->safe)
			memcpy(pl->atomic_result, &old, sizeof(old));
		else if (mem::safe_move(pl->atomic_result, reinterpret_cast<uint8_t *>(&old), 8))
			pl->fault = 3; /* the local result buffer */
		return 8;
	}
	if (pl->total)
		pl->fault = (uint8_t)stream_copy(pl->src, pl->nsrc, pl->dst, pl->ndst, pl->total,
						 pl->safe);
	return pl->total;
}

} // namespace mlx5sim
