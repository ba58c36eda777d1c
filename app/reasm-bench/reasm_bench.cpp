/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reasm-bench: application-core TSC cycles per reassembled datagram, librte_reasm on a
 * dmadev engine against the CPU path, in one run; and the header-data split gather's
 * throughput against a CPU copy loop. Not a test: run it on an otherwise idle machine.
 * Counted: the passes (one enqueue and one dequeue call) that gave or got packets; a
 * pass that did neither (the context full, the engine busy) is time the application has
 * for other work.
 *   reasm-bench <EAL args> -- [--engine DMADEV] [--dma-mode all|auto|umr|sg|copy]
 *               [--dgrams N]
 * (all, the default: each of sg and umr the device can do, one after the other).
 * CPU paths: librte_ip_frag 22.11 + a copy into one fresh mbuf (what linearize does for a
 * chain larger than its first segment) where librte_ip_frag can (<= 8 fragments), and
 * librte_reasm on its CPU engine always.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf.h>

#include "rte_reasm.h"

namespace {

struct opts {
	std::string engine = "dma_mlx5";
	std::vector<enum rte_reasm_dma_mode> modes = {RTE_REASM_DMA_SG, RTE_REASM_DMA_UMR};
	uint32_t dgrams = 1000;
};

/* Input packets of the split runs: they come from the output pool, which must keep room
 * for the outputs. */
constexpr uint32_t split_pkts_max = 400;

struct rte_mempool *in_pool, *out_pool;
/* of the last reasm_run(): how the engine took the gathers (split, CPU fallbacks) */
struct rte_reasm_stats last_stats;

/* The fragments of an Ethernet + IPv4 + UDP datagram of ip_len bytes, nf pieces. */
std::vector<std::vector<uint8_t>> make_frags(uint32_t ip_len, uint32_t nf, uint16_t id)
{
	uint32_t pay = ip_len - 20, step = (pay / nf + 7) & ~7u;
	std::vector<std::vector<uint8_t>> out;

	for (uint32_t off = 0; off < pay; off += step) {
		uint32_t len = std::min(step, pay - off);
		std::vector<uint8_t> f(14 + 20 + len, (uint8_t)(off / 8));
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)&f[14];

		memset(&f[0], 0, 34);
		f[12] = 0x08;
		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + len));
		ip->packet_id = rte_cpu_to_be_16(id);
		ip->fragment_offset =
			rte_cpu_to_be_16((uint16_t)((off / 8) | (off + len < pay ? 0x2000 : 0)));
		ip->time_to_live = 64;
		ip->next_proto_id = 17;
		ip->src_addr = rte_cpu_to_be_32(0x0a000001);
		ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		out.push_back(std::move(f));
	}
	return out;
}

struct rte_mbuf *to_mbuf(const std::vector<uint8_t> &f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(in_pool);

	if (!m)
		return NULL;
	memcpy(rte_pktmbuf_append(m, (uint16_t)f.size()), f.data(), f.size());
	m->l2_len = 14;
	m->l3_len = 20;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4;
	return m;
}

/* The whole input of a run: n datagrams' fragments as mbufs, ids distinct. */
std::vector<struct rte_mbuf *> make_input(uint32_t ip_len, uint32_t nf, uint32_t n)
{
	std::vector<struct rte_mbuf *> v;

	for (uint32_t i = 0; i < n; i++)
		for (auto &f : make_frags(ip_len, nf, (uint16_t)i))
			v.push_back(to_mbuf(f));
	return v;
}

/* librte_ip_frag + one copy into a fresh contiguous mbuf; cycles per datagram. */
double cpu_ip_frag(uint32_t ip_len, uint32_t nf, uint32_t n, uint32_t *done)
{
	struct rte_ip_frag_tbl *tbl = rte_ip_frag_table_create(4096, 16, 4096 * 16,
							       rte_get_tsc_hz(), SOCKET_ID_ANY);
	static struct rte_ip_frag_death_row dr;
	auto in = make_input(ip_len, nf, n);
	uint64_t cycles = 0;

	*done = 0;
	for (auto *m : in) {
		uint64_t t0 = rte_rdtsc();
		struct rte_mbuf *r = rte_ipv4_frag_reassemble_packet(
			tbl, &dr, m, t0, rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14));

		if (r) {
			struct rte_mbuf *o = rte_pktmbuf_alloc(out_pool);
			uint8_t *d = (uint8_t *)rte_pktmbuf_append(o, (uint16_t)r->pkt_len);

			for (struct rte_mbuf *s = r; s; s = s->next) {
				rte_memcpy(d, rte_pktmbuf_mtod(s, void *), s->data_len);
				d += s->data_len;
			}
			rte_pktmbuf_free(r);
			rte_pktmbuf_free(o); /* the application would send it */
			(*done)++;
		}
		rte_ip_frag_free_death_row(&dr, 0);
		cycles += rte_rdtsc() - t0;
	}
	rte_ip_frag_table_destroy(tbl);
	return *done ? (double)cycles / *done : 0;
}

/* librte_reasm on @p engine: app-core cycles in its calls per datagram. */
double reasm_run(struct rte_reasm_engine *engine, uint32_t ip_len, uint32_t nf, uint32_t n,
		 uint32_t *done)
{
	struct rte_reasm_conf conf = {};
	struct rte_mbuf *res[32];
	uint64_t cycles = 0;

	conf.name = "bench";
	conf.engine = engine;
	conf.pool = out_pool;
	struct rte_reasm_ctx *c = rte_reasm_create(&conf);
	auto in = make_input(ip_len, nf, n);
	size_t i = 0;

	*done = 0;
	while (*done < n) {
		uint64_t t0 = rte_rdtsc();
		uint16_t k = 0, got;

		if (i < in.size()) {
			k = rte_reasm_enqueue(c, &in[i],
					      (uint16_t)std::min<size_t>(32, in.size() - i), t0);
			i += k;
		}
		got = rte_reasm_dequeue(c, res, 32);
		rte_pktmbuf_free_bulk(res, got); /* the application would send them */
		/* A pass that neither gave nor got a packet (the context full, the engine
		 * busy) is time the application has for other work: not counted. */
		if (k || got)
			cycles += rte_rdtsc() - t0;
		*done += got;
		if (i == in.size() && !got && rte_reasm_pending(c) == 0)
			break;
	}
	rte_reasm_stats_get(c, &last_stats);
	rte_reasm_free(c);
	return *done ? (double)cycles / *done : 0;
}

/* Header-data split of 32 x (64 + 1024) records: app-core cycles per packet, and GB/s. */
void split_run(struct rte_reasm_engine *engine, uint32_t n, double *cyc, double *gbps)
{
	struct rte_reasm_conf conf = {};
	struct rte_reasm_split l = {0, 64, 1024, 0};
	struct rte_mbuf *res[32];
	uint64_t cycles = 0, start = rte_rdtsc();
	uint32_t done = 0, given = 0;

	conf.name = "bench-split";
	conf.engine = engine;
	conf.pool = out_pool;
	struct rte_reasm_ctx *c = rte_reasm_create(&conf);
	std::vector<struct rte_mbuf *> in;

	n = std::min(n, split_pkts_max);
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(out_pool);

		rte_pktmbuf_append(m, 32 * (64 + 1024));
		in.push_back(m);
	}
	while (done < n) {
		uint64_t t0 = rte_rdtsc();
		uint16_t got;

		uint16_t k = 0;

		if (given < n)
			k = rte_reasm_split_enqueue(
				c, &in[given], (uint16_t)std::min<uint32_t>(32, n - given), &l);
		given += k;
		got = rte_reasm_dequeue(c, res, 32);
		rte_pktmbuf_free_bulk(res, got);
		if (k || got) /* idle passes not counted, as above */
			cycles += rte_rdtsc() - t0;
		done += got;
		if (given == n && !got && rte_reasm_pending(c) == 0)
			break; /* the rest was dropped (counted in the stats) */
	}
	rte_reasm_stats_get(c, &last_stats);
	*cyc = done ? (double)cycles / done : 0;
	*gbps = (double)done * 32 * 1024 / ((double)(rte_rdtsc() - start) / rte_get_tsc_hz()) / 1e9;
	if (done != n)
		printf("  (split: %u of %u packets delivered)\n", done, n);
	rte_reasm_free(c);
}

/* The CPU copy loop the split replaces. */
void split_cpu_loop(uint32_t n, double *cyc, double *gbps)
{
	std::vector<uint8_t> src(32 * (64 + 1024), 1), dst(32 * 1024);
	uint64_t t0 = rte_rdtsc();

	n = std::min(n, split_pkts_max);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t r = 0; r < 32; r++)
			rte_memcpy(&dst[r * 1024], &src[r * 1088 + 64], 1024);
	uint64_t t = rte_rdtsc() - t0;
	*cyc = (double)t / n;
	*gbps = (double)n * 32 * 1024 / ((double)t / rte_get_tsc_hz()) / 1e9;
}

/* Touch every buffer once: without hugepages, first-touch page faults would be measured. */
void prefault(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct rte_mbuf *m = (struct rte_mbuf *)obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(arg);
	RTE_SET_USED(idx);
	memset(m->buf_addr, 0, m->buf_len);
}

int dma_setup(const char *name)
{
	int dev = rte_dma_get_dev_id_by_name(name);
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	struct rte_dma_info info;

	if (dev < 0 || rte_dma_info_get(dev, &info))
		return -1;
	conf.nb_vchans = 1;
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = std::clamp<uint16_t>(1024, info.min_desc, info.max_desc);
	if (rte_dma_configure(dev, &conf) || rte_dma_vchan_setup(dev, 0, &vc) || rte_dma_start(dev))
		return -1;
	return dev;
}

int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {{"engine", required_argument, nullptr, 'e'},
					   {"dma-mode", required_argument, nullptr, 'm'},
					   {"dgrams", required_argument, nullptr, 'n'},
					   {nullptr, 0, nullptr, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, nullptr)) != -1) {
		if (c == 'e') {
			o->engine = optarg;
		} else if (c == 'm') {
			if (!strcmp(optarg, "all"))
				o->modes = {RTE_REASM_DMA_SG, RTE_REASM_DMA_UMR};
			else if (!strcmp(optarg, "sg"))
				o->modes = {RTE_REASM_DMA_SG};
			else if (!strcmp(optarg, "umr"))
				o->modes = {RTE_REASM_DMA_UMR};
			else if (!strcmp(optarg, "copy"))
				o->modes = {RTE_REASM_DMA_COPY};
			else if (!strcmp(optarg, "auto"))
				o->modes = {RTE_REASM_DMA_AUTO};
			else
				return -1;
		} else if (c == 'n') {
			o->dgrams = (uint32_t)strtoul(optarg, nullptr, 0);
			if (o->dgrams == 0 || o->dgrams > 1400)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* The CPU paths of one case, measured once for every mode's comparison. */
struct cpu_case {
	double frag, reasm_cpu;
};

void bench_mode(struct rte_reasm_engine *dma, const opts &o, const cpu_case *cc, double c_loop)
{
	static const struct {
		uint32_t ip_len, nf;
		double target;
	} cases[] = {{9000, 7, 0.5}, {60000, 41, 0.25}};

	printf("\nengine %s (%s): app-core TSC cycles per reassembled datagram, %u datagrams\n",
	       o.engine.c_str(), rte_reasm_engine_kind(dma), o.dgrams);
	printf("%-14s %12s %12s %12s %9s %8s\n", "case", "ip_frag+copy", "reasm cpu", "reasm dma",
	       "ratio", "target");
	for (size_t k = 0; k < RTE_DIM(cases); k++) {
		uint32_t d_dma;

		reasm_run(dma, cases[k].ip_len, cases[k].nf, o.dgrams, &d_dma); /* warm-up */
		double rd = reasm_run(dma, cases[k].ip_len, cases[k].nf, o.dgrams, &d_dma);
		struct rte_reasm_stats sd = last_stats;
		/* the CPU path: librte_ip_frag where it can, librte_reasm's CPU engine beyond */
		double base = cc[k].frag > 0 ? cc[k].frag : cc[k].reasm_cpu;
		double ratio = base > 0 ? rd / base : 0;
		char name[32];

		snprintf(name, sizeof(name), "%u B / %u", cases[k].ip_len, cases[k].nf);
		printf("%-14s %12.0f %12.0f %12.0f %8.2fx %7.2fx %s\n", name, cc[k].frag,
		       cc[k].reasm_cpu, rd, ratio, cases[k].target,
		       ratio <= cases[k].target ? "met" : "NOT met");
		if (d_dma != o.dgrams)
			printf("  (delivered: dma %u of %u)\n", d_dma, o.dgrams);
		printf("  (dma: %" PRIu64 " gathers in %" PRIu64 " ops, %" PRIu64
		       " through UMR mkeys, %" PRIu64 " split, %" PRIu64 " deferred, %" PRIu64
		       " on the CPU)\n",
		       sd.gathers, sd.gather_ops, sd.umr_gathers, sd.split_gathers, sd.deferred,
		       sd.cpu_fallbacks);
	}
	double c_dma, g_dma;

	split_run(dma, o.dgrams, &c_dma, &g_dma);
	printf("header-data split, 32 x (64 + 1024) B per packet: reasm dma %.0f cycles/packet "
	       "(%.2f GB/s; %" PRIu64 " of %" PRIu64 " through interleaved mkeys), %.2fx the copy "
	       "loop's cycles\n",
	       c_dma, g_dma, last_stats.interleaved_splits, last_stats.split,
	       c_loop > 0 ? c_dma / c_loop : 0);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct {
		uint32_t ip_len, nf;
	} cases[] = {{9000, 7}, {60000, 41}};
	cpu_case cc[RTE_DIM(cases)] = {};
	struct rte_reasm_engine *cpu;
	opts o;
	int ret = rte_eal_init(argc, argv), dev;

	if (ret < 0)
		return 1;
	if (parse(argc - ret, argv + ret, &o)) {
		fprintf(stderr, "usage: reasm-bench <EAL> -- [--engine DMADEV] "
				"[--dma-mode all|auto|umr|sg|copy] [--dgrams N (<= 1400)]\n");
		return 2;
	}
	in_pool = rte_pktmbuf_pool_create("bench_in", 65535, 256, 0, 2048 + 128, SOCKET_ID_ANY);
	out_pool = rte_pktmbuf_pool_create("bench_out", 1023, 0, 0, UINT16_MAX, SOCKET_ID_ANY);
	if (in_pool && out_pool) {
		rte_mempool_obj_iter(in_pool, prefault, NULL);
		rte_mempool_obj_iter(out_pool, prefault, NULL);
	}
	dev = dma_setup(o.engine.c_str());
	cpu = rte_reasm_engine_cpu_create();
	if (!in_pool || !out_pool || !cpu || dev < 0) {
		fprintf(stderr, "reasm-bench: pools, CPU engine or dmadev %s: %s\n",
			o.engine.c_str(), rte_strerror(rte_errno));
		return 1;
	}
	printf("CPU paths, app-core TSC cycles per datagram (%u datagrams)\n", o.dgrams);
	for (size_t k = 0; k < RTE_DIM(cases); k++) {
		uint32_t d_frag, d_cpu;
		bool frag_ok = cases[k].nf <= RTE_LIBRTE_IP_FRAG_MAX_FRAG;

		/* a first pass of each path warms its memory (page faults, caches) */
		if (frag_ok)
			cpu_ip_frag(cases[k].ip_len, cases[k].nf, o.dgrams, &d_frag);
		reasm_run(cpu, cases[k].ip_len, cases[k].nf, o.dgrams, &d_cpu);
		cc[k].frag = frag_ok ? cpu_ip_frag(cases[k].ip_len, cases[k].nf, o.dgrams, &d_frag)
				     : 0;
		cc[k].reasm_cpu = reasm_run(cpu, cases[k].ip_len, cases[k].nf, o.dgrams, &d_cpu);
		printf("  %u B / %u: ip_frag+copy %.0f%s, reasm cpu %.0f\n", cases[k].ip_len,
		       cases[k].nf, cc[k].frag, frag_ok ? "" : " (over 8 fragments: cannot)",
		       cc[k].reasm_cpu);
	}
	double c_cpu, g_cpu, c_loop, g_loop;

	split_run(cpu, o.dgrams, &c_cpu, &g_cpu); /* warm-up */
	split_run(cpu, o.dgrams, &c_cpu, &g_cpu);
	split_cpu_loop(o.dgrams, &c_loop, &g_loop);
	printf("header-data split, 32 x (64 + 1024) B per packet: copy loop %.0f cycles/packet "
	       "(%.2f GB/s), reasm cpu %.0f (%.2f GB/s)\n",
	       c_loop, g_loop, c_cpu, g_cpu);
	for (auto mode : o.modes) {
		struct rte_reasm_engine *dma = rte_reasm_engine_dma_create((int16_t)dev, 0, mode);

		if (!dma) {
			printf("\nengine %s, dma mode %d: not available here (%s)\n",
			       o.engine.c_str(), (int)mode, rte_strerror(rte_errno));
			continue;
		}
		bench_mode(dma, o, cc, c_loop);
		rte_reasm_engine_free(dma);
	}
	rte_reasm_engine_free(cpu);
	rte_dma_stop((int16_t)dev);
	rte_dma_close((int16_t)dev);
	rte_eal_cleanup();
	return 0;
}
