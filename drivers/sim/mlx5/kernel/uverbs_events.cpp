/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: completion channels, CQ completion events and async events.
 *
 * An event fd is an EventFile: a queue of descriptors and an eventfd counting
 * them. A completion channel (CREATE_COMP_CHANNEL) receives the 8-byte
 * {cq user handle} of each completion event; the device raises one per arm
 * (Hca::arm_cq, CqConfig::comp_event), and the arm is a store into the CQ's
 * doorbell record that the device's doorbell thread notices (kside.cpp), never a
 * system call. Async events the device queues (QP and CQ errors, SQ drained) are
 * routed by object number to the event fd and user handle the object was created
 * with (16-byte descriptors).
 *
 * Counting follows the kernel (drivers/infiniband/core/uverbs_main.c,
 * ib_uverbs_event_read and ib_uverbs_release_uevent): an event counts as reported
 * when the process reads it; destroying an object drops its unread events, and the
 * destroy response reports the count, which libibverbs then waits to see acked.
 * Events never read are never waited for.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>

#include <map>
#include <utility>

#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

/* ---- event files ------------------------------------------------------------------- */

void EventFile::push(const void *desc, const std::shared_ptr<ObjEvents> &owner)
{
	std::lock_guard<std::mutex> g(lock);
	if (fd < 0)
		return; /* closed */
	Entry e;
	memset(e.desc, 0, sizeof(e.desc));
	memcpy(e.desc, desc, desc_size());
	e.owner = owner;
	events.push_back(std::move(e));
	uint64_t one = 1;
	ssize_t r = sys::write(fd, &one, sizeof(one));
	(void)r;
}

namespace {

/** No thread cancellation in here: the queue and the eventfd's count stay equal. */
struct NoCancel {
	int old = 0;
	NoCancel() { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old); }
	~NoCancel() { pthread_setcancelstate(old, nullptr); }
};

} // namespace

ssize_t EventFile::read(void *buf, size_t n)
{
	size_t size = desc_size();
	for (;;) {
		int now_fd;
		{
			NoCancel nc; /* rping cancels its CQ thread blocked here (in poll) */
			std::lock_guard<std::mutex> g(lock);
			now_fd = fd;
			if (n < size)
				return -EINVAL;
			if (!events.empty()) {
				Entry &e = events.front();
				/* the caller's buffer through the kernel: a bad one is EFAULT */
				if (!copy_to_user((uint64_t)(uintptr_t)buf, e.desc, size))
					return -EFAULT;
				if (e.owner)
					(kind == Kind::Comp ? e.owner->comp_reported
							    : e.owner->async_reported)
						.fetch_add(1);
				events.pop_front();
				/* the count is the queue's length: this never blocks */
				uint64_t v;
				ssize_t r = sys::read(fd, &v, sizeof(v));
				(void)r;
				return (ssize_t)size;
			}
		}
		if (now_fd < 0)
			return -EBADF;
		int fl = fcntl(now_fd, F_GETFL);
		if (fl < 0)
			return -errno;
		if (fl & O_NONBLOCK)
			return -EAGAIN;
		/* blocking read: wait until the eventfd counts an event */
		struct pollfd p = {now_fd, POLLIN, 0};
		if (poll(&p, 1, -1) < 0 && errno == EINTR)
			return -EINTR;
	}
}

void EventFile::drop(const ObjEvents *owner)
{
	std::lock_guard<std::mutex> g(lock);
	for (auto it = events.begin(); it != events.end();) {
		if (it->owner.get() != owner) {
			++it;
			continue;
		}
		it = events.erase(it);
		uint64_t v;
		if (fd >= 0) {
			ssize_t r = sys::read(fd, &v, sizeof(v)); /* count >= 1 */
			(void)r;
		}
	}
}

/* ---- routing of the device's async events -------------------------------------------- */

namespace {

/** Live CQs and QPs by (device, number): whose events the device raises. */
struct Sinks {
	std::mutex lock;
	std::map<std::pair<unsigned, uint32_t>, std::weak_ptr<ObjEvents>> cqs, qps, srqs;
	std::mutex deliver; /**< one drain at a time: events keep their order */
};

Sinks &sinks()
{
	static Sinks *s = new Sinks; /* never freed: the doorbell threads run to exit */
	return *s;
}

std::pair<unsigned, uint32_t> key(const Context &ctx, uint32_t num)
{
	return {ctx.dev()->index, num};
}

/** CqConfig::comp_event: under the device lock, once per arm. */
void cq_comp_event(void *arg)
{
	ObjEvents *ev = static_cast<ObjEvents *>(arg);
	if (!ev->comp)
		return;
	uint64_t desc = ev->user_handle; /* ib_uverbs_comp_event_desc */
	ev->comp->push(&desc, ev->shared_from_this());
}

/** "Never armed" in the CQ's arm word: bits 27..25, which no arm doorbell sets. */
constexpr uint32_t kArmNever = 0x0e000000u;

} // namespace

int event_fd_lookup(Context &ctx, int fd, EventFile::Kind k, const char *method,
		    std::shared_ptr<EventFile> *out)
{
	std::shared_ptr<EventFile> f = fd_event_file(fd);
	const char *what = k == EventFile::Kind::Comp ? "completion channel" : "async event fd";
	if (!f || f->kind != k || f->owner != ctx.serial) {
		klog(1, "uverbs%u: %s: fd %d is no %s of this context", ctx.dev()->index, method,
		     fd, what);
		return -EBADF;
	}
	*out = f;
	return 0;
}

void deliver_async_events(Device *dev, Hca *hca)
{
	Sinks &s = sinks();
	std::lock_guard<std::mutex> d(s.deliver);
	AsyncEvent ev;
	while (hca->get_async_event(&ev) == 0) {
		bool cq = ev.type == IBV_EVENT_CQ_ERR;
		bool srq = ev.type == IBV_EVENT_SRQ_LIMIT_REACHED || ev.type == IBV_EVENT_SRQ_ERR;
		uint32_t num = cq ? ev.cqn : srq ? ev.srqn : ev.qpn;
		std::shared_ptr<ObjEvents> o;
		{
			std::lock_guard<std::mutex> g(s.lock);
			auto &m = cq ? s.cqs : srq ? s.srqs : s.qps;
			auto it = m.find({dev->index, num});
			if (it != m.end())
				o = it->second.lock();
		}
		if (!o || !o->async)
			continue; /* destroyed meanwhile, or no async fd: nobody to tell */
		AsyncEventDesc desc = {o->user_handle, (uint32_t)ev.type, 0};
		o->async->push(&desc, o);
		klog(2, "uverbs%u: async event %u of %s 0x%x", dev->index, (unsigned)ev.type,
		     cq    ? "CQ"
		     : srq ? "SRQ"
			   : "QP",
		     num);
	}
}

int cq_events_prepare(Context &ctx, bool has_channel, int channel_fd, bool has_event_fd,
		      int event_fd, uint64_t user_handle, Uobj &o, CqConfig &cfg)
{
	auto ev = std::make_shared<ObjEvents>();
	ev->user_handle = user_handle;
	int ret;
	if (has_channel &&
	    (ret = event_fd_lookup(ctx, channel_fd, EventFile::Kind::Comp, "CQ/CREATE", &ev->comp)))
		return ret;
	if (has_event_fd) {
		if ((ret = event_fd_lookup(ctx, event_fd, EventFile::Kind::Async, "CQ/CREATE",
					   &ev->async)))
			return ret;
	} else {
		ev->async = ctx.default_async; /* as the kernel: the file's first async fd */
	}
	if (ev->comp) {
		cfg.comp_event = cq_comp_event;
		cfg.comp_arg = ev.get();
	}
	o.ev = ev;
	return 0;
}

void cq_events_created(Context &ctx, Uobj &o, uint32_t *dbrec)
{
	{
		std::lock_guard<std::mutex> g(sinks().lock);
		sinks().cqs[key(ctx, o.cqn)] = o.ev;
	}
	if (!o.ev->comp)
		return;
	/*
	 * libmlx5 zeroes the record before CREATE and its first arm may write 0 again:
	 * the device marks it never armed, so that every arm is a change it sees
	 * (checked writable memory of the process, as CQ/CREATE verified).
	 */
	uint32_t never = htobe32(kArmNever);
	if (!copy_to_user((uint64_t)(uintptr_t)&dbrec[1], &never, sizeof(never)))
		klog(1, "uverbs%u: CQ 0x%x: its doorbell record went away", ctx.dev()->index,
		     o.cqn);
	o.ev->dbrec = dbrec;
	cq_arm_watch(ctx.dev(), ctx.hca.get(), o.cqn, dbrec, never);
}

void qp_events_prepare(const std::shared_ptr<AsyncFile> &file, uint64_t user_handle, Uobj &o)
{
	auto ev = std::make_shared<ObjEvents>();
	ev->user_handle = user_handle;
	ev->async = file;
	o.ev = ev;
}

void qp_events_created(Context &ctx, const Uobj &o)
{
	std::lock_guard<std::mutex> g(sinks().lock);
	sinks().qps[key(ctx, o.qpn)] = o.ev;
}

void srq_events_created(Context &ctx, const Uobj &o)
{
	std::lock_guard<std::mutex> g(sinks().lock);
	sinks().srqs[key(ctx, o.srqn)] = o.ev;
}

void obj_events_destroying(Context &ctx, const Uobj &o)
{
	if (o.type == Uobj::Type::Cq && o.ev && o.ev->comp)
		o.ev->arm_seen = cq_arm_unwatch(ctx.dev(), o.cqn);
}

void obj_events_undo(Context &ctx, const Uobj &o)
{
	/* the CQ lives on (EBUSY): watched again from the arm word last seen */
	if (o.type == Uobj::Type::Cq && o.ev && o.ev->comp)
		cq_arm_watch(ctx.dev(), ctx.hca.get(), o.cqn, o.ev->dbrec, o.ev->arm_seen);
}

void obj_events_destroyed(Context &ctx, const Uobj &o)
{
	if (!o.ev)
		return;
	/* what the device raised before the object went is its own, not a successor's */
	deliver_async_events(ctx.dev(), ctx.hca.get());
	{
		std::lock_guard<std::mutex> g(sinks().lock);
		bool cq = o.type == Uobj::Type::Cq, srq = o.type == Uobj::Type::Srq;
		auto &m = cq ? sinks().cqs : srq ? sinks().srqs : sinks().qps;
		m.erase(key(ctx, cq ? o.cqn : srq ? o.srqn : o.qpn));
	}
	if (o.ev->async)
		o.ev->async->drop(o.ev.get());
	if (o.ev->comp)
		o.ev->comp->drop(o.ev.get());
}

/* ---- CREATE_COMP_CHANNEL ------------------------------------------------------------ */

int w_create_comp_channel(Call &c, const uint8_t *, size_t)
{
	auto file = std::make_shared<EventFile>();
	file->kind = EventFile::Kind::Comp;
	file->owner = c.ctx.serial;
	file->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (file->fd < 0) {
		int err = errno;
		klog(1, "uverbs%u: CREATE_COMP_CHANNEL: eventfd: %s", c.ctx.dev()->index,
		     strerror(err));
		return -err;
	}
	uint32_t fd = (uint32_t)file->fd; /* ib_uverbs_create_comp_channel_resp */
	int ret = c.write_out(A_WRITE_CORE_OUT, &fd, sizeof(fd));
	if (ret) {
		sys::close(file->fd);
		return ret;
	}
	fd_register_async(file->fd, file);
	return 0;
}

} // namespace kernel
} // namespace mlx5sim
