/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Completion-queue commands: CREATE_CQ / DESTROY_CQ as the kernel and firmware
 * would execute them. The ring and its doorbell record belong to the provider.
 */
#include <errno.h>

#include "hca_impl.h"

namespace mlx5sim {

int HcaImpl::create_cq(const CqConfig &cfg, uint32_t *cqn)
{
	if (!cqn || !cfg.buf || !cfg.dbrec)
		return -EINVAL;
	/* a power of two, at least 2 (libmlx5: roundup_pow2(cqe + 1)) */
	if (cfg.ncqe < 2 || (cfg.ncqe & (cfg.ncqe - 1)) || cfg.ncqe - 1 > caps_.max_cqe)
		return -EINVAL;
	if (cfg.cqe_size != 64 && cfg.cqe_size != 128)
		return -EINVAL;
	DevLock lk(mu_);
	if (cq_count_ >= caps_.max_cq)
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
	cq_count_++;
	*cqn = cq->cqn;
	return 0;
}

int HcaImpl::destroy_cq(uint32_t cqn)
{
	DevLock lk(mu_);
	CqObj *cq = find_cq(cqn);
	if (!cq)
		return -EINVAL;
	if (cq->refs)
		return -EBUSY;
	cqs_[cqn - HCA_CQN_BASE] = nullptr;
	cq_count_--;
	delete cq;
	return 0;
}

CqObj *HcaImpl::find_cq(uint32_t cqn) const
{
	if (cqn < HCA_CQN_BASE || cqn - HCA_CQN_BASE >= cqs_.size())
		return nullptr;
	return cqs_[cqn - HCA_CQN_BASE];
}

} // namespace mlx5sim
