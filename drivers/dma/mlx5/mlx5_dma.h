/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma_mlx5 private definitions: device, vchan and their fast-path state.
 *
 * One vchan is one RC QP connected to itself plus one CQ, owned by one lcore. A copy
 * is one memcpy MMO WQE (exactly one WQEBB). Ring indices of rte_dma are op
 * sequence numbers; the per-slot table maps a WQE slot back to the op it carries so
 * that a CQE's wqe_counter names the last completed op.
 */
#ifndef MLX5_DMA_H
#define MLX5_DMA_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_dmadev.h>
#include <rte_log.h>

#include "mlx5_dma_mr.h"
#include "mlx5_glue.h"

/** An rte_pmd_dma_mlx5.h function: C linkage, exported (version.map). */
#define MLX5_DMA_EXPORT extern "C" __attribute__((visibility("default")))

extern int mlx5_dma_logtype;
#define MLX5_DMA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, mlx5_dma_logtype, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/** -errno of the verbs call that just failed, or -@p fallback when it left errno 0. */
static inline int mlx5_dma_neg_errno(int fallback)
{
	return errno ? -errno : -fallback;
}

/** Posting paths (devarg path=). */
enum mlx5_dma_path {
	MLX5_DMA_PATH_DIRECT, /**< WQEs written into the SQ ring by the PMD (default) */
	MLX5_DMA_PATH_VERBS,  /**< rdma-core builders between ibv_wr_start/complete */
};

/** Most backend options (devargs of the seam's backends) one device takes. */
#define MLX5_DMA_MAX_BACKEND_OPTS 8

/** A devarg owned by a backend of the seam ("sim_core=2-3"), passed on as is. */
struct mlx5_dma_backend_opt {
	char key[32];
	char value[64];
};

/** Parsed devargs. */
struct mlx5_dma_devargs {
	char dev[64]; /**< dev=: a device name of any backend; "" = auto */
	struct mlx5_dma_backend_opt opts[MLX5_DMA_MAX_BACKEND_OPTS];
	unsigned int n_opts; /**< backend options, in the order given */
	enum mlx5_dma_path path;
	uint16_t max_vchans; /**< max_vchans= (default 4) */
	uint32_t min_desc;   /**< min_desc= (default 32) */
	uint32_t max_desc;   /**< max_desc= (default 8192) */
	bool sva;            /**< sva=1: implicit on-demand MR, any address */
	/**
	 * umr_entries=: list entries a UMR WQE must carry (raises the QPs'
	 * max_inline_data, so SQ slots grow); 0 keeps one-WQEBB slots
	 */
	uint16_t umr_entries;
	bool sig; /**< sig=1: vchans take signature copies (mlx5_dma_sig.h) */
};

/** Per-WQE-slot bookkeeping: the op in the slot and where its WQE ends. */
struct mlx5_dma_slot {
	uint16_t ring_idx; /**< op (rte_dma ring index) whose WQE starts here */
	uint16_t end_pi;   /**< producer counter (low 16) after this WQE */
};

/** Details of the last error CQE of a vchan (rte_pmd_dma_mlx5.h). */
struct mlx5_dma_err_info {
	uint16_t ring_idx;
	uint8_t syndrome;
	uint8_t vendor_syndrome;
	uint8_t wqe_opcode;
	bool valid;
};

/** Per-vchan statistics. */
struct mlx5_dma_vchan_stats {
	uint64_t submitted;
	uint64_t completed;
	uint64_t errors;
	uint64_t recoveries;     /**< QP resets after error CQEs */
	uint64_t batch_failures; /**< ibv_wr_complete() refusals: must stay 0 (see the guide) */
};

struct mlx5_dma_dev;

/**
 * The first 32 bytes of a memcpy MMO WQE of one QP (struct mlx5_hw_mmo_wqe: ctrl and
 * metadata segments) with WQE index 0: the same in every MMO WQE but for the index
 * (bytes 1..2), so a copy stores them as two 16-byte words and patches the index.
 */
struct alignas(16) mlx5_dma_mmo_head {
	uint64_t ctrl;      /**< ctrl bytes 0..7: opmod, WQE index 0, opcode, qpn_ds */
	uint64_t ctrl_tail; /**< ctrl bytes 8..15: 0 (no signature, fence or CQE; imm 0) */
	uint8_t meta[16];   /**< MMO metadata segment (opaque buffer of the PD) */
};

/** One vchan: QP + CQ + rings. The first two cache lines are the fast path. */
struct __rte_cache_aligned mlx5_dma_vchan {
	/* ---- enqueue ---- */
	uint8_t *sq;         /**< SQ ring, slot 0 */
	uint32_t sq_mask;    /**< SQ WQEBBs - 1 */
	uint32_t sq_limit;   /**< WQEBBs in flight at most (see mlx5_dma_sq_fits) */
	uint32_t pi;         /**< producer counter in WQEBBs (free-running) */
	uint32_t bb_ci;      /**< WQEBBs the device has completed */
	uint16_t ring_idx;   /**< next rte_dma ring index */
	uint16_t max_ops;    /**< ops in flight allowed (capacity) */
	uint16_t reported;   /**< next ring index to report */
	uint16_t done_upto;  /**< ops before this index are complete */
	uint32_t credits;    /**< ops that fit without re-checking the rings */
	uint32_t fp_max_len; /**< copy fast path: max_len, below 2^31 */
	/** sva=1: the implicit on-demand MR's lkey_be << 32, the key half of a data
	 * segment's first word, which copy() names without a lookup; 0 otherwise */
	uint64_t whole_key_seg;
	struct mlx5_dma_mmo_head mmo_head; /**< bytes 0..31 of every MMO WQE of the vchan */
	struct mlx5_dma_slot *slots;       /**< wqe_cnt entries */
	struct mlx5_dma_mr_cache mr_cache;
	enum mlx5_dma_path path;
	uint32_t db_pi;       /**< producer counter at the last doorbell */
	uint32_t multi_start; /**< start of the last raw WQE ... */
	uint32_t multi_end;   /**< ... and where it ends (pi after it) */
	bool multi_valid;     /**< multi_* describe a WQE of this burst */
	bool dead;            /**< recovery failed: HALTED_ERROR until stop/start */
	/* three control flags here, in a hole: the vchan stays 512 bytes (a shift); stopped
	 * next to dead, for mlx5_dma_vchan_refusal() */
	bool stopped; /**< device not started: ops refused (-EPERM), QP in RESET */
	bool configured;
	bool cq_lost; /**< the device reported the CQ in error (async event) */
	void (*ring_db)(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8); /**< seam hook */
	uint8_t fm_pending;     /**< direct path: fence bits a UMR left for the next WQE */
	uint16_t submitted_idx; /**< ring index after the last submitted op */
	uint16_t err_pending;   /**< unreported failed ops in op_status[] */
	uint16_t idle_polls;    /**< polls that found nothing while ops were outstanding */
	/* ---- completion ---- */
	uint8_t *cq;        /**< CQ ring */
	uint32_t cq_mask;   /**< cqe_cnt - 1 */
	uint32_t cq_ci;     /**< consumer counter */
	uint32_t cq_ci_db;  /**< consumer counter last written to the CQ dbrec */
	uint32_t cqe_shift; /**< log2(cqe size) */
	uint32_t cq_log;    /**< log2(cqe_cnt), for the owner bit */
	bool batch_open;    /**< verbs path: ibv_wr_start called, ibv_wr_complete pending */
	volatile uint32_t *cq_dbrec;
	volatile uint32_t *sq_dbrec;
	void *bf_reg;
	uint16_t *op_status; /**< per op (ring_idx & sq_mask): rte_dma_status_code (to 0x100) */
	/* ---- verbs path ---- */
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dvqp;
	struct ibv_cq_ex *cq_ex;
	/* ---- control ---- */
	struct mlx5_dma_dev *dev;
	struct ibv_qp *qp;
	uint16_t nb_desc;
	uint16_t vchan_id;
	uint32_t ops_cnt;         /**< pow2(nb_desc): WQEs the QP was asked for */
	uint8_t *scratch;         /**< wqe_cnt WQEBBs, for re-posting after recovery */
	uint16_t *scratch_op_end; /**< per scratch WQEBB: where its op ends (relative) */
	uint8_t *trap_buf;        /**< target of ops whose address is not registered */
	struct ibv_mr *trap_mr;
	struct mlx5_dma_fill_pool *fill; /**< fill patterns and their mkeys (NULL: no fill) */
	struct rte_pmd_dma_mlx5_mkey *user_mkeys; /**< mkeys the application created */
	struct mlx5_dma_sg_pool *sg;              /**< list mkeys of copy_sg (NULL: chains) */
	struct mlx5_dma_sig_pool *sig;            /**< signature mkeys (NULL: sig ops refused) */
	uint32_t err_gen;                         /**< bumped by every recovery: UMRs may be lost */
	uint16_t umr_max_list;                    /**< list entries one UMR WQE of the QP takes */
	uint16_t umr_max_interleaved;             /**< interleaved entries one UMR WQE takes */
	struct mlx5_dma_err_info last_err;
	struct mlx5_dma_vchan_stats stats;
	uint32_t max_len;    /**< max_wr_memcpy_length, at most 2^31 */
	uint32_t whole_lkey; /**< sva=1: the implicit MR's lkey (verbs path); 0 otherwise */
};

/* the fast paths find a vchan with one shift of its id */
static_assert(sizeof(struct mlx5_dma_vchan) == 512, "vchan is not 512 bytes");

/** dev_private of a dma_mlx5 dmadev. */
struct mlx5_dma_dev {
	const struct mlx5_glue *glue;
	struct ibv_device *device;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct mlx5_dma_mr_registry *mrs;
	struct mlx5_dma_devargs args;
	uint64_t max_wr_memcpy_length;
	uint16_t max_sges; /**< rte_dma_info.max_sges: segments per side of a copy_sg */
	bool has_mkey;     /**< indirect mkeys can be created (fill, UMR paths) */
	struct mlx5dv_sig_caps sig_caps; /**< zero: no signature offload */
	bool sig_pipelining;             /**< QPs stop in SQD on a signature error */
	uint16_t nb_vchans;
	struct mlx5_dma_vchan *vchans; /**< args.max_vchans entries */
	char name[RTE_DEV_NAME_MAX_LEN];
	bool sva;            /**< implicit MR in use */
	uint32_t service_id; /**< progress service (polled backends) */
	bool has_service;
	/** rte_dma_stop() ran and no rte_dma_start() since: remote channels refuse ops (a
	 * device never started takes them: remote channels need no configured vchan) */
	bool stopped;
	struct mlx5_dma_remote_state *remote; /**< DC targets and remote channels, or NULL */
	struct rte_dma_fp_object *fp;         /**< the dmadev's fast-path entries */
	bool enq_deq;                         /**< configured for rte_dma_enqueue_ops() */
	/** per vchan (args.max_vchans): the rte_dma_op of each ring index (& sq_mask) in
	 * flight; NULL until a vchan is set up for the enqueue/dequeue ops API */
	void ***enq_ops;
	/** vchans of the inter-process domain (mlx5_dma_domain.cpp), or NULL */
	struct mlx5_dma_domain *domain;
};

/* mlx5_dma_enq_deq.cpp: the enqueue/dequeue ops API of DPDK 25.11 */
/** RTE_DMA_CAPA_OPS_ENQ_DEQ where the DPDK built against has it, else 0. */
uint64_t mlx5_dma_enq_deq_capa(void);
/** After vchan @p vchan was (re)created: its op ring, if the device is configured for
 * the ops API (released otherwise). 0 or -ENOMEM. */
int mlx5_dma_enq_deq_setup(struct mlx5_dma_dev *p, uint16_t vchan);
/** At close: every op ring. */
void mlx5_dma_enq_deq_release(struct mlx5_dma_dev *p);
/** The enqueue/dequeue entries of @p fp for the device's configuration. */
void mlx5_dma_enq_deq_install(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p);

/* mlx5_dma_domain.cpp: the inter-process domain of DPDK 25.11 (access pair groups) */
struct mlx5_dma_domain;
struct mlx5_dma_vchan_domain;
/** RTE_DMA_CAPA_INTER_PROCESS_DOMAIN where the DPDK built against has it, else 0. */
uint64_t mlx5_dma_domain_capa(const struct mlx5_dma_dev *p);
/** Vchan @p vchan's domain (after its queues were created): NONE, or a remote channel
 * to the peer its handlers name. 0, or -EINVAL / -ENOTSUP / -ENOMEM with one log line. */
int mlx5_dma_domain_vchan_setup(struct mlx5_dma_dev *p, int16_t dev_id, uint16_t vchan,
				const struct mlx5_dma_vchan_domain *dom, uint16_t nb_desc);
void mlx5_dma_domain_vchan_release(struct mlx5_dma_dev *p, uint16_t vchan);
/** At close: the domain vchans, and the groups the device created or joined. */
void mlx5_dma_domain_release(struct mlx5_dma_dev *p, int16_t dev_id);
/** A domain vchan's counters (its remote channel's) added to @p s; false: not one. */
bool mlx5_dma_domain_vchan_stats(const struct mlx5_dma_dev *p, uint16_t vchan,
				 struct rte_dma_stats *s);
/** A domain vchan's status (its remote channel's); false: not one. */
bool mlx5_dma_domain_vchan_status(const struct mlx5_dma_dev *p, uint16_t vchan,
				  enum rte_dma_vchan_status *st);
/** On top of the entries of @p fp: those of the domain vchans, if the device has any. */
void mlx5_dma_domain_install(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p);

/* mlx5_dma_ops.cpp */
extern const struct rte_dma_dev_ops mlx5_dma_dev_ops;

/* mlx5_dma_probe.cpp: release what probe acquired (MRs, PD, device) */
void mlx5_dma_dev_release(struct mlx5_dma_dev *p);

/* mlx5_dma_pmd_api.cpp: which dmadev ids are ours */
void mlx5_dma_api_attach(int16_t dev_id, struct mlx5_dma_dev *p);
void mlx5_dma_api_detach(struct mlx5_dma_dev *p);
/** The dma_mlx5 device @p dev_id, or NULL. */
struct mlx5_dma_dev *mlx5_dma_api_dev(int16_t dev_id);
/** The set-up vchan @p vchan of dma_mlx5 device @p dev_id, or NULL. */
struct mlx5_dma_vchan *mlx5_dma_api_vchan(int16_t dev_id, uint16_t vchan);

/* mlx5_dma_mkey_api.cpp: the mkeys applications create on a vchan */
/** Destroy every mkey of the vchan (vchan teardown). */
void mlx5_dma_mkey_api_release(struct mlx5_dma_vchan *vc);
/** Forget which ops used them (ring indices restart). */
void mlx5_dma_mkey_api_reset(struct mlx5_dma_vchan *vc);

/* mlx5_dma_progress.cpp: where the device's own work runs (software backends) */
/** After open: log the placement; register the progress service if one is needed. */
int mlx5_dma_progress_setup(struct mlx5_dma_dev *p);
/** dev_start: make sure a service lcore runs the progress service. */
void mlx5_dma_progress_start(struct mlx5_dma_dev *p);
/** Before close: stop and unregister the progress service. */
void mlx5_dma_progress_teardown(struct mlx5_dma_dev *p);

/* mlx5_dma_remote.cpp: remote copies over DC (rte_pmd_dma_mlx5.h) */
/** Destroy the device's DC targets and the channels the application left. */
void mlx5_dma_remote_release(struct mlx5_dma_dev *p);

/* mlx5_dma_remote_fill.cpp: the pattern sources of a remote channel's fills */
struct mlx5_dma_remote_fill;
/** Pattern sources for fills up to @p max_len bytes, their mkeys configured: 0 or -errno. */
int mlx5_dma_remote_fill_create(struct mlx5_dma_dev *p, uint32_t max_len,
				struct mlx5_dma_remote_fill **out);
void mlx5_dma_remote_fill_destroy(struct mlx5_dma_dev *p, struct mlx5_dma_remote_fill *f);
/**
 * The key (address 0 onwards) whose bytes repeat @p pattern, for op @p idx of a
 * channel that reported every op before @p reported: 0 and *lkey, or -ENOSPC when
 * every source holds another pattern for ops not reported yet.
 */
int mlx5_dma_remote_fill_source(struct mlx5_dma_remote_fill *f, uint64_t pattern, uint16_t idx,
				uint16_t reported, uint32_t *lkey);

/* mlx5_dma_devargs.cpp */
int mlx5_dma_devargs_parse(const char *args, struct mlx5_dma_devargs *out);

/* mlx5_dma_vchan.cpp */
/**
 * QP access flags of a vchan's QP (connected to itself): no remote right. Its WQEs
 * (memcpy MMO, UMR, NOP, raw WQEs) name local keys only; an RDMA request that reaches
 * the QP is refused whatever key it carries.
 */
#define MLX5_DMA_VCHAN_QP_ACCESS 0
/** CQ + QP of a vchan, connected in RTS; on failure what exists stays for destroy. */
int mlx5_dma_vchan_create_queues(struct mlx5_dma_vchan *vc, uint32_t wqe_cnt);
void mlx5_dma_vchan_destroy_queues(struct mlx5_dma_vchan *vc);
/** New CQ + QP in place of a pair whose CQ is in error; on failure the old pair stays. */
int mlx5_dma_vchan_replace_queues(struct mlx5_dma_vchan *vc);
int mlx5_dma_vchan_create(struct mlx5_dma_dev *dev, struct mlx5_dma_vchan *vc, uint16_t id,
			  uint16_t nb_desc);
void mlx5_dma_vchan_destroy(struct mlx5_dma_vchan *vc);
int mlx5_dma_vchan_restart(struct mlx5_dma_vchan *vc);

/* mlx5_dma_fp.cpp */
/**
 * The copy, submit and completion entries of @p path; @p whole_key: copy() names the
 * implicit on-demand MR's key without a lookup (sva=1), else the MR cache's, checked.
 */
void mlx5_dma_fp_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path, bool whole_key);
/**
 * The device's fast-path entries: the working ones (@p started), or those of a stopped
 * device, which refuse every op (-EPERM), report what the stop left and touch no queue.
 * Swapped at start and stop, so that the ops themselves test no state.
 */
void mlx5_dma_fp_set(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p, bool started);

/**
 * The vchan a fast-path entry point names: the fp object's dev_private is the vchan
 * array (not the device), so that finding it is one shift and an add, no load.
 */
static inline struct mlx5_dma_vchan *mlx5_dma_fp_vchan(const void *priv, uint16_t vchan)
{
	return (struct mlx5_dma_vchan *)priv + vchan;
}

/* mlx5_dma_fill.cpp: rte_dma_fill through an interleaved mkey over a pattern */
struct mlx5_dma_fill_pool;
/** Pattern buffers and mkeys of a vchan (device with mkeys); 0 or a negative errno. */
int mlx5_dma_fill_pool_create(struct mlx5_dma_vchan *vc);
void mlx5_dma_fill_pool_destroy(struct mlx5_dma_vchan *vc);
/** Forget which patterns the slots hold and which mkeys are configured (restart). */
void mlx5_dma_fill_pool_reset(struct mlx5_dma_vchan *vc);
void mlx5_dma_fill_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path);
/** Whether the device creates indirect mkeys (one created and destroyed). */
bool mlx5_dma_probe_mkey(struct mlx5_dma_dev *p);
/** An indirect mkey of @p max_entries on the device's PD, or NULL (errno set). */
struct mlx5dv_mkey *mlx5_dma_indirect_mkey(struct mlx5_dma_dev *p, uint16_t max_entries);

/* mlx5_dma_sg.cpp: rte_dma_copy_sg */
/** Most segments per side of a copy_sg: a chain of MMO WQEs must fit any SQ. */
#define MLX5_DMA_MAX_SGES 16
/** max_sges of a device whose smallest ring is @p min_desc descriptors. */
uint16_t mlx5_dma_sg_max_sges(uint32_t min_desc);
void mlx5_dma_sg_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path);
struct mlx5_dma_sg_pool;
/** List mkeys of a vchan whose UMR WQEs carry more than 2 entries; 0 or -errno. */
int mlx5_dma_sg_pool_create(struct mlx5_dma_vchan *vc);
void mlx5_dma_sg_pool_destroy(struct mlx5_dma_vchan *vc);
void mlx5_dma_sg_pool_reset(struct mlx5_dma_vchan *vc);

/* mlx5_dma_err.cpp: slow paths of the completion side */
void mlx5_dma_handle_error_cqe(struct mlx5_dma_vchan *vc, const void *cqe);
/** Reset the QP and re-post the WQEs from @p start_pi16 on, as ops @p first_idx, ... */
int mlx5_dma_recover(struct mlx5_dma_vchan *vc, uint16_t start_pi16, uint16_t first_idx);
/** Polls that find nothing while ops are outstanding, between two async-event checks. */
#define MLX5_DMA_IDLE_CHECK 4096
/**
 * A vchan stalls with ops outstanding: read the device's async events; a CQ the
 * device put in error (overrun) loses its completions, so the vchan gets new queues
 * and every op not yet completed is posted again.
 */
void mlx5_dma_idle_check(struct mlx5_dma_vchan *vc);
/** Skip every CQE the device has written so far (direct path), update the CQ dbrec. */
void mlx5_dma_cq_skip_all(struct mlx5_dma_vchan *vc);
uint16_t mlx5_dma_report_with_errors(struct mlx5_dma_vchan *vc, uint16_t nb_cpls,
				     uint16_t *last_idx, bool *has_error,
				     enum rte_dma_status_code *status);
enum rte_dma_status_code mlx5_dma_status_of_syndrome(uint8_t syndrome);
/** The same for a work completion's status (verbs completions). */
enum rte_dma_status_code mlx5_dma_status_of_wc(enum ibv_wc_status status);

#endif /* MLX5_DMA_H */
