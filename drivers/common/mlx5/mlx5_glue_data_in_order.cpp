/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data-in-order: the rdma-core >= 46 flags on top of the v44 query.
 *
 * Guide note. v44's ibv_query_qp_data_in_order(qp, op, flags) reserves flags
 * (they must be 0) and answers 1 when the QP delivers whole messages in order,
 * else 0. rdma-core 46 added IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1), with
 * which the call returns a capability vector: WHOLE_MSG (1), and
 * ALIGNED_128_BYTES (2), which libibverbs adds whenever WHOLE_MSG is set. The
 * seam always asks v44 with flags 0 and derives the newer answer:
 *   flags 0            -> the v44 answer (0 or 1);
 *   RETURN_CAPS        -> WHOLE_MSG | ALIGNED_128_BYTES (3) if in order, else 0;
 *   any other bit      -> 0, as newer libibverbs answers unknown flags.
 * A provider that reports only 128-byte ordering (caps 2) cannot be told apart
 * on v44: v44 has no way to ask. DEVICE_ONLY (v60) is treated as unknown.
 */
#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"

int mlx5_glue_data_in_order_map(int v44_in_order, uint32_t flags)
{
	if (flags & ~(uint32_t)MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS)
		return 0;
	if (!(flags & MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS))
		return v44_in_order ? 1 : 0;
	return v44_in_order ? MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG |
				      MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES
			    : 0;
}
