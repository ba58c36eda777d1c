/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The seam: one table of every non-inline rdma-core entry point the project calls.
 *
 * Backends register themselves (struct mlx5_glue_backend) and are chosen per
 * device at run time:
 *  - "rdma-core", always there: Debian's libibverbs/libmlx5 v44 through the glue
 *    library librte_dma_mlx5_glue.so.44, the only binary linked against them,
 *    loaded with dlopen() on first use, for real ConnectX/BlueField devices (no
 *    glue library or no rdma-core simply means no such devices);
 *  - "sim", when the software mlx5 HCA's library is loaded: it fills the same
 *    rdma-core objects (struct ibv_context ops, struct ibv_qp_ex, struct
 *    mlx5dv_qp_ex, struct ibv_cq_ex) so that rdma-core's inline builders and poll
 *    calls work unchanged on it.
 *
 * Code above the seam keeps the glue pointer of the device it opened and calls every
 * non-inline entry point through it; inline calls (ibv_wr_*, mlx5dv_wr_*, ibv_poll_cq,
 * ibv_start_poll, ...) are used directly.
 */
#ifndef MLX5_GLUE_H
#define MLX5_GLUE_H

#include <sched.h>
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
	MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS = 1 << 0,       /**< flag: return the caps vector */
	MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG = 1 << 0,         /**< cap: whole message in order */
	MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES = 1 << 1, /**< cap: 128-byte chunks */
};

/** Where a device gets the host CPU time it needs (software devices). */
enum mlx5_glue_progress {
	/** None needed: hardware, or work done on the caller's thread at the doorbell. */
	MLX5_GLUE_PROGRESS_NONE = 0,
	/** The backend's own threads, which may run on @c cpus. */
	MLX5_GLUE_PROGRESS_THREADS = 1,
	/** Somebody must call mlx5_glue::progress() (a DPDK service, for instance). */
	MLX5_GLUE_PROGRESS_POLLED = 2,
};

/** What mlx5_glue::progress_info() reports. */
struct mlx5_glue_progress_info {
	enum mlx5_glue_progress mode;
	unsigned int threads; /**< MLX5_GLUE_PROGRESS_THREADS: how many */
	cpu_set_t cpus;       /**< MLX5_GLUE_PROGRESS_THREADS: where they may run */
};

/**
 * Layout of struct mlx5_glue: bump on every change of its members (the rdma-core
 * glue library, built separately, is refused unless it was built with the same).
 */
#define MLX5_GLUE_LAYOUT_VERSION 2

struct sockaddr_in;

/** A blob published at an rdma-cm address (mlx5_glue::cm_listen), opaque. */
struct mlx5_glue_cm_listener;

/** The table. Every member is mandatory in every backend unless marked optional. */
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
	/** Address handles: a DCI WQE carries the AH's address vector. */
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	/** Shared receive queues (a DCT receives through one); post with ibv_post_srq_recv. */
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
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

	/**
	 * Optional (NULL: the device needs no host CPU time, as hardware). How the
	 * device behind @p context gets the CPU time it needs: fills @p info.
	 * @return 0, or a negative errno.
	 */
	int (*progress_info)(struct ibv_context *context, struct mlx5_glue_progress_info *info);
	/**
	 * Optional. One pass of the device's work for a context whose progress_info()
	 * said MLX5_GLUE_PROGRESS_POLLED; safe from any thread, any number at once.
	 * @return > 0 when work was done, 0 when idle, or a negative errno.
	 */
	int (*progress)(struct ibv_context *context);

	/*
	 * Connection manager (rdma-cm): a host publishes a few bytes at an IPv4 address
	 * and port of its fabric, another host fetches them by connecting there. The
	 * connection carries only private data (no QP is connected by it); it is what
	 * DC peers exchange (a DCT's number and key), as rdma-core's own DC example
	 * does. Optional, all three or none (NULL: the backend has no connection manager).
	 */
	/**
	 * Publish @p reply (at most 196 bytes, the IB CM's REP) at @p addr (port space
	 * TCP; the any-address listens on every device). A thread of the backend
	 * answers each connection request whose private data starts with the
	 * @p req_len bytes @p req: it accepts with @p qpn (a QPN reserved on the device
	 * of @p context) as the connection's QPN and @p reply as private data. A request
	 * without them is rejected. Each refusal is one line to @p note (may be NULL),
	 * called from that thread.
	 * @return 0 and @p out set; a negative errno: -EADDRINUSE, -EADDRNOTAVAIL,
	 *	   -ENODEV, -EINVAL, -ENOMEM, -ENOSYS (no rdma-cm library).
	 */
	int (*cm_listen)(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
			 const void *req, size_t req_len, const void *reply, size_t reply_len,
			 void (*note)(void *arg, const char *line), void *note_arg,
			 struct mlx5_glue_cm_listener **out);
	/** Stop answering at the listener's address and free it (joins its thread). */
	void (*cm_listen_close)(struct mlx5_glue_cm_listener *listener);
	/**
	 * Connect to @p addr with @p qpn as the connection's QPN and @p req (at most 56
	 * bytes) as private data, and hand the answer's private data to @p check with
	 * the LID of the port that answered (the route's DLID; 0 when the backend
	 * cannot tell). When @p check returns 0 the connection is confirmed and
	 * closed, else rejected.
	 * Each wait is bounded by @p timeout_ms.
	 * @return 0; what @p check returned; -ECONNREFUSED (nobody listens there, or
	 *	   the listener refused the request); -ETIMEDOUT (no answer: the peer died
	 *	   or is stuck); -ENODEV, -EHOSTUNREACH, -EADDRNOTAVAIL (the address names
	 *	   no port); -ENOMEM; -ENOSYS (no rdma-cm library).
	 */
	int (*cm_fetch)(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
			const void *req, size_t req_len, int timeout_ms,
			int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
			void *check_arg);
};

/** One backend option: a key=value devarg the PMD does not own ("sim_core=2-3"). */
struct mlx5_glue_option {
	const char *key;
	const char *value;
};

/**
 * A backend of the seam. Backends register themselves (from a constructor, once
 * their library is loaded); code above the seam never names one.
 */
struct mlx5_glue_backend {
	const char *name;             /**< "rdma-core", "sim", ... (logs) */
	const struct mlx5_glue *glue; /**< its table */
	/**
	 * Non-zero when @p device_name is one of this backend's names, whether the
	 * device exists yet or not. NULL: the backend takes every name no other
	 * backend claims (the hardware backend).
	 */
	int (*claims)(const char *device_name);
	/** Optional: the listed name of an alias the backend claims ("sim" -> "sim0"). */
	const char *(*canonical_name)(const char *device_name);
	/** Prefix of the option keys this backend takes ("sim_"); NULL: none. */
	const char *option_prefix;
	/**
	 * Optional: make @p device_name ready to be opened with @p opts (each key
	 * starts with option_prefix); a software backend creates the device here.
	 * @return 0; 1 when the device existed already and @p opts were not applied;
	 *	   a negative errno. Either of the last two fills @p why (one line).
	 */
	int (*prepare)(const char *device_name, const struct mlx5_glue_option *opts,
		       unsigned int n_opts, char *why, size_t why_len);
	/**
	 * Automatic selection: NULL to look through the backend's device list, or
	 * the device the backend makes on demand when nothing listed before fits.
	 */
	const char *fallback_device;
	/** Automatic selection order: lower first (hardware 0, software 100). */
	int auto_order;
	/** Optional: why the backend has no devices (library missing, ...), for logs. */
	const char *(*status)(void);
};

/** Most backends one process can hold. */
#define MLX5_GLUE_MAX_BACKENDS 8

/**
 * Add @p backend (kept by pointer: static storage). Registering the same name
 * twice keeps the first.
 * @return 0, -EEXIST (name taken), -ENOSPC (table full), -EINVAL.
 */
int mlx5_glue_backend_register(const struct mlx5_glue_backend *backend);

/** Remove @p backend (a library being unloaded). */
void mlx5_glue_backend_unregister(const struct mlx5_glue_backend *backend);

/**
 * The registered backends in automatic selection order: fills @p out with up to
 * @p max of them. @return how many are registered.
 */
unsigned int mlx5_glue_backends(const struct mlx5_glue_backend **out, unsigned int max);

/** The backend that owns device name @p device_name (NULL: none can). */
const struct mlx5_glue_backend *mlx5_glue_backend_of(const char *device_name);

/** The backend whose option_prefix starts @p key (NULL: none). */
const struct mlx5_glue_backend *mlx5_glue_backend_of_option(const char *key);

/** The backend that filled @p glue (NULL: none registered). */
const struct mlx5_glue_backend *mlx5_glue_backend_of_glue(const struct mlx5_glue *glue);

/**
 * Get device @p name ready with backend options @p opts: every option must
 * belong to the backend that owns @p name.
 * @return what the backend's prepare() returns (0 when it has none and @p opts is
 *	   empty); -ENODEV when no backend owns @p name; -EINVAL when an option
 *	   belongs to another backend. @p why says what went wrong, or why 1.
 */
int mlx5_glue_prepare_device(const char *name, const struct mlx5_glue_option *opts,
			     unsigned int n_opts, char *why, size_t why_len);

/**
 * Find a device by name in the backend that owns the name: an ibdev name
 * ("mlx5_0") or a PCI address ("0000:08:00.0") for hardware, a software HCA name
 * ("sim0") when that backend is loaded. Returns 0 and fills @p glue and @p device
 * (to be released with mlx5_glue_put_device()), or a negative errno: -ENODEV when
 * nothing matches.
 */
int mlx5_glue_find_device(const char *name, const struct mlx5_glue **glue,
			  struct ibv_device **device);

/** Release what mlx5_glue_find_device() returned. */
void mlx5_glue_put_device(const struct mlx5_glue *glue, struct ibv_device *device);

/** The rdma-core backend (never NULL; its device list is empty without rdma-core). */
const struct mlx5_glue *mlx5_glue_rdma_core(void);

/** Why the rdma-core backend has no devices (library missing, ...), for logs. */
const char *mlx5_glue_rdma_core_status(void);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_H */
