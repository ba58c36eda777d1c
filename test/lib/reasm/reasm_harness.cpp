/* SPDX-License-Identifier: BSD-3-Clause */
#include "reasm_harness.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>

namespace harness {

struct rte_mempool *in_pool;
struct rte_mempool *out_pool;

int pools_create(void)
{
	in_pool = rte_pktmbuf_pool_create("reasm_in", 16383, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
					  SOCKET_ID_ANY);
	out_pool = rte_pktmbuf_pool_create("reasm_out", 4095, 0, 0, 9216 + RTE_PKTMBUF_HEADROOM,
					   SOCKET_ID_ANY);
	return in_pool && out_pool ? 0 : -1;
}

struct rte_mbuf *to_mbuf(const pktgen::frame &f, uint32_t seg, struct rte_mempool *pool)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool ? pool : in_pool);
		uint32_t n = std::min<uint32_t>(seg, (uint32_t)f.size() - off);

		if (!m) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f.data() + off, n);
		off += n;
		if (!head) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		tail = m;
	} while (off < f.size());
	head->l2_len = 14;
	head->packet_type = f[12] == 0x08 && f[13] == 0x00   ? RTE_PTYPE_L3_IPV4_EXT_UNKNOWN
			    : f[12] == 0x86 && f[13] == 0xdd ? RTE_PTYPE_L3_IPV6_EXT_UNKNOWN
							     : RTE_PTYPE_L2_ETHER;
	return head;
}

pktgen::frame from_mbuf(const struct rte_mbuf *m)
{
	pktgen::frame f(m->pkt_len);
	const void *p = rte_pktmbuf_read(m, 0, m->pkt_len, f.data());

	if (p != f.data())
		memcpy(f.data(), p, m->pkt_len);
	return f;
}

struct rte_reasm_ctx *ctx_create(struct rte_reasm_engine *engine, struct rte_reasm_conf conf)
{
	static int seq;
	char name[32];

	snprintf(name, sizeof(name), "test%d", seq++);
	conf.name = name;
	conf.engine = engine;
	if (!conf.pool)
		conf.pool = out_pool;
	return rte_reasm_create(&conf);
}

void drain(struct rte_reasm_ctx *ctx, std::vector<pktgen::frame> *out)
{
	struct rte_mbuf *res[32];
	struct rte_reasm_stats st;
	uint64_t deadline = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	for (;;) {
		uint16_t n = rte_reasm_dequeue(ctx, res, 32);

		for (uint16_t i = 0; i < n; i++) {
			out->push_back(from_mbuf(res[i]));
			rte_pktmbuf_free(res[i]);
		}
		rte_reasm_stats_get(ctx, &st);
		if (n == 0 && rte_reasm_pending(ctx) == st.dgrams_in_table)
			return;
		if (rte_get_tsc_cycles() > deadline) {
			fprintf(stderr, "drain: gathers still in flight after 10 s\n");
			return;
		}
	}
}

std::vector<pktgen::frame> run(struct rte_reasm_ctx *ctx, const std::vector<pktgen::frame> &frames,
			       uint64_t now)
{
	std::vector<pktgen::frame> out;

	for (const auto &f : frames) {
		struct rte_mbuf *m = to_mbuf(f);

		if (!m) {
			fprintf(stderr, "run: input pool empty\n");
			break;
		}
		while (rte_reasm_enqueue(ctx, &m, 1, now) == 0)
			drain(ctx, &out);
	}
	drain(ctx, &out);
	return out;
}

std::vector<pktgen::frame> oracle(const std::vector<pktgen::frame> &frames)
{
	uint64_t hz = rte_get_tsc_hz();
	struct rte_ip_frag_tbl *tbl = rte_ip_frag_table_create(1024, 16, 1024 * 16, hz * 60,
							       SOCKET_ID_ANY);
	static struct rte_ip_frag_death_row dr;
	std::vector<pktgen::frame> out;

	if (!tbl)
		return out;
	for (const auto &f : frames) {
		struct rte_mbuf *m = to_mbuf(f), *r;

		if (!m)
			break;
		if (RTE_ETH_IS_IPV4_HDR(m->packet_type)) {
			struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
									  14);

			m->l3_len = rte_ipv4_hdr_len(ip);
			r = rte_ipv4_frag_reassemble_packet(tbl, &dr, m, rte_rdtsc(), ip);
		} else {
			struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
									  14);
			struct rte_ipv6_fragment_ext *fh =
				rte_ipv6_frag_get_ipv6_fragment_header(ip);

			m->l3_len = sizeof(*ip) + sizeof(*fh);
			r = rte_ipv6_frag_reassemble_packet(tbl, &dr, m, rte_rdtsc(), ip, fh);
		}
		if (r) {
			rte_pktmbuf_linearize(r);
			if (RTE_ETH_IS_IPV4_HDR(r->packet_type)) {
				struct rte_ipv4_hdr *ip =
					rte_pktmbuf_mtod_offset(r, struct rte_ipv4_hdr *, 14);

				ip->hdr_checksum = rte_ipv4_cksum(ip);
			}
			out.push_back(from_mbuf(r));
			rte_pktmbuf_free(r);
		}
		rte_ip_frag_free_death_row(&dr, 0);
	}
	rte_ip_frag_table_destroy(tbl); /* frees what is still held */
	return out;
}

bool pools_idle(void)
{
	unsigned int a = rte_mempool_in_use_count(in_pool), b = rte_mempool_in_use_count(out_pool);

	if (a || b)
		fprintf(stderr, "mbufs in use: in %u, out %u\n", a, b);
	return a == 0 && b == 0;
}

std::vector<pktgen::frame> sorted(std::vector<pktgen::frame> v)
{
	std::sort(v.begin(), v.end());
	return v;
}

} // namespace harness
