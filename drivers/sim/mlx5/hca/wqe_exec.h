/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: moving the data of a checked plan. Runs
 * on plans only (everything was checked and resolved at plan time), so it needs
 * no device state: exec_plan() inline for the one-span case every MMO takes,
 * exec_general() (wqe_exec.cpp) for the rest, which hands special plans to
 * exec_special() (xlat_exec.cpp): UMR (umr.cpp), repeat blocks, signature
 * blocks (sig_exec.cpp), in-order landing (data_order.cpp).
 */
#ifndef MLX5_SIM_WQE_EXEC_H
#define MLX5_SIM_WQE_EXEC_H

#include <stdint.h>
#include <string.h>

#include "wqe_plan.h"

namespace mlx5sim {

/** exec_plan() of atomics, gather/scatter lists and on-demand spans (wqe_exec.cpp). */
uint64_t exec_general(Plan *pl);
/** exec_general() of plans with HCA_NSRC_SPECIAL (xlat_exec.cpp). */
uint64_t exec_special(Plan *pl);
/** Execute a UMR plan: update the target mkey (umr.cpp; under the device lock). */
void apply_umr(const Plan *pl);
/** exec_special() of plans with XF_DIO_* bits: move the bytes in that order (data_order.cpp). */
void exec_data_order(Plan *pl);
/** exec_special() of plans with XF_SIG: blocks through the signature engine (sig_exec.cpp). */
uint64_t exec_sig(Plan *pl);

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
			memmove(pl->dst[0].p, pl->src[0].p, n);
		return pl->total;
	}
	return exec_general(pl);
}

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_EXEC_H */
