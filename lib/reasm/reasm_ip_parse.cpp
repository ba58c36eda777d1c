/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4/IPv6 fragment parsing by RFC 791 and RFC 8200 §4.5: lengths checked against the
 * packet, the IPv6 fragment header found behind any chain of Hop-by-Hop, Routing and
 * Destination Options headers, non-last fragments a multiple of 8. The 65535 limit of the
 * reassembled datagram is the table's to check (reasm_table.cpp: dgram_too_big()): it
 * depends on the first fragment's header, which a later fragment does not carry.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "reasm_ip_parse.h"
#include "rte_reasm.h"

namespace {

constexpr int bad = -(RTE_REASM_DROP_BAD_HEADER + 1);
constexpr uint8_t ip6_hopopts = 0, ip6_routing = 43, ip6_frag = 44, ip6_dstopts = 60;
constexpr int max_ext_headers = 16; /* a longer chain is treated as hostile */

/*
 * RFC 1071 check of an IPv4 header of @p ihl bytes (a multiple of 4): its one's-complement
 * sum is all ones. Summed by 32-bit words, folded at the end: the sum does not depend on
 * the order the words are added in, and 0xffff reads the same in either byte order.
 */
bool v4_header_sum_ok(const uint8_t *h, uint32_t ihl)
{
	uint64_t sum = 0;
	uint32_t w;

	for (uint32_t i = 0; i < ihl; i += 4) {
		memcpy(&w, h + i, 4);
		sum += w;
	}
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

int parse_v4(const struct rte_mbuf *m, struct reasm_frag *f)
{
	uint8_t buf[60];
	const uint8_t *h = (const uint8_t *)rte_pktmbuf_read(m, m->l2_len, 20, buf);
	uint32_t ihl, tot, len, off;
	uint16_t fo;

	if (!h || (h[0] >> 4) != 4)
		return bad;
	ihl = (h[0] & 0xf) * 4u;
	if (ihl < 20)
		return bad;
	h = (const uint8_t *)rte_pktmbuf_read(m, m->l2_len, ihl, buf);
	if (!h)
		return bad;
	fo = (uint16_t)(h[6] << 8 | h[7]);
	if (!(fo & RTE_IPV4_HDR_MF_FLAG) && !(fo & RTE_IPV4_HDR_OFFSET_MASK))
		return REASM_NOT_FRAG;
	tot = (uint32_t)(h[2] << 8 | h[3]);
	/* Frames may carry padding after the datagram (Ethernet minimum size). */
	if (tot < ihl || m->l2_len + tot > m->pkt_len)
		return bad;
	if (!v4_header_sum_ok(h, ihl))
		return bad;
	len = tot - ihl;
	off = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8u;
	f->more = !!(fo & RTE_IPV4_HDR_MF_FLAG);
	if (len == 0 || (f->more && len % 8))
		return bad;
	memset(&f->key, 0, sizeof(f->key));
	memcpy(f->key.src, h + 12, 4);
	memcpy(f->key.dst, h + 16, 4);
	f->key.id = (uint32_t)(h[4] << 8 | h[5]);
	f->key.proto = h[9];
	f->start = off;
	f->end = off + len;
	f->l2_len = m->l2_len;
	f->unfrag_len = ihl;
	f->payload_off = m->l2_len + ihl;
	f->nh_off = 0;
	f->nh_val = 0;
	return REASM_FRAG;
}

int parse_v6(const struct rte_mbuf *m, struct reasm_frag *f)
{
	uint8_t buf[40];
	const uint8_t *h = (const uint8_t *)rte_pktmbuf_read(m, m->l2_len, 40, buf);
	uint32_t plen, end, off = 40, nh_off, len, fo;
	uint8_t nh, fh_buf[8];
	const uint8_t *fh;

	if (!h || (h[0] >> 4) != 6)
		return bad;
	plen = (uint32_t)(h[4] << 8 | h[5]);
	if (plen == 0) /* a jumbogram (RFC 2675) is never fragmented */
		return REASM_NOT_FRAG;
	if (m->l2_len + 40u + plen > m->pkt_len)
		return bad;
	end = 40 + plen;
	nh = h[6];
	nh_off = m->l2_len + 6u;
	memset(&f->key, 0, sizeof(f->key));
	memcpy(f->key.src, h + 8, 16);
	memcpy(f->key.dst, h + 24, 16);
	f->key.v6 = 1;
	for (int i = 0; nh != ip6_frag; i++) {
		uint8_t eb[2];
		const uint8_t *e;

		if (nh != ip6_hopopts && nh != ip6_routing && nh != ip6_dstopts)
			return REASM_NOT_FRAG;
		if (i == max_ext_headers || off + 8 > end)
			return bad;
		e = (const uint8_t *)rte_pktmbuf_read(m, m->l2_len + off, 2, eb);
		if (!e)
			return bad;
		nh_off = m->l2_len + off;
		nh = e[0];
		off += (e[1] + 1u) * 8u;
	}
	if (off + 8 > end)
		return bad;
	fh = (const uint8_t *)rte_pktmbuf_read(m, m->l2_len + off, 8, fh_buf);
	if (!fh)
		return bad;
	fo = (uint32_t)(fh[2] << 8 | fh[3]);
	len = end - off - 8;
	f->more = fo & 1;
	f->start = fo & 0xfff8;
	f->end = f->start + len;
	f->key.id = (uint32_t)fh[4] << 24 | (uint32_t)fh[5] << 16 | (uint32_t)fh[6] << 8 | fh[7];
	f->l2_len = m->l2_len;
	f->unfrag_len = off;
	f->payload_off = m->l2_len + off + 8;
	f->nh_off = nh_off;
	f->nh_val = fh[0];
	if (f->start == 0 && !f->more)
		return REASM_ATOMIC;
	if (len == 0 || (f->more && len % 8))
		return bad;
	return REASM_FRAG;
}

} // namespace

int reasm_parse(const struct rte_mbuf *m, struct reasm_frag *f)
{
	if (RTE_ETH_IS_IPV4_HDR(m->packet_type))
		return parse_v4(m, f);
	if (RTE_ETH_IS_IPV6_HDR(m->packet_type))
		return parse_v6(m, f);
	return REASM_NOT_FRAG;
}
