/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5-sim-demo: one loopback RC QP on an mlx5 device (the software HCA by default),
 * driven only through the seam and rdma-core's inline builders, the way the PMD does:
 * memcpy MMO, RDMA write, RDMA read, SEND/RECV and a raw WQE. Every result is checked
 * byte for byte and a short report is printed. Exit status 0 only if all checks pass.
 *
 *   mlx5-sim-demo [--dev NAME] [--exec inline|thread]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5_glue.h"
#include "mlx5_hw.h"
#include "mlx5_qp_state.h"
#include "mlx5_sim.h"

namespace {

constexpr size_t kBufSize = 64 * 1024;
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

struct Demo {
	const struct mlx5_glue *glue = nullptr;
	struct ibv_device *device = nullptr;
	struct ibv_context *ctx = nullptr;
	struct ibv_pd *pd = nullptr;
	uint8_t *src = nullptr;
	uint8_t *dst = nullptr;
	struct ibv_mr *src_mr = nullptr;
	struct ibv_mr *dst_mr = nullptr;
	struct ibv_cq_ex *cq = nullptr;
	struct ibv_qp *qp = nullptr;
	struct ibv_qp_ex *qpx = nullptr;
	struct mlx5dv_qp_ex *dv = nullptr;
	int checks = 0;
	int failures = 0;
};

void check(Demo &d, bool ok, const char *what)
{
	d.checks++;
	if (!ok)
		d.failures++;
	printf("  %-44s %s\n", what, ok ? "ok" : "FAILED");
}

void fill(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* Wait for one completion (the engine may run on another core) and return it. */
int poll_one(Demo &d, uint64_t *wr_id, enum ibv_wc_status *status, enum ibv_wc_opcode *opcode,
	     uint32_t *byte_len)
{
	struct ibv_poll_cq_attr attr = {};
	struct timespec start, now;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		ret = ibv_start_poll(d.cq, &attr);
		if (ret == 0)
			break;
		if (ret != ENOENT)
			return -ret;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 2)
			return -ETIMEDOUT;
	}
	*wr_id = d.cq->wr_id;
	*status = d.cq->status;
	*opcode = ibv_wc_read_opcode(d.cq);
	*byte_len = ibv_wc_read_byte_len(d.cq);
	ibv_end_poll(d.cq);
	return 0;
}

/* Expect @p n successful completions with these wr_ids/opcodes, in any order
 * (requester and responder completions share the CQ). */
bool expect_cqes(Demo &d, const uint64_t *want_id, const enum ibv_wc_opcode *want_op, int n)
{
	bool seen[4] = {};

	for (int got = 0; got < n; got++) {
		uint64_t wr_id = 0;
		enum ibv_wc_status status = IBV_WC_GENERAL_ERR;
		enum ibv_wc_opcode opcode = IBV_WC_SEND;
		uint32_t byte_len = 0;
		int ret = poll_one(d, &wr_id, &status, &opcode, &byte_len);
		int i;

		if (ret) {
			printf("  poll: %s\n", strerror(-ret));
			return false;
		}
		for (i = 0; i < n; i++)
			if (!seen[i] && want_id[i] == wr_id && want_op[i] == opcode)
				break;
		if (i == n || status != IBV_WC_SUCCESS) {
			/* numeric status: ibv_wc_status_str() would link libibverbs */
			printf("  unexpected completion: wr_id %#lx status %d opcode %d\n",
			       (unsigned long)wr_id, status, opcode);
			return false;
		}
		seen[i] = true;
	}
	return true;
}

bool expect_cqe(Demo &d, uint64_t want_id, enum ibv_wc_opcode want_op)
{
	return expect_cqes(d, &want_id, &want_op, 1);
}

int setup(Demo &d, const char *name)
{
	struct mlx5dv_context dvattr = {};
	struct ibv_cq_init_attr_ex cq_attr = {};
	struct ibv_qp_init_attr_ex qp_attr = {};
	struct mlx5dv_qp_init_attr dv_qp_attr = {};
	int ret;

	ret = mlx5_glue_find_device(name, &d.glue, &d.device);
	if (ret) {
		fprintf(stderr, "device %s: %s\n", name, strerror(-ret));
		return ret;
	}
	d.ctx = d.glue->open_device(d.device);
	if (!d.ctx)
		return -errno;
	dvattr.comp_mask = MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	ret = d.glue->dv_query_device(d.ctx, &dvattr);
	if (ret)
		return -ret;
	printf("device %s (%s backend): max_wr_memcpy_length %zu\n",
	       d.glue->get_device_name(d.device), d.glue->name, dvattr.max_wr_memcpy_length);
	if (dvattr.max_wr_memcpy_length < kBufSize) {
		fprintf(stderr, "device %s: memcpy MMO limit %zu below %zu\n", name,
			dvattr.max_wr_memcpy_length, kBufSize);
		return -EOPNOTSUPP;
	}

	d.pd = d.glue->alloc_pd(d.ctx);
	d.src = (uint8_t *)aligned_alloc(4096, kBufSize);
	d.dst = (uint8_t *)aligned_alloc(4096, kBufSize);
	if (!d.pd || !d.src || !d.dst)
		return -ENOMEM;
	d.src_mr = d.glue->reg_mr(d.pd, d.src, kBufSize, kAccess);
	d.dst_mr = d.glue->reg_mr(d.pd, d.dst, kBufSize, kAccess);
	if (!d.src_mr || !d.dst_mr)
		return -errno;

	cq_attr.cqe = 256;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
	d.cq = d.glue->create_cq_ex(d.ctx, &cq_attr);
	if (!d.cq)
		return -errno;

	qp_attr.qp_type = IBV_QPT_RC;
	qp_attr.send_cq = ibv_cq_ex_to_cq(d.cq);
	qp_attr.recv_cq = ibv_cq_ex_to_cq(d.cq);
	qp_attr.cap.max_send_wr = 64;
	qp_attr.cap.max_recv_wr = 64;
	qp_attr.cap.max_send_sge = 2;
	qp_attr.cap.max_recv_sge = 1;
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qp_attr.pd = d.pd;
	qp_attr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				 IBV_QP_EX_WITH_RDMA_READ;
	dv_qp_attr.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv_qp_attr.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY | MLX5DV_QP_EX_WITH_RAW_WQE;
	d.qp = d.glue->dv_create_qp(d.ctx, &qp_attr, &dv_qp_attr);
	if (!d.qp)
		return -errno;
	ret = mlx5_qp_connect_rc(d.glue, d.qp, d.qp->qp_num, kAccess);
	if (ret)
		return ret;
	d.qpx = d.glue->qp_to_qp_ex(d.qp);
	d.dv = d.qpx ? d.glue->dv_qp_ex_from_ibv_qp_ex(d.qpx) : nullptr;
	return d.dv ? 0 : -EINVAL;
}

void teardown(Demo &d)
{
	if (d.qp)
		d.glue->destroy_qp(d.qp);
	if (d.cq)
		d.glue->destroy_cq(ibv_cq_ex_to_cq(d.cq));
	if (d.src_mr)
		d.glue->dereg_mr(d.src_mr);
	if (d.dst_mr)
		d.glue->dereg_mr(d.dst_mr);
	if (d.pd)
		d.glue->dealloc_pd(d.pd);
	if (d.ctx)
		d.glue->close_device(d.ctx);
	if (d.device)
		mlx5_glue_put_device(d.glue, d.device);
	free(d.src);
	free(d.dst);
}

void run_memcpy(Demo &d)
{
	fill(d.src, kBufSize, 1);
	memset(d.dst, 0, kBufSize);
	ibv_wr_start(d.qpx);
	d.qpx->wr_id = 1;
	d.qpx->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_memcpy(d.dv, d.dst_mr->lkey, (uintptr_t)d.dst, d.src_mr->lkey, (uintptr_t)d.src,
			 kBufSize);
	bool posted = ibv_wr_complete(d.qpx) == 0;
	bool ok = posted && expect_cqe(d, 1, (enum ibv_wc_opcode)MLX5DV_WC_MEMCPY);
	check(d, ok && memcmp(d.src, d.dst, kBufSize) == 0, "memcpy MMO 64 KiB");
}

void run_rdma(Demo &d)
{
	fill(d.src, 4096, 2);
	memset(d.dst, 0, 4096);
	ibv_wr_start(d.qpx);
	d.qpx->wr_id = 2;
	d.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(d.qpx, d.dst_mr->rkey, (uintptr_t)d.dst);
	ibv_wr_set_sge(d.qpx, d.src_mr->lkey, (uintptr_t)d.src, 4096);
	bool ok = ibv_wr_complete(d.qpx) == 0 && expect_cqe(d, 2, IBV_WC_RDMA_WRITE);
	check(d, ok && memcmp(d.src, d.dst, 4096) == 0, "RDMA write 4 KiB");

	fill(d.dst + 8192, 4096, 3);
	memset(d.src + 8192, 0, 4096);
	ibv_wr_start(d.qpx);
	d.qpx->wr_id = 3;
	d.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(d.qpx, d.dst_mr->rkey, (uintptr_t)(d.dst + 8192));
	ibv_wr_set_sge(d.qpx, d.src_mr->lkey, (uintptr_t)(d.src + 8192), 4096);
	ok = ibv_wr_complete(d.qpx) == 0 && expect_cqe(d, 3, IBV_WC_RDMA_READ);
	check(d, ok && memcmp(d.src + 8192, d.dst + 8192, 4096) == 0, "RDMA read 4 KiB");
}

bool post_recv(Demo &d, uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge sge = {(uintptr_t)addr, len, d.dst_mr->lkey};
	struct ibv_recv_wr wr = {};
	struct ibv_recv_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(d.qp, &wr, &bad) == 0;
}

void run_send(Demo &d)
{
	fill(d.src, 2048, 4);
	memset(d.dst + 16384, 0, 2048);
	bool ok = post_recv(d, 40, d.dst + 16384, 2048);
	ibv_wr_start(d.qpx);
	d.qpx->wr_id = 4;
	d.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(d.qpx);
	ibv_wr_set_sge(d.qpx, d.src_mr->lkey, (uintptr_t)d.src, 2048);
	ok = ok && ibv_wr_complete(d.qpx) == 0;
	const uint64_t ids[] = {4, 40};
	const enum ibv_wc_opcode ops[] = {IBV_WC_SEND, IBV_WC_RECV};
	ok = ok && expect_cqes(d, ids, ops, 2);
	check(d, ok && memcmp(d.src, d.dst + 16384, 2048) == 0, "SEND 2 KiB into a posted RECV");
}

/* A SEND built byte by byte by the caller (the pyverbs raw-WQE scenario). */
void run_raw_wqe(Demo &d)
{
	uint8_t wqe[64] = {};
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)wqe;
	auto *seg = (struct mlx5_wqe_data_seg *)(wqe + sizeof(*ctrl));

	fill(d.src, 1024, 5);
	memset(d.dst + 20480, 0, 1024);
	bool ok = post_recv(d, 50, d.dst + 20480, 1024);
	mlx5dv_set_ctrl_seg(ctrl, 0, MLX5_OPCODE_SEND, 0, d.qp->qp_num, MLX5_WQE_CTRL_CQ_UPDATE, 3,
			    0, 0);
	mlx5dv_set_data_seg(&seg[0], 512, d.src_mr->lkey, (uintptr_t)d.src);
	mlx5dv_set_data_seg(&seg[1], 512, d.src_mr->lkey, (uintptr_t)(d.src + 512));
	ibv_wr_start(d.qpx);
	d.qpx->wr_id = 5;
	mlx5dv_wr_raw_wqe(d.dv, wqe);
	ok = ok && ibv_wr_complete(d.qpx) == 0;
	const uint64_t ids[] = {5, 50};
	const enum ibv_wc_opcode ops[] = {(enum ibv_wc_opcode)MLX5DV_WC_RAW_WQE, IBV_WC_RECV};
	ok = ok && expect_cqes(d, ids, ops, 2);
	check(d, ok && memcmp(d.src, d.dst + 20480, 1024) == 0, "raw SEND WQE, 2 data segments");
}

void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--dev NAME] [--exec inline|thread]\n", prog);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dev", required_argument, nullptr, 'd'},
		{"exec", required_argument, nullptr, 'e'},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0},
	};
	const char *dev = "sim0";
	const char *exec = "thread";
	int opt;

	while ((opt = getopt_long(argc, argv, "d:e:h", opts, nullptr)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'e':
			exec = optarg;
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (strcmp(exec, "inline") != 0 && strcmp(exec, "thread") != 0) {
		fprintf(stderr, "--exec: bad value '%s' (inline or thread)\n", exec);
		return 2;
	}
	if (strncmp(dev, "sim", 3) == 0) {
		struct mlx5_sim_device_attr attr;

		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = strcmp(exec, "inline") == 0 ? MLX5_SIM_EXEC_INLINE
							     : MLX5_SIM_EXEC_THREAD;
		int ret = mlx5_sim_device_add(strcmp(dev, "sim") == 0 ? "sim0" : dev, &attr);
		if (ret && ret != -EEXIST) {
			fprintf(stderr, "software HCA %s: %s\n", dev, strerror(-ret));
			return 1;
		}
	}

	Demo d;
	int ret = setup(d, dev);
	if (ret == 0) {
		printf("loopback RC QP %#x, %s execution\n", d.qp->qp_num, exec);
		run_memcpy(d);
		run_rdma(d);
		run_send(d);
		run_raw_wqe(d);
		printf("%d checks, %d failed\n", d.checks, d.failures);
	} else {
		fprintf(stderr, "setup failed: %s\n", strerror(-ret));
	}
	teardown(d);
	return ret == 0 && d.failures == 0 ? 0 : 1;
}
