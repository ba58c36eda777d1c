/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct and the verbs posting path must put the same bytes in the SQ: the
 * same sequence of ops runs on two devices that differ only in path=, and their
 * rings are compared byte for byte after every step. Fields that name per-device
 * objects are checked, then normalised: the QPN (must be the vchan's own), the
 * MMO opaque buffer (must be the same in every WQE of a ring), and the lkeys of
 * data segments (must map one to one between the two devices, and data segments
 * of user buffers must carry the same addresses).
 */
#include <map>
#include <string.h>
#include <utility>

#include <rte_malloc.h>

#include "mlx5_hw.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kBuf = 256 * 1024;

/** Normalisation state of one comparison. */
struct Norm {
	uint32_t qpn[2];
	uint64_t opaque[2][2] = {}; /* lkey, address of each ring's metadata */
	bool opaque_seen[2] = {};
	std::map<uint32_t, uint32_t> key_map;                   /* direct lkey -> verbs lkey */
	std::map<std::pair<uint32_t, uint32_t>, int64_t> delta; /* address offset per key pair */
	uint32_t data_key[2] = {};                              /* lkeys of the user buffers */
};

/* Check and blank the per-device fields of one WQEBB of ring @p r. */
bool normalise(Norm *n, int r, uint8_t *w, bool *is_mmo)
{
	struct mlx5_wqe_ctrl_seg *c = (struct mlx5_wqe_ctrl_seg *)w;
	uint32_t qpn_ds = be32toh(c->qpn_ds);

	*is_mmo = false;
	if (qpn_ds >> 8 != n->qpn[r])
		return false;
	mlx5_hw_st_be32(&c->qpn_ds, qpn_ds & 0xff);
	if (mlx5_hw_ctrl_opcode(c) != MLX5_OPCODE_MMO)
		return true;
	*is_mmo = true;
	uint64_t lkey = mlx5_hw_ld_be32(w + 20), addr = mlx5_hw_ld_be64(w + 24);

	if (!n->opaque_seen[r]) {
		n->opaque_seen[r] = true;
		n->opaque[r][0] = lkey;
		n->opaque[r][1] = addr;
	}
	if (n->opaque[r][0] != lkey || n->opaque[r][1] != addr)
		return false;
	memset(w + 20, 0, 12);
	return true;
}

/* Data segments at offsets 32 and 48 of MMO WQEs @p d (direct) and @p v (verbs). */
bool match_data_segs(Norm *n, uint8_t *d, uint8_t *v)
{
	for (int off = 32; off <= 48; off += 16) {
		uint32_t kd = mlx5_hw_ld_be32(d + off + 4), kv = mlx5_hw_ld_be32(v + off + 4);
		uint64_t ad = mlx5_hw_ld_be64(d + off + 8), av = mlx5_hw_ld_be64(v + off + 8);
		auto it = n->key_map.find(kd);

		if (it == n->key_map.end())
			n->key_map.emplace(kd, kv);
		else if (it->second != kv)
			return false;
		auto pair = std::make_pair(kd, kv);
		auto dt = n->delta.find(pair);
		int64_t delta = (int64_t)(av - ad);

		if (kd == n->data_key[0] && kv == n->data_key[1] && delta != 0)
			return false; /* user buffers: identical addresses */
		if (dt == n->delta.end())
			n->delta.emplace(pair, delta);
		else if (dt->second != delta)
			return false;
		memset(d + off + 4, 0, 4);
		memset(v + off + 4, 0, 4);
		memset(d + off + 8, 0, 8);
		memset(v + off + 8, 0, 8);
	}
	return true;
}

/* Compare the two rings after normalisation; report the first difference. */
bool rings_equal(Norm *n, int id_d, int id_v, const char *step)
{
	const uint8_t *rd, *rv;
	uint32_t nd, nv;

	if (test_hook_sq_ring(id_d, 0, &rd, &nd) || test_hook_sq_ring(id_v, 0, &rv, &nv) ||
	    nd != nv)
		return false;
	for (uint32_t s = 0; s < nd; s++) {
		uint8_t d[64], v[64];
		bool mmo_d = false, mmo_v = false;

		memcpy(d, rd + s * 64, 64);
		memcpy(v, rv + s * 64, 64);
		if (!memcmp(d, v, 64))
			continue; /* also: never written in either */
		bool ok = normalise(n, 0, d, &mmo_d) && normalise(n, 1, v, &mmo_v) &&
			  mmo_d == mmo_v && (!mmo_d || match_data_segs(n, d, v)) &&
			  !memcmp(d, v, 64);
		if (!ok) {
			fprintf(stderr, "\n  %s: WQEBB %u differs\n  direct:", step, s);
			for (int i = 0; i < 64; i++)
				fprintf(stderr, "%s%02x", i % 16 ? " " : "\n   ", rd[s * 64 + i]);
			fprintf(stderr, "\n  verbs:");
			for (int i = 0; i < 64; i++)
				fprintf(stderr, "%s%02x", i % 16 ? " " : "\n   ", rv[s * 64 + i]);
			fprintf(stderr, "\n");
			return false;
		}
	}
	return true;
}

/* The steps, identical on both devices. @return false if an enqueue misbehaved. */
bool run_step(int id, int step, uint8_t *src, uint8_t *dst, uint8_t *bad)
{
	static const uint64_t flag_cycle[] = {0, RTE_DMA_OP_FLAG_FENCE, RTE_DMA_OP_FLAG_LLC, 0,
					      RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_LLC};
	enum rte_dma_status_code st[64];
	uint16_t last;
	int ops = 0;

	for (int i = 0; i < 5 + step % 7; i++) {
		size_t off = (size_t)((step * 13 + i * 5) % 60) * 4096;
		uint32_t len = 64 + (uint32_t)((step * 977 + i * 131) % 4000);
		uint64_t fl = flag_cycle[(step + i) % 5];
		rte_iova_t s = t_iova(src + off), d = t_iova(dst + off);

		if (step % 4 == 3 && i == 2)
			s = t_iova(bad); /* a trapped op and the recovery behind it */
		if (step % 5 == 4 && i == 1)
			len = 0;
		if (i == 3 && step % 3 == 0)
			fl |= RTE_DMA_OP_FLAG_SUBMIT; /* a doorbell in the middle */
		if (rte_dma_copy(id, 0, s, d, len, fl) < 0)
			return false;
		ops++;
	}
	if (rte_dma_submit(id, 0))
		return false;
	return t_wait_status(id, 0, ops, st, &last) == ops;
}

void compare_paths(bool thread)
{
	uint8_t *src = (uint8_t *)rte_malloc(NULL, kBuf, 4096);
	uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, kBuf, 4096);
	uint8_t *bad = (uint8_t *)aligned_alloc(4096, 4096);
	Norm n;
	/* with --kernel: DEV's two paths, libmlx5's own builders on the verbs one */
	int id_d = t_open("dma_mlx5_wd", t_args(t_path_mode(thread, false), NULL), 1, 32);
	int id_v = t_open("dma_mlx5_wv", t_args(t_path_mode(thread, true), NULL), 1, 32);
	struct rte_pmd_dma_mlx5_vchan_info vi;

	CU_ASSERT_TRUE_FATAL(id_d >= 0 && id_v >= 0 && src && dst && bad);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id_d, 0, &vi), 0);
	n.qpn[0] = vi.qpn;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(id_v, 0, &vi), 0);
	n.qpn[1] = vi.qpn;
	t_fill(src, kBuf, 81);
	/* one plain copy first: its keys are the user-buffer keys */
	CU_ASSERT_EQUAL(rte_dma_copy(id_d, 0, t_iova(src), t_iova(dst), 64, RTE_DMA_OP_FLAG_SUBMIT),
			0);
	CU_ASSERT_EQUAL(rte_dma_copy(id_v, 0, t_iova(src), t_iova(dst), 64, RTE_DMA_OP_FLAG_SUBMIT),
			0);
	{
		const uint8_t *r;
		uint32_t cnt;

		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_d, 0, &r, &cnt), 0);
		n.data_key[0] = mlx5_hw_ld_be32(r + 36);
		CU_ASSERT_EQUAL_FATAL(test_hook_sq_ring(id_v, 0, &r, &cnt), 0);
		n.data_key[1] = mlx5_hw_ld_be32(r + 36);
	}
	enum rte_dma_status_code st;
	uint16_t last;

	CU_ASSERT_EQUAL(t_wait_status(id_d, 0, 1, &st, &last), 1);
	CU_ASSERT_EQUAL(t_wait_status(id_v, 0, 1, &st, &last), 1);
	CU_ASSERT_TRUE(rings_equal(&n, id_d, id_v, "first copy"));
	for (int step = 0; step < 24; step++) {
		char name[32];

		snprintf(name, sizeof(name), "step %d", step);
		CU_ASSERT_TRUE_FATAL(run_step(id_d, step, src, dst, bad));
		CU_ASSERT_TRUE_FATAL(run_step(id_v, step, src, dst, bad));
		if (!rings_equal(&n, id_d, id_v, name)) {
			CU_FAIL("SQ rings of the direct and the verbs path differ");
			break;
		}
	}
	CU_ASSERT_EQUAL(n.key_map.size(), 2); /* user buffers and the trap */
	CU_ASSERT_EQUAL(t_close("dma_mlx5_wd"), 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_wv"), 0);
	rte_free(src);
	rte_free(dst);
	free(bad);
}

void test_wqe_bytes_inline(void)
{
	compare_paths(false);
}

void test_wqe_bytes_thread(void)
{
	if (t_kernel_dev) {
		printf("[one execution mode per run (sim-rdma -a sim_exec=): the inline case ran "
		       "in it] ");
		return;
	}
	compare_paths(true);
}

const struct cunit_test tests[] = {
	{"wqe_bytes_direct_vs_verbs_inline", test_wqe_bytes_inline},
	{"wqe_bytes_direct_vs_verbs_thread", test_wqe_bytes_thread},
};

} // namespace

const struct cunit_suite t_suite_wqe_bytes = CUNIT_SUITE("wqe_bytes", tests);
