/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: configuration, devices, contexts (one per open of the character
 * device), their objects and mmaps, and access to the caller's memory.
 */
#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "hca_limits.h"
#include "mlx5_abi.h"
#include "sim_options.h"
#include "thread_up.h"
#include "kside.h"

namespace mlx5sim {
namespace kernel {

/* ---- configuration and log ---------------------------------------------------------- */

namespace {

int g_log_level = 1;

Config read_config()
{
	Config c;
	const char *s = getenv("MLX5_SIM_RDMA_DEVICES");
	if (s && *s) {
		char *end;
		unsigned long n = strtoul(s, &end, 10);
		if (*end || n > kMaxDevices)
			fprintf(stderr,
				"mlx5-sim-kernel: MLX5_SIM_RDMA_DEVICES=%s: not 0..%u, no "
				"devices\n",
				s, kMaxDevices);
		else
			c.n_devices = (unsigned)n;
	}
	s = getenv("MLX5_SIM_RDMA_ID");
	if (s && *s)
		c.run_id = (uint32_t)strtoul(s, nullptr, 10);
	s = getenv("MLX5_SIM_RDMA_DEVARGS");
	if (s)
		c.devargs = s;
	s = getenv("MLX5_SIM_RDMA_LOG");
	if (s && *s >= '0' && *s <= '9')
		g_log_level = *s - '0';
	return c;
}

} // namespace

const Config &config()
{
	static const Config *c = new Config(read_config()); /* never freed: used until exit */
	return *c;
}

int log_level()
{
	(void)config();
	return g_log_level;
}

void klog(int level, const char *fmt, ...)
{
	if (level > log_level())
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write: lines of several threads do not interleave */
	static const char prefix[] = "mlx5-sim-kernel: ";
	char out[sizeof(prefix) + sizeof(line)];
	memcpy(out, prefix, sizeof(prefix) - 1);
	memcpy(out + sizeof(prefix) - 1, line, (size_t)n);
	ssize_t r = sys::write(2, out, sizeof(prefix) - 1 + (size_t)n);
	(void)r;
}

/* ---- the caller's memory ---------------------------------------------------------- */

bool copy_from_user(void *dst, uint64_t src, size_t n)
{
	if (n == 0)
		return true;
	struct iovec local = {dst, n};
	struct iovec remote = {reinterpret_cast<void *>(src), n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

bool copy_to_user(uint64_t dst, const void *src, size_t n)
{
	if (n == 0)
		return true;
	struct iovec local = {const_cast<void *>(src), n};
	struct iovec remote = {reinterpret_cast<void *>(dst), n};
	return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

bool user_range_writable(uint64_t addr, uint64_t len)
{
	if (len == 0 || addr + len < addr)
		return false;
	/* one byte per page, read and written back through the kernel: never a fault */
	for (uint64_t p = addr; p < addr + len; p = (p & ~(kPage - 1)) + kPage) {
		uint8_t b;
		if (!copy_from_user(&b, p, 1) || !copy_to_user(p, &b, 1))
			return false;
	}
	return true;
}

/* ---- doorbells ---------------------------------------------------------------------- */

namespace {

struct Watch {
	Hca *hca;
	uint32_t qpn;
	const uint32_t *dbrec; /**< [0] RQ counter, [1] SQ counter (BE32) */
	uint32_t rq, sq;       /**< last seen */
};

/** An SRQ's doorbell record: [0] the counter of posted WQEs (BE32). */
struct SrqWatch {
	Hca *hca;
	uint32_t srqn;
	const uint32_t *dbrec;
	uint32_t seen;
};

/** A CQ with a completion channel: its arm word (dbrec[1]) as last seen. */
struct ArmWatch {
	Hca *hca;
	uint32_t cqn;
	const uint32_t *dbrec;
	uint32_t arm; /**< raw (BE) */
};

/**
 * One per device: the doorbell records of its QPs and SRQs and the arm words of its
 * CQs with a channel, and their reader. In thread mode the reader is the device's
 * engine thread (Hca::create's DoorbellSource): the thread that notices a doorbell
 * executes its WQEs, as in the imitation provider, whose doorbell rings the engine
 * directly. Inline, it is a thread of its own that executes what it rings.
 */
struct Watcher final : DoorbellSource {
	std::mutex lock;
	std::vector<Watch> qps;
	std::vector<SrqWatch> srqs;
	std::vector<ArmWatch> cqs;
	Device *dev = nullptr;  /**< set before the first poll, never changed */
	Hca *hca = nullptr;     /**< the device's (one per device), under lock */
	bool running = false;   /**< a thread of its own runs (inline) */
	bool by_engine = false; /**< the engine thread polls it (thread mode) */

	/* the polling thread's own; last_work: the inline thread's last doorbell */
	std::chrono::steady_clock::time_point last_work = std::chrono::steady_clock::now();
	unsigned rounds = 0;
	bool slack_set = false;

	/** One look at every record; true: something was rung. */
	bool scan();
	void deliver();
	void poll() override;
	std::chrono::nanoseconds idle(std::chrono::nanoseconds quiet) override;
};

Watcher *g_watchers; /* never freed: their threads run to exit */

Watcher *watcher(Device *dev)
{
	static bool once = (g_watchers = new Watcher[kMaxDevices], true);
	(void)once;
	return &g_watchers[dev->index];
}

uint32_t load_be32(const uint32_t *p)
{
	return be32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

bool Watcher::scan()
{
	bool busy = false;
	std::lock_guard<std::mutex> g(lock);
	for (ArmWatch &c : cqs) {
		/* the CQ doorbell: libmlx5 writes the record, then the UAR */
		uint32_t arm = __atomic_load_n(&c.dbrec[1], __ATOMIC_ACQUIRE);
		if (arm != c.arm) {
			c.arm = arm;
			c.hca->arm_cq(c.cqn, be32toh(arm));
			busy = true;
		}
	}
	for (Watch &q : qps) {
		uint32_t sq = load_be32(&q.dbrec[1]), rq = load_be32(&q.dbrec[0]);
		if (rq != q.rq) {
			q.rq = rq;
			q.hca->rq_notify(q.qpn);
			busy = true;
		}
		if (sq != q.sq) {
			q.sq = sq;
			q.hca->sq_doorbell(q.qpn, 0); /* it fetches up to the counter */
			busy = true;
		}
	}
	for (SrqWatch &sw : srqs) {
		uint32_t c = load_be32(&sw.dbrec[0]);
		if (c != sw.seen) {
			sw.seen = c;
			/* a send waiting for a receive WQE may go */
			sw.hca->srq_notify(sw.srqn);
			busy = true;
		}
	}
	return busy;
}

void Watcher::deliver()
{
	Hca *h;
	{
		std::lock_guard<std::mutex> g(lock);
		h = hca;
	}
	if (h)
		deliver_async_events(dev, h);
}

void Watcher::poll()
{
	if (!slack_set) {
		/* sleeps of a few microseconds end when asked, not 50 us later (the default
		 * slack); this is the polling thread */
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
		slack_set = true;
	}
	if (scan())
		last_work = std::chrono::steady_clock::now();
	/* async events: at each pause, and every 1024 rounds while spinning */
	if (!(++rounds & 1023))
		deliver();
}

std::chrono::nanoseconds Watcher::idle(std::chrono::nanoseconds quiet)
{
	deliver();
	return watch_pause(quiet);
}

/** Inline mode: the device's doorbell thread, executing what it rings on itself. */
void watch_loop(Watcher *w)
{
	for (;;) {
		w->poll();
		std::chrono::nanoseconds quiet = std::chrono::steady_clock::now() - w->last_work;
		if (watch_pause(quiet).count() == 0) {
			cpu_relax(); /* spinning */
			continue;
		}
		std::this_thread::sleep_for(w->idle(quiet));
	}
}

} // namespace

std::chrono::nanoseconds watch_pause(std::chrono::nanoseconds quiet)
{
	constexpr std::chrono::nanoseconds kSpin = std::chrono::microseconds(50);
	constexpr std::chrono::nanoseconds kMax = std::chrono::milliseconds(1);
	if (quiet < kSpin)
		return std::chrono::nanoseconds(0);
	return quiet / 16 < kMax ? quiet / 16 : kMax;
}

namespace {

/** Somebody reads the device's records: its engine, or a thread of its own (w->lock held). */
void watcher_start(Watcher *w, Device *dev, Hca *hca)
{
	(void)dev; /* set when the device's HCA was made (device_hca) */
	w->hca = hca;
	if (!w->running && !w->by_engine) {
		start_thread([w](ThreadUp &u) {
			u.up();
			watch_loop(w);
		}).detach();
		w->running = true;
	}
}

} // namespace

void doorbell_watch(Device *dev, Hca *hca, uint32_t qpn, const uint32_t *dbrec)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	w->qps.push_back(Watch{hca, qpn, dbrec, load_be32(&dbrec[0]), load_be32(&dbrec[1])});
	watcher_start(w, dev, hca);
}

void cq_arm_watch(Device *dev, Hca *hca, uint32_t cqn, const uint32_t *dbrec, uint32_t seen)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	w->cqs.push_back(ArmWatch{hca, cqn, dbrec, seen});
	watcher_start(w, dev, hca);
}

uint32_t cq_arm_unwatch(Device *dev, uint32_t cqn)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	for (size_t i = 0; i < w->cqs.size(); i++) {
		if (w->cqs[i].cqn == cqn) {
			uint32_t seen = w->cqs[i].arm;
			w->cqs.erase(w->cqs.begin() + (long)i);
			return seen;
		}
	}
	return 0;
}

void srq_doorbell_watch(Device *dev, Hca *hca, uint32_t srqn, const uint32_t *dbrec)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	w->srqs.push_back(SrqWatch{hca, srqn, dbrec, load_be32(&dbrec[0])});
	/* the thread also delivers the async events: it must know the device's HCA */
	watcher_start(w, dev, hca);
}

const uint32_t *srq_doorbell_unwatch(Device *dev, uint32_t srqn)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	for (size_t i = 0; i < w->srqs.size(); i++) {
		if (w->srqs[i].srqn == srqn) {
			const uint32_t *dbrec = w->srqs[i].dbrec;
			w->srqs.erase(w->srqs.begin() + (long)i);
			return dbrec;
		}
	}
	return nullptr;
}

void doorbell_resync(Device *dev, uint32_t qpn)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	for (Watch &q : w->qps) {
		if (q.qpn != qpn)
			continue;
		q.rq = load_be32(&q.dbrec[0]);
		q.sq = load_be32(&q.dbrec[1]);
		q.hca->rq_notify(qpn);
		q.hca->sq_doorbell(qpn, 0);
		return;
	}
}

const uint32_t *doorbell_unwatch(Device *dev, uint32_t qpn)
{
	Watcher *w = watcher(dev);
	std::lock_guard<std::mutex> g(w->lock);
	for (size_t i = 0; i < w->qps.size(); i++) {
		if (w->qps[i].qpn == qpn) {
			const uint32_t *dbrec = w->qps[i].dbrec;
			w->qps.erase(w->qps.begin() + (long)i);
			return dbrec;
		}
	}
	return nullptr;
}

/* ---- devices ---------------------------------------------------------------------- */

uint64_t node_guid_of(uint32_t run_id, unsigned index)
{
	/* Mellanox OUI 00:02:c9, then the run and the device: unique per wrapper run */
	return 0x0002c90300000000ull | (uint64_t)(run_id & 0xffff) << 16 | (index & 0xffff);
}

dev_t device_rdev(unsigned index)
{
	return makedev(kUverbsMajor, kUverbsMinorBase + index);
}

Device *device(unsigned index)
{
	static Device *devs = [] {
		Device *d = new Device[kMaxDevices]; /* never freed: engine threads outlive exit */
		for (unsigned i = 0; i < kMaxDevices; i++) {
			d[i].index = i;
			d[i].ibdev = "mlx5_" + std::to_string(i);
			d[i].node_guid = node_guid_of(config().run_id, i);
			d[i].rdev = device_rdev(i);
		}
		return d;
	}();
	return index < config().n_devices ? &devs[index] : nullptr;
}

namespace {

/** MLX5_SIM_RDMA_DEVARGS: the software HCA's options, "k=v,k=v" as dma_mlx5's devargs. */
int devargs_to_caps(const std::string &s, HcaCaps *caps, ExecMode *mode, cpu_set_t *cpus,
		    bool *cpus_set)
{
	std::vector<std::string> keys, vals;
	size_t pos = 0;
	while (pos < s.size()) {
		size_t end = pos, depth = 0;
		/* commas inside [..] belong to the value (sim_fabric_uids=[1001,1002]) */
		while (end < s.size() && (s[end] != ',' || depth)) {
			depth += s[end] == '[';
			depth -= s[end] == ']' && depth;
			end++;
		}
		std::string kv = s.substr(pos, end - pos);
		size_t eq = kv.find('=');
		if (!kv.empty()) {
			keys.push_back(kv.substr(0, eq));
			vals.push_back(eq == std::string::npos ? "" : kv.substr(eq + 1));
		}
		pos = end + 1;
	}
	std::vector<struct mlx5_glue_option> opts(keys.size());
	for (size_t i = 0; i < keys.size(); i++) {
		opts[i].key = keys[i].c_str();
		opts[i].value = vals[i].c_str();
	}
	struct mlx5_sim_device_attr attr;
	char why[256] = "";
	int ret = sim_parse_options(opts.data(), (unsigned)opts.size(), &attr, why, sizeof(why));
	if (ret) {
		klog(1, "MLX5_SIM_RDMA_DEVARGS: %s", why);
		return ret;
	}
	if (attr.exec_mode == MLX5_SIM_EXEC_POLLED) {
		/* nobody here calls the device's progress(): the engine thread is the device */
		klog(1, "MLX5_SIM_RDMA_DEVARGS: sim_exec=service needs a DPDK service; use "
			"thread or inline");
		return -EINVAL;
	}
	if (!sim_attr_to_caps(attr, caps, mode)) {
		klog(1, "MLX5_SIM_RDMA_DEVARGS '%s': bad attribute", s.c_str());
		return -EINVAL;
	}
	*cpus = attr.engine_cpus;
	*cpus_set = attr.engine_cpus_set;
	return 0;
}

} // namespace

std::string devargs_of(const std::string &all, unsigned index)
{
	/* "set0;set1;...": set i for device i, the last one for the devices after it */
	size_t pos = 0;
	for (unsigned i = 0; i < index; i++) {
		size_t semi = all.find(';', pos);
		if (semi == std::string::npos)
			break;
		pos = semi + 1;
	}
	size_t semi = all.find(';', pos);
	return all.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
}

/*
 * fork(): the child's devices are the parent's copies, without their threads.
 * They stay as they are for the fds the child inherited (their contexts hold
 * them); the child's next open gets a device of its own, on the parent's port.
 */
void devices_fork_child()
{
	for (unsigned i = 0; i < config().n_devices; i++) {
		Device *d = device(i);
		new (&d->lock) std::mutex; /* a thread that held it is not in the child */
		if (d->hca) {
			/* its inherited contexts' commands: the lock an engine held at the fork */
			d->hca->fork_child();
			d->parent_lid = d->hca->caps().lid;
			/* never destroyed here: its threads and its peers are the parent's */
			(void)new std::shared_ptr<Hca>(std::move(d->hca));
			d->hca = nullptr;
		}
	}
	g_watchers = new Watcher[kMaxDevices]; /* the copies' threads are not in the child */
}

std::shared_ptr<Hca> device_hca(Device *dev)
{
	static bool once = (pthread_atfork(nullptr, nullptr, devices_fork_child), true);
	(void)once;
	std::lock_guard<std::mutex> g(dev->lock);
	if (dev->hca)
		return dev->hca;
	HcaCaps caps;
	ExecMode mode = ExecMode::Thread;
	cpu_set_t cpus;
	bool cpus_set = false;
	if (devargs_to_caps(devargs_of(config().devargs, dev->index), &caps, &mode, &cpus,
			    &cpus_set))
		return nullptr;
	/* the port's LID as query_port reports it: the device number + 1 */
	caps.lid = (uint16_t)(dev->index + 1);
	caps.dma_opaque = true; /* Debian's libmlx5 polls the CQs */
	Watcher *w = watcher(dev);
	w->dev = dev; /* before the engine thread starts: it reads it unlocked */
	try {
		/* a fork child shares its parent's port when it can (machine-wide fabric) */
		if (dev->parent_lid && caps.fabric && caps.fabric_name[0] &&
		    caps.max_qp <= HCA_MEMBER_MAX_QP) {
			HcaCaps shared = caps;
			shared.lid = dev->parent_lid;
			shared.share_lid = true;
			dev->hca = Hca::create(dev->ibdev, shared, mode, cpus_set ? &cpus : nullptr,
					       w, cpus_set);
			if (!dev->hca)
				klog(1, "%s: LID %u of the parent process not shared, claiming one",
				     dev->ibdev.c_str(), (unsigned)dev->parent_lid);
		}
		/* thread mode: the engine reads the doorbell records itself */
		if (!dev->hca)
			dev->hca = Hca::create(dev->ibdev, caps, mode, cpus_set ? &cpus : nullptr,
					       w, cpus_set);
	} catch (...) {
		dev->hca = nullptr;
	}
	if (!dev->hca) {
		klog(1, "%s: the software HCA could not be created", dev->ibdev.c_str());
		return nullptr;
	}
	std::lock_guard<std::mutex> wg(w->lock);
	w->by_engine = mode == ExecMode::Thread;
	w->hca = dev->hca.get();
	return dev->hca;
}

uint16_t device_lid_if_made(Device *dev)
{
	std::lock_guard<std::mutex> g(dev->lock);
	return dev->hca ? dev->hca->caps().lid : 0;
}

void fill_chardev_stat(unsigned index, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = device_rdev(index);
	st->st_nlink = 1;
	st->st_blksize = 4096;
	st->st_ino = 0x5a1000 + index;
	st->st_dev = makedev(0, 5); /* devtmpfs-like */
}

/* ---- contexts ----------------------------------------------------------------------- */

namespace {
std::atomic<uint64_t> g_context_serial{0};
}

Context::Context(Device *dev, int fd) : serial(++g_context_serial), dev_(dev), fd_(fd)
{
}

Context::~Context()
{
	/* DevX objects first: mkeys and PSVs hold their PDs (devx_cmds.cpp) */
	for (auto it = objs.rbegin(); it != objs.rend(); ++it)
		if (it->second.type == Uobj::Type::DevxObj)
			destroy_obj(it->second);
	/* as the kernel at the last close: every object of the file, users first */
	static const Uobj::Type order[] = {Uobj::Type::Qp,        Uobj::Type::Srq, Uobj::Type::Cq,
					   Uobj::Type::Mr,        Uobj::Type::Pd,  Uobj::Type::Uar,
					   Uobj::Type::AsyncEvent};
	for (Uobj::Type t : order)
		for (auto it = objs.rbegin(); it != objs.rend(); ++it)
			if (it->second.type == t)
				destroy_obj(it->second);
}

uint32_t Context::add(const Uobj &o)
{
	while (next_handle == 0 || objs.count(next_handle))
		next_handle++;
	uint32_t h = next_handle++;
	objs[h] = o;
	return h;
}

Uobj *Context::find(uint32_t handle, Uobj::Type t)
{
	auto it = objs.find(handle);
	return it == objs.end() || it->second.type != t ? nullptr : &it->second;
}

int Context::destroy_obj(Uobj &o)
{
	int ret = 0;
	switch (o.type) {
	case Uobj::Type::Pd:
		ret = hca->dealloc_pd(o.pdn);
		break;
	case Uobj::Type::Mr:
		ret = hca->dereg_mr(o.key);
		break;
	case Uobj::Type::Uar:
		if (o.uar_dev)
			munmap(o.uar_dev, kPage);
		o.uar_dev = nullptr;
		break;
	case Uobj::Type::Cq:
		obj_events_destroying(*this, o);
		ret = hca->destroy_cq(o.cqn);
		if (ret)
			obj_events_undo(*this, o);
		else
			obj_events_destroyed(*this, o);
		break;
	case Uobj::Type::Qp: {
		/*
		 * Unwatched first: the watcher hands a doorbell it notices to the device
		 * without the device lock, which must not find the QP while it is freed.
		 * A refused destroy watches again and catches up with what was rung.
		 */
		const uint32_t *dbrec = doorbell_unwatch(dev_, o.qpn);
		ret = hca->destroy_qp(o.qpn);
		if (ret && dbrec) {
			doorbell_watch(dev_, hca.get(), o.qpn, dbrec);
			doorbell_resync(dev_, o.qpn);
		}
		if (!ret)
			obj_events_destroyed(*this, o);
		break;
	}
	case Uobj::Type::Srq: {
		const uint32_t *dbrec = srq_doorbell_unwatch(dev_, o.srqn);
		ret = hca->destroy_srq(o.srqn);
		if (ret && dbrec) {
			srq_doorbell_watch(dev_, hca.get(), o.srqn, dbrec);
			hca->srq_notify(o.srqn); /* posts meanwhile: any stalled send may go */
		}
		if (!ret)
			obj_events_destroyed(*this, o);
		break;
	}
	case Uobj::Type::AsyncEvent:
		break;
	case Uobj::Type::DevxObj:
		ret = devx_obj_destroy(*hca, o);
		break;
	}
	return ret;
}

int Context::ioctl(unsigned long request, uint64_t arg)
{
	if (request != kRdmaVerbsIoctl) {
		klog(1, "uverbs%u: ioctl request 0x%lx is not RDMA_VERBS_IOCTL", dev_->index,
		     request);
		return -ENOTTY;
	}
	AfterUnlock after;
	int ret;
	{
		std::lock_guard<std::mutex> g(lock);
		ret = dispatch_ioctl(*this, arg, &after);
	}
	/* long work on the process's own memory: other commands of the fd go on meanwhile */
	return ret ? ret : after.run(dev_->index);
}

void *Context::mmap(void *addr, size_t len, int prot, int flags, off_t off)
{
	uint64_t pgoff = (uint64_t)off / kPage;
	uint32_t cmd = (uint32_t)(pgoff >> kMmapCmdShift) & 0xff;
	uint32_t index = (uint32_t)((pgoff >> 16) & 0xff) << 8 | (uint32_t)(pgoff & 0xff);
	std::lock_guard<std::mutex> g(lock);

	if ((uint64_t)off % kPage || cmd < kMmapCmdDynFirst || len != kPage ||
	    !(flags & MAP_SHARED) || (prot & PROT_EXEC)) {
		/* no clock pages, no static UARs: only UAR objects have offsets (mlx5_abi.h) */
		klog(1,
		     "uverbs%u: mmap of %zu bytes at offset 0x%llx (command %u) prot 0x%x: "
		     "no such mapping",
		     dev_->index, len, (unsigned long long)off, cmd, prot);
		errno = EINVAL;
		return MAP_FAILED;
	}
	uint32_t page = (cmd - kMmapCmdDynFirst) << 16 | index;
	for (auto &kv : objs) {
		const Uobj &o = kv.second;
		if (o.type == Uobj::Type::Uar && o.uar_page == page)
			return sys::mmap(addr, len, prot, flags, fd(), (off_t)(page * kPage));
	}
	klog(1, "uverbs%u: mmap offset 0x%llx: no UAR there", dev_->index, (unsigned long long)off);
	errno = EINVAL;
	return MAP_FAILED;
}

int open_device(unsigned index, int flags)
{
	Device *dev = device(index);
	if (!dev)
		return -ENOENT;
	char name[32];
	snprintf(name, sizeof(name), "uverbs%u", index);
	int fd = memfd_create(name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -errno;
	std::shared_ptr<Context> ctx;
	try {
		ctx = std::make_shared<Context>(dev, fd);
	} catch (...) {
		sys::close(fd);
		return -ENOMEM;
	}
	fd_register_context(fd, ctx);
	klog(2, "uverbs%u: opened as fd %d", index, fd);
	return fd;
}

} // namespace kernel
} // namespace mlx5sim
