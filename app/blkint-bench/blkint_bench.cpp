/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blkint-bench: application-core TSC cycles per 4 KiB block of librte_blkint on a
 * dmadev with signature offload plus the ISA-L cross-check of a sample of its ops,
 * against ISA-L on every block (the CPU engine), in one run; and each engine's GB/s.
 * Not a test: run it on an otherwise idle machine.
 *   blkint-bench <EAL args> -- [--dev DMADEV] [--ops N] [--rate R] [--depth D] [--repeat K]
 *                                [--pi crc32c|t10dif] [--blocks 1|16]
 * Counted: cycles in the enqueue calls and in the dequeue calls that returned results
 * (an empty poll while the device works is time the application has for other work).
 * A call that took over 100 us was descheduled (the longest op, 64 KiB of ISA-L CRC,
 * takes about 10 us): its cycles went to another thread, such as the software HCA's
 * engine on a 2-core machine, and are left out; such calls are counted and printed with
 * the involuntary context switches of the run, which bound them.
 * Workloads: CRC32C insert and T10-DIF (CRC16 guard) insert, ops of 1 and of 16 blocks.
 * Each case runs K times (default 5), device and CPU alternating, and prints the pair
 * with the median ratio and the range: on 2 cores one pass swings with whatever else
 * runs, including the software HCA's engine thread on the other core.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rte_blkint.h"

namespace {

struct opts {
	std::string dev = "dma_mlx5";
	uint32_t ops = 2000;
	double rate = 1.0 / 64;
	uint32_t depth = 8; /* dma_mlx5 has 16 signature mkeys per vchan, 1 or 2 per op */
	uint32_t repeat = 5;
	std::string pi;      /* only this workload (crc32c, t10dif); empty: both */
	uint32_t blocks = 0; /* only ops of this many blocks (1, 16); 0: both */
};

struct measure {
	uint64_t app_cycles = 0;
	uint64_t enq_cycles = 0; /* the enqueue calls' share of app_cycles */
	uint64_t wall_cycles = 0;
	uint64_t ops = 0;
	uint64_t blocks = 0;
	uint64_t bytes = 0;
	uint64_t failed = 0;
	uint64_t descheduled = 0; /* calls over kDescheduled cycles, left out */
	uint64_t nivcsw = 0;      /* involuntary context switches of the run */
	bool on_device = false;
};

/** A call longer than this (TSC cycles) was descheduled; set in main() (100 us). */
uint64_t kDescheduled;

/** Count the cycles of a call, unless it was descheduled. */
void count_call(measure *m, uint64_t cycles, bool enq)
{
	if (cycles > kDescheduled) {
		m->descheduled++;
	} else {
		m->app_cycles += cycles;
		m->enq_cycles += enq ? cycles : 0;
	}
}

long involuntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

constexpr uint32_t kBlock = 4096;

int dma_start(int16_t dev)
{
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	struct rte_dma_info info;

	if (rte_dma_info_get(dev, &info) != 0)
		return -1;
	conf.nb_vchans = 1;
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = RTE_MAX(info.min_desc, RTE_MIN(info.max_desc, (uint16_t)1024));
	if (rte_dma_configure(dev, &conf) != 0 || rte_dma_vchan_setup(dev, 0, &vc) != 0 ||
	    rte_dma_start(dev) != 0)
		return -1;
	return 0;
}

/** Run @p o.ops insert ops of @p nb blocks in format @p f on a context; depth-limited. */
int run(const opts &o, int16_t dev, double rate, const struct rte_blkint_format &f, uint32_t nb,
	uint8_t *src, uint8_t *dst, measure *m)
{
	static int seq;
	char name[32];
	struct rte_blkint_conf conf = {};
	struct rte_blkint_result res[64];
	struct rte_blkint_op op = {};
	uint32_t sent = 0, done = 0, in_flight = 0;
	uint64_t t0, t1, start;

	snprintf(name, sizeof(name), "bench%d", seq++);
	conf.name = name;
	conf.dev_id = dev;
	conf.xcheck_rate = rate;
	conf.max_inflight = 1024;
	struct rte_blkint_ctx *ctx = rte_blkint_create(&conf);
	if (!ctx) {
		fprintf(stderr, "rte_blkint_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	m->on_device = rte_blkint_on_device(ctx);
	op.type = RTE_BLKINT_OP_INSERT;
	op.nb_blocks = nb;
	op.src = src;
	op.dst = dst;
	op.dst_fmt = &f;
	long csw = involuntary_switches();
	start = rte_rdtsc_precise();
	while (done < o.ops) {
		if (sent < o.ops && in_flight < o.depth) {
			/* a destination per op in flight: the cross-check reads it at dequeue */
			op.dst = dst + (size_t)(sent % o.depth) * 16 * (kBlock + 8);
			op.dst_ref_tag = sent * nb;
			op.user_data = sent;
			t0 = rte_rdtsc();
			uint16_t k = rte_blkint_enqueue(ctx, &op, 1);
			t1 = rte_rdtsc();
			count_call(m, t1 - t0, true);
			sent += k;
			in_flight += k;
		}
		t0 = rte_rdtsc();
		uint16_t n = rte_blkint_dequeue(ctx, res, RTE_DIM(res));
		t1 = rte_rdtsc();
		if (n)
			count_call(m, t1 - t0, false);
		for (uint16_t i = 0; i < n; i++)
			m->failed += res[i].status != RTE_BLKINT_OK;
		done += n;
		in_flight -= n;
	}
	m->wall_cycles = rte_rdtsc_precise() - start;
	m->nivcsw = (uint64_t)(involuntary_switches() - csw);
	m->ops = o.ops;
	m->blocks = (uint64_t)o.ops * nb;
	m->bytes = m->blocks * kBlock;
	rte_blkint_free(ctx);
	return 0;
}

void print(const char *what, const measure &m)
{
	double hz = (double)rte_get_tsc_hz();

	printf("  %-34s %10.0f cycles/block  %7.2f GB/s  %s%s  [%" PRIu64
	       " calls descheduled, %" PRIu64 " involuntary switches]\n",
	       what, (double)m.app_cycles / (double)m.blocks,
	       (double)m.bytes / ((double)m.wall_cycles / hz) / 1e9, m.on_device ? "device" : "cpu",
	       m.failed ? "  (FAILED ops)" : "", m.descheduled, m.nivcsw);
	printf("  %-34s %10.0f cycles/op in enqueue, %.0f in dequeue\n", "",
	       (double)m.enq_cycles / (double)m.ops,
	       (double)(m.app_cycles - m.enq_cycles) / (double)m.ops);
}

int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {
		{"dev", required_argument, NULL, 'd'},    {"ops", required_argument, NULL, 'n'},
		{"rate", required_argument, NULL, 'r'},   {"depth", required_argument, NULL, 'q'},
		{"repeat", required_argument, NULL, 'k'}, {"pi", required_argument, NULL, 'p'},
		{"blocks", required_argument, NULL, 'b'}, {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'n':
			o->ops = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			o->rate = strtod(optarg, NULL);
			break;
		case 'q':
			o->depth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'k':
			o->repeat = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o->pi = optarg;
			break;
		case 'b':
			o->blocks = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			return -1;
		}
	}
	if (!o->ops || !o->depth || o->depth > 1024 || !(o->rate >= 0) || o->rate > 1 ||
	    !o->repeat || o->repeat > 101) {
		fprintf(stderr,
			"bad --ops %u, --depth %u (1..1024), --rate %g (0..1) or --repeat %u "
			"(1..101)\n",
			o->ops, o->depth, o->rate, o->repeat);
		return -1;
	}
	if ((!o->pi.empty() && o->pi != "crc32c" && o->pi != "t10dif") ||
	    (o->blocks != 0 && o->blocks != 1 && o->blocks != 16)) {
		fprintf(stderr, "bad --pi '%s' (crc32c, t10dif) or --blocks %u (1, 16)\n",
			o->pi.c_str(), o->blocks);
		return -1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	opts o;
	int n = rte_eal_init(argc, argv);
	int16_t dev;
	int ret = 0;

	if (n < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	if (parse(argc - n, argv + n, &o) < 0) {
		fprintf(stderr, "usage: blkint-bench <EAL> -- [--dev DMADEV] [--ops N] [--rate R]"
				" [--depth D] [--repeat K] [--pi crc32c|t10dif] [--blocks 1|16]\n");
		rte_eal_cleanup();
		return 1;
	}
	kDescheduled = rte_get_tsc_hz() / 10000;
	dev = (int16_t)rte_dma_get_dev_id_by_name(o.dev.c_str());
	if (dev < 0 || dma_start(dev) < 0) {
		fprintf(stderr, "dmadev %s not found or not startable (add --vdev)\n",
			o.dev.c_str());
		rte_eal_cleanup();
		return 1;
	}
	/* one source; room for 16 protected blocks per op in flight */
	uint8_t *src = (uint8_t *)rte_malloc("bench", 16 * kBlock, 64);
	uint8_t *dst = (uint8_t *)rte_malloc("bench", (size_t)o.depth * 16 * (kBlock + 8), 64);
	if (!src || !dst) {
		fprintf(stderr, "no memory\n");
		return 1;
	}
	for (uint32_t i = 0; i < 16 * kBlock; i++)
		src[i] = (uint8_t)(i * 131 + 7);

	struct rte_blkint_format crc = {}, dif = {};
	crc.type = RTE_BLKINT_PI_CRC32C;
	crc.block_size = kBlock;
	crc.crc_seed = 0xffffffffu;
	dif.type = RTE_BLKINT_PI_T10DIF;
	dif.block_size = kBlock;
	dif.flags = RTE_BLKINT_F_REF_INC;
	printf("blkint-bench: %u ops per case, %u KiB blocks, device %s, ISA-L sampling %g, "
	       "depth %u, %u runs per case (the median shown)\n",
	       o.ops, kBlock / 1024, o.dev.c_str(), o.rate, o.depth, o.repeat);
	/* named: gcc 14 and later see a dangling reference in a braced list's loop */
	const std::pair<const char *, struct rte_blkint_format *> cases[] = {
		{"CRC32C insert", &crc}, {"T10-DIF insert", &dif}};
	for (const auto &c : cases) {
		if (!o.pi.empty() && (o.pi == "crc32c") != (c.second == &crc))
			continue;
		for (uint32_t nb : {1u, 16u}) {
			if (o.blocks && nb != o.blocks)
				continue;
			/* (ratio, device run, CPU run) of each repetition */
			std::vector<std::pair<double, std::pair<measure, measure>>> runs;

			for (uint32_t k = 0; k < o.repeat; k++) {
				measure d, s;

				if (run(o, dev, o.rate, *c.second, nb, src, dst, &d) < 0 ||
				    run(o, -1, 0, *c.second, nb, src, dst, &s) < 0) {
					ret = 1;
					break;
				}
				ret |= (d.failed || s.failed) ? 1 : 0;
				runs.push_back(
					{(double)d.app_cycles / (double)s.app_cycles, {d, s}});
			}
			if (runs.size() != o.repeat)
				break;
			std::sort(runs.begin(), runs.end(),
				  [](const auto &a, const auto &b) { return a.first < b.first; });
			const auto &med = runs[runs.size() / 2];
			printf("%s, ops of %u block%s:\n", c.first, nb, nb > 1 ? "s" : "");
			print("device + ISA-L sampling", med.second.first);
			print("ISA-L on every block", med.second.second);
			printf("  ratio (app-core cycles): %.3fx median, %.3f-%.3f over %u "
			       "runs%s%s\n",
			       med.first, runs.front().first, runs.back().first, o.repeat,
			       nb == 16 ? "  (target <= 0.25x)" : "",
			       med.second.first.on_device
				       ? ""
				       : "  [no signature offload: both on the CPU]");
		}
	}
	rte_free(src);
	rte_free(dst);
	rte_dma_stop(dev);
	rte_dma_close(dev);
	rte_eal_cleanup();
	return ret;
}
