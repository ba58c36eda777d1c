/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reasm-pcapgen: the pcaps of the mlx5-reasm tests.
 *   reasm-pcapgen gen SEED IN.pcap EXPECTED.pcap   fragmented traffic (interleaved, shuffled,
 *       duplicated, overlapping, lost, atomic, IPv6 extension headers, plain packets) and
 *       what reassembly must deliver; prints the counters the tool must report
 *   reasm-pcapgen gen-split SEED IN.pcap   fixed-stride packets for the split mode
 *   reasm-pcapgen cmp A.pcap B.pcap   the same packets, in any order
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <random>

#include "pkt_gen.h"

using pktgen::frame;

namespace {

int gen(uint32_t seed, const char *in_path, const char *exp_path)
{
	std::mt19937 rng(seed);
	std::vector<frame> in, expect;
	uint32_t reassembled = 0, overlap = 0, lost = 0, dups = 0, atomic = 0, plain = 0;

	for (uint32_t i = 0; i < 400; i++) {
		pktgen::dgram_spec s;
		uint32_t kind = rng() % 20, nf;

		s.v6 = rng() & 1;
		s.l4 = (uint8_t[]){17, 6, 1}[rng() % 3];
		s.flow = (uint8_t)(rng() % 16);
		s.id = 1000 + i;
		s.ip_len = kind == 0 ? 20000 + rng() % 45000 : 68 + rng() % 9000;
		if (s.v6 && rng() % 4 == 0) {
			s.ext_before = 1 + rng() % 2;
			s.routing = rng() & 1;
		}
		nf = kind == 1 ? 64 : 2 + rng() % 12;
		s.ip_len = std::max<uint32_t>(s.ip_len, 160 + 8 * nf);
		frame whole = pktgen::make_datagram(s, rng);
		if (kind == 2 && s.v6) { /* an atomic fragment: delivered as the datagram */
			in.push_back(pktgen::make_fragment(
				whole, 0, (uint32_t)whole.size() - pktgen::unfrag_end(whole), false,
				s.id));
			expect.push_back(whole);
			reassembled++;
			atomic++;
			continue;
		}
		if (kind == 3) { /* a plain packet passes unchanged */
			in.push_back(whole);
			expect.push_back(whole);
			plain++;
			continue;
		}
		auto fr = pktgen::fragment(whole, nf, s.id, rng);
		if (kind == 4) { /* lost: never completes, dropped at the end */
			fr.erase(fr.begin() + rng() % fr.size());
			lost++;
		} else if (kind == 5) { /* overlap: the whole datagram is discarded */
			uint32_t off, len;
			bool more;

			pktgen::frag_range(fr[0], &off, &len, &more);
			fr.push_back(pktgen::make_fragment(whole, 8, len, true, s.id));
			std::swap(fr[0], fr.back()); /* before the datagram can complete */
			overlap++;
		} else {
			expect.push_back(whole);
			reassembled++;
		}
		/* interleaved with the traffic around it, in any order */
		std::shuffle(fr.begin() + (kind == 5 ? 1 : 0), fr.end(), rng);
		if (kind == 6) { /* a duplicate, before the datagram completes */
			size_t k = rng() % (fr.size() - 1);
			frame copy = fr[k];

			fr.insert(fr.begin() + (long)k + 1, copy);
			dups++;
		}
		size_t at = in.size() > 40 ? in.size() - rng() % 40 : in.size();
		in.insert(in.begin() + (long)at, fr.begin(), fr.end());
	}
	if (!pktgen::pcap_write(in_path, in) || !pktgen::pcap_write(exp_path, expect)) {
		fprintf(stderr, "cannot write %s / %s\n", in_path, exp_path);
		return 1;
	}
	printf("packets %zu reassembled %u atomic %u passthrough %u duplicates %u overlap %u "
	       "timeout %u\n",
	       in.size(), reassembled, atomic, plain, dups, overlap, lost);
	return 0;
}

/* Fixed-stride packets: a 14-byte Ethernet header, then N records of 16 + 240 bytes. */
int gen_split(uint32_t seed, const char *in_path)
{
	std::mt19937 rng(seed);
	std::vector<frame> in;

	for (int i = 0; i < 200; i++) {
		frame f(14 + (1 + rng() % 40) * 256);

		for (auto &b : f)
			b = (uint8_t)rng();
		f[12] = 0x88, f[13] = 0xb5; /* local experimental EtherType */
		in.push_back(f);
	}
	if (!pktgen::pcap_write(in_path, in)) {
		fprintf(stderr, "cannot write %s\n", in_path);
		return 1;
	}
	printf("packets %zu\n", in.size());
	return 0;
}

int cmp(const char *a_path, const char *b_path)
{
	std::vector<frame> a, b;

	if (!pktgen::pcap_read(a_path, &a) || !pktgen::pcap_read(b_path, &b)) {
		fprintf(stderr, "cannot read %s / %s\n", a_path, b_path);
		return 1;
	}
	std::sort(a.begin(), a.end());
	std::sort(b.begin(), b.end());
	if (a != b) {
		size_t common = 0;

		for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
			if (a[i] == b[j])
				common++, i++, j++;
			else if (a[i] < b[j])
				i++;
			else
				j++;
		}
		fprintf(stderr, "%s: %zu packets, %s: %zu packets, %zu in common\n", a_path,
			a.size(), b_path, b.size(), common);
		return 1;
	}
	printf("same %zu packets\n", a.size());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "gen"))
		return gen((uint32_t)strtoul(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "gen-split"))
		return gen_split((uint32_t)strtoul(argv[2], NULL, 0), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "cmp"))
		return cmp(argv[2], argv[3]);
	fprintf(stderr, "usage: %s gen SEED IN.pcap EXPECTED.pcap | cmp A.pcap B.pcap\n", argv[0]);
	return 2;
}
