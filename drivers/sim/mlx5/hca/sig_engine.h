/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the signature engine's device side. Moving blocks through a
 * signature mkey needs no device state (exec_sig(), wqe_special.h); arming a PSV
 * (SET_PSV) and completing a signature error (SIG_ERR CQE, mkey and
 * PSV error state, sig_exec.cpp) do. Under the device lock.
 */
#ifndef MLX5_SIM_SIG_ENGINE_H
#define MLX5_SIM_SIG_ENGINE_H

#include <stdint.h>

namespace mlx5sim {

class CqTable;
class PsvTable;
struct Plan;
struct QpObj;
struct Verdict;

/** PSVs and signature errors of one device. */
class SigEngine {
public:
	SigEngine(PsvTable &psvs, CqTable &cqs) : psvs_(psvs), cqs_(cqs) {}
	SigEngine(const SigEngine &) = delete;
	SigEngine &operator=(const SigEngine &) = delete;

	/** Check a SET_PSV WQE: its PSV of the QP's PD. */
	Verdict plan_set_psv(const QpObj *qp, Plan *pl, uint32_t ds);
	/**
	 * SIG_ERR CQEs and mkey/PSV error state of a plan's signature errors; true if one
	 * was on an mkey the requester named locally (drain_sigerr stops its SQ).
	 */
	bool complete(QpObj *qp, const Plan *pl);

private:
	PsvTable &psvs_;
	CqTable &cqs_; /**< SIG_ERR CQEs */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_SIG_ENGINE_H */
