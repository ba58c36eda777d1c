/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, device side: the "hardware".
 *
 * The device sees only what real hardware sees: command calls (what the kernel and
 * firmware would do on ibv_create_qp, ibv_modify_qp, ibv_reg_mr, ...), ring memory
 * (SQ/RQ WQEs, CQ entries, doorbell records) and doorbell writes. It never receives
 * a description of work through an API: it fetches WQE bytes from the SQ ring up to
 * the producer counter in the doorbell record, checks them against its MR table,
 * moves data and writes CQEs into the CQ ring.
 *
 * Every command returns 0 or a negative errno and changes nothing on failure.
 */
#ifndef MLX5_SIM_HCA_H
#define MLX5_SIM_HCA_H

#include <stdint.h>

#include <sched.h>

#include <chrono>
#include <memory>
#include <string>

#include <infiniband/verbs.h>

namespace mlx5sim {

/** How the device executes WQEs. */
enum class ExecMode : uint8_t {
	Inline, /**< at the doorbell, on the caller's thread: deterministic */
	Thread, /**< on an engine thread, asynchronously, as hardware does */
	Polled, /**< asynchronously, in progress() calls from any thread (a DPDK service) */
};

/**
 * What ibv_query_qp_data_in_order() may promise for an instance, and how its
 * engine writes the bytes of an RDMA write, RDMA read response or SEND.
 */
enum class DataInOrder : uint8_t {
	None,       /**< no promise: a message's 128-byte blocks land last first */
	Aligned128, /**< each 128-byte aligned block in order, blocks last first */
	WholeMsg,   /**< the whole message in order: its last byte lands last */
};

/** Per-instance capabilities, so tests can model different hardware generations. */
/** Most uids a machine-wide fabric host admits besides the process's own. */
constexpr uint32_t HCA_FABRIC_MAX_UIDS = 8;

struct HcaCaps {
	uint64_t max_wr_memcpy_length = 1ull << 31; /**< 0: no memcpy MMO */
	uint32_t max_sq_desc_sz = 1024;             /**< largest send WQE in bytes */
	uint32_t max_send_wqebb = 32768;            /**< largest SQ in WQEBBs */
	uint32_t max_recv_wr = 32768;
	uint32_t max_sge = 30;
	uint32_t max_cqe = (1u << 22) - 1;
	uint32_t max_qp = 4096;
	uint32_t max_cq = 4096;
	uint32_t max_mr = 1u << 16;
	uint32_t max_pd = 1024;
	uint32_t max_psv = 1u << 16; /**< signature PSVs (two per signature mkey) */
	/*
	 * Signature offload: the cmd_hca_cap bits libmlx5 reads (get_hca_sig_caps).
	 * Default: a ConnectX-7-like device with every signature feature.
	 */
	bool sig_sho = true;                 /**< sho: signature handover offload */
	bool sig_domain_and_sig_type = true; /**< sigerr_domain_and_sig_type */
	bool sig_block_4048 = true;          /**< 4048-byte blocks */
	bool sig_crc32c = true;              /**< CRC32C */
	bool sig_crc64_xp10 = true;          /**< CRC64_XP10 */
	bool sqd2rts = true; /**< the kernel moves SQD->RTS: SIG_PIPELINING QPs allowed */
	/**
	 * Where a drain_sigerr QP stops after a signature error: false, right after
	 * the failing WQE; true, right before the next WQE with FENCE.
	 */
	bool sigerr_stop_at_fence = false;
	uint8_t cqe_version = 1;  /**< 1: requester CQEs carry the user index */
	bool odp_implicit = true; /**< implicit on-demand MR supported */
	/**
	 * Thread mode only: the engine may execute consecutive unfenced WQEs of one
	 * doorbell batch out of order (in reverse), so a missing fence is observable.
	 * Completions stay in order.
	 */
	bool reorder_unfenced = false;
	/** general_obj_types bit 0x2c: RESERVED_QPN objects (mlx5dv_reserved_qpn_alloc) */
	bool reserved_qpn = true;
	/** hca_cap_2.log_reserved_qpn_granularity: QPNs per object = 2^this (0..16) */
	uint8_t log_reserved_qpn_granularity = 4;
	/** Data-in-order capability (cmd_hca_cap.qp_data_in_order and beyond). */
	DataInOrder data_in_order = DataInOrder::None;
	/** DC transport: DCI and DCT QPs (cmd_hca_cap.dct) */
	bool dc = true;
	/** DCI streams: largest log_num_concurent (0: no DCI streams) */
	uint8_t dci_max_log_streams = 4;
	/** DCI streams: largest log_num_errored (0: no stream reset) */
	uint8_t dci_max_log_errored = 3;
	/** The port's LID (0: none); address vectors naming it reach this instance. */
	uint16_t lid = 0;
	/**
	 * A host on the process's simulated fabric: QPs of other fabric instances reach
	 * this one's QPs and DCTs by LID (and it theirs). Fabric instances share one
	 * device lock. LIDs are unique among them.
	 */
	bool fabric = false;
	/**
	 * With @c fabric: non-empty names a machine-wide fabric (hosts in several
	 * processes, xfabric.cpp); empty: the process's own. NUL-terminated.
	 */
	char fabric_name[32] = {};
	/**
	 * With @c fabric_name: the uids, besides the process's own, whose processes
	 * may exchange requests with this host (SO_PEERCRED of both ends, xfabric.cpp).
	 */
	uint32_t fabric_uids[HCA_FABRIC_MAX_UIDS] = {};
	/** Entries of @c fabric_uids in use (0: the own uid only). */
	uint8_t n_fabric_uids = 0;
	/**
	 * The application polls CQs with code ThreadSanitizer does not see (the kernel
	 * side: Debian's libmlx5), so it cannot see the CQE order a DMA write is under.
	 * TSan builds then hide the device's passes from TSan as DMA is (tsan_dma.h);
	 * other builds ignore it.
	 */
	bool dma_opaque = false;
	/**
	 * With @c fabric_name: share LID @c lid with the process this one was forked
	 * from (which holds it), as processes share a port under a kernel, instead of
	 * claiming a LID (xfabric_join_lid). Needs max_qp <= HCA_MEMBER_MAX_QP.
	 */
	bool share_lid = false;
	/**
	 * Set by the device: this host's member index on its LID (0: the process that
	 * claimed it). Its QPNs lie in member << HCA_MEMBER_SHIFT + HCA_QPN_BASE ...
	 */
	uint8_t lid_member = 0;
};

/** Largest DCI log_num_errored the model tracks (2^this errored streams). */
constexpr uint8_t HCA_DCI_MAX_LOG_ERRORED = 4;

/** DC transport role of a QP (QpConfig::dc). */
enum class DcRole : uint8_t {
	None, /**< RC */
	Dci,  /**< DC initiator: each WQE carries a DC address vector */
	Dct,  /**< DC target: answers any DCI that knows its number and key */
};

/** create_mkey() flags. */
enum : uint32_t {
	HCA_MKEY_REMOTE_INVALIDATE = 1u << 0, /**< en_rinval: SEND_INVAL may free it */
	/** bsf_en with 4 BSF octowords: a signature mkey (UMRs may carry a BSF) */
	HCA_MKEY_BSF = 1u << 1,
};

/** Indirect mkeys: properties of the model (ASSUMPTIONS.md). */
enum : uint32_t {
	HCA_MKEY_DEPTH = 4, /**< indirect mkeys one access may pass through */
	/**
	 * Key index never given to an mkey: its key, 0x400, is the op of a repeat-block
	 * header, which sits where a KLM list's first key would.
	 */
	HCA_MKEY_RESERVED_IDX = 4,
};

/** Fault injection, for tests. */
struct Fault {
	enum class Kind : uint8_t {
		FailWqe,          /**< fail the WQE with index @ref wqe_index on @ref qpn */
		DelayCompletions, /**< hold back CQEs of @ref qpn for @ref delay_us (thread mode) */
		QpFatal,          /**< move @ref qpn to ERR and raise IBV_EVENT_QP_FATAL */
		CqOverrun,        /**< next CQE write to @ref cqn overruns: IBV_EVENT_CQ_ERR */
		CorruptSig,       /**< next signature WQE of @ref qpn: 1st generated PI flipped */
	};
	Kind kind;
	uint32_t qpn = 0;
	uint32_t cqn = 0;
	uint16_t wqe_index = 0;
	uint8_t syndrome = 0; /**< MLX5_CQE_SYNDROME_* for FailWqe */
	uint8_t vendor_syndrome = 0;
	bool next_wqe = false;   /**< FailWqe: the next WQE, whatever its index */
	bool qp_send_cq = false; /**< CqOverrun: the send CQ of @ref qpn */
	uint32_t delay_us = 0;
};

/** CQ as created by the kernel: ring memory owned by the provider. */
struct CqConfig {
	void *buf;         /**< ncqe * cqe_size bytes */
	uint32_t ncqe;     /**< power of two */
	uint32_t cqe_size; /**< 64 or 128 (then the CQE is the second half) */
	uint32_t *dbrec;   /**< [0] consumer index (BE32, low 24 bits), [1] arm */
	/**
	 * The completion event of an armed CQ (the kernel's comp_handler), called
	 * under the device lock once per arm; must not call into the device.
	 */
	void (*comp_event)(void *arg) = nullptr;
	void *comp_arg = nullptr;
};

/**
 * SRQ as created by the kernel: a ring of WQEs, each a 16-byte next segment
 * (next_wqe_index, BE16 at byte 2) and data segments; the device takes WQEs along
 * the next_wqe_index links, starting at WQE 0, while the counter in dbrec[0] is
 * ahead of what it consumed.
 */
struct SrqConfig {
	uint32_t pdn;
	void *buf;          /**< wqe_cnt WQEs of (1 << wqe_shift) bytes */
	uint32_t wqe_cnt;   /**< power of two */
	uint32_t wqe_shift; /**< 5..10 */
	uint32_t *dbrec;    /**< [0] counter of posted WQEs (BE32, low 16 bits) */
};

/** QP as created by the kernel. */
struct QpConfig {
	enum ibv_qp_type type; /**< IBV_QPT_RC, UC, UD, or IBV_QPT_DRIVER with @ref dc set */
	uint32_t pdn;
	uint32_t uidx;         /**< user index, written into CQEs (CQE version 1) */
	void *sq_buf;          /**< SQ ring, sq_wqe_cnt * 64 bytes */
	uint32_t sq_wqe_cnt;   /**< power of two, 0 = no SQ */
	void *rq_buf;          /**< RQ ring: rq_wqe_cnt WQEs of (1 << rq_wqe_shift) bytes */
	uint32_t rq_wqe_cnt;   /**< power of two, 0 = no RQ */
	uint32_t rq_wqe_shift; /**< RQ WQE = array of data segments, stride 1 << shift */
	uint32_t *dbrec;       /**< [MLX5_RCV_DBR] RQ counter, [MLX5_SND_DBR] SQ counter */
	uint32_t send_cqn;
	uint32_t recv_cqn;
	uint32_t srqn; /**< receives come from this SRQ (0: the QP's own RQ, if any) */
	/**
	 * qpc.drain_sigerr (signature pipelining): stop in SQD after a signature
	 * error. libmlx5 sets it with INIT2INIT right after RESET->INIT; the model
	 * takes it at creation.
	 */
	bool drain_sigerr;
	/** DC role; a DCT has no SQ and no RQ (recv_cqn takes its responder CQEs) */
	DcRole dc;
	uint64_t dct_key;        /**< DCT: the access key every DC WQE must carry */
	uint8_t dci_log_streams; /**< DCI: log_num_concurent (informational) */
	uint8_t dci_log_errored; /**< DCI: ERR once 2^this streams are in error */
};

/** What QUERY_QP returns. */
struct QpInfo {
	enum ibv_qp_state state;
	uint32_t dest_qpn;
	uint16_t hw_sq_wqebb_counter; /**< first WQEBB the device has not executed */
	uint32_t access_flags;
	bool drain_sigerr; /**< qpc.drain_sigerr */
	uint32_t qkey;     /**< UD: the Q_Key */
	uint8_t engine;    /**< thread mode: the engine thread that executes it (0..n-1) */
};

/** An affiliated or unaffiliated asynchronous event, by object number. */
struct AsyncEvent {
	enum ibv_event_type type;
	uint32_t qpn;  /**< for QP events */
	uint32_t cqn;  /**< for CQ events */
	uint32_t srqn; /**< for SRQ events (IBV_EVENT_SRQ_LIMIT_REACHED) */
};

/** Counters of one device, for dumps and tests. */
struct HcaStats {
	uint64_t doorbells;
	uint64_t wqes_executed;
	uint64_t cqes_written;
	uint64_t error_cqes;
	uint64_t bytes_moved;
};

/**
 * Doorbells the device must look for itself: stores into memory that wake no thread
 * (the kernel side's doorbell records, doc/guides/sim/kernel_side.rst). In thread
 * mode the engine thread polls the source before each pass and while it spins, so
 * the thread that notices a doorbell is the one that executes it (no hand-over to
 * another thread). Called on the engine thread only, never with the device mutex
 * held.
 */
class DoorbellSource {
public:
	virtual ~DoorbellSource() = default;
	/** Look once; ring the device (sq_doorbell(), rq_notify(), ...) for each change. */
	virtual void poll() = 0;
	/**
	 * The engine has had nothing to do for @p quiet (it spins first, then asks):
	 * how long it may sleep before the next poll().
	 */
	virtual std::chrono::nanoseconds idle(std::chrono::nanoseconds quiet) = 0;
};

/** Most engine threads of one instance (Hca::create's engine_per_cpu). */
constexpr unsigned HCA_MAX_ENGINES = 64;

/**
 * One software HCA instance. Thread safety: commands may be issued from any thread;
 * the data path of one QP (doorbells, ring memory) belongs to one thread at a time,
 * as on hardware.
 */
class Hca {
public:
	virtual ~Hca() = default;

	/**
	 * Create an instance; @p name must be unique ("sim0", ...). Thread mode: the
	 * engine thread may run on @p engine_cpus only (NULL: wherever the creating
	 * thread may run); with @p engine_per_cpu there is one engine thread pinned to
	 * each CPU of @p engine_cpus (at most HCA_MAX_ENGINES), and each QP belongs to
	 * one of them. The (first) engine thread also polls @p doorbells when given
	 * (which must outlive the instance; ignored in the other modes).
	 */
	static std::shared_ptr<Hca> create(const std::string &name, const HcaCaps &caps,
					   ExecMode mode, const cpu_set_t *engine_cpus = nullptr,
					   DoorbellSource *doorbells = nullptr,
					   bool engine_per_cpu = false);

	virtual const std::string &name() const = 0;
	virtual const HcaCaps &caps() const = 0;
	virtual ExecMode mode() const = 0;
	/**
	 * In a fork() child that keeps this copy of the parent's instance (the kernel
	 * side's inherited contexts): its device lock is made free, as a thread of the
	 * parent (an engine) may have held it at the fork and is not in the child, so
	 * commands on the copy never wait for it for ever. Runs no engine.
	 */
	virtual void fork_child() = 0;

	/* protection domains and memory regions */
	virtual int alloc_pd(uint32_t *pdn) = 0;
	virtual int dealloc_pd(uint32_t pdn) = 0; /**< -EBUSY while MRs/QPs use it */
	/**
	 * Register [addr, addr + len) with IBV_ACCESS_* @p access. The range must be
	 * mapped (-EFAULT otherwise). addr 0, len UINT64_MAX with IBV_ACCESS_ON_DEMAND
	 * registers the implicit on-demand MR. lkey == rkey.
	 */
	virtual int reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access,
			   uint32_t *key) = 0;
	virtual int dereg_mr(uint32_t key) = 0; /**< -EINVAL for an indirect mkey's key */
	/**
	 * REREG_MR in place: MR @p key covers [addr, addr + len) of PD @p pdn with
	 * @p access from now on, under the same key (the kernel's UMR rereg). The
	 * checks of reg_mr; -EINVAL: @p key is no MR (or an indirect mkey's), bad PD.
	 * On failure the MR is unchanged.
	 */
	virtual int rereg_mr(uint32_t key, uint32_t pdn, uint64_t addr, uint64_t len,
			     int access) = 0;
	/**
	 * CREATE_MKEY of an indirect (KLM-mode, UMR-enabled) mkey with room for
	 * @p num_desc translation octowords (0..65536). It shares the key index space
	 * with MRs (and counts against caps.max_mr); its key is index << 8 (tag 0),
	 * it is zero-based, starts free (a UMR WQE fills it) with local read as its
	 * only right. num_desc 0 is accepted (no layout fits). @p flags:
	 * HCA_MKEY_REMOTE_INVALIDATE (en_rinval). -EINVAL: bad PD, flags or num_desc
	 * (> 65536); -ENOMEM: no key or memory left. The PD is busy until destroy.
	 */
	virtual int create_mkey(uint32_t pdn, uint32_t num_desc, uint32_t flags, uint32_t *key) = 0;
	/**
	 * DESTROY_MKEY, by the index in @p key (a UMR may have changed its tag).
	 * -EINVAL unless that index holds an indirect mkey. Never -EBUSY: mkeys that
	 * name it by key fail their checks afterwards, as do WQEs using it.
	 */
	virtual int destroy_mkey(uint32_t key) = 0;

	/* completion queues */
	virtual int create_cq(const CqConfig &cfg, uint32_t *cqn) = 0;
	virtual int destroy_cq(uint32_t cqn) = 0; /**< -EBUSY while QPs use it */
	/**
	 * The CQ doorbell (UAR offset 0x20): arm @p cqn with @p arm_word as libmlx5
	 * writes it (sn << 28 | solicited << 24 | ci). The next CQE at index >= ci
	 * (with solicited: the next solicited or error CQE) raises one comp_event; an
	 * arm whose sn is not the CQ's current one (stale) is ignored. -EINVAL: no CQ.
	 */
	virtual int arm_cq(uint32_t cqn, uint32_t arm_word) = 0;
	/**
	 * MODIFY_CQ with op_mod resize: @p cqn continues on @p buf (@p ncqe entries of
	 * @p cqe_size bytes). The device writes a RESIZE_CQ CQE at the producer index of
	 * the old ring and the next CQE at the index after it into the new ring (the
	 * provider moves the unpolled ones, libmlx5's mlx5_cq_resize_copy_cqes).
	 * -EINVAL: no CQ, bad geometry, a CQ in error, the old ring full, or more
	 * unpolled CQEs than @p ncqe.
	 */
	virtual int resize_cq(uint32_t cqn, void *buf, uint32_t ncqe, uint32_t cqe_size) = 0;

	/* shared receive queues */
	/** CREATE_SRQ. -EINVAL: bad PD or geometry; -ENOMEM. */
	virtual int create_srq(const SrqConfig &cfg, uint32_t *srqn) = 0;
	/** DESTROY_SRQ. -EINVAL: unknown; -EBUSY while QPs use it. */
	virtual int destroy_srq(uint32_t srqn) = 0;
	/** The SRQ's counter moved: sends waiting for a receive WQE may proceed. */
	virtual void srq_notify(uint32_t srqn) = 0;
	/**
	 * ARM_RQ of an SRQ: once fewer than @p limit WQEs are posted and not taken, the
	 * device raises IBV_EVENT_SRQ_LIMIT_REACHED once and disarms (limit 0 again).
	 * @p limit 0 disarms. -EINVAL: unknown SRQ, or @p limit not below its WQE count.
	 */
	virtual int arm_srq(uint32_t srqn, uint32_t limit) = 0;
	/** QUERY_SRQ: the armed limit in *limit (0: not armed). -EINVAL: unknown SRQ. */
	virtual int query_srq(uint32_t srqn, uint32_t *limit) = 0;

	/* queue pairs: the state machine of the verbs spec */
	virtual int create_qp(const QpConfig &cfg, uint32_t *qpn) = 0;
	/** ibv_modify_qp semantics: illegal transitions give -EINVAL and change nothing. */
	virtual int modify_qp(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask) = 0;
	virtual int query_qp(uint32_t qpn, QpInfo *info) = 0;
	/**
	 * INIT2INIT setting qpc.drain_sigerr (the kernel side's DevX path; the imitation
	 * provider gives QpConfig::drain_sigerr at creation). -EINVAL unless QP @p qpn
	 * exists and is in INIT.
	 */
	virtual int set_drain_sigerr(uint32_t qpn) = 0;
	virtual int destroy_qp(uint32_t qpn) = 0;

	/**
	 * The SQ doorbell (a write to the QP's UAR/BlueFlame register). @p ctrl8 is the
	 * first 8 bytes of the last posted WQE's ctrl segment as in memory; the device
	 * fetches every WQE up to the producer counter in the doorbell record.
	 */
	virtual void sq_doorbell(uint32_t qpn, uint64_t ctrl8) = 0;
	/**
	 * The RQ has new WQEs (its doorbell record moved). Hardware notices by itself;
	 * the model is told so that a SEND waiting for a receive WQE can proceed.
	 */
	virtual void rq_notify(uint32_t qpn) = 0;

	/* signature PSVs (protection signature values) */
	/**
	 * CREATE_PSV with num_psv 1: a PSV of PD @p pdn, index 1..0xffffff in
	 * @p psv_index. -EINVAL: bad PD; -ENOMEM: caps.max_psv reached or no memory.
	 */
	virtual int create_psv(uint32_t pdn, uint32_t *psv_index) = 0;
	/** DESTROY_PSV. -EINVAL unless @p psv_index is a live PSV. */
	virtual int destroy_psv(uint32_t psv_index) = 0;

	/* reserved QPNs (general object RESERVED_QPN, 0x2c) */
	/**
	 * CREATE_GENERAL_OBJECT of type RESERVED_QPN with log_obj_range @p log_range:
	 * 2^log_range consecutive QPNs, aligned to their count, that no QP ever gets;
	 * the first is the object id in @p first_qpn. -EOPNOTSUPP without
	 * caps.reserved_qpn; -EINVAL: log_range below caps.log_reserved_qpn_granularity
	 * or above 16; -ENOMEM: the QPN space is used up.
	 */
	virtual int create_reserved_qpn(uint32_t log_range, uint32_t *first_qpn) = 0;
	/** DESTROY_GENERAL_OBJECT of one. -EINVAL unless @p first_qpn is a live object. */
	virtual int destroy_reserved_qpn(uint32_t first_qpn) = 0;

	/* fabric */
	/**
	 * The port's link (fabric hosts): @p down, nothing reaches this host and
	 * nothing leaves it; otherwise each request to it is lost with probability
	 * @p loss_ppm / 10^6, drawn from a generator seeded with @p seed. A requester
	 * retries a lost request retry_cnt times before RETRY_EXC. A request that gets
	 * there completes @p delay_us later at the requester (thread and service
	 * modes). -EINVAL: loss_ppm above 10^6, delay_us above 10 s.
	 */
	virtual int set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us) = 0;

	/* DC transport */
	/**
	 * RTS2RTS with qpc_ext.dci_stream_channel_id: stream @p stream of DCI @p qpn
	 * leaves the error state and its WQEs execute again. -EINVAL: not a DCI in RTS,
	 * or the stream is not in error.
	 */
	virtual int dci_stream_reset(uint32_t qpn, uint16_t stream) = 0;

	/** Next async event; -EAGAIN when none is pending. */
	virtual int get_async_event(AsyncEvent *event) = 0;

	/** Wait until the engine has executed everything rung so far (thread mode). */
	virtual void quiesce() = 0;

	/**
	 * Polled mode: one pass over every QP with work, from any thread (passes are
	 * serialised). @return 1 when something was executed or flushed, 0 when idle,
	 * -ENOTSUP in the other modes.
	 */
	virtual int progress() = 0;

	/**
	 * Thread mode: the CPUs the engine threads may run on (their masks' union).
	 * @return the number of engine threads, or -ENOTSUP in the other modes.
	 */
	virtual int engine_cpus(cpu_set_t *cpus) const = 0;

	virtual int inject(const Fault &fault) = 0;
	virtual HcaStats stats() const = 0;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_HCA_H */
