/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, device side: the device (HcaImpl). It composes the model's
 * objects, each behind its own header - MR/mkey table (mr_table.h), PSV table
 * (psv_table.h), queue objects (queue_objs.h), plans (wqe_plan.h), fabric
 * (fabric.h), memory probes (mem_probe.h) - and runs the QP/SQ engine over them.
 * Not part of the agreed interface; only the files that implement the device
 * include it.
 *
 * Locking: one device mutex (HcaImpl::mu_, dev_mutex.h) guards every object
 * except the atomics, which the doorbell path touches without the lock. Callers
 * of the device take it before the engine thread (DevMutex), and an engine pass
 * does bounded work per QP, so a control call waits for at most one pass.
 */
#ifndef MLX5_SIM_HCA_IMPL_H
#define MLX5_SIM_HCA_IMPL_H

#include <stdint.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cq_table.h"
#include "dev_mutex.h"
#include "dev_stats.h"
#include "fabric_port.h"
#include "hca.h"
#include "hca_limits.h"
#include "host.h"
#include "mr_table.h"
#include "psv_table.h"
#include "qp_table.h"
#include "queue_objs.h"
#include "reserved_qpn.h"
#include "sig_engine.h"
#include "srq_table.h"
#include "wqe_exec.h"
#include "wqe_special.h"
#include "wqe_plan.h"
#include "wqe_planner.h"

namespace mlx5sim {

/** The device. */
class HcaImpl final : public Hca, public Host {
public:
	HcaImpl(const std::string &name, const HcaCaps &caps, ExecMode mode);
	~HcaImpl() override;
	int start(const cpu_set_t *engine_cpus);

	const std::string &name() const override { return name_; }
	const HcaCaps &caps() const override { return caps_; }
	ExecMode mode() const override { return mode_; }

	int alloc_pd(uint32_t *pdn) override;
	int dealloc_pd(uint32_t pdn) override;
	int reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key) override;
	int dereg_mr(uint32_t key) override;
	int create_mkey(uint32_t pdn, uint32_t num_desc, uint32_t flags, uint32_t *key) override;
	int destroy_mkey(uint32_t key) override;
	int create_cq(const CqConfig &cfg, uint32_t *cqn) override;
	int destroy_cq(uint32_t cqn) override;
	int create_srq(const SrqConfig &cfg, uint32_t *srqn) override;
	int destroy_srq(uint32_t srqn) override;
	void srq_notify(uint32_t srqn) override;
	int create_qp(const QpConfig &cfg, uint32_t *qpn) override;
	int modify_qp(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask) override;
	int query_qp(uint32_t qpn, QpInfo *info) override;
	int destroy_qp(uint32_t qpn) override;
	void sq_doorbell(uint32_t qpn, uint64_t ctrl8) override;
	void rq_notify(uint32_t qpn) override;
	int create_psv(uint32_t pdn, uint32_t *psv_index) override;
	int destroy_psv(uint32_t psv_index) override;
	int create_reserved_qpn(uint32_t log_range, uint32_t *first_qpn) override;
	int destroy_reserved_qpn(uint32_t first_qpn) override;
	int get_async_event(AsyncEvent *event) override;
	void quiesce() override;
	int inject(const Fault &fault) override;
	HcaStats stats() const override;

	int set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us) override;

	int dci_stream_reset(uint32_t qpn, uint16_t stream) override;

	/* ---- wqe_fast.cpp (under mu_) ---- */
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
	/** plans_[from, to) as fetch_wqe + plan_wqe fill them, from fast_plans_[from, to). */
	void expand_fast(uint32_t from, uint32_t to);

	/* ---- wqe_exec.cpp ---- */
	/**
	 * The on-demand pages of plans_[bad] faulted while its data moved: its error
	 * CQE, the QP to ERR; the later WQEs of the group are flushed.
	 */
	void fail_moved(QpObj *qp, uint32_t bad);

	/** Write CQEs held back by DelayCompletions that are due (all if @p all). */
	void release_deferred(bool all)
	{
		cqt_.release_deferred(all);
		qpt_.drain_overruns();
	}

	/* ---- sq_engine.cpp (under mu_) ---- */
	/**
	 * Fetch and execute what the doorbell record says, at most @p budget groups;
	 * true if anything happened. *more (if given): the budget ran out with WQEs left.
	 */
	bool process_sq(QpObj *qp, uint32_t budget = UINT32_MAX, bool *more = nullptr);
	/** Retry QPs stalled on a receive WQE. */
	bool retry_stalled();
	/**
	 * A stalled head WQE got (another) RNR NAK: count the retries its time allows;
	 * true when they are spent (RNR_RETRY_EXC).
	 */
	bool rnr_spent(QpObj *qp);

	/* ---- engine.cpp ---- */
	/** Tell a possibly sleeping engine that work_seq_ moved (no lock needed). */
	void kick();
	void responder_changed() override;

private:
	friend struct EngineAccess;

	/* sq_engine.cpp */
	bool run_group(QpObj *qp, uint32_t n, bool reorder);
	/** run_group() of a group plan_fast_mmo() planned entirely. */
	void run_fast_group(QpObj *qp, uint32_t n, bool reorder);
	void complete_plan(QpObj *qp, const Plan *pl);
	uint32_t plan_group(QpObj *qp, uint32_t limit, PlanResult *end, Plan **bad, PlanError *err,
			    bool *all_fast);
	void fail_wqe(QpObj *qp, const Plan *pl, const PlanError &err);
	/* engine.cpp */
	void engine_main();
	bool engine_pass(bool *more);
	int progress() override;
	int engine_cpus(cpu_set_t *cpus) const override;

public:
	/* ---- state (all under mu_ unless atomic) ---- */
	const std::string name_;
	const HcaCaps caps_;
	const ExecMode mode_;
	/* the device lock: the instance's own, or the fabric's (caps_.fabric) */
	std::shared_ptr<DevMutex> mu_owner_;
	DevMutex &mu_;

	MrTable mrt_;   /**< PDs, MRs, indirect mkeys; key checks (mr_table.h) */
	PsvTable psvs_; /**< signature PSVs (psv_table.h) */
	CqTable cqt_;   /**< CQs and the CQE writer (cq_table.h) */
	SrqTable srqt_; /**< SRQs (srq_table.h) */
	QpTable qpt_;   /**< QPs and their state machine (qp_table.h) */
	EventQueue events_;
	FabricPort port_; /**< the fabric endpoint (fabric_port.h) */
	SigEngine sig_;   /**< SET_PSV, signature errors (sig_engine.h) */
	WqePlanner planner_; /**< the general path's planner (wqe_planner.h) */
	RsvQpnTable rsv_qpns_; /**< RESERVED_QPN objects (reserved_qpn.h) */
	std::unique_ptr<Plan[]> plans_;          /**< HCA_MAX_GROUP plans, reused */
	std::unique_ptr<FastPlan[]> fast_plans_; /**< the same, of plan_fast_mmo() WQEs */
	/** bit i: fast_plans_[i] asks for a CQE (a group plan_fast_mmo() planned from 0) */
	uint32_t fast_signaled_ = 0;
	/**
	 * Internal switch: take plan_fast_mmo() for MMO WQEs (default). Tests turn it
	 * off to compare the fast path with the general planner byte for byte.
	 */
	bool fast_mmo_ = true;
	uint64_t fast_wqes_ = 0; /**< WQEs planned by the fast path (tests) */
	/** Earliest RNR retry of a stalled send with limited retries (engine_pass) */
	bool rnr_timed_ = false;
	std::chrono::steady_clock::time_point rnr_wake_;

	/*
	 * Atomics, grouped by writer on separate cache lines: in thread mode the
	 * application core rings doorbells while the engine core runs passes, and
	 * a shared line would bounce between them on every doorbell and pass.
	 * Statistics are relaxed: stats() may run on any thread.
	 */
	/* written by the engine (thread mode) or the doorbell caller (inline) */
	alignas(64) DevStats st_;
	std::atomic<uint64_t> done_seq_{0};     /**< work_seq_ covered by a finished pass */
	std::atomic<bool> has_deferred_{false}; /**< CQEs held back after the last pass */
	/* written by every doorbell / notify */
	alignas(64) std::atomic<uint64_t> st_doorbells_{0};
	std::atomic<uint64_t> work_seq_{0}; /**< bumped by every doorbell / notify */
	/* rarely written */
	alignas(64) std::atomic<bool> stop_{false};
	std::atomic<bool> sleeping_{false};
	std::atomic<uint32_t> waiters_{0};

	/* thread mode */
	std::thread engine_;
	std::mutex idle_mu_;
	std::condition_variable wake_cv_; /**< engine sleeps here */
	std::condition_variable done_cv_; /**< quiesce() waits here */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_HCA_IMPL_H */
