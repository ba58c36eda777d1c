/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, signature engine: the PSV table (CREATE_PSV / DESTROY_PSV,
 * psv_table.cpp). SET_PSV WQEs (sig_bsf.cpp), UMRs naming PSVs (umr.cpp) and
 * signature errors (sig_exec.cpp) look entries up here. Under the device lock.
 */
#ifndef MLX5_SIM_PSV_TABLE_H
#define MLX5_SIM_PSV_TABLE_H

#include <stdint.h>

#include <vector>

namespace mlx5sim {

/** A signature PSV: the signature state of one domain, set by SET_PSV WQEs. */
struct PsvEntry {
	bool used;
	uint32_t pdn;
	uint64_t transient_signature; /**< last SET_PSV value */
	bool error;                   /**< in error after a signature error, until re-armed */
};

/** The PSVs of one device; index 0 is never handed out. */
class PsvTable {
public:
	/**
	 * A new PSV of PD @p pdn (checked by the caller, who also counts the PD's
	 * reference); -ENOMEM once @p max PSVs live.
	 */
	int create(uint32_t pdn, uint32_t max, uint32_t *index);
	/** Free PSV @p index; *pdn gets its PD. -EINVAL if it does not live. */
	int destroy(uint32_t index, uint32_t *pdn);
	/** The live PSV @p index, or NULL. */
	PsvEntry *find(uint32_t index)
	{
		if (index >= psvs_.size() || !psvs_[index].used)
			return nullptr;
		return &psvs_[index];
	}

private:
	std::vector<PsvEntry> psvs_; /**< index = PSV index; 0 unused */
	uint32_t count_ = 0;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_PSV_TABLE_H */
