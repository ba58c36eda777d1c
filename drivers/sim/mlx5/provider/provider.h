/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, provider side: the objects that imitate libmlx5 v44.
 *
 * These structs play the part of libmlx5's mlx5_context / mlx5_qp / mlx5_cq: they
 * embed the public rdma-core objects (struct ibv_context, struct ibv_qp_ex,
 * struct mlx5dv_qp_ex, struct ibv_cq_ex) whose function tables the provider fills,
 * and they hold the same software state libmlx5 keeps (SQ counters, per-slot
 * bookkeeping, fence cache, CQ consumer index). The state is laid out so that the
 * golden vectors' fields map onto it one to one.
 *
 * Ownership: the send path (sq_*.cpp, wr_*.cpp) owns SimSq/SimBf/WrState; the poll
 * path (cq_poll.cpp) owns SimCq's poll state; sim_verbs.cpp creates and destroys the
 * objects and connects them to the device side (hca.h).
 */
#ifndef MLX5_SIM_PROVIDER_H
#define MLX5_SIM_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <memory>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "hca.h"

namespace mlx5sim {

struct SimQp;
struct SimCq;
struct SimMkey;

/**
 * Where doorbell-register writes go: the device's UAR for a real QP, a recorder in
 * the vector replay.
 */
class UarSink {
public:
	virtual ~UarSink() = default;
	/** One 64-bit MMIO store of @p value (bytes as in memory) at register half @p bf_offset. */
	virtual void mmio64(SimQp *qp, uint32_t bf_offset, uint64_t value) = 0;
	/** A BlueFlame copy of @p len bytes (whole WQEBBs) at register half @p bf_offset. */
	virtual void blueflame(SimQp *qp, uint32_t bf_offset, const void *data, size_t len) = 0;
};

/**
 * Two-level table from a 24-bit number (user index, QPN, mkey index) to an object,
 * like libmlx5's: O(1) lookup on the poll path, no hashing.
 */
template <typename T>
class NumTable {
public:
	static constexpr uint32_t kShift = 12;
	static constexpr uint32_t kMask = (1u << kShift) - 1;
	NumTable() = default;
	NumTable(const NumTable &) = delete;
	NumTable &operator=(const NumTable &) = delete;
	~NumTable()
	{
		for (auto &p : pages_)
			delete[] p;
	}
	T *find(uint32_t num) const
	{
		num &= 0xffffff;
		T **page = pages_[num >> kShift];
		return page ? page[num & kMask] : nullptr;
	}
	/** Returns false (and stores nothing) when @p num is taken or memory ran out. */
	bool insert(uint32_t num, T *obj)
	{
		num &= 0xffffff;
		T **&page = pages_[num >> kShift];
		if (!page) {
			page = new (std::nothrow) T *[kMask + 1]();
			if (!page)
				return false;
		}
		if (page[num & kMask])
			return false;
		page[num & kMask] = obj;
		return true;
	}
	void erase(uint32_t num)
	{
		num &= 0xffffff;
		T **page = pages_[num >> kShift];
		if (page)
			page[num & kMask] = nullptr;
	}

private:
	T **pages_[1u << (24 - kShift)] = {};
};

/** The qpc fields of a DEVX QUERY_QP answer that libmlx5 reads. */
struct QpcInfo {
	uint8_t state;                /**< MLX5_HW_QPC_STATE_* */
	uint16_t hw_sq_wqebb_counter; /**< first WQEBB the device has not executed */
};

/**
 * Where the provider's DEVX commands go: the device for a real context, a canned
 * answer in the vector replay.
 */
class DevxCmd {
public:
	virtual ~DevxCmd() = default;
	/**
	 * QUERY_QP (0x50b) of @p qp. Returns 0, EREMOTEIO with the firmware status in
	 * @p status (the command reached firmware and failed), or another errno.
	 */
	virtual int query_qp(SimQp *qp, uint8_t *status, QpcInfo *out) = 0;
};

/** A device context: libmlx5's mlx5_context. */
struct SimContext {
	struct ibv_context ibctx;  /**< ops.poll_cq / post_send / post_recv filled */
	std::shared_ptr<Hca> hca;  /**< NULL in the vector replay */
	uint8_t cqe_version;       /**< 1: requester CQEs are matched by user index */
	uint64_t dma_mmo_max_size; /**< max_wr_memcpy_length; 0 = unsupported */
	uint32_t max_sq_desc_sz;
	uint32_t max_send_wqebb;
	bool mkey_update_tag_supported;
	NumTable<SimQp> qp_by_uidx; /**< CQE version 1 */
	NumTable<SimQp> qp_by_qpn;  /**< CQE version 0 */
	uint32_t next_uidx;
	NumTable<SimMkey> mkey_by_idx;   /**< indirect mkeys by lkey >> 8 (SIG_ERR lookup) */
	struct mlx5dv_sig_caps sig_caps; /**< all 0: no signature offload */
	bool sqd2rts_supported;          /**< kernel SQD2RTS: SIG_PIPELINING QPs allowed */
	DevxCmd *devx;                   /**< DEVX commands (cancel's QUERY_QP) */
};

/** A protection domain, with the per-PD MMO opaque buffer libmlx5 registers once. */
struct SimPd {
	struct ibv_pd ibpd;
	uint32_t pdn;
	void *opaque_buf; /**< 64 bytes, 64-byte aligned; NULL until first memcpy QP */
	uint32_t opaque_lkey;
	struct ibv_mr *opaque_mr;
};

/**
 * An address handle: libmlx5's mlx5_ah. A DCI WQE carries a copy of its 48-byte
 * address vector (mlx5dv_wr_set_dc_addr).
 */
struct SimAh {
	struct ibv_ah ibah;
	struct mlx5_wqe_av av; /**< dqp_dct has MLX5_EXTENDED_UD_AV set */
};

static inline struct SimAh *to_sim_ah(struct ibv_ah *ah)
{
	return reinterpret_cast<struct SimAh *>(ah);
}

/**
 * A shared receive queue: libmlx5's mlx5_srq. Free WQEs form a list through
 * their next segments (head = next to post, tail = last freed); one WQE always
 * stays free, so head == tail means full.
 */
struct SimSrq {
	struct ibv_srq ibsrq;
	SimContext *ctx;
	uint8_t *buf;
	uint32_t wqe_cnt;   /**< power of two */
	uint32_t wqe_shift; /**< stride = 1 << wqe_shift */
	uint32_t max_gs;    /**< data segments per WQE */
	uint16_t head;
	uint16_t tail;
	uint16_t counter; /**< WQEs posted (doorbell record) */
	uint64_t *wrid;
	uint32_t *dbrec; /**< [0] counter, BE32 */
	uint32_t srqn;
};

static inline SimSrq *to_sim_srq(struct ibv_srq *srq)
{
	return reinterpret_cast<SimSrq *>(srq);
}

/** The WQE of index @p idx. */
static inline struct mlx5_wqe_srq_next_seg *sim_srq_wqe(SimSrq *srq, uint32_t idx)
{
	return reinterpret_cast<struct mlx5_wqe_srq_next_seg *>(srq->buf +
								((size_t)idx << srq->wqe_shift));
}

/** A completed receive gives its WQE back: it joins the free list at the tail. */
static inline void sim_srq_free_wqe(SimSrq *srq, uint16_t idx)
{
	sim_srq_wqe(srq, srq->tail)->next_wqe_index = htobe16(idx);
	srq->tail = idx;
}

/** A memory region. */
struct SimMr {
	struct ibv_mr ibmr;
};

/** Send-queue state: libmlx5's mlx5_wq for the SQ plus its qp-level fields. */
struct SimSq {
	uint8_t *buf;      /**< slot 0 */
	uint8_t *qend;     /**< buf + wqe_cnt * 64 */
	uint32_t wqe_cnt;  /**< power of two */
	uint32_t max_post; /**< WR limit of the overflow check */
	uint32_t max_gs;   /**< max_send_sge */
	uint32_t max_inline_data;
	uint32_t cur_post;      /**< free-running WQEBB producer counter */
	uint32_t head;          /**< WRs handed to the device */
	uint32_t tail;          /**< WRs retired by completions */
	uint64_t *wrid;         /**< per slot: wr_id */
	uint32_t *wqe_head;     /**< per slot: head + nreq when the WQE was built */
	uint32_t *wr_data;      /**< per slot: WC opcode for opcodes the CQE cannot name */
	uint8_t fm_cache;       /**< pending fence bits for the next WQE */
	uint8_t sq_signal_bits; /**< MLX5_WQE_CTRL_CQ_UPDATE when sq_sig_all */
};

/** Receive-queue state. */
struct SimRq {
	uint8_t *buf;
	uint32_t wqe_cnt;   /**< power of two, 0 = none */
	uint32_t wqe_shift; /**< WQE stride = 1 << wqe_shift */
	uint32_t max_gs;
	uint32_t head;
	uint32_t tail;
	uint64_t *wrid;
};

/** BlueFlame register state of the QP's bfreg. */
struct SimBf {
	UarSink *uar;
	uint32_t offset;   /**< register half for the next doorbell: 0 or buf_size */
	uint32_t buf_size; /**< 256; 0 = uuar 0 (no BlueFlame) */
};

/** State of the new post-send API between wr_start and wr_complete/wr_abort. */
struct WrState {
	struct mlx5_wqe_ctrl_seg *cur_ctrl; /**< ctrl segment of the WQE being built */
	void *cur_data;                     /**< where the next segment goes */
	uint32_t cur_size;                  /**< ds of the WQE being built */
	uint32_t cur_setters_cnt;           /**< setter calls still needed (DCI: 2) */
	uint32_t nreq;                      /**< WRs counted in this batch */
	int err;                            /**< first error of the batch (positive errno) */
	bool inl_wqe;                       /**< last WQE carried inline data (BlueFlame choice) */
	uint32_t cur_post_rb;               /**< rollback point */
	uint8_t fm_cache_rb;
	uint8_t cur_opcode; /**< MLX5_OPCODE_* of the WQE being built */
	/* UMR / mkey configure (wr_umr.cpp); not reset by wr_start, as in v44.0 */
	SimMkey *cur_mkey;         /**< mkey of the open UMR; NULL once finalised */
	uint8_t mkey_setters;      /**< setter calls the open UMR waits for */
	uint8_t mkey_setters_done; /**< setter calls made so far */
};

/** A QP: libmlx5's mlx5_qp. */
struct SimQp {
	struct ibv_qp_ex qpx;   /**< qpx.qp_base is the ibv_qp; wr_* filled */
	struct mlx5dv_qp_ex dv; /**< mlx5dv wr_* filled */
	SimContext *ctx;
	SimPd *pd;
	uint32_t qpn;
	uint32_t uidx;
	enum ibv_qp_type type; /**< IBV_QPT_RC, or IBV_QPT_DRIVER for a DCI */
	bool is_dci;
	bool is_dct;                /**< a DC target: no queues, number known at RTR */
	SimSrq *srq;                /**< receives come from this SRQ (then rq is empty) */
	uint64_t send_ops_flags;    /**< IBV_QP_EX_WITH_* */
	uint64_t dv_send_ops_flags; /**< MLX5DV_QP_EX_WITH_* */
	bool operational;           /**< RTS reached: wr_complete posts (else EINVAL) */
	SimSq sq;
	SimRq rq;
	SimBf bf;
	uint32_t *dbrec; /**< [MLX5_RCV_DBR], [MLX5_SND_DBR], BE32 */
	WrState wr;
	void *buf; /**< owner of the RQ+SQ ring allocation */
};

/** A CQ: libmlx5's mlx5_cq. ibv_cq_ex first, so ibv_cq_ex_to_cq() works. */
struct SimCq {
	struct ibv_cq_ex cqx;
	SimContext *ctx;
	uint8_t *buf;        /**< ncqe * cqe_size bytes */
	uint32_t ncqe;       /**< power of two */
	uint32_t cqe_size;   /**< 64 or 128 (CQE = second half) */
	uint32_t cons_index; /**< free-running consumer counter */
	uint32_t *dbrec;     /**< [0] SET_CI, [1] ARM (BE32) */
	uint32_t cqn;
	uint32_t arm_sn;
	uint64_t wc_flags; /**< IBV_WC_EX_WITH_* requested at creation */
	/**
	 * mlx5dv_init_obj gave the ring away: a QP going to RESET leaves its CQEs in
	 * it (libmlx5's MLX5_CQ_FLAGS_DV_OWNED, __mlx5_cq_clean)
	 */
	bool dv_owned;
	/* extended-poll state (lazy parse between start_poll and end_poll) */
	struct mlx5_cqe64 *cur_cqe;
	SimQp *cur_qp;
	uint32_t cur_flags;
	uint8_t cached_opcode;
};

/** Container casts. */
static inline SimQp *to_sim_qp(struct ibv_qp *qp)
{
	return reinterpret_cast<SimQp *>(reinterpret_cast<char *>(qp) -
					 offsetof(SimQp, qpx.qp_base));
}
static inline SimQp *to_sim_qp(struct ibv_qp_ex *qpx)
{
	return reinterpret_cast<SimQp *>(reinterpret_cast<char *>(qpx) - offsetof(SimQp, qpx));
}
static inline SimQp *to_sim_qp(struct mlx5dv_qp_ex *dv)
{
	return reinterpret_cast<SimQp *>(reinterpret_cast<char *>(dv) - offsetof(SimQp, dv));
}
static inline SimCq *to_sim_cq(struct ibv_cq *cq)
{
	return reinterpret_cast<SimCq *>(cq);
}
static inline SimCq *to_sim_cq(struct ibv_cq_ex *cq)
{
	return reinterpret_cast<SimCq *>(cq);
}
static inline SimContext *to_sim_ctx(struct ibv_context *ctx)
{
	return reinterpret_cast<SimContext *>(ctx);
}

/* ---- send path (sq_sizing.cpp, wr_builders.cpp, post_send_db.cpp) ---- */

/** SQ geometry computed exactly as libmlx5 v44.0 does. */
struct SqGeometry {
	int sizing_ret; /**< SQ bytes, 0 (no SQ) or -errno */
	int wqe_size;   /**< bytes per WR; -1 if that step failed */
	uint32_t wqe_cnt;
	uint32_t max_post;
	uint32_t max_send_sge;
	int max_inline_data; /**< may be negative, as v44 reports it */
};

/**
 * libmlx5 v44.0 SQ sizing. @p send_ops_flags_valid false = the attribute was not
 * supplied (all operations assumed).
 */
SqGeometry sim_sq_size(const SimContext &ctx, enum ibv_qp_type type, bool is_dci,
		       const struct ibv_qp_cap &cap, bool send_ops_flags_valid,
		       uint64_t send_ops_flags, uint64_t dv_send_ops_flags);

/** Fill qp->qpx.wr_* and qp->dv.wr_* (per send_ops_flags) and qp->operational rules. */
int sim_qp_install_wr_ops(SimQp *qp);

/** Legacy ibv_post_send (ibv_context ops). */
int sim_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);

/** Legacy ibv_post_recv (ibv_context ops). */
int sim_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

/* ---- poll path (cq_poll.cpp) ---- */

/** Fill cq->cqx start_poll/next_poll/end_poll/read_* per cq->wc_flags. */
void sim_cq_install_poll_ops(SimCq *cq);

/** Legacy ibv_poll_cq (ibv_context ops). */
int sim_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/** ibv_req_notify_cq (ibv_context ops). */
int sim_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* ---- signature offload and pipelining (mkey_check.cpp, sq_cancel.cpp) ---- */

/** mlx5dv_mkey_check: signature error of a BLOCK_SIGNATURE mkey, reported once. */
int sim_dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
		      size_t err_info_size);

/**
 * mlx5dv_qp_cancel_posted_send_wrs: in SQD (checked with QUERY_QP), turn every
 * not yet executed WQE carrying @p wr_id into a NOP. Returns the number cancelled
 * or a negative errno.
 */
int sim_dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id);

} // namespace mlx5sim

#endif /* MLX5_SIM_PROVIDER_H */
