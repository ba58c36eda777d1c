/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IP reassembly: a seeded hash of datagrams, each a sorted list of non-overlapping payload
 * pieces (the RFC 815 holes are the gaps between them; the datagram is complete when the
 * last fragment is known and the pieces cover [0, total)). Any overlap discards the
 * datagram (RFC 5722), exact duplicates are freed alone (RFC 8200 §4.5), atomic
 * fragments never enter the table (RFC 6946). Ages are counted from the first fragment.
 * The age list is also the eviction order when the table or the buffer limits are full,
 * and the 65535 limit is checked with the first fragment's header.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "reasm_priv.h"

namespace {

enum insert_result {
	HELD,
	DUPLICATE,
	FAIL_OVERLAP,
	FAIL_TOO_MANY,
	FAIL_BAD
};

/*
 * The bucket of a key, seeded per context. An IPv4 key is three words (addresses, then
 * id and protocol side by side: the id has 16 bits); an IPv6 key all ten.
 */
uint32_t key_hash(const struct rte_reasm_ctx *c, const struct reasm_key *k)
{
	uint32_t w[3];

	if (k->v6)
		return rte_jhash_32b((const uint32_t *)(const void *)k, sizeof(*k) / 4,
				     c->conf.hash_seed) &
		       c->bucket_mask;
	memcpy(&w[0], k->src, 4);
	memcpy(&w[1], k->dst, 4);
	w[2] = k->id | (uint32_t)k->proto << 16;
	return rte_jhash_3words(w[0], w[1], w[2], c->conf.hash_seed) & c->bucket_mask;
}

/* The datagram of key @p k, or -1; @p bucket its bucket either way. */
int32_t lookup(const struct rte_reasm_ctx *c, const struct reasm_key *k, uint32_t *bucket)
{
	*bucket = key_hash(c, k);
	for (int32_t d = c->buckets[*bucket]; d >= 0; d = c->dgrams[d].next_in_bucket)
		if (memcmp(&c->dgrams[d].key, k, sizeof(*k)) == 0)
			return d;
	return -1;
}

/* Out of the hash and the age list; the slot stays used until released. */
void unlink_dgram(struct rte_reasm_ctx *c, int32_t d)
{
	struct reasm_dgram *g = &c->dgrams[d];
	int32_t *p = &c->buckets[g->bucket];

	while (*p != d)
		p = &c->dgrams[*p].next_in_bucket;
	*p = g->next_in_bucket;
	if (g->older >= 0)
		c->dgrams[g->older].newer = g->newer;
	else
		c->oldest = g->newer;
	if (g->newer >= 0)
		c->dgrams[g->newer].older = g->older;
	else
		c->newest = g->older;
	if (g->state == DGRAM_OPEN)
		c->st.dgrams_in_table--;
}

void free_slot(struct rte_reasm_ctx *c, int32_t d)
{
	c->dgrams[d].state = DGRAM_FREE;
	c->dgrams[d].newer = c->free_dgram;
	c->free_dgram = d;
	c->dgrams_used--;
}

/* Free the fragments held; they count as dropped for @p why unless delivered. */
void free_frags(struct rte_reasm_ctx *c, struct reasm_dgram *g)
{
	rte_pktmbuf_free_bulk(g->frags, g->nfrags);
	c->st.bytes_held -= g->bytes;
	c->st.mbufs_held -= g->mbufs;
	g->nfrags = 0;
	g->npieces = 0;
	g->bytes = 0;
	g->mbufs = 0;
	g->covered = 0;
}

/*
 * Datagram @p d leaves the table for good: counted as dropped for @p why when it was
 * still collecting (a discarded one was counted when discarded).
 */
void retire(struct rte_reasm_ctx *c, int32_t d, enum rte_reasm_drop why)
{
	struct reasm_dgram *g = &c->dgrams[d];

	if (g->state == DGRAM_OPEN) {
		c->st.drop_frags[why] += g->nfrags;
		c->st.drop_dgrams[why]++;
	}
	unlink_dgram(c, d);
	reasm_dgram_release(c, d);
}

/*
 * The oldest datagram of the age list other than @p keep goes (evicted): the age list
 * is the timeout order, so this is what the timeout would drop next. False when there
 * is none (only @p keep, or every slot is a gather in flight).
 */
bool evict_oldest(struct rte_reasm_ctx *c, int32_t keep)
{
	int32_t d = c->oldest;

	if (d >= 0 && d == keep)
		d = c->dgrams[d].newer;
	if (d < 0)
		return false;
	retire(c, d, RTE_REASM_DROP_EVICTED);
	return true;
}

int32_t new_dgram(struct rte_reasm_ctx *c, const struct reasm_key *k, uint32_t b, uint64_t now)
{
	int32_t d;
	struct reasm_dgram *g;

	/* Table full: the oldest incomplete datagram makes room, not the new one. */
	if (c->free_dgram < 0 && !evict_oldest(c, -1))
		return -1;
	d = c->free_dgram;
	g = &c->dgrams[d];
	c->free_dgram = g->newer;
	c->dgrams_used++;
	g->key = *k;
	g->first_tsc = now;
	g->state = DGRAM_OPEN;
	g->have_last = 0;
	g->nfrags = g->npieces = 0;
	g->total = g->covered = 0;
	g->bytes = 0;
	g->mbufs = 0;
	g->first_m = NULL;
	g->bucket = b;
	g->next_in_bucket = c->buckets[b];
	c->buckets[b] = d;
	g->older = c->newest;
	g->newer = -1;
	if (c->newest >= 0)
		c->dgrams[c->newest].newer = d;
	else
		c->oldest = d;
	c->newest = d;
	c->st.dgrams_in_table++;
	return d;
}

/* Discarded: fragments freed, and the key kept until its timeout to swallow the rest. */
void discard(struct rte_reasm_ctx *c, int32_t d, enum rte_reasm_drop why)
{
	struct reasm_dgram *g = &c->dgrams[d];

	c->st.drop_frags[why] += g->nfrags;
	c->st.drop_dgrams[why]++;
	free_frags(c, g);
	g->state = DGRAM_DISCARDED;
	g->total = why; /* what its late fragments are counted as */
	c->st.dgrams_in_table--;
}

/* What a held fragment pins: its buffers, not its packet bytes. */
struct frag_cost {
	uint64_t bytes;
	uint32_t mbufs;
};

struct frag_cost cost_of(const struct rte_mbuf *m)
{
	struct frag_cost k = {0, 0};

	for (; m; m = m->next) {
		k.bytes += m->buf_len;
		k.mbufs++;
	}
	return k;
}

bool over_limits(const struct rte_reasm_ctx *c, const struct frag_cost *k)
{
	return c->st.bytes_held + k->bytes > c->conf.max_bytes ||
	       c->st.mbufs_held + k->mbufs > c->conf.max_mbufs;
}

/*
 * The IP length field of the reassembled datagram (IPv4 total length, IPv6 payload
 * length) for a payload of @p total bytes after the first fragment's header: @p first
 * the first fragment's facts, or NULL while it has not come (then the least any first
 * fragment could add: a 20-byte IPv4 header, no IPv6 extension header).
 */
uint32_t ip_length(const struct reasm_key *k, const struct reasm_frag *first, uint32_t total)
{
	if (!first)
		return (k->v6 ? 0 : 20) + total;
	return (k->v6 ? first->unfrag_len - 40 : first->unfrag_len) + total;
}

/*
 * Over 65535 already: with the first fragment's real header once it is held (never a
 * later fragment's own, which may be shorter), against the total once the last one is
 * held, else against the furthest byte held (the total is at least that).
 */
bool dgram_too_big(const struct reasm_dgram *g)
{
	uint32_t end = g->have_last ? g->total : g->pieces[g->npieces - 1].end;

	return ip_length(&g->key, g->first_m ? &g->first : NULL, end) > 65535;
}

/* The first piece starting at or after @p start: the end when fragments come in order
 * (the common case, one compare), else a binary search. */
uint16_t first_at_or_after(const struct reasm_dgram *g, uint32_t start)
{
	uint16_t lo = 0, hi = g->npieces;

	if (hi == 0 || g->pieces[hi - 1].start < start)
		return hi;
	while (lo < hi) {
		uint16_t mid = (uint16_t)((lo + hi) / 2);

		if (g->pieces[mid].start < start)
			lo = (uint16_t)(mid + 1);
		else
			hi = mid;
	}
	return lo;
}

void add_piece(struct reasm_dgram *g, uint16_t at, uint32_t s, uint32_t e, uint32_t moff, bool last,
	       struct rte_mbuf *m)
{
	if (at < g->npieces) /* fragments out of order */
		memmove(&g->pieces[at + 1], &g->pieces[at],
			(g->npieces - at) * sizeof(g->pieces[0]));
	g->pieces[at] = {s, e, moff, last, m};
	g->npieces++;
	g->covered += e - s;
}

enum insert_result insert(struct rte_reasm_ctx *c, struct reasm_dgram *g,
			  const struct reasm_frag *f, struct rte_mbuf *m,
			  const struct frag_cost *cost)
{
	bool trim = !f->key.v6 && (c->conf.flags & RTE_REASM_F_IPV4_OVERLAP_TRIM);
	uint16_t at = 0, added = 0;

	/* The end of the datagram must be one, and nothing may lie beyond it. */
	if (!f->more) {
		if (g->have_last && g->total != f->end)
			return FAIL_BAD;
		if (g->npieces && g->pieces[g->npieces - 1].end > f->end)
			return FAIL_OVERLAP;
	} else if (g->have_last && f->end > g->total) {
		return FAIL_OVERLAP;
	}
	at = first_at_or_after(g, f->start);
	if (at < g->npieces && g->pieces[at].start == f->start && g->pieces[at].end == f->end &&
	    g->pieces[at].last == !f->more)
		return DUPLICATE;
	if (!trim) {
		if ((at > 0 && g->pieces[at - 1].end > f->start) ||
		    (at < g->npieces && g->pieces[at].start < f->end))
			return FAIL_OVERLAP;
		if (g->nfrags == c->conf.max_frags)
			return FAIL_TOO_MANY;
		add_piece(g, at, f->start, f->end, f->payload_off, !f->more, m);
		added = 1;
	} else {
		/* RFC 815: keep the bytes held, fill only the holes the new fragment covers. */
		uint32_t pos = f->start;

		if (at > 0 && g->pieces[at - 1].end > pos)
			pos = g->pieces[at - 1].end;
		while (pos < f->end) {
			uint32_t hole_end = at < g->npieces ? RTE_MIN(g->pieces[at].start, f->end)
							    : f->end;

			if (hole_end > pos) {
				if (g->npieces == c->conf.max_frags ||
				    g->nfrags == c->conf.max_frags)
					return FAIL_TOO_MANY;
				add_piece(g, at, pos, hole_end, f->payload_off + (pos - f->start),
					  !f->more && hole_end == f->end, m);
				added++;
				at++;
			}
			if (at >= g->npieces || g->pieces[at].start >= f->end)
				break;
			pos = g->pieces[at].end;
			at++;
		}
		if (!added)
			return DUPLICATE;
		if (added > 1 || g->pieces[at - 1].start != f->start ||
		    g->pieces[at - 1].end != f->end)
			c->st.trimmed++;
	}
	g->frags[g->nfrags++] = m;
	g->bytes += cost->bytes;
	g->mbufs += cost->mbufs;
	c->st.bytes_held += cost->bytes;
	c->st.mbufs_held += cost->mbufs;
	if (!f->more) {
		g->have_last = 1;
		g->total = f->end;
	}
	if (f->start == 0 && !g->first_m) {
		g->first = *f;
		g->first_m = m;
	}
	return HELD;
}

/*
 * The output of a datagram: the first fragment's headers (CPU-copied, lengths, flags and
 * checksum rebuilt, fragment header gone) and room for the payload; c->src the pieces.
 */
struct rte_mbuf *build_output(struct rte_reasm_ctx *c, const struct reasm_frag *first,
			      const struct rte_mbuf *first_m, const struct reasm_piece *pieces,
			      uint16_t npieces, uint32_t total, uint16_t *nb_src,
			      enum rte_reasm_drop *why)
{
	uint32_t hdr = first->l2_len + first->unfrag_len;
	uint32_t ip_len = ip_length(&first->key, first, total);
	struct rte_mbuf *out;
	const void *p;
	uint8_t *h;

	/* the callers checked already; the 16-bit field below never holds a wrapped length */
	if (hdr > c->seg_room || ip_len > UINT16_MAX) {
		*why = RTE_REASM_DROP_TOO_BIG;
		return NULL;
	}
	*nb_src = 0;
	for (uint16_t i = 0; i < npieces; i++)
		if (!reasm_sge_add(c->src, nb_src, pieces[i].m, pieces[i].moff,
				   pieces[i].end - pieces[i].start)) {
			*why = RTE_REASM_DROP_TOO_MANY_FRAGS;
			return NULL;
		}
	out = reasm_out_alloc(c, hdr + total, why);
	if (!out)
		return NULL;
	h = rte_pktmbuf_mtod(out, uint8_t *);
	p = rte_pktmbuf_read(first_m, 0, hdr, h);
	if (p != h)
		memcpy(h, p, hdr);
	if (!first->key.v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + first->l2_len);

		ip->total_length = rte_cpu_to_be_16((uint16_t)ip_len); /* <= 65535: checked */
		ip->fragment_offset &= rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + first->l2_len);

		ip->payload_len = rte_cpu_to_be_16((uint16_t)ip_len); /* <= 65535: checked */
		h[first->nh_off] = first->nh_val;
	}
	reasm_copy_meta(out, first_m);
	out->l2_len = first->l2_len;
	out->l3_len = first->unfrag_len;
	return out;
}

void complete(struct rte_reasm_ctx *c, int32_t d)
{
	struct reasm_dgram *g = &c->dgrams[d];
	struct reasm_op op = {};
	enum rte_reasm_drop why;
	struct rte_mbuf *out;
	uint16_t nb_src;

	unlink_dgram(c, d);
	g->state = DGRAM_GATHERING;
	out = build_output(c, &g->first, g->first_m, g->pieces, g->npieces, g->total, &nb_src,
			   &why);
	if (!out) {
		c->st.drop_frags[why] += g->nfrags;
		c->st.drop_dgrams[why]++;
		reasm_dgram_release(c, d);
		return;
	}
	op.kind = OP_DGRAM;
	op.dgram = d;
	op.done_counter = &c->st.reassembled;
	reasm_gather_start(c, nb_src, out, g->first.l2_len + g->first.unfrag_len, &op);
}

/* RFC 6946: an atomic fragment is a whole datagram, never mixed with the table. */
void deliver_atomic(struct rte_reasm_ctx *c, struct rte_mbuf *m, const struct reasm_frag *f)
{
	struct reasm_piece piece = {0, f->end, f->payload_off, 1, m};
	struct reasm_op op = {};
	enum rte_reasm_drop why;
	struct rte_mbuf *out;
	uint16_t nb_src;

	out = build_output(c, f, m, &piece, 1, f->end, &nb_src, &why);
	if (!out) {
		c->st.drop_dgrams[why]++;
		reasm_drop(c, m, why);
		return;
	}
	c->st.atomic++;
	op.kind = OP_PACKET;
	op.in = m;
	op.done_counter = &c->st.reassembled;
	reasm_gather_start(c, nb_src, out, f->l2_len + f->unfrag_len, &op);
}

} // namespace

void reasm_dgram_release(struct rte_reasm_ctx *c, int32_t d)
{
	free_frags(c, &c->dgrams[d]);
	free_slot(c, d);
}

uint32_t rte_reasm_expire(struct rte_reasm_ctx *c, uint64_t now)
{
	uint32_t n = 0;

	while (c->oldest >= 0) {
		int32_t d = c->oldest;
		struct reasm_dgram *g = &c->dgrams[d];

		if (now < g->first_tsc || now - g->first_tsc <= c->timeout_cycles)
			break;
		n += g->state == DGRAM_OPEN;
		retire(c, d, RTE_REASM_DROP_TIMEOUT);
	}
	return n;
}

void reasm_ip_input(struct rte_reasm_ctx *c, struct rte_mbuf *m, uint64_t now)
{
	struct reasm_frag f;
	struct frag_cost cost;
	uint32_t bucket;
	int32_t d;
	int r = reasm_parse(m, &f);

	if (r == REASM_NOT_FRAG) {
		c->st.passthrough++;
		reasm_result_push(c, m);
		return;
	}
	if (r < 0) {
		reasm_drop(c, m, (enum rte_reasm_drop)(-r - 1));
		return;
	}
	c->st.frags_in++;
	if (r == REASM_ATOMIC) {
		deliver_atomic(c, m, &f);
		return;
	}
	/* rte_reasm_enqueue() expired the table at @p now already */
	d = lookup(c, &f.key, &bucket);
	if (d >= 0 && c->dgrams[d].state == DGRAM_DISCARDED) {
		reasm_drop(c, m, (enum rte_reasm_drop)c->dgrams[d].total);
		return;
	}
	cost = cost_of(m);
	if (cost.bytes > c->conf.max_bytes || cost.mbufs > c->conf.max_mbufs) {
		reasm_drop(c, m, RTE_REASM_DROP_MEM_LIMIT); /* would never fit */
		return;
	}
	/* Buffers held at the limit: the oldest datagrams go, not this fragment (each
	 * eviction removes a datagram some fragment opened: O(1) amortized). */
	while (over_limits(c, &cost))
		if (!evict_oldest(c, d)) {
			reasm_drop(c, m, RTE_REASM_DROP_MEM_LIMIT);
			return;
		}
	if (d < 0) {
		d = new_dgram(c, &f.key, bucket, now);
		if (d < 0) {
			reasm_drop(c, m, RTE_REASM_DROP_TABLE_FULL);
			return;
		}
	}
	switch (insert(c, &c->dgrams[d], &f, m, &cost)) {
	case HELD:
		break;
	case DUPLICATE:
		c->st.duplicates++;
		rte_pktmbuf_free(m);
		return;
	case FAIL_OVERLAP:
		discard(c, d, RTE_REASM_DROP_OVERLAP);
		reasm_drop(c, m, RTE_REASM_DROP_OVERLAP);
		return;
	case FAIL_TOO_MANY:
		discard(c, d, RTE_REASM_DROP_TOO_MANY_FRAGS);
		reasm_drop(c, m, RTE_REASM_DROP_TOO_MANY_FRAGS);
		return;
	case FAIL_BAD:
		discard(c, d, RTE_REASM_DROP_BAD_HEADER);
		reasm_drop(c, m, RTE_REASM_DROP_BAD_HEADER);
		return;
	}
	/* Whatever the order the fragments came in, checked with this one held: before the
	 * datagram can complete, and once the first fragment's header is known. */
	if (dgram_too_big(&c->dgrams[d])) {
		discard(c, d, RTE_REASM_DROP_TOO_BIG);
		return;
	}
	if (c->dgrams[d].have_last && c->dgrams[d].covered == c->dgrams[d].total)
		complete(c, d);
}

int reasm_table_init(struct rte_reasm_ctx *c)
{
	uint32_t nd = c->conf.max_dgrams, nf = c->conf.max_frags;
	uint32_t nb = rte_align32pow2(RTE_MAX(nd, 16u));
	int s = c->conf.socket_id;

	c->dgrams = (struct reasm_dgram *)rte_zmalloc_socket("reasm_dgrams",
							     nd * sizeof(*c->dgrams), 0, s);
	c->buckets = (int32_t *)rte_malloc_socket("reasm_buckets", nb * sizeof(int32_t), 0, s);
	struct reasm_piece *pieces = (struct reasm_piece *)rte_malloc_socket(
		"reasm_pieces", (size_t)nd * nf * sizeof(*pieces), 0, s);
	struct rte_mbuf **frags = (struct rte_mbuf **)rte_malloc_socket(
		"reasm_frags", (size_t)nd * nf * sizeof(*frags), 0, s);

	if (!c->dgrams || !c->buckets || !pieces || !frags) {
		rte_free(pieces);
		rte_free(frags);
		rte_free(c->dgrams);
		rte_free(c->buckets);
		c->dgrams = NULL;
		c->buckets = NULL;
		return -ENOMEM;
	}
	c->bucket_mask = nb - 1;
	for (uint32_t i = 0; i < nb; i++)
		c->buckets[i] = -1;
	c->free_dgram = -1;
	for (uint32_t i = nd; i-- > 0;) {
		c->dgrams[i].pieces = pieces + (size_t)i * nf;
		c->dgrams[i].frags = frags + (size_t)i * nf;
		c->dgrams[i].state = DGRAM_FREE;
		c->dgrams[i].newer = c->free_dgram;
		c->free_dgram = (int32_t)i;
	}
	c->oldest = c->newest = -1;
	c->dgrams_used = 0;
	return 0;
}

void reasm_table_fini(struct rte_reasm_ctx *c)
{
	if (!c->dgrams)
		return;
	rte_free(c->dgrams[0].pieces);
	rte_free(c->dgrams[0].frags);
	rte_free(c->dgrams);
	rte_free(c->buckets);
	c->dgrams = NULL;
}
