/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST-ONLY HOOK. The only place of the suite that reads dma_mlx5's private state:
 * the SQ ring of a vchan, for the byte-for-byte comparison of the two posting
 * paths and for learning the keys a raw MMO WQE needs (the PMD API has no ring
 * accessor; proposed: rte_pmd_dma_mlx5_vchan_info() gaining the ring address), and
 * the signature pool, for comparing the signature UMRs the direct path writes with
 * libmlx5's builders, and the device's own (local-only) key of some memory, for
 * trying it as an rkey.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dmadev.h>

#include "mlx5_dma.h"
#include "mlx5_dma_sig.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

int test_hook_sq_ring(int16_t dev_id, uint16_t vchan, const uint8_t **ring, uint32_t *wqebbs)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	const struct mlx5_dma_dev *p;

	/* the public API vouches that dev_id is a dma_mlx5 device with this vchan set up */
	if (rte_pmd_dma_mlx5_vchan_info(dev_id, vchan, &info))
		return -EINVAL;
	p = mlx5_dma_api_dev(dev_id);
	*ring = p->vchans[vchan].sq;
	*wqebbs = p->vchans[vchan].sq_mask + 1;
	return 0;
}

int test_hook_preset_pi(int16_t dev_id, uint16_t vchan, uint32_t pi)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	struct mlx5_dma_vchan *vc;

	if (rte_pmd_dma_mlx5_vchan_info(dev_id, vchan, &info) || (pi & 0xffff))
		return -EINVAL;
	vc = &mlx5_dma_api_dev(dev_id)->vchans[vchan];
	if (vc->pi != vc->bb_ci || vc->pi != vc->db_pi || (vc->pi & 0xffff))
		return -EBUSY; /* only on an idle vchan whose device counter is at 0 mod 2^16 */
	vc->pi = vc->bb_ci = vc->db_pi = pi;
	vc->credits = 0;
	return 0;
}

int test_hook_next_wqe(int16_t dev_id, uint16_t vchan, uint16_t *wqe_index, uint32_t *cqn)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	const struct mlx5_dma_dev *p;
	const struct mlx5_dma_vchan *vc;
	struct mlx5dv_obj obj = {};
	struct mlx5dv_cq dvcq = {};

	if (rte_pmd_dma_mlx5_vchan_info(dev_id, vchan, &info))
		return -EINVAL;
	p = mlx5_dma_api_dev(dev_id);
	vc = &p->vchans[vchan];
	*wqe_index = (uint16_t)vc->pi;
	obj.cq.in = ibv_cq_ex_to_cq(vc->cq_ex);
	obj.cq.out = &dvcq;
	if (p->glue->dv_init_obj(&obj, MLX5DV_OBJ_CQ))
		return -EIO;
	*cqn = dvcq.cqn;
	return 0;
}

int test_hook_sig_umr_compare(int16_t dev_id, uint16_t vchan, uint32_t seed, uint32_t iters,
			      char *why, size_t why_len)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	uint32_t rng = seed, bad = 0;

	if (rte_pmd_dma_mlx5_vchan_info(dev_id, vchan, &info))
		return -EINVAL;
	auto *p = mlx5_dma_api_dev(dev_id);
	struct mlx5_dma_vchan *vc = &p->vchans[vchan];
	if (!vc->sig)
		return -ENOTSUP;
	auto next = [&rng]() {
		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		return rng;
	};
	static const enum rte_pmd_dma_mlx5_sig_type types[] = {
		RTE_PMD_DMA_MLX5_SIG_NONE,       RTE_PMD_DMA_MLX5_SIG_CRC32,
		RTE_PMD_DMA_MLX5_SIG_CRC32C,     RTE_PMD_DMA_MLX5_SIG_CRC64,
		RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM};
	static const uint16_t sizes[] = {512, 520, 4048, 4096, 4160};
	alignas(64) uint8_t a[MLX5_DMA_SIG_UMR_MAX_BYTES], b[MLX5_DMA_SIG_UMR_MAX_BYTES];

	for (uint32_t it = 0; it < iters; it++) {
		struct mlx5_dma_sig_layout lay = {};
		const struct mlx5_dma_sig_mkey *m = &vc->sig->m[next() % MLX5_DMA_SIG_MKEYS];
		uint32_t pi = next();

		lay.dom.type = types[next() % RTE_DIM(types)];
		lay.dom.block_size = sizes[next() % RTE_DIM(sizes)];
		lay.dom.flags = (uint16_t)(next() & 0x1f);
		if (lay.dom.type != RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC &&
		    lay.dom.type != RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM)
			lay.dom.flags &= RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES |
					 RTE_PMD_DMA_MLX5_SIG_F_NO_CHECK;
		lay.dom.app_tag = (uint16_t)next();
		lay.dom.ref_tag = next();
		lay.dom.check_mask = next() % 3 ? 0 : (uint8_t)next();
		lay.nb = (uint16_t)(1 + next() % vc->sig->max_sge);
		for (uint16_t i = 0; i < lay.nb; i++) {
			lay.seg[i].addr = (uint64_t)next() << 32 | next();
			/* now and then lengths whose sum passes 4 GiB: both refuse */
			lay.seg[i].len = it % 50 == 7 ? next() | 1u << 31 : next() % 70000;
			lay.seg[i].lkey = next();
		}
		uint32_t na = mlx5_dma_sig_umr_direct(vc, pi, m, &lay, a);
		uint32_t nb = mlx5_dma_sig_umr_builder(vc, pi, m, &lay, b);
		/* the UMR's fence byte is the op's, set after (the pad leaves its own) */
		a[11] = b[11] = 0;
		if (na == nb && memcmp(a, b, na * 64) == 0)
			continue;
		if (!bad++) {
			uint32_t at = 0;
			while (na == nb && at < na * 64 && a[at] == b[at])
				at++;
			snprintf(why, why_len,
				 "iteration %u: type %d bs %u flags %#x nb %u: WQEBBs %u / %u, "
				 "first "
				 "difference at byte %u (%#x / %#x)",
				 it, lay.dom.type, lay.dom.block_size, lay.dom.flags, lay.nb, na,
				 nb, at, at < na * 64 ? a[at] : 0, at < nb * 64 ? b[at] : 0);
		}
	}
	return (int)bad;
}

int test_hook_local_key(int16_t dev_id, const void *addr, uint32_t len, uint32_t *lkey)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);
	struct mlx5_dma_mr_cache cache;

	if (!p)
		return -EINVAL;
	mlx5_dma_mr_cache_init(&cache, p->mrs);
	const struct mlx5_dma_mr_range *r = mlx5_dma_mr_lookup(&cache, (uintptr_t)addr, len);
	if (!r)
		return -ENOENT;
	*lkey = r->lkey;
	return 0;
}

namespace {
struct mlx5_glue lid_zero_glue;
const struct mlx5_glue *lid_zero_orig;

int query_port_lid_zero(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	int ret = lid_zero_orig->query_port(context, port_num, attr);

	if (ret == 0)
		attr->lid = 0;
	return ret;
}
} // namespace

int test_hook_port_lid_zero(int16_t dev_id, int on)
{
	struct mlx5_dma_dev *p = mlx5_dma_api_dev(dev_id);

	if (!p || !!on == (lid_zero_orig != NULL))
		return -EINVAL;
	if (on) {
		lid_zero_orig = p->glue;
		lid_zero_glue = *p->glue;
		lid_zero_glue.query_port = query_port_lid_zero;
		p->glue = &lid_zero_glue;
	} else {
		p->glue = lid_zero_orig;
		lid_zero_orig = NULL;
	}
	return 0;
}
