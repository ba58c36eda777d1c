/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, MR/mkey table: protection domains, memory regions and
 * indirect mkeys of one device (mr_table.cpp), the key checks every data segment
 * goes through and the translation of a key + range into checked spans
 * (mkey_xlat.cpp). UMR (umr.cpp) and SEND_INVAL (wqe_plan.cpp) change mkeys
 * found through entry()/mkey(); the MMO fast path (wqe_fast.cpp) reads
 * entries() directly. Everything here runs under the device lock except
 * reg_mr_check() and new_mkey().
 */
#ifndef MLX5_SIM_MR_TABLE_H
#define MLX5_SIM_MR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "sig_bsf.h"

namespace mlx5sim {

struct Plan;
struct QpObj;
struct Verdict;

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
	bool indirect;   /**< an indirect mkey: MrTable::mkey() holds the rest */
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

/** The MR/mkey table and the protection domains of one device. */
class MrTable {
public:
	MrTable(uint32_t max_pd, uint32_t max_mr, bool odp_implicit);
	~MrTable();
	MrTable(const MrTable &) = delete;
	MrTable &operator=(const MrTable &) = delete;
	/** Seed of the first variant byte of each new key index (random per instance). */
	void seed(uint64_t s) { rng_ = s ? s : 1; /* xorshift never leaves 0 */ }

	/* ---- protection domains ---- */
	int alloc_pd(uint32_t *pdn);
	int dealloc_pd(uint32_t pdn);
	/** PD @p pdn is allocated. */
	bool pd_live(uint32_t pdn) const { return pdn != 0 && pdn < pds_.size() && pds_[pdn].used; }
	/** An object of PD @p pdn (live) was created / destroyed: it stays busy meanwhile. */
	void pd_get(uint32_t pdn) { pds_[pdn].refs++; }
	void pd_put(uint32_t pdn) { pds_[pdn].refs--; }

	/* ---- registration ---- */
	/**
	 * The checks of reg_mr that need no table, pinning included: outside the
	 * device lock (it reads /proc/self/maps and faults pages in).
	 */
	int reg_mr_check(uint64_t addr, uint64_t len, int access, uint32_t *key) const;
	/** reg_mr after reg_mr_check() passed. */
	int reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key);
	int dereg_mr(uint32_t key);
	/** rereg_mr (hca.h) after reg_mr_check() passed for the new range and access. */
	int rereg_mr(uint32_t key, uint32_t pdn, uint64_t addr, uint64_t len, int access);
	/** A new, free indirect mkey (outside the lock: its only allocation); NULL: *rc. */
	static MkeyObj *new_mkey(uint32_t num_desc, uint32_t flags, int *rc);
	/** Enter @p mk (from new_mkey(); freed on failure) into the table. */
	int add_mkey(uint32_t pdn, MkeyObj *mk, uint32_t *key);
	int destroy_mkey(uint32_t key);

	/* ---- lookup ---- */
	/**
	 * Entry @p idx (a key >> 8), used or not; NULL out of the table. The caller may
	 * change it (UMR, SEND_INVAL): the generation moves.
	 */
	MrEntry *entry(uint32_t idx)
	{
		gen_++;
		return idx == 0 || idx >= mrs_.size() ? nullptr : &mrs_[idx];
	}
	const MrEntry *entry(uint32_t idx) const
	{
		return idx == 0 || idx >= mrs_.size() ? nullptr : &mrs_[idx];
	}
	/** The indirect mkey of entry @p idx (one entry() returned as indirect). */
	MkeyObj *mkey(uint32_t idx) const { return mkeys_[idx]; }
	/** The entries, for the MMO fast path's one-compare key check. */
	const MrEntry *entries() const { return mrs_.data(); }
	size_t size() const { return mrs_.size(); }
	/**
	 * Moves on every change of any entry (registration, deregistration, rereg,
	 * mkeys, a non-const entry()): a check the MMO fast path remembers (QpObj::fast)
	 * holds only while the generation it was made under is current. Never 0.
	 */
	uint64_t generation() const { return gen_; }

	/* ---- key checks (mr_table.cpp) ---- */
	/**
	 * Check [addr, addr + len) of the MR @p key (not an indirect mkey) for PD @p pdn
	 * and IBV_ACCESS_* @p need; failures give @p bad (ODP faults with vendor 0x93).
	 */
	Verdict check_key(uint32_t pdn, uint32_t key, uint64_t addr, uint64_t len, int need,
			  Verdict bad, uint8_t **out, bool *odp) const;
	/** Check a local data segment of an MR; fills @p out on success. */
	/** *odp (if given) is set when the MR is on-demand. */
	Verdict check_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len, bool write,
			    uint8_t **out, bool *odp = nullptr) const;
	/** Check a remote access by @p rkey against responder @p resp. */
	Verdict check_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len,
			     int need, uint8_t **out, bool *odp = nullptr) const;

	/* ---- translation (mkey_xlat.cpp) ---- */
	/**
	 * Resolve a local data segment through MRs and indirect mkeys into checked
	 * spans appended to pl->dst (@p scatter) or pl->src; LOC_PROT on any failure.
	 */
	Verdict xlat_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len, bool scatter,
			   Plan *pl) const;
	/** The same for responder memory named by @p rkey (REM_ACCESS on failure). */
	Verdict xlat_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len, int need,
			    Plan *pl, bool dst) const;

private:
	/** A free key index (grown if needed; never 0, never 4 for an mkey); 0: none. */
	size_t free_key_index(bool mkey);
	/** The next random byte of rng_ (xorshift64). */
	uint8_t random_byte();

	const uint32_t max_pd_;
	const uint32_t max_mr_;
	const bool odp_implicit_;
	std::vector<PdEntry> pds_;     /**< index = pdn; 0 unused */
	std::vector<MrEntry> mrs_;     /**< index = key >> 8; 0 unused */
	std::vector<MkeyObj *> mkeys_; /**< same index: indirect mkeys (owned), else NULL */
	uint32_t mr_count_ = 0;
	uint64_t gen_ = 1; /**< generation() */
	/*
	 * Not the same from run to run (the device seeds it from getrandom), as
	 * hardware's: the draws of each new key index's first variant byte
	 * (ASSUMPTIONS.md 38, 79).
	 */
	uint64_t rng_ = 1;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_MR_TABLE_H */
