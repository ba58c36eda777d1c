/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linearize and the header-data split: one packet in, one gather, one packet out, through
 * the same engine and results ring as reassembly.
 */
#include <errno.h>

#include <rte_errno.h>

#include "reasm_log.h"
#include "reasm_priv.h"

namespace {

/*
 * Gather c->src[0..nb_src) into a fresh packet of @p len bytes; @p in freed after.
 * @p strided: the same as records (its output filled in here), or NULL.
 */
void packet_gather(struct rte_reasm_ctx *c, struct rte_mbuf *in, uint16_t nb_src, uint32_t len,
		   bool one_segment, uint64_t *done, struct reasm_strided *strided = NULL)
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
	if (strided && out->nb_segs == 1)
		strided->out = {rte_pktmbuf_mtod(out, void *), rte_mbuf_data_iova(out), len};
	else
		strided = NULL; /* records over several segments: pieces only */
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
	uint16_t n = 0;
	bool ok;

	if (m->pkt_len < l->offset || (m->pkt_len - l->offset) % stride) {
		reasm_drop(c, m, RTE_REASM_DROP_BAD_HEADER);
		return;
	}
	nrec = (m->pkt_len - l->offset) / stride;
	len = l->offset + nrec * l->pay_len + (keep ? nrec * l->hdr_len : 0);
	ok = reasm_sge_add(c->src, &n, m, 0, l->offset);
	if (!l->reverse) {
		for (uint32_t i = 0; ok && i < nrec; i++)
			ok = reasm_sge_add(c->src, &n, m, l->offset + i * stride + l->hdr_len,
					   l->pay_len);
		for (uint32_t i = 0; ok && keep && l->hdr_len && i < nrec; i++)
			ok = reasm_sge_add(c->src, &n, m, l->offset + i * stride, l->hdr_len);
	} else {
		uint32_t hdrs = l->offset + nrec * l->pay_len;

		for (uint32_t i = 0; ok && i < nrec; i++)
			ok = reasm_sge_add(c->src, &n, m, hdrs + i * l->hdr_len, l->hdr_len) &&
			     reasm_sge_add(c->src, &n, m, l->offset + i * l->pay_len, l->pay_len);
	}
	if (!ok) {
		reasm_drop(c, m, RTE_REASM_DROP_TOO_MANY_FRAGS);
		return;
	}
	if (len == 0) { /* nothing to gather into: an empty packet stays as it is */
		c->st.passthrough++;
		reasm_result_push(c, m);
		return;
	}
	if (rte_pktmbuf_is_contiguous(m) && l->hdr_len && nrec) {
		struct reasm_strided st = {};

		st.in = {rte_pktmbuf_mtod(m, void *), rte_mbuf_data_iova(m), m->pkt_len};
		st.offset = l->offset;
		st.hdr_len = l->hdr_len;
		st.pay_len = l->pay_len;
		st.nrec = nrec;
		st.keep_headers = keep;
		st.reverse = l->reverse;
		packet_gather(c, m, n, len, false, &c->st.split, &st);
		return;
	}
	packet_gather(c, m, n, len, false, &c->st.split);
}

} // namespace

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
