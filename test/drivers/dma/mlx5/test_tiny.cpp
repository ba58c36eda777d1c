/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tiny resources: rings of 32 and 64 descriptors (the smallest min_desc allows), with
 * 1 vchan and with max_vchans (64) vchans configured at once, each vchan doing a few
 * hundred verified copies of varied sizes and offsets, so every SQ ring wraps several
 * times while the other QPs are busy. The CQ is not configurable: the PMD sizes it to
 * the SQ (one CQE per WQE at most, mlx5_dma_vchan.cpp), so no CQ smaller than the SQ
 * is possible through the rte_dma API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr uint32_t kSlot = 512; /**< destination bytes per op of one round */
constexpr uint32_t kOpsPerVchan = 300;

/*
 * @p nb_vchans vchans of @p nb_desc on mode @p m: rounds of nb_desc / 2 copies per
 * vchan (lengths 1..kSlot, sources anywhere in the source buffer), all vchans
 * submitted before any is polled, then every completion and every byte checked.
 */
bool run_matrix_point(const struct t_mode *m, uint16_t nb_vchans, uint16_t nb_desc)
{
	const uint16_t per_round = nb_desc / 2;
	const size_t per_vchan = (size_t)per_round * kSlot;
	t_bufs b(nb_vchans * per_vchan + 2 * kSlot);
	int id = t_open("dma_mlx5_tiny", t_args(m, "max_vchans=64,min_desc=32"), nb_vchans,
			nb_desc);
	uint32_t rng = 0x9e3779b9u ^ nb_vchans ^ (nb_desc << 8);
	uint32_t len[64][64], soff[64][64];
	uint16_t next[64] = {};
	bool ok = id >= 0 && b.ok();

	if (!ok) {
		if (id >= 0)
			t_close("dma_mlx5_tiny");
		return false;
	}
	t_fill(b.src, b.len, 77);
	for (uint16_t v = 0; v < nb_vchans && ok; v++) {
		struct rte_pmd_dma_mlx5_vchan_info vi;

		ok = rte_pmd_dma_mlx5_vchan_info(id, v, &vi) == 0 && vi.sq_wqebbs == nb_desc;
	}
	for (uint32_t done = 0; done < kOpsPerVchan && ok; done += per_round) {
		memset(b.dst, 0, b.len);
		for (uint16_t v = 0; v < nb_vchans && ok; v++) {
			uint8_t *dst = b.dst + v * per_vchan;

			for (uint16_t k = 0; k < per_round && ok; k++) {
				rng = rng * 1664525u + 1013904223u;
				len[v][k] = 1 + (rng >> 8) % kSlot;
				soff[v][k] = (rng >> 4) % (uint32_t)(b.len - kSlot);
				ok = rte_dma_copy(id, v, t_iova(b.src + soff[v][k]),
						  t_iova(dst + k * kSlot), len[v][k],
						  k == per_round - 1 ? RTE_DMA_OP_FLAG_SUBMIT
								     : 0) == next[v]++;
			}
		}
		for (uint16_t v = 0; v < nb_vchans && ok; v++) {
			enum rte_dma_status_code st[64];
			uint16_t last = 0;
			const uint8_t *dst = b.dst + v * per_vchan;

			ok = t_wait_status(id, v, per_round, st, &last) == per_round &&
			     last == (uint16_t)(next[v] - 1);
			for (uint16_t k = 0; k < per_round && ok; k++) {
				const uint8_t *d = dst + k * kSlot;

				ok = st[k] == RTE_DMA_STATUS_SUCCESSFUL &&
				     memcmp(d, b.src + soff[v][k], len[v][k]) == 0 &&
				     (len[v][k] == kSlot || d[len[v][k]] == 0);
			}
		}
	}
	for (uint16_t v = 0; v < nb_vchans && ok; v++) {
		struct rte_dma_stats s;

		ok = rte_dma_stats_get(id, v, &s) == 0 && s.submitted == next[v] &&
		     s.completed == next[v] && s.errors == 0;
	}
	return t_close("dma_mlx5_tiny") == 0 && ok;
}

void test_tiny_matrix(void)
{
	static const uint16_t descs[] = {32, 64};
	static const uint16_t vchans[] = {1, 64};

	T_FOREACH_MODE (m) {
		for (uint16_t d : descs)
			for (uint16_t v : vchans) {
				bool ok = run_matrix_point(m, v, d);

				if (!ok)
					fprintf(stderr,
						"tiny matrix: %s/%s, %u vchans x %u failed\n",
						m->sim, m->path, v, d);
				CU_ASSERT_TRUE(ok);
			}
	}
}

const struct cunit_test tests[] = {
	{"rings_32_64_x_vchans_1_64", test_tiny_matrix},
};

} // namespace

const struct cunit_suite t_suite_tiny = CUNIT_SUITE("tiny", tests);
