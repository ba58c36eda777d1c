/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, signature engine: the signature configuration a BSF
 * describes (sig_bsf.cpp parses it, sig_exec.cpp executes it).
 */
#ifndef MLX5_SIM_SIG_BSF_H
#define MLX5_SIM_SIG_BSF_H

#include <stdint.h>

#include "sig_crc.h"

namespace mlx5sim {

/** Signature of one domain, as a BSF describes it (sig_bsf.cpp). */
struct SigDomain {
	enum Kind : uint8_t {
		NONE,
		T10DIF,
		CRC
	} kind;
	GuardKind guard;
	bool seed_ones;     /**< guard register starts all ones */
	uint32_t bs;        /**< data bytes per block */
	uint8_t pi;         /**< protection bytes after each block (0: none) */
	uint32_t psv;       /**< PSV index of the domain */
	bool inc_ref;       /**< T10-DIF: ref tag + 1 per block (REF_REMAP) */
	bool app_escape;    /**< T10-DIF: app tag 0xffff skips the check */
	bool appref_escape; /**< T10-DIF: app 0xffff and ref 0xffffffff skip it */
	uint16_t app_tag;
	uint32_t ref_tag;
};

/** The signature configuration of an mkey (BSF of its last UMR). */
struct SigCfg {
	bool enabled; /**< a BSF is in force */
	bool sbs;     /**< same block structure: copy_mask applies */
	uint8_t check_mask;
	uint8_t copy_mask;
	SigDomain mem;
	SigDomain wire;
};

/** Parse a 64-byte signature BSF; false if the device cannot execute it (sig_bsf.cpp). */
bool parse_bsf(const uint8_t *bsf, SigCfg *cfg);

} // namespace mlx5sim

#endif /* MLX5_SIM_SIG_BSF_H */
