/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Completion channels, CQ arm events and async events of the kernel side through
 * Debian's own libibverbs and libmlx5 (run under devtools/sim-rdma): one event
 * per arm, solicited-only arms, arming behind the producer, the destroy counts
 * libibverbs waits on (a wrong count hangs ibv_destroy_*, which the test's
 * timeout turns into a failure), unread events dropped at destroy, a responder
 * access error and a CQ overrun on the async fd, and the kernel's errnos for
 * bad channel fds and reads. Plain C, linked with -libverbs -lmlx5 only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cunit_run.h"
#include "kside_verbs.h"

/** @p fd becomes readable within @p ms. */
static int readable(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* A loopback pair: a sends, b receives into rcq (on the channel), the rest on scq. */
struct pair {
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static int pair_open(struct pair *p, int rcq_entries)
{
	struct ibv_port_attr port;
	struct ibv_qp_init_attr ia;

	memset(p, 0, sizeof(*p));
	p->pd = ibv_alloc_pd(g_ctx);
	p->ch = ibv_create_comp_channel(g_ctx);
	p->scq = ibv_create_cq(g_ctx, 64, NULL, NULL, 0);
	p->rcq = ibv_create_cq(g_ctx, rcq_entries, (void *)0x5eed, p->ch, 0);
	p->buf = calloc(1, 4096);
	if (!p->pd || !p->ch || !p->scq || !p->rcq || !p->buf || ibv_query_port(g_ctx, 1, &port))
		return -1;
	p->mr = ibv_reg_mr(p->pd, p->buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p->scq;
	ia.recv_cq = p->scq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	p->a = ibv_create_qp(p->pd, &ia);
	ia.recv_cq = p->rcq;
	p->b = ibv_create_qp(p->pd, &ia);
	if (!p->mr || !p->a || !p->b)
		return -1;
	if (modify_to_rts(p->a, p->b->qp_num, port.lid) ||
	    modify_to_rts(p->b, p->a->qp_num, port.lid))
		return -1;
	return 0;
}

/** A SEND a -> b into a receive posted now; @p flags: IBV_SEND_SOLICITED or 0. */
static int pair_send(struct pair *p, int flags)
{
	struct ibv_sge sge = {(uintptr_t)p->buf, 64, p->mr->lkey};
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | flags;
	if (ibv_post_recv(p->b, &rwr, &rbad) || ibv_post_send(p->a, &wr, &bad))
		return -1;
	return poll_one(p->scq, &wc) == 1 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
}

/** Take one completion event of the channel: 0 when it names rcq. */
static int take_event(struct pair *p)
{
	struct ibv_cq *cq = NULL;
	void *cq_ctx = NULL;

	if (ibv_get_cq_event(p->ch, &cq, &cq_ctx))
		return -1;
	ibv_ack_cq_events(cq, 1);
	return cq == p->rcq && cq_ctx == (void *)0x5eed ? 0 : -1;
}

/*
 * take_event() through another fd of the channel (libibverbs reads the fd, then
 * libmlx5 moves the CQ's arm sequence number on: a bare read() would not).
 */
static int take_event_on(struct pair *p, int fd)
{
	struct ibv_comp_channel ch = *p->ch;
	struct pair q = *p;

	ch.fd = fd;
	q.ch = &ch;
	return take_event(&q);
}

static void pair_close(struct pair *p)
{
	CU_ASSERT_EQUAL(ibv_destroy_qp(p->a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(p->b), 0);
	/* returns once the acks match the events the destroy response reports */
	CU_ASSERT_EQUAL(ibv_destroy_cq(p->rcq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(p->scq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(p->ch), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(p->mr), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(p->pd), 0);
	free(p->buf);
}

static void test_one_event_per_arm(void)
{
	struct pair p;
	struct ibv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	/* not armed: a completion raises nothing */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_FALSE(readable(p.ch->fd, 300));

	/* armed: the next completion raises one event, the fd is readable once (epoll) */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	{
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ee = {.events = EPOLLIN};

		CU_ASSERT_EQUAL_FATAL(epoll_ctl(ep, EPOLL_CTL_ADD, p.ch->fd, &ee), 0);
		CU_ASSERT_EQUAL_FATAL(epoll_wait(ep, &ee, 1, 5000), 1);
		close(ep);
	}
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_FALSE(readable(p.ch->fd, 0));

	/* no re-arm: the next completions raise nothing */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_FALSE(readable(p.ch->fd, 300));

	/* armed twice before a completion: still one event */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	usleep(20000);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_FALSE(readable(p.ch->fd, 300));
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);

	/* armed behind the producer (a completion not yet polled): an event at once */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	usleep(20000);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	pair_close(&p);
}

static void test_stale_arm(void)
{
	struct pair p;
	struct ibv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	/* armed again before the event was taken: its old sequence number, ignored */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	usleep(20000);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_FALSE(readable(p.ch->fd, 300));
	/* taken: the next arm counts, and the completion not yet polled raises it */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	pair_close(&p);
}

static void test_solicited_only(void)
{
	struct pair p;
	struct ibv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 1), 0);
	usleep(20000);
	/* a message without the SE bit: its completion does not raise the event */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_FALSE(readable(p.ch->fd, 300));
	/* one with it does */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, IBV_SEND_SOLICITED), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	/* a solicited arm behind a solicited completion not yet polled: at once */
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, IBV_SEND_SOLICITED), 0);
	usleep(20000);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 1), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	pair_close(&p);
}

static void test_unread_event_dropped(void)
{
	struct pair p;
	struct ibv_comp_channel *ch;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	/* never read: destroying the CQ drops it and does not wait for it */
	ch = p.ch;
	CU_ASSERT_EQUAL(ibv_destroy_qp(p.a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(p.b), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(p.rcq), 0);
	CU_ASSERT_FALSE(readable(ch->fd, 0));
	CU_ASSERT_EQUAL(ibv_destroy_cq(p.scq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(p.mr), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(p.pd), 0);
	free(p.buf);
}

static void test_channel_refusals(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(g_ctx);
	struct ibv_comp_channel fake;
	struct ibv_cq *cq = NULL;
	void *cq_ctx;
	int fds[2], fl;
	uint8_t small[4];

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	/* nothing raised: a non-blocking read finds nothing; a short read is EINVAL */
	fl = fcntl(ch->fd, F_GETFL);
	CU_ASSERT_EQUAL_FATAL(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(ibv_get_cq_event(ch, &cq, &cq_ctx), 0);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	errno = 0;
	CU_ASSERT_EQUAL(read(ch->fd, small, sizeof(small)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a channel fd that is another file, or the async fd: EBADF as the kernel */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	memcpy(&fake, ch, sizeof(fake));
	fake.fd = fds[0];
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(g_ctx, 4, NULL, &fake, 0));
	CU_ASSERT_EQUAL(errno, EBADF);
	fake.fd = g_ctx->async_fd;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(g_ctx, 4, NULL, &fake, 0));
	CU_ASSERT_EQUAL(errno, EBADF);
	/* comp vectors: the device has one */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(g_ctx, 4, NULL, ch, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	close(fds[0]);
	close(fds[1]);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0);
}

/*
 * A completion channel is a file, its fds references to it, as in the kernel: a
 * dup() reads its events; closing the fd it was made with leaves it working
 * through the dup, and dup2() puts it back; a dup2() of another file over a copy
 * makes that number the other file and leaves the channel alone; fcntl's
 * F_DUPFD_CLOEXEC (Python's os.dup) is a dup. A channel of another context is
 * EBADF.
 */
static void test_channel_dup(void)
{
	struct ibv_context *ctx2 = ibv_open_device(g_list[0]);
	struct ibv_wc wc;
	struct pair p;
	uint64_t desc = 0;
	int orig, d, x, nul, y;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx2);
	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(ctx2, 4, NULL, p.ch, 0));
	CU_ASSERT_EQUAL(errno, EBADF);
	CU_ASSERT_EQUAL(ibv_close_device(ctx2), 0);
	orig = p.ch->fd;
	d = dup(orig);
	CU_ASSERT_FATAL(d >= 0);
	/* the original number closed: the dup still has the channel */
	CU_ASSERT_EQUAL(close(orig), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(d, 5000));
	CU_ASSERT_EQUAL(take_event_on(&p, d), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	/* back at the old number; the dup closed: the channel lives on */
	CU_ASSERT_EQUAL_FATAL(dup2(d, orig), orig);
	CU_ASSERT_EQUAL(close(d), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	/* /dev/null dup2()ed over a copy: that number reads /dev/null, not events */
	x = dup(orig);
	nul = open("/dev/null", O_RDONLY);
	CU_ASSERT_FATAL(x >= 0 && nul >= 0);
	CU_ASSERT_EQUAL(dup2(nul, x), x);
	CU_ASSERT_EQUAL(read(x, &desc, sizeof(desc)), 0);
	CU_ASSERT_EQUAL(close(x), 0);
	CU_ASSERT_EQUAL(close(nul), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_EQUAL(take_event(&p), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	/* F_DUPFD_CLOEXEC */
	y = fcntl(orig, F_DUPFD_CLOEXEC, 0);
	CU_ASSERT_FATAL(y >= 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(y, 5000));
	CU_ASSERT_EQUAL(take_event_on(&p, y), 0);
	CU_ASSERT_EQUAL(poll_one(p.rcq, &wc), 1);
	CU_ASSERT_EQUAL(close(y), 0);
	pair_close(&p);
}

static void test_bad_read_buffer(void)
{
	struct pair p;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.rcq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pair_send(&p, 0), 0);
	CU_ASSERT_TRUE_FATAL(readable(p.ch->fd, 5000));
	/* a buffer the process does not have: EFAULT, never a crash; the event stays */
	void *volatile nowhere = (void *)8;
	errno = 0;
	CU_ASSERT_EQUAL(read(p.ch->fd, nowhere, 8), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	CU_ASSERT_TRUE(readable(p.ch->fd, 0));
	CU_ASSERT_EQUAL(take_event(&p), 0);
	pair_close(&p);
}

/** The next async event within 5 s. */
static int next_async(struct ibv_async_event *ev)
{
	return readable(g_ctx->async_fd, 5000) ? ibv_get_async_event(g_ctx, ev) : -1;
}

static void test_async_qp_access_error(void)
{
	struct pair p;
	struct ibv_async_event ev;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	/* an RDMA write with a bad rkey: b, the responder, raises QP_ACCESS_ERR */
	sge.addr = (uintptr_t)p.buf;
	sge.length = 64;
	sge.lkey = p.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)p.buf;
	wr.wr.rdma.rkey = p.mr->rkey ^ 0x80;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(p.scq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR);
	/* read into memory the process lacks: EFAULT (a checked copy), the event stays */
	CU_ASSERT_TRUE_FATAL(readable(g_ctx->async_fd, 5000));
	{
		void *volatile nowhere = (void *)8;

		errno = 0;
		CU_ASSERT_EQUAL(read(g_ctx->async_fd, nowhere, 16), -1);
		CU_ASSERT_EQUAL(errno, EFAULT);
	}
	CU_ASSERT_EQUAL_FATAL(next_async(&ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p.b);
	/* destroying b waits for exactly this ack (it reports 1) */
	ibv_ack_async_event(&ev);
	pair_close(&p);

	/* the same, never read (as pyverbs does): the destroy does not wait for it */
	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	sge.addr = (uintptr_t)p.buf;
	sge.lkey = p.mr->lkey;
	wr.wr.rdma.remote_addr = (uintptr_t)p.buf;
	wr.wr.rdma.rkey = p.mr->rkey ^ 0x80;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(p.scq, &wc), 1);
	CU_ASSERT_TRUE(readable(g_ctx->async_fd, 5000));
	pair_close(&p);
	CU_ASSERT_FALSE(readable(g_ctx->async_fd, 0));

	/* an atomic to a QP that does not allow atomics: b raises QP_REQ_ERR */
	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	sge.addr = (uintptr_t)p.buf;
	sge.length = 8;
	sge.lkey = p.mr->lkey;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)p.buf + 64;
	wr.wr.atomic.rkey = p.mr->rkey;
	wr.wr.atomic.compare_add = 1;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(p.scq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(next_async(&ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_QP_REQ_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p.b);
	ibv_ack_async_event(&ev);
	pair_close(&p);
}

static void test_async_cq_overrun(void)
{
	struct pair p;
	struct ibv_async_event ev;
	int got_cq_err = 0;

	/* b's receive CQ of 2 entries, never polled: the third completion overruns it */
	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 1), 0);
	for (int i = 0; i < 3; i++)
		pair_send(&p, 0);
	while (next_async(&ev) == 0) {
		if (ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == p.rcq)
			got_cq_err = 1;
		ibv_ack_async_event(&ev);
		if (got_cq_err)
			break;
	}
	CU_ASSERT_TRUE(got_cq_err);
	pair_close(&p);
}

/*
 * An SRQ of @p pd armed at 3 with 4 receives posted, two sends of a loopback pair
 * on @p cq into it: one IBV_EVENT_SRQ_LIMIT_REACHED on the async fd, acked.
 */
static void srq_limit_event(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_mr *mr, uint8_t *buf)
{
	struct ibv_async_event ev;
	struct ibv_srq_init_attr sa;
	struct ibv_srq_attr lim;
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr port;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	int i;

	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(&sa, 0, sizeof(sa));
	sa.srq_context = (void *)0x5e9;
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a = ibv_create_qp(pd, &ia);
	ia.srq = srq;
	ia.cap.max_recv_wr = 0;
	ia.cap.max_recv_sge = 0;
	b = ibv_create_qp(pd, &ia);
	CU_ASSERT_FATAL(a && b);
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(a, b->qp_num, port.lid), 0);
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(b, a->qp_num, port.lid), 0);
	sge.addr = (uintptr_t)buf;
	sge.length = 64;
	sge.lkey = mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	/* armed at 3 with 4 posted: the second receive taken brings it below */
	memset(&lim, 0, sizeof(lim));
	lim.srq_limit = 3;
	CU_ASSERT_EQUAL_FATAL(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
		/* a's send and b's receive, both on cq */
		CU_ASSERT_EQUAL_FATAL(poll_one(cq, &wc), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(poll_one(cq, &wc), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	}
	CU_ASSERT_EQUAL_FATAL(next_async(&ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.srq, srq);
	CU_ASSERT_PTR_EQUAL(ev.element.srq->srq_context, (void *)0x5e9);
	/* destroying the SRQ waits for exactly this ack (its response reports 1) */
	ibv_ack_async_event(&ev);
	/* disarmed: no second event */
	CU_ASSERT_FALSE(readable(g_ctx->async_fd, 50));
	CU_ASSERT_EQUAL(ibv_destroy_qp(a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(b), 0);
	CU_ASSERT_EQUAL(ibv_destroy_srq(srq), 0);
}

static void test_async_srq_limit(void)
{
	struct pair p;

	CU_ASSERT_EQUAL_FATAL(pair_open(&p, 16), 0);
	srq_limit_event(p.pd, p.scq, p.mr, p.buf);
	pair_close(&p);
}

/*
 * The process's first doorbell the device watches is an SRQ's (no CQ has a
 * channel yet): the device's thread must still deliver async events, not only a
 * destroy. Runs first: the thread is the process's, started once.
 */
static void test_async_srq_first(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 64, NULL, NULL, 0);
	uint8_t *buf = calloc(1, 4096);
	struct ibv_mr *mr;

	CU_ASSERT_FATAL(pd && cq && buf);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	srq_limit_event(pd, cq, mr, buf);
	CU_ASSERT_EQUAL(ibv_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(buf);
}

static const struct cunit_test tests[] = {
	{"async: SRQ limit when an SRQ is the first doorbell watched", test_async_srq_first},
	{"completion channel: one event per arm, armed behind the producer",
	 test_one_event_per_arm},
	{"an arm before the last event was taken is stale", test_stale_arm},
	{"solicited-only arms", test_solicited_only},
	{"an unread completion event is dropped at destroy", test_unread_event_dropped},
	{"channel refusals: EAGAIN, short read, bad fds, comp vector", test_channel_refusals},
	{"read into a bad buffer: EFAULT, the event stays", test_bad_read_buffer},
	{"channel fds: dup, close of one copy, dup2 over, F_DUPFD; other context",
	 test_channel_dup},
	{"async: responder access error (read, unread), request error", test_async_qp_access_error},
	{"async: CQ overrun", test_async_cq_overrun},
	{"async: SRQ limit reached, once per arm", test_async_srq_limit},
};

int main(void)
{
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE_INIT("kernel side: completion channels and events", tests, suite_init,
				 suite_clean),
	};

	return CUNIT_RUN_SUITES(suites);
}
