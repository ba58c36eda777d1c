/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_pmd_dma_mlx5.h: the dma_mlx5 specific API. */
#include <errno.h>
#include <string.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "rte_pmd_dma_mlx5.h"

namespace {

/* dma_mlx5 devices by dmadev id (set at probe, cleared at release). */
struct mlx5_dma_dev *g_devs[RTE_DMADEV_DEFAULT_MAX];

} // namespace

struct mlx5_dma_dev *mlx5_dma_api_dev(int16_t dev_id)
{
	return dev_id < 0 || dev_id >= RTE_DMADEV_DEFAULT_MAX ? NULL : g_devs[dev_id];
}

struct mlx5_dma_vchan *mlx5_dma_api_vchan(int16_t dev_id, uint16_t vchan)
{
	struct mlx5_dma_dev *p;

	if (dev_id < 0 || dev_id >= RTE_DMADEV_DEFAULT_MAX || !(p = g_devs[dev_id]))
		return NULL;
	if (vchan >= p->nb_vchans || !p->vchans[vchan].configured)
		return NULL;
	return &p->vchans[vchan];
}

void mlx5_dma_api_attach(int16_t dev_id, struct mlx5_dma_dev *p)
{
	if (dev_id >= 0 && dev_id < RTE_DMADEV_DEFAULT_MAX)
		g_devs[dev_id] = p;
}

void mlx5_dma_api_detach(struct mlx5_dma_dev *p)
{
	for (auto &d : g_devs)
		if (d == p)
			d = NULL;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_get_caps(int16_t dev_id, struct rte_pmd_dma_mlx5_caps *caps)
{
	struct mlx5_dma_dev *p;

	if (!caps || dev_id < 0 || dev_id >= RTE_DMADEV_DEFAULT_MAX || !(p = g_devs[dev_id]))
		return -EINVAL;
	memset(caps, 0, sizeof(*caps));
	caps->max_wr_memcpy_length = p->max_wr_memcpy_length;
	snprintf(caps->device, sizeof(caps->device), "%s", p->glue->get_device_name(p->device));
	snprintf(caps->backend, sizeof(caps->backend), "%s", p->glue->name);
	caps->direct_path = p->args.path == MLX5_DMA_PATH_DIRECT;
	caps->sva = p->sva;
	caps->whole_key = p->sva; /* mlx5_dma_fp_install() */
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_vchan_info(int16_t dev_id, uint16_t vchan,
						struct rte_pmd_dma_mlx5_vchan_info *info)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);

	if (!vc || !info)
		return -EINVAL;
	info->qpn = vc->qp->qp_num;
	info->sq_wqebbs = vc->sq_mask + 1;
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_vchan_stats(int16_t dev_id, uint16_t vchan,
						 struct rte_pmd_dma_mlx5_vchan_stats *st)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);

	if (!vc || !st)
		return -EINVAL;
	/* written by the vchan's lcore alone: an aligned 64-bit load sees a whole value */
	st->recoveries = __atomic_load_n(&vc->stats.recoveries, __ATOMIC_RELAXED);
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_enqueue_raw_wqe(int16_t dev_id, uint16_t vchan,
						     const void *wqe, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);
	uint8_t copy[MLX5_HW_WQE_MAX_DS * MLX5_HW_DS_BYTES];
	uint32_t ds, nbb, pi;

	if (!vc || !wqe)
		return -EINVAL;
	ds = mlx5_hw_ctrl_ds((const struct mlx5_wqe_ctrl_seg *)wqe);
	if (!ds)
		return -EINVAL;
	nbb = mlx5_hw_ds_to_wqebbs(ds);
	if (nbb > vc->sq_mask + 1)
		return -EINVAL; /* would never fit */
	if (mlx5_dma_vchan_refusal(vc))
		return mlx5_dma_vchan_refusal(vc);
	if ((uint16_t)(vc->ring_idx - vc->reported) >= vc->max_ops ||
	    vc->pi - vc->bb_ci + nbb > vc->sq_mask + 1)
		return -ENOSPC;
	memcpy(copy, wqe, ds * MLX5_HW_DS_BYTES);
	if (flags & RTE_DMA_OP_FLAG_FENCE)
		((struct mlx5_wqe_ctrl_seg *)copy)->fm_ce_se |= MLX5_WQE_CTRL_FENCE;
	pi = vc->pi;
	vc->multi_start = pi;
	vc->multi_end = pi + nbb;
	vc->multi_valid = true;
	vc->credits = 0;    /* re-checked at the next enqueue */
	vc->fm_pending = 0; /* libmlx5 drops a pending small fence at a raw WQE */
	if (vc->path == MLX5_DMA_PATH_DIRECT) {
		for (uint32_t off = 0; off < ds * MLX5_HW_DS_BYTES; off += MLX5_HW_DS_BYTES) {
			uint32_t at = ((pi << MLX5_SEND_WQE_SHIFT) + off) &
				      ((vc->sq_mask + 1) * MLX5_SEND_WQE_BB - 1);

			memcpy(vc->sq + at, copy + off, MLX5_HW_DS_BYTES);
		}
		uint32_t *w0 = (uint32_t *)(vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT));
		*w0 = rte_cpu_to_be_32((rte_be_to_cpu_32(*w0) & 0xff0000ff) | (pi & 0xffff) << 8);
	} else {
		if (!vc->batch_open) {
			ibv_wr_start(vc->qpx);
			vc->batch_open = true;
		}
		vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, pi, nbb);
		mlx5dv_wr_raw_wqe(vc->dvqp, copy);
	}
	int idx = mlx5_dma_commit_op(vc, nbb);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_last_error(int16_t dev_id, uint16_t vchan,
						struct rte_pmd_dma_mlx5_error *err)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);

	if (!vc || !err)
		return -EINVAL;
	if (!vc->last_err.valid)
		return -ENOENT;
	err->ring_idx = vc->last_err.ring_idx;
	err->syndrome = vc->last_err.syndrome;
	err->vendor_syndrome = vc->last_err.vendor_syndrome;
	err->wqe_opcode = vc->last_err.wqe_opcode;
	return 0;
}
