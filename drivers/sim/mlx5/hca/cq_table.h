/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the CQ table (cq_table.cpp). It owns the device's CQs and
 * writes every CQE: builds it, checks the CQ for overrun, holds it back under
 * DelayCompletions or a link delay, and stores it. QPs whose CQ overran are
 * collected here; the QP table moves them to ERR (QpTable::drain_overruns).
 * An armed CQ raises its completion event here. Everything under the device lock.
 */
#ifndef MLX5_SIM_CQ_TABLE_H
#define MLX5_SIM_CQ_TABLE_H

#include <stdint.h>

#include <chrono>
#include <deque>
#include <vector>

#include "queue_objs.h"

namespace mlx5sim {

struct DevStats;
struct Plan;

/** The CQs of one device and its CQE writer. */
class CqTable {
public:
	CqTable(const HcaCaps &caps, EventQueue &events, DevStats &stats)
		: caps_(caps), events_(events), st_(stats)
	{
	}
	~CqTable();
	CqTable(const CqTable &) = delete;
	CqTable &operator=(const CqTable &) = delete;

	/* ---- commands ---- */
	/** CREATE_CQ's checks of @p cfg against the caps; no lock needed. */
	int check(const CqConfig &cfg, const uint32_t *cqn) const;
	/** CREATE_CQ of a checked @p cfg. */
	int create(const CqConfig &cfg, uint32_t *cqn);
	int destroy(uint32_t cqn);
	CqObj *find(uint32_t cqn) const;
	/** The CQ doorbell: arm @p cqn for one completion event (Hca::arm_cq). */
	int arm(uint32_t cqn, uint32_t arm_word);
	/** MODIFY_CQ resize (Hca::resize_cq). */
	int resize(uint32_t cqn, void *buf, uint32_t ncqe, uint32_t cqe_size);

	/* ---- the CQE writer ---- */
	/** Requester CQE of a successful WQE. */
	void write_req_cqe(QpObj *qp, const Plan *pl);
	/**
	 * The same from its fields: opcode, WQE index, byte count, link delay; a CQE
	 * stored now is counted in @p st (an unlocked pass's own block), one held back
	 * in the device's.
	 */
	void write_req_cqe(QpObj *qp, uint8_t opcode, uint16_t idx, uint32_t byte_cnt,
			   uint32_t delay_us, DevStats &st);
	/** Responder CQE of a successful receive. */
	void write_resp_cqe(QpObj *resp, const Plan *pl, uint32_t src_qpn);
	/** Error CQE (REQ_ERR or RESP_ERR). */
	void write_err_cqe(QpObj *qp, bool resp, uint8_t opcode, uint16_t idx, Verdict v,
			   uint32_t delay_us = 0);
	/**
	 * A built 64-byte CQE of @p qp into @p cq, now or held back; @p solicited: a
	 * received message with the SE bit.
	 */
	void put_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe, uint32_t delay_us = 0,
		     bool solicited = false);

	/* ---- held-back CQEs ---- */
	/** Write the held-back CQEs that are due (all if @p all). */
	void release_deferred(bool all)
	{
		if (!deferred_.empty())
			release_due(all);
	}
	/** CQEs are held back; *due: when the first one is. */
	bool deferred_due(std::chrono::steady_clock::time_point *due) const
	{
		if (deferred_.empty())
			return false;
		*due = deferred_.front().due;
		return true;
	}
	/** Drop the held-back CQEs of @p qp (destroyed, or reset). */
	void forget(const QpObj *qp);

	/* ---- overrun ---- */
	/** A QP whose CQ overran waits for ERR. */
	bool overrun() const { return !overrun_qps_.empty(); }
	/** The next such QP, or NULL. */
	QpObj *take_overrun()
	{
		if (overrun_qps_.empty())
			return nullptr;
		QpObj *qp = overrun_qps_.back();
		overrun_qps_.pop_back();
		return qp;
	}

private:
	bool store_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe, bool solicited, DevStats &st);
	void comp_event(CqObj *cq);
	void release_due(bool all);

	const HcaCaps &caps_;
	EventQueue &events_;
	DevStats &st_;
	std::vector<CqObj *> cqs_; /**< index = cqn - HCA_CQN_BASE */
	uint32_t count_ = 0;
	std::deque<DeferredCqe> deferred_;
	std::vector<QpObj *> overrun_qps_;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_CQ_TABLE_H */
