/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5_remote: copies between two hosts' memory over DC transport with an
 * installed dma_mlx5 (rte_pmd_dma_mlx5_remote_*), built against pkg-config alone.
 * The first dma_mlx5 device is the copying host, the second the target host; on the
 * software HCA both are instances of one process's fabric (sim_fabric=1):
 *
 *   dma_mlx5_remote --no-huge -m 512 --no-pci -l 0 \
 *       --vdev dma_mlx5_a,dev=sim1,sim_fabric=1 --vdev dma_mlx5_b,dev=sim2,sim_fabric=1
 *
 * It writes N chunks into the target's memory through one remote channel, reads them
 * back into fresh memory, checks every byte, and prints one summary line.
 *
 * Two processes (doc/guides/howto/remote_two_processes.rst): one dma_mlx5 device each,
 * on the machine-wide fabric of one name; the target prints its peer line and waits,
 * the copier is given that line:
 *
 *   dma_mlx5_remote --file-prefix t ... --vdev dma_mlx5_t,dev=sim1,sim_fabric=lab -- serve
 *   dma_mlx5_remote --file-prefix c ... --vdev dma_mlx5_c,dev=sim2,sim_fabric=lab \
 *       -- copy <the target's peer line>
 *
 * and a line on the target's stdin makes it check what landed in its memory.
 *
 * Or the target publishes its peer line at an address of the fabric (rdma-cm) and the
 * copier is given the address instead (doc/guides/howto/remote_two_processes.rst):
 *
 *   dma_mlx5_remote ... --vdev dma_mlx5_t,dev=sim1,sim_fabric=lab -- serve-at 0.0.0.0:7000
 *   dma_mlx5_remote ... --vdev dma_mlx5_c,dev=sim2,sim_fabric=lab -- copy-to 127.0.0.1:7000
 *
 * (the target prints its address: 127.0.x.y is the port of LID x << 8 | y).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pmd_dma_mlx5.h>

#define CHUNKS 256
#define CHUNK 4096
#define DC_KEY 0x5eedULL
#define FILL_PATTERN 0x0f1e2d3c4b5a6978ULL

/* the first two dma_mlx5 devices, by device name */
static int find_devices(int16_t *a, int16_t *b)
{
	int found = 0;

	for (int16_t d = 0; d < RTE_DMADEV_DEFAULT_MAX && found < 2; d++) {
		struct rte_dma_info info;

		if (!rte_dma_is_valid(d) || rte_dma_info_get(d, &info) != 0 ||
		    strncmp(info.dev_name, "dma_mlx5", 8) != 0)
			continue;
		*(found++ ? b : a) = d;
	}
	return found == 2 ? 0 : -1;
}

/* wait until @n ops were reported; count the failed ones */
static unsigned int wait_ops(struct rte_pmd_dma_mlx5_remote *ch, unsigned int n)
{
	enum rte_dma_status_code st[64];
	unsigned int done = 0, failed = 0;
	uint64_t spins = 0;
	uint16_t last;

	while (done < n && ++spins < 100000000ULL) {
		uint16_t k = rte_pmd_dma_mlx5_remote_completed(ch, 64, &last, st);

		for (uint16_t i = 0; i < k; i++)
			failed += st[i] != RTE_DMA_STATUS_SUCCESSFUL;
		done += k;
	}
	return failed + (n - done);
}

/* the bytes the copier writes: both processes compute them */
static void pattern(uint8_t *p)
{
	for (size_t i = 0; i < CHUNKS * CHUNK; i++)
		p[i] = (uint8_t)(i * 31 + i / CHUNK + 7);
}

/* the first dma_mlx5 device */
static int16_t first_device(void)
{
	int16_t a, b;

	if (find_devices(&a, &b) == 0)
		return a;
	for (int16_t d = 0; d < RTE_DMADEV_DEFAULT_MAX; d++) {
		struct rte_dma_info info;

		if (rte_dma_is_valid(d) && rte_dma_info_get(d, &info) == 0 &&
		    strncmp(info.dev_name, "dma_mlx5", 8) == 0)
			return d;
	}
	return -1;
}

/*
 * "serve": a DC target; its peer line on stdout, or with @listen_at ("serve-at") the
 * same published at that address and the address printed; on a line of stdin, check
 * its memory
 */
static int serve(int16_t dev, const char *listen_at)
{
	struct rte_pmd_dma_mlx5_remote_peer peer;
	struct rte_pmd_dma_mlx5_remote_listener *listener = NULL;
	uint8_t *far = rte_zmalloc(NULL, CHUNKS * CHUNK, 64);
	uint8_t *want = malloc(CHUNKS * CHUNK);
	char line[64];
	int ok;

	if (!far || !want || rte_pmd_dma_mlx5_remote_target_create(dev, DC_KEY, &peer.target) ||
	    rte_pmd_dma_mlx5_remote_rkey(dev, far, CHUNKS * CHUNK, &peer.rkey)) {
		fprintf(stderr, "dma_mlx5_remote: no DC target on device %d\n", dev);
		return 1;
	}
	if (listen_at) {
		const char *port = strrchr(listen_at, ':');

		if (!port || rte_pmd_dma_mlx5_remote_listen(dev, &peer.target, peer.rkey, listen_at,
							    &listener) != 0) {
			fprintf(stderr, "dma_mlx5_remote: cannot publish at %s\n", listen_at);
			return 1;
		}
		/* the fabric's addresses: 127.0.x.y is the port of LID x << 8 | y */
		printf("listening 127.0.%u.%u%s\n", peer.target.lid >> 8, peer.target.lid & 0xff,
		       port);
	} else {
		printf("peer %u %u %#" PRIx64 " %#x %#" PRIx64 "\n", peer.target.lid,
		       peer.target.dctn, peer.target.dc_key, peer.rkey, (uint64_t)(uintptr_t)far);
	}
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	/*
	 * Stop publishing and revoke the key first: then nothing more can land, and the
	 * device's writes are ordered before this thread's reads (the release waits for
	 * the device), so the check reads what the peer left.
	 */
	rte_pmd_dma_mlx5_remote_listen_close(listener);
	if (rte_pmd_dma_mlx5_remote_rkey_release(dev, peer.rkey) != 0) {
		fprintf(stderr, "dma_mlx5_remote: key %#x not released\n", peer.rkey);
		return 1;
	}
	pattern(want);
	ok = memcmp(far, want, CHUNKS * CHUNK) == 0;
	printf("dma_mlx5_remote: target: %u bytes written by the other process: %s\n",
	       CHUNKS * CHUNK, ok ? "PASS" : "FAIL");
	free(want);
	rte_free(far);
	return ok ? 0 : 1;
}

/*
 * The copying host: a channel on @dev, @peer as its peer (or the peer published at
 * address @addr, when @peer is NULL), a fill of the peer's memory at address @far (its
 * last chunk read back and checked), CHUNKS writes over it, then reads back, checked.
 * @far_local: the target's memory when it is in this process (checked after the
 * writes too), else NULL. Returns the failures.
 */
static unsigned int write_read_back(int16_t dev, const struct rte_pmd_dma_mlx5_remote_peer *peer,
				    const char *addr, uint64_t far, const uint8_t *far_local)
{
	/* rte_malloc_virt2iova() takes the start of an allocation: offsets are added */
	uint8_t *src = rte_malloc(NULL, CHUNKS * CHUNK, 64);
	uint8_t *back = rte_zmalloc(NULL, CHUNKS * CHUNK, 64);
	struct rte_pmd_dma_mlx5_remote *ch = rte_pmd_dma_mlx5_remote_create(dev, 256);
	struct rte_pmd_dma_mlx5_remote_published pub;
	unsigned int failures = 0;
	int peer_id = -1;

	if (ch && peer)
		peer_id = rte_pmd_dma_mlx5_remote_peer_add(ch, peer);
	else if (ch)
		peer_id = rte_pmd_dma_mlx5_remote_peer_add_addr(ch, addr, &pub);
	if (!src || !back || peer_id < 0) {
		fprintf(stderr, "dma_mlx5_remote: no channel or no peer: %s\n",
			rte_strerror(peer_id < 0 && ch ? -peer_id : rte_errno));
		failures = 1;
		goto out;
	}
	if (!peer) {
		far = pub.addr; /* what the target published: its memory's address */
		if (pub.len < CHUNKS * CHUNK) {
			fprintf(stderr, "dma_mlx5_remote: %s exposes %" PRIu64 " bytes only\n",
				addr, pub.len);
			failures = 1;
			goto out;
		}
	}
	/* byte j of a fill is byte j % 8 of the pattern as it lies in memory */
	uint64_t pat = FILL_PATTERN;
	if (rte_pmd_dma_mlx5_remote_fill(ch, (uint16_t)peer_id, pat, far, CHUNKS * CHUNK,
					 RTE_DMA_OP_FLAG_SUBMIT) < 0 ||
	    rte_pmd_dma_mlx5_remote_read(ch, (uint16_t)peer_id, far + (CHUNKS - 1) * CHUNK,
					 rte_malloc_virt2iova(back), CHUNK,
					 RTE_DMA_OP_FLAG_SUBMIT) < 0)
		failures++;
	failures += wait_ops(ch, 2);
	for (unsigned int j = 0; j < CHUNK; j++)
		if (back[j] != ((const uint8_t *)&pat)[j % 8]) {
			failures++;
			break;
		}
	pattern(src);
	for (unsigned int i = 0; i < CHUNKS; i++)
		if (rte_pmd_dma_mlx5_remote_write(
			    ch, (uint16_t)peer_id, rte_malloc_virt2iova(src) + i * CHUNK,
			    far + i * CHUNK, CHUNK, i % 32 == 31 ? RTE_DMA_OP_FLAG_SUBMIT : 0) < 0)
			failures++;
	failures += wait_ops(ch, CHUNKS);
	if (far_local)
		failures += memcmp(far_local, src, CHUNKS * CHUNK) != 0;
	for (unsigned int i = 0; i < CHUNKS; i++)
		if (rte_pmd_dma_mlx5_remote_read(ch, (uint16_t)peer_id, far + i * CHUNK,
						 rte_malloc_virt2iova(back) + i * CHUNK, CHUNK,
						 i % 32 == 31 ? RTE_DMA_OP_FLAG_SUBMIT : 0) < 0)
			failures++;
	failures += wait_ops(ch, CHUNKS);
	failures += memcmp(back, src, CHUNKS * CHUNK) != 0;
out:
	rte_pmd_dma_mlx5_remote_free(ch);
	rte_free(src);
	rte_free(back);
	return failures;
}

/* "copy <peer line>": writes to the other process's target, reads back, checks */
static int copy(int16_t dev, char **av)
{
	struct rte_pmd_dma_mlx5_remote_peer peer;
	unsigned int failures;

	peer.target.lid = (uint16_t)strtoul(av[0], NULL, 0);
	peer.target.dctn = (uint32_t)strtoul(av[1], NULL, 0);
	peer.target.dc_key = strtoull(av[2], NULL, 0);
	peer.rkey = (uint32_t)strtoul(av[3], NULL, 0);
	failures = write_read_back(dev, &peer, NULL, strtoull(av[4], NULL, 0), NULL);
	printf("dma_mlx5_remote: copier: 1 fill, %u writes, %u reads to LID %u, %u failures: %s\n",
	       CHUNKS, CHUNKS + 1, peer.target.lid, failures, failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}

/* "copy-to <address>": the same to the target published at that address */
static int copy_to(int16_t dev, const char *addr)
{
	unsigned int failures = write_read_back(dev, NULL, addr, 0, NULL);

	printf("dma_mlx5_remote: copier: 1 fill, %u writes, %u reads to %s, %u failures: %s\n",
	       CHUNKS, CHUNKS + 1, addr, failures, failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct rte_pmd_dma_mlx5_remote_peer peer;
	unsigned int failures;
	uint8_t *far;
	int16_t a, b;
	int eal = rte_eal_init(argc, argv);

	if (eal < 0) {
		fprintf(stderr, "dma_mlx5_remote: EAL init failed\n");
		return 1;
	}
	argc -= eal;
	argv += eal;
	if (argc >= 2 && strcmp(argv[1], "serve") == 0) {
		int ret = first_device() < 0 ? 1 : serve(first_device(), NULL);
		rte_eal_cleanup();
		return ret;
	}
	if (argc >= 3 && strcmp(argv[1], "serve-at") == 0) {
		int ret = first_device() < 0 ? 1 : serve(first_device(), argv[2]);
		rte_eal_cleanup();
		return ret;
	}
	if (argc >= 3 && strcmp(argv[1], "copy-to") == 0) {
		int ret = first_device() < 0 ? 1 : copy_to(first_device(), argv[2]);
		rte_eal_cleanup();
		return ret;
	}
	if (argc >= 8 && strcmp(argv[1], "copy") == 0 && strcmp(argv[2], "peer") == 0) {
		int ret = first_device() < 0 ? 1 : copy(first_device(), argv + 3);
		rte_eal_cleanup();
		return ret;
	}
	if (argc >= 2) {
		fprintf(stderr, "usage: dma_mlx5_remote <EAL args> [-- serve | -- copy peer "
				"<lid> <dctn> <key> <rkey> <address> | -- serve-at <ip:port> | "
				"-- copy-to <ip:port>]\n");
		return 1;
	}
	if (find_devices(&a, &b)) {
		fprintf(stderr, "dma_mlx5_remote: two dma_mlx5 devices needed (--vdev ...)\n");
		return 1;
	}
	far = rte_zmalloc(NULL, CHUNKS * CHUNK, 64); /* target host's memory */
	if (!far)
		return 1;

	/* the target host: a DC target and a key for exactly that memory (sent out of band) */
	if (rte_pmd_dma_mlx5_remote_target_create(b, DC_KEY, &peer.target) != 0 ||
	    rte_pmd_dma_mlx5_remote_rkey(b, far, CHUNKS * CHUNK, &peer.rkey) != 0) {
		fprintf(stderr, "dma_mlx5_remote: no DC target on device %d\n", b);
		return 1;
	}
	printf("target: LID %u, DCT %#x, rkey %#x\n", peer.target.lid, peer.target.dctn, peer.rkey);

	/* the copying host: a channel, the peer, writes, then reads back */
	failures = write_read_back(a, &peer, NULL, (uintptr_t)far, far);

	/* the target host revokes the key before freeing the memory it exposed */
	if (rte_pmd_dma_mlx5_remote_rkey_release(b, peer.rkey) != 0)
		failures++;
	printf("dma_mlx5_remote: 1 fill, %u writes, %u reads, %u bytes verified, %u failures: %s\n",
	       CHUNKS, CHUNKS + 1, 2 * CHUNKS * CHUNK + CHUNK, failures,
	       failures ? "FAIL" : "PASS");
	rte_free(far);
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
