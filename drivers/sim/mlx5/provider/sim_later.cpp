/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Seam entry points of features that later issues bring to the software HCA.
 * Each reports "not supported" the way libmlx5 does on a device without the
 * feature, so code above the seam takes its fallback path.
 */
#include <errno.h>

#include "sim_internal.h"

namespace mlx5sim {

/* DCI streams (DC transport): later issue. */
int sim_dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id)
{
	(void)qp;
	(void)stream_id;
	return EOPNOTSUPP;
}

} // namespace mlx5sim
