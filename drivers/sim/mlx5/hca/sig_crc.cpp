/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Table-driven guard reference of the software HCA (sig_crc.h). One 256-entry
 * table per CRC, built at compile time from the polynomial; byte-at-a-time
 * updates. Speed is not the point here, independence and clarity are.
 */
#include "sig_crc.h"

#include <array>

namespace mlx5sim {

namespace {

constexpr uint16_t kPolyT10dif = 0x8bb7;
constexpr uint32_t kPolyCrc32Refl = 0xedb88320u;  /* 0x04C11DB7 reflected */
constexpr uint32_t kPolyCrc32cRefl = 0x82f63b78u; /* 0x1EDC6F41 reflected */
constexpr uint64_t kPolyCrc64 = 0x42f0e1eba9ea3693ull;

/** MSB-first table of a @p Bits-wide CRC. */
template <typename T, unsigned Bits>
constexpr std::array<T, 256> msb_table(T poly)
{
	std::array<T, 256> t{};
	const T top = (T)((T)1 << (Bits - 1));

	for (unsigned i = 0; i < 256; i++) {
		T r = (T)((T)i << (Bits - 8));

		for (int b = 0; b < 8; b++)
			r = (T)((r & top) ? (T)(r << 1) ^ poly : (T)(r << 1));
		t[i] = r;
	}
	return t;
}

/** LSB-first (reflected) table of a 32-bit CRC. */
constexpr std::array<uint32_t, 256> lsb_table(uint32_t poly)
{
	std::array<uint32_t, 256> t{};

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t r = i;

		for (int b = 0; b < 8; b++)
			r = (r & 1) ? (r >> 1) ^ poly : r >> 1;
		t[i] = r;
	}
	return t;
}

constexpr auto kT10dif = msb_table<uint16_t, 16>(kPolyT10dif);
constexpr auto kCrc32 = lsb_table(kPolyCrc32Refl);
constexpr auto kCrc32c = lsb_table(kPolyCrc32cRefl);
constexpr auto kCrc64 = msb_table<uint64_t, 64>(kPolyCrc64);

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
		for (size_t i = 0; i < len; i++)
			r = (uint16_t)((r << 8) ^ kT10dif[((r >> 8) ^ p[i]) & 0xff]);
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
		for (size_t i = 0; i < len; i++)
			r = (r >> 8) ^ kCrc32[(r ^ p[i]) & 0xff];
		break;
	case GuardKind::CRC32C:
		for (size_t i = 0; i < len; i++)
			r = (r >> 8) ^ kCrc32c[(r ^ p[i]) & 0xff];
		break;
	case GuardKind::CRC64_XP10:
		for (size_t i = 0; i < len; i++)
			r = (r << 8) ^ kCrc64[((r >> 56) ^ p[i]) & 0xff];
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
