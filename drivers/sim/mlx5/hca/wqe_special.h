/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: WQEs beyond plain spans, their plan-time
 * checks and their execution. exec_special() (xlat_exec.cpp) executes what
 * exec_general() hands it: UMR (umr.cpp), repeat blocks (xlat_exec.cpp),
 * signature blocks (sig_exec.cpp), in-order landing (data_order.cpp). Like the
 * rest of execution these run on plans only.
 */
#ifndef MLX5_SIM_WQE_SPECIAL_H
#define MLX5_SIM_WQE_SPECIAL_H

#include <stdint.h>

#include "wqe_plan.h"

namespace mlx5sim {

/* ---- plan time (under the device lock) ---- */
/**
 * Check a UMR WQE against its target mkey (@p mrt) and the PSVs its BSF names
 * (@p psvs); its effect waits for execution (umr.cpp).
 */
Verdict plan_umr(MrTable &mrt, PsvTable &psvs, const QpObj *qp, Plan *pl, uint32_t ds);
/**
 * A planned RDMA write, RDMA read or SEND lands in the order the receiving host
 * promises (caps.data_in_order of @p local, or of @p peer for what lands at the
 * responder): set its XF_DIO_* bits (not for ODP, repeat-block or signature plans;
 * data_order.cpp).
 */
void plan_data_order(const HcaCaps &local, const HcaCaps *peer, Plan *pl);

/* ---- execution ---- */
/** exec_general() of plans with HCA_NSRC_SPECIAL (xlat_exec.cpp). */
uint64_t exec_special(Plan *pl);
/** Execute a UMR plan: update the target mkey (umr.cpp; under the device lock). */
void apply_umr(const Plan *pl);
/** exec_special() of plans with XF_DIO_* bits: move the bytes in that order (data_order.cpp). */
void exec_data_order(Plan *pl);
/** exec_special() of plans with XF_SIG: blocks through the signature engine (sig_exec.cpp). */
uint64_t exec_sig(Plan *pl);

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_SPECIAL_H */
