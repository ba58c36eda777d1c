/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_reasm: byte-identical with librte_ip_frag 22.11 + linearize where that library
 * is correct; the RFC rules (and their counters) where it is not; linearize and split;
 * every engine against the CPU; mempools back to idle after every test.
 */
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <string>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "cunit_run.h"
#include "dpdk_test_util.h"
#include "reasm_engine.h"
#include "reasm_engine_dma.h"
#include "rte_reasm_driver.h"
#include "reasm_harness.h"
#ifdef REASM_TEST_SIM
#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h" /* test_hook_next_wqe */
#endif

using pktgen::frame;
using namespace harness;

namespace {

struct rte_reasm_engine *cpu;
/* dma_mlx5 executes inline: held-back CQEs come out only at a doorbell (model assumption
 * 35), so the fault campaign, which waits idle for them, does not hold them back. */
bool sim_inline;
/* dev=DEV given: dma_mlx5 runs on DEV, a device of Debian's libmlx5 (devtools/sim-rdma) */
const char *kernel_dev;

struct rte_reasm_stats stats_of(struct rte_reasm_ctx *c)
{
	struct rte_reasm_stats s;

	rte_reasm_stats_get(c, &s);
	return s;
}

/* Datagrams librte_ip_frag gets right: <= 8 fragments, no overlap, no duplicate. */
void benign_traffic(bool v6, uint32_t n, uint32_t seed, std::vector<frame> *in,
		    std::vector<frame> *whole)
{
	std::mt19937 rng(seed);

	for (uint32_t i = 0; i < n; i++) {
		pktgen::dgram_spec s;
		uint32_t nf = 2 + rng() % 7;

		s.v6 = v6;
		s.l4 = (uint8_t[]){17, 6, 1}[i % 3];
		s.flow = (uint8_t)(i % 7);
		s.id = 100 + i;
		/* mostly up to 9000 B, some up to 65535 (fragments over one segment) */
		s.ip_len = i % 10 == 9 ? 20000 + rng() % 45536 : 68 + rng() % 8933;
		s.ip_len = std::max<uint32_t>(s.ip_len, (v6 ? 48 : 28) + 8 * nf);
		whole->push_back(pktgen::make_datagram(s, rng));
		auto fr = pktgen::fragment(whole->back(), nf, s.id, rng);

		in->insert(in->end(), fr.begin(), fr.end());
	}
	std::shuffle(in->begin(), in->end(), rng); /* interleaved flows, any order */
}

void t_oracle(bool v6)
{
	std::vector<frame> in, whole;
	struct rte_reasm_ctx *c = ctx_create(cpu, {});

	benign_traffic(v6, 300, v6 ? 7 : 3, &in, &whole);
	auto ours = run(c, in);
	auto ref = oracle(in);
	CU_ASSERT_EQUAL(ours.size(), whole.size());
	CU_ASSERT_EQUAL(ref.size(), whole.size());
	CU_ASSERT(sorted(ours) == sorted(ref));
	CU_ASSERT(sorted(ours) == sorted(whole));
	CU_ASSERT_EQUAL(stats_of(c).reassembled, whole.size());
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_oracle_v4(void)
{
	t_oracle(false);
}

void t_oracle_v6(void)
{
	t_oracle(true);
}

/* One datagram's fragments, with a hook to damage them, through a fresh context. */
struct one {
	frame whole;
	std::vector<frame> frags;
};

one make_one(bool v6, uint32_t ip_len, uint32_t nf, uint32_t seed, uint32_t id = 7)
{
	std::mt19937 rng(seed);
	pktgen::dgram_spec s;
	one o;

	s.v6 = v6;
	s.ip_len = ip_len;
	s.id = id;
	o.whole = pktgen::make_datagram(s, rng);
	o.frags = pktgen::fragment(o.whole, nf, id, rng);
	return o;
}

void t_many_fragments(void)
{
	for (bool v6 : {false, true}) {
		one o = make_one(v6, 65535, 64, 11);
		struct rte_reasm_ctx *c = ctx_create(cpu, {});

		std::reverse(o.frags.begin(), o.frags.end());
		CU_ASSERT_EQUAL(o.frags.size(), 64);
		auto out = run(c, o.frags);
		CU_ASSERT_EQUAL_FATAL(out.size(), 1);
		CU_ASSERT(out[0] == o.whole);
		CU_ASSERT(oracle(o.frags).empty()); /* librte_ip_frag: over 8 fragments */
		rte_reasm_free(c);
	}
	CU_ASSERT(pools_idle());
}

void t_duplicates(void)
{
	for (size_t dup : {0, 2, 4}) { /* first, middle, last */
		one o = make_one(dup == 2, 3000, 5, 21);
		struct rte_reasm_ctx *c = ctx_create(cpu, {});

		/* the copy right after the original, both before the datagram completes */
		std::vector<frame> in = {o.frags[dup], o.frags[dup]};
		for (size_t i = 0; i < o.frags.size(); i++)
			if (i != dup)
				in.push_back(o.frags[i]);
		auto out = run(c, in);
		CU_ASSERT_EQUAL_FATAL(out.size(), 1);
		CU_ASSERT(out[0] == o.whole);
		CU_ASSERT_EQUAL(stats_of(c).duplicates, 1);
		rte_reasm_free(c);
	}
	CU_ASSERT(pools_idle());
}

void t_overlap(void)
{
	for (bool v6 : {false, true}) {
		one o = make_one(v6, 4000, 4, 31);
		struct rte_reasm_ctx *c = ctx_create(cpu, {});
		uint32_t off, len;
		bool more;

		pktgen::frag_range(o.frags[1], &off, &len, &more);
		/* starts 8 bytes into fragment 1's range, ends inside fragment 2 */
		std::vector<frame> in = {o.frags[0], o.frags[1],
					 pktgen::make_fragment(o.whole, off + 8, len, true, 7),
					 o.frags[2], o.frags[3]};
		auto out = run(c, in);
		auto s = stats_of(c);

		CU_ASSERT(out.empty());
		CU_ASSERT_EQUAL(s.drop_dgrams[RTE_REASM_DROP_OVERLAP], 1);
		/* the two held, the overlapping one and the two later ones (RFC 5722) */
		CU_ASSERT_EQUAL(s.drop_frags[RTE_REASM_DROP_OVERLAP], 5);
		CU_ASSERT_EQUAL(s.dgrams_in_table, 0);
		rte_reasm_free(c);
	}
	CU_ASSERT(pools_idle());
}

void t_overlap_trim_v4(void)
{
	one o = make_one(false, 4000, 4, 41);
	struct rte_reasm_conf conf = {};
	uint32_t off, len;
	bool more;

	conf.flags = RTE_REASM_F_IPV4_OVERLAP_TRIM;
	struct rte_reasm_ctx *c = ctx_create(cpu, conf);
	pktgen::frag_range(o.frags[1], &off, &len, &more);
	std::vector<frame> in = {o.frags[1], pktgen::make_fragment(o.whole, off + 8, len, true, 7),
				 o.frags[0], o.frags[3], o.frags[2]};
	auto out = run(c, in);
	CU_ASSERT_EQUAL_FATAL(out.size(), 1);
	CU_ASSERT(out[0] == o.whole);
	CU_ASSERT(stats_of(c).trimmed >= 1);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_ipv6_ext_headers(void)
{
	std::mt19937 rng(51);
	pktgen::dgram_spec s;

	s.v6 = true;
	s.ip_len = 6000;
	s.ext_before = 2; /* Hop-by-Hop, Destination Options */
	s.routing = true;
	s.id = 0xabcdef01;
	frame whole = pktgen::make_datagram(s, rng);
	auto frags = pktgen::fragment(whole, 6, s.id, rng);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});

	std::shuffle(frags.begin(), frags.end(), rng);
	auto out = run(c, frags);
	CU_ASSERT_EQUAL_FATAL(out.size(), 1);
	CU_ASSERT(out[0] == whole); /* unfragmentable part kept, next header restored */
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_atomic(void)
{
	one o = make_one(true, 2000, 3, 61);
	one a = make_one(true, 500, 1, 62); /* same addresses and id: an atomic fragment */
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	std::vector<frame> out;

	CU_ASSERT_EQUAL(a.frags.size(), 1);
	auto first = run(c, {o.frags[0], a.frags[0]});
	CU_ASSERT_EQUAL_FATAL(first.size(), 1);
	CU_ASSERT(first[0] == a.whole); /* at once, fragment header removed */
	CU_ASSERT_EQUAL(stats_of(c).dgrams_in_table, 1);
	auto rest = run(c, {o.frags[1], o.frags[2]});
	CU_ASSERT_EQUAL_FATAL(rest.size(), 1);
	CU_ASSERT(rest[0] == o.whole); /* never mixed with the atomic one */
	CU_ASSERT_EQUAL(stats_of(c).atomic, 1);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_ipv4_key_protocol(void)
{
	std::mt19937 rng(71);
	pktgen::dgram_spec s;
	std::vector<frame> in;

	s.ip_len = 3000;
	s.id = 9;
	s.l4 = 17;
	frame udp = pktgen::make_datagram(s, rng);
	s.l4 = 6;
	frame tcp = pktgen::make_datagram(s, rng);
	auto fu = pktgen::fragment(udp, 3, 9, rng), ft = pktgen::fragment(tcp, 3, 9, rng);
	for (int i = 0; i < 3; i++)
		in.push_back(fu[i]), in.push_back(ft[i]);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	auto out = run(c, in);
	CU_ASSERT(sorted(out) == sorted({udp, tcp}));
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

/* A fragment at any offset and length: the payload past the datagram's end is filler. */
frame craft(const frame &whole, uint32_t off, uint32_t len, bool more, uint32_t id = 7)
{
	frame big = whole;

	big.resize(std::max<size_t>(big.size(), pktgen::unfrag_end(whole) + off + len), 0xab);
	return pktgen::make_fragment(big, off, len, more, id);
}

void t_bad_lengths(void)
{
	one o = make_one(false, 4000, 3, 81);
	one o6 = make_one(true, 4000, 3, 82);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	std::vector<frame> in = {craft(o.whole, 0, 100, true), craft(o.whole, 65520, 16, false),
				 craft(o6.whole, 8, 100, true), craft(o6.whole, 65528, 16, false),
				 craft(o.whole, 64, 0, true)};
	auto out = run(c, in);
	auto st = stats_of(c);

	CU_ASSERT(out.empty());
	CU_ASSERT_EQUAL(st.drop_frags[RTE_REASM_DROP_BAD_HEADER], 3);
	CU_ASSERT_EQUAL(st.drop_frags[RTE_REASM_DROP_TOO_BIG], 2);
	CU_ASSERT_EQUAL(st.dgrams_in_table, 0);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_inconsistent_last(void)
{
	one o = make_one(false, 4000, 3, 83);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	uint32_t off, len;
	bool more;

	pktgen::frag_range(o.frags[2], &off, &len, &more);
	auto out = run(c, {o.frags[2], craft(o.whole, off, len + 8, false), o.frags[0]});
	CU_ASSERT(out.empty());
	CU_ASSERT_EQUAL(stats_of(c).drop_dgrams[RTE_REASM_DROP_BAD_HEADER], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_BAD_HEADER], 3);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_passthrough_and_padding(void)
{
	std::mt19937 rng(91);
	one o = make_one(false, 100, 2, 92); /* fragments of 40 and 60 IP bytes */
	frame arp(60, 0);
	frame p4 = pktgen::make_plain(false, 200, rng), p6 = pktgen::make_plain(true, 300, rng);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});

	arp[12] = 0x08, arp[13] = 0x06;
	o.frags[0].resize(std::max<size_t>(o.frags[0].size(), 60), 0); /* Ethernet padding */
	o.frags[1].resize(std::max<size_t>(o.frags[1].size(), 60), 0);
	auto out = run(c, {arp, o.frags[1], p4, o.frags[0], p6});
	CU_ASSERT(sorted(out) == sorted({arp, p4, p6, o.whole}));
	CU_ASSERT_EQUAL(stats_of(c).passthrough, 3);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_timeout_and_late(void)
{
	one o = make_one(true, 3000, 3, 101);
	struct rte_reasm_conf conf = {};
	uint64_t hz = rte_get_tsc_hz();

	conf.timeout_ms = 1000;
	struct rte_reasm_ctx *c = ctx_create(cpu, conf);
	CU_ASSERT(run(c, {o.frags[0], o.frags[1]}, 1).empty());
	/* the last one 2 s later: the datagram expired; the late one starts a new one */
	CU_ASSERT(run(c, {o.frags[2]}, 1 + 2 * hz).empty());
	CU_ASSERT_EQUAL(stats_of(c).drop_dgrams[RTE_REASM_DROP_TIMEOUT], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_TIMEOUT], 2);
	CU_ASSERT_EQUAL(rte_reasm_expire(c, UINT64_MAX), 1); /* the end of the input */
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_TIMEOUT], 3);
	CU_ASSERT_EQUAL(rte_reasm_pending(c), 0);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

void t_limits(void)
{
	struct rte_reasm_conf conf = {};
	std::vector<frame> in;

	/* table full: 2 datagrams at most, 3 interleaved; the third evicts the oldest */
	conf.max_dgrams = 2;
	struct rte_reasm_ctx *c = ctx_create(cpu, conf);
	one a = make_one(false, 2000, 2, 111, 1), b = make_one(false, 2000, 2, 112, 2),
	    d = make_one(false, 2000, 2, 113, 3);
	auto out = run(c, {a.frags[0], b.frags[0], d.frags[0], b.frags[1], d.frags[1]});
	CU_ASSERT(sorted(out) == sorted({b.whole, d.whole}));
	CU_ASSERT_EQUAL(stats_of(c).drop_dgrams[RTE_REASM_DROP_EVICTED], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_EVICTED], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_TABLE_FULL], 0);
	rte_reasm_free(c);

	/* too many fragments */
	conf = {};
	conf.max_frags = 4;
	c = ctx_create(cpu, conf);
	one m = make_one(true, 3000, 5, 114);
	CU_ASSERT(run(c, m.frags).empty());
	CU_ASSERT_EQUAL(stats_of(c).drop_dgrams[RTE_REASM_DROP_TOO_MANY_FRAGS], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_TOO_MANY_FRAGS], 5);
	rte_reasm_free(c);

	/* buffers held, counted in mbufs and in buffer bytes: a datagram cannot evict itself */
	one h = make_one(false, 6000, 3, 115);
	uint32_t segs0 = ((uint32_t)h.frags[0].size() + 2047) / 2048;
	for (int bytes = 0; bytes < 2; bytes++) {
		conf = {};
		if (bytes) /* in_pool's buffers: buf_len each, whatever the packet's length */
			conf.max_bytes = (uint64_t)segs0 * rte_pktmbuf_data_room_size(in_pool);
		else
			conf.max_mbufs = segs0; /* the first one fits, no other */
		c = ctx_create(cpu, conf);
		CU_ASSERT(run(c, h.frags).empty());
		CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_MEM_LIMIT], 2);
		CU_ASSERT_EQUAL(stats_of(c).mbufs_held, segs0);
		CU_ASSERT_EQUAL(rte_reasm_expire(c, UINT64_MAX), 1);
		CU_ASSERT_EQUAL(stats_of(c).mbufs_held, 0);
		CU_ASSERT_EQUAL(stats_of(c).bytes_held, 0);
		rte_reasm_free(c);
	}
	CU_ASSERT(pools_idle());
}

void t_no_buffer(void)
{
	struct rte_mempool *tiny = rte_pktmbuf_pool_create(
		"reasm_tiny", 2, 0, 0, 1024 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	struct rte_reasm_conf conf = {};
	one o = make_one(false, 4000, 3, 121);

	CU_ASSERT_PTR_NOT_NULL_FATAL(tiny);
	conf.pool = tiny; /* 4000 B needs 4 segments of 1 KiB */
	struct rte_reasm_ctx *c = ctx_create(cpu, conf);
	CU_ASSERT(run(c, o.frags).empty());
	CU_ASSERT_EQUAL(stats_of(c).drop_dgrams[RTE_REASM_DROP_NO_BUFFER], 1);
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_NO_BUFFER], 3);
	rte_reasm_free(c);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(tiny), 0);
	rte_mempool_free(tiny);
	CU_ASSERT(pools_idle());
}

/* /reasm/list and /reasm/stats give the context and its counters; gone once freed. */
void t_telemetry(void)
{
	struct rte_reasm_conf conf = {};
	one o = make_one(false, 3000, 3, 131);
	/* an exact duplicate while the datagram is incomplete: tolerated and counted */
	std::vector<frame> in = {o.frags[0], o.frags[1], o.frags[1], o.frags[2]};

	conf.name = "teltest";
	conf.engine = cpu;
	conf.pool = out_pool;
	struct rte_reasm_ctx *c = rte_reasm_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(run(c, in) == std::vector<frame>{o.whole});
	std::string list = dpdk_test_telemetry("/reasm/list");
	std::string st = dpdk_test_telemetry("/reasm/stats,teltest");
	CU_ASSERT(list.find("\"teltest\"") != std::string::npos);
	CU_ASSERT(st.find("\"engine\":\"cpu\"") != std::string::npos);
	CU_ASSERT(st.find("\"frags_in\":4,") != std::string::npos);
	CU_ASSERT(st.find("\"reassembled\":1,") != std::string::npos);
	CU_ASSERT(st.find("\"duplicates\":1,") != std::string::npos);
	CU_ASSERT(st.find("\"mbufs_held\":0,") != std::string::npos);
	CU_ASSERT(st.find("\"evicted\":0}") != std::string::npos);
	CU_ASSERT(st.find("\"drop_dgrams\":{\"timeout\":0,") != std::string::npos);
	CU_ASSERT(dpdk_test_telemetry("/reasm/stats,nosuch").find("null") != std::string::npos);
	if (st.empty() || list.empty())
		printf("telemetry replies: '%s' '%s'\n", list.c_str(), st.c_str());
	rte_reasm_free(c);
	CU_ASSERT(dpdk_test_telemetry("/reasm/list").find("teltest") == std::string::npos);
	CU_ASSERT(pools_idle());
}

void t_bad_conf(void)
{
	struct rte_reasm_conf conf = {};

	CU_ASSERT_PTR_NULL(rte_reasm_create(NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(rte_reasm_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.name = "dup";
	conf.engine = cpu;
	conf.pool = out_pool;
	struct rte_reasm_ctx *c = rte_reasm_create(&conf);
	CU_ASSERT_PTR_NOT_NULL(c);
	CU_ASSERT_PTR_NULL(rte_reasm_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EEXIST);
	conf.name = "flags";
	conf.flags = 1u << 20;
	CU_ASSERT_PTR_NULL(rte_reasm_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_reasm_free(c);
	CU_ASSERT_PTR_NULL(rte_reasm_engine_dma_create(-1, 0, RTE_REASM_DMA_AUTO));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_STRING_EQUAL(rte_reasm_drop_name(RTE_REASM_DROP_OVERLAP), "overlap");
	CU_ASSERT_PTR_NULL(rte_reasm_drop_name(RTE_REASM_DROP_MAX));
}

/* ---- linearize and split ---- */

void t_linearize(void)
{
	std::mt19937 rng(131);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	std::vector<frame> in, out;

	for (int i = 0; i < 50; i++) {
		frame f(64 + rng() % 9000);

		for (auto &b : f)
			b = (uint8_t)rng();
		in.push_back(f);
		struct rte_mbuf *m = to_mbuf(f, 1 + rng() % 1500);
		while (rte_reasm_linearize_enqueue(c, &m, 1) == 0)
			drain(c, &out);
	}
	drain(c, &out);
	CU_ASSERT(out == in); /* CPU engine: completion order is enqueue order */
	CU_ASSERT(stats_of(c).linearized + stats_of(c).passthrough == 50);
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

frame split_expect(const frame &f, const struct rte_reasm_split &l, bool keep)
{
	uint32_t stride = l.hdr_len + l.pay_len, n = (uint32_t)(f.size() - l.offset) / stride;
	frame o(f.begin(), f.begin() + l.offset);

	for (uint32_t i = 0; i < n; i++)
		o.insert(o.end(), f.begin() + l.offset + i * stride + l.hdr_len,
			 f.begin() + l.offset + (i + 1) * stride);
	for (uint32_t i = 0; keep && i < n; i++)
		o.insert(o.end(), f.begin() + l.offset + i * stride,
			 f.begin() + l.offset + i * stride + l.hdr_len);
	return o;
}

void t_split(void)
{
	std::mt19937 rng(141);
	struct rte_reasm_conf conf = {};

	conf.flags = RTE_REASM_F_SPLIT_KEEP_HEADERS;
	struct rte_reasm_ctx *c = ctx_create(cpu, conf), *nc = ctx_create(cpu, {});
	struct rte_reasm_split l = {42, 16, 240, 0}, r = l;

	r.reverse = 1;
	for (int i = 0; i < 20; i++) {
		frame f(42 + (1 + rng() % 30) * 256);
		std::vector<frame> a, b, d;

		for (auto &x : f)
			x = (uint8_t)rng();
		struct rte_mbuf *m = to_mbuf(f, 700), *m2 = to_mbuf(f);
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &l), 1);
		drain(c, &a);
		CU_ASSERT_EQUAL_FATAL(a.size(), 1);
		CU_ASSERT(a[0] == split_expect(f, l, true));
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(nc, &m2, 1, &l), 1);
		drain(nc, &d);
		CU_ASSERT_EQUAL_FATAL(d.size(), 1);
		CU_ASSERT(d[0] == split_expect(f, l, false));
		m = to_mbuf(a[0]);
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &r), 1);
		drain(c, &b);
		CU_ASSERT_EQUAL_FATAL(b.size(), 1);
		CU_ASSERT(b[0] == f); /* the reverse restores the records */
	}
	/* a length that is not offset + N records; a bad layout takes nothing */
	frame odd(42 + 100, 1);
	std::vector<frame> none;
	struct rte_mbuf *m = to_mbuf(odd);
	CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &l), 1);
	drain(c, &none);
	CU_ASSERT(none.empty());
	CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_BAD_HEADER], 1);
	struct rte_reasm_split bad = {0, 16, 0, 0};
	m = to_mbuf(odd);
	CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &bad), 0);
	rte_pktmbuf_free(m);
	rte_reasm_free(c);
	rte_reasm_free(nc);
	CU_ASSERT(pools_idle());
}

/* ---- IP length limits, exhaustion, create's failure paths ---- */

void put16_at(frame &f, size_t at, uint32_t v)
{
	f[at] = (uint8_t)(v >> 8);
	f[at + 1] = (uint8_t)v;
}

/* The IPv4 header checksum of frame @p f (header at 14) after its fields changed. */
void v4_cksum(frame &f)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)&f[14];

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A datagram whose first fragment has a longer header than the others. */
struct uneven {
	frame whole; /* what reassembly must deliver when it fits in 65535 */
	std::vector<frame> frags;
};

/* Fragments of 8000 payload bytes: the first cut from @p first, the others from @p rest. */
void cut_uneven(uneven *u, const frame &first, const frame &rest, uint32_t pay, uint32_t id)
{
	for (uint32_t off = 0; off < pay; off += 8000) {
		uint32_t len = std::min(8000u, pay - off);

		u->frags.push_back(
			pktgen::make_fragment(off ? rest : first, off, len, off + len < pay, id));
	}
}

/*
 * IPv4: the first fragment with IHL 15 (40 option bytes), the others with IHL 5, @p pay
 * payload bytes: 60 + pay is the reassembled total length (over 65535 for pay > 65475).
 */
uneven v4_uneven(uint32_t pay, uint32_t id)
{
	std::mt19937 rng(id);
	pktgen::dgram_spec s;
	uneven u;

	s.id = id;
	s.ipv4_opts = 40;
	s.ip_len = 60 + pay; /* a source only when over 65535: the field wraps */
	u.whole = pktgen::make_datagram(s, rng);
	frame rest(u.whole.begin(), u.whole.begin() + 34);
	rest[14] = 0x45;
	rest.insert(rest.end(), u.whole.begin() + 74, u.whole.end());
	put16_at(rest, 16, 20 + pay);
	v4_cksum(rest);
	cut_uneven(&u, u.whole, rest, pay, id);
	return u;
}

/*
 * IPv6: 2 KiB of Destination Options (Pad1) in the first fragment only, @p pay payload
 * bytes: 2048 + pay is the reassembled payload length (over 65535 for pay > 63487).
 */
uneven v6_uneven(uint32_t pay, uint32_t id)
{
	std::mt19937 rng(id);
	pktgen::dgram_spec s;
	uneven u;

	s.v6 = true;
	s.id = id;
	s.ip_len = 40 + pay;
	frame rest = pktgen::make_datagram(s, rng);
	frame dst(2048, 0);
	dst[0] = rest[14 + 6];
	dst[1] = 255; /* (255 + 1) * 8 bytes */
	u.whole.assign(rest.begin(), rest.begin() + 54);
	u.whole[14 + 6] = 60;
	u.whole.insert(u.whole.end(), dst.begin(), dst.end());
	u.whole.insert(u.whole.end(), rest.begin() + 54, rest.end());
	put16_at(u.whole, 18, (uint32_t)u.whole.size() - 54);
	cut_uneven(&u, u.whole, rest, pay, id);
	return u;
}

/*
 * On engine @p e, IPv4 and IPv6: a datagram over 65535 only with the first fragment's
 * header is dropped as too_big whatever the order (first first, first last, first
 * second); one at exactly 65535 is delivered intact.
 */
void oversize_cases(struct rte_reasm_engine *e)
{
	for (bool v6 : {false, true}) {
		/* 60 + 65512 (IPv4), 2048 + 65528 (IPv6): wrapped to 36 and 2040 before */
		uneven big = v6 ? v6_uneven(65528, 301) : v4_uneven(65512, 302);
		uneven fits = v6 ? v6_uneven(63487, 303) : v4_uneven(65475, 304);

		for (int order = 0; order < 3; order++) {
			std::vector<frame> in = big.frags, in_fit = fits.frags;

			if (order == 1) {
				std::reverse(in.begin(), in.end());
				std::reverse(in_fit.begin(), in_fit.end());
			} else if (order == 2) {
				std::swap(in[0], in[1]);
				std::swap(in_fit[0], in_fit[1]);
			}
			struct rte_reasm_ctx *c = ctx_create(e, {});
			auto out = run(c, in);
			auto st = stats_of(c);

			CU_ASSERT(out.empty());
			CU_ASSERT_EQUAL(st.reassembled, 0);
			CU_ASSERT_EQUAL(st.drop_dgrams[RTE_REASM_DROP_TOO_BIG], 1);
			CU_ASSERT_EQUAL(st.drop_frags[RTE_REASM_DROP_TOO_BIG], in.size());
			for (const auto &f : out)
				printf("[%s v%d order %d: %zu bytes delivered] ",
				       rte_reasm_engine_kind(e), v6 ? 6 : 4, order, f.size());
			out = run(c, in_fit);
			CU_ASSERT_EQUAL_FATAL(out.size(), 1);
			CU_ASSERT(out[0] == fits.whole);
			CU_ASSERT_EQUAL(stats_of(c).reassembled, 1);
			rte_reasm_free(c);
		}
	}
	CU_ASSERT(pools_idle());
}

void t_oversize_cpu(void)
{
	oversize_cases(cpu);
}

/* An IPv4 fragment of 8 payload bytes at @p off, its key made distinct by @p key. */
frame flood_frag(uint32_t key, uint32_t off)
{
	static frame tmpl;

	if (tmpl.empty()) {
		std::mt19937 rng(311);
		pktgen::dgram_spec s;

		s.flow = 99; /* addresses no other test datagram has */
		s.ip_len = 20 + 64 * 8;
		tmpl = pktgen::make_datagram(s, rng);
	}
	frame f = pktgen::make_fragment(tmpl, off, 8, true, 0);

	put16_at(f, 18, key);              /* identification */
	f[14 + 13] = (uint8_t)(key >> 16); /* source address */
	v4_cksum(f);
	return f;
}

/*
 * 50,000 distinct first fragments, the default table (4096) twelve times over: the oldest
 * are evicted, never the new ones, and a legitimate datagram sent after is delivered.
 */
void t_evict_table_flood(void)
{
	/* the defaults (the mbuf limit, 4096 too, is reached first), then the table alone */
	for (uint32_t max_mbufs : {0u, 1u << 16}) {
		struct rte_reasm_conf conf = {};

		conf.max_mbufs = max_mbufs;
		struct rte_reasm_ctx *c = ctx_create(cpu, conf);
		const uint32_t n = 50000;
		one legit = make_one(false, 3000, 2, 321, 9);

		for (uint32_t i = 0; i < n; i++) {
			struct rte_mbuf *m = to_mbuf(flood_frag(i, 0));

			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL_FATAL(rte_reasm_enqueue(c, &m, 1, 1), 1);
		}
		auto st = stats_of(c);
		CU_ASSERT_EQUAL(st.dgrams_in_table, RTE_REASM_DEFAULT_MAX_DGRAMS);
		CU_ASSERT_EQUAL(st.drop_dgrams[RTE_REASM_DROP_EVICTED], n - st.dgrams_in_table);
		CU_ASSERT_EQUAL(st.drop_frags[RTE_REASM_DROP_TABLE_FULL], 0);
		CU_ASSERT(run(c, legit.frags) == std::vector<frame>{legit.whole});
		CU_ASSERT_EQUAL(stats_of(c).reassembled, 1);
		rte_reasm_free(c);
	}
	CU_ASSERT(pools_idle());
}

/*
 * 32,767 tiny non-last fragments (520 datagrams of 63, within the table) from a pool of
 * 8191 mbufs: the default max_mbufs (4096) evicts the oldest datagrams, so the pool
 * never runs dry, and a legitimate datagram from the same pool is delivered after.
 */
void t_evict_mbuf_flood(void)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create(
		"reasm_small", 8191, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	one legit = make_one(false, 3000, 2, 331, 9);
	unsigned int least = UINT32_MAX;
	std::vector<frame> out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(small);
	struct rte_reasm_ctx *c = ctx_create(cpu, {});
	for (uint32_t i = 0; i < 32767; i++) {
		struct rte_mbuf *m = to_mbuf(flood_frag(i / 63, (i % 63) * 8), 2048, small);

		if (!m) {
			CU_FAIL("the pool was emptied by fragments held");
			printf("[pool empty after %u fragments] ", i);
			break;
		}
		CU_ASSERT_EQUAL_FATAL(rte_reasm_enqueue(c, &m, 1, 1), 1);
		least = std::min(least, rte_mempool_avail_count(small));
	}
	auto st = stats_of(c);
	CU_ASSERT(st.mbufs_held <= RTE_REASM_DEFAULT_MAX_MBUFS);
	CU_ASSERT(st.drop_dgrams[RTE_REASM_DROP_EVICTED] > 0);
	CU_ASSERT(least >= 8191 - RTE_REASM_DEFAULT_MAX_MBUFS - 1);
	printf("[%" PRIu64 " datagrams evicted, %" PRIu64 " mbufs held, %u left at least] ",
	       st.drop_dgrams[RTE_REASM_DROP_EVICTED], st.mbufs_held, least);
	for (const auto &f : legit.frags) {
		struct rte_mbuf *m = to_mbuf(f, 2048, small);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rte_reasm_enqueue(c, &m, 1, 1), 1);
	}
	drain(c, &out);
	CU_ASSERT(out == std::vector<frame>{legit.whole});
	rte_reasm_free(c);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(small), 0);
	rte_mempool_free(small);
	CU_ASSERT(pools_idle());
}

/* DPDK heap bytes allocated, all sockets. */
uint64_t heap_allocated(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats s;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &s) == 0)
			sum += s.heap_allocsz_bytes;
	}
	return sum;
}

/* A taken name, 20 times: EEXIST each time and not one byte of DPDK heap kept. */
void t_create_name_taken(void)
{
	struct rte_reasm_conf conf = {};

	conf.name = "taken";
	conf.engine = cpu;
	conf.pool = out_pool;
	struct rte_reasm_ctx *c = rte_reasm_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	uint64_t before = heap_allocated();
	for (int i = 0; i < 20; i++) {
		CU_ASSERT_PTR_NULL(rte_reasm_create(&conf));
		CU_ASSERT_EQUAL(rte_errno, EEXIST);
	}
	uint64_t after = heap_allocated();
	CU_ASSERT_EQUAL(after, before);
	if (after != before)
		printf("[%" PRIu64 " heap bytes kept by 20 failed creates] ", after - before);
	rte_reasm_free(c);
	CU_ASSERT(heap_allocated() < before);
}

/* ---- every engine against the CPU ---- */

/* Benign and hostile traffic mixed: the outputs and counters of an engine vs the CPU's. */
void engine_vs_cpu(struct rte_reasm_engine *e)
{
	std::vector<frame> in, whole;
	std::mt19937 rng(151);

	benign_traffic(false, 60, 152, &in, &whole);
	benign_traffic(true, 60, 153, &in, &whole);
	for (int i = 0; i < 10; i++) { /* many fragments, duplicates, an overlap */
		one o = make_one(i & 1, 9000 + i * 5000, 7 + i * 5, 160 + i, 5000 + i);
		in.insert(in.end(), o.frags.begin(), o.frags.end());
		in.push_back(o.frags[i % o.frags.size()]);
		if (i == 3)
			in.push_back(craft(o.whole, 8, 64, true, 5000 + i));
	}
	struct rte_reasm_ctx *a = ctx_create(cpu, {}), *b = ctx_create(e, {});
	auto oa = run(a, in), ob = run(b, in);
	auto sa = stats_of(a), sb = stats_of(b);

	CU_ASSERT(oa.size() >= 120);
	CU_ASSERT(sorted(oa) == sorted(ob));
	CU_ASSERT_EQUAL(sa.reassembled, sb.reassembled);
	CU_ASSERT_EQUAL(memcmp(sa.drop_frags, sb.drop_frags, sizeof(sa.drop_frags)), 0);
	CU_ASSERT_EQUAL(sb.drop_frags[RTE_REASM_DROP_ENGINE_ERROR], 0);
	printf("[%s: %" PRIu64 " gathers, %" PRIu64 " split in %" PRIu64 " ops, %" PRIu64
	       " on the CPU] ",
	       rte_reasm_engine_kind(e), sb.gathers, sb.split_gathers, sb.gather_ops,
	       sb.cpu_fallbacks);
	/* the 41..52-fragment datagrams are over any SG device's max_sges here: split */
	if (e->max_sges() < 41)
		CU_ASSERT(sb.split_gathers > 0);
	/* UMR: the gathers within the list limit went through mkeys */
	if (!strcmp(rte_reasm_engine_kind(e), "dma-umr"))
		CU_ASSERT(sb.umr_gathers > 0);
	/* linearize through the engine too */
	std::vector<frame> lin_in, lin_out;
	for (int i = 0; i < 20; i++) {
		frame f(100 + rng() % 9000, (uint8_t)i);
		lin_in.push_back(f);
		struct rte_mbuf *m = to_mbuf(f, 512);
		while (rte_reasm_linearize_enqueue(b, &m, 1) == 0)
			drain(b, &lin_out);
	}
	drain(b, &lin_out);
	CU_ASSERT(sorted(lin_out) == sorted(lin_in));
	rte_reasm_free(a);
	rte_reasm_free(b);
	CU_ASSERT(pools_idle());
	oversize_cases(e); /* the 65535 limit on this engine too */
}

void t_engine_dma(const char *dev_name, enum rte_reasm_dma_mode mode)
{
	int dev = rte_dma_get_dev_id_by_name(dev_name);
	struct rte_reasm_engine *e;

	if (dev < 0) {
		printf("[%s not present: skipped] ", dev_name);
		return;
	}
	e = rte_reasm_engine_dma_create((int16_t)dev, 0, mode);
	if (!e && rte_errno == ENOTSUP && mode == RTE_REASM_DMA_SG) {
		printf("[%s lacks RTE_DMA_CAPA_OPS_COPY_SG: SG engine skipped] ", dev_name);
		return;
	}
	if (!e && rte_errno == ENOTSUP && mode == RTE_REASM_DMA_UMR) {
		printf("[%s has no UMR mkeys: skipped] ", dev_name);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	engine_vs_cpu(e);
	rte_reasm_engine_free(e);
}

void t_engine_skeleton(void)
{
	t_engine_dma("dma_skeleton", RTE_REASM_DMA_AUTO);
}

/*
 * An engine module registered for the dma_skeleton driver (rte_reasm_driver.h): found
 * by the dmadev's driver name, its gathers queued as plain copies on the engine's vchan
 * (the library completes them by the ring index it returns), every other one declined.
 */
struct test_module {
	int16_t dev;
	uint16_t vchan;
	uint32_t taken, declined, completed;
};
uint32_t test_module_made, test_module_freed;

void *test_module_create(int16_t dev_id, uint16_t vchan, bool required)
{
	RTE_SET_USED(required);
	test_module_made++;
	return new test_module{dev_id, vchan, 0, 0, 0};
}

void test_module_destroy(void *p)
{
	test_module_freed++;
	delete (test_module *)p;
}

int test_module_gather(void *p, const struct rte_reasm_dev_gather *g, int *last)
{
	test_module *m = (test_module *)p;
	rte_iova_t at;

	*last = -1;
	if (g->nb_dst != 1 || g->nb_src < 2 || (m->taken + m->declined) % 2) {
		m->declined++;
		return -ENOTSUP;
	}
	if (rte_dma_burst_capacity(m->dev, m->vchan) < g->nb_src)
		return -ENOSPC;
	at = g->dst[0].iova;
	for (uint16_t i = 0; i < g->nb_src; i++) {
		int idx = rte_dma_copy(m->dev, m->vchan, g->src[i].iova, at, g->src[i].len, 0);

		if (idx < 0)
			return idx;
		*last = idx;
		at += g->src[i].len;
	}
	m->taken++;
	return 0;
}

void test_module_completed(void *p, uint16_t last, uint16_t n)
{
	RTE_SET_USED(last);
	((test_module *)p)->completed += n;
}

const struct rte_reasm_dev_driver test_module_driver = {
	"dma_skeleton",     "test-module", test_module_create,    test_module_destroy,
	test_module_gather, NULL,          test_module_completed,
};

void t_engine_module(void)
{
	int dev = rte_dma_get_dev_id_by_name("dma_skeleton");
	struct rte_reasm_dev_driver bad = test_module_driver;
	struct rte_reasm_engine *e;
	test_module *m;

	CU_ASSERT_EQUAL(rte_reasm_dev_driver_register(NULL), -EINVAL);
	bad.gather = NULL;
	CU_ASSERT_EQUAL(rte_reasm_dev_driver_register(&bad), -EINVAL);
	CU_ASSERT_EQUAL(rte_reasm_dev_driver_unregister(&test_module_driver), -ENOENT);
	CU_ASSERT_FATAL(dev >= 0);
	/* no module for dma_skeleton: UMR mode is refused, AUTO takes a plain path */
	CU_ASSERT_PTR_NULL(rte_reasm_engine_dma_create((int16_t)dev, 0, RTE_REASM_DMA_UMR));
	CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
	CU_ASSERT_EQUAL(rte_reasm_dev_driver_register(&test_module_driver), 0);
	CU_ASSERT_EQUAL(rte_reasm_dev_driver_register(&test_module_driver), -EEXIST);
	e = rte_reasm_engine_dma_create((int16_t)dev, 0, RTE_REASM_DMA_UMR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(rte_reasm_engine_kind(e), "test-module");
	CU_ASSERT_EQUAL(test_module_made, 1);
	m = (test_module *)((reasm_dma::dma_engine *)e)->path;
	engine_vs_cpu(e);
	printf("[module took %u gathers, declined %u, %u ops completed] ", m->taken, m->declined,
	       m->completed);
	CU_ASSERT(m->taken > 0 && m->declined > 0 && m->completed >= 2 * m->taken);
	rte_reasm_engine_free(e);
	CU_ASSERT_EQUAL(test_module_freed, 1);
	/* DMA_COPY never asks the module */
	e = rte_reasm_engine_dma_create((int16_t)dev, 0, RTE_REASM_DMA_COPY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(rte_reasm_engine_kind(e), "dma-copy");
	rte_reasm_engine_free(e);
	CU_ASSERT_EQUAL(test_module_made, 1);
	CU_ASSERT_EQUAL(rte_reasm_dev_driver_unregister(&test_module_driver), 0);
	e = rte_reasm_engine_dma_create((int16_t)dev, 0, RTE_REASM_DMA_AUTO);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_NOT_EQUAL(rte_reasm_engine_kind(e), "test-module");
	rte_reasm_engine_free(e);
}

void t_engine_mlx5_copy(void)
{
	t_engine_dma("dma_mlx5", RTE_REASM_DMA_COPY);
}

void t_engine_mlx5_sg(void)
{
	t_engine_dma("dma_mlx5", RTE_REASM_DMA_SG);
}

void t_engine_mlx5_umr(void)
{
	t_engine_dma("dma_mlx5", RTE_REASM_DMA_UMR);
	/* not on a device without dma_mlx5's mkey API */
	int dev = rte_dma_get_dev_id_by_name("dma_skeleton");

	if (dev >= 0) {
		CU_ASSERT_PTR_NULL(rte_reasm_engine_dma_create((int16_t)dev, 0, RTE_REASM_DMA_UMR));
		CU_ASSERT_EQUAL(rte_errno, ENOTSUP);
	}
}

/*
 * Feed @p in in bursts of 32, taking back what enqueue refused after a dequeue (the
 * caller's side of back-pressure), and collect everything.
 */
std::vector<frame> run_bursts(struct rte_reasm_ctx *c, const std::vector<frame> &in,
			      uint64_t *refused)
{
	std::vector<frame> out;
	std::vector<struct rte_mbuf *> m;

	for (const auto &f : in)
		m.push_back(to_mbuf(f));
	for (size_t i = 0; i < m.size();) {
		uint16_t k = (uint16_t)std::min<size_t>(32, m.size() - i);
		uint16_t took = rte_reasm_enqueue(c, &m[i], k, 1);
		struct rte_mbuf *res[32];
		uint16_t got = rte_reasm_dequeue(c, res, 32);

		*refused += k - took;
		i += took;
		for (uint16_t j = 0; j < got; j++) {
			out.push_back(from_mbuf(res[j]));
			rte_pktmbuf_free(res[j]);
		}
	}
	drain(c, &out);
	return out;
}

/*
 * Back-pressure: dma_mlx5 with a 32-entry ring and hundreds of datagrams given in
 * bursts. Gathers that find the ring full wait in the context (deferred) and go out after
 * completions; none is done by the CPU, none is lost, the outputs are the CPU engine's.
 */
void backpressure(enum rte_reasm_dma_mode mode)
{
	std::vector<frame> in, whole;
	std::mt19937 rng(203);
	uint64_t refused = 0;
	int dev = dpdk_test_dma_start("dma_mlx5", 32);

	if (dev < 0) {
		printf("[dma_mlx5 not present: skipped] ");
		return;
	}
	benign_traffic(false, 300, 201, &in, &whole);
	benign_traffic(true, 300, 202, &in, &whole);
	for (uint32_t i = 0; i < 20; i++) { /* split gathers in more parts than the ring */
		one o = make_one(i & 1, 60000, 41, 204 + i, 8000 + i);

		std::shuffle(o.frags.begin(), o.frags.end(), rng);
		in.insert(in.begin() + rng() % in.size(), o.frags.begin(), o.frags.end());
		whole.push_back(o.whole);
	}
	struct rte_reasm_engine *e = rte_reasm_engine_dma_create((int16_t)dev, 0, mode);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	struct rte_reasm_ctx *c = ctx_create(e, {}), *a = ctx_create(cpu, {});
	auto ref = run(a, in);
	auto out = run_bursts(c, in, &refused);
	auto st = stats_of(c);

	printf("[%s: %" PRIu64 " deferred, %" PRIu64 " refused at enqueue, %" PRIu64
	       " UMR, %" PRIu64 " on the CPU] ",
	       rte_reasm_engine_kind(e), st.deferred, refused, st.umr_gathers, st.cpu_fallbacks);
	CU_ASSERT_EQUAL(ref.size(), whole.size());
	CU_ASSERT(sorted(out) == sorted(ref));
	CU_ASSERT_EQUAL(st.reassembled, whole.size());
	CU_ASSERT(st.deferred > 0);
	CU_ASSERT_EQUAL(st.cpu_fallbacks, 0);
	CU_ASSERT_EQUAL(rte_reasm_pending(c), 0);
	rte_reasm_free(c);
	rte_reasm_free(a);
	rte_reasm_engine_free(e); /* before the vchan goes (its mkeys) */
	CU_ASSERT(pools_idle());
	CU_ASSERT(dpdk_test_dma_start("dma_mlx5") >= 0);
}

void t_backpressure_sg(void)
{
	backpressure(RTE_REASM_DMA_SG);
}

void t_backpressure_umr(void)
{
	backpressure(RTE_REASM_DMA_UMR);
}

/*
 * Header-data split through interleaved mkeys on dma_mlx5: split (with and without
 * headers) and reverse, several offsets / H / P / N, byte for byte against the CPU engine
 * and the expected layout; one WQE failed (the packet dropped as engine_error, its
 * mbuf freed once); bad layouts refused with EINVAL.
 */
void t_split_umr(void)
{
	int dev = rte_dma_get_dev_id_by_name("dma_mlx5");
	static const struct rte_reasm_split layouts[] = {
		{42, 16, 240, 0}, {0, 64, 1024, 0}, {14, 1, 7, 0}, {8, 200, 56, 0}, {3, 5, 3, 0},
	};
	std::mt19937 rng(211);
	struct rte_reasm_conf keep = {};

	if (dev < 0) {
		printf("[dma_mlx5 not present: skipped] ");
		return;
	}
	struct rte_reasm_engine *e = rte_reasm_engine_dma_create((int16_t)dev, 0,
								 RTE_REASM_DMA_UMR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	keep.flags = RTE_REASM_F_SPLIT_KEEP_HEADERS;
	struct rte_reasm_ctx *c = ctx_create(e, keep), *nc = ctx_create(e, {});
	struct rte_reasm_ctx *ref = ctx_create(cpu, keep);
	uint32_t pkts = 0;

	for (const auto &l : layouts) {
		struct rte_reasm_split r = l;
		uint32_t stride = l.hdr_len + l.pay_len;

		r.reverse = 1;
		for (int i = 0; i < 6; i++) {
			uint32_t nrec = 1 +
					rng() % std::min<uint32_t>(40, (9000 - l.offset) / stride);
			frame f(l.offset + nrec * stride);
			std::vector<frame> a, b, d, x;

			for (auto &v : f)
				v = (uint8_t)rng();
			struct rte_mbuf *m = to_mbuf(f, 9216, out_pool);
			struct rte_mbuf *m2 = to_mbuf(f, 9216, out_pool);
			struct rte_mbuf *m3 = to_mbuf(f, 9216, out_pool);
			CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &l), 1);
			drain(c, &a);
			CU_ASSERT_EQUAL(rte_reasm_split_enqueue(nc, &m2, 1, &l), 1);
			drain(nc, &d);
			CU_ASSERT_EQUAL(rte_reasm_split_enqueue(ref, &m3, 1, &l), 1);
			drain(ref, &x);
			CU_ASSERT_EQUAL_FATAL(a.size() + d.size() + x.size(), 3);
			CU_ASSERT(a[0] == split_expect(f, l, true));
			CU_ASSERT(a[0] == x[0]);
			CU_ASSERT(d[0] == split_expect(f, l, false));
			m = to_mbuf(a[0], 9216, out_pool);
			CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &r), 1);
			drain(c, &b);
			CU_ASSERT_EQUAL_FATAL(b.size(), 1);
			CU_ASSERT(b[0] == f);
			pkts += 2;
		}
	}
	/* 1000 records of 2 + 6 bytes: 2001 pieces, over RTE_REASM_MAX_SGES, yet one
	 * interleaved copy (and the CPU engine's fallback copies the records directly) */
	{
		struct rte_reasm_split tiny = {0, 2, 6, 0};
		frame f(8000);
		std::vector<frame> a, x;

		for (auto &v : f)
			v = (uint8_t)rng();
		struct rte_mbuf *m = to_mbuf(f, 9216, out_pool), *m2 = to_mbuf(f, 9216, out_pool);
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &tiny), 1);
		drain(c, &a);
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(ref, &m2, 1, &tiny), 1);
		drain(ref, &x);
		CU_ASSERT_EQUAL_FATAL(a.size() + x.size(), 2);
		CU_ASSERT(a[0] == split_expect(f, tiny, true));
		CU_ASSERT(x[0] == a[0]);
		CU_ASSERT_EQUAL(stats_of(ref).cpu_fallbacks, 1);
		pkts++;
	}
	auto sc = stats_of(c), sn = stats_of(nc);
	printf("[%" PRIu64 " + %" PRIu64 " of %u split through interleaved mkeys] ",
	       sc.interleaved_splits, sn.interleaved_splits, pkts + (pkts - 1) / 2);
	CU_ASSERT_EQUAL(sc.interleaved_splits, pkts);
	CU_ASSERT_EQUAL(sn.interleaved_splits, (pkts - 1) / 2);
	CU_ASSERT_EQUAL(sc.cpu_fallbacks + sn.cpu_fallbacks, 0);
#ifdef REASM_TEST_SIM
	if (kernel_dev) {
		printf("[on %s: the failed WQE of a split is injected through the imitation's "
		       "mlx5_sim_inject_fault: left out] ",
		       kernel_dev);
	} else { /* a failed WQE in the middle of a split's ops: the packet is an engine error */
		const struct mlx5_glue *glue;
		struct ibv_device *ibdev;
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct mlx5_sim_fault f = {};
		uint32_t cqn;
		frame fr(42 + 20 * 256, 7);
		std::vector<frame> none;

		if (mlx5_glue_find_device("sim1", &glue, &ibdev) == 0) {
			struct ibv_context *ib = glue->open_device(ibdev);

			mlx5_glue_put_device(glue, ibdev);
			CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
			CU_ASSERT_EQUAL(test_hook_next_wqe((int16_t)dev, 0, &f.wqe_index, &cqn), 0);
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info((int16_t)dev, 0, &vi), 0);
			f.wqe_index =
				(uint16_t)(f.wqe_index + 1); /* the copy after the first UMR */
			f.kind = MLX5_SIM_FAULT_FAIL_WQE;
			f.qpn = vi.qpn;
			f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ib, &f), 0);
			struct rte_mbuf *m = to_mbuf(fr, 9216, out_pool);
			CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &layouts[0]), 1);
			drain(c, &none);
			CU_ASSERT(none.empty());
			CU_ASSERT_EQUAL(stats_of(c).drop_frags[RTE_REASM_DROP_ENGINE_ERROR], 1);
			mlx5_glue_sim()->close_device(ib);
		}
	}
#endif
	/* bad layouts: nothing taken, EINVAL (and a log line) */
	static const struct rte_reasm_split bad[] = {
		{0, 16, 0, 0}, {0, 40000, 30000, 0}, {0, 16, 240, 2}};
	frame small(256, 1);
	for (const auto &l : bad) {
		struct rte_mbuf *m = to_mbuf(small, 9216, out_pool);

		rte_errno = 0;
		CU_ASSERT_EQUAL(rte_reasm_split_enqueue(c, &m, 1, &l), 0);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(rte_reasm_pending(c), 0);
	rte_reasm_free(c);
	rte_reasm_free(nc);
	rte_reasm_free(ref);
	rte_reasm_engine_free(e);
	CU_ASSERT(pools_idle());
}

/*
 * A scripted engine (white box, reasm_engine.h): few pieces per gather, a small ring,
 * completions only when polled, every Nth op failed. It drives the context's paths no
 * dmadev here takes: a gather split in more parts than the ring holds, a full ring in the
 * middle of a split, late completions, a failed part among good ones.
 */
struct fake_engine final : rte_reasm_engine {
	struct job {
		std::vector<rte_reasm_dev_sge> src, dst;
		uint32_t cookie;
	};
	std::vector<job> queued;
	uint32_t fail_every = 0, seen = 0;
	uint64_t too_big = 0, full = 0, failed_parts = 0;

	const char *kind() const override { return "fake"; }
	uint32_t max_sges() const override { return 4; }
	int gather(const struct rte_reasm_dev_gather *g, uint32_t cookie) override
	{
		if (g->nb_src > 4 || g->nb_dst > 4)
			return too_big++, -E2BIG;
		if (queued.size() >= 8)
			return full++, -ENOSPC;
		queued.push_back({std::vector<rte_reasm_dev_sge>(g->src, g->src + g->nb_src),
				  std::vector<rte_reasm_dev_sge>(g->dst, g->dst + g->nb_dst),
				  cookie});
		return REASM_GATHER_QUEUED;
	}
	uint16_t poll(uint32_t *cookies, bool *ok, uint16_t n) override
	{
		uint16_t k = 0;

		for (; k < n && k < queued.size(); k++) {
			struct rte_reasm_dev_gather g = {queued[k].src.data(), queued[k].dst.data(),
							 (uint16_t)queued[k].src.size(),
							 (uint16_t)queued[k].dst.size()};

			reasm_cpu_gather(&g);
			cookies[k] = queued[k].cookie;
			ok[k] = !fail_every || ++seen % fail_every != 0;
			failed_parts += !ok[k];
		}
		queued.erase(queued.begin(), queued.begin() + k);
		return k;
	}
};

void t_fake_engine(void)
{
	fake_engine e;

	engine_vs_cpu(&e);
	CU_ASSERT_EQUAL(e.too_big, 0); /* gathers over 4 pieces were split, never refused */
	CU_ASSERT(e.full > 0);         /* and the ring filled up */
	CU_ASSERT(e.queued.empty());

	std::vector<frame> in, whole;
	e.fail_every = 5;
	benign_traffic(true, 100, 181, &in, &whole);
	struct rte_reasm_ctx *c = ctx_create(&e, {});
	auto out = run(c, in);
	auto st = stats_of(c);
	auto so = sorted(out), sw = sorted(whole);

	CU_ASSERT(st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR] > 0);
	CU_ASSERT_EQUAL(st.reassembled + st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR], whole.size());
	CU_ASSERT(std::includes(sw.begin(), sw.end(), so.begin(), so.end()));
	rte_reasm_free(c);
	CU_ASSERT(pools_idle());
}

/*
 * 60 KB datagrams of 41 fragments on the scripted engine (4 pieces per op, 8 ops in the
 * ring): every datagram is about 11 ops, more than the ring holds. Without faults all are
 * delivered intact by the engine alone; with every 7th op failed, a datagram with one or
 * more failed ops is dropped once (its mbufs freed once: the pools end idle).
 */
void t_split_gathers(void)
{
	std::vector<frame> in, whole;

	for (uint32_t i = 0; i < 12; i++) {
		one o = make_one(i & 1, 60000, 41, 190 + i, 6000 + i);
		std::mt19937 rng(i);

		std::shuffle(o.frags.begin(), o.frags.end(), rng);
		in.insert(in.end(), o.frags.begin(), o.frags.end());
		whole.push_back(o.whole);
	}
	for (uint32_t fail_every : {0u, 7u, 1u}) {
		fake_engine e;

		e.fail_every = fail_every;
		struct rte_reasm_ctx *c = ctx_create(&e, {});
		auto out = run(c, in);
		auto st = stats_of(c);
		auto so = sorted(out), sw = sorted(whole);
		uint64_t drops = st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR];

		CU_ASSERT_EQUAL(st.split_gathers, whole.size());
		CU_ASSERT(st.gather_ops >= 10 * whole.size());
		CU_ASSERT_EQUAL(st.cpu_fallbacks, 0);
		CU_ASSERT(st.deferred > 0); /* the full ring made gathers wait, not the CPU */
		CU_ASSERT_EQUAL(e.too_big, 0);
		CU_ASSERT(e.full > 0);
		CU_ASSERT_EQUAL(st.reassembled + drops, whole.size());
		CU_ASSERT_EQUAL(st.reassembled, out.size());
		CU_ASSERT(std::includes(sw.begin(), sw.end(), so.begin(), so.end()));
		CU_ASSERT_EQUAL(st.drop_frags[RTE_REASM_DROP_ENGINE_ERROR], drops * 41);
		if (fail_every == 0) {
			CU_ASSERT(so == sw);
		} else { /* several failed ops per datagram, still one drop each */
			CU_ASSERT(drops > 0 && drops < e.failed_parts);
		}
		if (fail_every == 1) {
			CU_ASSERT_EQUAL(drops, whole.size());
		}
		CU_ASSERT_EQUAL(rte_reasm_pending(c), 0);
		rte_reasm_free(c);
		CU_ASSERT(e.queued.empty());
		CU_ASSERT(pools_idle());
	}
}

#ifdef REASM_TEST_SIM
/*
 * Device faults under the dmadev engine (dma_mlx5 on the software HCA): completions held
 * back, the QP moved to error while gathers are in flight, and WQEs failed. Every datagram is
 * either delivered intact or counted as an engine_error drop; no mbuf is lost or freed twice.
 */
void engine_faults(enum rte_reasm_dma_mode mode)
{
	int dev = rte_dma_get_dev_id_by_name("dma_mlx5");
	const struct mlx5_glue *glue;
	struct ibv_device *ibdev;
	struct ibv_context *ib;
	std::vector<frame> in, whole, out;
	struct rte_pmd_dma_mlx5_vchan_info vi;
	uint32_t fails = 0;

	if (kernel_dev) {
		printf("[skipped on %s: faults are injected through the imitation provider's "
		       "mlx5_sim_inject_fault] ",
		       kernel_dev);
		return;
	}
	if (dev < 0 || mlx5_glue_find_device("sim1", &glue, &ibdev)) {
		printf("[dma_mlx5 on sim1 not present: skipped] ");
		return;
	}
	ib = glue->open_device(ibdev);
	mlx5_glue_put_device(glue, ibdev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
	struct rte_reasm_engine *e = rte_reasm_engine_dma_create((int16_t)dev, 0, mode);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	struct rte_reasm_ctx *c = ctx_create(e, {});

	benign_traffic(false, 200, 171, &in, &whole);
	benign_traffic(true, 200, 172, &in, &whole);
	if (mode != RTE_REASM_DMA_COPY) { /* 60 KB of 41 fragments: split over max_sges */
		std::mt19937 rng(173);

		for (uint32_t i = 0; i < 40; i++) {
			one o = make_one(i & 1, 60000, 41, 174 + i, 7000 + i);

			std::shuffle(o.frags.begin(), o.frags.end(), rng);
			in.insert(in.begin() + rng() % in.size(), o.frags.begin(), o.frags.end());
			whole.push_back(o.whole);
		}
	}
	for (size_t i = 0; i < in.size(); i++) {
		struct rte_mbuf *m = to_mbuf(in[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		while (rte_reasm_enqueue(c, &m, 1, 1) == 0)
			drain(c, &out);
		if (i % 300 == 100 && !sim_inline) { /* hold completions back: gathers pile up */
			struct mlx5_sim_fault f = {};

			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info((int16_t)dev, 0, &vi), 0);
			f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
			f.qpn = vi.qpn;
			f.delay_us = 3000;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ib, &f), 0);
		}
		if (i % 97 == 50) { /* the next WQE fails: its gather is an engine error */
			struct mlx5_sim_fault f = {};
			uint32_t cqn;

			drain(c, &out); /* idle: the next gather gets that WQE */
			fails++;

			CU_ASSERT_EQUAL(test_hook_next_wqe((int16_t)dev, 0, &f.wqe_index, &cqn), 0);
			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info((int16_t)dev, 0, &vi), 0);
			f.kind = MLX5_SIM_FAULT_FAIL_WQE;
			f.qpn = vi.qpn;
			f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ib, &f), 0);
		}
		if (i % 300 == 200) { /* then the QP dies under them (recovered, no error) */
			struct mlx5_sim_fault f = {};

			CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info((int16_t)dev, 0, &vi), 0);
			f.kind = MLX5_SIM_FAULT_QP_FATAL;
			f.qpn = vi.qpn;
			CU_ASSERT_EQUAL(mlx5_sim_inject_fault(ib, &f), 0);
			f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
			f.delay_us = 0;
			mlx5_sim_inject_fault(ib, &f);
		}
	}
	drain(c, &out);
	auto st = stats_of(c);
	auto so = sorted(out), sw = sorted(whole);

	printf("[%zu delivered, %" PRIu64 " engine errors from %u failed WQEs, %" PRIu64 " split] ",
	       out.size(), st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR], fails, st.split_gathers);
	if (mode != RTE_REASM_DMA_COPY)
		CU_ASSERT(st.split_gathers >= 20);
	if (mode == RTE_REASM_DMA_UMR)
		CU_ASSERT(st.umr_gathers > 0);
	CU_ASSERT(std::includes(sw.begin(), sw.end(), so.begin(), so.end()));
	CU_ASSERT_EQUAL(st.reassembled + st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR], whole.size());
	CU_ASSERT_EQUAL(st.reassembled, out.size());
	CU_ASSERT(st.drop_dgrams[RTE_REASM_DROP_ENGINE_ERROR] > 0);
	CU_ASSERT_EQUAL(rte_reasm_pending(c), 0);
	rte_reasm_free(c);
	rte_reasm_engine_free(e);
	mlx5_glue_sim()->close_device(ib);
	CU_ASSERT(pools_idle());
}

void t_engine_faults(void)
{
	engine_faults(RTE_REASM_DMA_COPY);
}

void t_engine_faults_sg(void)
{
	engine_faults(RTE_REASM_DMA_SG);
}

void t_engine_faults_umr(void)
{
	engine_faults(RTE_REASM_DMA_UMR);
}
#else
void t_engine_faults(void)
{
	printf("[built without the software HCA: skipped] ");
}

void t_engine_faults_sg(void)
{
	printf("[built without the software HCA: skipped] ");
}

void t_engine_faults_umr(void)
{
	printf("[built without the software HCA: skipped] ");
}
#endif

} // namespace

/*
 * argv[1], optional: more dma_mlx5 devargs (sim_exec=inline, umr_entries=64, ...); with
 * dev=DEV first, dma_mlx5 runs on DEV instead of sim1 (a device of Debian's libmlx5 under
 * devtools/sim-rdma: the cases that inject the imitation's faults say skipped).
 */
int main(int argc, char **argv)
{
	std::string mlx5_vdev = "--vdev=dma_mlx5,dev=sim1";

	if (argc > 1) {
		if (strncmp(argv[1], "dev=", 4) == 0) {
			static std::string dev(argv[1] + 4);

			dev = dev.substr(0, dev.find(','));
			kernel_dev = dev.c_str();
			mlx5_vdev = std::string("--vdev=dma_mlx5,") + argv[1];
		} else {
			mlx5_vdev = mlx5_vdev + "," + argv[1];
		}
		sim_inline = strstr(argv[1], "sim_exec=inline") != NULL;
	}
	char *eal[] = {(char *)"test_lib_reasm",
		       (char *)"--no-huge",
		       (char *)"-m",
		       (char *)"1024",
		       (char *)"--no-pci",
		       (char *)"--no-shconf",
		       (char *)"-l",
		       (char *)"0-1",
		       (char *)"--log-level=lib.eal:warning",
		       (char *)"--vdev=dma_skeleton,lcore=1",
#ifdef REASM_TEST_SIM
		       (char *)mlx5_vdev.c_str(),
#endif
		       NULL, /* --file-prefix */
		       NULL};
	static const struct cunit_test rfc[] = {
		{"oracle ipv4", t_oracle_v4},
		{"oracle ipv6", t_oracle_v6},
		{"64 fragments", t_many_fragments},
		{"duplicates", t_duplicates},
		{"overlap discards", t_overlap},
		{"ipv4 overlap trim", t_overlap_trim_v4},
		{"ipv6 extension headers", t_ipv6_ext_headers},
		{"atomic fragment", t_atomic},
		{"ipv4 key protocol", t_ipv4_key_protocol},
		{"bad lengths", t_bad_lengths},
		{"inconsistent last", t_inconsistent_last},
		{"passthrough and padding", t_passthrough_and_padding},
	};
	static const struct cunit_test limits[] = {
		{"timeout and late", t_timeout_and_late},
		{"limits", t_limits},
		{"no buffer", t_no_buffer},
		{"bad conf", t_bad_conf},
		{"telemetry", t_telemetry},
		{"over 65535 with the first header (cpu)", t_oversize_cpu},
		{"table flood evicts the oldest", t_evict_table_flood},
		{"tiny-fragment flood, small pool", t_evict_mbuf_flood},
		{"create with a taken name leaks nothing", t_create_name_taken},
	};
	static const struct cunit_test modes[] = {
		{"linearize", t_linearize},
		{"split and reverse", t_split},
	};
	static const struct cunit_test engines[] = {
		{"scripted engine", t_fake_engine},
		{"split gathers (scripted)", t_split_gathers},
		{"dma_skeleton (copy)", t_engine_skeleton},
		{"engine module (dma_skeleton)", t_engine_module},
		{"dma_mlx5 (copy)", t_engine_mlx5_copy},
		{"dma_mlx5 (sg)", t_engine_mlx5_sg},
		{"dma_mlx5 device faults", t_engine_faults},
		{"dma_mlx5 device faults (sg, split)", t_engine_faults_sg},
		{"dma_mlx5 (umr)", t_engine_mlx5_umr},
		{"dma_mlx5 device faults (umr)", t_engine_faults_umr},
		{"dma_mlx5 split through interleaved mkeys", t_split_umr},
		{"back-pressure, small ring (sg)", t_backpressure_sg},
		{"back-pressure, small ring (umr)", t_backpressure_umr},
	};
	const struct cunit_suite suites[] = {
		CUNIT_SUITE("rfc", rfc),
		CUNIT_SUITE("limits", limits),
		CUNIT_SUITE("modes", modes),
		CUNIT_SUITE("engines", engines),
	};
	int ret;

	/* a runtime directory of its own: the telemetry test talks to this process's socket */
	std::string prefix = dpdk_test_own_prefix("reasm");
	eal[RTE_DIM(eal) - 2] = (char *)prefix.c_str();
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	dpdk_test_rundir_note();
	cpu = rte_reasm_engine_cpu_create();
	if (pools_create() || !cpu) {
		fprintf(stderr, "pools or CPU engine: %s\n", rte_strerror(rte_errno));
		return 1;
	}
#ifdef REASM_TEST_SIM
	if (argc > 1 && rte_dma_get_dev_id_by_name("dma_mlx5") < 0) {
		fprintf(stderr, "dma_mlx5 with %s did not probe\n", argv[1]);
		return 1;
	}
#endif
	for (const char *d : {"dma_skeleton", "dma_mlx5"})
		if (rte_dma_get_dev_id_by_name(d) >= 0 && dpdk_test_dma_start(d) < 0) {
			fprintf(stderr, "cannot start %s\n", d);
			return 1;
		}
	ret = CUNIT_RUN_SUITES(suites);
	rte_reasm_engine_free(cpu);
	dpdk_test_dma_close_all();
	rte_eal_cleanup();
	return ret;
}
