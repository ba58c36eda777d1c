/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Indirect mkeys on the device, from raw WQE bytes: create/destroy commands, UMR
 * WQEs (KLM lists, repeat blocks, mkey_mask, LOCAL_INV), translation in MMO
 * source and destination (entry boundaries, exact length, one past, nesting,
 * repeat blocks with strides and stride 0), bad UMRs and bad accesses (error CQE,
 * mkey unchanged, not one byte moved), and the ordering rule: a UMR takes effect
 * when it executes, so only a fenced WQE is sure to see it.
 */
#include <errno.h>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

constexpr uint8_t kLW = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
constexpr uint8_t kRR = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ;
constexpr uint8_t kRW = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
constexpr uint64_t kAccessMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
/** What libmlx5's mr_list / mr_interleaved / configure(access + layout) set. */
constexpr uint64_t kLayoutMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | kAccessMask;
constexpr uint8_t kSmallFence = 0x20;
constexpr uint8_t kSig = MLX5_WQE_CTRL_CQ_UPDATE;

struct Klm {
	uint32_t bc;
	uint32_t key;
	const void *addr;
};

struct Rep {
	uint16_t stride;
	uint16_t bc;
	uint32_t key;
	const void *addr;
};

/** A device, a CQ, one RC QP connected to itself, the MMO opaque buffer. */
struct UmrEnv {
	Env e;
	TestCq cq;
	TestQp q;
	Buf opaque;
	uint32_t okey;
	explicit UmrEnv(ExecMode mode = ExecMode::Inline, const HcaCaps &caps = HcaCaps())
		: e(mode, caps), cq(e.h(), 256), q(e.h(), e.pdn, cq.cqn, cq.cqn, 64), opaque(64)
	{
		okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
	}
	Hca &h() { return e.h(); }
	uint32_t mkey(uint32_t num_desc = 4, uint32_t flags = 0, uint32_t pdn = 0)
	{
		uint32_t k = 0;
		CU_ASSERT_EQUAL(h().create_mkey(pdn ? pdn : e.pdn, num_desc, flags, &k), 0);
		return k;
	}
	/** mr_list: one KLM per entry, padded to 64 bytes. */
	void umr_list(uint32_t key, uint8_t access, const std::vector<Klm> &ents,
		      uint8_t fm_ce_se = kSig, uint64_t mask = kLayoutMask, uint8_t flags = 0x80)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		uint32_t oct = (uint32_t)((ents.size() + 3) & ~3u);
		uint64_t len = 0;
		for (const Klm &k : ents)
			len += k.bc;
		w.umr_ctrl(flags, (uint16_t)oct, mask).mkey_ctx(0, access, len);
		for (const Klm &k : ents)
			w.klm(k.bc, k.key, k.addr);
		w.pad64();
		w.post(q);
	}
	/** mr_interleaved: repeat-block header, entries, padding. */
	void umr_repeat(uint32_t key, uint8_t access, uint32_t repeat, const std::vector<Rep> &ents,
			uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		uint32_t oct = (uint32_t)((ents.size() + 1 + 3) & ~3u);
		uint32_t per = 0;
		for (const Rep &r : ents)
			per += r.bc;
		w.umr_ctrl(0x80, (uint16_t)oct, kLayoutMask)
			.mkey_ctx(0, access, (uint64_t)per * repeat)
			.repeat_hdr(per, repeat, (uint16_t)ents.size());
		for (const Rep &r : ents)
			w.repeat_ent(r.stride, r.bc, r.key, r.addr);
		w.pad64();
		w.post(q);
	}
	/** LOCAL_INV as libmlx5 builds it (free, klm_octowords 0). */
	void local_inv(uint32_t key, uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_UMR, fm_ce_se, 0, htobe32(key));
		w.umr_ctrl(0x98, 0,
			   MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				   MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN)
			.mkey_ctx(MLX5_WQE_MKEY_CONTEXT_FREE, 0, 0);
		w.post(q);
	}
	void mmo(uint32_t skey, uint64_t src, uint32_t dkey, uint64_t dst, uint32_t bc,
		 uint8_t fm_ce_se = kSig)
	{
		Wqe w(q, MLX5_OPCODE_MMO, fm_ce_se, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opaque.p())
			.data(bc, skey, reinterpret_cast<const void *>(src))
			.data(bc, dkey, reinterpret_cast<const void *>(dst));
		w.post(q);
	}
	/** Ring and collect every CQE. */
	std::vector<struct mlx5_cqe64> run()
	{
		q.ring(h());
		h().quiesce();
		std::vector<struct mlx5_cqe64> v;
		cq.drain(&v);
		return v;
	}
	/** Ring; expect @p n CQEs, all successful; returns them. */
	std::vector<struct mlx5_cqe64> run_ok(size_t n)
	{
		std::vector<struct mlx5_cqe64> v = run();
		CU_ASSERT_EQUAL(v.size(), n);
		for (const auto &c : v)
			CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
		return v;
	}
};

uint64_t a(const void *p)
{
	return (uintptr_t)p;
}

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/** The last CQE is an error with @p synd; the ones before succeeded. */
void expect_last_err(const std::vector<struct mlx5_cqe64> &v, uint8_t synd)
{
	CU_ASSERT_FATAL(!v.empty());
	for (size_t i = 0; i + 1 < v.size(); i++)
		CU_ASSERT_EQUAL(cqe_opcode(v[i]), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_opcode(v.back()), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(v.back()), synd);
}

bool all_eq(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

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
		MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
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
	static const struct cunit_test umr[] = {
		{"LOCAL_INV and reuse", test_local_inv_reuse},
		{"mkey_mask: only masked fields change", test_mask_semantics},
		{"bad UMRs: error CQE, mkey unchanged", test_bad_umr},
		{"ordering: fence after UMR (inline)", test_ordering_inline},
		{"ordering: fence after UMR (thread, reorder)", test_ordering_thread_reorder},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("mkey commands", cmds),
		CUNIT_SUITE("translation in MMO", mmo),
		CUNIT_SUITE("UMR WQEs", umr),
	};

	return CUNIT_RUN_SUITES(suites);
}
