/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Execution modes. Inline: the doorbell executes on the caller's thread. Thread:
 * one engine thread per device, or one per CPU of sim_core, each serving its own
 * QPs (QpObj::engine); a doorbell only sets the QP's pending flag and bumps its
 * engine's sequence counter (no syscall), and wakes that engine only when it sleeps.
 * An engine spins briefly when idle, then sleeps on a condition variable. A
 * DoorbellSource (doorbells that are plain stores) is polled by engine 0 itself:
 * before each pass, while it spins, and after a sleep it bounds; a doorbell it
 * finds for another engine's QP wakes that one.
 * Polled: doorbells as in thread mode, and the passes run in progress() calls
 * from whatever thread the application gives the device (a DPDK service core).
 */
#include <pthread.h>
#include <sched.h>

#include "hca_impl.h"
#include "thread_up.h"
#include "tsan_dma.h"

namespace mlx5sim {

namespace {

/**
 * How long an idle engine polls before it sleeps. Long enough that a stream of ops
 * posted one at a time (each after the last one's completion) never waits for a
 * wake-up; short enough that an engine sharing its CPU with a polling lcore gives
 * the CPU back soon.
 */
constexpr std::chrono::microseconds kSpin(200);

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

} // namespace

int HcaImpl::get_async_event(AsyncEvent *event)
{
	if (!event)
		return -EINVAL;
	/*
	 * No lock when there is nothing: dma_mlx5 looks for events whenever a poll finds
	 * no completion, and a caller waiting for the device mutex makes the engine give
	 * way to it; a poller on a busy CPU then idled the engine for a time slice.
	 */
	if (events_.none())
		return -EAGAIN;
	DevLock lk(mu_);
	return events_.pop(event) ? 0 : -EAGAIN;
}

namespace {

/** Move @p e's work_seq_ and wake it if it sleeps. */
void wake(Engine &e)
{
	e.work_seq_.fetch_add(1, std::memory_order_seq_cst);
	if (e.sleeping_.load(std::memory_order_seq_cst)) {
		std::lock_guard<std::mutex> lk(e.idle_mu_);
		e.wake_cv_.notify_one();
	}
}

} // namespace

Engine::Engine(HcaImpl &h, unsigned index)
	: h_(h), index_(index), mu_(h.mu_), cqt_(h.cqt_), stop_(h.stop_), waiters_(h.waiters_),
	  idle_mu_(h.idle_mu_), done_cv_(h.done_cv_)
{
}

bool Engine::engine_pass(bool *more)
{
	return h_.engine_pass(more, this);
}

void HcaImpl::kick()
{
	for (const std::unique_ptr<Engine> &e : engines_)
		wake(*e);
}

void HcaImpl::kick(const QpObj *qp)
{
	/*
	 * engines_ is fixed after start(). A merge (pick_engine()) may move the QP: the
	 * caller's flag store and this load are seq_cst, as are the mover's store and its
	 * wake of the new engine, so either this load sees the new engine or the new
	 * engine's pass sees the flag.
	 */
	unsigned i = qp->engine.load(std::memory_order_seq_cst);
	if (i < engines_.size())
		wake(*engines_[i]);
}

namespace {

bool share_cq(const QpObj *a, const QpObj *b)
{
	return (a->scq && (a->scq == b->scq || a->scq == b->rcq)) ||
	       (a->rcq && (a->rcq == b->scq || a->rcq == b->rcq));
}

} // namespace

void HcaImpl::pick_engine(QpObj *qp)
{
	size_t n = engines_.size();
	unsigned best = 0;
	int first = -1, second = -1;

	qp->engine.store(0, std::memory_order_relaxed);
	if (n < 2)
		return;
	/*
	 * One writer per CQ: with the thread of the QPs sharing a CQ. Invariant: every CQ's
	 * QPs are on one thread, so the QPs sharing a CQ with this one are on at most two
	 * (its send CQ's and its receive CQ's); it joins the send CQ's, whatever order
	 * the QP list has.
	 */
	for (const QpObj *o : qpt_.live()) {
		if (o == qp)
			continue;
		int oe = (int)o->engine.load(std::memory_order_relaxed);
		if (qp->scq && (o->scq == qp->scq || o->rcq == qp->scq))
			first = oe;
		else if (share_cq(qp, o))
			second = oe;
	}
	if (first < 0) {
		first = second;
		second = -1;
	} else if (second == first) {
		second = -1;
	}
	if (first < 0) {
		for (unsigned i = 1; i < n; i++)
			if (engines_[i]->qps_ < engines_[best]->qps_)
				best = i;
		qp->engine.store((uint8_t)best, std::memory_order_relaxed);
		engines_[best]->qps_++;
		return;
	}
	qp->engine.store((uint8_t)first, std::memory_order_relaxed);
	engines_[first]->qps_++;
	if (second >= 0)
		merge_engines((unsigned)first, (unsigned)second);
}

/*
 * A new QP (on engine @p to) bridges a CQ group of engine @p from: move that whole
 * group (the QPs of @p from linked to it through shared CQs) to @p to. Before the new
 * QP no QP of @p from shared a CQ with one of @p to, so "shares a CQ with a QP of
 * @p to" finds exactly that group. Under mu_, so no
 * pass is in flight (every pass holds it); a doorbell rung meanwhile wakes the old
 * engine, which skips the QP, and the new one is woken below. Control path only:
 * quadratic in the QPs, no allocation.
 */
void HcaImpl::merge_engines(unsigned to, unsigned from)
{
	bool moved;

	do {
		moved = false;
		for (QpObj *o : qpt_.live()) {
			if (o->engine.load(std::memory_order_relaxed) != from)
				continue;
			bool linked = false;
			for (const QpObj *m : qpt_.live())
				if (m != o && m->engine.load(std::memory_order_relaxed) == to &&
				    share_cq(o, m)) {
					linked = true;
					break;
				}
			if (!linked)
				continue;
			o->engine.store((uint8_t)to, std::memory_order_seq_cst);
			engines_[from]->qps_--;
			engines_[to]->qps_++;
			moved = true;
		}
	} while (moved);
	/* after the moves: a quiesce() that read the old count goes another round */
	merges_.fetch_add(1, std::memory_order_seq_cst);
	/* the moved QPs' pending doorbells, receives and stalled sends are the new one's */
	wake(*engines_[to]);
}

void HcaImpl::drop_engine(const QpObj *qp)
{
	unsigned i = qp->engine.load(std::memory_order_relaxed);
	if (i < engines_.size() && engines_[i]->qps_)
		engines_[i]->qps_--;
}

void HcaImpl::responder_changed()
{
	if (mode_ != ExecMode::Inline) {
		/* every pass re-plans stalled sends; an engine with none need not wake (a
		 * fabric of many hosts would otherwise wake them all at every change) */
		for (const QpObj *qp : qpt_.live())
			if (qp->stalled)
				kick(qp);
		return;
	}
	sq_.retry_stalled();
	qpt_.drain_overruns();
}

/* Thread mode: mark @p flag of QP @p qpn and wake its engine; the engine does the rest. */
static void post_to_engine(HcaImpl *h, uint32_t qpn, std::atomic<bool> QpObj::*flag)
{
	QpObj *qp = h->qpt_.find(qpn);

	if (!qp)
		return;
	/* seq_cst against a merge moving the QP (HcaImpl::kick()) */
	(qp->*flag).store(true, std::memory_order_seq_cst);
	h->kick(qp);
}

void HcaImpl::sq_doorbell(uint32_t qpn, uint64_t ctrl8)
{
	(void)ctrl8; /* the device fetches up to the doorbell record's counter */
	st_doorbells_.fetch_add(1, std::memory_order_relaxed);
	if (mode_ != ExecMode::Inline) {
		post_to_engine(this, qpn, &QpObj::db_pending);
		return;
	}
	/* no engine thread to give way to: the plain mutex */
	std::lock_guard<std::mutex> lk(mu_.raw());
	DmaScope dma(caps_.dma_opaque);
	QpObj *qp = qpt_.find(qpn);
	if (!qp)
		return;
	sq_.process_sq(qp);
	release_deferred(false);
}

void HcaImpl::srq_notify(uint32_t srqn)
{
	(void)srqn; /* any stalled send, of any host, may be waiting for it */
	if (mode_ != ExecMode::Inline && !caps_.fabric) {
		kick(); /* every pass re-plans stalled sends */
		return;
	}
	DevLock lk(mu_);
	port_.responders_changed_everywhere();
}

void HcaImpl::rq_notify(uint32_t qpn)
{
	if (mode_ != ExecMode::Inline) {
		post_to_engine(this, qpn, &QpObj::rq_pending);
		/* a send of this device waiting for it (RNR) may be another engine's: its
		 * passes re-plan stalled sends, so wake them all (srq_notify() does too) */
		if (engines_.size() > 1)
			kick();
		if (caps_.fabric) { /* a sender on another host may wait for it */
			DevLock lk(mu_);
			port_.responders_changed_everywhere();
		}
		return;
	}
	DevLock lk(mu_);
	QpObj *qp = qpt_.find(qpn);
	if (!qp)
		return;
	if (qp->state == IBV_QPS_ERR)
		qpt_.flush_rq(qp);
	port_.responders_changed_everywhere();
	qpt_.drain_overruns();
}

/*
 * One pass over all QPs, at most HCA_PASS_GROUPS groups of WQEs each (round robin): a
 * busy SQ cannot hold the device mutex for longer than that, so the other SQs and
 * control calls get their turn after every pass. A lone QP with nobody waiting for
 * the mutex is not cut (no pass overhead every 128 WQEs). *more: WQEs are left.
 */
bool HcaImpl::engine_pass(bool *more, Engine *e)
{
	DmaScope dma(caps_.dma_opaque);
	bool did = false;
	/* the RNR timer of the engine thread that runs the pass (the device's without one) */
	bool &rnr_timed_ = e ? e->rnr_timed_ : this->rnr_timed_;
	auto &rnr_wake_ = e ? e->rnr_wake_ : this->rnr_wake_;
	*more = false;
	rnr_timed_ = false;
	/* index loop: a pass never destroys QPs, but stays safe if the vector grows */
	for (size_t i = 0; i < qpt_.live().size(); i++) {
		QpObj *qp = qpt_.live()[i];
		if (e && qp->engine.load(std::memory_order_relaxed) != e->index_)
			continue; /* another engine thread's */
		/* read before clearing: an exchange of a clear flag would still take its line
		 * from the application core, whose next doorbell then misses on it */
		bool db = qp->db_pending.load(std::memory_order_relaxed) &&
			  qp->db_pending.exchange(false, std::memory_order_acq_rel);
		bool rq = qp->rq_pending.load(std::memory_order_relaxed) &&
			  qp->rq_pending.exchange(false, std::memory_order_acq_rel);
		if (rq && qp->state == IBV_QPS_ERR)
			did |= qpt_.flush_rq(qp);
		if (db || qp->stalled) {
			bool left = false;
			did |= sq_.process_sq(qp, HCA_PASS_GROUPS, &left);
			if (left) {
				/* the rest in the next pass, after the other QPs */
				qp->db_pending.store(true, std::memory_order_relaxed);
				*more = true;
			}
		}
		/* a send waiting for a receive WQE with limited retries: wake for the retry */
		/* (a responder in another process tells no one when it posts receives) */
		if (qp->stalled && (qp->rnr_retry != HCA_RNR_INFINITE || qp->stall_remote) &&
		    (!rnr_timed_ || qp->rnr_due < rnr_wake_)) {
			rnr_timed_ = true;
			rnr_wake_ = qp->rnr_due;
		}
	}
	release_deferred(false);
	return did || *more;
}

bool HcaImpl::fast_pass(Engine *e, bool *more, bool *locked)
{
	DmaScope dma(caps_.dma_opaque);
	bool did = false;

	*more = false;
	*locked = false;
	if (!mu_.enter_unlocked()) {
		*locked = true; /* a holder is in: the locked pass */
		return false;
	}
	/* the QP list, QP states and the MR table change only under the mutex: stable */
	for (size_t i = 0; i < qpt_.live().size(); i++) {
		QpObj *qp = qpt_.live()[i];
		if (qp->engine.load(std::memory_order_relaxed) != e->index_)
			continue;
		if (qp->stalled || qp->rq_pending.load(std::memory_order_relaxed)) {
			*locked = true;
			continue;
		}
		bool db = qp->db_pending.load(std::memory_order_relaxed) &&
			  qp->db_pending.exchange(false, std::memory_order_acq_rel);
		if (!db)
			continue;
		bool need = false, left = false;
		did |= sq_.run_unlocked(qp, HCA_PASS_GROUPS, e->unlocked_st_, &need, &left) != 0;
		if (need || left)
			qp->db_pending.store(true, std::memory_order_relaxed);
		*locked |= need;
		*more |= left;
	}
	mu_.leave_unlocked();
	return did;
}

void Engine::engine_main()
{
	/* with a doorbell source: the end of the last pass that did work */
	auto last_work = std::chrono::steady_clock::now();
	while (!stop_.load(std::memory_order_acquire)) {
		/* doorbells found now are rung before snap: this pass covers them */
		if (doorbells_)
			doorbells_->poll();
		uint64_t snap = work_seq_.load(std::memory_order_seq_cst);
		bool did = false, deferred = false, more = false, timed = false, locked = true;
		std::chrono::steady_clock::time_point due;
		/* several threads: the MMO fast path first, unlocked; the rest locked */
		if (unlocked_) {
			did = h_.fast_pass(this, &more, &locked);
			locked = locked || rnr_timed_ ||
				 has_deferred_.load(std::memory_order_relaxed);
		}
		if (locked) {
			bool left;
			mu_.lock_engine(); /* callers waiting for the mutex go first */
			DevLock lk(mu_, std::adopt_lock);
			did |= engine_pass(&left);
			more |= left;
			deferred = cqt_.deferred_due(&due);
			timed = deferred || rnr_timed_;
			if (rnr_timed_ && (!deferred || rnr_wake_ < due))
				due = rnr_wake_;
		}
		/* store only changes: these lines are read by quiesce() callers */
		if (has_deferred_.load(std::memory_order_relaxed) != deferred)
			has_deferred_.store(deferred, std::memory_order_seq_cst);
		/* a pass that left WQEs behind has not covered snap yet */
		if (!more && done_seq_.load(std::memory_order_relaxed) != snap)
			done_seq_.store(snap, std::memory_order_seq_cst);
		if (waiters_.load(std::memory_order_seq_cst)) {
			std::lock_guard<std::mutex> lk(idle_mu_);
			done_cv_.notify_all();
		}
		if (did) {
			if (doorbells_)
				last_work = std::chrono::steady_clock::now();
			continue;
		}
		/*
		 * idle: spin a little, then sleep until a doorbell, a held CQE is due or an
		 * RNR retry (the RNR timer) of a send waiting for a receive WQE is due.
		 * Never sched_yield(): a thread that yields stays runnable on its CPU (cache
		 * hot, so never moved) and hands a polling lcore there whole time slices; an
		 * engine that had landed on such a CPU then ran each WQE a scheduler tick
		 * (4 ms) late. A thread that sleeps is woken on an idle CPU when there is
		 * one, and ahead of threads that use up their time.
		 */
		auto now = std::chrono::steady_clock::now();
		/* a source wakes it without work at each bounded sleep: spin after work only */
		const auto spin_end = (doorbells_ ? last_work : now) + kSpin;
		bool idle = true;
		for (unsigned i = 1;; i++) {
			if (doorbells_)
				doorbells_->poll(); /* rings, i.e. moves work_seq_, on a change */
			if (work_seq_.load(std::memory_order_relaxed) != snap ||
			    stop_.load(std::memory_order_relaxed)) {
				idle = false;
				break;
			}
			cpu_relax();
			if (i % 64)
				continue;
			now = std::chrono::steady_clock::now();
			if (timed && now >= due) {
				idle = false;
				break;
			}
			if (now >= spin_end)
				break;
		}
		if (!idle)
			continue;
		if (doorbells_) {
			/* a store wakes nobody: sleep only as long as the source allows */
			now = std::chrono::steady_clock::now();
			auto until = now + doorbells_->idle(now - last_work);
			if (!timed || until < due)
				due = until;
			timed = true;
		}
		std::unique_lock<std::mutex> lk(idle_mu_);
		sleeping_.store(true, std::memory_order_seq_cst);
		if (work_seq_.load(std::memory_order_seq_cst) == snap &&
		    !stop_.load(std::memory_order_seq_cst)) {
			if (timed)
				wake_cv_.wait_until(lk, due);
			else
				wake_cv_.wait(lk);
		}
		sleeping_.store(false, std::memory_order_seq_cst);
	}
}

int HcaImpl::progress()
{
	bool did, more;

	if (mode_ != ExecMode::Polled)
		return -ENOTSUP;
	DevLock lk(mu_);
	did = engine_pass(&more);
	return did ? 1 : 0;
}

void HcaImpl::quiesce()
{
	bool more;

	if (mode_ == ExecMode::Inline) {
		DevLock lk(mu_);
		sq_.retry_stalled(); /* counts the RNR retries that fell due */
		qpt_.drain_overruns();
		release_deferred(true);
		return;
	}
	if (mode_ == ExecMode::Polled) {
		/* nobody else may be polling: do the passes here */
		DevLock lk(mu_);
		while (engine_pass(&more))
			;
		release_deferred(true);
		return;
	}
	uint64_t target[HCA_MAX_ENGINES];
	size_t n = engines_.size();
	uint64_t merges;

	waiters_.fetch_add(1, std::memory_order_seq_cst);
	/*
	 * A merge (merge_engines()) during a round may move a rung QP to a thread that
	 * has already answered it: the moved WQEs are covered only by a round after the
	 * move, so go again until a round saw none.
	 */
	do {
		merges = merges_.load(std::memory_order_seq_cst);
		/* makes every engine run (and report) one more pass */
		for (size_t i = 0; i < n; i++) {
			wake(*engines_[i]);
			target[i] = engines_[i]->work_seq_.load(std::memory_order_seq_cst);
		}
		std::unique_lock<std::mutex> lk(idle_mu_);
		done_cv_.wait(lk, [&] {
			for (size_t i = 0; i < n; i++)
				if (engines_[i]->done_seq_.load(std::memory_order_seq_cst) <
					    target[i] ||
				    engines_[i]->has_deferred_.load(std::memory_order_seq_cst))
					return false;
			return true;
		});
	} while (merges_.load(std::memory_order_seq_cst) != merges);
	waiters_.fetch_sub(1, std::memory_order_seq_cst);
}

int HcaImpl::engine_cpus(cpu_set_t *cpus) const
{
	if (mode_ != ExecMode::Thread || engines_.empty() || !cpus)
		return -ENOTSUP;
	CPU_ZERO(cpus);
	for (const std::unique_ptr<Engine> &e : engines_) {
		cpu_set_t one;
		/* the thread's own mask: what the kernel enforces, not what was asked */
		std::thread &t = e->thread_;
		int ret = pthread_getaffinity_np(t.native_handle(), sizeof(one), &one);
		if (ret)
			return -ret;
		CPU_OR(cpus, cpus, &one);
	}
	return (int)engines_.size();
}

void HcaImpl::stop_engines()
{
	stop_.store(true, std::memory_order_seq_cst);
	for (const std::unique_ptr<Engine> &e : engines_) {
		{
			std::lock_guard<std::mutex> lk(idle_mu_);
			e->wake_cv_.notify_one();
		}
		if (e->thread_.joinable())
			e->thread_.join();
	}
}

int HcaImpl::start(const cpu_set_t *engine_cpus, DoorbellSource *doorbells, bool per_cpu)
{
	int cpu[HCA_MAX_ENGINES];
	unsigned n = 0;

	if (mode_ != ExecMode::Thread)
		return 0;
	if (per_cpu && engine_cpus) {
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, engine_cpus))
				continue;
			if (n == HCA_MAX_ENGINES)
				return -E2BIG;
			cpu[n++] = c;
		}
		if (n == 0)
			return -EINVAL;
	} else {
		n = 1;
		cpu[0] = -1;
	}
	/* every Engine before any thread: kick() and the threads read engines_ unlocked */
	try {
		for (unsigned i = 0; i < n; i++)
			engines_.emplace_back(new Engine(*this, i));
	} catch (...) {
		engines_.clear();
		return -ENOMEM;
	}
	engines_[0]->doorbells_ = doorbells;
	if (n > 1) {
		mu_.several_engines();
		/* not on a fabric: its hosts share one mutex, and an inline host's doorbell
		 * takes it raw (DevMutex::raw()), excluding nothing */
		if (!caps_.fabric) {
			mu_.allow_unlocked();
			for (unsigned i = 0; i < n; i++)
				engines_[i]->unlocked_ = true;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		Engine &e = *engines_[i];
		/* "sim1-engine" (one) or "sim1-eng3" (several): 15 characters at most */
		std::string thread_name = name_.substr(0, 8) +
					  (n == 1 ? "-engine" : "-eng" + std::to_string(i));
		cpu_set_t one;
		int ret;

		try {
			e.thread_ = start_thread([&e](ThreadUp &u) {
				u.up();
				e.engine_main();
			});
		} catch (...) {
			return -ENOMEM; /* the destructor joins the ones started */
		}
		pthread_setname_np(e.thread_.native_handle(), thread_name.c_str());
		if (cpu[i] < 0 && engine_cpus == nullptr)
			continue;
		if (cpu[i] >= 0) {
			CPU_ZERO(&one);
			CPU_SET(cpu[i], &one);
		}
		ret = pthread_setaffinity_np(e.thread_.native_handle(), sizeof(one),
					     cpu[i] >= 0 ? &one : engine_cpus);
		if (ret)
			return -ret; /* -EINVAL: no usable CPU in the set; the destructor joins */
	}
	return 0;
}

} // namespace mlx5sim
