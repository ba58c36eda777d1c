/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device contexts of the sim backend: open/close, device queries and the test
 * controls of mlx5_sim.h that act on an open context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cq_poll.h"
#include "mlx5_hw.h"
#include "sim_internal.h"

namespace mlx5sim {

void *sim_zalloc(size_t align, size_t size)
{
	void *p = nullptr;

	if (posix_memalign(&p, align, size ? size : align))
		return nullptr;
	memset(p, 0, size ? size : align);
	return p;
}

namespace {

/** ibv_qp_state to qpc.state (the PRM numbers SQD as SQDRAINED 5, SQE as SQER 4). */
uint8_t qpc_state(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return MLX5_HW_QPC_STATE_RST;
	case IBV_QPS_INIT:
		return MLX5_HW_QPC_STATE_INIT;
	case IBV_QPS_RTR:
		return MLX5_HW_QPC_STATE_RTR;
	case IBV_QPS_RTS:
		return MLX5_HW_QPC_STATE_RTS;
	case IBV_QPS_SQD:
		return MLX5_HW_QPC_STATE_SQDRAINED;
	case IBV_QPS_SQE:
		return MLX5_HW_QPC_STATE_SQER;
	default:
		return MLX5_HW_QPC_STATE_ERR;
	}
}

/** DEVX commands of a sim context: answered by the device. */
class HcaDevx final : public DevxCmd {
public:
	int query_qp(SimQp *qp, uint8_t *status, QpcInfo *out) override
	{
		QpInfo info;
		int ret = qp->ctx->hca->query_qp(qp->qpn, &info);

		if (ret) {
			*status = 0x2; /* BAD_OP: firmware refuses the command */
			return EREMOTEIO;
		}
		out->state = qpc_state(info.state);
		out->hw_sq_wqebb_counter = info.hw_sq_wqebb_counter;
		return 0;
	}
};

HcaDevx g_devx; /* stateless: one for all contexts */

/** libmlx5's get_hca_sig_caps from the device's capability bits. */
struct mlx5dv_sig_caps sig_caps_of(const HcaCaps &caps)
{
	struct mlx5dv_sig_caps c = {};

	if (!caps.sig_sho || !caps.sig_domain_and_sig_type)
		return c;
	c.block_prot = MLX5DV_SIG_PROT_CAP_T10DIF | MLX5DV_SIG_PROT_CAP_CRC;
	c.block_size = MLX5DV_BLOCK_SIZE_CAP_512 | MLX5DV_BLOCK_SIZE_CAP_520 |
		       MLX5DV_BLOCK_SIZE_CAP_4096 | MLX5DV_BLOCK_SIZE_CAP_4160;
	c.t10dif_bg = MLX5DV_SIG_T10DIF_BG_CAP_CRC | MLX5DV_SIG_T10DIF_BG_CAP_CSUM;
	c.crc_type = MLX5DV_SIG_CRC_TYPE_CAP_CRC32;
	if (caps.sig_block_4048)
		c.block_size |= MLX5DV_BLOCK_SIZE_CAP_4048;
	if (caps.sig_crc32c)
		c.crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC32C;
	if (caps.sig_crc64_xp10)
		c.crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC64_XP10;
	return c;
}

} // namespace

bool sim_is_sim_context(const struct ibv_context *ctx)
{
	return ctx && ctx->ops.poll_cq == sim_poll_cq;
}

struct ibv_context *sim_open_device(struct ibv_device *device)
{
	std::shared_ptr<SimDevice> dev = sim_device_open(device);
	SimCtxFull *ctx = nullptr;

	if (!dev)
		return nullptr; /* errno set */
	ctx = new (std::nothrow) SimCtxFull();
	if (!ctx)
		goto nomem;
	ctx->cq_uar = sim_zalloc(4096, 4096);
	if (!ctx->cq_uar)
		goto nomem;
	{
		const HcaCaps &caps = dev->hca->caps();

		ctx->hca = dev->hca;
		ctx->cqe_version = caps.cqe_version;
		ctx->dma_mmo_max_size = caps.max_wr_memcpy_length;
		ctx->max_sq_desc_sz = caps.max_sq_desc_sz;
		ctx->max_send_wqebb = caps.max_send_wqebb;
		ctx->mkey_update_tag_supported = false;
		ctx->next_uidx = 1;
		ctx->sig_caps = sig_caps_of(caps);
		ctx->sqd2rts_supported = caps.sqd2rts;
		ctx->devx = &g_devx;
	}
	ctx->ibctx.device = &dev->ibdev;
	ctx->ibctx.ops.poll_cq = sim_poll_cq;
	ctx->ibctx.ops.req_notify_cq = sim_req_notify_cq;
	ctx->ibctx.ops.post_send = sim_post_send;
	ctx->ibctx.ops.post_recv = sim_post_recv;
	ctx->ibctx.ops.post_srq_recv = sim_post_srq_recv;
	ctx->ibctx.cmd_fd = -1;
	ctx->ibctx.async_fd = -1;
	ctx->ibctx.num_comp_vectors = 1;
	pthread_mutex_init(&ctx->ibctx.mutex, nullptr);
	ctx->dev = std::move(dev);
	return &ctx->ibctx;
nomem:
	delete ctx;
	sim_device_close(dev.get());
	errno = ENOMEM;
	return nullptr;
}

int sim_close_device(struct ibv_context *context)
{
	SimCtxFull *ctx;

	if (!sim_is_sim_context(context))
		return EINVAL;
	ctx = to_ctx_full(context);
	{
		std::lock_guard<std::mutex> g(ctx->lock);

		/* objects left behind would dangle: the caller must destroy them first */
		if (ctx->n_pd || ctx->n_mr || ctx->n_cq || ctx->n_qp)
			return EBUSY;
		sim_reserved_qpn_release(ctx);
	}
	pthread_mutex_destroy(&ctx->ibctx.mutex);
	free(ctx->cq_uar);
	sim_device_close(ctx->dev.get());
	delete ctx;
	return 0;
}

/*
 * The model's one port: InfiniBand link layer, active, LID = instance number + 1 (never
 * 0), 4 KiB MTU. QPs of one instance reach each other by LID like an IB port in
 * loopback; the device side checks only port 1 (ASSUMPTIONS.md).
 */
int sim_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	SimCtxFull *ctx;

	if (!sim_is_sim_context(context) || !attr)
		return EINVAL;
	if (port_num != 1)
		return EINVAL;
	ctx = to_ctx_full(context);
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = 1u << 31;
	attr->pkey_tbl_len = 1;
	attr->lid = ctx->dev->hca->caps().lid; /* a machine-wide fabric may give another */
	attr->sm_lid = 1;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->phys_state = 5; /* LinkUp */
	attr->link_layer = IBV_LINK_LAYER_INFINIBAND;
	attr->active_width = 2;  /* 4x */
	attr->active_speed = 64; /* NDR-class */
	return 0;
}

/* GID 0: the IB default GID (link-local prefix + the node GUID). */
int sim_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		     struct ibv_gid_entry *entry, uint32_t flags)
{
	SimCtxFull *ctx;
	uint64_t guid;

	if (!sim_is_sim_context(context) || !entry || flags)
		return EINVAL;
	if (port_num != 1 || gid_index != 0)
		return ENODATA;
	ctx = to_ctx_full(context);
	guid = htobe64(0x0002c90300000000ull | ctx->dev->number);
	memset(entry, 0, sizeof(*entry));
	entry->gid.global.subnet_prefix = htobe64(0xfe80000000000000ull);
	entry->gid.global.interface_id = guid;
	entry->gid_index = 0;
	entry->port_num = 1;
	entry->gid_type = IBV_GID_TYPE_IB;
	return 0;
}

int sim_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr)
{
	SimCtxFull *ctx;

	if (!sim_is_sim_context(context) || !attr || (input && input->comp_mask))
		return EINVAL;
	ctx = to_ctx_full(context);
	const HcaCaps &caps = ctx->hca->caps();
	struct ibv_device_attr *a = &attr->orig_attr;
	uint64_t guid = htobe64(0x0002c90300000000ull | ctx->dev->number);

	memset(attr, 0, sizeof(*attr));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "sim-1.0");
	a->node_guid = guid;
	a->sys_image_guid = guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0xfffff000; /* 4 KiB and up */
	a->vendor_id = 0x02c9;         /* Mellanox */
	a->vendor_part_id = 4129;      /* ConnectX-7 */
	a->max_qp = (int)caps.max_qp;
	a->max_qp_wr = (int)caps.max_send_wqebb;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_CHANGE_PHY_PORT |
			      IBV_DEVICE_SYS_IMAGE_GUID;
	a->max_sge = (int)caps.max_sge;
	a->max_sge_rd = (int)caps.max_sge;
	a->max_cq = (int)caps.max_cq;
	a->max_cqe = (int)caps.max_cqe;
	a->max_mr = (int)caps.max_mr;
	a->max_pd = (int)caps.max_pd;
	a->max_qp_rd_atom = 16;
	a->max_qp_init_rd_atom = 16;
	a->max_res_rd_atom = (int)caps.max_qp * 16;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_pkeys = 1;
	a->phys_port_cnt = 1;
	if (caps.odp_implicit) {
		attr->odp_caps.general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
		attr->odp_caps.per_transport_caps.rc_odp_caps = IBV_ODP_SUPPORT_SEND |
								IBV_ODP_SUPPORT_RECV |
								IBV_ODP_SUPPORT_WRITE |
								IBV_ODP_SUPPORT_READ;
	}
	return 0;
}

int sim_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attrs)
{
	/* capability structs the model reports as "none" but whose bit libmlx5 echoes */
	const uint64_t echoed = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |
				MLX5DV_CONTEXT_MASK_STRIDING_RQ |
				MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
				MLX5DV_CONTEXT_MASK_DYN_BFREGS |
				MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS |
				MLX5DV_CONTEXT_MASK_DC_ODP_CAPS | MLX5DV_CONTEXT_MASK_DCI_STREAMS |
				MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD;
	SimCtxFull *ctx;
	uint64_t in;

	if (!sim_is_sim_context(context) || !attrs)
		return EINVAL;
	ctx = to_ctx_full(context);
	in = attrs->comp_mask;
	memset(attrs, 0, sizeof(*attrs));
	attrs->version = 0;
	attrs->flags = ctx->cqe_version ? MLX5DV_CONTEXT_FLAGS_CQE_V1 : 0;
	attrs->comp_mask = in & echoed;
	/* always echoed; 0 means memcpy MMO is unsupported */
	if (in & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH) {
		attrs->max_wr_memcpy_length = ctx->dma_mmo_max_size;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	}
	/* as libmlx5: echoed whenever asked; all zeros when the device has none */
	if (in & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD) {
		attrs->sig_caps = ctx->sig_caps;
		attrs->comp_mask |= MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	}
	/* DCI streams: the device's limits; DC ODP: none (echoed, all zero) */
	if (in & MLX5DV_CONTEXT_MASK_DCI_STREAMS) {
		attrs->dci_streams_caps.max_log_num_concurent =
			ctx->hca->caps().dci_max_log_streams;
		attrs->dci_streams_caps.max_log_num_errored = ctx->hca->caps().dci_max_log_errored;
	}
	/* no clock, no LAG: those bits are cleared */
	return 0;
}

} // namespace mlx5sim

using namespace mlx5sim;

extern "C" int mlx5_sim_inject_fault(struct ibv_context *ctx, const struct mlx5_sim_fault *fault)
{
	Fault f{};

	if (!sim_is_sim_context(ctx) || !fault)
		return -EINVAL;
	switch (fault->kind) {
	case MLX5_SIM_FAULT_FAIL_WQE:
		f.kind = Fault::Kind::FailWqe;
		break;
	case MLX5_SIM_FAULT_DELAY_COMPLETIONS:
		f.kind = Fault::Kind::DelayCompletions;
		break;
	case MLX5_SIM_FAULT_QP_FATAL:
		f.kind = Fault::Kind::QpFatal;
		break;
	case MLX5_SIM_FAULT_CQ_OVERRUN:
		f.kind = Fault::Kind::CqOverrun;
		break;
	case MLX5_SIM_FAULT_CORRUPT_SIG:
		f.kind = Fault::Kind::CorruptSig;
		break;
	default:
		return -EINVAL;
	}
	f.qpn = fault->qpn;
	f.cqn = fault->cqn;
	f.wqe_index = fault->wqe_index;
	f.syndrome = fault->syndrome;
	f.vendor_syndrome = fault->vendor_syndrome;
	if (fault->flags & ~(MLX5_SIM_FAULT_F_NEXT_WQE | MLX5_SIM_FAULT_F_QP_SEND_CQ))
		return -EINVAL;
	f.next_wqe = fault->flags & MLX5_SIM_FAULT_F_NEXT_WQE;
	f.qp_send_cq = fault->flags & MLX5_SIM_FAULT_F_QP_SEND_CQ;
	f.delay_us = fault->delay_us;
	return to_ctx_full(ctx)->hca->inject(f);
}

extern "C" int mlx5_sim_quiesce(struct ibv_context *ctx)
{
	if (!sim_is_sim_context(ctx))
		return -EINVAL;
	to_ctx_full(ctx)->hca->quiesce();
	return 0;
}
