/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linearize and the header-data split: one packet in, one gather, one packet out, through
 * the same engine and results ring as reassembly.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "reasm_log.h"
#include "reasm_priv.h"

namespace {

/*
 * Gather c->src[0..nb_src) into a fresh packet of @p len bytes; @p in freed after.
 * @p strided: the same as records (its output filled in here), or NULL.
 */
void packet_gather(struct rte_reasm_ctx *c, struct rte_mbuf *in, uint16_t nb_src, uint32_t len,
		   bool one_segment, uint64_t *done, struct rte_reasm_dev_strided *strided = NULL)
{
	enum rte_reasm_drop why = RTE_REASM_DROP_TOO_BIG;
	struct reasm_op op = {};
	struct rte_mbuf *out = one_segment && len > c->seg_room ? NULL
								: reasm_out_alloc(c, len, &why);

	if (!out) {
		reasm_drop(c, in, why);
		return;
	}
	reasm_copy_meta(out, in);
	op.kind = OP_PACKET;
	op.in = in;
	op.done_counter = done;
	if (strided && out->nb_segs == 1) {
		strided->out = {rte_pktmbuf_mtod(out, void *), rte_mbuf_data_iova(out), len};
	} else if (strided) { /* an output chain: pieces only */
		if (!reasm_split_pieces(in, strided, c->src, &nb_src)) {
			rte_pktmbuf_free(out);
			reasm_drop(c, in, RTE_REASM_DROP_TOO_MANY_FRAGS);
			return;
		}
		strided = NULL;
	}
	reasm_gather_start(c, nb_src, out, 0, &op, strided);
}

void linearize_one(struct rte_reasm_ctx *c, struct rte_mbuf *m)
{
	uint16_t n = 0;

	if (rte_pktmbuf_is_contiguous(m)) {
		c->st.passthrough++;
		reasm_result_push(c, m);
		return;
	}
	if (!reasm_sge_add(c->src, &n, m, 0, m->pkt_len)) {
		reasm_drop(c, m, RTE_REASM_DROP_TOO_MANY_FRAGS);
		return;
	}
	packet_gather(c, m, n, m->pkt_len, true, &c->st.linearized);
}

void split_one(struct rte_reasm_ctx *c, struct rte_mbuf *m, const struct rte_reasm_split *l)
{
	bool keep = l->reverse || (c->conf.flags & RTE_REASM_F_SPLIT_KEEP_HEADERS);
	uint32_t stride = l->hdr_len + l->pay_len, nrec, len;
	struct rte_reasm_dev_strided st = {};
	uint16_t n = 0;
	bool records;

	if (m->pkt_len < l->offset || (m->pkt_len - l->offset) % stride) {
		reasm_drop(c, m, RTE_REASM_DROP_BAD_HEADER);
		return;
	}
	nrec = (m->pkt_len - l->offset) / stride;
	len = l->offset + nrec * l->pay_len + (keep ? nrec * l->hdr_len : 0);
	if (len == 0) { /* nothing to gather into: an empty packet stays as it is */
		c->st.passthrough++;
		reasm_result_push(c, m);
		return;
	}
	st.offset = l->offset;
	st.hdr_len = l->hdr_len;
	st.pay_len = l->pay_len;
	st.nrec = nrec;
	st.keep_headers = keep;
	st.reverse = l->reverse;
	/* one segment of records: the engine may take them as such (interleaved mkeys), and
	 * the pieces are listed only if it does not */
	records = rte_pktmbuf_is_contiguous(m) && l->hdr_len && nrec;
	if (records) {
		st.in = {rte_pktmbuf_mtod(m, void *), rte_mbuf_data_iova(m), m->pkt_len};
	} else if (!reasm_split_pieces(m, &st, c->src, &n)) {
		reasm_drop(c, m, RTE_REASM_DROP_TOO_MANY_FRAGS);
		return;
	}
	packet_gather(c, m, n, len, false, &c->st.split, records ? &st : NULL);
}

} // namespace

bool reasm_split_pieces(const struct rte_mbuf *m, const struct rte_reasm_dev_strided *s,
			struct rte_reasm_dev_sge *src, uint16_t *n)
{
	uint32_t stride = s->hdr_len + s->pay_len, nrec = s->nrec;
	bool ok;

	*n = 0;
	ok = reasm_sge_add(src, n, m, 0, s->offset);
	if (!s->reverse) {
		for (uint32_t i = 0; ok && i < nrec; i++)
			ok = reasm_sge_add(src, n, m, s->offset + i * stride + s->hdr_len,
					   s->pay_len);
		for (uint32_t i = 0; ok && s->keep_headers && s->hdr_len && i < nrec; i++)
			ok = reasm_sge_add(src, n, m, s->offset + i * stride, s->hdr_len);
	} else {
		uint32_t hdrs = s->offset + nrec * s->pay_len;

		for (uint32_t i = 0; ok && i < nrec; i++)
			ok = reasm_sge_add(src, n, m, hdrs + i * s->hdr_len, s->hdr_len) &&
			     reasm_sge_add(src, n, m, s->offset + i * s->pay_len, s->pay_len);
	}
	return ok;
}

void reasm_split_cpu(const struct rte_reasm_dev_strided *s)
{
	const uint8_t *in = (const uint8_t *)s->in.va + s->offset;
	uint8_t *out = (uint8_t *)s->out.va + s->offset;
	uint32_t h = s->hdr_len, p = s->pay_len, st = h + p, n = s->nrec;

	memcpy(s->out.va, s->in.va, s->offset);
	for (uint32_t r = 0; r < n; r++) {
		if (!s->reverse) {
			memcpy(out + r * p, in + r * st + h, p);
			if (s->keep_headers)
				memcpy(out + n * p + r * h, in + r * st, h);
		} else {
			memcpy(out + r * st, in + n * p + r * h, h);
			memcpy(out + r * st + h, in + r * p, p);
		}
	}
}

uint16_t rte_reasm_linearize_enqueue(struct rte_reasm_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	if (reasm_pending_count(c))
		reasm_progress(c);
	for (i = 0; i < n && reasm_has_room(c); i++) {
		c->st.pkts_in++;
		linearize_one(c, pkts[i]);
	}
	c->engine->submit();
	return i;
}

uint16_t rte_reasm_split_enqueue(struct rte_reasm_ctx *c, struct rte_mbuf **pkts, uint16_t n,
				 const struct rte_reasm_split *layout)
{
	uint16_t i;

	if (!layout || layout->pay_len == 0 || layout->reverse > 1 ||
	    (uint64_t)layout->hdr_len + layout->pay_len > UINT16_MAX) {
		/* a bad layout is a programming error: refuse the whole burst, take nothing */
		REASM_LOG(ERR, "split layout: pay_len %u (> 0), hdr_len %u, reverse %u invalid",
			  layout ? layout->pay_len : 0, layout ? layout->hdr_len : 0,
			  layout ? layout->reverse : 0);
		rte_errno = EINVAL;
		return 0;
	}
	if (reasm_pending_count(c))
		reasm_progress(c);
	for (i = 0; i < n && reasm_has_room(c); i++) {
		c->st.pkts_in++;
		split_one(c, pkts[i], layout);
	}
	c->engine->submit();
	return i;
}
