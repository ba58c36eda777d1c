/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "Verify, then respond" workloads of mlx5-dma-shell: pairs of a T10-DIF protected
 * write of N 512-byte blocks, verified and stripped while copied, and a 64-byte
 * response fenced behind it (rte_pmd_dma_mlx5_sig_copy_respond()), with an error
 * response in its place when the verification fails. A share of the writes carries a
 * flipped data byte (its guard no longer matches). Each pair is checked: a good write
 * succeeds and its response lands; a bad one fails with DATA_POISION and, with
 * pipelining, the error response lands instead; anything else counts as corrupt.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "rte_blkint.h"
#include "shell.h"

namespace {

constexpr uint32_t kBlock = 512;
constexpr uint32_t kPi = 8;
constexpr uint32_t kResp = 64;
constexpr uint16_t kAppTag = 0x5e11;

/** One op of a pair, by ring index: the write, or its response. */
struct pair_op {
	uint64_t seq;
	bool bad; /**< the write carries a bad block */
	bool is_response;
	bool write_failed; /**< response: how its write ended */
};

/** The data of @p blocks blocks as shell_pi_protect() wrote it (before the PI). */
bool stripped_ok(const uint8_t *d, uint32_t blocks)
{
	for (uint32_t i = 0; i < blocks * kBlock; i++)
		if (d[i] != shell_pi_data_byte(i))
			return false;
	return true;
}

} // namespace

int shell_respond_worker(void *arg)
{
	auto *w = (shell_workload *)arg;
	const uint32_t blocks = w->size / kBlock, prot = blocks * (kBlock + kPi);
	const uint32_t pmask = w->nslots - 1, imask = 2 * w->nslots - 1;
	struct rte_pmd_dma_mlx5_sig_caps caps;
	bool pipelining = rte_pmd_dma_mlx5_sig_caps(w->dev, &caps) == 0 && caps.pipelining;
	auto *src = (uint8_t *)rte_malloc(NULL, (size_t)w->nslots * prot, 64);
	auto *dst = (uint8_t *)rte_malloc(NULL, (size_t)w->nslots * w->size, 64);
	auto *resp = (uint8_t *)rte_zmalloc(NULL, (size_t)(w->nslots + 2) * kResp, 64);
	auto *pairs = (pair_op *)rte_zmalloc(NULL, (size_t)(imask + 1) * sizeof(pair_op), 0);
	int ret = src && dst && resp && pairs ? 0 : -ENOMEM;
	uint8_t *ok_msg = resp, *err_msg = resp + kResp, *resp_dst = resp + 2 * kResp;

	/* every slot protected by the CPU (T10-DIF, ref tags from slot * blocks) */
	struct rte_blkint_format fmt = {};
	fmt.type = RTE_BLKINT_PI_T10DIF;
	fmt.block_size = kBlock;
	fmt.guard = RTE_BLKINT_GUARD_CRC16;
	fmt.flags = RTE_BLKINT_F_REF_INC;
	fmt.app_tag = kAppTag;
	if (ret == 0) {
		memset(ok_msg, 'K', kResp);
		memset(err_msg, 'E', kResp);
		ret = shell_pi_protect(w->id, &fmt, blocks, src, prot, w->nslots);
	}
	if (ret) {
		rte_free(src);
		rte_free(dst);
		rte_free(resp);
		rte_free(pairs);
		shell_workload_ready(w, ret);
		return ret;
	}
	shell_workload_ready(w, 0);
	uint64_t t0 = rte_get_timer_cycles();
	uint64_t seq = 0, inflight = 0;
	auto reap = [&]() {
		enum rte_dma_status_code st[256];
		uint16_t last = 0;
		uint16_t n = rte_dma_completed_status(w->dev, w->vchan, RTE_DIM(st), &last, st);
		uint64_t ok = 0, bad = 0, wrong = 0;
		for (uint16_t i = 0; i < n; i++) {
			uint16_t idx = (uint16_t)(last - (n - 1) + i);
			const pair_op &p = pairs[idx & imask];
			unsigned int k = st[i] < SHELL_STATUS_KINDS - 1 ? st[i]
									: SHELL_STATUS_KINDS - 1;
			w->c.status[k].fetch_add(1, std::memory_order_relaxed);
			if (!p.is_response) { /* the write: its response comes next */
				bool failed = st[i] != RTE_DMA_STATUS_SUCCESSFUL;
				pairs[(idx + 1) & imask].write_failed = failed;
				bad += failed;
				continue;
			}
			/* the response: what landed must be what the write's outcome calls for */
			uint32_t slot = (uint32_t)(p.seq & pmask);
			const uint8_t *want = p.bad && pipelining ? err_msg : ok_msg;
			bool right = p.write_failed == p.bad &&
				     st[i] == RTE_DMA_STATUS_SUCCESSFUL &&
				     memcmp(resp_dst + (size_t)slot * kResp, want, kResp) == 0;
			/* a good write's data, its PI stripped, as shell_pi_protect() made it */
			if (right && !p.bad && w->verify)
				right = stripped_ok(dst + (size_t)slot * w->size, blocks);
			wrong += !right;
			ok += right && !p.bad;
			if (p.bad) /* repair the slot's block for its next use */
				src[(size_t)slot * prot + 100] ^= 0x5a;
			memset(resp_dst + (size_t)slot * kResp, 0, kResp);
			inflight--;
		}
		w->c.completed.fetch_add(ok, std::memory_order_relaxed);
		w->c.bytes.fetch_add(ok * w->size, std::memory_order_relaxed);
		w->c.failed.fetch_add(bad, std::memory_order_relaxed);
		w->c.corrupt.fetch_add(wrong, std::memory_order_relaxed);
	};
	while (!w->stop.load(std::memory_order_relaxed)) {
		uint16_t n = 0, room = shell_rate_room(w, &t0, seq, w->batch);
		while (n < room && inflight < pmask) {
			uint32_t slot = (uint32_t)(seq & pmask);
			bool bad = shell_bad_op(seq, w->bad_permille);
			struct rte_dma_sge s = {rte_malloc_virt2iova(src) + (size_t)slot * prot,
						prot};
			struct rte_dma_sge d = {rte_malloc_virt2iova(dst) + (size_t)slot * w->size,
						w->size};
			struct rte_pmd_dma_mlx5_sig_xfer x = {};
			struct rte_pmd_dma_mlx5_sig_response r = {};
			x.src = &s;
			x.dst = &d;
			x.nb_src = x.nb_dst = 1;
			x.src_dom.type = RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC;
			x.src_dom.block_size = kBlock;
			x.src_dom.flags = RTE_PMD_DMA_MLX5_SIG_F_REF_INC;
			x.src_dom.app_tag = kAppTag;
			x.src_dom.ref_tag = slot * blocks;
			r.src = rte_malloc_virt2iova(resp);
			r.dst = rte_malloc_virt2iova(resp) + (2 + (size_t)slot) * kResp;
			r.len = kResp;
			r.err_src = rte_malloc_virt2iova(resp) + kResp;
			r.err_len = kResp;
			if (bad)
				src[(size_t)slot * prot + 100] ^= 0x5a; /* data of block 0 */
			int idx = rte_pmd_dma_mlx5_sig_copy_respond(w->dev, w->vchan, &x, &r, 0);
			if (idx < 0) {
				if (bad)
					src[(size_t)slot * prot + 100] ^= 0x5a;
				w->c.busy.fetch_add(1, std::memory_order_relaxed);
				break;
			}
			pairs[idx & imask] = pair_op{seq, bad, false, false};
			pairs[(idx + 1) & imask] = pair_op{seq, bad, true, false};
			seq++;
			inflight++;
			n++;
		}
		if (n) {
			rte_dma_submit(w->dev, w->vchan);
			w->c.submitted.fetch_add(n, std::memory_order_relaxed);
		}
		reap();
	}
	if (!shell_drain(inflight, reap))
		return -ETIMEDOUT; /* the buffers stay: the device may still write there */
	rte_free(src);
	rte_free(dst);
	rte_free(resp);
	rte_free(pairs);
	return ret;
}

int shell_workload_start_respond(int16_t dev, uint16_t vchan, uint32_t blocks,
				 uint32_t bad_permille, uint16_t batch, unsigned int lcore)
{
	struct rte_pmd_dma_mlx5_sig_caps caps;
	struct rte_dma_info info;

	if (rte_pmd_dma_mlx5_sig_caps(dev, &caps) != 0 || !caps.enabled) {
		shell_fail("device %d: no dma_mlx5 signature offload (probe it with sig=1)", dev);
		return -1;
	}
	if (rte_dma_info_get(dev, &info) != 0 || vchan >= info.nb_vchans) {
		shell_fail("device %d has no vchan %u set up", dev, vchan);
		return -1;
	}
	if (blocks == 0 || blocks > 64) {
		shell_fail("blocks %u out of range: 1..64", blocks);
		return -1;
	}
	if (bad_permille > 1000) {
		shell_fail("bad writes %u per mille out of range: 0..1000", bad_permille);
		return -1;
	}
	shell_workload *w = shell_workload_prepare(SHELL_OP_RESPOND, dev, vchan, blocks * kBlock,
						   batch, lcore);
	if (!w)
		return -1;
	w->bad_permille = bad_permille;
	snprintf(w->label, sizeof(w->label), "verify+respond (%u blocks, %u per mille bad)", blocks,
		 bad_permille);
	return shell_workload_launch(w, shell_respond_worker);
}
