/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dc-bench: RDMA writes from one host to many peers on the software HCA's fabric,
 * through one DCI with streams against one RC QP per peer, measured in the same run;
 * then the time the healthy peers' writes take while one peer's link is down, for a
 * DCI with streams (only that peer's stream fails) and without (the DCI fails and is
 * recovered, its flushed writes posted again). Every write is checked to have landed.
 *
 *   dc-bench [--peers 1,8,64] [--ops N] [--size BYTES] [--exec inline|thread] [--kernel]
 *            [--cm]
 *
 * --cm: the requester finds each peer by address, as rdma-cm applications do: each
 * peer publishes its DCT (number, DC key, LID) at 127.0.x.y:7471 through the seam's
 * connection manager (a reserved QPN stands for the connection), and the requester
 * fetches it there (mlx5_glue::cm_listen / cm_fetch) instead of reading it from the
 * peer's objects; the time the lookups took is printed. The RC pairs stay connected
 * by hand.
 *
 * Hosts are software HCA instances "sim<N>" created with fabric = 1 (instance numbers
 * from 900 up). With --kernel they are mlx5_0 (the requester), mlx5_1, ... of Debian's
 * libibverbs + libmlx5 (run under devtools/sim-rdma -n <peers + 1> -a sim_fabric=1,
 * at most 15 peers); the one-peer-down part needs the imitation's link control and is
 * left out, saying so. The figures are the model's (the device is software on the same
 * cores): what they compare is the work per write of each scheme, not a NIC.
 */
#include <errno.h>
#include <getopt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <string>
#include <thread>
#include <vector>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5_glue.h"
#include "mlx5_qp_state.h"
#include "mlx5_sim.h"

namespace {

constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
constexpr uint64_t kKey = 0xdcbe7c4;
constexpr uint32_t kBurst = 32;
constexpr int kFirstHost = 900;

const struct mlx5_glue *g;

struct Options {
	std::vector<int> peers{1, 8, 64};
	uint32_t ops = 200000;
	uint32_t size = 64;
	enum mlx5_sim_exec_mode exec = MLX5_SIM_EXEC_INLINE;
	bool kernel = false; /* hosts mlx5_<i> of the rdma-core backend */
	bool cm = false;
};

/* --cm: what a peer publishes, big-endian: tag, DCT number, DC key, LID */
constexpr uint32_t kCmTag = 0x44434231; /* "DCB1" */
constexpr size_t kCmLen = 18;
constexpr uint16_t kCmPort = 7471;
constexpr uint8_t kCmReq[4] = {'D', 'C', 'B', '1'};

void put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

uint64_t get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

[[noreturn]] void die(const char *what)
{
	fprintf(stderr, "dc-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

double now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** One host: context, PD, CQ, a buffer with its MR. */
struct Host {
	std::string name;
	struct ibv_context *ctx = nullptr;
	struct ibv_pd *pd = nullptr;
	struct ibv_cq_ex *cq = nullptr;
	uint8_t *buf = nullptr;
	struct ibv_mr *mr = nullptr;
	uint16_t lid = 0;
	/* as a peer */
	struct ibv_srq *srq = nullptr;
	struct ibv_qp *dct = nullptr;
	struct ibv_qp *rc = nullptr;                /* its end of the requester's RC QP */
	struct mlx5_glue_cm_listener *cm = nullptr; /* --cm: where it publishes its DCT */
	uint32_t cm_qpn = 0;
};

/* --kernel: the hosts are devices of the rdma-core backend, not instances of ours */
bool kernel_hosts;

void host_open(Host &h, int number, enum mlx5_sim_exec_mode exec, size_t bytes)
{
	struct mlx5_sim_device_attr attr;
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_port_attr port;
	struct ibv_device **list;
	int n = 0;

	if (kernel_hosts) {
		h.name = "mlx5_" + std::to_string(number - kFirstHost);
	} else {
		h.name = "sim" + std::to_string(number);
		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = exec;
		attr.fabric = 1;
		if (mlx5_sim_device_add(h.name.c_str(), &attr)) {
			errno = EEXIST;
			die(h.name.c_str());
		}
	}
	list = g->get_device_list(&n);
	for (int i = 0; list && i < n && !h.ctx; i++)
		if (h.name == g->get_device_name(list[i]))
			h.ctx = g->open_device(list[i]);
	if (list)
		g->free_device_list(list);
	if (!h.ctx)
		die("open_device");
	h.pd = g->alloc_pd(h.ctx);
	ca.cqe = 4095;
	h.cq = g->create_cq_ex(h.ctx, &ca);
	if (posix_memalign((void **)&h.buf, 4096, bytes))
		die("posix_memalign");
	memset(h.buf, 0, bytes);
	h.mr = h.pd ? g->reg_mr(h.pd, h.buf, bytes, kAccess) : nullptr;
	if (!h.pd || !h.cq || !h.mr || g->query_port(h.ctx, 1, &port))
		die("host resources");
	h.lid = port.lid;
}

void host_close(Host &h)
{
	if (h.cm) {
		g->cm_listen_close(h.cm);
		g->dv_reserved_qpn_dealloc(h.ctx, h.cm_qpn);
	}
	if (h.rc)
		g->destroy_qp(h.rc);
	if (h.dct)
		g->destroy_qp(h.dct);
	if (h.srq)
		g->destroy_srq(h.srq);
	g->dereg_mr(h.mr);
	g->destroy_cq(ibv_cq_ex_to_cq(h.cq));
	g->dealloc_pd(h.pd);
	g->close_device(h.ctx);
	free(h.buf);
	if (!kernel_hosts)
		mlx5_sim_device_remove(h.name.c_str());
}

int modify(struct ibv_qp *qp, enum ibv_qp_state s, int mask, struct ibv_qp_attr a)
{
	a.qp_state = s;
	return g->modify_qp(qp, &a, IBV_QP_STATE | mask);
}

/** RTR -> RTS attributes every requester here uses. */
int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {};

	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return modify(qp, IBV_QPS_RTS,
		      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			      IBV_QP_MAX_QP_RD_ATOMIC,
		      a);
}

struct ibv_qp *create_send_qp(Host &h, bool dci, uint8_t log_errored, uint32_t depth)
{
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	qa.qp_type = dci ? IBV_QPT_DRIVER : IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(h.cq);
	qa.cap.max_send_wr = depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = dci ? 0 : 1;
	qa.cap.max_recv_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = h.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	if (dci) {
		dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
		dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
		if (log_errored) {
			dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
			dv.dc_init_attr.dci_streams.log_num_concurent = 4;
			dv.dc_init_attr.dci_streams.log_num_errored = log_errored;
		}
	}
	struct ibv_qp *qp = g->dv_create_qp(h.ctx, &qa, &dv);
	if (!qp)
		die("create QP");
	return qp;
}

int rc_connect(struct ibv_qp *qp, uint32_t dest, uint16_t dlid, bool rts)
{
	struct ibv_qp_attr a = {};

	a.port_num = 1;
	a.qp_access_flags = kAccess;
	if (modify(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, a))
		return -1;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = dlid;
	if (modify(qp, IBV_QPS_RTR,
		   IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   a))
		return -1;
	return rts ? to_rts(qp) : 0;
}

/** A peer as the requester sees it: address handle, DCT number, its buffer. */
struct Peer {
	Host host;
	struct ibv_ah *ah = nullptr;
	uint32_t dctn = 0;
	uint64_t key = kKey;
	struct ibv_qp *rc_local = nullptr; /* the requester's RC QP to it */
	struct ibv_qp_ex *rc_qpx = nullptr;
	uint32_t pending = 0; /* RC: writes posted in the open batch */
};

struct World {
	Options opt;
	Host a; /* the requester */
	std::vector<Peer> peers;
	uint32_t cm_qpn = 0; /* --cm: the requester's connections' QPN */
	double cm_seconds = 0;
};

/* The peer's address on the fabric: 127.0.x.y is the port of LID x << 8 | y. */
struct sockaddr_in cm_addr(uint16_t lid)
{
	struct sockaddr_in sin = {};

	sin.sin_family = AF_INET;
	sin.sin_port = htons(kCmPort);
	sin.sin_addr.s_addr = htonl(0x7f000000u | lid);
	return sin;
}

/* --cm: the answer's DCT number, key and LID into the peer, every field checked */
int cm_take(void *arg, uint16_t lid, const void *reply, size_t len)
{
	Peer *p = static_cast<Peer *>(arg);
	const uint8_t *d = static_cast<const uint8_t *>(reply);

	if (len < kCmLen || get_be(d, 4) != kCmTag) {
		fprintf(stderr, "dc-bench: peer at LID %u: refused %zu bytes of private data\n",
			p->host.lid, len);
		return -EPROTO;
	}
	p->dctn = (uint32_t)get_be(d + 4, 4);
	p->key = get_be(d + 8, 8);
	p->host.lid = (uint16_t)get_be(d + 16, 2);
	(void)lid; /* cm_exchange() compares the published LID with the one it asked */
	return 0;
}

/* --cm: the peer publishes its DCT; the requester finds it by address */
void cm_exchange(World &w, Peer &p)
{
	uint8_t rep[kCmLen];
	struct sockaddr_in sin = cm_addr(p.host.lid);
	uint32_t dctn = p.dctn;
	uint16_t lid = p.host.lid;

	put_be(rep, kCmTag, 4);
	put_be(rep + 4, dctn, 4);
	put_be(rep + 8, kKey, 8);
	put_be(rep + 16, lid, 2);
	if (!g->cm_listen || g->dv_reserved_qpn_alloc(p.host.ctx, &p.host.cm_qpn))
		die("reserved QPN for the connection manager");
	int ret = g->cm_listen(p.host.ctx, &sin, p.host.cm_qpn, kCmReq, sizeof(kCmReq), rep,
			       sizeof(rep), nullptr, nullptr, &p.host.cm);
	if (ret) {
		errno = -ret;
		die("cm_listen");
	}
	/* what the requester knows: the address only */
	p.dctn = 0;
	p.key = 0;
	double t0 = now_s();
	ret = g->cm_fetch(w.a.ctx, &sin, w.cm_qpn, kCmReq, sizeof(kCmReq), 5000, cm_take, &p);
	w.cm_seconds += now_s() - t0;
	if (ret || p.dctn != dctn || p.key != kKey || p.host.lid != lid) {
		errno = ret ? -ret : EPROTO;
		die("cm_fetch");
	}
}

void setup_peer(World &w, Peer &p, int number)
{
	struct ibv_srq_init_attr sa = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_ah_attr aa = {};

	host_open(p.host, number, w.opt.exec, w.opt.size);
	sa.attr.max_wr = 1;
	sa.attr.max_sge = 1;
	p.host.srq = g->create_srq(p.host.pd, &sa);
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(p.host.cq);
	qa.srq = p.host.srq;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = p.host.pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = kKey;
	p.host.dct = p.host.srq ? g->dv_create_qp(p.host.ctx, &qa, &dv) : nullptr;
	if (!p.host.dct)
		die("DCT");
	if (mlx5_qp_connect_dct(g, p.host.dct, kAccess))
		die("DCT to RTR");
	p.dctn = p.host.dct->qp_num;
	if (w.opt.cm)
		cm_exchange(w, p);
	aa.port_num = 1;
	aa.dlid = p.host.lid;
	p.ah = g->create_ah(w.a.pd, &aa);
	/* one RC QP pair per peer */
	p.host.rc = create_send_qp(p.host, false, 0, 4);
	p.rc_local = create_send_qp(w.a, false, 0, 2 * kBurst);
	if (!p.ah || rc_connect(p.host.rc, p.rc_local->qp_num, w.a.lid, false) ||
	    rc_connect(p.rc_local, p.host.rc->qp_num, p.host.lid, true))
		die("RC pair");
	p.rc_qpx = g->qp_to_qp_ex(p.rc_local);
}

/** Poll @p n completions of the requester's CQ; returns how many were errors. */
uint32_t poll_n(World &w, uint32_t n, std::vector<struct ibv_wc> *errs)
{
	struct ibv_wc wc[32];
	uint32_t got = 0, bad = 0;

	while (got < n) {
		int r = ibv_poll_cq(ibv_cq_ex_to_cq(w.a.cq), 32, wc);

		if (r < 0)
			die("poll");
		for (int i = 0; i < r; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				bad++;
				if (errs)
					errs->push_back(wc[i]);
			}
		}
		got += (uint32_t)r;
		if (r == 0 && w.opt.exec != MLX5_SIM_EXEC_INLINE)
			std::this_thread::yield();
	}
	return bad;
}

/* ---- throughput: one DCI with streams vs one RC QP per peer ---- */

double run_dci(World &w, struct ibv_qp *dci, uint32_t npeers)
{
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dv = g->dv_qp_ex_from_ibv_qp_ex(qpx);
	uint32_t done = 0, peer = 0;
	double t0 = now_s();

	while (done < w.opt.ops) {
		uint32_t n = w.opt.ops - done < kBurst ? w.opt.ops - done : kBurst;

		ibv_wr_start(qpx);
		for (uint32_t i = 0; i < n; i++) {
			Peer &p = w.peers[peer];
			qpx->wr_id = peer;
			qpx->wr_flags = i == n - 1 ? IBV_SEND_SIGNALED : 0;
			ibv_wr_rdma_write(qpx, p.host.mr->rkey, (uintptr_t)p.host.buf);
			mlx5dv_wr_set_dc_addr_stream(dv, p.ah, p.dctn, p.key, (uint16_t)peer);
			ibv_wr_set_sge(qpx, w.a.mr->lkey, (uintptr_t)w.a.buf, w.opt.size);
			peer = peer + 1 == npeers ? 0 : peer + 1;
		}
		if (ibv_wr_complete(qpx))
			die("DCI post");
		if (poll_n(w, 1, nullptr))
			die("DCI write failed");
		done += n;
	}
	return (double)w.opt.ops / (now_s() - t0);
}

double run_rc(World &w, uint32_t npeers)
{
	uint32_t done = 0, peer = 0;
	double t0 = now_s();

	while (done < w.opt.ops) {
		uint32_t n = w.opt.ops - done < kBurst ? w.opt.ops - done : kBurst;
		uint32_t signaled = 0;

		/*
		 * The burst's writes spread over the peers' QPs, one batch per QP used;
		 * round robin makes the last npeers writes the last of their QP's batch:
		 * those ask for the completion.
		 */
		for (uint32_t i = 0; i < n; i++) {
			Peer &p = w.peers[peer];
			if (!p.pending)
				ibv_wr_start(p.rc_qpx);
			p.pending++;
			p.rc_qpx->wr_id = peer;
			p.rc_qpx->wr_flags = i + npeers >= n ? IBV_SEND_SIGNALED : 0;
			ibv_wr_rdma_write(p.rc_qpx, p.host.mr->rkey, (uintptr_t)p.host.buf);
			ibv_wr_set_sge(p.rc_qpx, w.a.mr->lkey, (uintptr_t)w.a.buf, w.opt.size);
			peer = peer + 1 == npeers ? 0 : peer + 1;
		}
		for (uint32_t k = 0; k < npeers; k++) {
			Peer &p = w.peers[k];
			if (!p.pending)
				continue;
			if (ibv_wr_complete(p.rc_qpx))
				die("RC post");
			p.pending = 0;
			signaled++;
		}
		if (poll_n(w, signaled, nullptr))
			die("RC write failed");
		done += n;
	}
	return (double)w.opt.ops / (now_s() - t0);
}

/* ---- one peer down: how long the healthy peers' writes take ---- */

/**
 * @p ops writes round robin over the peers while peer 0's link is down (or not):
 * writes to peer 0 fail; with streams its stream is reset, without the DCI is
 * recovered and every flushed write to a healthy peer is posted again. Returns the
 * seconds until every healthy write has landed; *healthy counts them.
 */
double run_failover(World &w, uint32_t npeers, bool streams, bool fail, uint32_t *healthy,
		    uint32_t *recoveries)
{
	struct mlx5_sim_link link = {(uint8_t)fail, 0, 0, 0};
	struct ibv_qp *dci = create_send_qp(w.a, true, streams ? 3 : 0, 2 * kBurst);
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dv = g->dv_qp_ex_from_ibv_qp_ex(qpx);
	std::vector<uint32_t> redo; /* healthy writes flushed by a DCI failure */
	uint32_t posted = 0, peer = 0;

	*healthy = *recoveries = 0;
	if (mlx5_qp_connect_dci(g, dci, 0) ||
	    mlx5_sim_device_set_link(w.peers[0].host.name.c_str(), &link))
		die("failover setup");
	double t0 = now_s();
	while (posted < w.opt.ops || !redo.empty()) {
		uint32_t n = 0;
		std::vector<struct ibv_wc> errs;

		ibv_wr_start(qpx);
		while (n < kBurst && (!redo.empty() || posted < w.opt.ops)) {
			uint32_t to;
			if (!redo.empty()) {
				to = redo.back();
				redo.pop_back();
			} else {
				to = peer;
				peer = peer + 1 == npeers ? 0 : peer + 1;
				posted++;
			}
			Peer &p = w.peers[to];
			qpx->wr_id = to;
			/* every write signaled: each outcome is needed */
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_rdma_write(qpx, p.host.mr->rkey, (uintptr_t)p.host.buf);
			mlx5dv_wr_set_dc_addr_stream(dv, p.ah, p.dctn, p.key, (uint16_t)to);
			ibv_wr_set_sge(qpx, w.a.mr->lkey, (uintptr_t)w.a.buf, w.opt.size);
			n++;
		}
		if (ibv_wr_complete(qpx))
			die("failover post");
		uint32_t bad = poll_n(w, n, &errs);
		*healthy += n - bad;
		bool dci_failed = false;
		for (const struct ibv_wc &e : errs) {
			if (e.wr_id != 0) {
				/* a healthy write flushed behind peer 0's failure: again */
				redo.push_back((uint32_t)e.wr_id);
				dci_failed = true;
			} else if (streams) {
				g->dv_dci_stream_id_reset(dci, 0);
			} else {
				dci_failed = true;
			}
		}
		if (dci_failed && !streams) {
			if (mlx5_qp_connect_dci(g, dci, 1))
				die("DCI recovery");
			(*recoveries)++;
		}
	}
	double t = now_s() - t0;
	link.down = 0;
	mlx5_sim_device_set_link(w.peers[0].host.name.c_str(), &link);
	g->destroy_qp(dci);
	/* writes to peer 0 never count as healthy */
	*healthy -= fail ? 0 : (w.opt.ops + npeers - 1) / npeers;
	return t;
}

bool parse(int argc, char **argv, Options *o)
{
	static const struct option lo[] = {{"peers", required_argument, nullptr, 'p'},
					   {"ops", required_argument, nullptr, 'o'},
					   {"size", required_argument, nullptr, 's'},
					   {"exec", required_argument, nullptr, 'e'},
					   {"kernel", no_argument, nullptr, 'k'},
					   {"cm", no_argument, nullptr, 'c'},
					   {nullptr, 0, nullptr, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, nullptr)) != -1) {
		char *end = nullptr;
		switch (c) {
		case 'p': {
			o->peers.clear();
			for (char *s = optarg; *s;) {
				long v = strtol(s, &end, 10);
				if (end == s || v < 1 || v > 64)
					return false;
				o->peers.push_back((int)v);
				s = *end == ',' ? end + 1 : end;
				if (*end && *end != ',')
					return false;
			}
			break;
		}
		case 'o':
			o->ops = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || o->ops < 64)
				return false;
			break;
		case 's':
			o->size = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || o->size < 1 || o->size > (1u << 20))
				return false;
			break;
		case 'e':
			if (!strcmp(optarg, "inline"))
				o->exec = MLX5_SIM_EXEC_INLINE;
			else if (!strcmp(optarg, "thread"))
				o->exec = MLX5_SIM_EXEC_THREAD;
			else
				return false;
			break;
		case 'k':
			o->kernel = true;
			break;
		case 'c':
			o->cm = true;
			break;
		default:
			return false;
		}
	}
	return optind == argc && !o->peers.empty();
}

} // namespace

int main(int argc, char **argv)
{
	World w;
	int max_peers = 1;

	if (!parse(argc, argv, &w.opt)) {
		fprintf(stderr,
			"usage: dc-bench [--peers 1,8,64] [--ops N>=64] [--size 1..1048576] "
			"[--exec inline|thread] [--kernel] [--cm]\n");
		return 2;
	}
	for (int p : w.opt.peers)
		max_peers = p > max_peers ? p : max_peers;
	if (max_peers < 2)
		max_peers = 2; /* the failover part needs a healthy peer */
	g = mlx5_glue_sim();
	if (w.opt.kernel) {
		struct ibv_device *dev;

		if (max_peers > 15) {
			fprintf(stderr,
				"dc-bench: --kernel: %d peers, at most 15 (mlx5_1..mlx5_15)\n",
				max_peers);
			return 2;
		}
		if (mlx5_glue_find_device("mlx5_0", &g, &dev) != 0) {
			fprintf(stderr, "dc-bench: --kernel: no mlx5_0 (run it under "
					"devtools/sim-rdma -n <peers + 1> -a sim_fabric=1)\n");
			return 1;
		}
		mlx5_glue_put_device(g, dev);
		kernel_hosts = true;
	}
	host_open(w.a, kFirstHost, w.opt.exec, w.opt.size);
	if (w.opt.cm && g->dv_reserved_qpn_alloc(w.a.ctx, &w.cm_qpn))
		die("reserved QPN for the connection manager");
	w.peers.resize((size_t)max_peers);
	for (int i = 0; i < max_peers; i++)
		setup_peer(w, w.peers[(size_t)i], kFirstHost + 1 + i);
	for (uint32_t k = 0; k < w.opt.size; k++)
		w.a.buf[k] = (uint8_t)(k * 7 + 3);

	if (w.opt.kernel)
		printf("dc-bench: %u RDMA writes of %u B per run, hosts mlx5_0..mlx5_%d (%s "
		       "backend)\n",
		       w.opt.ops, w.opt.size, max_peers, g->name);
	else
		printf("dc-bench: %u RDMA writes of %u B per run, %s hosts (software HCA "
		       "fabric)\n",
		       w.opt.ops, w.opt.size,
		       w.opt.exec == MLX5_SIM_EXEC_INLINE ? "inline" : "thread");
	if (w.opt.cm)
		printf("%d peers found by address (rdma-cm, 127.0.x.y:%u) in %.4f s\n", max_peers,
		       kCmPort, w.cm_seconds);
	printf("%6s %16s %16s %12s\n", "peers", "DCI+streams/s", "RC per peer/s", "DCI/RC");
	struct ibv_qp *dci = create_send_qp(w.a, true, 3, 2 * kBurst);
	if (mlx5_qp_connect_dci(g, dci, 0))
		die("DCI");
	for (int np : w.opt.peers) {
		double d = run_dci(w, dci, (uint32_t)np);
		double r = run_rc(w, (uint32_t)np);
		printf("%6d %16.0f %16.0f %11.2fx\n", np, d, r, d / r);
	}
	g->destroy_qp(dci);
	/* every peer got the last write's bytes */
	for (int i = 0; i < max_peers; i++)
		if (memcmp(w.peers[(size_t)i].host.buf, w.a.buf, w.opt.size)) {
			fprintf(stderr, "dc-bench: peer %d does not hold the written bytes\n", i);
			return 1;
		}

	uint32_t np = (uint32_t)(max_peers < 8 ? max_peers : 8);
	if (w.opt.kernel) {
		printf("\none of %u peers down: left out on mlx5_*: the link is cut through the "
		       "imitation's mlx5_sim_device_set_link\n",
		       np);
		goto out;
	}
	printf("\none of %u peers down: seconds until the healthy peers' writes landed\n", np);
	printf("%-22s %10s %10s %10s %12s\n", "DCI", "healthy", "no fault", "one down",
	       "down/none");
	for (bool streams : {true, false}) {
		uint32_t h0, h1, r0, r1;
		double t0 = run_failover(w, np, streams, false, &h0, &r0);
		double t1 = run_failover(w, np, streams, true, &h1, &r1);
		if (h0 != h1) {
			fprintf(stderr, "dc-bench: %u healthy writes without the fault, %u with\n",
				h0, h1);
			return 1;
		}
		printf("%-22s %10u %10.4f %10.4f %11.2fx  (%u DCI recoveries)\n",
		       streams ? "with streams" : "without streams", h1, t0, t1, t1 / t0, r1);
	}
out:
	for (Peer &p : w.peers) {
		g->destroy_ah(p.ah);
		g->destroy_qp(p.rc_local);
		host_close(p.host);
	}
	if (w.opt.cm)
		g->dv_reserved_qpn_dealloc(w.a.ctx, w.cm_qpn);
	host_close(w.a);
	return 0;
}
