/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Table-driven guard reference of the software HCA (sig_crc.h): slicing by 8, eight
 * 256-entry tables per CRC built at compile time from the polynomial, so that 8 bytes
 * cost 8 independent lookups; tails go a byte at a time through the first table.
 * Independence from ISA-L and clarity come first; the slicing is there because the
 * engine computes every guard of every block a signature op moves, and at a byte a
 * step it ran at a third of a GB/s, far below what a signature benchmark feeds it.
 */
#include "sig_crc.h"

#include <endian.h>
#include <string.h>

#include <array>

namespace mlx5sim {

namespace {

constexpr uint16_t kPolyT10dif = 0x8bb7;
constexpr uint32_t kPolyCrc32Refl = 0xedb88320u;  /* 0x04C11DB7 reflected */
constexpr uint32_t kPolyCrc32cRefl = 0x82f63b78u; /* 0x1EDC6F41 reflected */
constexpr uint64_t kPolyCrc64 = 0x42f0e1eba9ea3693ull;

template <typename T>
using Tables = std::array<std::array<T, 256>, 8>;

/**
 * MSB-first tables of a @p Bits-wide CRC: [0] is the byte-at-a-time table, [k] the
 * register after byte i followed by k zero bytes.
 */
template <typename T, unsigned Bits>
constexpr Tables<T> msb_tables(T poly)
{
	Tables<T> t{};
	const T top = (T)((T)1 << (Bits - 1));
	const T mask = (T)(Bits == 64 ? ~(T)0 : (T)(((T)1 << Bits) - 1));

	for (unsigned i = 0; i < 256; i++) {
		T r = (T)((T)i << (Bits - 8));

		for (int b = 0; b < 8; b++)
			r = (T)((r & top) ? (T)(r << 1) ^ poly : (T)(r << 1));
		t[0][i] = (T)(r & mask);
	}
	for (unsigned k = 1; k < 8; k++)
		for (unsigned i = 0; i < 256; i++) {
			T r = t[k - 1][i];

			t[k][i] = (T)(((T)(r << 8) ^ t[0][(r >> (Bits - 8)) & 0xff]) & mask);
		}
	return t;
}

/** LSB-first (reflected) tables of a 32-bit CRC, indexed as msb_tables(). */
constexpr Tables<uint32_t> lsb_tables(uint32_t poly)
{
	Tables<uint32_t> t{};

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t r = i;

		for (int b = 0; b < 8; b++)
			r = (r & 1) ? (r >> 1) ^ poly : r >> 1;
		t[0][i] = r;
	}
	for (unsigned k = 1; k < 8; k++)
		for (unsigned i = 0; i < 256; i++)
			t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
	return t;
}

constexpr auto kT10dif = msb_tables<uint16_t, 16>(kPolyT10dif);
constexpr auto kCrc32 = lsb_tables(kPolyCrc32Refl);
constexpr auto kCrc32c = lsb_tables(kPolyCrc32cRefl);
constexpr auto kCrc64 = msb_tables<uint64_t, 64>(kPolyCrc64);

/** 8 bytes at @p p, first byte most significant (one load and one swap). */
uint64_t load_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/** A reflected 32-bit CRC over @p len bytes: 8 at a time, then the tail. */
uint64_t lsb32_update(const Tables<uint32_t> &t, uint64_t reg, const uint8_t *p, size_t len)
{
	uint32_t r = (uint32_t)reg;

	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = r ^ (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);

		r = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
		    t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		    t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
	for (; len; p++, len--)
		r = (r >> 8) ^ t[0][(r ^ *p) & 0xff];
	return r;
}

/**
 * An MSB-first @p Bits-wide CRC over @p len bytes: the register is xored into the top
 * of each 8-byte word, whose byte j then goes through table 7 - j; then the tail.
 */
template <typename T, unsigned Bits>
uint64_t msb_update(const Tables<T> &t, uint64_t reg, const uint8_t *p, size_t len)
{
	T r = (T)reg;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v = load_be64(p) ^ ((uint64_t)r << (64 - Bits));

		/* written out: -O2 keeps a loop of eight, with its counter, as a loop */
		r = (T)(t[7][v >> 56] ^ t[6][(v >> 48) & 0xff] ^ t[5][(v >> 40) & 0xff] ^
			t[4][(v >> 32) & 0xff] ^ t[3][(v >> 24) & 0xff] ^ t[2][(v >> 16) & 0xff] ^
			t[1][(v >> 8) & 0xff] ^ t[0][v & 0xff]);
	}
	for (; len; p++, len--)
		r = (T)((T)(r << 8) ^ t[0][((r >> (Bits - 8)) ^ *p) & 0xff]);
	return r;
}

uint64_t seed_of(GuardKind kind, bool ones)
{
	if (!ones)
		return 0;
	switch (kind) {
	case GuardKind::T10DIF_CRC16:
	case GuardKind::T10DIF_IPCS:
		return 0xffff;
	case GuardKind::CRC32:
	case GuardKind::CRC32C:
		return 0xffffffffu;
	default:
		return ~0ull;
	}
}

/** Ones'-complement add of a 16-bit word with end-around carry. */
uint64_t csum_add(uint64_t sum, uint16_t w)
{
	sum += w;
	return (sum & 0xffff) + (sum >> 16);
}

} // namespace

void guard_init(GuardCalc *g, GuardKind kind, bool seed_ones)
{
	g->kind = kind;
	g->odd = false;
	g->odd_byte = 0;
	g->seed = seed_of(kind, seed_ones);
	g->reg = g->seed;
}

void guard_update(GuardCalc *g, const void *data, size_t len)
{
	const uint8_t *p = static_cast<const uint8_t *>(data);
	uint64_t r = g->reg;

	switch (g->kind) {
	case GuardKind::T10DIF_CRC16:
		r = msb_update<uint16_t, 16>(kT10dif, r, p, len);
		break;
	case GuardKind::T10DIF_IPCS:
		for (size_t i = 0; i < len; i++) {
			if (g->odd)
				r = csum_add(r, (uint16_t)(g->odd_byte << 8 | p[i]));
			else
				g->odd_byte = p[i];
			g->odd = !g->odd;
		}
		break;
	case GuardKind::CRC32:
		r = lsb32_update(kCrc32, r, p, len);
		break;
	case GuardKind::CRC32C:
		r = lsb32_update(kCrc32c, r, p, len);
		break;
	case GuardKind::CRC64_XP10:
		r = msb_update<uint64_t, 64>(kCrc64, r, p, len);
		break;
	}
	g->reg = r;
}

uint64_t guard_final(const GuardCalc *g)
{
	uint64_t sum;

	switch (g->kind) {
	case GuardKind::T10DIF_CRC16:
		return g->reg & 0xffff;
	case GuardKind::T10DIF_IPCS:
		sum = g->odd ? csum_add(g->reg, (uint16_t)(g->odd_byte << 8)) : g->reg;
		return ~sum & 0xffff;
	case GuardKind::CRC32:
	case GuardKind::CRC32C:
		return (g->reg ^ 0xffffffffu) & 0xffffffffu;
	case GuardKind::CRC64_XP10:
		return g->reg ^ g->seed;
	}
	return 0;
}

uint64_t guard_compute(GuardKind kind, bool seed_ones, const void *data, size_t len)
{
	GuardCalc g;

	guard_init(&g, kind, seed_ones);
	guard_update(&g, data, len);
	return guard_final(&g);
}

unsigned guard_bytes(GuardKind kind)
{
	switch (kind) {
	case GuardKind::T10DIF_CRC16:
	case GuardKind::T10DIF_IPCS:
		return 2;
	case GuardKind::CRC32:
	case GuardKind::CRC32C:
		return 4;
	default:
		return 8;
	}
}

} // namespace mlx5sim
