/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The signature BSF a UMR WQE carries after its translation area (64 bytes: basic
 * section, 16 reserved bytes, wire and memory inline T10-DIF sections).
 * parse_bsf() accepts only what the model's signature engine executes; anything
 * else makes the UMR a malformed WQE (ASSUMPTIONS.md 59, 66). The SET_PSV WQE
 * that arms a domain's PSV is the signature engine's (sig_exec.cpp).
 */
#include <string.h>

#include "hca_limits.h"
#include "sig_bsf.h"

namespace mlx5sim {

namespace {

/** Data bytes of a block-size selector; 0: not a selector the model knows. */
uint32_t selector_bytes(uint8_t sel)
{
	switch (sel) {
	case 1:
		return 512;
	case 2:
		return 520;
	case 3:
		return 4096;
	case 4:
		return 4160;
	case 6:
		return 4048;
	default:
		return 0;
	}
}

/**
 * One domain from its bfs_psv word and inline section. A domain without a PSV
 * index carries no signature. BFS 0 is T10-DIF, described by the inline section.
 */
bool parse_domain(uint32_t bfs_psv, const struct mlx5_hw_bsf_inl *inl, SigDomain *d)
{
	memset(d, 0, sizeof(*d));
	d->psv = bfs_psv & MLX5_HW_BSF_PSV_INDEX_MASK;
	uint8_t bfs = (uint8_t)(bfs_psv >> MLX5_HW_BFS_SHIFT);
	uint16_t vld = be16toh(inl->vld_refresh);
	if (d->psv == 0) {
		d->kind = SigDomain::NONE;
		return bfs == 0 && !(vld & MLX5_HW_BSF_INL_VALID);
	}
	if (bfs == 0) {
		if (!(vld & MLX5_HW_BSF_INL_VALID))
			return false;
		d->kind = SigDomain::T10DIF;
		if (inl->sig_type == MLX5_HW_T10DIF_CRC)
			d->guard = GuardKind::T10DIF_CRC16;
		else if (inl->sig_type == MLX5_HW_T10DIF_IPCS)
			d->guard = GuardKind::T10DIF_IPCS;
		else
			return false;
		uint8_t chk = inl->dif_inc_ref_guard_check;
		if (chk & ~(MLX5_HW_BSF_INC_REFTAG | MLX5_HW_BSF_APPREF_ESCAPE |
			    MLX5_HW_BSF_APPTAG_ESCAPE))
			return false;
		d->seed_ones = inl->rp_inv_seed & MLX5_HW_BSF_SEED;
		d->inc_ref = chk & MLX5_HW_BSF_INC_REFTAG;
		d->appref_escape = chk & MLX5_HW_BSF_APPREF_ESCAPE;
		d->app_escape = chk & MLX5_HW_BSF_APPTAG_ESCAPE;
		d->app_tag = be16toh(inl->dif_apptag);
		d->ref_tag = be32toh(inl->dif_reftag);
		d->pi = 8;
		return true;
	}
	/* CRC: the base type, the repeat bit always, the seed bit for a zero seed */
	if (!(bfs & MLX5_HW_BFS_CRC_REPEAT_BIT) || (vld & MLX5_HW_BSF_INL_VALID))
		return false;
	d->kind = SigDomain::CRC;
	d->seed_ones = !(bfs & MLX5_HW_BFS_CRC_SEED_BIT);
	switch (bfs & ~(MLX5_HW_BFS_CRC_REPEAT_BIT | MLX5_HW_BFS_CRC_SEED_BIT)) {
	case MLX5_HW_BFS_CRC32_BASE:
		d->guard = GuardKind::CRC32;
		d->pi = 4;
		return true;
	case MLX5_HW_BFS_CRC32C_BASE:
		d->guard = GuardKind::CRC32C;
		d->pi = 4;
		return true;
	case MLX5_HW_BFS_CRC64_XP10_BASE:
		d->guard = GuardKind::CRC64_XP10;
		d->pi = 8;
		return true;
	default:
		return false;
	}
}

} // namespace

bool parse_bsf(const uint8_t *raw, SigCfg *cfg)
{
	struct mlx5_hw_bsf bsf;
	memcpy(&bsf, raw, sizeof(bsf));
	const struct mlx5_hw_bsf_basic &b = bsf.basic;
	memset(cfg, 0, sizeof(*cfg));
	/* basic + inline sections only: a crypto BSF needs an engine the model lacks */
	if ((b.bsf_size_sbs >> MLX5_HW_BSF_SIZE_SHIFT) != MLX5_HW_BSF_SIZE_WITH_INLINE ||
	    (b.bsf_size_sbs & 0x2f))
		return false;
	cfg->sbs = b.bsf_size_sbs & (1u << MLX5_HW_BSF_SBS_SHIFT);
	cfg->check_mask = b.check_byte_mask;
	if (!parse_domain(be32toh(b.m_bfs_psv), &bsf.m_inl, &cfg->mem) ||
	    !parse_domain(be32toh(b.w_bfs_psv), &bsf.w_inl, &cfg->wire))
		return false;
	SigDomain &m = cfg->mem, &w = cfg->wire;
	if (m.kind != SigDomain::NONE) {
		m.bs = selector_bytes(b.mem_bs_selector);
		if (!m.bs)
			return false;
	}
	if (w.kind != SigDomain::NONE) {
		w.bs = cfg->sbs ? m.bs : selector_bytes(b.wire_byte);
		if (!w.bs)
			return false;
	}
	cfg->copy_mask = cfg->sbs ? b.wire_byte : 0;
	/* SBS needs both domains; the model's engine keeps one data block size */
	if (cfg->sbs && (m.kind == SigDomain::NONE || w.kind == SigDomain::NONE))
		return false;
	if (m.kind != SigDomain::NONE && w.kind != SigDomain::NONE && m.bs != w.bs)
		return false;
	if (m.kind == SigDomain::NONE)
		m.bs = w.bs;
	if (w.kind == SigDomain::NONE)
		w.bs = m.bs;
	cfg->enabled = m.kind != SigDomain::NONE || w.kind != SigDomain::NONE;
	return true;
}

} // namespace mlx5sim
