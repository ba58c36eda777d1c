/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma-icount (IOVA as VA, as dma_mlx5 requires): the fast-path loop whose instructions
 * devtools/fastpath-icount.sh counts with callgrind: bursts of 32 copies of 64 B, one submit,
 * completions gathered 32 at a time, on any dmadev. Run natively it prints ops/s; under callgrind
 * the script divides the instructions spent inside the driver's fast-path functions by the ops.
 *
 * --sg S: the ops are rte_dma_copy_sg() of S source and S destination segments whose
 * boundaries all differ (16 B source pieces, destination shifted by 8 B: a chain of
 * 2S - 1 WQEs, or UMR lists with the device's umr_entries), for the chain/UMR rule.
 *
 * --idle N: after each burst's completions, N more rte_dma_completed() calls that find
 * nothing new (the cost of an empty poll).
 *
 *   dma-icount [EAL args] -- [--dev NAME] [--bursts N] [--sg S] [--idle N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>

/** One burst of 64-byte copies: the loop the instruction counts are about. */
static int enqueue_copy_burst(int16_t id, uint8_t *src, uint8_t *dst, unsigned burst)
{
	const unsigned size = 64;

	for (unsigned i = 0; i < burst; i++)
		if (rte_dma_copy(id, 0, (rte_iova_t)(uintptr_t)(src + i * size),
				 (rte_iova_t)(uintptr_t)(dst + i * size), size, 0) < 0)
			return -1;
	return 0;
}

/**
 * One burst of SG copies of @p sg 16-byte source pieces onto destination pieces shifted
 * by 8 bytes, so that no boundary is shared (a chain of 2 sg - 1 WQEs, or UMR lists).
 */
static int enqueue_sg_burst(int16_t id, uint8_t *src, uint8_t *dst, unsigned burst, unsigned sg)
{
	const unsigned size = 16 * sg;

	for (unsigned i = 0; i < burst; i++) {
		uintptr_t s = (uintptr_t)(src + i * size), d = (uintptr_t)(dst + i * size);
		struct rte_dma_sge ss[16], ds[16];

		for (unsigned k = 0; k < sg; k++) {
			ss[k] = {s + 16 * k, 16};
			ds[k] = {d + (k ? 16 * k - 8 : 0), k == 0 ? 8u : k + 1 == sg ? 24u : 16u};
		}
		if (sg == 1)
			ds[0].length = 16;
		if (rte_dma_copy_sg(id, 0, ss, ds, (uint16_t)sg, (uint16_t)sg, 0) < 0)
			return -1;
	}
	return 0;
}

/**
 * The measured loop: @p bursts bursts of @p burst ops, each submitted once and its
 * completions gathered. Out of line, so that devtools/fastpath-icount.sh counts what
 * this function executes (inclusive), not the whole program: EAL's set-up (its TSC
 * calibration, for one) varies from run to run by more than the ops differ.
 */
static __attribute__((noinline)) int run_bursts(int16_t id, uint8_t *src, uint8_t *dst, long bursts,
						unsigned burst, unsigned sg, unsigned idle)
{
	for (long b = 0; b < bursts; b++) {
		/* two loops, not one with a branch: the copy loop stays the measured baseline */
		int ret = sg ? enqueue_sg_burst(id, src, dst, burst, sg)
			     : enqueue_copy_burst(id, src, dst, burst);
		if (ret < 0)
			return -1;
		rte_dma_submit(id, 0);
		for (unsigned got = 0; got < burst;) {
			uint16_t last;
			bool err = false;

			got += rte_dma_completed(id, 0, burst - got, &last, &err);
			if (err)
				return -1;
		}
		for (unsigned i = 0; i < idle; i++) {
			uint16_t last;
			bool err = false;

			if (rte_dma_completed(id, 0, burst, &last, &err) != 0 || err)
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dev", required_argument, nullptr, 'd'},
		{"bursts", required_argument, nullptr, 'b'},
		{"sg", required_argument, nullptr, 's'},
		{"idle", required_argument, nullptr, 'i'},
		{nullptr, 0, nullptr, 0},
	};
	const char *dev = "dma_mlx5";
	long bursts = 20000;
	const unsigned burst = 32;
	unsigned size = 64, sg = 0, idle = 0;
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	for (int opt; (opt = getopt_long(argc, argv, "d:b:s:i:", opts, nullptr)) != -1;) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'b')
			bursts = atol(optarg);
		else if (opt == 's')
			sg = (unsigned)atoi(optarg);
		else if (opt == 'i')
			idle = (unsigned)atoi(optarg);
		else
			return 2;
	}
	if (sg > 16)
		return 2;
	if (sg)
		size = 16 * sg;
	int16_t id = rte_dma_get_dev_id_by_name(dev);
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vconf = {};
	conf.nb_vchans = 1;
	vconf.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vconf.nb_desc = 1024;
	if (id < 0 || rte_dma_configure(id, &conf) || rte_dma_vchan_setup(id, 0, &vconf) ||
	    rte_dma_start(id)) {
		fprintf(stderr, "dmadev %s: cannot set up\n", dev);
		return 1;
	}
	uint8_t *src = (uint8_t *)rte_malloc(NULL, burst * size, 64);
	uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, burst * size, 64);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, burst * size);

	uint64_t ops = 0, start = rte_rdtsc();

	if (run_bursts(id, src, dst, bursts, burst, sg, idle) < 0)
		return 1;
	ops = (uint64_t)bursts * burst;
	uint64_t cycles = rte_rdtsc() - start;
	int bad = memcmp(src, dst, burst * size) != 0;
	printf("%s: %lu ops, %.1f TSC cycles per op (wall), data %s\n", dev, (unsigned long)ops,
	       (double)cycles / ops, bad ? "MISMATCH" : "ok");
	rte_dma_stop(id);
	rte_eal_cleanup();
	return bad;
}
