/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our own traffic generator for the reassembly tests: Ethernet + IPv4/IPv6 datagrams with
 * UDP/TCP/ICMP payloads, their fragments (any count, IPv6 extension headers before the
 * fragment header), and the hostile variants (duplicates, overlaps, losses); pcap files.
 */
#ifndef TEST_REASM_PKT_GEN_H
#define TEST_REASM_PKT_GEN_H

#include <stdint.h>

#include <random>
#include <string>
#include <vector>

namespace pktgen {

using frame = std::vector<uint8_t>;

struct dgram_spec {
	bool v6 = false;
	uint8_t l4 = 17;         /* 17 UDP, 6 TCP, 1 ICMP (58 ICMPv6 on IPv6) */
	uint32_t ip_len = 1500;  /* IPv4 total length / IPv6 40 + payload length */
	uint32_t id = 1;         /* IPv4: 16 bits */
	uint8_t flow = 0;        /* varies the addresses */
	uint32_t ext_before = 0; /* IPv6: Hop-by-Hop / Destination Options before the frag hdr */
	bool routing = false;    /* IPv6: also a Routing header before the frag hdr */
	uint32_t ipv4_opts = 0;  /* IPv4 option bytes (multiple of 4, <= 40) */
};

/** The whole datagram as one Ethernet frame: what reassembly must deliver. */
frame make_datagram(const dgram_spec &s, std::mt19937 &rng);
/** Bytes before the fragmentable part (L2 + IPv4 header / IPv6 unfragmentable part). */
uint32_t unfrag_end(const frame &f);
/**
 * Fragments of @p whole: @p n pieces cut at random multiples of 8 (each > 0), each a frame
 * with the datagram's headers, offsets and M flag set (IPv6: fragment header inserted
 * after the unfragmentable part). @p n == 1 with IPv6 gives an atomic fragment.
 */
std::vector<frame> fragment(const frame &whole, uint32_t n, uint32_t id, std::mt19937 &rng);
/** A fragment of @p whole at payload [off, off + len) with flag @p more (any values). */
frame make_fragment(const frame &whole, uint32_t off, uint32_t len, bool more, uint32_t id);
/** A plain, unfragmented packet (UDP over IPv4 or IPv6, or ARP). */
frame make_plain(bool v6, uint32_t len, std::mt19937 &rng);

/** Payload offset and length of a fragment frame (for tests that mutate fragments). */
bool frag_range(const frame &f, uint32_t *off, uint32_t *len, bool *more);

bool pcap_write(const std::string &path, const std::vector<frame> &frames);
bool pcap_read(const std::string &path, std::vector<frame> *frames);

} // namespace pktgen

#endif /* TEST_REASM_PKT_GEN_H */
