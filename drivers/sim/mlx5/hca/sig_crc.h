/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software HCA's own reference for signature guards: CRC16 T10-DIF
 * (polynomial 0x8BB7), the IP-checksum guard, CRC32 (IEEE), CRC32C (Castagnoli)
 * and CRC64_XP10, table-driven and incremental. Independent of ISA-L on purpose:
 * the product cross-checks its ISA-L results against the model, so the two must
 * be separate codes.
 *
 * Parameters (ASSUMPTIONS.md 54-56): a seed selects the initial register, all
 * zeros or all ones, as the BSF/PSV encode it.
 * - CRC16 T10-DIF: not reflected, init = seed, no final XOR (seed 0: CRC-16/T10-DIF).
 * - IP checksum: 16-bit ones'-complement sum of big-endian words (a trailing odd
 *   byte is padded with zero), started at the seed, complemented at the end.
 * - CRC32 / CRC32C: reflected, init = seed, final XOR all ones (seed all ones:
 *   CRC-32/ISO-HDLC resp. CRC-32/ISCSI).
 * - CRC64_XP10: the ECMA-182 polynomial 0x42F0E1EBA9EA3693, not reflected,
 *   init = final XOR = seed (seed 0: CRC-64/ECMA-182, seed all ones: CRC-64/WE).
 */
#ifndef MLX5_SIM_SIG_CRC_H
#define MLX5_SIM_SIG_CRC_H

#include <stddef.h>
#include <stdint.h>

namespace mlx5sim {

/** Guard algorithms of the signature offload. */
enum class GuardKind : uint8_t {
	T10DIF_CRC16, /**< T10-DIF guard, CRC16 */
	T10DIF_IPCS,  /**< T10-DIF guard, IP checksum */
	CRC32,
	CRC32C,
	CRC64_XP10,
};

/** Running guard computation; feed it in any chunks, the result is the same. */
struct GuardCalc {
	GuardKind kind;
	bool odd;         /**< IP checksum: a byte waits for its partner */
	uint8_t odd_byte; /**< that byte (the high half of the next word) */
	uint64_t seed;    /**< all zeros or all ones, in the algorithm's width */
	uint64_t reg;     /**< CRC register or checksum sum */
};

/** Start a computation; @p seed_ones selects the all-ones seed. */
void guard_init(GuardCalc *g, GuardKind kind, bool seed_ones);
/** Feed @p len bytes. */
void guard_update(GuardCalc *g, const void *data, size_t len);
/** The guard of everything fed so far (the computation may continue). */
uint64_t guard_final(const GuardCalc *g);
/** One-shot guard of @p len bytes. */
uint64_t guard_compute(GuardKind kind, bool seed_ones, const void *data, size_t len);
/** Width of the guard in bytes (2, 4 or 8). */
unsigned guard_bytes(GuardKind kind);

} // namespace mlx5sim

#endif /* MLX5_SIM_SIG_CRC_H */
