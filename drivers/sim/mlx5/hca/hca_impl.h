/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, device side: internal objects shared by the files of the
 * model (mr_table, mkey_xlat, umr, cq_table, qp_state, wqe_fetch, wqe_plan,
 * wqe_fast, wqe_exec, xlat_exec, cqe_writer, sq_engine, engine, hca). Not part of
 * the agreed interface.
 *
 * Locking: one device mutex (HcaImpl::mu_) guards every object below except the
 * atomics, which the doorbell path touches without the lock. Callers of the device
 * take it before the engine thread (DevMutex), and an engine pass does bounded work
 * per QP, so a control call waits for at most one pass.
 */
#ifndef MLX5_SIM_HCA_IMPL_H
#define MLX5_SIM_HCA_IMPL_H

#include <stdint.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <sched.h>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "fabric_wire.h"
#include "hca.h"
#include "mlx5_hw.h"
#include "sig_crc.h"

namespace mlx5sim {

/**
 * The device mutex. Callers (control calls, inline doorbells, progress()) lock() it;
 * the engine thread takes it with lock_engine() between passes, which first lets
 * every caller that waits go: a plain mutex would let the engine re-take it right
 * after unlocking, and a caller woken from the futex would find it taken again.
 */
class DevMutex {
public:
	void lock()
	{
		waiting_.fetch_add(1, std::memory_order_relaxed);
		m_.lock();
		waiting_.fetch_sub(1, std::memory_order_relaxed);
	}
	bool try_lock() { return m_.try_lock(); }
	void unlock() { m_.unlock(); }
	/** The engine: lock once nobody else waits (a late arrival waits one pass). */
	void lock_engine()
	{
		while (waiting_.load(std::memory_order_relaxed))
			sched_yield();
		m_.lock();
	}
	/** Somebody waits in lock() right now. */
	bool contended() const { return waiting_.load(std::memory_order_relaxed) != 0; }
	/** The mutex itself, for paths without an engine thread (inline doorbells). */
	std::mutex &raw() { return m_; }

private:
	std::mutex m_;
	std::atomic<uint32_t> waiting_{0};
};

/** A held DevMutex. */
using DevLock = std::lock_guard<DevMutex>;

/** Internal numbering. */
enum {
	HCA_QPN_BASE = 0x100,     /**< first QPN handed out */
	HCA_QPN_END = 1u << 24,   /**< QPNs are 24 bits */
	HCA_RSV_QPN_MAX_LOG = 16, /**< largest reserved QPN object: 2^16 QPNs */
	HCA_CQN_BASE = 0x40,      /**< first CQN handed out */
	HCA_MAX_GATHER = 64,      /**< spans one side of a WQE can name */
	HCA_MAX_WQE_BYTES = MLX5_HW_WQE_MAX_DS * MLX5_HW_DS_BYTES,
	HCA_MAX_GROUP = 32,           /**< WQEs planned before their data is moved */
	HCA_RQ_MAX_SHIFT = 10,        /**< RQ stride at most 1 KiB = 64 data segments */
	HCA_FLUSH_VENDOR = 0,         /**< vendor syndrome of flush CQEs (UNVERIFIED) */
	HCA_MMO_DS = 4,               /**< ctrl, opaque metadata, source, destination */
	HCA_PASS_GROUPS = 4,          /**< groups (of HCA_MAX_GROUP WQEs) per QP per engine pass */
	HCA_RNR_INFINITE = 7,         /**< rnr_retry value meaning "retry for ever" */
	HCA_MAX_PATTERNS = 4,         /**< repeat-block spans one plan can hold */
	HCA_MAX_PAT_ENT = 64,         /**< entries of one repeat block (a WQE holds at most 55) */
	HCA_MAX_MKEY_DESC = 1u << 16, /**< largest num_desc of create_mkey */
	HCA_DC_AV_BYTES = 48,         /**< DC address vector after a DCI WQE's ctrl */
};

/**
 * Reserved bit of Plan::nsrc: the plan needs exec_special() (UMR, repeat-block
 * spans, remote invalidation). It makes nsrc != 1, so exec_plan()'s one-span test
 * sends such plans to exec_general() without looking at anything else.
 */
constexpr uint32_t HCA_NSRC_SPECIAL = 1u << 31;
/** Span::len bit: the span is a repeat block; Span::p points at its Pattern. */
constexpr uint64_t HCA_SPAN_PATTERN = 1ull << 63;
/** Span::len bit: the span is wire-domain bytes of a signature mkey; Span::p is its SigXfer. */
constexpr uint64_t HCA_SPAN_SIG = 1ull << 62;

/** Opcodes that reach a responder (RC peer or DCT): sends, RDMA, atomics. */
static inline bool hca_remote_opcode(uint8_t op)
{
	return op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
	       op == MLX5_OPCODE_SEND_INVAL || op == MLX5_OPCODE_RDMA_WRITE ||
	       op == MLX5_OPCODE_RDMA_WRITE_IMM || op == MLX5_OPCODE_RDMA_READ ||
	       op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA;
}

/** IB message size limit, also what a data segment byte_count of 0 means. */
constexpr uint64_t HCA_MAX_MSG = 1ull << 31;

/** Length named by a data segment's byte_count (0 means 2 GiB). */
static inline uint64_t hca_seg_len(uint32_t byte_count)
{
	return byte_count ? byte_count : HCA_MAX_MSG;
}

/** One translation entry of an indirect mkey (a KLM or a repeat-block entry). */
struct XlatEnt {
	uint64_t va;
	uint32_t key;
	uint32_t bc;     /**< bytes (KLM: 0 = padding, no bytes) */
	uint32_t stride; /**< repeat block: address step per repetition */
};

/** Signature of one domain, as a BSF describes it (sig_bsf.cpp). */
struct SigDomain {
	enum Kind : uint8_t {
		NONE,
		T10DIF,
		CRC
	} kind;
	GuardKind guard;
	bool seed_ones;     /**< guard register starts all ones */
	uint32_t bs;        /**< data bytes per block */
	uint8_t pi;         /**< protection bytes after each block (0: none) */
	uint32_t psv;       /**< PSV index of the domain */
	bool inc_ref;       /**< T10-DIF: ref tag + 1 per block (REF_REMAP) */
	bool app_escape;    /**< T10-DIF: app tag 0xffff skips the check */
	bool appref_escape; /**< T10-DIF: app 0xffff and ref 0xffffffff skip it */
	uint16_t app_tag;
	uint32_t ref_tag;
};

/** The signature configuration of an mkey (BSF of its last UMR). */
struct SigCfg {
	bool enabled; /**< a BSF is in force */
	bool sbs;     /**< same block structure: copy_mask applies */
	uint8_t check_mask;
	uint8_t copy_mask;
	SigDomain mem;
	SigDomain wire;
};

/** What an indirect mkey adds to its MrEntry (addr = start address, len = length). */
struct MkeyObj {
	uint32_t num_desc;   /**< translation octowords it has room for */
	bool rinval;         /**< en_rinval: SEND_INVAL may free it */
	bool bsf_en;         /**< created with a BSF: a signature mkey */
	bool sig_err;        /**< a signature error happened: unusable until a UMR re-arms it */
	uint8_t sig_err_cnt; /**< sig_err_cnt of the last UMR with the SIG_ERR mask */
	SigCfg sig;          /**< BSF in force */
	bool free;           /**< invalid: every access fails */
	bool repeat;         /**< layout is a repeat block (else a KLM list) */
	uint32_t qpn;        /**< mkey context qpn (0xffffff: any) */
	uint32_t nent;
	uint64_t rep_bytes;       /**< repeat block: bytes per repetition */
	uint32_t repeat_count;    /**< repeat block: repetitions */
	uint8_t mr_variant;       /**< variant of the last MR at this index (restored at destroy) */
	std::vector<XlatEnt> ent; /**< num_desc entries, allocated at create */
};

/** One entry of the MR table (MRs and indirect mkeys share the key space). */
struct MrEntry {
	bool used;
	uint8_t variant; /**< low key byte; changes on every re-use of the index */
	bool odp;        /**< on-demand: pages are probed at access time */
	bool indirect;   /**< an indirect mkey: HcaImpl::mkeys_ holds the rest */
	uint32_t pdn;
	uint64_t addr;
	uint64_t len;
	int access;
	/**
	 * The full key while registered and not on-demand, 0 otherwise: one compare
	 * covers used, variant and "no page probing needed" on the MMO fast path.
	 */
	uint32_t fast_key;
};
/* 32 bytes: the fast path indexes the table with a shift */
static_assert(sizeof(MrEntry) == 32, "MrEntry size");

/** One protection domain. */
struct PdEntry {
	bool used;
	uint32_t refs; /**< MRs and QPs using it */
};

/** A signature PSV: the signature state of one domain, set by SET_PSV WQEs. */
struct PsvEntry {
	bool used;
	uint32_t pdn;
	uint64_t transient_signature; /**< last SET_PSV value */
	bool error;                   /**< in error after a signature error, until re-armed */
};

/** A completion queue. */
struct CqObj {
	CqConfig cfg;
	uint32_t cqn;
	uint32_t pi;        /**< free-running producer counter */
	uint32_t refs;      /**< QPs using it */
	bool error;         /**< overrun happened: CQEs are dropped */
	bool overrun_fault; /**< injected: the next write overruns */
};

class HcaImpl;

/** The device lock of a new instance: its own, or the fabric's (fabric.cpp). */
std::shared_ptr<DevMutex> hca_device_lock(const HcaCaps &caps);

/** A shared receive queue. */
struct SrqObj {
	SrqConfig cfg;
	uint32_t srqn;
	uint16_t head;     /**< WQE index the device takes next */
	uint16_t consumed; /**< WQEs taken so far (compared with the counter) */
	uint32_t refs;     /**< QPs using it */
};

/** A queue pair. */
struct QpObj {
	QpConfig cfg;
	HcaImpl *owner; /**< the instance (host) the QP belongs to */
	uint32_t qpn;
	CqObj *scq;
	CqObj *rcq;
	SrqObj *srq; /**< receives come from here when set */
	enum ibv_qp_state state;
	uint32_t dest_qpn;
	uint16_t dest_lid; /**< RC: the remote port (0 or the own LID: this instance) */
	uint32_t access_flags;
	uint8_t port_num;
	uint16_t pkey_index;
	bool sqd_notify;       /**< raise IBV_EVENT_SQ_DRAINED once drained */
	bool sig_stop;         /**< drain_sigerr: a signature error just completed */
	bool sig_draining;     /**< drain_sigerr: run up to the next FENCE, then SQD */
	uint32_t sq_ci;        /**< free-running WQEBB counter of the next WQE to fetch */
	uint32_t rq_ci;        /**< free-running counter of the next RQ WQE */
	bool stalled;          /**< the WQE at sq_ci waits for a receive WQE (RNR) */
	bool stall_remote;     /**< ... of a responder in another process */
	uint8_t rnr_retry;     /**< RNR retries of a send (HCA_RNR_INFINITE: no limit) */
	uint8_t retry_cnt;     /**< transport retries of a lost request */
	uint8_t min_rnr_timer; /**< as responder: the RNR delay it asks for (IB encoding) */
	uint32_t rnr_naks;     /**< RNR NAKs the stalled head WQE got so far */
	std::chrono::steady_clock::time_point rnr_since; /**< first RNR NAK of the head WQE */
	std::chrono::steady_clock::time_point rnr_due;   /**< its next retry */
	/* faults */
	bool fail_armed;
	bool fail_next;         /**< FailWqe: the next WQE, not the one of fail_idx */
	bool corrupt_sig_armed; /**< CorruptSig: the next WQE through a sig mkey */
	uint16_t fail_idx;
	uint8_t fail_synd;
	uint8_t fail_vendor;
	uint32_t delay_us; /**< DelayCompletions: CQEs are held back this long */
	uint32_t deferred; /**< CQEs of this QP held back right now */
	/* DC */
	uint32_t dci_errored; /**< DCI: streams in error (ERR at 2^log_num_errored) */
	uint16_t dci_err_stream[1u << HCA_DCI_MAX_LOG_ERRORED]; /**< their ids */
	uint64_t dct_key_violations; /**< DCT: DC WQEs dropped for a wrong key */
	uint8_t rnr_peer_timer;      /**< min_rnr_timer of the responder that NAKed the head WQE */
	/* doorbell path, no lock */
	std::atomic<bool> db_pending{false};
	std::atomic<bool> rq_pending{false};
};

/** A CQE held back by DelayCompletions. */
struct DeferredCqe {
	std::chrono::steady_clock::time_point due;
	CqObj *cq;
	QpObj *qp;
	uint8_t cqe[64];
};

/** A piece of memory the WQE reads or writes (already checked). */
struct Span {
	uint8_t *p;
	uint64_t len;
};

/** One resolved entry of a repeat-block span: the host bytes of its first repetition. */
struct PatEnt {
	uint8_t *p; /**< entry bytes in repetition Pattern::rep0 (checked) */
	uint32_t bc;
	uint32_t stride;
};

/**
 * A repeat-block span resolved and checked at plan time: byte k of the span is
 * byte start + k of the stream [entry 0 of repetition rep0, entry 1, ...,
 * entry 0 of repetition rep0 + 1, ...]. Execution reads only this snapshot.
 */
struct Pattern {
	uint64_t start;     /**< offset of the span's first byte from repetition rep0 */
	uint64_t rep_bytes; /**< bytes per repetition (sum of bc) */
	uint32_t nent;
	bool periodic; /**< every stride is 0: the stream repeats rep_bytes bytes */
	PatEnt ent[HCA_MAX_PAT_ENT];
};

/** Plan::xflags: what exec_special() does besides moving plain spans. */
enum : uint8_t {
	XF_UMR = 1u << 0,     /**< apply the UMR in Plan::wqe to Plan::target */
	XF_PATTERN = 1u << 1, /**< a span is a repeat block */
	XF_INVAL = 1u << 2,   /**< free Plan::target (SEND_INVAL) after the data */
	XF_SIG = 1u << 3,     /**< a span goes through a signature mkey */
	XF_PSV = 1u << 4,     /**< SET_PSV: update Plan::psv */
	/* data_order.cpp: how the bytes of a message land (caps.data_in_order) */
	XF_DIO_WHOLE = 1u << 5,   /**< in order: the message's last byte lands last */
	XF_DIO_REVERSE = 1u << 6, /**< its 128-byte aligned blocks land last first */
	XF_DIO_BLOCK = 1u << 7,   /**< each block in order: its last byte lands last */
	XF_DIO = XF_DIO_WHOLE | XF_DIO_REVERSE | XF_DIO_BLOCK,
};

/** Model limit: signature mkeys one WQE may name (both sides together). */
constexpr uint32_t HCA_MAX_SIG_XFER = 2;

/** A first signature error found while moving data (a SIG_ERR CQE). */
struct SigFail {
	uint16_t syndrome; /**< exactly one MLX5_HW_SIGERR_* bit */
	uint8_t domain;    /**< MLX5_HW_SIGERR_DOMAIN_* */
	uint32_t expected_sig, actual_sig;
	uint32_t expected_ref, actual_ref;
	uint64_t offset; /**< first byte of the failing block in that domain's layout */
};

/**
 * Data through a signature mkey, resolved at plan time: the wire-domain range
 * [woff, woff + wlen) of the mkey and the checked memory-domain spans of the
 * blocks it touches, from the start of block first_block.
 */
struct SigXfer {
	SigCfg cfg;           /**< snapshot of the mkey's BSF */
	MkeyObj *mk;          /**< the mkey (error state at completion) */
	uint32_t key;         /**< its key, for the SIG_ERR CQE */
	bool scatter;         /**< wire bytes come in (written to memory) */
	bool resp;            /**< named by the responder (its CQ gets the SIG_ERR) */
	uint64_t woff, wlen;  /**< wire-domain range */
	uint64_t first_block; /**< block of woff */
	uint64_t mlen;        /**< memory bytes the spans hold */
	uint32_t nmem;
	bool failed;  /**< fail is valid */
	bool corrupt; /**< CorruptSig fault: flip the next PI this transfer generates */
	SigFail fail;
	Span mem[HCA_MAX_GATHER];
};

/** Result of checking or planning: 0 or a CQE syndrome plus vendor syndrome. */
struct Verdict {
	uint8_t syndrome;
	uint8_t vendor;
};

/**
 * A WQE that passed every check: what to move and what to complete. Built in WQE
 * order, executed (possibly reordered), completed in WQE order. The fields every
 * WQE touches come first, so a plan of the MMO fast path spans few cache lines.
 */
struct Plan {
	uint16_t idx; /**< WQE index (counter & 0xffff) */
	uint8_t opcode;
	bool signaled;
	bool fenced;
	bool atomic;
	bool safe;       /**< a span is on-demand: moved by mem::safe_move() */
	uint8_t fault;   /**< safe move failed: 1 source, 2 destination (exec sets) */
	uint16_t stream; /**< DCI: stream id of ctrl bytes 9-10 (fetch sets) */
	uint32_t nsrc;
	uint32_t ndst;
	uint32_t byte_cnt; /**< requester CQE byte_cnt */
	uint64_t total;    /**< bytes moved from src to dst */
	QpObj *resp_qp;    /**< responder completion (SEND*, WRITE_IMM) */
	uint32_t imm_raw;  /**< ctrl imm as in memory */
	QpObj *peer;       /**< responder QP of a remote operation (any host), else NULL */
	uint32_t delay_us; /**< general path: the links' delay, its CQE waits for it */
	Span src[HCA_MAX_GATHER];
	Span dst[HCA_MAX_GATHER];
	/* atomics */
	bool atomic_cs;
	uint64_t *atomic_target;
	uint8_t *atomic_result;
	uint64_t swap_add;
	uint64_t compare;
	/* responder completion */
	uint8_t resp_opcode;            /**< MLX5_CQE_RESP_* */
	uint16_t resp_idx;              /**< RQ WQE index */
	uint8_t wqe[HCA_MAX_WQE_BYTES]; /**< general path: the WQE copied out of the ring */
	/* general path only: indirect mkeys (exec_special) */
	uint8_t xflags;     /**< XF_* */
	MrEntry *target;    /**< the mkey a UMR or SEND_INVAL changes ... */
	MkeyObj *target_mk; /**< ... and its translation state */
	uint32_t npat;      /**< pats in use */
	Pattern pats[HCA_MAX_PATTERNS];
	uint32_t nsig; /**< sigs in use */
	SigXfer sigs[HCA_MAX_SIG_XFER];
	SigCfg umr_sig;    /**< XF_UMR with a BSF: the parsed BSF */
	bool umr_has_bsf;  /**< the UMR sets BSF_ENABLE (umr_sig valid when enabled) */
	bool umr_sig_err;  /**< the UMR carries the SIG_ERR mask: re-arm */
	uint32_t psv;      /**< XF_PSV: the PSV index */
	uint64_t psv_ts;   /**< XF_PSV: transient signature */
	PsvEntry *psv_ent; /**< XF_PSV: its entry */
};

/**
 * What plan_fast_mmo() keeps of a WQE it accepts: everything its Plan holds that is
 * not the same for every such WQE (expand_fast() writes that Plan when one is needed).
 */
struct FastPlan {
	uint8_t *src;
	uint8_t *dst;
	uint64_t len;     /**< of both spans */
	uint16_t idx;     /**< WQE index */
	uint8_t fm_ce_se; /**< ctrl byte 11: fence mode and CQE request */
};

/** Why planning a WQE stopped. */
enum class PlanResult : uint8_t {
	Ok,
	Stall, /**< the responder has no receive WQE: try again later */
	Error, /**< see PlanError */
};

/** A failed WQE: requester and (optional) responder consequences. */
struct PlanError {
	Verdict req;
	QpObj *resp_qp;                 /**< responder QP to move to ERR, or NULL */
	enum ibv_event_type resp_event; /**< async event for it (IBV_EVENT_COMM_EST: none) */
	bool resp_cqe;                  /**< responder consumed a receive WQE: RESP_ERR CQE */
	Verdict resp;
	uint16_t resp_idx;
};

/** The device. */
class HcaImpl final : public Hca {
public:
	HcaImpl(const std::string &name, const HcaCaps &caps, ExecMode mode);
	~HcaImpl() override;
	int start(const cpu_set_t *engine_cpus);

	const std::string &name() const override { return name_; }
	const HcaCaps &caps() const override { return caps_; }
	ExecMode mode() const override { return mode_; }

	int alloc_pd(uint32_t *pdn) override;
	int dealloc_pd(uint32_t pdn) override;
	int reg_mr(uint32_t pdn, uint64_t addr, uint64_t len, int access, uint32_t *key) override;
	int dereg_mr(uint32_t key) override;
	int create_mkey(uint32_t pdn, uint32_t num_desc, uint32_t flags, uint32_t *key) override;
	int destroy_mkey(uint32_t key) override;
	int create_cq(const CqConfig &cfg, uint32_t *cqn) override;
	int destroy_cq(uint32_t cqn) override;
	int create_srq(const SrqConfig &cfg, uint32_t *srqn) override;
	int destroy_srq(uint32_t srqn) override;
	void srq_notify(uint32_t srqn) override;
	int create_qp(const QpConfig &cfg, uint32_t *qpn) override;
	int modify_qp(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask) override;
	int query_qp(uint32_t qpn, QpInfo *info) override;
	int destroy_qp(uint32_t qpn) override;
	void sq_doorbell(uint32_t qpn, uint64_t ctrl8) override;
	void rq_notify(uint32_t qpn) override;
	int create_psv(uint32_t pdn, uint32_t *psv_index) override;
	int destroy_psv(uint32_t psv_index) override;
	int create_reserved_qpn(uint32_t log_range, uint32_t *first_qpn) override;
	int destroy_reserved_qpn(uint32_t first_qpn) override;
	int get_async_event(AsyncEvent *event) override;
	void quiesce() override;
	int inject(const Fault &fault) override;
	HcaStats stats() const override;

	/* ---- mr_table.cpp (under mu_) ---- */
	/** A free key index (grown if needed; never 0, never 4 for an mkey); 0: none. */
	size_t free_key_index(bool mkey);
	/**
	 * Check [addr, addr + len) of the MR @p key (not an indirect mkey) for PD @p pdn
	 * and IBV_ACCESS_* @p need; failures give @p bad (ODP faults with vendor 0x93).
	 */
	Verdict check_key(uint32_t pdn, uint32_t key, uint64_t addr, uint64_t len, int need,
			  Verdict bad, uint8_t **out, bool *odp) const;
	/** Check a local data segment of an MR; fills @p out on success. */
	/** *odp (if given) is set when the MR is on-demand. */
	Verdict check_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len, bool write,
			    uint8_t **out, bool *odp = nullptr) const;
	/** Check a remote access by @p rkey against responder @p resp. */
	Verdict check_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len,
			     int need, uint8_t **out, bool *odp = nullptr) const;

	/* ---- mkey_xlat.cpp (under mu_) ---- */
	/**
	 * Resolve a local data segment through MRs and indirect mkeys into checked
	 * spans appended to pl->dst (@p scatter) or pl->src; LOC_PROT on any failure.
	 */
	Verdict xlat_local(const QpObj *qp, uint32_t key, uint64_t addr, uint64_t len, bool scatter,
			   Plan *pl) const;
	/** The same for responder memory named by @p rkey (REM_ACCESS on failure). */
	Verdict xlat_remote(const QpObj *resp, uint32_t rkey, uint64_t addr, uint64_t len, int need,
			    Plan *pl, bool dst) const;

	/* ---- sig_bsf.cpp ---- */
	/** Parse a 64-byte signature BSF; false if the device cannot execute it. */
	static bool parse_bsf(const uint8_t *bsf, SigCfg *cfg);
	/** Check a SET_PSV WQE (under mu_). */
	Verdict plan_set_psv(const QpObj *qp, Plan *pl, uint32_t ds);

	/* ---- sig_exec.cpp ---- */
	/** exec_special() of plans with XF_SIG: blocks through the signature engine. */
	static uint64_t exec_sig(Plan *pl);
	/**
	 * SIG_ERR CQEs and mkey/PSV error state of a plan's signature errors; true if one
	 * was on an mkey the requester named locally (drain_sigerr stops its SQ).
	 */
	bool complete_sig(QpObj *qp, const Plan *pl);
	/** drain_sigerr: the SQ stops in SQD after a signature error (IBV_EVENT_SQ_DRAINED). */
	void sig_drain(QpObj *qp);

	/* ---- umr.cpp ---- */
	/** Check a UMR WQE (under mu_); its effect waits for execution. */
	Verdict plan_umr(const QpObj *qp, Plan *pl, uint32_t ds);
	/** Execute a UMR plan: update the target mkey (under mu_). */
	static void apply_umr(const Plan *pl);
	/** exec_general() of plans with HCA_NSRC_SPECIAL (umr.cpp, xlat_exec.cpp). */
	static uint64_t exec_special(Plan *pl);

	/* ---- data_order.cpp ---- */
	/**
	 * A planned RDMA write, RDMA read or SEND lands in caps_.data_in_order's order:
	 * set its XF_DIO_* bits (not for ODP, repeat-block or signature plans).
	 */
	void plan_data_order(Plan *pl) const;
	/** exec_special() of plans with XF_DIO_* bits: move the bytes in that order. */
	static void exec_data_order(Plan *pl);

	/* ---- fabric.cpp ---- */
	/**
	 * The instance whose port has LID @p lid: this one for 0 or its own LID, another
	 * fabric host, or NULL (nobody there). Under mu_.
	 */
	HcaImpl *host_of(uint16_t lid);
	/** Join the process's fabric (caps_.fabric); -EEXIST when the LID is taken. */
	int fabric_join();
	/** Leave it: no other host reaches this one afterwards. */
	void fabric_leave();
	/** responder_changed() on every fabric host (this one alone if not on it). */
	void responders_changed_everywhere();
	int set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us) override;
	/**
	 * A request of @p qp to @p host gets there within its retries (links up,
	 * not every attempt lost); false: RETRY_EXC.
	 */
	bool request_reaches(const QpObj *qp, HcaImpl *host);
	/** The delay of a request to @p host: both links' (0 in inline mode, or to itself). */
	uint32_t link_delay(const HcaImpl *host) const;
	/** A request with @p retry_cnt retries gets through this host's link (loss draws). */
	bool request_survives(uint8_t retry_cnt);
	/**
	 * RC QP @p resp of this host answers a request of QP @p sqpn at LID @p slid:
	 * it answers (responder_alive), is an RC QP, and that is the peer its RTR
	 * attributes name (dest_lid 0: this host). Anything else is dropped.
	 */
	bool rc_accepts(const QpObj *resp, uint16_t slid, uint32_t sqpn) const;

	/* ---- xfabric.cpp: the machine-wide fabric (caps_.fabric_name), under mu_ ---- */
	/** Remote WQE @p pl of @p qp goes to a host of another process. */
	bool leaves_process(const QpObj *qp, const Plan *pl);
	/**
	 * Execute remote WQE @p pl (local segments planned, transport segments at
	 * @p seg) at a host of another process, now: Ok (nothing left to move), Stall
	 * (RNR) or Error. The caller plans it as the head of its group, so every earlier
	 * WQE has executed and no later one has.
	 */
	PlanResult xfabric_execute(QpObj *qp, Plan *pl, uint32_t seg, PlanError *err);
	/** Responder side: execute request @p rq on this host into *rep (and @p out). */
	void xfabric_serve(const XfReq &rq, const uint8_t *data, XfRep *rep, uint8_t *out,
			   Plan *pl);
	/** The listening socket of this host's LID on the machine-wide fabric, or -1. */
	int xport_fd_ = -1;

	/* ---- dc.cpp (under mu_) ---- */
	int dci_stream_reset(uint32_t qpn, uint16_t stream) override;
	/**
	 * The DCT a DCI WQE's address vector names, checked (state, key); NULL with
	 * *v set when the WQE cannot reach one.
	 */
	QpObj *dc_target(const QpObj *qp, const Plan *pl, Verdict *v);
	/** Stream @p stream of DCI @p qp is in error: its WQEs are flushed. */
	bool dci_stream_errored(const QpObj *qp, uint16_t stream) const;
	/**
	 * A WQE of stream @p stream failed: the stream enters error; the DCI enters ERR
	 * once 2^log_num_errored streams are in error. Returns true if it stays in RTS.
	 */
	bool dci_stream_failed(QpObj *qp, uint16_t stream);

	/* ---- qp_state.cpp (under mu_) ---- */
	QpObj *find_qp(uint32_t qpn) const;
	SrqObj *find_srq(uint32_t srqn) const;
	/**
	 * srq_table.cpp: the SRQ's next receive WQE (its data segments, after the next
	 * segment) and its index in *idx; NULL when none is posted.
	 */
	const uint8_t *take_srq_wqe(SrqObj *srq, uint16_t *idx);
	CqObj *find_cq(uint32_t cqn) const;
	/** Move @p qp to ERR (if not there) and flush everything outstanding. */
	void enter_err(QpObj *qp);

	/* ---- wqe_plan.cpp (under mu_) ---- */
	/** Check the WQE copied into @p pl and turn it into a plan. */
	PlanResult plan_wqe(QpObj *qp, Plan *pl, PlanError *err);
	/** plan_wqe() without the HCA_NSRC_SPECIAL marking. */
	PlanResult plan_checked(QpObj *qp, Plan *pl, PlanError *err);

	/* ---- wqe_fast.cpp (under mu_) ---- */
	/**
	 * Plan consecutive WQEs from qp->sq_ci (producer @p pi) into fast_plans_[n, limit)
	 * while each is a one-WQEBB memcpy MMO that passes every check without ODP
	 * probing or an armed fault; consumes them and returns the new n. The first
	 * WQE it declines is left for fetch_wqe/plan_wqe, which decide errors.
	 * *fence: it stopped at a fenced WQE that must start the next group.
	 * plans_[n, new n) are not written: expand_fast() does that for a group that
	 * run_group() executes, run_fast_group() reads fast_plans_.
	 */
	uint32_t plan_fast_mmo(QpObj *qp, uint16_t pi, uint32_t n, uint32_t limit, bool *fence);
	/** plans_[from, to) as fetch_wqe + plan_wqe fill them, from fast_plans_[from, to). */
	void expand_fast(uint32_t from, uint32_t to);

	/* ---- wqe_exec.cpp ---- */
	/** exec_plan() of atomics, gather/scatter lists and on-demand spans. */
	static uint64_t exec_general(Plan *pl);
	/**
	 * The on-demand pages of plans_[bad] faulted while its data moved: its error
	 * CQE, the QP to ERR; the later WQEs of the group are flushed.
	 */
	void fail_moved(QpObj *qp, uint32_t bad);
	/** Move the data of a plan; returns the bytes moved (for statistics). */
	static uint64_t exec_plan(Plan *pl)
	{
		/* MMO and most other WQEs: one span to one span, a single memmove */
		if (pl->nsrc == 1 && pl->ndst == 1 && !pl->atomic && !pl->safe) {
			uint64_t n = pl->total;
			if (pl->src[0].len < n)
				n = pl->src[0].len;
			if (pl->dst[0].len < n)
				n = pl->dst[0].len;
			/* a copy onto itself changes nothing: no page is touched for it */
			if (n && pl->dst[0].p != pl->src[0].p)
				memmove(pl->dst[0].p, pl->src[0].p, n);
			return pl->total;
		}
		return exec_general(pl);
	}

	/* ---- cqe_writer.cpp (under mu_) ---- */
	/** Requester CQE of a successful WQE. */
	void write_req_cqe(QpObj *qp, const Plan *pl);
	/** Responder CQE of a successful receive. */
	void write_resp_cqe(QpObj *resp, const Plan *pl, uint32_t src_qpn);
	/** Error CQE (REQ_ERR or RESP_ERR). */
	void write_err_cqe(QpObj *qp, bool resp, uint8_t opcode, uint16_t idx, Verdict v,
			   uint32_t delay_us = 0);
	/** Write CQEs held back by DelayCompletions that are due (all if @p all). */
	void release_deferred(bool all);
	/** QPs whose CQ overran go to ERR here (after the current step). */
	void drain_overrun_errors();

	/* ---- sq_engine.cpp (under mu_) ---- */
	/**
	 * Fetch and execute what the doorbell record says, at most @p budget groups;
	 * true if anything happened. *more (if given): the budget ran out with WQEs left.
	 */
	bool process_sq(QpObj *qp, uint32_t budget = UINT32_MAX, bool *more = nullptr);
	/** Flush receive WQEs of a QP in ERR; true if anything happened. */
	bool flush_rq(QpObj *qp);
	/** Flush send WQEs of a QP in ERR; true if anything happened. */
	bool flush_sq(QpObj *qp);
	/** Retry QPs stalled on a receive WQE. */
	bool retry_stalled();
	/**
	 * A stalled head WQE got (another) RNR NAK: count the retries its time allows;
	 * true when they are spent (RNR_RETRY_EXC).
	 */
	bool rnr_spent(QpObj *qp);

	/* ---- engine.cpp ---- */
	void push_event(enum ibv_event_type type, uint32_t qpn, uint32_t cqn);
	/** Tell a possibly sleeping engine that work_seq_ moved (no lock needed). */
	void kick();
	/**
	 * A QP stopped answering (ERR, RESET, destroyed): sends stalled on it are
	 * re-evaluated now (inline, under mu_) or by the next engine pass.
	 */
	void responder_changed();

private:
	friend struct EngineAccess;

	/* wqe_fetch.cpp */
	Verdict fetch_wqe(QpObj *qp, uint16_t pi, Plan *pl, uint32_t *wqebbs);
	/* sq_engine.cpp */
	bool run_group(QpObj *qp, uint32_t n, bool reorder);
	/** run_group() of a group plan_fast_mmo() planned entirely. */
	void run_fast_group(QpObj *qp, uint32_t n, bool reorder);
	void complete_plan(QpObj *qp, const Plan *pl);
	uint32_t plan_group(QpObj *qp, uint32_t limit, PlanResult *end, Plan **bad, PlanError *err,
			    bool *all_fast);
	void fail_wqe(QpObj *qp, const Plan *pl, const PlanError &err);
	/** The responder's own consequences of a failed request (ERR, async event). */
	void responder_fails(const PlanError &err, const QpObj *requester);
	/* engine.cpp */
	void engine_main();
	bool engine_pass(bool *more);
	int progress() override;
	int engine_cpus(cpu_set_t *cpus) const override;
	bool deferred_pending_locked() const { return !deferred_.empty(); }
	/* cqe_writer.cpp */
	void put_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe, uint32_t delay_us = 0);
	bool store_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe);

public:
	/* ---- state (all under mu_ unless atomic) ---- */
	const std::string name_;
	const HcaCaps caps_;
	const ExecMode mode_;
	/* the port's link on the fabric (fabric.cpp, under mu_) */
	bool link_down_ = false;
	uint32_t loss_ppm_ = 0;
	uint64_t loss_rng_ = 1;
	uint32_t link_delay_us_ = 0; /**< requests to this host complete this much later */
	/* the device lock: the instance's own, or the fabric's (caps_.fabric) */
	std::shared_ptr<DevMutex> mu_owner_;
	DevMutex &mu_;

	std::vector<PdEntry> pds_;
	std::vector<MrEntry> mrs_;     /**< index = key >> 8; 0 unused */
	std::vector<MkeyObj *> mkeys_; /**< same index: indirect mkeys (owned), else NULL */
	uint32_t mr_count_ = 0;
	/*
	 * Not the same from run to run (getrandom at creation), as hardware's: the QP
	 * slot the QPN search starts at, and the draws of each new key index's first
	 * variant byte (ASSUMPTIONS.md 38, 79).
	 */
	uint32_t qpn_start_ = 0;
	uint64_t id_rng_ = 1;
	/** The next random byte of id_rng_ (xorshift64). */
	uint8_t random_byte();
	std::vector<PsvEntry> psvs_; /**< index = PSV index; 0 unused */
	uint32_t psv_count_ = 0;
	std::vector<CqObj *> cqs_; /**< index = cqn - HCA_CQN_BASE */
	uint32_t cq_count_ = 0;
	std::unique_ptr<std::atomic<QpObj *>[]> qp_slots_; /**< index = qpn - HCA_QPN_BASE */
	std::vector<QpObj *> qps_;                         /**< live QPs, engine scan order */
	std::vector<SrqObj *> srqs_;                       /**< index = srqn - 1 (owned) */
	std::deque<AsyncEvent> events_;
	std::map<uint32_t, uint32_t> rsv_qpns_; /**< reserved QPN objects: first QPN -> log range */
	std::deque<DeferredCqe> deferred_;
	std::vector<QpObj *> overrun_qps_;
	std::unique_ptr<Plan[]> plans_;          /**< HCA_MAX_GROUP plans, reused */
	std::unique_ptr<FastPlan[]> fast_plans_; /**< the same, of plan_fast_mmo() WQEs */
	/** bit i: fast_plans_[i] asks for a CQE (a group plan_fast_mmo() planned from 0) */
	uint32_t fast_signaled_ = 0;
	/**
	 * Internal switch: take plan_fast_mmo() for MMO WQEs (default). Tests turn it
	 * off to compare the fast path with the general planner byte for byte.
	 */
	bool fast_mmo_ = true;
	uint64_t fast_wqes_ = 0; /**< WQEs planned by the fast path (tests) */
	/** Earliest RNR retry of a stalled send with limited retries (engine_pass) */
	bool rnr_timed_ = false;
	std::chrono::steady_clock::time_point rnr_wake_;

	/*
	 * Atomics, grouped by writer on separate cache lines: in thread mode the
	 * application core rings doorbells while the engine core runs passes, and
	 * a shared line would bounce between them on every doorbell and pass.
	 * Statistics are relaxed: stats() may run on any thread.
	 */
	/* written by the engine (thread mode) or the doorbell caller (inline) */
	alignas(64) std::atomic<uint64_t> st_wqes_{0};
	std::atomic<uint64_t> st_cqes_{0};
	std::atomic<uint64_t> st_err_cqes_{0};
	std::atomic<uint64_t> st_bytes_{0};
	std::atomic<uint64_t> done_seq_{0};     /**< work_seq_ covered by a finished pass */
	std::atomic<bool> has_deferred_{false}; /**< CQEs held back after the last pass */
	/* written by every doorbell / notify */
	alignas(64) std::atomic<uint64_t> st_doorbells_{0};
	std::atomic<uint64_t> work_seq_{0}; /**< bumped by every doorbell / notify */
	/* rarely written */
	alignas(64) std::atomic<bool> stop_{false};
	std::atomic<bool> sleeping_{false};
	std::atomic<uint32_t> waiters_{0};

	/* thread mode */
	std::thread engine_;
	std::mutex idle_mu_;
	std::condition_variable wake_cv_; /**< engine sleeps here */
	std::condition_variable done_cv_; /**< quiesce() waits here */
};

/** Memory probes (mem_probe.cpp). */
/* ---- wqe_plan.cpp: responder checks, also for requests from other processes ---- */
/** @p r answers requests (RTR, RTS, SQD, SQE). */
bool responder_alive(const QpObj *r);
/** The RETH-like remote segment at pl->wqe + @p at, checked on @p resp's host. */
Verdict parse_remote(QpObj *resp, Plan *pl, uint32_t at, uint64_t len, int need, PlanError *err);
/** Consume @p resp's next receive WQE (its segments as pl->dst with @p scatter). */
PlanResult take_recv(QpObj *resp, Plan *pl, bool scatter, PlanError *err);
/** Atomic WQE, the requester's half: size and the local result (pl->atomic_result). */
Verdict atomic_result(const HcaImpl *hca, const QpObj *qp, Plan *pl, uint32_t at, uint32_t ds);
/**
 * Atomic WQE, the responder's half: raddr, rkey, swap/add and compare at
 * pl->wqe + @p at as the WQE lays them out, checked on @p resp's host; an
 * atomic plan (exec_general() performs it).
 */
Verdict atomic_target(QpObj *resp, Plan *pl, uint32_t at, PlanError *err);

/* ---- fabric.cpp ---- */
/** The device lock of the process's fabric hosts. */
DevMutex &fabric_lock();
/** The fabric host of this process with LID @p lid, or NULL. Under fabric_lock(). */
HcaImpl *fabric_host(uint16_t lid);

/* ---- xfabric.cpp ---- */
/**
 * Claim a LID on machine-wide fabric @p name: @p *lid if free, else the next
 * free one (1..0xbfff). Returns the LID's listening socket, or -errno.
 */
int xfabric_claim_lid(const char *name, uint16_t *lid);
/** Serve requests to listening socket @p fd of our host @p lid. Under fabric_lock(). */
int xfabric_port_add(int fd, uint16_t lid);
/** Stop serving @p fd and close it. Under fabric_lock(). */
void xfabric_port_remove(int fd);

namespace mem {
/**
 * reg_mr of a non-ODP MR: [addr, addr + len) is mapped readable (and writable if
 * @p write) in /proc/self/maps, and every page can be faulted in like pinning
 * does (never raising SIGBUS at access time).
 */
bool range_pinnable(uint64_t addr, uint64_t len, bool write);
/** Every page of [addr, addr + len) can be read now (no fault possible). */
bool range_readable(uint64_t addr, uint64_t len);
/** Every page of [addr, addr + len) can be written now. */
bool range_writable(uint64_t addr, uint64_t len);
/**
 * memmove() through the kernel (process_vm_readv/writev on the own process): a
 * page that is not mapped gives an error, never a signal. Returns 0, 1 (reading
 * the source failed) or 2 (writing the destination failed); the bytes before the
 * failing chunk are moved.
 */
int safe_move(uint8_t *dst, const uint8_t *src, uint64_t n);
} // namespace mem

} // namespace mlx5sim

#endif /* MLX5_SIM_HCA_IMPL_H */
