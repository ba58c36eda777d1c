/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Signature PSV commands (CREATE_PSV 0x600 with num_psv 1, DESTROY_PSV 0x601).
 * A PSV belongs to a PD (which stays busy while it lives) and holds the
 * signature state of one domain of a signature mkey; SET_PSV WQEs update it.
 */
#include <errno.h>

#include <new>

#include "hca_impl.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kMaxPsvIndex = 0xffffff; /* psv0_index is 24 bits */

} // namespace

int HcaImpl::create_psv(uint32_t pdn, uint32_t *psv_index)
{
	if (!psv_index)
		return -EINVAL;
	DevLock lk(mu_);
	if (pdn == 0 || pdn >= pds_.size() || !pds_[pdn].used)
		return -EINVAL;
	if (psv_count_ >= caps_.max_psv)
		return -ENOMEM;
	size_t i = 1;

	while (i < psvs_.size() && psvs_[i].used)
		i++;
	if (i > kMaxPsvIndex)
		return -ENOMEM;
	try {
		if (psvs_.empty())
			psvs_.resize(1); /* index 0 is never handed out */
		if (i == psvs_.size())
			psvs_.emplace_back();
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
	psvs_[i] = PsvEntry{true, pdn, 0, false};
	pds_[pdn].refs++;
	psv_count_++;
	*psv_index = (uint32_t)i;
	return 0;
}

int HcaImpl::destroy_psv(uint32_t psv_index)
{
	DevLock lk(mu_);
	if (psv_index == 0 || psv_index >= psvs_.size() || !psvs_[psv_index].used)
		return -EINVAL;
	pds_[psvs_[psv_index].pdn].refs--;
	psvs_[psv_index].used = false;
	psv_count_--;
	return 0;
}

} // namespace mlx5sim
