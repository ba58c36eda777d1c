/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PI formats on ISA-L 2.30. The mlx5 definitions (drivers/sim/mlx5/hca/ASSUMPTIONS.md
 * 54-56) map onto ISA-L's entry points as follows, seed s = 0 or all ones:
 *  - T10-DIF CRC16: crc16_t10dif(s) (init = s, no final XOR);
 *  - CRC32C: crc32_iscsi(s) ^ ~0 (ISA-L neither inverts the init nor the result);
 *  - CRC32: crc32_gzip_refl(~s) (ISA-L inverts both; crc32_ieee is the unreflected one);
 *  - CRC64: crc64_ecma_norm(~s) ^ ~s (ISA-L inverts both; mlx5 XORs the result with s).
 * The IP-checksum guard is not in ISA-L: DPDK's rte_raw_cksum, byte-swapped to the
 * big-endian word sum (the ones'-complement sum is byte-order independent, RFC 1071).
 */
#include <string.h>

#include <isa-l/crc.h>
#include <isa-l/crc64.h>
#include <rte_byteorder.h>
#include <rte_ip.h>

#include "blkint_pi.h"

namespace {

uint16_t fold16(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t ip_guard(uint16_t seed, const uint8_t *data, uint32_t len)
{
	/* fold of the BE word sum; 0 only when every word is 0, as the model's own adds */
	uint16_t be = rte_be_to_cpu_16(rte_raw_cksum(data, len));

	return (uint16_t)~fold16((uint64_t)seed + be);
}

uint32_t seed32(const struct rte_blkint_format *f)
{
	return f->crc_seed ? 0xffffffffu : 0;
}

uint64_t seed64(const struct rte_blkint_format *f)
{
	return f->crc_seed ? ~0ull : 0;
}

inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

} // namespace

uint64_t blkint_pi_sum(const struct rte_blkint_format *fmt, const uint8_t *data, uint32_t len)
{
	switch (fmt->type) {
	case RTE_BLKINT_PI_T10DIF:
		if (fmt->guard == RTE_BLKINT_GUARD_IPCSUM)
			return ip_guard(fmt->guard_seed, data, len);
		return crc16_t10dif(fmt->guard_seed, data, len);
	case RTE_BLKINT_PI_CRC32C:
		return crc32_iscsi(const_cast<uint8_t *>(data), (int)len, seed32(fmt)) ^
		       0xffffffffu;
	case RTE_BLKINT_PI_CRC32:
		return crc32_gzip_refl(~seed32(fmt), data, len);
	case RTE_BLKINT_PI_CRC64:
		return crc64_ecma_norm(~seed64(fmt), data, len) ^ ~seed64(fmt);
	default:
		return 0;
	}
}

uint64_t blkint_pi_sum_copy(const struct rte_blkint_format *fmt, uint8_t *dst, const uint8_t *src,
			    uint32_t len)
{
	if (fmt->type == RTE_BLKINT_PI_T10DIF && fmt->guard == RTE_BLKINT_GUARD_CRC16)
		return crc16_t10dif_copy(fmt->guard_seed, dst, const_cast<uint8_t *>(src), len);
	/* memmove: an in-place strip moves data toward the front of the same buffer */
	memmove(dst, src, len);
	return blkint_pi_sum(fmt, dst, len);
}

void blkint_pi_write(const struct rte_blkint_format *fmt, uint8_t *pi, uint64_t sum, uint32_t ref)
{
	switch (fmt->type) {
	case RTE_BLKINT_PI_T10DIF:
		put_be16(pi, (uint16_t)sum);
		put_be16(pi + 2, fmt->app_tag);
		put_be32(pi + 4, ref);
		break;
	case RTE_BLKINT_PI_CRC32:
	case RTE_BLKINT_PI_CRC32C:
		put_be32(pi, (uint32_t)sum);
		break;
	case RTE_BLKINT_PI_CRC64:
		put_be32(pi, (uint32_t)(sum >> 32));
		put_be32(pi + 4, (uint32_t)sum);
		break;
	default:
		break;
	}
}

enum rte_blkint_field blkint_pi_check(const struct rte_blkint_format *fmt, const uint8_t *pi,
				      uint64_t sum, uint32_t ref, struct rte_blkint_error *err)
{
	uint64_t found;

	switch (fmt->type) {
	case RTE_BLKINT_PI_T10DIF: {
		uint16_t guard = get_be16(pi), app = get_be16(pi + 2);
		uint32_t tag = get_be32(pi + 4), check = rte_blkint_dev_check_mask(fmt);

		/* one escape at a time, as the device's inline section encodes it */
		if (fmt->flags & RTE_BLKINT_F_APP_REF_ESCAPE) {
			if (app == 0xffff && tag == 0xffffffffu)
				return RTE_BLKINT_FIELD_NONE;
		} else if ((fmt->flags & RTE_BLKINT_F_APP_ESCAPE) && app == 0xffff) {
			return RTE_BLKINT_FIELD_NONE;
		}
		if ((check & RTE_BLKINT_CHECK_GUARD) && guard != (uint16_t)sum) {
			err->expected = (uint16_t)sum;
			err->actual = guard;
			return RTE_BLKINT_FIELD_GUARD;
		}
		if ((check & RTE_BLKINT_CHECK_APPTAG) && app != fmt->app_tag) {
			err->expected = fmt->app_tag;
			err->actual = app;
			return RTE_BLKINT_FIELD_APPTAG;
		}
		if ((check & RTE_BLKINT_CHECK_REFTAG) && tag != ref) {
			err->expected = ref;
			err->actual = tag;
			return RTE_BLKINT_FIELD_REFTAG;
		}
		return RTE_BLKINT_FIELD_NONE;
	}
	case RTE_BLKINT_PI_CRC32:
	case RTE_BLKINT_PI_CRC32C:
		found = get_be32(pi);
		break;
	case RTE_BLKINT_PI_CRC64:
		found = (uint64_t)get_be32(pi) << 32 | get_be32(pi + 4);
		break;
	default:
		return RTE_BLKINT_FIELD_NONE;
	}
	if (found == sum)
		return RTE_BLKINT_FIELD_NONE;
	err->expected = sum;
	err->actual = found;
	return RTE_BLKINT_FIELD_CRC;
}
