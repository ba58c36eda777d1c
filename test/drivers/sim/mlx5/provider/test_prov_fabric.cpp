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
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"
#include "spawn_self.h"

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
	qa.cap.max_inline_data = 2 * 16 - 4; /* a one-entry repeat-block UMR */
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = h.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
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

/** A DCT on @p h (key kKey, in RTR) receiving from a new SRQ (*srq). */
struct ibv_qp *dct_create(Host &h, struct ibv_srq **srq)
{
	struct ibv_srq_init_attr sa = {};
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	*srq = g->create_srq(h.pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*srq);
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(h.cq);
	qa.srq = *srq;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = h.pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = kKey;
	struct ibv_qp *dct = g->dv_create_qp(h.ctx, &qa, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dct);
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
	at.ah_attr.port_num = 1; /* the kernel's mask for a DCT's RTR has the AV */
	CU_ASSERT_EQUAL_FATAL(
		g->modify_qp(dct, &at,
			     IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER | IBV_QP_AV),
		0);
	return dct;
}

/** A DCI on @p h with 4 streams (8 may fail), in RTS with 7 retries. */
struct ibv_qp *dci_create(Host &h)
{
	struct ibv_qp_init_attr_ex ia = {};
	struct mlx5dv_qp_init_attr idv = {};
	ia.qp_type = IBV_QPT_DRIVER;
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(h.cq);
	ia.cap.max_send_wr = 32;
	ia.cap.max_send_sge = 1;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.pd = h.pd;
	ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |
			    IBV_QP_EX_WITH_SEND;
	idv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC | MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
	idv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	idv.dc_init_attr.dci_streams.log_num_concurent = 2;
	idv.dc_init_attr.dci_streams.log_num_errored = 3;
	struct ibv_qp *dci = g->dv_create_qp(h.ctx, &ia, &idv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dci);
	struct ibv_qp_attr at = {};
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
	return dci;
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
	struct ibv_srq *srq;
	struct ibv_qp *dct = dct_create(b, &srq);
	uint32_t dct_num = dct->qp_num; /* kept for after the DCT is gone */
	/* a DCI on A, with streams */
	struct ibv_qp *dci = dci_create(a);
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

/** Two new fabric hosts @p na, @p nb in @p mode, an RC QP each, connected. */
void pair_open(Host &a, Host &b, const char *na, const char *nb, enum mlx5_sim_exec_mode mode,
	       struct ibv_qp **qa, struct ibv_qp **qb)
{
	CU_ASSERT_EQUAL_FATAL(add(na, mode, 1), 0);
	CU_ASSERT_EQUAL_FATAL(add(nb, mode, 1), 0);
	host_open(a, na);
	host_open(b, nb);
	*qa = rc_create(a);
	*qb = rc_create(b);
	CU_ASSERT_FATAL(*qa && *qb);
	CU_ASSERT_EQUAL_FATAL(rc_connect(*qa, (*qb)->qp_num, b.lid), 0);
	CU_ASSERT_EQUAL_FATAL(rc_connect(*qb, (*qa)->qp_num, a.lid), 0);
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
	struct mlx5_sim_link link = {0, loss_ppm, seed, 0};
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
	struct ibv_qp *qa, *qb;

	pair_open(a, b, "sim5", "sim6", MLX5_SIM_EXEC_INLINE, &qa, &qb);
	struct mlx5_sim_link link = {1, 0, 0, 0};
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

/**
 * @p n bytes at @p dst equal @p src. It reads memory the device may be writing, as
 * a CPU polling a DMA target does, so ThreadSanitizer does not instrument it.
 */
__attribute__((no_sanitize_thread)) bool landed(const uint8_t *dst, const uint8_t *src, size_t n)
{
	volatile const uint8_t *d = dst;
	for (size_t i = 0; i < n; i++)
		if (d[i] != src[i])
			return false;
	return true;
}

/** fill() through volatile stores: memory the other process's requests read (as landed()). */
__attribute__((no_sanitize_thread)) void fill_quiet(uint8_t *p, size_t n, uint32_t seed)
{
	volatile uint8_t *d = p;
	for (size_t k = 0; k < n; k++)
		d[k] = (uint8_t)(seed * 29 + k * 13 + 1);
}

/* ---- hosts in two processes (the machine-wide fabric) ---- */

constexpr size_t kBig = 256 * 1024; /**< several 64 KiB fabric messages */

/** A host on machine-wide fabric @p fabric: instance @p name, with a kBig MR too. */
struct BigHost {
	Host h;
	uint8_t *big;
	struct ibv_mr *big_mr;
};

void big_open(BigHost &b, const char *name, const char *fabric, enum mlx5_sim_exec_mode mode)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.fabric = 1;
	snprintf(attr.fabric_name, sizeof(attr.fabric_name), "%s", fabric);
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add(name, &attr), 0);
	host_open(b.h, name);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&b.big, 4096, kBig), 0);
	memset(b.big, 0, kBig);
	b.big_mr = g->reg_mr(b.h.pd, b.big, kBig, kAccess);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.big_mr);
}

void big_close(BigHost &b, const char *name)
{
	CU_ASSERT_EQUAL(g->dereg_mr(b.big_mr), 0);
	free(b.big);
	host_close(b.h);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove(name), 0);
}

/**
 * The other process (this binary with --peer <fabric>): one host on an engine
 * thread with an RC QP and a DCT, driven by lines on stdin, answering on stdout.
 */
const char *g_peer_fabric;

void peer_body(void)
{
	BigHost b;
	struct ibv_srq *srq;
	char line[256];

	big_open(b, "sim0", g_peer_fabric, MLX5_SIM_EXEC_THREAD);
	struct ibv_qp *rc = rc_create(b.h);
	struct ibv_qp *dct = dct_create(b.h, &srq);
	CU_ASSERT_FATAL(rc && dct);
	printf("%u %u %u %llu %u\n", b.h.lid, rc->qp_num, dct->qp_num,
	       (unsigned long long)(uintptr_t)b.big, b.big_mr->rkey);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned a1, a2, a3;
		unsigned long long addr;
		std::vector<struct ibv_wc> wc;
		if (sscanf(line, "connect %u %u", &a1, &a2) == 2) {
			/* RC to the other process's QP; a receive posted for its SEND */
			int r = rc_connect(rc, a2, (uint16_t)a1);
			struct ibv_qp_attr at = {};
			at.qp_access_flags = kAccess; /* atomics too */
			r = r ? r : g->modify_qp(rc, &at, IBV_QP_ACCESS_FLAGS);
			recv(rc, (uintptr_t)b.h.buf, b.h.mr->lkey, kBuf);
			printf("%d\n", r);
		} else if (sscanf(line, "check %u %u %u", &a1, &a2, &a3) == 3) {
			/* big[a1, a1 + a2) holds fill(seed a3) */
			std::vector<uint8_t> want(a2);
			fill(want.data(), a2, a3);
			printf("%d\n", landed(b.big + a1, want.data(), a2));
		} else if (sscanf(line, "pat %u %u %llu", &a1, &a2, &addr) == 3) {
			/* big[a1, a1 + a2) repeats the 8 bytes of addr */
			std::vector<uint8_t> want(a2);
			for (unsigned k = 0; k < a2; k++)
				want[k] = (uint8_t)(addr >> (8 * (k % 8)));
			printf("%d\n", landed(b.big + a1, want.data(), a2));
		} else if (sscanf(line, "set %u %u %u", &a1, &a2, &a3) == 3) {
			fill_quiet(b.big + a1, a2, a3);
			printf("ok\n");
		} else if (sscanf(line, "recv %u", &a1) == 1) {
			/* the SEND of the other process: its status, length and bytes */
			poll_n(b.h, 1, &wc);
			std::vector<uint8_t> want(a1);
			fill(want.data(), a1, 77);
			printf("%d %u %d\n", wc[0].status, wc[0].byte_len,
			       memcmp(b.h.buf, want.data(), a1) == 0);
		} else if (sscanf(line, "write %llu %u %u", &addr, &a1, &a2) == 3) {
			/* a2 RDMA writes of 64 KiB + 1 into the other process's memory */
			int bad = 0;
			fill(b.big, 65537, 5);
			for (unsigned k = 0; k < a2; k++) {
				rdma(rc, true, (uintptr_t)b.big, b.big_mr->lkey, addr, a1, 65537);
				poll_n(b.h, 1, &wc);
				bad += wc[0].status != IBV_WC_SUCCESS;
			}
			printf("%d\n", bad);
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			printf("?\n");
		}
		fflush(stdout);
	}
	CU_ASSERT_EQUAL(g->destroy_qp(dct), 0);
	CU_ASSERT_EQUAL(g->destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(rc), 0);
	big_close(b, "sim0");
}

/** The peer runs as a CUnit test of its own, silent: stdout carries its answers. */
int peer_main(const char *fabric)
{
	g = mlx5_glue_sim();
	g_peer_fabric = fabric;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite suite = CU_add_suite("fabric_peer", nullptr, nullptr);
	if (!suite || !CU_add_test(suite, "peer", peer_body))
		return 2;
	CU_basic_set_mode(CU_BRM_SILENT);
	CU_basic_run_tests();
	int failed = (int)CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

/** The peer process and its pipes. */
struct Peer {
	pid_t pid;
	FILE *to;
	FILE *from;
};

void peer_start(Peer &p, const char *fabric)
{
	char flag[] = "--peer";
	char *argv[] = {nullptr, flag, const_cast<char *>(fabric), nullptr};
	p.to = p.from = nullptr;
	CU_ASSERT_EQUAL_FATAL(test_spawn_self(argv, 1, &p.pid, &p.to, &p.from), 0);
}

/** Send one command line; the answer line in @p ans. */
void peer_ask(Peer &p, const char *cmd, char *ans, size_t n)
{
	fprintf(p.to, "%s\n", cmd);
	fflush(p.to);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(ans, (int)n, p.from));
}

/*
 * Two processes, each with its own HCA and memory: RC and DC writes, reads,
 * atomics and SENDs cross between them through the peer's HCA only; both write
 * into each other at once (no deadlock); a stopped peer and a killed peer give
 * RETRY_EXC, never a hang.
 */
void test_two_processes(void)
{
	char fabric[32], ans[256], cmd[256];
	std::vector<struct ibv_wc> wc;
	BigHost a;
	Peer p;

	snprintf(fabric, sizeof(fabric), "t%d", (int)getpid());
	peer_start(p, fabric);
	unsigned lid, rcqpn, dctn, rkey;
	unsigned long long raddr;
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(ans, sizeof(ans), p.from));
	CU_ASSERT_EQUAL_FATAL(sscanf(ans, "%u %u %u %llu %u", &lid, &rcqpn, &dctn, &raddr, &rkey),
			      5);
	/* this process's host: inline, so this thread waits for the peer's replies */
	big_open(a, "sim8", fabric, MLX5_SIM_EXEC_INLINE);
	CU_ASSERT_EQUAL(a.h.lid, 9); /* instance number + 1: free on this fabric */
	CU_ASSERT_NOT_EQUAL(a.h.lid, lid);
	struct ibv_qp *qa = rc_create(a.h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qa);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qa, rcqpn, (uint16_t)lid), 0);
	snprintf(cmd, sizeof(cmd), "connect %u %u", a.h.lid, qa->qp_num);
	peer_ask(p, cmd, ans, sizeof(ans));
	CU_ASSERT_EQUAL(atoi(ans), 0);

	/* RC writes of random sizes (up to 4 messages) land in the peer's memory */
	uint32_t rng = 12345;
	for (uint32_t it = 0; it < 24; it++) {
		rng = rng * 1103515245 + 12345;
		uint32_t len = 1 + (rng >> 8) % (uint32_t)(kBig / 2);
		uint32_t off = (rng >> 3) % (uint32_t)(kBig / 2);
		fill(a.big, len, it);
		rdma(qa, true, (uintptr_t)a.big, a.big_mr->lkey, raddr + off, rkey, len);
		poll_n(a.h, 1, &wc);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		snprintf(cmd, sizeof(cmd), "check %u %u %u", off, len, it);
		peer_ask(p, cmd, ans, sizeof(ans));
		CU_ASSERT_EQUAL(atoi(ans), 1);
	}
	/* RC read of 200000 bytes the peer wrote */
	peer_ask(p, "set 1000 200000 31", ans, sizeof(ans));
	memset(a.big, 0, kBig);
	rdma(qa, false, (uintptr_t)a.big, a.big_mr->lkey, raddr + 1000, rkey, 200000);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].byte_len, 200000u);
	std::vector<uint8_t> want(200000);
	fill(want.data(), want.size(), 31);
	CU_ASSERT_EQUAL(memcmp(a.big, want.data(), want.size()), 0);

	/* atomics on the peer's memory: the old values come back */
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(qa);
	peer_ask(p, "set 0 8 0", ans, sizeof(ans));
	uint64_t before;
	memcpy(&before, want.data(), 8); /* fill(seed 0) of 8 bytes is not want's; read it */
	rdma(qa, false, (uintptr_t)&a.big[0], a.big_mr->lkey, raddr, rkey, 8);
	poll_n(a.h, 1, &wc);
	memcpy(&before, a.big, 8);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qpx, rkey, raddr, 5);
	ibv_wr_set_sge(qpx, a.big_mr->lkey, (uintptr_t)(a.big + 64), 8);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qpx, rkey, raddr, before + 5, 0x1234);
	ibv_wr_set_sge(qpx, a.big_mr->lkey, (uintptr_t)(a.big + 72), 8);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
	poll_n(a.h, 2, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_SUCCESS);
	uint64_t old1, old2, now;
	memcpy(&old1, a.big + 64, 8);
	memcpy(&old2, a.big + 72, 8);
	CU_ASSERT_EQUAL(old1, before);
	CU_ASSERT_EQUAL(old2, before + 5);
	rdma(qa, false, (uintptr_t)&a.big[128], a.big_mr->lkey, raddr, rkey, 8);
	poll_n(a.h, 1, &wc);
	memcpy(&now, a.big + 128, 8);
	CU_ASSERT_EQUAL(now, 0x1234u);

	/* SEND into the peer's posted receive: its CQE there, the bytes there */
	fill(a.big, 3000, 77);
	send(qa, (uintptr_t)a.big, a.big_mr->lkey, 3000);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	peer_ask(p, "recv 3000", ans, sizeof(ans));
	CU_ASSERT_STRING_EQUAL(ans, "0 3000 1\n");

	/* both write into each other at once: the peer's engine and this thread */
	snprintf(cmd, sizeof(cmd), "write %llu %u 20",
		 (unsigned long long)(uintptr_t)(a.big + 4096), a.big_mr->rkey);
	fprintf(p.to, "%s\n", cmd);
	fflush(p.to);
	fill(a.big + 131072, 65537, 6); /* clear of where the peer writes */
	for (int k = 0; k < 20; k++) {
		rdma(qa, true, (uintptr_t)(a.big + 131072), a.big_mr->lkey, raddr + 70000, rkey,
		     65537);
		poll_n(a.h, 1, &wc);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(ans, sizeof(ans), p.from));
	CU_ASSERT_EQUAL(atoi(ans), 0); /* the peer's 20 writes all succeeded */
	fill(want.data(), 65537, 5);
	CU_ASSERT_TRUE(landed(a.big + 4096, want.data(), 65537));
	peer_ask(p, "check 70000 65537 6", ans, sizeof(ans));
	CU_ASSERT_EQUAL(atoi(ans), 1);

	/* a key the peer's MR table does not know: REM_ACCESS_ERR, nothing written */
	struct ibv_qp *dci = dci_create(a.h);
	struct ibv_qp_ex *dx = g->qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dvx = g->dv_qp_ex_from_ibv_qp_ex(dx);
	struct ibv_ah_attr aa = {};
	aa.port_num = 1;
	aa.dlid = (uint16_t)lid;
	struct ibv_ah *ah = g->create_ah(a.h.pd, &aa);
	CU_ASSERT_FATAL(dci && dvx && ah);
	auto dc_post = [&](bool write, uint16_t stream, uint64_t key, uint32_t rk, uint32_t len) {
		ibv_wr_start(dx);
		dx->wr_id = stream;
		dx->wr_flags = IBV_SEND_SIGNALED;
		if (write)
			ibv_wr_rdma_write(dx, rk, raddr);
		else
			ibv_wr_rdma_read(dx, rk, raddr);
		mlx5dv_wr_set_dc_addr_stream(dvx, ah, dctn, key, stream);
		ibv_wr_set_sge(dx, a.big_mr->lkey, (uintptr_t)a.big, len);
		CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(dx), 0);
	};
	/* DC: a write and a read through the peer's DCT */
	fill(a.big, 100000, 8);
	dc_post(true, 0, kKey, rkey, 100000);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	peer_ask(p, "check 0 100000 8", ans, sizeof(ans));
	CU_ASSERT_EQUAL(atoi(ans), 1);
	memset(a.big, 0, 100000);
	dc_post(false, 1, kKey, rkey, 100000);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	fill(want.data(), 100000, 8);
	CU_ASSERT_EQUAL(memcmp(a.big, want.data(), 100000), 0);
	/*
	 * A fill: a DC write of 160000 bytes (three fabric messages) whose local bytes come
	 * from a repeat-block mkey over 8 bytes (stride 0), configured by a UMR on qa.
	 */
	struct mlx5dv_mkey_init_attr ma = {};
	ma.pd = a.h.pd;
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	ma.max_entries = 1;
	struct mlx5dv_mkey *pat_mk = g->dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pat_mk);
	const uint64_t pat = 0x0123456789abcdefull;
	uint8_t *pat_src = a.big + kBig - 8;
	memcpy(pat_src, &pat, 8);
	struct mlx5dv_qp_ex *dvqa = g->dv_qp_ex_from_ibv_qp_ex(qpx);
	struct mlx5dv_mkey_conf_attr mca = {};
	/* libmlx5's stride is bytes_count + bytes_skip in 16 bits: 8 + (2^32 - 8) wraps to 0 */
	struct mlx5dv_mr_interleaved il = {(uintptr_t)pat_src, 8, (uint32_t)-8, a.big_mr->lkey};
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dvqa, pat_mk, 2, &mca);
	mlx5dv_wr_set_mkey_access_flags(dvqa, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_interleaved(dvqa, 20000, 1, &il);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	ibv_wr_start(dx);
	dx->wr_id = 4;
	dx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(dx, rkey, raddr + 5);
	mlx5dv_wr_set_dc_addr_stream(dvx, ah, dctn, kKey, 4);
	ibv_wr_set_sge(dx, pat_mk->lkey, 0, 160000);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(dx), 0);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	snprintf(cmd, sizeof(cmd), "pat 5 160000 %llu", (unsigned long long)pat);
	peer_ask(p, cmd, ans, sizeof(ans));
	CU_ASSERT_EQUAL(atoi(ans), 1);
	CU_ASSERT_EQUAL(g->dv_destroy_mkey(pat_mk), 0);
	peer_ask(p, "set 0 64 8", ans, sizeof(ans)); /* what the next checks expect there */

	/* a wrong DC key (dropped: RETRY_EXC), a wrong rkey (REM_ACCESS_ERR, nothing written) */
	dc_post(true, 2, kKey + 1, rkey, 64);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	fill(a.big, 64, 9);
	dc_post(true, 3, kKey, rkey + 1, 64);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	peer_ask(p, "check 0 64 8", ans, sizeof(ans));
	CU_ASSERT_EQUAL(atoi(ans), 1);

	/* a peer that stops answering: RETRY_EXC after the retries' time, no hang */
	CU_ASSERT_EQUAL(kill(p.pid, SIGSTOP), 0);
	int st;
	CU_ASSERT_EQUAL(waitpid(p.pid, &st, WUNTRACED), p.pid); /* stopped now */
	CU_ASSERT(WIFSTOPPED(st));
	uint64_t t0 = glue_test_now_ms();
	reconnect(qa, rcqpn, (uint16_t)lid, 0);
	rdma(qa, true, (uintptr_t)a.big, a.big_mr->lkey, raddr, rkey, 8);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	printf("\n    stopped peer: RETRY_EXC after %llu ms ",
	       (unsigned long long)(glue_test_now_ms() - t0));
	CU_ASSERT_EQUAL(kill(p.pid, SIGCONT), 0);
	/* a peer that is gone: RETRY_EXC at once */
	CU_ASSERT_EQUAL(kill(p.pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(p.pid, &st, 0), p.pid);
	dc_post(true, 1, kKey, rkey, 8);
	poll_n(a.h, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	fclose(p.to);
	fclose(p.from);
	CU_ASSERT_EQUAL(g->destroy_ah(ah), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(dci), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qa), 0);
	big_close(a, "sim8");
}

/* the peer's part of the clean run: it exits 0 after "quit" */
void test_peer_exit(void)
{
	char fabric[32], ans[256];
	Peer p;
	snprintf(fabric, sizeof(fabric), "u%d", (int)getpid());
	peer_start(p, fabric);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(ans, sizeof(ans), p.from));
	unsigned lid = 0;
	CU_ASSERT_EQUAL(sscanf(ans, "%u", &lid), 1);
	CU_ASSERT_EQUAL(lid, 1u); /* sim0: the first free LID of a new fabric */
	peer_ask(p, "bogus", ans, sizeof(ans));
	CU_ASSERT_STRING_EQUAL(ans, "?\n");
	fprintf(p.to, "quit\n");
	fflush(p.to);
	int st = -1;
	CU_ASSERT_EQUAL(waitpid(p.pid, &st, 0), p.pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fclose(p.to);
	fclose(p.from);
}

/* fabric names: bad ones refused, one machine-wide fabric per process */
void test_fabric_names(void)
{
	struct mlx5_sim_device_attr attr;
	mlx5_sim_device_attr_init(&attr);
	attr.fabric = 1;
	snprintf(attr.fabric_name, sizeof(attr.fabric_name), "bad/name");
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim10", &attr), -EINVAL);
	memset(attr.fabric_name, 'x', sizeof(attr.fabric_name)); /* not terminated */
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim10", &attr), -EINVAL);
	/* the earlier test's fabric was "t<pid>": another name is refused */
	snprintf(attr.fabric_name, sizeof(attr.fabric_name), "other%d", (int)getpid());
	CU_ASSERT_NOT_EQUAL(mlx5_sim_device_add("sim10", &attr), 0);
}

/*
 * sim_fabric_uids (the uids a machine-wide host admits besides its own): good
 * lists accepted, bad ones refused with -EINVAL and a message naming the value.
 */
void test_fabric_uids_option(void)
{
	char fabric[32], why[256];
	snprintf(fabric, sizeof(fabric), "t%d", (int)getpid()); /* the process's fabric */
	const char *bad[] = {"",           "abc",   "1001,", "[1001", "1001::1002",       "-5",
			     "4294967295", "1001 ", "[]",    "0x10",  "1:2:3:4:5:6:7:8:9"};
	for (const char *v : bad) {
		struct mlx5_glue_option o[2] = {{"sim_fabric", fabric}, {"sim_fabric_uids", v}};
		CU_ASSERT_EQUAL(mlx5_glue_prepare_device("sim30", o, 2, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "sim_fabric_uids"));
		if (v[0])
			CU_ASSERT_PTR_NOT_NULL(strstr(why, v));
	}
	/* only with a machine-wide fabric */
	struct mlx5_glue_option o1[2] = {{"sim_fabric", "1"}, {"sim_fabric_uids", "1001"}};
	CU_ASSERT_EQUAL(mlx5_glue_prepare_device("sim30", o1, 2, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "sim_fabric_uids=1001"));
	for (const char *v : {"1001", "0:1001", "[1001,1002]", "1:2:3:4:5:6:7:8"}) {
		struct mlx5_glue_option o[2] = {{"sim_fabric", fabric}, {"sim_fabric_uids", v}};
		CU_ASSERT_EQUAL(mlx5_glue_prepare_device("sim30", o, 2, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim30"), 0);
	}
	/* the attribute itself: at most MLX5_SIM_FABRIC_MAX_UIDS, never (uid_t)-1 */
	struct mlx5_sim_device_attr attr;
	mlx5_sim_device_attr_init(&attr);
	CU_ASSERT_EQUAL(attr.n_fabric_uids, 0);
	attr.fabric = 1;
	snprintf(attr.fabric_name, sizeof(attr.fabric_name), "%s", fabric);
	attr.n_fabric_uids = MLX5_SIM_FABRIC_MAX_UIDS + 1;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim30", &attr), -EINVAL);
	attr.n_fabric_uids = 1;
	attr.fabric_uids[0] = UINT32_MAX;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim30", &attr), -EINVAL);
}

/* the delay model: a request to a slow host completes that much later, its bytes land at once */
void test_link_delay(void)
{
	std::vector<struct ibv_wc> wc;
	Host a, b;
	struct ibv_qp *qa, *qb;

	pair_open(a, b, "sim13", "sim14", MLX5_SIM_EXEC_THREAD, &qa, &qb);
	struct mlx5_sim_link link = {0, 0, 0, 10000001};
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim14", &link), -EINVAL); /* above 10 s */
	link.delay_us = 30000;
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim14", &link), 0);
	for (int it = 0; it < 3; it++) {
		fill(a.buf, 256, 40 + it);
		uint64_t t0 = glue_test_now_ms();
		rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey, 256);
		/* the bytes land long before the completion */
		while (!landed(b.buf, a.buf, 256) && glue_test_now_ms() < t0 + kTimeoutMs)
			std::this_thread::yield();
		CU_ASSERT_TRUE(landed(b.buf, a.buf, 256));
		poll_n(a, 1, &wc);
		uint64_t ms = glue_test_now_ms() - t0;
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT(ms >= 30); /* a lower bound only: never sooner */
	}
	/* an error from the slow host is as late; the requester's own delay adds up */
	link.delay_us = 20000;
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim13", &link), 0);
	uint64_t t0 = glue_test_now_ms();
	rdma(qa, true, (uintptr_t)a.buf, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey + 0x100, 8);
	poll_n(a, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT(glue_test_now_ms() - t0 >= 50);
	link.delay_us = 0;
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim13", &link), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_set_link("sim14", &link), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qa), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qb), 0);
	host_close(a);
	host_close(b);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim13"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim14"), 0);
}

void test_remove(void)
{
	for (const char *n : {"sim1", "sim3", "sim5", "sim6"})
		CU_ASSERT_EQUAL(mlx5_sim_device_remove(n), 0);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct cunit_test tests[] = {
		{"hosts", test_setup},
		{"RC across hosts", test_rc},
		{"DC across hosts, peer down", test_dc},
		{"link down, loss and retries", test_link},
		{"link delay", test_link_delay},
		{"hosts in two processes", test_two_processes},
		{"peer process exits cleanly", test_peer_exit},
		{"fabric names", test_fabric_names},
		{"sim_fabric_uids", test_fabric_uids_option},
		{"remove", test_remove},
	};

	if (argc == 3 && strcmp(argv[1], "--peer") == 0)
		return peer_main(argv[2]);
	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("prov_fabric", tests);
}
