/* SPDX-License-Identifier: BSD-3-Clause */
#include "fake_dev.h"

#include <errno.h>

#include "blkint_pi.h"

int fake_dev::submit(const struct rte_blkint_dev_job *job, uint32_t slot)
{
	struct rte_blkint_result r;
	rte_blkint_dev_done d = {};

	if (job->op.nb_blocks <= refuse_upto)
		return -ENOTSUP;
	if (ring.size() >= depth)
		return -ENOSPC;
	blkint_cpu_run(job, &r);
	if (corrupt_block >= 0 && (uint32_t)corrupt_block < job->op.nb_blocks &&
	    (job->op.type == RTE_BLKINT_OP_INSERT || job->op.type == RTE_BLKINT_OP_CONVERT)) {
		const struct rte_blkint_format *f = &job->dst_fmt;
		uint8_t *pi = (uint8_t *)job->op.dst + (uint64_t)corrupt_block * blkint_stride(f) +
			      f->block_size;

		pi[blkint_pi_size(f->type) - 1] ^= 0x5a; /* ref tag's or CRC's last byte */
	}
	d.slot = slot;
	d.status = r.status;
	d.error = r.error;
	if (hide_errors) {
		d.status = RTE_BLKINT_OK;
		d.error = {};
	}
	if (invent_error) {
		d.status = RTE_BLKINT_ERR_PI;
		d.error = {0, RTE_BLKINT_FIELD_GUARD, 1, 2};
	}
	ring.push_back(d);
	submitted++;
	return 0;
}

uint16_t fake_dev::poll(struct rte_blkint_dev_done *done, uint16_t n)
{
	uint16_t k = 0;

	while (k < n && !ring.empty() && !stall) {
		done[k++] = ring.front();
		ring.pop_front();
	}
	return k;
}
