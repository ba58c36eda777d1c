/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The MMO fast path (wqe_fast.cpp) against the general planner: one pseudo-random
 * stream of memcpy MMO WQEs - valid ones and every kind of invalid one (keys,
 * PD, access, bounds, lengths, ds, index, QPN, opmod, opcode, ODP, FailWqe,
 * stale keys after dereg/reg, indirect mkeys the fast path must leave to the
 * general planner) - runs on two fresh devices over the same memory,
 * once with the fast path and once without (SqEngine::fast_mmo_). Memory, every
 * CQE byte, QP states and statistics must be identical, and the fast path must
 * actually have planned WQEs, so the two paths cannot drift apart unnoticed.
 * What the fast path remembers on a QP from one doorbell to the next holds only
 * while the MR table is unchanged: dereg, rereg and bounds between and inside bursts.
 */
#include <unistd.h>

#include "cunit_run.h"
#include "hca_impl.h"
#include "hca_test_util.h"
#include "wqe_exec.h"

using namespace hcatest;

namespace {

/* arena layout: each region is one MR (or none) */
constexpr size_t kArena = 64 * 1024;
constexpr size_t kSrcOff = 0, kSrcLen = 16 * 1024;          /* read-only MR */
constexpr size_t kDstOff = 16 * 1024, kDstLen = 24 * 1024;  /* LOCAL_WRITE MR */
constexpr size_t kRoOff = 40 * 1024, kRoLen = 4 * 1024;     /* MR without LOCAL_WRITE */
constexpr size_t kOdpOff = 44 * 1024, kOdpLen = 8 * 1024;   /* explicit ODP MR */
constexpr size_t kPd2Off = 52 * 1024, kPd2Len = 4 * 1024;   /* MR of another PD */
constexpr size_t kOpqOff = 56 * 1024;                       /* opaque buffer (64 B) */
constexpr size_t kOpqRoOff = 57 * 1024;                     /* opaque without LOCAL_WRITE */
constexpr size_t kDst2Off = 58 * 1024, kDst2Len = 4 * 1024; /* re-registered MR */

/** Deterministic PRNG (xorshift64*), the same stream for both runs. */
struct Rng {
	uint64_t s;
	uint64_t next()
	{
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		return s * 0x2545f4914f6cdd1dull;
	}
	uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
};

/** What one run leaves behind. */
struct Outcome {
	std::vector<uint8_t> cqes;   /**< every CQE polled, in order */
	std::vector<uint8_t> states; /**< QP state after each batch */
	std::vector<uint8_t> mem;    /**< the arena at the end */
	HcaStats st{};
	uint64_t fast_wqes = 0;
};

/** One scenario: device flavour and stream. */
struct Scenario {
	ExecMode mode;
	bool reorder;
	uint64_t max_len;
	uint64_t seed;
	unsigned batches;
	/* every copy this long (0: random lengths): consecutive WQEs repeat their segment
	 * words, so the fast path's repeat check (plan_repeat) decides most of them */
	uint32_t fixed_len;
	/* no broken WQEs: whole groups of the fast path (run_fast_group) */
	bool clean;
};

/** Keys of the run; indices and variants are the same on both fresh devices. */
struct Keys {
	uint32_t src, dst, ro, odp, pd2, opq, opq_ro, dst2, stale;
	uint32_t msrc, mdst; /**< indirect mkeys over the source / destination MR */
};

void init_arena(uint8_t *a)
{
	for (size_t i = 0; i < kArena; i++)
		a[i] = (uint8_t)(i * 31 + 7);
}

Keys register_all(Env &e, uint32_t pd2, uint8_t *a)
{
	Keys k{};
	Hca &h = e.h();
	k.src = reg(h, e.pdn, a + kSrcOff, kSrcLen, 0);
	k.dst = reg(h, e.pdn, a + kDstOff, kDstLen, IBV_ACCESS_LOCAL_WRITE);
	k.ro = reg(h, e.pdn, a + kRoOff, kRoLen, 0);
	CU_ASSERT_EQUAL(h.reg_mr(e.pdn, (uintptr_t)(a + kOdpOff), kOdpLen,
				 IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &k.odp),
			0);
	k.pd2 = reg(h, pd2, a + kPd2Off, kPd2Len, IBV_ACCESS_LOCAL_WRITE);
	k.opq = reg(h, e.pdn, a + kOpqOff, 64, IBV_ACCESS_LOCAL_WRITE);
	k.opq_ro = reg(h, e.pdn, a + kOpqRoOff, 64, 0);
	k.dst2 = reg(h, e.pdn, a + kDst2Off, kDst2Len, IBV_ACCESS_LOCAL_WRITE);
	k.stale = reg(h, e.pdn, a + kDstOff, kDstLen, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_EQUAL(h.dereg_mr(k.stale), 0);
	CU_ASSERT_EQUAL(h.create_mkey(e.pdn, 4, 0, &k.msrc), 0);
	CU_ASSERT_EQUAL(h.create_mkey(e.pdn, 4, 0, &k.mdst), 0);
	return k;
}

/**
 * Fill the mkeys with UMR WQEs: msrc = the source MR, mdst = the destination MR
 * in two halves (LOCAL_WRITE). Offsets into them equal offsets into the MRs.
 */
void configure_mkeys(Env &e, TestQp &q, const Keys &k, uint8_t *a)
{
	const uint64_t mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
			      MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE;
	Wqe s(q, MLX5_OPCODE_UMR, MLX5_WQE_CTRL_CQ_UPDATE, 0, htobe32(k.msrc));
	s.umr_ctrl(0x80, 4, mask).mkey_ctx(0, 0, kSrcLen).klm(kSrcLen, k.src, a + kSrcOff).pad64();
	s.post(q);
	Wqe d(q, MLX5_OPCODE_UMR, MLX5_WQE_CTRL_CQ_UPDATE, 0, htobe32(k.mdst));
	d.umr_ctrl(0x80, 4, mask)
		.mkey_ctx(0, MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE, kDstLen)
		.klm(kDstLen / 2, k.dst, a + kDstOff)
		.klm(kDstLen / 2, k.dst, a + kDstOff + kDstLen / 2)
		.pad64();
	d.post(q);
	q.ring(e.h());
	e.h().quiesce();
}

/** A random valid copy inside the source or destination MR into the destination MR. */
struct Copy {
	uint32_t skey, dkey, mkey, len;
	uint64_t saddr, daddr, maddr;
};

Copy valid_copy(Rng &r, const Keys &k, uint8_t *a, uint64_t max_len, uint32_t fixed_len)
{
	Copy c{};
	uint32_t cap = max_len && max_len < 4096 ? (uint32_t)max_len : 4096;
	c.len = r.below(8) ? 1 + r.below(cap < 300 ? cap : 300) : 1 + r.below(cap);
	if (fixed_len)
		c.len = fixed_len;
	bool from_dst = r.below(4) == 0; /* overlapping and self copies too */
	size_t soff = from_dst ? kDstOff : kSrcOff, slen = from_dst ? kDstLen : kSrcLen;
	c.skey = from_dst ? k.dst : k.src;
	c.saddr = (uintptr_t)(a + soff + r.below((uint32_t)(slen - c.len + 1)));
	c.dkey = k.dst;
	if (from_dst && r.below(4) == 0)
		c.daddr = c.saddr; /* a copy onto itself */
	else
		c.daddr = (uintptr_t)(a + kDstOff + r.below((uint32_t)(kDstLen - c.len + 1)));
	c.mkey = k.opq;
	c.maddr = (uintptr_t)(a + kOpqOff);
	return c;
}

/** Ways to break a WQE (or not); each must behave the same on both paths. */
enum Mutation : uint32_t {
	M_NONE,
	M_SKEY_GARBAGE,
	M_SKEY_STALE,
	M_SKEY_PD2,
	M_SKEY_ZERO,
	M_SKEY_INVALID,
	M_DKEY_RO,
	M_DKEY_SRC,
	M_DST_PAST_END,
	M_DST_BELOW,
	M_SRC_PAST_END,
	M_MKEY_BAD,
	M_MKEY_RO,
	M_MADDR_OUT,
	M_LEN_MISMATCH,
	M_BC_ZERO,
	M_LEN_OVER_MAX,
	M_OPMOD,
	M_DS3,
	M_DS5,
	M_BAD_INDEX,
	M_BAD_QPN,
	M_NOP,
	M_FAIL_WQE,
	M_ODP,
	M_DST2_OLD,
	M_SKEY_MKEY,
	M_DKEY_MKEY,
	M_MKEY_PAST_END,
	M_COUNT
};

/** Build one WQE, maybe break it (or arm a FailWqe), and post it. */
void post_one(Env &e, TestQp &q, Rng &r, const Keys &k, uint32_t dst2_old, uint8_t *a,
	      uint64_t max_len, uint32_t fixed_len, bool clean)
{
	Copy c = valid_copy(r, k, a, max_len, fixed_len);
	uint32_t m = r.below(12) ? M_NONE : 1 + r.below(M_COUNT - 1);
	if (clean)
		m = M_NONE;
	uint32_t sbc = c.len, dbc = c.len;
	uint8_t opcode = MLX5_OPCODE_MMO, opmod = MLX5_HW_OPC_MOD_MMO_DMA;
	uint8_t fm_ce_se = (r.below(3) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			   (r.below(8) == 0 ? MLX5_WQE_CTRL_FENCE : 0) |
			   (r.below(16) == 0 ? 0x20 : 0);
	uint32_t idx = q.pi, qpn = q.qpn;
	int ds = -1;
	switch (m) {
	case M_SKEY_GARBAGE:
		c.skey = (uint32_t)r.next();
		break;
	case M_SKEY_STALE:
		c.skey = k.stale;
		break;
	case M_SKEY_PD2:
		c.skey = k.pd2;
		c.saddr = (uintptr_t)(a + kPd2Off);
		break;
	case M_SKEY_ZERO:
		c.skey = 0;
		break;
	case M_SKEY_INVALID:
		c.skey = MLX5_INVALID_LKEY;
		break;
	case M_DKEY_RO:
		c.dkey = k.ro;
		c.daddr = (uintptr_t)(a + kRoOff);
		break;
	case M_DKEY_SRC:
		c.dkey = k.src;
		c.daddr = (uintptr_t)(a + kSrcOff);
		break;
	case M_DST_PAST_END:
		c.daddr = (uintptr_t)(a + kDstOff + kDstLen - c.len + 1);
		break;
	case M_DST_BELOW:
		c.daddr = (uintptr_t)(a + kDstOff - 1);
		break;
	case M_SRC_PAST_END:
		c.skey = k.src;
		c.saddr = (uintptr_t)(a + kSrcOff + kSrcLen - c.len + 1 + r.below(4));
		break;
	case M_MKEY_BAD:
		c.mkey = k.src;
		break;
	case M_MKEY_RO:
		c.mkey = k.opq_ro;
		c.maddr = (uintptr_t)(a + kOpqRoOff);
		break;
	case M_MADDR_OUT:
		c.maddr += 1 + r.below(64);
		break;
	case M_LEN_MISMATCH:
		dbc = c.len + 1;
		break;
	case M_BC_ZERO:
		sbc = dbc = 0;
		break;
	case M_LEN_OVER_MAX:
		sbc = dbc = (uint32_t)(max_len + 1 + r.below(16));
		break;
	case M_OPMOD:
		opmod = r.below(2) ? 0 : 2;
		break;
	case M_DS3:
		ds = 3;
		break;
	case M_DS5:
		ds = 5;
		break;
	case M_BAD_INDEX:
		idx = q.pi + 1 + r.below(3);
		break;
	case M_BAD_QPN:
		qpn = q.qpn + 1;
		break;
	case M_NOP:
		opcode = MLX5_OPCODE_NOP;
		opmod = 0;
		ds = 1;
		break;
	case M_FAIL_WQE: {
		Fault f{};
		f.kind = Fault::Kind::FailWqe;
		f.qpn = q.qpn;
		f.wqe_index = (uint16_t)(q.pi + r.below(3)); /* this one or a later one */
		f.syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		f.vendor_syndrome = 0x42;
		CU_ASSERT_EQUAL(e.h().inject(f), 0);
		break;
	}
	case M_ODP:
		c.skey = k.odp;
		c.saddr = (uintptr_t)(a + kOdpOff + r.below((uint32_t)(kOdpLen - c.len + 1)));
		if (r.below(2)) {
			c.dkey = k.odp;
			c.daddr = (uintptr_t)(a + kOdpOff);
		}
		break;
	case M_DST2_OLD:
		c.dkey = dst2_old;
		c.daddr = (uintptr_t)(a + kDst2Off);
		break;
	case M_SKEY_MKEY: /* the same bytes through an mkey (zero-based) */
		if (c.skey == k.src) {
			c.saddr -= (uintptr_t)(a + kSrcOff);
			c.skey = k.msrc;
		} else {
			c.saddr -= (uintptr_t)(a + kDstOff);
			c.skey = k.mdst;
		}
		break;
	case M_DKEY_MKEY:
		c.daddr -= (uintptr_t)(a + kDstOff);
		c.dkey = k.mdst;
		break;
	case M_MKEY_PAST_END:
		c.dkey = k.mdst;
		c.daddr = kDstLen - c.len + 1;
		break;
	default:
		break;
	}
	if (m == M_NONE && r.below(8) == 0 && c.len <= kDst2Len) {
		c.dkey = k.dst2; /* the current key of the re-registered MR */
		c.daddr = (uintptr_t)(a + kDst2Off + r.below((uint32_t)(kDst2Len - c.len + 1)));
	}
	Wqe w(q, opcode, fm_ce_se, opmod);
	w.ctrl(idx, opcode, opmod, qpn, fm_ce_se, 0);
	if (opcode == MLX5_OPCODE_MMO) {
		w.meta(c.mkey, (const void *)(uintptr_t)c.maddr)
			.data(sbc, c.skey, (const void *)(uintptr_t)c.saddr)
			.data(dbc, c.dkey, (const void *)(uintptr_t)c.daddr);
		if (ds == 5)
			w.data(c.len, c.skey, (const void *)(uintptr_t)c.saddr);
	}
	w.post(q, ds);
}

/** Bring a QP in ERR back to RTS with its counters at 0. */
void revive(Env &e, TestQp &q)
{
	CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RESET), 0);
	CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, 0, 0), 0);
	q.pi = 0;
	__atomic_store_n(&q.dbrec[MLX5_SND_DBR], 0, __ATOMIC_RELEASE);
}

void drain(TestCq &cq, Outcome *out)
{
	struct mlx5_cqe64 c;
	while (cq.poll(&c)) {
		/* QPNs differ per instance (random start): the opcode byte only */
		c.sop_drop_qpn &= htobe32(0xff000000u);
		out->cqes.insert(out->cqes.end(), reinterpret_cast<uint8_t *>(&c),
				 reinterpret_cast<uint8_t *>(&c) + sizeof(c));
	}
}

Outcome run(const Scenario &sc, bool fast, uint8_t *arena)
{
	Outcome out;
	init_arena(arena);
	HcaCaps caps;
	caps.max_wr_memcpy_length = sc.max_len;
	caps.reorder_unfenced = sc.reorder;
	Env e(sc.mode, caps);
	auto *impl = dynamic_cast<HcaImpl *>(e.hca.get());
	CU_ASSERT_PTR_NOT_NULL_FATAL(impl);
	{
		mlx5sim::DevLock lk(impl->mu_); /* the engine reads it under mu_ */
		impl->sq_.fast_mmo_ = fast;
	}
	uint32_t pd2;
	CU_ASSERT_EQUAL_FATAL(e.h().alloc_pd(&pd2), 0);
	Keys k = register_all(e, pd2, arena);
	uint32_t dst2_old = k.dst2;
	TestCq cq(e.h(), 1024);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 64);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, 0, 0), 0);
	configure_mkeys(e, q, k, arena);
	drain(cq, &out);
	Rng r{sc.seed};

	for (unsigned b = 0; b < sc.batches; b++) {
		if (r.below(10) == 0) { /* the MR's index comes back with a new variant */
			CU_ASSERT_EQUAL(e.h().dereg_mr(k.dst2), 0);
			dst2_old = k.dst2;
			k.dst2 = reg(e.h(), e.pdn, arena + kDst2Off, kDst2Len,
				     IBV_ACCESS_LOCAL_WRITE);
		}
		unsigned n = 1 + r.below(40);
		for (unsigned i = 0; i < n; i++)
			post_one(e, q, r, k, dst2_old, arena, sc.max_len, sc.fixed_len, sc.clean);
		q.ring(e.h());
		e.h().quiesce();
		drain(cq, &out);
		enum ibv_qp_state s = qp_state(e.h(), q.qpn);
		out.states.push_back((uint8_t)s);
		if (s == IBV_QPS_ERR)
			revive(e, q);
	}
	e.h().quiesce();
	drain(cq, &out);
	out.st = e.h().stats();
	{
		mlx5sim::DevLock lk(impl->mu_);
		out.fast_wqes = impl->fast_wqes();
	}
	out.mem.assign(arena, arena + kArena);
	return out;
}

/** Count CQEs by kind, to show the stream covered successes and errors. */
void count_kinds(const Outcome &o, unsigned *ok, unsigned *err)
{
	*ok = *err = 0;
	for (size_t i = 0; i + 64 <= o.cqes.size(); i += 64) {
		uint8_t op = o.cqes[i + 63] >> 4;
		*ok += op == MLX5_CQE_REQ;
		*err += op == MLX5_CQE_REQ_ERR;
	}
}

void check_scenario(const Scenario &sc, bool expect_fast)
{
	uint8_t *arena = static_cast<uint8_t *>(page_alloc(kArena));
	CU_ASSERT_PTR_NOT_NULL_FATAL(arena);
	Outcome f = run(sc, true, arena);
	Outcome g = run(sc, false, arena);
	free(arena);

	CU_ASSERT_EQUAL(g.fast_wqes, 0u);
	if (expect_fast) {
		CU_ASSERT_TRUE(f.fast_wqes > 100);
	} else {
		CU_ASSERT_EQUAL(f.fast_wqes, 0u);
	}
	unsigned ok, err;
	count_kinds(g, &ok, &err);
	if (sc.clean) {
		/* every MMO on the fast path (the two UMRs are not MMOs) */
		CU_ASSERT_EQUAL(err, 0u);
		CU_ASSERT_EQUAL(f.fast_wqes + 2, f.st.wqes_executed);
	} else {
		CU_ASSERT_TRUE(err > 20);
	}
	if (sc.max_len) {
		CU_ASSERT_TRUE(ok > 50);
	}

	CU_ASSERT_EQUAL(f.cqes.size(), g.cqes.size());
	CU_ASSERT_TRUE(f.cqes == g.cqes);
	CU_ASSERT_TRUE(f.states == g.states);
	CU_ASSERT_TRUE(f.mem == g.mem);
	CU_ASSERT_EQUAL(f.st.wqes_executed, g.st.wqes_executed);
	CU_ASSERT_EQUAL(f.st.cqes_written, g.st.cqes_written);
	CU_ASSERT_EQUAL(f.st.error_cqes, g.st.error_cqes);
	CU_ASSERT_EQUAL(f.st.bytes_moved, g.st.bytes_moved);
	CU_ASSERT_EQUAL(f.st.doorbells, g.st.doorbells);
}

} // namespace

static void test_inline_default_caps(void)
{
	check_scenario(Scenario{ExecMode::Inline, false, 1ull << 31, 0x9e3779b97f4a7c15ull, 300},
		       true);
}

static void test_inline_small_max(void)
{
	check_scenario(Scenario{ExecMode::Inline, false, 1000, 0x1234567887654321ull, 300}, true);
}

static void test_inline_no_mmo(void)
{
	/* max_wr_memcpy_length 0: the fast path must decline everything */
	check_scenario(Scenario{ExecMode::Inline, false, 0, 0xabcdef0123456789ull, 30}, false);
}

static void test_thread(void)
{
	check_scenario(Scenario{ExecMode::Thread, false, 1ull << 31, 0x0fedcba987654321ull, 200},
		       true);
}

static void test_thread_reorder(void)
{
	check_scenario(Scenario{ExecMode::Thread, true, 1ull << 31, 0x5555aaaa3333ccccull, 200},
		       true);
}

static void test_inline_fixed_len(void)
{
	check_scenario(
		Scenario{ExecMode::Inline, false, 1ull << 31, 0x7f4a7c159e3779b9ull, 300, 64},
		true);
}

static void test_thread_reorder_fixed_len(void)
{
	check_scenario(
		Scenario{ExecMode::Thread, true, 1ull << 31, 0x3c6ef372a54ff53aull, 200, 200},
		true);
}

static void test_inline_clean(void)
{
	check_scenario(
		Scenario{ExecMode::Inline, false, 1ull << 31, 0x2545f4914f6cdd1dull, 300, 64, true},
		true);
}

static void test_thread_reorder_clean(void)
{
	check_scenario(
		Scenario{ExecMode::Thread, true, 1ull << 31, 0x6a09e667f3bcc908ull, 200, 0, true},
		true);
}

/** The fast path leaves the opaque buffer and everything outside the MRs alone. */
static void test_fast_only_touches_dst(void)
{
	uint8_t *arena = static_cast<uint8_t *>(page_alloc(kArena));
	CU_ASSERT_PTR_NOT_NULL_FATAL(arena);
	Outcome f = run(Scenario{ExecMode::Inline, false, 1ull << 31, 77, 60}, true, arena);
	std::vector<uint8_t> init(kArena);
	init_arena(init.data());
	for (size_t i = 0; i < kArena; i++) {
		bool writable = (i >= kDstOff && i < kDstOff + kDstLen) ||
				(i >= kOdpOff && i < kOdpOff + kOdpLen) ||
				(i >= kDst2Off && i < kDst2Off + kDst2Len);
		if (!writable && f.mem[i] != init[i]) {
			CU_FAIL("byte outside a writable destination MR changed");
			break;
		}
	}
	CU_ASSERT_TRUE(f.fast_wqes > 50);
	free(arena);
}

namespace {

/**
 * One QP copying 64-byte pieces from a read-only source MR into a destination MR,
 * the same keys in every WQE: after the first one, the fast path decides each WQE
 * from what it remembers on the QP (QpObj::fast), across doorbells.
 */
struct Repeat {
	Env e;
	TestCq cq;
	TestQp q;
	Buf src, dst, opq;
	uint32_t skey, dkey, okey;
	explicit Repeat(ExecMode mode = ExecMode::Inline)
		: e(mode), cq(e.h(), 64), q(e.h(), e.pdn, cq.cqn, cq.cqn, 64), src(4096, 0x5a),
		  dst(4096, 0), opq(64)
	{
		for (size_t i = 0; i < 4096; i++)
			src.p()[i] = (uint8_t)(i * 13 + 1);
		skey = reg(e.h(), e.pdn, src.p(), 4096, 0);
		dkey = reg(e.h(), e.pdn, dst.p(), 4096, IBV_ACCESS_LOCAL_WRITE);
		okey = reg(e.h(), e.pdn, opq.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	}
	/** Post the copy of bytes [off, off + 64) (the last of a burst asks for a CQE). */
	void copy(uint32_t off, bool signaled)
	{
		Wqe w(q, MLX5_OPCODE_MMO, signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0,
		      MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opq.p()).data(64, skey, src.p() + off).data(64, dkey, dst.p() + off);
		w.post(q);
	}
	/** Copies at @p off, off + 64, ... (@p n of them); the CQE of the last one. */
	struct mlx5_cqe64 burst(uint32_t off, unsigned n)
	{
		for (unsigned i = 0; i < n; i++)
			copy(off + 64 * i, i + 1 == n);
		q.ring(e.h());
		e.h().quiesce();
		struct mlx5_cqe64 c = {};
		CU_ASSERT_TRUE(cq.poll(&c));
		CU_ASSERT_EQUAL(cq.drain(), 0);
		return c;
	}
	uint64_t fast_wqes()
	{
		auto *impl = dynamic_cast<HcaImpl *>(e.hca.get());
		mlx5sim::DevLock lk(impl->mu_);
		return impl->fast_wqes();
	}
	bool copied(uint32_t off, uint32_t len)
	{
		return memcmp(src.p() + off, dst.p() + off, len) == 0;
	}
	bool untouched(uint32_t off, uint32_t len)
	{
		for (uint32_t i = 0; i < len; i++)
			if (dst.p()[off + i] != 0)
				return false;
		return dst.guards_intact();
	}
};

/** The second burst repeats the first one's keys: a LOC_PROT CQE, nothing written. */
void expect_refused(Repeat &r, uint32_t off)
{
	struct mlx5_cqe64 c = r.burst(off, 1);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_TRUE(r.untouched(off, 64));
	CU_ASSERT_EQUAL(qp_state(r.e.h(), r.q.qpn), IBV_QPS_ERR);
}

} // namespace

/** A deregistered destination MR: the remembered check of its key no longer holds. */
static void test_memo_dereg(void)
{
	for (ExecMode mode : {ExecMode::Inline, ExecMode::Thread}) {
		Repeat r(mode);
		CU_ASSERT_EQUAL(cqe_opcode(r.burst(0, 4)), MLX5_CQE_REQ);
		CU_ASSERT_TRUE(r.copied(0, 256));
		CU_ASSERT_EQUAL(r.fast_wqes(), 4u);
		CU_ASSERT_EQUAL(r.e.h().dereg_mr(r.dkey), 0);
		expect_refused(r, 256);
	}
}

/** A destination MR re-registered smaller, or without LOCAL_WRITE. */
static void test_memo_rereg(void)
{
	Repeat r;
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(0, 2)), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(r.e.h().rereg_mr(r.dkey, r.e.pdn, (uintptr_t)r.dst.p(), 512,
					 IBV_ACCESS_LOCAL_WRITE),
			0);
	/* still inside: fine; past the new end: refused */
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(256, 4)), MLX5_CQE_REQ);
	CU_ASSERT_TRUE(r.copied(256, 256));
	expect_refused(r, 512);

	Repeat w;
	CU_ASSERT_EQUAL(cqe_opcode(w.burst(0, 2)), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(w.e.h().rereg_mr(w.dkey, w.e.pdn, (uintptr_t)w.dst.p(), 4096, 0), 0);
	expect_refused(w, 128);
}

/** Another MR registered between bursts: the repeats still take the fast path. */
static void test_memo_other_mr(void)
{
	Repeat r;
	Buf other(256);
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(0, 4)), MLX5_CQE_REQ);
	uint32_t k = reg(r.e.h(), r.e.pdn, other.p(), 256, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(256, 8)), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(r.e.h().dereg_mr(k), 0);
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(768, 8)), MLX5_CQE_REQ);
	CU_ASSERT_TRUE(r.copied(0, 1280));
	CU_ASSERT_TRUE(r.untouched(1280, 4096 - 1280));
	CU_ASSERT_EQUAL(r.fast_wqes(), 20u);
	HcaStats st = r.e.h().stats();
	CU_ASSERT_EQUAL(st.wqes_executed, 20u);
	CU_ASSERT_EQUAL(st.bytes_moved, 20u * 64);
	CU_ASSERT_EQUAL(st.cqes_written, 3u);
}

/** An address out of the remembered MR in the middle of a burst: the earlier ones land. */
static void test_memo_bounds_mid_burst(void)
{
	Repeat r;
	CU_ASSERT_EQUAL(cqe_opcode(r.burst(0, 2)), MLX5_CQE_REQ);
	r.copy(128, false);
	r.copy(4096 - 32, false); /* crosses the end of both MRs */
	r.copy(192, true);
	r.q.ring(r.e.h());
	std::vector<struct mlx5_cqe64> v;
	CU_ASSERT_EQUAL(r.cq.drain(&v), 2); /* the error, then the flush of the last one */
	CU_ASSERT_EQUAL_FATAL(v.size(), 2u);
	CU_ASSERT_EQUAL(cqe_opcode(v[0]), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(v[0]), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	CU_ASSERT_EQUAL(cqe_counter(v[0]), 3);
	CU_ASSERT_TRUE(r.copied(0, 192));
	CU_ASSERT_TRUE(r.untouched(192, 4096 - 192));
}

/** move_pinned(): every length and alignment around its vector loop, overlap included. */
static void test_move_pinned(void)
{
	const size_t cap = 70000;
	std::vector<uint8_t> a(2 * cap + 256), ref;
	for (size_t n : {(size_t)1, (size_t)64, (size_t)255, (size_t)256, (size_t)257, (size_t)383,
			 (size_t)1024, (size_t)1025, (size_t)2047, (size_t)2048, (size_t)2049,
			 (size_t)2175, (size_t)4096, (size_t)4097, (size_t)65536, (size_t)65599}) {
		for (size_t so : {0, 1, 15}) {
			for (size_t gap : {(size_t)0, (size_t)3, n / 2 + 1, n + 7}) {
				/* source at so, destination gap bytes after its start (gap < n:
				 * they overlap, memmove's result) */
				for (size_t i = 0; i < a.size(); i++)
					a[i] = (uint8_t)(i * 7 + n);
				ref = a;
				memmove(ref.data() + so + gap + 64, ref.data() + so, n);
				mlx5sim::move_pinned(a.data() + so + gap + 64, a.data() + so, n);
				CU_ASSERT_TRUE(a == ref);
				/* and backwards */
				for (size_t i = 0; i < a.size(); i++)
					a[i] = (uint8_t)(i * 5 + n);
				ref = a;
				memmove(ref.data() + so, ref.data() + so + gap + 64, n);
				mlx5sim::move_pinned(a.data() + so, a.data() + so + gap + 64, n);
				CU_ASSERT_TRUE(a == ref);
			}
		}
	}
}

/*
 * Thread mode: the application shrinks the destination MR (rereg) while the engine
 * streams repeats into its upper half. Once rereg_mr() has returned, the engine
 * writes no byte there any more, whatever it remembered from the WQEs before.
 */
static void test_memo_rereg_racing(void)
{
	for (int round = 0; round < 100; round++) {
		Repeat r(ExecMode::Thread);
		CU_ASSERT_EQUAL(cqe_opcode(r.burst(2048, 2)), MLX5_CQE_REQ);
		for (unsigned i = 0; i < 48; i++)
			r.copy(2048 + 64 * (i % 32), i == 47);
		r.q.ring(r.e.h());
		if (round % 4)
			usleep((useconds_t)(round % 7) * 3);
		CU_ASSERT_EQUAL(r.e.h().rereg_mr(r.dkey, r.e.pdn, (uintptr_t)r.dst.p(), 2048,
						 IBV_ACCESS_LOCAL_WRITE),
				0);
		memset(r.dst.p() + 2048, 0, 2048);
		r.e.h().quiesce();
		CU_ASSERT_TRUE_FATAL(r.untouched(2048, 2048));
	}
}

int main(void)
{
	static const struct cunit_test eq[] = {
		{"inline, default caps: fast == general", test_inline_default_caps},
		{"inline, max_wr_memcpy_length 1000", test_inline_small_max},
		{"inline, no memcpy MMO: fast path declines", test_inline_no_mmo},
		{"thread mode: fast == general", test_thread},
		{"thread mode, reorder_unfenced: fast == general", test_thread_reorder},
		{"inline, one length (repeated segments): fast == general", test_inline_fixed_len},
		{"thread, reorder, one length: fast == general", test_thread_reorder_fixed_len},
		{"inline, only valid 64 B copies: fast == general", test_inline_clean},
		{"thread, reorder, only valid copies: fast == general", test_thread_reorder_clean},
		{"fast path writes only destination MRs", test_fast_only_touches_dst},
	};
	static const struct cunit_test memo[] = {
		{"dereg between doorbells: the next WQE is refused", test_memo_dereg},
		{"rereg smaller or read-only: checked again", test_memo_rereg},
		{"an unrelated MR changes: repeats stay fast", test_memo_other_mr},
		{"out of bounds mid-burst: earlier WQEs land", test_memo_bounds_mid_burst},
		{"move_pinned == memmove, every length and overlap", test_move_pinned},
		{"thread: rereg racing the engine's repeats", test_memo_rereg_racing},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("mmo fast path equivalence", eq),
		CUNIT_SUITE("mmo fast path across doorbells", memo),
	};

	return CUNIT_RUN_SUITES(suites);
}
