/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-op errors: unregistered addresses, external memory mapped and unmapped,
 * bad lengths, op flags, injected device faults, and rte_pmd_dma_mlx5_last_error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "mlx5_hw.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kChunk = 1024;

/* malloc()'d memory as src and as dst: that op fails, its neighbours succeed. */
void test_unregistered_addr(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(8 * kChunk);
		uint8_t *heap = (uint8_t *)aligned_alloc(64, 2 * kChunk);
		int id = t_open("dma_mlx5_ua", t_args(m, NULL), 1, 32);
		struct rte_pmd_dma_mlx5_error e;
		enum rte_dma_status_code st[8];
		struct rte_dma_stats stats;
		uint16_t last = 0;
		bool err = false;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.src && b.dst && heap);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), -ENOENT);
		t_fill(b.src, 8 * kChunk, 21);
		t_fill(heap, 2 * kChunk, 22);
		for (int i = 0; i < 8; i++) {
			rte_iova_t s = t_iova(b.src + i * kChunk), d = t_iova(b.dst + i * kChunk);

			if (i == 2)
				s = t_iova(heap);
			if (i == 4)
				d = t_iova(heap + kChunk);
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, s, d, kChunk,
						     i == 7 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					i);
		}
		/* completed(): stops before the failure, sticky until completed_status() */
		CU_ASSERT_EQUAL(t_wait_done(id, 0, 8, &last, &err), 2);
		CU_ASSERT_TRUE(err);
		CU_ASSERT_EQUAL(last, 1);
		CU_ASSERT_EQUAL(rte_dma_completed(id, 0, 8, &last, &err), 0);
		CU_ASSERT_TRUE(err);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 6, st, &last), 6);
		CU_ASSERT_EQUAL(last, 7);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_INVALID_DST_ADDR);
		for (int i = 3; i < 6; i++)
			CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
		for (int i = 0; i < 8; i++) {
			bool zero = true;

			for (size_t k = 0; k < kChunk; k++)
				zero = zero && b.dst[i * kChunk + k] == 0;
			if (i == 2 || i == 4) {
				CU_ASSERT_TRUE(zero);
			} else {
				CU_ASSERT_EQUAL(
					memcmp(b.src + i * kChunk, b.dst + i * kChunk, kChunk), 0);
			}
		}
		CU_ASSERT_TRUE(t_check(heap, 2 * kChunk, 22)); /* never touched */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		CU_ASSERT_EQUAL(e.ring_idx, 4);
		CU_ASSERT_EQUAL(e.syndrome, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_EQUAL(e.wqe_opcode, MLX5_OPCODE_MMO);
		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.submitted, 8);
		CU_ASSERT_EQUAL(stats.completed, 8);
		CU_ASSERT_EQUAL(stats.errors, 2);
		/* a range that starts in DPDK memory and ends outside of any MR */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(heap), t_iova(heap + kChunk), 64,
					     RTE_DMA_OP_FLAG_SUBMIT),
				8);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 1, st, &last), 1);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_ua"), 0);
		free(heap);
	}
}

/* One copy on vchan 0 from @p s to @p d, its status. */
enum rte_dma_status_code copy_status(int id, const void *s, void *d, uint32_t len)
{
	enum rte_dma_status_code st = RTE_DMA_STATUS_ERROR_UNKNOWN;
	uint16_t last;

	if (rte_dma_copy(id, 0, t_iova(s), t_iova(d), len, RTE_DMA_OP_FLAG_SUBMIT) < 0)
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	if (t_wait_status(id, 0, 1, &st, &last) != 1)
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	return st;
}

/* rte_extmem_register + rte_dev_dma_map makes memory usable; unmap takes it away. */
void test_extmem(void)
{
	constexpr size_t kExt = 64 * 1024;

	T_FOREACH_MODE (m) {
		t_bufs b(kExt);
		uint8_t *ext = (uint8_t *)mmap(NULL, kExt, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int id = t_open("dma_mlx5_ext", t_args(m, NULL), 1, 32);
		struct rte_device *dev = t_find_vdev("dma_mlx5_ext");

		CU_ASSERT_TRUE_FATAL(id >= 0 && dev && ext != MAP_FAILED && b.src && b.dst);
		t_fill(ext, kExt, 31);
		t_fill(b.src, kExt, 32);
		CU_ASSERT_EQUAL_FATAL(rte_extmem_register(ext, kExt, NULL, 0, 4096), 0);
		CU_ASSERT_EQUAL(copy_status(id, ext, b.dst, 4096), RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_NOT_EQUAL(rte_dev_dma_map(dev, ext, t_iova(ext) + 4096, kExt), 0);
		CU_ASSERT_EQUAL(rte_dev_dma_map(dev, ext, t_iova(ext), kExt), 0);
		CU_ASSERT_EQUAL(copy_status(id, ext, b.dst, kExt), RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(t_check(b.dst, kExt, 31));
		CU_ASSERT_EQUAL(copy_status(id, b.src, ext + 4096, 8192),
				RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(t_check(ext + 4096, 8192, 32));
		/* one byte past the mapping */
		CU_ASSERT_EQUAL(copy_status(id, b.src, ext + kExt - 64, 65),
				RTE_DMA_STATUS_INVALID_DST_ADDR);
		CU_ASSERT_EQUAL(rte_dev_dma_unmap(dev, ext, t_iova(ext), kExt), 0);
		CU_ASSERT_EQUAL(copy_status(id, ext, b.dst, 4096), RTE_DMA_STATUS_INVALID_SRC_ADDR);
		CU_ASSERT_EQUAL(copy_status(id, b.src, ext, 4096), RTE_DMA_STATUS_INVALID_DST_ADDR);
		CU_ASSERT_EQUAL(copy_status(id, b.src, b.dst, 4096), RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(rte_extmem_unregister(ext, kExt), 0);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_ext"), 0);
		munmap(ext, kExt);
	}
}

/* Length 0 and above the device maximum: INVALID_LENGTH for that op only. */
void test_bad_length(void)
{
	static const uint32_t lens[] = {T_SMALL_MAX_LEN, 0, T_SMALL_MAX_LEN + 1, 1, T_SMALL_MAX_LEN,
					0x80000000u,     17};

	T_FOREACH_MODE (m) {
		struct t_mode small = *m;
		constexpr int n = RTE_DIM(lens);
		t_bufs b(n * 2 * T_SMALL_MAX_LEN);
		struct rte_pmd_dma_mlx5_caps caps;
		enum rte_dma_status_code st[n];
		uint16_t last;

		small.sim = m->thread ? T_SIM_SMALL_THREAD : T_SIM_SMALL_INLINE;
		int id;

		/* --kernel: no device with a 4 KiB limit there; the full-limit part runs */
		if (m->sim == t_kernel_dev)
			goto full;
		id = t_open("dma_mlx5_len", t_args(&small, NULL), 1, 32);

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.src && b.dst);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), 0);
		CU_ASSERT_EQUAL(caps.max_wr_memcpy_length, T_SMALL_MAX_LEN);
		t_fill(b.src, n * 2 * T_SMALL_MAX_LEN, 41);
		for (int i = 0; i < n; i++) {
			size_t off = (size_t)i * 2 * T_SMALL_MAX_LEN;
			uint32_t len = lens[i];

			/* the 2 GiB op names a range no MR covers: the length is checked first */
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + off),
						     t_iova(b.dst + off), len,
						     i == n - 1 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					i);
		}
		CU_ASSERT_EQUAL(t_wait_status(id, 0, n, st, &last), n);
		for (int i = 0; i < n; i++) {
			size_t off = (size_t)i * 2 * T_SMALL_MAX_LEN;
			bool good = lens[i] && lens[i] <= T_SMALL_MAX_LEN;

			CU_ASSERT_EQUAL(st[i], good ? RTE_DMA_STATUS_SUCCESSFUL
						    : RTE_DMA_STATUS_INVALID_LENGTH);
			if (good) {
				CU_ASSERT_EQUAL(memcmp(b.src + off, b.dst + off, lens[i]), 0);
			} else {
				CU_ASSERT_EQUAL(b.dst[off], 0);
			}
		}
		CU_ASSERT_EQUAL(t_close("dma_mlx5_len"), 0);
	full:
		/* also on a device with the full 2 GiB limit: length 0 is refused */
		id = t_open("dma_mlx5_len", t_args(m, NULL), 1, 32);
		CU_ASSERT_TRUE_FATAL(id >= 0);
		CU_ASSERT_EQUAL(copy_status(id, b.src, b.dst, 0), RTE_DMA_STATUS_INVALID_LENGTH);
		CU_ASSERT_EQUAL(copy_status(id, b.src, b.dst, 3 * T_SMALL_MAX_LEN),
				RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_len"), 0);
	}
}

/* FENCE and LLC are accepted on every op and never cause an error. */
void test_flags(void)
{
	static const uint64_t flags[] = {
		RTE_DMA_OP_FLAG_FENCE,
		RTE_DMA_OP_FLAG_LLC,
		0,
		RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_LLC,
		RTE_DMA_OP_FLAG_LLC,
		RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_LLC | RTE_DMA_OP_FLAG_SUBMIT,
	};

	T_FOREACH_MODE (m) {
		constexpr int n = RTE_DIM(flags);
		t_bufs b(n * kChunk);
		int id = t_open("dma_mlx5_fl", t_args(m, NULL), 1, 32);
		enum rte_dma_status_code st[n];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.src && b.dst);
		for (int i = 0; i < n; i++)
			t_fill(b.src + i * kChunk, kChunk, 51);
		/* a fenced op reads what the op before it wrote: the fence orders them */
		for (int i = 0; i < n; i++) {
			const uint8_t *s = i && (flags[i] & RTE_DMA_OP_FLAG_FENCE)
						   ? b.dst + (i - 1) * kChunk
						   : b.src + i * kChunk;

			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(s), t_iova(b.dst + i * kChunk),
						     kChunk, flags[i]),
					i);
		}
		CU_ASSERT_EQUAL(t_wait_status(id, 0, n, st, &last), n);
		for (int i = 0; i < n; i++) {
			CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_TRUE(t_check(b.dst + i * kChunk, kChunk, 51));
		}
		CU_ASSERT_EQUAL(t_close("dma_mlx5_fl"), 0);
	}
}

/*
 * Device faults injected through a context of our own on the same software HCA:
 * a WQE failed with a chosen syndrome is reported with it, and a QP moved to ERR
 * behind the PMD's back is recovered without losing an op.
 */
void test_injected_faults(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(8 * kChunk);
		int id = t_open("dma_mlx5_flt", t_args(m, NULL), 1, 32);
		struct ibv_context *ctx = t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct rte_pmd_dma_mlx5_error e;
		struct mlx5_sim_fault f = {};
		enum rte_dma_status_code st[8];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && ctx && b.src && b.dst);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		t_fill(b.src, 8 * kChunk, 61);
		/* op 3 sits in WQE 3 of a freshly started vchan */
		f.kind = MLX5_SIM_FAULT_FAIL_WQE;
		f.qpn = vi.qpn;
		f.wqe_index = 3;
		f.syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
		f.vendor_syndrome = 0x42;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		for (int i = 0; i < 8; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * kChunk),
						     t_iova(b.dst + i * kChunk), kChunk,
						     i == 7 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					i);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
		for (int i = 0; i < 8; i++) {
			CU_ASSERT_EQUAL(st[i], i == 3 ? RTE_DMA_STATUS_INVALID_ADDR
						      : RTE_DMA_STATUS_SUCCESSFUL);
			if (i != 3)
				CU_ASSERT_EQUAL(
					memcmp(b.src + i * kChunk, b.dst + i * kChunk, kChunk), 0);
		}
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		struct rte_pmd_dma_mlx5_vchan_stats vs;
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_stats(id, 0, &vs), 0);
		CU_ASSERT_EQUAL(vs.recoveries, 1u); /* the QP reset after op 3 */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_stats(id, 0, NULL), -EINVAL);
		CU_ASSERT_EQUAL(e.ring_idx, 3);
		CU_ASSERT_EQUAL(e.syndrome, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		CU_ASSERT_EQUAL(e.vendor_syndrome, 0x42);
		CU_ASSERT_EQUAL(e.wqe_opcode, MLX5_OPCODE_MMO);
		/* QP to ERR: the next ops are flushed by the device, re-posted by the PMD */
		memset(b.dst, 0, 8 * kChunk);
		f = {};
		f.kind = MLX5_SIM_FAULT_QP_FATAL;
		f.qpn = vi.qpn;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		for (int i = 0; i < 8; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * kChunk),
						     t_iova(b.dst + i * kChunk), kChunk,
						     i % 4 == 3 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					8 + i);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 8, st, &last), 8);
		CU_ASSERT_EQUAL(last, 15);
		for (int i = 0; i < 8; i++)
			CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(memcmp(b.src, b.dst, 8 * kChunk), 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		CU_ASSERT_EQUAL(e.ring_idx, 3); /* a flush is not an op's failure */
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_stats(id, 0, &vs), 0);
		CU_ASSERT_EQUAL(vs.recoveries, 2u); /* and after the QP's fatal error */
		/* the next WQE, whatever its index; flags the device does not know */
		f = {};
		f.kind = MLX5_SIM_FAULT_FAIL_WQE;
		f.qpn = vi.qpn;
		f.flags = 0x80;
		f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), -EINVAL);
		f.flags = MLX5_SIM_FAULT_F_NEXT_WQE;
		f.wqe_index = 3; /* ignored */
		CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
		for (int i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + i * kChunk),
						     t_iova(b.dst + i * kChunk), kChunk,
						     i == 3 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					16 + i);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 4, st, &last), 4);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_INVALID_ADDR);
		for (int i = 1; i < 4; i++)
			CU_ASSERT_EQUAL(st[i], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_last_error(id, 0, &e), 0);
		CU_ASSERT_EQUAL(e.ring_idx, 16);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_flt"), 0);
		t_sim_ctx_close(ctx);
	}
}

/*
 * Syndromes without a precise status (MW_BIND, REMOTE_INVAL_REQ, REMOTE_ABORTED) end
 * RTE_DMA_STATUS_ERROR_UNKNOWN (0x100), which needs more than 8 bits per op: the op
 * once came back SUCCESSFUL with its data never moved.
 */
void test_unknown_syndrome(void)
{
	static const uint8_t synds[] = {MLX5_CQE_SYNDROME_MW_BIND_ERR,
					MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
					MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR};

	T_FOREACH_MODE (m) {
		t_bufs b(4 * kChunk);
		int id = t_open("dma_mlx5_unk", t_args(m, NULL), 1, 32);
		struct ibv_context *ctx = t_sim_ctx_open(m->sim);
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct rte_dma_stats stats;
		uint16_t next = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && ctx && b.ok());
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id, 0, &vi), 0);
		t_fill(b.src, 4 * kChunk, 71);
		for (uint8_t synd : synds) {
			struct mlx5_sim_fault f = {};
			enum rte_dma_status_code st[2];
			uint16_t last;

			uint32_t cqn;

			/* a failure resets the QP and re-posts: aim at the next op's WQE */
			f.kind = MLX5_SIM_FAULT_FAIL_WQE;
			f.qpn = vi.qpn;
			CU_ASSERT_EQUAL(test_hook_next_wqe(id, 0, &f.wqe_index, &cqn), 0);
			f.syndrome = synd;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ctx, &f), 0);
			memset(b.dst, 0, 4 * kChunk);
			CU_ASSERT_EQUAL(
				rte_dma_copy(id, 0, t_iova(b.src), t_iova(b.dst), kChunk, 0),
				next++);
			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(b.src + kChunk),
						     t_iova(b.dst + kChunk), kChunk,
						     RTE_DMA_OP_FLAG_SUBMIT),
					next++);
			CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
			CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_ERROR_UNKNOWN);
			CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_EQUAL(memcmp(b.src + kChunk, b.dst + kChunk, kChunk), 0);
		}
		CU_ASSERT_EQUAL(rte_dma_stats_get(id, 0, &stats), 0);
		CU_ASSERT_EQUAL(stats.errors, RTE_DIM(synds));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_unk"), 0);
		t_sim_ctx_close(ctx);
	}
}

/*
 * completed() that stops short of a failed op it has not reached yet (nb_cpls below
 * what the CQ holds): the CQEs it consumed up to that op free their SQ slots, so
 * they must be handed back to the device too. Then a full ring of one-op bursts
 * behind them: every op is reported, nothing overruns the CQ.
 */
void test_cq_handed_back_before_error(void)
{
	T_FOREACH_MODE (m) {
		t_bufs b(256 * 64);
		uint8_t *heap = (uint8_t *)malloc(64);
		int id = t_open("dma_mlx5_cqhb", t_args(m, NULL), 1, 64);
		enum rte_dma_status_code st[256];
		uint16_t last = 0;
		bool err = false;
		int k = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && b.src && b.dst && heap);
		t_fill(b.src, 256 * 64, 23);
		for (int i = 0; i < 10; i++) {
			rte_iova_t s = t_iova(i == 5 ? heap : b.src + i * 64);

			CU_ASSERT_EQUAL(rte_dma_copy(id, 0, s, t_iova(b.dst + i * 64), 64,
						     RTE_DMA_OP_FLAG_SUBMIT),
					i);
		}
		usleep(50 * 1000); /* thread mode: the device has written every CQE */
		CU_ASSERT_EQUAL(rte_dma_completed(id, 0, 3, &last, &err), 3);
		CU_ASSERT_FALSE(err);
		while (k < 200 &&
		       rte_dma_copy(id, 0, t_iova(b.src + (10 + k) * 64),
				    t_iova(b.dst + (10 + k) * 64), 64, RTE_DMA_OP_FLAG_SUBMIT) >= 0)
			k++;
		CU_ASSERT_TRUE(k > 0);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, (uint16_t)(7 + k), st, &last), 7 + k);
		CU_ASSERT_EQUAL(last, (uint16_t)(9 + k));
		for (int i = 0; i < 7 + k; i++)
			CU_ASSERT_EQUAL(st[i], i == 2 ? RTE_DMA_STATUS_INVALID_SRC_ADDR
						      : RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(t_close("dma_mlx5_cqhb"), 0);
		free(heap);
	}
}

const struct cunit_test tests[] = {
	{"unregistered_addr", test_unregistered_addr},
	{"extmem_map_unmap", test_extmem},
	{"bad_length", test_bad_length},
	{"op_flags", test_flags},
	{"injected_faults", test_injected_faults},
	{"unknown_syndrome", test_unknown_syndrome},
	{"cq_handed_back_before_error", test_cq_handed_back_before_error},
};

} // namespace

const struct cunit_suite t_suite_errors = CUNIT_SUITE("errors", tests);
