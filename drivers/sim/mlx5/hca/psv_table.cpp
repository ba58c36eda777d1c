/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Signature PSV commands (CREATE_PSV 0x600 with num_psv 1, DESTROY_PSV 0x601).
 * A PSV belongs to a PD (which stays busy while it lives) and holds the
 * signature state of one domain of a signature mkey; SET_PSV WQEs update it.
 */
#include <errno.h>
#include <stddef.h>

#include <new>

#include "psv_table.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kMaxPsvIndex = 0xffffff; /* psv0_index is 24 bits */

} // namespace

int PsvTable::create(uint32_t pdn, uint32_t max, uint32_t *index)
{
	if (count_ >= max)
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
	count_++;
	*index = (uint32_t)i;
	return 0;
}

int PsvTable::destroy(uint32_t index, uint32_t *pdn)
{
	PsvEntry *e = index ? find(index) : nullptr;
	if (!e)
		return -EINVAL;
	*pdn = e->pdn;
	e->used = false;
	count_--;
	return 0;
}

} // namespace mlx5sim
