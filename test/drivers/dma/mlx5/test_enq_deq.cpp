/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_enq_deq: DPDK 25.11's enqueue/dequeue ops API on dma_mlx5 (built only against
 * a DPDK that has it): copies and SG copies as rte_dma_ops, each handed back once, in
 * order, with its own status (a bad source address fails that op alone, the ops after
 * it complete); the data; a device configured without RTE_DMA_CFG_FLAG_ENQ_DEQ takes
 * no op; a stopped one takes none and gives back what it holds; in every mode of the
 * test matrix. Through the public API only, with the PMD and the software HCA loaded as
 * plugins (EAL arguments from meson: -d each), as an application has them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

#include <rte_bus_vdev.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "cunit_run.h"

namespace {

/* software HCA execution mode x posting path; the PMD creates the instances */
struct t_mode {
	const char *args;
};
const struct t_mode t_modes[] = {
	{"dev=sim1,sim_exec=inline,path=direct"},
	{"dev=sim1,sim_exec=inline,path=verbs"},
	{"dev=sim2,sim_exec=thread,path=direct"},
	{"dev=sim2,sim_exec=thread,path=verbs"},
};
#define T_FOREACH_MODE(m) for (const struct t_mode *m = t_modes; m != t_modes + 4; m++)

uint64_t t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

rte_iova_t t_iova(const void *p)
{
	return (rte_iova_t)(uintptr_t)p; /* IOVA as VA */
}

void t_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/* A DPDK source and destination buffer of @p n bytes each. */
struct t_bufs {
	uint8_t *src;
	uint8_t *dst;

	explicit t_bufs(size_t n)
		: src((uint8_t *)rte_malloc(NULL, n, 64)), dst((uint8_t *)rte_zmalloc(NULL, n, 64))
	{
	}
	~t_bufs()
	{
		rte_free(src);
		rte_free(dst);
	}
	t_bufs(const t_bufs &) = delete;
	t_bufs &operator=(const t_bufs &) = delete;
	bool ok() const { return src && dst; }
};

constexpr uint16_t kDesc = 256;
constexpr uint32_t kLen = 1000; /* per op and side */
constexpr uint16_t kOps = 96;   /* per burst: every 3rd an SG op */
constexpr uint16_t kBad = 40;   /* this op's source is not DPDK memory */
constexpr uint16_t kSgSrc = 2, kSgDst = 3;

const char *const kName = "dma_mlx5_enq";

struct rte_dma_op *op_new(uint16_t nb_src, uint16_t nb_dst)
{
	auto *op = (struct rte_dma_op *)rte_zmalloc(
		NULL, sizeof(struct rte_dma_op) + (nb_src + nb_dst) * sizeof(struct rte_dma_sge),
		0);

	if (op) {
		op->nb_src = nb_src;
		op->nb_dst = nb_dst;
	}
	return op;
}

/* Probe and start one vchan; @p flags for rte_dma_configure(). The dmadev id or < 0. */
int open_dev(const struct t_mode *m, uint64_t flags)
{
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vconf = {};
	int id;

	if (rte_vdev_init(kName, m->args))
		return -1;
	id = rte_dma_get_dev_id_by_name(kName);
	if (id < 0)
		return id;
	conf.nb_vchans = 1;
	conf.flags = flags;
	vconf.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vconf.nb_desc = kDesc;
	if (rte_dma_configure(id, &conf) || rte_dma_vchan_setup(id, 0, &vconf) ||
	    rte_dma_start(id)) {
		rte_vdev_uninit(kName);
		return -1;
	}
	return id;
}

/* Stop and remove the device: 0 on success. */
int t_close(void)
{
	int id = rte_dma_get_dev_id_by_name(kName);

	if (id < 0)
		return id;
	rte_dma_stop(id);
	return rte_vdev_uninit(kName);
}

/* Dequeue until @p n ops came back or 5 s passed. */
uint16_t dequeue_all(int id, struct rte_dma_op **out, uint16_t n)
{
	uint16_t got = 0;
	uint64_t deadline = t_now_ms() + 5000;

	while (got < n && t_now_ms() < deadline)
		got += rte_dma_dequeue_ops(id, 0, out + got, n - got);
	return got;
}

void test_capability(void)
{
	struct rte_dma_info info;
	int id = open_dev(&t_modes[0], 0);

	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_dma_info_get(id, &info), 0);
	CU_ASSERT_TRUE((info.dev_capa & RTE_DMA_CAPA_OPS_ENQ_DEQ) != 0);
	CU_ASSERT_EQUAL(t_close(), 0);
}

void test_ops_and_statuses(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(kOps * kLen);
		std::vector<uint8_t> heap(kLen); /* libc memory: no MR covers it */
		std::vector<struct rte_dma_op *> ops(kOps), back(kOps);
		int id = open_dev(m, RTE_DMA_CFG_FLAG_ENQ_DEQ);
		uint16_t n;

		CU_ASSERT_FATAL(id >= 0 && b.ok());
		for (uint16_t round = 0; round < 3; round++) { /* the ring wraps */
			t_fill(b.src, kOps * kLen, round + 1);
			memset(b.dst, 0, kOps * kLen);
			for (uint16_t i = 0; i < kOps; i++) {
				bool sg = i % 3 == 2;
				struct rte_dma_op *op = sg ? op_new(kSgSrc, kSgDst) : op_new(1, 1);
				struct rte_dma_sge *seg;
				rte_iova_t src = t_iova(b.src + (size_t)i * kLen);
				rte_iova_t dst = t_iova(b.dst + (size_t)i * kLen);

				CU_ASSERT_FATAL(op != NULL);
				seg = op->src_dst_seg;
				if (!sg) {
					seg[0] = {i == kBad ? t_iova(heap.data()) : src, kLen};
					seg[1] = {dst, kLen};
				} else { /* 400 + 600 bytes into 300 + 300 + 400 */
					seg[0] = {src, 400};
					seg[1] = {src + 400, 600};
					seg[2] = {dst, 300};
					seg[3] = {dst + 300, 300};
					seg[4] = {dst + 600, 400};
				}
				op->user_meta = i;
				op->status = RTE_DMA_STATUS_ERROR_UNKNOWN;
				ops[i] = op;
			}
			n = 0;
			for (uint64_t end = t_now_ms() + 5000; n < kOps && t_now_ms() < end;)
				n += rte_dma_enqueue_ops(id, 0, ops.data() + n,
							 kOps - n); /* in parts */
			CU_ASSERT_EQUAL(n, kOps);
			CU_ASSERT_EQUAL(dequeue_all(id, back.data(), n), n);
			for (uint16_t i = 0; i < n; i++) {
				CU_ASSERT_PTR_EQUAL(back[i], ops[i]); /* each once, in order */
				if (back[i] != ops[i])
					break;
				if (i == kBad) {
					CU_ASSERT_EQUAL(ops[i]->status,
							RTE_DMA_STATUS_INVALID_SRC_ADDR);
					continue;
				}
				CU_ASSERT_EQUAL(ops[i]->status, RTE_DMA_STATUS_SUCCESSFUL);
				CU_ASSERT_EQUAL(memcmp(b.src + (size_t)i * kLen,
						       b.dst + (size_t)i * kLen, kLen),
						0);
			}
			/* nothing more */
			CU_ASSERT_EQUAL(rte_dma_dequeue_ops(id, 0, back.data(), kOps), 0);
			for (auto *op : ops)
				rte_free(op);
		}
		CU_ASSERT_EQUAL(t_close(), 0);
	}
}

void test_mode_off(void)
{
	struct rte_dma_op *op = op_new(1, 1);
	t_bufs b(kLen);
	int id = open_dev(&t_modes[0], 0);

	CU_ASSERT_FATAL(id >= 0 && op && b.ok());
	op->src_dst_seg[0] = {t_iova(b.src), kLen};
	op->src_dst_seg[1] = {t_iova(b.dst), kLen};
	CU_ASSERT_EQUAL(rte_dma_enqueue_ops(id, 0, &op, 1), 0);
	CU_ASSERT_EQUAL(rte_dma_dequeue_ops(id, 0, &op, 1), 0);
	CU_ASSERT_EQUAL(t_close(), 0);
	rte_free(op);
}

void test_stopped(void)
{
	T_FOREACH_MODE (m) {
		struct rte_dma_op *op = op_new(1, 1), *back = NULL;
		t_bufs b(kLen);
		int id = open_dev(m, RTE_DMA_CFG_FLAG_ENQ_DEQ);

		CU_ASSERT_FATAL(id >= 0 && op && b.ok());
		op->src_dst_seg[0] = {t_iova(b.src), kLen};
		op->src_dst_seg[1] = {t_iova(b.dst), kLen};
		CU_ASSERT_EQUAL(rte_dma_enqueue_ops(id, 0, &op, 1), 1);
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		/* what the stop found done or aborted comes back once; nothing is taken */
		CU_ASSERT_EQUAL(rte_dma_dequeue_ops(id, 0, &back, 1), 1);
		CU_ASSERT_PTR_EQUAL(back, op);
		CU_ASSERT_TRUE(op->status == RTE_DMA_STATUS_SUCCESSFUL ||
			       op->status == RTE_DMA_STATUS_USER_ABORT);
		CU_ASSERT_EQUAL(rte_dma_enqueue_ops(id, 0, &op, 1), 0);
		CU_ASSERT_EQUAL(rte_dma_dequeue_ops(id, 0, &back, 1), 0);
		/* started again: the ops API works as before */
		CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		CU_ASSERT_EQUAL(rte_dma_enqueue_ops(id, 0, &op, 1), 1);
		CU_ASSERT_EQUAL(dequeue_all(id, &back, 1), 1);
		CU_ASSERT_EQUAL(op->status, RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(t_close(), 0);
		rte_free(op);
	}
}

} // namespace

int main(int argc, char **argv)
{
	static const struct cunit_test tests[] = {
		{"RTE_DMA_CAPA_OPS_ENQ_DEQ advertised", test_capability},
		{"copy and SG ops: each back once, in order, own status", test_ops_and_statuses},
		{"configured without ENQ_DEQ: no op taken", test_mode_off},
		{"stopped: nothing taken, what it holds given back", test_stopped},
	};
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	ret = CUNIT_RUN_SUITE("enq_deq", tests);
	rte_eal_cleanup();
	return ret;
}
