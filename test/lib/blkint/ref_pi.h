/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' own reference for protection information: bit-at-a-time CRCs straight from
 * the polynomials and a word-by-word IP checksum, independent of ISA-L and of the
 * library, and a protected buffer built from them.
 */
#ifndef TEST_BLKINT_REF_PI_H
#define TEST_BLKINT_REF_PI_H

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "rte_blkint.h"

namespace ref {

uint16_t crc16_t10dif(uint16_t seed, const uint8_t *p, size_t n);
uint16_t ip_csum(uint16_t seed, const uint8_t *p, size_t n);
/** Reflected CRC32 of polynomial @p poly (normal form), init seed, final XOR ~0. */
uint32_t crc32_refl(uint32_t poly, uint32_t seed, const uint8_t *p, size_t n);
/** ECMA-182, not reflected, init = final XOR = seed. */
uint64_t crc64_ecma(uint64_t seed, const uint8_t *p, size_t n);

/** Guard/CRC of a block in format @p f. */
uint64_t sum(const struct rte_blkint_format &f, const uint8_t *p, size_t n);
/** PI bytes of a block, big-endian. */
std::vector<uint8_t> tuple(const struct rte_blkint_format &f, uint64_t s, uint32_t ref);
/** @p data (n blocks of f.block_size) protected in format @p f, first ref tag @p ref. */
std::vector<uint8_t> protect(const struct rte_blkint_format &f, const std::vector<uint8_t> &data,
			     uint32_t ref);
/** Bytes of PI per block. */
uint32_t pi_size(const struct rte_blkint_format &f);

} // namespace ref

#endif /* TEST_BLKINT_REF_PI_H */
