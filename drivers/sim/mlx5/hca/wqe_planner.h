/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: the planner of the general path. It copies
 * a WQE out of the SQ ring and checks its ctrl segment (wqe_fetch.cpp), checks
 * every segment against the MR tables of both ends and turns the WQE into a plan
 * or an error (wqe_plan.cpp), and finds the DCT a DCI WQE names (dc.cpp). The MMO
 * fast path (SqEngine, wqe_fast.cpp) plans without it. Under the device lock.
 */
#ifndef MLX5_SIM_WQE_PLANNER_H
#define MLX5_SIM_WQE_PLANNER_H

#include <stdint.h>

#include "wqe_plan.h"

namespace mlx5sim {

class FabricPort;
class SigEngine;

/** Plans WQEs of one device's QPs. */
class WqePlanner {
public:
	WqePlanner(const HcaCaps &caps, MrTable &mrt, PsvTable &psvs, SigEngine &sig,
		   FabricPort &port)
		: caps_(caps), mrt_(mrt), psvs_(psvs), sig_(sig), port_(port)
	{
	}
	WqePlanner(const WqePlanner &) = delete;
	WqePlanner &operator=(const WqePlanner &) = delete;

	/**
	 * Copy the WQE at qp->sq_ci (producer @p pi) into @p pl and check its ctrl
	 * segment; *wqebbs: the WQEBBs it consumes, also when it fails (wqe_fetch.cpp).
	 */
	Verdict fetch_wqe(QpObj *qp, uint16_t pi, Plan *pl, uint32_t *wqebbs);
	/** Check the WQE copied into @p pl and turn it into a plan. */
	PlanResult plan_wqe(QpObj *qp, Plan *pl, PlanError *err);

private:
	/** plan_wqe() without the HCA_NSRC_SPECIAL marking. */
	PlanResult plan_checked(QpObj *qp, Plan *pl, PlanError *err);
	/**
	 * The DCT a DCI WQE's address vector names, checked (state, key); NULL with
	 * *v set when the WQE cannot reach one (dc.cpp).
	 */
	QpObj *dc_target(const QpObj *qp, const Plan *pl, Verdict *v);
	/** A WQE of a UD QP, its WQE ending at @p end: a datagram or a drop (ud.cpp). */
	PlanResult plan_ud(QpObj *qp, Plan *pl, uint32_t end, PlanError *err);
	/** A WQE of a UC QP: a message sent, delivered or lost at the responder (uc.cpp). */
	PlanResult plan_uc(QpObj *qp, Plan *pl, uint32_t end, PlanError *err);

	const HcaCaps &caps_;
	MrTable &mrt_;     /**< this host's keys: the requester's local segments */
	PsvTable &psvs_;   /**< PSVs a UMR's BSF names */
	SigEngine &sig_;   /**< SET_PSV */
	FabricPort &port_; /**< the responder's host, the link to it */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_PLANNER_H */
