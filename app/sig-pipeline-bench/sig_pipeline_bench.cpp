/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sig-pipeline-bench: "verify, then respond" on dma_mlx5 (sig=1).
 *  1. good-path latency of one write (T10-DIF blocks verified while copied) and its
 *     response: pipelined (rte_pmd_dma_mlx5_sig_copy_respond(), the response fenced
 *     behind the transfer) vs sequential (wait for the transfer's status, then post
 *     the response);
 *  2. throughput of a stream of such writes with 1 % bad blocks, both ways, with the
 *     failures each way found.
 * TSC cycles on the application core; timings mean something only on an idle machine.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"

namespace {

constexpr uint16_t kBs = 512;
constexpr uint32_t kPi = 8;
constexpr uint32_t kSlots = 64; /* distinct write buffers cycled through */
constexpr uint32_t kResp = 64;

struct opts {
	const char *engine = "dma_mlx5";
	uint32_t ops = 2000;
	uint32_t blocks = 8;
	double bad_pct = 1.0;
};

struct bench {
	int16_t dev;
	uint32_t blocks;
	uint8_t *rx;   /* kSlots writes: data + PI */
	uint8_t *out;  /* kSlots cache buffers */
	uint8_t *resp; /* response capsules */
	uint8_t *tx;   /* where responses go */
	std::vector<bool> bad_slot;
};

struct rte_pmd_dma_mlx5_sig_domain dif(uint32_t lba)
{
	struct rte_pmd_dma_mlx5_sig_domain d = {};

	d.type = RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC;
	d.block_size = kBs;
	d.flags = RTE_PMD_DMA_MLX5_SIG_F_REF_INC;
	d.ref_tag = lba;
	return d;
}

size_t wbytes(const bench &b)
{
	return (size_t)b.blocks * (kBs + kPi);
}

struct rte_pmd_dma_mlx5_sig_xfer xfer(const bench &b, uint32_t slot, struct rte_dma_sge *s,
				      struct rte_dma_sge *d)
{
	struct rte_pmd_dma_mlx5_sig_xfer x = {};

	*s = {(rte_iova_t)(uintptr_t)(b.rx + slot * wbytes(b)), (uint32_t)wbytes(b)};
	*d = {(rte_iova_t)(uintptr_t)(b.out + slot * wbytes(b)), (uint32_t)wbytes(b)};
	x.src = s;
	x.dst = d;
	x.nb_src = x.nb_dst = 1;
	x.src_dom = x.dst_dom = dif(slot * b.blocks);
	return x;
}

/* Wait for @p n completions; count the failed ones. */
void reap(int16_t dev, uint32_t n, uint32_t *failed)
{
	enum rte_dma_status_code st[64];
	uint16_t last;

	while (n) {
		uint16_t k = rte_dma_completed_status(dev, 0, RTE_MIN(n, 64u), &last, st);

		for (uint16_t i = 0; i < k; i++)
			*failed += st[i] == RTE_DMA_STATUS_DATA_POISION;
		n -= k;
	}
}

/* The writes: plain data given PI by the device itself (insert), then 1 % spoiled. */
int prepare(bench &b, double bad_pct)
{
	std::vector<uint8_t> plain((size_t)b.blocks * kBs);
	uint32_t failed = 0;

	b.bad_slot.assign(kSlots, false);
	for (uint32_t s = 0; s < kSlots; s++) {
		struct rte_dma_sge src = {(rte_iova_t)(uintptr_t)b.out, b.blocks * kBs}, dst;
		struct rte_pmd_dma_mlx5_sig_xfer x = {};

		for (size_t i = 0; i < plain.size(); i++)
			plain[i] = (uint8_t)(s * 31 + i * 7 + (i >> 9));
		memcpy(b.out, plain.data(), plain.size());
		dst = {(rte_iova_t)(uintptr_t)(b.rx + s * wbytes(b)), (uint32_t)wbytes(b)};
		x.src = &src;
		x.dst = &dst;
		x.nb_src = x.nb_dst = 1;
		x.dst_dom = dif(s * b.blocks);
		if (rte_pmd_dma_mlx5_sig_copy(b.dev, 0, &x, RTE_DMA_OP_FLAG_SUBMIT) < 0)
			return -1;
		reap(b.dev, 1, &failed);
	}
	/* bad blocks at the given rate, spread over the slots */
	uint32_t total = kSlots * b.blocks, nbad = (uint32_t)(total * bad_pct / 100.0 + 0.5);

	for (uint32_t k = 0; k < nbad; k++) {
		uint32_t blk = (uint32_t)(((uint64_t)k * 7919 + 13) % total);
		uint32_t s = blk / b.blocks, i = blk % b.blocks;

		b.rx[s * wbytes(b) + i * (kBs + kPi) + kBs] ^= 0x5a; /* guard */
		b.bad_slot[s] = true;
	}
	return failed ? -1 : 0;
}

/* Cycles per write + response, pipelined (the pair) or sequential (wait, respond). */
double run(bench &b, uint32_t ops, bool pipelined, uint32_t window, uint32_t *failed)
{
	uint64_t t0 = rte_rdtsc();
	uint32_t inflight = 0;

	*failed = 0;
	for (uint32_t i = 0; i < ops; i++) {
		uint32_t slot = i % kSlots;
		struct rte_dma_sge s, d;
		struct rte_pmd_dma_mlx5_sig_xfer x = xfer(b, slot, &s, &d);
		struct rte_pmd_dma_mlx5_sig_response r = {
			(rte_iova_t)(uintptr_t)(b.resp + slot * kResp),
			(rte_iova_t)(uintptr_t)(b.tx + slot * kResp), kResp,
			(rte_iova_t)(uintptr_t)(b.resp + (kSlots + slot) * kResp), kResp};

		if (pipelined) {
			while (rte_pmd_dma_mlx5_sig_copy_respond(b.dev, 0, &x, &r,
								 RTE_DMA_OP_FLAG_SUBMIT) < 0) {
				reap(b.dev, 2, failed);
				inflight--;
			}
			if (++inflight >= window) {
				reap(b.dev, 2, failed);
				inflight--;
			}
			continue;
		}
		/* sequential: the transfer, its status, then the right response */
		uint32_t f0 = *failed;

		if (rte_pmd_dma_mlx5_sig_copy(b.dev, 0, &x, RTE_DMA_OP_FLAG_SUBMIT) < 0)
			return -1;
		reap(b.dev, 1, failed);
		rte_iova_t src = *failed != f0 ? r.err_src : r.src;

		if (rte_dma_copy(b.dev, 0, src, r.dst, kResp, RTE_DMA_OP_FLAG_SUBMIT) < 0)
			return -1;
		reap(b.dev, 1, failed);
	}
	reap(b.dev, 2 * inflight, failed);
	return (double)(rte_rdtsc() - t0) / ops;
}

int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {{"engine", required_argument, nullptr, 'e'},
					   {"ops", required_argument, nullptr, 'n'},
					   {"blocks", required_argument, nullptr, 'b'},
					   {"bad-pct", required_argument, nullptr, 'p'},
					   {nullptr, 0, nullptr, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, nullptr)) != -1) {
		if (c == 'e')
			o->engine = optarg;
		else if (c == 'n')
			o->ops = (uint32_t)strtoul(optarg, nullptr, 0);
		else if (c == 'b')
			o->blocks = (uint32_t)strtoul(optarg, nullptr, 0);
		else if (c == 'p')
			o->bad_pct = strtod(optarg, nullptr);
		else
			return -1;
	}
	return o->ops && o->blocks && o->blocks <= 64 && o->bad_pct >= 0 && o->bad_pct <= 100 ? 0
											      : -1;
}

int setup(const char *name)
{
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	int dev = rte_dma_get_dev_id_by_name(name);

	if (dev < 0)
		return -1;
	conf.nb_vchans = 1;
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = 1024;
	if (rte_dma_configure(dev, &conf) || rte_dma_vchan_setup(dev, 0, &vc) || rte_dma_start(dev))
		return -1;
	return dev;
}

} // namespace

int main(int argc, char **argv)
{
	struct rte_pmd_dma_mlx5_sig_caps caps;
	opts o;
	bench b = {};
	int ret = rte_eal_init(argc, argv), dev;

	if (ret < 0)
		return 1;
	if (parse(argc - ret, argv + ret, &o)) {
		fprintf(stderr, "usage: sig-pipeline-bench <EAL: --vdev dma_mlx5,dev=..,sig=1> -- "
				"[--engine DMADEV] [--ops N] [--blocks B (<= 64)] [--bad-pct P]\n");
		return 2;
	}
	dev = setup(o.engine);
	if (dev < 0 || rte_pmd_dma_mlx5_sig_caps((int16_t)dev, &caps) || !caps.enabled) {
		fprintf(stderr, "sig-pipeline-bench: %s is not a dma_mlx5 device with sig=1\n",
			o.engine);
		return 1;
	}
	b.dev = (int16_t)dev;
	b.blocks = o.blocks;
	b.rx = (uint8_t *)rte_zmalloc(NULL, kSlots * wbytes(b), 64);
	b.out = (uint8_t *)rte_zmalloc(NULL, kSlots * wbytes(b), 64);
	b.resp = (uint8_t *)rte_zmalloc(NULL, 2 * kSlots * kResp, 64);
	b.tx = (uint8_t *)rte_zmalloc(NULL, kSlots * kResp, 64);
	if (!b.rx || !b.out || !b.resp || !b.tx || prepare(b, 0)) {
		fprintf(stderr, "sig-pipeline-bench: buffers or PI generation failed\n");
		return 1;
	}
	double hz = (double)rte_get_tsc_hz();
	uint32_t f_pipe, f_seq;

	printf("sig-pipeline-bench: %u writes of %u x %u-byte T10-DIF blocks, pipelining %s\n",
	       o.ops, o.blocks, kBs, caps.pipelining ? "on" : "OFF (responses not withheld)");
	/* 1: latency, one write at a time, every block good */
	run(b, o.ops / 10 + 1, true, 1, &f_pipe); /* warm-up */
	double lp = run(b, o.ops, true, 1, &f_pipe);
	double ls = run(b, o.ops, false, 1, &f_seq);

	printf("%-34s %12s %12s %8s\n", "good path, one write in flight", "pipelined", "sequential",
	       "ratio");
	printf("%-34s %12.0f %12.0f %7.2fx\n", "  cycles per write + response", lp, ls,
	       ls > 0 ? lp / ls : 0);
	printf("%-34s %12.2f %12.2f\n", "  microseconds", lp / hz * 1e6, ls / hz * 1e6);
	/* 2: a stream with bad blocks */
	if (prepare(b, o.bad_pct)) {
		fprintf(stderr, "sig-pipeline-bench: PI generation failed\n");
		return 1;
	}
	uint32_t bad_writes = 0;

	for (uint32_t i = 0; i < o.ops; i++)
		bad_writes += b.bad_slot[i % kSlots];
	double tp = run(b, o.ops, true, 32, &f_pipe);
	double ts = run(b, o.ops, false, 1, &f_seq);
	double gb = (double)o.blocks * kBs / 1e9;

	printf("%-34s %12s %12s %8s\n", "stream, bad blocks", "pipelined", "sequential", "ratio");
	printf("%-34s %12.0f %12.0f %7.2fx\n", "  cycles per write + response", tp, ts,
	       ts > 0 ? tp / ts : 0);
	printf("%-34s %12.3f %12.3f %7.2fx\n", "  GB/s of data", tp > 0 ? gb * hz / tp : 0,
	       ts > 0 ? gb * hz / ts : 0, tp > 0 && ts > 0 ? ts / tp : 0);
	printf("%-34s %12u %12u (expected %u, %.2f %% of blocks bad)\n", "  failed writes seen",
	       f_pipe, f_seq, bad_writes, o.bad_pct);
	rte_dma_stop(b.dev);
	rte_dma_close(b.dev);
	rte_free(b.rx);
	rte_free(b.out);
	rte_free(b.resp);
	rte_free(b.tx);
	rte_eal_cleanup();
	return f_pipe == bad_writes && f_seq == bad_writes ? 0 : 1;
}
