/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMD never leans on libmlx5 v44.0's batch behaviours (the software HCA's provider
 * reproduces them, doc/guides/sim/software_hca.rst): whatever the application does —
 * full rings, zero and oversized lengths, unregistered addresses, fences, submits in
 * the middle of a burst — no ibv_wr_complete() of the verbs path may fail, because a
 * failed batch would silently drop ops rte_dma already accepted. The PMD counts such
 * refusals; rte_dma_dump() prints the count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "test_dma_mlx5.h"

namespace {

bool dump_has(int id, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool found;

	if (!f)
		return false;
	rte_dma_dump(id, f);
	fclose(f);
	found = buf && strstr(buf, what);
	free(buf);
	return found;
}

void test_no_failed_batch(void)
{
	T_FOREACH_MODE (m) {
		const uint16_t nb_desc = 64;
		uint8_t *src = (uint8_t *)rte_malloc(NULL, 64 * 1024, 64);
		uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, 64 * 1024, 64);
		uint8_t *foreign = (uint8_t *)aligned_alloc(64, 4096); /* not DPDK memory */
		int id = t_open("dma_mlx5_quirks", t_args(m, NULL), 1, nb_desc);
		unsigned accepted = 0, failed_expected = 0, failed_seen = 0;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst && foreign);
		t_fill(src, 64 * 1024, 9);
		for (unsigned round = 0; round < 20; round++) {
			unsigned in_round = 0;

			/* enqueue until the ring refuses, a mix of good and bad ops */
			for (unsigned i = 0;; i++) {
				uint32_t len = 64 + (i % 7) * 32;
				rte_iova_t s = t_iova(src + (i % 64) * 1024);
				rte_iova_t d = t_iova(dst + (i % 64) * 1024);
				uint64_t flags = (i % 5 == 0) ? RTE_DMA_OP_FLAG_FENCE : 0;
				bool bad = true;

				switch ((i + round) % 11) {
				case 3:
					len = 0;
					break;
				case 5:
					len = 0x80000001u;
					break; /* above any device's memcpy limit */
				case 7:
					s = t_iova(foreign);
					break;
				case 9:
					d = t_iova(foreign);
					break;
				default:
					bad = false;
				}
				if (i % 13 == 12)
					flags |= RTE_DMA_OP_FLAG_SUBMIT;
				int ret = rte_dma_copy(id, 0, s, d, len, flags);
				if (ret == -ENOSPC)
					break;
				CU_ASSERT_TRUE_FATAL(ret >= 0);
				accepted++;
				in_round++;
				failed_expected += bad;
			}
			CU_ASSERT_EQUAL(in_round, round == 0 ? nb_desc - 1u : in_round);
			CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
			enum rte_dma_status_code st[64];
			uint16_t last;
			uint16_t got = t_wait_status(id, 0, (uint16_t)in_round, st, &last);
			CU_ASSERT_EQUAL(got, in_round);
			for (uint16_t k = 0; k < got; k++)
				failed_seen += st[k] != RTE_DMA_STATUS_SUCCESSFUL;
		}
		CU_ASSERT_EQUAL(failed_seen, failed_expected);
		CU_ASSERT_TRUE(accepted > 20u * (nb_desc / 2));
		CU_ASSERT_TRUE(dump_has(id, "batch failures 0\n"));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_quirks"), 0);
		rte_free(src);
		rte_free(dst);
		free(foreign);
	}
}

/* The 32-bit WQEBB counter wraps: every op still completes, one submit at a time
 * (the CE bit and the doorbell must name the right WQE at pi 0xffffffff). */
void test_pi_wrap(void)
{
	T_FOREACH_MODE (m) {
		uint8_t *src = (uint8_t *)rte_malloc(NULL, 4096, 64);
		uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, 4096, 64);
		int id = t_open("dma_mlx5_wrap", t_args(m, NULL), 1, 64);

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst);
		CU_ASSERT_EQUAL_FATAL(test_hook_preset_pi(id, 0, 0xffff0000u), 0);
		t_fill(src, 4096, 5);
		/* bursts of 32 up to just before the wrap, then one op per submit across it */
		unsigned i = 0;
		while (i < 0xffe0) {
			uint16_t last;
			bool err = false;

			for (unsigned k = 0; k < 32; k++, i++)
				CU_ASSERT_EQUAL_FATAL(
					rte_dma_copy(id, 0, t_iova(src + (i % 64) * 64),
						     t_iova(dst + (i % 64) * 64), 64, 0),
					(int)(i & 0xffff));
			CU_ASSERT_EQUAL_FATAL(rte_dma_submit(id, 0), 0);
			CU_ASSERT_EQUAL_FATAL(t_wait_done(id, 0, 32, &last, &err), 32);
		}
		for (; i < 0x10000 + 64; i++) {
			uint16_t last;
			bool err = false;

			CU_ASSERT_EQUAL_FATAL(rte_dma_copy(id, 0, t_iova(src + (i % 64) * 64),
							   t_iova(dst + (i % 64) * 64), 64,
							   RTE_DMA_OP_FLAG_SUBMIT),
					      (int)(i & 0xffff));
			CU_ASSERT_EQUAL_FATAL(t_wait_done(id, 0, 1, &last, &err), 1);
			CU_ASSERT_EQUAL_FATAL(last, (uint16_t)i);
		}
		CU_ASSERT_TRUE(t_check(dst, 4096, 5));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_wrap"), 0);
		rte_free(src);
		rte_free(dst);
	}
}

const struct cunit_test tests[] = {
	{"no_failed_batch", test_no_failed_batch},
	{"pi_wrap", test_pi_wrap},
};

} // namespace

const struct cunit_suite t_suite_quirks = CUNIT_SUITE("quirks", tests);
