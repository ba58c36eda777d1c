/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DC transport on the software HCA through the seam (tests/test_mlx5_dc.py): DCI and
 * DCT creation rules, RDMA write / read / atomics from DCIs to a DCT addressed by
 * AH + DCT number + key, DCI streams (one failing stream is flushed while the
 * others go on, mlx5dv_dci_stream_id_reset, ERR after 2^log_num_errored errored
 * streams and recovery through RESET), on an inline and a thread-mode instance.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <set>
#include <thread>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

constexpr uint64_t kDctKey = 0xbadc0de; /* the key of test_mlx5_dc.py */
constexpr size_t kBuf = 1024;
constexpr int kTimeoutMs = 10000;
constexpr int kMaxDci = 2;

const struct mlx5_glue *g;

/** One instance with kMaxDci DCIs and one DCT, each side with its own buffer. */
struct Env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *other_pd; /* an MR there is a local protection error */
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq; /* the DCT's receives */
	struct ibv_qp *dct;
	struct ibv_qp *dci[kMaxDci];
	struct ibv_qp_ex *qpx[kMaxDci];
	struct mlx5dv_qp_ex *dv[kMaxDci];
	struct ibv_ah *ah;
	uint8_t *src, *dst, *ro; /* ro: registered without remote write */
	struct ibv_mr *src_mr, *dst_mr, *ro_mr, *bad_mr;
};

int add(const char *name, enum mlx5_sim_exec_mode mode, uint8_t dc, uint8_t log_streams,
	uint8_t log_errored)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.dc = dc;
	attr.dci_max_log_streams = log_streams;
	attr.dci_max_log_errored = log_errored;
	return mlx5_sim_device_add(name, &attr);
}

struct ibv_qp *create_dci(Env &e, bool streams, uint8_t log_conc, uint8_t log_err)
{
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	qa.cap.max_send_wr = 64;
	qa.cap.max_send_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = e.pd;
	qa.sq_sig_all = 1;
	qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	if (streams) {
		dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
		dv.dc_init_attr.dci_streams.log_num_concurent = log_conc;
		dv.dc_init_attr.dci_streams.log_num_errored = log_err;
	}
	return g->dv_create_qp(e.ctx, &qa, &dv);
}

struct ibv_qp *create_dct(Env &e, uint64_t key, bool with_srq = true)
{
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	qa.srq = with_srq ? e.srq : nullptr;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = e.pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	dv.dc_init_attr.dct_access_key = key;
	return g->dv_create_qp(e.ctx, &qa, &dv);
}

/** DCI through INIT, RTR, RTS: no remote attributes, only the path. */
int dci_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	ret = g->modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.ah_attr.port_num = 1;
	ret = g->modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_AV);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return g->modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/** DCT through INIT and RTR, where it stays. */
int dct_to_rtr(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	ret = g->modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	return g->modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER | IBV_QP_AV);
}

void setup(Env &e, const char *name, int ndci, bool streams = false, uint8_t log_conc = 0,
	   uint8_t log_err = 0)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_port_attr port;
	struct ibv_ah_attr aa = {};

	memset(&e, 0, sizeof(e));
	e.ctx = glue_test_open(g, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.ctx);
	e.pd = g->alloc_pd(e.ctx);
	e.other_pd = g->alloc_pd(e.ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.other_pd);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.src, 64, kBuf), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.dst, 64, kBuf), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.ro, 64, kBuf), 0);
	memset(e.dst, 0, kBuf);
	memset(e.ro, 0x5a, kBuf);
	e.src_mr = g->reg_mr(e.pd, e.src, kBuf, access);
	e.dst_mr = g->reg_mr(e.pd, e.dst, kBuf, access);
	e.ro_mr = g->reg_mr(e.pd, e.ro, kBuf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	e.bad_mr = g->reg_mr(e.other_pd, e.src, kBuf, access);
	CU_ASSERT_FATAL(e.src_mr && e.dst_mr && e.ro_mr && e.bad_mr);
	ca.cqe = 255;
	e.cq = g->create_cq_ex(e.ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.cq);
	struct ibv_srq_init_attr sa = {};
	sa.attr.max_wr = 64;
	sa.attr.max_sge = 1;
	e.srq = g->create_srq(e.pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.srq);
	CU_ASSERT_EQUAL(sa.attr.max_wr, 127u); /* 65 WQEs rounded up, one kept free */
	CU_ASSERT_EQUAL(sa.attr.max_sge, 1u);
	e.dct = create_dct(e, kDctKey);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.dct);
	CU_ASSERT_EQUAL(e.dct->qp_num, 0u); /* known at RTR only */
	CU_ASSERT_EQUAL_FATAL(dct_to_rtr(e.dct), 0);
	CU_ASSERT_NOT_EQUAL(e.dct->qp_num, 0u);
	for (int i = 0; i < ndci; i++) {
		e.dci[i] = create_dci(e, streams, log_conc, log_err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e.dci[i]);
		CU_ASSERT_EQUAL_FATAL(dci_to_rts(e.dci[i]), 0);
		e.qpx[i] = g->qp_to_qp_ex(e.dci[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e.qpx[i]);
		e.dv[i] = g->dv_qp_ex_from_ibv_qp_ex(e.qpx[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e.dv[i]);
	}
	CU_ASSERT_EQUAL_FATAL(g->query_port(e.ctx, 1, &port), 0);
	aa.dlid = port.lid;
	aa.port_num = 1;
	e.ah = g->create_ah(e.pd, &aa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.ah);
}

void teardown(Env &e)
{
	for (int i = 0; i < kMaxDci; i++)
		if (e.dci[i])
			CU_ASSERT_EQUAL(g->destroy_qp(e.dci[i]), 0);
	CU_ASSERT_EQUAL(g->destroy_srq(e.srq), EBUSY); /* the DCT uses it */
	CU_ASSERT_EQUAL(g->destroy_qp(e.dct), 0);
	CU_ASSERT_EQUAL(g->destroy_srq(e.srq), 0);
	CU_ASSERT_EQUAL(g->destroy_ah(e.ah), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(e.cq)), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.src_mr), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.dst_mr), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.ro_mr), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.bad_mr), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(e.pd), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(e.other_pd), 0);
	CU_ASSERT_EQUAL(g->close_device(e.ctx), 0);
	free(e.src);
	free(e.dst);
	free(e.ro);
}

/** Poll @p n completions into @p out (in CQ order). */
void poll_n(Env &e, int n, std::vector<struct ibv_wc> *out)
{
	uint64_t deadline = glue_test_now_ms() + kTimeoutMs;
	struct ibv_wc wc[16];

	out->clear();
	while ((int)out->size() < n && glue_test_now_ms() < deadline) {
		int r = ibv_poll_cq(ibv_cq_ex_to_cq(e.cq), 16, wc);

		CU_ASSERT_FATAL(r >= 0);
		if (r == 0)
			std::this_thread::yield();
		out->insert(out->end(), wc, wc + r);
	}
	CU_ASSERT_EQUAL_FATAL((int)out->size(), n);
}

enum Op {
	WRITE,
	READ,
	FADD
};

/** One WR on DCI @p i to the DCT: @p lkey names the local side (a bad one fails). */
void post(Env &e, int i, Op op, uint64_t wr_id, uint16_t stream, uint32_t lkey, uint32_t rkey,
	  uint64_t raddr, uint32_t len, uint64_t key = kDctKey)
{
	struct ibv_qp_ex *qpx = e.qpx[i];

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case WRITE:
		ibv_wr_rdma_write(qpx, rkey, raddr);
		break;
	case READ:
		ibv_wr_rdma_read(qpx, rkey, raddr);
		break;
	case FADD:
		ibv_wr_atomic_fetch_add(qpx, rkey, raddr, 5);
		break;
	}
	mlx5dv_wr_set_dc_addr_stream(e.dv[i], e.ah, e.dct->qp_num, key, stream);
	ibv_wr_set_sge(qpx, lkey, (uintptr_t)e.src, len);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
}

enum ibv_qp_state state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	CU_ASSERT_EQUAL(g->query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

void fill_src(Env &e, uint32_t seed)
{
	for (size_t k = 0; k < kBuf; k++)
		e.src[k] = (uint8_t)(seed * 131 + k * 7 + 1);
}

/* ---- tests ---- */

void test_setup(void)
{
	CU_ASSERT_EQUAL(add("sim1", MLX5_SIM_EXEC_INLINE, 1, 4, 3), 0);
	CU_ASSERT_EQUAL(add("sim2", MLX5_SIM_EXEC_THREAD, 1, 4, 3), 0);
	CU_ASSERT_EQUAL(add("sim3", MLX5_SIM_EXEC_INLINE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(add("sim4", MLX5_SIM_EXEC_INLINE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(add("sim5", MLX5_SIM_EXEC_INLINE, 1, 4, 5), -EINVAL);
}

/* verbs.c create_qp/create_dct: creation rules and the caps that bound DCI streams */
void test_creation(void)
{
	Env e;
	struct mlx5dv_context dc = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_qp_attr a = {};

	setup(e, "sim1", 0);
	dc.comp_mask = MLX5DV_CONTEXT_MASK_DCI_STREAMS;
	CU_ASSERT_EQUAL(g->dv_query_device(e.ctx, &dc), 0);
	CU_ASSERT(dc.comp_mask & MLX5DV_CONTEXT_MASK_DCI_STREAMS);
	CU_ASSERT_EQUAL(dc.dci_streams_caps.max_log_num_concurent, 4);
	CU_ASSERT_EQUAL(dc.dci_streams_caps.max_log_num_errored, 3);
	/* streams over the caps */
	CU_ASSERT_PTR_NULL(create_dci(e, true, 5, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(create_dci(e, true, 2, 4));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a DCT takes no send ops, no streams, no unknown dc_type */
	qa.qp_type = IBV_QPT_DRIVER;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	qa.pd = e.pd;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(e.ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(e.ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	dv.dc_init_attr.dc_type = (enum mlx5dv_dc_type)3;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(e.ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* the DC mask on an RC QP */
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	qa.qp_type = IBV_QPT_RC;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(e.ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a DCT stays in RTR */
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	CU_ASSERT_EQUAL(g->modify_qp(e.dct, &a, IBV_QP_STATE | IBV_QP_TIMEOUT), EINVAL);
	CU_ASSERT_EQUAL(state_of(e.dct), IBV_QPS_RTR);
	/* the kernel's create_dct wants an SRQ */
	CU_ASSERT_PTR_NULL(create_dct(e, 1, false));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a DCT moves with the kernel's masks only (mlx5_ib_modify_dct), as on Debian's
	 * libmlx5 (the kernel side): INIT->RTR without AV, INIT with a timeout, to RESET */
	{
		struct ibv_qp *q = create_dct(e, 2);
		struct ibv_qp_attr m = {};

		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		m.qp_state = IBV_QPS_INIT;
		m.port_num = 1;
		m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		CU_ASSERT_EQUAL(g->modify_qp(q, &m,
					     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						     IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT),
				EINVAL);
		CU_ASSERT_EQUAL(state_of(q), IBV_QPS_RESET);
		CU_ASSERT_EQUAL(g->modify_qp(q, &m,
					     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						     IBV_QP_ACCESS_FLAGS),
				0);
		m.qp_state = IBV_QPS_RTR;
		m.path_mtu = IBV_MTU_4096;
		m.min_rnr_timer = 12;
		m.ah_attr.port_num = 1;
		CU_ASSERT_EQUAL(
			g->modify_qp(q, &m, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER),
			EINVAL);
		CU_ASSERT_EQUAL(state_of(q), IBV_QPS_INIT);
		CU_ASSERT_EQUAL(q->qp_num, 0u); /* no number before RTR */
		m.qp_state = IBV_QPS_RESET;
		CU_ASSERT_EQUAL(g->modify_qp(q, &m, IBV_QP_STATE), EINVAL);
		m.qp_state = IBV_QPS_RTR;
		CU_ASSERT_EQUAL(g->modify_qp(q, &m,
					     IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER |
						     IBV_QP_AV),
				0);
		CU_ASSERT_NOT_EQUAL(q->qp_num, 0u);
		CU_ASSERT_EQUAL(g->destroy_qp(q), 0);
	}
	/* stream reset on something that is not a DCI */
	CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dct, 0), EOPNOTSUPP); /* not in RTS */
	teardown(e);

	/* a device without DC; one without DCI streams */
	struct ibv_context *ctx = glue_test_open(g, "sim3");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	e.ctx = ctx;
	e.srq = nullptr;
	e.pd = g->alloc_pd(ctx);
	struct ibv_cq_init_attr_ex ca = {};
	ca.cqe = 15;
	e.cq = g->create_cq_ex(ctx, &ca);
	CU_ASSERT_FATAL(e.pd && e.cq);
	CU_ASSERT_PTR_NULL(create_dci(e, false, 0, 0));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(create_dct(e, 1));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(e.cq)), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(e.pd), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

/* test_dc_rdma_write: 2 DCIs, 10 iterations each, data validated; then read and atomics */
void run_rdma(const char *name)
{
	std::vector<struct ibv_wc> wc;
	Env e;

	setup(e, name, 2);
	for (uint32_t it = 0; it < 10; it++) {
		for (int i = 0; i < 2; i++) {
			fill_src(e, it * 2 + i);
			post(e, i, WRITE, it, 0, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst,
			     kBuf);
			poll_n(e, 1, &wc);
			CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RDMA_WRITE);
			CU_ASSERT_EQUAL(wc[0].qp_num, e.dci[i]->qp_num);
			CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0);
		}
	}
	/* RDMA read of the DCT side's read-only buffer into src */
	post(e, 1, READ, 77, 0, e.src_mr->lkey, e.ro_mr->rkey, (uintptr_t)e.ro, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RDMA_READ);
	CU_ASSERT_EQUAL(memcmp(e.src, e.ro, kBuf), 0);
	/* fetch-and-add on the DCT side: the old value comes back */
	uint64_t v = 1000;
	memcpy(e.dst, &v, 8);
	post(e, 0, FADD, 78, 0, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, 8);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	uint64_t old, now;
	memcpy(&old, e.src, 8);
	memcpy(&now, e.dst, 8);
	CU_ASSERT_EQUAL(old, 1000u);
	CU_ASSERT_EQUAL(now, 1005u);
	teardown(e);
}

void test_rdma_inline(void)
{
	run_rdma("sim1");
}

void test_rdma_thread(void)
{
	run_rdma("sim2");
}

/* test_dc_rdma_write_stream: ids beyond 2^log_num_concurent wrap from streams + 2 to 1 */
void test_write_stream(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;
	uint16_t streams = 1u << 3, id = 1;

	setup(e, "sim2", 2, true, 3, 2);
	for (int it = 0; it < 40; it++) {
		int i = it & 1;
		fill_src(e, (uint32_t)it);
		post(e, i, WRITE, (uint64_t)it, id, e.src_mr->lkey, e.dst_mr->rkey,
		     (uintptr_t)e.dst, kBuf);
		poll_n(e, 1, &wc);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0);
		id = id == streams + 1 ? 1 : id + 1;
	}
	teardown(e);
}

/*
 * One stream fails: its error, its other WRs flushed, the other streams' WRs done,
 * the DCI in RTS; after the reset the stream works again.
 */
void test_stream_isolation(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;

	setup(e, "sim1", 1, true, 2, 2);
	fill_src(e, 9);
	/* one doorbell: stream 1 bad, stream 1 good, stream 2 good, stream 1 good */
	struct ibv_qp_ex *qpx = e.qpx[0];
	const struct {
		uint16_t stream;
		uint32_t lkey;
	} wr[4] = {
		{1, e.bad_mr->lkey}, {1, e.src_mr->lkey}, {2, e.src_mr->lkey}, {1, e.src_mr->lkey}};
	ibv_wr_start(qpx);
	for (int k = 0; k < 4; k++) {
		qpx->wr_id = (uint64_t)k;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qpx, e.dst_mr->rkey, (uintptr_t)e.dst);
		mlx5dv_wr_set_dc_addr_stream(e.dv[0], e.ah, e.dct->qp_num, kDctKey, wr[k].stream);
		ibv_wr_set_sge(qpx, wr[k].lkey, (uintptr_t)e.src, kBuf);
	}
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
	poll_n(e, 4, &wc);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0u);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(wc[1].wr_id, 1u);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc[2].wr_id, 2u);
	CU_ASSERT_EQUAL(wc[2].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[3].wr_id, 3u);
	CU_ASSERT_EQUAL(wc[3].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0); /* the stream-2 write landed */
	CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_RTS);
	/* reset: only an errored stream can be reset */
	CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], 2), EINVAL);
	CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], 1), 0);
	CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], 1), EINVAL);
	memset(e.dst, 0, kBuf);
	post(e, 0, WRITE, 9, 1, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0);
	teardown(e);
}

/*
 * test_dc_send_stream_bad_flow (WITH_RESET), with RDMA writes: every WR whose stream
 * id % 3 == 0 uses an MR of another PD and fails; its stream is reset, and once the
 * next stream's reset must fail. Good WRs succeed; errors == bad WRs.
 */
void test_bad_flow_reset(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;
	int bad = 0, errors = 0;
	bool tried_next = false;

	setup(e, "sim2", 1, true, 3, 2);
	for (uint16_t id = 1; id <= 30; id++) {
		bool is_bad = id % 3 == 0;
		post(e, 0, WRITE, id, id, is_bad ? e.bad_mr->lkey : e.src_mr->lkey, e.dst_mr->rkey,
		     (uintptr_t)e.dst, kBuf);
		bad += is_bad;
		poll_n(e, 1, &wc);
		if (wc[0].status == IBV_WC_SUCCESS) {
			CU_ASSERT(!is_bad);
			continue;
		}
		CU_ASSERT(is_bad);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_PROT_ERR);
		errors++;
		CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], id), 0);
		if (!tried_next) {
			CU_ASSERT_NOT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], id + 1), 0);
			tried_next = true;
		}
	}
	CU_ASSERT_EQUAL(errors, bad);
	CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_RTS);
	teardown(e);
}

/*
 * test_dc_send_stream_bad_flow_qp (WITHOUT_RESET): every WR bad on its own stream;
 * each error from a distinct stream; at the first flush the DCI is in ERR after
 * exactly 2^log_num_errored errors. RESET -> RTS and traffic resumes.
 */
void run_bad_flow_qp(uint8_t log_err, bool streams)
{
	std::vector<struct ibv_wc> wc;
	std::set<uint64_t> failed_streams;
	Env e;
	int errors = 0;
	bool flushed = false;

	setup(e, "sim1", 1, streams, 2, log_err);
	for (uint16_t id = 0; id < 20 && !flushed; id++) {
		post(e, 0, WRITE, id, id, e.bad_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, kBuf);
		poll_n(e, 1, &wc);
		if (wc[0].status == IBV_WC_LOC_PROT_ERR) {
			CU_ASSERT(failed_streams.insert(wc[0].wr_id).second);
			errors++;
			continue;
		}
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_ERR);
		flushed = true;
	}
	CU_ASSERT(flushed);
	CU_ASSERT_EQUAL(errors, 1 << log_err);
	/* recovery */
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_RESET;
	CU_ASSERT_EQUAL(g->modify_qp(e.dci[0], &a, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL(dci_to_rts(e.dci[0]), 0);
	fill_src(e, 5);
	post(e, 0, WRITE, 99, 0, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0);
	teardown(e);
}

void test_bad_flow_qp(void)
{
	run_bad_flow_qp(2, true);
	run_bad_flow_qp(0, true);
	run_bad_flow_qp(0, false); /* no streams: the first error stops the DCI */
}

/*
 * Errors at the target: remote access (REM_ACCESS_ERR, the DCT keeps serving), a wrong
 * key and an unknown DCT number (dropped: RETRY_EXC_ERR). HEAD's
 * test_dc_stream_qp_recovery: ERR after exactly 2^log_num_errored remote errors.
 */
void test_target_errors(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;

	setup(e, "sim1", 2, true, 2, 1);
	post(e, 0, WRITE, 1, 1, e.src_mr->lkey, e.ro_mr->rkey, (uintptr_t)e.ro, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(e.ro[0], 0x5a); /* nothing written */
	CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_RTS);
	CU_ASSERT_EQUAL(state_of(e.dct), IBV_QPS_RTR);
	/* the other DCI still reaches the DCT */
	fill_src(e, 3);
	post(e, 1, WRITE, 2, 0, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBuf), 0);
	/* wrong key: the DCT drops it */
	post(e, 1, WRITE, 3, 1, e.src_mr->lkey, e.dst_mr->rkey, (uintptr_t)e.dst, kBuf,
	     kDctKey + 1);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(state_of(e.dci[1]), IBV_QPS_RTS);
	/* second errored stream of DCI 0 (2^1): ERR, as HEAD's stream QP recovery test */
	post(e, 0, WRITE, 4, 2, e.src_mr->lkey, e.ro_mr->rkey, (uintptr_t)e.ro, kBuf);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_ERR);
	/* a DCT number nobody has */
	ibv_wr_start(e.qpx[1]);
	e.qpx[1]->wr_id = 5;
	e.qpx[1]->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(e.qpx[1], e.dst_mr->rkey, (uintptr_t)e.dst);
	mlx5dv_wr_set_dc_addr_stream(e.dv[1], e.ah, 0xfffff0, kDctKey, 3);
	ibv_wr_set_sge(e.qpx[1], e.src_mr->lkey, (uintptr_t)e.src, kBuf);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx[1]), 0);
	poll_n(e, 1, &wc);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(state_of(e.dci[1]), IBV_QPS_ERR); /* 2^1 streams errored */
	teardown(e);
}

/* HEAD's test_dc_stream_ids_recovery: 2^errored errors, each reset: never ERR */
void test_ids_recovery(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;

	setup(e, "sim2", 1, true, 2, 2);
	for (uint16_t id = 0; id < 12; id++) {
		post(e, 0, WRITE, id, id, e.src_mr->lkey, e.ro_mr->rkey, (uintptr_t)e.ro, kBuf);
		poll_n(e, 1, &wc);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_REM_ACCESS_ERR);
		CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], id), 0);
	}
	CU_ASSERT_EQUAL(state_of(e.dci[0]), IBV_QPS_RTS);
	/* a device without stream reset */
	teardown(e);
	setup(e, "sim4", 1);
	CU_ASSERT_EQUAL(g->dv_dci_stream_id_reset(e.dci[0], 0), EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(create_dci(e, true, 1, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	teardown(e);
}

/** One receive WQE on the SRQ: @p len bytes at dst + @p off. */
int post_srq(Env &e, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {(uintptr_t)e.dst + off, len, e.dst_mr->lkey};
	struct ibv_recv_wr wr = {}, *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(e.srq, &wr, &bad);
}

void post_send(Env &e, int i, uint64_t wr_id, uint16_t stream, uint32_t len)
{
	struct ibv_qp_ex *qpx = e.qpx[i];

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	mlx5dv_wr_set_dc_addr_stream(e.dv[i], e.ah, e.dct->qp_num, kDctKey, stream);
	ibv_wr_set_sge(qpx, e.src_mr->lkey, (uintptr_t)e.src, len);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
}

/** The requester's and the DCT's completion of one SEND, in either order. */
void poll_send_pair(Env &e, int i, uint64_t send_id, uint64_t recv_id, uint32_t len)
{
	std::vector<struct ibv_wc> wc;

	poll_n(e, 2, &wc);
	for (const struct ibv_wc &w : wc) {
		CU_ASSERT_EQUAL(w.status, IBV_WC_SUCCESS);
		if (w.opcode == IBV_WC_SEND) {
			CU_ASSERT_EQUAL(w.wr_id, send_id);
			CU_ASSERT_EQUAL(w.qp_num, e.dci[i]->qp_num);
		} else {
			CU_ASSERT_EQUAL(w.opcode, IBV_WC_RECV);
			CU_ASSERT_EQUAL(w.wr_id, recv_id);
			CU_ASSERT_EQUAL(w.byte_len, len);
			CU_ASSERT_EQUAL(w.qp_num, e.dct->qp_num);
			CU_ASSERT_EQUAL(w.src_qp, e.dci[i]->qp_num);
		}
	}
}

/*
 * test_dc_send: SEND from 2 DCIs into the DCT's SRQ, data validated; 300 rounds,
 * so the SRQ's free list wraps twice; sends posted before their receive wait (RNR)
 * and complete once the receive is posted.
 */
void run_send(const char *name)
{
	Env e;

	setup(e, name, 2);
	for (uint32_t it = 0; it < 300; it++) {
		int i = (int)(it & 1);
		uint32_t len = 1 + (it * 37) % kBuf;

		fill_src(e, it);
		memset(e.dst, 0, kBuf);
		CU_ASSERT_EQUAL_FATAL(post_srq(e, 1000 + it, 0, kBuf), 0);
		post_send(e, i, it, (uint16_t)it, len);
		poll_send_pair(e, i, it, 1000 + it, len);
		CU_ASSERT_EQUAL(memcmp(e.dst, e.src, len), 0);
		CU_ASSERT_EQUAL(e.dst[len % kBuf], len < kBuf ? 0 : e.src[0]);
	}
	/* the send first, then the receive: it waits for it */
	fill_src(e, 7);
	post_send(e, 0, 1, 0, 64);
	std::vector<struct ibv_wc> wc;
	if (!strcmp(name, "sim1")) { /* inline: nothing can have completed */
		struct ibv_wc w;
		CU_ASSERT_EQUAL(ibv_poll_cq(ibv_cq_ex_to_cq(e.cq), 1, &w), 0);
	}
	CU_ASSERT_EQUAL_FATAL(post_srq(e, 2, 0, kBuf), 0);
	poll_send_pair(e, 0, 1, 2, 64);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, 64), 0);
	teardown(e);
}

void test_send_inline(void)
{
	run_send("sim1");
}

void test_send_thread(void)
{
	run_send("sim2");
}

/* SRQ rules: full at max_wr, max_sge; a receive too small; an RC QP on an SRQ */
void test_srq(void)
{
	std::vector<struct ibv_wc> wc;
	Env e;

	setup(e, "sim1", 1);
	/* more receive WRs than max_wr: the first max_wr go in, the next is bad */
	std::vector<struct ibv_recv_wr> wrs(128);
	std::vector<struct ibv_sge> sges(128);
	for (size_t k = 0; k < wrs.size(); k++) {
		sges[k] = {(uintptr_t)e.dst, 8, e.dst_mr->lkey};
		wrs[k].wr_id = k;
		wrs[k].sg_list = &sges[k];
		wrs[k].num_sge = 1;
		wrs[k].next = k + 1 < wrs.size() ? &wrs[k + 1] : nullptr;
	}
	struct ibv_recv_wr *bad = nullptr;
	CU_ASSERT_EQUAL(ibv_post_srq_recv(e.srq, &wrs[0], &bad), ENOMEM);
	CU_ASSERT_PTR_EQUAL(bad, &wrs[127]);
	/* 127 receives of 8 bytes: a 16-byte SEND does not fit the first */
	fill_src(e, 1);
	post_send(e, 0, 5, 0, 16);
	poll_n(e, 2, &wc);
	int resp = wc[0].qp_num == e.dct->qp_num ? 0 : 1; /* error CQEs have no opcode */
	CU_ASSERT_EQUAL(wc[resp].status, IBV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(wc[resp].wr_id, 0u);
	CU_ASSERT_EQUAL(wc[1 - resp].status, IBV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(state_of(e.dct), IBV_QPS_RTR);
	/* two SGEs on an SRQ of one */
	struct ibv_sge two[2] = {{(uintptr_t)e.dst, 8, e.dst_mr->lkey},
				 {(uintptr_t)e.dst + 8, 8, e.dst_mr->lkey}};
	struct ibv_recv_wr w2 = {};
	w2.sg_list = two;
	w2.num_sge = 2;
	CU_ASSERT_EQUAL(ibv_post_srq_recv(e.srq, &w2, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &w2);

	/* an RC QP connected to itself, receiving from the SRQ (its 126 WQEs left) */
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	qa.srq = e.srq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = 8; /* ignored: receives come from the SRQ */
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = e.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	struct ibv_qp *rc = g->dv_create_qp(e.ctx, &qa, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	CU_ASSERT_EQUAL(qa.cap.max_recv_wr, 0u);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, rc, IBV_QPS_INIT, rc->qp_num), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, rc, IBV_QPS_RTR, rc->qp_num), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, rc, IBV_QPS_RTS, rc->qp_num), 0);
	struct ibv_qp_ex *qpx = g->qp_to_qp_ex(rc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, e.src_mr->lkey, (uintptr_t)e.src, 8);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(qpx), 0);
	poll_n(e, 2, &wc);
	for (const struct ibv_wc &w : wc) {
		CU_ASSERT_EQUAL(w.status, IBV_WC_SUCCESS);
		if (w.opcode == IBV_WC_RECV)
			CU_ASSERT_EQUAL(w.wr_id, 1u); /* the SRQ's next WQE */
	}
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, 8), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(rc), 0);
	teardown(e);
}

void test_remove(void)
{
	for (const char *n : {"sim1", "sim2", "sim3", "sim4"})
		CU_ASSERT_EQUAL(mlx5_sim_device_remove(n), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"devices", test_setup},
		{"DCI and DCT creation (libmlx5 rules)", test_creation},
		{"test_dc_rdma_write + read + atomic, inline", test_rdma_inline},
		{"test_dc_rdma_write + read + atomic, thread", test_rdma_thread},
		{"test_dc_rdma_write_stream", test_write_stream},
		{"one stream flushed, the others go on", test_stream_isolation},
		{"bad flow with stream reset", test_bad_flow_reset},
		{"bad flow without reset: ERR, recovery", test_bad_flow_qp},
		{"errors at the target: access, key, DCT number", test_target_errors},
		{"stream ids recovery", test_ids_recovery},
		{"test_dc_send into the SRQ, inline", test_send_inline},
		{"test_dc_send into the SRQ, thread", test_send_thread},
		{"SRQ rules, an RC QP on an SRQ", test_srq},
		{"remove", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("prov_dc", tests);
}
