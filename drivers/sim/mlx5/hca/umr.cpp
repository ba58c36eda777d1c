/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UMR WQEs (opcode 0x25): mkey_configure / mr_list / mr_interleaved layouts and
 * LOCAL_INV, as libmlx5 writes them (ctrl | UMR ctrl | mkey context | inline
 * translation area). plan_umr() checks everything against the target mkey when
 * the WQE is planned; apply_umr() changes the mkey when the WQE executes, in its
 * position in the group, so a WQE planned earlier in the same group (no fence in
 * between) still sees the old layout.
 */
#include "psv_table.h"
#include "wqe_special.h"

namespace mlx5sim {

namespace {

constexpr uint8_t kKnownFlags = MLX5_WQE_UMR_CTRL_FLAG_INLINE | MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE |
				MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET |
				MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;

/** Mask bits only a signature (BSF-enabled) mkey accepts. */
constexpr uint64_t kSigMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE |
			      MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR;
/** mkey context flags_pd bits: BSF enabled, sig_err_cnt. */
constexpr uint32_t kFlagsPdBsfEn = 1u << 30;
constexpr uint32_t kFlagsPdSigErrCnt = 1u << 26;

/** What a plain mkey's UMR may change. */
constexpr uint64_t kKnownMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY | MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE;

/** Access rights: mask bit, mkey-context bit, IBV_ACCESS_* bit. */
struct AccessBit {
	uint64_t mask;
	uint8_t ctx;
	int ibv;
};
constexpr AccessBit kAccess[] = {
	{MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE,
	 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE},
	{MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ,
	 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ, IBV_ACCESS_REMOTE_READ},
	{MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE,
	 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE},
	{MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC, MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC,
	 IBV_ACCESS_REMOTE_ATOMIC},
};

/** Offsets inside a UMR WQE. */
enum : uint32_t {
	kUmrCtrl = 16,
	kMkeyCtx = 64,
	kXlat = 128,
};

/** The translation area starts with a repeat-block header (op 0x400 where a KLM has its key). */
bool is_repeat(const uint8_t *xl)
{
	return mlx5_hw_ld_be32(xl + 4) == MLX5_HW_UMR_REPEAT_OP;
}

} // namespace

Verdict plan_umr(MrTable &mrt, PsvTable &psvs, const QpObj *qp, Plan *pl, uint32_t ds)
{
	const Verdict op_err = {MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
	const Verdict prot = {MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0};
	if (ds < MLX5_HW_UMR_HDR_DS)
		return op_err;
	const uint8_t *umr = pl->wqe + kUmrCtrl, *xl = pl->wqe + kXlat;
	uint8_t flags = umr[0];
	uint32_t oct = mlx5_hw_ld_be16(umr + 4);
	uint64_t mask = mlx5_hw_ld_be64(umr + 8);
	/* a WQE the device cannot parse: malformed, like an unknown opcode */
	if ((flags & ~kKnownFlags) || (mask & ~(kKnownMask | kSigMask)) ||
	    (oct && !(flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE)) ||
	    ((flags & MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET) && mlx5_hw_ld_be16(umr + 6)) ||
	    oct > ds - MLX5_HW_UMR_HDR_DS)
		return op_err;
	if (oct && is_repeat(xl)) {
		uint32_t nent = mlx5_hw_ld_be16(xl + 14);
		if (nent == 0 || nent + 1 > oct || nent > HCA_MAX_PAT_ENT)
			return op_err;
		uint64_t sum = 0;
		for (uint32_t i = 0; i < nent; i++)
			sum += mlx5_hw_ld_be16(xl + 16 * (i + 1) + 2);
		if (sum != mlx5_hw_ld_be32(xl))
			return op_err;
	}

	/* the target: an indirect mkey of this QP's PD, by its current key */
	uint32_t key = be32toh(pl->imm_raw);
	uint32_t idx = key >> 8;
	MrEntry *mrp = mrt.entry(idx);
	if (!mrp)
		return prot;
	MrEntry &mr = *mrp;
	if (!mr.used || !mr.indirect || mr.variant != (key & 0xff) || mr.pdn != qp->cfg.pdn)
		return prot;
	MkeyObj *mk = mrt.mkey(idx);
	if ((flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE) && !mk->free)
		return prot;
	if (oct > mk->num_desc) /* more translations than it was created for */
		return prot;
	pl->umr_has_bsf = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE;
	pl->umr_sig_err = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR;
	pl->umr_sig.enabled = false;
	if (mask & kSigMask) {
		if (!mk->bsf_en) /* a signature field of an mkey without a BSF */
			return op_err;
		uint32_t flags_pd = mlx5_hw_ld_be32(pl->wqe + kMkeyCtx + 12);
		if (pl->umr_has_bsf && (flags_pd & kFlagsPdBsfEn)) {
			/* the BSF follows the translation area; malformed: nothing changes */
			if (mlx5_hw_ld_be16(umr + 6) != MLX5_HW_BSF_OCTOWORDS ||
			    (flags & MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET) ||
			    oct + MLX5_HW_BSF_OCTOWORDS > ds - MLX5_HW_UMR_HDR_DS ||
			    !parse_bsf(xl + 16 * oct, &pl->umr_sig))
				return op_err;
			for (const SigDomain *d : {&pl->umr_sig.mem, &pl->umr_sig.wire})
				if (d->kind != SigDomain::NONE) {
					const PsvEntry *psv = psvs.find(d->psv);
					if (!psv || psv->pdn != qp->cfg.pdn)
						return prot;
				}
		}
	}
	pl->xflags |= XF_UMR;
	pl->target = &mr;
	pl->target_mk = mk;
	return Verdict{0, 0};
}

void apply_umr(const Plan *pl)
{
	MrEntry &mr = *pl->target;
	MkeyObj &mk = *pl->target_mk;
	const uint8_t *umr = pl->wqe + kUmrCtrl, *ctx = pl->wqe + kMkeyCtx, *xl = pl->wqe + kXlat;
	uint32_t oct = mlx5_hw_ld_be16(umr + 4);
	uint64_t mask = mlx5_hw_ld_be64(umr + 8);

	/* only the masked fields change; e.g. without access bits the old rights stay */
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE)
		mk.free = ctx[0] & MLX5_WQE_MKEY_CONTEXT_FREE;
	for (const AccessBit &a : kAccess)
		if (mask & a.mask)
			mr.access = (ctx[2] & a.ctx) ? (mr.access | a.ibv) : (mr.access & ~a.ibv);
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN)
		mk.qpn = mlx5_hw_ld_be32(ctx + 4) >> 8;
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY)
		mr.variant = ctx[7]; /* the key's tag byte */
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR)
		mr.addr = mlx5_hw_ld_be64(ctx + 16);
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN)
		mr.len = mlx5_hw_ld_be64(ctx + 24);
	if (pl->umr_has_bsf)
		mk.sig = pl->umr_sig; /* enabled = false: the BSF is switched off */
	if (pl->umr_sig_err) {
		/* a new error count re-arms an mkey that had a signature error */
		mk.sig_err = false;
		mk.sig_err_cnt = (mlx5_hw_ld_be32(ctx + 12) & kFlagsPdSigErrCnt) ? 1 : 0;
	}
	if (oct == 0)
		return; /* the layout stays */

	if (is_repeat(xl)) {
		mk.repeat = true;
		mk.rep_bytes = mlx5_hw_ld_be32(xl);
		mk.repeat_count = mlx5_hw_ld_be32(xl + 8);
		mk.nent = mlx5_hw_ld_be16(xl + 14);
		for (uint32_t i = 0; i < mk.nent; i++) {
			const uint8_t *e = xl + 16 * (i + 1);
			mk.ent[i] = XlatEnt{mlx5_hw_ld_be64(e + 8), mlx5_hw_ld_be32(e + 4),
					    mlx5_hw_ld_be16(e + 2), mlx5_hw_ld_be16(e)};
		}
		return;
	}
	mk.repeat = false;
	mk.nent = oct;
	for (uint32_t i = 0; i < oct; i++) {
		const uint8_t *e = xl + 16 * i;
		mk.ent[i] = XlatEnt{mlx5_hw_ld_be64(e + 8), mlx5_hw_ld_be32(e + 4),
				    mlx5_hw_ld_be32(e), 0};
	}
}

} // namespace mlx5sim
