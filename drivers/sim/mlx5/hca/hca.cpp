/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The device instance: creation (unique names), destruction, fault injection,
 * statistics, and the commands of the objects it composes (MR/mkey, PSV, reserved
 * QPN, CQ, SRQ and QP tables, the fabric port): each takes the device lock around
 * the object's own operation and acts on what the object reports (a QP that
 * stopped answering, an SQ to resume). The data path is the SQ engine's
 * (sq_engine.h); doorbells and engine passes are in engine.cpp.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/random.h>

#include <chrono>
#include <set>

#include <unistd.h>

#include "fabric.h"
#include "hca_impl.h"

namespace mlx5sim {

namespace {

/**
 * Names of live instances. Intentionally leaked (never destroyed): an Hca held by a
 * static shared_ptr is destroyed among the static destructors, possibly after
 * this registry's would have run (as in provider/sim_registry.cpp).
 */
struct NameRegistry {
	std::mutex mu;
	std::set<std::string> names;
};

NameRegistry *g_names;

/* fork(): the parent's instances are not the child's; its lock may be held */
void names_fork_child()
{
	g_names = new NameRegistry;
}

NameRegistry &names()
{
	static bool once = (g_names = new NameRegistry,
			    pthread_atfork(nullptr, nullptr, names_fork_child), true);
	(void)once;
	return *g_names;
}

bool take_name(const std::string &name)
{
	NameRegistry &r = names();
	std::lock_guard<std::mutex> lk(r.mu);
	return r.names.insert(name).second;
}

void release_name(const std::string &name)
{
	NameRegistry &r = names();
	std::lock_guard<std::mutex> lk(r.mu);
	r.names.erase(name);
}

bool caps_valid(const HcaCaps &c)
{
	return c.max_qp && c.max_cq && c.max_mr && c.max_pd && c.max_cqe &&
	       c.max_qp <= 0xffffff - HCA_QPN_BASE && c.cqe_version <= 1 &&
	       c.max_sq_desc_sz >= MLX5_SEND_WQE_BB && c.max_send_wqebb &&
	       c.log_reserved_qpn_granularity <= HCA_RSV_QPN_MAX_LOG &&
	       (!c.share_lid ||
		(c.fabric && c.fabric_name[0] && c.lid && c.max_qp <= HCA_MEMBER_MAX_QP));
}

} // namespace

HcaImpl::HcaImpl(const std::string &name, const HcaCaps &caps, ExecMode mode)
	: Host(caps_, mrt_, cqt_, qpt_, events_, port_), name_(name), caps_(caps), mode_(mode),
	  mu_owner_(hca_device_lock(caps)), mu_(*mu_owner_),
	  mrt_(caps.max_pd, caps.max_mr, caps.odp_implicit), cqt_(caps_, events_, st_),
	  srqt_(caps_, mrt_), qpt_(caps_, this, mrt_, cqt_, srqt_, events_),
	  port_(caps_, mode_, *this, mu_, st_), sig_(psvs_, cqt_),
	  planner_(caps_, mrt_, psvs_, sig_, port_),
	  sq_(caps_, mode_, mu_, mrt_, qpt_, cqt_, planner_, sig_, port_, events_, st_)
{
	/* QPNs and keys differ from run to run: another process cannot guess them */
	uint64_t r[2];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* no entropy pool yet (early boot): still not a fixed sequence */
		r[0] = (uint64_t)std::chrono::steady_clock::now().time_since_epoch().count();
		r[1] = r[0] * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() ^ (uintptr_t)this;
	}
	qpt_.seed(r[0]);
	mrt_.seed(r[1]);
}

HcaImpl::~HcaImpl()
{
	stop_engines();
	port_.leave();
	release_name(name_);
}

std::shared_ptr<Hca> Hca::create(const std::string &name, const HcaCaps &caps, ExecMode mode,
				 const cpu_set_t *engine_cpus, DoorbellSource *doorbells,
				 bool engine_per_cpu)
{
	if (name.empty() || !caps_valid(caps))
		return nullptr;
	if (!take_name(name))
		return nullptr;
	/* a host of a machine-wide fabric: its LID is claimed there first */
	HcaCaps c = caps;
	int xfd = -1;
	if (c.fabric && c.fabric_name[0]) {
		c.fabric_name[sizeof(c.fabric_name) - 1] = 0;
		c.lid_member = 0;
		xfd = c.share_lid ? xfabric_join_lid(c.fabric_name, c.lid, &c.lid_member)
				  : xfabric_claim_lid(c.fabric_name, &c.lid);
		if (xfd < 0) {
			release_name(name);
			return nullptr;
		}
	}
	std::shared_ptr<HcaImpl> h;
	try {
		h = std::make_shared<HcaImpl>(name, c, mode);
	} catch (...) {
		if (xfd >= 0)
			close(xfd);
		release_name(name);
		return nullptr;
	}
	h->port_.xport_fd = xfd; /* the destructor closes it */
	if (h->port_.join() != 0 || h->start(engine_cpus, doorbells, engine_per_cpu) != 0)
		return nullptr; /* the destructor leaves the fabric, releases the name */
	return h;
}

int HcaImpl::inject(const Fault &f)
{
	DevLock lk(mu_);
	if (f.kind == Fault::Kind::CqOverrun) {
		QpObj *owner = f.qp_send_cq ? qpt_.find(f.qpn) : nullptr;
		CqObj *cq = f.qp_send_cq ? (owner ? owner->scq : nullptr) : cqt_.find(f.cqn);
		if (!cq)
			return -EINVAL;
		cq->overrun_fault = true;
		return 0;
	}
	QpObj *qp = qpt_.find(f.qpn);
	if (!qp)
		return -EINVAL;
	switch (f.kind) {
	case Fault::Kind::FailWqe:
		if (f.syndrome == 0)
			return -EINVAL;
		qp->fail_armed = true;
		qp->fail_next = f.next_wqe;
		qp->fail_idx = f.wqe_index;
		qp->fail_synd = f.syndrome;
		qp->fail_vendor = f.vendor_syndrome;
		return 0;
	case Fault::Kind::CorruptSig:
		qp->corrupt_sig_armed = true;
		return 0;
	case Fault::Kind::DelayCompletions:
		qp->delay_us = f.delay_us;
		return 0;
	case Fault::Kind::QpFatal:
		qpt_.enter_err(qp);
		events_.push(IBV_EVENT_QP_FATAL, qp->qpn, 0);
		qpt_.drain_overruns();
		return 0;
	default:
		return -EINVAL;
	}
}

namespace {

/** CREATE_* of a queue table: its checks need no lock, the table itself does. */
template <class Table, class Config>
int create_in(DevMutex &mu, Table &t, const Config &cfg, uint32_t *id)
{
	int rc = t.check(cfg, id);
	if (rc)
		return rc;
	DevLock lk(mu);
	return t.create(cfg, id);
}

template <class Table>
int destroy_in(DevMutex &mu, Table &t, uint32_t id)
{
	DevLock lk(mu);
	return t.destroy(id);
}

} // namespace

int HcaImpl::create_cq(const CqConfig &cfg, uint32_t *cqn)
{
	return create_in(mu_, cqt_, cfg, cqn);
}

int HcaImpl::destroy_cq(uint32_t cqn)
{
	return destroy_in(mu_, cqt_, cqn);
}

int HcaImpl::arm_cq(uint32_t cqn, uint32_t arm_word)
{
	DevLock lk(mu_);
	return cqt_.arm(cqn, arm_word);
}

int HcaImpl::resize_cq(uint32_t cqn, void *buf, uint32_t ncqe, uint32_t cqe_size)
{
	DevLock lk(mu_);
	return cqt_.resize(cqn, buf, ncqe, cqe_size);
}

int HcaImpl::create_srq(const SrqConfig &cfg, uint32_t *srqn)
{
	return create_in(mu_, srqt_, cfg, srqn);
}

int HcaImpl::destroy_srq(uint32_t srqn)
{
	return destroy_in(mu_, srqt_, srqn);
}

int HcaImpl::arm_srq(uint32_t srqn, uint32_t limit)
{
	DevLock lk(mu_);
	return srqt_.arm(srqn, limit);
}

int HcaImpl::query_srq(uint32_t srqn, uint32_t *limit)
{
	DevLock lk(mu_);
	SrqObj *srq = srqt_.find(srqn);
	if (!srq)
		return -EINVAL;
	*limit = srq->limit;
	return 0;
}

int HcaImpl::create_qp(const QpConfig &cfg, uint32_t *qpn)
{
	int rc = qpt_.check(cfg, qpn);
	if (rc)
		return rc;
	DevLock lk(mu_);
	rc = qpt_.create(cfg, qpn);
	if (rc == 0)
		pick_engine(qpt_.find(*qpn)); /* before anybody knows its number */
	return rc;
}

int HcaImpl::destroy_qp(uint32_t qpn)
{
	DevLock lk(mu_);
	QpObj *qp = qpt_.find(qpn);
	if (qp)
		drop_engine(qp);
	int rc = qpt_.destroy(qpn);
	if (rc == 0)
		port_.responders_changed_everywhere(); /* stalled on it: RETRY_EXC now */
	return rc;
}

int HcaImpl::query_qp(uint32_t qpn, QpInfo *info)
{
	if (!info)
		return -EINVAL;
	DevLock lk(mu_);
	return qpt_.query(qpn, info);
}

int HcaImpl::set_drain_sigerr(uint32_t qpn)
{
	DevLock lk(mu_);
	return qpt_.set_drain_sigerr(qpn);
}

int HcaImpl::modify_qp(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask)
{
	DevLock lk(mu_);
	QpTable::Next next;
	int rc = qpt_.modify(qpn, attr, attr_mask, &next);
	if (rc)
		return rc;
	if (next == QpTable::Next::Responders) {
		port_.responders_changed_everywhere();
	} else if (next == QpTable::Next::Resume) {
		QpObj *qp = qpt_.find(qpn);
		if (mode_ == ExecMode::Inline) {
			sq_.process_sq(qp);
			qpt_.drain_overruns();
		} else {
			qp->db_pending.store(true, std::memory_order_release);
			kick(qp);
		}
	}
	return 0;
}

int HcaImpl::set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us)
{
	return port_.set_link(down, loss_ppm, seed, delay_us);
}

int HcaImpl::dci_stream_reset(uint32_t qpn, uint16_t stream)
{
	DevLock lk(mu_);
	return qpt_.dci_stream_reset(qpn, stream);
}

int HcaImpl::alloc_pd(uint32_t *pdn)
{
	if (!pdn)
		return -EINVAL;
	DevLock lk(mu_);
	return mrt_.alloc_pd(pdn);
}

int HcaImpl::dealloc_pd(uint32_t pdn)
{
	DevLock lk(mu_);
	return mrt_.dealloc_pd(pdn);
}

int HcaImpl::reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key)
{
	int rc = mrt_.reg_mr_check(addr, len, access, key); /* pins: outside the lock */
	if (rc)
		return rc;
	DevLock lk(mu_);
	return mrt_.reg_mr(pdn, addr, len, access, key);
}

int HcaImpl::rereg_mr(uint32_t key, uint32_t pdn, uint64_t addr, uint64_t len, int access)
{
	uint32_t unused;
	int rc = mrt_.reg_mr_check(addr, len, access, &unused); /* pins: outside the lock */
	if (rc)
		return rc;
	DevLock lk(mu_);
	return mrt_.rereg_mr(key, pdn, addr, len, access);
}

int HcaImpl::dereg_mr(uint32_t key)
{
	DevLock lk(mu_);
	return mrt_.dereg_mr(key);
}

int HcaImpl::create_mkey(uint32_t pdn, uint32_t num_desc, uint32_t flags, uint32_t *key)
{
	int rc = -EINVAL;
	MkeyObj *mk = key ? MrTable::new_mkey(num_desc, flags, &rc) : nullptr;
	if (!mk)
		return rc;
	DevLock lk(mu_);
	return mrt_.add_mkey(pdn, mk, key);
}

int HcaImpl::destroy_mkey(uint32_t key)
{
	DevLock lk(mu_);
	return mrt_.destroy_mkey(key);
}

int HcaImpl::create_psv(uint32_t pdn, uint32_t *psv_index)
{
	if (!psv_index)
		return -EINVAL;
	DevLock lk(mu_);
	if (!mrt_.pd_live(pdn))
		return -EINVAL;
	int rc = psvs_.create(pdn, caps_.max_psv, psv_index);
	if (rc == 0)
		mrt_.pd_get(pdn);
	return rc;
}

int HcaImpl::destroy_psv(uint32_t psv_index)
{
	DevLock lk(mu_);
	uint32_t pdn;
	int rc = psvs_.destroy(psv_index, &pdn);
	if (rc == 0)
		mrt_.pd_put(pdn);
	return rc;
}

int HcaImpl::create_reserved_qpn(uint32_t log_range, uint32_t *first_qpn)
{
	if (!caps_.reserved_qpn)
		return -EOPNOTSUPP;
	if (!first_qpn || log_range < caps_.log_reserved_qpn_granularity ||
	    log_range > HCA_RSV_QPN_MAX_LOG)
		return -EINVAL;
	DevLock lk(mu_);
	/* a host of a machine-wide fabric keeps them in its LID member's window */
	uint32_t lo = HCA_QPN_BASE + ((uint32_t)caps_.lid_member << HCA_MEMBER_SHIFT) +
		      caps_.max_qp;
	uint32_t hi = HCA_QPN_END;
	if (caps_.fabric_name[0] && caps_.max_qp <= HCA_MEMBER_MAX_QP)
		hi = ((uint32_t)caps_.lid_member + 1) << HCA_MEMBER_SHIFT;
	return rsv_qpns_.create(lo, hi, log_range, first_qpn);
}

int HcaImpl::destroy_reserved_qpn(uint32_t first_qpn)
{
	DevLock lk(mu_);
	return rsv_qpns_.destroy(first_qpn);
}

HcaStats HcaImpl::stats() const
{
	HcaStats s;
	s.doorbells = st_doorbells_.load(std::memory_order_relaxed);
	s.wqes_executed = st_.wqes.get();
	s.cqes_written = st_.cqes.get();
	s.error_cqes = st_.err_cqes.get();
	s.bytes_moved = st_.bytes.get();
	/* engines_ is fixed once start() returned; an unlocked pass counts no errors */
	for (const std::unique_ptr<Engine> &e : engines_) {
		s.wqes_executed += e->unlocked_st_.wqes.get();
		s.cqes_written += e->unlocked_st_.cqes.get();
		s.bytes_moved += e->unlocked_st_.bytes.get();
	}
	return s;
}

uint64_t HcaImpl::fast_wqes() const
{
	uint64_t n = st_.fast_wqes.get();
	for (const std::unique_ptr<Engine> &e : engines_)
		n += e->unlocked_st_.fast_wqes.get();
	return n;
}

} // namespace mlx5sim
