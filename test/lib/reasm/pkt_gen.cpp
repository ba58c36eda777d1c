/* SPDX-License-Identifier: BSD-3-Clause */
#include "pkt_gen.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>

namespace pktgen {

namespace {

void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t get16(const uint8_t *p)
{
	return (uint32_t)(p[0] << 8 | p[1]);
}

void ipv4_cksum(uint8_t *h)
{
	uint32_t ihl = (h[0] & 0xf) * 4u, sum = 0;

	put16(h + 10, 0);
	for (uint32_t i = 0; i < ihl; i += 2)
		sum += get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(h + 10, ~sum & 0xffff);
}

void eth(frame &f, bool v6, uint8_t flow)
{
	const uint8_t h[14] = {0x02,
			       0,
			       0,
			       0,
			       0,
			       1,
			       0x02,
			       0,
			       0,
			       0,
			       1,
			       flow,
			       (uint8_t)(v6 ? 0x86 : 0x08),
			       (uint8_t)(v6 ? 0xdd : 0x00)};

	f.resize(14);
	memcpy(f.data(), h, sizeof(h));
}

void random_bytes(uint8_t *p, size_t n, std::mt19937 &rng)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

} // namespace

frame make_datagram(const dgram_spec &s, std::mt19937 &rng)
{
	frame f;
	uint8_t l4 = s.v6 && s.l4 == 1 ? 58 : s.l4;
	uint32_t l4_hdr = l4 == 6 ? 20 : 8, hdr_len;

	eth(f, s.v6, s.flow);
	if (!s.v6) {
		uint8_t h[60] = {};

		hdr_len = 20 + s.ipv4_opts;
		h[0] = (uint8_t)(0x40 | hdr_len / 4);
		put16(h + 2, s.ip_len);
		put16(h + 4, s.id & 0xffff);
		h[8] = 64;
		h[9] = l4;
		h[12] = 10, h[13] = 0, h[14] = s.flow, h[15] = 1;
		h[16] = 10, h[17] = 1, h[18] = s.flow, h[19] = 2;
		for (uint32_t i = 20; i < hdr_len; i++)
			h[i] = 1; /* NOP options */
		ipv4_cksum(h);
		f.insert(f.end(), h, h + hdr_len);
	} else {
		uint8_t h[40] = {};
		uint32_t next_at = 14 + 6, n = s.ext_before + (s.routing ? 1 : 0);

		h[0] = 0x60;
		put16(h + 4, s.ip_len - 40);
		h[7] = 64;
		h[8] = 0x20, h[9] = 0x01, h[23] = s.flow, h[24] = 0x20, h[25] = 0x01;
		h[38] = s.flow, h[39] = 2;
		f.insert(f.end(), h, h + 40);
		/* Hop-by-Hop first, then Destination Options, Routing last: unfragmentable. */
		for (uint32_t i = 0; i < n; i++) {
			uint8_t e[16] = {};

			f[next_at] = s.routing && i == n - 1 ? 43 : i == 0 ? 0 : 60;
			next_at = (uint32_t)f.size();
			e[1] = 1; /* 16 bytes */
			if (!(s.routing && i == n - 1))
				e[2] = 1, e[3] = 12; /* PadN */
			f.insert(f.end(), e, e + 16);
		}
		f[next_at] = l4;
	}
	hdr_len = (uint32_t)f.size() - 14;
	uint32_t pay = s.ip_len - hdr_len;
	size_t l4_at = f.size();

	f.resize(14 + s.ip_len);
	random_bytes(&f[l4_at], pay, rng);
	if (pay >= l4_hdr) {
		uint8_t *p = &f[l4_at];

		if (l4 == 17) {
			put16(p, 1000 + s.flow);
			put16(p + 2, 2000);
			put16(p + 4, pay & 0xffff);
			put16(p + 6, 0);
		} else if (l4 == 1 || l4 == 58) {
			p[0] = l4 == 1 ? 8 : 128; /* echo request */
			p[1] = 0;
		} else {
			p[12] = 0x50;
		}
	}
	return f;
}

uint32_t unfrag_end(const frame &f)
{
	if (f[12] == 0x08)
		return 14 + (f[14] & 0xf) * 4u;
	uint32_t off = 14 + 40;
	uint8_t nh = f[14 + 6];

	while (nh == 0 || nh == 43 || nh == 60) {
		nh = f[off];
		off += (f[off + 1] + 1u) * 8u;
	}
	return off;
}

frame make_fragment(const frame &whole, uint32_t off, uint32_t len, bool more, uint32_t id)
{
	uint32_t ue = unfrag_end(whole);
	frame f(whole.begin(), whole.begin() + ue);

	if (whole[12] == 0x08) {
		uint8_t *h = &f[14];

		put16(h + 2, (ue - 14) + len);
		put16(h + 6, (more ? 0x2000 : 0) | (off / 8));
		ipv4_cksum(h);
	} else {
		uint8_t fh[8] = {};
		uint32_t nh_at = 14 + 6, p = 14 + 40;
		uint8_t nh = f[14 + 6];

		while (nh == 0 || nh == 43 || nh == 60) {
			nh_at = p;
			nh = f[p];
			p += (f[p + 1] + 1u) * 8u;
		}
		fh[0] = nh;
		f[nh_at] = 44;
		put16(fh + 2, off | (more ? 1 : 0));
		fh[4] = (uint8_t)(id >> 24), fh[5] = (uint8_t)(id >> 16);
		fh[6] = (uint8_t)(id >> 8), fh[7] = (uint8_t)id;
		f.insert(f.end(), fh, fh + 8);
		put16(&f[14 + 4], (uint32_t)f.size() - 14 - 40 + len);
	}
	f.insert(f.end(), whole.begin() + ue + off, whole.begin() + ue + off + len);
	return f;
}

std::vector<frame> fragment(const frame &whole, uint32_t n, uint32_t id, std::mt19937 &rng)
{
	uint32_t ue = unfrag_end(whole), plen = (uint32_t)whole.size() - ue;
	uint32_t units = (plen - 1) / 8; /* cut points: multiples of 8 strictly inside */
	std::vector<uint32_t> cuts;
	std::vector<frame> out;

	if (n > 1) {
		std::vector<uint32_t> all(units);

		for (uint32_t i = 0; i < units; i++)
			all[i] = (i + 1) * 8;
		std::shuffle(all.begin(), all.end(), rng);
		cuts.assign(all.begin(), all.begin() + std::min(n - 1, units));
		std::sort(cuts.begin(), cuts.end());
	}
	cuts.insert(cuts.begin(), 0);
	cuts.push_back(plen);
	for (size_t i = 0; i + 1 < cuts.size(); i++)
		out.push_back(make_fragment(whole, cuts[i], cuts[i + 1] - cuts[i],
					    i + 2 < cuts.size(), id));
	return out;
}

frame make_plain(bool v6, uint32_t len, std::mt19937 &rng)
{
	dgram_spec s;

	s.v6 = v6;
	s.ip_len = len;
	s.flow = 200;
	return make_datagram(s, rng);
}

bool frag_range(const frame &f, uint32_t *off, uint32_t *len, bool *more)
{
	if (f[12] == 0x08) {
		uint32_t fo = get16(&f[14 + 6]), ihl = (f[14] & 0xf) * 4u;

		*off = (fo & 0x1fff) * 8;
		*more = fo & 0x2000;
		*len = get16(&f[14 + 2]) - ihl;
		return true;
	}
	uint32_t p = 14 + 40, end = 14 + 40 + get16(&f[14 + 4]);
	uint8_t nh = f[14 + 6];

	while (nh == 0 || nh == 43 || nh == 60) {
		nh = f[p];
		p += (f[p + 1] + 1u) * 8u;
	}
	if (nh != 44)
		return false;
	*off = get16(&f[p + 2]) & 0xfff8;
	*more = f[p + 3] & 1;
	*len = end - p - 8;
	return true;
}

bool pcap_write(const std::string &path, const std::vector<frame> &frames)
{
	FILE *fp = fopen(path.c_str(), "wb");
	uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1};
	uint32_t t = 0;

	if (!fp)
		return false;
	fwrite(gh, sizeof(gh), 1, fp);
	for (const frame &f : frames) {
		uint32_t rh[4] = {1700000000, t++, (uint32_t)f.size(), (uint32_t)f.size()};

		fwrite(rh, sizeof(rh), 1, fp);
		fwrite(f.data(), 1, f.size(), fp);
	}
	return fclose(fp) == 0;
}

bool pcap_read(const std::string &path, std::vector<frame> *frames)
{
	FILE *fp = fopen(path.c_str(), "rb");
	uint32_t gh[6], rh[4];
	bool ok;

	if (!fp)
		return false;
	ok = fread(gh, sizeof(gh), 1, fp) == 1 && (gh[0] == 0xa1b2c3d4 || gh[0] == 0xa1b23c4d);
	while (ok && fread(rh, sizeof(rh), 1, fp) == 1) {
		frame f(rh[2]);

		if (rh[2] != rh[3] || fread(f.data(), 1, f.size(), fp) != f.size())
			ok = false;
		frames->push_back(std::move(f));
	}
	fclose(fp);
	return ok;
}

} // namespace pktgen
