/* SPDX-License-Identifier: BSD-3-Clause */
#include "mlx5_qp_state.h"

#include <errno.h>
#include <string.h>

namespace {

int modify(const struct mlx5_glue *glue, struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret = glue->modify_qp(qp, attr, mask);

	/* rdma-core returns a positive errno; keep the project's negative convention */
	return ret > 0 ? -ret : ret;
}

int to_reset(const struct mlx5_glue *glue, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RESET;
	return modify(glue, qp, &attr, IBV_QP_STATE);
}

} // namespace

int mlx5_qp_connect_rc(const struct mlx5_glue *glue, struct ibv_qp *qp, uint32_t dest_qpn,
		       int access)
{
	struct ibv_qp_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = access;
	ret = modify(glue, qp, &attr,
		     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		goto fail;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_4096;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 16;
	attr.min_rnr_timer = 1;
	attr.ah_attr.port_num = 1;
	ret = modify(glue, qp, &attr,
		     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		goto fail;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7; /* infinite: a loopback peer always posts its receives */
	attr.max_rd_atomic = 16;
	ret = modify(glue, qp, &attr,
		     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		goto fail;
	return 0;
fail:
	to_reset(glue, qp);
	return ret;
}

int mlx5_qp_reconnect_rc(const struct mlx5_glue *glue, struct ibv_qp *qp, uint32_t dest_qpn,
			 int access)
{
	int ret = to_reset(glue, qp);

	if (ret)
		return ret;
	return mlx5_qp_connect_rc(glue, qp, dest_qpn, access);
}
