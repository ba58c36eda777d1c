/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the QP table and the QP state machine (qp_state.cpp): QP
 * commands, legal transitions, ERR with its flush CQEs, the SQD a signature
 * error drains to, and the DCI stream error state (dc.cpp). What a transition
 * means for the engine (resume an SQ, re-evaluate sends stalled on a responder)
 * it reports to the device, which owns the engine. Under the device lock; find()
 * also without it (doorbells).
 */
#ifndef MLX5_SIM_QP_TABLE_H
#define MLX5_SIM_QP_TABLE_H

#include <stdint.h>

#include <atomic>
#include <memory>
#include <vector>

#include "hca_limits.h"

struct ibv_qp_attr;

namespace mlx5sim {

class CqTable;
class EventQueue;
class Host;
class MrTable;
class SrqTable;
struct HcaCaps;
struct QpConfig;
struct QpInfo;
struct QpObj;

/** The QPs of one device. */
class QpTable {
public:
	QpTable(const HcaCaps &caps, Host *owner, MrTable &mrt, CqTable &cqs, SrqTable &srqs,
		EventQueue &events);
	~QpTable();
	QpTable(const QpTable &) = delete;
	QpTable &operator=(const QpTable &) = delete;
	/**
	 * Not the same from run to run (creation-time entropy, as hardware's): the QP
	 * slot the QPN search starts at (ASSUMPTIONS.md 38).
	 */
	void seed(uint64_t r);

	/* ---- commands ---- */
	/** CREATE_QP's checks of @p cfg against the caps; no lock needed. */
	int check(const QpConfig &cfg, const uint32_t *qpn) const;
	/** CREATE_QP of a checked @p cfg. */
	int create(const QpConfig &cfg, uint32_t *qpn);
	/** DESTROY_QP; the device then re-evaluates sends stalled on it. */
	int destroy(uint32_t qpn);
	int query(uint32_t qpn, QpInfo *info) const;
	/** INIT2INIT with qpc.drain_sigerr: -EINVAL unless the QP exists and is in INIT. */
	int set_drain_sigerr(uint32_t qpn);
	/** What a transition leaves the device to do. */
	enum class Next : uint8_t {
		None,
		Responders, /**< the QP stopped answering (RESET, ERR): stalled sends re-evaluated
			     */
		Resume,     /**< SQD/SQE to RTS: the SQ fetches what was posted meanwhile */
	};
	int modify(uint32_t qpn, const struct ibv_qp_attr &attr, int attr_mask, Next *next);

	QpObj *find(uint32_t qpn) const
	{
		if (qpn < qpn_base_ || qpn - qpn_base_ >= max_qp_)
			return nullptr;
		return slots_[qpn - qpn_base_].load(std::memory_order_acquire);
	}
	/** The live QPs, in the engine's scan order. */
	const std::vector<QpObj *> &live() const { return qps_; }

	/* ---- the state machine, for the engine ---- */
	/** Move @p qp to ERR (if not there) and flush everything outstanding. */
	void enter_err(QpObj *qp);
	/** Flush send WQEs of a QP in ERR; true if anything happened. */
	bool flush_sq(QpObj *qp);
	/** Flush receive WQEs of a QP in ERR; true if anything happened. */
	bool flush_rq(QpObj *qp);
	/** QPs whose CQ overran (CqTable::take_overrun) go to ERR. */
	void drain_overruns();
	/** drain_sigerr: the SQ stops in SQD after a signature error (IBV_EVENT_SQ_DRAINED). */
	void sig_drain(QpObj *qp);
	/**
	 * A request failed at responder @p resp (of any host; may be NULL): it enters
	 * ERR unless it is the requester itself or a DCT (one bad request does not stop a
	 * DCT, ASSUMPTIONS.md), and raises @p ev (IBV_EVENT_COMM_EST: none) on its host.
	 */
	static void responder_fails(QpObj *resp, enum ibv_event_type ev, const QpObj *requester);

	/* ---- dc.cpp: DCI streams ---- */
	/** Stream @p stream of DCI @p qp is in error: its WQEs are flushed. */
	bool dci_stream_errored(const QpObj *qp, uint16_t stream) const;
	/**
	 * A WQE of stream @p stream failed: the stream enters error; the DCI enters ERR
	 * once 2^log_num_errored streams are in error. Returns true if it stays in RTS.
	 */
	bool dci_stream_failed(QpObj *qp, uint16_t stream);
	/** Hca::dci_stream_reset(). */
	int dci_stream_reset(uint32_t qpn, uint16_t stream);

private:
	const HcaCaps &caps_;
	const uint32_t max_qp_; /**< caps.max_qp */
	/** The first QPN: HCA_QPN_BASE in the window of the host's LID member */
	const uint32_t qpn_base_;
	Host *const owner_; /**< QpObj::owner of the QPs created here */
	MrTable &mrt_;
	CqTable &cqs_;
	SrqTable &srqs_;
	EventQueue &events_;
	uint32_t qpn_start_ = 0;
	std::unique_ptr<std::atomic<QpObj *>[]> slots_; /**< index = qpn - HCA_QPN_BASE */
	std::vector<QpObj *> qps_;                      /**< live QPs, engine scan order */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_QP_TABLE_H */
