/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The "sim" backend of the seam, end to end and only through the glue table
 * and rdma-core's inline calls, as code above the seam uses it: named
 * instances, PD/MR/CQ, an RC QP connected to itself, memcpy MMO, SEND/RECV,
 * RDMA write/read, legacy and extended polls, data checks, error paths. Every
 * data-path test runs on an inline-mode instance ("sim1") and a thread-mode one
 * ("sim2").
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <initializer_list>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

constexpr size_t kBufLen = 64 * 1024;
constexpr int kPollTimeoutMs = 5000;

const struct mlx5_glue *g;

/** Everything one instance needs for the data-path tests. */
struct Env {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dv;
	uint8_t *src;
	uint8_t *dst;
	struct ibv_mr *src_mr;
	struct ibv_mr *dst_mr;
};

Env envs[2] = {{"sim1"}, {"sim2"}};

/** One completion through the extended API; false on timeout. */
struct Cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t qp_num;
};

bool poll_ex(struct ibv_cq_ex *cq, Cqe *out)
{
	struct ibv_poll_cq_attr attr = {};
	uint64_t deadline = glue_test_now_ms() + kPollTimeoutMs;
	int ret;

	while ((ret = ibv_start_poll(cq, &attr)) == ENOENT && glue_test_now_ms() < deadline)
		;
	if (ret)
		return false;
	out->wr_id = cq->wr_id;
	out->status = cq->status;
	out->opcode = ibv_wc_read_opcode(cq);
	out->byte_len = ibv_wc_read_byte_len(cq);
	out->qp_num = ibv_wc_read_qp_num(cq);
	ibv_end_poll(cq);
	return true;
}

/** @p n completions through the legacy API; returns how many arrived. */
int poll_legacy(struct ibv_cq_ex *cq, struct ibv_wc *wc, int n)
{
	uint64_t deadline = glue_test_now_ms() + kPollTimeoutMs;
	int got = 0;

	while (got < n && glue_test_now_ms() < deadline) {
		int ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), n - got, wc + got);

		if (ret < 0)
			return ret;
		got += ret;
	}
	return got;
}

struct ibv_qp *create_rc(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq_ex *cq,
			 uint64_t dv_ops, struct ibv_qp_init_attr_ex *out_attr = nullptr)
{
	struct ibv_qp_init_attr_ex a = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_qp *qp;

	a.qp_type = IBV_QPT_RC;
	a.send_cq = ibv_cq_ex_to_cq(cq);
	a.recv_cq = ibv_cq_ex_to_cq(cq);
	a.cap.max_send_wr = 64;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = 16;
	a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = pd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_READ;
	if (dv_ops) {
		dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
		dv.send_ops_flags = dv_ops;
	}
	qp = g->dv_create_qp(ctx, &a, &dv);
	if (out_attr)
		*out_attr = a;
	return qp;
}

/* ---------------------------------------------------------------------- */

void test_instances(void)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	CU_ASSERT_EQUAL(attr.exec_mode, MLX5_SIM_EXEC_THREAD);
	CU_ASSERT_EQUAL(attr.max_wr_memcpy_length, 1ull << 31);
	attr.exec_mode = MLX5_SIM_EXEC_INLINE;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim1", &attr), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim1", &attr), -EEXIST);
	attr.exec_mode = MLX5_SIM_EXEC_THREAD;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim2", &attr), 0);
	for (const char *bad : {"sim", "sim01", "simx", "sim1a", "mlx5_0", "", "sim1234567890"})
		CU_ASSERT_EQUAL(mlx5_sim_device_add(bad, &attr), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_sim_device_add(nullptr, &attr), -EINVAL);
	attr.max_sq_desc_sz = 100;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim9", &attr), -EINVAL);
	mlx5_sim_device_attr_init(&attr);
	attr.max_wr_memcpy_length = 1000;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim9", &attr), -EINVAL);
	attr.max_wr_memcpy_length = 0;
	attr.cqe_version = 0;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim3", &attr), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim9"), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove(nullptr), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(nullptr), -EINVAL);
}

void test_device_list(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = -1;
	bool seen[4] = {};

	CU_ASSERT_STRING_EQUAL(g->name, "sim");
	list = g->get_device_list(&n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, 3); /* sim1, sim2, sim3: no sim0 while others exist */
	for (int i = 0; i < n; i++) {
		const char *name = g->get_device_name(list[i]);

		for (int k = 1; k <= 3; k++)
			if (name[3] == '0' + k && !name[4])
				seen[k] = true;
	}
	CU_ASSERT_PTR_NULL(list[n]);
	CU_ASSERT(seen[1] && seen[2] && seen[3]);
	/* an open context outlives its list; the instance cannot go while open */
	ctx = g->open_device(list[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	g->free_device_list(list);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove(g->get_device_name(ctx->device)), -EBUSY);
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(ctx), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

void test_queries(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim1");
	struct ibv_context *ctx3 = glue_test_open(g, "sim3");
	struct ibv_device_attr_ex dattr;
	struct mlx5dv_context dv = {};

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx3);
	CU_ASSERT_EQUAL(g->query_device_ex(ctx, nullptr, &dattr), 0);
	CU_ASSERT_EQUAL(dattr.orig_attr.vendor_id, 0x02c9);
	CU_ASSERT(dattr.orig_attr.max_qp > 0 && dattr.orig_attr.max_cqe > 0);
	CU_ASSERT_EQUAL(dattr.orig_attr.phys_port_cnt, 1);
	dv.comp_mask = MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH | MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK;
	CU_ASSERT_EQUAL(g->dv_query_device(ctx, &dv), 0);
	CU_ASSERT_EQUAL(dv.comp_mask, MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH);
	CU_ASSERT_EQUAL(dv.max_wr_memcpy_length, 1ull << 31);
	CU_ASSERT(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1);
	/* no memcpy MMO: the bit is still echoed, with length 0 */
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	CU_ASSERT_EQUAL(g->dv_query_device(ctx3, &dv), 0);
	CU_ASSERT_EQUAL(dv.comp_mask, MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH);
	CU_ASSERT_EQUAL(dv.max_wr_memcpy_length, 0);
	CU_ASSERT_FALSE(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1);
	{
		struct ibv_async_event ev;

		errno = 0;
		CU_ASSERT_EQUAL(g->get_async_event(ctx, &ev), -1);
		CU_ASSERT_EQUAL(errno, EAGAIN);
	}
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx3), 0);
}

void test_bad_input(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim1");
	struct ibv_context *ctx3 = glue_test_open(g, "sim3");
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_pd *pd, *pd3;
	struct ibv_cq_ex *cq, *cq3;
	struct ibv_mr *mr;
	static uint8_t buf[4096];

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx3);
	pd = g->alloc_pd(ctx);
	pd3 = g->alloc_pd(ctx3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd3);
	/* CQ attributes */
	ca.cqe = 0;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(ctx, &ca));
	CU_ASSERT_EQUAL(errno, EINVAL);
	ca.cqe = 1u << 24;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(ctx, &ca));
	CU_ASSERT_EQUAL(errno, EINVAL);
	ca.cqe = 16;
	ca.wc_flags = IBV_WC_EX_WITH_FLOW_TAG;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(ctx, &ca));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cq = g->create_cq_ex(ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(cq->cqe, 31); /* roundup_pow2(16 + 1) - 1 */
	cq3 = g->create_cq_ex(ctx3, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq3);
	/* MR access rules */
	CU_ASSERT_PTR_NULL(g->reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(g->reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(errno, EINVAL);
	mr = g->reg_mr(pd, nullptr, SIZE_MAX, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_EQUAL(mr->lkey, mr->rkey);
	CU_ASSERT_EQUAL(mr->length, SIZE_MAX);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), EBUSY); /* MR still on it */
	CU_ASSERT_EQUAL(g->dereg_mr(mr), 0);
	/* QP attributes */
	qa.qp_type = IBV_QPT_UD;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq);
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = pd;
	qa.cap.max_send_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, nullptr));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	qa.qp_type = IBV_QPT_DRIVER; /* a DC QP, or nothing */
	dv.comp_mask = 0;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	const int bad_dc_type = 7; /* stored as the integer a C caller may pass */
	memcpy(&dv.dc_init_attr.dc_type, &bad_dc_type, sizeof(bad_dc_type));
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	qa.qp_type = IBV_QPT_RC;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY;
	qa.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS; /* memcpy without PD */
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	qa.comp_mask |= IBV_QP_INIT_ATTR_PD;
	dv.send_ops_flags = 1u << 7; /* not a v44 dv op */
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	qa.send_ops_flags = IBV_QP_EX_WITH_TSO; /* not for RC */
	dv.send_ops_flags = 0;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	qa.cap.max_send_sge = 1000; /* cannot fit in max_sq_desc_sz */
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = 1u << 20; /* beyond the device */
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* memcpy on a device without memcpy MMO */
	qa.cap.max_recv_wr = 0;
	qa.pd = pd3;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq3);
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY;
	CU_ASSERT_PTR_NULL(g->dv_create_qp(ctx3, &qa, &dv));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	/* no attributes; then features of later issues */
	CU_ASSERT_PTR_NULL(g->dv_create_mkey(nullptr));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_alloc(ctx, nullptr), EINVAL);
	/* nothing was half-created: everything tears down and the context closes */
	CU_ASSERT_EQUAL(g->close_device(ctx), EBUSY);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(cq3)), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd3), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx3), 0);
}

/* ---- data path, per instance ---- */

void env_setup(Env &e)
{
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;

	e.ctx = glue_test_open(g, e.name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.ctx);
	e.pd = g->alloc_pd(e.ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.pd);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.src, 4096, kBufLen), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.dst, 4096, kBufLen), 0);
	memset(e.dst, 0, kBufLen);
	for (size_t i = 0; i < kBufLen; i++)
		e.src[i] = (uint8_t)(i * 7 + 3);
	e.src_mr = g->reg_mr(e.pd, e.src, kBufLen, access);
	e.dst_mr = g->reg_mr(e.pd, e.dst, kBufLen, access);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.src_mr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.dst_mr);
	CU_ASSERT_EQUAL(e.src_mr->addr, e.src);
	CU_ASSERT_EQUAL(e.src_mr->pd, e.pd);
	ca.cqe = 63;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
	e.cq = g->create_cq_ex(e.ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.cq);
	CU_ASSERT_EQUAL(e.cq->cqe, 63); /* roundup_pow2(63 + 1) - 1 */
	e.qp = create_rc(e.ctx, e.pd, e.cq, MLX5DV_QP_EX_WITH_MEMCPY, &qa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.qp);
	/* libmlx5 v44 sizing for RC, RDMA ops, 1 SGE: 64-byte WQEs, 64 of them */
	CU_ASSERT_EQUAL(qa.cap.max_send_wr, 64);
	CU_ASSERT_EQUAL(qa.cap.max_inline_data, 64 - 32 - 4);
	CU_ASSERT_EQUAL(qa.cap.max_recv_wr, 16);
	CU_ASSERT_EQUAL(qa.cap.max_recv_sge, 1);
	CU_ASSERT_EQUAL(e.qp->state, IBV_QPS_RESET);
	e.qpx = g->qp_to_qp_ex(e.qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.qpx);
	e.dv = g->dv_qp_ex_from_ibv_qp_ex(e.qpx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.dv);
	/* not operational before RTS */
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 99;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(e.dv, e.dst_mr->lkey, (uintptr_t)e.dst, e.src_mr->lkey, (uintptr_t)e.src,
			 64);
	CU_ASSERT_EQUAL(ibv_wr_complete(e.qpx), EINVAL);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_INIT, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTS, e.qp->qp_num),
			EINVAL); /* INIT -> RTS is illegal */
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTR, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTS, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(e.qp->state, IBV_QPS_RTS);
}

void env_teardown(Env &e)
{
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(e.cq)), EBUSY); /* QP uses it */
	CU_ASSERT_EQUAL(g->destroy_qp(e.qp), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(e.cq)), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.src_mr), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.dst_mr), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(e.pd), 0);
	CU_ASSERT_EQUAL(g->close_device(e.ctx), 0);
	free(e.src);
	free(e.dst);
}

void run_memcpy(Env &e)
{
	Cqe c;

	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 0x1111;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(e.dv, e.dst_mr->lkey, (uintptr_t)e.dst, e.src_mr->lkey, (uintptr_t)e.src,
			 8192);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	CU_ASSERT_FATAL(poll_ex(e.cq, &c));
	CU_ASSERT_EQUAL(c.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(c.wr_id, 0x1111);
	CU_ASSERT_EQUAL(c.opcode, (enum ibv_wc_opcode)MLX5DV_WC_MEMCPY);
	CU_ASSERT_EQUAL(c.qp_num, e.qp->qp_num);
	CU_ASSERT_EQUAL(memcmp(e.dst, e.src, 8192), 0);
	CU_ASSERT_EQUAL(e.dst[8192], 0);
	/* two memcpys in one batch, only the last signaled (implicit completion) */
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 0x2222;
	e.qpx->wr_flags = 0;
	mlx5dv_wr_memcpy(e.dv, e.dst_mr->lkey, (uintptr_t)e.dst + 16384, e.src_mr->lkey,
			 (uintptr_t)e.src + 100, 1000);
	e.qpx->wr_id = 0x3333;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(e.dv, e.dst_mr->lkey, (uintptr_t)e.dst + 20000, e.src_mr->lkey,
			 (uintptr_t)e.src + 200, 3000);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	CU_ASSERT_FATAL(poll_ex(e.cq, &c));
	CU_ASSERT_EQUAL(c.wr_id, 0x3333);
	CU_ASSERT_EQUAL(c.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(e.dst + 16384, e.src + 100, 1000), 0);
	CU_ASSERT_EQUAL(memcmp(e.dst + 20000, e.src + 200, 3000), 0);
	/* a bad lkey: error CQE, QP to ERR; the rest is the device's business */
}

void run_send_recv(Env &e)
{
	struct ibv_sge sge = {(uintptr_t)(e.dst + 32768), 4096, e.dst_mr->lkey};
	struct ibv_recv_wr rwr = {}, *bad = nullptr;
	struct ibv_wc wc[2];
	int got;

	rwr.wr_id = 0xaaaa;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ibv_post_recv(e.qp, &rwr, &bad), 0);
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 0xbbbb;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(e.qpx);
	ibv_wr_set_sge(e.qpx, e.src_mr->lkey, (uintptr_t)(e.src + 1000), 1500);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	got = poll_legacy(e.cq, wc, 2);
	CU_ASSERT_EQUAL_FATAL(got, 2);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].qp_num, e.qp->qp_num);
		if (wc[i].opcode == IBV_WC_RECV) {
			CU_ASSERT_EQUAL(wc[i].wr_id, 0xaaaa);
			CU_ASSERT_EQUAL(wc[i].byte_len, 1500);
			CU_ASSERT_EQUAL(wc[i].src_qp, e.qp->qp_num);
		} else {
			CU_ASSERT_EQUAL(wc[i].opcode, IBV_WC_SEND);
			CU_ASSERT_EQUAL(wc[i].wr_id, 0xbbbb);
		}
	}
	CU_ASSERT(wc[0].opcode != wc[1].opcode);
	CU_ASSERT_EQUAL(memcmp(e.dst + 32768, e.src + 1000, 1500), 0);
}

void run_rdma(Env &e)
{
	struct ibv_wc wc;
	Cqe c;

	/* write src[0..4096) to dst + 40960 */
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 0xcccc;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(e.qpx, e.dst_mr->rkey, (uintptr_t)(e.dst + 40960));
	ibv_wr_set_sge(e.qpx, e.src_mr->lkey, (uintptr_t)e.src, 4096);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	CU_ASSERT_FATAL(poll_ex(e.cq, &c));
	CU_ASSERT_EQUAL(c.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(c.opcode, IBV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(c.wr_id, 0xcccc);
	CU_ASSERT_EQUAL(memcmp(e.dst + 40960, e.src, 4096), 0);
	/* read src + 5000 (remote) into dst + 50000 (local) */
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 0xdddd;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(e.qpx, e.src_mr->rkey, (uintptr_t)(e.src + 5000));
	ibv_wr_set_sge(e.qpx, e.dst_mr->lkey, (uintptr_t)(e.dst + 50000), 2048);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	CU_ASSERT_EQUAL_FATAL(poll_legacy(e.cq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, IBV_WC_RDMA_READ);
	CU_ASSERT_EQUAL(wc.wr_id, 0xdddd);
	CU_ASSERT_EQUAL(wc.byte_len, 2048);
	CU_ASSERT_EQUAL(memcmp(e.dst + 50000, e.src + 5000, 2048), 0);
}

void run_objects(Env &e)
{
	struct mlx5dv_obj obj = {};
	struct mlx5dv_qp dqp = {};
	struct mlx5dv_cq dcq = {};
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	obj.qp.in = e.qp;
	obj.qp.out = &dqp;
	obj.cq.in = ibv_cq_ex_to_cq(e.cq);
	obj.cq.out = &dcq;
	CU_ASSERT_EQUAL(g->dv_init_obj(&obj, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ), 0);
	CU_ASSERT_EQUAL(dqp.sq.wqe_cnt, 64);
	CU_ASSERT_EQUAL(dqp.sq.stride, 64);
	CU_ASSERT_EQUAL(dqp.rq.wqe_cnt, 16);
	CU_ASSERT_EQUAL(dqp.rq.stride, 16);
	/* one buffer, RQ first then SQ */
	CU_ASSERT_EQUAL((uint8_t *)dqp.sq.buf, (uint8_t *)dqp.rq.buf + 16 * 16);
	CU_ASSERT_EQUAL((uintptr_t)dqp.rq.buf % 4096, 0);
	CU_ASSERT_PTR_NOT_NULL(dqp.bf.reg);
	CU_ASSERT_EQUAL(dqp.bf.size, 256);
	CU_ASSERT_PTR_NOT_NULL(dqp.dbrec);
	CU_ASSERT_EQUAL(dcq.cqe_cnt, 64);
	CU_ASSERT_EQUAL(dcq.cqe_size, 64);
	CU_ASSERT_EQUAL((uintptr_t)dcq.buf % 64, 0);
	/* the consumer index doorbell follows the polls */
	CU_ASSERT(be32toh(dcq.dbrec[0]) > 0);
	CU_ASSERT_EQUAL(g->dv_init_obj(&obj, MLX5DV_OBJ_SRQ), EOPNOTSUPP);
	CU_ASSERT_EQUAL(g->query_qp(e.qp, &attr, IBV_QP_STATE | IBV_QP_DEST_QPN, &init), 0);
	CU_ASSERT_EQUAL(attr.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(attr.dest_qp_num, e.qp->qp_num);
	CU_ASSERT_EQUAL(attr.path_mtu, IBV_MTU_4096);
	CU_ASSERT_EQUAL(init.cap.max_send_wr, 64);
	CU_ASSERT_EQUAL(init.send_cq, ibv_cq_ex_to_cq(e.cq));
	CU_ASSERT_EQUAL(ibv_req_notify_cq(ibv_cq_ex_to_cq(e.cq), 0), 0);
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_SEND, 0), 0);
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(e.ctx), 0);
	/* RESET clears the provider's counters and doorbell record */
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RESET, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(dqp.dbrec[0], 0);
	CU_ASSERT_EQUAL(dqp.dbrec[1], 0);
	CU_ASSERT_EQUAL(e.qp->state, IBV_QPS_RESET);
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	ibv_wr_set_sge(e.qpx, e.src_mr->lkey, (uintptr_t)e.src, 16);
	CU_ASSERT_EQUAL(ibv_wr_complete(e.qpx), EINVAL); /* not operational */
	/* and it comes back to work from there */
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_INIT, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTR, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTS, e.qp->qp_num), 0);
	run_memcpy(e);
}

void run_env(Env &e)
{
	env_setup(e);
	run_memcpy(e);
	run_send_recv(e);
	run_rdma(e);
	run_objects(e);
	env_teardown(e);
}

void test_inline_mode(void)
{
	run_env(envs[0]);
}

void test_thread_mode(void)
{
	run_env(envs[1]);
}

void test_remove(void)
{
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim1"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim2"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim3"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim1"), -ENODEV);
	/* none left: listing creates sim0 with the defaults */
	{
		int n = 0;
		struct ibv_device **list = g->get_device_list(&n);

		CU_ASSERT_PTR_NOT_NULL_FATAL(list);
		CU_ASSERT_EQUAL(n, 1);
		CU_ASSERT_STRING_EQUAL(g->get_device_name(list[0]), "sim0");
		g->free_device_list(list);
	}
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim0"), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"instances", test_instances},
		{"device list", test_device_list},
		{"queries", test_queries},
		{"bad input", test_bad_input},
		{"data path, inline mode (sim1)", test_inline_mode},
		{"data path, thread mode (sim2)", test_thread_mode},
		{"remove and sim0", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("sim_glue", tests);
}
