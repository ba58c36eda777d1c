/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Processes sharing one port, as under a kernel: the fork() children of a process
 * that has the device open get a device of their own on the parent's port (its
 * LID), with QPNs of their own (kernel_side.rst, "Processes sharing a port").
 * Through Debian's libibverbs and librdmacm only, under devtools/sim-rdma on a
 * machine-wide fabric (meson test does): an RC send, RDMA read, fetch-and-add
 * and RDMA write between the parent and a child by QPN, a child that dies (the parent's next
 * request fails with RETRY_EXC, never a hang, and the next child works), and rdma-cm between two
 * sibling children on the one address (REQ / REP / RTU, the ACK timeout the active side asked; the
 * passive side dies connected: DISCONNECTED), a fork right after the first LISTEN or right after
 * the device opens (the child's threads run), and the port's address on the device's network
 * interface as pyverbs finds it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cunit_run.h"
#include "kside_cm.h"

enum {
	kBuf = 4096,
};

/** What one side tells the other through a pipe. */
struct ends {
	uint32_t qpn;
	uint16_t lid;
	uint64_t addr;
	uint32_t rkey;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch; /* the CQ's, or NULL */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	uint16_t lid;
};

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/**
 * mlx5_0 opened, a PD, a CQ (with a completion channel when @p channel), an MR of
 * kBuf bytes and an RC QP in INIT. 0 or -1.
 */
static int side_open_ch(struct side *s, bool channel)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr qa;
	struct ibv_qp_attr a;

	memset(s, 0, sizeof(*s));
	if (!l || n < 1)
		return -1;
	s->ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	if (!s->ctx || ibv_query_port(s->ctx, 1, &pa))
		return -1;
	s->lid = pa.lid;
	s->pd = ibv_alloc_pd(s->ctx);
	s->ch = channel ? ibv_create_comp_channel(s->ctx) : NULL;
	s->cq = s->pd && (s->ch || !channel) ? ibv_create_cq(s->ctx, 16, NULL, s->ch, 0) : NULL;
	if (!s->cq || posix_memalign((void **)&s->buf, 4096, kBuf))
		return -1;
	memset(s->buf, 0, kBuf);
	s->mr = ibv_reg_mr(s->pd, s->buf, kBuf,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!s->mr)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = s->cq;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(s->pd, &qa);
	if (!s->qp)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	return ibv_modify_qp(s->qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
		       ? -1
		       : 0;
}

static int side_open(struct side *s)
{
	return side_open_ch(s, false);
}

static void side_close(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->ch)
		ibv_destroy_comp_channel(s->ch);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
}

static struct ends side_ends(const struct side *s)
{
	struct ends e;

	memset(&e, 0, sizeof(e));
	e.qpn = s->qp->qp_num;
	e.lid = s->lid;
	e.addr = (uintptr_t)s->buf;
	e.rkey = s->mr->rkey;
	return e;
}

/** RTR and RTS towards @p peer (retry_cnt 1: a lost peer fails in about 0.5 s). */
static int side_connect(struct side *s, const struct ends *peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = peer->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 1;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(s->qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
		       ? -1
		       : 0;
}

/** One completion within @p ms: its status, or -1. */
static int poll_one(struct ibv_cq *cq, int ms)
{
	long end = now_ms() + ms;
	struct ibv_wc wc;

	while (now_ms() < end) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			return -1;
		if (n == 1)
			return (int)wc.status;
	}
	return -1;
}

static int post(struct side *s, enum ibv_wr_opcode op, const char *msg, const struct ends *peer)
{
	struct ibv_sge sge = {(uintptr_t)s->buf, (uint32_t)strlen(msg) + 1, s->mr->lkey};
	struct ibv_send_wr wr, *bad;

	strcpy(s->buf, msg);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = peer->addr + 2048;
		wr.wr.rdma.rkey = peer->rkey;
	}
	return ibv_post_send(s->qp, &wr, &bad);
}

/* an RDMA read of the peer's first 64 bytes into buf + 512 */
static int post_read(struct side *s, const struct ends *peer)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + 512, 64, s->mr->lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = peer->addr;
	wr.wr.rdma.rkey = peer->rkey;
	return ibv_post_send(s->qp, &wr, &bad);
}

/* a fetch-and-add of @p add on the peer's buf + 3072, the old value to buf + 3072 */
static int post_fadd(struct side *s, const struct ends *peer, uint64_t add)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + 3072, 8, s->mr->lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = peer->addr + 3072;
	wr.wr.atomic.rkey = peer->rkey;
	wr.wr.atomic.compare_add = add;
	return ibv_post_send(s->qp, &wr, &bad);
}

static int post_recv(struct side *s)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + 1024, 1024, s->mr->lkey};
	struct ibv_recv_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(s->qp, &wr, &bad);
}

static const char kHello[] = "a send from the parent";
static const char kWritten[] = "an RDMA write from the child";

/*
 * The child: its own device on the parent's port; takes the parent's send,
 * RDMA-writes into the parent's buffer, says so and waits to be killed.
 */
static void child_main(int rd, int wr, uint16_t parent_lid)
{
	struct side s;
	struct ends me, peer;
	char c = 'd';

	if (side_open(&s))
		_exit(10);
	if (s.lid != parent_lid)
		_exit(11); /* not the parent's port */
	me = side_ends(&s);
	if (write(wr, &me, sizeof(me)) != sizeof(me) ||
	    read(rd, &peer, sizeof(peer)) != sizeof(peer))
		_exit(12);
	if (post_recv(&s) || side_connect(&s, &peer) || write(wr, &c, 1) != 1)
		_exit(13);
	if (poll_one(s.cq, 5000) != IBV_WC_SUCCESS || strcmp(s.buf + 1024, kHello))
		_exit(14);
	/* the parent's message is still at the start of its buffer */
	if (post_read(&s, &peer) || poll_one(s.cq, 5000) != IBV_WC_SUCCESS ||
	    strcmp(s.buf + 512, kHello))
		_exit(17);
	if (post_fadd(&s, &peer, 5) || poll_one(s.cq, 5000) != IBV_WC_SUCCESS ||
	    *(volatile uint64_t *)(s.buf + 3072) != 0)
		_exit(18);
	if (post(&s, IBV_WR_RDMA_WRITE, kWritten, &peer) || poll_one(s.cq, 5000) != IBV_WC_SUCCESS)
		_exit(15);
	if (write(wr, &c, 1) != 1)
		_exit(16);
	for (;;)
		pause();
}

/* one round: a child on our port, a send to it and its write to us; then it dies */
static void one_round(struct side *p)
{
	int p2c[2], c2p[2];
	struct ends me, peer;
	pid_t pid;
	char c;
	int st = 0;

	CU_ASSERT_EQUAL_FATAL(pipe(p2c), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(c2p), 0);
	pid = fork();
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		child_main(p2c[0], c2p[1], p->lid);
	}
	CU_ASSERT_FATAL(pid > 0);
	close(p2c[0]);
	close(c2p[1]);
	me = side_ends(p);
	if (read(c2p[0], &peer, sizeof(peer)) != sizeof(peer)) {
		CU_FAIL("the child did not start");
		waitpid(pid, &st, 0);
		printf("\n    child exit status %d ", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		goto out;
	}
	/* the same port, a QPN of its own */
	CU_ASSERT_EQUAL(peer.lid, p->lid);
	CU_ASSERT_NOT_EQUAL(peer.qpn, me.qpn);
	printf("\n    LID %u: parent QPN 0x%x, child QPN 0x%x ", p->lid, me.qpn, peer.qpn);
	CU_ASSERT_EQUAL_FATAL(write(p2c[1], &me, sizeof(me)), (ssize_t)sizeof(me));
	CU_ASSERT_EQUAL_FATAL(side_connect(p, &peer), 0);
	CU_ASSERT_EQUAL_FATAL(read(c2p[0], &c, 1), 1); /* its receive is posted */
	CU_ASSERT_EQUAL(post(p, IBV_WR_SEND, kHello, &peer), 0);
	CU_ASSERT_EQUAL(poll_one(p->cq, 5000), IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(read(c2p[0], &c, 1), 1); /* it wrote */
	CU_ASSERT_STRING_EQUAL(p->buf + 2048, kWritten);
	CU_ASSERT_EQUAL(*(volatile uint64_t *)(p->buf + 3072), 5); /* its fetch-and-add */
	/* it dies: our next request to it fails after the retries, no hang */
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	long t0 = now_ms();
	CU_ASSERT_EQUAL(post(p, IBV_WR_RDMA_WRITE, "late", &peer), 0);
	CU_ASSERT_EQUAL(poll_one(p->cq, 10000), IBV_WC_RETRY_EXC_ERR);
	printf("RETRY_EXC after %ld ms ", now_ms() - t0);
out:
	close(p2c[1]);
	close(c2p[0]);
}

/*
 * The parent and two children in turn: RC between them by QPN on the one LID; a
 * child that dies fails the parent's next request, and the next child works.
 */
static void test_rc_with_children(void)
{
	for (int round = 0; round < 2; round++) {
		struct side p;

		CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
		one_round(&p);
		side_close(&p);
	}
}

/* the passive sibling: listens on the port's address, accepts, dies connected */
static int passive_main(uint16_t lid, uint16_t port, int ready)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL;
	struct sockaddr_in a = addr_of_lid(lid, port);
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;

	if (!ch || rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lis, (struct sockaddr *)&a) || rdma_listen(lis, 1))
		return 2;
	if (write(ready, "r", 1) != 1)
		return 2;
	if (next_event(ch, &ev) != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 3;
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x246;
	if (rdma_accept(ev->id, &p))
		return 4;
	rdma_ack_cm_event(ev);
	if (next_event(ch, &ev) != RDMA_CM_EVENT_ESTABLISHED)
		return 5;
	_exit(0); /* connected, no DREQ: as a crash */
}

/* the active sibling: connects to the same address, sees the passive one die */
static int active_main(uint16_t lid, uint16_t port, int ready)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst = addr_of_lid(lid, port);
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;
	struct ibv_qp_attr qa;
	int mask = 0;
	uint8_t timeout = 21;
	char c;

	if (!ch || read(ready, &c, 1) != 1 || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 2;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000) ||
	    next_event(ch, &ev) != RDMA_CM_EVENT_ADDR_RESOLVED)
		return 3;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 1000) || next_event(ch, &ev) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return 4;
	rdma_ack_cm_event(ev);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x135;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
			    sizeof(timeout)) ||
	    rdma_connect(id, &p))
		return 5;
	if (next_event(ch, &ev) != RDMA_CM_EVENT_CONNECT_RESPONSE)
		return 6; /* REJECTED 8 when the sibling's listener is not found */
	rdma_ack_cm_event(ev);
	/* the ACK timeout asked is the one RTS gets (pyverbs' async traffic checks it) */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	if (rdma_init_qp_attr(id, &qa, &mask) || !(mask & IBV_QP_TIMEOUT) || qa.timeout != 21)
		return 9;
	if (rdma_accept(id, &p)) /* the RTU */
		return 7;
	if (next_event(ch, &ev) != RDMA_CM_EVENT_DISCONNECTED)
		return 8;
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	return 0;
}

/* two children of the process holding the port: one listens, the other connects */
static void run_siblings(uint16_t lid, uint16_t port)
{
	int ready[2], st[2] = {-1, -1};
	pid_t pid[2];

	CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			/* one end each: a passive side that fails ends the active's read */
			close(ready[i == 0 ? 0 : 1]);
			_exit(i == 0 ? passive_main(lid, port, ready[1])
				     : active_main(lid, port, ready[0]));
		}
		CU_ASSERT_FATAL(pid[i] > 0);
	}
	close(ready[0]);
	close(ready[1]);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(waitpid(pid[i], &st[i], 0), pid[i]);
		CU_ASSERT_TRUE(WIFEXITED(st[i]));
		printf("\n    %s: exit %d ", i ? "active" : "passive", WEXITSTATUS(st[i]));
		CU_ASSERT_EQUAL(WEXITSTATUS(st[i]), 0);
	}
}

static void test_cm_between_siblings(void)
{
	struct side p;

	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	run_siblings(p.lid, (uint16_t)(20000 + getpid() % 20000));
	side_close(&p);
}

/*
 * The same, the parent listening itself when it forks (its CM broker runs): the
 * children's rdma-cm is their own (a broker each), never the parent's.
 */
static void test_cm_after_parent_listened(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL;
	struct side p;
	struct sockaddr_in a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	a = addr_of_lid(p.lid, (uint16_t)(20000 + (getpid() + 1) % 20000));
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&a), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 1), 0);
	run_siblings(p.lid, (uint16_t)(20000 + (getpid() + 2) % 20000));
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(ch);
	side_close(&p);
}

/** @p pid's exit status (128 + signal) within @p ms, else -1 and it is killed. */
static int wait_exit(pid_t pid, int ms)
{
	int st = -1;

	for (int i = 0; i < ms / 100 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(100 * 1000);
	if (st == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* a thread of a fork child: it starts, allocates, frees, ends */
static void *alloc_thread(void *arg)
{
	for (int i = 0; i < 64; i++)
		free(malloc(64 + (size_t)i * 128));
	return arg;
}

/* a fork whose child starts a thread: 0, 3 when that child hangs (killed after 5 s), 4 */
static int fork_thread_child(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		pthread_t t;

		_exit(pthread_create(&t, NULL, alloc_thread, NULL) || pthread_join(t, NULL) ? 4
											    : 0);
	}
	if (pid < 0)
		return 2;
	/* a hang anywhere in the child (its fork handlers too) is a failure, not a stall */
	st = wait_exit(pid, 5000);
	return st < 0 ? 3 : st == 0 ? 0 : 4;
}

/*
 * 32 rounds, each in a fresh child of the port's process running
 * round_main(lid, round): the rounds that did not exit 0 within 10 s, each printed.
 */
static int fork_rounds(uint16_t lid, int (*round_main)(uint16_t lid, int r))
{
	int bad = 0;

	for (int r = 0; r < 32; r++) {
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(round_main(lid, r));
		if (pid < 0)
			return 32;
		st = wait_exit(pid, 10000);
		if (st != 0) {
			printf("\n    round %d: exit %d ", r, st);
			bad++;
		}
	}
	return bad;
}

/* a LISTEN, the process's first (its rdma-cm broker starts), then a fork at once */
static int listen_then_fork_main(uint16_t lid, int r)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL;
	struct sockaddr_in a = addr_of_lid(lid, (uint16_t)(20000 + (getpid() + r) % 20000));

	if (!ch || rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lis, (struct sockaddr *)&a))
		return 2;
	usleep(100 * 1000); /* the device's engine idle: only the broker's start races */
	if (rdma_listen(lis, 1))
		return 2;
	return fork_thread_child();
}

/*
 * fork() right after the first LISTEN: the child's threads run. Under an allocator
 * that does not take its locks around fork() (GCC 12's ASan) a child once
 * inherited the lock the parent's broker thread held while it started, and every
 * thread it started waited for ever (ucma.cpp, ucma_fork_prepare()). Rounds in
 * fresh processes, each a broker's start.
 */
static void test_fork_after_first_listen(void)
{
	struct side p;

	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	/* the device's engine threads past their start: a fork now races only the broker's */
	usleep(200 * 1000);
	CU_ASSERT_EQUAL(fork_rounds(p.lid, listen_then_fork_main), 0);
	side_close(&p);
}

/*
 * A fork right after the device's threads start: after ibv_open_device() (the
 * engine and the fabric listener) in even rounds, after the first ibv_create_qp()
 * (the doorbell watcher) in odd ones.
 */
static int open_then_fork_main(uint16_t lid, int r)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *ctx = l && n > 0 ? ibv_open_device(l[0]) : NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp_init_attr qa;

	(void)lid;
	if (!ctx)
		return 2;
	if (r % 2) {
		pd = ibv_alloc_pd(ctx);
		cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
		if (!cq)
			return 2;
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = IBV_QPT_RC;
		qa.send_cq = qa.recv_cq = cq;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 8;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		if (!ibv_create_qp(pd, &qa))
			return 2;
	}
	return fork_thread_child(); /* the process's exit frees the rest */
}

/*
 * fork() right after the device opens or its first QP is made: the child's threads
 * run. The device's threads start then, and a fork that split one in its start-up
 * could leave the child an allocator lock held for ever (thread_up.h).
 */
static void test_fork_after_open(void)
{
	struct side p;

	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	CU_ASSERT_EQUAL(fork_rounds(p.lid, open_then_fork_main), 0);
	side_close(&p);
}

/*
 * The port's address on a network interface of the device, where pyverbs looks
 * (an ls of /sys/class/infiniband/<dev>/device/net/, then ip addr): "lo" for the
 * port whose address is 127.0.0.1 (LID 1), no "net" at all for another.
 */
static void test_net_interface(void)
{
	struct side p;
	struct stat st;
	char line[64] = "";
	FILE *ls;
	DIR *d;
	int lo = 0;

	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	printf("\n    LID %u: ", p.lid);
	if (p.lid != 1) {
		CU_ASSERT_NOT_EQUAL(stat("/sys/class/infiniband/mlx5_0/device/net/", &st), 0);
		printf("no interface ");
		side_close(&p);
		return;
	}
	CU_ASSERT_EQUAL(stat("/sys/class/infiniband/mlx5_0/device/net/", &st), 0);
	CU_ASSERT_TRUE(S_ISDIR(st.st_mode));
	d = opendir("/sys/class/infiniband/mlx5_0/device/net");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		lo += !strcmp(e->d_name, "lo");
	closedir(d);
	CU_ASSERT_EQUAL(lo, 1);
	/* another program (pyverbs' subprocess) sees the same */
	ls = popen("ls /sys/class/infiniband/mlx5_0/device/net/", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ls);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), ls));
	CU_ASSERT_EQUAL(pclose(ls), 0);
	CU_ASSERT_STRING_EQUAL(line, "lo\n");
	printf("ls: %s", line);
	side_close(&p);
}

/** Clock ticks process @p pid has run (utime + stime of /proc/<pid>/stat), or -1. */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* past the command's name */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

/*
 * Child @p pid blocks on its copy of an event fd while the parent's event is queued
 * on @p fd: once @p fd is readable, the child stays idle for 0.5 s (it does not spin
 * on the parent's count). The child is killed then.
 */
static void child_stays_idle(pid_t pid, int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	long ticks;

	CU_ASSERT_EQUAL_FATAL(poll(&p, 1, 5000), 1);
	usleep(500 * 1000);
	ticks = cpu_ticks(pid);
	printf("\n    waiting child: %ld ticks in 0.5 s ", ticks);
	CU_ASSERT(ticks >= 0 && ticks < 10);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * A fork child's copy of an event channel is its own: its GET_EVENT takes the
 * events of its copy, never the parent's count of them (a parent that polls
 * the channel's fd still sees its event), and with none waits without spinning
 * while the parent's events are queued.
 */
static void test_cm_channel_in_child(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst;
	struct rdma_cm_event *ev;
	struct side s;
	struct pollfd p;
	pid_t pid;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(side_open(&s), 0);
	dst = addr_of_lid(s.lid, 0); /* the port's own address */
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	/* a child with nothing queued blocks while the parent's event waits */
	pid = fork();
	if (pid == 0) {
		if (rdma_get_cm_event(ch, &ev) == 0)
			rdma_ack_cm_event(ev);
		_exit(9);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL_FATAL(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000), 0);
	child_stays_idle(pid, ch->fd);
	/* one queued at the fork: the child takes its copy's, the parent still has its own */
	pid = fork();
	if (pid == 0) {
		if (rdma_get_cm_event(ch, &ev) || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED)
			_exit(1);
		rdma_ack_cm_event(ev);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(wait_exit(pid, 5000), 0);
	p = (struct pollfd){ch->fd, POLLIN, 0};
	CU_ASSERT_EQUAL(poll(&p, 1, 1000), 1);
	CU_ASSERT_EQUAL_FATAL(rdma_get_cm_event(ch, &ev), 0);
	CU_ASSERT_EQUAL(ev->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	side_close(&s);
}

/*
 * The same for a completion channel (and the async event fd, counted alike): a
 * child blocked in ibv_get_cq_event() on its copy does not spin while the
 * parent's completion event is queued, and one that takes its copy's event
 * leaves the parent's announced on the parent's fd.
 */
static void test_comp_channel_in_child(void)
{
	void *ectx;
	struct ibv_cq *ecq;
	struct pollfd p;
	struct side s;
	struct ends e;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(side_open_ch(&s, true), 0);
	e = side_ends(&s);
	CU_ASSERT_EQUAL_FATAL(side_connect(&s, &e), 0); /* its own peer */
	CU_ASSERT_EQUAL_FATAL(ibv_req_notify_cq(s.cq, 0), 0);
	pid = fork();
	if (pid == 0) {
		if (ibv_get_cq_event(s.ch, &ecq, &ectx) == 0)
			ibv_ack_cq_events(ecq, 1);
		_exit(9);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL_FATAL(post(&s, IBV_WR_RDMA_WRITE, "to myself", &e), 0);
	child_stays_idle(pid, s.ch->fd);
	pid = fork();
	if (pid == 0) {
		if (ibv_get_cq_event(s.ch, &ecq, &ectx))
			_exit(1);
		ibv_ack_cq_events(ecq, 1);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(wait_exit(pid, 5000), 0);
	p = (struct pollfd){s.ch->fd, POLLIN, 0};
	CU_ASSERT_EQUAL(poll(&p, 1, 1000), 1);
	CU_ASSERT_EQUAL_FATAL(ibv_get_cq_event(s.ch, &ecq, &ectx), 0);
	CU_ASSERT_PTR_EQUAL(ecq, s.cq);
	ibv_ack_cq_events(ecq, 1);
	CU_ASSERT_EQUAL(poll_one(s.cq, 1000), IBV_WC_SUCCESS);
	side_close(&s);
}

/** Connect active id @p act to listener @p lis on @p ch, in this process. 0 or the step. */
static int cm_connect_self(struct rdma_event_channel *ch, struct sockaddr_in *a,
			   struct rdma_cm_id *lis, struct rdma_cm_id *act)
{
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	if (rdma_bind_addr(lis, (struct sockaddr *)a) || rdma_listen(lis, 1))
		return 1;
	if (rdma_resolve_addr(act, NULL, (struct sockaddr *)a, 1000) ||
	    next_event(ch, &ev) != RDMA_CM_EVENT_ADDR_RESOLVED)
		return 2;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(act, 1000) || next_event(ch, &ev) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return 3;
	rdma_ack_cm_event(ev);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x135;
	if (rdma_connect(act, &p) || next_event(ch, &ev) != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 4;
	p.qp_num = 0x246;
	if (rdma_accept(ev->id, &p))
		return 5;
	rdma_ack_cm_event(ev);
	if (next_event(ch, &ev) != RDMA_CM_EVENT_CONNECT_RESPONSE)
		return 6;
	rdma_ack_cm_event(ev);
	if (rdma_accept(act, &p) || next_event(ch, &ev) != RDMA_CM_EVENT_ESTABLISHED)
		return 7; /* the RTU */
	rdma_ack_cm_event(ev);
	return 0;
}

static volatile int g_churn_stop;

/* a thread that makes and closes fds of the library's as fast as it can */
static void *churn_thread(void *arg)
{
	int fd = *(int *)arg;

	while (!g_churn_stop) {
		int d = dup(fd);

		if (d >= 0)
			close(d);
	}
	return NULL;
}

/*
 * fork() while another thread opens and closes fds of the library's: the child's
 * close of the event channel it inherited still releases nothing of the parent's
 * (its connections get no DREQ), whatever that thread was doing at the fork.
 */
static void test_fork_while_fds_change(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *act = NULL;
	struct rdma_cm_event *ev;
	struct sockaddr_in a;
	struct pollfd p;
	struct side s;
	pthread_t t;
	int bad = 0, fl;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(side_open(&s), 0);
	a = addr_of_lid(s.lid, 7474);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &act, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(cm_connect_self(ch, &a, lis, act), 0);
	g_churn_stop = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, churn_thread, &s.ctx->cmd_fd), 0);
	for (int i = 0; i < 200; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(ch->fd);
			_exit(0);
		}
		if (pid < 0 || wait_exit(pid, 5000) != 0)
			bad++;
	}
	g_churn_stop = 1;
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(bad, 0);
	/* the parent's connection is as it was: no DISCONNECTED queued (nor its count) */
	fl = fcntl(ch->fd, F_GETFL);
	CU_ASSERT_EQUAL(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
	p = (struct pollfd){ch->fd, POLLIN, 0};
	CU_ASSERT_EQUAL(poll(&p, 1, 300), 0);
	if (rdma_get_cm_event(ch, &ev) == 0) {
		printf("\n    event %d after the forks ", (int)ev->event);
		CU_FAIL("a child's close released the parent's channel");
		rdma_ack_cm_event(ev);
	}
	fcntl(ch->fd, F_SETFL, fl);
	rdma_disconnect(act);
	rdma_destroy_id(act);
	rdma_destroy_id(lis);
	rdma_destroy_event_channel(ch);
	side_close(&s);
}

static volatile int g_busy_stop;

/* RDMA writes to its own QP, one after the other: the device's engine is busy */
static void *busy_thread(void *arg)
{
	struct side *s = arg;
	struct ends e = side_ends(s);

	while (!g_busy_stop)
		if (post(s, IBV_WR_RDMA_WRITE, "busy", &e) == 0)
			poll_one(s->cq, 1000);
	return NULL;
}

/*
 * A fork child's commands on objects it inherited (a query, a state change),
 * forked while the parent's engine executes WQEs: each answers, never waits for
 * ever for the device lock a thread of the parent held at the fork. (Only
 * commands libmlx5 takes none of its own locks for: those a thread of the
 * parent held stay held in the child, as under a kernel.)
 */
static void test_inherited_cmds_while_busy(void)
{
	enum {
		kForks = 300
	}; /* about 1 in 100 forked while the engine held the lock */
	int hung = 0, failed = 0;
	struct side s;
	struct ends e;
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(side_open(&s), 0);
	e = side_ends(&s);
	CU_ASSERT_EQUAL_FATAL(side_connect(&s, &e), 0); /* its own peer */
	g_busy_stop = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, busy_thread, &s), 0);
	for (int i = 0; i < kForks; i++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			struct ibv_qp_init_attr ia;
			struct ibv_port_attr pa;
			struct ibv_qp_attr a;

			if (ibv_query_qp(s.qp, &a, IBV_QP_STATE, &ia) ||
			    a.qp_state != IBV_QPS_RTS || ibv_query_port(s.ctx, 1, &pa))
				_exit(1);
			a.qp_state = IBV_QPS_ERR;
			_exit(ibv_modify_qp(s.qp, &a, IBV_QP_STATE) ? 2 : 0);
		}
		CU_ASSERT_FATAL(pid > 0);
		st = wait_exit(pid, 1000);
		hung += st < 0;
		failed += st > 0;
	}
	g_busy_stop = 1;
	pthread_join(t, NULL);
	printf("\n    %d children: %d hung, %d failed ", kForks, hung, failed);
	CU_ASSERT_EQUAL(hung, 0);
	CU_ASSERT_EQUAL(failed, 0);
	side_close(&s);
}

/** stat() as the kernel answers it, past the library: 0 or -errno. */
static int kernel_stat(const char *path, struct stat *st)
{
	return syscall(SYS_newfstatat, AT_FDCWD, path, st, 0) == 0 ? 0 : -errno;
}

/** stat() through libc (the library's), as kernel_stat(). */
static int libc_stat(const char *path, struct stat *st)
{
	return stat(path, st) == 0 ? 0 : -errno;
}

/*
 * Paths under /sys/class/infiniband come from the wrapper's tree ($SYSFS_PATH),
 * and only those: a ".." that leaves the tree goes on from the real /sys/class
 * (as the kernel walks it), never into the directories around $SYSFS_PATH; a
 * path that comes back into the tree is the tree's; one longer than 511 bytes
 * is served too.
 */
static void test_sysfs_dotdot(void)
{
	/* a path, and where the kernel's walk of it ends (it has no infiniband here) */
	static const char *const out[][2] = {
		{"/sys/class/infiniband/../../..", "/"},
		{"/sys/class/infiniband/..", "/sys/class"},
		{"/sys/class/infiniband/mlx5_0/../../net", "/sys/class/net"},
		{"/sys/class/infiniband/./../../../proc/self", "/proc/self"},
	};
	struct stat a, b;
	char longp[1024];
	struct side p;
	size_t n;
	DIR *d;

	CU_ASSERT_EQUAL_FATAL(side_open(&p), 0);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		int ra = libc_stat(out[i][0], &a);
		int rb = kernel_stat(out[i][1], &b);

		CU_ASSERT_EQUAL(ra, rb);
		CU_ASSERT_TRUE(ra != 0 || (a.st_ino == b.st_ino && a.st_dev == b.st_dev));
		if (ra != rb || (ra == 0 && (a.st_ino != b.st_ino || a.st_dev != b.st_dev)))
			printf("\n    %s: not %s (%d) ", out[i][0], out[i][1], ra);
	}
	d = opendir("/sys/class/infiniband/../net");
	CU_ASSERT_PTR_NOT_NULL(d);
	if (d)
		closedir(d);
	/* back into the tree, and a long path: the tree's */
	CU_ASSERT_EQUAL(libc_stat("/sys/class/infiniband/mlx5_0/ports/1", &b), 0);
	CU_ASSERT_EQUAL(libc_stat("/sys/class/infiniband/../infiniband/mlx5_0/ports/1", &a), 0);
	CU_ASSERT_TRUE(a.st_ino == b.st_ino);
	n = (size_t)snprintf(longp, sizeof(longp), "/sys/class/infiniband/mlx5_0");
	while (n < 700)
		n += (size_t)snprintf(longp + n, sizeof(longp) - n, "/.");
	snprintf(longp + n, sizeof(longp) - n, "/ports/1");
	CU_ASSERT_EQUAL(libc_stat(longp, &a), 0);
	CU_ASSERT_TRUE(a.st_ino == b.st_ino);
	/* not the tree's prefix */
	CU_ASSERT_EQUAL(libc_stat("/sys/class/infinibandX", &a),
			kernel_stat("/sys/class/infinibandX", &b));
	side_close(&p);
}

static const struct cunit_test tests[] = {
	{"a fork child shares the port: RC send, read, atomic, write by QPN, it dies",
	 test_rc_with_children},
	{"rdma-cm between sibling processes of one port", test_cm_between_siblings},
	{"the same while the parent listens itself", test_cm_after_parent_listened},
	{"a fork right after the first LISTEN: the child's threads run",
	 test_fork_after_first_listen},
	{"a fork right after the device opens or makes a QP: the child's threads run",
	 test_fork_after_open},
	{"the port's address on the device's network interface", test_net_interface},
	{"a \"..\" out of /sys/class/infiniband: the real path", test_sysfs_dotdot},
	{"a fork child's event channel is its own", test_cm_channel_in_child},
	{"a fork child's completion channel is its own", test_comp_channel_in_child},
	{"a fork while another thread changes fds", test_fork_while_fds_change},
	{"a child's commands on inherited objects while the engine runs",
	 test_inherited_cmds_while_busy},
};

int main(void)
{
	return CUNIT_RUN_SUITE("shared port", tests);
}
