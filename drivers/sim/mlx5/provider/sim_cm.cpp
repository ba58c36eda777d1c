/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The "sim" table's connection manager (mlx5_glue::cm_listen, cm_listen_close,
 * cm_fetch) for the embedded software HCA, which has no rdma_cm character device:
 * it speaks the fabric's CM records (hca/cm_wire.h) on the sockets the kernel side's
 * ucma uses, so an embedded process and a librdmacm process under devtools/sim-rdma
 * meet on one named fabric (sim_fabric=). Addresses are the ucma's: 127.0.x.y is
 * the port of LID x << 8 | y, 0.0.0.0 the own port.
 *
 * Trust is the fabric's: both ends check the other's uid (SO_PEERCRED) against the
 * own one and the device's sim_fabric_uids; a record of the wrong size, magic or
 * type for the state closes the connection. A listener keeps an accepted connection
 * for the CM timeout at most and holds at most kMaxConns of them, so peers that
 * connect and never finish cannot pile up fds in the listening process.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "cm_wire.h"
#include "sim_internal.h"

struct mlx5_glue_cm_listener {
	std::shared_ptr<mlx5sim::Hca> hca; /**< the uids it admits */
	int fd;                            /**< the listening socket */
	int stop_fd;
	pthread_t thread;
	uint16_t lid;
	uint64_t guid;
	uint32_t qpn;
	uint8_t req[56];
	size_t req_len;
	uint8_t reply[196];
	size_t reply_len;
	void (*note)(void *arg, const char *line);
	void *note_arg;
	/** An accepted connection: closed by its deadline whatever it sent. */
	struct Conn {
		int fd;
		std::chrono::steady_clock::time_point deadline;
	};
	std::vector<Conn> conns; /**< accepted, not yet closed */
};

namespace mlx5sim {

namespace {

using namespace mlx5sim::cm;

/* the IB CM's private data room (as the ucma's checks): REQ after rdma_cm's header, REP */
constexpr size_t kReqPrivate = 56;
constexpr size_t kRepPrivate = 196;
constexpr uint32_t kRejConsumer = 28;
constexpr int kDrepWaitMs = 1000;
constexpr size_t kMaxConns = 64;

using mlx5sim::cm::cm_timeout;

uint32_t random_u32()
{
	static thread_local std::mt19937 rng{std::random_device{}()};
	return rng();
}

std::string fabric_of(const Hca &h)
{
	if (h.caps().fabric && h.caps().fabric_name[0])
		return h.caps().fabric_name;
	return "pid" + std::to_string((long)getpid()); /* as the ucma: the process's own */
}

bool admitted(int fd, const Hca &h)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
		return false;
	if (cr.uid == geteuid())
		return true;
	for (uint8_t i = 0; i < h.caps().n_fabric_uids; i++)
		if (h.caps().fabric_uids[i] == (uint32_t)cr.uid)
			return true;
	return false;
}

bool send_msg(int fd, Msg &m)
{
	m.magic = kMsgMagic;
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(m);
}

/* One record within @p ms: 1, 0 when the peer closed or sent garbage, -ETIMEDOUT. */
int recv_msg(int fd, int ms, Msg *m)
{
	struct pollfd p = {fd, POLLIN, 0};
	int n = poll(&p, 1, ms);

	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return 0;
	ssize_t got = recv(fd, m, sizeof(*m), MSG_DONTWAIT);
	return got == (ssize_t)sizeof(*m) && m->magic == kMsgMagic ? 1 : 0;
}

/* The LID @p sin names (0.0.0.0: @p own), or 0 when it names no port of the fabric. */
uint16_t lid_of(const struct sockaddr_in *sin, uint16_t own)
{
	uint32_t ip = ntohl(sin->sin_addr.s_addr);

	if (ip == INADDR_ANY)
		return own;
	if ((ip & 0xffff0000u) != 0x7f000000u || (ip & 0xffff) == 0 || (ip & 0xffff) >= 0xc000)
		return 0;
	return (uint16_t)(ip & 0xffff);
}

__attribute__((format(printf, 2, 3))) void note(const struct mlx5_glue_cm_listener *l,
						const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!l->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l->note(l->note_arg, line);
}

void drop(struct mlx5_glue_cm_listener *l, size_t i)
{
	close(l->conns[i].fd);
	l->conns.erase(l->conns.begin() + (long)i);
}

/* A record on accepted connection @p i: false when the connection is done. */
bool on_conn(struct mlx5_glue_cm_listener *l, size_t i)
{
	int fd = l->conns[i].fd;
	Msg m;

	if (recv_msg(fd, 0, &m) != 1)
		return false; /* closed (the peer took the reply and went, or died) or garbage */
	switch (m.type) {
	case MSG_REQ: {
		char ip[INET_ADDRSTRLEN] = "?";
		inet_ntop(AF_INET, &m.sip, ip, sizeof(ip));
		if (m.pd_len > kReqPrivate || m.pd_len < l->req_len ||
		    memcmp(m.pd, l->req, l->req_len) != 0) {
			note(l,
			     "refused a connection request from %s:%u: %u bytes of private data "
			     "without the %zu-byte request this listener answers",
			     ip, ntohs(m.sport), m.pd_len, l->req_len);
			Msg r = {};
			r.type = MSG_REJ;
			r.reason = kRejConsumer;
			send_msg(fd, r);
			return false;
		}
		Msg r = {};
		r.type = MSG_REP;
		r.pd_len = (uint8_t)l->reply_len;
		memcpy(r.pd, l->reply, l->reply_len);
		r.qpn = l->qpn; /* the reserved QPN: no QP is connected */
		r.psn = random_u32() & 0xffffff;
		r.resp_res = m.init_depth;
		r.init_depth = m.resp_res;
		r.retry = m.retry;
		r.rnr_retry = m.rnr_retry;
		r.slid = l->lid;
		r.sguid = l->guid;
		return send_msg(fd, r);
	}
	case MSG_RTU:
		return true;
	case MSG_REJ:
		note(l, "a peer rejected the published private data (reason %u)", m.reason);
		return false;
	case MSG_DREQ: {
		Msg r = {};
		r.type = MSG_DREP;
		send_msg(fd, r);
		return false;
	}
	default:
		return false;
	}
}

void *listen_thread(void *arg)
{
	auto *l = static_cast<struct mlx5_glue_cm_listener *>(arg);
	std::vector<struct pollfd> p;

	for (;;) {
		/* connections past their deadline first; the nearest one bounds the wait */
		const auto now = std::chrono::steady_clock::now();
		int wait_ms = -1;
		for (size_t i = l->conns.size(); i-- > 0;) {
			if (now >= l->conns[i].deadline) {
				note(l, "closed a connection unfinished after %ld ms",
				     (long)cm_timeout().count());
				drop(l, i);
				continue;
			}
			long ms = (long)std::chrono::duration_cast<std::chrono::milliseconds>(
					  l->conns[i].deadline - now)
					  .count() +
				  1;
			if (wait_ms < 0 || ms < wait_ms)
				wait_ms = (int)std::min(ms, (long)INT32_MAX);
		}
		p.assign({{l->stop_fd, POLLIN, 0}, {l->fd, POLLIN, 0}});
		for (const auto &c : l->conns)
			p.push_back({c.fd, POLLIN, 0});
		if (poll(p.data(), p.size(), wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			note(l, "listener stops: poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents)
			break;
		/* connections first: accepting appends to the list the poll set mirrors */
		for (size_t i = p.size() - 1; i >= 2; i--)
			if (p[i].revents && !on_conn(l, i - 2))
				drop(l, i - 2);
		if (p[1].revents & POLLIN) {
			int c = accept4(l->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (c < 0)
				continue;
			if (!admitted(c, *l->hca)) {
				note(l, "closed a connection of a uid the fabric does not admit");
				close(c);
				continue;
			}
			if (l->conns.size() >= kMaxConns) {
				note(l, "closed a connection: %zu connections open", kMaxConns);
				close(c);
				continue;
			}
			try {
				l->conns.push_back(
					{c, std::chrono::steady_clock::now() + cm_timeout()});
			} catch (...) {
				close(c);
			}
		}
	}
	return nullptr;
}

void listener_free(struct mlx5_glue_cm_listener *l)
{
	for (const auto &c : l->conns)
		close(c.fd);
	if (l->fd >= 0)
		close(l->fd);
	if (l->stop_fd >= 0)
		close(l->stop_fd);
	delete l;
}

uint64_t node_guid(struct ibv_context *context)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	return sim_query_device_ex(context, nullptr, &a) == 0 ? a.orig_attr.node_guid : 0;
}

int remaining_ms(std::chrono::steady_clock::time_point end)
{
	auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			    end - std::chrono::steady_clock::now())
			    .count();
	return left > 0 ? (int)left : 0;
}

} // namespace

int sim_cm_listen(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		  const void *req, size_t req_len, const void *reply, size_t reply_len,
		  void (*note_fn)(void *arg, const char *line), void *note_arg,
		  struct mlx5_glue_cm_listener **out)
{
	struct sockaddr_un a;
	int ret;

	if (!sim_is_sim_context(context) || !addr || !out || addr->sin_family != AF_INET ||
	    !addr->sin_port || (req_len && !req) || req_len > kReqPrivate || !reply || !reply_len ||
	    reply_len > kRepPrivate)
		return -EINVAL;
	SimCtxFull *ctx = to_ctx_full(context);
	const uint16_t own = ctx->hca->caps().lid;
	const uint16_t lid = lid_of(addr, own);
	if (lid != own) /* the ucma's rule: only the own port's address, or any */
		return lid ? -ENODEV : -EADDRNOTAVAIL;
	auto *l = new (std::nothrow) mlx5_glue_cm_listener();
	if (!l)
		return -ENOMEM;
	l->hca = ctx->hca;
	l->lid = lid;
	l->guid = node_guid(context);
	l->qpn = qpn;
	memcpy(l->req, req, req_len);
	l->req_len = req_len;
	memcpy(l->reply, reply, reply_len);
	l->reply_len = reply_len;
	l->note = note_fn;
	l->note_arg = note_arg;
	l->stop_fd = eventfd(0, EFD_CLOEXEC);
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	socklen_t len = sock_addr(fabric_of(*l->hca).c_str(), lid, ntohs(addr->sin_port), &a);
	if (l->stop_fd < 0 || l->fd < 0) {
		ret = -errno;
		goto err;
	}
	/* the abstract name is the port: a second listener gets EADDRINUSE */
	if (bind(l->fd, (struct sockaddr *)&a, len) || listen(l->fd, 16)) {
		ret = -errno;
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

void sim_cm_listen_close(struct mlx5_glue_cm_listener *l)
{
	uint64_t one = 1;

	if (!l)
		return;
	if (write(l->stop_fd, &one, sizeof(one)) != sizeof(one))
		return; /* an eventfd write fails only on overflow: never here */
	pthread_join(l->thread, nullptr);
	listener_free(l);
}

int sim_cm_fetch(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		 const void *req, size_t req_len, int timeout_ms,
		 int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
		 void *check_arg)
{
	struct sockaddr_un a;
	Msg m = {};
	int ret;

	if (!sim_is_sim_context(context) || !addr || addr->sin_family != AF_INET ||
	    !addr->sin_port || (req_len && !req) || req_len > kReqPrivate || !check ||
	    timeout_ms <= 0)
		return -EINVAL;
	SimCtxFull *ctx = to_ctx_full(context);
	const Hca &h = *ctx->hca;
	const uint16_t own = h.caps().lid;
	const uint16_t lid = lid_of(addr, own);
	if (!lid)
		return -ENODEV; /* the ucma's ADDR_ERROR for an address outside the fabric */
	const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	socklen_t len = sock_addr(fabric_of(h).c_str(), lid, ntohs(addr->sin_port), &a);
	/* a listener whose backlog is full would hold connect(): bounded as every wait */
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, len)) {
		/* no socket of that name: nobody listens there (the IB CM's REJ 8) */
		ret = errno == ECONNREFUSED || errno == ENOENT  ? -ECONNREFUSED
		      : errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT
								: -errno;
		close(fd);
		return ret;
	}
	if (!admitted(fd, h)) {
		close(fd);
		return -ECONNREFUSED;
	}
	m.type = MSG_REQ;
	m.pd_len = (uint8_t)req_len;
	memcpy(m.pd, req, req_len);
	m.qpn = qpn; /* the caller's QP stands for the connection: none is connected */
	m.psn = random_u32() & 0xffffff;
	m.resp_res = 1;
	m.init_depth = 1;
	m.retry = 7;
	m.rnr_retry = 7;
	m.slid = own;
	m.sip = htonl(0x7f000000u | own);
	m.sport = htons((uint16_t)(0xc000 | (random_u32() & 0x3fff))); /* an ephemeral port */
	m.sguid = node_guid(context);
	if (!send_msg(fd, m)) {
		close(fd);
		return -ECONNREFUSED;
	}
	ret = recv_msg(fd, remaining_ms(end), &m);
	if (ret == 1 && m.type == MSG_REP && m.pd_len <= kRepPrivate) {
		ret = check(check_arg, lid, m.pd, m.pd_len); /* the port whose socket answered */
		Msg r = {};
		if (ret) {
			r.type = MSG_REJ;
			r.reason = kRejConsumer;
			send_msg(fd, r);
		} else {
			/* taken: confirm, then close (DC needs no connection) */
			r.type = MSG_RTU;
			send_msg(fd, r);
			r.type = MSG_DREQ;
			send_msg(fd, r);
			recv_msg(fd, std::min(remaining_ms(end), kDrepWaitMs), &m); /* DREP */
		}
	} else if (ret == 1 && m.type == MSG_REJ) {
		ret = -ECONNREFUSED;
	} else {
		/* the peer closed (died) or never answered: what the CM's timeout reports */
		ret = -ETIMEDOUT;
	}
	close(fd);
	return ret;
}

} // namespace mlx5sim
