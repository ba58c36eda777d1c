/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * memcpy MMO executed from WQE bytes: lengths (1 B .. max, max+1, the 2 GiB
 * encoding), memory protection (bounds, PD, LOCAL_WRITE, opaque key, stale keys,
 * ODP faults), CQE layout (64/128-byte CQEs, shared CQ, unsignaled WQEs).
 */
#include <errno.h>
#include <unistd.h>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

/** A device, one CQ, one RC QP in RTS and the per-PD opaque buffer. */
struct MmoEnv {
	Env e;
	TestCq cq;
	TestQp q;
	Buf opaque;
	uint32_t okey;
	explicit MmoEnv(const HcaCaps &caps = HcaCaps(), uint32_t cqe_size = 64)
		: e(ExecMode::Inline, caps), cq(e.h(), 64, cqe_size),
		  q(e.h(), e.pdn, cq.cqn, cq.cqn, 16), opaque(64)
	{
		okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, 0, 0), 0);
	}
	void mmo(uint32_t skey, const void *src, uint32_t dkey, const void *dst, uint32_t bc,
		 uint8_t fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE, uint32_t mkey = 0)
	{
		Wqe w(q, MLX5_OPCODE_MMO, fm_ce_se, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(mkey ? mkey : okey, opaque.p()).data(bc, skey, src).data(bc, dkey, dst);
		w.post(q);
	}
	/** Ring, then expect one CQE and return it. */
	struct mlx5_cqe64 run()
	{
		q.ring(e.h());
		struct mlx5_cqe64 c = {};
		CU_ASSERT_TRUE(cq.poll(&c));
		return c;
	}
};

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/** A successful memcpy of @p n bytes inside MRs of exactly that size. */
void copy_ok(MmoEnv &m, size_t n)
{
	Buf s(n), d(n);
	fill(s.p(), n, 3);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), n, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), n, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), (uint32_t)n);
	struct mlx5_cqe64 c = m.run();
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_wqe_op(c), MLX5_OPCODE_MMO);
	CU_ASSERT_EQUAL(cqe_qpn(c), m.q.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(c), 0x77u);
	CU_ASSERT_EQUAL(cqe_bytes(c), (uint32_t)n);
	CU_ASSERT_EQUAL(cqe_counter(c), (uint16_t)(m.q.pi - 1));
	CU_ASSERT_EQUAL(memcmp(s.p(), d.p(), n), 0);
	CU_ASSERT_TRUE(d.guards_intact());
	for (int i = 0; i < 64; i++) /* the model writes nothing into the opaque buffer */
		CU_ASSERT_EQUAL(m.opaque.p()[i], 0);
}

/** Expect an error CQE with @p synd for the last WQE and the QP in ERR. */
void expect_err(MmoEnv &m, uint8_t synd, uint8_t vendor = 0)
{
	struct mlx5_cqe64 c = m.run();
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), synd);
	CU_ASSERT_EQUAL(cqe_vendor(c), vendor);
	CU_ASSERT_EQUAL(cqe_counter(c), (uint16_t)(m.q.pi - 1));
	CU_ASSERT_EQUAL(cqe_wqe_op(c), MLX5_OPCODE_MMO);
	CU_ASSERT_EQUAL(cqe_qpn(c), m.q.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(c), 0x77u);
	CU_ASSERT_EQUAL(qp_state(m.e.h(), m.q.qpn), IBV_QPS_ERR);
}

} // namespace

static void test_sizes(void)
{
	HcaCaps caps;
	caps.max_wr_memcpy_length = 1u << 20;
	MmoEnv m(caps);
	copy_ok(m, 1);
	copy_ok(m, 4097);
	copy_ok(m, 100000);
	copy_ok(m, 1u << 20);
	/* max + 1: LOC_LEN, nothing moved */
	size_t n = (1u << 20) + 1;
	Buf s(n, 0x11), d(n);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), n, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), n, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), (uint32_t)n);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CU_ASSERT_EQUAL(d.p()[0], 0);
	CU_ASSERT_EQUAL(d.p()[n - 1], 0);
	HcaStats st = m.e.h().stats();
	CU_ASSERT_EQUAL(st.wqes_executed, 4u);
	CU_ASSERT_EQUAL(st.error_cqes, 1u);
	CU_ASSERT_EQUAL(st.bytes_moved, 1u + 4097 + 100000 + (1u << 20));
}

static void test_2g_encoding_rejected(void)
{
	HcaCaps caps;
	caps.max_wr_memcpy_length = 1u << 20;
	MmoEnv m(caps);
	Buf s(64), d(64);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), 0); /* byte_count 0 = 2 GiB > max */
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
}

static void test_2g_sparse(void)
{
	MmoEnv m; /* default max = 2 GiB */
	const size_t two_g = 1ull << 31;
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *base = static_cast<uint8_t *>(mmap(nullptr, two_g + 2 * pg, PROT_READ | PROT_WRITE,
						    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
						    0));
	CU_ASSERT_NOT_EQUAL_FATAL(base, MAP_FAILED);
	base[0] = 0x5a;
	base[two_g - 1] = 0xa5;
	base[two_g] = 0x77; /* just past the MR */
	uint32_t k = reg(m.e.h(), m.e.pdn, base, two_g, IBV_ACCESS_LOCAL_WRITE);
	uint32_t k_short = reg(m.e.h(), m.e.pdn, base, two_g - 1, IBV_ACCESS_LOCAL_WRITE);
	/* copy onto itself: the full 2 GiB is checked, no page needs touching */
	m.mmo(k, base, k, base, 0);
	struct mlx5_cqe64 c = m.run();
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_bytes(c), 1u << 31); /* bytes copied, not the encoding */
	CU_ASSERT_EQUAL(base[0], 0x5a);
	CU_ASSERT_EQUAL(base[two_g - 1], 0xa5);
	CU_ASSERT_EQUAL(base[two_g], 0x77);
	/* byte_count 0 really means 2 GiB: an MR one byte shorter fails */
	m.mmo(k_short, base, k, base, 0);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	munmap(base, two_g + 2 * pg);
}

static void test_no_mmo_device(void)
{
	HcaCaps caps;
	caps.max_wr_memcpy_length = 0;
	MmoEnv m(caps);
	Buf s(64), d(64);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), 8);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

static void test_wrong_opmod(void)
{
	MmoEnv m;
	Buf s(64), d(64);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	Wqe w(m.q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, 2);
	w.meta(m.okey, m.opaque.p()).data(8, sk, s.p()).data(8, dk, d.p());
	w.post(m.q);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

/** One protection violation: LOC_PROT, destination and guards untouched. */
static void prot_case(int which)
{
	MmoEnv m;
	uint32_t pd2;
	CU_ASSERT_EQUAL_FATAL(m.e.h().alloc_pd(&pd2), 0);
	Buf s(256, 0x42), d(256, 0);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 256, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 256, IBV_ACCESS_LOCAL_WRITE);
	uint32_t dk_ro = reg(m.e.h(), m.e.pdn, d.p(), 256, 0);
	uint32_t dk_pd2 = reg(m.e.h(), pd2, d.p(), 256, IBV_ACCESS_LOCAL_WRITE);
	uint32_t ok_pd2 = reg(m.e.h(), pd2, m.opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t ok_ro = reg(m.e.h(), m.e.pdn, m.opaque.p(), 64, 0);
	uint32_t stale = reg(m.e.h(), m.e.pdn, d.p(), 256, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_EQUAL(m.e.h().dereg_mr(stale), 0);
	switch (which) {
	case 0:
		m.mmo(sk, s.p(), dk, d.p() + 1, 256);
		break; /* dst ends 1 B past */
	case 1:
		m.mmo(sk, s.p() + 1, dk, d.p(), 256);
		break; /* src ends 1 B past */
	case 2:
		m.mmo(sk, s.p(), dk, d.p() - 1, 16);
		break; /* dst starts 1 B before */
	case 3:
		m.mmo(sk, s.p(), dk_pd2, d.p(), 16);
		break; /* wrong PD */
	case 4:
		m.mmo(sk, s.p(), dk_ro, d.p(), 16);
		break; /* no LOCAL_WRITE */
	case 5:
		m.mmo(sk, s.p(), stale, d.p(), 16);
		break; /* stale key */
	case 6:
		m.mmo(sk, s.p(), 0, d.p(), 16);
		break; /* zero key */
	case 7:
		m.mmo(sk, s.p(), MLX5_INVALID_LKEY, d.p(), 16);
		break;
	case 8:
		m.mmo(sk, s.p(), dk, (void *)~0ull, 16);
		break; /* address wraps */
	case 9:
		m.mmo(sk, s.p(), dk, d.p(), 16, MLX5_WQE_CTRL_CQ_UPDATE, ok_pd2);
		break;
	case 10:
		m.mmo(sk, s.p(), dk, d.p(), 16, MLX5_WQE_CTRL_CQ_UPDATE, ok_ro);
		break;
	case 11:
		m.mmo(dk_pd2, d.p(), dk, d.p() + 128, 16);
		break; /* src in other PD */
	}
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	for (int i = 0; i < 256; i++)
		CU_ASSERT_EQUAL_FATAL(d.p()[i], 0);
	CU_ASSERT_TRUE(d.guards_intact());
	CU_ASSERT_TRUE(s.guards_intact());
	CU_ASSERT_EQUAL(m.e.h().stats().bytes_moved, 0u);
}

static void test_prot_bounds(void)
{
	prot_case(0);
	prot_case(1);
	prot_case(2);
	prot_case(8);
}
static void test_prot_pd(void)
{
	prot_case(3);
	prot_case(11);
}
static void test_prot_local_write(void)
{
	prot_case(4);
}
static void test_prot_keys(void)
{
	prot_case(5);
	prot_case(6);
	prot_case(7);
}
static void test_prot_opaque(void)
{
	prot_case(9);
	prot_case(10);
}

static void test_src_needs_no_access_flag(void)
{
	MmoEnv m;
	copy_ok(m, 64); /* copy_ok registers the source with access 0 */
}

static void test_shared_cq_two_qps(void)
{
	MmoEnv m;
	TestQp q2(m.e.h(), m.e.pdn, m.cq.cqn, m.cq.cqn, 16, 16, 6, 0x99);
	CU_ASSERT_EQUAL_FATAL(connect_qp(m.e.h(), q2.qpn, 0, 0), 0);
	Buf s(128, 9), d(128);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 128, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), 64);
	m.q.ring(m.e.h());
	Wqe w(q2, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, MLX5_HW_OPC_MOD_MMO_DMA);
	w.meta(m.okey, m.opaque.p()).data(64, sk, s.p() + 64).data(64, dk, d.p() + 64);
	w.post(q2);
	q2.ring(m.e.h());
	std::vector<struct mlx5_cqe64> v;
	CU_ASSERT_EQUAL_FATAL(m.cq.drain(&v), 2);
	CU_ASSERT_EQUAL(cqe_qpn(v[0]), m.q.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(v[0]), 0x77u);
	CU_ASSERT_EQUAL(cqe_qpn(v[1]), q2.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(v[1]), 0x99u);
	CU_ASSERT_EQUAL(memcmp(s.p(), d.p(), 128), 0);
}

static void test_cqe128_and_owner_wrap(void)
{
	MmoEnv m(HcaCaps(), 128);
	Buf s(64, 1), d(64);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	/* 150 CQEs through a 64-entry CQ: owner flips on every pass */
	for (int i = 0; i < 150; i++) {
		m.mmo(sk, s.p(), dk, d.p(), 64);
		struct mlx5_cqe64 c = m.run();
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
		CU_ASSERT_EQUAL(c.op_own & 1, (uint8_t)((i / 64) & 1));
		CU_ASSERT_EQUAL(cqe_counter(c), (uint16_t)i);
	}
	/* the first half of each 128-byte entry is never written */
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			CU_ASSERT_EQUAL_FATAL(m.cq.buf[i * 128 + j], 0);
}

static void test_unsignaled(void)
{
	MmoEnv m;
	Buf s(64, 1), d(64);
	uint32_t sk = reg(m.e.h(), m.e.pdn, s.p(), 64, 0);
	uint32_t dk = reg(m.e.h(), m.e.pdn, d.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	m.mmo(sk, s.p(), dk, d.p(), 32, 0);
	m.mmo(sk, s.p() + 32, dk, d.p() + 32, 32, 0);
	m.mmo(sk, s.p(), dk, d.p(), 8, MLX5_WQE_CTRL_CQ_UPDATE);
	struct mlx5_cqe64 c = m.run();
	CU_ASSERT_EQUAL(cqe_counter(c), 2);
	CU_ASSERT_EQUAL(m.cq.drain(), 0);
	CU_ASSERT_EQUAL(memcmp(s.p(), d.p(), 64), 0);
	CU_ASSERT_EQUAL(m.e.h().stats().wqes_executed, 3u);
}

static void test_odp_implicit(void)
{
	MmoEnv m;
	uint32_t odp;
	CU_ASSERT_EQUAL_FATAL(m.e.h().reg_mr(m.e.pdn, 0, UINT64_MAX,
					     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &odp),
			      0);
	Buf s(5000, 0x3c), d(5000);
	m.mmo(odp, s.p(), odp, d.p(), 5000);
	struct mlx5_cqe64 c = m.run();
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(memcmp(s.p(), d.p(), 5000), 0);
	CU_ASSERT_TRUE(d.guards_intact());

	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *ro = static_cast<uint8_t *>(
		mmap(nullptr, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_NOT_EQUAL_FATAL(ro, MAP_FAILED);
	memset(ro, 0x66, 2 * pg);
	mprotect(ro + pg, pg, PROT_READ);
	/* destination spans a writable and a read-only page: fault, nothing written */
	m.mmo(odp, s.p(), odp, ro + pg - 100, 200);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT);
	for (long i = 0; i < 2 * pg; i++)
		CU_ASSERT_EQUAL_FATAL(ro[i], 0x66);
	munmap(ro, 2 * pg);
}

static void test_odp_unmapped_source(void)
{
	MmoEnv m;
	uint32_t odp;
	CU_ASSERT_EQUAL_FATAL(m.e.h().reg_mr(m.e.pdn, 0, UINT64_MAX,
					     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &odp),
			      0);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *gone = static_cast<uint8_t *>(
		mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	munmap(gone, pg);
	Buf d(64);
	m.mmo(odp, gone, odp, d.p(), 64);
	expect_err(m, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT);
	CU_ASSERT_EQUAL(d.p()[0], 0);
}

int main(void)
{
	static const struct cunit_test len[] = {
		{"1 B, mid sizes, max; max+1 -> LOC_LEN", test_sizes},
		{"byte_count 0 (2 GiB) above a smaller max -> LOC_LEN", test_2g_encoding_rejected},
		{"2 GiB with max 2 GiB on a sparse mapping", test_2g_sparse},
		{"device without MMO -> LOC_QP_OP", test_no_mmo_device},
		{"wrong opmod -> LOC_QP_OP", test_wrong_opmod},
	};
	static const struct cunit_test prot[] = {
		{"bounds: one byte past / before the MR, wrap", test_prot_bounds},
		{"wrong PD (dst, src)", test_prot_pd},
		{"dst without LOCAL_WRITE", test_prot_local_write},
		{"stale, zero and invalid keys", test_prot_keys},
		{"opaque key: other PD, no LOCAL_WRITE", test_prot_opaque},
		{"src needs no access flag", test_src_needs_no_access_flag},
		{"implicit ODP: success and write fault", test_odp_implicit},
		{"implicit ODP: unmapped source", test_odp_unmapped_source},
	};
	static const struct cunit_test cqe[] = {
		{"two QPs share one CQ", test_shared_cq_two_qps},
		{"128-byte CQEs, owner bit over passes", test_cqe128_and_owner_wrap},
		{"unsignaled WQEs make no CQE", test_unsignaled},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("mmo lengths", len),
		CUNIT_SUITE("mmo protection", prot),
		CUNIT_SUITE("mmo completions", cqe),
	};

	return CUNIT_RUN_SUITES(suites);
}
