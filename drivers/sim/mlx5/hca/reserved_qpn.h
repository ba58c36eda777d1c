/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the RESERVED_QPN general objects of one device
 * (reserved_qpn.cpp). Under the device lock.
 */
#ifndef MLX5_SIM_RESERVED_QPN_H
#define MLX5_SIM_RESERVED_QPN_H

#include <stdint.h>

#include <map>

namespace mlx5sim {

/** Ranges of QPNs handed to the application, above every QPN create_qp gives. */
class RsvQpnTable {
public:
	/**
	 * The lowest free range of 2^@p log_range QPNs, aligned to its size, at or
	 * above @p lo and below @p end; -ENOMEM if none.
	 */
	int create(uint32_t lo, uint32_t end, uint32_t log_range, uint32_t *first_qpn);
	/** Free the range that starts at @p first_qpn; -EINVAL if there is none. */
	int destroy(uint32_t first_qpn);

private:
	std::map<uint32_t, uint32_t> ranges_; /**< first QPN -> log range */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_RESERVED_QPN_H */
