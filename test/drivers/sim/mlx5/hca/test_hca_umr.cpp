/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Indirect mkeys on the device, from raw WQE bytes: the create/destroy commands
 * and UMR WQEs (mkey_mask semantics, LOCAL_INV and reuse, bad UMRs: error CQE and
 * the mkey unchanged), and the ordering rule: a UMR takes effect when it
 * executes, so only a fenced WQE is sure to see it; WQEs planned before it keep
 * their layout. Translation itself: test_hca_mkey_xlat.cpp.
 */
#include <errno.h>

#include "cunit_run.h"
#include "umr_test_util.h"

using namespace hcatest;

namespace {

/* ---- commands ---- */

void test_create_destroy(void)
{
	UmrEnv u;
	Buf b(64);
	uint32_t mr = reg(u.h(), u.e.pdn, b.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t k1 = u.mkey(4), k2 = u.mkey(8, HCA_MKEY_REMOTE_INVALIDATE);
	/* one key space: MR keys carry a variant, mkeys tag 0; index 4 is never an mkey */
	CU_ASSERT_EQUAL(k1 & 0xff, 0u);
	CU_ASSERT_EQUAL(k2 & 0xff, 0u);
	CU_ASSERT_NOT_EQUAL(k1 >> 8, mr >> 8);
	CU_ASSERT_NOT_EQUAL(k1 >> 8, (uint32_t)HCA_MKEY_RESERVED_IDX);
	CU_ASSERT_NOT_EQUAL(k2 >> 8, (uint32_t)HCA_MKEY_RESERVED_IDX);
	uint32_t k = 0;
	CU_ASSERT_EQUAL(u.h().create_mkey(u.e.pdn, 65537, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(u.h().create_mkey(u.e.pdn, 4, 0x80, &k), -EINVAL);
	CU_ASSERT_EQUAL(u.h().create_mkey(999, 4, 0, &k), -EINVAL);
	CU_ASSERT_EQUAL(u.h().create_mkey(u.e.pdn, 4, 0, nullptr), -EINVAL);
	/* MR and mkey commands do not mix */
	CU_ASSERT_EQUAL(u.h().dereg_mr(k1), -EINVAL);
	CU_ASSERT_EQUAL(u.h().destroy_mkey(mr), -EINVAL);
	/* the PD is busy while an mkey uses it */
	uint32_t pd2;
	CU_ASSERT_EQUAL(u.h().alloc_pd(&pd2), 0);
	uint32_t k3 = u.mkey(4, 0, pd2);
	CU_ASSERT_EQUAL(u.h().dealloc_pd(pd2), -EBUSY);
	CU_ASSERT_EQUAL(u.h().destroy_mkey(k3), 0);
	CU_ASSERT_EQUAL(u.h().destroy_mkey(k3), -EINVAL);
	CU_ASSERT_EQUAL(u.h().dealloc_pd(pd2), 0);
	/* a freed index is reused; MR keys at it never repeat an old MR key */
	CU_ASSERT_EQUAL(u.h().destroy_mkey(k1), 0);
	CU_ASSERT_EQUAL(u.h().dereg_mr(mr), 0);
	uint32_t mr2 = reg(u.h(), u.e.pdn, b.p(), 64, 0);
	CU_ASSERT_NOT_EQUAL(mr2, mr);
	CU_ASSERT_EQUAL(u.h().destroy_mkey(k2), 0);
	/* max_mr counts mkeys too */
	HcaCaps caps;
	caps.max_mr = 2;
	UmrEnv small(ExecMode::Inline, caps); /* the opaque MR is one */
	CU_ASSERT_EQUAL(small.h().create_mkey(small.e.pdn, 4, 0, &k), 0);
	CU_ASSERT_EQUAL(small.h().create_mkey(small.e.pdn, 4, 0, &k), -ENOMEM);
}

void test_local_inv_reuse(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 4);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, 0, {{8, sk, s.p()}});
	u.local_inv(mk, kSig | kSmallFence);
	auto v = u.run_ok(2);
	CU_ASSERT_EQUAL(cqe_wqe_op(v[1]), MLX5_OPCODE_UMR);
	u.mmo(mk, 0, dk, a(d.p()), 8);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));

	UmrEnv w;
	sk = reg(w.h(), w.e.pdn, s.p(), 64, 0);
	dk = reg(w.h(), w.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	mk = w.mkey(4);
	w.umr_list(mk, 0, {{8, sk, s.p()}});
	w.local_inv(mk, kSig | kSmallFence);
	w.umr_list(mk, 0, {{8, sk, s.p() + 8}}, kSig | kSmallFence);
	w.mmo(mk, 0, dk, a(d.p()), 8, kSig | kSmallFence);
	w.run_ok(4);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 8, 8), 0);
}

/** Only masked fields change: a layout-only UMR keeps the rights, access-only the layout. */
void test_mask_semantics(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 6);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, kLW, {{16, dk, d.p()}});
	/* a new layout without access bits (and a context byte that says "no rights") */
	const uint64_t layout_only = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN;
	u.umr_list(mk, 0, {{16, dk, d.p() + 32}}, kSig | kSmallFence, layout_only);
	u.mmo(sk, a(s.p()), mk, 0, 16, kSig | kSmallFence);
	u.run_ok(3);
	CU_ASSERT_EQUAL(memcmp(d.p() + 32, s.p(), 16), 0);
	CU_ASSERT_TRUE(all_eq(d.p(), 16, 0));
	/* access only (no layout, no length): LOCAL_WRITE goes, the layout stays */
	Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
	w.umr_ctrl(0x80, 0, kAccessMask).mkey_ctx(0x40 /* ignored: FREE not masked */, kRR, 999);
	w.post(u.q);
	u.mmo(mk, 0, dk, a(d.p()), 16, kSig | kSmallFence); /* reading: still fine */
	u.mmo(sk, a(s.p() + 16), mk, 0, 16, kSig);          /* writing: no right now */
	auto v = u.run();
	CU_ASSERT_EQUAL(v.size(), 3u);
	expect_last_err(v, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p(), 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 32, s.p(), 16), 0);
}

/** One bad UMR in a fresh environment; returns its CQE list. */
std::vector<struct mlx5_cqe64> bad_umr(int which, uint32_t *mk_out, UmrEnv &u, Buf &s)
{
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t mk = u.mkey(4);
	*mk_out = mk;
	uint32_t pd2;
	CU_ASSERT_EQUAL(u.h().alloc_pd(&pd2), 0);
	switch (which) {
	case 0: /* the target is a plain MR */
		u.umr_list(sk, 0, {{8, sk, s.p()}});
		break;
	case 1: { /* an mkey of another PD */
		uint32_t other = u.mkey(4, 0, pd2);
		u.umr_list(other, 0, {{8, sk, s.p()}});
		break;
	}
	case 2: /* more translations than num_desc (8 KLMs into 4) */
		u.umr_list(mk, 0,
			   {{8, sk, s.p()},
			    {8, sk, s.p()},
			    {8, sk, s.p()},
			    {8, sk, s.p()},
			    {8, sk, s.p()}});
		break;
	case 3: /* interleaved with num_desc entries: header + 4 > 4 octowords */
		u.umr_repeat(mk, 0, 1,
			     {{8, 8, sk, s.p()},
			      {8, 8, sk, s.p()},
			      {8, 8, sk, s.p()},
			      {8, 8, sk, s.p()}});
		break;
	case 4: /* a wrong tag */
		u.umr_list(mk | 0x5, 0, {{8, sk, s.p()}});
		break;
	case 5: /* a mask bit the device does not know (BSF enable: no signature engine) */
		u.umr_list(mk, 0, {{8, sk, s.p()}}, kSig,
			   kLayoutMask | MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
		break;
	case 6: /* translations without INLINE (pointer mode) */
		u.umr_list(mk, 0, {{8, sk, s.p()}}, kSig, kLayoutMask, 0);
		break;
	case 7: { /* a repeat header whose byte_count is not the sum of its entries */
		Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
		w.umr_ctrl(0x80, 4, kLayoutMask).mkey_ctx(0, 0, 16).repeat_hdr(12, 2, 1);
		w.repeat_ent(8, 8, sk, s.p()).pad64();
		w.post(u.q);
		break;
	}
	case 8: { /* klm_octowords beyond the WQE */
		Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
		w.umr_ctrl(0x80, 8, kLayoutMask).mkey_ctx(0, 0, 8).klm(8, sk, s.p()).pad64();
		w.post(u.q);
		break;
	}
	case 9: { /* ds below ctrl + UMR ctrl + mkey context */
		Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
		w.umr_ctrl(0x80, 0, kLayoutMask);
		w.post(u.q);
		break;
	}
	case 10: /* a destroyed mkey */
		CU_ASSERT_EQUAL(u.h().destroy_mkey(mk), 0);
		u.umr_list(mk, 0, {{8, sk, s.p()}});
		break;
	case 11: { /* a translation offset (partial update): not modelled */
		Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
		w.umr_ctrl(0x80 | 0x10, 4, kLayoutMask).mkey_ctx(0, 0, 8).klm(8, sk, s.p()).pad64();
		mlx5_hw_st_be16(w.b + 16 + 6, 1);
		w.post(u.q);
		break;
	}
	case 12: { /* a repeat header without entries */
		Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
		w.umr_ctrl(0x80, 4, kLayoutMask).mkey_ctx(0, 0, 0).repeat_hdr(0, 1, 0).pad64();
		w.post(u.q);
		break;
	}
	}
	return u.run();
}

void test_bad_umr(void)
{
	const uint8_t want[] = {
		MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,  MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,  MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,  MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,  MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
	};
	for (int i = 0; i < (int)(sizeof(want) / sizeof(want[0])); i++) {
		UmrEnv u;
		Buf s(64), d(64);
		uint32_t mk;
		auto v = bad_umr(i, &mk, u, s);
		CU_ASSERT_EQUAL(v.size(), 1u);
		expect_last_err(v, want[i]);
		if (v.size() == 1 && cqe_syndrome(v[0]) != want[i])
			fprintf(stderr, "bad UMR case %d: syndrome 0x%x\n", i, cqe_syndrome(v[0]));
		CU_ASSERT_EQUAL(qp_state(u.h(), u.q.qpn), IBV_QPS_ERR);
		if (i == 10)
			continue;
		/* the mkey is unchanged: still free, on a fresh QP too */
		TestQp q2(u.h(), u.e.pdn, u.cq.cqn, u.cq.cqn, 16);
		CU_ASSERT_EQUAL(connect_qp(u.h(), q2.qpn, q2.qpn, 0), 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		Wqe w(q2, MLX5_OPCODE_MMO, kSig, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(u.okey, u.opaque.p()).data(8, mk, nullptr).data(8, dk, d.p());
		w.post(q2);
		q2.ring(u.h());
		std::vector<struct mlx5_cqe64> c;
		u.cq.drain(&c);
		expect_last_err(c, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
}

/** CHECK_FREE: the UMR applies only to a free mkey (LOC_PROT otherwise, unchanged). */
void test_check_free(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 12);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	const uint8_t check_free = 0x80 | MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
	u.umr_list(mk, 0, {{8, sk, s.p()}}, kSig, kLayoutMask, check_free); /* free: fine */
	u.mmo(mk, 0, dk, a(d.p()), 8, kSig | kSmallFence);
	u.run_ok(2);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p(), 8), 0);
	u.umr_list(mk, 0, {{8, sk, s.p() + 8}}, kSig | kSmallFence, kLayoutMask, check_free);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	/* unchanged: a fresh QP still reads the first layout */
	TestQp q2(u.h(), u.e.pdn, u.cq.cqn, u.cq.cqn, 16);
	CU_ASSERT_EQUAL(connect_qp(u.h(), q2.qpn, q2.qpn, 0), 0);
	Wqe w(q2, MLX5_OPCODE_MMO, kSig, MLX5_HW_OPC_MOD_MMO_DMA);
	w.meta(u.okey, u.opaque.p()).data(8, mk, nullptr).data(8, dk, d.p() + 16);
	w.post(q2);
	q2.ring(u.h());
	std::vector<struct mlx5_cqe64> c;
	u.cq.drain(&c);
	CU_ASSERT_EQUAL(c.size(), 1u);
	CU_ASSERT_EQUAL(memcmp(d.p() + 16, s.p(), 8), 0);
}

/**
 * Ordering: a WQE planned in the UMR's group (no fence) sees the mkey as it was;
 * the small fence libmlx5 puts after every UMR makes the next WQE see the new one.
 */
void ordering(ExecMode mode, bool reorder)
{
	HcaCaps caps;
	caps.reorder_unfenced = reorder;
	for (int fenced = 0; fenced < 2; fenced++) {
		UmrEnv u(mode, caps);
		Buf s(64), d(64);
		fill(s.p(), 64, 8);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		/* an old layout in force, then a new one and a copy right behind it */
		u.umr_list(mk, 0, {{8, sk, s.p()}});
		u.run_ok(1);
		u.umr_list(mk, 0, {{8, sk, s.p() + 32}}, kSig | kSmallFence);
		u.mmo(mk, 0, dk, a(d.p()), 8, fenced ? kSig | kSmallFence : kSig);
		u.run_ok(2);
		CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + (fenced ? 32 : 0), 8), 0);
		/* a free mkey configured and used without a fence: the copy fails */
		uint32_t mk2 = u.mkey(4);
		u.umr_list(mk2, 0, {{8, sk, s.p()}}, kSig | kSmallFence);
		u.mmo(mk2, 0, dk, a(d.p() + 16), 8, fenced ? kSig | kSmallFence : kSig);
		auto v = u.run();
		CU_ASSERT_EQUAL(v.size(), 2u);
		if (fenced) {
			CU_ASSERT_EQUAL(cqe_opcode(v.back()), MLX5_CQE_REQ);
			CU_ASSERT_EQUAL(memcmp(d.p() + 16, s.p(), 8), 0);
		} else {
			expect_last_err(v, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
			CU_ASSERT_TRUE(all_eq(d.p() + 16, 8, 0));
		}
	}
}

/**
 * WQEs in flight when a UMR changes their mkey (same group, before it): they
 * keep the layout they were planned with, even when the engine moves their
 * data after the UMR executed (reorder_unfenced runs the group backwards).
 */
void in_flight(ExecMode mode, bool reorder)
{
	HcaCaps caps;
	caps.reorder_unfenced = reorder;
	UmrEnv u(mode, caps);
	Buf s(64), d(64);
	fill(s.p(), 64, 17);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, 0, {{8, sk, s.p()}});
	u.run_ok(1);
	u.mmo(mk, 0, dk, a(d.p()), 8, kSig | kSmallFence);
	u.umr_list(mk, 0, {{8, sk, s.p() + 24}});
	u.mmo(mk, 0, dk, a(d.p() + 8), 8);
	u.local_inv(mk);
	u.mmo(mk, 0, dk, a(d.p() + 16), 8);
	u.run_ok(5);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(memcmp(d.p() + 8 * i, s.p(), 8), 0);
	/*
	 * A fenced WQE sees the mkey the group left. In order, that is the
	 * invalidation; reordered, the two unfenced UMRs ran backwards, so the
	 * new layout is in force (libmlx5 never posts that: it fences every WR
	 * after a UMR, so a UMR always ends its group).
	 */
	u.mmo(mk, 0, dk, a(d.p() + 24), 8, kSig | kSmallFence);
	if (!reorder) {
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	} else {
		u.run_ok(1);
		CU_ASSERT_EQUAL(memcmp(d.p() + 24, s.p() + 24, 8), 0);
	}
}

void test_in_flight_inline(void)
{
	in_flight(ExecMode::Inline, false);
}

void test_in_flight_thread_reorder(void)
{
	in_flight(ExecMode::Thread, true);
}

void test_ordering_inline(void)
{
	ordering(ExecMode::Inline, false);
}

void test_ordering_thread_reorder(void)
{
	ordering(ExecMode::Thread, true);
}
} // namespace

int main(void)
{
	static const struct cunit_test cmds[] = {
		{"create/destroy mkey commands", test_create_destroy},
	};
	static const struct cunit_test umr[] = {
		{"LOCAL_INV and reuse", test_local_inv_reuse},
		{"mkey_mask: only masked fields change", test_mask_semantics},
		{"bad UMRs: error CQE, mkey unchanged", test_bad_umr},
		{"CHECK_FREE", test_check_free},
		{"ordering: fence after UMR (inline)", test_ordering_inline},
		{"ordering: fence after UMR (thread, reorder)", test_ordering_thread_reorder},
		{"in-flight WQEs keep their layout (inline)", test_in_flight_inline},
		{"in-flight WQEs keep their layout (thread, reorder)",
		 test_in_flight_thread_reorder},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("mkey commands", cmds),
		CUNIT_SUITE("UMR WQEs", umr),
	};

	return CUNIT_RUN_SUITES(suites);
}
