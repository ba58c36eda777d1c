/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The seam: one table of every non-inline rdma-core entry point the project calls.
 *
 * Two implementations exist, chosen per device at run time:
 *  - "rdma-core": Debian's libibverbs/libmlx5 v44, loaded with dlopen(), for real
 *    ConnectX/BlueField devices (absent libraries simply mean no such devices);
 *  - "sim": the software mlx5 HCA, which fills the same rdma-core objects
 *    (struct ibv_context ops, struct ibv_qp_ex, struct mlx5dv_qp_ex, struct ibv_cq_ex)
 *    so that rdma-core's inline builders and poll calls work unchanged on it.
 *
 * Code above the seam keeps the glue pointer of the device it opened and calls every
 * non-inline entry point through it; inline calls (ibv_wr_*, mlx5dv_wr_*, ibv_poll_cq,
 * ibv_start_poll, ...) are used directly.
 */
#ifndef MLX5_GLUE_H
#define MLX5_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Data-in-order flags and capabilities of rdma-core >= 46, which v44's verbs.h lacks.
 * Same values as upstream, our own names so both header generations compile.
 */
enum {
	MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS = 1 << 0, /**< flag: return the caps vector */
	MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG = 1 << 0,   /**< cap: whole message in order */
	MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES = 1 << 1, /**< cap: 128-byte chunks */
};

/** The table. Every member is mandatory in both backends. */
struct mlx5_glue {
	const char *name; /**< "rdma-core" or "sim" */

	/* devices */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr);
	int (*dv_query_device)(struct ibv_context *context, struct mlx5dv_context *attrs);
	/** ibv_query_port() (inline in verbs.h: the provider op, or the 1.1 symbol). */
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr);
	/** ibv_query_gid_ex(): one GID table entry with its type (RoCE v1/v2, IB). */
	int (*query_gid_ex)(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
			    struct ibv_gid_entry *entry, uint32_t flags);
	int (*get_async_event)(struct ibv_context *context, struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);

	/* protection domains and memory */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	/** Register [addr, addr + length). With addr NULL, length SIZE_MAX and
	 *  IBV_ACCESS_ON_DEMAND: the implicit on-demand MR covering the address space. */
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);

	/* completion queues */
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	int (*destroy_cq)(struct ibv_cq *cq);

	/* queue pairs */
	struct ibv_qp *(*dv_create_qp)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr,
				       struct mlx5dv_qp_init_attr *dv_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			struct ibv_qp_init_attr *init_attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	struct ibv_qp_ex *(*qp_to_qp_ex)(struct ibv_qp *qp);
	struct mlx5dv_qp_ex *(*dv_qp_ex_from_ibv_qp_ex)(struct ibv_qp_ex *qp);
	int (*dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);
	/** ibv_query_qp_data_in_order(); v46+ flags emulated on v44 (see the guide). */
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags);
	int (*dv_qp_cancel_posted_send_wrs)(struct mlx5dv_qp_ex *mqp, uint64_t wr_id);
	int (*dv_dci_stream_id_reset)(struct ibv_qp *qp, uint16_t stream_id);
	int (*dv_reserved_qpn_alloc)(struct ibv_context *context, uint32_t *qpn);
	int (*dv_reserved_qpn_dealloc)(struct ibv_context *context, uint32_t qpn);

	/* indirect mkeys and signature */
	struct mlx5dv_mkey *(*dv_create_mkey)(struct mlx5dv_mkey_init_attr *attr);
	int (*dv_destroy_mkey)(struct mlx5dv_mkey *mkey);
	int (*dv_mkey_check)(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
			     size_t err_info_size);

	/**
	 * Doorbell hook for WQEs built directly in the SQ ring (mlx5dv_init_obj path).
	 * The caller has already written the doorbell record; @p ctrl8 holds the first
	 * 8 bytes of the last WQE's ctrl segment exactly as in memory. On hardware this
	 * is the 64-bit store to @p bf_reg (the BlueFlame register from
	 * mlx5dv_init_obj) with the write-combining flush; on the software HCA it is the
	 * doorbell of the device model.
	 */
	void (*sq_doorbell)(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8);
};

/** The rdma-core backend (never NULL; its device list is empty without rdma-core). */
const struct mlx5_glue *mlx5_glue_rdma_core(void);

/** The software HCA backend. */
const struct mlx5_glue *mlx5_glue_sim(void);

/**
 * Find a device by name across both backends: an ibdev name ("mlx5_0"), a PCI
 * address ("0000:08:00.0", rdma-core only) or a software HCA name ("sim", "sim0",
 * "sim1", ...). Returns 0 and fills @p glue and @p device (to be released with
 * mlx5_glue_put_device()), or a negative errno: -ENODEV when nothing matches.
 */
int mlx5_glue_find_device(const char *name, const struct mlx5_glue **glue,
			  struct ibv_device **device);

/** Release what mlx5_glue_find_device() returned. */
void mlx5_glue_put_device(const struct mlx5_glue *glue, struct ibv_device *device);

/** Why the rdma-core backend has no devices (library missing, ...), for logs. */
const char *mlx5_glue_rdma_core_status(void);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_H */
