/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Error semantics: malformed WQEs, every producible syndrome followed by one
 * flush CQE per outstanding WQE (send and receive), doorbells in ERR, CQ overrun,
 * fault injection, and a fuzz run of random WQE bytes.
 */
#include <errno.h>

#include <random>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

struct Fix {
	Env e;
	TestCq cq, rcq;
	TestQp q;
	Buf buf;
	uint32_t key;
	explicit Fix(uint32_t ncqe = 64, ExecMode mode = ExecMode::Inline, HcaCaps caps = HcaCaps())
		: e(mode, caps), cq(e.h(), ncqe), rcq(e.h(), 64),
		  q(e.h(), e.pdn, cq.cqn, rcq.cqn, 8), buf(256)
	{
		key = reg(e.h(), e.pdn, buf.p(), 256, kAllAccess);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, 0), 0);
	}
	Hca &h() { return e.h(); }
	void nop(uint8_t fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE)
	{
		Wqe w(q, MLX5_OPCODE_NOP, fm_ce_se);
		w.post(q);
	}
	/** After the failing WQE at @p idx: error CQE, then flushes up to q.pi. */
	void expect_err_then_flush(uint16_t idx, uint8_t synd, uint8_t opcode, uint32_t nflush,
				   uint8_t vendor = 0)
	{
		struct mlx5_cqe64 c;
		CU_ASSERT_TRUE_FATAL(cq.poll(&c));
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(c), synd);
		CU_ASSERT_EQUAL(cqe_vendor(c), vendor);
		CU_ASSERT_EQUAL(cqe_counter(c), idx);
		CU_ASSERT_EQUAL(cqe_wqe_op(c), opcode);
		CU_ASSERT_EQUAL(cqe_uidx(c), 0x77u);
		for (uint32_t i = 0; i < nflush; i++) {
			CU_ASSERT_TRUE_FATAL(cq.poll(&c));
			CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
			CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		}
		CU_ASSERT_EQUAL(cq.drain(), 0);
		CU_ASSERT_EQUAL(qp_state(h(), q.qpn), IBV_QPS_ERR);
		QpInfo info{};
		h().query_qp(q.qpn, &info);
		CU_ASSERT_EQUAL(info.hw_sq_wqebb_counter, (uint16_t)q.pi);
	}
};

} // namespace

static void malformed_case(int which)
{
	Fix f;
	f.nop();
	uint16_t idx = (uint16_t)f.q.pi;
	uint8_t op = MLX5_OPCODE_NOP;
	switch (which) {
	case 0: {
		Wqe w(f.q, MLX5_OPCODE_NOP);
		w.post(f.q, 0);
		break;
	} /* ds 0 */
	case 1: {
		op = 0x33;
		Wqe w(f.q, op);
		w.post(f.q);
		break;
	} /* bad opcode */
	case 2: {
		Wqe w(f.q, op);
		w.ctrl(idx + 1, op, 0, f.q.qpn, 8, 0);
		w.post(f.q);
		break;
	}
	case 3: {
		Wqe w(f.q, op);
		w.ctrl(idx, op, 0, f.q.qpn + 1, 8, 0);
		w.post(f.q);
		break;
	}
	case 4: {
		Wqe w(f.q, op);
		w.post(f.q, 63);
		f.q.pi = idx + 1;
		break;
	} /* ds > ring */
	case 5: {
		Wqe w(f.q, op);
		w.post(f.q, 8);
		f.q.pi = idx + 1;
		break;
	} /* past producer */
	case 6: {
		op = MLX5_OPCODE_UMR;
		Wqe w(f.q, op);
		w.post(f.q, 4);
		break;
	} /* ds below ctrl + UMR ctrl + mkey context */
	case 7: {
		op = MLX5_OPCODE_SET_PSV;
		Wqe w(f.q, op);
		w.post(f.q, 1);
		break;
	}         /* SET_PSV without its segment */
	case 8: { /* inline length beyond ds */
		static const uint8_t data[40] = {1};
		op = MLX5_OPCODE_SEND;
		Wqe w(f.q, op);
		w.inl(data, 40);
		w.post(f.q, 2);
		break;
	}
	case 9: {
		op = MLX5_OPCODE_RDMA_WRITE;
		Wqe w(f.q, op);
		w.post(f.q, 1);
		break;
	}
	}
	if (which != 5) { /* case 5: the WQE must end past the producer counter */
		f.nop(0);
		f.nop();
	}
	f.q.ring(f.h());
	struct mlx5_cqe64 c;
	CU_ASSERT_TRUE_FATAL(f.cq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	f.expect_err_then_flush(idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, op, which == 5 ? 0 : 2);
}

static void test_malformed(void)
{
	for (int i = 0; i <= 9; i++)
		malformed_case(i);
}

/** Each syndrome the model produces, followed by flushes of 2 WQEs and the RQ. */
static void syndrome_case(int which)
{
	HcaCaps caps;
	caps.max_wr_memcpy_length = 64;
	Fix f(64, ExecMode::Inline, caps);
	Buf opaque(64);
	uint32_t ok = reg(f.h(), f.e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	f.q.post_recv(f.h(), {dseg(16, f.key, f.buf.p())});
	f.q.post_recv(f.h(), {dseg(16, f.key, f.buf.p())});
	uint16_t idx = (uint16_t)f.q.pi;
	uint8_t synd = 0, vendor = 0, op = MLX5_OPCODE_NOP;
	switch (which) {
	case 0: { /* LOC_LEN: memcpy above the device maximum */
		op = MLX5_OPCODE_MMO;
		Wqe w(f.q, op, 8, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(ok, opaque.p()).data(65, f.key, f.buf.p()).data(65, f.key, f.buf.p() + 100);
		w.post(f.q);
		synd = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		break;
	}
	case 1: {
		op = 0x7f;
		Wqe w(f.q, op);
		w.post(f.q);
		synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		break;
	}
	case 2: { /* LOC_PROT */
		op = MLX5_OPCODE_RDMA_WRITE;
		Wqe w(f.q, op);
		w.raddr(f.buf.p(), f.key).data(16, f.key + 1, f.buf.p());
		w.post(f.q);
		synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		break;
	}
	case 3: { /* REM_INV_REQ: this QP enables no remote access */
		op = MLX5_OPCODE_RDMA_WRITE;
		Wqe w(f.q, op);
		w.raddr(f.buf.p(), f.key).data(16, f.key, f.buf.p());
		w.post(f.q);
		synd = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
		break;
	}
	case 4: { /* REM_ACCESS */
		struct ibv_qp_attr a = {};
		a.qp_access_flags = kAllAccess;
		CU_ASSERT_EQUAL(f.h().modify_qp(f.q.qpn, a, IBV_QP_ACCESS_FLAGS), 0);
		op = MLX5_OPCODE_RDMA_READ;
		Wqe w(f.q, op);
		w.raddr(f.buf.p(), f.key + 1).data(16, f.key, f.buf.p());
		w.post(f.q);
		synd = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
		break;
	}
	case 5: { /* injected: any syndrome with a vendor syndrome */
		Fault flt{Fault::Kind::FailWqe};
		flt.qpn = f.q.qpn;
		flt.wqe_index = idx;
		flt.syndrome = MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR;
		flt.vendor_syndrome = 0x42;
		CU_ASSERT_EQUAL(f.h().inject(flt), 0);
		f.nop();
		synd = flt.syndrome;
		vendor = 0x42;
		break;
	}
	}
	f.nop(0);
	f.nop(0);
	f.q.ring(f.h());
	f.expect_err_then_flush(idx, synd, op, 2, vendor);
	/* both receive WQEs flushed (a responder-side error consumes none here) */
	std::vector<struct mlx5_cqe64> rv;
	CU_ASSERT_EQUAL_FATAL(f.rcq.drain(&rv), 2);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(cqe_opcode(rv[i]), MLX5_CQE_RESP_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(rv[i]), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(cqe_counter(rv[i]), i);
		CU_ASSERT_EQUAL(cqe_qpn(rv[i]), f.q.qpn);
	}
}

static void test_syndromes(void)
{
	for (int i = 0; i <= 5; i++)
		syndrome_case(i);
}

static void test_doorbell_in_err_flushes(void)
{
	Fix f;
	CU_ASSERT_EQUAL(set_state(f.h(), f.q.qpn, IBV_QPS_ERR), 0);
	f.nop(0);
	f.nop(0);
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(f.cq.drain(), 2);
	f.q.post_recv(f.h(), {dseg(16, f.key, f.buf.p())});
	struct mlx5_cqe64 c;
	CU_ASSERT_TRUE_FATAL(f.rcq.poll(&c));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	/* modify to ERR flushes what was posted before */
	Fix g;
	g.nop();
	g.nop();
	__atomic_store_n(&g.q.dbrec[MLX5_SND_DBR], htobe32(g.q.pi), __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(set_state(g.h(), g.q.qpn, IBV_QPS_ERR), 0);
	CU_ASSERT_EQUAL(g.cq.drain(), 2);
}

static void test_cq_overrun(void)
{
	Fix f(4);
	for (int i = 0; i < 6; i++)
		f.nop();
	f.q.ring(f.h());
	std::vector<struct mlx5_cqe64> v;
	CU_ASSERT_EQUAL(f.cq.drain(&v), 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(cqe_opcode(v[i]), MLX5_CQE_REQ);
	AsyncEvent ev;
	CU_ASSERT_EQUAL_FATAL(f.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.type, IBV_EVENT_CQ_ERR);
	CU_ASSERT_EQUAL(ev.cqn, f.cq.cqn);
	CU_ASSERT_EQUAL(qp_state(f.h(), f.q.qpn), IBV_QPS_ERR);
	/* the CQ stays in error: nothing more is written */
	f.nop();
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(f.cq.drain(), 0);
	CU_ASSERT_EQUAL(f.h().stats().cqes_written, 4u);
}

/**
 * The device reads the consumer record only when its last copy leaves no room: a
 * consumer that keeps up never sees an overrun, one that stops sees it at the
 * first CQE past a full ring.
 */
static void test_cq_overrun_after_polls(void)
{
	Fix f(4);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 3 + round % 2; i++)
			f.nop();
		f.q.ring(f.h());
		CU_ASSERT_EQUAL(f.cq.drain(), 3 + round % 2);
	}
	AsyncEvent ev;
	CU_ASSERT_EQUAL(f.h().get_async_event(&ev), -EAGAIN);
	CU_ASSERT_EQUAL(qp_state(f.h(), f.q.qpn), IBV_QPS_RTS);
	/* 4 CQEs fill the ring; nobody polls; the fifth overruns it */
	for (int i = 0; i < 4; i++)
		f.nop();
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(f.h().get_async_event(&ev), -EAGAIN);
	f.nop();
	f.q.ring(f.h());
	CU_ASSERT_EQUAL_FATAL(f.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.type, IBV_EVENT_CQ_ERR);
	CU_ASSERT_EQUAL(qp_state(f.h(), f.q.qpn), IBV_QPS_ERR);
	CU_ASSERT_EQUAL(f.cq.drain(), 4);
	CU_ASSERT_EQUAL(f.h().stats().cqes_written, 14u);
}

static void test_fault_cq_overrun(void)
{
	Fix f;
	Fault flt{Fault::Kind::CqOverrun};
	flt.cqn = f.cq.cqn;
	CU_ASSERT_EQUAL(f.h().inject(flt), 0);
	flt.cqn = 999;
	CU_ASSERT_EQUAL(f.h().inject(flt), -EINVAL);
	f.nop();
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(f.cq.drain(), 0);
	AsyncEvent ev;
	CU_ASSERT_EQUAL_FATAL(f.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.type, IBV_EVENT_CQ_ERR);
	CU_ASSERT_EQUAL(qp_state(f.h(), f.q.qpn), IBV_QPS_ERR);
}

static void test_fault_qp_fatal(void)
{
	Fix f;
	f.q.post_recv(f.h(), {dseg(16, f.key, f.buf.p())});
	f.nop();
	__atomic_store_n(&f.q.dbrec[MLX5_SND_DBR], htobe32(f.q.pi), __ATOMIC_RELEASE);
	Fault flt{Fault::Kind::QpFatal};
	flt.qpn = f.q.qpn;
	CU_ASSERT_EQUAL(f.h().inject(flt), 0);
	AsyncEvent ev;
	CU_ASSERT_EQUAL_FATAL(f.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.type, IBV_EVENT_QP_FATAL);
	CU_ASSERT_EQUAL(ev.qpn, f.q.qpn);
	CU_ASSERT_EQUAL(qp_state(f.h(), f.q.qpn), IBV_QPS_ERR);
	CU_ASSERT_EQUAL(f.cq.drain(), 1);
	CU_ASSERT_EQUAL(f.rcq.drain(), 1);
	flt.qpn = 0x12345;
	CU_ASSERT_EQUAL(f.h().inject(flt), -EINVAL);
	Fault bad{Fault::Kind::FailWqe};
	bad.qpn = f.q.qpn;
	CU_ASSERT_EQUAL(f.h().inject(bad), -EINVAL); /* syndrome 0 */
}

static void test_fault_delay_inline(void)
{
	Fix f;
	Buf opaque(64);
	Fault flt{Fault::Kind::DelayCompletions};
	flt.qpn = f.q.qpn;
	flt.delay_us = 20000;
	CU_ASSERT_EQUAL(f.h().inject(flt), 0);
	struct ibv_qp_attr a = {};
	a.qp_access_flags = kAllAccess;
	CU_ASSERT_EQUAL(f.h().modify_qp(f.q.qpn, a, IBV_QP_ACCESS_FLAGS), 0);
	Wqe w(f.q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(f.buf.p() + 100, f.key).inl("delayed", 7);
	w.post(f.q);
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(memcmp(f.buf.p() + 100, "delayed", 7), 0); /* data first */
	CU_ASSERT_EQUAL(f.cq.drain(), 0);                          /* CQE held back */
	f.h().quiesce();
	CU_ASSERT_EQUAL(f.cq.drain(), 1);
	flt.delay_us = 0;
	CU_ASSERT_EQUAL(f.h().inject(flt), 0);
	f.nop();
	f.q.ring(f.h());
	CU_ASSERT_EQUAL(f.cq.drain(), 1);
}

static void test_fuzz(void)
{
	Fix f(1024);
	std::mt19937 rng(12345);
	for (int it = 0; it < 3000; it++) {
		uint8_t w[256];
		for (auto &b : w)
			b = (uint8_t)rng();
		uint32_t ds = rng() % 64;
		uint8_t op = (uint8_t)(rng() % 3 == 0 ? rng() : (rng() % 0x30));
		mlx5dv_set_ctrl_seg(reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(w),
				    (uint16_t)f.q.pi, op, (uint8_t)rng(), f.q.qpn, (uint8_t)rng(),
				    (uint8_t)ds, 0, rng());
		/* sometimes a real key with a wild address or length */
		if (rng() % 4 == 0)
			mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(
						    w + 16 * (1 + rng() % 3)),
					    rng(), f.key,
					    (uintptr_t)f.buf.p() + (int32_t)rng() % 512);
		uint32_t bbs = ds ? mlx5_hw_ds_to_wqebbs(ds) : 1;
		if (bbs > 4)
			bbs = 4;
		f.q.post(w, bbs * 64, bbs);
		f.q.ring(f.h());
		f.cq.drain();
		f.rcq.drain();
		if (qp_state(f.h(), f.q.qpn) == IBV_QPS_ERR) {
			CU_ASSERT_EQUAL(set_state(f.h(), f.q.qpn, IBV_QPS_RESET), 0);
			f.q.pi = 0;
			f.q.rq_pi = 0;
			f.q.dbrec[0] = f.q.dbrec[1] = 0;
			CU_ASSERT_EQUAL(connect_qp(f.h(), f.q.qpn, f.q.qpn, kAllAccess), 0);
		}
	}
	CU_ASSERT_TRUE(f.buf.guards_intact());
	CU_ASSERT_TRUE(f.h().stats().error_cqes > 0);
}

int main(void)
{
	static const struct cunit_test err[] = {
		{"malformed WQEs -> LOC_QP_OP, rest flushed", test_malformed},
		{"every syndrome, then one flush per WQE (SQ and RQ)", test_syndromes},
		{"doorbells and receives in ERR are flushed", test_doorbell_in_err_flushes},
		{"CQ overrun: CQ_ERR, QP to ERR, no CQE", test_cq_overrun},
		{"CQ overrun only past the consumer's last poll", test_cq_overrun_after_polls},
		{"random WQE bytes never escape", test_fuzz},
	};
	static const struct cunit_test flt[] = {
		{"CqOverrun", test_fault_cq_overrun},
		{"QpFatal", test_fault_qp_fatal},
		{"DelayCompletions (inline mode: released by quiesce)", test_fault_delay_inline},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("hca errors", err),
		CUNIT_SUITE("hca faults", flt),
	};

	return CUNIT_RUN_SUITES(suites);
}
