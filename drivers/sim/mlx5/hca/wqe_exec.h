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
			memmove(pl->dst[0].p, pl->src[0].p, n);
		return pl->total;
	}
	return exec_general(pl);
}

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_EXEC_H */
