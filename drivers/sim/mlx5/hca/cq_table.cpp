/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The CQ table: CREATE_CQ / DESTROY_CQ as the kernel and firmware would execute
 * them (the ring and its doorbell record belong to the provider), and the CQE
 * writer: builds 64-byte CQEs (mlx5_cqe64 / mlx5_err_cqe), checks for CQ overrun
 * against the consumer index in the CQ doorbell record, and stores them body
 * first, op_own last with release ordering, so a poller never sees half a CQE.
 * CQEs of a QP under DelayCompletions are held back here. An armed CQ raises one
 * completion event for the next CQE past its arm's consumer index (solicited
 * arms: the next solicited or error CQE), as the CQ doorbell of the PRM asks.
 */
#include <errno.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <thread>

#include "cq_table.h"
#include "dev_stats.h"
#include "wqe_plan.h"

namespace mlx5sim {

CqTable::~CqTable()
{
	for (CqObj *cq : cqs_)
		delete cq;
}

int CqTable::check(const CqConfig &cfg, const uint32_t *cqn) const
{
	if (!cqn || !cfg.buf || !cfg.dbrec)
		return -EINVAL;
	/* a power of two, at least 2 (libmlx5: roundup_pow2(cqe + 1)) */
	if (cfg.ncqe < 2 || (cfg.ncqe & (cfg.ncqe - 1)) || cfg.ncqe - 1 > caps_.max_cqe)
		return -EINVAL;
	if (cfg.cqe_size != 64 && cfg.cqe_size != 128)
		return -EINVAL;
	return 0;
}

int CqTable::create(const CqConfig &cfg, uint32_t *cqn)
{
	if (count_ >= caps_.max_cq)
		return -ENOMEM;
	size_t slot = 0;
	while (slot < cqs_.size() && cqs_[slot])
		slot++;
	CqObj *cq = new (std::nothrow)
		CqObj{cfg, (uint32_t)(HCA_CQN_BASE + slot), 0, 0, false, false};
	if (!cq)
		return -ENOMEM;
	if (slot == cqs_.size())
		cqs_.push_back(cq);
	else
		cqs_[slot] = cq;
	count_++;
	*cqn = cq->cqn;
	return 0;
}

int CqTable::destroy(uint32_t cqn)
{
	CqObj *cq = find(cqn);
	if (!cq)
		return -EINVAL;
	if (cq->refs)
		return -EBUSY;
	cqs_[cqn - HCA_CQN_BASE] = nullptr;
	count_--;
	delete cq;
	return 0;
}

CqObj *CqTable::find(uint32_t cqn) const
{
	if (cqn < HCA_CQN_BASE || cqn - HCA_CQN_BASE >= cqs_.size())
		return nullptr;
	return cqs_[cqn - HCA_CQN_BASE];
}

int CqTable::arm(uint32_t cqn, uint32_t arm_word)
{
	CqObj *cq = find(cqn);
	if (!cq)
		return -EINVAL;
	/* an arm written before the last event was taken carries the old sn: stale */
	if ((arm_word >> 28 & 3) != cq->arm_sn)
		return 0;
	cq->armed = true;
	cq->arm_solicited = arm_word >> 24 & 1;
	cq->arm_ci = arm_word & 0xffffff;
	/* CQEs already at or past ci (the consumer armed behind the producer): now */
	uint32_t ahead = (cq->pi - cq->arm_ci) & 0xffffff;
	uint32_t sol = (cq->solicit_pi - cq->arm_ci) & 0xffffff;
	if (ahead && ahead <= cq->cfg.ncqe && (!cq->arm_solicited || (sol && sol <= ahead)))
		comp_event(cq);
	return 0;
}

int CqTable::resize(uint32_t cqn, void *buf, uint32_t ncqe, uint32_t cqe_size)
{
	CqObj *cq = find(cqn);
	CqConfig cfg = cq ? cq->cfg : CqConfig{};
	cfg.buf = buf;
	cfg.ncqe = ncqe;
	cfg.cqe_size = cqe_size;
	if (!cq || check(cfg, &cqn) || cq->error)
		return -EINVAL;
	uint32_t ci = be32toh(__atomic_load_n(&cq->cfg.dbrec[0], __ATOMIC_ACQUIRE)) & 0xffffff;
	uint32_t used = (cq->pi - ci) & 0xffffff;
	/* the RESIZE_CQ CQE needs a free slot; the unpolled CQEs must fit the new ring */
	if (used >= cq->cfg.ncqe || used > ncqe)
		return -EINVAL;
	uint8_t *slot = static_cast<uint8_t *>(cq->cfg.buf) +
			(size_t)(cq->pi & (cq->cfg.ncqe - 1)) * cq->cfg.cqe_size;
	if (cq->cfg.cqe_size == 128)
		slot += 64;
	uint8_t owner = (cq->pi & cq->cfg.ncqe) ? 1 : 0;
	memset(slot, 0, 63);
	__atomic_store_n(slot + 63,
			 (uint8_t)(MLX5_CQE_RESIZE_CQ << MLX5_HW_CQE_OPCODE_SHIFT | owner),
			 __ATOMIC_RELEASE);
	/*
	 * the next CQE goes to the new ring, at the index after the RESIZE_CQ CQE (CQEs
	 * held back are not written yet: they land there too, in order)
	 */
	cq->pi++;
	cq->cfg = cfg;
	return 0;
}

void CqTable::comp_event(CqObj *cq)
{
	cq->armed = false;
	cq->arm_sn = (cq->arm_sn + 1) & 3;
	if (cq->cfg.comp_event)
		cq->cfg.comp_event(cq->cfg.comp_arg);
}
namespace {

uint32_t uidx_field(const HcaCaps &caps, const QpObj *qp)
{
	return caps.cqe_version == 1 ? qp->cfg.uidx & 0xffffff : 0;
}

/** srqn_uidx of a responder CQE: CQE version 0 names the SRQ a receive came from. */
uint32_t resp_rsn_field(const HcaCaps &caps, const QpObj *qp)
{
	if (caps.cqe_version == 1)
		return qp->cfg.uidx & 0xffffff;
	return qp->srq ? qp->srq->srqn : 0;
}

} // namespace

inline bool CqTable::store_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe, bool solicited,
			       DevStats &st)
{
	if (cq->error) {
		/* a CQ in error takes no CQEs; its writers go to ERR */
		overrun_qps_.push_back(qp);
		return false;
	}
	/*
	 * The consumer counter is read only when the copy of its last read leaves no
	 * room, as hardware does: the record's line is the consumer's, written at each
	 * poll that consumed CQEs. A consumer only moves it forward, so an old copy
	 * never finds room that is not there.
	 */
	uint32_t used = (cq->pi - cq->ci_seen) & 0xffffff;
	if (used >= cq->cfg.ncqe) {
		cq->ci_seen = be32toh(__atomic_load_n(&cq->cfg.dbrec[0], __ATOMIC_ACQUIRE)) &
			      0xffffff;
		used = (cq->pi - cq->ci_seen) & 0xffffff;
	}
	if (cq->overrun_fault || used >= cq->cfg.ncqe) {
		cq->overrun_fault = false;
		cq->error = true;
		events_.push(IBV_EVENT_CQ_ERR, 0, cq->cqn);
		overrun_qps_.push_back(qp);
		return false;
	}
	uint8_t *slot = static_cast<uint8_t *>(cq->cfg.buf) +
			(size_t)(cq->pi & (cq->cfg.ncqe - 1)) * cq->cfg.cqe_size;
	if (cq->cfg.cqe_size == 128)
		slot += 64;
	uint8_t owner = (cq->pi & cq->cfg.ncqe) ? 1 : 0;
	/* counted before it is handed over: its poller finds it counted */
	st.cqes.add(1);
	memcpy(slot, cqe, 63);
	__atomic_store_n(slot + 63, (uint8_t)((cqe[63] & ~MLX5_CQE_OWNER_MASK) | owner),
			 __ATOMIC_RELEASE);
	cq->pi++;
	uint8_t op = cqe[63] >> MLX5_HW_CQE_OPCODE_SHIFT;
	if (solicited || op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR)
		cq->solicit_pi = cq->pi;
	if (cq->armed && (!cq->arm_solicited || cq->solicit_pi == cq->pi))
		comp_event(cq);
	return true;
}

void CqTable::put_cqe(CqObj *cq, QpObj *qp, const uint8_t *cqe, uint32_t delay_us, bool solicited)
{
	/* held back: a delayed QP, a slow link, or behind a CQE of its QP held back */
	if (qp->delay_us || qp->deferred || delay_us) {
		DeferredCqe d;
		uint32_t us = qp->delay_us > delay_us ? qp->delay_us : delay_us;
		d.due = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
		d.cq = cq;
		d.qp = qp;
		memcpy(d.cqe, cqe, sizeof(d.cqe));
		d.solicited = solicited;
		deferred_.push_back(d);
		qp->deferred++;
		return;
	}
	store_cqe(cq, qp, cqe, solicited, st_);
}

void CqTable::release_due(bool all)
{
	while (!deferred_.empty()) {
		DeferredCqe &d = deferred_.front();
		auto now = std::chrono::steady_clock::now();
		if (d.due > now) {
			if (!all)
				break;
			std::this_thread::sleep_until(d.due);
		}
		d.qp->deferred--;
		store_cqe(d.cq, d.qp, d.cqe, d.solicited, st_);
		deferred_.pop_front();
	}
}

void CqTable::forget(const QpObj *qp)
{
	deferred_.erase(std::remove_if(deferred_.begin(), deferred_.end(),
				       [qp](const DeferredCqe &d) { return d.qp == qp; }),
			deferred_.end());
}

void CqTable::write_req_cqe(QpObj *qp, const Plan *pl)
{
	write_req_cqe(qp, pl->opcode, pl->idx, pl->byte_cnt, pl->delay_us, st_);
}

void CqTable::write_req_cqe(QpObj *qp, uint8_t opcode, uint16_t idx, uint32_t byte_cnt,
			    uint32_t delay_us, DevStats &st)
{
	uint8_t cqe[64] = {};
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, srqn_uidx), uidx_field(caps_, qp));
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, byte_cnt), byte_cnt);
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, sop_drop_qpn),
			(uint32_t)opcode << 24 | qp->qpn);
	mlx5_hw_st_be16(cqe + offsetof(struct mlx5_cqe64, wqe_counter), idx);
	cqe[63] = MLX5_CQE_REQ << MLX5_HW_CQE_OPCODE_SHIFT;
	/* nothing held back: stored now (the usual CQE of a burst) */
	if (__builtin_expect(!(qp->delay_us | qp->deferred | delay_us), 1))
		store_cqe(qp->scq, qp, cqe, false, st);
	else
		put_cqe(qp->scq, qp, cqe, delay_us);
}

void CqTable::write_resp_cqe(QpObj *resp, const Plan *pl, uint32_t src_qpn)
{
	uint8_t cqe[64] = {};
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, flags_rqpn), src_qpn & 0xffffff);
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, srqn_uidx), resp_rsn_field(caps_, resp));
	if (pl->resp_opcode == MLX5_CQE_RESP_SEND)
		mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, imm_inval_pkey),
				resp->pkey_index);
	else /* immediate or invalidated rkey, bytes as the requester wrote them */
		memcpy(cqe + offsetof(struct mlx5_cqe64, imm_inval_pkey), &pl->imm_raw, 4);
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, byte_cnt), (uint32_t)pl->total);
	if (resp->cfg.type == IBV_QPT_UD) {
		/* the datagram's SL and sender LID; no GRH; the count includes its space */
		mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, flags_rqpn),
				(uint32_t)(pl->ud_sl & 0xf) << 24 | (src_qpn & 0xffffff));
		mlx5_hw_st_be16(cqe + offsetof(struct mlx5_cqe64, slid), pl->ud_slid);
		mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, byte_cnt),
				(uint32_t)pl->total + HCA_UD_GRH_BYTES);
	}
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_cqe64, sop_drop_qpn), resp->qpn);
	mlx5_hw_st_be16(cqe + offsetof(struct mlx5_cqe64, wqe_counter), pl->resp_idx);
	cqe[63] = (uint8_t)(pl->resp_opcode << MLX5_HW_CQE_OPCODE_SHIFT);
	put_cqe(resp->rcq, resp, cqe, 0, pl->solicited);
}

void CqTable::write_err_cqe(QpObj *qp, bool resp, uint8_t opcode, uint16_t idx, Verdict v,
			    uint32_t delay_us)
{
	uint8_t cqe[64] = {};
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_err_cqe, srqn),
			resp ? resp_rsn_field(caps_, qp) : uidx_field(caps_, qp));
	cqe[offsetof(struct mlx5_err_cqe, vendor_err_synd)] = v.vendor;
	cqe[offsetof(struct mlx5_err_cqe, syndrome)] = v.syndrome;
	mlx5_hw_st_be32(cqe + offsetof(struct mlx5_err_cqe, s_wqe_opcode_qpn),
			(resp ? 0u : (uint32_t)opcode << 24) | qp->qpn);
	mlx5_hw_st_be16(cqe + offsetof(struct mlx5_err_cqe, wqe_counter), idx);
	cqe[63] = (uint8_t)((resp ? MLX5_CQE_RESP_ERR : MLX5_CQE_REQ_ERR)
			    << MLX5_HW_CQE_OPCODE_SHIFT);
	st_.err_cqes.add(1);
	put_cqe(resp ? qp->rcq : qp->scq, qp, cqe, delay_us);
}

} // namespace mlx5sim
