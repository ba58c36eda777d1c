/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: named instances and test controls.
 *
 * The "sim" backend of the seam (mlx5_glue_sim()) lists every instance added
 * here as an ibv_device named after it. Names are "sim" followed by a decimal
 * number without leading zeros ("sim0", "sim1", ...); "sim" alone is an alias
 * of "sim0", resolved by the device lookup of the seam. When the device list is
 * asked for and no instance exists, "sim0" is created with the defaults of
 * mlx5_sim_device_attr_init().
 *
 * Options of the seam's prepare step (devargs of dma_mlx5), for a device that
 * does not exist yet: sim_exec=inline|thread|service (polled: a DPDK service of
 * the PMD gives it CPU time) and sim_core=<CPU list> ("3", "2-3", "0,2-5"): one
 * engine thread on each of these CPUs.
 *
 * All functions are thread safe and return 0 or a negative errno.
 */
#ifndef MLX5_SIM_H
#define MLX5_SIM_H

#include <sched.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "mlx5_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How an instance executes WQEs. */
enum mlx5_sim_exec_mode {
	/** At the doorbell, on the caller's thread: deterministic. */
	MLX5_SIM_EXEC_INLINE = 0,
	/** On an engine thread, asynchronously, as hardware does. */
	MLX5_SIM_EXEC_THREAD = 1,
	/**
	 * Asynchronously, in mlx5_glue::progress() calls from the application's
	 * threads (dma_mlx5 registers a DPDK service for it).
	 */
	MLX5_SIM_EXEC_POLLED = 2,
};

/** Signature features of an instance (mlx5_sim_device_attr.sig_features). */
enum mlx5_sim_sig_feature {
	MLX5_SIM_SIG_OFFLOAD = 1 << 0,    /**< T10-DIF and CRC32 signature offload */
	MLX5_SIM_SIG_BLOCK_4048 = 1 << 1, /**< 4048-byte blocks (needs OFFLOAD) */
	MLX5_SIM_SIG_CRC32C = 1 << 2,     /**< CRC32C (needs OFFLOAD) */
	MLX5_SIM_SIG_CRC64_XP10 = 1 << 3, /**< CRC64_XP10 (needs OFFLOAD) */
	MLX5_SIM_SIG_PIPELINING = 1 << 4, /**< SQD->RTS: MLX5DV_QP_CREATE_SIG_PIPELINING */
	MLX5_SIM_SIG_ALL = (1 << 5) - 1,
	/**
	 * Not a feature but a model choice (not in MLX5_SIM_SIG_ALL): after a signature
	 * error a SIG_PIPELINING QP stops in SQD right before the next WQE with FENCE
	 * instead of right after the failing WQE; both are what the man page allows.
	 */
	MLX5_SIM_SIG_STOP_AT_FENCE = 1 << 5,
};

/**
 * Data-in-order capability of an instance (mlx5_sim_device_attr.data_in_order):
 * what ibv_query_qp_data_in_order() reports and how the device writes the bytes
 * of an RDMA write, RDMA read response or SEND (doc/guides, software HCA).
 */
enum mlx5_sim_data_in_order {
	/** No promise (default): a message's 128-byte blocks land last first. */
	MLX5_SIM_DATA_IN_ORDER_NONE = 0,
	/** Caps ALIGNED_128_BYTES: each 128-byte block in order, blocks last first. */
	MLX5_SIM_DATA_IN_ORDER_ALIGNED_128 = 1,
	/** Caps WHOLE_MSG | ALIGNED_128_BYTES: the whole message in order. */
	MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG = 2,
};

/** Most uids mlx5_sim_device_attr::fabric_uids holds. */
#define MLX5_SIM_FABRIC_MAX_UIDS 8

/** Capabilities of one instance (models a hardware generation). */
struct mlx5_sim_device_attr {
	enum mlx5_sim_exec_mode exec_mode;
	/** Largest mlx5dv_wr_memcpy length: 0 (no memcpy MMO) or a power of two <= 2^31. */
	uint64_t max_wr_memcpy_length;
	/** Largest send WQE in bytes: a multiple of 64, 64..4096. */
	uint32_t max_sq_desc_sz;
	/** Largest SQ in WQEBBs: a power of two, 1..65536. */
	uint32_t max_send_wqebb;
	/** Largest RQ in WRs: 1..65536. */
	uint32_t max_recv_wr;
	/** Scatter/gather entries per receive WR: 1..64. */
	uint32_t max_sge;
	/** Largest CQ in entries: 1..2^24 - 1. */
	uint32_t max_cqe;
	uint32_t max_qp; /**< >= 1 */
	uint32_t max_cq; /**< >= 1 */
	uint32_t max_mr; /**< >= 1 */
	uint32_t max_pd; /**< >= 1 */
	/** CQE format: 1 = requester CQEs carry the user index, 0 = matched by QPN. */
	uint8_t cqe_version;
	/** Non-zero: the implicit on-demand MR is supported. */
	uint8_t odp_implicit;
	/**
	 * Non-zero (thread mode only): consecutive unfenced WQEs of one doorbell batch
	 * may execute out of order, so a missing fence is observable.
	 */
	uint8_t reorder_unfenced;
	/**
	 * Thread mode: non-zero to run one engine thread pinned to each CPU of
	 * @c engine_cpus (sim_core=; at most 64), QPs spread over them. Zero: one
	 * engine thread, on the CPUs the process could use when this library was loaded,
	 * which is before DPDK's EAL pins the main lcore, so the OS scheduler keeps the
	 * engine off a busy lcore whenever the process has another CPU.
	 */
	uint8_t engine_cpus_set;
	cpu_set_t engine_cpus;
	/** MLX5_SIM_SIG_* bits (default: all, a ConnectX-7-like device); 0 = none. */
	uint32_t sig_features;
	/**
	 * Non-zero (default): the device has RESERVED_QPN general objects, so
	 * mlx5dv_reserved_qpn_alloc() works; 0: it returns EOPNOTSUPP.
	 */
	uint8_t reserved_qpn;
	/** QPNs per reserved-QPN object = 2^this: 0..16 (default 4). */
	uint8_t log_reserved_qpn_granularity;
	/** An enum mlx5_sim_data_in_order value (default NONE). */
	uint8_t data_in_order;
	/** Non-zero (default): DC transport (DCI and DCT QPs); 0: EOPNOTSUPP. */
	uint8_t dc;
	/** DCI streams: largest log_num_concurent, 0..15 (default 4; 0: no streams). */
	uint8_t dci_max_log_streams;
	/** DCI streams: largest log_num_errored, 0..4 (default 3; 0: no stream reset). */
	uint8_t dci_max_log_errored;
	/**
	 * Non-zero: the instance is a host on the process's simulated fabric. Its port
	 * LID (query_port: the instance number + 1, at most 0xbfff) is reachable from the
	 * QPs of the other fabric hosts (RC paths and DC address vectors), and it reaches
	 * theirs; a host removed is gone from the fabric (peer down). Fabric hosts share
	 * one device lock. Default 0: reachable only from its own QPs.
	 */
	uint8_t fabric;
	/**
	 * With @c fabric: a non-empty name (1..31 of [A-Za-z0-9_.-]) puts the host on
	 * the machine-wide fabric of that name, shared by every process that names it
	 * (doc/guides, software HCA, "Fabric"). Its LID is the instance number + 1 if
	 * no process holds it, else the lowest free one; query_port reports it. A
	 * process is on one such fabric at most. Empty (default): the process's own.
	 */
	char fabric_name[32];
	/**
	 * With a @c fabric_name: the uids, besides the process's own, whose processes
	 * may reach this host and be reached by it (devarg sim_fabric_uids). A peer
	 * process of any other uid is refused: its connection is closed unserved, and
	 * this host's requests never go to a LID such a process holds.
	 */
	uint32_t fabric_uids[MLX5_SIM_FABRIC_MAX_UIDS];
	/** Entries of @c fabric_uids in use, 0..MLX5_SIM_FABRIC_MAX_UIDS (default 0). */
	uint8_t n_fabric_uids;
};

/** The software HCA's table of the seam (registered as backend "sim" at load). */
const struct mlx5_glue *mlx5_glue_sim(void);

/**
 * The CPUs a default engine thread may run on: the process's affinity when the
 * library was loaded (every online CPU if that could not be read).
 */
void mlx5_sim_default_engine_cpus(cpu_set_t *cpus);

/** Fill @p attr with the defaults (thread mode, a ConnectX-7-like device). */
void mlx5_sim_device_attr_init(struct mlx5_sim_device_attr *attr);

/**
 * Add an instance.
 * @param name "sim" followed by a decimal number ("sim0", "sim1", ...).
 * @param attr capabilities; NULL = defaults.
 * @return 0; -EINVAL for a bad name or attribute, -EEXIST when the name is
 *	   taken, -ENOMEM.
 */
int mlx5_sim_device_add(const char *name, const struct mlx5_sim_device_attr *attr);

/**
 * Remove an instance. Device lists obtained earlier stay valid until freed,
 * but the device can no longer be opened.
 * @return 0; -EINVAL for a NULL name, -ENODEV when unknown, -EBUSY while open.
 */
int mlx5_sim_device_remove(const char *name);

/** The port link of a fabric host, for tests (mlx5_sim_device_set_link). */
struct mlx5_sim_link {
	/** Non-zero: the link is down: nothing reaches the host, nothing leaves it. */
	uint8_t down;
	/**
	 * Each request to the host is lost with probability loss_ppm / 10^6; the
	 * requester retries it retry_cnt times (the QP's attribute), then completes it
	 * with RETRY_EXC_ERR. 0..10^6.
	 */
	uint32_t loss_ppm;
	/** Seed of the loss draws: one seed, one sequence of losses. */
	uint64_t seed;
	/**
	 * Each request that reaches the host completes delay_us later at the requester
	 * (its CQE is held back; the bytes land at once): the requester's and the
	 * responder's delays add up. Thread and service modes; 0..10^7 (10 s).
	 */
	uint32_t delay_us;
};

/**
 * Set the port link of instance @p name (a fabric host; others are never reached
 * from outside anyway). Sends waiting on a host whose link goes down end with
 * RETRY_EXC_ERR.
 * @return 0; -EINVAL for a NULL argument, loss_ppm above 10^6 or delay_us above 10^7,
 *	   -ENODEV when unknown.
 */
int mlx5_sim_device_set_link(const char *name, const struct mlx5_sim_link *link);

/** Kinds of injected faults (see struct mlx5_sim_fault). */
enum mlx5_sim_fault_kind {
	/** Fail the WQE with index @c wqe_index on @c qpn with @c syndrome. */
	MLX5_SIM_FAULT_FAIL_WQE = 0,
	/** Hold back the CQEs of @c qpn for @c delay_us (thread mode). */
	MLX5_SIM_FAULT_DELAY_COMPLETIONS = 1,
	/** Move @c qpn to ERR and raise IBV_EVENT_QP_FATAL. */
	MLX5_SIM_FAULT_QP_FATAL = 2,
	/** The next CQE write to @c cqn overruns the CQ: IBV_EVENT_CQ_ERR. */
	MLX5_SIM_FAULT_CQ_OVERRUN = 3,
	/**
	 * The next WQE of @c qpn through a signature mkey writes its first generated
	 * protection information (wire or memory) with the last byte flipped, and
	 * completes as if nothing happened: a device corrupting signatures silently.
	 */
	MLX5_SIM_FAULT_CORRUPT_SIG = 4,
};

/** A fault to inject, for tests. */
struct mlx5_sim_fault {
	enum mlx5_sim_fault_kind kind;
	uint32_t qpn;
	uint32_t cqn;
	uint16_t wqe_index;
	uint8_t syndrome; /**< MLX5_CQE_SYNDROME_* for FAIL_WQE */
	uint8_t vendor_syndrome;
	uint8_t flags; /**< MLX5_SIM_FAULT_F_* */
	uint32_t delay_us;
};

/** FAIL_WQE: the next WQE @c qpn executes, whatever its index (@c wqe_index ignored). */
#define MLX5_SIM_FAULT_F_NEXT_WQE (1u << 0)
/** CQ_OVERRUN: the send CQ of @c qpn (@c cqn ignored). */
#define MLX5_SIM_FAULT_F_QP_SEND_CQ (1u << 1)

/**
 * Inject a fault into the instance behind @p ctx (a context opened through the
 * "sim" backend).
 * @return 0; -EINVAL when @p ctx is not a software HCA context or the fault is
 *	   malformed; what the device returns otherwise.
 */
int mlx5_sim_inject_fault(struct ibv_context *ctx, const struct mlx5_sim_fault *fault);

/**
 * Wait until the instance behind @p ctx has executed every WQE rung so far
 * (a no-op in inline mode).
 * @return 0; -EINVAL when @p ctx is not a software HCA context.
 */
int mlx5_sim_quiesce(struct ibv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_SIM_H */
