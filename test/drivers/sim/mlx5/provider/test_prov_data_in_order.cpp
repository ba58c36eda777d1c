/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ibv_query_qp_data_in_order() with the v46+ flags on the software HCA, and the
 * order in which the device really writes a message (libmlx5's mlx5_query_qp_data_in_order()): one
 * instance per capability (none, ALIGNED_128_BYTES, WHOLE_MSG) in thread mode,
 * each tested by a reader that polls the data instead of the CQ, plus inline
 * instances for the bytes themselves (unaligned, several spans, SEND, READ).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <initializer_list>
#include <thread>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

constexpr size_t kBig = 4u << 20; /* 32768 blocks of 128 bytes: long enough to watch */
constexpr int kTimeoutMs = 10000;
/* Tries to see a torn message (stops at the first): a loaded 2-core machine may deschedule
 * the reader for a whole 4 MiB write many times in a row. */
constexpr int kTornTrials = 500;
constexpr uint32_t kCapsFlag = MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS;

const struct mlx5_glue *g;

/** One instance: an RC QP connected to itself, a source and a destination buffer. */
struct Env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint8_t *src;
	uint8_t *dst;
	struct ibv_mr *src_mr;
	struct ibv_mr *dst_mr;
};

void setup(Env &e, const char *name, bool to_rts = true)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	e.ctx = glue_test_open(g, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.ctx);
	e.pd = g->alloc_pd(e.ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.pd);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.src, 4096, kBig), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&e.dst, 4096, kBig), 0);
	for (size_t i = 0; i < kBig; i++)
		e.src[i] = (uint8_t)(i % 251 + 1); /* never 0 */
	memset(e.dst, 0, kBig);
	e.src_mr = g->reg_mr(e.pd, e.src, kBig, access);
	e.dst_mr = g->reg_mr(e.pd, e.dst, kBig, access);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.src_mr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.dst_mr);
	ca.cqe = 63;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	e.cq = g->create_cq_ex(e.ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.cq);
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	qa.cap.max_send_wr = 16;
	qa.cap.max_send_sge = 4;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_recv_sge = 4;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = e.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_READ;
	e.qp = g->dv_create_qp(e.ctx, &qa, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.qp);
	e.qpx = g->qp_to_qp_ex(e.qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.qpx);
	if (!to_rts)
		return;
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_INIT, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTR, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTS, e.qp->qp_num), 0);
}

void teardown(Env &e)
{
	CU_ASSERT_EQUAL(g->destroy_qp(e.qp), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(e.cq)), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.src_mr), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(e.dst_mr), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(e.pd), 0);
	CU_ASSERT_EQUAL(g->close_device(e.ctx), 0);
	free(e.src);
	free(e.dst);
}

/** Wait for @p n completions, all successful. */
void wait_ok(Env &e, int n)
{
	struct ibv_wc wc[8];
	uint64_t deadline = glue_test_now_ms() + kTimeoutMs;
	int got = 0;

	while (got < n && glue_test_now_ms() < deadline) {
		int r = ibv_poll_cq(ibv_cq_ex_to_cq(e.cq), 8, wc);

		if (r < 0)
			break;
		if (r == 0)
			std::this_thread::yield(); /* leave the core to the engine and reader */
		for (int i = 0; i < r; i++)
			CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		got += r;
	}
	CU_ASSERT_EQUAL_FATAL(got, n);
}

void post_write(Env &e, uint64_t soff, uint64_t doff, uint32_t len)
{
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = len;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(e.qpx, e.dst_mr->rkey, (uintptr_t)e.dst + doff);
	ibv_wr_set_sge(e.qpx, e.src_mr->lkey, (uintptr_t)e.src + soff, len);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
}

/* ---- the query (test_qp.py::test_query_data_in_order, HEAD with RETURN_CAPS) ---- */

void check_query(const char *name, int plain, int caps)
{
	Env e;

	setup(e, name, false);
	/* not in RTS: 0 whatever the device can do */
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_SEND, 0), 0);
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_SEND, kCapsFlag), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_INIT, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTR, e.qp->qp_num), 0);
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_RDMA_WRITE, kCapsFlag), 0);
	CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, e.qp, IBV_QPS_RTS, e.qp->qp_num), 0);
	for (enum ibv_wr_opcode op : {IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ}) {
		CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, op, 0), plain);
		CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, op, kCapsFlag), caps);
	}
	/* unknown flag bits: 0 */
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_SEND, 2), 0);
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(e.qp, IBV_WR_SEND, kCapsFlag | (1u << 31)), 0);
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(nullptr, IBV_WR_SEND, 0), 0);
	teardown(e);
}

void test_query(void)
{
	check_query("sim1", 0, 0);
	check_query("sim2", 0, MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES);
	check_query("sim3", 1,
		    MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG |
			    MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES);
}

/* ---- a poll-on-data reader (thread mode) ---- */

/**
 * RDMA-write kBig bytes @p trials times; a reader thread spins on the last byte
 * of the message (@p block 0) or of every 128-byte block (@p block 1) and, as
 * soon as it lands, compares what the promise covers with the source. Returns
 * how many trials saw bytes missing behind a landed last byte.
 */
/*
 * A reader polling on data while the device writes it: it races with the device by design,
 * as a CPU reading a DMA target does, so ThreadSanitizer does not instrument it. Returns
 * 1 when it saw the message (or, with @p block, a 128-byte block) torn.
 */
__attribute__((no_sanitize_thread)) int read_on_data(const uint8_t *dst, const uint8_t *src,
						     bool block)
{
	volatile const uint8_t *d = dst;
	uint64_t deadline = glue_test_now_ms() + kTimeoutMs;

	if (!block) {
		while (d[kBig - 1] == 0 && glue_test_now_ms() < deadline)
			;
		std::atomic_thread_fence(std::memory_order_acquire);
		for (size_t i = 0; i < kBig; i++)
			if (d[i] != src[i])
				return 1;
		return 0;
	}
	/* every block, from the last one (which a reversed device writes first) */
	for (size_t b = kBig / 128; b-- > 0;) {
		while (d[b * 128 + 127] == 0 && glue_test_now_ms() < deadline)
			;
		std::atomic_thread_fence(std::memory_order_acquire);
		for (size_t i = b * 128; i < b * 128 + 128; i++)
			if (d[i] != src[i])
				return 1;
	}
	return 0;
}

int poll_on_data(const char *name, bool block, int trials)
{
	Env e;
	int torn = 0;

	setup(e, name);
	for (int t = 0; t < trials; t++) {
		memset(e.dst, 0, kBig);
		std::atomic<bool> running{false};
		std::atomic<int> seen{0};
		std::thread reader([&] {
			running.store(true, std::memory_order_release);
			seen = read_on_data(e.dst, e.src, block);
		});
		/* post only once the reader runs, or a starved reader sees nothing torn */
		while (!running.load(std::memory_order_acquire))
			std::this_thread::yield();
		post_write(e, 0, 0, (uint32_t)kBig);
		wait_ok(e, 1);
		reader.join();
		CU_ASSERT_EQUAL(memcmp(e.dst, e.src, kBig), 0);
		torn += seen.load();
		if (seen.load() && !block && trials > 1)
			break; /* once is proof enough of "not in order" */
	}
	teardown(e);
	return torn;
}

void test_reader_none(void)
{
	/* no promise: the last block lands first, a reader sees the message torn */
	CU_ASSERT(poll_on_data("sim4", false, kTornTrials) >= 1);
}

void test_reader_aligned128(void)
{
	/* torn as a message, but every 128-byte block is whole once its last byte is */
	CU_ASSERT(poll_on_data("sim5", false, kTornTrials) >= 1);
	CU_ASSERT_EQUAL(poll_on_data("sim5", true, 3), 0);
}

void test_reader_whole_msg(void)
{
	/* the promise holds every time */
	CU_ASSERT_EQUAL(poll_on_data("sim6", false, 10), 0);
}

/* ---- the bytes themselves: every order moves exactly the message ---- */

void check_bytes(const char *name)
{
	Env e;

	setup(e, name);
	/* unaligned destinations and lengths around block edges */
	const uint32_t lens[] = {2, 127, 128, 129, 255, 256, 1000, 4097, 65536 + 77};
	const uint64_t offs[] = {0, 1, 63, 127, 128, 200};
	for (uint32_t len : lens)
		for (uint64_t off : offs) {
			memset(e.dst, 0, 2 * 65536 + 4096);
			post_write(e, 3, off, len);
			wait_ok(e, 1);
			CU_ASSERT_EQUAL(memcmp(e.dst + off, e.src + 3, len), 0);
			CU_ASSERT_EQUAL(e.dst[off + len], 0);
			if (off)
				CU_ASSERT_EQUAL(e.dst[off - 1], 0);
		}
	/* RDMA read: the response lands in local memory the same way */
	memset(e.dst, 0, 8192);
	ibv_wr_start(e.qpx);
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(e.qpx, e.src_mr->rkey, (uintptr_t)e.src + 5);
	ibv_wr_set_sge(e.qpx, e.dst_mr->lkey, (uintptr_t)e.dst + 70, 5000);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	wait_ok(e, 1);
	CU_ASSERT_EQUAL(memcmp(e.dst + 70, e.src + 5, 5000), 0);
	CU_ASSERT_EQUAL(e.dst[5070], 0);
	/* SEND into a receive WQE of three scattered pieces */
	memset(e.dst, 0, 8192);
	struct ibv_sge sge[3] = {{(uintptr_t)e.dst + 10, 300, e.dst_mr->lkey},
				 {(uintptr_t)e.dst + 1000, 77, e.dst_mr->lkey},
				 {(uintptr_t)e.dst + 4000, 1000, e.dst_mr->lkey}};
	struct ibv_recv_wr rwr = {}, *bad = nullptr;
	rwr.sg_list = sge;
	rwr.num_sge = 3;
	CU_ASSERT_EQUAL_FATAL(ibv_post_recv(e.qp, &rwr, &bad), 0);
	ibv_wr_start(e.qpx);
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(e.qpx);
	ibv_wr_set_sge(e.qpx, e.src_mr->lkey, (uintptr_t)e.src, 900);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	wait_ok(e, 2);
	CU_ASSERT_EQUAL(memcmp(e.dst + 10, e.src, 300), 0);
	CU_ASSERT_EQUAL(memcmp(e.dst + 1000, e.src + 300, 77), 0);
	CU_ASSERT_EQUAL(memcmp(e.dst + 4000, e.src + 377, 523), 0);
	CU_ASSERT_EQUAL(e.dst[4523], 0);
	CU_ASSERT_EQUAL(e.dst[310], 0);
	/* overlapping source and destination (loopback): memmove's result */
	for (size_t i = 0; i < 4096; i++)
		e.dst[i] = (uint8_t)i;
	uint8_t ref[4096];
	memcpy(ref, e.dst, sizeof(ref));
	memmove(ref + 100, ref, 3000);
	ibv_wr_start(e.qpx);
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(e.qpx, e.dst_mr->rkey, (uintptr_t)e.dst + 100);
	ibv_wr_set_sge(e.qpx, e.dst_mr->lkey, (uintptr_t)e.dst, 3000);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(e.qpx), 0);
	wait_ok(e, 1);
	CU_ASSERT_EQUAL(memcmp(e.dst, ref, sizeof(ref)), 0);
	teardown(e);
}

void test_bytes(void)
{
	check_bytes("sim7");
	check_bytes("sim8");
	check_bytes("sim9");
}

int add(const char *name, enum mlx5_sim_exec_mode mode, uint8_t dio)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.data_in_order = dio;
	return mlx5_sim_device_add(name, &attr);
}

void test_setup(void)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	CU_ASSERT_EQUAL(attr.data_in_order, MLX5_SIM_DATA_IN_ORDER_NONE);
	const enum mlx5_sim_exec_mode th = MLX5_SIM_EXEC_THREAD, in = MLX5_SIM_EXEC_INLINE;
	CU_ASSERT_EQUAL_FATAL(add("sim1", in, MLX5_SIM_DATA_IN_ORDER_NONE), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim2", in, MLX5_SIM_DATA_IN_ORDER_ALIGNED_128), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim3", in, MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim4", th, MLX5_SIM_DATA_IN_ORDER_NONE), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim5", th, MLX5_SIM_DATA_IN_ORDER_ALIGNED_128), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim6", th, MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim7", in, MLX5_SIM_DATA_IN_ORDER_NONE), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim8", th, MLX5_SIM_DATA_IN_ORDER_ALIGNED_128), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim9", in, MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG), 0);
	CU_ASSERT_EQUAL(add("sim10", in, 3), -EINVAL);
}

void test_remove(void)
{
	static const char *const names[] = {"sim1", "sim2", "sim3", "sim4", "sim5",
					    "sim6", "sim7", "sim8", "sim9"};

	for (const char *n : names)
		CU_ASSERT_EQUAL(mlx5_sim_device_remove(n), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"devices", test_setup},
		{"query with and without RETURN_CAPS", test_query},
		{"poll on data: no promise (thread)", test_reader_none},
		{"poll on data: ALIGNED_128_BYTES (thread)", test_reader_aligned128},
		{"poll on data: WHOLE_MSG (thread)", test_reader_whole_msg},
		{"bytes of write, read, send in every order", test_bytes},
		{"remove", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("prov_data_in_order", tests);
}
