/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Indirect mkeys end to end through the seam on the software HCA, with the real
 * builders (mlx5dv_wr_mr_list / _mr_interleaved / _mkey_configure and setters,
 * ibv_post_send LOCAL_INV, ibv_wr_send_inv): the UMR scenarios of rdma-core's
 * tests/test_mlx5_mkey.py (list, interleaved, old and new API, bad flow, remote
 * invalidation, invalidate and reuse), mlx5dv_create_mkey's checks, and memcpy
 * MMO through mkeys (what the DMA driver's COPY_SG/FILL use). Each scenario runs
 * on an inline-mode and a thread-mode instance.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

constexpr size_t kBufLen = 4096;
constexpr int kPollTimeoutMs = 5000;
constexpr unsigned kRegFlags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;

const struct mlx5_glue *g;
const char *const kDevs[] = {"sim1", "sim2"}; /* inline, thread */

/** One completion (legacy poll); false on timeout. */
bool poll1(struct ibv_cq_ex *cq, struct ibv_wc *wc)
{
	uint64_t deadline = glue_test_now_ms() + kPollTimeoutMs;

	while (glue_test_now_ms() < deadline) {
		int ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, wc);
		if (ret)
			return ret == 1;
	}
	return false;
}

/** One side of test_mlx5_mkey.py: a QP with its CQ, a buffer, its MR and an mkey. */
struct Player {
	struct ibv_cq_ex *cq = nullptr;
	struct ibv_qp *qp = nullptr;
	struct ibv_qp_ex *qpx = nullptr;
	struct mlx5dv_qp_ex *dv = nullptr;
	uint8_t *buf = nullptr;
	struct ibv_mr *mr = nullptr;
	struct mlx5dv_mkey *mkey = nullptr;
};

struct Pair {
	struct ibv_context *ctx = nullptr;
	struct ibv_pd *pd = nullptr;
	Player p[2]; /* client, server */
	Player &client() { return p[0]; }
	Player &server() { return p[1]; }
};

/** pyverbs resources: RC, DISABLE_SCATTER_TO_CQE, 1000 WRs, inline 512 with configure. */
void player_setup(Pair &pr, Player &pl, uint64_t dv_ops, uint32_t mkey_flags)
{
	struct ibv_cq_init_attr_ex ca = {};
	ca.cqe = 2048;
	pl.cq = g->create_cq_ex(pr.ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pl.cq);

	struct ibv_qp_init_attr_ex a = {};
	struct mlx5dv_qp_init_attr dv = {};
	a.qp_type = IBV_QPT_RC;
	a.send_cq = a.recv_cq = ibv_cq_ex_to_cq(pl.cq);
	a.cap.max_send_wr = 1000;
	a.cap.max_recv_wr = 1000;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = dv_ops & MLX5DV_QP_EX_WITH_MKEY_CONFIGURE ? 512 : 0;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = pr.pd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |
			   IBV_QP_EX_WITH_LOCAL_INV;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
		       MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv.create_flags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
	dv.send_ops_flags = dv_ops;
	pl.qp = g->dv_create_qp(pr.ctx, &a, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pl.qp);
	pl.qpx = g->qp_to_qp_ex(pl.qp);
	pl.dv = g->dv_qp_ex_from_ibv_qp_ex(pl.qpx);
	CU_ASSERT_EQUAL_FATAL(posix_memalign((void **)&pl.buf, 4096, kBufLen), 0);
	memset(pl.buf, 0, kBufLen);
	pl.mr = g->reg_mr(pr.pd, pl.buf, kBufLen,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pl.mr);
	struct mlx5dv_mkey_init_attr ma = {};
	ma.pd = pr.pd;
	ma.create_flags = mkey_flags;
	ma.max_entries = 3;
	pl.mkey = g->dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pl.mkey);
	CU_ASSERT_EQUAL(ma.max_entries, 4); /* align(3, 4) written back */
	CU_ASSERT_EQUAL(pl.mkey->lkey, pl.mkey->rkey);
}

void pair_setup(Pair &pr, const char *dev, uint64_t dv_ops,
		uint32_t mkey_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT)
{
	pr.ctx = glue_test_open(g, dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr.ctx);
	pr.pd = g->alloc_pd(pr.ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr.pd);
	for (Player &pl : pr.p)
		player_setup(pr, pl, dv_ops, mkey_flags);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, pr.p[i].qp, IBV_QPS_INIT, 0), 0);
		CU_ASSERT_EQUAL_FATAL(
			glue_test_modify_rc(g, pr.p[i].qp, IBV_QPS_RTR, pr.p[1 - i].qp->qp_num), 0);
		CU_ASSERT_EQUAL_FATAL(glue_test_modify_rc(g, pr.p[i].qp, IBV_QPS_RTS, 0), 0);
	}
}

void pair_teardown(Pair &pr)
{
	for (Player &pl : pr.p) {
		CU_ASSERT_EQUAL(g->dv_destroy_mkey(pl.mkey), 0);
		CU_ASSERT_EQUAL(g->destroy_qp(pl.qp), 0);
		CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(pl.cq)), 0);
		CU_ASSERT_EQUAL(g->dereg_mr(pl.mr), 0);
		free(pl.buf);
	}
	CU_ASSERT_EQUAL(g->dealloc_pd(pr.pd), 0);
	CU_ASSERT_EQUAL(g->close_device(pr.ctx), 0);
}

enum class Layout {
	List,
	Interleaved
};

/** Register the player's mkey like the pyverbs helpers; one DRIVER1 completion. */
void reg_mkey(Player &pl, Layout layout, bool new_api, unsigned access = IBV_ACCESS_LOCAL_WRITE)
{
	struct ibv_sge sg[2] = {{(uintptr_t)pl.buf, 8, pl.mr->lkey},
				{(uintptr_t)pl.buf + 64, 8, pl.mr->lkey}};
	struct mlx5dv_mr_interleaved il[2] = {{(uintptr_t)pl.buf, 8, 2, pl.mr->lkey},
					      {(uintptr_t)pl.buf + 64, 8, 2, pl.mr->lkey}};
	struct mlx5dv_mkey_conf_attr ca = {};

	ibv_wr_start(pl.qpx);
	pl.qpx->wr_id = 0x77;
	pl.qpx->wr_flags = kRegFlags;
	if (!new_api && layout == Layout::List) {
		mlx5dv_wr_mr_list(pl.dv, pl.mkey, access, 2, sg);
	} else if (!new_api) {
		mlx5dv_wr_mr_interleaved(pl.dv, pl.mkey, access, 3, 2, il);
	} else {
		mlx5dv_wr_mkey_configure(pl.dv, pl.mkey, 2, &ca);
		mlx5dv_wr_set_mkey_access_flags(pl.dv, access);
		if (layout == Layout::List)
			mlx5dv_wr_set_mkey_layout_list(pl.dv, 2, sg);
		else
			mlx5dv_wr_set_mkey_layout_interleaved(pl.dv, 3, 2, il);
	}
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(pl.qpx), 0);
	struct ibv_wc wc;
	CU_ASSERT_FATAL(poll1(pl.cq, &wc));
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, (enum ibv_wc_opcode)MLX5DV_WC_UMR);
	CU_ASSERT_EQUAL(wc.wr_id, 0x77u);
}

/** Client sends @p len bytes from its mkey into the server's mkey; true if both succeed. */
bool send_through_mkeys(Pair &pr, uint32_t len, struct ibv_wc *cwc = nullptr)
{
	Player &c = pr.client(), &s = pr.server();
	struct ibv_sge rsge = {0, len, s.mkey->lkey};
	struct ibv_recv_wr rwr = {}, *bad = nullptr;
	rwr.wr_id = 0x5;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(ibv_post_recv(s.qp, &rwr, &bad), 0);
	ibv_wr_start(c.qpx);
	c.qpx->wr_id = 0xc;
	c.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(c.qpx);
	ibv_wr_set_sge(c.qpx, c.mkey->lkey, 0, len);
	CU_ASSERT_EQUAL(ibv_wr_complete(c.qpx), 0);
	struct ibv_wc wc, swc;
	CU_ASSERT_FATAL(poll1(c.cq, &wc));
	if (cwc)
		*cwc = wc;
	if (wc.status != IBV_WC_SUCCESS)
		return false;
	CU_ASSERT_EQUAL(wc.opcode, IBV_WC_SEND);
	CU_ASSERT_FATAL(poll1(s.cq, &swc));
	CU_ASSERT_EQUAL(swc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(swc.opcode, IBV_WC_RECV);
	CU_ASSERT_EQUAL(swc.byte_len, len);
	return swc.status == IBV_WC_SUCCESS;
}

/** traffic_scattered_data: 10 iterations of 16 bytes; only the mapped bytes change. */
void traffic_scattered(Pair &pr)
{
	for (int it = 0; it < 10; it++) {
		memset(pr.server().buf, 's', kBufLen);
		memset(pr.client().buf, 'c', kBufLen);
		CU_ASSERT_TRUE_FATAL(send_through_mkeys(pr, 16));
		uint8_t want[100];
		memset(want, 's', sizeof(want));
		memset(want, 'c', 8);
		memset(want + 64, 'c', 8);
		CU_ASSERT_EQUAL(memcmp(pr.server().buf, want, sizeof(want)), 0);
	}
}

/** invalidate_mkeys: legacy post_send LOCAL_INV with the key in imm_data. */
void invalidate(Player &pl)
{
	struct ibv_send_wr wr = {}, *bad = nullptr;
	wr.wr_id = 0x1;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = pl.mkey->rkey; /* a union with invalidate_rkey */
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(pl.qp, &wr, &bad), 0);
	struct ibv_wc wc;
	CU_ASSERT_FATAL(poll1(pl.cq, &wc));
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, IBV_WC_LOCAL_INV);
}

/** The same through the new post-send API (ibv_wr_local_inv). */
void invalidate_wr(Player &pl)
{
	ibv_wr_start(pl.qpx);
	pl.qpx->wr_id = 0x2;
	pl.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(pl.qpx, pl.mkey->rkey);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(pl.qpx), 0);
	struct ibv_wc wc;
	CU_ASSERT_FATAL(poll1(pl.cq, &wc));
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, IBV_WC_LOCAL_INV);
	CU_ASSERT_EQUAL(wc.wr_id, 0x2u);
}

void mkey_traffic(Layout layout, bool new_api)
{
	uint64_t ops = new_api                  ? MLX5DV_QP_EX_WITH_MKEY_CONFIGURE
		       : layout == Layout::List ? MLX5DV_QP_EX_WITH_MR_LIST
						: MLX5DV_QP_EX_WITH_MR_INTERLEAVED;
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, ops);
		for (Player &pl : pr.p)
			reg_mkey(pl, layout, new_api);
		traffic_scattered(pr);
		for (Player &pl : pr.p)
			invalidate(pl);
		pair_teardown(pr);
	}
}

void test_mkey_list(void)
{
	mkey_traffic(Layout::List, false);
}

void test_mkey_interleaved(void)
{
	mkey_traffic(Layout::Interleaved, false);
}

void test_mkey_list_new_api(void)
{
	mkey_traffic(Layout::List, true);
}

void test_mkey_interleaved_new_api(void)
{
	mkey_traffic(Layout::Interleaved, true);
}

/** 100 bytes through 16-byte mkeys: the client gets an error CQE. */
void test_mkey_list_bad_flow(void)
{
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MR_LIST);
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::List, false);
		memset(pr.server().buf, 's', kBufLen);
		struct ibv_wc wc;
		CU_ASSERT_FALSE(send_through_mkeys(pr, 100, &wc));
		/* the client's own 16-byte mkey fails first: nothing reaches the wire */
		CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
		CU_ASSERT_EQUAL(ibv_poll_cq(ibv_cq_ex_to_cq(pr.server().cq), 1, &wc), 0);
		for (int i = 0; i < 100; i++)
			CU_ASSERT_EQUAL(pr.server().buf[i], 's');
		pair_teardown(pr);
	}
}

/** SEND with invalidate frees the server's mkey: the next round fails. */
void test_mkey_remote_invalidate(void)
{
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
			   MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				   MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE);
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::List, true);
		traffic_scattered(pr);
		Player &c = pr.client(), &s = pr.server();
		struct ibv_sge rsge = {0, 0, s.mkey->lkey};
		struct ibv_recv_wr rwr = {}, *bad = nullptr;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		CU_ASSERT_EQUAL(ibv_post_recv(s.qp, &rwr, &bad), 0);
		ibv_wr_start(c.qpx);
		c.qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(c.qpx, s.mkey->rkey);
		ibv_wr_set_sge(c.qpx, c.mkey->lkey, 0, 0);
		CU_ASSERT_EQUAL(ibv_wr_complete(c.qpx), 0);
		struct ibv_wc wc;
		CU_ASSERT_FATAL(poll1(c.cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_FATAL(poll1(s.cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV);
		CU_ASSERT_TRUE(wc.wc_flags & IBV_WC_WITH_INV);
		CU_ASSERT_EQUAL(wc.invalidated_rkey, s.mkey->rkey);
		/* the server's mkey is free now */
		memset(s.buf, 's', kBufLen);
		memset(c.buf, 'c', kBufLen);
		CU_ASSERT_FALSE(send_through_mkeys(pr, 16, &wc));
		CU_ASSERT_NOT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(s.buf[0], 's');
		pair_teardown(pr);
	}
}

/** LOCAL_INV (legacy and new API) frees; a new layout on the same mkey works again. */
void test_mkey_invalidate_reuse(void)
{
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::List, true);
		invalidate_wr(pr.server());
		/* freed: a send into the server's mkey fails at the server */
		memset(pr.server().buf, 's', kBufLen);
		struct ibv_wc wc;
		CU_ASSERT_FALSE(send_through_mkeys(pr, 16, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_OP_ERR);
		CU_ASSERT_TRUE(poll1(pr.server().cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
		CU_ASSERT_EQUAL(pr.server().buf[0], 's');
		pair_teardown(pr);
		/* and a new layout makes it work again */
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::List, true);
		invalidate(pr.client());
		invalidate_wr(pr.server());
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::Interleaved, true);
		traffic_scattered(pr);
		pair_teardown(pr);
	}
}

/** mkey_configure with 0 setters keeps the layout; an access setter alone keeps it too. */
void test_configure_setters(void)
{
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
		for (Player &pl : pr.p)
			reg_mkey(pl, Layout::List, true);
		struct mlx5dv_mkey_conf_attr ca = {};
		struct ibv_wc wc;
		for (Player &pl : pr.p) { /* no setter: FREE|MKEY only, the layout stays */
			ibv_wr_start(pl.qpx);
			pl.qpx->wr_flags = kRegFlags;
			mlx5dv_wr_mkey_configure(pl.dv, pl.mkey, 0, &ca);
			CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(pl.qpx), 0);
			CU_ASSERT_FATAL(poll1(pl.cq, &wc));
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(wc.opcode, (enum ibv_wc_opcode)MLX5DV_WC_UMR);
		}
		traffic_scattered(pr);
		/* the server's mkey loses LOCAL_WRITE: its receive fails, nothing lands */
		Player &s = pr.server();
		ibv_wr_start(s.qpx);
		s.qpx->wr_flags = kRegFlags;
		mlx5dv_wr_mkey_configure(s.dv, s.mkey, 1, &ca);
		mlx5dv_wr_set_mkey_access_flags(s.dv, IBV_ACCESS_REMOTE_READ);
		CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(s.qpx), 0);
		CU_ASSERT_FATAL(poll1(s.cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		memset(s.buf, 's', kBufLen);
		CU_ASSERT_FALSE(send_through_mkeys(pr, 16, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_OP_ERR);
		CU_ASSERT_TRUE(poll1(s.cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
		CU_ASSERT_EQUAL(s.buf[0], 's');
		pair_teardown(pr);
	}
}

/**
 * A raw WQE right after a UMR: mlx5dv_wr_raw_wqe drops libmlx5's pending small
 * fence, so without its own fence bits the WQE runs in the UMR's group and sees
 * the mkey as it was (free: LOC_PROT); with fm 0x20 it sees the new layout.
 */
void test_raw_wqe_after_umr(void)
{
	for (const char *dev : kDevs) {
		for (int fenced = 0; fenced < 2; fenced++) {
			Pair pr;
			pair_setup(pr, dev,
				   MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_RAW_WQE);
			Player &c = pr.client(), &s = pr.server();
			for (size_t i = 0; i < kBufLen; i++)
				c.buf[i] = (uint8_t)(i * 5 + 2);
			struct ibv_sge sg[2] = {{(uintptr_t)c.buf, 8, c.mr->lkey},
						{(uintptr_t)c.buf + 64, 8, c.mr->lkey}};
			struct mlx5dv_mkey_conf_attr ca = {};
			uint8_t wqe[48] = {};
			uint8_t fm = MLX5_WQE_CTRL_CQ_UPDATE | (fenced ? 0x20 : 0);
			mlx5dv_set_ctrl_seg(reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(wqe), 0,
					    MLX5_OPCODE_RDMA_WRITE, 0, c.qp->qp_num, fm, 3, 0, 0);
			auto *raddr = reinterpret_cast<struct mlx5_wqe_raddr_seg *>(wqe + 16);
			raddr->raddr = htobe64((uintptr_t)s.buf + 256);
			raddr->rkey = htobe32(s.mr->rkey);
			mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(wqe + 32),
					    16, c.mkey->lkey, 0);
			ibv_wr_start(c.qpx);
			c.qpx->wr_flags = kRegFlags;
			mlx5dv_wr_mkey_configure(c.dv, c.mkey, 2, &ca);
			mlx5dv_wr_set_mkey_access_flags(c.dv, IBV_ACCESS_LOCAL_WRITE);
			mlx5dv_wr_set_mkey_layout_list(c.dv, 2, sg);
			c.qpx->wr_flags = IBV_SEND_SIGNALED;
			mlx5dv_wr_raw_wqe(c.dv, wqe);
			CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(c.qpx), 0);
			struct ibv_wc wc;
			CU_ASSERT_FATAL(poll1(c.cq, &wc));
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(wc.opcode, (enum ibv_wc_opcode)MLX5DV_WC_UMR);
			CU_ASSERT_FATAL(poll1(c.cq, &wc));
			if (fenced) {
				CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
				CU_ASSERT_EQUAL(wc.opcode, (enum ibv_wc_opcode)MLX5DV_WC_RAW_WQE);
				CU_ASSERT_EQUAL(memcmp(s.buf + 256, c.buf, 8), 0);
				CU_ASSERT_EQUAL(memcmp(s.buf + 264, c.buf + 64, 8), 0);
			} else {
				CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
				for (int i = 0; i < 16; i++)
					CU_ASSERT_EQUAL(s.buf[256 + i], 0);
			}
			pair_teardown(pr);
		}
	}
}

/** mlx5dv_create_mkey's checks, and the PD busy while an mkey lives. */
void test_create_mkey_checks(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	struct ibv_pd *pd = g->alloc_pd(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	struct mlx5dv_mkey_init_attr ma = {};
	ma.pd = pd;
	ma.max_entries = 1;
	const uint32_t refused[] = {0, MLX5DV_MKEY_INIT_ATTR_FLAGS_UPDATE_TAG,
				    MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT | 0x100,
				    MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO};
	for (uint32_t f : refused) {
		ma.create_flags = f;
		errno = 0;
		CU_ASSERT_PTR_NULL(g->dv_create_mkey(&ma));
		CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
		CU_ASSERT_EQUAL(ma.max_entries, 1);
	}
	/* any accepted flag makes the same mkey; INDIRECT is not required */
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE;
	struct mlx5dv_mkey *mk = g->dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
	CU_ASSERT_EQUAL(ma.max_entries, 4);
	CU_ASSERT_EQUAL(mk->lkey & 0xff, 0u);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), EBUSY);
	CU_ASSERT_EQUAL(g->close_device(ctx), EBUSY);
	CU_ASSERT_EQUAL(g->dv_destroy_mkey(mk), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

/** memcpy MMO through a list mkey (source) and a repeat block (fill destination). */
void test_memcpy_through_mkeys(void)
{
	for (const char *dev : kDevs) {
		Pair pr;
		pair_setup(pr, dev, MLX5DV_QP_EX_WITH_MEMCPY | MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
		Player &c = pr.client();
		for (size_t i = 0; i < kBufLen; i++)
			c.buf[i] = (uint8_t)(i * 3 + 1);
		reg_mkey(c, Layout::List, true); /* buf[0..8) + buf[64..72) */
		uint8_t *dst = pr.server().buf;
		ibv_wr_start(c.qpx);
		c.qpx->wr_id = 0x10;
		c.qpx->wr_flags = IBV_SEND_SIGNALED;
		mlx5dv_wr_memcpy(c.dv, pr.server().mr->lkey, (uintptr_t)dst, c.mkey->lkey, 4, 10);
		CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(c.qpx), 0);
		struct ibv_wc wc;
		CU_ASSERT_FATAL(poll1(c.cq, &wc));
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, (enum ibv_wc_opcode)MLX5DV_WC_MEMCPY);
		CU_ASSERT_EQUAL(memcmp(dst, c.buf + 4, 4), 0);
		CU_ASSERT_EQUAL(memcmp(dst + 4, c.buf + 64, 6), 0);
		CU_ASSERT_EQUAL(dst[10], 0);
		/* a fill: stride-0 repeat block over an 8-byte pattern as the source */
		/* bytes_skip -8: the 16-bit stride (count + skip) is 0 */
		struct mlx5dv_mr_interleaved il = {(uintptr_t)c.buf, 8, (uint32_t)-8, c.mr->lkey};
		struct mlx5dv_mkey_conf_attr ca = {};
		ibv_wr_start(c.qpx);
		c.qpx->wr_flags = kRegFlags;
		mlx5dv_wr_mkey_configure(c.dv, c.mkey, 1, &ca);
		mlx5dv_wr_set_mkey_layout_interleaved(c.dv, 512, 1, &il);
		c.qpx->wr_flags = IBV_SEND_SIGNALED;
		mlx5dv_wr_memcpy(c.dv, pr.server().mr->lkey, (uintptr_t)dst, c.mkey->lkey, 0, 4096);
		CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(c.qpx), 0);
		for (int i = 0; i < 2; i++) {
			CU_ASSERT_FATAL(poll1(c.cq, &wc));
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		}
		bool ok = true;
		for (size_t i = 0; i < 4096; i++)
			ok &= dst[i] == c.buf[i % 8];
		CU_ASSERT_TRUE(ok);
		pair_teardown(pr);
	}
}

void test_setup(void)
{
	struct mlx5_sim_device_attr attr;
	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = MLX5_SIM_EXEC_INLINE;
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim1", &attr), 0);
	attr.exec_mode = MLX5_SIM_EXEC_THREAD;
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim2", &attr), 0);
}

void test_remove(void)
{
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim1"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim2"), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"devices", test_setup},
		{"create_mkey checks", test_create_mkey_checks},
		{"test_mkey_list", test_mkey_list},
		{"test_mkey_interleaved", test_mkey_interleaved},
		{"test_mkey_list_new_api", test_mkey_list_new_api},
		{"test_mkey_interleaved_new_api", test_mkey_interleaved_new_api},
		{"test_mkey_list_bad_flow", test_mkey_list_bad_flow},
		{"test_mkey_remote_invalidate", test_mkey_remote_invalidate},
		{"invalidate and reuse", test_mkey_invalidate_reuse},
		{"configure with 0 and 1 setters", test_configure_setters},
		{"raw WQE after a UMR: fence or old layout", test_raw_wqe_after_umr},
		{"memcpy through mkeys", test_memcpy_through_mkeys},
		{"remove devices", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("sim_prov_mkey", tests);
}
