/* SPDX-License-Identifier: BSD-3-Clause */
#include "mlx5_qp_state.h"

#include <errno.h>
#include <string.h>

#include <algorithm>

namespace {

int modify(const struct mlx5_glue *glue, struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret = glue->modify_qp(qp, attr, mask);

	/* rdma-core returns a positive errno; keep the project's negative convention */
	return ret > 0 ? -ret : ret;
}

/** Port 1 of @p ctx, which must be active; its MTU at most 4096. 0 or a negative errno. */
int active_port(const struct mlx5_glue *glue, struct ibv_context *ctx, struct ibv_port_attr *port,
		enum ibv_mtu *mtu)
{
	int ret;

	memset(port, 0, sizeof(*port));
	ret = glue->query_port(ctx, 1, port);
	if (ret)
		return ret > 0 ? -ret : ret;
	if (port->state != IBV_PORT_ACTIVE)
		return -ENETDOWN;
	*mtu = port->active_mtu < IBV_MTU_4096 ? port->active_mtu : IBV_MTU_4096;
	return 0;
}

/*
 * The address of the port itself, for a QP connected to a QP of the same port: on
 * InfiniBand its LID (the port must be active, i.e. a subnet manager assigned one);
 * on Ethernet (RoCE, the default of ConnectX-7 and BlueField) a GRH with one of the
 * port's RoCE GIDs, v2 preferred. Also the path MTU and read/atomic depths the port
 * and the device allow.
 */
int self_path(const struct mlx5_glue *glue, struct ibv_qp *qp, struct ibv_ah_attr *ah,
	      enum ibv_mtu *mtu, uint8_t *rd_atom, uint8_t *init_rd_atom)
{
	struct ibv_context *ctx = qp->context;
	struct ibv_port_attr port;
	struct ibv_device_attr_ex dev;
	int ret, best = -1, best_type = -1;

	memset(&dev, 0, sizeof(dev));
	ret = active_port(glue, ctx, &port, mtu);
	if (ret)
		return ret;
	ret = glue->query_device_ex(ctx, NULL, &dev);
	if (ret)
		return ret > 0 ? -ret : ret;
	*rd_atom = (uint8_t)std::min(dev.orig_attr.max_qp_rd_atom, 16);
	*init_rd_atom = (uint8_t)std::min(dev.orig_attr.max_qp_init_rd_atom, 16);
	memset(ah, 0, sizeof(*ah));
	ah->port_num = 1;
	if (port.link_layer != IBV_LINK_LAYER_ETHERNET) {
		ah->dlid = port.lid;
		return 0;
	}
	for (int i = 0; i < port.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		int type;

		memset(&e, 0, sizeof(e));
		if (glue->query_gid_ex(ctx, 1, (uint32_t)i, &e, 0) != 0 ||
		    (!e.gid.global.subnet_prefix && !e.gid.global.interface_id))
			continue;
		type = e.gid_type == IBV_GID_TYPE_ROCE_V2   ? 2
		       : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? 1
							    : -1;
		if (type > best_type) {
			best_type = type;
			best = i;
			ah->grh.dgid = e.gid;
		}
	}
	if (best < 0)
		return -EADDRNOTAVAIL; /* no RoCE GID: the netdev has no IP/MAC address */
	ah->is_global = 1;
	ah->grh.sgid_index = (uint8_t)best;
	ah->grh.hop_limit = 64;
	return 0;
}

int to_reset(const struct mlx5_glue *glue, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RESET;
	return modify(glue, qp, &attr, IBV_QP_STATE);
}

/** RESET -> INIT on port 1, pkey 0; @p access (IBV_ACCESS_*) unless negative. */
int to_init(const struct mlx5_glue *glue, struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = access < 0 ? 0 : access;
	return modify(glue, qp, &attr,
		      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      (access < 0 ? 0 : IBV_QP_ACCESS_FLAGS));
}

/** RTR -> RTS of a requester: PSN 0, timeout 14, retries 7, RNR retries for ever. */
int to_rts(const struct mlx5_glue *glue, struct ibv_qp *qp, uint8_t max_rd_atomic)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7; /* infinite: a loopback peer always posts its receives */
	attr.max_rd_atomic = max_rd_atomic;
	return modify(glue, qp, &attr,
		      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

} // namespace

int mlx5_qp_connect_rc(const struct mlx5_glue *glue, struct ibv_qp *qp, uint32_t dest_qpn,
		       int access)
{
	struct ibv_qp_attr attr;
	struct ibv_ah_attr ah;
	enum ibv_mtu mtu;
	uint8_t rd_atom, init_rd_atom;
	int ret;

	ret = self_path(glue, qp, &ah, &mtu, &rd_atom, &init_rd_atom);
	if (ret)
		goto fail;
	ret = to_init(glue, qp, access);
	if (ret)
		goto fail;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = mtu;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = rd_atom;
	attr.min_rnr_timer = 1;
	attr.ah_attr = ah;
	ret = modify(glue, qp, &attr,
		     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		goto fail;
	ret = to_rts(glue, qp, init_rd_atom);
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

int mlx5_qp_connect_dci(const struct mlx5_glue *glue, struct ibv_qp *qp, int reset)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr attr;
	enum ibv_mtu mtu;
	int ret = reset ? to_reset(glue, qp) : 0;

	if (ret == 0)
		ret = active_port(glue, qp->context, &port, &mtu);
	if (ret == 0)
		ret = to_init(glue, qp, -1); /* a DCI has no responder rights */
	if (ret)
		goto fail;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = mtu;
	ret = modify(glue, qp, &attr, IBV_QP_STATE | IBV_QP_PATH_MTU);
	if (ret == 0)
		ret = to_rts(glue, qp, 16);
	if (ret)
		goto fail;
	return 0;
fail:
	to_reset(glue, qp);
	return ret;
}

int mlx5_qp_connect_dct(const struct mlx5_glue *glue, struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr attr;
	enum ibv_mtu mtu;
	uint8_t rd_atom, init_rd_atom;

	memset(&attr, 0, sizeof(attr));
	/* the port's own address: its port number, and on RoCE the GID index answers use */
	int ret = self_path(glue, qp, &attr.ah_attr, &mtu, &rd_atom, &init_rd_atom);

	if (ret == 0)
		ret = to_init(glue, qp, access);
	if (ret)
		goto fail;
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = mtu;
	attr.min_rnr_timer = 12;
	/* mlx5_ib's modify_dct takes INIT to RTR only with the AV (the kernel side too) */
	ret = modify(glue, qp, &attr,
		     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		goto fail;
	return 0;
fail:
	to_reset(glue, qp);
	return ret;
}
