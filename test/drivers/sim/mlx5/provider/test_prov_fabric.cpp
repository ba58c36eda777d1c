/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Several software HCAs as hosts of one simulated fabric: RC QPs connected across
 * hosts by LID, DCIs reaching another host's DCT, each host checking its own MR
 * table (a key valid only on the requester's host fails), sends waiting for a
 * receive on the other host, a host off the fabric and a host removed (peer down:
 * RETRY_EXC, never a hang). Host A runs inline, host B on an engine thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

constexpr size_t kBuf = 4096;
constexpr int kTimeoutMs = 10000;
constexpr uint64_t kKey = 0x5eed;
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC;

const struct mlx5_glue *g;

/** One host: a context, PD, CQ, a buffer and its MR, its LID. */
struct Host {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint16_t lid;
};

int add(const char *name, enum mlx5_sim_exec_mode mode, uint8_t fabric)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.fabric = fabric;
	return mlx5_sim_device_add(name, &attr);
}

void host_open(Host &h, const char *name)
{
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_port_attr port;

	memset(&h, 0, sizeof(h));
	h.ctx = glue_test_open(g, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.ctx);
	h.pd = g->alloc_pd(h.ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.pd);
	ca.cqe = 255;
	h.cq = g->create_cq_ex(h.ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.cq);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&h.buf, 64, kBuf), 0);
	memset(h.buf, 0, kBuf);
	h.mr = g->reg_mr(h.pd, h.buf, kBuf, kAccess);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.mr);
	CU_ASSERT_EQUAL_FATAL(g->query_port(h.ctx, 1, &port), 0);
	h.lid = port.lid;
}

void host_close(Host &h)
{
	CU_ASSERT_EQUAL(g->dereg_mr(h.mr), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(h.cq)), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(h.pd), 0);
	CU_ASSERT_EQUAL(g->close_device(h.ctx), 0);
	free(h.buf);
}

struct ibv_qp *rc_create(Host &h)
{
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(h.cq);
	qa.cap.max_send_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_recv_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = h.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_READ;
	return g->dv_create_qp(h.ctx, &qa, &dv);
}

/** RC through INIT, RTR (to @p dest_qpn at @p dlid) and RTS (@p retry_cnt retries). */
int rc_connect(struct ibv_qp *qp, uint32_t dest_qpn, uint16_t dlid, uint8_t retry_cnt = 7)
{
	struct ibv_qp_attr a = {};
	int ret = glue_test_modify_rc(g, qp, IBV_QPS_INIT, dest_qpn);

	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = dlid;
	ret = g->modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return g->modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

void poll_n(Host &h, int n, std::vector<struct ibv_wc> *out)
{
	uint64_t deadline = glue_test_now_ms() + kTimeoutMs;
	struct ibv_wc wc[8];

	out->clear();
	while ((int)out->size() < n && glue_test_now_ms() < deadline) {
		int r = ibv_poll_cq(ibv_cq_ex_to_cq(h.cq), 8, wc);

		CU_ASSERT_FATAL(r >= 0);
		if (r == 0)
			std::this_thread::yield();
		out->insert(out->end(), wc, wc + r);
	}
	CU_ASSERT_EQUAL_FATAL((int)out->size(), n);
}

void rdma(struct ibv_qp *qp, bool write, uint64_t laddr, uint32_t lkey, uint64_t raddr,
	  uint32_t rkey, uint32_t len)
{
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(qp);

	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	ibv_wr_start(qpx);
	qpx->wr_id = len;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (write)
		ibv_wr_rdma_write(qpx, rkey, raddr);
	else
		ibv_wr_rdma_read(qpx, rkey, raddr);
	ibv_wr_set_sge(qpx, lkey, laddr, len);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
}

void send(struct ibv_qp *qp, uint64_t laddr, uint32_t lkey, uint32_t len)
{
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(qp);

	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, lkey, laddr, len);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
}

void recv(struct ibv_qp *qp, uint64_t addr, uint32_t lkey, uint32_t len)
{
	struct ibv_sge sge = {addr, len, lkey};
	struct ibv_recv_wr wr = {}, *bad;

	wr.wr_id = 8;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ibv_post_recv(qp, &wr, &bad), 0);
}

void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (uint8_t)(seed * 29 + k * 13 + 1);
}

/* ---- tests ---- */

void test_setup(void)
{
	CU_ASSERT_EQUAL(add("sim1", MLX5_SIM_EXEC_INLINE, 1), 0);
	CU_ASSERT_EQUAL(add("sim2", MLX5_SIM_EXEC_THREAD, 1), 0);
	CU_ASSERT_EQUAL(add("sim3", MLX5_SIM_EXEC_INLINE, 0), 0);
	CU_ASSERT_EQUAL(add("sim49151", MLX5_SIM_EXEC_INLINE, 1), -EINVAL); /* LID > 0xbfff */
}

/* RC across hosts: writes and reads land in the other host's memory, checked there */
void test_rc(void)
{
	std::vector<struct ibv_wc> wc;
	Host a, b;

	host_open(a, "sim1");
	host_open(b, "sim2");
	CU_ASSERT_NOT_EQUAL(a.lid, b.lid);
	struct ibv_qp *qa = rc_create(a), *qb = rc_create(b);
	CU_ASSERT_FATAL(qa && qb);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qa, qb->qp_num, b.lid), 0);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qb, qa->qp_num, a.lid), 0);

	for (uint32_t it = 0; it < 20; it++) {
		uint32_t len = 1 + it * 199 % 2048;
		fill(a.buf, len, it);
		rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf + 2048, b.mr->rkey,
		     len);
		poll_n(a, 1, &wc);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(b.buf + 2048, a.buf, len), 0);
	}
	/* read B's bytes into A; B (thread) writes into A (inline) */
	fill(b.buf, 512, 99);
	rdma(qa, false, (uintptr_t)a.buf + 1024, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey, 512);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(a.buf + 1024, b.buf, 512), 0);
	fill(b.buf, 256, 5);
	rdma(qb, true, (uintptr_t)b.buf, b.mr->lkey, (uintptr_t)a.buf + 3000, a.mr->rkey, 256);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(a.buf + 3000, b.buf, 256), 0);

	/* SEND both ways; the thread host's send waits for the inline host's receive */
	fill(a.buf, 100, 3);
	recv(qb, (uintptr_t)b.buf, b.mr->lkey, kBuf);
	send(qa, (uintptr_t)a.buf, a.mr->lkey, 100);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RECV);
	CU_ASSERT_EQUAL(wc[0].src_qp, qa->qp_num);
	CU_ASSERT_EQUAL(wc[0].byte_len, 100u);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, 100), 0);
	fill(b.buf, 64, 4);
	send(qb, (uintptr_t)b.buf, b.mr->lkey, 64);
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	recv(qa, (uintptr_t)a.buf + 512, a.mr->lkey, 1024);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(a.buf + 512, b.buf, 64), 0);

	/* a key valid on A only: B's MR table refuses it, nothing is written */
	uint8_t *only_a = static_cast<uint8_t *>(calloc(1, 4096));
	std::vector<struct ibv_mr *> extra;
	for (int k = 0; k < 4; k++)
		extra.push_back(g->reg_mr(a.pd, only_a, 4096, kAccess));
	uint32_t a_key = extra.back()->rkey;
	memset(b.buf, 0x11, kBuf);
	rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)only_a, a_key, 64);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	for (int k = 0; k < 64; k++)
		CU_ASSERT_EQUAL_FATAL(only_a[k], 0);
	for (struct ibv_mr *m : extra)
		CU_ASSERT_EQUAL(g->dereg_mr(m), 0);
	free(only_a);

	/* B's QP gone (peer down): A's QP was in ERR already; a new one retries in vain */
	CU_ASSERT_EQUAL(g->destroy_qp(qb), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qa), 0);
	qa = rc_create(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qa);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qa, 0x100, b.lid), 0);
	rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(g->destroy_qp(qa), 0);
	host_close(a);
	host_close(b);
}

/* DC across hosts; a LID nobody has, a host off the fabric, a host removed */
void test_dc(void)
{
	std::vector<struct ibv_wc> wc;
	Host a, b, c;

	host_open(a, "sim1");
	host_open(b, "sim2");
	host_open(c, "sim3");
	/* the DCT on B, with an SRQ */
	struct ibv_srq_init_attr sa = {};
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	struct ibv_srq *srq = g->create_srq(b.pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(b.cq);
	qa.srq = srq;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = b.pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = kKey;
	struct ibv_qp *dct = g->dv_create_qp(b.ctx, &qa, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dct);
	uint32_t dct_num = 0; /* known at RTR; kept for after the DCT is gone */
	struct ibv_qp_attr at = {};
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = kAccess;
	CU_ASSERT_EQUAL_FATAL(
		g->modify_qp(dct, &at,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
		0);
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_4096;
	at.min_rnr_timer = 1;
	CU_ASSERT_EQUAL_FATAL(
		g->modify_qp(dct, &at, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER), 0);
	dct_num = dct->qp_num;
	/* a DCI on A, with streams */
	struct ibv_qp_init_attr_ex ia = {};
	struct mlx5dv_qp_init_attr idv = {};
	ia.qp_type = IBV_QPT_DRIVER;
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(a.cq);
	ia.cap.max_send_wr = 32;
	ia.cap.max_send_sge = 1;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.pd = a.pd;
	ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND;
	idv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
	idv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	idv.dc_init_attr.dci_streams.log_num_concurent = 2;
	idv.dc_init_attr.dci_streams.log_num_errored = 3;
	struct ibv_qp *dci = g->dv_create_qp(a.ctx, &ia, &idv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dci);
	at = {};
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	CU_ASSERT_EQUAL_FATAL(
		g->modify_qp(dci, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT), 0);
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_4096;
	CU_ASSERT_EQUAL_FATAL(g->modify_qp(dci, &at, IBV_QP_STATE | IBV_QP_PATH_MTU), 0);
	at.qp_state = IBV_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 1;
	CU_ASSERT_EQUAL_FATAL(g->modify_qp(dci, &at,
					   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						   IBV_QP_MAX_QP_RD_ATOMIC),
			      0);
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dvx = g->dv_qp_ex_from_ibv_qp_ex(qpx);
	CU_ASSERT_FATAL(qpx && dvx);
	struct ibv_ah_attr aa = {};
	aa.port_num = 1;
	const uint16_t lids[4] = {b.lid, 0x999, c.lid, b.lid};
	struct ibv_ah *ah[4];
	for (int k = 0; k < 4; k++) {
		aa.dlid = lids[k];
		ah[k] = g->create_ah(a.pd, &aa);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ah[k]);
	}
	/* B's side as A knows it (out of band): still named after B is gone */
	const uint32_t b_rkey = b.mr->rkey;
	const uint64_t b_addr = (uintptr_t)b.buf + 1024;
	auto post = [&](int which, bool is_send, uint16_t stream, uint32_t len) {
		ibv_wr_start(qpx);
		qpx->wr_id = stream;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		if (is_send)
			ibv_wr_send(qpx);
		else
			ibv_wr_rdma_write(qpx, b_rkey, b_addr);
		mlx5dv_wr_set_dc_addr_stream(dvx, ah[which], dct_num, kKey, stream);
		ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)a.buf, len);
		CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
	};
	/* RDMA write into B's memory */
	fill(a.buf, 1000, 1);
	post(0, false, 1, 1000);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(b.buf + 1024, a.buf, 1000), 0);
	/* SEND into B's SRQ, posted before and after the receive */
	struct ibv_sge sge = {(uintptr_t)b.buf + 3072, 1024, b.mr->lkey};
	struct ibv_recv_wr rw = {}, *bad;
	rw.wr_id = 42;
	rw.sg_list = &sge;
	rw.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ibv_post_srq_recv(srq, &rw, &bad), 0);
	fill(a.buf, 300, 2);
	post(0, true, 2, 300);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].wr_id, 42u);
	CU_ASSERT_EQUAL(wc[0].src_qp, dci->qp_num);
	CU_ASSERT_EQUAL(memcmp(b.buf + 3072, a.buf, 300), 0);
	post(0, true, 2, 16);
	CU_ASSERT_EQUAL_FATAL(ibv_post_srq_recv(srq, &rw, &bad), 0);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	/* nobody at 0x999; sim3 is not on the fabric: dropped, streams 3 and 4 in error */
	post(1, false, 3, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	post(2, false, 4, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	/* B goes away: its DCT destroyed, then the host itself removed */
	CU_ASSERT_EQUAL(g->destroy_qp(dct), 0);
	CU_ASSERT_EQUAL(g->destroy_srq(srq), 0);
	post(3, false, 5, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	host_close(b);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim2"), 0);
	post(3, false, 6, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	struct ibv_qp_attr q;
	struct ibv_qp_init_attr qi;
	CU_ASSERT_EQUAL(g->query_qp(dci, &q, IBV_QP_STATE, &qi), 0);
	CU_ASSERT_EQUAL(q.qp_state, IBV_QPS_RTS); /* 4 errored streams of 8 */
	for (int k = 0; k < 4; k++)
		CU_ASSERT_EQUAL(g->destroy_ah(ah[k]), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(dci), 0);
	host_close(a);
	host_close(c);
}

/** RC QP @p q (on a) back to RTS towards @p dest at @p dlid with @p retry_cnt. */
void reconnect(struct ibv_qp *q, uint32_t dest, uint16_t dlid, uint8_t retry_cnt)
{
	struct ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RESET;
	CU_ASSERT_EQUAL_FATAL(g->modify_qp(q, &a, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL_FATAL(rc_connect(q, dest, dlid, retry_cnt), 0);
}

/** 100 writes a -> b through lossy links; returns the outcome bits (1 = delivered). */
std::vector<bool> lossy_run(Host &a, Host &b, struct ibv_qp *qa, struct ibv_qp *qb,
			    uint8_t retry_cnt, uint32_t loss_ppm, uint64_t seed)
{
	struct mlx5_sim_link link = {0, loss_ppm, seed};
	std::vector<struct ibv_wc> wc;
	std::vector<bool> out;

	const uint32_t dest = qb->qp_num;

	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim6", &link), 0);
	reconnect(qb, qa->qp_num, a.lid, 7); /* the responder may be in ERR from before */
	reconnect(qa, dest, b.lid, retry_cnt);
	for (uint32_t it = 0; it < 100; it++) {
		fill(a.buf, 64, it);
		rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey, 64);
		poll_n(a, 1, &wc);
		out.push_back(wc[0].status == IBV_WC_SUCCESS);
		if (wc[0].status == IBV_WC_SUCCESS) {
			CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, 64), 0);
		} else {
			CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
			reconnect(qa, dest, b.lid, retry_cnt);
		}
	}
	return out;
}

/* the link fault model: down, loss with retries, reproducible per seed */
void test_link(void)
{
	std::vector<struct ibv_wc> wc;
	Host a, b;

	CU_ASSERT_EQUAL(add("sim5", MLX5_SIM_EXEC_INLINE, 1), 0);
	CU_ASSERT_EQUAL(add("sim6", MLX5_SIM_EXEC_INLINE, 1), 0);
	host_open(a, "sim5");
	host_open(b, "sim6");
	struct ibv_qp *qa = rc_create(a), *qb = rc_create(b);
	CU_ASSERT_FATAL(qa && qb);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qa, qb->qp_num, b.lid), 0);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qb, qa->qp_num, a.lid), 0);
	struct mlx5_sim_link link = {1, 0, 0};
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link(nullptr, &link), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim99", &link), -ENODEV);
	link.loss_ppm = 1000001;
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim6", &link), -EINVAL);
	link.loss_ppm = 0;
	/* down: B is unreachable, and B reaches nobody */
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim6", &link), 0);
	rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	rdma(qb, true, (uintptr_t)b.buf, b.mr->lkey, (uintptr_t)a.buf, a.mr->rkey, 8);
	poll_n(b, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	/* every attempt lost: RETRY_EXC whatever retry_cnt */
	std::vector<bool> all_lost = lossy_run(a, b, qa, qb, 7, 1000000, 9);
	for (bool ok : all_lost)
		CU_ASSERT_FALSE(ok);
	/* half lost: 8 attempts almost always get through, 1 attempt about half the time */
	std::vector<bool> r7 = lossy_run(a, b, qa, qb, 7, 500000, 42);
	std::vector<bool> r0 = lossy_run(a, b, qa, qb, 0, 500000, 42);
	int ok7 = 0, ok0 = 0;
	for (int k = 0; k < 100; k++) {
		ok7 += r7[k];
		ok0 += r0[k];
	}
	printf("\n    delivered with 50%% loss: %d/100 with 7 retries, %d/100 without ", ok7, ok0);
	CU_ASSERT(ok7 >= 95);
	CU_ASSERT(ok0 >= 25 && ok0 <= 75);
	/* the same seed, the same losses */
	CU_ASSERT(lossy_run(a, b, qa, qb, 0, 500000, 42) == r0);
	/* link up and lossless again: everything arrives */
	std::vector<bool> clean = lossy_run(a, b, qa, qb, 0, 0, 0);
	for (bool ok : clean)
		CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(g->destroy_qp(qa), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qb), 0);
	host_close(a);
	host_close(b);
}

void test_remove(void)
{
	for (const char *n : {"sim1", "sim3", "sim5", "sim6"})
		CU_ASSERT_EQUAL(mlx5_sim_device_remove(n), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"hosts", test_setup},
		{"RC across hosts", test_rc},
		{"DC across hosts, peer down", test_dc},
		{"link down, loss and retries", test_link},
		{"remove", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("prov_fabric", tests);
}
