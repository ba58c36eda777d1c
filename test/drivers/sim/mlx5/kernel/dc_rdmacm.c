/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DC peers exchanged over rdma-cm, between two processes, with Debian's librdmacm,
 * libibverbs and libmlx5 only (issue 29 item 3; run by run_dc_rdmacm.sh under
 * devtools/sim-rdma). The DCT side listens; for a connection request it makes a
 * DCT on an SRQ, allocates a reserved QPN (mlx5dv_reserved_qpn_alloc) as the
 * connection's QPN, and accepts with private data naming its DCT: number, DC key
 * and LID (struct dc_target). The DCI side connects with its DCI's number, reads
 * that private data, confirms (rdma_establish) and sends with
 * mlx5dv_wr_set_dc_addr_stream; the DCT side checks every message. On teardown the
 * reserved QPN is freed and a second free must be refused.
 *
 *   dc_rdmacm -s -p PORT [-m ok|short|badkey] [-n MSGS]
 *   dc_rdmacm -c ADDR -p PORT [-m ok|short|badkey] [-n MSGS]
 * Modes: ok (messages verified), short (the DCT side publishes too few bytes, the
 * DCI side rejects the connection), badkey (the DCI side sends with a wrong DC key:
 * the DCT drops every message, the DCI's completion says the retries ran out).
 * Exit status 0 when the mode's outcome was seen, else 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "kside_cm.h"

#define DC_MAGIC 0x44435831u /* "DCX1" */
#define MSG_SIZE 256
#define DCT_KEY 0x5eed0fdc0a11ce55ull

/** What the DCT side publishes in ACCEPT's private data, big-endian on the wire. */
struct dc_target {
	uint32_t magic;
	uint32_t dctn;   /**< the DCT's number: the DCI's remote_dctn */
	uint64_t dc_key; /**< the DCT's access key */
	uint16_t lid;    /**< the DCT's port */
	uint16_t rsvd;
	uint32_t rqpn; /**< the reserved QPN this connection stands for */
} __attribute__((packed));

enum mode {
	MODE_OK,
	MODE_SHORT,
	MODE_BADKEY
};

struct opts {
	int server;
	const char *addr;
	uint16_t port;
	enum mode mode;
	int msgs;
};

/** Expect event @p want; the event is acked unless @p keep (then the caller acks). */
static int expect_event(struct rdma_event_channel *ch, int want, struct rdma_cm_event **keep,
			const char *who)
{
	struct rdma_cm_event *ev = NULL;
	int t = next_event_within(ch, 10000, &ev);

	if (t != want) {
		fprintf(stderr, "%s: wanted %s, got %s (status %d)\n", who,
			rdma_event_str((enum rdma_cm_event_type)want),
			t < 0 ? "nothing in 10 s" : rdma_event_str((enum rdma_cm_event_type)t),
			ev ? ev->status : 0);
		if (ev)
			rdma_ack_cm_event(ev);
		return -1;
	}
	if (keep)
		*keep = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/** Poll @p cq for one completion within @p ms: 1, 0 (none) or -1. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n < 0 ? -1 : 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			return 0;
		usleep(100);
	}
}

static void fill(uint8_t *p, int seq)
{
	for (int j = 0; j < MSG_SIZE; j++)
		p[j] = (uint8_t)(seq * 31 + j * 7 + 1);
}

/* ---------------------------------------------------------------- the DCT side */

static int dct_side(const struct opts *o)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lid_id = NULL, *child;
	struct rdma_cm_event *ev;
	struct sockaddr_in sin;
	int rc = 1;

	if (!ch || rdma_create_id(ch, &lid_id, NULL, RDMA_PS_TCP)) {
		perror("dct: rdma_create_id");
		return 1;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(o->port);
	if (rdma_bind_addr(lid_id, (struct sockaddr *)&sin) || rdma_listen(lid_id, 1)) {
		perror("dct: bind/listen");
		return 1;
	}
	printf("dct: listening on port %u\n", o->port);
	fflush(stdout);
	if (expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev, "dct"))
		return 1;
	child = ev->id;
	printf("dct: connection request from the DCI 0x%x\n", ev->param.conn.qp_num);
	rdma_ack_cm_event(ev);

	struct ibv_context *ctx = child->verbs;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, o->msgs + 1, NULL, NULL, 0);
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = (uint32_t)o->msgs + 1, .max_sge = 1}};
	struct ibv_srq *srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	uint8_t *buf = calloc((size_t)o->msgs, MSG_SIZE);
	struct ibv_mr *mr = pd && buf ? ibv_reg_mr(pd, buf, (size_t)o->msgs * MSG_SIZE,
						   IBV_ACCESS_LOCAL_WRITE)
				      : NULL;
	if (!cq || !srq || !mr) {
		perror("dct: resources");
		return 1;
	}
	for (int i = 0; i < o->msgs; i++) {
		struct ibv_sge sge = {(uintptr_t)(buf + i * MSG_SIZE), MSG_SIZE, mr->lkey};
		struct ibv_recv_wr wr = {.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1}, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad)) {
			perror("dct: post_srq_recv");
			return 1;
		}
	}

	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_DRIVER,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct mlx5dv_qp_init_attr dv = {.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC};

	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = DCT_KEY;
	struct ibv_qp *dct = mlx5dv_create_qp(ctx, &qa, &dv);
	if (!dct) {
		perror("dct: mlx5dv_create_qp(DCT)");
		return 1;
	}
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
				.pkey_index = 0,
				.port_num = 1,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						   IBV_ACCESS_REMOTE_READ};
	if (ibv_modify_qp(dct, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		perror("dct: DCT to INIT");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(dct, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER)) {
		perror("dct: DCT to RTR");
		return 1;
	}

	uint32_t rqpn = 0;
	struct ibv_port_attr pa;
	int err = mlx5dv_reserved_qpn_alloc(ctx, &rqpn);
	if (err || ibv_query_port(ctx, 1, &pa)) {
		fprintf(stderr, "dct: mlx5dv_reserved_qpn_alloc: %s\n",
			strerror(err ? err : errno));
		return 1;
	}
	struct dc_target t = {
		htonl(DC_MAGIC), htonl(dct->qp_num), htobe64(DCT_KEY), htons(pa.lid), 0,
		htonl(rqpn)};
	struct rdma_conn_param cp = {
		.private_data = &t, .qp_num = rqpn, .private_data_len = sizeof(t)};
	if (o->mode == MODE_SHORT)
		cp.private_data_len = offsetof(struct dc_target, dc_key); /* no key, no LID */
	if (rdma_accept(child, &cp)) {
		perror("dct: rdma_accept");
		return 1;
	}
	printf("dct: DCT 0x%x key 0x%" PRIx64 " LID %u published as reserved QPN 0x%x "
	       "(%u bytes of private data)\n",
	       dct->qp_num, (uint64_t)DCT_KEY, pa.lid, rqpn, cp.private_data_len);
	fflush(stdout);

	/* the DCI side confirms (ESTABLISHED) then disconnects, or rejects */
	int t1 = next_event_within(ch, 10000, &ev);
	int got = 0, bad_data = 0;
	if (t1 == RDMA_CM_EVENT_REJECTED) {
		printf("dct: the DCI side rejected the connection (status %d)\n", ev->status);
		rdma_ack_cm_event(ev);
		rc = o->mode == MODE_SHORT ? 0 : 1;
	} else if (t1 == RDMA_CM_EVENT_ESTABLISHED) {
		rdma_ack_cm_event(ev);
		printf("dct: established\n");
		if (expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, NULL, "dct") == 0)
			rdma_disconnect(child);
		/* every message the DCI saw acknowledged is in the CQ by now */
		struct ibv_wc wc;
		while (poll_one(cq, &wc, got < o->msgs && o->mode == MODE_OK ? 2000 : 200) == 1) {
			if (wc.status != IBV_WC_SUCCESS || wc.byte_len != MSG_SIZE) {
				fprintf(stderr, "dct: receive %" PRIu64 ": %s, %u bytes\n",
					wc.wr_id, ibv_wc_status_str(wc.status), wc.byte_len);
				bad_data++;
				continue;
			}
			uint8_t want[MSG_SIZE];
			fill(want, got);
			if (memcmp(buf + wc.wr_id * MSG_SIZE, want, MSG_SIZE)) {
				fprintf(stderr, "dct: message %d differs\n", got);
				bad_data++;
			}
			got++;
		}
		printf("dct: %d of %d messages received and verified, %d bad\n", got, o->msgs,
		       bad_data);
		if (o->mode == MODE_OK)
			rc = got == o->msgs && !bad_data ? 0 : 1;
		else if (o->mode == MODE_BADKEY)
			rc = got == 0 && !bad_data ? 0 : 1;
	} else {
		fprintf(stderr, "dct: after ACCEPT: %s\n",
			t1 < 0 ? "nothing in 10 s" : rdma_event_str((enum rdma_cm_event_type)t1));
		if (t1 >= 0)
			rdma_ack_cm_event(ev);
	}

	/* teardown: the reserved QPN goes back; freeing it again must be refused */
	ibv_destroy_qp(dct);
	err = mlx5dv_reserved_qpn_dealloc(ctx, rqpn);
	int again = mlx5dv_reserved_qpn_dealloc(ctx, rqpn);
	printf("dct: reserved QPN 0x%x freed (%s); freeing it again: %s\n", rqpn,
	       err ? strerror(err) : "ok", again ? strerror(again) : "accepted (wrong)");
	if (err || !again)
		rc = 1;
	ibv_destroy_srq(srq);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	free(buf);
	rdma_destroy_id(child);
	rdma_destroy_id(lid_id);
	rdma_destroy_event_channel(ch);
	return rc;
}

/* ---------------------------------------------------------------- the DCI side */

static int dci_side(const struct opts *o)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;
	struct sockaddr_in dst;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(o->port);
	if (inet_pton(AF_INET, o->addr, &dst.sin_addr) != 1) {
		fprintf(stderr, "dci: %s: not an IPv4 address\n", o->addr);
		return 1;
	}
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, "dci") ||
	    rdma_resolve_route(id, 2000) ||
	    expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, "dci")) {
		fprintf(stderr, "dci: resolving %s:%u failed\n", o->addr, o->port);
		return 1;
	}
	struct ibv_context *ctx = id->verbs;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, o->msgs + 1, NULL, NULL, 0);
	uint8_t *buf = malloc((size_t)o->msgs * MSG_SIZE);
	struct ibv_mr *mr = pd && buf ? ibv_reg_mr(pd, buf, (size_t)o->msgs * MSG_SIZE,
						   IBV_ACCESS_LOCAL_WRITE)
				      : NULL;
	if (!cq || !mr) {
		perror("dci: resources");
		return 1;
	}
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_DRIVER,
		.send_cq = cq,
		.recv_cq = cq,
		.pd = pd,
		.cap = {.max_send_wr = (uint32_t)o->msgs, .max_send_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS,
	};
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	dv.dc_init_attr.dci_streams.log_num_concurent = 1;
	dv.dc_init_attr.dci_streams.log_num_errored = 1;
	struct ibv_qp *dci = mlx5dv_create_qp(ctx, &qa, &dv);
	if (!dci) {
		perror("dci: mlx5dv_create_qp(DCI)");
		return 1;
	}
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1};
	int ret = ibv_modify_qp(dci, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	ret = ret ? ret : ibv_modify_qp(dci, &a, IBV_QP_STATE | IBV_QP_PATH_MTU);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 8;
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 1;
	ret = ret ? ret
		  : ibv_modify_qp(dci, &a,
				  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret) {
		fprintf(stderr, "dci: DCI to RTS: %s\n", strerror(ret));
		return 1;
	}

	/* no QP on the id: the connection's QPN is the DCI's, the answer comes as
	 * CONNECT_RESPONSE and this side confirms with rdma_establish */
	struct rdma_conn_param cp = {.qp_num = dci->qp_num, .retry_count = 7, .rnr_retry_count = 7};
	if (rdma_connect(id, &cp) || expect_event(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, &ev, "dci")) {
		fprintf(stderr, "dci: connect failed\n");
		return 1;
	}
	struct dc_target t;
	uint8_t len = ev->param.conn.private_data_len;
	int short_pd = len < sizeof(t) || !ev->param.conn.private_data;
	if (!short_pd)
		memcpy(&t, ev->param.conn.private_data, sizeof(t));
	rdma_ack_cm_event(ev);
	if (short_pd || ntohl(t.magic) != DC_MAGIC) {
		fprintf(stderr,
			"dci: refused the peer's DC target: %u bytes of private data "
			"(need %zu, magic 0x%08x)\n",
			len, sizeof(t), short_pd ? 0 : ntohl(t.magic));
		rdma_reject(id, NULL, 0);
		printf("dci: rejected the connection: short private data\n");
		ibv_destroy_qp(dci);
		ibv_dereg_mr(mr);
		ibv_destroy_cq(cq);
		ibv_dealloc_pd(pd);
		free(buf);
		rdma_destroy_id(id);
		rdma_destroy_event_channel(ch);
		return o->mode == MODE_SHORT ? 0 : 1;
	}
	uint32_t dctn = ntohl(t.dctn);
	uint64_t key = be64toh(t.dc_key);
	uint16_t lid = ntohs(t.lid);
	if (rdma_establish(id)) {
		perror("dci: rdma_establish");
		return 1;
	}
	printf("dci: peer DCT 0x%x key 0x%" PRIx64 " LID %u, reserved QPN 0x%x (CM)\n", dctn, key,
	       lid, ntohl(t.rqpn));
	if (o->mode == MODE_BADKEY)
		key ^= 1;

	struct ibv_ah_attr aa = {.dlid = lid, .port_num = 1};
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *mqpx = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	if (!ah || !qpx || !mqpx) {
		perror("dci: AH / QP ex");
		return 1;
	}
	int ok = 0, rc = 1;
	for (int i = 0; i < o->msgs; i++) {
		struct ibv_wc wc;

		fill(buf + i * MSG_SIZE, i);
		ibv_wr_start(qpx);
		qpx->wr_id = (uint64_t)i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		mlx5dv_wr_set_dc_addr_stream(mqpx, ah, dctn, key, (uint16_t)(i & 1));
		ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)(buf + i * MSG_SIZE), MSG_SIZE);
		if (ibv_wr_complete(qpx)) {
			perror("dci: ibv_wr_complete");
			break;
		}
		if (poll_one(cq, &wc, 10000) != 1) {
			fprintf(stderr, "dci: no completion for message %d\n", i);
			break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("dci: message %d to DCT 0x%x with key 0x%" PRIx64 ": %s\n", i, dctn,
			       key, ibv_wc_status_str(wc.status));
			if (o->mode == MODE_BADKEY && wc.status == IBV_WC_RETRY_EXC_ERR)
				rc = 0;
			break;
		}
		ok++;
	}
	if (o->mode == MODE_OK) {
		printf("dci: %d of %d messages of %d bytes sent through stream 0/1 to DCT 0x%x\n",
		       ok, o->msgs, MSG_SIZE, dctn);
		rc = ok == o->msgs ? 0 : 1;
	}
	rdma_disconnect(id);
	if (expect_event(ch, RDMA_CM_EVENT_DISCONNECTED, NULL, "dci"))
		rc = 1;
	ibv_destroy_ah(ah);
	ibv_destroy_qp(dci);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	free(buf);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = {.msgs = 16};
	int c;

	while ((c = getopt(argc, argv, "sc:p:m:n:")) != -1) {
		switch (c) {
		case 's':
			o.server = 1;
			break;
		case 'c':
			o.addr = optarg;
			break;
		case 'p':
			o.port = (uint16_t)atoi(optarg);
			break;
		case 'n':
			o.msgs = atoi(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "ok"))
				o.mode = MODE_OK;
			else if (!strcmp(optarg, "short"))
				o.mode = MODE_SHORT;
			else if (!strcmp(optarg, "badkey"))
				o.mode = MODE_BADKEY;
			else
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (o.server == !!o.addr || !o.port || o.msgs < 1 || o.msgs > 1024)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.server ? dct_side(&o) : dci_side(&o);
usage:
	fprintf(stderr, "usage: %s -s|-c ADDR -p PORT [-m ok|short|badkey] [-n 1..1024]\n",
		argv[0]);
	return 2;
}
