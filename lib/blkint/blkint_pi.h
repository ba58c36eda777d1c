/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection information of one block on the CPU: the guard/CRC of its data (ISA-L, plus
 * the IP checksum ISA-L lacks), writing a PI tuple, checking one. The CPU engine and the
 * cross-check of device results both use it, so there is one definition of every format.
 */
#ifndef BLKINT_PI_H
#define BLKINT_PI_H

#include <stdint.h>

#include "rte_blkint.h"
#include "rte_blkint_driver.h" /* rte_blkint_dev_check_mask() */

/** Bytes of PI after each block (inline: every op's length checks ask it). */
static inline uint32_t blkint_pi_size(enum rte_blkint_pi_type type)
{
	switch (type) {
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

/** Guard (T10-DIF) or CRC of @p len data bytes, as blkint_pi.cpp defines it. */
uint64_t blkint_pi_sum(const struct rte_blkint_format *fmt, const uint8_t *data, uint32_t len);

/** The same, copying @p len bytes from @p src to @p dst on the way (fused for CRC16). */
uint64_t blkint_pi_sum_copy(const struct rte_blkint_format *fmt, uint8_t *dst, const uint8_t *src,
			    uint32_t len);

/** Write the PI tuple of a block whose guard/CRC is @p sum and ref tag @p ref. */
void blkint_pi_write(const struct rte_blkint_format *fmt, uint8_t *pi, uint64_t sum, uint32_t ref);

/**
 * Check the PI tuple @p pi of a block whose data gives @p sum and whose expected ref tag
 * is @p ref. RTE_BLKINT_FIELD_NONE when good or escaped; else the first failing field,
 * with expected/actual stored in @p err (block left to the caller).
 */
enum rte_blkint_field blkint_pi_check(const struct rte_blkint_format *fmt, const uint8_t *pi,
				      uint64_t sum, uint32_t ref, struct rte_blkint_error *err);

/** Ref tag of block @p b of an op whose first block has @p first. */
static inline uint32_t blkint_ref_of(const struct rte_blkint_format *fmt, uint32_t first,
				     uint32_t b)
{
	return (fmt->flags & RTE_BLKINT_F_REF_INC) ? first + b : first;
}

#endif /* BLKINT_PI_H */
