/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DC transport on the provider side: address handles (the address vector a DCI
 * WQE carries) and mlx5dv_dci_stream_id_reset with libmlx5 v44.0's checks.
 */
#include <errno.h>
#include <string.h>

#include "sim_internal.h"

namespace mlx5sim {

struct ibv_ah *sim_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	SimAh *ah;

	if (!pd || !attr || !sim_is_sim_context(pd->context) || attr->port_num != 1 ||
	    (attr->is_global && attr->grh.sgid_index != 0)) {
		errno = EINVAL;
		return nullptr;
	}
	ah = new (std::nothrow) SimAh();
	if (!ah) {
		errno = ENOMEM;
		return nullptr;
	}
	/* an IB address vector (ASSUMPTIONS.md: the model's port is InfiniBand) */
	ah->av.stat_rate_sl = (uint8_t)((attr->static_rate << 4) | (attr->sl & 0xf));
	ah->av.fl_mlid = attr->src_path_bits & 0x7f;
	ah->av.rlid = htobe16(attr->dlid);
	ah->av.dqp_dct = htobe32(MLX5_EXTENDED_UD_AV);
	if (attr->is_global) {
		ah->av.tclass = attr->grh.traffic_class;
		ah->av.hop_limit = attr->grh.hop_limit;
		ah->av.grh_gid_fl = htobe32((1u << 30) | ((uint32_t)attr->grh.sgid_index << 20) |
					    (attr->grh.flow_label & 0xfffff));
		memcpy(ah->av.rgid, attr->grh.dgid.raw, sizeof(ah->av.rgid));
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	return &ah->ibah;
}

int sim_destroy_ah(struct ibv_ah *ibah)
{
	if (!ibah || !sim_is_sim_context(ibah->context))
		return EINVAL;
	delete to_sim_ah(ibah);
	return 0;
}

int sim_dv_dci_stream_id_reset(struct ibv_qp *ibqp, uint16_t stream_id)
{
	if (!ibqp || !sim_is_sim_context(ibqp->context))
		return EOPNOTSUPP;
	SimCtxFull *ctx = to_ctx_full(ibqp->context);
	SimQpFull *qp = to_qp_full(ibqp);
	/* libmlx5: no stream errors to reset, or a QP it does not believe in RTS */
	if (!ctx->hca->caps().dci_max_log_errored || ibqp->state != IBV_QPS_RTS)
		return EOPNOTSUPP;
	if (!qp->is_dci)
		return EINVAL;
	return -ctx->hca->dci_stream_reset(qp->qpn, stream_id);
}

} // namespace mlx5sim
