/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Translation through indirect mkeys on the device, from raw WQE bytes: KLM lists
 * and repeat blocks in MMO source and destination (entry boundaries, exact length,
 * one past, strides, stride 0 fills, nesting to the depth limit), SEND gather,
 * RECV scatter, RDMA local and remote sides, atomics, on-demand entries, the
 * model's limits, and bad accesses: error CQE and not one byte moved.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "cunit_run.h"
#include "umr_test_util.h"

using namespace hcatest;

namespace {

/* ---- UMR + MMO ---- */

/** The pyverbs layout: two 8-byte entries 64 bytes apart. */
void test_list_mmo_source(void)
{
	UmrEnv u;
	Buf s(128), d(64);
	fill(s.p(), 128, 1);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 128, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(3 + 1);
	u.umr_list(mk, 0, {{8, sk, s.p()}, {8, sk, s.p() + 64}});
	u.mmo(mk, 0, dk, a(d.p()), 16, kSig | kSmallFence);
	auto v = u.run_ok(2);
	CU_ASSERT_EQUAL(cqe_wqe_op(v[0]), MLX5_OPCODE_UMR);
	CU_ASSERT_EQUAL(cqe_bytes(v[0]), 0u);
	CU_ASSERT_EQUAL(cqe_wqe_op(v[1]), MLX5_OPCODE_MMO);
	CU_ASSERT_EQUAL(cqe_bytes(v[1]), 16u);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p(), 8), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 8, s.p() + 64, 8), 0);
	CU_ASSERT_TRUE(all_eq(d.p() + 16, 48, 0));
	CU_ASSERT_TRUE(d.guards_intact());
	/* across the entry boundary: 6 bytes from offset 5 */
	u.mmo(mk, 5, dk, a(d.p() + 32), 6);
	u.run_ok(1);
	CU_ASSERT_EQUAL(memcmp(d.p() + 32, s.p() + 5, 3), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 35, s.p() + 64, 3), 0);
	CU_ASSERT_EQUAL(d.p()[38], 0);
}

void test_list_mmo_destination(void)
{
	UmrEnv u;
	Buf s(16), d(128);
	fill(s.p(), 16, 9);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 16, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, kLW, {{8, dk, d.p() + 64}, {8, dk, d.p()}});
	u.mmo(sk, a(s.p()), mk, 0, 16, kSig | kSmallFence);
	u.run_ok(2);
	CU_ASSERT_EQUAL(memcmp(d.p() + 64, s.p(), 8), 0);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 8, 8), 0);
	CU_ASSERT_TRUE(all_eq(d.p() + 8, 56, 0));
	CU_ASSERT_TRUE(all_eq(d.p() + 72, 56, 0));
	CU_ASSERT_TRUE(d.guards_intact());
}

/** Exactly the mkey's length passes; one byte past fails and moves nothing. */
void test_length_edges(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 3);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, 0, {{8, sk, s.p()}, {8, sk, s.p() + 32}});
	u.mmo(mk, 8, dk, a(d.p()), 8, kSig | kSmallFence);
	u.run_ok(2);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 32, 8), 0);
	memset(d.p(), 0, 64);
	u.mmo(mk, 9, dk, a(d.p()), 8);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	CU_ASSERT_TRUE(d.guards_intact());
}

/** A layout shorter than the mkey's length: the bytes past the entries do not exist. */
void test_len_beyond_layout(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	Wqe w(u.q, MLX5_OPCODE_UMR, kSig, 0, htobe32(mk));
	w.umr_ctrl(0x80, 4, kLayoutMask).mkey_ctx(0, 0, 32).klm(8, sk, s.p()).pad64();
	w.post(u.q);
	u.mmo(mk, 0, dk, a(d.p()), 16, kSig | kSmallFence);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
}

void test_interleaved_mmo(void)
{
	UmrEnv u;
	Buf s(128), d(128), back(128);
	fill(s.p(), 128, 5);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 128, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t bk = reg(u.h(), u.e.pdn, back.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4), mk2 = u.mkey(4);
	/* pyverbs: {buf, 8, skip 2}, {buf + 64, 8, skip 2}, repeat 3 */
	u.umr_repeat(mk, 0, 3, {{10, 8, sk, s.p()}, {10, 8, sk, s.p() + 64}});
	u.mmo(mk, 0, dk, a(d.p()), 48, kSig | kSmallFence);
	u.run_ok(2);
	for (int r = 0; r < 3; r++) {
		CU_ASSERT_EQUAL(memcmp(d.p() + 16 * r, s.p() + 10 * r, 8), 0);
		CU_ASSERT_EQUAL(memcmp(d.p() + 16 * r + 8, s.p() + 64 + 10 * r, 8), 0);
	}
	CU_ASSERT_TRUE(all_eq(d.p() + 48, 80, 0));
	/* a middle slice: 13 bytes from offset 12 */
	memset(d.p(), 0, 128);
	u.mmo(mk, 12, dk, a(d.p()), 13);
	u.run_ok(1);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 64 + 4, 4), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 4, s.p() + 10, 8), 0);
	CU_ASSERT_EQUAL(d.p()[12], s.p()[64 + 10]);
	/* scatter through a repeat block: the skipped bytes stay untouched */
	u.umr_repeat(mk2, kLW, 3, {{10, 8, bk, back.p()}, {10, 8, bk, back.p() + 64}});
	u.mmo(sk, a(s.p()), mk2, 0, 48, kSig | kSmallFence);
	u.run_ok(2);
	for (int r = 0; r < 3; r++) {
		CU_ASSERT_EQUAL(memcmp(back.p() + 10 * r, s.p() + 16 * r, 8), 0);
		CU_ASSERT_EQUAL(memcmp(back.p() + 64 + 10 * r, s.p() + 16 * r + 8, 8), 0);
		CU_ASSERT_TRUE(all_eq(back.p() + 10 * r + 8, 2, 0));
	}
	CU_ASSERT_TRUE(all_eq(back.p() + 30, 34, 0));
	CU_ASSERT_TRUE(back.guards_intact());
	/* one past the end of the repetitions */
	u.mmo(mk, 1, dk, a(d.p()), 48);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
}

/** Stride 0 repeats the same bytes: a 64 KiB fill from an 8-byte pattern. */
void test_stride0_fill(void)
{
	UmrEnv u;
	const size_t n = 64 * 1024;
	Buf pat(8), d(n + 64);
	for (int i = 0; i < 8; i++)
		pat.p()[i] = (uint8_t)(0xa0 + i);
	uint32_t pk = reg(u.h(), u.e.pdn, pat.p(), 8, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), n + 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_repeat(mk, 0, (uint32_t)(n / 8) + 8, {{0, 8, pk, pat.p()}});
	u.mmo(mk, 0, dk, a(d.p()), (uint32_t)n, kSig | kSmallFence);
	/* a fill that starts inside the pattern and ends unaligned */
	u.mmo(mk, 3, dk, a(d.p() + n), 21);
	u.run_ok(3);
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		ok &= d.p()[i] == (uint8_t)(0xa0 + i % 8);
	CU_ASSERT_TRUE(ok);
	for (size_t i = 0; i < 21; i++)
		CU_ASSERT_EQUAL(d.p()[n + i], (uint8_t)(0xa0 + (i + 3) % 8));
	CU_ASSERT_TRUE(all_eq(d.p() + n + 21, 43, 0));
	CU_ASSERT_TRUE(d.guards_intact());
	/* a two-entry pattern of stride 0 (8 + 4 bytes) */
	Buf p2(16);
	fill(p2.p(), 16, 40);
	uint32_t p2k = reg(u.h(), u.e.pdn, p2.p(), 16, 0);
	uint32_t mk2 = u.mkey(4);
	u.umr_repeat(mk2, 0, 100, {{0, 8, p2k, p2.p()}, {0, 4, p2k, p2.p() + 12}});
	memset(d.p(), 0, n + 64);
	u.mmo(mk2, 5, dk, a(d.p()), 1000, kSig | kSmallFence);
	u.run_ok(2);
	ok = true;
	for (size_t i = 0; i < 1000; i++) {
		size_t k = (i + 5) % 12;
		ok &= d.p()[i] == (k < 8 ? p2.p()[k] : p2.p()[12 + k - 8]);
	}
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(d.p()[1000], 0);
}

/** Entries naming mkeys: nesting up to HCA_MKEY_DEPTH; a self-reference fails. */
void test_nested(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 11);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t m[HCA_MKEY_DEPTH + 1];
	for (auto &k : m)
		k = u.mkey(4);
	/* m[0] = s[32..40) + s[0..8); m[i] = its predecessor from offset 2 (14 bytes) */
	u.umr_list(m[0], 0, {{8, sk, s.p() + 32}, {8, sk, s.p()}});
	for (uint32_t i = 1; i <= HCA_MKEY_DEPTH; i++)
		u.umr_list(m[i], 0, {{(uint32_t)(16 - 2 * i), m[i - 1], (const void *)2}},
			   kSig | kSmallFence);
	u.run_ok(HCA_MKEY_DEPTH + 1);
	/* HCA_MKEY_DEPTH mkeys deep: m[3] -> m[2] -> m[1] -> m[0] -> MR */
	u.mmo(m[HCA_MKEY_DEPTH - 1], 0, dk, a(d.p()), 16 - 2 * (HCA_MKEY_DEPTH - 1),
	      kSig | kSmallFence);
	u.run_ok(1);
	uint8_t want[16];
	memcpy(want, s.p() + 32, 8);
	memcpy(want + 8, s.p(), 8);
	uint32_t skip = 2 * (HCA_MKEY_DEPTH - 1);
	CU_ASSERT_EQUAL(memcmp(d.p(), want + skip, 16 - skip), 0);
	/* one deeper fails */
	u.mmo(m[HCA_MKEY_DEPTH], 0, dk, a(d.p() + 32), 4);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(all_eq(d.p() + 32, 32, 0));
}

void test_self_reference(void)
{
	UmrEnv u;
	Buf d(64);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t mk = u.mkey(4);
	u.umr_list(mk, 0, {{8, mk, nullptr}});
	u.mmo(mk, 0, dk, a(d.p()), 8, kSig | kSmallFence);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(d.guards_intact());
}

/** Access through free, invalidated, write-less, foreign and stale mkeys. */
void test_access_errors(void)
{
	Buf s(64), d(64);
	fill(s.p(), 64, 2);
	{ /* never configured: free */
		UmrEnv u;
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.mmo(mk, 0, dk, a(d.p()), 8);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	}
	{ /* destination without LOCAL_WRITE on the mkey */
		UmrEnv u;
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.umr_list(mk, kRR, {{16, dk, d.p()}});
		u.mmo(sk, a(s.p()), mk, 0, 16, kSig | kSmallFence);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
	{ /* an entry whose MR lacks LOCAL_WRITE, under a LOCAL_WRITE mkey */
		UmrEnv u;
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dro = reg(u.h(), u.e.pdn, d.p(), 64, 0);
		uint32_t mk = u.mkey(4);
		u.umr_list(mk, kLW, {{16, dro, d.p()}});
		u.mmo(sk, a(s.p()), mk, 0, 16, kSig | kSmallFence);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
	{ /* an entry whose MR was deregistered: the second entry's bytes stay too */
		UmrEnv u;
		Buf s2(64);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t s2k = reg(u.h(), u.e.pdn, s2.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.umr_list(mk, 0, {{8, sk, s.p()}, {8, s2k, s2.p()}});
		u.run_ok(1);
		CU_ASSERT_EQUAL(u.h().dereg_mr(s2k), 0);
		u.mmo(mk, 0, dk, a(d.p()), 16);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
	{ /* an mkey of another PD, and an entry MR of another PD */
		UmrEnv u;
		uint32_t pd2;
		CU_ASSERT_EQUAL(u.h().alloc_pd(&pd2), 0);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t s2k = reg(u.h(), pd2, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.umr_list(mk, 0, {{8, sk, s.p()}, {8, s2k, s.p()}});
		u.mmo(mk, 0, dk, a(d.p()), 16, kSig | kSmallFence);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
	{ /* the mkey destroyed: its key is gone */
		UmrEnv u;
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.umr_list(mk, 0, {{8, sk, s.p()}});
		u.run_ok(1);
		CU_ASSERT_EQUAL(u.h().destroy_mkey(mk), 0);
		u.mmo(mk, 0, dk, a(d.p()), 8);
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
	}
}

/** LOCAL_INV frees the mkey (IBV_WC_LOCAL_INV comes from wr_data); a UMR reuses it. */
/* ---- translation in SEND / RECV / RDMA / atomics ---- */

/** SEND gathers through a KLM list, the receive scatters through a repeat block. */
void test_send_recv(void)
{
	UmrEnv u;
	Buf s(128), d(128);
	fill(s.p(), 128, 21);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 128, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t ms = u.mkey(4), md = u.mkey(4);
	u.umr_list(ms, 0, {{8, sk, s.p() + 64}, {16, sk, s.p()}});
	u.umr_repeat(md, kLW, 4, {{16, 6, dk, d.p()}}, kSig | kSmallFence);
	u.run_ok(2);
	u.q.post_recv(u.h(), {dseg(24, md, nullptr)});
	Wqe w(u.q, MLX5_OPCODE_SEND);
	w.data(24, ms, nullptr);
	w.post(u.q);
	auto v = u.run_ok(2); /* requester and responder CQEs on the shared CQ */
	uint8_t want[24];
	memcpy(want, s.p() + 64, 8);
	memcpy(want + 8, s.p(), 16);
	for (int r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(memcmp(d.p() + 16 * r, want + 6 * r, 6), 0);
		CU_ASSERT_TRUE(all_eq(d.p() + 16 * r + 6, 10, 0));
	}
	CU_ASSERT_TRUE(d.guards_intact());
	/* a receive longer than the mkey: the responder's error, REM_OP for the sender */
	u.q.post_recv(u.h(), {dseg(25, md, nullptr)});
	Wqe w2(u.q, MLX5_OPCODE_SEND);
	w2.data(8, sk, s.p());
	w2.post(u.q);
	v = u.run();
	bool req = false, resp = false;
	for (const auto &c : v) {
		if (cqe_opcode(c) == MLX5_CQE_REQ_ERR)
			req = cqe_syndrome(c) == MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
		if (cqe_opcode(c) == MLX5_CQE_RESP_ERR && !resp)
			resp = cqe_syndrome(c) == MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	}
	CU_ASSERT_TRUE(req);
	CU_ASSERT_TRUE(resp);
}

/** RDMA write and read with an mkey as rkey (and as the local side). */
void test_rdma_rkey(void)
{
	UmrEnv u;
	Buf s(64), d(128);
	fill(s.p(), 64, 33);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 128, kAllAccess);
	uint32_t mk = u.mkey(4), ml = u.mkey(4);
	u.umr_list(mk, kLW | kRR | kRW, {{8, dk, d.p() + 100}, {32, dk, d.p()}});
	u.umr_list(ml, 0, {{4, sk, s.p() + 60}, {20, sk, s.p()}}, kSig | kSmallFence);
	u.run_ok(2);
	/* write 20 bytes at mkey offset 4: 4 bytes at d+104, 16 at d+0 */
	Wqe w(u.q, MLX5_OPCODE_RDMA_WRITE, kSig | kSmallFence);
	w.raddr((const void *)4, mk).data(20, sk, s.p());
	w.post(u.q);
	u.run_ok(1);
	CU_ASSERT_EQUAL(memcmp(d.p() + 104, s.p(), 4), 0);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 4, 16), 0);
	CU_ASSERT_TRUE(all_eq(d.p() + 16, 84, 0));
	/* write from a local mkey */
	Wqe w2(u.q, MLX5_OPCODE_RDMA_WRITE);
	w2.raddr(d.p() + 40, dk).data(24, ml, nullptr);
	w2.post(u.q);
	u.run_ok(1);
	CU_ASSERT_EQUAL(memcmp(d.p() + 40, s.p() + 60, 4), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 44, s.p(), 20), 0);
	/* read the mkey's 40 bytes back */
	Buf back(64);
	uint32_t bk = reg(u.h(), u.e.pdn, back.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	Wqe r(u.q, MLX5_OPCODE_RDMA_READ);
	r.raddr(nullptr, mk).data(40, bk, back.p());
	r.post(u.q);
	u.run_ok(1);
	CU_ASSERT_EQUAL(memcmp(back.p(), d.p() + 100, 8), 0);
	CU_ASSERT_EQUAL(memcmp(back.p() + 8, d.p(), 32), 0);
}

/** Remote use needs the remote right on the mkey; bounds as for local use. */
void test_rkey_errors(void)
{
	for (int which = 0; which < 4; which++) {
		UmrEnv u;
		Buf s(64), d(64);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, kAllAccess);
		uint32_t mk = u.mkey(4);
		uint8_t access = which == 0 ? (uint8_t)(kLW | kRR) : which == 1 ? kLW | kRW : 0;
		u.umr_list(mk, which == 3 ? (uint8_t)(kLW | kRW) : access, {{16, dk, d.p()}});
		if (which == 1) { /* a read without REMOTE_READ */
			Wqe r(u.q, MLX5_OPCODE_RDMA_READ, kSig | kSmallFence);
			r.raddr(nullptr, mk).data(8, dk, d.p() + 32);
			r.post(u.q);
		} else {
			Wqe w(u.q, MLX5_OPCODE_RDMA_WRITE, kSig | kSmallFence);
			/* 0: no REMOTE_WRITE; 2: no rights at all; 3: one byte past the end */
			w.raddr((const void *)(uintptr_t)(which == 3 ? 9 : 0), mk)
				.data(8, sk, s.p());
			w.post(u.q);
		}
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
		CU_ASSERT_EQUAL(qp_state(u.h(), u.q.qpn), IBV_QPS_ERR);
	}
}

/** SEND_INVAL frees an en_rinval mkey of the responder, after its data; others stay. */
void test_send_inval(void)
{
	UmrEnv u;
	Buf s(64), d(64);
	fill(s.p(), 64, 44);
	uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t plain = u.mkey(4), rinval = u.mkey(4, HCA_MKEY_REMOTE_INVALIDATE);
	u.umr_list(plain, kLW, {{16, dk, d.p()}});
	u.umr_list(rinval, kLW, {{16, dk, d.p() + 32}}, kSig | kSmallFence);
	u.run_ok(2);
	for (uint32_t key : {plain, rinval}) {
		u.q.post_recv(u.h(), {dseg(16, key, nullptr)});
		Wqe w(u.q, MLX5_OPCODE_SEND_INVAL, kSig, 0, htobe32(key));
		w.data(16, sk, s.p());
		w.post(u.q);
		auto v = u.run_ok(2);
		for (const auto &c : v)
			if (cqe_opcode(c) == MLX5_CQE_RESP_SEND_INV)
				CU_ASSERT_EQUAL(be32toh(c.imm_inval_pkey), key);
	}
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p(), 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 32, s.p(), 16), 0);
	/* the plain mkey still works, the invalidated one does not */
	memset(d.p(), 0, 64);
	u.mmo(sk, a(s.p()), plain, 0, 16);
	u.run_ok(1);
	u.mmo(sk, a(s.p()), rinval, 0, 16);
	expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(all_eq(d.p() + 32, 16, 0));
}

/** An atomic through an mkey needs its 8 bytes in one entry. */
void test_atomic_rkey(void)
{
	for (int split = 0; split < 2; split++) {
		UmrEnv u;
		Buf t(64), res(64);
		uint64_t init = 1000;
		memcpy(t.p() + 8, &init, 8);
		uint32_t tk = reg(u.h(), u.e.pdn, t.p(), 64, kAllAccess);
		uint32_t rk = reg(u.h(), u.e.pdn, res.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		const uint8_t rights = kLW | MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC;
		if (split)
			u.umr_list(mk, rights, {{4, tk, t.p() + 8}, {4, tk, t.p() + 12}});
		else
			u.umr_list(mk, rights, {{8, tk, t.p() + 8}});
		Wqe fa(u.q, MLX5_OPCODE_ATOMIC_FA, kSig | kSmallFence);
		fa.raddr(nullptr, mk).atomic(23, 0).data(8, rk, res.p());
		fa.post(u.q);
		auto v = u.run();
		uint64_t now;
		memcpy(&now, t.p() + 8, 8);
		if (split) {
			expect_last_err(v, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			CU_ASSERT_EQUAL(now, init);
		} else {
			CU_ASSERT_EQUAL(v.size(), 2u);
			CU_ASSERT_EQUAL(now, init + 23);
		}
	}
}

/** Entries naming an on-demand MR: copied through the kernel; a gone page faults. */
void test_odp_entries(void)
{
	UmrEnv u;
	uint32_t odp;
	CU_ASSERT_EQUAL_FATAL(u.h().reg_mr(u.e.pdn, 0, UINT64_MAX,
					   IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &odp),
			      0);
	Buf s(64), d(4096);
	fill(s.p(), 64, 55);
	uint32_t mk = u.mkey(4), mf = u.mkey(4);
	u.umr_list(mk, kLW, {{8, odp, s.p() + 8}, {8, odp, s.p() + 40}});
	u.umr_repeat(mf, 0, 500, {{0, 8, odp, s.p()}}, kSig | kSmallFence);
	u.mmo(mk, 0, odp, a(d.p()), 16, kSig | kSmallFence);
	u.mmo(mf, 0, odp, a(d.p() + 64), 4000, kSig | kSmallFence);
	u.run_ok(4);
	CU_ASSERT_EQUAL(memcmp(d.p(), s.p() + 8, 8), 0);
	CU_ASSERT_EQUAL(memcmp(d.p() + 8, s.p() + 40, 8), 0);
	bool ok = true;
	for (int i = 0; i < 4000; i++)
		ok &= d.p()[64 + i] == s.p()[i % 8];
	CU_ASSERT_TRUE(ok);
	/* an entry on a page that is gone: ODP fault, nothing moved */
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *gone = static_cast<uint8_t *>(
		mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_FATAL(gone != MAP_FAILED);
	munmap(gone, pg);
	uint32_t mg = u.mkey(4);
	u.umr_list(mg, 0, {{8, odp, s.p()}, {8, odp, gone}});
	memset(d.p(), 0, 4096);
	u.mmo(mg, 0, odp, a(d.p()), 16, kSig | kSmallFence);
	auto v = u.run();
	expect_last_err(v, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_EQUAL(cqe_vendor(v.back()), MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT);
	CU_ASSERT_TRUE(all_eq(d.p(), 64, 0));
}

/** Model limits: 64 pieces per side, 4 repeat blocks per WQE (ASSUMPTIONS 52). */
void test_model_limits(void)
{
	{ /* 52 KLMs naming a 2-piece mkey: 104 pieces */
		UmrEnv u;
		Buf s(64), d(4096);
		fill(s.p(), 64, 66);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 4096, IBV_ACCESS_LOCAL_WRITE);
		uint32_t inner = u.mkey(4), outer = u.mkey(52);
		u.umr_list(inner, 0, {{4, sk, s.p()}, {4, sk, s.p() + 32}});
		std::vector<Klm> many(52, Klm{8, inner, nullptr});
		u.umr_list(outer, 0, many, kSig | kSmallFence);
		u.run_ok(2);
		u.mmo(outer, 0, dk, a(d.p()), 8 * 32, kSig | kSmallFence); /* 64 pieces: fine */
		u.run_ok(1);
		for (int i = 0; i < 32; i++) {
			CU_ASSERT_EQUAL(memcmp(d.p() + 8 * i, s.p(), 4), 0);
			CU_ASSERT_EQUAL(memcmp(d.p() + 8 * i + 4, s.p() + 32, 4), 0);
		}
		u.mmo(outer, 0, dk, a(d.p() + 1024), 8 * 32 + 1); /* 65 pieces */
		expect_last_err(u.run(), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_TRUE(all_eq(d.p() + 1024, 1024, 0));
	}
	{ /* a SEND gathering through 4 repeat blocks, then 5 */
		UmrEnv u;
		Buf s(64), d(256);
		fill(s.p(), 64, 77);
		uint32_t sk = reg(u.h(), u.e.pdn, s.p(), 64, 0);
		uint32_t dk = reg(u.h(), u.e.pdn, d.p(), 256, IBV_ACCESS_LOCAL_WRITE);
		uint32_t mk = u.mkey(4);
		u.umr_repeat(mk, 0, 8, {{0, 4, sk, s.p()}});
		u.run_ok(1);
		for (int n = 4; n <= 5; n++) {
			u.q.post_recv(u.h(), {dseg(256, dk, d.p())});
			Wqe w(u.q, MLX5_OPCODE_SEND, kSig | kSmallFence);
			for (int i = 0; i < n; i++)
				w.data(8, mk, nullptr);
			w.post(u.q);
			auto v = u.run();
			if (n == 4) {
				CU_ASSERT_EQUAL(v.size(), 2u);
				for (int i = 0; i < 8 * n; i++)
					CU_ASSERT_EQUAL(d.p()[i], s.p()[i % 4]);
			} else { /* then the flush of the unconsumed receive WQE */
				CU_ASSERT_FATAL(!v.empty());
				CU_ASSERT_EQUAL(cqe_opcode(v[0]), MLX5_CQE_REQ_ERR);
				CU_ASSERT_EQUAL(cqe_syndrome(v[0]),
						MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
			}
		}
	}
}
} // namespace

int main(void)
{
	static const struct cunit_test mmo[] = {
		{"KLM list as MMO source", test_list_mmo_source},
		{"KLM list as MMO destination", test_list_mmo_destination},
		{"exact length passes, one past fails", test_length_edges},
		{"length beyond the layout", test_len_beyond_layout},
		{"repeat block as MMO source and destination", test_interleaved_mmo},
		{"stride 0: fill from a small pattern", test_stride0_fill},
		{"nested mkeys up to the depth limit", test_nested},
		{"self-referencing mkey", test_self_reference},
		{"access errors move nothing", test_access_errors},
	};
	static const struct cunit_test rc[] = {
		{"SEND gather and RECV scatter", test_send_recv},
		{"RDMA write/read with an mkey rkey", test_rdma_rkey},
		{"rkey rights and bounds", test_rkey_errors},
		{"SEND_INVAL frees en_rinval mkeys only", test_send_inval},
		{"atomics through an mkey", test_atomic_rkey},
		{"entries on on-demand MRs", test_odp_entries},
		{"model limits: pieces and repeat blocks", test_model_limits},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("translation in MMO", mmo),
		CUNIT_SUITE("translation in SEND/RECV/RDMA", rc),
	};

	return CUNIT_RUN_SUITES(suites);
}
