/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The context: configuration, the results ring, gathers on the engine and their
 * completion, output mbufs. Every packet accepted yields at most one result, so a packet
 * is accepted only when a result slot and an op slot are free: completions never wait.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_random.h>

#include "reasm_log.h"
#include "reasm_priv.h"

RTE_LOG_REGISTER_DEFAULT(reasm_logtype, INFO);

uint32_t reasm_results_count(const struct rte_reasm_ctx *c)
{
	return c->res_head - c->res_tail;
}

static uint32_t ops_inflight(const struct rte_reasm_ctx *c)
{
	return c->conf.max_inflight - c->nb_free_ops;
}

bool reasm_has_room(const struct rte_reasm_ctx *c)
{
	return c->nb_free_ops > 0 && c->pend_head - c->pend_tail < REASM_PENDING_SLOTS &&
	       reasm_results_count(c) + ops_inflight(c) + 1 <= c->res_mask + 1;
}

void reasm_result_push(struct rte_reasm_ctx *c, struct rte_mbuf *m)
{
	c->results[c->res_head++ & c->res_mask] = m;
}

void reasm_drop(struct rte_reasm_ctx *c, struct rte_mbuf *m, enum rte_reasm_drop why)
{
	c->st.drop_frags[why]++;
	rte_pktmbuf_free(m);
}

struct rte_mbuf *reasm_out_alloc(struct rte_reasm_ctx *c, uint32_t len, enum rte_reasm_drop *why)
{
	struct rte_mbuf *segs[RTE_REASM_MAX_SGES];
	uint32_t nsegs = (len + c->seg_room - 1) / c->seg_room;

	if (len == 0 || nsegs > RTE_REASM_MAX_SGES || nsegs > UINT16_MAX) {
		*why = RTE_REASM_DROP_TOO_BIG;
		return NULL;
	}
	if (rte_pktmbuf_alloc_bulk(c->conf.pool, segs, nsegs) != 0) {
		*why = RTE_REASM_DROP_NO_BUFFER;
		return NULL;
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		segs[i]->data_len = (uint16_t)RTE_MIN(c->seg_room, len - i * c->seg_room);
		segs[i]->next = i + 1 < nsegs ? segs[i + 1] : NULL;
	}
	segs[0]->pkt_len = len;
	segs[0]->nb_segs = (uint16_t)nsegs;
	return segs[0];
}

bool reasm_sge_add(struct rte_reasm_dev_sge *l, uint16_t *n, const struct rte_mbuf *m, uint32_t off,
		   uint32_t len)
{
	for (; m && len; m = m->next) {
		uint32_t take;
		uint8_t *va;
		rte_iova_t iova;

		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		take = RTE_MIN(len, (uint32_t)m->data_len - off);
		va = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
		iova = rte_mbuf_data_iova(m) + off;
		if (*n && (uint8_t *)l[*n - 1].va + l[*n - 1].len == va &&
		    l[*n - 1].iova + l[*n - 1].len == iova) {
			l[*n - 1].len += take; /* contiguous with the previous piece */
		} else {
			if (*n == RTE_REASM_MAX_SGES)
				return false;
			l[(*n)++] = {va, iova, take};
		}
		len -= take;
		off = 0;
	}
	return len == 0;
}

void reasm_copy_meta(struct rte_mbuf *to, const struct rte_mbuf *from)
{
	to->port = from->port;
	to->packet_type = from->packet_type;
	to->vlan_tci = from->vlan_tci;
	to->vlan_tci_outer = from->vlan_tci_outer;
	to->tx_offload = from->tx_offload;
	to->hash = from->hash;
	to->ol_flags = from->ol_flags &
		       (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_RSS_HASH |
			RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED);
}

static void op_finish(struct rte_reasm_ctx *c, uint32_t idx, bool ok)
{
	struct reasm_op *op = &c->ops[idx];

	if (ok) {
		reasm_result_push(c, op->out);
		(*op->done_counter)++;
	} else {
		rte_pktmbuf_free(op->out);
		c->st.drop_dgrams[op->fail_reason] += op->kind == OP_DGRAM;
		c->st.drop_frags[op->fail_reason] += op->kind == OP_DGRAM
							     ? c->dgrams[op->dgram].nfrags
							     : 1;
	}
	if (op->kind == OP_DGRAM)
		reasm_dgram_release(c, op->dgram);
	else
		rte_pktmbuf_free(op->in);
	c->free_ops[c->nb_free_ops++] = idx;
}

/* One engine op of gather @p idx ended; the gather ends with its last op. */
static void op_part_done(struct rte_reasm_ctx *c, uint32_t idx, bool ok)
{
	struct reasm_op *op = &c->ops[idx];

	op->part_failed |= !ok;
	if (--op->parts_left == 0)
		op_finish(c, idx, !op->part_failed);
}

/* Completions of the engine; how many of our ops ended. */
static uint32_t poll_engine(struct rte_reasm_ctx *c)
{
	uint32_t total = 0;
	uint16_t n;

	do {
		n = c->engine->poll(c->poll_cookies, c->poll_ok, RTE_DIM(c->poll_cookies));
		c->parts_inflight -= n;
		total += n;
		for (uint16_t i = 0; i < n; i++)
			op_part_done(c, c->poll_cookies[i], c->poll_ok[i]);
	} while (n == RTE_DIM(c->poll_cookies));
	return total;
}

/* Account for one engine op of gather @p idx the engine took. */
static void part_queued(struct rte_reasm_ctx *c, uint32_t idx)
{
	c->ops[idx].parts_left++;
	c->parts_inflight++;
	c->st.gather_ops++;
}

/*
 * Queue one engine op of gather @p idx: through a list mkey when the engine has them,
 * else a plain gather. REASM_GATHER_QUEUED, REASM_GATHER_DONE, or a negative errno.
 */
static int part_queue(struct rte_reasm_ctx *c, const struct rte_reasm_dev_gather *g, uint32_t idx)
{
	int rc = c->engine->gather_umr_mkey(g, idx);

	if (rc == REASM_GATHER_QUEUED)
		c->st.umr_gathers++;
	else if (rc == -ENOTSUP || rc == -EBUSY) /* no UMR path for it, or no mkey free now */
		rc = c->engine->gather(g, idx);
	if (rc == REASM_GATHER_QUEUED)
		part_queued(c, idx);
	return rc;
}

/* Full now, but completions will free room: something of ours is on the engine. */
static bool will_have_room(const struct rte_reasm_ctx *c, int rc)
{
	return rc == -ENOSPC && c->parts_inflight > 0;
}

/*
 * The next part of @p g from @p cur into c->part_src/part_dst: as many bytes as fit in
 * @p max pieces on each side (a piece cut where the other side's piece ends).
 */
static struct rte_reasm_dev_gather gather_part(struct rte_reasm_ctx *c,
					       const struct rte_reasm_dev_gather *g,
					       struct gather_cursor *cur, uint32_t max)
{
	struct rte_reasm_dev_sge *ps = c->part_src, *pd = c->part_dst;
	uint16_t ns = 0, nd = 0;
	int32_t last_si = -1, last_di = -1;

	while (cur->si < g->nb_src && cur->di < g->nb_dst) {
		const struct rte_reasm_dev_sge *s = &g->src[cur->si], *d = &g->dst[cur->di];
		uint32_t len = RTE_MIN(s->len - cur->soff, d->len - cur->doff);
		bool new_s = last_si != cur->si, new_d = last_di != cur->di;

		if ((new_s && ns == max) || (new_d && nd == max))
			break;
		if (new_s)
			ps[ns++] = {(uint8_t *)s->va + cur->soff, s->iova + cur->soff, 0};
		if (new_d)
			pd[nd++] = {(uint8_t *)d->va + cur->doff, d->iova + cur->doff, 0};
		ps[ns - 1].len += len;
		pd[nd - 1].len += len;
		last_si = cur->si;
		last_di = cur->di;
		cur->soff += len;
		cur->doff += len;
		if (cur->soff == s->len) {
			cur->si++;
			cur->soff = 0;
		}
		if (cur->doff == d->len) {
			cur->di++;
			cur->doff = 0;
		}
	}
	return {ps, pd, ns, nd};
}

/*
 * A gather with more pieces than the engine takes in one op: parts of at most max_sges
 * pieces per side, each its own op, from @p cur on. False when the ring filled up
 * (@p cur at the first part not queued: the caller retries later). A part the engine
 * cannot take at all, and every part after it, is copied by the CPU (the parts already
 * queued write other bytes of the output).
 */
static bool gather_parts(struct rte_reasm_ctx *c, const struct rte_reasm_dev_gather *g,
			 uint32_t idx, struct gather_cursor *cur)
{
	uint32_t max = c->engine->max_sges();
	bool cpu = max == 0;

	while (cur->si < g->nb_src && cur->di < g->nb_dst) {
		struct gather_cursor at = *cur;
		struct rte_reasm_dev_gather part = gather_part(c, g, cur,
							       cpu ? RTE_REASM_MAX_SGES : max);
		int rc = cpu ? -EAGAIN : part_queue(c, &part, idx);

		if (rc == REASM_GATHER_QUEUED || rc == REASM_GATHER_DONE)
			continue;
		if (will_have_room(c, rc)) {
			*cur = at;
			return false;
		}
		if (!cpu)
			c->st.cpu_fallbacks++;
		cpu = true;
		reasm_cpu_gather(&part);
	}
	return true;
}

/*
 * A split described by its records only: through interleaved mkeys when the engine
 * can, else its pieces are listed into @p g now (on the engine's refusal, not before:
 * the list costs the core as much as a CPU copy). REASM_GATHER_QUEUED or _DONE, -ENOSPC
 * (wait for room), or -ENOTSUP (@p g has the pieces now).
 */
static int strided_try(struct rte_reasm_ctx *c, struct rte_reasm_dev_gather *g, uint32_t idx,
		       struct gather_progress *p)
{
	int rc = c->engine->gather_strided(&p->strided, idx);

	if (rc == REASM_GATHER_QUEUED) {
		c->st.interleaved_splits++;
		part_queued(c, idx);
		return rc;
	}
	if (will_have_room(c, rc))
		return rc;
	if (rc == -ENOSPC || !reasm_split_pieces(c->ops[idx].in, &p->strided,
						 (struct rte_reasm_dev_sge *)g->src, &g->nb_src)) {
		/* never fits the ring, or over RTE_REASM_MAX_SGES pieces */
		reasm_split_cpu(&p->strided);
		c->st.cpu_fallbacks++;
		return REASM_GATHER_DONE;
	}
	p->strided.nrec = 0; /* listed (g->nb_src): from now on an ordinary gather */
	return -ENOTSUP;
}

/*
 * Move gather @p idx (pieces @p g, progress @p p) onto the engine. False when the
 * engine is full for now: nothing of it queued beyond what @p p records (and a split
 * may have listed its pieces into @p g meanwhile).
 */
static bool gather_advance(struct rte_reasm_ctx *c, struct rte_reasm_dev_gather *g, uint32_t idx,
			   struct gather_progress *p)
{
	uint32_t max = c->engine->max_sges();
	int rc = -ENOTSUP;

	if (!p->in_parts) {
		if (p->strided.nrec) {
			rc = strided_try(c, g, idx, p);
			if (rc == REASM_GATHER_QUEUED || rc == REASM_GATHER_DONE)
				return true;
			if (rc == -ENOSPC)
				return false;
		}
		if (g->nb_src <= max && g->nb_dst <= max)
			rc = part_queue(c, g, idx);
		if (rc == REASM_GATHER_QUEUED || rc == REASM_GATHER_DONE)
			return true;
		if (will_have_room(c, rc))
			return false;
		if (rc == -ENOSPC) { /* larger than the whole ring: never fits */
			reasm_cpu_gather(g);
			c->st.cpu_fallbacks++;
			return true;
		}
		/* too many pieces for one op: in parts */
		p->in_parts = true;
		p->cur = {};
		c->st.split_gathers++;
	}
	return gather_parts(c, g, idx, &p->cur);
}

uint32_t reasm_pending_count(const struct rte_reasm_ctx *c)
{
	return c->pend_head - c->pend_tail;
}

/* Retry the pending gathers in order; true when none is left. */
static bool pending_flush(struct rte_reasm_ctx *c)
{
	while (reasm_pending_count(c)) {
		struct reasm_pending *p = &c->pending[c->pend_tail % REASM_PENDING_SLOTS];
		struct rte_reasm_dev_gather g = {p->src, p->dst, p->nb_src, p->nb_dst};

		bool queued = gather_advance(c, &g, p->op, &p->prog);

		p->nb_src = g.nb_src; /* a split's pieces may have been listed meanwhile */
		if (!queued)
			return false;
		c->pend_tail++;
		op_part_done(c, p->op, true); /* its hold: queued in full now */
	}
	return true;
}

void reasm_gather_start(struct rte_reasm_ctx *c, uint16_t nb_src, struct rte_mbuf *out,
			uint32_t out_off, const struct reasm_op *op,
			const struct rte_reasm_dev_strided *strided)
{
	uint32_t idx = c->free_ops[--c->nb_free_ops];
	struct gather_progress now = {};
	struct reasm_pending *p;
	struct rte_reasm_dev_gather g;
	uint16_t nb_dst = 0;

	c->ops[idx] = *op;
	c->ops[idx].out = out;
	c->ops[idx].fail_reason = RTE_REASM_DROP_ENGINE_ERROR;
	/* Held open while its parts are queued: a part completing meanwhile cannot end it. */
	c->ops[idx].parts_left = 1;
	c->ops[idx].part_failed = false;
	/* the output chain has at most RTE_REASM_MAX_SGES segments (reasm_out_alloc) */
	reasm_sge_add(c->dst, &nb_dst, out, out_off, out->pkt_len - out_off);
	g = {c->src, c->dst, nb_src, nb_dst};
	c->st.gathers++;
	if (nb_src == 0 && !strided) { /* nothing to move: the headers were all of it */
		op_part_done(c, idx, true);
		return;
	}
	if (strided)
		now.strided = *strided;
	/* behind the pending ones (they keep their order; progress() retries them), else
	 * straight to the engine */
	if (reasm_pending_count(c) || !gather_advance(c, &g, idx, &now)) {
		/* reasm_has_room() kept a slot free for this one */
		p = &c->pending[c->pend_head++ % REASM_PENDING_SLOTS];
		p->op = idx;
		p->prog = now;
		p->nb_src = g.nb_src; /* a split's pieces may have been listed meanwhile */
		p->nb_dst = nb_dst;
		memcpy(p->src, c->src, g.nb_src * sizeof(c->src[0]));
		memcpy(p->dst, c->dst, nb_dst * sizeof(c->dst[0]));
		c->st.deferred++;
		return;
	}
	op_part_done(c, idx, true);
}

/* Completions, then the pending gathers they made room for. */
void reasm_progress(struct rte_reasm_ctx *c)
{
	/* A pending gather was refused for want of room while ops of ours were in flight:
	 * only their completions make room, so retrying before any would only cost the
	 * application core the device's argument checks again. */
	if (poll_engine(c) && reasm_pending_count(c)) {
		pending_flush(c);
		c->engine->submit();
	}
}

/* ---- the API ---- */

static int conf_check(const struct rte_reasm_conf *conf)
{
	if (!conf) {
		REASM_LOG(ERR, "conf is NULL");
		return -EINVAL;
	}
	if (!conf->engine || !conf->pool) {
		REASM_LOG(ERR, "conf %s: engine %p and pool %p are required",
			  conf->name ? conf->name : "(null)", (void *)conf->engine,
			  (void *)conf->pool);
		return -EINVAL;
	}
	if (!conf->name || !conf->name[0] || strlen(conf->name) >= 64) {
		REASM_LOG(ERR, "conf name \"%s\": 1..63 characters expected",
			  conf->name ? conf->name : "(null)");
		return -EINVAL;
	}
	if (conf->max_frags > 8192 || conf->max_dgrams > (1u << 24) || conf->max_inflight > 65536) {
		REASM_LOG(ERR,
			  "conf %s: max_frags %u (<= 8192), max_dgrams %u (<= 2^24), "
			  "max_inflight %u (<= 65536) out of range",
			  conf->name, conf->max_frags, conf->max_dgrams, conf->max_inflight);
		return -EINVAL;
	}
	if (conf->flags & ~(RTE_REASM_F_IPV4_OVERLAP_TRIM | RTE_REASM_F_SPLIT_KEEP_HEADERS)) {
		REASM_LOG(ERR, "conf %s: unknown flags 0x%x", conf->name, conf->flags);
		return -EINVAL;
	}
	if (rte_pktmbuf_data_room_size(conf->pool) <= RTE_PKTMBUF_HEADROOM) {
		REASM_LOG(ERR, "conf %s: pool %s has no data room", conf->name, conf->pool->name);
		return -EINVAL;
	}
	return 0;
}

/* Everything rte_reasm_create() allocates, whatever part of it it got: the one release
 * path of create's failures and of rte_reasm_free(). */
static void ctx_memory_free(struct rte_reasm_ctx *c)
{
	reasm_table_fini(c);
	rte_free(c->results);
	rte_free(c->ops);
	rte_free(c->free_ops);
	rte_free(c->pending);
	rte_free(c);
}

struct rte_reasm_ctx *rte_reasm_create(const struct rte_reasm_conf *conf)
{
	struct rte_reasm_ctx *c;
	uint32_t res_size;
	int rc = conf_check(conf);

	if (rc) {
		rte_errno = -rc;
		return NULL;
	}
	c = (struct rte_reasm_ctx *)rte_zmalloc_socket("reasm_ctx", sizeof(*c), RTE_CACHE_LINE_SIZE,
						       conf->socket_id);
	if (!c) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->conf = *conf;
	snprintf(c->name, sizeof(c->name), "%s", conf->name);
	c->conf.name = c->name;
	c->engine = conf->engine;
	if (!c->conf.max_frags)
		c->conf.max_frags = RTE_REASM_DEFAULT_MAX_FRAGS;
	if (!c->conf.max_dgrams)
		c->conf.max_dgrams = RTE_REASM_DEFAULT_MAX_DGRAMS;
	if (!c->conf.max_bytes)
		c->conf.max_bytes = RTE_REASM_DEFAULT_MAX_BYTES;
	if (!c->conf.max_mbufs)
		c->conf.max_mbufs = RTE_REASM_DEFAULT_MAX_MBUFS;
	if (!c->conf.timeout_ms)
		c->conf.timeout_ms = RTE_REASM_DEFAULT_TIMEOUT_MS;
	if (!c->conf.max_inflight)
		c->conf.max_inflight = RTE_REASM_DEFAULT_MAX_INFLIGHT;
	while (!c->conf.hash_seed)
		c->conf.hash_seed = (uint32_t)rte_rand();
	c->seg_room = rte_pktmbuf_data_room_size(conf->pool) - RTE_PKTMBUF_HEADROOM;
	c->timeout_cycles = (uint64_t)c->conf.timeout_ms * rte_get_tsc_hz() / 1000;
	res_size = rte_align32pow2(c->conf.max_inflight + 64);
	c->res_mask = res_size - 1;
	c->results = (struct rte_mbuf **)rte_zmalloc_socket(
		"reasm_res", res_size * sizeof(*c->results), 0, conf->socket_id);
	c->ops = (struct reasm_op *)rte_zmalloc_socket(
		"reasm_ops", c->conf.max_inflight * sizeof(*c->ops), 0, conf->socket_id);
	c->free_ops = (uint32_t *)rte_zmalloc_socket(
		"reasm_ops", c->conf.max_inflight * sizeof(*c->free_ops), 0, conf->socket_id);
	c->pending = (struct reasm_pending *)rte_zmalloc_socket(
		"reasm_pending", REASM_PENDING_SLOTS * sizeof(*c->pending), 0, conf->socket_id);
	if (!c->results || !c->ops || !c->free_ops || !c->pending || reasm_table_init(c) != 0) {
		ctx_memory_free(c);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < c->conf.max_inflight; i++)
		c->free_ops[c->nb_free_ops++] = c->conf.max_inflight - 1 - i;
	rc = reasm_registry_add(c);
	if (rc) { /* EEXIST: every allocation above goes back */
		ctx_memory_free(c);
		rte_errno = -rc;
		return NULL;
	}
	return c;
}

void rte_reasm_free(struct rte_reasm_ctx *c)
{
	uint64_t deadline;

	if (!c)
		return;
	reasm_registry_del(c);
	c->engine->submit();
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	while (ops_inflight(c) && rte_get_tsc_cycles() < deadline)
		reasm_progress(c);
	if (ops_inflight(c))
		REASM_LOG(ERR,
			  "context %s: %u gathers still on the engine after 1 s; their "
			  "mbufs are leaked rather than freed under the device",
			  c->name, ops_inflight(c));
	while (reasm_results_count(c))
		rte_pktmbuf_free(c->results[c->res_tail++ & c->res_mask]);
	rte_reasm_expire(c, UINT64_MAX);
	ctx_memory_free(c);
}

#define REASM_PREFETCH_AHEAD 4

static inline void reasm_prefetch_mbuf(const struct rte_mbuf *m)
{
	rte_prefetch0(m);
	rte_prefetch0((const char *)m + RTE_CACHE_LINE_MIN_SIZE); /* the mbuf's second line */
}

uint16_t rte_reasm_enqueue(struct rte_reasm_ctx *c, struct rte_mbuf **pkts, uint16_t n,
			   uint64_t now)
{
	uint16_t i;

	if (reasm_pending_count(c))
		reasm_progress(c);
	/* Fragments arrive cold: fetch the mbufs (both lines: l2_len is in the second)
	 * REASM_PREFETCH_AHEAD packets ahead, and their headers half as far. */
	for (i = 0; i < n && i < REASM_PREFETCH_AHEAD; i++)
		reasm_prefetch_mbuf(pkts[i]);
	if (n)
		rte_reasm_expire(c, now); /* once: the whole burst has the same time */
	for (i = 0; i < n && reasm_has_room(c); i++) {
		if (i + REASM_PREFETCH_AHEAD < n)
			reasm_prefetch_mbuf(pkts[i + REASM_PREFETCH_AHEAD]);
		if (i + REASM_PREFETCH_AHEAD / 2 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + REASM_PREFETCH_AHEAD / 2], void *));
		c->st.pkts_in++;
		reasm_ip_input(c, pkts[i], now);
	}
	c->engine->submit();
	return i;
}

uint16_t rte_reasm_dequeue(struct rte_reasm_ctx *c, struct rte_mbuf **out, uint16_t n)
{
	uint16_t i;

	reasm_progress(c);
	for (i = 0; i < n && reasm_results_count(c); i++)
		out[i] = c->results[c->res_tail++ & c->res_mask];
	return i;
}

uint32_t rte_reasm_pending(const struct rte_reasm_ctx *c)
{
	return (uint32_t)c->st.dgrams_in_table + ops_inflight(c) + reasm_results_count(c);
}

int rte_reasm_stats_get(const struct rte_reasm_ctx *c, struct rte_reasm_stats *stats)
{
	if (!c || !stats)
		return -EINVAL;
	*stats = c->st;
	return 0;
}

void rte_reasm_stats_reset(struct rte_reasm_ctx *c)
{
	uint64_t in_table = c->st.dgrams_in_table, held = c->st.bytes_held;
	uint64_t mbufs = c->st.mbufs_held;

	memset(&c->st, 0, sizeof(c->st));
	c->st.dgrams_in_table = in_table;
	c->st.bytes_held = held;
	c->st.mbufs_held = mbufs;
}

const char *rte_reasm_drop_name(enum rte_reasm_drop reason)
{
	static const char *const names[RTE_REASM_DROP_MAX] = {
		"timeout",    "overlap",   "too_many_frags", "too_big",      "table_full",
		"bad_header", "no_buffer", "mem_limit",      "engine_error", "evicted",
	};

	return (unsigned int)reason < RTE_REASM_DROP_MAX ? names[reason] : NULL;
}
