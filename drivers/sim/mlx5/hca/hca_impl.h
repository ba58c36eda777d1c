/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, device side: the device (HcaImpl). It composes the model's
 * objects, each behind its own header, and runs them: it takes the device lock
 * around every command, runs the SQ engine from doorbells (inline) or its engine
 * passes (thread, polled), and is the Host other instances' requests reach.
 * Objects: MR/mkey table (mr_table.h), PSVs (psv_table.h), reserved QPNs
 * (reserved_qpn.h), CQ table and CQE writer (cq_table.h), SRQs (srq_table.h), QP
 * table and state machine (qp_table.h), fabric port (fabric_port.h), signature
 * engine (sig_engine.h), planner (wqe_planner.h), SQ engine (sq_engine.h).
 * Not part of the agreed interface; only hca.cpp, engine.cpp and the white-box
 * fast-path test include it.
 *
 * Locking: one device mutex (HcaImpl::mu_, dev_mutex.h) guards every object
 * except the atomics, which the doorbell path touches without the lock. Callers
 * of the device take it before the engine threads (DevMutex), and an engine pass
 * does bounded work per QP, so a control call waits for at most one pass.
 *
 * Engine threads (thread mode): one, or one per CPU of sim_core. Each QP belongs to
 * one of them (QpObj::engine, set at CREATE_QP): only that thread executes it, so
 * its WQEs and CQEs stay in order. A QP that shares a CQ with an existing QP joins
 * that QP's thread (engine.cpp, pick_engine()); a QP whose send and receive CQs are
 * served by two threads merges the two groups onto one (merge_engines(), under the
 * device mutex, so no pass of the moved QPs is in flight). Every CQ that QPs complete
 * to thus has one writer thread for its QPs' own completions.
 *
 * With several threads, each runs the MMO fast path of its QPs outside the device
 * mutex (fast_pass()) while nobody holds it: every holder first waits until no such
 * pass runs, and no pass starts while one holds it (DevMutex::enter_unlocked()). A pass
 * touches only its own QPs, their send CQs (one writer: the thread) and the MR table,
 * which only holders change; it leaves every other case to the locked pass.
 */
#ifndef MLX5_SIM_HCA_IMPL_H
#define MLX5_SIM_HCA_IMPL_H

#include <stdint.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cq_table.h"
#include "dev_mutex.h"
#include "dev_stats.h"
#include "fabric_port.h"
#include "hca.h"
#include "host.h"
#include "mr_table.h"
#include "psv_table.h"
#include "qp_table.h"
#include "queue_objs.h"
#include "reserved_qpn.h"
#include "sig_engine.h"
#include "sq_engine.h"
#include "srq_table.h"
#include "wqe_planner.h"

namespace mlx5sim {

class HcaImpl;

/**
 * One engine thread (thread mode) and its own words. Its loop (engine.cpp) reaches
 * the device through the references below, which bear the device's member names.
 */
struct Engine {
	Engine(HcaImpl &h, unsigned index);
	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;
	/** The thread's loop. */
	void engine_main();
	/** HcaImpl::engine_pass() over this thread's QPs. */
	bool engine_pass(bool *more);

	HcaImpl &h_;
	const unsigned index_;
	DevMutex &mu_;
	CqTable &cqt_;
	std::atomic<bool> &stop_;
	std::atomic<uint32_t> &waiters_;
	std::mutex &idle_mu_;
	std::condition_variable &done_cv_;
	/** The device's DoorbellSource, polled by engine 0 only (its state is one poller's). */
	DoorbellSource *doorbells_ = nullptr;
	/** Earliest RNR retry of a stalled send of its QPs (engine_pass) */
	bool rnr_timed_ = false;
	std::chrono::steady_clock::time_point rnr_wake_;
	unsigned qps_ = 0; /**< QPs it serves (under mu_) */
	/** Several engine threads: its MMO fast path runs outside the mutex (fast_pass()) */
	bool unlocked_ = false;

	/* written by this thread */
	alignas(64) std::atomic<uint64_t> done_seq_{0}; /**< work_seq_ covered by a pass */
	std::atomic<bool> has_deferred_{false};         /**< CQEs held back after the last pass */
	/** What its unlocked passes count (HcaImpl::stats() adds it); a line of its own */
	alignas(64) DevStats unlocked_st_;
	/* written by every doorbell / notify of its QPs */
	alignas(64) std::atomic<uint64_t> work_seq_{0};
	/* rarely written */
	alignas(64) std::atomic<bool> sleeping_{false};
	std::condition_variable wake_cv_; /**< it sleeps here (under idle_mu_) */
	std::thread thread_;
};

/** The device. */
class HcaImpl final : public Hca, public Host {
public:
	HcaImpl(const std::string &name, const HcaCaps &caps, ExecMode mode);
	~HcaImpl() override;
	/**
	 * Thread mode: start the engine threads: one on @p engine_cpus (NULL: anywhere),
	 * or with @p per_cpu one pinned to each CPU of it. Engine 0 polls @p doorbells.
	 */
	int start(const cpu_set_t *engine_cpus, DoorbellSource *doorbells, bool per_cpu);

	const std::string &name() const override { return name_; }
	const HcaCaps &caps() const override { return caps_; }
	void fork_child() override { mu_.after_fork(); }
	ExecMode mode() const override { return mode_; }

	int alloc_pd(uint32_t *pdn) override;
	int dealloc_pd(uint32_t pdn) override;
	int reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key) override;
	int dereg_mr(uint32_t key) override;
	int rereg_mr(uint32_t key, uint32_t pdn, uint64_t addr, uint64_t len, int access) override;
	int create_mkey(uint32_t pdn, uint32_t num_desc, uint32_t flags, uint32_t *key) override;
	int destroy_mkey(uint32_t key) override;
	int create_cq(const CqConfig &cfg, uint32_t *cqn) override;
	int destroy_cq(uint32_t cqn) override;
	int arm_cq(uint32_t cqn, uint32_t arm_word) override;
	int resize_cq(uint32_t cqn, void *buf, uint32_t ncqe, uint32_t cqe_size) override;
	int create_srq(const SrqConfig &cfg, uint32_t *srqn) override;
	int destroy_srq(uint32_t srqn) override;
	void srq_notify(uint32_t srqn) override;
	int arm_srq(uint32_t srqn, uint32_t limit) override;
	int query_srq(uint32_t srqn, uint32_t *limit) override;
	int create_qp(const QpConfig &cfg, uint32_t *qpn) override;
	int modify_qp(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask) override;
	int query_qp(uint32_t qpn, QpInfo *info) override;
	int set_drain_sigerr(uint32_t qpn) override;
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
	/** WQEs the MMO fast path ran, in every block (tests). */
	uint64_t fast_wqes() const;

	int set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us) override;
	int dci_stream_reset(uint32_t qpn, uint16_t stream) override;

	/* ---- engine.cpp ---- */
	void responder_changed() override;
	/** Wake every engine thread for a pass (no lock needed). */
	void kick();
	/** Wake the engine thread of @p qp for a pass (no lock needed). */
	void kick(const QpObj *qp);
	/**
	 * CREATE_QP (under mu_): the engine thread of new QP @p qp. The thread of a QP
	 * that shares one of its CQs (its send CQ's when they are two: merge_engines()),
	 * else the one with the fewest QPs.
	 */
	void pick_engine(QpObj *qp);
	/** pick_engine(): move the CQ group of engine @p from linked to a new QP to @p to. */
	void merge_engines(unsigned to, unsigned from);
	/** DESTROY_QP (under mu_, before the QP is freed): its thread serves one less. */
	void drop_engine(const QpObj *qp);
	/** One pass over the QPs of engine @p e (all QPs: NULL); *more: WQEs are left. */
	bool engine_pass(bool *more, Engine *e = nullptr);
	/**
	 * The unlocked part of a pass of engine @p e (DevMutex::enter_unlocked()): the MMO
	 * fast path of its QPs (SqEngine::run_unlocked()). *more: WQEs are left; *locked:
	 * a QP needs the locked pass (its doorbell flag stays set for it).
	 */
	bool fast_pass(Engine *e, bool *more, bool *locked);

private:
	/* engine.cpp */
	int progress() override;
	int engine_cpus(cpu_set_t *cpus) const override;
	/** Stop and join the engine threads (the destructor). */
	void stop_engines();
	/** Write CQEs held back by DelayCompletions that are due (all if @p all). */
	void release_deferred(bool all)
	{
		cqt_.release_deferred(all);
		if (cqt_.overrun())
			qpt_.drain_overruns();
	}

public:
	/* ---- state (all under mu_ unless atomic) ---- */
	const std::string name_;
	const HcaCaps caps_;
	const ExecMode mode_;
	/* the device lock: the instance's own, or the fabric's (caps_.fabric) */
	std::shared_ptr<DevMutex> mu_owner_;
	DevMutex &mu_;

	/* the objects (each holds references to the ones it works with) */
	MrTable mrt_;          /**< PDs, MRs, indirect mkeys; key checks */
	PsvTable psvs_;        /**< signature PSVs */
	RsvQpnTable rsv_qpns_; /**< RESERVED_QPN objects */
	EventQueue events_;    /**< async events (queue_objs.h) */
	CqTable cqt_;          /**< CQs and the CQE writer */
	SrqTable srqt_;        /**< SRQs */
	QpTable qpt_;          /**< QPs and their state machine */
	FabricPort port_;      /**< the fabric endpoint */
	SigEngine sig_;        /**< SET_PSV, signature errors */
	WqePlanner planner_;   /**< the general path's planner */
	SqEngine sq_;          /**< QP/SQ execution */
	/** Earliest RNR retry of a stalled send (engine_pass() without an Engine) */
	bool rnr_timed_ = false;
	std::chrono::steady_clock::time_point rnr_wake_;

	/*
	 * Atomics, grouped by writer on separate cache lines: in thread mode the
	 * application core rings doorbells while the engine core runs passes, and
	 * a shared line would bounce between them on every doorbell and pass.
	 * Statistics are relaxed: stats() may run on any thread. Each engine thread
	 * has its own wake-up and progress words (Engine).
	 */
	/* written under the mutex: a locked pass or the doorbell caller (inline) */
	alignas(64) DevStats st_;
	/* written by every doorbell / notify */
	alignas(64) std::atomic<uint64_t> st_doorbells_{0};
	/* rarely written */
	alignas(64) std::atomic<bool> stop_{false};
	std::atomic<uint32_t> waiters_{0};
	/** merge_engines() calls: a quiesce() they overlap waits another round */
	std::atomic<uint64_t> merges_{0};

	/* thread mode: the engine threads, fixed once start() returns */
	std::vector<std::unique_ptr<Engine>> engines_;
	std::mutex idle_mu_;              /**< engines sleep and quiesce() waits under it */
	std::condition_variable done_cv_; /**< quiesce() waits here */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_HCA_IMPL_H */
