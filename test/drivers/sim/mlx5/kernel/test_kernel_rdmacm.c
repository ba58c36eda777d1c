/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rdma_cm device through Debian's own librdmacm (rdma-core 44), run under
 * devtools/sim-rdma on a machine-wide fabric (meson test does): the refusals a
 * program meets (an id of no channel, CONNECT before a route, no listener, a
 * reject with private data), UD ids (SIDR accept / reject, no UD listener,
 * private data sizes) and a peer process that dies while connected,
 * which must end in DISCONNECTED, never a hang. Plain C, linked with
 * -lrdmacm -libverbs only. "peer <port>" as arguments: the listening peer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/close_range.h>
#include <rdma/rdma_cma.h>

#include "cunit_run.h"
#include "kside_cm.h"

static struct rdma_event_channel *g_ch;
static int g_peer_fd = -1;

static uint16_t my_lid(void)
{
	int n = 0;
	struct ibv_context **l = rdma_get_devices(&n);
	struct ibv_port_attr pa;
	uint16_t lid = 0;

	if (l && n > 0 && !ibv_query_port(l[0], 1, &pa))
		lid = pa.lid;
	rdma_free_devices(l);
	return lid;
}

/** An active id with ADDR and ROUTE resolved towards @p dst. */
static struct rdma_cm_id *resolved_id(struct rdma_event_channel *ch, struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 1000) ||
	    next_event(ch, &ev) != RDMA_CM_EVENT_ADDR_RESOLVED)
		goto bad;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 1000) || next_event(ch, &ev) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		goto bad;
	rdma_ack_cm_event(ev);
	return id;
bad:
	rdma_destroy_id(id);
	return NULL;
}

static int suite_init(void)
{
	g_ch = rdma_create_event_channel();
	if (!g_ch) {
		fprintf(stderr, "no rdma_cm: run this under devtools/sim-rdma\n");
		return 1;
	}
	return 0;
}

static int suite_clean(void)
{
	rdma_destroy_event_channel(g_ch);
	return 0;
}

/* a command naming an id the channel does not have: ENOENT, as the kernel's ucma */
static void test_bad_id(void)
{
	struct {
		uint32_t cmd;
		uint16_t in, out;
		uint64_t response;
		uint32_t id, reserved;
	} cmd = {1 /* DESTROY_ID */, 16, 4, 0, 4242, 0};
	uint32_t resp;
	uint8_t shortcmd[4] = {0};

	cmd.response = (uintptr_t)&resp;
	errno = 0;
	CU_ASSERT_EQUAL(write(g_ch->fd, &cmd, sizeof(cmd)), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(write(g_ch->fd, shortcmd, sizeof(shortcmd)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	cmd.cmd = 13; /* GET_OPTION: not served */
	CU_ASSERT_EQUAL(write(g_ch->fd, &cmd, sizeof(cmd)), -1);
	CU_ASSERT_EQUAL(errno, ENOSYS);
}

/* CONNECT before the route is resolved, an address off the fabric, a second bind */
static void test_connect_refused(void)
{
	struct rdma_cm_id *id = NULL;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct sockaddr_in dst = addr_of_lid(my_lid(), 7);
	struct sockaddr_in off = addr_of_lid(1, 1);
	struct sockaddr_in any = addr_of_lid(0, 0);

	any.sin_addr.s_addr = htonl(INADDR_ANY);
	memset(&p, 0, sizeof(p));
	/* librdmacm itself needs the id's device for rdma_connect: resolve the address */
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(g_ch, &id, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_ADDR_RESOLVED);
	rdma_ack_cm_event(ev);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	/* an address that is no port of the fabric; binding twice */
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(g_ch, &id, NULL, RDMA_PS_TCP), 0);
	off.sin_addr.s_addr = inet_addr("192.0.2.1");
	errno = 0;
	CU_ASSERT_NOT_EQUAL(rdma_bind_addr(id, (struct sockaddr *)&off), 0);
	CU_ASSERT_EQUAL(errno, EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(rdma_bind_addr(id, (struct sockaddr *)&any), 0);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(rdma_bind_addr(id, (struct sockaddr *)&any), 0);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
}

/* no listener on the port: REJECTED with the IB CM's "invalid service ID" (8) */
static void test_no_listener(void)
{
	struct sockaddr_in dst = addr_of_lid(my_lid(), 9);
	struct rdma_cm_id *id = resolved_id(g_ch, &dst);
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x123;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(ev->status, 8);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
}

/** Milliseconds of CLOCK_MONOTONIC. */
static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/*
 * perftest -R's re-listen (doc/guides/sim/kernel_side.rst, rdma-cm "Tests"): a
 * listener destroyed and made again on the same port. A REQ in between is
 * answered REJECTED 8 at once (no wait for a CM timeout, nothing queued for a
 * later listener), and the new listener takes the next REQ.
 */
static void test_relisten(void)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *id;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	long t0;
	int type;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lch);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 1), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x789;
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	t0 = now_ms();
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	type = next_event(g_ch, &ev);
	if (type != RDMA_CM_EVENT_REJECTED) /* seen once in ASan: say what came instead */
		printf("\n    got %d (%s) after %ld ms ", type,
		       type < 0 ? "nothing" : rdma_event_str((enum rdma_cm_event_type)type),
		       now_ms() - t0);
	CU_ASSERT_EQUAL_FATAL(type, RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(ev->status, 8);
	CU_ASSERT_TRUE(now_ms() - t0 < 1000);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	/* the same port again: this listener gets the next REQ, and only that one */
	lis = NULL;
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&dst), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 1), 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_EQUAL(ev->listen_id, lis);
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, 0x789);
	CU_ASSERT_EQUAL(rdma_reject(ev->id, NULL, 0), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(ev->id), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(ev->status, 28);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(lch);
}

/* a listener rejects with private data; the requester sees REJECTED 28 and the data */
static void test_reject(void)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *id;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	static const char hello[] = "hello", no[] = "not now";

	CU_ASSERT_PTR_NOT_NULL_FATAL(lch);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	CU_ASSERT_NOT_EQUAL(dst.sin_port, 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x456;
	p.private_data = hello;
	p.private_data_len = sizeof(hello);
	p.responder_resources = 1;
	p.initiator_depth = 1;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_EQUAL(ev->listen_id, lis);
	CU_ASSERT_TRUE(ev->param.conn.private_data_len >= sizeof(hello));
	CU_ASSERT_EQUAL(memcmp(ev->param.conn.private_data, hello, sizeof(hello)), 0);
	CU_ASSERT_EQUAL(rdma_reject(ev->id, no, sizeof(no)), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(ev->id), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(ev->status, 28);
	CU_ASSERT_TRUE(ev->param.conn.private_data_len >= sizeof(no));
	CU_ASSERT_EQUAL(memcmp(ev->param.conn.private_data, no, sizeof(no)), 0);
	rdma_ack_cm_event(ev);
	/* too much private data for a REQ (56 bytes after rdma_cm's header): EINVAL */
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	{
		static char big[57];
		p.private_data = big;
		p.private_data_len = sizeof(big);
		errno = 0;
		CU_ASSERT_NOT_EQUAL(rdma_connect(id, &p), 0);
		CU_ASSERT_EQUAL(errno, EINVAL);
	}
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(lch);
}

/** A UD (RDMA_PS_UDP) id with ADDR and ROUTE resolved towards @p dst. */
static struct rdma_cm_id *resolved_ud_id(struct rdma_event_channel *ch, struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		return NULL;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 1000) ||
	    next_event(ch, &ev) != RDMA_CM_EVENT_ADDR_RESOLVED)
		goto bad;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 1000) || next_event(ch, &ev) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		goto bad;
	rdma_ack_cm_event(ev);
	return id;
bad:
	rdma_destroy_id(id);
	return NULL;
}

/*
 * SIDR: a UD listener's CONNECT_REQUEST carries the request's private data; an
 * accept gives the requester ESTABLISHED with the QPN, RDMA_UDP_QKEY and an
 * address handle to the listener's port; a reject gives UNREACHABLE 2 (SIDR
 * "rejected") with the data. Private data past SIDR's sizes: EINVAL.
 */
static void test_ud_sidr(void)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *id;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p, ap;
	struct rdma_cm_event *ev;
	struct ibv_qp_attr qa;
	int mask = 0;
	static const char hello[] = "hello", ok[] = "welcome", no[] = "not now";
	static char big[181];

	CU_ASSERT_PTR_NOT_NULL_FATAL(lch);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_UDP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	id = resolved_ud_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_EQUAL(id->qp_type, IBV_QPT_UD);
	/* what rdma_create_qp applies to a UD QP: INIT with the port space's qkey */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	CU_ASSERT_EQUAL(rdma_init_qp_attr(id, &qa, &mask), 0);
	CU_ASSERT_TRUE(mask & IBV_QP_QKEY);
	CU_ASSERT_FALSE(mask & IBV_QP_ACCESS_FLAGS);
	CU_ASSERT_EQUAL(qa.qkey, 0x01234567u);
	CU_ASSERT_EQUAL(qa.port_num, 1);
	memset(&p, 0, sizeof(p));
	/* a SIDR REQ holds 180 bytes after rdma_cm's header */
	p.private_data = big;
	p.private_data_len = sizeof(big);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL(errno, EINVAL);
	p.private_data = hello;
	p.private_data_len = sizeof(hello);
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_EQUAL(ev->listen_id, lis);
	CU_ASSERT_EQUAL(ev->id->qp_type, IBV_QPT_UD);
	CU_ASSERT_EQUAL(ev->param.ud.private_data_len, 180);
	CU_ASSERT_EQUAL(memcmp(ev->param.ud.private_data, hello, sizeof(hello)), 0);
	memset(&ap, 0, sizeof(ap));
	ap.qp_num = 0x789;
	/* a SIDR REP holds 136 bytes */
	ap.private_data = big;
	ap.private_data_len = 137;
	errno = 0;
	CU_ASSERT_NOT_EQUAL(rdma_accept(ev->id, &ap), 0);
	CU_ASSERT_EQUAL(errno, EINVAL);
	ap.private_data = ok;
	ap.private_data_len = sizeof(ok);
	CU_ASSERT_EQUAL(rdma_accept(ev->id, &ap), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(ev->id), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_EQUAL(ev->status, 0);
	CU_ASSERT_EQUAL(ev->param.ud.qp_num, 0x789u);
	CU_ASSERT_EQUAL(ev->param.ud.qkey, 0x01234567u);
	CU_ASSERT_EQUAL(ev->param.ud.ah_attr.dlid, my_lid());
	CU_ASSERT_EQUAL(ev->param.ud.ah_attr.port_num, 1);
	CU_ASSERT_EQUAL(ev->param.ud.ah_attr.is_global, 0);
	CU_ASSERT_EQUAL(ev->param.ud.private_data_len, 136);
	CU_ASSERT_EQUAL(memcmp(ev->param.ud.private_data, ok, sizeof(ok)), 0);
	rdma_ack_cm_event(ev);
	/* SIDR leaves no connection: disconnect is no error and gives no event */
	CU_ASSERT_EQUAL(rdma_disconnect(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	/* a reject: UNREACHABLE with SIDR status 2 and the private data */
	id = resolved_ud_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_EQUAL(rdma_reject(ev->id, no, sizeof(no)), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(ev->id), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(ev->status, 2);
	CU_ASSERT_EQUAL(memcmp(ev->param.ud.private_data, no, sizeof(no)), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	/* the request's id destroyed unanswered: rejected as well */
	id = resolved_ud_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_EQUAL(rdma_destroy_id(ev->id), 0);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(ev->status, 2);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(lch);
}

/*
 * A UD id with no UD listener on the port (an RC one there is another port
 * space): UNREACHABLE with SIDR status 1, what a CM answers for a service it
 * does not have. IPoIB's port space is not served: EOPNOTSUPP.
 */
static void test_ud_no_listener(void)
{
	struct rdma_cm_id *lis = NULL, *id = NULL;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	CU_ASSERT_EQUAL_FATAL(rdma_create_id(g_ch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	id = resolved_ud_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(ev->status, 1);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	errno = 0;
	id = NULL;
	CU_ASSERT_NOT_EQUAL(rdma_create_id(g_ch, &id, NULL, RDMA_PS_IPOIB), 0);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
}

/* MIGRATE_ID: the id and its undelivered event move to another channel */
static void test_migrate(void)
{
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct sockaddr_in dst = addr_of_lid(my_lid(), 11);
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;
	struct pollfd p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch2);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(g_ch, &id, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000), 0);
	CU_ASSERT_EQUAL(rdma_migrate_id(id, ch2), 0);
	CU_ASSERT_PTR_EQUAL(id->channel, ch2);
	p.fd = g_ch->fd;
	p.events = POLLIN;
	CU_ASSERT_EQUAL(poll(&p, 1, 0), 0); /* nothing left on the old channel */
	CU_ASSERT_EQUAL_FATAL(next_event(ch2, &ev), RDMA_CM_EVENT_ADDR_RESOLVED);
	CU_ASSERT_PTR_EQUAL(ev->id, id);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch2);
}

/* The peer: listen on the port, accept one connection, report, and die abruptly. */
static int peer_main(uint16_t port, int accept)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL;
	struct sockaddr_in a = addr_of_lid(0, port);
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;
	uint16_t lid;

	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (!ch || rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lis, (struct sockaddr *)&a) || rdma_listen(lis, 1))
		return 2;
	lid = my_lid();
	if (write(1, &lid, sizeof(lid)) != sizeof(lid))
		return 2;
	if (next_event(ch, &ev) != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 3;
	if (!accept)
		_exit(0); /* the request unanswered: the requester must not wait forever */
	if (accept == 2) {
		raise(SIGSTOP); /* alive, connected, never answering */
		_exit(0);
	}
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x789;
	if (rdma_accept(ev->id, &p))
		return 4;
	rdma_ack_cm_event(ev);
	if (next_event(ch, &ev) != RDMA_CM_EVENT_ESTABLISHED)
		return 5;
	_exit(0); /* no DISCONNECT, no DESTROY: as a crash */
}

/*
 * The peer of test_exit_connected: accepts kExitConns connections, says so on
 * stdout, and exits (exit(), static destructors and all) at the first DISCONNECTED,
 * while the other DREQs are still arriving.
 */
enum {
	kExitConns = 16
};

static int peer_exit_main(uint16_t port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL;
	struct sockaddr_in a = addr_of_lid(0, port);
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;
	uint16_t lid;
	int established = 0;

	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (!ch || rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lis, (struct sockaddr *)&a) || rdma_listen(lis, kExitConns))
		return 2;
	lid = my_lid();
	if (write(1, &lid, sizeof(lid)) != sizeof(lid))
		return 2;
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x135;
	for (;;) {
		int type = next_event(ch, &ev);

		if (type == RDMA_CM_EVENT_CONNECT_REQUEST && rdma_accept(ev->id, &p))
			return 4;
		if (type == RDMA_CM_EVENT_ESTABLISHED && ++established == kExitConns &&
		    write(1, &lid, sizeof(lid)) != sizeof(lid))
			return 5;
		if (type == RDMA_CM_EVENT_DISCONNECTED)
			exit(0);
		if (type < 0)
			return 6;
		rdma_ack_cm_event(ev);
	}
}

/* Start the peer process (listening on @p port; accepting 1, not 0, stopping 2): its
 * LID, or 0. */
static uint16_t start_peer(uint16_t port, int accept, pid_t *pid)
{
	int fds[2];
	char arg[16];
	uint16_t lid = 0;

	if (pipe(fds))
		return 0;
	snprintf(arg, sizeof(arg), "%u", port);
	*pid = fork();
	if (*pid == 0) {
		dup2(fds[1], 1);
		execl("/proc/self/exe", "peer",
		      accept == 3   ? "peer-exit"
		      : accept == 2 ? "peer-stop"
		      : accept      ? "peer"
				    : "peer-noaccept",
		      arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (*pid < 0 || read(fds[0], &lid, sizeof(lid)) != (ssize_t)sizeof(lid))
		lid = 0;
	if (accept == 3)
		g_peer_fd = fds[0]; /* "all established" comes later */
	else
		close(fds[0]);
	return lid;
}

/* the peer dies with our REQ unanswered: UNREACHABLE (-ETIMEDOUT), as a CM timeout */
static void test_peer_dies_connecting(void)
{
	uint16_t port = (uint16_t)(20000 + (getpid() + 1) % 20000);
	pid_t pid;
	int st = -1;
	uint16_t lid = start_peer(port, 0, &pid);
	struct sockaddr_in dst = addr_of_lid(lid, port);
	struct rdma_cm_id *id;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	CU_ASSERT_NOT_EQUAL_FATAL(lid, 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0xdef;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(ev->status, -ETIMEDOUT);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
}

/*
 * The peer lives but stops with our REQ unanswered (SIGSTOP): the CM's response
 * timeout gives UNREACHABLE (-ETIMEDOUT). Without one the requester waited forever.
 */
static void test_peer_stops_connecting(void)
{
	uint16_t port = (uint16_t)(20000 + (getpid() + 2) % 20000);
	pid_t pid;
	int type, status = 0;
	uint16_t lid = start_peer(port, 2, &pid);
	struct sockaddr_in dst = addr_of_lid(lid, port);
	struct rdma_cm_id *id;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev = NULL;

	CU_ASSERT_NOT_EQUAL_FATAL(lid, 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0xabc;
	CU_ASSERT_EQUAL(rdma_connect(id, &p), 0);
	type = next_event(g_ch, &ev);
	if (ev) {
		status = ev->status;
		rdma_ack_cm_event(ev);
	}
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
	CU_ASSERT_EQUAL(type, RDMA_CM_EVENT_UNREACHABLE);
	CU_ASSERT_EQUAL(status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
}

static void test_peer_dies(void)
{
	uint16_t port = (uint16_t)(20000 + getpid() % 20000);
	pid_t pid;
	int st = -1;
	uint16_t lid = start_peer(port, 1, &pid);
	struct rdma_cm_id *id;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct sockaddr_in dst = addr_of_lid(lid, port);

	CU_ASSERT_NOT_EQUAL_FATAL(lid, 0);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0xabc;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	/* no QP: librdmacm hands CONNECT_RESPONSE to us, and rdma_accept sends the RTU */
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_CONNECT_RESPONSE);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_accept(id, &p), 0); /* librdmacm needs the parameters */
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_disconnect(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
}

/*
 * Both ends disconnect at once: the DREQs cross, each answered with a DREP that
 * reaches an id already disconnected. That is the CM's normal case: one
 * DISCONNECTED each, and nothing logged as a broken peer.
 */
static void test_disconnect_crossing(void)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *id, *srv;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	char log[4096];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	int rt = 0;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lch);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x321;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	rdma_ack_cm_event(ev);
	p.qp_num = 0x654;
	CU_ASSERT_EQUAL_FATAL(rdma_accept(srv, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_CONNECT_RESPONSE);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(rdma_accept(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_ESTABLISHED);
	rdma_ack_cm_event(ev);

	/* stderr into a file while the DREQs cross */
	fflush(stderr);
	CU_ASSERT_EQUAL_FATAL(dup2(fileno(tmp), 2), 2);
	/*
	 * Both DREQs sent before the CM thread reads either: every thread of the process
	 * on one CPU, this one above the others until it waits for the first event (a
	 * real-time priority; where it is not permitted the DREQs may not cross).
	 */
	{
		cpu_set_t one;
		struct sched_param sp = {.sched_priority = 1};
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				sched_setaffinity(atoi(e->d_name), sizeof(one), &one);
		if (d)
			closedir(d);
		rt = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	}
	CU_ASSERT_EQUAL(rdma_disconnect(id), 0);
	CU_ASSERT_EQUAL(rdma_disconnect(srv), 0);
	if (rt) {
		struct sched_param sp = {.sched_priority = 0};

		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	}
	CU_ASSERT_EQUAL(next_event(g_ch, &ev), RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(next_event(lch, &ev), RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	usleep(100000); /* the DREPs arrive */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(log, 1, sizeof(log) - 1, tmp);
	log[n] = 0;
	fclose(tmp);
	CU_ASSERT_PTR_NULL(strstr(log, "dropped"));
	if (n)
		fprintf(stderr, "%s", log);
	CU_ASSERT_EQUAL(rdma_destroy_id(srv), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(lch);
}

/*
 * A process that exits (exit(), not _exit()) with connections open while DREQs
 * arrive: its CM thread runs on through the static destructors, and must find
 * its state still there (it did not: the program crashed at exit).
 */
static void test_exit_connected(void)
{
	uint16_t port = (uint16_t)(20000 + (getpid() + 3) % 20000);
	struct rdma_cm_id *ids[kExitConns];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	pid_t pid;
	int st = -1;
	uint16_t lid = start_peer(port, 3, &pid), done;
	struct sockaddr_in dst = addr_of_lid(lid, port);

	CU_ASSERT_NOT_EQUAL_FATAL(lid, 0);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x246;
	for (int i = 0; i < kExitConns; i++) {
		ids[i] = resolved_id(g_ch, &dst);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ids[i]);
		CU_ASSERT_EQUAL_FATAL(rdma_connect(ids[i], &p), 0);
		CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_CONNECT_RESPONSE);
		rdma_ack_cm_event(ev);
		CU_ASSERT_EQUAL_FATAL(rdma_accept(ids[i], &p), 0);
	}
	CU_ASSERT_EQUAL_FATAL(read(g_peer_fd, &done, sizeof(done)), (ssize_t)sizeof(done));
	close(g_peer_fd);
	g_peer_fd = -1;
	for (int i = 0; i < kExitConns; i++)
		CU_ASSERT_EQUAL(rdma_disconnect(ids[i]), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFSIGNALED(st))
		fprintf(stderr, "the peer died of signal %d at exit\n", WTERMSIG(st));
	/* one DISCONNECTED per id, from a DREP or the peer's end: drained */
	for (int i = 0; i < kExitConns && next_event(g_ch, &ev) == RDMA_CM_EVENT_DISCONNECTED; i++)
		rdma_ack_cm_event(ev);
	for (int i = 0; i < kExitConns; i++)
		CU_ASSERT_EQUAL(rdma_destroy_id(ids[i]), 0);
}

/*
 * A CM message as the fabric's CM carries it (drivers/sim/mlx5/kernel/ucma.cpp,
 * struct Msg): what a peer of the same uid may send on its socket.
 */
struct raw_cm_msg {
	uint32_t magic;
	uint8_t type; /* 1 REQ, 2 REP, 4 REJ, 7 SIDR REQ, 8 SIDR REP */
	uint8_t pd_len;
	uint8_t resp_res, init_depth, retry, rnr_retry, flow_control, srq;
	uint16_t slid, sport;
	uint32_t sip;
	uint64_t sguid;
	uint32_t qpn, psn, reason;
	uint8_t pd[256];
	uint32_t qkey;
};
_Static_assert(sizeof(struct raw_cm_msg) == 304, "the CM message");

/* The CM socket of LID @p lid, port @p port (UD: @p ud) of this test's fabric. */
static socklen_t cm_sockaddr(uint16_t lid, uint16_t port, int ud, struct sockaddr_un *a)
{
	const char *args = getenv("MLX5_SIM_RDMA_DEVARGS");
	const char *f = args ? strstr(args, "sim_fabric=") : NULL;
	int n;

	if (!f)
		return 0;
	f += strlen("sim_fabric=");
	n = (int)strcspn(f, ",");
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "mlx5-sim-cm/%.*s/%u/%u%s", n, f,
		     (unsigned)lid, (unsigned)port, ud ? "/ud" : "");
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* A raw UD listener at LID @p lid, port @p port of this test's fabric: its fd, or -1. */
static int raw_ud_listener(uint16_t lid, uint16_t port)
{
	struct sockaddr_un a;
	socklen_t len = cm_sockaddr(lid, port, 1, &a);
	int fd;

	if (!len)
		return -1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 4)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A peer that connects to a listener and never sends its REQ: the listener's
 * side closes the connection at the CM timeout (2 s here), so connections that
 * ask for nothing cannot pile up in the listening process.
 */
static void test_silent_connection_closed(void)
{
	struct rdma_cm_id *lis = NULL;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in *bound;
	struct sockaddr_un a;
	struct pollfd p;
	socklen_t len;
	char b;
	int fd;

	CU_ASSERT_EQUAL_FATAL(rdma_create_id(g_ch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	bound = (struct sockaddr_in *)rdma_get_local_addr(lis);
	len = cm_sockaddr(my_lid(), ntohs(bound->sin_port), 0, &a);
	CU_ASSERT_FATAL(len != 0);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&a, len), 0);
	p.fd = fd;
	p.events = POLLIN;
	CU_ASSERT_EQUAL(poll(&p, 1, 5000), 1);
	CU_ASSERT_EQUAL(recv(fd, &b, 1, MSG_DONTWAIT), 0); /* closed by the listener's side */
	close(fd);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
}

/*
 * A peer answering a UD id's SIDR REQ with a connection's REP or REJ: not an
 * answer of SIDR. The id never takes it for one (no CONNECT_RESPONSE whose
 * parameters, read as a UD id's, would carry a Q_Key and address handle of the
 * peer's choosing, no REJECTED); the exchange ends UNREACHABLE.
 */
static void test_ud_peer_answers_rc(void)
{
	uint16_t lid = my_lid(), port = (uint16_t)(20000 + (getpid() + 3) % 20000);
	struct sockaddr_in dst = addr_of_lid(lid, port);
	static const uint8_t types[] = {2 /* REP */, 4 /* REJ */};
	int lfd = raw_ud_listener(lid, port);

	CU_ASSERT_FATAL(lfd >= 0);
	for (size_t i = 0; i < sizeof(types); i++) {
		struct rdma_cm_id *id = resolved_ud_id(g_ch, &dst);
		struct rdma_conn_param p;
		struct rdma_cm_event *ev = NULL;
		struct raw_cm_msg m;
		struct pollfd pl = {lfd, POLLIN, 0};
		int c, type;

		CU_ASSERT_PTR_NOT_NULL_FATAL(id);
		memset(&p, 0, sizeof(p));
		CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
		CU_ASSERT_EQUAL_FATAL(poll(&pl, 1, 5000), 1);
		c = accept(lfd, NULL, NULL);
		CU_ASSERT_FATAL(c >= 0);
		CU_ASSERT_EQUAL(recv(c, &m, sizeof(m), 0), (ssize_t)sizeof(m));
		CU_ASSERT_EQUAL(m.type, 7);       /* the SIDR REQ */
		memset(m.pd, 0x5a, sizeof(m.pd)); /* what a UD event would read as its AH */
		m.type = types[i];
		m.pd_len = 64;
		m.qpn = 0x4242;
		m.reason = 28;
		CU_ASSERT_EQUAL(send(c, &m, sizeof(m), MSG_NOSIGNAL), (ssize_t)sizeof(m));
		type = next_event(g_ch, &ev);
		CU_ASSERT_EQUAL(type, RDMA_CM_EVENT_UNREACHABLE);
		if (ev)
			rdma_ack_cm_event(ev);
		close(c);
		CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	}
	close(lfd);
}

/*
 * A fork() child that closes its fds (a daemon's or subprocess's clean-up before
 * exec) closes its copies only: the parent's connection and listener stay, as the
 * kernel's rdma_cm file stays open in the parent. The child sent the connections'
 * DREQs before (its copy of the channel was released as a last close).
 */
static void test_fork_child_closes(void)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_cm_id *lis = NULL, *id, *srv;
	struct sockaddr_in la = addr_of_lid(my_lid(), 0);
	struct sockaddr_in dst;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct pollfd pf[2];
	pid_t pid;
	int st = -1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lch);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(lch, &lis, NULL, RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&la), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);
	dst = *(struct sockaddr_in *)rdma_get_local_addr(lis);
	id = resolved_id(g_ch, &dst);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x321;
	CU_ASSERT_EQUAL_FATAL(rdma_connect(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	rdma_ack_cm_event(ev);
	p.qp_num = 0x654;
	CU_ASSERT_EQUAL_FATAL(rdma_accept(srv, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(g_ch, &ev), RDMA_CM_EVENT_CONNECT_RESPONSE);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(rdma_accept(id, &p), 0);
	CU_ASSERT_EQUAL_FATAL(next_event(lch, &ev), RDMA_CM_EVENT_ESTABLISHED);
	rdma_ack_cm_event(ev);
	pid = fork();
	if (pid == 0) {
		close_range(3, ~0u, 0);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* nothing happens to the parent's connection */
	pf[0].fd = g_ch->fd;
	pf[1].fd = lch->fd;
	pf[0].events = pf[1].events = POLLIN;
	CU_ASSERT_EQUAL(poll(pf, 2, 500), 0);
	/* and it still ends as a connection does */
	CU_ASSERT_EQUAL(rdma_disconnect(id), 0);
	CU_ASSERT_EQUAL(next_event(g_ch, &ev), RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(next_event(lch, &ev), RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(rdma_destroy_id(srv), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(lch);
}

static const struct cunit_test tests[] = {
	{"a command on an id of no channel: ENOENT; short: EINVAL", test_bad_id},
	{"CONNECT without a route, bind off the fabric, bind twice", test_connect_refused},
	{"no listener: REJECTED 8", test_no_listener},
	{"reject with private data: REJECTED 28; REQ data too long", test_reject},
	{"listener made again on its port: REJECTED 8 at once between", test_relisten},
	{"UD: SIDR accept / reject, private data sizes", test_ud_sidr},
	{"UD: no UD listener: UNREACHABLE 1", test_ud_no_listener},
	{"UD: a peer's REP or REJ is no SIDR answer: UNREACHABLE", test_ud_peer_answers_rc},
	{"a connection that sends no REQ is closed at the CM timeout",
	 test_silent_connection_closed},
	{"MIGRATE_ID moves the id and its event", test_migrate},
	{"a fork() child's close leaves the parent's connection", test_fork_child_closes},
	{"a connected peer process dies: DISCONNECTED", test_peer_dies},
	{"both ends disconnect at once: DISCONNECTED each, nothing dropped",
	 test_disconnect_crossing},
	{"a peer exits with connections open while DREQs arrive", test_exit_connected},
	{"the peer dies before its REP: UNREACHABLE", test_peer_dies_connecting},
	{"the peer stops before its REP: UNREACHABLE at the CM timeout",
	 test_peer_stops_connecting},
};

int main(int argc, char **argv)
{
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE_INIT("rdma_cm via librdmacm", tests, suite_init, suite_clean),
	};

	if (argc == 3 && !strcmp(argv[1], "peer"))
		return peer_main((uint16_t)atoi(argv[2]), 1);
	if (argc == 3 && !strcmp(argv[1], "peer-noaccept"))
		return peer_main((uint16_t)atoi(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "peer-exit"))
		return peer_exit_main((uint16_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "peer-stop"))
		return peer_main((uint16_t)atoi(argv[2]), 2);
	/* the CM response timeout, short enough for next_event's 5 s */
	setenv("MLX5_SIM_RDMA_CM_TIMEOUT_MS", "2000", 0);
	return CUNIT_RUN_SUITES(suites);
}
