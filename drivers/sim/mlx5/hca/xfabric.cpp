/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The machine-wide simulated fabric: fabric hosts of several processes. Each
 * host's LID is an abstract UNIX socket ("mlx5-sim-fabric/<name>/<lid>"), claimed
 * with bind(), so two processes never hold one LID and a process that dies frees
 * its LIDs. A remote WQE to a host of another process is executed by the
 * requester's engine as one request / reply exchange per 64 KiB (fabric_wire.h);
 * the responder's process checks it against the responder host's QPs and MR
 * table, moves the bytes in its own memory, and writes its own CQEs. Nothing of
 * one process's memory is ever touched by another.
 *
 * Locking: the process's fabric hosts share one device lock. Requests are read
 * only by its holder: a listener thread takes it when a request arrives, and an
 * engine that waits for a reply (holding it) serves the requests that arrive
 * meanwhile, so two processes requesting from each other never deadlock.
 *
 * Lost replies: a reply not received within kAckTimeoutMs x (1 + retry_cnt), or
 * a connection that fails, completes the WQE with TRANSPORT_RETRY_EXC_ERR
 * (ASSUMPTIONS.md): a peer that disappears never hangs the requester.
 *
 * Membership: abstract sockets have no file permissions, so both ends check the
 * other's credentials (SO_PEERCRED): a process of a uid that is neither ours nor
 * one the host admits (caps.fabric_uids) is never served and never sent to. An
 * accepted connection reaches the one host whose LID it connected to and speaks
 * for the first requester LID it names; a request naming another, or a LID of
 * this process, closes it. Each chunk's range is checked against its message
 * before anything is touched (doc/guides/sim/software_hca.rst, "Security").
 *
 * A shared LID: the fork children of a process holding a LID may share it, as
 * processes share a port (HcaCaps::share_lid). Each member has a socket of its
 * own, "<lid>/m<index>" (the owner's is "<lid>"), and its QPNs in its index's
 * window (HCA_MEMBER_SHIFT), so a request goes to the socket its (LID, QPN)
 * names. A member is a process that holds the LID's socket (the owner, or a fork
 * child that inherited it and keeps it): a request naming one of our own LIDs
 * is served only from a process that holds that LID's socket, which both ends
 * check in /proc/<pid>/fd (the peer's pid from SO_PEERCRED).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cq_table.h"
#include "dev_stats.h"
#include "fabric.h"
#include "fabric_port.h"
#include "fabric_wire.h"
#include "host.h"
#include "mem_probe.h"
#include "qp_table.h"
#include "span_cursor.h"
#include "thread_up.h"
#include "tsan_dma.h"
#include "wqe_exec.h"

namespace mlx5sim {

namespace {

constexpr int kAckTimeoutMs = 250; /**< per transport attempt */
constexpr size_t kMsgBytes = sizeof(XfReq) + XF_CHUNK;

/** A listening socket: the LID of one of our hosts. */
struct Port {
	int fd;
	uint16_t lid;
};

/** An accepted connection: requests of one remote host to one of ours. */
struct Conn {
	int fd;
	uint16_t lid;  /**< our host it connected to: the only dlid it may name */
	uint16_t slid; /**< the requester LID it speaks for (0: none named yet) */
	pid_t pid;     /**< the requester's process (SO_PEERCRED) */
	int8_t member; /**< it holds our LID slid's socket: -1 not checked yet */
};

/**
 * The process's side of the fabric. Lists change under the fabric lock and
 * fds_mu; the fabric lock's holder reads them, the listener thread a copy.
 * Intentionally leaked, as the process's fabric (fabric.cpp).
 */
struct XFabric {
	std::string name;                /**< the one fabric of this process */
	std::mutex fds_mu;               /**< ports and conns, for the listener */
	std::vector<Port> ports;         /**< listening sockets of our hosts */
	std::vector<Conn> conns;         /**< accepted: requests arrive here */
	std::map<uint64_t, int> clients; /**< ours to theirs, by slid, dlid, member */
	std::map<uint16_t, int> held;    /**< the sockets of our LIDs (claimed, inherited) */
	bool listening = false;          /**< the listener thread runs */
	uint64_t seq = 0;                /**< request numbers */
	std::unique_ptr<Plan> scratch{new Plan}; /**< the responder's plan */
	std::vector<struct pollfd> wait_fds;     /**< exchange()'s poll set, reused */
	/* message buffers: the requester's and the responder's (serving while waiting) */
	std::unique_ptr<uint8_t[]> req{new uint8_t[kMsgBytes]};
	std::unique_ptr<uint8_t[]> rep{new uint8_t[kMsgBytes]};
	std::unique_ptr<uint8_t[]> srv_in{new uint8_t[kMsgBytes]};
	std::unique_ptr<uint8_t[]> srv_out{new uint8_t[kMsgBytes]};
	time_t last_refusal_log = 0; /**< refusals are logged once a second at most */
	uint64_t refused = 0;        /**< peers and requests refused (for the log line) */
};

XFabric *g_xf;

/*
 * fork(): the child's copy is the parent's: its connections and its member
 * sockets are the parent's to read (the child closes its copies), its threads
 * are not in the child. It keeps the sockets of the LIDs it inherited: holding
 * one is what makes it a member of that LID (xfabric_join_lid), and the LID
 * stays taken while a member lives.
 */
void xfabric_fork_child()
{
	XFabric *old = g_xf;
	XFabric *x = new XFabric;
	x->name = old->name;
	x->held = old->held;
	auto held = [&](int fd) {
		for (const auto &h : old->held)
			if (h.second == fd)
				return true;
		return false;
	};
	for (const Port &p : old->ports)
		if (!held(p.fd))
			close(p.fd);
	for (const Conn &c : old->conns)
		close(c.fd);
	for (const auto &c : old->clients)
		close(c.second);
	g_xf = x; /* the copy is left alone: a thread of the parent may have held its locks */
}

XFabric &xf()
{
	static bool once = (g_xf = new XFabric,
			    pthread_atfork(nullptr, nullptr, xfabric_fork_child), true);
	(void)once;
	return *g_xf;
}

/** The member index QPN @p qpn names (0 when the host's QPNs have no windows). */
uint8_t qpn_member(uint32_t qpn, const HcaCaps &caps)
{
	if (caps.max_qp > HCA_MEMBER_MAX_QP)
		return 0;
	return (uint8_t)((qpn & 0xffffff) >> HCA_MEMBER_SHIFT);
}

socklen_t lid_addr(const char *name, uint16_t lid, struct sockaddr_un *a, uint8_t member = 0)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* abstract namespace: sun_path[0] = 0, no file, gone with its last holder */
	int n = member ? snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
				  "mlx5-sim-fabric/%s/%u/m%u", name, (unsigned)lid,
				  (unsigned)member)
		       : snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "mlx5-sim-fabric/%s/%u",
				  name, (unsigned)lid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/**
 * Process @p pid holds socket @p fd of ours (an fd of it in /proc/<pid>/fd): it
 * is a member of that socket's LID. Only a process of our uid can be read there.
 */
bool pid_holds_socket(pid_t pid, int fd)
{
	struct stat st;
	if (pid <= 0 || fd < 0 || fstat(fd, &st) != 0)
		return false;
	char want[48], path[64], link[64];
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)st.st_ino);
	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)) != nullptr) {
		if (e->d_name[0] == '.')
			continue;
		char p[sizeof(path) + sizeof(e->d_name) + 2];
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		ssize_t n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		found = strcmp(link, want) == 0;
	}
	closedir(d);
	return found;
}

#ifndef SO_PEERPIDFD
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) || defined(__i386__)
#define SO_PEERPIDFD 77 /* asm-generic/socket.h, Linux 6.5 */
#endif
#endif

/**
 * pid_holds_socket() for the process at the other end of connection @p conn
 * (@p pid from SO_PEERCRED), as that very process: SO_PEERCRED gives a number,
 * which another process may carry by now (the peer exited and its pid was reused
 * by a member, while a process it handed the connection to speaks on it). So the
 * peer is pinned by a pidfd (SO_PEERPIDFD) and must still be alive after its
 * /proc/<pid>/fd was read: a live process keeps its pid. A kernel without
 * SO_PEERPIDFD (before 6.5) is left with the pid check alone (ASSUMPTIONS.md 82).
 */
bool peer_holds_socket(int conn, pid_t pid, int fd)
{
#ifdef SO_PEERPIDFD
	int pidfd = -1;
	socklen_t len = sizeof(pidfd);
	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) {
		if (errno != ENOPROTOOPT && errno != EINVAL)
			return false; /* the peer is gone (ESRCH): no member */
		return pid_holds_socket(pid, fd);
	}
	bool held = pid_holds_socket(pid, fd);
	struct pollfd p = {pidfd, POLLIN, 0};
	/* readable: the process exited, so the pid read may be another's */
	bool alive = poll(&p, 1, 0) == 0;
	close(pidfd);
	return held && alive;
#else
	return pid_holds_socket(pid, fd);
#endif
}

Verdict synd(uint8_t s)
{
	return Verdict{s, 0};
}

/** One log line per second at most, so a flood of refused peers cannot fill a log. */
void log_refusal(const char *what, uint16_t lid, long uid, long pid)
{
	XFabric &x = xf();
	time_t now = time(nullptr);
	x.refused++;
	if (now == x.last_refusal_log)
		return;
	x.last_refusal_log = now;
	fprintf(stderr,
		"mlx5_sim: fabric %s, LID %u: %s (peer uid %ld pid %ld; %llu refused so far)\n",
		x.name.c_str(), (unsigned)lid, what, uid, pid, (unsigned long long)x.refused);
}

/** The process's own uid, or one @p caps admits (sim_fabric_uids). */
bool uid_admitted(const HcaCaps &caps, uid_t uid)
{
	if (uid == geteuid())
		return true;
	for (uint8_t i = 0; i < caps.n_fabric_uids; i++)
		if (caps.fabric_uids[i] == (uint32_t)uid)
			return true;
	return false;
}

/**
 * The process at the other end of @p fd may join, for our host @p lid (its
 * admitted uids). The credentials are the peer's at connect() / listen().
 */
bool peer_admitted(int fd, uint16_t lid, bool accepted, pid_t *pid = nullptr)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	Host *host = fabric_host(lid);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr)) {
		log_refusal("peer credentials unknown, refused", lid, -1, -1);
		return false;
	}
	if (pid)
		*pid = cr.pid;
	if (host && uid_admitted(host->caps, cr.uid))
		return true;
	log_refusal(accepted ? "connection from a uid not admitted, closed"
			     : "LID held by a uid not admitted, not sent to",
		    lid, (long)cr.uid, (long)cr.pid);
	return false;
}

/**
 * The chunk's range lies in its message, as the requester's engine cuts them
 * (xfabric_execute): nothing outside [0, total) is read or written, no reply
 * carries bytes this request did not produce.
 */
bool chunk_ok(const XfReq &rq)
{
	uint8_t op = rq.opcode;
	bool last = rq.flags & XF_REQ_LAST;
	if (op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA)
		return rq.len == 0 && rq.off == 0 && rq.total == 8 && last;
	if (rq.len > XF_CHUNK || rq.total > HCA_MAX_MSG || rq.off > rq.total ||
	    rq.len > rq.total - rq.off || (rq.len == 0 && rq.total != 0) ||
	    last != (rq.off + rq.len == rq.total))
		return false;
	if (op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM)
		return rq.off == 0; /* one message, one chunk */
	return true;
}

/** Whether spans @p s[0..n) hold @p bits (repeat-block or signature spans). */
bool any_span(const Span *s, uint32_t n, uint64_t bits)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i].len & bits)
			return true;
	return false;
}

/**
 * Move @p len bytes between @p buf and the spans (plain or repeat block), starting
 * @p off bytes into them: into the spans with @p to_spans. Returns 0, or 1 / 2 when
 * the source / destination faulted (@p safe: on-demand memory, through the kernel).
 */
int span_io(const Span *s, uint32_t n, uint64_t off, uint8_t *buf, uint64_t len, bool to_spans,
	    bool safe)
{
	uint64_t have = 0;
	for (uint32_t i = 0; i < n; i++)
		have += span_len(s[i]);
	if (off > have || len > have - off)
		return to_spans ? 2 : 1; /* never a short copy: no byte it did not move */
	Span b = {buf, len};
	Cursor spans = cursor_at(s, n, off), flat = {&b, 1, 0, 0};
	return to_spans ? copy_pieces(&flat, &spans, len, safe)
			: copy_pieces(&spans, &flat, len, safe);
}

void close_conn(std::vector<Conn> &v, size_t i)
{
	std::lock_guard<std::mutex> g(xf().fds_mu);
	close(v[i].fd);
	v.erase(v.begin() + (long)i);
}

/**
 * One request read from connection @p c: execute it and send the reply. false:
 * the request does not come from the one host @p c speaks for, or names a host
 * the connection did not reach; the connection is closed unserved.
 */
bool serve_one(Conn &c, const uint8_t *msg, size_t n)
{
	XFabric &x = xf();
	XfReq rq;
	XfRep rep{};
	if (n < sizeof(rq))
		return true;
	memcpy(&rq, msg, sizeof(rq));
	if (rq.magic != XF_MAGIC ||
	    n != sizeof(rq) + (rq.opcode == MLX5_OPCODE_RDMA_READ ? 0 : rq.len))
		return true; /* not a message of ours: no reply, the requester times out */
	/* one connection, one remote host: never two LIDs, a LID of this process only
	 * from a member of it (a process that holds its socket) */
	if (rq.dlid != c.lid || rq.slid == 0 || rq.slid > 0xbfff || (c.slid && rq.slid != c.slid)) {
		log_refusal("request naming a LID its connection does not speak for, closed", c.lid,
			    -1, (long)c.pid);
		return false;
	}
	if (fabric_host(rq.slid)) {
		if (c.member < 0) {
			auto h = x.held.find(rq.slid);
			/* never this process itself: it reaches its own hosts directly */
			c.member = h != x.held.end() && c.pid != getpid() &&
				   peer_holds_socket(c.fd, c.pid, h->second);
		}
		if (!c.member) {
			log_refusal(
				"request naming our LID from a process that is no member of it, "
				"closed",
				c.lid, -1, (long)c.pid);
			return false;
		}
	}
	c.slid = rq.slid;
	rep.magic = XF_MAGIC;
	rep.seq = rq.seq;
	Host *host = fabric_host(rq.dlid);
	DmaScope dma(host && host->caps.dma_opaque);
	QpObj *completes = nullptr;
	if (!host)
		rep.syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR; /* gone meanwhile */
	else if (!chunk_ok(rq))
		rep.syndrome = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR; /* nothing touched */
	else
		completes = host->port.xfabric_serve(
			rq, msg + sizeof(rq), &rep, x.srv_out.get() + sizeof(rep), x.scratch.get());
	if (rep.syndrome || rep.status != XF_REP_DONE)
		rep.len = 0; /* data only with a successful read */
	memcpy(x.srv_out.get(), &rep, sizeof(rep));
	/* a requester that went away gets nothing: its process is gone */
	(void)send(c.fd, x.srv_out.get(), sizeof(rep) + rep.len, MSG_NOSIGNAL);
	/*
	 * The ACK leaves before the responder's CQE is seen, as a device acknowledges a
	 * message before its receive completes: a responder that exits right after its
	 * last receive (ibv_srq_pingpong) must not leave that message unacknowledged.
	 */
	if (completes)
		host->cqs.write_resp_cqe(completes, x.scratch.get(), rq.sqpn);
	return true;
}

/** Accept connections and serve every request that has arrived. Under fabric_lock(). */
void serve_pending()
{
	XFabric &x = xf();
	for (const Port &p : x.ports) {
		int c;
		while ((c = accept4(p.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
			pid_t pid = 0;
			if (!peer_admitted(c, p.lid, true, &pid)) {
				close(c); /* never read: nothing of ours is touched */
				continue;
			}
			std::lock_guard<std::mutex> g(x.fds_mu);
			x.conns.push_back(Conn{c, p.lid, 0, pid, -1});
		}
	}
	for (size_t i = 0; i < x.conns.size();) {
		ssize_t n = recv(x.conns[i].fd, x.srv_in.get(), kMsgBytes, MSG_DONTWAIT);
		if (n > 0) {
			if (!serve_one(x.conns[i], x.srv_in.get(), (size_t)n))
				close_conn(x.conns, i);
			continue; /* more may be queued */
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			i++;
			continue;
		}
		close_conn(x.conns, i); /* the requester's process is gone */
	}
}

/** The listener: wakes up when a request arrives and nobody holding the lock serves it. */
void listen_main()
{
	XFabric &x = xf();
	std::vector<struct pollfd> fds;
	for (;;) {
		fds.clear();
		{
			std::lock_guard<std::mutex> g(x.fds_mu);
			for (const Port &p : x.ports)
				fds.push_back(pollfd{p.fd, POLLIN, 0});
			for (const Conn &c : x.conns)
				fds.push_back(pollfd{c.fd, POLLIN, 0});
		}
		/* the timeout picks up new connections' sockets */
		if (poll(fds.data(), fds.size(), 100) <= 0)
			continue;
		std::lock_guard<DevMutex> lk(fabric_lock());
		serve_pending();
	}
}

uint64_t client_key(uint16_t slid, uint16_t lid, uint8_t member)
{
	return (uint64_t)slid << 24 | (uint64_t)lid << 8 | member;
}

/**
 * The connection of our host @p slid to host @p lid, member @p member, of another
 * process, or -1 (nobody there, a process of a uid @p slid does not admit, or
 * one that speaks for a LID of ours without being its member).
 */
int client_fd(uint16_t slid, uint16_t lid, uint8_t member)
{
	XFabric &x = xf();
	uint64_t k = client_key(slid, lid, member);
	auto it = x.clients.find(k);
	if (it != x.clients.end())
		return it->second;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_un a;
	socklen_t len = lid_addr(x.name.c_str(), lid, &a, member);
	/* whoever holds the name must be a member too: our writes and reads go there */
	pid_t pid = 0;
	if (connect(fd, reinterpret_cast<struct sockaddr *>(&a), len) != 0 ||
	    !peer_admitted(fd, slid, false, &pid)) {
		close(fd);
		return -1;
	}
	auto h = x.held.find(lid);
	if (h != x.held.end() && !peer_holds_socket(fd, pid, h->second)) {
		log_refusal(
			"member name of our LID held by a process that is no member, not sent to",
			lid, -1, (long)pid);
		close(fd);
		return -1;
	}
	try {
		x.clients[k] = fd;
	} catch (...) {
		close(fd);
		return -1;
	}
	return fd;
}

void drop_client(uint16_t slid, uint16_t lid, uint8_t member)
{
	auto it = xf().clients.find(client_key(slid, lid, member));
	if (it == xf().clients.end())
		return;
	close(it->second);
	xf().clients.erase(it);
}

/**
 * Send the request in xf().req (header + @p data_len bytes) of our host @p slid
 * to host @p lid (its process @p member) and wait for its reply in xf().rep, serving requests that
 * arrive meanwhile. false: no reply (nobody there, the connection failed, or
 * the time ran out): the request is lost. An @p acked request (RC) that finds
 * the host gone, or that the host dropped (a reply with RETRY_EXC: no such QP,
 * not its peer), waits out its retries all the same: a device cannot tell a port
 * or QP that went away from a lost packet, so a peer that exits while messages
 * to it are in flight fails them after the retries, not at once. DC requests
 * fail at once: a DCI serves many targets, and this engine, blocked while it
 * waits, would hold up all of them, which a device does not (ASSUMPTIONS.md 75).
 */
bool exchange(uint16_t slid, uint16_t lid, uint8_t member, size_t data_len, uint8_t retry_cnt,
	      bool acked, size_t *rep_len)
{
	XFabric &x = xf();
	auto deadline = std::chrono::steady_clock::now() +
			std::chrono::milliseconds(kAckTimeoutMs * (1 + (int)retry_cnt));
	int fd = client_fd(slid, lid, member);
	XfReq *rq = reinterpret_cast<XfReq *>(x.req.get());
	uint64_t seq = rq->seq = ++x.seq;
	if (fd >= 0 && send(fd, x.req.get(), sizeof(XfReq) + data_len, MSG_NOSIGNAL) < 0) {
		drop_client(slid, lid, member);
		fd = -1;
	}
	std::vector<struct pollfd> &fds = x.wait_fds; /* no allocation once grown */
	bool dropped = false;
	for (;;) {
		if (fd < 0 && !acked)
			return false;
		fds.clear();
		fds.push_back(pollfd{fd, POLLIN, 0}); /* -1: poll() skips it */
		for (const Port &p : x.ports)
			fds.push_back(pollfd{p.fd, POLLIN, 0});
		for (const Conn &c : x.conns)
			fds.push_back(pollfd{c.fd, POLLIN, 0});
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		if (left.count() <= 0)
			break;
		int r = poll(fds.data(), fds.size(), (int)left.count());
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		bool others = false;
		for (size_t i = 1; i < fds.size(); i++)
			others |= fds[i].revents != 0;
		if (others)
			serve_pending(); /* the peer may be waiting for us right now */
		if (fd < 0 || !fds[0].revents)
			continue;
		ssize_t n = recv(fd, x.rep.get(), kMsgBytes, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			/* the responder's process is gone */
			drop_client(slid, lid, member);
			fd = -1;
			continue;
		}
		XfRep rep;
		if ((size_t)n < sizeof(rep))
			continue;
		memcpy(&rep, x.rep.get(), sizeof(rep));
		if (rep.magic != XF_MAGIC || rep.seq != seq || (size_t)n != sizeof(rep) + rep.len)
			continue; /* a late reply to a request given up on */
		*rep_len = (size_t)n;
		if (!acked || rep.syndrome != MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR)
			return true;
		/* dropped there (no such QP, a DCT's key): lost, the retries are waited out */
		dropped = true;
		fd = -1; /* the connection stays; x.rep keeps the reply */
	}
	if (dropped)
		return true;
	if (fd >= 0)
		drop_client(slid, lid, member); /* late replies die with the connection */
	return false;
}

/**
 * A plan for a request another host sent, before any of this host's spans: the
 * request's opcode, length, immediate and solicited-event bit, nothing else left
 * from the plan's last use (every served transport starts here; write_resp_cqe()
 * reads the SE bit).
 */
void plan_for_request(Plan *pl, const XfReq &rq)
{
	pl->nsrc = pl->ndst = 0;
	pl->safe = false;
	pl->atomic = false;
	pl->fault = 0;
	pl->xflags = 0;
	pl->npat = pl->nsig = 0;
	pl->resp_qp = nullptr;
	pl->opcode = rq.opcode;
	pl->total = rq.total;
	pl->imm_raw = rq.imm;
	pl->solicited = rq.flags & XF_REQ_SE;
}

} // namespace

namespace {

/*
 * Listen on @p fd at the first of the addresses addr_of(0 .. n - 1) gives (false:
 * skip that one) that no process holds: bind() picks among the processes. Its
 * index, else -1 and errno.
 */
template <class AddrOf>
long listen_first_free(int fd, long n, AddrOf addr_of)
{
	for (long i = 0; i < n; i++) {
		struct sockaddr_un a;
		socklen_t len;
		if (!addr_of(i, &a, &len))
			continue;
		if (bind(fd, reinterpret_cast<struct sockaddr *>(&a), len) != 0) {
			if (errno == EADDRINUSE)
				continue;
			return -1;
		}
		return listen(fd, 64) == 0 ? i : -1;
	}
	errno = EADDRINUSE;
	return -1;
}

} // namespace

int xfabric_claim_lid(const char *name, uint16_t *lid)
{
	XFabric &x = xf();
	std::lock_guard<DevMutex> lk(fabric_lock());
	if (!x.name.empty() && x.name != name)
		return -EINVAL; /* one machine-wide fabric per process */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* the preferred LID (instance number + 1), else the lowest free one */
	auto cand = [lid](long i) { return (uint16_t)(i == 0 ? *lid : i); };
	long i = listen_first_free(fd, 0xc000, [&](long k, struct sockaddr_un *a, socklen_t *len) {
		uint16_t c = cand(k);
		/* a LID of the process's own fabric stays with its host */
		if (c == 0 || c > 0xbfff || (k > 0 && c == *lid) || fabric_host(c))
			return false;
		*len = lid_addr(name, c, a);
		return true;
	});
	int err = errno;
	if (i >= 0) {
		try {
			x.name = name; /* empty or name already */
			x.held[cand(i)] = fd;
			*lid = cand(i);
			return fd;
		} catch (...) {
			err = ENOMEM;
		}
	}
	close(fd);
	return -err;
}

int xfabric_join_lid(const char *name, uint16_t lid, uint8_t *member)
{
	XFabric &x = xf();
	std::lock_guard<DevMutex> lk(fabric_lock());
	if (x.name != name || !x.held.count(lid) || fabric_host(lid))
		return -ENOENT; /* not a LID this process inherited, or one it already has */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* the lowest free member index, 1 up (the LID's own socket is member 0) */
	long m = listen_first_free(fd, HCA_MAX_MEMBERS,
				   [&](long k, struct sockaddr_un *a, socklen_t *len) {
					   if (k == 0)
						   return false;
					   *len = lid_addr(name, lid, a, (uint8_t)k);
					   return true;
				   });
	if (m > 0) {
		*member = (uint8_t)m;
		return fd;
	}
	int err = errno;
	close(fd);
	return -err;
}

int xfabric_port_add(int fd, uint16_t lid)
{
	XFabric &x = xf();
	try {
		std::lock_guard<std::mutex> g(x.fds_mu);
		x.ports.push_back(Port{fd, lid});
		if (!x.listening) {
			start_thread([](ThreadUp &u) {
				u.up();
				listen_main();
			}).detach();
			x.listening = true;
		}
	} catch (...) {
		return -ENOMEM;
	}
	return 0;
}

void xfabric_port_remove(int fd)
{
	XFabric &x = xf();
	std::lock_guard<std::mutex> g(x.fds_mu);
	for (size_t i = 0; i < x.ports.size(); i++)
		if (x.ports[i].fd == fd)
			x.ports.erase(x.ports.begin() + (long)i);
	for (auto it = x.held.begin(); it != x.held.end();)
		it = it->second == fd ? x.held.erase(it) : std::next(it);
	close(fd);
}

bool FabricPort::leaves_process(const QpObj *qp, const Plan *pl)
{
	if (!caps_.fabric_name[0])
		return false;
	if (!hca_remote_opcode(pl->opcode))
		return false;
	bool av = qp->cfg.dc == DcRole::Dci || qp->cfg.type == IBV_QPT_UD;
	uint16_t dlid = av ? mlx5_hw_ld_be16(pl->wqe + MLX5_HW_DS_BYTES + 14) : qp->dest_lid;
	uint32_t dqpn = av ? mlx5_hw_ld_be32(pl->wqe + MLX5_HW_DS_BYTES + 8) : qp->dest_qpn;
	const Host *h = host_of(dlid);
	/* a LID shared with other processes: the QPN names the member */
	return h == nullptr || qpn_member(dqpn, caps_) != h->caps.lid_member;
}

PlanResult FabricPort::xfabric_execute(QpObj *qp, Plan *pl, uint32_t seg, PlanError *err)
{
	XFabric &x = xf();
	uint8_t op = pl->opcode;
	XfReq rq{};
	rq.magic = XF_MAGIC;
	rq.opcode = op;
	rq.retry_cnt = qp->retry_cnt;
	rq.slid = caps_.lid;
	rq.sqpn = qp->qpn;
	rq.imm = pl->imm_raw;
	if (qp->cfg.dc == DcRole::Dci) {
		const uint8_t *av = pl->wqe + MLX5_HW_DS_BYTES;
		uint32_t dqp_dct = mlx5_hw_ld_be32(av + 8);
		if (!(dqp_dct & 0x80000000u)) {
			err->req = synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
			return PlanResult::Error;
		}
		rq.flags |= XF_REQ_DC;
		rq.dc_key = mlx5_hw_ld_be64(av);
		rq.dqpn = dqp_dct & 0xffffff;
		rq.dlid = mlx5_hw_ld_be16(av + 14);
	} else if (qp->cfg.type == IBV_QPT_UD) {
		const uint8_t *av = pl->wqe + MLX5_HW_DS_BYTES;
		rq.flags |= XF_REQ_UD;
		rq.dc_key = ud_wqe_qkey(qp, pl);
		rq.dqpn = mlx5_hw_ld_be32(av + 8) & 0xffffff;
		rq.dlid = mlx5_hw_ld_be16(av + 14);
		rq.rsvd = pl->ud_sl;
	} else {
		rq.dlid = qp->dest_lid;
		rq.dqpn = qp->dest_qpn;
		if (qp->cfg.type == IBV_QPT_UC)
			rq.flags |= XF_REQ_UC;
	}
	bool rdma = op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM ||
		    op == MLX5_OPCODE_RDMA_READ;
	bool atomic = op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA;
	const uint8_t *t = pl->wqe + seg; /* remote address segment */
	if (rdma || atomic) {
		rq.raddr = mlx5_hw_ld_be64(t);
		rq.rkey = mlx5_hw_ld_be32(t + 8);
	}
	/*
	 * Not modelled across processes (ASSUMPTIONS.md): data through signature mkeys,
	 * SEND with invalidate, and SENDs longer than one message. The requester's
	 * repeat blocks are (a fill: an RDMA write from a repeat-block mkey).
	 */
	bool read = op == MLX5_OPCODE_RDMA_READ;
	const Span *local = read ? pl->dst : pl->src;
	uint32_t nlocal = (read ? pl->ndst : pl->nsrc) & ~HCA_NSRC_SPECIAL;
	if (any_span(local, nlocal, HCA_SPAN_SIG) || op == MLX5_OPCODE_SEND_INVAL) {
		err->req = synd(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		return PlanResult::Error;
	}
	if (!rdma && !atomic && pl->total > XF_CHUNK) {
		err->req = synd(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		return PlanResult::Error;
	}
	if (atomic) {
		const struct mlx5_wqe_ctrl_seg *ctrl =
			reinterpret_cast<const struct mlx5_wqe_ctrl_seg *>(pl->wqe);
		Verdict v = atomic_result(host_.mrt, qp, pl, seg, mlx5_hw_ctrl_ds(ctrl));
		if (v.syndrome) {
			err->req = v;
			return PlanResult::Error;
		}
		rq.swap_add = mlx5_hw_ld_be64(t + 16);
		rq.compare = mlx5_hw_ld_be64(t + 24);
		pl->total = 8;
	}
	rq.total = pl->total;
	if (rq.dlid == 0)
		rq.dlid = caps_.lid; /* RC's own host: another member of its LID */
	uint8_t member = qpn_member(rq.dqpn, caps_);
	/* nothing leaves a host whose link is down */
	err->req = synd(MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	/* UD and UC: nothing answers, a lost message completes the sender all the same */
	bool ud = rq.flags & (XF_REQ_UD | XF_REQ_UC);
	if (link_down_ && !ud)
		return PlanResult::Error;

	uint64_t off = 0;
	do {
		uint64_t len = pl->total - off < XF_CHUNK ? pl->total - off : XF_CHUNK;
		rq.off = off;
		rq.len = atomic ? 0 : (uint32_t)len;
		rq.flags = (uint8_t)((rq.flags & (XF_REQ_DC | XF_REQ_UD | XF_REQ_UC)) |
				     (pl->solicited ? XF_REQ_SE : 0) |
				     (off + len == pl->total ? XF_REQ_LAST : 0));
		memcpy(x.req.get(), &rq, sizeof(rq));
		size_t out = 0;
		if (!read && !atomic && len) {
			out = len;
			if (span_io(local, nlocal, off, x.req.get() + sizeof(rq), len, false,
				    pl->safe)) {
				err->req = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
						   MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
				return PlanResult::Error;
			}
		}
		size_t got;
		/* a datagram nobody takes is gone: no ACK tells the sender (UD) */
		if (ud && (link_down_ ||
			   !exchange(rq.slid, rq.dlid, member, out, rq.retry_cnt, false, &got)))
			break;
		if (!ud && !exchange(rq.slid, rq.dlid, member, out, rq.retry_cnt,
				     !(rq.flags & XF_REQ_DC), &got))
			return PlanResult::Error; /* RETRY_EXC */
		XfRep rep;
		memcpy(&rep, x.rep.get(), sizeof(rep));
		/* the request got there: both links' delay, as in one process */
		pl->delay_us = mode_ == ExecMode::Inline ? 0 : link_delay_us_ + rep.delay_us;
		if (ud) {
			off += len; /* whatever the reply says: no ACK, no NAK */
			continue;
		}
		if (rep.status == XF_REP_STALL) {
			qp->rnr_peer_timer = rep.rnr_timer; /* paces the retries */
			qp->stall_remote = true;
			return PlanResult::Stall;
		}
		if (rep.syndrome) {
			err->req = Verdict{rep.syndrome, rep.vendor};
			return PlanResult::Error;
		}
		if (read &&
		    (rep.len != len ||
		     span_io(local, nlocal, off, x.rep.get() + sizeof(rep), len, true, pl->safe))) {
			err->req = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
					   MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
			return PlanResult::Error;
		}
		if (atomic) {
			uint8_t old[8];
			memcpy(old, &rep.atomic_old, 8);
			if (!pl->safe)
				memcpy(pl->atomic_result, old, 8);
			else if (mem::safe_move(pl->atomic_result, old, 8)) {
				err->req = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
						   MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
				return PlanResult::Error;
			}
		}
		off += len;
	} while (off < pl->total);

	/* done: the plan has nothing left to move, only its requester CQE */
	*err = PlanError{};
	err->resp_event = IBV_EVENT_COMM_EST;
	st_.bytes.add(pl->total);
	pl->byte_cnt = (uint32_t)pl->total;
	pl->nsrc = pl->ndst = 0;
	pl->total = 0;
	pl->atomic = false;
	pl->xflags &= ~XF_PATTERN; /* its repeat blocks were read */
	pl->npat = 0;
	pl->resp_qp = nullptr;
	pl->peer = nullptr;
	return PlanResult::Ok;
}

QpObj *FabricPort::xfabric_serve(const XfReq &rq, const uint8_t *data, XfRep *rep, uint8_t *out,
				 Plan *pl)
{
	if (rq.flags & XF_REQ_UD) {
		xfabric_serve_ud(rq, data, rep, pl);
		return nullptr;
	}
	if (rq.flags & XF_REQ_UC) {
		xfabric_serve_uc(rq, data, rep, pl);
		return nullptr;
	}
	uint8_t op = rq.opcode;
	PlanError err{};
	err.resp_event = IBV_EVENT_COMM_EST;
	rep->status = XF_REP_DONE;
	rep->len = 0;
	rep->delay_us = link_delay_us_;
	/* the target: a DCT with the right key, or an RC QP that answers */
	QpObj *resp = host_.qps.find(rq.dqpn);
	rep->syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	if (link_down_ || !request_survives(rq.retry_cnt))
		return nullptr;
	if (rq.flags & XF_REQ_DC) {
		if (!resp || resp->cfg.dc != DcRole::Dct || resp->state != IBV_QPS_RTR)
			return nullptr;
		if (resp->cfg.dct_key != rq.dc_key) {
			resp->dct_key_violations++;
			return nullptr;
		}
	} else if (!rc_accepts(resp, rq.slid, rq.sqpn) || resp->cfg.type != IBV_QPT_RC) {
		return nullptr; /* not its connected peer: dropped, as a packet of another
				   connection */
	}
	rep->syndrome = 0;

	/* a plan of this host's spans: the remote segment as a WQE would carry it */
	plan_for_request(pl, rq);
	mlx5_hw_st_be64(pl->wqe, rq.raddr);
	mlx5_hw_st_be32(pl->wqe + 8, rq.rkey);
	bool write = op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM;
	bool send = op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM;
	bool atomic = op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA;
	Verdict v{0, 0};
	const Span *spans = pl->dst;
	uint32_t nspans = 0;
	if (write || op == MLX5_OPCODE_RDMA_READ) {
		/* every chunk checks the whole message's range: nothing of a bad one lands */
		int need = write ? IBV_ACCESS_REMOTE_WRITE : IBV_ACCESS_REMOTE_READ;
		v = parse_remote(resp, pl, 0, rq.total, need, &err);
		spans = write ? pl->dst : pl->src;
		nspans = write ? pl->ndst : pl->nsrc;
	} else if (send) {
		PlanResult r = take_recv(resp, pl, true, &err);
		if (r == PlanResult::Stall) {
			rep->status = XF_REP_STALL;
			rep->rnr_timer = resp->min_rnr_timer;
			return nullptr;
		}
		if (r == PlanResult::Error)
			v = err.req;
		nspans = pl->ndst;
	} else if (atomic) {
		/* the atomic segment where a WQE has it, after the remote address */
		mlx5_hw_st_be64(pl->wqe + 16, rq.swap_add);
		mlx5_hw_st_be64(pl->wqe + 24, rq.compare);
		v = atomic_target(resp, pl, 0, &err);
	} else {
		v = synd(MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		err = PlanError{v, resp, IBV_EVENT_QP_REQ_ERR, false, {0, 0}, 0};
	}
	/* an mkey this model cannot move across processes (ASSUMPTIONS.md) */
	if (!v.syndrome && any_span(spans, nspans, HCA_SPAN_PATTERN | HCA_SPAN_SIG)) {
		v = synd(MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		err = PlanError{v, resp, IBV_EVENT_QP_ACCESS_ERR, false, {0, 0}, 0};
	}

	/* the bytes */
	if (!v.syndrome && !atomic) {
		bool in = op != MLX5_OPCODE_RDMA_READ;
		/* always the fault-safe move: memory the application unmapped under a live
		 * key must not let a peer crash this process (ASSUMPTIONS.md 31) */
		int f = span_io(spans, nspans, rq.off, in ? const_cast<uint8_t *>(data) : out,
				rq.len, in, true);
		if (f == (in ? 2 : 1)) {
			/* this host's on-demand page went away under the request */
			v = Verdict{MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				    MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
			err = PlanError{v, resp, IBV_EVENT_QP_ACCESS_ERR, false, {0, 0}, 0};
		} else if (!in) {
			rep->len = rq.len;
		}
	} else if (!v.syndrome) {
		/* the device's own atomic, its old value into the reply */
		pl->atomic_result = reinterpret_cast<uint8_t *>(&rep->atomic_old);
		exec_general(pl);
		if (pl->fault) {
			/* this host's on-demand page went away under the request */
			v = Verdict{MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				    MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
			err = PlanError{v, resp, IBV_EVENT_QP_ACCESS_ERR, false, {0, 0}, 0};
		}
	}
	if (v.syndrome) {
		rep->syndrome = v.syndrome;
		rep->vendor = v.vendor;
		rep->len = 0;
		if (err.resp_qp && err.resp_cqe)
			host_.cqs.write_err_cqe(err.resp_qp, true, 0, err.resp_idx, err.resp);
		QpTable::responder_fails(err.resp_qp, err.resp_event, nullptr);
		return nullptr;
	}
	/* the message's end: a write with immediate takes a receive; responder CQEs */
	if (op == MLX5_OPCODE_RDMA_WRITE_IMM && (rq.flags & XF_REQ_LAST)) {
		PlanResult r = take_recv(resp, pl, false, &err);
		if (r == PlanResult::Stall) {
			rep->status = XF_REP_STALL; /* the data is written again on the retry */
			rep->rnr_timer = resp->min_rnr_timer;
			return nullptr;
		}
		if (r == PlanResult::Error) {
			rep->syndrome = err.req.syndrome;
			QpTable::responder_fails(err.resp_qp, err.resp_event, nullptr);
			return nullptr;
		}
		pl->resp_opcode = MLX5_CQE_RESP_WR_IMM;
	} else if (send) {
		pl->resp_opcode = op == MLX5_OPCODE_SEND ? MLX5_CQE_RESP_SEND
							 : MLX5_CQE_RESP_SEND_IMM;
	} else {
		return nullptr;
	}
	return resp; /* its CQE once the reply is sent (serve_one) */
}

void FabricPort::xfabric_serve_ud(const XfReq &rq, const uint8_t *data, XfRep *rep, Plan *pl)
{
	/* the sender learns nothing: its WQE completes whatever happens here */
	rep->status = XF_REP_DONE;
	rep->syndrome = 0;
	rep->len = 0;
	rep->delay_us = link_delay_us_;
	QpObj *resp = host_.qps.find(rq.dqpn);
	if (link_down_ || !request_survives(0) || !ud_accepts(resp, (uint32_t)rq.dc_key) ||
	    (rq.opcode != MLX5_OPCODE_SEND && rq.opcode != MLX5_OPCODE_SEND_IMM) ||
	    rq.total > HCA_UD_MTU || rq.len != rq.total)
		return;
	plan_for_request(pl, rq);
	PlanError err{};
	err.resp_event = IBV_EVENT_COMM_EST;
	PlanResult r = take_recv(resp, pl, true, &err, HCA_UD_GRH_BYTES);
	if (r == PlanResult::Stall)
		return; /* no receive posted: dropped */
	Verdict bad = err.resp;
	if (r == PlanResult::Ok && any_span(pl->dst, pl->ndst, HCA_SPAN_PATTERN | HCA_SPAN_SIG))
		bad = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0}; /* not moved across processes */
	else if (r == PlanResult::Ok &&
		 span_io(pl->dst, pl->ndst, 0, const_cast<uint8_t *>(data), rq.len, true, true))
		bad = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
			      MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
	else if (r == PlanResult::Ok)
		bad = Verdict{0, 0};
	if (r == PlanResult::Error && !err.resp_cqe)
		return; /* no receive queue: dropped */
	if (bad.syndrome) {
		/* the receive WQE completes in error; the QP goes on (ud.cpp) */
		host_.cqs.write_err_cqe(resp, true, 0, pl->resp_idx, bad);
		return;
	}
	pl->resp_opcode = rq.opcode == MLX5_OPCODE_SEND ? MLX5_CQE_RESP_SEND
							: MLX5_CQE_RESP_SEND_IMM;
	pl->ud_sl = rq.rsvd;
	pl->ud_slid = rq.slid;
	host_.cqs.write_resp_cqe(resp, pl, rq.sqpn);
}

void FabricPort::xfabric_serve_uc(const XfReq &rq, const uint8_t *data, XfRep *rep, Plan *pl)
{
	/* the sender learns nothing: a message this QP cannot take is lost (uc.cpp) */
	rep->status = XF_REP_DONE;
	rep->syndrome = 0;
	rep->len = 0;
	rep->delay_us = link_delay_us_;
	uint8_t op = rq.opcode;
	bool write = op == MLX5_OPCODE_RDMA_WRITE || op == MLX5_OPCODE_RDMA_WRITE_IMM;
	QpObj *resp = host_.qps.find(rq.dqpn);
	if (link_down_ || !request_survives(0) || !uc_opcode(op) || !resp ||
	    resp->cfg.type != IBV_QPT_UC || !rc_accepts(resp, rq.slid, rq.sqpn) ||
	    (!write && rq.len != rq.total))
		return;
	/*
	 * Chunks in order, as UC packets: one whose message's start never arrived (an
	 * earlier chunk lost) is dropped with the rest of that message, up to the next
	 * message's first chunk; its WRITE_IMM takes no receive.
	 */
	if (rq.off != 0 && rq.off != resp->uc_next_off) {
		resp->uc_next_off = 0;
		return;
	}
	resp->uc_next_off = (rq.flags & XF_REQ_LAST) ? 0 : rq.off + rq.len;
	plan_for_request(pl, rq);
	mlx5_hw_st_be64(pl->wqe, rq.raddr);
	mlx5_hw_st_be32(pl->wqe + 8, rq.rkey);
	PlanError err{};
	err.resp_event = IBV_EVENT_COMM_EST;
	if (write) {
		/* every chunk checks the whole message's range; only what the key grants */
		Verdict v = parse_remote(resp, pl, 0, rq.total, IBV_ACCESS_REMOTE_WRITE, &err);
		if (v.syndrome || any_span(pl->dst, pl->ndst, HCA_SPAN_PATTERN | HCA_SPAN_SIG) ||
		    span_io(pl->dst, pl->ndst, rq.off, const_cast<uint8_t *>(data), rq.len, true,
			    true))
			return;
		if (op == MLX5_OPCODE_RDMA_WRITE || !(rq.flags & XF_REQ_LAST))
			return;
	}
	PlanResult r = take_recv(resp, pl, !write, &err);
	if (r == PlanResult::Stall)
		return; /* no receive posted: lost, no RNR NAK */
	Verdict bad = err.resp;
	if (r == PlanResult::Ok && !write &&
	    any_span(pl->dst, pl->ndst, HCA_SPAN_PATTERN | HCA_SPAN_SIG))
		bad = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0}; /* not moved across processes */
	else if (r == PlanResult::Ok && !write &&
		 span_io(pl->dst, pl->ndst, 0, const_cast<uint8_t *>(data), rq.len, true, true))
		bad = Verdict{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
			      MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT};
	else if (r == PlanResult::Ok)
		bad = Verdict{0, 0};
	if (r == PlanResult::Error && !err.resp_cqe)
		return; /* no receive queue: lost */
	if (bad.syndrome) {
		/* the receive WQE completes in error; the QP goes on */
		host_.cqs.write_err_cqe(resp, true, 0, pl->resp_idx, bad);
		return;
	}
	pl->byte_cnt = (uint32_t)rq.total;
	pl->resp_opcode = op == MLX5_OPCODE_SEND       ? MLX5_CQE_RESP_SEND
			  : op == MLX5_OPCODE_SEND_IMM ? MLX5_CQE_RESP_SEND_IMM
						       : MLX5_CQE_RESP_WR_IMM;
	host_.cqs.write_resp_cqe(resp, pl, rq.sqpn);
}

} // namespace mlx5sim
