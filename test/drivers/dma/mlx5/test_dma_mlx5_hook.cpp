/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEST-ONLY HOOK. The only place of the suite that reads dma_mlx5's private state:
 * the SQ ring of a vchan, for the byte-for-byte comparison of the two posting
 * paths and for learning the keys a raw MMO WQE needs. The PMD API has no ring
 * accessor (proposed: rte_pmd_dma_mlx5_vchan_info() gaining the ring address).
 */
#include <errno.h>

#include <rte_dmadev.h>

#include "mlx5_dma.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

int test_hook_sq_ring(int16_t dev_id, uint16_t vchan, const uint8_t **ring, uint32_t *wqebbs)
{
	struct rte_pmd_dma_mlx5_vchan_info info;
	const struct mlx5_dma_dev *p;

	/* the public API vouches that dev_id is a dma_mlx5 device with this vchan set up */
	if (rte_pmd_dma_mlx5_vchan_info(dev_id, vchan, &info))
		return -EINVAL;
	p = (const struct mlx5_dma_dev *)rte_dma_fp_objs[dev_id].dev_private;
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
	vc = &((struct mlx5_dma_dev *)rte_dma_fp_objs[dev_id].dev_private)->vchans[vchan];
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
	p = (const struct mlx5_dma_dev *)rte_dma_fp_objs[dev_id].dev_private;
	vc = &p->vchans[vchan];
	*wqe_index = (uint16_t)vc->pi;
	obj.cq.in = ibv_cq_ex_to_cq(vc->cq_ex);
	obj.cq.out = &dvcq;
	if (p->glue->dv_init_obj(&obj, MLX5DV_OBJ_CQ))
		return -EIO;
	*cqn = dvcq.cqn;
	return 0;
}
