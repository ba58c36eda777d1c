/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, QP/SQ execution: a WQE turned into a plan (what to move,
 * what to complete) and the responder checks every planner shares, also for
 * requests from other processes (wqe_plan.cpp).
 */
#ifndef MLX5_SIM_WQE_PLAN_H
#define MLX5_SIM_WQE_PLAN_H

#include <stdint.h>

#include "hca_limits.h"
#include "mr_table.h"
#include "psv_table.h"
#include "queue_objs.h"
#include "sig_bsf.h"

namespace mlx5sim {

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

/**
 * A WQE that passed every check: what to move and what to complete. Built in WQE
 * order, executed (possibly reordered), completed in WQE order. The fields every
 * WQE touches come first, so a plan of the MMO fast path spans few cache lines.
 */
struct Plan {
	uint16_t idx; /**< WQE index (counter & 0xffff) */
	uint8_t opcode;
	bool signaled;
	bool solicited; /**< SE: the responder's CQE may raise a solicited event */
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
	/* UD: the responder CQE's fields (after wqe[], which must stay aligned) */
	uint16_t ud_slid; /**< the sender's LID */
	uint8_t ud_sl;    /**< the address vector's SL */
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

/** A message the responder loses (UD, UC): nothing moves, the sender's CQE only. */
inline PlanResult plan_lost(Plan *pl)
{
	pl->nsrc = pl->ndst = 0;
	pl->total = 0;
	pl->xflags = 0;
	pl->npat = pl->nsig = 0;
	pl->resp_qp = nullptr;
	pl->peer = nullptr;
	return PlanResult::Ok;
}

/** A failed WQE: requester and (optional) responder consequences. */
struct PlanError {
	Verdict req;
	QpObj *resp_qp;                 /**< responder QP to move to ERR, or NULL */
	enum ibv_event_type resp_event; /**< async event for it (IBV_EVENT_COMM_EST: none) */
	bool resp_cqe;                  /**< responder consumed a receive WQE: RESP_ERR CQE */
	Verdict resp;
	uint16_t resp_idx;
};

/* ---- wqe_plan.cpp: responder checks, also for requests from other processes ---- */
/** The RETH-like remote segment at pl->wqe + @p at, checked on @p resp's host. */
Verdict parse_remote(QpObj *resp, Plan *pl, uint32_t at, uint64_t len, int need, PlanError *err);
/**
 * Consume @p resp's next receive WQE (its segments as pl->dst with @p scatter);
 * the first @p skip bytes of its buffer are left alone (UD: the GRH space).
 */
PlanResult take_recv(QpObj *resp, Plan *pl, bool scatter, PlanError *err, uint32_t skip = 0);
/** Data/inline segments of [off, end) of the WQE as local spans of @p qp. */
Verdict parse_local(const MrTable &mrt, const QpObj *qp, Plan *pl, uint32_t off, uint32_t end,
		    bool scatter);
/* ---- ud.cpp ---- */
/**
 * UD: the Q_Key of the datagram WQE in @p pl (its address vector's; with the high
 * bit set, the QP's own: the IB spec's controlled Q_Key rule).
 */
uint32_t ud_wqe_qkey(const QpObj *qp, const Plan *pl);
/** UD QP @p resp takes a datagram with Q_Key @p qkey (else it is dropped). */
bool ud_accepts(const QpObj *resp, uint32_t qkey);
/* ---- uc.cpp ---- */
/** @p op is one a UC QP sends: SEND, SEND_IMM, RDMA_WRITE, RDMA_WRITE_IMM. */
bool uc_opcode(uint8_t op);
/** Atomic WQE, the requester's half: size and the local result (pl->atomic_result). */
Verdict atomic_result(const MrTable &mrt, const QpObj *qp, Plan *pl, uint32_t at, uint32_t ds);
/**
 * Atomic WQE, the responder's half: raddr, rkey, swap/add and compare at
 * pl->wqe + @p at as the WQE lays them out, checked on @p resp's host; an
 * atomic plan (exec_general() performs it).
 */
Verdict atomic_target(QpObj *resp, Plan *pl, uint32_t at, PlanError *err);

} // namespace mlx5sim

#endif /* MLX5_SIM_WQE_PLAN_H */
