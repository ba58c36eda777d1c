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

#include <rte_dmadev_pmd.h>

#include "mlx5_dma_fp.h"
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

int enqueue(int16_t dev_id, uint16_t vchan, const struct rte_pmd_dma_mlx5_sig_xfer *x,
	    const struct rte_pmd_dma_mlx5_sig_response *resp, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);
	struct mlx5_dma_sig_layout sl, dl;
	uint32_t resp_skey = 0, resp_dkey = 0, err_key = 0;
	uint64_t stotal = 0, dtotal = 0, nb_blocks;
	uint32_t pi_s, pi_d, bs, skey, dkey, nbb_max, start, pi;
	bool verify_only, src_mk, dst_mk;
	uint16_t nb_ops = resp ? 2 : 1;
	int si = -1, di = -1, ret = 0, idx;
	uint64_t saddr, daddr;

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
	verify_only = x->flags & RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY;
	if (x->flags & ~RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY)
		return bad(vc, "transfer flags", x->flags);
	if (check_domain(vc, x->src_dom, "source") ||
	    (!verify_only && check_domain(vc, x->dst_dom, "destination")))
		return -EINVAL;
	pi_s = mlx5_dma_sig_pi_bytes(x->src_dom.type);
	pi_d = verify_only ? 0 : mlx5_dma_sig_pi_bytes(x->dst_dom.type);
	if (verify_only && (!pi_s || x->dst || x->nb_dst))
		return bad(vc, "verify-only needs a source domain and no destination, segments",
			   x->nb_dst);
	if (!pi_s && !pi_d)
		return bad(vc, "no domain on either side (use rte_dma_copy_sg), type",
			   x->src_dom.type);
	bs = pi_s ? x->src_dom.block_size : x->dst_dom.block_size;
	if (pi_s && pi_d && x->dst_dom.block_size != bs)
		return bad(vc, "source and destination block sizes differ: destination",
			   x->dst_dom.block_size);
	if (side_layout(vc, x->src, x->nb_src, x->src_dom, &sl, &stotal, "source"))
		return -EINVAL;
	if (stotal % (bs + pi_s) || stotal == 0)
		return bad(vc, "source length not a whole number of blocks:", stotal);
	nb_blocks = stotal / (bs + pi_s);
	if (nb_blocks * bs > vc->max_len || stotal > UINT32_MAX)
		return bad(vc, "transfer longer than the device's copy length:", nb_blocks * bs);
	if (!verify_only) {
		if (side_layout(vc, x->dst, x->nb_dst, x->dst_dom, &dl, &dtotal, "destination"))
			return -EINVAL;
		if (dtotal != nb_blocks * (bs + pi_d))
			return bad(vc, "destination length not the source's blocks:", dtotal);
	}
	if (resp) {
		resp_skey = iova_key(vc, resp->src, resp->len, "response source", &ret);
		if (!ret)
			resp_dkey = iova_key(vc, resp->dst, resp->len, "response destination",
					     &ret);
		if (!ret && resp->err_src) {
			err_key = iova_key(vc, resp->err_src, resp->err_len,
					   "error response source", &ret);
			if (!ret)
				iova_key(vc, resp->dst, resp->err_len, "error response destination",
					 &ret);
		}
		if (ret)
			return ret;
	}
	src_mk = pi_s || x->nb_src > 1;
	dst_mk = !verify_only && (pi_d || x->nb_dst > 1);
	nbb_max = 1 + (src_mk ? mlx5_dma_sig_umr_max_wqebbs(x->nb_src) : 0) +
		  (dst_mk ? mlx5_dma_sig_umr_max_wqebbs(x->nb_dst) : 0) +
		  (verify_only ? mlx5_dma_umr_interleaved_wqebbs(1) : 0) + (resp ? 1 : 0);
	if ((uint16_t)(vc->ring_idx - vc->reported) + nb_ops > vc->max_ops ||
	    !mlx5_dma_sq_fits(vc, nbb_max))
		return -ENOSPC;

	/* everything checked: write the op */
	struct mlx5_dma_sig_pool *p = vc->sig;
	bool su = false, du = false, user_fence = flags & RTE_DMA_OP_FLAG_FENCE, wrote_umr = false;

	si = src_mk ? pick(vc, sl, -1, &su) : -1;
	di = dst_mk ? pick(vc, dl, si, &du) : -1;
	if ((src_mk && si < 0) || (dst_mk && di < 0))
		return -ENOSPC; /* every signature mkey is in use by an op in flight */
	p->victim = (uint16_t)((RTE_MAX(si, di) + 1) % MLX5_DMA_SIG_MKEYS);
	uint8_t reg[2] = {0, 0};

	start = pi = vc->pi;
	if (src_mk) {
		if (su) {
			uint32_t n = mlx5_dma_sig_umr(vc, pi, &p->m[si], &sl, user_fence);

			if (!n)
				return bad(vc, "libmlx5 refused the source mkey's UMR, segments",
					   x->nb_src);
			pi += n;
			wrote_umr = true;
		} else {
			mlx5_dma_sig_nops(vc, pi, p->m[si].umr_nbb);
			pi += p->m[si].umr_nbb;
		}
		reg[0] = (uint8_t)(pi - start);
		saddr = 0;
		skey = p->m[si].mk->lkey;
	} else {
		saddr = sl.seg[0].addr;
		skey = sl.seg[0].lkey;
	}
	if (dst_mk) {
		if (du) {
			uint32_t n = mlx5_dma_sig_umr(vc, pi, &p->m[di], &dl,
						      user_fence && !wrote_umr);

			if (!n) {
				if (wrote_umr) {
					/* its UMR is never posted: state as before, maybe in error
					 */
					p->m[si].configured = false;
					p->m[si].rearm = true;
				}
				return bad(vc,
					   "libmlx5 refused the destination mkey's UMR, segments",
					   x->nb_dst);
			}
			pi += n;
			wrote_umr = true;
		} else {
			mlx5_dma_sig_nops(vc, pi, p->m[di].umr_nbb);
			pi += p->m[di].umr_nbb;
		}
		reg[1] = (uint8_t)(pi - start - reg[0]);
		daddr = 0;
		dkey = p->m[di].mk->lkey;
	} else if (verify_only) {
		if (p->discard_gen != vc->err_gen + 1) {
			struct mlx5_dma_xlat xl = {(uintptr_t)p->discard_buf,
						   MLX5_DMA_SIG_DISCARD_BYTES, p->discard_lkey, 0};
			uint32_t rep = (uint32_t)((vc->max_len + MLX5_DMA_SIG_DISCARD_BYTES - 1) /
						  MLX5_DMA_SIG_DISCARD_BYTES);

			pi += mlx5_dma_umr_post(vc, pi, p->discard, &xl, 1, rep, start, 0,
						user_fence && !wrote_umr ? RTE_DMA_OP_FLAG_FENCE
									 : 0);
			p->discard_gen = vc->err_gen + 1;
			wrote_umr = true;
		}
		daddr = 0;
		dkey = p->discard->lkey;
	} else {
		daddr = dl.seg[0].addr;
		dkey = dl.seg[0].lkey;
	}
	mlx5_dma_write_mmo(vc, pi, saddr, rte_cpu_to_be_32(skey), daddr, rte_cpu_to_be_32(dkey),
			   (uint32_t)(nb_blocks * bs),
			   wrote_umr ? flags & ~RTE_DMA_OP_FLAG_FENCE : flags);
	mlx5_dma_take_fence(vc, pi);
	uint8_t *fm = &vc->sq[((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT) + 11];

	/* its own CQE: a SIG_ERR CQE then names the first in-flight op of the mkey */
	*fm |= MLX5_WQE_CTRL_CQ_UPDATE;
	/* behind a region that a recovery may turn into a UMR: the small fence */
	if ((reg[0] || reg[1]) && !(*fm & MLX5_WQE_CTRL_FENCE))
		*fm |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	pi++;

	struct mlx5_dma_sig_op *op = &p->ops[vc->ring_idx & vc->sq_mask];

	memset(op, 0, sizeof(*op));
	op->sig = true;
	op->ring_idx = vc->ring_idx;
	op->mkey[0] = (int8_t)si;
	op->mkey[1] = (int8_t)di;
	op->reg_nbb[0] = reg[0];
	op->reg_nbb[1] = reg[1];
	op->block_bytes = bs + pi_s;
	if (si >= 0) {
		p->m[si].last_idx = vc->ring_idx;
		p->m[si].used = true;
	}
	if (di >= 0) {
		p->m[di].last_idx = vc->ring_idx;
		p->m[di].used = true;
	}
	vc->credits = 0; /* re-checked at the next op */
	vc->pi = start;
	idx = mlx5_dma_commit_op(vc, pi - start);
	if (resp) {
		op->has_resp = true;
		op->err_src = resp->err_src;
		op->err_len = resp->err_len;
		op->err_lkey = err_key;
		mlx5_dma_write_mmo(vc, vc->pi, resp->src, rte_cpu_to_be_32(resp_skey), resp->dst,
				   rte_cpu_to_be_32(resp_dkey), resp->len, RTE_DMA_OP_FLAG_FENCE);
		p->ops[vc->ring_idx & vc->sq_mask].sig = false;
		mlx5_dma_commit_op(vc, 1);
	}
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
