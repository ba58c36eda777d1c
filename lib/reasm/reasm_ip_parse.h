/* SPDX-License-Identifier: BSD-3-Clause */
/* What reassembly needs to know of one packet's IPv4/IPv6 headers. */
#ifndef REASM_IP_PARSE_H
#define REASM_IP_PARSE_H

#include <stdint.h>

#include <rte_mbuf.h>

/** A datagram's identity: (src, dst, id, protocol) for IPv4, (src, dst, id) for IPv6. */
struct reasm_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t id;
	uint8_t proto; /* IPv4 only; 0 for IPv6 */
	uint8_t v6;
	uint16_t zero; /* hashed: always 0 */
};

struct reasm_frag {
	struct reasm_key key;
	uint32_t start;       /* payload offset of this fragment */
	uint32_t end;         /* start + payload length */
	uint32_t l2_len;      /* bytes before the IP header */
	uint32_t unfrag_len;  /* IPv4 header with options / IPv6 header + headers before frag */
	uint32_t payload_off; /* packet offset of the fragment's payload */
	uint32_t nh_off;      /* IPv6: packet offset of the Next Header byte naming the frag hdr */
	uint8_t nh_val;       /* IPv6: the fragment header's Next Header */
	uint8_t more;         /* M / MF */
};

/** reasm_parse() results besides -(enum rte_reasm_drop + 1). */
enum {
	REASM_NOT_FRAG = 0,
	REASM_FRAG = 1,
	REASM_ATOMIC = 2
};

/**
 * Parse @p m (l2_len and packet_type set). REASM_NOT_FRAG: not IP or not a fragment;
 * REASM_FRAG / REASM_ATOMIC: @p f filled; -(RTE_REASM_DROP_BAD_HEADER + 1): to be
 * dropped as malformed. Lengths over 65535 are the table's to find (with the first
 * fragment's header).
 */
int reasm_parse(const struct rte_mbuf *m, struct reasm_frag *f);

#endif /* REASM_IP_PARSE_H */
