/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5_domain: DPDK 25.11's inter-process domain with an installed dma_mlx5, built
 * against pkg-config alone. Two processes, one dma_mlx5 device each on one machine-wide
 * fabric of the software HCA (sim_fabric=<name>):
 *
 *   dma_mlx5_domain --file-prefix a ... --vdev dma_mlx5_a,dev=sim1,sim_fabric=lab \
 *       -- serve <token>
 *   dma_mlx5_domain --file-prefix b ... --vdev dma_mlx5_b,dev=sim2,sim_fabric=lab \
 *       -- copy <token> <the creator's "group" line>
 *
 * The creator makes an access pair group, exposes 1 MiB of its memory to it, prints
 * "group <id> <domain> <window>" and waits for a line on stdin. The copier joins with
 * the token, takes handlers of both domains, and with plain rte_dma_copy() on a vchan
 * whose domain names the creator writes 256 chunks into the creator's window, reads
 * them back through a second vchan, and checks that a copy past the window is refused
 * by the creator's device. Then the creator checks what landed in its own memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_pmd_dma_mlx5.h>
#include <rte_uuid.h>

#define WINDOW (1u << 20)
#define CHUNKS 256
#define CHUNK 2048

static volatile int left;

static void on_event(int16_t dev_id, int16_t group_id, rte_uuid_t domain_id,
		     enum rte_dma_access_pair_group_event_type event)
{
	(void)dev_id;
	(void)group_id;
	(void)domain_id;
	if (event == RTE_DMA_GROUP_EVENT_MEMBER_LEFT)
		left = 1;
}

static int first_device(void)
{
	for (int16_t d = 0; d < RTE_DMADEV_DEFAULT_MAX; d++) {
		struct rte_dma_info info;

		if (rte_dma_is_valid(d) && rte_dma_info_get(d, &info) == 0 &&
		    strncmp(info.dev_name, "dma_mlx5", 8) == 0)
			return (info.dev_capa & RTE_DMA_CAPA_INTER_PROCESS_DOMAIN) ? d : -2;
	}
	return -1;
}

/* a domain id of this process (any unique value; here random bytes) */
static void new_domain(rte_uuid_t u)
{
	srand((unsigned int)(getpid() ^ rte_get_timer_cycles()));
	for (int i = 0; i < 16; i++)
		u[i] = (uint8_t)rand();
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 31 + (i >> 11));
}

static int serve(int16_t dev, rte_uuid_t token)
{
	rte_uuid_t me;
	char s[RTE_UUID_STRLEN], line[16];
	int16_t gid;
	uint8_t *win = rte_zmalloc(NULL, WINDOW, 64);
	size_t bad = 0;
	int ret;

	new_domain(me);
	if (!win || rte_dma_access_pair_group_create(dev, me, token, &gid, on_event) != 0) {
		printf("dma_mlx5_domain: creator: no group created\n");
		return 1;
	}
	ret = rte_pmd_dma_mlx5_group_expose(dev, gid, win, WINDOW,
					    RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ |
						    RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE);
	if (ret) {
		printf("dma_mlx5_domain: creator: window not exposed: %d\n", ret);
		return 1;
	}
	rte_uuid_unparse(me, s, sizeof(s));
	printf("group %d %s %p\n", gid, s, (void *)win);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (size_t i = 0; i < (size_t)CHUNKS * CHUNK; i++)
		bad += win[i] != pattern(i);
	/* destroyed once the copier has left (it does before it exits) */
	for (int i = 0; i < 5000 && (ret = rte_dma_access_pair_group_destroy(dev, gid)) == -EBUSY;
	     i++)
		rte_delay_ms(1);
	printf("dma_mlx5_domain: creator: %zu bytes written by the other process, %zu wrong, "
	       "member left %s, group destroyed %d: %s\n",
	       (size_t)CHUNKS * CHUNK, bad, left ? "seen" : "not seen", ret,
	       !bad && left && !ret ? "PASS" : "FAIL");
	rte_free(win);
	return bad || !left || ret;
}

/* one poll of @vchan's completions: ops reported go to *done; how many failed */
static unsigned int reap(int16_t dev, uint16_t vchan, unsigned int *done,
			 enum rte_dma_status_code *first_err)
{
	enum rte_dma_status_code st[64];
	unsigned int failed = 0;
	uint16_t last;
	uint16_t k = rte_dma_completed_status(dev, vchan, 64, &last, st);

	for (uint16_t i = 0; i < k; i++)
		if (st[i] != RTE_DMA_STATUS_SUCCESSFUL && !failed++ && first_err)
			*first_err = st[i];
	*done += k;
	return failed;
}

/* until @n ops of @vchan were reported (5 s at most): failed and missing ones */
static unsigned int wait_ops(int16_t dev, uint16_t vchan, unsigned int n, unsigned int *done,
			     enum rte_dma_status_code *first_err)
{
	uint64_t end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	unsigned int failed = 0;

	while (*done < n && rte_get_timer_cycles() < end)
		failed += reap(dev, vchan, done, first_err);
	return failed + (*done < n ? n - *done : 0);
}

static int setup(int16_t dev, uint16_t me, uint16_t peer)
{
	struct rte_dma_conf conf = {.nb_vchans = 2};
	struct rte_dma_vchan_conf vc = {.direction = RTE_DMA_DIR_MEM_TO_MEM, .nb_desc = 512};

	if (rte_dma_configure(dev, &conf))
		return -1;
	/* vchan 0: from this process into the peer's; vchan 1: the other way */
	vc.domain = (struct rte_dma_inter_domain_param){RTE_DMA_INTER_PROCESS_DOMAIN, me, peer};
	if (rte_dma_vchan_setup(dev, 0, &vc))
		return -1;
	vc.domain = (struct rte_dma_inter_domain_param){RTE_DMA_INTER_PROCESS_DOMAIN, peer, me};
	if (rte_dma_vchan_setup(dev, 1, &vc))
		return -1;
	return rte_dma_start(dev);
}

static int copy(int16_t dev, rte_uuid_t token, int16_t gid, const char *their_s, uint64_t win)
{
	rte_uuid_t me, theirs;
	uint16_t h_me, h_peer;
	enum rte_dma_status_code past = RTE_DMA_STATUS_SUCCESSFUL;
	uint8_t *src = rte_malloc(NULL, (size_t)CHUNKS * CHUNK, 64);
	uint8_t *back = rte_zmalloc(NULL, (size_t)CHUNKS * CHUNK, 64);
	unsigned int failures = 0, refused, done = 0;
	size_t bad = 0;

	new_domain(me);
	if (!src || !back || rte_uuid_parse(their_s, theirs) != 0 ||
	    rte_dma_access_pair_group_join(dev, me, token, gid, NULL) != 0 ||
	    rte_dma_access_pair_group_handler_get(dev, gid, me, &h_me) != 0 ||
	    rte_dma_access_pair_group_handler_get(dev, gid, theirs, &h_peer) != 0 ||
	    setup(dev, h_me, h_peer) != 0) {
		printf("dma_mlx5_domain: copier: group %d not joined or vchans not set up\n", gid);
		return 1;
	}
	for (size_t i = 0; i < (size_t)CHUNKS * CHUNK; i++)
		src[i] = pattern(i);
	/* into the other process: plain copies, its addresses as destinations */
	for (unsigned int c = 0; c < CHUNKS; c++) {
		while (rte_dma_copy(dev, 0, rte_mem_virt2iova(src + (size_t)c * CHUNK),
				    win + (uint64_t)c * CHUNK, CHUNK,
				    RTE_DMA_OP_FLAG_SUBMIT) == -ENOSPC)
			failures += reap(dev, 0, &done, NULL);
	}
	failures += wait_ops(dev, 0, CHUNKS, &done, NULL);
	/* and back out of it */
	done = 0;
	if (rte_dma_copy(dev, 1, win, rte_mem_virt2iova(back), CHUNKS * CHUNK,
			 RTE_DMA_OP_FLAG_SUBMIT) < 0 ||
	    wait_ops(dev, 1, 1, &done, NULL))
		failures++;
	for (size_t i = 0; i < (size_t)CHUNKS * CHUNK; i++)
		bad += back[i] != pattern(i);
	/* past the window: the creator's device refuses it, nothing is written */
	done = 0;
	refused = rte_dma_copy(dev, 0, rte_mem_virt2iova(src), win + WINDOW - 8, 64,
			       RTE_DMA_OP_FLAG_SUBMIT) >= 0 &&
		  wait_ops(dev, 0, 1, &done, &past) == 1 && done == 1 &&
		  past == RTE_DMA_STATUS_INVALID_ADDR;
	rte_dma_stop(dev);
	rte_dma_access_pair_group_leave(dev, gid);
	printf("dma_mlx5_domain: copier: %u copies into the other process, 1 read out of it, "
	       "%zu bytes verified, %u refused past its window, %u failures: %s\n",
	       CHUNKS, (size_t)CHUNKS * CHUNK - bad, refused, failures + (unsigned int)!!bad,
	       !failures && !bad && refused ? "PASS" : "FAIL");
	rte_free(src);
	rte_free(back);
	return failures || bad || !refused;
}

int main(int argc, char **argv)
{
	rte_uuid_t token;
	int ret = rte_eal_init(argc, argv);
	int dev;

	if (ret < 0) {
		fprintf(stderr, "dma_mlx5_domain: EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	dev = first_device();
	if (dev < 0) {
		fprintf(stderr, "dma_mlx5_domain: %s\n",
			dev == -2 ? "the dma_mlx5 device has no inter-process domain"
				  : "no dma_mlx5 device (--vdev dma_mlx5,...)");
		return 1;
	}
	if (argc >= 3 && strcmp(argv[1], "serve") == 0 && rte_uuid_parse(argv[2], token) == 0)
		ret = serve((int16_t)dev, token);
	else if (argc >= 7 && strcmp(argv[1], "copy") == 0 && strcmp(argv[3], "group") == 0 &&
		 rte_uuid_parse(argv[2], token) == 0)
		ret = copy((int16_t)dev, token, (int16_t)atoi(argv[4]), argv[5],
			   strtoull(argv[6], NULL, 0));
	else {
		fprintf(stderr, "usage: dma_mlx5_domain EAL... -- serve <token uuid> | "
				"copy <token uuid> group <id> <domain> <window>\n");
		ret = 1;
	}
	rte_dma_close((int16_t)dev);
	rte_eal_cleanup();
	return ret;
}
