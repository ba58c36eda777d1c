/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly workloads of mlx5-dma-shell: IPv4 fragments given to librte_reasm, whose
 * gathers run on a dmadev vchan (dma_mlx5: UMR list mkeys, else copy_sg).
 *  - generated: datagrams of N payload bytes, each cut into F fragments given last
 *    first; every datagram's payload is a function of its number (IP id and
 *    destination), so each reassembled one is checked byte for byte;
 *  - pcap: the Ethernet frames of a pcap file, over and over (the datagrams still
 *    incomplete at the end of a pass are dropped as timeouts). Every output must be
 *    one of the packets the CPU engine makes of the same file (compared by a 64-bit
 *    hash of its bytes), whatever order the device completes in.
 * An op is a packet out of the context; failures are the datagrams it dropped, by
 * reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_net.h>

#include "rte_reasm.h"
#include "shell.h"

/** What a reassembly workload owns (made by the shell, run by the lcore). */
struct shell_reasm {
	struct rte_reasm_engine *engine;
	struct rte_reasm_ctx *ctx;
	struct rte_mempool *in_pool;            /**< fragments */
	struct rte_mempool *out_pool;           /**< reassembled datagrams */
	uint32_t frags;                         /**< generated: fragments per datagram */
	uint32_t piece;                         /**< generated: payload bytes per fragment (8k) */
	std::vector<std::string> frames;        /**< pcap: its Ethernet frames */
	std::unordered_multiset<uint64_t> want; /**< pcap: the CPU's outputs, hashed */
	uint64_t per_pass; /**< pcap: packets out plus datagrams dropped, a pass on the CPU */
};

namespace {

constexpr uint32_t kEth = 14, kIp = 20;
constexpr uint32_t kMaxFrames = 1u << 20;
constexpr uint32_t kMaxBytes = 256u << 20; /* the frames are kept in memory */
/* the largest frame or datagram an mbuf holds */
constexpr uint32_t kMaxLen = UINT16_MAX - RTE_PKTMBUF_HEADROOM;
/* status[k] of a reassembly workload: "OK", then enum rte_reasm_drop + 1 */
const char *g_drop_names[SHELL_STATUS_KINDS];
unsigned int g_seq;

uint8_t payload_byte(uint64_t dgram, uint32_t i)
{
	return (uint8_t)(dgram * 131 + i * 7 + (i >> 8));
}

/** A packet's bytes, all its segments, hashed (FNV-1a and the length). */
uint64_t hash_mbuf(const struct rte_mbuf *m)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (const struct rte_mbuf *s = m; s; s = s->next) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);
		for (uint16_t i = 0; i < s->data_len; i++)
			h = (h ^ p[i]) * 0x100000001b3ull;
	}
	return h ^ m->pkt_len;
}

/** The frames of pcap @p path (Ethernet link type); 0 or -errno (message printed). */
int pcap_load(const char *path, std::vector<std::string> *frames)
{
	FILE *f = shell_open_file(path);
	uint8_t gh[24], rh[16];
	uint64_t total = 0;
	int ret = 0;

	if (!f)
		return -EINVAL;
	bool swap = false;
	if (fread(gh, 1, sizeof(gh), f) != sizeof(gh)) {
		ret = -EINVAL;
	} else {
		uint32_t magic;
		memcpy(&magic, gh, 4);
		swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
		if (!swap && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d)
			ret = -EINVAL;
	}
	auto u32 = [swap](const uint8_t *p) {
		uint32_t v;
		memcpy(&v, p, 4);
		return swap ? rte_bswap32(v) : v;
	};
	if (ret == 0 && u32(gh + 20) != 1) { /* LINKTYPE_ETHERNET */
		shell_fail("pcap %s: link type %u, not Ethernet", path, u32(gh + 20));
		fclose(f);
		return -ENOTSUP;
	}
	while (ret == 0 && fread(rh, 1, sizeof(rh), f) == sizeof(rh)) {
		uint32_t len = u32(rh + 8);
		total += len;
		if (len > kMaxLen || frames->size() >= kMaxFrames || total > kMaxBytes) {
			ret = -E2BIG;
			break;
		}
		std::string fr(len, '\0');
		if (fread(&fr[0], 1, len, f) != len) {
			ret = -EINVAL;
			break;
		}
		frames->push_back(std::move(fr));
	}
	fclose(f);
	if (ret == 0 && frames->empty())
		ret = -ENODATA;
	if (ret)
		shell_fail("pcap %s: not a pcap file of 1..%u frames of at most %u B, %u MiB in "
			   "all (%s)",
			   path, kMaxFrames, kMaxLen, kMaxBytes >> 20, strerror(-ret));
	return ret;
}

/** An mbuf of frame @p fr, its l2_len and L3 type from its headers; NULL: pool empty. */
struct rte_mbuf *frame_mbuf(struct rte_mempool *pool, const std::string &fr)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_net_hdr_lens lens;

	if (!m)
		return NULL;
	char *p = rte_pktmbuf_append(m, (uint16_t)fr.size());
	if (!p) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, fr.data(), fr.size());
	m->packet_type = rte_net_get_ptype(m, &lens, RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK);
	m->l2_len = lens.l2_len;
	return m;
}

/** Fragment @p k of generated datagram @p dgram (payload @p size bytes). */
struct rte_mbuf *gen_fragment(const shell_reasm *ra, uint64_t dgram, uint32_t size, uint32_t k)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(ra->in_pool);
	uint32_t off = k * ra->piece, len = RTE_MIN(ra->piece, size - off);

	if (!m)
		return NULL;
	auto *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(kEth + kIp + len));
	static const uint8_t eth[kEth] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
	memcpy(p, eth, kEth);
	auto *ip = (struct rte_ipv4_hdr *)(p + kEth);
	memset(ip, 0, kIp);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(kIp + len));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)dgram);
	bool more = off + len < size;
	ip->fragment_offset =
		rte_cpu_to_be_16((uint16_t)((more ? RTE_IPV4_HDR_MF_FLAG : 0) | off / 8));
	ip->time_to_live = 64;
	ip->next_proto_id = 253; /* RFC 3692 experimentation */
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
	/* the datagram number's upper bits: ids repeat every 65536 datagrams */
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 0) |
					(uint32_t)((dgram >> 16) & 0xffffff));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (uint32_t i = 0; i < len; i++)
		p[kEth + kIp + i] = payload_byte(dgram, off + i);
	m->l2_len = kEth;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4;
	return m;
}

/** A reassembled generated datagram is whole and its bytes are its number's. */
bool gen_right(const struct rte_mbuf *m, uint32_t size)
{
	if (m->nb_segs != 1 || m->pkt_len != kEth + kIp + size)
		return false;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const auto *ip = (const struct rte_ipv4_hdr *)(p + kEth);
	if (rte_be_to_cpu_16(ip->total_length) != kIp + size ||
	    (rte_be_to_cpu_16(ip->fragment_offset) &
	     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
		return false;
	uint64_t dgram = rte_be_to_cpu_16(ip->packet_id) |
			 (uint64_t)(rte_be_to_cpu_32(ip->dst_addr) & 0xffffff) << 16;
	for (uint32_t i = 0; i < size; i++)
		if (p[kEth + kIp + i] != payload_byte(dgram, i))
			return false;
	return true;
}

struct rte_reasm_ctx *make_ctx(const char *kind, unsigned int id, struct rte_reasm_engine *engine,
			       struct rte_mempool *out_pool)
{
	struct rte_reasm_conf conf = {};
	char name[48];

	snprintf(name, sizeof(name), "shell-reasm-%s-%u-%u", kind, id, g_seq++);
	conf.name = name;
	conf.engine = engine;
	conf.pool = out_pool;
	conf.max_inflight = 256;
	return rte_reasm_create(&conf);
}

/**
 * Run the pcap once through the CPU engine: the hashes of what it delivers, and the
 * largest (@p max_len); 0 or -errno.
 */
int cpu_reference(shell_reasm *ra, unsigned int id, uint32_t *max_len)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "shell_rc%u", id);
	struct rte_mempool *pool = rte_pktmbuf_pool_create(name, 127, 0, 0, UINT16_MAX,
							   SOCKET_ID_ANY);
	struct rte_reasm_engine *cpu = pool ? rte_reasm_engine_cpu_create() : NULL;
	struct rte_reasm_conf conf = {};
	conf.name = name;
	conf.engine = cpu;
	conf.pool = pool;
	conf.max_inflight = 32;
	struct rte_reasm_ctx *ctx = cpu ? rte_reasm_create(&conf) : NULL;
	struct rte_mbuf *out[64];
	int ret = ctx ? 0 : -ENOMEM;
	auto take = [&]() {
		uint16_t n;
		while ((n = rte_reasm_dequeue(ctx, out, RTE_DIM(out))) > 0)
			for (uint16_t i = 0; i < n; i++) {
				ra->want.insert(hash_mbuf(out[i]));
				*max_len = RTE_MAX(*max_len, out[i]->pkt_len);
				rte_pktmbuf_free(out[i]);
			}
	};
	for (size_t i = 0; ret == 0 && i < ra->frames.size(); i++) {
		struct rte_mbuf *m = frame_mbuf(ra->in_pool, ra->frames[i]);
		if (!m) {
			ret = -ENOMEM;
			break;
		}
		while (rte_reasm_enqueue(ctx, &m, 1, rte_rdtsc()) != 1)
			take();
		take();
	}
	if (ctx) {
		struct rte_reasm_stats st;
		rte_reasm_expire(ctx, UINT64_MAX);
		take();
		rte_reasm_stats_get(ctx, &st);
		ra->per_pass = ra->want.size();
		for (uint64_t d : st.drop_dgrams)
			ra->per_pass += d;
	}
	rte_reasm_free(ctx);
	rte_reasm_engine_free(cpu);
	rte_mempool_free(pool);
	return ret;
}

void release(shell_reasm *ra)
{
	rte_reasm_free(ra->ctx); /* waits for its gathers */
	rte_reasm_engine_free(ra->engine);
	rte_mempool_free(ra->in_pool);
	rte_mempool_free(ra->out_pool);
	delete ra;
}

/** Datagrams dropped since the last look, by reason, into the workload's counters. */
void count_drops(shell_workload *w, uint64_t *seen)
{
	struct rte_reasm_stats st;

	rte_reasm_stats_get(w->reasm->ctx, &st);
	uint64_t all = 0;
	for (unsigned int r = 0; r < RTE_REASM_DROP_MAX; r++) {
		uint64_t d = st.drop_dgrams[r] - seen[r];
		unsigned int k = RTE_MIN(r + 1, SHELL_STATUS_KINDS - 1u);
		if (d)
			w->c.status[k].fetch_add(d, std::memory_order_relaxed);
		all += d;
		seen[r] = st.drop_dgrams[r];
	}
	w->c.failed.fetch_add(all, std::memory_order_relaxed);
}

int worker(void *arg)
{
	auto *w = (shell_workload *)arg;
	shell_reasm *ra = w->reasm;
	const bool pcap = !ra->frames.empty();
	std::vector<struct rte_mbuf *> held; /* made, not yet taken by the context */
	uint64_t dgram = 0, frame = 0, gave = 0, seen[RTE_REASM_DROP_MAX] = {};
	uint64_t taken_all = 0; /* packets the context took */
	struct rte_mbuf *out[64];

	held.reserve((size_t)w->batch * (pcap ? 1 : ra->frags));
	shell_workload_ready(w, 0);
	auto reap = [&]() {
		uint16_t n = rte_reasm_dequeue(ra->ctx, out, RTE_DIM(out));
		uint64_t bytes = 0, wrong = 0;
		for (uint16_t i = 0; i < n; i++) {
			bool right = !w->verify || (pcap ? ra->want.count(hash_mbuf(out[i])) != 0
							 : gen_right(out[i], w->size));
			wrong += !right;
			bytes += pcap ? out[i]->pkt_len : w->size;
			rte_pktmbuf_free(out[i]);
		}
		w->c.status[0].fetch_add(n, std::memory_order_relaxed);
		w->c.completed.fetch_add(n, std::memory_order_relaxed);
		w->c.bytes.fetch_add(bytes, std::memory_order_relaxed);
		w->c.corrupt.fetch_add(wrong, std::memory_order_relaxed);
		count_drops(w, seen);
	};
	uint64_t t0 = rte_get_timer_cycles();
	while (!w->stop.load(std::memory_order_relaxed)) {
		/* a burst: datagrams (generated) or frames (pcap), as the rate allows */
		uint16_t room = held.empty() ? shell_rate_room(w, &t0, gave, w->batch) : 0;
		for (uint16_t d = 0; d < room; d++) {
			if (pcap) {
				struct rte_mbuf *m = frame_mbuf(
					ra->in_pool, ra->frames[frame % ra->frames.size()]);
				if (!m)
					break;
				held.push_back(m);
				if (++frame % ra->frames.size() == 0) /* the pass's leftovers go */
					break;
				continue;
			}
			size_t mark = held.size();
			for (uint32_t k = ra->frags; k-- > 0;) { /* last fragment first */
				struct rte_mbuf *m = gen_fragment(ra, dgram, w->size, k);
				if (!m)
					break;
				held.push_back(m);
			}
			if (held.size() - mark != ra->frags) { /* pool empty: not this one */
				for (size_t i = mark; i < held.size(); i++)
					rte_pktmbuf_free(held[i]);
				held.resize(mark);
				break;
			}
			dgram++;
		}
		gave += room;
		size_t taken = 0;
		while (taken < held.size()) {
			uint16_t n = (uint16_t)RTE_MIN(held.size() - taken, (size_t)UINT16_MAX);
			uint16_t k = rte_reasm_enqueue(ra->ctx, &held[taken], n, rte_rdtsc());
			/*
			 * submitted: datagrams whose last fragment went; with a pcap, the
			 * outcomes of a pass (packets out, datagrams dropped) once it starts
			 */
			uint64_t ops = pcap ? (taken_all + k + ra->frames.size() - 1) /
							       ra->frames.size() -
						       (taken_all + ra->frames.size() - 1) /
							       ra->frames.size()
					    : (taken_all + k) / ra->frags - taken_all / ra->frags;
			w->c.submitted.fetch_add(pcap ? ops * ra->per_pass : ops,
						 std::memory_order_relaxed);
			taken_all += k;
			taken += k;
			if (k < n) {
				w->c.busy.fetch_add(1, std::memory_order_relaxed);
				break;
			}
		}
		held.erase(held.begin(), held.begin() + (long)taken);
		if (pcap && held.empty() && frame % ra->frames.size() == 0 && frame)
			rte_reasm_expire(ra->ctx, UINT64_MAX);
		reap();
	}
	for (struct rte_mbuf *m : held)
		rte_pktmbuf_free(m);
	/* gathers in flight and results: everything but incomplete datagrams */
	uint64_t pending = 1;
	auto left = [&]() {
		struct rte_reasm_stats st;
		rte_reasm_stats_get(ra->ctx, &st);
		pending = rte_reasm_pending(ra->ctx) - st.dgrams_in_table;
	};
	left();
	if (!shell_drain(pending, [&]() {
		    reap();
		    left();
	    }))
		return -ETIMEDOUT; /* the context stays: the device may still write */
	rte_reasm_expire(ra->ctx, UINT64_MAX);
	reap();
	return 0;
}

} // namespace

int shell_workload_start_reasm(int16_t dev, uint16_t vchan, uint32_t size, uint32_t frags,
			       const char *pcap_path, uint16_t batch, unsigned int lcore)
{
	struct rte_dma_info info;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (rte_dma_info_get(dev, &info) != 0 || vchan >= info.nb_vchans) {
		shell_fail("device %d has no vchan %u set up", dev, vchan);
		return -1;
	}
	auto *ra = new (std::nothrow) shell_reasm();
	if (!ra) {
		shell_fail("no memory");
		return -1;
	}
	if (pcap_path) {
		if (pcap_load(pcap_path, &ra->frames)) {
			delete ra;
			return -1;
		}
		size = 0;
		for (const std::string &f : ra->frames)
			size = RTE_MAX(size, (uint32_t)f.size());
	} else {
		/* 8-byte aligned pieces, every fragment with at least one byte */
		ra->piece = frags ? RTE_ALIGN_CEIL((size + frags - 1) / frags, 8u) : 0;
		const char *bad = NULL;
		if (size == 0 || size > 60000)
			bad = "datagram bytes out of range: 1..60000";
		else if (frags < 2 || frags > RTE_REASM_DEFAULT_MAX_FRAGS)
			bad = "fragments out of range";
		else if ((uint64_t)ra->piece * (frags - 1) >= size)
			bad = "too many fragments for the bytes (pieces of 8-byte multiples, every "
			      "fragment with data)";
		if (bad) {
			shell_fail("datagram of %u B in %u fragments: %s (fragments: 2..%u)", size,
				   frags, bad, RTE_REASM_DEFAULT_MAX_FRAGS);
			delete ra;
			return -1;
		}
		ra->frags = frags;
	}
	if (shell_workload_check(dev, vchan, RTE_MAX(size, 1u), batch, lcore)) {
		delete ra;
		return -1;
	}
	/* what the context needs, made here: a refusal leaves no trace */
	uint32_t in_n = RTE_MAX(4096u, 2 * (uint32_t)batch * RTE_MAX(ra->frags, 1u) + 1024);
	uint32_t in_len = pcap_path ? size : kEth + kIp + ra->piece;
	uint32_t out_len = kEth + kIp + size; /* pcap: the CPU's largest output */
	unsigned int seq = g_seq++;
	snprintf(name, sizeof(name), "shell_ri%u", seq);
	ra->in_pool = rte_pktmbuf_pool_create(
		name, in_n, 0, 0, (uint16_t)(RTE_PKTMBUF_HEADROOM + in_len), SOCKET_ID_ANY);
	int ret = ra->in_pool ? 0 : -rte_errno;
	if (ret == 0 && pcap_path) {
		out_len = 0;
		ret = cpu_reference(ra, seq, &out_len);
	}
	snprintf(name, sizeof(name), "shell_ro%u", seq);
	ra->out_pool = ret ? NULL
			   : rte_pktmbuf_pool_create(
				     name, 2 * 256 + 512, 0, 0,
				     (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_MIN(out_len, kMaxLen)),
				     SOCKET_ID_ANY);
	if (ret == 0 && !ra->out_pool)
		ret = -rte_errno;
	if (ret == 0) {
		ra->engine = rte_reasm_engine_dma_create(dev, vchan, RTE_REASM_DMA_AUTO);
		ra->ctx = ra->engine ? make_ctx("dev", seq, ra->engine, ra->out_pool) : NULL;
		ret = ra->ctx ? 0 : -rte_errno;
	}
	shell_workload *w =
		ret ? NULL : shell_workload_prepare(SHELL_OP_REASM, dev, vchan, size, batch, lcore);
	if (!w) {
		if (ret)
			shell_fail("reassembly on device %d vchan %u: %s", dev, vchan,
				   rte_strerror(-ret));
		release(ra);
		return -1;
	}
	if (!g_drop_names[0]) {
		g_drop_names[0] = "OK";
		for (unsigned int k = 1; k < SHELL_STATUS_KINDS; k++)
			g_drop_names[k] =
				k <= RTE_REASM_DROP_MAX
					? rte_reasm_drop_name((enum rte_reasm_drop)(k - 1))
					: "(other)";
	}
	w->reasm = ra;
	w->status_names = g_drop_names;
	if (pcap_path)
		snprintf(w->label, sizeof(w->label), "reasm %.20s (%u frames)",
			 strrchr(pcap_path, '/') ? strrchr(pcap_path, '/') + 1 : pcap_path,
			 (unsigned int)ra->frames.size());
	else
		snprintf(w->label, sizeof(w->label), "reassembly (%u fragments, %s)", frags,
			 rte_reasm_engine_kind(ra->engine));
	int id = shell_workload_launch(w, worker);
	if (id < 0)
		shell_reasm_release(w);
	return id;
}

void shell_reasm_release(struct shell_workload *w)
{
	/* stale: gathers in flight, and freeing would wait for them however long */
	if (!w->reasm || w->stale)
		return;
	release(w->reasm);
	w->reasm = NULL;
}
