/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: the rdma_cm device (doc/guides/sim/kernel_side.rst, "rdma-cm").
 *
 * Ids and event channels as the kernel's ucma keeps them (one channel per open,
 * ids numbered per channel, events queued on the channel). The connection
 * manager runs on the software fabric: the address 127.0.x.y is the port whose
 * LID is x << 8 | y; a listener claims the abstract UNIX socket
 * "mlx5-sim-cm/<fabric>/<lid>/<port>" for each LID it listens on, and each
 * connection is one SOCK_SEQPACKET connection to it carrying the IB CM's
 * messages (REQ, REP, RTU, REJ, DREQ, DREP; for UDP's UD ids SIDR REQ and REP,
 * "<port>/ud") with their private data. One thread
 * of the process (the broker) reads every listener and connection socket and
 * turns messages into events; a connection that ends without DREQ (the peer
 * died) is DISCONNECTED or UNREACHABLE, as a CM timeout would say.
 *
 * Membership: both ends check the other's uid (SO_PEERCRED) as the fabric does
 * (xfabric.cpp): the process's own, or one the device admits (sim_fabric_uids).
 *
 * Locking: one mutex for every id, channel and socket of the process; the
 * blocking GET_EVENT waits outside it, on the channel's eventfd.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <infiniband/verbs.h>

#include "cm_wire.h"
#include "kside.h"
#include "thread_up.h"
#include "ucma.h"

namespace mlx5sim {
namespace kernel {

namespace {

/* ---- the ABI (librdmacm/rdma_cma_abi.h, the kernel's rdma_user_cm.h) ---------------- */

enum UcmaCmd : uint32_t {
	CMD_CREATE_ID = 0,
	CMD_DESTROY_ID = 1,
	CMD_BIND_IP = 2,
	CMD_RESOLVE_IP = 3,
	CMD_RESOLVE_ROUTE = 4,
	CMD_QUERY_ROUTE = 5,
	CMD_CONNECT = 6,
	CMD_LISTEN = 7,
	CMD_ACCEPT = 8,
	CMD_REJECT = 9,
	CMD_DISCONNECT = 10,
	CMD_INIT_QP_ATTR = 11,
	CMD_GET_EVENT = 12,
	CMD_SET_OPTION = 14,
	CMD_NOTIFY = 15,
	CMD_MIGRATE_ID = 18,
	CMD_QUERY = 19,
	CMD_BIND = 20,
	CMD_RESOLVE_ADDR = 21,
	CMD_MAX = 23,
};

enum CmEvent : uint32_t {
	EV_ADDR_RESOLVED = 0,
	EV_ADDR_ERROR = 1,
	EV_ROUTE_RESOLVED = 2,
	EV_ROUTE_ERROR = 3,
	EV_CONNECT_REQUEST = 4,
	EV_CONNECT_RESPONSE = 5,
	EV_CONNECT_ERROR = 6,
	EV_UNREACHABLE = 7,
	EV_REJECTED = 8,
	EV_ESTABLISHED = 9,
	EV_DISCONNECTED = 10,
};

/* IB CM reject reasons the kernel reports as the REJECTED event's status */
constexpr int kRejInvalidServiceId = 8;
constexpr int kRejConsumer = 28;
constexpr int kRejVendorOption = 35;

/* private data the IB CM carries for the user (after rdma_cm's 36-byte header in a REQ) */
constexpr unsigned kReqPrivate = 92 - 36;
constexpr unsigned kRepPrivate = 196;
constexpr unsigned kRejPrivate = 148;
/* SIDR (UD port spaces): the IB CM's SIDR REQ / REP private data, the REQ's after the header */
constexpr unsigned kSidrReqPrivate = 216 - 36;
constexpr unsigned kSidrRepPrivate = 136;
/* SIDR REP status (IB spec 12.11.2): as the active side's UNREACHABLE status */
constexpr int kSidrUnsupported = 1; /* no listener for the service ID */
constexpr int kSidrReject = 2;
constexpr uint32_t kUdpQkey = 0x01234567; /* rdma_cm's RDMA_UDP_QKEY */

constexpr uint16_t kPsTcp = 0x106;
constexpr uint16_t kPsIb = 0x13f;
constexpr uint16_t kPsIpoib = 0x2;
constexpr uint16_t kPsUdp = 0x111;
constexpr uint16_t kAfIb = 27;
constexpr uint32_t kDevMinor = 58; /* a misc device; any number, rdev is checked only via netlink */

struct CmdHdr {
	uint32_t cmd;
	uint16_t in;
	uint16_t out;
};

struct ConnParam {
	uint32_t qp_num;
	uint32_t reserved;
	uint8_t private_data[256];
	uint8_t private_data_len;
	uint8_t srq;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t valid;
};
static_assert(sizeof(ConnParam) == 272, "rdma_ucm_conn_param");

struct Ece {
	uint32_t vendor_id;
	uint32_t attr_mod;
};

struct EventResp {
	uint64_t uid;
	uint32_t id;
	uint32_t event;
	int32_t status;
	union {
		ConnParam conn;
		uint8_t ud[308];
	} param;
	Ece ece;
};
static_assert(sizeof(EventResp) == 336 && offsetof(EventResp, param) == 20, "rdma_ucm_event_resp");

struct PathRec {
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint16_t dlid; /* big endian, as the path records */
	uint16_t slid;
	uint32_t raw_traffic;
	uint32_t flow_label;
	uint32_t reversible;
	uint32_t mtu;
	uint16_t pkey;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t numb_path;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};
static_assert(sizeof(PathRec) == 64, "ib_user_path_rec");

struct QueryRouteResp {
	uint64_t node_guid; /* big endian */
	PathRec ib_route[2];
	uint8_t src_addr[28];
	uint8_t dst_addr[28];
	uint32_t num_paths;
	uint8_t port_num;
	uint8_t reserved[3];
	uint32_t ibdev_index;
	uint32_t reserved1;
};
static_assert(sizeof(QueryRouteResp) == 208, "rdma_ucm_query_route_resp");

struct QueryAddrResp {
	uint64_t node_guid;
	uint8_t port_num;
	uint8_t reserved;
	uint16_t pkey;
	uint16_t src_size;
	uint16_t dst_size;
	uint8_t src_addr[128];
	uint8_t dst_addr[128];
	uint32_t ibdev_index;
	uint32_t reserved1;
};
static_assert(sizeof(QueryAddrResp) == 280, "rdma_ucm_query_addr_resp");

struct AhAttr {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t reserved0;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
	uint8_t reserved1;
};
static_assert(sizeof(AhAttr) == 32, "ib_uverbs_ah_attr");

struct QpAttr {
	uint32_t qp_attr_mask;
	uint32_t qp_state;
	uint32_t cur_qp_state;
	uint32_t path_mtu;
	uint32_t path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	AhAttr ah_attr;
	AhAttr alt_ah_attr;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t reserved[5];
};
static_assert(sizeof(QpAttr) == 144, "ib_uverbs_qp_attr");

/* ---- the CM messages on the fabric ---------------------------------------------------- */

/* the records (cm_wire.h): shared with the embedded backend's connection manager */
using namespace mlx5sim::cm;

/* ---- ids, channels ---------------------------------------------------------------------- */

enum class St : uint8_t {
	Idle,
	Bound,         /* BIND_IP / BIND */
	AddrResolved,  /* RESOLVE_IP */
	RouteResolved, /* RESOLVE_ROUTE */
	Listen,
	ReqSent, /* active: REQ sent, REP awaited */
	RepRcvd, /* active: CONNECT_RESPONSE given, ACCEPT (RTU) awaited */
	ReqRcvd, /* passive: CONNECT_REQUEST given, ACCEPT / REJECT awaited */
	RepSent, /* passive: REP sent, RTU awaited */
	Connected,
	Disconnecting, /* DREQ sent */
	Disconnected,
	Failed, /* rejected, unreachable */
};

struct Id;

struct Event {
	std::shared_ptr<Id> owner; /* the id the event is reported for */
	EventResp resp;
};

} // namespace

class UcmaFile {
public:
	~UcmaFile() { ucma_release(*this); }
	int fd = -1;
	std::map<uint32_t, std::shared_ptr<Id>> ids;
	std::deque<Event> events;
	bool released = false;
};

namespace {

struct Id {
	uint32_t handle = 0;
	uint64_t uid = 0;
	uint16_t ps = 0;
	uint8_t qp_type = 0;
	UcmaFile *file = nullptr; /* NULL once destroyed */
	St st = St::Idle;
	bool bound = false;
	struct sockaddr_in src = {};
	struct sockaddr_in dst = {};
	Device *dev = nullptr; /* the port the address names */
	uint16_t lid = 0;
	uint16_t rlid = 0;
	uint64_t rguid = 0;
	std::vector<int> listen_fds;
	int sock = -1;           /* the connection to the peer */
	bool had_cm = false;     /* connect or connection request seen */
	bool disc_given = false; /* DISCONNECTED reported */
	bool peer_gone = false;
	uint32_t psn = 0;
	uint32_t qpn = 0;
	uint32_t rqpn = 0;
	uint32_t rpsn = 0;
	uint8_t resp_res = 0;
	uint8_t init_depth = 0;
	uint8_t retry = 7;
	uint8_t rnr_retry = 7;
	uint8_t ack_timeout = 14; /**< RTS's timeout: the ACK_TIMEOUT option, as the kernel's */
	uint32_t events_reported = 0;
	/* ReqSent / RepSent: when the peer's answer is given up (cm_timeout()) */
	std::chrono::steady_clock::time_point deadline;
};

/*
 * The CM state lives to the end of the process, never destroyed: the broker thread
 * runs until exit, and static destructors at exit() would pull the lock and maps
 * from under it (a program that exits with connections open crashed).
 */
std::mutex &g_cm = *new std::mutex;

using mlx5sim::cm::cm_timeout;

/* sockets the broker reads: listeners and connections, each for one id */
std::map<int, std::shared_ptr<Id>> &g_socks = *new std::map<int, std::shared_ptr<Id>>;
/* listener sockets: the LID each listens on */
std::map<int, uint16_t> &g_listen_lid = *new std::map<int, uint16_t>;
/* accepted, no REQ yet: the listener they came to and its LID */
struct Pending {
	std::shared_ptr<Id> lis;
	uint16_t lid;
	/* a connection with no REQ by then is closed (expire_waits): a peer cannot hold
	 * our fds open without asking for anything */
	std::chrono::steady_clock::time_point deadline;
};
std::map<int, Pending> &g_pending = *new std::map<int, Pending>;
int g_wake = -1;
/* ids are numbered process-wide, as the kernel's ctx table: MIGRATE_ID keeps them */
uint32_t g_next_id = 0;
bool g_broker = false;

uint32_t random_u32()
{
	static std::mt19937 rng{std::random_device{}()};
	static pid_t seeded = getpid();
	if (seeded != getpid()) {
		/* a fork child: not the sequence of its parent and siblings (PSNs, ports) */
		rng.seed(std::random_device{}());
		seeded = getpid();
	}
	return rng();
}

int fail_log(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fail_log(int err, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	klog(1, "rdma_cm: %s: %s", line, strerror(err));
	return -err;
}

/* ---- the fabric's addresses ---------------------------------------------------------------- */

/** LID @p lid as an address: 127.0.x.y. */
uint32_t lid_ip(uint16_t lid)
{
	return htonl(0x7f000000u | lid);
}

/** The LID an address names (0: none of the fabric's). */
uint16_t ip_lid(uint32_t ip_be)
{
	uint32_t a = ntohl(ip_be);
	if ((a & 0xffff0000u) != 0x7f000000u)
		return 0;
	uint16_t lid = (uint16_t)(a & 0xffff);
	return lid >= 1 && lid < 0xc000 ? lid : 0;
}

/** The port of device @p dev: its LID, created on first use (0: no device). */
uint16_t dev_lid(Device *dev)
{
	std::shared_ptr<Hca> h = device_hca(dev);
	return h ? h->caps().lid : 0;
}

/** Our device whose LID is @p lid, or NULL. */
Device *lid_device(uint16_t lid)
{
	for (unsigned i = 0; i < config().n_devices; i++) {
		Device *d = device(i);
		if (d && dev_lid(d) == lid)
			return d;
	}
	return nullptr;
}

std::string fabric_of(Device *dev)
{
	std::shared_ptr<Hca> h = device_hca(dev);
	if (h && h->caps().fabric && h->caps().fabric_name[0])
		return h->caps().fabric_name;
	/* no machine-wide fabric: the process's own name space */
	return "pid" + std::to_string((long)getpid());
}

/* UDP is a port space of its own, as the kernel's: "/ud" after its port */
socklen_t cm_addr(const std::string &fabric, uint16_t lid, uint16_t port, struct sockaddr_un *a,
		  bool ud = false)
{
	return sock_addr(fabric.c_str(), lid, port, a, ud);
}

/** The peer of @p fd is of our uid or one @p dev admits (sim_fabric_uids). */
bool peer_admitted(int fd, Device *dev)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
		return false;
	if (cr.uid == geteuid())
		return true;
	std::shared_ptr<Hca> h = dev ? device_hca(dev) : nullptr;
	if (h)
		for (uint8_t i = 0; i < h->caps().n_fabric_uids; i++)
			if (h->caps().fabric_uids[i] == (uint32_t)cr.uid)
				return true;
	klog(1, "rdma_cm: peer uid %ld pid %ld not admitted on the fabric, closed", (long)cr.uid,
	     (long)cr.pid);
	return false;
}

/* ---- events ------------------------------------------------------------------------------------
 */

void queue_event(const std::shared_ptr<Id> &owner, uint32_t event, int status, const Msg *m)
{
	UcmaFile *f = owner->file;
	if (!f)
		return;
	Event e;
	memset(&e.resp, 0, sizeof(e.resp));
	e.owner = owner;
	e.resp.uid = owner->uid;
	e.resp.id = owner->handle;
	e.resp.event = event;
	e.resp.status = status;
	if (m) {
		ConnParam &c = e.resp.param.conn;
		c.qp_num = m->qpn;
		c.private_data_len = m->pd_len;
		memcpy(c.private_data, m->pd, m->pd_len);
		c.responder_resources = m->resp_res;
		c.initiator_depth = m->init_depth;
		c.flow_control = m->flow_control;
		c.retry_count = m->retry;
		c.rnr_retry_count = m->rnr_retry;
		c.srq = m->srq;
	}
	f->events.push_back(e);
	uint64_t one = 1;
	if (sys::write(f->fd, &one, sizeof(one)) != sizeof(one))
		klog(1, "rdma_cm: event channel %d: eventfd write failed", f->fd);
}

/*
 * A UD port space event: its param is rdma_ucm_ud_param (qp_num, qkey, ah_attr,
 * private data). The kernel reports the whole private data field of the SIDR
 * message (@p pd_size bytes), zero past what the sender gave.
 */
void queue_ud_event(const std::shared_ptr<Id> &owner, uint32_t event, int status, const Msg *m,
		    unsigned pd_size)
{
	if (!owner->file)
		return;
	queue_event(owner, event, status, nullptr);
	uint8_t *u = owner->file->events.back().resp.param.ud;
	if (m) {
		memcpy(u + 40, m->pd, pd_size);
		u[296] = (uint8_t)pd_size;
	}
	if (event != EV_ESTABLISHED)
		return;
	uint32_t qpn = m->qpn & 0xffffff;
	memcpy(u, &qpn, 4);
	memcpy(u + 4, &m->qkey, 4);
	/* ah_attr from the route's path, as ib_init_ah_attr_from_path: LID routed, no GRH */
	AhAttr ah = {};
	ah.dlid = owner->rlid;
	ah.static_rate = 2; /* fill_path()'s rate */
	ah.port_num = 1;
	memcpy(u + 8, &ah, sizeof(ah));
}

/** Take one queued event's count off the channel's eventfd (the lock held, count >= 1). */
void consume_count(UcmaFile &f)
{
	uint64_t v;
	struct pollfd p = {f.fd, POLLIN, 0};
	if (poll(&p, 1, 0) == 1)
		(void)sys::read(f.fd, &v, sizeof(v));
}

/* ---- the broker
 * ------------------------------------------------------------------------------------ */

void broker_wake()
{
	uint64_t one = 1;
	if (g_wake >= 0)
		(void)sys::write(g_wake, &one, sizeof(one));
}

bool send_msg(int fd, Msg &m)
{
	m.magic = kMsgMagic;
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(m);
}

void close_sock(Id &id)
{
	if (id.sock < 0)
		return;
	g_socks.erase(id.sock);
	g_pending.erase(id.sock);
	sys::close(id.sock);
	id.sock = -1;
	broker_wake();
}

void give_disconnected(const std::shared_ptr<Id> &id)
{
	if (!id->disc_given) {
		id->disc_given = true;
		queue_event(id, EV_DISCONNECTED, 0, nullptr);
	}
	id->st = St::Disconnected;
}

/** The peer's connection ended without a DREP: what a CM timeout would report. */
void peer_lost(const std::shared_ptr<Id> &id)
{
	close_sock(*id);
	id->peer_gone = true;
	switch (id->st) {
	case St::ReqSent:
	case St::RepSent:
		id->st = St::Failed;
		queue_event(id, EV_UNREACHABLE, -ETIMEDOUT, nullptr);
		break;
	case St::RepRcvd:
	case St::Connected:
	case St::Disconnecting:
		give_disconnected(id);
		break;
	default: /* ReqRcvd: the ACCEPT will find the peer gone */
		break;
	}
}

std::shared_ptr<Id> new_id(UcmaFile &f)
{
	auto id = std::make_shared<Id>();
	id->handle = g_next_id++;
	id->file = &f;
	f.ids[id->handle] = id;
	return id;
}

/** A REQ on an accepted connection of @p lis: a child id and CONNECT_REQUEST. */
void on_req(int fd, const std::shared_ptr<Id> &lis, uint16_t lid, const Msg &m)
{
	g_pending.erase(fd);
	bool sidr = m.type == MSG_SIDR_REQ;
	if (!lis->file || lis->st != St::Listen || sidr != (lis->qp_type == IBV_QPT_UD) ||
	    m.pd_len > (sidr ? kSidrReqPrivate : kReqPrivate)) {
		/* the remote CM's answer when no listener takes the request */
		Msg r = {};
		r.type = sidr ? MSG_SIDR_REP : MSG_REJ;
		r.reason = sidr ? kSidrUnsupported : kRejInvalidServiceId;
		send_msg(fd, r);
		sys::close(fd);
		return;
	}
	auto c = new_id(*lis->file);
	c->uid = lis->uid;
	c->ps = lis->ps;
	c->qp_type = lis->qp_type;
	c->sock = fd;
	c->had_cm = true;
	c->st = St::ReqRcvd;
	c->bound = true;
	c->src.sin_family = AF_INET;
	c->src.sin_port = lis->src.sin_port;
	c->dst.sin_family = AF_INET;
	c->dst.sin_addr.s_addr = m.sip;
	c->dst.sin_port = m.sport;
	c->rlid = m.slid;
	c->rguid = m.sguid;
	c->rqpn = m.qpn & 0xffffff;
	c->rpsn = m.psn & 0xffffff;
	c->psn = random_u32() & 0xffffff;
	/* our RTR takes the requester's depth as its responder resources */
	c->resp_res = m.init_depth;
	c->init_depth = m.resp_res;
	c->retry = m.retry;
	c->rnr_retry = m.rnr_retry;
	c->lid = lid;
	c->dev = lid ? lid_device(lid) : nullptr;
	c->src.sin_addr.s_addr = lid_ip(lid);
	g_socks[fd] = c;
	/* CONNECT_REQUEST: the listener's uid, the child's id */
	if (sidr)
		queue_ud_event(lis, EV_CONNECT_REQUEST, 0, &m, kSidrReqPrivate);
	else
		queue_event(lis, EV_CONNECT_REQUEST, 0, &m);
	lis->file->events.back().resp.id = c->handle;
}

void on_msg(const std::shared_ptr<Id> &id, const Msg &m)
{
	/* a UD id's one answer is a SIDR REP: a connection's message (REP, REJ, ...) is
	 * none, and its parameters read as a UD event's would name a peer-chosen AH */
	bool not_sidr = id->qp_type == IBV_QPT_UD && m.type != MSG_SIDR_REP;
	switch (not_sidr ? 0 : m.type) {
	case MSG_REP:
		if (id->st != St::ReqSent || m.pd_len > kRepPrivate)
			break;
		id->rqpn = m.qpn & 0xffffff;
		id->rpsn = m.psn & 0xffffff;
		id->rguid = m.sguid;
		id->st = St::RepRcvd;
		queue_event(id, EV_CONNECT_RESPONSE, 0, &m);
		return;
	case MSG_RTU:
		if (id->st != St::RepSent)
			break;
		id->st = St::Connected;
		queue_event(id, EV_ESTABLISHED, 0, nullptr);
		return;
	case MSG_REJ:
		if (id->st != St::ReqSent && id->st != St::RepSent)
			break;
		close_sock(*id);
		id->st = St::Failed;
		queue_event(id, EV_REJECTED, (int)m.reason, m.pd_len <= kRejPrivate ? &m : nullptr);
		return;
	case MSG_SIDR_REP:
		if (id->st != St::ReqSent || id->qp_type != IBV_QPT_UD ||
		    m.pd_len > kSidrRepPrivate)
			break;
		close_sock(*id); /* SIDR is one request and its answer */
		if (m.reason) {
			id->st = St::Failed;
			queue_ud_event(id, EV_UNREACHABLE, (int)m.reason, &m, kSidrRepPrivate);
		} else if (m.qkey != kUdpQkey) {
			/* cma_set_qkey(): the id's qkey is fixed by its port space */
			id->st = St::Failed;
			queue_event(id, EV_ADDR_ERROR, -EINVAL, nullptr);
		} else {
			id->rqpn = m.qpn & 0xffffff;
			id->st = St::Connected;
			queue_ud_event(id, EV_ESTABLISHED, 0, &m, kSidrRepPrivate);
		}
		return;
	case MSG_DREQ: {
		if (id->st != St::Connected && id->st != St::RepRcvd && id->st != St::RepSent &&
		    id->st != St::Disconnecting && id->st != St::Disconnected)
			break;
		Msg r = {};
		r.type = MSG_DREP;
		send_msg(id->sock, r);
		/* DREQs that crossed: the second is answered, DISCONNECTED was given once */
		if (id->st != St::Disconnected)
			give_disconnected(id);
		return;
	}
	case MSG_DREP:
		if (id->st == St::Disconnected)
			return; /* the answer to our DREQ after the peer's DREQ crossed it */
		if (id->st != St::Disconnecting)
			break;
		give_disconnected(id);
		return;
	default:
		break;
	}
	/* out of order or malformed: the peer is broken; end the connection */
	klog(1, "rdma_cm: id %u: CM message %u in state %u dropped, connection closed", id->handle,
	     (unsigned)m.type, (unsigned)id->st);
	peer_lost(id);
}

/*
 * Ids whose REP or RTU is overdue: the peer lives but does not answer (stopped,
 * stuck); they get what the CM's timeout gives (peer_lost). Accepted connections
 * that sent no REQ in that time are closed. The lock held. Returns the poll
 * timeout until the next deadline, -1 if none.
 */
int expire_waits()
{
	using namespace std::chrono;
	steady_clock::time_point now = steady_clock::now();
	std::vector<std::shared_ptr<Id>> late;
	long next = -1;
	for (auto &s : g_socks) {
		const std::shared_ptr<Id> &id = s.second;
		if ((id->st != St::ReqSent && id->st != St::RepSent) || id->sock != s.first)
			continue;
		if (now >= id->deadline) {
			late.push_back(id);
			continue;
		}
		long ms = (long)duration_cast<milliseconds>(id->deadline - now).count() + 1;
		if (next < 0 || ms < next)
			next = ms;
	}
	for (auto &id : late) {
		klog(1, "rdma_cm: id %u: no %s from the peer in %ld ms, given up", id->handle,
		     id->st == St::ReqSent ? "REP" : "RTU", (long)cm_timeout().count());
		peer_lost(id);
	}
	for (auto it = g_pending.begin(); it != g_pending.end();) {
		if (now >= it->second.deadline) {
			klog(1, "rdma_cm: a connection to LID %u sent no REQ in %ld ms, closed",
			     (unsigned)it->second.lid, (long)cm_timeout().count());
			sys::close(it->first);
			it = g_pending.erase(it);
			continue;
		}
		long ms = (long)duration_cast<milliseconds>(it->second.deadline - now).count() + 1;
		if (next < 0 || ms < next)
			next = ms;
		++it;
	}
	return (int)(next > INT32_MAX ? INT32_MAX : next);
}

void broker_loop(ThreadUp &u)
{
	std::vector<struct pollfd> pf;
	std::unique_ptr<Msg> m(new Msg);
	u.up(); /* its memory taken: from here it allocates only under g_cm */
	for (;;) {
		pf.clear();
		int timeout;
		{
			std::lock_guard<std::mutex> g(g_cm);
			timeout = expire_waits();
			pf.push_back({g_wake, POLLIN, 0});
			for (auto &s : g_socks)
				pf.push_back({s.first, POLLIN, 0});
			for (auto &s : g_pending)
				pf.push_back({s.first, POLLIN, 0});
		}
		if (poll(pf.data(), pf.size(), timeout) < 0)
			continue;
		std::lock_guard<std::mutex> g(g_cm);
		if (pf[0].revents) {
			uint64_t v;
			(void)sys::read(g_wake, &v, sizeof(v));
		}
		for (size_t i = 1; i < pf.size(); i++) {
			if (!pf[i].revents)
				continue;
			int fd = pf[i].fd;
			auto pit = g_pending.find(fd);
			auto sit = g_socks.find(fd);
			if (pit == g_pending.end() && sit == g_socks.end())
				continue; /* gone meanwhile */
			if (sit != g_socks.end() && sit->second->st == St::Listen &&
			    sit->second->sock != fd) {
				/* a listener: a new connection */
				std::shared_ptr<Id> lis = sit->second;
				int c = accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (c < 0)
					continue;
				if (!peer_admitted(c, lis->dev ? lis->dev : device(0))) {
					sys::close(c);
					continue;
				}
				g_pending[c] =
					Pending{lis, g_listen_lid[fd],
						std::chrono::steady_clock::now() + cm_timeout()};
				continue;
			}
			ssize_t n = recv(fd, m.get(), sizeof(*m), MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			bool ok = n == (ssize_t)sizeof(*m) && m->magic == kMsgMagic;
			if (pit != g_pending.end()) {
				Pending p = pit->second;
				if (!ok || (m->type != MSG_REQ && m->type != MSG_SIDR_REQ)) {
					g_pending.erase(pit);
					sys::close(fd);
					continue;
				}
				on_req(fd, p.lis, p.lid, *m);
				continue;
			}
			std::shared_ptr<Id> id = sit->second;
			if (!ok) {
				if (n > 0)
					klog(1, "rdma_cm: id %u: malformed CM message (%zd bytes)",
					     id->handle, n);
				peer_lost(id);
				continue;
			}
			on_msg(id, *m);
		}
	}
}

/*
 * fork() while the broker allocates (a thread starting, a map changing) leaves the
 * child a memory allocator whose lock no thread of the child holds, unless the
 * allocator takes its locks around fork() as glibc's malloc does: GCC 12's
 * AddressSanitizer does not (its libasan has no fork interceptor), and every thread
 * the child started then waited on that lock for ever (its rdma-cm broker too: no
 * CONNECT_REQUEST reached its listener). So fork() waits for the broker to be out
 * of g_cm, the one place it allocates once started (broker_start()).
 */
void ucma_fork_prepare()
{
	g_cm.lock();
}

void ucma_fork_parent()
{
	g_cm.unlock();
}

/*
 * fork(): the broker thread is not in the child, and the sockets it reads are the
 * parent's: the child must not take the parent's CM messages. Its copies of those
 * sockets stay open, as the fds it inherited (their ids are the parent's); the
 * child starts with nothing to read and no broker, and its first LISTEN or
 * CONNECT starts its own, for ids of its own. The parent's state is left alone
 * (a thread of the parent may have held its lock).
 */
void ucma_fork_child()
{
	new (&g_cm) std::mutex; /* held by the thread that forked (ucma_fork_prepare) */
	new (&g_socks) std::map<int, std::shared_ptr<Id>>;
	new (&g_listen_lid) std::map<int, uint16_t>;
	new (&g_pending) std::map<int, Pending>;
	if (g_wake >= 0)
		sys::close(g_wake); /* the parent's: a write would wake its broker */
	g_wake = -1;
	g_broker = false;
}

/**
 * The broker thread, started with the first listener or connection (g_cm held).
 * Returns once the thread runs its loop: a fork() right after LISTEN or CONNECT
 * must not find it still setting up (ucma_fork_prepare()).
 */
int broker_start()
{
	static bool once = (pthread_atfork(ucma_fork_prepare, ucma_fork_parent, ucma_fork_child),
			    true);
	(void)once;
	if (g_broker)
		return 0;
	g_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g_wake < 0)
		return -errno;
	try {
		start_thread(broker_loop).detach();
	} catch (...) {
		sys::close(g_wake);
		g_wake = -1;
		return -EAGAIN;
	}
	g_broker = true;
	return 0;
}

/* ---- commands
 * ------------------------------------------------------------------------------------- */

struct Cmd {
	UcmaFile &f;
	const uint8_t *in;
	uint16_t in_len;
	uint16_t out_len;
};

template <typename T>
int take(const Cmd &c, T *v)
{
	if (c.in_len < sizeof(T))
		return -EINVAL;
	memcpy(v, c.in, sizeof(T));
	return 0;
}

int lookup_id(UcmaFile &f, uint32_t h, std::shared_ptr<Id> *out)
{
	auto it = f.ids.find(h);
	if (it == f.ids.end())
		return fail_log(ENOENT, "id %u: no such id on this channel", h);
	*out = it->second;
	return 0;
}

template <typename T>
uint32_t id_of(const T &r)
{
	return r.id;
}

uint32_t id_of(const uint32_t &h)
{
	return h;
}

/**
 * The preamble of the commands on one id: @p r from the input (at least
 * @p in_min bytes, the rest zero), a response of at least @p out_min bytes,
 * then the id @p r names. Each refusal keeps the errno and log line the
 * commands had before they shared this.
 */
template <typename T>
int take_id(const Cmd &c, T *r, const char *cmd, std::shared_ptr<Id> *id, size_t out_min = 0,
	    size_t in_min = sizeof(T))
{
	/* zeroed first: *r is defined on every return, the error ones included */
	memset(r, 0, sizeof(*r));
	if (c.in_len < in_min)
		return fail_log(EINVAL, "%s: %u bytes", cmd, c.in_len);
	memcpy(r, c.in, c.in_len < sizeof(*r) ? c.in_len : sizeof(*r));
	if (out_min && c.out_len < out_min)
		return fail_log(ENOSPC, "%s: response of %u bytes", cmd, c.out_len);
	return lookup_id(c.f, id_of(*r), id);
}

void destroy_id(UcmaFile &f, const std::shared_ptr<Id> &id);

/** Drop the queued events of @p id (and the children its CONNECT_REQUESTs created). */
void drop_events(UcmaFile &f, const std::shared_ptr<Id> &id)
{
	std::vector<std::shared_ptr<Id>> children;
	for (auto it = f.events.begin(); it != f.events.end();) {
		if (it->owner == id) {
			if (it->resp.event == EV_CONNECT_REQUEST) {
				auto c = f.ids.find(it->resp.id);
				if (c != f.ids.end())
					children.push_back(c->second);
			}
			consume_count(f);
			it = f.events.erase(it);
		} else {
			it++;
		}
	}
	for (auto &c : children)
		destroy_id(f, c);
}

void destroy_id(UcmaFile &f, const std::shared_ptr<Id> &id)
{
	if (!id->file)
		return;
	drop_events(f, id);
	if (id->sock >= 0) {
		Msg m = {};
		if (id->st == St::ReqRcvd) {
			/* an unanswered SIDR REQ is rejected too (cm.c's cm_destroy_id) */
			bool ud = id->qp_type == IBV_QPT_UD;
			m.type = ud ? MSG_SIDR_REP : MSG_REJ;
			m.reason = ud ? kSidrReject : kRejConsumer;
			send_msg(id->sock, m);
		} else if (id->st == St::Connected || id->st == St::RepRcvd ||
			   id->st == St::RepSent) {
			m.type = MSG_DREQ;
			send_msg(id->sock, m);
		}
		close_sock(*id);
	}
	for (int fd : id->listen_fds) {
		g_socks.erase(fd);
		g_listen_lid.erase(fd);
		sys::close(fd);
	}
	if (!id->listen_fds.empty())
		broker_wake();
	id->listen_fds.clear();
	f.ids.erase(id->handle);
	id->file = nullptr;
}

int cmd_create_id(const Cmd &c)
{
	struct {
		uint64_t uid;
		uint64_t response;
		uint16_t ps;
		uint8_t qp_type;
		uint8_t reserved[5];
	} r;
	if (take(c, &r))
		return fail_log(EINVAL, "CREATE_ID: %u bytes", c.in_len);
	if (c.out_len < 4)
		return fail_log(ENOSPC, "CREATE_ID: response of %u bytes", c.out_len);
	if (r.ps != kPsTcp && r.ps != kPsIb && r.ps != kPsIpoib && r.ps != kPsUdp)
		return fail_log(EINVAL, "CREATE_ID: port space 0x%x", r.ps);
	/* UDP's ids are UD whatever the QP type asked (the kernel's ucma_get_qp_type) */
	if (r.ps == kPsUdp)
		r.qp_type = IBV_QPT_UD;
	/* IPoIB's qkey is its broadcast group's, from an SA the fabric does not have */
	if (r.ps == kPsIpoib || (r.ps != kPsUdp && r.qp_type != IBV_QPT_RC))
		return fail_log(EOPNOTSUPP,
				"CREATE_ID: port space 0x%x / QP type %u (RC, or UD in UDP)", r.ps,
				r.qp_type);
	auto id = new_id(c.f);
	id->uid = r.uid;
	id->ps = r.ps;
	id->qp_type = r.qp_type;
	uint32_t h = id->handle;
	if (!copy_to_user(r.response, &h, sizeof(h))) {
		destroy_id(c.f, id);
		return fail_log(EFAULT, "CREATE_ID: response 0x%llx",
				(unsigned long long)r.response);
	}
	return 0;
}

int cmd_destroy_id(const Cmd &c)
{
	struct {
		uint64_t response;
		uint32_t id;
		uint32_t reserved;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "DESTROY_ID", &id, 4);
	if (ret)
		return ret;
	destroy_id(c.f, id);
	uint32_t n = id->events_reported;
	if (!copy_to_user(r.response, &n, sizeof(n)))
		return fail_log(EFAULT, "DESTROY_ID: response");
	return 0;
}

/** Bind @p id to the IPv4 address @p a (ANY: no device yet). */
int bind_addr(Id &id, const struct sockaddr_in &a, const char *cmd)
{
	if (id.st != St::Idle)
		return fail_log(EINVAL, "%s: id %u is bound already", cmd, id.handle);
	if (a.sin_family == kAfIb) {
		/* librdmacm's probe at every start (ucma_set_af_ib_support): logged at 2 */
		klog(2, "rdma_cm: %s: AF_IB: not served, librdmacm uses IP commands", cmd);
		return -EAFNOSUPPORT;
	}
	if (a.sin_family != AF_INET)
		return fail_log(EAFNOSUPPORT, "%s: address family %u (IPv4 only)", cmd,
				(unsigned)a.sin_family);
	id.src = a;
	if (a.sin_addr.s_addr != htonl(INADDR_ANY)) {
		uint16_t lid = ip_lid(a.sin_addr.s_addr);
		if (!lid)
			return fail_log(EADDRNOTAVAIL, "%s: %s is no address of the fabric", cmd,
					inet_ntoa(a.sin_addr));
		Device *d = lid_device(lid);
		if (!d)
			return fail_log(ENODEV, "%s: LID %u is not a port of this process", cmd,
					(unsigned)lid);
		id.dev = d;
		id.lid = lid;
	}
	id.bound = true;
	id.st = St::Bound;
	return 0;
}

int cmd_bind_ip(const Cmd &c)
{
	struct {
		uint64_t response;
		uint8_t addr[28];
		uint32_t id;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "BIND_IP", &id);
	if (ret)
		return ret;
	struct sockaddr_in a;
	memcpy(&a, r.addr, sizeof(a));
	return bind_addr(*id, a, "BIND_IP");
}

int cmd_bind(const Cmd &c)
{
	struct {
		uint32_t id;
		uint16_t addr_size;
		uint16_t reserved;
		uint8_t addr[128];
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "BIND", &id);
	if (ret)
		return ret;
	struct sockaddr_in a;
	memcpy(&a, r.addr, sizeof(a));
	if (a.sin_family == AF_INET && r.addr_size < sizeof(a))
		return fail_log(EINVAL, "BIND: address size %u", r.addr_size);
	return bind_addr(*id, a, "BIND");
}

int resolve(const Cmd &c, uint32_t h, const struct sockaddr_in &src, const struct sockaddr_in &dst,
	    const char *cmd)
{
	std::shared_ptr<Id> id;
	int ret = lookup_id(c.f, h, &id);
	if (ret)
		return ret;
	if (dst.sin_family != AF_INET)
		return fail_log(EAFNOSUPPORT, "%s: destination family %u (IPv4 only)", cmd,
				(unsigned)dst.sin_family);
	if (id->st == St::Idle) {
		struct sockaddr_in s = src;
		if (s.sin_family != AF_INET) {
			memset(&s, 0, sizeof(s));
			s.sin_family = AF_INET;
		}
		ret = bind_addr(*id, s, cmd);
		if (ret)
			return ret;
	} else if (id->st != St::Bound) {
		return fail_log(EINVAL, "%s: id %u is past address resolution", cmd, h);
	}
	uint16_t rlid = dst.sin_addr.s_addr == htonl(INADDR_ANY) ? 0 : ip_lid(dst.sin_addr.s_addr);
	if (!id->dev) { /* the source: the port of the first device */
		Device *d = device(0);
		uint16_t lid = d ? dev_lid(d) : 0;
		if (!lid)
			return fail_log(ENODEV, "%s: no device", cmd);
		id->dev = d;
		id->lid = lid;
		id->src.sin_addr.s_addr = lid_ip(lid);
	}
	if (!id->src.sin_port)
		id->src.sin_port = htons((uint16_t)(32768 + random_u32() % 28232));
	id->dst = dst;
	if (dst.sin_addr.s_addr == htonl(INADDR_ANY)) {
		rlid = id->lid; /* the any address: loopback to our port */
		id->dst.sin_addr.s_addr = lid_ip(rlid);
	}
	if (!rlid) {
		klog(1, "rdma_cm: %s: %s is no address of the fabric", cmd,
		     inet_ntoa(dst.sin_addr));
		queue_event(id, EV_ADDR_ERROR, -ENODEV, nullptr);
		return 0;
	}
	id->rlid = rlid;
	id->st = St::AddrResolved;
	queue_event(id, EV_ADDR_RESOLVED, 0, nullptr);
	return 0;
}

int cmd_resolve_ip(const Cmd &c)
{
	struct {
		uint8_t src[28];
		uint8_t dst[28];
		uint32_t id;
		uint32_t timeout_ms;
	} r;
	if (take(c, &r))
		return fail_log(EINVAL, "RESOLVE_IP: %u bytes", c.in_len);
	struct sockaddr_in s, d;
	memcpy(&s, r.src, sizeof(s));
	memcpy(&d, r.dst, sizeof(d));
	return resolve(c, r.id, s, d, "RESOLVE_IP");
}

int cmd_resolve_addr(const Cmd &c)
{
	struct {
		uint32_t id;
		uint32_t timeout_ms;
		uint16_t src_size;
		uint16_t dst_size;
		uint32_t reserved;
		uint8_t src[128];
		uint8_t dst[128];
	} r;
	if (take(c, &r))
		return fail_log(EINVAL, "RESOLVE_ADDR: %u bytes", c.in_len);
	struct sockaddr_in s, d;
	memcpy(&s, r.src, sizeof(s));
	memcpy(&d, r.dst, sizeof(d));
	if (!r.src_size)
		s.sin_family = AF_UNSPEC;
	return resolve(c, r.id, s, d, "RESOLVE_ADDR");
}

int cmd_resolve_route(const Cmd &c)
{
	struct {
		uint32_t id;
		uint32_t timeout_ms;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "RESOLVE_ROUTE", &id);
	if (ret)
		return ret;
	if (id->st != St::AddrResolved)
		return fail_log(EINVAL, "RESOLVE_ROUTE: id %u has no resolved address", r.id);
	id->st = St::RouteResolved;
	queue_event(id, EV_ROUTE_RESOLVED, 0, nullptr);
	return 0;
}

void gid_of(uint64_t guid, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	uint64_t be = htobe64(guid);
	memcpy(gid + 8, &be, 8);
}

bool has_path(const Id &id)
{
	return id.st != St::Idle && id.st != St::Bound && id.st != St::AddrResolved &&
	       id.st != St::Listen && id.rlid;
}

void fill_path(const Id &id, PathRec *p)
{
	memset(p, 0, sizeof(*p));
	gid_of(id.rguid, p->dgid);
	gid_of(id.dev ? id.dev->node_guid : 0, p->sgid);
	p->dlid = htons(id.rlid);
	p->slid = htons(id.lid);
	p->reversible = 1;
	p->mtu = IBV_MTU_4096;
	p->pkey = 0xffff;
	p->numb_path = 1;
	p->mtu_selector = 2; /* exactly */
	p->rate = 2;
	p->packet_life_time = 14;
}

int cmd_query_route(const Cmd &c)
{
	struct {
		uint64_t response;
		uint32_t id;
		uint32_t reserved;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "QUERY_ROUTE", &id, sizeof(QueryRouteResp));
	if (ret)
		return ret;
	QueryRouteResp q;
	memset(&q, 0, sizeof(q));
	memcpy(q.src_addr, &id->src, sizeof(id->src));
	memcpy(q.dst_addr, &id->dst, sizeof(id->dst));
	q.ibdev_index = UINT32_MAX;
	if (id->dev) { /* node GUID 0 when unbound: librdmacm then opens nothing */
		q.node_guid = htobe64(id->dev->node_guid);
		q.port_num = 1;
		q.ibdev_index = id->dev->index;
	}
	if (has_path(*id)) {
		fill_path(*id, &q.ib_route[0]);
		q.num_paths = 1;
	}
	if (!copy_to_user(r.response, &q, sizeof(q)))
		return fail_log(EFAULT, "QUERY_ROUTE: response");
	return 0;
}

/* a sockaddr_ib holding a GID (QUERY option GID) */
void put_ib_addr(uint8_t *dst, uint64_t guid, uint16_t port)
{
	memset(dst, 0, 48);
	uint16_t fam = 27; /* AF_IB */
	memcpy(dst, &fam, 2);
	uint16_t pkey = htons(0xffff);
	memcpy(dst + 2, &pkey, 2);
	gid_of(guid, dst + 8);
	uint64_t sid = htobe64(((uint64_t)kPsTcp << 16) | port);
	memcpy(dst + 24, &sid, 8);
}

int cmd_query(const Cmd &c)
{
	struct {
		uint64_t response;
		uint32_t id;
		uint32_t option;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "QUERY", &id);
	if (ret)
		return ret;
	if (r.option == 1) { /* PATH: {num_paths, reserved} + ibv_path_data (72) each */
		uint8_t b[8 + 72] = {};
		uint32_t n = has_path(*id) ? 1 : 0;
		size_t len = 8 + 72 * n;
		if (c.out_len < len)
			return fail_log(ENOSPC, "QUERY PATH: response of %u bytes", c.out_len);
		memcpy(b, &n, 4);
		if (n) {
			uint32_t flags = 1u << 0 | 1u << 1 |
					 1u << 2; /* primary, gmp, inbound+outbound */
			memcpy(b + 8, &flags, 4);
			fill_path(*id, (PathRec *)(b + 16));
		}
		if (!copy_to_user(r.response, b, len))
			return fail_log(EFAULT, "QUERY PATH: response");
		return 0;
	}
	if (r.option != 0 && r.option != 2)
		return fail_log(ENOSYS, "QUERY: option %u", r.option);
	if (c.out_len < sizeof(QueryAddrResp))
		return fail_log(ENOSPC, "QUERY: response of %u bytes", c.out_len);
	QueryAddrResp q;
	memset(&q, 0, sizeof(q));
	q.ibdev_index = UINT32_MAX;
	if (id->dev) {
		q.node_guid = htobe64(id->dev->node_guid);
		q.port_num = 1;
		q.pkey = 0xffff;
		q.ibdev_index = id->dev->index;
	}
	if (r.option == 0) {
		q.src_size = sizeof(struct sockaddr_in);
		q.dst_size = sizeof(struct sockaddr_in);
		memcpy(q.src_addr, &id->src, sizeof(id->src));
		memcpy(q.dst_addr, &id->dst, sizeof(id->dst));
	} else {
		q.src_size = q.dst_size = 48;
		put_ib_addr(q.src_addr, id->dev ? id->dev->node_guid : 0, ntohs(id->src.sin_port));
		put_ib_addr(q.dst_addr, id->rguid, ntohs(id->dst.sin_port));
	}
	if (!copy_to_user(r.response, &q, sizeof(q)))
		return fail_log(EFAULT, "QUERY: response");
	return 0;
}

int cmd_listen(const Cmd &c)
{
	struct {
		uint32_t id;
		uint32_t backlog;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "LISTEN", &id);
	if (ret)
		return ret;
	if (id->st == St::Idle) {
		struct sockaddr_in any = {};
		any.sin_family = AF_INET;
		ret = bind_addr(*id, any, "LISTEN");
		if (ret)
			return ret;
	}
	if (id->st != St::Bound)
		return fail_log(EINVAL, "LISTEN: id %u is not a bound id", r.id);
	ret = broker_start();
	if (ret)
		return fail_log(-ret, "LISTEN: the CM thread");
	std::vector<Device *> devs;
	if (id->dev)
		devs.push_back(id->dev);
	else
		for (unsigned i = 0; i < config().n_devices; i++)
			if (device(i) && dev_lid(device(i)))
				devs.push_back(device(i));
	bool any_port = !id->src.sin_port;
	for (int attempt = 0; attempt < 16; attempt++) {
		if (any_port)
			id->src.sin_port = htons((uint16_t)(32768 + random_u32() % 28232));
		std::vector<int> fds;
		int err = 0;
		for (Device *d : devs) {
			struct sockaddr_un a;
			socklen_t len = cm_addr(fabric_of(d), dev_lid(d), ntohs(id->src.sin_port),
						&a, id->qp_type == IBV_QPT_UD);
			int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) ||
			    listen(fd, r.backlog ? (int)r.backlog : 128)) {
				err = errno;
				if (fd >= 0)
					sys::close(fd);
				break;
			}
			fds.push_back(fd);
		}
		if (!err) {
			id->listen_fds = fds;
			for (size_t i = 0; i < fds.size(); i++) {
				g_socks[fds[i]] = id;
				g_listen_lid[fds[i]] = dev_lid(devs[i]);
			}
			id->st = St::Listen;
			broker_wake();
			return 0;
		}
		for (int fd : fds)
			sys::close(fd);
		if (err != EADDRINUSE || !any_port)
			return fail_log(err, "LISTEN: port %u", (unsigned)ntohs(id->src.sin_port));
	}
	return fail_log(EADDRINUSE, "LISTEN: no free port");
}

int check_conn_param(const ConnParam &p, unsigned max_pd, const char *cmd)
{
	if (p.private_data_len > max_pd)
		return fail_log(EINVAL, "%s: %u bytes of private data (at most %u)", cmd,
				(unsigned)p.private_data_len, max_pd);
	return 0;
}

void fill_msg(Msg &m, const Id &id, const ConnParam &p, uint8_t type)
{
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.pd_len = p.private_data_len;
	memcpy(m.pd, p.private_data, p.private_data_len);
	m.resp_res = p.responder_resources;
	m.init_depth = p.initiator_depth;
	m.retry = p.retry_count;
	m.rnr_retry = p.rnr_retry_count;
	m.flow_control = p.flow_control;
	m.srq = p.srq;
	m.slid = id.lid;
	m.sport = id.src.sin_port;
	m.sip = id.src.sin_addr.s_addr;
	m.sguid = id.dev ? id.dev->node_guid : 0;
	m.qpn = p.qp_num & 0xffffff;
	m.psn = id.psn;
}

int cmd_connect(const Cmd &c)
{
	struct {
		ConnParam conn;
		uint32_t id;
		uint32_t reserved;
		Ece ece;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "CONNECT", &id, 0, offsetof(decltype(r), ece));
	if (ret)
		return ret;
	if (!r.conn.valid)
		return fail_log(EINVAL, "CONNECT: id %u: no connection parameters", r.id);
	if (id->st != St::RouteResolved)
		return fail_log(EINVAL, "CONNECT: id %u has no resolved route", r.id);
	bool ud = id->qp_type == IBV_QPT_UD;
	ret = check_conn_param(r.conn, ud ? kSidrReqPrivate : kReqPrivate, "CONNECT");
	if (ret)
		return ret;
	ret = broker_start();
	if (ret)
		return fail_log(-ret, "CONNECT: the CM thread");
	id->psn = random_u32() & 0xffffff;
	id->qpn = r.conn.qp_num & 0xffffff;
	id->resp_res = r.conn.responder_resources;
	id->init_depth = r.conn.initiator_depth;
	id->retry = r.conn.retry_count;
	id->rnr_retry = r.conn.rnr_retry_count;
	id->had_cm = true;
	id->st = St::ReqSent;
	id->deadline = std::chrono::steady_clock::now() + cm_timeout();
	struct sockaddr_un a;
	socklen_t len = cm_addr(fabric_of(id->dev), id->rlid, ntohs(id->dst.sin_port), &a, ud);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail_log(errno, "CONNECT: socket");
	int cerr = connect(fd, (struct sockaddr *)&a, len) ? errno : 0;
	if (cerr) {
		/* nobody listens there: the remote CM's REJ "invalid service ID" */
		klog(1, "rdma_cm: CONNECT: id %u: no listener at LID %u port %u (%s)", r.id,
		     (unsigned)id->rlid, (unsigned)ntohs(id->dst.sin_port), strerror(cerr));
		sys::close(fd);
		id->st = St::Failed;
		if (ud) /* the SIDR REP "unsupported" of a CM without that service */
			queue_ud_event(id, EV_UNREACHABLE, kSidrUnsupported, nullptr, 0);
		else
			queue_event(id, EV_REJECTED, kRejInvalidServiceId, nullptr);
		return 0;
	}
	if (!peer_admitted(fd, id->dev)) {
		sys::close(fd);
		id->st = St::Failed;
		queue_event(id, EV_UNREACHABLE, -ETIMEDOUT, nullptr);
		return 0;
	}
	Msg m;
	fill_msg(m, *id, r.conn, ud ? MSG_SIDR_REQ : MSG_REQ);
	id->sock = fd;
	g_socks[fd] = id;
	broker_wake();
	if (!send_msg(fd, m))
		peer_lost(id);
	return 0;
}

/*
 * The SIDR REP of the passive UD id @p id: accepted (@p status 0, its QPN and the
 * port space's qkey) or rejected. The id is done with the CM once answered.
 */
int sidr_answer(Id &id, const ConnParam *p, int status, const char *cmd)
{
	if (p && p->private_data_len > kSidrRepPrivate)
		return fail_log(EINVAL, "%s: %u bytes of private data (at most %u)", cmd,
				(unsigned)p->private_data_len, kSidrRepPrivate);
	Msg m = {};
	m.type = MSG_SIDR_REP;
	m.reason = (uint32_t)status;
	if (p) {
		m.pd_len = p->private_data_len;
		memcpy(m.pd, p->private_data, p->private_data_len);
		id.qpn = p->qp_num & 0xffffff;
	}
	if (!status) {
		m.qpn = id.qpn;
		m.qkey = kUdpQkey;
	}
	if (id.sock >= 0) {
		send_msg(id.sock, m);
		close_sock(id);
	}
	id.st = status ? St::Failed : St::Connected;
	return 0;
}

int cmd_accept(const Cmd &c)
{
	struct {
		uint64_t uid;
		ConnParam conn;
		uint32_t id;
		uint32_t reserved;
		Ece ece;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "ACCEPT", &id, 0, offsetof(decltype(r), ece));
	if (ret)
		return ret;
	if (id->st == St::RepRcvd) { /* the active side: the RTU */
		Msg m = {};
		m.type = MSG_RTU;
		id->st = St::Connected;
		if (!send_msg(id->sock, m))
			peer_lost(id);
		return 0;
	}
	if (id->st != St::ReqRcvd)
		return fail_log(EINVAL, "ACCEPT: id %u has no connection request", r.id);
	if (id->qp_type == IBV_QPT_UD) /* parameters optional: none is a REP without data */
		return sidr_answer(*id, r.conn.valid ? &r.conn : nullptr, 0, "ACCEPT");
	if (!r.conn.valid)
		return fail_log(EINVAL, "ACCEPT: id %u: no connection parameters", r.id);
	ret = check_conn_param(r.conn, kRepPrivate, "ACCEPT");
	if (ret)
		return ret;
	id->uid = r.uid;
	id->qpn = r.conn.qp_num & 0xffffff;
	if (id->peer_gone || id->sock < 0) {
		id->st = St::Failed;
		queue_event(id, EV_UNREACHABLE, -ETIMEDOUT, nullptr);
		return 0;
	}
	Msg m;
	fill_msg(m, *id, r.conn, MSG_REP);
	id->st = St::RepSent;
	id->deadline = std::chrono::steady_clock::now() + cm_timeout();
	broker_wake(); /* its poll now has a deadline */
	if (!send_msg(id->sock, m))
		peer_lost(id);
	return 0;
}

int cmd_reject(const Cmd &c)
{
	struct {
		uint32_t id;
		uint8_t private_data_len;
		uint8_t reason;
		uint8_t reserved[2];
		uint8_t private_data[256];
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "REJECT", &id);
	if (ret)
		return ret;
	int reason = r.reason ? r.reason : kRejConsumer;
	if (reason != kRejConsumer && reason != kRejVendorOption)
		return fail_log(EINVAL, "REJECT: reason %u", (unsigned)r.reason);
	if (r.private_data_len > kRejPrivate)
		return fail_log(EINVAL, "REJECT: %u bytes of private data (at most %u)",
				(unsigned)r.private_data_len, kRejPrivate);
	if (id->st != St::ReqRcvd && id->st != St::RepRcvd)
		return fail_log(EINVAL, "REJECT: id %u has no connection to reject", r.id);
	if (id->qp_type == IBV_QPT_UD) {
		ConnParam p = {};
		p.private_data_len = r.private_data_len;
		memcpy(p.private_data, r.private_data, r.private_data_len);
		return sidr_answer(*id, &p, kSidrReject, "REJECT");
	}
	if (id->sock >= 0) {
		Msg m = {};
		m.type = MSG_REJ;
		m.reason = (uint32_t)reason;
		m.pd_len = r.private_data_len;
		memcpy(m.pd, r.private_data, r.private_data_len);
		send_msg(id->sock, m);
		close_sock(*id);
	}
	id->st = St::Failed;
	return 0;
}

int cmd_disconnect(const Cmd &c)
{
	uint32_t h = 0;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &h, "DISCONNECT", &id);
	if (ret)
		return ret;
	if (!id->had_cm)
		return fail_log(EINVAL, "DISCONNECT: id %u was never connected", h);
	if (id->qp_type == IBV_QPT_UD)
		return 0; /* SIDR left no connection: no DREQ, no event */
	if (id->st == St::Connected || id->st == St::RepRcvd || id->st == St::RepSent) {
		Msg m = {};
		m.type = MSG_DREQ;
		id->st = St::Disconnecting;
		if (!send_msg(id->sock, m))
			peer_lost(id);
	}
	return 0; /* already disconnected: as the kernel, nothing more to do */
}

int cmd_init_qp_attr(const Cmd &c)
{
	struct {
		uint64_t response;
		uint32_t id;
		uint32_t qp_state;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "INIT_QP_ATTR", &id, sizeof(QpAttr));
	if (ret)
		return ret;
	if (!id->dev)
		return fail_log(EINVAL, "INIT_QP_ATTR: id %u has no device", r.id);
	QpAttr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = r.qp_state;
	bool remote = id->st == St::ReqRcvd || id->st == St::RepSent || id->st == St::RepRcvd ||
		      id->st == St::Connected;
	/* UD (cma_ib_init_qp_attr): port, pkey index and the port space's qkey, any state */
	if (id->qp_type == IBV_QPT_UD && r.qp_state >= IBV_QPS_INIT && r.qp_state <= IBV_QPS_RTS) {
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
		a.port_num = 1;
		a.qkey = kUdpQkey;
		if (!copy_to_user(r.response, &a, sizeof(a)))
			return fail_log(EFAULT, "INIT_QP_ATTR: response");
		return 0;
	}
	switch (r.qp_state) {
	case IBV_QPS_INIT:
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		break;
	case IBV_QPS_RTR:
		if (!remote)
			return fail_log(EINVAL, "INIT_QP_ATTR: RTR: id %u is not connecting", r.id);
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		a.path_mtu = IBV_MTU_4096;
		a.dest_qp_num = id->rqpn;
		a.rq_psn = id->rpsn;
		a.max_dest_rd_atomic = id->resp_res;
		a.min_rnr_timer = 12;
		a.ah_attr.dlid = id->rlid;
		a.ah_attr.port_num = 1;
		break;
	case IBV_QPS_RTS:
		if (!remote)
			return fail_log(EINVAL, "INIT_QP_ATTR: RTS: id %u is not connecting", r.id);
		a.qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		a.sq_psn = id->psn;
		a.timeout = id->ack_timeout;
		a.retry_cnt = id->retry;
		a.rnr_retry = id->rnr_retry;
		a.max_rd_atomic = id->init_depth;
		break;
	default:
		return fail_log(EINVAL, "INIT_QP_ATTR: QP state %u", r.qp_state);
	}
	if (!copy_to_user(r.response, &a, sizeof(a)))
		return fail_log(EFAULT, "INIT_QP_ATTR: response");
	return 0;
}

int cmd_set_option(const Cmd &c)
{
	struct {
		uint64_t optval;
		uint32_t id;
		uint32_t level;
		uint32_t optname;
		uint32_t optlen;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "SET_OPTION", &id);
	if (ret)
		return ret;
	/*
	 * level ID: TOS (u8), REUSEADDR, AFONLY (int): accepted, no effect on the fabric;
	 * ACK_TIMEOUT (u8): the timeout INIT_QP_ATTR gives for RTS (the kernel's
	 * rdma_set_ack_timeout)
	 */
	if (r.level == 0 && r.optname <= 3) {
		uint32_t want = r.optname == 0 || r.optname == 3 ? 1 : 4;
		if (r.optlen != want)
			return fail_log(EINVAL, "SET_OPTION: option %u of %u bytes", r.optname,
					r.optlen);
		if (r.optname == 3) {
			uint8_t t;
			if (!copy_from_user(&t, r.optval, 1))
				return fail_log(EFAULT, "SET_OPTION: option value");
			id->ack_timeout = t; /* under g_cm, as every command */
		}
		return 0;
	}
	return fail_log(ENOSYS, "SET_OPTION: level %u option %u", r.level, r.optname);
}

int cmd_notify(const Cmd &c)
{
	struct {
		uint32_t id;
		uint32_t event;
	} r;
	std::shared_ptr<Id> id;
	int ret = take_id(c, &r, "NOTIFY", &id);
	if (ret)
		return ret;
	return id->had_cm ? 0 : fail_log(EINVAL, "NOTIFY: id %u has no connection", r.id);
}

/** MIGRATE_ID, written to the new channel: the id and its queued events move here. */
int cmd_migrate_id(const Cmd &c)
{
	struct {
		uint64_t response;
		uint32_t id;
		uint32_t fd;
	} r;
	if (take(c, &r))
		return fail_log(EINVAL, "MIGRATE_ID: %u bytes", c.in_len);
	if (c.out_len < 4)
		return fail_log(ENOSPC, "MIGRATE_ID: response of %u bytes", c.out_len);
	std::shared_ptr<UcmaFile> old = fd_ucma((int)r.fd);
	if (!old)
		return fail_log(EINVAL, "MIGRATE_ID: fd %d is no rdma_cm channel", (int)r.fd);
	std::shared_ptr<Id> id;
	int ret = lookup_id(*old, r.id, &id);
	if (ret)
		return ret;
	if (old.get() != &c.f) {
		for (auto it = old->events.begin(); it != old->events.end();) {
			if (it->owner != id) {
				it++;
				continue;
			}
			consume_count(*old);
			c.f.events.push_back(*it);
			uint64_t one = 1;
			if (sys::write(c.f.fd, &one, sizeof(one)) != sizeof(one))
				klog(1, "rdma_cm: event channel %d: eventfd write failed", c.f.fd);
			it = old->events.erase(it);
		}
		old->ids.erase(id->handle);
		c.f.ids[id->handle] = id;
		id->file = &c.f;
	}
	uint32_t n = id->events_reported;
	if (!copy_to_user(r.response, &n, sizeof(n)))
		return fail_log(EFAULT, "MIGRATE_ID: response");
	return 0;
}

/** GET_EVENT: blocks (outside the lock) on the channel's eventfd. */
int cmd_get_event(UcmaFile &f, std::unique_lock<std::mutex> &g, const uint8_t *in, uint16_t in_len,
		  uint16_t out_len)
{
	uint64_t response;
	if (in_len < sizeof(response))
		return fail_log(EINVAL, "GET_EVENT: %u bytes", in_len);
	memcpy(&response, in, sizeof(response));
	if (out_len < sizeof(EventResp))
		return fail_log(ENOSPC, "GET_EVENT: response of %u bytes", out_len);
	for (;;) {
		if (f.released)
			return -EINVAL;
		if (!f.events.empty()) {
			Event &e = f.events.front();
			if (!copy_to_user(response, &e.resp, sizeof(e.resp)))
				return fail_log(EFAULT, "GET_EVENT: response 0x%llx",
						(unsigned long long)response);
			e.owner->events_reported++;
			consume_count(f);
			f.events.pop_front();
			return 0;
		}
		int fd = f.fd;
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && (fl & O_NONBLOCK))
			return -EAGAIN;
		g.unlock();
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, -1);
		int err = errno;
		g.lock();
		if (r < 0 && err != EINTR)
			return -err;
	}
}

} // namespace

int ucma_open(int flags, std::shared_ptr<UcmaFile> *file)
{
	int fd = eventfd(0, EFD_SEMAPHORE | (flags & O_CLOEXEC ? EFD_CLOEXEC : 0) |
				    (flags & O_NONBLOCK ? EFD_NONBLOCK : 0));
	if (fd < 0)
		return -errno;
	auto f = std::make_shared<UcmaFile>();
	f->fd = fd;
	*file = f;
	klog(2, "rdma_cm: opened as fd %d", fd);
	return fd;
}

/*
 * The channel's fd is an eventfd counting its queued events, and a fork child's
 * copy of it is the parent's counter: the child's GET_EVENT took counts of the
 * parent's events (a parent that polls the fd then never saw them), or, with no
 * event in its copy, spun on a counter only the parent takes down. The child's
 * channel is its own (kernel_side.rst, "Processes sharing a port"): a new counter
 * under the same fd number, its copy's events counted (libc_intercept.cpp,
 * fork_child()).
 */
void ucma_fork_file(UcmaFile &f, int fd)
{
	if (f.fd == fd) /* not a dup of it */
		sys::own_counter(f.fd, (unsigned)f.events.size());
}

ssize_t ucma_write(UcmaFile &f, int fd, const void *buf, size_t n)
{
	(void)fd;
	CmdHdr h;
	uint8_t body[512];
	if (n < sizeof(h))
		return fail_log(EINVAL, "write of %zu bytes", n);
	if (!copy_from_user(&h, (uint64_t)(uintptr_t)buf, sizeof(h)))
		return fail_log(EFAULT, "command header");
	if (h.cmd >= CMD_MAX)
		return fail_log(EINVAL, "command %u", h.cmd);
	if (h.in + sizeof(h) > n)
		return fail_log(EINVAL, "command %u: in %u of a %zu-byte write", h.cmd, h.in, n);
	uint16_t in = h.in > sizeof(body) ? (uint16_t)sizeof(body) : h.in;
	memset(body, 0, sizeof(body));
	if (!copy_from_user(body, (uint64_t)(uintptr_t)buf + sizeof(h), in))
		return fail_log(EFAULT, "command %u body", h.cmd);
	klog(2, "rdma_cm: command %u in %u out %u", h.cmd, h.in, h.out);
	/* MIGRATE_ID's old channel: held here, so that its last reference never goes
	 * (ucma_release) while g_cm is held */
	std::shared_ptr<UcmaFile> old_channel;
	if (h.cmd == CMD_MIGRATE_ID && in >= 16) {
		uint32_t old_fd;
		memcpy(&old_fd, body + 12, sizeof(old_fd));
		old_channel = fd_ucma((int)old_fd);
	}
	std::unique_lock<std::mutex> g(g_cm);
	if (f.released)
		return -EINVAL;
	Cmd c{f, body, in, h.out};
	int ret;
	switch (h.cmd) {
	case CMD_CREATE_ID:
		ret = cmd_create_id(c);
		break;
	case CMD_DESTROY_ID:
		ret = cmd_destroy_id(c);
		break;
	case CMD_BIND_IP:
		ret = cmd_bind_ip(c);
		break;
	case CMD_RESOLVE_IP:
		ret = cmd_resolve_ip(c);
		break;
	case CMD_RESOLVE_ROUTE:
		ret = cmd_resolve_route(c);
		break;
	case CMD_QUERY_ROUTE:
		ret = cmd_query_route(c);
		break;
	case CMD_CONNECT:
		ret = cmd_connect(c);
		break;
	case CMD_LISTEN:
		ret = cmd_listen(c);
		break;
	case CMD_ACCEPT:
		ret = cmd_accept(c);
		break;
	case CMD_REJECT:
		ret = cmd_reject(c);
		break;
	case CMD_DISCONNECT:
		ret = cmd_disconnect(c);
		break;
	case CMD_INIT_QP_ATTR:
		ret = cmd_init_qp_attr(c);
		break;
	case CMD_GET_EVENT:
		ret = cmd_get_event(f, g, body, in, h.out);
		break;
	case CMD_SET_OPTION:
		ret = cmd_set_option(c);
		break;
	case CMD_NOTIFY:
		ret = cmd_notify(c);
		break;
	case CMD_MIGRATE_ID:
		ret = cmd_migrate_id(c);
		break;
	case CMD_QUERY:
		ret = cmd_query(c);
		break;
	case CMD_BIND:
		ret = cmd_bind(c);
		break;
	case CMD_RESOLVE_ADDR:
		ret = cmd_resolve_addr(c);
		break;
	default:
		ret = fail_log(ENOSYS, "command %u is not served", h.cmd);
		break;
	}
	return ret ? ret : (ssize_t)n;
}

void ucma_release(UcmaFile &f)
{
	std::lock_guard<std::mutex> g(g_cm);
	if (f.released)
		return;
	f.released = true;
	while (!f.ids.empty()) {
		std::shared_ptr<Id> id = f.ids.begin()->second;
		destroy_id(f, id);
	}
	f.events.clear();
}

void ucma_fill_stat(struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(10, kDevMinor);
	st->st_nlink = 1;
	st->st_blksize = 4096;
	st->st_ino = 0x5a2000;
	st->st_dev = makedev(0, 5);
}

} // namespace kernel
} // namespace mlx5sim
