/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side of the software HCA: what the uverbs character device of an mlx5
 * device does, served in the process itself (doc/guides/sim/kernel_side.rst).
 *
 * Devices: MLX5_SIM_RDMA_DEVICES software HCA instances, uverbs<i> / mlx5_<i>,
 * created at their first open. Each open of /dev/infiniband/uverbs<i> is a
 * Context (the kernel's ib_uverbs_file + ucontext): its objects by handle, its
 * UAR pages, its async event fds. The libc entry points (libc_intercept.cpp)
 * hand the calls on a fake fd to the Context; the rest goes to libc.
 */
#ifndef MLX5_SIM_KERNEL_KSIDE_H
#define MLX5_SIM_KERNEL_KSIDE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <infiniband/verbs.h>

#include "hca.h"
#include "uverbs_abi.h"

namespace mlx5sim {
namespace kernel {

/** Most devices one process serves. */
constexpr unsigned kMaxDevices = 16;
/** Character device numbers: uverbs major, first minor (any agree with sysfs "dev"). */
constexpr unsigned kUverbsMajor = 231;
constexpr unsigned kUverbsMinorBase = 192;
constexpr uint64_t kPage = 4096;

/* ---- libc, bypassing the interposers --------------------------------------------- */
namespace sys {
int close(int fd);
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
/**
 * In a fork() child: eventfd @p fd (an event fd's count, shared with the parent)
 * replaced under its number by a semaphore eventfd of the child's own counting
 * @p count, its O_NONBLOCK and FD_CLOEXEC kept. Async-signal-safe.
 */
void own_counter(int fd, unsigned count);
} // namespace sys

/* ---- memory of the calling process ------------------------------------------------ */
/**
 * copy_from_user / copy_to_user: through the kernel (process_vm_readv/writev on
 * the own process), so a bad pointer gives false (EFAULT), never a signal.
 */
bool copy_from_user(void *dst, uint64_t src, size_t n);
bool copy_to_user(uint64_t dst, const void *src, size_t n);

/** One log line on stderr (level 1: refusals, 2: every command), MLX5_SIM_RDMA_LOG. */
void klog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int log_level();

/* ---- devices --------------------------------------------------------------------- */

struct Device {
	unsigned index;
	std::string ibdev;  /**< mlx5_<index> */
	uint64_t node_guid; /**< host order */
	dev_t rdev;
	std::mutex lock; /**< creation of hca */
	std::shared_ptr<Hca> hca;
	/**
	 * A fork() child's: the LID of the device its parent had (0: none). The
	 * child's own device shares that port (HcaCaps::share_lid) when the parent's
	 * is on a machine-wide fabric, as processes share a port under a kernel.
	 */
	uint16_t parent_lid = 0;
};

/** Configuration from the environment (read once). */
struct Config {
	unsigned n_devices = 0; /**< MLX5_SIM_RDMA_DEVICES; 0: the library is inert */
	uint32_t run_id = 0;    /**< MLX5_SIM_RDMA_ID: part of the node GUIDs */
	std::string devargs;    /**< MLX5_SIM_RDMA_DEVARGS */
};
const Config &config();
/** Device @p index, or NULL. */
Device *device(unsigned index);
/** Node GUID of device @p index in run @p run_id (devtools/sim-rdma writes the same). */
uint64_t node_guid_of(uint32_t run_id, unsigned index);
/**
 * The software HCA behind @p dev, created on first use from MLX5_SIM_RDMA_DEVARGS.
 * NULL (errno set, one log line) when the options are bad or creation failed.
 */
std::shared_ptr<Hca> device_hca(Device *dev);
/** The LID of @p dev's port if its HCA exists in this process (never made here), else 0. */
uint16_t device_lid_if_made(Device *dev);

/* ---- fake fds ----------------------------------------------------------------------- */

class Context;

struct ObjEvents;

/**
 * An event fd (uverbs_events.cpp): the async event fd (16-byte descriptors) or a
 * completion channel (8-byte ones). An eventfd (semaphore) counting the queued
 * descriptors, so poll/epoll work; its count changes only under @ref lock.
 */
struct EventFile {
	enum class Kind : uint8_t {
		Async,
		Comp
	};
	Kind kind = Kind::Async;
	/**
	 * One of the process's fds of it (dups share the eventfd), changed under
	 * @ref lock when that one is closed; -1 once the last is (libc_intercept.cpp).
	 */
	int fd = -1;
	uint64_t owner = 0; /**< Context::serial of the context that made it */
	std::mutex lock;
	struct Entry {
		uint8_t desc[16];
		std::shared_ptr<ObjEvents> owner; /**< counts it when read; NULL: unaffiliated */
	};
	std::deque<Entry> events;
	size_t desc_size() const { return kind == Kind::Async ? 16 : 8; }
	/** Queue one descriptor and make the fd readable (nothing once closed). */
	void push(const void *desc, const std::shared_ptr<ObjEvents> &owner);
	void push(const AsyncEventDesc &ev) { push(&ev, nullptr); }
	/** read(): one descriptor to @p buf (checked copy): its size or -errno. */
	ssize_t read(void *buf, size_t n);
	/** Forget the queued events of @p owner (its object is destroyed). */
	void drop(const ObjEvents *owner);
};
using AsyncFile = EventFile;

/**
 * The events of one CQ or QP (the kernel's ib_uevent_object / ib_ucq_object):
 * where they go and how many of them the process has read, which is what the
 * destroy response reports and libibverbs then waits to see acknowledged.
 */
struct ObjEvents : std::enable_shared_from_this<ObjEvents> {
	uint64_t user_handle = 0;
	std::shared_ptr<EventFile> async; /**< its async events (may be NULL) */
	std::shared_ptr<EventFile> comp;  /**< CQ: its completion channel, or NULL */
	std::atomic<uint32_t> async_reported{0};
	std::atomic<uint32_t> comp_reported{0};
	const uint32_t *dbrec = nullptr; /**< CQ with a channel: its doorbell record */
	uint32_t arm_seen = 0;           /**< ... its arm word last seen (raw) */
};

/**
 * A uverbs object of a Context (the kernel's uobject). Handles come from one space
 * shared by all types, as the kernel's per-file xarray.
 */
struct Uobj {
	enum class Type : uint8_t {
		Pd,
		Mr,
		Uar,
		AsyncEvent,
		Cq,
		Qp,
		Srq,
		DevxObj /**< an object DEVX_OBJ/CREATE made (devx_cmds.cpp) */
	} type;
	uint32_t pdn = 0;                 /**< Pd */
	uint32_t key = 0;                 /**< Mr: lkey = rkey */
	uint64_t mr_addr = 0;             /**< Mr: the range in force (REREG_MR) */
	uint64_t mr_len = 0;              /**< Mr */
	uint32_t mr_access = 0;           /**< Mr: the access in force */
	uint32_t pd_handle = 0;           /**< Mr, Qp */
	uint32_t cqn = 0;                 /**< Cq */
	uint32_t cq_ncqe = 0;             /**< Cq: entries of its ring now (RESIZE_CQ) */
	uint32_t qpn = 0;                 /**< Qp */
	uint64_t user_handle = 0;         /**< Cq, Qp: the element of their events */
	QpCap cap = {};                   /**< Qp: as created */
	struct ibv_qp_attr attr = {};     /**< Qp: what modify_qp set, for query_qp */
	bool sq_sig_all = false;          /**< Qp: created with SQ_SIG_ALL */
	bool mmo = false;                 /**< Qp: INIT2INIT set qpc_ext.mmo */
	bool dct = false;                 /**< Qp: a DC target (EX_MODIFY_QP's dctn) */
	uint32_t qp_type = 0;             /**< Qp: kUverbsQpt* as created (DC: driver) */
	uint32_t srqn = 0;                /**< Srq; Qp: the SRQ it receives from (0: none) */
	uint32_t srq_max_wr = 0;          /**< Srq: WQEs of its ring - 1 */
	uint32_t srq_max_sge = 0;         /**< Srq: data segments per WQE */
	uint32_t uar_page = 0;            /**< Uar: page index in the context's memfd = page_id */
	void *uar_dev = nullptr;          /**< Uar: the device's own mapping of the page */
	std::shared_ptr<AsyncFile> async; /**< AsyncEvent */
	uint16_t devx_op = 0;             /**< DevxObj: the PRM create opcode */
	uint32_t devx_id = 0;             /**< DevxObj: mkey key, PSV index, first QPN */
	std::shared_ptr<ObjEvents> ev;    /**< Cq, Qp, Srq: their events (uverbs_events.cpp) */
};

/** One open of /dev/infiniband/uverbs<i>. */
class Context {
public:
	Context(Device *dev, int fd);
	~Context();

	Device *dev() const { return dev_; }
	/** One of the process's fds of it (its dups share the memfd). */
	int fd() const { return fd_.load(std::memory_order_acquire); }
	/** That fd was closed, @p other is still open (libc_intercept.cpp). */
	void set_fd(int other) { fd_.store(other, std::memory_order_release); }
	/** Unique for the life of the process: what event fds name their context by. */
	const uint64_t serial;

	/** ioctl(fd, request, arg): 0 or a negative errno. */
	int ioctl(unsigned long request, uint64_t arg);
	/** mmap on the command fd: the mapping, or MAP_FAILED with errno set. */
	void *mmap(void *addr, size_t len, int prot, int flags, off_t off);

	/* used by the method handlers (uverbs_cmds.cpp) */
	std::mutex lock;
	std::shared_ptr<Hca> hca; /**< set by GET_CONTEXT */
	bool have_ucontext = false;
	bool devx = false; /**< alloc_ucontext with MLX5_IB_ALLOC_UCTX_DEVX */
	std::map<uint32_t, Uobj> objs;
	uint32_t next_handle = 1;
	uint32_t next_uar_page = 0;
	std::shared_ptr<AsyncFile> default_async;

	/** A new handle for @p o. */
	uint32_t add(const Uobj &o);
	/** The object @p handle of type @p t: NULL if absent or of another type. */
	Uobj *find(uint32_t handle, Uobj::Type t);
	/** Undo one object (device command + unmapping); 0 or the device's errno. */
	int destroy_obj(Uobj &o);

private:
	Device *dev_;
	std::atomic<int> fd_;
};

/**
 * Undo DevX object @p o on @p hca as the kernel's destroy command for its create
 * opcode would (devx_cmds.cpp): 0 or the device's errno.
 */
int devx_obj_destroy(Hca &hca, const Uobj &o);

/** Register the fake fd @p fd of @p ctx / of an async file (libc_intercept.cpp). */
void fd_register_context(int fd, const std::shared_ptr<Context> &ctx);
void fd_register_async(int fd, const std::shared_ptr<AsyncFile> &file);
/** The event file (async fd or completion channel) behind fd @p fd, or NULL. */
std::shared_ptr<EventFile> fd_event_file(int fd);
/**
 * An fd attribute of @p method naming an event file of kind @p k of @p ctx: 0 and
 * the file in @p out, or EBADF (one log line) for an fd that is none, of the other
 * kind, or of another context, as the kernel's fd lookup (rdma_core.c).
 */
int event_fd_lookup(Context &ctx, int fd, EventFile::Kind k, const char *method,
		    std::shared_ptr<EventFile> *out);

/* ---- events (uverbs_events.cpp) ------------------------------------------------------ */
/**
 * A CQ being created: its channel and async fd from the call, into @p o.ev and
 * @p cfg. 0, or EBADF for an fd that is no channel / async fd.
 */
int cq_events_prepare(Context &ctx, bool has_channel, int channel_fd, bool has_event_fd,
		      int event_fd, uint64_t user_handle, Uobj &o, CqConfig &cfg);
/** CQ @p o exists now: its async events route to it, its arm word is watched. */
void cq_events_created(Context &ctx, Uobj &o, uint32_t *dbrec);
/** A QP being created with async fd @p file: into @p o.ev; after creation, routed. */
void qp_events_prepare(const std::shared_ptr<AsyncFile> &file, uint64_t user_handle, Uobj &o);
void qp_events_created(Context &ctx, const Uobj &o);
void srq_events_created(Context &ctx, const Uobj &o);
/**
 * Before destroying CQ / QP @p o: stop watching it (false: the device refused, undo
 * with obj_events_undo). After: route no more, drop its unread events.
 */
void obj_events_destroying(Context &ctx, const Uobj &o);
void obj_events_undo(Context &ctx, const Uobj &o);
void obj_events_destroyed(Context &ctx, const Uobj &o);
/** Hand the device's pending async events to their objects' event files. */
void deliver_async_events(Device *dev, Hca *hca);
/**
 * Completion channels: CQ @p cqn's arm word (dbrec[1]) is watched by the doorbell
 * thread, each change is the CQ doorbell (Hca::arm_cq).
 */
void cq_arm_watch(Device *dev, Hca *hca, uint32_t cqn, const uint32_t *dbrec, uint32_t seen);
/** Stop watching; the arm word last seen (raw), for a later cq_arm_watch. */
uint32_t cq_arm_unwatch(Device *dev, uint32_t cqn);

/**
 * Doorbells: the device notices a QP's new work as hardware does, by watching its
 * doorbell record (SQ and RQ producer counters) from a thread of the device; the
 * process's stores never trap. watch() before the QP is used; unwatch() before
 * the QP is destroyed (a doorbell the watcher notices names the QP to the device
 * without the device lock) and before its memory may go. unwatch() returns the
 * record it watched (NULL: none), for a watch() again if the destroy fails.
 */
void doorbell_watch(Device *dev, Hca *hca, uint32_t qpn, const uint32_t *dbrec);
const uint32_t *doorbell_unwatch(Device *dev, uint32_t qpn);
/** The same for an SRQ: its record's counter (dbrec[0]) moves on each post. */
void srq_doorbell_watch(Device *dev, Hca *hca, uint32_t srqn, const uint32_t *dbrec);
const uint32_t *srq_doorbell_unwatch(Device *dev, uint32_t srqn);
/**
 * After a state change of QP @p qpn: the counters restart at RESET (libmlx5 zeroes
 * the record), so a change alone can miss a doorbell (16 before RESET, 16 again
 * after re-posting). Take the record's values as seen and ring once for whatever
 * was posted before: every later post moves the record away from them.
 */
void doorbell_resync(Device *dev, uint32_t qpn);

/**
 * The options of device @p index in MLX5_SIM_RDMA_DEVARGS @p all: sets separated by
 * ';', set i for device i, the last set for every device after it ("sim_exec=thread;
 * sim_exec=inline": mlx5_0 with an engine thread, mlx5_1 and later inline).
 */
std::string devargs_of(const std::string &all, unsigned index);

/**
 * How long the doorbell thread pauses after @p quiet without a doorbell: nothing
 * (spin) for the first 50 us, then a sixteenth of the quiet time, at most 1 ms. A
 * doorbell after a gap waits at most ~1/16 of that gap (ping-pong traffic pays a few
 * per cent of its round trip), an idle device wakes 1000 times a second. No
 * sched_yield(): a yielding thread hands a polling thread on its CPU whole time slices.
 */
std::chrono::nanoseconds watch_pause(std::chrono::nanoseconds quiet);

/** Every page of [addr, addr + len) can be read and written now (ring memory). */
bool user_range_writable(uint64_t addr, uint64_t len);

/**
 * What a command leaves for after the Context lock: long work on the process's own
 * memory only, which needs no object of the context.
 */
struct AfterUnlock {
	/** ADVISE_MR with FLUSH: ranges whose pages must be readable now (else EFAULT) */
	std::vector<std::pair<uint64_t, uint64_t>> probe;
	/** The answer once every probe succeeded (a later SGE's ENOENT, in SGE order) */
	int then = 0;
	/** Do it: @ref then, or -EFAULT (one log line naming the page of device @p idx). */
	int run(unsigned idx) const;
};

/**
 * The dispatcher entry of a Context: RDMA_VERBS_IOCTL with @p hdr_ptr. 0 or a
 * negative errno (uverbs_ioctl.cpp). With @p after, handlers may leave work there for
 * the caller to do once it has dropped the Context lock; without, they do it at once.
 */
int dispatch_ioctl(Context &ctx, uint64_t hdr_ptr, AfterUnlock *after = nullptr);

/** Open device @p index: a new fd (a memfd shown as the char device), or -errno. */
int open_device(unsigned index, int flags);

/** The st_rdev the fake char device @p index shows. */
dev_t device_rdev(unsigned index);

/** Fill @p st as the character device @p index (stat of the node or of the fd). */
void fill_chardev_stat(unsigned index, struct stat *st);

} // namespace kernel
} // namespace mlx5sim

#endif /* MLX5_SIM_KERNEL_KSIDE_H */
