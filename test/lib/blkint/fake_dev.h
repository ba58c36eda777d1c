/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A scripted device engine (white-box): runs each job with the CPU engine at submit and
 * completes it at the next poll, optionally lying the way a faulty device could (a PI
 * byte flipped in its output, a verdict turned around), with a ring of limited depth.
 */
#ifndef TEST_BLKINT_FAKE_DEV_H
#define TEST_BLKINT_FAKE_DEV_H

#include <deque>

#include "blkint_priv.h"

struct fake_dev : blkint_dev {
	/** Flip a PI byte of this output block of every op (-1: none). */
	int corrupt_block = -1;
	/** Report every op as good whatever the verification found. */
	bool hide_errors = false;
	/** Report a guard error at block 0 of every op. */
	bool invent_error = false;
	/** Ring depth: submit -ENOSPC beyond it. */
	size_t depth = 64;
	/** Never complete anything (a vchan set up again under the context). */
	bool stall = false;
	/** Jobs the engine refuses (-ENOTSUP) when at most this many blocks. */
	uint32_t refuse_upto = 0;
	uint64_t submitted = 0;
	std::deque<rte_blkint_dev_done> ring;

	const char *kind() const override { return "fake"; }
	int submit(const struct rte_blkint_dev_job *job, uint32_t slot) override;
	void doorbell() override {}
	uint16_t poll(struct rte_blkint_dev_done *done, uint16_t n) override;
};

#endif /* TEST_BLKINT_FAKE_DEV_H */
