/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inter-process domain of DPDK 25.11 (RTE_DMA_CAPA_INTER_PROCESS_DOMAIN) on the
 * remote copies of mlx5_dma_remote.cpp: access pair groups, their handlers, and vchans
 * whose domain names a peer process (the driver guide, "Inter-process domain").
 *
 * A group lives in the process that created it: an abstract SOCK_SEQPACKET socket
 * "dma-mlx5-apg/<fabric>/<group id>" (the device's machine-wide fabric, or "host"),
 * claimed with bind() so that one group id has one creator on the machine. A joiner
 * connects, proves it knows the group's token, and keeps the connection for as long as
 * it is a member; over it it publishes what it exposes and looks up other members.
 * Both ends check the other's uid (SO_PEERCRED) against the fabric's rule: ours, or one
 * the device admits (sim_fabric_uids). What a member exposes is one window of its
 * memory: a DC target of its own with a random DC key, and a remote key over exactly
 * that window (rte_pmd_dma_mlx5_group_expose()). A peer's vchan copies into it (RDMA
 * write) or out of it (RDMA read) through one remote channel; the member's device
 * refuses every access outside the window or beyond its rights.
 *
 * One control thread per process serves the groups it created and notices hang-ups
 * (members that leave or die, a creator that goes); callbacks run on it. Requests of a
 * member are answered synchronously over its connection; the thread leaves a member's
 * connection alone while a request is under way, so a group created and joined in one
 * process never deadlocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include <rte_errno.h>

#include "mlx5_dma.h"
#include "mlx5_dma_sdk.h"
#include "rte_pmd_dma_mlx5.h"

namespace {

constexpr uint32_t kMagic = 0x61706731; /* "apg1" */
constexpr int kMaxGroups = 1024;        /* group ids 0 .. kMaxGroups - 1 */
constexpr int kReplyMs = 2000;          /* a creator that does not answer: -ETIMEDOUT */
constexpr int kPollMs = 50;             /* the control thread's period */

enum : uint16_t {
	OP_JOIN = 1, /**< domain, token: become a member */
	OP_EXPOSE,   /**< rec: the member's window */
	OP_LOOKUP,   /**< domain: that member's window */
	OP_LEAVE,
	OP_REPLY,   /**< status (and rec for a lookup) */
	OP_REFUSED, /**< the creator refused the connection (uid) */
};

/** What a member exposes: where its window is and the key to it. */
struct rec {
	uint16_t lid;
	uint16_t exposed; /**< 0: nothing exposed (yet) */
	uint32_t dctn;
	uint64_t dc_key;
	uint32_t rkey;
	uint32_t access; /**< RTE_PMD_DMA_MLX5_REMOTE_ACCESS_* */
	uint64_t addr;
	uint64_t len;
};

struct msg {
	uint32_t magic;
	uint16_t op;
	int16_t gid;
	int32_t status;
	uint32_t pad;
	uint8_t domain[16];
	uint8_t token[16];
	struct rec rec;
};

struct member {
	int fd;
	bool joined;
	rte_uuid_t domain;
	struct rec rec;
};

/** A group a device of this process created or joined. */
struct group {
	int16_t dev_id;
	int16_t gid;
	bool creator;
	bool busy; /**< joiner: a request is under way on fd */
	bool lost; /**< joiner: the creator went (connection closed) */
	rte_uuid_t domain;
	rte_uuid_t token; /**< creator: what joiners must present */
	mlx5_dma_group_cb_t cb;
	struct rec own;
	int fd; /**< creator: listening socket; joiner: connection to the creator */
	std::vector<member> members; /**< creator: connections, joined or not yet */
};

struct handler {
	bool used;
	bool local; /**< the device's own domain in the group */
	int16_t dev_id;
	int16_t gid;
	struct rec rec; /**< the peer's window when the handler was given */
};

struct event {
	mlx5_dma_group_cb_t cb;
	int16_t dev_id;
	int16_t gid;
	rte_uuid_t domain;
	bool destroyed;
};

struct registry {
	std::mutex mu;
	std::vector<std::unique_ptr<group>> groups;
	std::vector<handler> handlers; /**< handler h is handlers[h - 1]; never reused */
	bool thread_started = false;
};

/* intentionally leaked: the control thread may run until the process ends */
registry &reg()
{
	static registry *r = new registry;
	return *r;
}

const char *opt_of(const struct mlx5_dma_dev *p, const char *key)
{
	for (unsigned int i = 0; i < p->args.n_opts; i++)
		if (strcmp(p->args.opts[i].key, key) == 0)
			return p->args.opts[i].value;
	return NULL;
}

/** Where the device's groups are named: its machine-wide fabric, or "host". */
socklen_t group_addr(const struct mlx5_dma_dev *p, int16_t gid, struct sockaddr_un *a)
{
	const char *fab = opt_of(p, "sim_fabric");

	if (!fab || strcmp(fab, "0") == 0 || strcmp(fab, "1") == 0)
		fab = "host";
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "dma-mlx5-apg/%s/%d", fab,
			 (int)gid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/** The fabric's membership rule (as the software HCA's, xfabric.cpp): our uid, or one
 * the device admits with sim_fabric_uids. */
bool uid_admitted(const struct mlx5_dma_dev *p, uid_t uid)
{
	const char *v = opt_of(p, "sim_fabric_uids");

	if (uid == geteuid())
		return true;
	while (v && *v) {
		if (*v < '0' || *v > '9') {
			v++;
			continue;
		}
		char *end;
		unsigned long u = strtoul(v, &end, 10);
		if (u == (unsigned long)uid)
			return true;
		v = end;
	}
	return false;
}

bool peer_uid(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
		return false;
	*uid = cr.uid;
	return true;
}

bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;

	for (size_t i = 0; i < n; i++) /* every byte: no early exit on a token */
		d |= a[i] ^ b[i];
	return d == 0;
}

bool send_msg(int fd, const struct msg &m)
{
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m);
}

/** One message within @p ms: 0, -ETIMEDOUT, or -ECONNRESET (closed, or not ours). */
int recv_msg(int fd, struct msg *m, int ms)
{
	struct pollfd pf = {fd, POLLIN, 0};

	if (poll(&pf, 1, ms) <= 0)
		return -ETIMEDOUT;
	ssize_t n = recv(fd, m, sizeof(*m), MSG_DONTWAIT);
	return n == (ssize_t)sizeof(*m) && m->magic == kMagic ? 0 : -ECONNRESET;
}

group *find_group(int16_t dev_id, int16_t gid)
{
	for (auto &g : reg().groups)
		if (g->dev_id == dev_id && g->gid == gid)
			return g.get();
	return NULL;
}

void forget_handlers(const group *g)
{
	for (handler &h : reg().handlers)
		if (h.used && h.dev_id == g->dev_id && h.gid == g->gid)
			h.used = false;
}

void drop_group(group *g)
{
	forget_handlers(g);
	for (member &m : g->members)
		close(m.fd);
	if (g->fd >= 0)
		close(g->fd);
	auto &v = reg().groups;
	for (size_t i = 0; i < v.size(); i++)
		if (v[i].get() == g) {
			v.erase(v.begin() + (long)i);
			return;
		}
}

/* ---- the creator's side: requests of members (control thread, reg().mu held) ---- */

const struct rec *lookup(const group *g, const uint8_t *domain)
{
	if (same_bytes(domain, g->domain, sizeof(rte_uuid_t)))
		return &g->own;
	for (const member &m : g->members)
		if (m.joined && same_bytes(domain, m.domain, sizeof(rte_uuid_t)))
			return &m.rec;
	return NULL;
}

/** Serve one request of member @p m; false: close its connection. */
bool serve(const struct mlx5_dma_dev *p, group *g, member &m, const struct msg &in)
{
	struct msg out = {};

	out.magic = kMagic;
	out.op = OP_REPLY;
	out.gid = g->gid;
	if (!m.joined) {
		if (in.op != OP_JOIN || in.gid != g->gid ||
		    !same_bytes(in.token, g->token, sizeof(rte_uuid_t))) {
			MLX5_DMA_LOG(ERR,
				     "%s: group %d: a join with a wrong token or request, refused",
				     p->name, g->gid);
			out.status = -EACCES;
		} else if (lookup(g, in.domain)) {
			MLX5_DMA_LOG(ERR, "%s: group %d: that domain is a member already", p->name,
				     g->gid);
			out.status = -EEXIST;
		} else {
			m.joined = true;
			memcpy(m.domain, in.domain, sizeof(m.domain));
		}
		return send_msg(m.fd, out) && out.status == 0;
	}
	switch (in.op) {
	case OP_EXPOSE:
		m.rec = in.rec;
		m.rec.exposed = 1;
		break;
	case OP_LOOKUP: {
		const struct rec *r = lookup(g, in.domain);
		if (r)
			out.rec = *r;
		else
			out.status = -ENOENT;
		break;
	}
	case OP_LEAVE:
		send_msg(m.fd, out);
		return false;
	default:
		out.status = -EINVAL;
	}
	return send_msg(m.fd, out);
}

/** A readable fd of the poll set: serve it; callbacks to run go to @p evs. */
void on_ready(int fd, short revents, std::vector<event> &evs)
{
	for (auto &gp : reg().groups) {
		group *g = gp.get();
		const struct mlx5_dma_dev *p = mlx5_dma_api_dev(g->dev_id);

		if (!p)
			continue;
		if (g->creator && fd == g->fd) {
			int c = accept4(g->fd, NULL, NULL, SOCK_CLOEXEC);
			uid_t uid = (uid_t)-1;

			if (c < 0)
				return;
			if (!peer_uid(c, &uid) || !uid_admitted(p, uid)) {
				struct msg no = {};

				no.magic = kMagic;
				no.op = OP_REFUSED;
				no.status = -EACCES;
				send_msg(c, no);
				close(c);
				MLX5_DMA_LOG(ERR,
					     "%s: group %d: connection of uid %ld refused (not "
					     "admitted on the fabric)",
					     p->name, g->gid, (long)(int)uid);
				return;
			}
			try {
				g->members.push_back(member{c, false, {}, {}});
			} catch (...) {
				close(c);
			}
			return;
		}
		for (size_t i = 0; g->creator && i < g->members.size(); i++) {
			member &m = g->members[i];
			struct msg in;

			if (m.fd != fd)
				continue;
			bool keep = !(revents & (POLLHUP | POLLERR)) && recv_msg(fd, &in, 0) == 0 &&
				    serve(p, g, m, in);
			if (!keep) {
				if (m.joined && g->cb) {
					event e = {g->cb, g->dev_id, g->gid, {}, false};
					memcpy(e.domain, m.domain, sizeof(e.domain));
					evs.push_back(e);
				}
				close(m.fd);
				g->members.erase(g->members.begin() + (long)i);
			}
			return;
		}
		if (!g->creator && fd == g->fd && !g->busy) {
			/* the creator never speaks unasked: its connection closed */
			g->lost = true;
			close(g->fd);
			g->fd = -1;
			forget_handlers(g);
			if (g->cb) {
				event e = {g->cb, g->dev_id, g->gid, {}, true};
				memcpy(e.domain, g->domain, sizeof(e.domain));
				evs.push_back(e);
			}
			return;
		}
	}
}

void control_thread()
{
	std::vector<struct pollfd> fds;
	std::vector<event> evs;

	for (;;) {
		fds.clear();
		{
			std::lock_guard<std::mutex> guard(reg().mu);
			for (auto &g : reg().groups) {
				if (g->fd >= 0 && !g->busy)
					fds.push_back({g->fd, POLLIN, 0});
				for (const member &m : g->members)
					fds.push_back({m.fd, POLLIN, 0});
			}
		}
		if (poll(fds.data(), fds.size(), kPollMs) <= 0)
			continue;
		evs.clear();
		{
			std::lock_guard<std::mutex> guard(reg().mu);
			for (const struct pollfd &pf : fds)
				if (pf.revents)
					on_ready(pf.fd, pf.revents, evs);
		}
		for (const event &e : evs) /* unlocked: a callback may call the group API */
			e.cb(e.dev_id, e.gid, const_cast<uint8_t *>(e.domain),
			     e.destroyed ? MLX5_DMA_GROUP_EVENT_GROUP_DESTROYED
					 : MLX5_DMA_GROUP_EVENT_MEMBER_LEFT);
	}
}

/** Under reg().mu. */
int start_thread()
{
	if (reg().thread_started)
		return 0;
	try {
		std::thread(control_thread).detach();
	} catch (...) {
		return -ENOMEM;
	}
	reg().thread_started = true;
	return 0;
}

/**
 * A member's request to its creator, @p g busy meanwhile (reg().mu not held while
 * waiting). 0 and *out, or the creator's refusal / -ETIMEDOUT / -ECONNRESET.
 */
int request(group *g, struct msg &m, struct msg *out, std::unique_lock<std::mutex> &lk)
{
	int fd = g->fd;
	int ret;

	if (g->lost || fd < 0)
		return -ECONNRESET;
	m.magic = kMagic;
	m.gid = g->gid;
	g->busy = true;
	lk.unlock();
	ret = send_msg(fd, m) ? recv_msg(fd, out, kReplyMs) : -ECONNRESET;
	lk.lock();
	g->busy = false;
	return ret ? ret : out->op == OP_REPLY ? out->status : -EACCES;
}

struct mlx5_dma_dev *dev_of(const struct rte_dma_dev *dev)
{
	return (struct mlx5_dma_dev *)dev->data->dev_private;
}

} // namespace

/* ---- rte_dma_access_pair_group_*() (DPDK 25.11; the library checked dev_id) ---- */

int mlx5_dma_group_create(const struct rte_dma_dev *dev, rte_uuid_t domain_id, rte_uuid_t token,
			  int16_t *group_id, mlx5_dma_group_cb_t cb)
{
	struct mlx5_dma_dev *p = dev_of(dev);
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int16_t gid;

	if (fd < 0)
		return -errno;
	for (gid = 0; gid < kMaxGroups; gid++) {
		socklen_t len = group_addr(p, gid, &a);
		if (bind(fd, (struct sockaddr *)&a, len) == 0)
			break;
		if (errno != EADDRINUSE) {
			gid = kMaxGroups;
			break;
		}
	}
	if (gid == kMaxGroups || listen(fd, 16) != 0) {
		int ret = errno == EADDRINUSE ? -ENOSPC : -errno;
		MLX5_DMA_LOG(ERR, "%s: no access pair group created: %s", p->name, strerror(-ret));
		close(fd);
		return ret;
	}
	std::lock_guard<std::mutex> guard(reg().mu);
	std::unique_ptr<group> g(new (std::nothrow) group());
	if (!g || start_thread()) {
		close(fd);
		return -ENOMEM;
	}
	g->dev_id = dev->data->dev_id;
	g->gid = gid;
	g->creator = true;
	g->fd = fd;
	g->cb = cb;
	memcpy(g->domain, domain_id, sizeof(g->domain));
	memcpy(g->token, token, sizeof(g->token));
	try {
		reg().groups.push_back(std::move(g));
	} catch (...) {
		close(fd);
		return -ENOMEM;
	}
	*group_id = gid;
	return 0;
}

int mlx5_dma_group_destroy(const struct rte_dma_dev *dev, int16_t group_id)
{
	std::lock_guard<std::mutex> guard(reg().mu);
	group *g = find_group(dev->data->dev_id, group_id);

	if (!g || !g->creator) {
		MLX5_DMA_LOG(ERR, "%s: group %d: not a group this device created",
			     dev_of(dev)->name, group_id);
		return -EINVAL;
	}
	for (const member &m : g->members)
		if (m.joined) {
			MLX5_DMA_LOG(ERR, "%s: group %d: members are still joined",
				     dev_of(dev)->name, group_id);
			return -EBUSY;
		}
	if (g->own.exposed)
		rte_pmd_dma_mlx5_remote_rkey_release(g->dev_id, g->own.rkey);
	drop_group(g);
	return 0;
}

int mlx5_dma_group_join(const struct rte_dma_dev *dev, rte_uuid_t domain_id, rte_uuid_t token,
			int16_t group_id, mlx5_dma_group_cb_t cb)
{
	struct mlx5_dma_dev *p = dev_of(dev);
	struct sockaddr_un a;
	struct msg m = {}, out = {};
	uid_t uid = (uid_t)-1;
	int ret;

	if (group_id < 0 || group_id >= kMaxGroups) {
		MLX5_DMA_LOG(ERR, "%s: join: bad group id %d", p->name, group_id);
		return -EINVAL;
	}
	std::unique_lock<std::mutex> lk(reg().mu);
	if (find_group(dev->data->dev_id, group_id)) {
		MLX5_DMA_LOG(ERR, "%s: join: the device is in group %d already", p->name, group_id);
		return -EEXIST;
	}
	std::unique_ptr<group> g(new (std::nothrow) group());
	int fd = g ? socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0) : -1;
	if (fd < 0 || start_thread()) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	socklen_t len = group_addr(p, group_id, &a);
	if (connect(fd, (struct sockaddr *)&a, len) != 0) {
		MLX5_DMA_LOG(ERR, "%s: join: no group %d (socket @%s): %s", p->name, group_id,
			     a.sun_path + 1, strerror(errno));
		close(fd);
		return -EINVAL;
	}
	/* the token goes only to a creator the fabric admits */
	if (!peer_uid(fd, &uid) || !uid_admitted(p, uid)) {
		MLX5_DMA_LOG(ERR,
			     "%s: join: group %d is held by uid %ld, not admitted on the fabric",
			     p->name, group_id, (long)(int)uid);
		close(fd);
		return -EACCES;
	}
	g->dev_id = dev->data->dev_id;
	g->gid = group_id;
	g->fd = fd;
	g->cb = cb;
	memcpy(g->domain, domain_id, sizeof(g->domain));
	m.op = OP_JOIN;
	memcpy(m.domain, domain_id, sizeof(m.domain));
	memcpy(m.token, token, sizeof(m.token));
	ret = request(g.get(), m, &out, lk);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s: join: group %d refused it: %s", p->name, group_id,
			     strerror(-ret));
		close(fd);
		return ret;
	}
	try {
		reg().groups.push_back(std::move(g));
	} catch (...) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int mlx5_dma_group_leave(const struct rte_dma_dev *dev, int16_t group_id)
{
	std::unique_lock<std::mutex> lk(reg().mu);
	group *g = find_group(dev->data->dev_id, group_id);
	struct msg m = {}, out;

	if (!g || g->creator) {
		MLX5_DMA_LOG(ERR, "%s: leave: group %d is not a group this device joined",
			     dev_of(dev)->name, group_id);
		return -EINVAL;
	}
	m.op = OP_LEAVE;
	request(g, m, &out, lk); /* the creator may be gone: leaving succeeds anyway */
	g = find_group(dev->data->dev_id, group_id);
	if (g) {
		if (g->own.exposed)
			rte_pmd_dma_mlx5_remote_rkey_release(g->dev_id, g->own.rkey);
		drop_group(g);
	}
	return 0;
}

int mlx5_dma_group_handler_get(const struct rte_dma_dev *dev, int16_t group_id,
			       rte_uuid_t domain_id, uint16_t *handler_out)
{
	struct mlx5_dma_dev *p = dev_of(dev);
	std::unique_lock<std::mutex> lk(reg().mu);
	group *g = find_group(dev->data->dev_id, group_id);
	struct handler h = {};
	struct msg m = {}, out = {};

	if (!g || g->lost) {
		MLX5_DMA_LOG(ERR, "%s: handler: unknown group %d%s", p->name, group_id,
			     g ? " (its creator is gone)" : "");
		return -EINVAL;
	}
	h.used = true;
	h.dev_id = g->dev_id;
	h.gid = g->gid;
	if (same_bytes(domain_id, g->domain, sizeof(rte_uuid_t))) {
		h.local = true;
	} else if (g->creator) {
		const struct rec *r = lookup(g, domain_id);
		if (!r) {
			MLX5_DMA_LOG(ERR, "%s: handler: that domain has not joined group %d",
				     p->name, group_id);
			return -EINVAL;
		}
		h.rec = *r;
	} else {
		m.op = OP_LOOKUP;
		memcpy(m.domain, domain_id, sizeof(m.domain));
		int ret = request(g, m, &out, lk);
		if (ret) {
			MLX5_DMA_LOG(ERR,
				     "%s: handler: that domain is not a member of group %d: %s",
				     p->name, group_id, strerror(-ret));
			return -EINVAL;
		}
		h.rec = out.rec;
	}
	if (reg().handlers.size() >= UINT16_MAX) {
		MLX5_DMA_LOG(ERR, "%s: handler: %u handlers given out already", p->name,
			     (unsigned)UINT16_MAX);
		return -ENOSPC;
	}
	try {
		reg().handlers.push_back(h);
	} catch (...) {
		return -ENOMEM;
	}
	*handler_out = (uint16_t)reg().handlers.size();
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_group_expose(int16_t dev_id, int16_t group_id,
						  const void *addr, size_t len, uint32_t access)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	struct rte_pmd_dma_mlx5_remote_target t;
	struct msg m = {}, out;
	uint64_t dc_key;
	uint32_t rkey;
	int ret;

	if (!p) {
		MLX5_DMA_LOG(ERR, "group expose: %d is not a dma_mlx5 device", dev_id);
		return -EINVAL;
	}
	std::unique_lock<std::mutex> lk(reg().mu);
	group *g = find_group(dev_id, group_id);
	if (!g || g->lost) {
		MLX5_DMA_LOG(ERR, "%s: group expose: unknown group %d", p->name, group_id);
		return -EINVAL;
	}
	if (g->own.exposed) {
		MLX5_DMA_LOG(ERR, "%s: group expose: group %d has a window of this device already",
			     p->name, group_id);
		return -EBUSY;
	}
	/* a DC target per window, its key random: a member of another group of this
	 * device, knowing that group's target, cannot reach this window by guessing keys */
	if (getrandom(&dc_key, sizeof(dc_key), 0) != sizeof(dc_key))
		return -EIO;
	ret = rte_pmd_dma_mlx5_remote_rkey_access(dev_id, addr, len, access, &rkey);
	if (ret)
		return ret;
	ret = rte_pmd_dma_mlx5_remote_target_create(dev_id, dc_key, &t);
	if (ret) {
		rte_pmd_dma_mlx5_remote_rkey_release(dev_id, rkey);
		return ret;
	}
	struct rec r = {t.lid, 1, t.dctn, t.dc_key, rkey, access, (uintptr_t)addr, len};
	if (!g->creator) {
		m.op = OP_EXPOSE;
		m.rec = r;
		ret = request(g, m, &out, lk);
		g = find_group(dev_id, group_id);
		if (ret || !g) {
			MLX5_DMA_LOG(ERR, "%s: group expose: group %d did not take it: %s", p->name,
				     group_id, strerror(ret ? -ret : ENOENT));
			rte_pmd_dma_mlx5_remote_rkey_release(dev_id, rkey);
			return ret ? ret : -ENOENT;
		}
	}
	g->own = r;
	return 0;
}

/* ---- vchans whose domain names a peer ---- */

/** A vchan of the inter-process domain: a remote channel with one peer. */
struct mlx5_dma_domain_vchan {
	struct rte_pmd_dma_mlx5_remote *ch;
	bool read;     /**< the source is the peer's (RDMA read), else the destination */
	uint16_t mask; /**< the channel's ring size - 1 */
	uint16_t head; /**< next ring index to report */
	uint16_t tail; /**< ring index after the last one taken from the channel */
	uint16_t next; /**< next ring index the channel gives */
	uint16_t *st;  /**< per ring index (& mask): its status, once taken */
};

/** The device's domain vchans, and the entries their wrappers stand in front of. */
struct mlx5_dma_domain {
	struct rte_dma_fp_object base;
	unsigned int active;
	struct mlx5_dma_domain_vchan *vc[];
};

namespace {

void dom_free(struct mlx5_dma_domain_vchan *d)
{
	if (!d)
		return;
	rte_pmd_dma_mlx5_remote_free(d->ch);
	free(d->st);
	delete d;
}

/** Take what the channel completed, in ring order. */
void harvest(struct mlx5_dma_domain_vchan *d)
{
	enum rte_dma_status_code st[64];
	uint16_t last;

	for (;;) {
		uint16_t room = (uint16_t)(d->mask + 1 - (uint16_t)(d->tail - d->head));
		uint16_t n = rte_pmd_dma_mlx5_remote_completed(d->ch, RTE_MIN(room, 64), &last, st);
		for (uint16_t i = 0; i < n; i++)
			d->st[(d->tail++) & d->mask] = (uint16_t)st[i];
		if (n < 64)
			return;
	}
}

struct mlx5_dma_domain_vchan *dom_of(void *priv, uint16_t vchan, const struct mlx5_dma_domain **s)
{
	const struct mlx5_dma_dev *p = mlx5_dma_fp_vchan(priv, vchan)->dev;

	*s = p->domain;
	return p->domain->vc[vchan];
}

int w_copy(void *priv, uint16_t vchan, rte_iova_t src, rte_iova_t dst, uint32_t len, uint64_t flags)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);
	int ret;

	if (likely(!d))
		return s->base.copy(priv, vchan, src, dst, len, flags);
	if ((uint16_t)(d->next - d->head) > d->mask)
		return -ENOSPC;
	ret = d->read ? rte_pmd_dma_mlx5_remote_read(d->ch, 0, src, dst, len, flags)
		      : rte_pmd_dma_mlx5_remote_write(d->ch, 0, src, dst, len, flags);
	if (ret >= 0)
		d->next = (uint16_t)(ret + 1);
	return ret;
}

int w_copy_sg(void *priv, uint16_t vchan, const struct rte_dma_sge *src,
	      const struct rte_dma_sge *dst, uint16_t nb_src, uint16_t nb_dst, uint64_t flags)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);

	if (likely(!d))
		return s->base.copy_sg(priv, vchan, src, dst, nb_src, nb_dst, flags);
	return -ENOTSUP; /* (the guide: copies only on an inter-process vchan) */
}

int w_fill(void *priv, uint16_t vchan, uint64_t pattern, rte_iova_t dst, uint32_t len,
	   uint64_t flags)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);

	if (likely(!d))
		return s->base.fill ? s->base.fill(priv, vchan, pattern, dst, len, flags)
				    : -ENOTSUP;
	return -ENOTSUP;
}

int w_submit(void *priv, uint16_t vchan)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);

	if (likely(!d))
		return s->base.submit(priv, vchan);
	return rte_pmd_dma_mlx5_remote_submit(d->ch);
}

uint16_t w_completed(void *priv, uint16_t vchan, const uint16_t nb_cpls, uint16_t *last_idx,
		     bool *has_error)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);
	uint16_t n = 0;

	if (likely(!d))
		return s->base.completed(priv, vchan, nb_cpls, last_idx, has_error);
	harvest(d);
	/* successes up to the first failure, which stays for completed_status() */
	while (n < nb_cpls && (uint16_t)(d->head + n) != d->tail &&
	       d->st[(uint16_t)(d->head + n) & d->mask] == RTE_DMA_STATUS_SUCCESSFUL)
		n++;
	if (n < nb_cpls && (uint16_t)(d->head + n) != d->tail)
		*has_error = true;
	d->head = (uint16_t)(d->head + n);
	if (n)
		*last_idx = (uint16_t)(d->head - 1);
	return n;
}

uint16_t w_completed_status(void *priv, uint16_t vchan, const uint16_t nb_cpls, uint16_t *last_idx,
			    enum rte_dma_status_code *status)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(priv, vchan, &s);
	uint16_t n = 0;

	if (likely(!d))
		return s->base.completed_status(priv, vchan, nb_cpls, last_idx, status);
	harvest(d);
	for (; n < nb_cpls && d->head != d->tail; n++, d->head++)
		status[n] = (enum rte_dma_status_code)d->st[d->head & d->mask];
	if (n)
		*last_idx = (uint16_t)(d->head - 1);
	return n;
}

uint16_t w_burst_capacity(const void *priv, uint16_t vchan)
{
	const struct mlx5_dma_domain *s;
	struct mlx5_dma_domain_vchan *d = dom_of(const_cast<void *>(priv), vchan, &s);

	if (likely(!d))
		return s->base.burst_capacity(priv, vchan);
	return (uint16_t)(d->mask + 1 - (uint16_t)(d->next - d->head));
}

/** The handler @p h of device @p dev_id, or NULL (reg().mu held). */
const handler *handler_of(int16_t dev_id, uint16_t h)
{
	if (h == 0 || h > reg().handlers.size())
		return NULL;
	const handler *x = &reg().handlers[h - 1];
	return x->used && x->dev_id == dev_id ? x : NULL;
}

} // namespace

void mlx5_dma_domain_install(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p)
{
	if (!p->domain || !p->domain->active)
		return;
	p->domain->base = *fp;
	fp->copy = w_copy;
	fp->copy_sg = w_copy_sg;
	fp->fill = w_fill;
	fp->submit = w_submit;
	fp->completed = w_completed;
	fp->completed_status = w_completed_status;
	fp->burst_capacity = w_burst_capacity;
}

void mlx5_dma_domain_vchan_release(struct mlx5_dma_dev *p, uint16_t vchan)
{
	if (!p->domain || !p->domain->vc[vchan])
		return;
	dom_free(p->domain->vc[vchan]);
	p->domain->vc[vchan] = NULL;
	p->domain->active--;
}

int mlx5_dma_domain_vchan_setup(struct mlx5_dma_dev *p, int16_t dev_id, uint16_t vchan,
				const struct mlx5_dma_vchan_domain *dom, uint16_t nb_desc)
{
	struct rte_pmd_dma_mlx5_remote_peer peer = {};
	struct mlx5_dma_domain_vchan *d;
	const handler *src, *dst, *remote;
	uint16_t n;
	int ret;

	mlx5_dma_domain_vchan_release(p, vchan);
	if (dom->type == MLX5_DMA_DOMAIN_NONE)
		return 0;
	if (dom->type == MLX5_DMA_DOMAIN_OS) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: inter-OS domain not supported", p->name, vchan);
		return -ENOTSUP;
	}
	if (dom->type != MLX5_DMA_DOMAIN_PROCESS) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: bad domain type %d", p->name, vchan, dom->type);
		return -EINVAL;
	}
	if (p->enq_deq) {
		MLX5_DMA_LOG(ERR,
			     "%s vchan %u: inter-process domain with the ops API not supported",
			     p->name, vchan);
		return -ENOTSUP;
	}
	{
		std::lock_guard<std::mutex> guard(reg().mu);
		src = handler_of(dev_id, dom->src_handler);
		dst = handler_of(dev_id, dom->dst_handler);
		if (!src || !dst) {
			MLX5_DMA_LOG(ERR, "%s vchan %u: unknown %s handler %u", p->name, vchan,
				     src ? "destination" : "source",
				     src ? dom->dst_handler : dom->src_handler);
			return -EINVAL;
		}
		if (!src->local && !dst->local) {
			MLX5_DMA_LOG(ERR,
				     "%s vchan %u: handlers %u and %u both name peers: "
				     "copies between two peers not supported",
				     p->name, vchan, dom->src_handler, dom->dst_handler);
			return -ENOTSUP;
		}
		remote = src->local ? dst : src;
		if (remote->local || src->gid != dst->gid) {
			MLX5_DMA_LOG(ERR,
				     "%s vchan %u: handlers %u and %u name no peer of one group",
				     p->name, vchan, dom->src_handler, dom->dst_handler);
			return -EINVAL;
		}
		if (!remote->rec.exposed) {
			MLX5_DMA_LOG(ERR,
				     "%s vchan %u: the peer of handler %u exposes no memory "
				     "to group %d (yet)",
				     p->name, vchan,
				     remote == src ? dom->src_handler : dom->dst_handler,
				     remote->gid);
			return -EINVAL;
		}
		peer.target.lid = remote->rec.lid;
		peer.target.dctn = remote->rec.dctn;
		peer.target.dc_key = remote->rec.dc_key;
		peer.rkey = remote->rec.rkey;
	}
	if (!p->domain) {
		size_t sz = sizeof(*p->domain) + p->args.max_vchans * sizeof(p->domain->vc[0]);
		p->domain = (struct mlx5_dma_domain *)calloc(1, sz);
		if (!p->domain)
			return -ENOMEM;
	}
	/* the channel's ring: nb_desc rounded up to its bounds (32 .. 4096, a power of 2) */
	n = (uint16_t)RTE_MIN(RTE_MAX(rte_align32pow2(nb_desc), 32u), 4096u);
	d = new (std::nothrow) mlx5_dma_domain_vchan();
	if (!d)
		return -ENOMEM;
	d->read = !src->local;
	d->mask = (uint16_t)(n - 1);
	d->st = (uint16_t *)calloc(n, sizeof(*d->st));
	d->ch = d->st ? rte_pmd_dma_mlx5_remote_create(dev_id, n) : NULL;
	if (!d->ch) {
		ret = d->st ? -rte_errno : -ENOMEM;
		dom_free(d);
		return ret;
	}
	ret = rte_pmd_dma_mlx5_remote_peer_add(d->ch, &peer);
	if (ret < 0) {
		dom_free(d);
		return ret;
	}
	p->domain->vc[vchan] = d;
	p->domain->active++;
	return 0;
}

void mlx5_dma_domain_release(struct mlx5_dma_dev *p, int16_t dev_id)
{
	for (uint16_t i = 0; p->domain && i < p->args.max_vchans; i++)
		mlx5_dma_domain_vchan_release(p, i);
	free(p->domain);
	p->domain = NULL;
	std::lock_guard<std::mutex> guard(reg().mu);
	/* the device goes: its groups too (its keys go with its remote state) */
	for (;;) {
		group *g = NULL;
		for (auto &x : reg().groups)
			if (x->dev_id == dev_id)
				g = x.get();
		if (!g)
			break;
		drop_group(g);
	}
}

bool mlx5_dma_domain_vchan_stats(const struct mlx5_dma_dev *p, uint16_t vchan,
				 struct rte_dma_stats *s)
{
	struct rte_pmd_dma_mlx5_remote_stats rs;
	const struct mlx5_dma_domain_vchan *d = p->domain ? p->domain->vc[vchan] : NULL;

	if (!d || rte_pmd_dma_mlx5_remote_stats_get(d->ch, &rs))
		return false;
	s->submitted += rs.submitted;
	s->completed += rs.completed;
	s->errors += rs.errors;
	return true;
}

bool mlx5_dma_domain_vchan_status(const struct mlx5_dma_dev *p, uint16_t vchan,
				  enum rte_dma_vchan_status *st)
{
	struct mlx5_dma_domain_vchan *d = p->domain ? p->domain->vc[vchan] : NULL;

	if (!d)
		return false;
	harvest(d); /* IDLE: every op the channel took has completed */
	*st = d->tail == d->next ? RTE_DMA_VCHAN_IDLE : RTE_DMA_VCHAN_ACTIVE;
	return true;
}

uint64_t mlx5_dma_domain_capa(const struct mlx5_dma_dev *p)
{
	(void)p;
	return MLX5_DMA_CAPA_INTER_PROCESS;
}
