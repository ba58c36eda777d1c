/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma-plain-bench: what a plain DPDK program sees. The data path runs on the main
 * lcore, with nothing but rte_dma calls and the devices' default devargs; the same
 * loop drives dma_mlx5, dma_skeleton and a CPU rte_memcpy copy, in one run, and the
 * program prints the ratios. The CPU copy runs on the main lcore and, when there is
 * one, on the first worker lcore: if that one shares no CPU with the main lcore, it
 * is the CPU the data path leaves free, where the software HCA's engine thread
 * copies, so that one is its limit. A benchmark, not a test: it never fails on speed.
 *
 *   dma-plain-bench [EAL args]     default: -l 0-1 --vdev dma_mlx5
 *                                  --vdev dma_skeleton,lcore=1 (plus no hugepages)
 */
#define _GNU_SOURCE /* rte_cpuset_t, CPU_AND() */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#define RING_SIZE 1024
#define BURST 32
#define POOL_BYTES (4u << 20) /* per side: the working set stays in the LLC-ish range */
#define SECONDS 1.0

static const uint32_t sizes[] = {64, 1024, 4096, 65536};
#define N_SIZES RTE_DIM(sizes)

struct result {
	double mops;
	double gbps; /* GB/s, one direction */
	bool ok;
};

static void fill(uint8_t *p, size_t n, uint32_t salt)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + salt * 7 + (i >> 8));
}

/* Every op copies buffer b of the pool to buffer b of the other pool. */
static struct result run_dma(int16_t dev, uint32_t size, uint8_t *src, uint8_t *dst, uint32_t salt)
{
	const uint32_t nbuf = POOL_BYTES / size;
	const uint64_t hz = rte_get_tsc_hz();
	rte_iova_t s = rte_malloc_virt2iova(src), d = rte_malloc_virt2iova(dst);
	uint64_t enq = 0, done = 0, t0, t_end, t1;
	struct result r = {0, 0, false};
	uint32_t b = 0, pending = 0;
	uint16_t last;
	bool err = false;

	fill(src, (size_t)nbuf * size, salt);
	memset(dst, 0, (size_t)nbuf * size);
	t0 = rte_rdtsc();
	t_end = t0 + (uint64_t)(SECONDS * hz);
	while (!err) {
		int ret = rte_dma_copy(dev, 0, s + (uint64_t)b * size, d + (uint64_t)b * size, size,
				       0);

		if (ret >= 0) {
			enq++;
			b = b + 1 == nbuf ? 0 : b + 1;
			if (++pending < BURST)
				continue;
		}
		pending = 0;
		rte_dma_submit(dev, 0);
		done += rte_dma_completed(dev, 0, BURST * 2, &last, &err);
		if (rte_rdtsc() >= t_end)
			break;
	}
	t1 = rte_rdtsc();
	rte_dma_submit(dev, 0);
	while (!err && done < enq && rte_rdtsc() < t1 + 5 * hz)
		done += rte_dma_completed(dev, 0, BURST * 2, &last, &err);
	if (err || done != enq) {
		fprintf(stderr, "dma-plain-bench: %s ops failed or missing\n", err ? "" : "no");
		return r;
	}
	/* every buffer was copied at least once unless the run was very short */
	if (memcmp(src, dst, enq >= nbuf ? (size_t)nbuf * size : (size_t)enq * size) != 0) {
		fprintf(stderr, "dma-plain-bench: copied bytes differ\n");
		return r;
	}
	r.mops = done / ((double)(t1 - t0) / hz) / 1e6;
	r.gbps = r.mops * 1e6 * size / 1e9;
	r.ok = true;
	return r;
}

static struct result run_cpu(uint32_t size, uint8_t *src, uint8_t *dst, uint32_t salt)
{
	const uint32_t nbuf = POOL_BYTES / size;
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t ops = 0, t0, t_end, t1;
	struct result r = {0, 0, false};
	uint32_t b = 0;

	fill(src, (size_t)nbuf * size, salt);
	memset(dst, 0, (size_t)nbuf * size);
	t0 = rte_rdtsc();
	t_end = t0 + (uint64_t)(SECONDS * hz);
	do {
		for (int i = 0; i < BURST; i++) {
			rte_memcpy(dst + (size_t)b * size, src + (size_t)b * size, size);
			b = b + 1 == nbuf ? 0 : b + 1;
		}
		ops += BURST;
	} while ((t1 = rte_rdtsc()) < t_end);
	if (memcmp(src, dst, ops >= nbuf ? (size_t)nbuf * size : (size_t)ops * size) != 0)
		return r;
	r.mops = ops / ((double)(t1 - t0) / hz) / 1e6;
	r.gbps = r.mops * 1e6 * size / 1e9;
	r.ok = true;
	return r;
}

struct cpu_job {
	uint32_t size;
	uint8_t *src, *dst;
	uint32_t salt;
	struct result r;
};

static int cpu_job_run(void *arg)
{
	struct cpu_job *j = arg;

	j->r = run_cpu(j->size, j->src, j->dst, j->salt);
	return 0;
}

/* Lcore @p a shares no CPU with lcore @p b (--lcores may map both to one CPU). */
static bool cpus_disjoint(unsigned int a, unsigned int b)
{
	rte_cpuset_t x = rte_lcore_cpuset(a), y = rte_lcore_cpuset(b);

	CPU_AND(&x, &x, &y);
	return CPU_COUNT(&x) == 0;
}

static int setup(int16_t dev)
{
	struct rte_dma_conf conf = {.nb_vchans = 1};
	struct rte_dma_vchan_conf vconf = {.direction = RTE_DMA_DIR_MEM_TO_MEM,
					   .nb_desc = RING_SIZE};

	if (rte_dma_configure(dev, &conf) || rte_dma_vchan_setup(dev, 0, &vconf) ||
	    rte_dma_start(dev))
		return -1;
	return 0;
}

/* The first dmadev whose driver is @p driver. */
static int16_t find_dev(const char *driver)
{
	int16_t id;

	RTE_DMA_FOREACH_DEV (id) {
		struct rte_dma_info info;

		if (rte_dma_info_get(id, &info) == 0 &&
		    strncmp(info.dev_name, driver, strlen(driver)) == 0)
			return id;
	}
	return -1;
}

int main(int argc, char **argv)
{
	char *defaults[] = {argv[0],
			    "-l",
			    "0-1",
			    "--no-huge",
			    "-m",
			    "512",
			    "--no-pci",
			    "--no-shconf",
			    "--log-level=lib.eal:warning",
			    "--vdev",
			    "dma_mlx5",
			    "--vdev",
			    "dma_skeleton,lcore=1",
			    NULL};
	const char *names[] = {"dma_mlx5", "dma_skeleton", "rte_memcpy", "rte_memcpy"};
	struct result res[4][N_SIZES];
	unsigned int worker, rows = 3;
	bool free_cpu = false;
	uint8_t *src, *dst;
	int ret;

	if (argc > 1)
		ret = rte_eal_init(argc, argv);
	else
		ret = rte_eal_init((int)RTE_DIM(defaults) - 1, defaults);
	if (ret < 0) {
		fprintf(stderr, "dma-plain-bench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	src = rte_malloc(NULL, POOL_BYTES, 4096);
	dst = rte_malloc(NULL, POOL_BYTES, 4096);
	if (!src || !dst) {
		fprintf(stderr, "dma-plain-bench: no memory\n");
		return 1;
	}
	printf("data path on the main lcore %u; %u s per point; ring %u, burst %u\n",
	       rte_lcore_id(), (unsigned int)SECONDS, RING_SIZE, BURST);
	for (unsigned int e = 0; e < 2; e++) {
		int16_t dev = find_dev(names[e]);

		if (dev < 0 || setup(dev)) {
			fprintf(stderr, "dma-plain-bench: no usable %s (add --vdev %s)\n", names[e],
				names[e]);
			return 1;
		}
		for (unsigned int i = 0; i < N_SIZES; i++)
			res[e][i] = run_dma(dev, sizes[i], src, dst, e * 10 + i);
		rte_dma_stop(dev);
	}
	for (unsigned int i = 0; i < N_SIZES; i++)
		res[2][i] = run_cpu(sizes[i], src, dst, 20 + i);
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker < RTE_MAX_LCORE) {
		free_cpu = cpus_disjoint(worker, rte_lcore_id());
		for (unsigned int i = 0; i < N_SIZES; i++) {
			struct cpu_job j = {sizes[i], src, dst, 30 + i, {0, 0, false}};

			ret = rte_eal_remote_launch(cpu_job_run, &j, worker);
			if (ret == 0)
				rte_eal_wait_lcore(worker);
			else /* not run: FAILED below, and the exit status */
				fprintf(stderr,
					"dma-plain-bench: rte_eal_remote_launch on lcore %u: %s\n",
					worker, strerror(-ret));
			res[3][i] = j.r;
		}
		rows = 4;
	}

	printf("\n%-22s", "size");
	for (unsigned int i = 0; i < N_SIZES; i++)
		printf(" %13u B", sizes[i]);
	printf("\n");
	for (unsigned int e = 0; e < rows; e++) {
		char label[32];

		if (e == 2)
			snprintf(label, sizeof(label), "%s lcore %u", names[e], rte_lcore_id());
		else if (e == 3)
			snprintf(label, sizeof(label), "%s lcore %u", names[e], worker);
		else
			snprintf(label, sizeof(label), "%s", names[e]);
		printf("%-22s", label);
		for (unsigned int i = 0; i < N_SIZES; i++)
			if (res[e][i].ok)
				printf(" %6.2f Mops %5.1f", res[e][i].mops, res[e][i].gbps);
			else
				printf(" %15s", "FAILED");
		printf("\n");
	}
	printf("(Mops, then GB/s)\n\nRatios in this run:\n");
	for (unsigned int i = 0; i < N_SIZES; i++)
		if (res[0][i].ok && res[1][i].ok)
			printf("  dma_mlx5 / dma_skeleton Mops at %5u B: %.2f\n", sizes[i],
			       res[0][i].mops / res[1][i].mops);
	for (unsigned int e = 2; e < rows; e++)
		for (unsigned int i = 0; i < N_SIZES; i++)
			if (res[0][i].ok && res[e][i].ok)
				printf("  dma_mlx5 / rte_memcpy on lcore %u GB/s at %5u B: "
				       "%.2f%s\n",
				       e == 2 ? rte_lcore_id() : worker, sizes[i],
				       res[0][i].gbps / res[e][i].gbps,
				       e == 3 && free_cpu ? " (the free CPU)" : "");
	rte_free(src);
	rte_free(dst);
	rte_eal_cleanup();
	for (unsigned int e = 0; e < rows; e++)
		for (unsigned int i = 0; i < N_SIZES; i++)
			if (!res[e][i].ok)
				return 1; /* a copy went wrong: that is a failure, unlike speed */
	return 0;
}
