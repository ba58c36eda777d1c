/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RESERVED_QPN general objects (type 0x2c): ranges of QPNs handed to the
 * application (rdma-cm uses one as the QP number of a connection whose QP lives
 * elsewhere, e.g. a DCT). Ranges lie above every QPN create_qp can give, so a
 * reserved QPN never names a QP of this device.
 */
#include <errno.h>

#include "hca_impl.h"

namespace mlx5sim {

namespace {

uint32_t align_up(uint32_t v, uint32_t size)
{
	return (v + size - 1) & ~(size - 1);
}

} // namespace

int HcaImpl::create_reserved_qpn(uint32_t log_range, uint32_t *first_qpn)
{
	if (!caps_.reserved_qpn)
		return -EOPNOTSUPP;
	if (!first_qpn || log_range < caps_.log_reserved_qpn_granularity ||
	    log_range > HCA_RSV_QPN_MAX_LOG)
		return -EINVAL;
	const uint32_t size = 1u << log_range;
	DevLock lk(mu_);
	/* lowest aligned gap above the QP numbers; objects are few, a scan is enough */
	uint64_t cand = align_up(HCA_QPN_BASE + caps_.max_qp, size);
	for (const auto &obj : rsv_qpns_) {
		if (cand + size <= obj.first)
			break;
		uint64_t end = (uint64_t)obj.first + (1u << obj.second);
		if (end > cand)
			cand = align_up((uint32_t)end, size);
	}
	if (cand + size > HCA_QPN_END)
		return -ENOMEM;
	try {
		rsv_qpns_.emplace((uint32_t)cand, log_range);
	} catch (...) {
		return -ENOMEM;
	}
	*first_qpn = (uint32_t)cand;
	return 0;
}

int HcaImpl::destroy_reserved_qpn(uint32_t first_qpn)
{
	DevLock lk(mu_);
	auto it = rsv_qpns_.find(first_qpn);
	if (it == rsv_qpns_.end())
		return -EINVAL;
	rsv_qpns_.erase(it);
	return 0;
}

} // namespace mlx5sim
