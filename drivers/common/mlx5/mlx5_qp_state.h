/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Bringing a QP through RESET -> INIT -> RTR (-> RTS): an RC QP, a DC initiator, a
 * DC target. The one place that knows the verbs attribute masks, shared by the PMD
 * (set-up, error recovery, remote copies), the demo, dc-bench and the tests. Works
 * on either backend of the seam.
 */
#ifndef MLX5_QP_STATE_H
#define MLX5_QP_STATE_H

#include <stdint.h>

#include "mlx5_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Move @p qp (in RESET) to RTS, connected to @p dest_qpn on the same port
 * (loopback; pass the QP's own number to connect it to itself).
 * @param access IBV_ACCESS_REMOTE_* rights granted to the peer.
 * @return 0, or a negative errno naming the failing step in the log of the caller;
 *         on failure the QP is left in RESET.
 */
int mlx5_qp_connect_rc(const struct mlx5_glue *glue, struct ibv_qp *qp, uint32_t dest_qpn,
		       int access);

/** Move @p qp to RESET (any state), then back to RTS towards @p dest_qpn. */
int mlx5_qp_reconnect_rc(const struct mlx5_glue *glue, struct ibv_qp *qp, uint32_t dest_qpn,
			 int access);

/**
 * Move DC initiator @p qp (in RESET, or any state with @p reset) to RTS: port 1, the
 * port's MTU, no remote attributes (every WQE carries its address vector).
 * @return 0, or a negative errno; on failure the QP is left in RESET.
 */
int mlx5_qp_connect_dci(const struct mlx5_glue *glue, struct ibv_qp *qp, int reset);

/**
 * Move DC target @p qp (in RESET) to RTR, where it stays, answering with the
 * IBV_ACCESS_* rights @p access, with the kernel's masks (an AV on RTR).
 * @return 0, or a negative errno; on failure the caller destroys the DCT (a DCT has
 * no transition back to RESET).
 */
int mlx5_qp_connect_dct(const struct mlx5_glue *glue, struct ibv_qp *qp, int access);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_QP_STATE_H */
