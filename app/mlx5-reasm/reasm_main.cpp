/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5-reasm: receive on one ethdev port, reassemble (or linearize, or split) through
 * librte_reasm, send the results on another port. With net_pcap vdevs it is a
 * pcap-in/pcap-out tool; it stops when the pcap input has been idle for --idle-ms and
 * nothing is in flight, or on SIGINT/SIGTERM, and prints its counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "reasm_opts.h"
#include "rte_reasm.h"

namespace {

constexpr uint16_t burst = 32;
constexpr int exit_unsupported = 77; /* the engine cannot do what was asked (a test skips) */
volatile sig_atomic_t quit;

void on_signal(int sig)
{
	RTE_SET_USED(sig);
	quit = 1;
}

struct counters {
	uint64_t rx = 0, tx = 0, tx_dropped = 0;
};

/* l2_len and the L3 packet type from the Ethernet header (up to two VLAN tags). */
void classify(struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l2 = 12;
	uint16_t type;

	m->packet_type = RTE_PTYPE_L2_ETHER;
	m->l2_len = 14;
	for (int tags = 0;; tags++) {
		if (m->data_len < l2 + 2)
			return;
		type = (uint16_t)(p[l2] << 8 | p[l2 + 1]);
		if ((type != 0x8100 && type != 0x88a8) || tags == 2)
			break;
		l2 += 4;
	}
	m->l2_len = l2 + 2;
	if (type == 0x0800)
		m->packet_type |= RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
	else if (type == 0x86dd)
		m->packet_type |= RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
}

int port_setup(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {};
	int rc;

	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (!rc)
		rc = rte_eth_rx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL, pool);
	if (!rc)
		rc = rte_eth_tx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL);
	if (!rc)
		rc = rte_eth_dev_start(port);
	if (rc)
		fprintf(stderr, "mlx5-reasm: port %u setup: %s\n", port, rte_strerror(-rc));
	return rc;
}

bool is_pcap(uint16_t port)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port, &info) == 0 && info.driver_name &&
	       strcmp(info.driver_name, "net_pcap") == 0;
}

/* A started dmadev with one mem-to-mem vchan. */
int dma_setup(const char *name)
{
	int dev = rte_dma_get_dev_id_by_name(name);
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	struct rte_dma_info info;

	if (dev < 0 || rte_dma_info_get(dev, &info) != 0) {
		fprintf(stderr, "mlx5-reasm: no dmadev \"%s\" (give it with --vdev)\n", name);
		return -1;
	}
	conf.nb_vchans = 1;
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = std::clamp<uint16_t>(1024, info.min_desc, info.max_desc);
	if (rte_dma_configure(dev, &conf) != 0 || rte_dma_vchan_setup(dev, 0, &vc) != 0 ||
	    rte_dma_start(dev) != 0) {
		fprintf(stderr, "mlx5-reasm: dmadev %s: configure/start failed\n", name);
		return -1;
	}
	return dev;
}

void send_results(struct rte_reasm_ctx *ctx, uint16_t port, counters *c)
{
	struct rte_mbuf *out[burst];
	uint16_t n, sent;

	while ((n = rte_reasm_dequeue(ctx, out, burst)) > 0) {
		sent = 0;
		for (int tries = 0; sent < n && tries < 1000; tries++)
			sent += rte_eth_tx_burst(port, 0, out + sent, n - sent);
		c->tx += sent;
		c->tx_dropped += n - sent;
		rte_pktmbuf_free_bulk(out + sent, n - sent);
	}
}

uint16_t give(struct rte_reasm_ctx *ctx, const reasm_app_opts &o, struct rte_mbuf **p, uint16_t n,
	      uint64_t now)
{
	switch (o.mode) {
	case MODE_LINEARIZE:
		return rte_reasm_linearize_enqueue(ctx, p, n);
	case MODE_SPLIT:
		return rte_reasm_split_enqueue(ctx, p, n, &o.split);
	default:
		return rte_reasm_enqueue(ctx, p, n, now);
	}
}

/* Gathers in flight and results not sent: what must finish before the tool may stop. */
bool busy(struct rte_reasm_ctx *ctx)
{
	struct rte_reasm_stats s;

	rte_reasm_stats_get(ctx, &s);
	return rte_reasm_pending(ctx) > s.dgrams_in_table;
}

void print_stats(struct rte_reasm_ctx *ctx, const counters &c, const char *engine)
{
	struct rte_reasm_stats s;

	rte_reasm_stats_get(ctx, &s);
	printf("mlx5-reasm: engine %s\n", engine);
	printf("  rx packets      %" PRIu64 "\n  tx packets      %" PRIu64 "\n", c.rx, c.tx);
	printf("  tx dropped      %" PRIu64 "\n", c.tx_dropped);
	printf("  passthrough     %" PRIu64 "\n  fragments       %" PRIu64 "\n", s.passthrough,
	       s.frags_in);
	printf("  reassembled     %" PRIu64 "\n  atomic          %" PRIu64 "\n", s.reassembled,
	       s.atomic);
	printf("  duplicates      %" PRIu64 "\n  trimmed         %" PRIu64 "\n", s.duplicates,
	       s.trimmed);
	printf("  linearized      %" PRIu64 "\n  split           %" PRIu64 "\n", s.linearized,
	       s.split);
	printf("  gathers         %" PRIu64 "\n  split gathers   %" PRIu64
	       "\n  gather ops      %" PRIu64 "\n  cpu fallbacks   %" PRIu64 "\n",
	       s.gathers, s.split_gathers, s.gather_ops, s.cpu_fallbacks);
	printf("  umr gathers     %" PRIu64 "\n  interleaved splits %" PRIu64
	       "\n  deferred        %" PRIu64 "\n",
	       s.umr_gathers, s.interleaved_splits, s.deferred);
	for (int r = 0; r < RTE_REASM_DROP_MAX; r++)
		printf("  drop %-14s packets %" PRIu64 " datagrams %" PRIu64 "\n",
		       rte_reasm_drop_name((enum rte_reasm_drop)r), s.drop_frags[r],
		       s.drop_dgrams[r]);
}

} // namespace

int main(int argc, char **argv)
{
	reasm_app_opts o;
	struct rte_mempool *rx_pool, *out_pool;
	struct rte_reasm_engine *engine = NULL;
	struct rte_reasm_ctx *ctx;
	struct rte_mbuf *pkts[burst];
	counters c;
	int ret, dev = -1, status = 0;
	uint64_t hz, last_rx, last_progress, now;
	bool pcap_input;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "mlx5-reasm: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ret = reasm_app_parse(argc - ret, argv + ret, &o);
	if (ret) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!rte_eth_dev_is_valid_port(o.rx_port) || !rte_eth_dev_is_valid_port(o.tx_port)) {
		fprintf(stderr, "mlx5-reasm: ports %u/%u: %u ports exist (give them with --vdev)\n",
			o.rx_port, o.tx_port, rte_eth_dev_count_avail());
		rte_eal_cleanup();
		return 2;
	}
	o.conf.max_inflight = o.conf.max_inflight ? o.conf.max_inflight
						  : RTE_REASM_DEFAULT_MAX_INFLIGHT;
	rx_pool = rte_pktmbuf_pool_create("reasm_rx", 8191, 256, 0,
					  (uint16_t)(o.mbuf_size + RTE_PKTMBUF_HEADROOM),
					  rte_socket_id());
	/* Results: one 64 KiB segment holds any datagram but the largest (pcap output
	 * wants contiguous packets); as many as results and gathers can hold at once. */
	out_pool = rte_pktmbuf_pool_create("reasm_out", 2 * (o.conf.max_inflight + 64) + 255, 0, 0,
					   UINT16_MAX, rte_socket_id());
	if (!rx_pool || !out_pool) {
		fprintf(stderr, "mlx5-reasm: mempools: %s\n", rte_strerror(rte_errno));
		status = 1;
		goto out_eal;
	}
	if (o.engine == "cpu") {
		engine = rte_reasm_engine_cpu_create();
	} else {
		dev = dma_setup(o.engine.c_str());
		if (dev < 0) {
			status = 2;
			goto out_eal;
		}
		engine = rte_reasm_engine_dma_create((int16_t)dev, 0, o.dma_mode);
		if (!engine && rte_errno == ENOTSUP) {
			fprintf(stderr, "mlx5-reasm: dmadev %s cannot do this (%s)\n",
				o.engine.c_str(),
				o.dma_mode == RTE_REASM_DMA_SG    ? "no RTE_DMA_CAPA_OPS_COPY_SG"
				: o.dma_mode == RTE_REASM_DMA_UMR ? "no dma_mlx5 indirect mkeys"
								  : "no mem-to-mem copy");
			status = exit_unsupported;
			goto out_dma;
		}
	}
	if (!engine) {
		fprintf(stderr, "mlx5-reasm: engine %s: %s\n", o.engine.c_str(),
			rte_strerror(rte_errno));
		status = 1;
		goto out_dma;
	}
	o.conf.name = "mlx5-reasm";
	o.conf.engine = engine;
	o.conf.pool = out_pool;
	o.conf.socket_id = (int)rte_socket_id();
	ctx = rte_reasm_create(&o.conf);
	if (!ctx) {
		fprintf(stderr, "mlx5-reasm: context: %s\n", rte_strerror(rte_errno));
		status = 1;
		goto out_engine;
	}
	if (port_setup(o.rx_port, rx_pool) ||
	    (o.tx_port != o.rx_port && port_setup(o.tx_port, rx_pool))) {
		status = 1;
		goto out_ctx;
	}
	pcap_input = is_pcap(o.rx_port);
	printf("mlx5-reasm: port %u -> port %u, engine %s (%s)%s\n", o.rx_port, o.tx_port,
	       o.engine.c_str(), rte_reasm_engine_kind(engine),
	       pcap_input && o.idle_ms ? ", stops when the pcap input is over" : "");
	hz = rte_get_tsc_hz();
	last_rx = last_progress = rte_rdtsc();
	while (!quit) {
		uint16_t n = rte_eth_rx_burst(o.rx_port, 0, pkts, burst), done = 0;

		now = rte_rdtsc();
		if (n) {
			last_rx = now;
			c.rx += n;
			for (uint16_t i = 0; i < n; i++)
				classify(pkts[i]);
			while (done < n && !quit) {
				done += give(ctx, o, pkts + done, n - done, now);
				send_results(ctx, o.tx_port, &c);
			}
			rte_pktmbuf_free_bulk(pkts + done, n - done);
		} else {
			rte_reasm_expire(ctx, now);
			send_results(ctx, o.tx_port, &c);
			if (pcap_input && o.idle_ms && now - last_rx > hz * o.idle_ms / 1000 &&
			    !busy(ctx))
				break;
		}
		if (o.progress_ms && now - last_progress > hz * o.progress_ms / 1000) {
			struct rte_reasm_stats s;

			rte_reasm_stats_get(ctx, &s);
			printf("progress: rx %" PRIu64 " tx %" PRIu64 " reassembled %" PRIu64
			       " in reassembly %" PRIu64 "\n",
			       c.rx, c.tx, s.reassembled, s.dgrams_in_table);
			fflush(stdout);
			last_progress = now;
		}
	}
	/* The input is over: what is still incomplete never will be. */
	rte_reasm_expire(ctx, UINT64_MAX);
	while (busy(ctx))
		send_results(ctx, o.tx_port, &c);
	print_stats(ctx, c, rte_reasm_engine_kind(engine));
	rte_eth_dev_stop(o.rx_port);
	if (o.tx_port != o.rx_port)
		rte_eth_dev_stop(o.tx_port);
	rte_eth_dev_close(o.rx_port); /* closing net_pcap flushes its output file */
	if (o.tx_port != o.rx_port)
		rte_eth_dev_close(o.tx_port);
out_ctx:
	rte_reasm_free(ctx);
out_engine:
	rte_reasm_engine_free(engine);
out_dma:
	if (dev >= 0) {
		rte_dma_stop(dev);
		rte_dma_close(dev);
	}
out_eal:
	rte_mempool_free(out_pool);
	rte_mempool_free(rx_pool);
	rte_eal_cleanup();
	return status;
}
