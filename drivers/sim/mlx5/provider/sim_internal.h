/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The "sim" backend of the seam: provider objects wired to the device model.
 *
 * Each verbs object is the provider struct of provider.h (what the send and
 * poll paths see) extended with what only the control path needs: the device
 * instance, object counts, the per-QP doorbell register area. Control paths
 * take SimCtxFull::lock; the data paths (post, poll) take no lock, as in
 * libmlx5 with single-threaded objects.
 */
#ifndef MLX5_SIM_INTERNAL_H
#define MLX5_SIM_INTERNAL_H

#include <pthread.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "provider.h"

namespace mlx5sim {

/** A named instance: the ibv_device the sim backend lists. */
struct SimDevice {
	struct ibv_device ibdev; /**< name = the instance name */
	uint32_t number;         /**< N of "simN" */
	std::shared_ptr<Hca> hca;
	int open_count; /**< contexts open; guarded by the registry lock */
};

/**
 * One RESERVED_QPN object of a context, as libmlx5 keeps it: QPNs are handed
 * out forward only, a freed one is never handed out again.
 */
struct SimRsvQpnBlock {
	uint32_t first_qpn;          /**< the object id */
	uint32_t next_avail;         /**< next slot to hand out */
	std::vector<uint64_t> inuse; /**< bitmap of handed-out, not yet freed slots */
	uint32_t nr_inuse;
};

/** A device context with its control-path state. */
struct SimCtxFull : SimContext {
	std::shared_ptr<SimDevice> dev;
	std::mutex lock; /**< tables and counts below */
	NumTable<struct SimCqFull> cq_by_cqn;
	uint32_t n_pd, n_mr, n_cq, n_qp;
	void *cq_uar; /**< page handed out as mlx5dv_cq.cq_uar (arming is in memory) */
	std::vector<SimRsvQpnBlock> rsv_qpns; /**< reserved QPN objects, oldest first */
};

/** A PD; users = MRs and QPs on it (the opaque MR excluded). */
struct SimPdFull : SimPd {
	uint32_t users;
};

/** A CQ; users = QPs using it. */
struct SimCqFull : SimCq {
	uint32_t users;
	uint32_t events_reported; /**< async events handed out, for destroy */
};

/** A QP with what create/modify/query/destroy keep. */
struct SimQpFull : SimQp {
	SimCqFull *send_cq;
	SimCqFull *recv_cq;
	bool has_qp_ex; /**< created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS */
	bool sq_sig_all;
	void *bf_reg;              /**< the QP's doorbell register area (2 halves) */
	struct ibv_qp_attr shadow; /**< attributes last set by modify_qp */
	uint32_t events_reported;
};

static inline SimCtxFull *to_ctx_full(struct ibv_context *c)
{
	return static_cast<SimCtxFull *>(to_sim_ctx(c));
}
static inline SimQpFull *to_qp_full(struct ibv_qp *qp)
{
	return static_cast<SimQpFull *>(to_sim_qp(qp));
}
static inline SimCqFull *to_cq_full(struct ibv_cq *cq)
{
	return static_cast<SimCqFull *>(to_sim_cq(cq));
}
static inline SimPdFull *to_pd_full(struct ibv_pd *pd)
{
	return static_cast<SimPdFull *>(reinterpret_cast<SimPd *>(pd));
}

/** True when @p ctx was opened by the sim backend. */
bool sim_is_sim_context(const struct ibv_context *ctx);

/** The resource number CQEs carry for @p qp (user index or QPN, per CQE version). */
static inline uint32_t sim_qp_rsn(const SimQp *qp)
{
	return qp->ctx->cqe_version ? qp->uidx : qp->qpn;
}

/** Allocate @p size bytes aligned to @p align, zeroed; NULL on failure. */
void *sim_zalloc(size_t align, size_t size);

/** Smallest power of two >= @p v (v >= 1, v <= 2^31). */
static inline uint32_t sim_roundup_pow2(uint32_t v)
{
	return v <= 1 ? 1 : 1u << (32 - __builtin_clz(v - 1));
}

/* ---- the backend (sim_verbs.cpp, sim_backend.cpp) ---- */
extern const struct mlx5_glue sim_glue;
int sim_progress_info(struct ibv_context *context, struct mlx5_glue_progress_info *info);
int sim_progress(struct ibv_context *context);

/* ---- registry (sim_registry.cpp) ---- */
struct ibv_device **sim_get_device_list(int *num_devices);
void sim_free_device_list(struct ibv_device **list);
const char *sim_get_device_name(struct ibv_device *device);
/** Count an open of @p device; NULL with errno ENODEV when it is not a live instance. */
std::shared_ptr<SimDevice> sim_device_open(struct ibv_device *device);
/** Undo sim_device_open(). */
void sim_device_close(SimDevice *dev);
/**
 * Register the existing software HCA @p hca as instance @p name ("simN"), so that
 * this provider and another driver of it (the kernel side's libmlx5) share one
 * device (test/drivers/sim/mlx5/kernel/test_kernel_diff.cpp). -EINVAL for a bad
 * name or no hca, -EEXIST when the name is taken.
 */
int sim_device_add_hca(const char *name, std::shared_ptr<Hca> hca);

/* ---- context (sim_context.cpp, sim_async.cpp) ---- */
struct ibv_context *sim_open_device(struct ibv_device *device);
int sim_close_device(struct ibv_context *context);
int sim_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr);
int sim_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		     struct ibv_gid_entry *entry, uint32_t flags);
int sim_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr);
int sim_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attrs);
int sim_get_async_event(struct ibv_context *context, struct ibv_async_event *event);
void sim_ack_async_event(struct ibv_async_event *event);

/* ---- memory (sim_mem.cpp) ---- */
struct ibv_pd *sim_alloc_pd(struct ibv_context *context);
int sim_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *sim_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int sim_dereg_mr(struct ibv_mr *mr);
/** Allocate and register the per-PD MMO opaque buffer once. Caller holds ctx->lock. */
int sim_pd_opaque_get(SimCtxFull *ctx, SimPdFull *pd);

/* ---- CQ (sim_cq.cpp) ---- */
struct ibv_cq_ex *sim_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr);
int sim_destroy_cq(struct ibv_cq *cq);

/* ---- QP (sim_qp.cpp, sim_qp_modify.cpp, sim_obj.cpp) ---- */
struct ibv_qp *sim_dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr);
int sim_destroy_qp(struct ibv_qp *qp);
int sim_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int sim_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr);
struct ibv_qp_ex *sim_qp_to_qp_ex(struct ibv_qp *qp);
struct mlx5dv_qp_ex *sim_dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp);
int sim_dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type);
void sim_sq_doorbell(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8);
int sim_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags);

/* ---- signature mkeys (sim_mkey_sig.cpp) ---- */
/**
 * The signature context of a BLOCK_SIGNATURE mkey on @p pd: EOPNOTSUPP without
 * signature caps, else two device PSVs; 0 or a positive errno, nothing kept on
 * failure. Called by mlx5dv_create_mkey before the device mkey is created.
 */
int sim_mkey_sig_create(SimCtxFull *ctx, const SimPd *pd, SimMkey *mkey);
/** Destroy the PSVs of @p mkey (0 or a positive errno); before the device mkey. */
int sim_mkey_sig_destroy(SimCtxFull *ctx, SimMkey *mkey);

/* ---- reserved QPNs (sim_reserved_qpn.cpp) ---- */
int sim_dv_reserved_qpn_alloc(struct ibv_context *context, uint32_t *qpn);
int sim_dv_reserved_qpn_dealloc(struct ibv_context *context, uint32_t qpn);
/* the connection manager on the fabric's CM sockets (sim_cm.cpp; mlx5_glue::cm_*) */
int sim_cm_listen(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		  const void *req, size_t req_len, const void *reply, size_t reply_len,
		  void (*note)(void *arg, const char *line), void *note_arg,
		  struct mlx5_glue_cm_listener **out);
void sim_cm_listen_close(struct mlx5_glue_cm_listener *listener);
int sim_cm_fetch(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		 const void *req, size_t req_len, int timeout_ms,
		 int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
		 void *check_arg);
/** Destroy the device objects of every reserved QPN block (context close). */
void sim_reserved_qpn_release(SimCtxFull *ctx);

/* ---- SRQ (sim_srq.cpp) ---- */
struct ibv_srq *sim_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
int sim_destroy_srq(struct ibv_srq *srq);
int sim_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

/* ---- DC transport (sim_dc.cpp) ---- */
struct ibv_ah *sim_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sim_destroy_ah(struct ibv_ah *ah);
int sim_dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id);
struct mlx5dv_mkey *sim_dv_create_mkey(struct mlx5dv_mkey_init_attr *attr);
int sim_dv_destroy_mkey(struct mlx5dv_mkey *mkey);

} // namespace mlx5sim

#endif /* MLX5_SIM_INTERNAL_H */
