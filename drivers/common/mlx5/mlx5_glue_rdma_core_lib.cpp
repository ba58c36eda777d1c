/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma-core glue library: librte_dma_mlx5_glue.so.<rdma-core major>.
 *
 * The one binary of the project linked against libibverbs and libmlx5. It fills
 * the seam's table with rdma-core's own entry points, inline verbs included
 * (ibv_query_device_ex, ibv_create_cq_ex, ibv_query_port, ...), and exports
 * nothing but MLX5_GLUE_LIB_SYMBOL (version script). The seam dlopen()s it on
 * first use, so that nothing else needs rdma-core to start.
 *
 * Beyond the plain calls: arguments rdma-core would dereference blindly are
 * checked (EINVAL), ibv_reg_mr() takes the same path for constant and variable
 * access flags, and the data-in-order flags of rdma-core >= 46 are emulated on
 * v44's query (mlx5_glue_data_in_order.cpp, compiled in here as well).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"
#include "mlx5_glue_lib.h"
#include "mlx5_glue_mmio.h"
#include "mlx5_glue_rdma_cm.h"

namespace {

/* ---- devices ---- */

struct ibv_device **gl_get_device_list(int *num_devices)
{
	return ibv_get_device_list(num_devices);
}

void gl_free_device_list(struct ibv_device **list)
{
	if (list != NULL)
		ibv_free_device_list(list);
}

const char *gl_get_device_name(struct ibv_device *device)
{
	if (device == NULL)
		return mlx5_glue_fail_null<const char>(EINVAL);
	return ibv_get_device_name(device);
}

struct ibv_context *gl_open_device(struct ibv_device *device)
{
	if (device == NULL)
		return mlx5_glue_fail_null<struct ibv_context>(EINVAL);
	return ibv_open_device(device);
}

int gl_close_device(struct ibv_context *context)
{
	if (context == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_close_device(context);
}

/* Inline in verbs.h: the provider's op, ibv_query_device() when it has none. */
int gl_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr)
{
	if (context == NULL || attr == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_query_device_ex(context, input, attr);
}

int gl_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attrs)
{
	if (context == NULL || attrs == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_query_device(context, attrs);
}

/* Inline in verbs.h: the provider's op, or the exported 1.1 symbol. */
int gl_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	if (context == NULL || attr == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_query_port(context, port_num, attr);
}

int gl_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		    struct ibv_gid_entry *entry, uint32_t flags)
{
	if (context == NULL || entry == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_query_gid_ex(context, port_num, gid_index, entry, flags);
}

int gl_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	return ibv_get_async_event(context, event);
}

void gl_ack_async_event(struct ibv_async_event *event)
{
	if (event != NULL)
		ibv_ack_async_event(event);
}

/* ---- protection domains and memory ---- */

struct ibv_ah *gl_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	if (pd == NULL || attr == NULL)
		return mlx5_glue_fail_null<struct ibv_ah>(EINVAL);
	return ibv_create_ah(pd, attr);
}

int gl_destroy_ah(struct ibv_ah *ah)
{
	if (ah == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_destroy_ah(ah);
}

struct ibv_srq *gl_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	if (pd == NULL || attr == NULL)
		return mlx5_glue_fail_null<struct ibv_srq>(EINVAL);
	return ibv_create_srq(pd, attr);
}

int gl_destroy_srq(struct ibv_srq *srq)
{
	if (srq == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_destroy_srq(srq);
}

struct ibv_pd *gl_alloc_pd(struct ibv_context *context)
{
	if (context == NULL)
		return mlx5_glue_fail_null<struct ibv_pd>(EINVAL);
	return ibv_alloc_pd(context);
}

int gl_dealloc_pd(struct ibv_pd *pd)
{
	if (pd == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_dealloc_pd(pd);
}

/*
 * verbs.h's ibv_reg_mr macro takes ibv_reg_mr_iova2 whenever the access flags
 * are not a compile-time constant; here they never are, so choose as it does
 * for constants: the plain verb unless an optional access bit is asked for.
 * The implicit on-demand MR (addr NULL, length SIZE_MAX, IBV_ACCESS_ON_DEMAND)
 * passes through untouched.
 */
struct ibv_mr *gl_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (pd == NULL)
		return mlx5_glue_fail_null<struct ibv_mr>(EINVAL);
	if ((unsigned int)access & IBV_ACCESS_OPTIONAL_RANGE)
		return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
	return (ibv_reg_mr)(pd, addr, length, access);
}

int gl_dereg_mr(struct ibv_mr *mr)
{
	if (mr == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_dereg_mr(mr);
}

/* ---- completion queues ---- */

/* Inline in verbs.h: the context's create_cq_ex op, EOPNOTSUPP without one. */
struct ibv_cq_ex *gl_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	if (context == NULL || attr == NULL)
		return mlx5_glue_fail_null<struct ibv_cq_ex>(EINVAL);
	return ibv_create_cq_ex(context, attr);
}

int gl_destroy_cq(struct ibv_cq *cq)
{
	if (cq == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_destroy_cq(cq);
}

/* ---- queue pairs ---- */

struct ibv_qp *gl_dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
			       struct mlx5dv_qp_init_attr *dv_attr)
{
	if (context == NULL || attr == NULL)
		return mlx5_glue_fail_null<struct ibv_qp>(EINVAL);
	return mlx5dv_create_qp(context, attr, dv_attr);
}

int gl_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	if (qp == NULL || attr == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_modify_qp(qp, attr, attr_mask);
}

int gl_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		struct ibv_qp_init_attr *init_attr)
{
	if (qp == NULL || attr == NULL || init_attr == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_query_qp(qp, attr, attr_mask, init_attr);
}

int gl_destroy_qp(struct ibv_qp *qp)
{
	if (qp == NULL)
		return mlx5_glue_fail(EINVAL);
	return ibv_destroy_qp(qp);
}

struct ibv_qp_ex *gl_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (qp == NULL)
		return mlx5_glue_fail_null<struct ibv_qp_ex>(EINVAL);
	return ibv_qp_to_qp_ex(qp);
}

struct mlx5dv_qp_ex *gl_dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	if (qp == NULL)
		return mlx5_glue_fail_null<struct mlx5dv_qp_ex>(EINVAL);
	return mlx5dv_qp_ex_from_ibv_qp_ex(qp);
}

int gl_dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	if (obj == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_init_obj(obj, obj_type);
}

/* v44 takes flags 0 only; the newer flags are derived (mlx5_glue_data_in_order.cpp). */
int gl_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	/* "not known to be in order" is the safe answer to every failure */
	if (qp == NULL) {
		errno = EINVAL;
		return 0;
	}
	if (flags & ~(uint32_t)MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS)
		return 0;
	return mlx5_glue_data_in_order_map(ibv_query_qp_data_in_order(qp, op, 0), flags);
}

/* libmlx5 returns the number cancelled or a negative errno here. */
int gl_dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	if (mqp == NULL)
		return -mlx5_glue_fail(EINVAL);
	return mlx5dv_qp_cancel_posted_send_wrs(mqp, wr_id);
}

int gl_dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id)
{
	if (qp == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_dci_stream_id_reset(qp, stream_id);
}

int gl_dv_reserved_qpn_alloc(struct ibv_context *context, uint32_t *qpn)
{
	if (context == NULL || qpn == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_reserved_qpn_alloc(context, qpn);
}

int gl_dv_reserved_qpn_dealloc(struct ibv_context *context, uint32_t qpn)
{
	if (context == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_reserved_qpn_dealloc(context, qpn);
}

/* ---- indirect mkeys and signature ---- */

struct mlx5dv_mkey *gl_dv_create_mkey(struct mlx5dv_mkey_init_attr *attr)
{
	if (attr == NULL || attr->pd == NULL)
		return mlx5_glue_fail_null<struct mlx5dv_mkey>(EINVAL);
	return mlx5dv_create_mkey(attr);
}

int gl_dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	if (mkey == NULL)
		return mlx5_glue_fail(EINVAL);
	return mlx5dv_destroy_mkey(mkey);
}

/* The table passes the caller's err_info size: the exported symbol behind the inline. */
int gl_dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
		     size_t err_info_size)
{
	if (mkey == NULL || err_info == NULL)
		return mlx5_glue_fail(EINVAL);
	return _mlx5dv_mkey_check(mkey, err_info, err_info_size);
}

/* The BlueFlame store with its barriers (mlx5_glue_mmio.h); the seam has the same. */
void gl_sq_doorbell(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8)
{
	(void)qp;
	mlx5_glue_bf_doorbell(bf_reg, ctrl8);
}

const struct mlx5_glue gl_table = {
	.name = "rdma-core",
	.get_device_list = gl_get_device_list,
	.free_device_list = gl_free_device_list,
	.get_device_name = gl_get_device_name,
	.open_device = gl_open_device,
	.close_device = gl_close_device,
	.query_device_ex = gl_query_device_ex,
	.dv_query_device = gl_dv_query_device,
	.query_port = gl_query_port,
	.query_gid_ex = gl_query_gid_ex,
	.get_async_event = gl_get_async_event,
	.ack_async_event = gl_ack_async_event,
	.alloc_pd = gl_alloc_pd,
	.dealloc_pd = gl_dealloc_pd,
	.create_ah = gl_create_ah,
	.destroy_ah = gl_destroy_ah,
	.create_srq = gl_create_srq,
	.destroy_srq = gl_destroy_srq,
	.reg_mr = gl_reg_mr,
	.dereg_mr = gl_dereg_mr,
	.create_cq_ex = gl_create_cq_ex,
	.destroy_cq = gl_destroy_cq,
	.dv_create_qp = gl_dv_create_qp,
	.modify_qp = gl_modify_qp,
	.query_qp = gl_query_qp,
	.destroy_qp = gl_destroy_qp,
	.qp_to_qp_ex = gl_qp_to_qp_ex,
	.dv_qp_ex_from_ibv_qp_ex = gl_dv_qp_ex_from_ibv_qp_ex,
	.dv_init_obj = gl_dv_init_obj,
	.query_qp_data_in_order = gl_query_qp_data_in_order,
	.dv_qp_cancel_posted_send_wrs = gl_dv_qp_cancel_posted_send_wrs,
	.dv_dci_stream_id_reset = gl_dv_dci_stream_id_reset,
	.dv_reserved_qpn_alloc = gl_dv_reserved_qpn_alloc,
	.dv_reserved_qpn_dealloc = gl_dv_reserved_qpn_dealloc,
	.dv_create_mkey = gl_dv_create_mkey,
	.dv_destroy_mkey = gl_dv_destroy_mkey,
	.dv_mkey_check = gl_dv_mkey_check,
	.sq_doorbell = gl_sq_doorbell,
	.progress_info = NULL, /* hardware needs no host CPU time */
	.progress = NULL,
	.cm_listen = mlx5_glue_rdma_cm_listen,
	.cm_listen_close = mlx5_glue_rdma_cm_listen_close,
	.cm_fetch = mlx5_glue_rdma_cm_fetch,
};

} // namespace

/* The one exported symbol (mlx5_glue_rdma_core_lib.map). */
extern "C" __attribute__((visibility("default")))
const struct mlx5_glue_lib mlx5_glue_rdma_core_lib = {
	.version = MLX5_GLUE_VERSION,
	.glue_size = sizeof(struct mlx5_glue),
	.glue = &gl_table,
};
