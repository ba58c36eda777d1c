/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: the send-queue engine. It reads the producer
 * counter of a QP's doorbell record, plans WQEs in groups (the MMO fast path
 * itself, wqe_fast.cpp; everything else through the WqePlanner), moves a group's
 * data (wqe_exec.h), writes its CQEs in WQE order, and handles errors, flushes and
 * RNR retries (sq_engine.cpp). The device runs it from doorbells (inline) or its
 * engine passes (engine.cpp). Under the device lock.
 */
#ifndef MLX5_SIM_SQ_ENGINE_H
#define MLX5_SIM_SQ_ENGINE_H

#include <stdint.h>

#include <atomic>
#include <memory>

#include "wqe_planner.h"

namespace mlx5sim {

class CqTable;
class DevMutex;
class EventQueue;
class FabricPort;
class QpTable;
class SigEngine;
struct DevStats;

/** Executes the SQs of one device's QPs. */
class SqEngine {
public:
	SqEngine(const HcaCaps &caps, ExecMode mode, DevMutex &mu, MrTable &mrt, QpTable &qps,
		 CqTable &cqs, WqePlanner &planner, SigEngine &sig, FabricPort &port,
		 EventQueue &events, DevStats &stats);
	SqEngine(const SqEngine &) = delete;
	SqEngine &operator=(const SqEngine &) = delete;

	/**
	 * Fetch and execute what the doorbell record says, at most @p budget groups;
	 * true if anything happened. *more (if given): the budget ran out with WQEs left.
	 */
	bool process_sq(QpObj *qp, uint32_t budget = UINT32_MAX, bool *more = nullptr);
	/** Retry QPs stalled on a receive WQE. */
	bool retry_stalled();

	/**
	 * Internal switch: take plan_fast_mmo() for MMO WQEs (default). Tests turn it
	 * off to compare the fast path with the general planner byte for byte.
	 */
	bool fast_mmo_ = true;

	/**
	 * An unlocked pass (HcaImpl::fast_pass(), DevMutex::enter_unlocked()) over @p qp:
	 * run_fast_mmo() in groups of HCA_MAX_GROUP, at most @p budget groups, while the
	 * QP is in RTS with nothing the locked path must see (faults, stalls, held CQEs,
	 * signature draining, DCI, reordering) and its send CQ takes every CQE without an
	 * event or an overrun (not armed, not in error, room for the whole group).
	 * Counts in @p st, the calling engine thread's own block.
	 * @return WQEs executed. *locked: the QP needs the locked path (a WQE declined,
	 * or any of the above); *more: the budget ran out with WQEs left.
	 */
	uint32_t run_unlocked(QpObj *qp, uint32_t budget, DevStats &st, bool *locked, bool *more);

private:
	/* ---- wqe_fast.cpp ---- */
	/**
	 * Plan consecutive WQEs from qp->sq_ci (producer @p pi) into fast_plans_[n, limit)
	 * while each is a one-WQEBB memcpy MMO that passes every check without ODP
	 * probing or an armed fault; consumes them and returns the new n. The first
	 * WQE it declines is left for fetch_wqe/plan_wqe, which decide errors.
	 * *fence: it stopped at a fenced WQE that must start the next group.
	 * plans_[n, new n) are not written: expand_fast() does that for a group that
	 * run_group() executes, run_fast_group() reads fast_plans_.
	 */
	uint32_t plan_fast_mmo(QpObj *qp, uint16_t pi, uint32_t n, uint32_t limit, bool *fence);
	/**
	 * Execute consecutive WQEs from qp->sq_ci (producer @p pi), at most @p limit,
	 * while each is one plan_fast_mmo() would accept: each is checked, moved and
	 * completed (its CQE if it asks for one, statistics first) before the next is
	 * read; consumes them and returns how many. The first WQE it declines is left
	 * as plan_fast_mmo() leaves it. Not for reorder_unfenced, whose groups are
	 * planned before any byte moves. Counts in @p st: the device's block under the
	 * mutex, an engine thread's own in its unlocked pass.
	 */
	uint32_t run_fast_mmo(QpObj *qp, uint16_t pi, uint32_t limit, DevStats &st);
	/** Neither the QP (armed faults, ring alignment) nor the device rules out the fast path. */
	bool fast_ok(const QpObj *qp) const
	{
		return fast_mmo_ && !qp->fail_armed && !qp->corrupt_sig_armed &&
		       caps_.max_wr_memcpy_length != 0 && !((uintptr_t)qp->cfg.sq_buf & 7);
	}
	/** plans_[from, to) as fetch_wqe + plan_wqe fill them, from fast_plans_[from, to). */
	void expand_fast(uint32_t from, uint32_t to);

	/* ---- sq_engine.cpp ---- */
	uint32_t plan_group(QpObj *qp, uint16_t pi, uint32_t limit, PlanResult *end, Plan **bad,
			    PlanError *err, bool *all_fast);
	bool run_group(QpObj *qp, uint32_t n, bool reorder);
	/** run_group() of a group plan_fast_mmo() planned entirely. */
	void run_fast_group(QpObj *qp, uint32_t n, bool reorder);
	void complete_plan(QpObj *qp, const Plan *pl);
	void fail_wqe(QpObj *qp, const Plan *pl, const PlanError &err);
	/**
	 * The on-demand pages of plans_[bad] faulted while its data moved: its error
	 * CQE, the QP to ERR; the later WQEs of the group are flushed.
	 */
	void fail_moved(QpObj *qp, uint32_t bad);
	/**
	 * A stalled head WQE got (another) RNR NAK: count the retries its time allows;
	 * true when they are spent (RNR_RETRY_EXC).
	 */
	bool rnr_spent(QpObj *qp);

	const HcaCaps &caps_;
	const ExecMode mode_;
	DevMutex &mu_; /**< contended(): another caller waits for the device */
	MrTable &mrt_; /**< the fast path's key checks */
	QpTable &qps_;
	CqTable &cqs_;
	WqePlanner &planner_;
	SigEngine &sig_;
	FabricPort &port_;
	EventQueue &events_;
	DevStats &st_;
	std::unique_ptr<Plan[]> plans_;          /**< HCA_MAX_GROUP plans, reused */
	std::unique_ptr<FastPlan[]> fast_plans_; /**< the same, of plan_fast_mmo() WQEs */
	/** bit i: fast_plans_[i] asks for a CQE (a group plan_fast_mmo() planned from 0) */
	uint32_t fast_signaled_ = 0;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_SQ_ENGINE_H */
