/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RESERVED_QPN general objects (type 0x2c): ranges of QPNs handed to the
 * application (rdma-cm uses one as the QP number of a connection whose QP lives
 * elsewhere, e.g. a DCT). Ranges lie above every QPN create_qp can give, so a
 * reserved QPN never names a QP of this device (the device's create_reserved_qpn
 * checks the command and passes that bound).
 */
#include <errno.h>

#include "reserved_qpn.h"

namespace mlx5sim {

namespace {

uint32_t align_up(uint32_t v, uint32_t size)
{
	return (v + size - 1) & ~(size - 1);
}

} // namespace

int RsvQpnTable::create(uint32_t lo, uint32_t end, uint32_t log_range, uint32_t *first_qpn)
{
	const uint32_t size = 1u << log_range;
	/* lowest aligned gap above the QP numbers; objects are few, a scan is enough */
	uint64_t cand = align_up(lo, size);
	for (const auto &obj : ranges_) {
		if (cand + size <= obj.first)
			break;
		uint64_t e = (uint64_t)obj.first + (1u << obj.second);
		if (e > cand)
			cand = align_up((uint32_t)e, size);
	}
	if (cand + size > end)
		return -ENOMEM;
	try {
		ranges_.emplace((uint32_t)cand, log_range);
	} catch (...) {
		return -ENOMEM;
	}
	*first_qpn = (uint32_t)cand;
	return 0;
}

int RsvQpnTable::destroy(uint32_t first_qpn)
{
	auto it = ranges_.find(first_qpn);
	if (it == ranges_.end())
		return -EINVAL;
	ranges_.erase(it);
	return 0;
}

} // namespace mlx5sim
