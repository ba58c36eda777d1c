/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_dma_mlx5.h, signature copies: capabilities, the checks that refuse bad
 * input before anything is written, the choice of pooled mkeys, and the WQEs of one
 * op (UMRs + MMO) and of its fenced response.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <string.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_sig.h"
#include "mlx5_dma_umr.h"

void mlx5_dma_sig_caps_of(const struct mlx5_dma_dev *p, struct rte_pmd_dma_mlx5_sig_caps *c)
{
	const struct mlx5dv_sig_caps &s = p->sig_caps;

	memset(c, 0, sizeof(*c));
	if (s.block_prot & MLX5DV_SIG_PROT_CAP_T10DIF) {
		if (s.t10dif_bg & MLX5DV_SIG_T10DIF_BG_CAP_CRC)
			c->types |= 1u << RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC;
		if (s.t10dif_bg & MLX5DV_SIG_T10DIF_BG_CAP_CSUM)
			c->types |= 1u << RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM;
	}
	if (s.block_prot & MLX5DV_SIG_PROT_CAP_CRC) {
		if (s.crc_type & MLX5DV_SIG_CRC_TYPE_CAP_CRC32)
			c->types |= 1u << RTE_PMD_DMA_MLX5_SIG_CRC32;
		if (s.crc_type & MLX5DV_SIG_CRC_TYPE_CAP_CRC32C)
			c->types |= 1u << RTE_PMD_DMA_MLX5_SIG_CRC32C;
		if (s.crc_type & MLX5DV_SIG_CRC_TYPE_CAP_CRC64_XP10)
			c->types |= 1u << RTE_PMD_DMA_MLX5_SIG_CRC64;
	}
	if (s.block_size & MLX5DV_BLOCK_SIZE_CAP_512)
		c->block_sizes |= RTE_PMD_DMA_MLX5_SIG_BS_512;
	if (s.block_size & MLX5DV_BLOCK_SIZE_CAP_520)
		c->block_sizes |= RTE_PMD_DMA_MLX5_SIG_BS_520;
	if (s.block_size & MLX5DV_BLOCK_SIZE_CAP_4048)
		c->block_sizes |= RTE_PMD_DMA_MLX5_SIG_BS_4048;
	if (s.block_size & MLX5DV_BLOCK_SIZE_CAP_4096)
		c->block_sizes |= RTE_PMD_DMA_MLX5_SIG_BS_4096;
	if (s.block_size & MLX5DV_BLOCK_SIZE_CAP_4160)
		c->block_sizes |= RTE_PMD_DMA_MLX5_SIG_BS_4160;
	for (uint16_t i = 0; i < p->nb_vchans; i++)
		if (p->vchans[i].sig) {
			c->enabled = 1;
			c->max_sge = p->vchans[i].sig->max_sge;
			break;
		}
	c->pipelining = c->enabled && p->sig_pipelining;
	c->mkeys = c->enabled ? MLX5_DMA_SIG_MKEYS : 0;
}

/* the flags a domain may carry; the T10-DIF ones only with an 8-byte T10-DIF PI */
#define MLX5_DMA_SIG_DOMAIN_FLAGS                                                    \
	(RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES | RTE_PMD_DMA_MLX5_SIG_F_REF_INC |         \
	 RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE | RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE | \
	 RTE_PMD_DMA_MLX5_SIG_F_NO_CHECK)
#define MLX5_DMA_SIG_T10DIF_FLAGS                                             \
	(RTE_PMD_DMA_MLX5_SIG_F_REF_INC | RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE | \
	 RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE)

namespace {

int bad(const struct mlx5_dma_vchan *vc, const char *what, uint64_t value)
{
	MLX5_DMA_LOG(ERR, "%s vchan %u: signature copy: %s %" PRIu64, vc->dev->name, vc->vchan_id,
		     what, value);
	return -EINVAL;
}

/* bad() for one side's @p what (the label is built only on this, the error, path). */
__rte_noinline int bad_side(const struct mlx5_dma_vchan *vc, const char *side, const char *what,
			    uint64_t value)
{
	char label[96];

	snprintf(label, sizeof(label), "%s %s", side, what);
	return bad(vc, label, value);
}

/* 0, or the log line + -EINVAL of a domain the device cannot take. */
int check_domain(const struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_domain &d,
		 const char *side)
{
	uint32_t type;

	/* the caller may store any value in the enum: read it as the 32 bits it is */
	static_assert(sizeof(d.type) == sizeof(type), "32-bit enum");
	memcpy(&type, &d.type, sizeof(type));
	if (type == RTE_PMD_DMA_MLX5_SIG_NONE)
		return 0;
	if (type > RTE_PMD_DMA_MLX5_SIG_CRC64 || !(vc->sig->types & (1u << type)))
		return bad_side(vc, side, "domain type", type);
	if (!(rte_pmd_dma_mlx5_sig_block_size_bit(d.block_size) & vc->sig->block_sizes))
		return bad_side(vc, side, "block size", d.block_size);
	if ((d.flags & ~MLX5_DMA_SIG_DOMAIN_FLAGS) ||
	    ((d.flags & MLX5_DMA_SIG_T10DIF_FLAGS) &&
	     (mlx5_dma_sig_pi_bytes(d.type) != 8 || d.type == RTE_PMD_DMA_MLX5_SIG_CRC64)))
		return bad_side(vc, side, "domain flags", d.flags);
	return 0;
}

/* One side's list layout, domain included; 0 or -EINVAL (logged). */
int side_layout(struct mlx5_dma_vchan *vc, const struct rte_dma_sge *sge, uint16_t nb,
		const struct rte_pmd_dma_mlx5_sig_domain &d, struct mlx5_dma_sig_layout *lay,
		uint64_t *total, const char *side)
{
	/* the domain (padding too: layouts compare it as bytes) and the count; the
	 * entries beyond nb are never read */
	memset(lay, 0, offsetof(struct mlx5_dma_sig_layout, seg));
	if (!sge || nb == 0 || nb > vc->sig->max_sge)
		return bad_side(vc, side, "segments:", nb);
	if (d.type != RTE_PMD_DMA_MLX5_SIG_NONE) {
		lay->dom.type = d.type;
		lay->dom.block_size = d.block_size;
		lay->dom.flags = d.flags;
		lay->dom.app_tag = d.app_tag;
		lay->dom.check_mask = d.check_mask;
		lay->dom.ref_tag = d.ref_tag;
	}
	lay->nb = nb;
	*total = 0;
	for (uint16_t i = 0; i < nb; i++) {
		const struct mlx5_dma_mr_range *r =
			sge[i].length
				? mlx5_dma_mr_lookup(&vc->mr_cache, sge[i].addr, sge[i].length)
				: NULL;

		if (!r) {
			char what[64];

			snprintf(what, sizeof(what), "segment %u not registered (or empty) at", i);
			return bad_side(vc, side, what, sge[i].addr);
		}
		lay->seg[i].addr = sge[i].addr;
		lay->seg[i].len = sge[i].length;
		lay->seg[i].lkey = r->lkey;
		*total += sge[i].length;
	}
	return 0;
}

bool same_layout(const struct mlx5_dma_sig_layout &a, const struct mlx5_dma_sig_layout &b)
{
	/* the first segment's address tells most layouts apart: compare it inline first */
	return a.nb == b.nb && a.seg[0].addr == b.seg[0].addr &&
	       !memcmp(&a.dom, &b.dom, sizeof(a.dom)) &&
	       !memcmp(a.seg, b.seg, a.nb * sizeof(a.seg[0]));
}

/*
 * A pool mkey for @p lay (not @p exclude), among those no op in flight uses: the one
 * its hint slot names when that one holds @p lay already (no UMR), else the first free
 * one from the round-robin position (*umr). A layout held by another mkey than its
 * hint names costs one UMR more, never a wrong mkey. An mkey in flight is never
 * reused: had its op failed, the device would refuse it until a UMR re-arms it, and
 * whether it failed is known only once the op completed. -1: none free.
 */
int pick(struct mlx5_dma_vchan *vc, const struct mlx5_dma_sig_layout &lay, int exclude, bool *umr)
{
	struct mlx5_dma_sig_pool *p = vc->sig;
	int h = p->hint[mlx5_dma_sig_layout_slot(&lay)];
	const struct mlx5_dma_sig_mkey &hm = p->m[h];

	if (h != exclude && !(hm.used && !mlx5_dma_op_done(vc, hm.last_idx)) && hm.configured &&
	    !hm.rearm && hm.err_gen == vc->err_gen && same_layout(hm.lay, lay)) {
		*umr = false;
		return h;
	}
	*umr = true;
	for (int k = 0; k < MLX5_DMA_SIG_MKEYS; k++) {
		int i = (p->victim + k) % MLX5_DMA_SIG_MKEYS;
		const struct mlx5_dma_sig_mkey &m = p->m[i];

		if (i != exclude && !(m.used && !mlx5_dma_op_done(vc, m.last_idx)))
			return i;
	}
	return -1;
}

/* Key of an IOVA range (registered), or 0 (logged) with -EINVAL in *ret. */
uint32_t iova_key(struct mlx5_dma_vchan *vc, uint64_t addr, uint32_t len, const char *what,
		  int *ret)
{
	const struct mlx5_dma_mr_range *r = len && len <= vc->max_len
						    ? mlx5_dma_mr_lookup(&vc->mr_cache, addr, len)
						    : NULL;

	if (!r) {
		*ret = bad(vc, what, addr);
		return 0;
	}
	return r->lkey;
}

/* What the checks of one signature op settled: its layouts, sizes and the keys it needs. */
struct sig_plan {
	struct mlx5_dma_sig_layout sl, dl;
	uint64_t nb_blocks;
	uint32_t pi_s, pi_d, bs;
	uint32_t resp_skey, resp_dkey, err_key;
	bool verify_only;
	bool src_mk, dst_mk; /**< the side goes through a pooled mkey */
};

/* The WQEs of one op while they are written: positions, pooled mkeys, what the MMO names. */
struct sig_wqes {
	uint32_t start; /**< first WQEBB of the op */
	uint32_t pi;    /**< next WQEBB */
	int si, di;     /**< pooled mkeys of the sides, -1: none */
	bool su, du;    /**< that mkey needs a UMR (else NOPs keep its region) */
	bool user_fence;
	bool wrote_umr;
	uint8_t reg[2]; /**< WQEBBs of each side's region */
	uint64_t saddr, daddr;
	uint32_t skey, dkey;
};

/* Step 1: the transfer's flags, domains and lists; 0 or -EINVAL (logged). */
int sig_check_xfer(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_xfer *x,
		   struct sig_plan *pl)
{
	uint64_t stotal = 0, dtotal = 0;

	pl->verify_only = x->flags & RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY;
	if (x->flags & ~RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY)
		return bad(vc, "transfer flags", x->flags);
	if (check_domain(vc, x->src_dom, "source") ||
	    (!pl->verify_only && check_domain(vc, x->dst_dom, "destination")))
		return -EINVAL;
	pl->pi_s = mlx5_dma_sig_pi_bytes(x->src_dom.type);
	pl->pi_d = pl->verify_only ? 0 : mlx5_dma_sig_pi_bytes(x->dst_dom.type);
	if (pl->verify_only && (!pl->pi_s || x->dst || x->nb_dst))
		return bad(vc, "verify-only needs a source domain and no destination, segments",
			   x->nb_dst);
	if (!pl->pi_s && !pl->pi_d)
		return bad(vc, "no domain on either side (use rte_dma_copy_sg), type",
			   x->src_dom.type);
	pl->bs = pl->pi_s ? x->src_dom.block_size : x->dst_dom.block_size;
	if (pl->pi_s && pl->pi_d && x->dst_dom.block_size != pl->bs)
		return bad(vc, "source and destination block sizes differ: destination",
			   x->dst_dom.block_size);
	if (side_layout(vc, x->src, x->nb_src, x->src_dom, &pl->sl, &stotal, "source"))
		return -EINVAL;
	if (stotal % (pl->bs + pl->pi_s) || stotal == 0)
		return bad(vc, "source length not a whole number of blocks:", stotal);
	pl->nb_blocks = stotal / (pl->bs + pl->pi_s);
	if (pl->nb_blocks * pl->bs > vc->max_len || stotal > UINT32_MAX)
		return bad(vc, "transfer longer than the device's copy length:",
			   pl->nb_blocks * pl->bs);
	if (!pl->verify_only) {
		if (side_layout(vc, x->dst, x->nb_dst, x->dst_dom, &pl->dl, &dtotal, "destination"))
			return -EINVAL;
		if (dtotal != pl->nb_blocks * (pl->bs + pl->pi_d))
			return bad(vc, "destination length not the source's blocks:", dtotal);
	}
	pl->src_mk = pl->pi_s || x->nb_src > 1;
	pl->dst_mk = !pl->verify_only && (pl->pi_d || x->nb_dst > 1);
	return 0;
}

/* Step 2: the keys of the response's buffers; 0 or -EINVAL (logged). */
int sig_check_resp(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_response *resp,
		   struct sig_plan *pl)
{
	int ret = 0;

	pl->resp_skey = iova_key(vc, resp->src, resp->len, "response source", &ret);
	if (!ret)
		pl->resp_dkey = iova_key(vc, resp->dst, resp->len, "response destination", &ret);
	if (!ret && resp->err_src) {
		pl->err_key = iova_key(vc, resp->err_src, resp->err_len, "error response source",
				       &ret);
		if (!ret)
			iova_key(vc, resp->dst, resp->err_len, "error response destination", &ret);
	}
	return ret;
}

/* Step 3: the most WQEBBs the op (and its response) may take. */
uint32_t sig_max_wqebbs(const struct rte_pmd_dma_mlx5_sig_xfer *x, bool resp,
			const struct sig_plan *pl)
{
	return 1 + (pl->src_mk ? mlx5_dma_sig_umr_max_wqebbs(x->nb_src) : 0) +
	       (pl->dst_mk ? mlx5_dma_sig_umr_max_wqebbs(x->nb_dst) : 0) +
	       (pl->verify_only ? mlx5_dma_umr_interleaved_wqebbs(1) : 0) + (resp ? 1 : 0);
}

/* Step 4: the pooled mkeys of the sides; 0 or -ENOSPC (all in use by ops in flight). */
int sig_pick_mkeys(struct mlx5_dma_vchan *vc, const struct sig_plan *pl, struct sig_wqes *w)
{
	w->si = pl->src_mk ? pick(vc, pl->sl, -1, &w->su) : -1;
	w->di = pl->dst_mk ? pick(vc, pl->dl, w->si, &w->du) : -1;
	if ((pl->src_mk && w->si < 0) || (pl->dst_mk && w->di < 0))
		return -ENOSPC;
	vc->sig->victim = (uint16_t)((RTE_MAX(w->si, w->di) + 1) % MLX5_DMA_SIG_MKEYS);
	return 0;
}

/* Step 5: the source's region (UMR, or NOPs where the mkey holds it) or its only segment. */
int sig_write_src(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_xfer *x,
		  const struct sig_plan *pl, struct sig_wqes *w)
{
	struct mlx5_dma_sig_pool *p = vc->sig;

	if (!pl->src_mk) {
		w->saddr = pl->sl.seg[0].addr;
		w->skey = pl->sl.seg[0].lkey;
		return 0;
	}
	if (w->su) {
		uint32_t n = mlx5_dma_sig_umr(vc, w->pi, &p->m[w->si], &pl->sl, w->user_fence);

		if (!n)
			return bad(vc, "libmlx5 refused the source mkey's UMR, segments",
				   x->nb_src);
		w->pi += n;
		w->wrote_umr = true;
	} else {
		mlx5_dma_sig_nops(vc, w->pi, p->m[w->si].umr_nbb);
		w->pi += p->m[w->si].umr_nbb;
	}
	w->reg[0] = (uint8_t)(w->pi - w->start);
	w->saddr = 0;
	w->skey = p->m[w->si].mk->lkey;
	return 0;
}

/* Step 6: the destination's region, the discard mkey (verify-only) or its only segment. */
int sig_write_dst(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_xfer *x,
		  const struct sig_plan *pl, struct sig_wqes *w)
{
	struct mlx5_dma_sig_pool *p = vc->sig;

	if (pl->dst_mk) {
		if (w->du) {
			uint32_t n = mlx5_dma_sig_umr(vc, w->pi, &p->m[w->di], &pl->dl,
						      w->user_fence && !w->wrote_umr);

			if (!n) {
				if (w->wrote_umr) {
					/* its UMR is never posted: state as before, maybe in error
					 */
					p->m[w->si].configured = false;
					p->m[w->si].rearm = true;
				}
				return bad(vc,
					   "libmlx5 refused the destination mkey's UMR, segments",
					   x->nb_dst);
			}
			w->pi += n;
			w->wrote_umr = true;
		} else {
			mlx5_dma_sig_nops(vc, w->pi, p->m[w->di].umr_nbb);
			w->pi += p->m[w->di].umr_nbb;
		}
		w->reg[1] = (uint8_t)(w->pi - w->start - w->reg[0]);
		w->daddr = 0;
		w->dkey = p->m[w->di].mk->lkey;
	} else if (pl->verify_only) {
		if (p->discard_gen != vc->err_gen + 1) {
			struct mlx5_dma_xlat xl = {(uintptr_t)p->discard_buf,
						   MLX5_DMA_SIG_DISCARD_BYTES, p->discard_lkey, 0};
			uint32_t rep = (uint32_t)((vc->max_len + MLX5_DMA_SIG_DISCARD_BYTES - 1) /
						  MLX5_DMA_SIG_DISCARD_BYTES);

			w->pi += mlx5_dma_umr_post(
				vc, w->pi, p->discard, &xl, 1, rep, w->start, 0,
				w->user_fence && !w->wrote_umr ? RTE_DMA_OP_FLAG_FENCE : 0);
			p->discard_gen = vc->err_gen + 1;
			w->wrote_umr = true;
		}
		w->daddr = 0;
		w->dkey = p->discard->lkey;
	} else {
		w->daddr = pl->dl.seg[0].addr;
		w->dkey = pl->dl.seg[0].lkey;
	}
	return 0;
}

/* Step 7: the MMO that moves and checks the blocks, with its own CQE. */
void sig_write_mmo(struct mlx5_dma_vchan *vc, const struct sig_plan *pl, struct sig_wqes *w,
		   uint64_t flags)
{
	mlx5_dma_write_mmo(vc, w->pi, w->saddr, rte_cpu_to_be_32(w->skey), w->daddr,
			   rte_cpu_to_be_32(w->dkey), (uint32_t)(pl->nb_blocks * pl->bs),
			   w->wrote_umr ? flags & ~RTE_DMA_OP_FLAG_FENCE : flags);
	mlx5_dma_take_fence(vc, w->pi);
	uint8_t *fm = &vc->sq[((w->pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT) + 11];

	/* its own CQE: a SIG_ERR CQE then names the first in-flight op of the mkey */
	*fm |= MLX5_WQE_CTRL_CQ_UPDATE;
	/* behind a region that a recovery may turn into a UMR: the small fence */
	if ((w->reg[0] || w->reg[1]) && !(*fm & MLX5_WQE_CTRL_FENCE))
		*fm |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	w->pi++;
}

/* Step 8: what recovery and error reports need of the op, and its mkeys' last use. */
struct mlx5_dma_sig_op *sig_record_op(struct mlx5_dma_vchan *vc, const struct sig_plan *pl,
				      const struct sig_wqes *w)
{
	struct mlx5_dma_sig_pool *p = vc->sig;
	struct mlx5_dma_sig_op *op = &p->ops[vc->ring_idx & vc->sq_mask];

	memset(op, 0, sizeof(*op));
	op->sig = true;
	op->ring_idx = vc->ring_idx;
	op->mkey[0] = (int8_t)w->si;
	op->mkey[1] = (int8_t)w->di;
	op->reg_nbb[0] = w->reg[0];
	op->reg_nbb[1] = w->reg[1];
	op->block_bytes = pl->bs + pl->pi_s;
	if (w->si >= 0) {
		p->m[w->si].last_idx = vc->ring_idx;
		p->m[w->si].used = true;
	}
	if (w->di >= 0) {
		p->m[w->di].last_idx = vc->ring_idx;
		p->m[w->di].used = true;
	}
	return op;
}

/* Step 9: the fenced response copy, an op of its own behind the signature op. */
void sig_write_response(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_sig_response *resp,
			const struct sig_plan *pl, struct mlx5_dma_sig_op *op)
{
	op->has_resp = true;
	op->err_src = resp->err_src;
	op->err_len = resp->err_len;
	op->err_lkey = pl->err_key;
	mlx5_dma_write_mmo(vc, vc->pi, resp->src, rte_cpu_to_be_32(pl->resp_skey), resp->dst,
			   rte_cpu_to_be_32(pl->resp_dkey), resp->len, RTE_DMA_OP_FLAG_FENCE);
	vc->sig->ops[vc->ring_idx & vc->sq_mask].sig = false;
	mlx5_dma_commit_op(vc, 1);
}

/*
 * One signature op (+ its response): every check first, then the WQEs (steps above);
 * nothing is written unless the op is accepted.
 */
int enqueue(int16_t dev_id, uint16_t vchan, const struct rte_pmd_dma_mlx5_sig_xfer *x,
	    const struct rte_pmd_dma_mlx5_sig_response *resp, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);
	uint16_t nb_ops = resp ? 2 : 1;
	struct mlx5_dma_sig_op *op;
	struct sig_plan pl;
	struct sig_wqes w;
	int ret, idx;

	if (!vc || !x)
		return -EINVAL;
	if (!vc->sig) {
		MLX5_DMA_LOG(ERR,
			     "%s vchan %u: no signature copies (device without signature "
			     "offload, sig=1 devarg missing, or path=verbs)",
			     vc->dev->name, vc->vchan_id);
		return -ENOTSUP;
	}
	ret = mlx5_dma_admit_op(vc);
	if (ret)
		return ret;
	pl.resp_skey = pl.resp_dkey = pl.err_key = 0;
	ret = sig_check_xfer(vc, x, &pl);
	if (!ret && resp)
		ret = sig_check_resp(vc, resp, &pl);
	if (ret)
		return ret;
	if ((uint16_t)(vc->ring_idx - vc->reported) + nb_ops > vc->max_ops ||
	    !mlx5_dma_sq_fits(vc, sig_max_wqebbs(x, resp != NULL, &pl)))
		return -ENOSPC;

	/* everything checked: write the op */
	memset(&w, 0, sizeof(w));
	w.user_fence = flags & RTE_DMA_OP_FLAG_FENCE;
	ret = sig_pick_mkeys(vc, &pl, &w);
	if (ret)
		return ret;
	w.start = w.pi = vc->pi;
	ret = sig_write_src(vc, x, &pl, &w);
	if (!ret)
		ret = sig_write_dst(vc, x, &pl, &w);
	if (ret)
		return ret;
	sig_write_mmo(vc, &pl, &w, flags);
	op = sig_record_op(vc, &pl, &w);
	vc->credits = 0; /* re-checked at the next op */
	vc->pi = w.start;
	idx = mlx5_dma_commit_op(vc, w.pi - w.start);
	if (resp)
		sig_write_response(vc, resp, &pl, op);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

} // namespace

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_sig_caps(int16_t dev_id,
					      struct rte_pmd_dma_mlx5_sig_caps *caps)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);

	if (!p || !caps)
		return -EINVAL;
	if (!p->sig_caps.block_prot) {
		MLX5_DMA_LOG(ERR, "%s: the device reports no signature offload", p->name);
		return -ENOTSUP;
	}
	mlx5_dma_sig_caps_of(p, caps);
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_sig_copy(int16_t dev_id, uint16_t vchan,
					      const struct rte_pmd_dma_mlx5_sig_xfer *xfer,
					      uint64_t flags)
{
	return enqueue(dev_id, vchan, xfer, NULL, flags);
}

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_sig_copy_respond(int16_t dev_id, uint16_t vchan,
				  const struct rte_pmd_dma_mlx5_sig_xfer *xfer,
				  const struct rte_pmd_dma_mlx5_sig_response *resp, uint64_t flags)
{
	if (!resp)
		return -EINVAL;
	return enqueue(dev_id, vchan, xfer, resp, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_sig_error(int16_t dev_id, uint16_t vchan, uint16_t ring_idx,
					       struct rte_pmd_dma_mlx5_sig_err *err)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);
	struct mlx5_dma_sig_pool *p;
	uint32_t n;

	if (!vc || !err)
		return -EINVAL;
	p = vc->sig;
	if (!p)
		return -ENOENT;
	n = RTE_MIN(p->nb_errs, (uint32_t)MLX5_DMA_SIG_ERRS);
	for (uint32_t k = 1; k <= n; k++) {
		const struct rte_pmd_dma_mlx5_sig_err *e =
			&p->errs[(p->nb_errs - k) % MLX5_DMA_SIG_ERRS];

		if (e->ring_idx == ring_idx) {
			*err = *e;
			return 0;
		}
	}
	return -ENOENT;
}
