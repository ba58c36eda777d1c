/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Shared receive queues: CREATE_SRQ / DESTROY_SRQ, and how the device takes the
 * next receive WQE of an SRQ: along the next_wqe_index links the provider keeps,
 * from WQE 0 on, while the posted counter is ahead of what it consumed.
 */
#include <errno.h>

#include <new>

#include "mr_table.h"
#include "queue_objs.h"
#include "srq_table.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kSrqMinShift = 5;   /* next segment + one data segment */
constexpr uint32_t kSrqNextBytes = 16; /* struct mlx5_wqe_srq_next_seg */

} // namespace

SrqTable::~SrqTable()
{
	for (SrqObj *srq : srqs_)
		delete srq;
}

int SrqTable::check(const SrqConfig &cfg, const uint32_t *srqn) const
{
	if (!srqn || !cfg.buf || !cfg.dbrec || !cfg.wqe_cnt || (cfg.wqe_cnt & (cfg.wqe_cnt - 1)) ||
	    cfg.wqe_cnt > caps_.max_recv_wr + 1 || cfg.wqe_cnt > 0x10000 ||
	    cfg.wqe_shift < kSrqMinShift || cfg.wqe_shift > HCA_RQ_MAX_SHIFT)
		return -EINVAL;
	return 0;
}

int SrqTable::create(const SrqConfig &cfg, uint32_t *srqn)
{
	if (!mrt_.pd_live(cfg.pdn))
		return -EINVAL;
	size_t slot = 0;
	while (slot < srqs_.size() && srqs_[slot])
		slot++;
	if (slot >= caps_.max_qp) /* as many SRQs as QPs (QUERY_DEVICE's max_srq) */
		return -ENOMEM;
	SrqObj *srq = new (std::nothrow) SrqObj{cfg, (uint32_t)slot + 1, 0, 0, 0, 0};
	if (!srq)
		return -ENOMEM;
	if (slot == srqs_.size()) {
		try {
			srqs_.push_back(srq);
		} catch (...) {
			delete srq;
			return -ENOMEM;
		}
	} else {
		srqs_[slot] = srq;
	}
	mrt_.pd_get(cfg.pdn);
	*srqn = srq->srqn;
	return 0;
}

int SrqTable::destroy(uint32_t srqn)
{
	SrqObj *srq = find(srqn);
	if (!srq)
		return -EINVAL;
	if (srq->refs)
		return -EBUSY;
	srqs_[srqn - 1] = nullptr;
	mrt_.pd_put(srq->cfg.pdn);
	delete srq;
	return 0;
}

int SrqTable::arm(uint32_t srqn, uint32_t limit)
{
	SrqObj *srq = find(srqn);
	if (!srq || limit >= srq->cfg.wqe_cnt)
		return -EINVAL;
	srq->limit = limit;
	return 0;
}

SrqObj *SrqTable::find(uint32_t srqn) const
{
	if (srqn == 0 || srqn > srqs_.size())
		return nullptr;
	return srqs_[srqn - 1];
}

const uint8_t *take_srq_wqe(SrqObj *srq, uint16_t *idx)
{
	uint32_t pi = __atomic_load_n(&srq->cfg.dbrec[0], __ATOMIC_ACQUIRE);
	if ((uint16_t)(be32toh(pi) - srq->consumed) == 0)
		return nullptr;
	const uint8_t *wqe = static_cast<const uint8_t *>(srq->cfg.buf) +
			     ((size_t)(srq->head & (srq->cfg.wqe_cnt - 1)) << srq->cfg.wqe_shift);
	*idx = srq->head;
	/* the link is the provider's: a bad one only picks another WQE of the ring */
	srq->head = (uint16_t)(mlx5_hw_ld_be16(wqe + 2) & (srq->cfg.wqe_cnt - 1));
	srq->consumed++;
	return wqe + kSrqNextBytes;
}

bool srq_limit_crossed(SrqObj *srq)
{
	if (!srq->limit)
		return false;
	uint32_t pi = be32toh(__atomic_load_n(&srq->cfg.dbrec[0], __ATOMIC_ACQUIRE));
	if ((uint16_t)(pi - srq->consumed) >= srq->limit)
		return false;
	srq->limit = 0; /* one event per arming, as the PRM's SRQ limit event */
	return true;
}

} // namespace mlx5sim
