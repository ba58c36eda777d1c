/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma-core backend's connection manager: Debian's librdmacm, dlopen()ed by the
 * glue library on first use (mlx5_glue_rdma_cm.h). What travels is private data
 * only: a listener accepts with a reserved QPN and a fixed reply, a fetch connects
 * with the caller's QPN (its DCI's), reads the reply and closes, as the DC exchange
 * of test/drivers/sim/mlx5/kernel/dc_rdmacm.c does. On the software HCA under
 * devtools/sim-rdma the same calls reach the kernel side's ucma
 * (drivers/sim/mlx5/kernel/ucma.cpp).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>

#include <new>
#include <vector>

#include "mlx5_glue_rdma_cm.h"

#if __has_include(<rdma/rdma_cma.h>)
#include <rdma/rdma_cma.h>
#define MLX5_GLUE_HAVE_RDMACM 1
#else
#define MLX5_GLUE_HAVE_RDMACM 0
#endif

#if MLX5_GLUE_HAVE_RDMACM

/* the IB CM's private data room: REQ after rdma_cm's header, REP */
#define CM_REQ_PRIVATE 56
#define CM_REP_PRIVATE 196
/* connections answered and not yet established or gone: beyond, requests are
 * rejected, so peers that never finish cannot grow the list without bound */
#define CM_MAX_CHILDREN 64

struct mlx5_glue_cm_listener {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	uint32_t qpn;
	uint8_t req[CM_REQ_PRIVATE];
	size_t req_len;
	uint8_t reply[CM_REP_PRIVATE];
	size_t reply_len;
	void (*note)(void *arg, const char *line);
	void *note_arg;
	int stop_fd;
	pthread_t thread;
	std::vector<struct rdma_cm_id *> children; /**< accepted, not yet established */
};

namespace {

/* librdmacm's entry points, looked up once */
struct cm_lib {
	bool ok;
	decltype(&rdma_create_event_channel) create_event_channel;
	decltype(&rdma_destroy_event_channel) destroy_event_channel;
	decltype(&rdma_create_id) create_id;
	decltype(&rdma_destroy_id) destroy_id;
	decltype(&rdma_bind_addr) bind_addr;
	decltype(&rdma_listen) listen;
	decltype(&rdma_resolve_addr) resolve_addr;
	decltype(&rdma_resolve_route) resolve_route;
	decltype(&rdma_connect) connect;
	decltype(&rdma_accept) accept;
	decltype(&rdma_reject) reject;
	decltype(&rdma_establish) establish;
	decltype(&rdma_disconnect) disconnect;
	decltype(&rdma_get_cm_event) get_cm_event;
	decltype(&rdma_ack_cm_event) ack_cm_event;
	decltype(&rdma_event_str) event_str;
};

cm_lib lib;
pthread_once_t lib_once = PTHREAD_ONCE_INIT;

template <typename F>
bool sym(void *h, const char *name, F *out)
{
	*out = reinterpret_cast<F>(dlsym(h, name));
	return *out != nullptr;
}

/* Not unloaded: librdmacm keeps its own device contexts for the process lifetime. */
void lib_load(void)
{
	void *h = dlopen(MLX5_GLUE_RDMACM_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (h == nullptr)
		return;
	lib.ok = sym(h, "rdma_create_event_channel", &lib.create_event_channel) &&
		 sym(h, "rdma_destroy_event_channel", &lib.destroy_event_channel) &&
		 sym(h, "rdma_create_id", &lib.create_id) &&
		 sym(h, "rdma_destroy_id", &lib.destroy_id) &&
		 sym(h, "rdma_bind_addr", &lib.bind_addr) && sym(h, "rdma_listen", &lib.listen) &&
		 sym(h, "rdma_resolve_addr", &lib.resolve_addr) &&
		 sym(h, "rdma_resolve_route", &lib.resolve_route) &&
		 sym(h, "rdma_connect", &lib.connect) && sym(h, "rdma_accept", &lib.accept) &&
		 sym(h, "rdma_reject", &lib.reject) && sym(h, "rdma_establish", &lib.establish) &&
		 sym(h, "rdma_disconnect", &lib.disconnect) &&
		 sym(h, "rdma_get_cm_event", &lib.get_cm_event) &&
		 sym(h, "rdma_ack_cm_event", &lib.ack_cm_event) &&
		 sym(h, "rdma_event_str", &lib.event_str);
}

const cm_lib *cm(void)
{
	pthread_once(&lib_once, lib_load);
	return lib.ok ? &lib : nullptr;
}

int neg_errno(int fallback)
{
	return errno > 0 ? -errno : -fallback;
}

__attribute__((format(printf, 2, 3))) void note(const struct mlx5_glue_cm_listener *l,
						const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (l->note == nullptr)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l->note(l->note_arg, line);
}

/* "a.b.c.d:port" of an id's peer, for notes */
void peer_str(struct rdma_cm_id *id, char *buf, size_t len)
{
	const struct sockaddr *sa = rdma_get_peer_addr(id);
	char ip[INET_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = reinterpret_cast<const struct sockaddr_in *>(sa);

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(in->sin_port));
	} else {
		snprintf(buf, len, "(family %u)", sa->sa_family);
	}
}

/* The next event within @p ms: 0, -ETIMEDOUT, or a negative errno. */
int next_event(const cm_lib *f, struct rdma_event_channel *ch, int ms, struct rdma_cm_event **ev)
{
	struct pollfd p = {ch->fd, POLLIN, 0};
	int n = poll(&p, 1, ms);

	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return neg_errno(EIO);
	return f->get_cm_event(ch, ev) ? neg_errno(EIO) : 0;
}

void forget_child(struct mlx5_glue_cm_listener *l, struct rdma_cm_id *id)
{
	for (size_t i = 0; i < l->children.size(); i++)
		if (l->children[i] == id) {
			l->children.erase(l->children.begin() + (long)i);
			lib.disconnect(id); /* EINVAL when already down: nothing to do */
			lib.destroy_id(id);
			return;
		}
}

void on_request(struct mlx5_glue_cm_listener *l, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *child = ev->id;
	const void *pd = ev->param.conn.private_data;
	size_t len = ev->param.conn.private_data_len;
	char who[64];

	peer_str(child, who, sizeof(who));
	if (l->children.size() >= CM_MAX_CHILDREN) {
		note(l, "refused a connection request from %s: %u answers pending", who,
		     CM_MAX_CHILDREN);
		lib.ack_cm_event(ev);
		lib.reject(child, nullptr, 0);
		lib.destroy_id(child);
		return;
	}
	if (pd == nullptr || len < l->req_len || memcmp(pd, l->req, l->req_len) != 0) {
		note(l,
		     "refused a connection request from %s: %zu bytes of private data "
		     "without the %zu-byte request this listener answers",
		     who, pd ? len : 0, l->req_len);
		lib.ack_cm_event(ev);
		lib.reject(child, nullptr, 0);
		lib.destroy_id(child);
		return;
	}
	struct rdma_conn_param cp = {};
	cp.private_data = l->reply;
	cp.private_data_len = (uint8_t)l->reply_len;
	cp.qp_num = l->qpn; /* the reserved QPN: no QP is connected */
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	lib.ack_cm_event(ev);
	try {
		l->children.reserve(l->children.size() + 1);
	} catch (...) {
		note(l, "refused a connection request from %s: out of memory", who);
		lib.reject(child, nullptr, 0);
		lib.destroy_id(child);
		return;
	}
	if (lib.accept(child, &cp)) {
		note(l, "cannot answer %s: rdma_accept: %s", who, strerror(errno));
		lib.destroy_id(child);
		return;
	}
	l->children.push_back(child);
}

void *listen_thread(void *arg)
{
	auto *l = static_cast<struct mlx5_glue_cm_listener *>(arg);
	struct pollfd p[2] = {{l->ch->fd, POLLIN, 0}, {l->stop_fd, POLLIN, 0}};

	for (;;) {
		struct rdma_cm_event *ev;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			note(l, "listener stops: poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN) || lib.get_cm_event(l->ch, &ev))
			continue;
		struct rdma_cm_id *id = ev->id;
		int status = ev->status;
		char who[64];
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			on_request(l, ev);
			break;
		case RDMA_CM_EVENT_REJECTED:
			/* the peer refused what was published: say so, the peer logged why */
			peer_str(id, who, sizeof(who));
			note(l, "%s rejected the published private data (status %d)", who, status);
			lib.ack_cm_event(ev);
			forget_child(l, id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			/* the peer took the reply: nothing more to say, disconnect from
			 * this side rather than wait for a DREQ that may never come */
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			lib.ack_cm_event(ev);
			forget_child(l, id);
			break;
		default:
			lib.ack_cm_event(ev);
			break;
		}
	}
	return nullptr;
}

void listener_free(struct mlx5_glue_cm_listener *l)
{
	for (struct rdma_cm_id *id : l->children)
		lib.destroy_id(id);
	if (l->id)
		lib.destroy_id(l->id);
	if (l->ch)
		lib.destroy_event_channel(l->ch);
	if (l->stop_fd >= 0)
		close(l->stop_fd);
	delete l;
}

} // namespace

int mlx5_glue_rdma_cm_listen(struct ibv_context *context, const struct sockaddr_in *addr,
			     uint32_t qpn, const void *req, size_t req_len, const void *reply,
			     size_t reply_len, void (*note_fn)(void *arg, const char *line),
			     void *note_arg, struct mlx5_glue_cm_listener **out)
{
	const cm_lib *f = cm();
	int ret;

	(void)context; /* librdmacm finds the device from the address */
	if (addr == nullptr || out == nullptr || (req_len && req == nullptr) ||
	    req_len > CM_REQ_PRIVATE || reply == nullptr || reply_len == 0 ||
	    reply_len > CM_REP_PRIVATE)
		return -EINVAL;
	if (f == nullptr)
		return -ENOSYS;
	auto *l = new (std::nothrow) mlx5_glue_cm_listener();
	if (l == nullptr)
		return -ENOMEM;
	l->qpn = qpn;
	memcpy(l->req, req, req_len);
	l->req_len = req_len;
	memcpy(l->reply, reply, reply_len);
	l->reply_len = reply_len;
	l->note = note_fn;
	l->note_arg = note_arg;
	l->stop_fd = eventfd(0, EFD_CLOEXEC);
	l->ch = f->create_event_channel();
	if (l->stop_fd < 0 || l->ch == nullptr ||
	    f->create_id(l->ch, &l->id, nullptr, RDMA_PS_TCP)) {
		ret = neg_errno(ENODEV);
		goto err;
	}
	if (f->bind_addr(l->id, (struct sockaddr *)(uintptr_t)addr) || f->listen(l->id, 16)) {
		ret = neg_errno(EADDRNOTAVAIL);
		goto err;
	}
	ret = -pthread_create(&l->thread, nullptr, listen_thread, l);
	if (ret)
		goto err;
	*out = l;
	return 0;
err:
	listener_free(l);
	return ret;
}

void mlx5_glue_rdma_cm_listen_close(struct mlx5_glue_cm_listener *l)
{
	uint64_t one = 1;

	if (l == nullptr)
		return;
	if (write(l->stop_fd, &one, sizeof(one)) != sizeof(one))
		return; /* an eventfd write fails only on overflow: never here */
	pthread_join(l->thread, nullptr);
	listener_free(l);
}

int mlx5_glue_rdma_cm_fetch(struct ibv_context *context, const struct sockaddr_in *addr,
			    uint32_t qpn, const void *req, size_t req_len, int timeout_ms,
			    int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
			    void *check_arg)
{
	const cm_lib *f = cm();
	struct rdma_event_channel *ch = nullptr;
	struct rdma_cm_id *id = nullptr;
	struct rdma_cm_event *ev = nullptr;
	uint8_t reply[CM_REP_PRIVATE];
	size_t reply_len;
	int ret;

	(void)context; /* librdmacm picks the source device from the route */
	if (addr == nullptr || (req_len && req == nullptr) || req_len > CM_REQ_PRIVATE ||
	    check == nullptr || timeout_ms <= 0)
		return -EINVAL;
	if (f == nullptr)
		return -ENOSYS;
	ch = f->create_event_channel();
	if (ch == nullptr || f->create_id(ch, &id, nullptr, RDMA_PS_TCP)) {
		ret = neg_errno(ENODEV);
		goto out;
	}
	/* address, then route: each an event, an error event carries the errno */
	if (f->resolve_addr(id, nullptr, (struct sockaddr *)(uintptr_t)addr, timeout_ms)) {
		ret = neg_errno(EADDRNOTAVAIL);
		goto out;
	}
	if ((ret = next_event(f, ch, timeout_ms, &ev)) != 0)
		goto out;
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		ret = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		f->ack_cm_event(ev);
		goto out;
	}
	f->ack_cm_event(ev);
	if (f->resolve_route(id, timeout_ms)) {
		ret = neg_errno(EHOSTUNREACH);
		goto out;
	}
	if ((ret = next_event(f, ch, timeout_ms, &ev)) != 0)
		goto out;
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		ret = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		f->ack_cm_event(ev);
		goto out;
	}
	f->ack_cm_event(ev);

	{
		/* no QP on the id: the connection's QPN is the caller's, the answer comes
		 * as CONNECT_RESPONSE and this side confirms or rejects it */
		struct rdma_conn_param cp = {};
		cp.private_data = req;
		cp.private_data_len = (uint8_t)req_len;
		cp.qp_num = qpn;
		cp.responder_resources = 1;
		cp.initiator_depth = 1;
		cp.retry_count = 7;
		cp.rnr_retry_count = 7;
		if (f->connect(id, &cp)) {
			ret = neg_errno(ECONNREFUSED);
			goto out;
		}
	}
	if ((ret = next_event(f, ch, timeout_ms, &ev)) != 0)
		goto out;
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		reply_len = ev->param.conn.private_data ? ev->param.conn.private_data_len : 0;
		if (reply_len > sizeof(reply))
			reply_len = sizeof(reply);
		memcpy(reply, ev->param.conn.private_data, reply_len);
		f->ack_cm_event(ev);
		/* the port that answered: the route's destination (IB: its path record) */
		ret = check(check_arg,
			    id->route.num_paths > 0 && id->route.path_rec != nullptr
				    ? ntohs(id->route.path_rec[0].dlid)
				    : 0,
			    reply, reply_len);
		if (ret) {
			f->reject(id, nullptr, 0);
			goto out;
		}
		/* taken: confirm, then close (DC needs no connection) */
		if (f->establish(id) == 0)
			f->disconnect(id);
		break;
	case RDMA_CM_EVENT_REJECTED: /* nobody listens there, or the listener refused */
		ret = -ECONNREFUSED;
		f->ack_cm_event(ev);
		break;
	case RDMA_CM_EVENT_UNREACHABLE: /* the peer died or never answered */
		ret = ev->status < 0 ? ev->status : -ETIMEDOUT;
		f->ack_cm_event(ev);
		break;
	default:
		ret = ev->status < 0 ? ev->status : -ECONNREFUSED;
		f->ack_cm_event(ev);
		break;
	}
out:
	if (id)
		f->destroy_id(id);
	if (ch)
		f->destroy_event_channel(ch);
	return ret;
}

#else /* no librdmacm headers at build time: no connection manager */

int mlx5_glue_rdma_cm_listen(struct ibv_context *, const struct sockaddr_in *, uint32_t,
			     const void *, size_t, const void *, size_t,
			     void (*)(void *, const char *), void *,
			     struct mlx5_glue_cm_listener **)
{
	return -ENOSYS;
}

void mlx5_glue_rdma_cm_listen_close(struct mlx5_glue_cm_listener *)
{
}

int mlx5_glue_rdma_cm_fetch(struct ibv_context *, const struct sockaddr_in *, uint32_t,
			    const void *, size_t, int,
			    int (*)(void *, uint16_t, const void *, size_t), void *)
{
	return -ENOSYS;
}

#endif
