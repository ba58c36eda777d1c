/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, MR/mkey table: the entries of memory regions, indirect
 * mkeys and protection domains (mr_table.cpp, mkey_xlat.cpp, umr.cpp).
 */
#ifndef MLX5_SIM_MR_TABLE_H
#define MLX5_SIM_MR_TABLE_H

#include <stdint.h>

#include <vector>

#include "sig_bsf.h"

namespace mlx5sim {

/** One translation entry of an indirect mkey (a KLM or a repeat-block entry). */
struct XlatEnt {
	uint64_t va;
	uint32_t key;
	uint32_t bc;     /**< bytes (KLM: 0 = padding, no bytes) */
	uint32_t stride; /**< repeat block: address step per repetition */
};

/** What an indirect mkey adds to its MrEntry (addr = start address, len = length). */
struct MkeyObj {
	uint32_t num_desc;   /**< translation octowords it has room for */
	bool rinval;         /**< en_rinval: SEND_INVAL may free it */
	bool bsf_en;         /**< created with a BSF: a signature mkey */
	bool sig_err;        /**< a signature error happened: unusable until a UMR re-arms it */
	uint8_t sig_err_cnt; /**< sig_err_cnt of the last UMR with the SIG_ERR mask */
	SigCfg sig;          /**< BSF in force */
	bool free;           /**< invalid: every access fails */
	bool repeat;         /**< layout is a repeat block (else a KLM list) */
	uint32_t qpn;        /**< mkey context qpn (0xffffff: any) */
	uint32_t nent;
	uint64_t rep_bytes;       /**< repeat block: bytes per repetition */
	uint32_t repeat_count;    /**< repeat block: repetitions */
	uint8_t mr_variant;       /**< variant of the last MR at this index (restored at destroy) */
	std::vector<XlatEnt> ent; /**< num_desc entries, allocated at create */
};

/** One entry of the MR table (MRs and indirect mkeys share the key space). */
struct MrEntry {
	bool used;
	uint8_t variant; /**< low key byte; changes on every re-use of the index */
	bool odp;        /**< on-demand: pages are probed at access time */
	bool indirect;   /**< an indirect mkey: HcaImpl::mkeys_ holds the rest */
	uint32_t pdn;
	uint64_t addr;
	uint64_t len;
	int access;
	/**
	 * The full key while registered and not on-demand, 0 otherwise: one compare
	 * covers used, variant and "no page probing needed" on the MMO fast path.
	 */
	uint32_t fast_key;
};
/* 32 bytes: the fast path indexes the table with a shift */
static_assert(sizeof(MrEntry) == 32, "MrEntry size");

/** One protection domain. */
struct PdEntry {
	bool used;
	uint32_t refs; /**< MRs and QPs using it */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_MR_TABLE_H */
