/* SPDX-License-Identifier: BSD-3-Clause */
#include "ref_pi.h"

namespace ref {

uint16_t crc16_t10dif(uint16_t seed, const uint8_t *p, size_t n)
{
	uint16_t r = seed;

	for (size_t i = 0; i < n; i++) {
		r ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			r = (r & 0x8000) ? (uint16_t)(r << 1 ^ 0x8bb7) : (uint16_t)(r << 1);
	}
	return r;
}

uint16_t ip_csum(uint16_t seed, const uint8_t *p, size_t n)
{
	uint32_t s = seed;

	for (size_t i = 0; i < n; i += 2) {
		s += (uint32_t)(p[i] << 8 | (i + 1 < n ? p[i + 1] : 0));
		s = (s & 0xffff) + (s >> 16); /* end-around carry at every word */
	}
	return (uint16_t)~s;
}

uint32_t crc32_refl(uint32_t poly, uint32_t seed, const uint8_t *p, size_t n)
{
	uint32_t rpoly = 0, r = seed;

	for (int b = 0; b < 32; b++)
		if (poly & (1u << b))
			rpoly |= 1u << (31 - b);
	for (size_t i = 0; i < n; i++) {
		r ^= p[i];
		for (int b = 0; b < 8; b++)
			r = (r & 1) ? (r >> 1) ^ rpoly : r >> 1;
	}
	return r ^ 0xffffffffu;
}

uint64_t crc64_ecma(uint64_t seed, const uint8_t *p, size_t n)
{
	uint64_t r = seed;

	for (size_t i = 0; i < n; i++) {
		r ^= (uint64_t)p[i] << 56;
		for (int b = 0; b < 8; b++)
			r = (r >> 63) ? (r << 1) ^ 0x42F0E1EBA9EA3693ull : r << 1;
	}
	return r ^ seed;
}

uint64_t sum(const struct rte_blkint_format &f, const uint8_t *p, size_t n)
{
	switch (f.type) {
	case RTE_BLKINT_PI_T10DIF:
		return f.guard == RTE_BLKINT_GUARD_IPCSUM ? ip_csum(f.guard_seed, p, n)
							  : crc16_t10dif(f.guard_seed, p, n);
	case RTE_BLKINT_PI_CRC32:
		return crc32_refl(0x04C11DB7u, (uint32_t)f.crc_seed, p, n);
	case RTE_BLKINT_PI_CRC32C:
		return crc32_refl(0x1EDC6F41u, (uint32_t)f.crc_seed, p, n);
	case RTE_BLKINT_PI_CRC64:
		return crc64_ecma(f.crc_seed, p, n);
	default:
		return 0;
	}
}

uint32_t pi_size(const struct rte_blkint_format &f)
{
	switch (f.type) {
	case RTE_BLKINT_PI_T10DIF:
	case RTE_BLKINT_PI_CRC64:
		return 8;
	case RTE_BLKINT_PI_CRC32:
	case RTE_BLKINT_PI_CRC32C:
		return 4;
	default:
		return 0;
	}
}

std::vector<uint8_t> tuple(const struct rte_blkint_format &f, uint64_t s, uint32_t ref)
{
	std::vector<uint8_t> t;
	uint64_t v;
	uint32_t n = pi_size(f);

	if (f.type == RTE_BLKINT_PI_T10DIF)
		v = (s & 0xffff) << 48 | (uint64_t)f.app_tag << 32 | ref;
	else
		v = s;
	for (uint32_t i = 0; i < n; i++)
		t.push_back((uint8_t)(v >> (8 * (n - 1 - i))));
	return t;
}

std::vector<uint8_t> protect(const struct rte_blkint_format &f, const std::vector<uint8_t> &data,
			     uint32_t ref)
{
	std::vector<uint8_t> out;
	size_t nb = data.size() / f.block_size;

	for (size_t b = 0; b < nb; b++) {
		const uint8_t *p = data.data() + b * f.block_size;
		uint32_t r = (f.flags & RTE_BLKINT_F_REF_INC) ? ref + (uint32_t)b : ref;
		std::vector<uint8_t> t = tuple(f, sum(f, p, f.block_size), r);

		out.insert(out.end(), p, p + f.block_size);
		out.insert(out.end(), t.begin(), t.end());
	}
	return out;
}

} // namespace ref
