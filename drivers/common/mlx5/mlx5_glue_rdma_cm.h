/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rdma-core glue library's connection manager (mlx5_glue::cm_listen,
 * cm_listen_close, cm_fetch) over Debian's librdmacm, which the glue library
 * dlopen()s on first use: nothing links librdmacm, and a host without it simply
 * has no connection manager (-ENOSYS).
 */
#ifndef MLX5_GLUE_RDMA_CM_H
#define MLX5_GLUE_RDMA_CM_H

#include "mlx5_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

/** librdmacm's soname (rdma-core's librdmacm1). */
#define MLX5_GLUE_RDMACM_SONAME "librdmacm.so.1"

int mlx5_glue_rdma_cm_listen(struct ibv_context *context, const struct sockaddr_in *addr,
			     uint32_t qpn, const void *req, size_t req_len, const void *reply,
			     size_t reply_len, void (*note)(void *arg, const char *line),
			     void *note_arg, struct mlx5_glue_cm_listener **out);
void mlx5_glue_rdma_cm_listen_close(struct mlx5_glue_cm_listener *listener);
int mlx5_glue_rdma_cm_fetch(struct ibv_context *context, const struct sockaddr_in *addr,
			    uint32_t qpn, const void *req, size_t req_len, int timeout_ms,
			    int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
			    void *check_arg);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_RDMA_CM_H */
