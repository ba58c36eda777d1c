/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5_copy: copies buffers of several sizes through a dma_mlx5 dmadev, checks
 * every byte, and shows the driver-specific API of rte_pmd_dma_mlx5.h.
 *
 *   dma_mlx5_copy [EAL options] [-- -q]
 *
 * Exits 0 only when every copy was verified byte by byte.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include <rte_pmd_dma_mlx5.h>

#define DRIVER_NAME "dma_mlx5"
#define VCHAN 0
#define RING_SIZE 64
#define GUARD 64        /* bytes checked after each destination */
#define TIMEOUT_MS 2000 /* per wait for completions */
#define BURST 8         /* copies enqueued before one doorbell */

/* A control segment's opcode for a WQE that moves no data (mlx5 PRM, "NOP"). */
#define MLX5_OPCODE_NOP_ 0x00

static bool quiet;

struct totals {
	unsigned int copies;   /* copies completed and verified */
	uint64_t bytes;        /* bytes verified */
	unsigned int failures; /* anything that did not go as expected */
};

#define FAIL(t, ...)                          \
	do {                                  \
		printf("FAIL: " __VA_ARGS__); \
		(t)->failures++;              \
	} while (0)

#define INFO(...)                            \
	do {                                 \
		if (!quiet)                  \
			printf(__VA_ARGS__); \
	} while (0)

/* The first dmadev driven by dma_mlx5: named after the driver and known to its API. */
static int16_t find_dma_mlx5(void)
{
	struct rte_pmd_dma_mlx5_caps caps;
	struct rte_dma_info info;
	int16_t id;

	RTE_DMA_FOREACH_DEV (id) {
		if (rte_dma_info_get(id, &info) != 0)
			continue;
		if (strncmp(info.dev_name, DRIVER_NAME, strlen(DRIVER_NAME)) != 0)
			continue;
		if (rte_pmd_dma_mlx5_get_caps(id, &caps) == 0)
			return id;
	}
	return -1;
}

/*
 * Without a --vdev on the command line, probe one now. rte_dev_probe() is the
 * bus-independent form of rte_vdev_init(): it needs nothing but EAL to link.
 */
static int16_t open_dma_mlx5(void)
{
	int16_t id = find_dma_mlx5();
	int ret;

	if (id >= 0)
		return id;
	INFO("no %s device: probing one\n", DRIVER_NAME);
	ret = rte_dev_probe(DRIVER_NAME);
	if (ret < 0) {
		printf("cannot probe %s: %s (is the driver loaded? EAL -d <pmd dir>)\n",
		       DRIVER_NAME, strerror(-ret));
		return -1;
	}
	return find_dma_mlx5();
}

static int setup(int16_t id, const struct rte_dma_info *info)
{
	struct rte_dma_conf conf = {.nb_vchans = 1};
	struct rte_dma_vchan_conf vconf = {
		.direction = RTE_DMA_DIR_MEM_TO_MEM,
		.nb_desc = RTE_MAX(RTE_MIN((uint16_t)RING_SIZE, info->max_desc), info->min_desc),
	};
	int ret;

	ret = rte_dma_configure(id, &conf);
	if (ret == 0)
		ret = rte_dma_vchan_setup(id, VCHAN, &vconf);
	if (ret == 0)
		ret = rte_dma_start(id);
	if (ret != 0)
		printf("cannot set up %s: %s\n", info->dev_name, strerror(-ret));
	return ret;
}

/* Wait for @p n completions; returns how many came back with success. */
static uint16_t wait_completions(int16_t id, uint16_t n, uint16_t *last_idx,
				 enum rte_dma_status_code *st, bool *all_ok)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * TIMEOUT_MS / 1000;
	uint16_t done = 0, ok = 0;

	while (done < n && rte_get_timer_cycles() < deadline) {
		uint16_t got = rte_dma_completed_status(id, VCHAN, n - done, last_idx, st + done);

		for (uint16_t i = 0; i < got; i++)
			ok += st[done + i] == RTE_DMA_STATUS_SUCCESSFUL;
		done += got;
	}
	*all_ok = done == n && ok == n;
	return done;
}

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* A source with a pattern, a destination with another one and a guard zone after it. */
struct pair {
	uint8_t *src;
	uint8_t *dst;
	size_t len;
	size_t src_off, dst_off;
};

static int pair_alloc(struct pair *p, size_t len, size_t src_off, size_t dst_off, uint8_t seed)
{
	p->len = len;
	p->src_off = src_off;
	p->dst_off = dst_off;
	p->src = rte_malloc(NULL, len + src_off, 64);
	p->dst = rte_malloc(NULL, len + dst_off + GUARD, 64);
	if (p->src == NULL || p->dst == NULL) {
		rte_free(p->src);
		rte_free(p->dst);
		return -ENOMEM;
	}
	fill(p->src + src_off, len, seed);
	memset(p->dst, 0xa5, len + dst_off + GUARD);
	return 0;
}

static void pair_free(struct pair *p)
{
	rte_free(p->src);
	rte_free(p->dst);
}

/* rte_malloc_virt2iova() takes the start of an allocation, not a pointer into it. */
static int pair_copy(int16_t id, const struct pair *p, uint64_t flags)
{
	return rte_dma_copy(id, VCHAN, rte_malloc_virt2iova(p->src) + p->src_off,
			    rte_malloc_virt2iova(p->dst) + p->dst_off, (uint32_t)p->len, flags);
}

/* Every copied byte equal, nothing before or after the destination touched. */
static bool pair_verify(const struct pair *p, struct totals *t)
{
	const uint8_t *d = p->dst + p->dst_off;

	if (memcmp(d, p->src + p->src_off, p->len) != 0) {
		for (size_t i = 0; i < p->len; i++)
			if (d[i] != p->src[p->src_off + i]) {
				FAIL(t, "%zu-byte copy: byte %zu is 0x%02x, expected 0x%02x\n",
				     p->len, i, d[i], p->src[p->src_off + i]);
				break;
			}
		return false;
	}
	for (size_t i = 0; i < p->dst_off; i++)
		if (p->dst[i] != 0xa5) {
			FAIL(t, "%zu-byte copy wrote before its destination\n", p->len);
			return false;
		}
	for (size_t i = 0; i < GUARD; i++)
		if (d[p->len + i] != 0xa5) {
			FAIL(t, "%zu-byte copy wrote past its destination\n", p->len);
			return false;
		}
	t->copies++;
	t->bytes += p->len;
	return true;
}

/* One copy per size, each submitted and awaited on its own. */
static void copy_sizes(int16_t id, uint64_t max_len, struct totals *t)
{
	static const size_t sizes[] = {1, 7, 64, 1000, 4096, 65536, 1 << 20};
	enum rte_dma_status_code st;
	uint16_t last;
	bool ok;

	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		/* every other size also from and to addresses that are not 64-byte aligned */
		size_t off = (i & 1) ? 3 : 0;
		struct pair p;
		int ring_idx;

		if (sizes[i] > max_len) {
			INFO("  %8zu bytes: above the device's %" PRIu64 "-byte limit, skipped\n",
			     sizes[i], max_len);
			continue;
		}
		if (pair_alloc(&p, sizes[i], off, off * 5, (uint8_t)i) != 0) {
			FAIL(t, "no memory for %zu bytes\n", sizes[i]);
			continue;
		}
		ring_idx = pair_copy(id, &p, RTE_DMA_OP_FLAG_SUBMIT);
		if (ring_idx < 0) {
			FAIL(t, "enqueue of %zu bytes: %s\n", sizes[i], strerror(-ring_idx));
		} else if (wait_completions(id, 1, &last, &st, &ok) != 1) {
			FAIL(t, "%zu-byte copy did not complete\n", sizes[i]);
		} else if (!ok || last != ring_idx) {
			FAIL(t, "%zu-byte copy: status %d, ring index %u (expected %d)\n", sizes[i],
			     st, last, ring_idx);
		} else if (pair_verify(&p, t)) {
			INFO("  %8zu bytes: verified (ring index %d%s)\n", sizes[i], ring_idx,
			     off ? ", unaligned" : "");
		}
		pair_free(&p);
	}
}

/* BURST copies behind one doorbell (rte_dma_submit()), completed together. */
static void copy_burst(int16_t id, struct totals *t)
{
	enum rte_dma_status_code st[BURST];
	struct pair p[BURST];
	unsigned int n = 0;
	uint16_t last;
	bool ok;

	for (; n < BURST; n++) {
		if (pair_alloc(&p[n], 512 * (n + 1), 0, 0, (uint8_t)(0x40 + n)) != 0) {
			FAIL(t, "no memory for the burst\n");
			break;
		}
		if (pair_copy(id, &p[n], 0) < 0) {
			FAIL(t, "burst enqueue %u failed\n", n);
			pair_free(&p[n]);
			break;
		}
	}
	if (n > 0 && rte_dma_submit(id, VCHAN) != 0)
		FAIL(t, "rte_dma_submit failed\n");
	if (n > 0 && (wait_completions(id, (uint16_t)n, &last, st, &ok) != n || !ok))
		FAIL(t, "burst of %u copies did not complete successfully\n", n);
	else if (n > 0) {
		unsigned int good = 0;

		for (unsigned int i = 0; i < n; i++)
			good += pair_verify(&p[i], t);
		INFO("  burst of %u copies behind one doorbell: %u verified\n", n, good);
	}
	while (n > 0)
		pair_free(&p[--n]);
}

/*
 * A WQE built by the application: a one-octoword NOP. The control segment is four
 * big-endian words: opmod | WQE index | opcode, QPN | DS count, signature | fm_ce_se,
 * immediate. The driver fills in the WQE index; the QPN comes from the vchan info.
 */
static void raw_nop(int16_t id, struct totals *t)
{
	struct rte_pmd_dma_mlx5_vchan_info vi;
	enum rte_dma_status_code st;
	uint32_t wqe[16] __rte_aligned(64) = {0};
	uint16_t last;
	bool ok;
	int ret;

	ret = rte_pmd_dma_mlx5_vchan_info(id, VCHAN, &vi);
	if (ret != 0) {
		FAIL(t, "rte_pmd_dma_mlx5_vchan_info: %s\n", strerror(-ret));
		return;
	}
	INFO("  vchan %u: QP 0x%x, %u WQEBBs\n", VCHAN, vi.qpn, vi.sq_wqebbs);
	wqe[0] = rte_cpu_to_be_32(MLX5_OPCODE_NOP_);
	wqe[1] = rte_cpu_to_be_32(vi.qpn << 8 | 1);
	ret = rte_pmd_dma_mlx5_enqueue_raw_wqe(id, VCHAN, wqe, RTE_DMA_OP_FLAG_SUBMIT);
	if (ret < 0) {
		FAIL(t, "rte_pmd_dma_mlx5_enqueue_raw_wqe: %s\n", strerror(-ret));
		return;
	}
	if (wait_completions(id, 1, &last, &st, &ok) != 1 || !ok || last != ret)
		FAIL(t, "raw NOP (ring index %d) did not complete successfully\n", ret);
	else
		INFO("  raw NOP WQE: completed at ring index %u\n", last);
}

/*
 * A copy of length 0 fails on the device (invalid length); rte_dma reports it and
 * rte_pmd_dma_mlx5_last_error() gives the CQE details behind it.
 */
static void failed_op(int16_t id, struct totals *t)
{
	struct rte_pmd_dma_mlx5_error err;
	enum rte_dma_status_code st;
	struct pair p;
	uint16_t last;
	bool ok;
	int ring_idx, ret;

	ret = rte_pmd_dma_mlx5_last_error(id, VCHAN, &err);
	if (ret != -ENOENT) {
		FAIL(t, "last error before any failure: %d, expected -ENOENT\n", ret);
		return;
	}
	if (pair_alloc(&p, 64, 0, 0, 9) != 0) {
		FAIL(t, "no memory\n");
		return;
	}
	p.len = 0;
	ring_idx = pair_copy(id, &p, RTE_DMA_OP_FLAG_SUBMIT);
	if (ring_idx < 0) {
		FAIL(t, "enqueue of a 0-byte copy: %s\n", strerror(-ring_idx));
	} else if (wait_completions(id, 1, &last, &st, &ok) != 1 || ok) {
		FAIL(t, "a 0-byte copy was not reported as failed\n");
	} else if ((ret = rte_pmd_dma_mlx5_last_error(id, VCHAN, &err)) != 0 ||
		   err.ring_idx != ring_idx) {
		FAIL(t, "last error after a failure: %d (ring index %u, expected %d)\n", ret,
		     ret == 0 ? err.ring_idx : 0, ring_idx);
	} else {
		INFO("  0-byte copy: status %d, CQE syndrome 0x%x, vendor syndrome 0x%x, "
		     "opcode 0x%x (expected failure)\n",
		     st, err.syndrome, err.vendor_syndrome, err.wqe_opcode);
	}
	pair_free(&p);
}

static void usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [-q]\n  -q  print the summary line only\n", prog);
}

int main(int argc, char **argv)
{
	struct rte_pmd_dma_mlx5_caps caps;
	struct rte_dma_info info;
	struct totals t = {0};
	int16_t id;
	int ret, opt;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "cannot initialise EAL\n");
	argc -= ret;
	argv += ret;
	while ((opt = getopt(argc, argv, "qh")) != -1) {
		if (opt == 'q') {
			quiet = true;
		} else {
			usage(argv[0]);
			rte_eal_cleanup();
			return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}

	id = open_dma_mlx5();
	if (id < 0)
		rte_exit(EXIT_FAILURE, "no %s dmadev\n", DRIVER_NAME);
	if (rte_dma_info_get(id, &info) != 0 || rte_pmd_dma_mlx5_get_caps(id, &caps) != 0)
		rte_exit(EXIT_FAILURE, "cannot query dmadev %d\n", id);
	INFO("%s (dmadev %d): device %s, %s backend, %s path, memcpy up to %" PRIu64
	     " bytes, SVA %s, %u..%u descriptors\n",
	     info.dev_name, id, caps.device, caps.backend, caps.direct_path ? "direct" : "verbs",
	     caps.max_wr_memcpy_length, caps.sva ? "yes" : "no", info.min_desc, info.max_desc);
	if (setup(id, &info) != 0)
		rte_exit(EXIT_FAILURE, "cannot configure dmadev %d\n", id);

	copy_sizes(id, caps.max_wr_memcpy_length, &t);
	copy_burst(id, &t);
	raw_nop(id, &t);
	failed_op(id, &t);

	rte_dma_stop(id);
	rte_dma_close(id);
	printf("dma_mlx5_copy: %u copies, %" PRIu64 " bytes verified, %u failures: %s\n", t.copies,
	       t.bytes, t.failures, t.failures == 0 && t.copies > 0 ? "PASS" : "FAIL");
	rte_eal_cleanup();
	return t.failures == 0 && t.copies > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
