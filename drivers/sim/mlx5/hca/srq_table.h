/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the SRQ table (srq_table.cpp): CREATE_SRQ / DESTROY_SRQ, and
 * how the device takes the next receive WQE of an SRQ. Under the device lock.
 */
#ifndef MLX5_SIM_SRQ_TABLE_H
#define MLX5_SIM_SRQ_TABLE_H

#include <stdint.h>

#include <vector>

namespace mlx5sim {

class MrTable;
struct HcaCaps;
struct SrqConfig;
struct SrqObj;

/** The SRQs of one device. */
class SrqTable {
public:
	SrqTable(const HcaCaps &caps, MrTable &mrt) : caps_(caps), mrt_(mrt) {}
	~SrqTable();
	SrqTable(const SrqTable &) = delete;
	SrqTable &operator=(const SrqTable &) = delete;

	/** CREATE_SRQ's checks of @p cfg against the caps; no lock needed. */
	int check(const SrqConfig &cfg, const uint32_t *srqn) const;
	/** CREATE_SRQ of a checked @p cfg (its PD must be live). */
	int create(const SrqConfig &cfg, uint32_t *srqn);
	int destroy(uint32_t srqn);
	/** ARM_RQ: arm @p limit (0 disarms); -EINVAL unless below the WQE count. */
	int arm(uint32_t srqn, uint32_t limit);
	SrqObj *find(uint32_t srqn) const;

private:
	const HcaCaps &caps_;
	MrTable &mrt_;               /**< PD references */
	std::vector<SrqObj *> srqs_; /**< index = srqn - 1 (owned) */
};

/**
 * The SRQ's next receive WQE (its data segments, after the next segment) and its
 * index in *idx; NULL when none is posted.
 */
const uint8_t *take_srq_wqe(SrqObj *srq, uint16_t *idx);

/**
 * After take_srq_wqe(): true once the armed SRQ holds fewer WQEs than its limit; it
 * is disarmed then (the caller raises IBV_EVENT_SRQ_LIMIT_REACHED).
 */
bool srq_limit_crossed(SrqObj *srq);

} // namespace mlx5sim

#endif /* MLX5_SIM_SRQ_TABLE_H */
