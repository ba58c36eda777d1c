/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RC transport between QPs of one device: SEND/SEND_IMM/SEND_INV into receive
 * WQEs, RDMA write/read, atomics, inline data, WQEs straddling the ring end, raw
 * WQE bytes, remote access errors, receive-side errors, RNR waits and RNR retries.
 */
#include <errno.h>
#include <unistd.h>

#include <chrono>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

/** Two QPs A -> B (and B -> A), each with its own send and recv CQ. */
struct Pair {
	Env e;
	TestCq acq, arcq, bcq, brcq;
	TestQp a, b;
	/** @p a_rnr_retry: A's RNR retries; @p b_rnr_timer: B's min_rnr_timer. */
	explicit Pair(int b_access = kAllAccess, ExecMode mode = ExecMode::Inline,
		      uint8_t a_rnr_retry = 7, uint8_t b_rnr_timer = 12)
		: e(mode), acq(e.h(), 64), arcq(e.h(), 64), bcq(e.h(), 64), brcq(e.h(), 64),
		  a(e.h(), e.pdn, acq.cqn, arcq.cqn, 8, 16, 6, 0x11),
		  b(e.h(), e.pdn, bcq.cqn, brcq.cqn, 8, 16, 6, 0x22)
	{
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), a.qpn, b.qpn, kAllAccess, a_rnr_retry), 0);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), b.qpn, a.qpn, b_access, 7, b_rnr_timer), 0);
	}
	Hca &h() { return e.h(); }
};

struct mlx5_cqe64 one(TestCq &cq)
{
	struct mlx5_cqe64 c = {};
	CU_ASSERT_TRUE(cq.poll(&c));
	return c;
}

} // namespace

static void test_send_recv(void)
{
	Pair p;
	Buf src(300), dst(400);
	for (int i = 0; i < 300; i++)
		src.p()[i] = (uint8_t)i;
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 300, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 400, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(100, dk, dst.p()), dseg(300, dk, dst.p() + 100)});
	const char inl[] = "inline!";
	Wqe w(p.a, MLX5_OPCODE_SEND);
	w.data(150, sk, src.p()).inl(inl, 7).data(150, sk, src.p() + 150);
	w.post(p.a);
	p.a.ring(p.h());
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_bytes(r), 307u);
	CU_ASSERT_EQUAL(be32toh(r.flags_rqpn) & 0xffffff, p.a.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(r), 0x22u);
	CU_ASSERT_EQUAL(cqe_qpn(r), p.b.qpn);
	CU_ASSERT_EQUAL(cqe_counter(r), 0);
	struct mlx5_cqe64 s = one(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_wqe_op(s), MLX5_OPCODE_SEND);
	CU_ASSERT_EQUAL(cqe_uidx(s), 0x11u);
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p(), 150), 0);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 150, inl, 7), 0);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 157, src.p() + 150, 150), 0);
	CU_ASSERT_EQUAL(dst.p()[307], 0);
	CU_ASSERT_TRUE(dst.guards_intact());
}

static void test_send_imm_inv(void)
{
	Pair p;
	Buf dst(64);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	Wqe w1(p.a, MLX5_OPCODE_SEND_IMM, MLX5_WQE_CTRL_CQ_UPDATE, 0, htobe32(0xabcd1234));
	w1.inl("x", 1);
	w1.post(p.a);
	Wqe w2(p.a, MLX5_OPCODE_SEND_INVAL, MLX5_WQE_CTRL_CQ_UPDATE, 0, htobe32(0x4567));
	w2.post(p.a); /* zero-length send */
	p.a.ring(p.h());
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND_IMM);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 0xabcd1234u);
	CU_ASSERT_EQUAL(cqe_bytes(r), 1u);
	r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND_INV);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 0x4567u);
	CU_ASSERT_EQUAL(cqe_bytes(r), 0u);
	CU_ASSERT_EQUAL(cqe_counter(r), 1);
	CU_ASSERT_EQUAL(p.acq.drain(), 2);
}

static void test_rdma_write_read_self(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
	Buf a(256), b(256), c(256);
	for (int i = 0; i < 256; i++)
		a.p()[i] = (uint8_t)(255 - i);
	uint32_t ak = reg(e.h(), e.pdn, a.p(), 256, 0);
	uint32_t bk = reg(e.h(), e.pdn, b.p(), 256,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	uint32_t ck = reg(e.h(), e.pdn, c.p(), 256, IBV_ACCESS_LOCAL_WRITE);
	Wqe w(q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(b.p(), bk).data(256, ak, a.p());
	w.post(q);
	Wqe r(q, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_FENCE);
	r.raddr(b.p() + 16, bk).data(100, ck, c.p()).data(140, ck, c.p() + 100);
	r.post(q);
	q.ring(e.h());
	struct mlx5_cqe64 x = one(cq);
	CU_ASSERT_EQUAL(cqe_wqe_op(x), MLX5_OPCODE_RDMA_WRITE);
	CU_ASSERT_EQUAL(cqe_bytes(x), 256u);
	x = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(x), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_wqe_op(x), MLX5_OPCODE_RDMA_READ);
	CU_ASSERT_EQUAL(cqe_bytes(x), 240u);
	CU_ASSERT_EQUAL(memcmp(a.p(), b.p(), 256), 0);
	CU_ASSERT_EQUAL(memcmp(c.p(), a.p() + 16, 240), 0);
	CU_ASSERT_TRUE(c.guards_intact());
	/* a zero-length RDMA write checks no rkey */
	Wqe z(q, MLX5_OPCODE_RDMA_WRITE);
	z.raddr(b.p(), 0xdead00).inl("", 0);
	z.post(q);
	q.ring(e.h());
	x = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(x), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_bytes(x), 0u);
}

static void test_write_imm(void)
{
	Pair p;
	Buf dst(64), rq(16);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	p.b.post_recv(p.h(), {});
	Wqe w(p.a, MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_WQE_CTRL_CQ_UPDATE, 0, htobe32(77));
	w.raddr(dst.p() + 8, dk).inl("hello", 5);
	w.post(p.a);
	p.a.ring(p.h());
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_WR_IMM);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 77u);
	CU_ASSERT_EQUAL(cqe_bytes(r), 5u);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 8, "hello", 5), 0);
	CU_ASSERT_EQUAL(one(p.acq).op_own >> 4, MLX5_CQE_REQ);
}

static void test_atomics(void)
{
	Pair p;
	uint64_t *target = static_cast<uint64_t *>(aligned_alloc(64, 64));
	uint64_t *res = static_cast<uint64_t *>(aligned_alloc(64, 64));
	target[0] = 100;
	target[1] = 5;
	uint32_t tk = reg(p.h(), p.e.pdn, target, 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	uint32_t rk = reg(p.h(), p.e.pdn, res, 64, IBV_ACCESS_LOCAL_WRITE);
	Wqe fa(p.a, MLX5_OPCODE_ATOMIC_FA);
	fa.raddr(target, tk).atomic(23, 0).data(8, rk, res);
	fa.post(p.a);
	Wqe cs(p.a, MLX5_OPCODE_ATOMIC_CS);
	cs.raddr(target + 1, tk).atomic(99, 5).data(8, rk, res + 1);
	cs.post(p.a);
	Wqe cs2(p.a, MLX5_OPCODE_ATOMIC_CS);
	cs2.raddr(target + 1, tk).atomic(1, 5).data(8, rk, res + 2); /* compare fails */
	cs2.post(p.a);
	p.a.ring(p.h());
	CU_ASSERT_EQUAL(target[0], 123u);
	CU_ASSERT_EQUAL(res[0], 100u);
	CU_ASSERT_EQUAL(target[1], 99u);
	CU_ASSERT_EQUAL(res[1], 5u);
	CU_ASSERT_EQUAL(res[2], 99u);
	struct mlx5_cqe64 c = one(p.acq);
	CU_ASSERT_EQUAL(cqe_wqe_op(c), MLX5_OPCODE_ATOMIC_FA);
	CU_ASSERT_EQUAL(cqe_bytes(c), 8u);
	CU_ASSERT_EQUAL(p.acq.drain(), 2);
	/* misaligned remote address: invalid request */
	Wqe bad(p.a, MLX5_OPCODE_ATOMIC_FA);
	bad.raddr((uint8_t *)target + 4, tk).atomic(1, 0).data(8, rk, res);
	bad.post(p.a);
	p.a.ring(p.h());
	c = one(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	CU_ASSERT_EQUAL(target[0], 123u);
	free(target);
	free(res);
}

/** One remote access violation by RDMA write or read: nothing touched. */
static void remote_case(int which)
{
	Pair p(which == 5 ? IBV_ACCESS_REMOTE_READ : kAllAccess);
	uint32_t pd2;
	CU_ASSERT_EQUAL_FATAL(p.h().alloc_pd(&pd2), 0);
	Buf rbuf(128, 0x55), lbuf(128, 0x33);
	uint32_t lk = reg(p.h(), p.e.pdn, lbuf.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t rk = reg(p.h(), p.e.pdn, rbuf.p(), 128,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	uint32_t rk_local = reg(p.h(), p.e.pdn, rbuf.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t rk_pd2 = reg(p.h(), pd2, rbuf.p(), 128,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ);
	bool read = which >= 6;
	uint8_t op = read ? MLX5_OPCODE_RDMA_READ : MLX5_OPCODE_RDMA_WRITE;
	Wqe w(p.a, op);
	uint8_t synd = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	enum ibv_event_type ev = IBV_EVENT_QP_ACCESS_ERR;
	switch (which) {
	case 0:
		w.raddr(rbuf.p(), rk ^ 0x80);
		break; /* bad rkey */
	case 1:
		w.raddr(rbuf.p(), rk_local);
		break; /* no REMOTE_WRITE */
	case 2:
		w.raddr(rbuf.p(), rk_pd2);
		break; /* other PD */
	case 3:
		w.raddr(rbuf.p() + 1, rk);
		break; /* one byte past */
	case 4:
		w.raddr(rbuf.p(), 0);
		break; /* zero key */
	case 5:        /* responder QP does not enable RDMA write */
		w.raddr(rbuf.p(), rk);
		synd = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
		ev = IBV_EVENT_QP_REQ_ERR;
		break;
	case 6:
		w.raddr(rbuf.p(), rk_local);
		break; /* read: no REMOTE_READ */
	case 7:
		w.raddr(rbuf.p() - 1, rk);
		break; /* read: one byte before */
	}
	w.data(128, lk, lbuf.p());
	w.post(p.a);
	Wqe after(p.a, MLX5_OPCODE_NOP);
	after.post(p.a);
	p.a.ring(p.h());
	struct mlx5_cqe64 c = one(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), synd);
	CU_ASSERT_EQUAL(cqe_wqe_op(c), op);
	CU_ASSERT_EQUAL(cqe_counter(c), 0);
	c = one(p.acq); /* the NOP is flushed */
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(cqe_counter(c), 1);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_ERR);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_ERR);
	AsyncEvent e;
	CU_ASSERT_EQUAL_FATAL(p.h().get_async_event(&e), 0);
	CU_ASSERT_EQUAL(e.type, ev);
	CU_ASSERT_EQUAL(e.qpn, p.b.qpn);
	for (int i = 0; i < 128; i++) {
		CU_ASSERT_EQUAL_FATAL(rbuf.p()[i], 0x55);
		CU_ASSERT_EQUAL_FATAL(lbuf.p()[i], 0x33);
	}
	CU_ASSERT_TRUE(rbuf.guards_intact());
	CU_ASSERT_TRUE(lbuf.guards_intact());
}

static void test_remote_write_errors(void)
{
	for (int i = 0; i <= 5; i++)
		remote_case(i);
}

static void test_remote_read_errors(void)
{
	remote_case(6);
	remote_case(7);
}

static void test_rnr_wait(void)
{
	Pair p;
	Buf dst(64);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	Wqe w(p.a, MLX5_OPCODE_SEND);
	w.inl("abc", 3);
	w.post(p.a);
	Wqe n(p.a, MLX5_OPCODE_NOP);
	n.post(p.a);
	p.a.ring(p.h());
	CU_ASSERT_EQUAL(p.acq.drain(), 0); /* waits for a receive WQE */
	QpInfo info{};
	p.h().query_qp(p.a.qpn, &info);
	CU_ASSERT_EQUAL(info.hw_sq_wqebb_counter, 0);
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	CU_ASSERT_EQUAL(p.acq.drain(), 2);
	CU_ASSERT_EQUAL(p.brcq.drain(), 1);
	CU_ASSERT_EQUAL(memcmp(dst.p(), "abc", 3), 0);
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/** Poll @p cq for up to @p ms without touching the device otherwise. */
bool wait_cqe(TestCq &cq, struct mlx5_cqe64 *c, int ms)
{
	Clock::time_point t0 = Clock::now();
	while (ms_since(t0) < ms) {
		if (cq.poll(c))
			return true;
		usleep(100);
	}
	return cq.poll(c);
}

/** A SEND of 3 inline bytes then a NOP into A, rung once. */
void post_send_nop(Pair &p)
{
	Wqe w(p.a, MLX5_OPCODE_SEND);
	w.inl("abc", 3);
	w.post(p.a);
	Wqe n(p.a, MLX5_OPCODE_NOP);
	n.post(p.a);
	p.a.ring(p.h());
}

/** A's SEND failed with @p synd (the NOP behind it flushed); A in ERR, B untouched. */
void check_send_failed(Pair &p, const struct mlx5_cqe64 &c, uint8_t synd, bool b_alive)
{
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(c), synd);
	CU_ASSERT_EQUAL(cqe_counter(c), 0);
	struct mlx5_cqe64 f = {};
	CU_ASSERT_TRUE(wait_cqe(p.acq, &f, 1000));
	CU_ASSERT_EQUAL(cqe_syndrome(f), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(cqe_counter(f), 1);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_ERR);
	if (b_alive) {
		CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
		CU_ASSERT_EQUAL(p.brcq.drain(), 0);
	}
}

} // namespace

static void test_rnr_retry_zero(void)
{
	/* rnr_retry 0: the first RNR NAK ends the send, at the doorbell */
	for (ExecMode mode : {ExecMode::Inline, ExecMode::Thread}) {
		Pair p(kAllAccess, mode, 0);
		post_send_nop(p);
		struct mlx5_cqe64 c = {};
		CU_ASSERT_TRUE_FATAL(wait_cqe(p.acq, &c, mode == ExecMode::Inline ? 0 : 1000));
		check_send_failed(p, c, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, true);
	}
}

static void test_rnr_retry_timer(void)
{
	/* thread mode: 3 retries on B's timer 14 (1.28 ms), no further call needed */
	{
		Pair p(kAllAccess, ExecMode::Thread, 3, 14);
		Clock::time_point t0 = Clock::now();
		post_send_nop(p);
		struct mlx5_cqe64 c = {};
		CU_ASSERT_TRUE_FATAL(wait_cqe(p.acq, &c, 2000));
		CU_ASSERT_TRUE(ms_since(t0) >= 3 * 1.28);
		check_send_failed(p, c, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, true);
	}
	/* inline: retries are counted when the device looks again (here: quiesce) */
	{
		Pair p(kAllAccess, ExecMode::Inline, 3, 20); /* 3 x 10.24 ms */
		post_send_nop(p);
		p.a.ring(p.h()); /* at once: still retrying */
		CU_ASSERT_EQUAL(p.acq.drain(), 0);
		usleep(40000);
		CU_ASSERT_EQUAL(p.acq.drain(), 0); /* nothing without the device looking */
		p.h().quiesce();
		struct mlx5_cqe64 c = {};
		CU_ASSERT_TRUE_FATAL(p.acq.poll(&c));
		check_send_failed(p, c, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, true);
	}
}

static void test_rnr_responder_gone(void)
{
	/* rnr_retry 7 waits for ever, until the responder stops answering */
	for (ExecMode mode : {ExecMode::Inline, ExecMode::Thread}) {
		for (int destroy = 0; destroy < 2; destroy++) {
			Pair p(kAllAccess, mode);
			post_send_nop(p);
			struct mlx5_cqe64 c = {};
			CU_ASSERT_FALSE(wait_cqe(p.acq, &c, 30));
			int rc = destroy ? p.h().destroy_qp(p.b.qpn)
					 : set_state(p.h(), p.b.qpn, IBV_QPS_ERR);
			CU_ASSERT_EQUAL(rc, 0);
			/* no doorbell: inline at the modify/destroy, thread mode on its own */
			CU_ASSERT_TRUE_FATAL(
				wait_cqe(p.acq, &c, mode == ExecMode::Inline ? 0 : 1000));
			check_send_failed(p, c, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, false);
		}
	}
}

static void test_recv_errors(void)
{
	for (int which = 0; which < 2; which++) {
		Pair p;
		Buf dst(64, 0x44);
		uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t dk_ro = reg(p.h(), p.e.pdn, dst.p(), 64, 0);
		if (which == 0) /* too small */
			p.b.post_recv(p.h(), {dseg(4, dk, dst.p())});
		else /* no LOCAL_WRITE on the receive buffer */
			p.b.post_recv(p.h(), {dseg(64, dk_ro, dst.p())});
		p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
		Wqe w(p.a, MLX5_OPCODE_SEND);
		w.inl("0123456789", 10);
		w.post(p.a);
		p.a.ring(p.h());
		struct mlx5_cqe64 c = one(p.acq);
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(c), which == 0 ? MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR
							    : MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
		c = one(p.brcq);
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(c), which == 0 ? MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR
							    : MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_EQUAL(cqe_counter(c), 0);
		CU_ASSERT_EQUAL(cqe_qpn(c), p.b.qpn);
		c = one(p.brcq); /* the second receive WQE is flushed */
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(cqe_counter(c), 1);
		for (int i = 0; i < 64; i++)
			CU_ASSERT_EQUAL_FATAL(dst.p()[i], 0x44);
	}
}

static void test_responder_not_ready(void)
{
	Pair p;
	CU_ASSERT_EQUAL(set_state(p.h(), p.b.qpn, IBV_QPS_RESET), 0);
	Wqe w(p.a, MLX5_OPCODE_SEND);
	w.inl("x", 1);
	w.post(p.a);
	p.a.ring(p.h());
	struct mlx5_cqe64 c = one(p.acq);
	CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
}

static void test_straddle_ring_end(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 4);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
	Buf src(500), dst(500);
	for (int i = 0; i < 500; i++)
		src.p()[i] = (uint8_t)(i * 3);
	uint32_t sk = reg(e.h(), e.pdn, src.p(), 500, 0);
	uint32_t dk = reg(e.h(), e.pdn, dst.p(), 500,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	for (int i = 0; i < 3; i++) {
		Wqe n(q, MLX5_OPCODE_NOP, 0);
		n.post(q);
	}
	q.ring(e.h()); /* slot 0 is about to be reused */
	/* RDMA write with 6 gather entries: ds 8 = 2 WQEBBs at slots 3 and 0 */
	Wqe w(q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(dst.p(), dk);
	for (int i = 0; i < 6; i++)
		w.data(50, sk, src.p() + 50 * i);
	w.post(q);
	q.ring(e.h());
	struct mlx5_cqe64 c = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_counter(c), 3);
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p(), 300), 0);
	Wqe n(q, MLX5_OPCODE_NOP, 0);
	n.post(q); /* slot 1 */
	q.post_recv(e.h(), {dseg(200, dk, dst.p() + 300)});
	Wqe s(q, MLX5_OPCODE_SEND);
	s.inl(src.p() + 300, 150); /* ds 11 = 3 WQEBBs at slots 2, 3, 0 */
	s.post(q);
	q.ring(e.h());
	c = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_counter(c), 6);
	c = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 300, src.p() + 300, 150), 0);
	CU_ASSERT_TRUE(dst.guards_intact());
}

static void test_raw_wqe_bytes(void)
{
	/* bytes as a caller of mlx5dv_wr_raw_wqe would lay them out: a SEND with a
	 * foreign signature byte, and an MMO; the device has no special path */
	Pair p;
	Buf src(64, 0x5a), dst(64), dst2(64), opaque(64);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 64, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t d2 = reg(p.h(), p.e.pdn, dst2.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t ok = reg(p.h(), p.e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	uint8_t raw[64] = {};
	auto *ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(raw);
	mlx5dv_set_ctrl_seg(ctrl, 0, MLX5_OPCODE_SEND, 0, p.a.qpn, MLX5_WQE_CTRL_CQ_UPDATE, 2, 0x77,
			    0);
	mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(raw + 16), 64, sk,
			    (uintptr_t)src.p());
	p.a.post(raw, 32, 1);
	uint8_t mmo[64] = {};
	auto *mw = reinterpret_cast<struct mlx5_hw_mmo_wqe *>(mmo);
	mlx5dv_set_ctrl_seg(&mw->ctrl, 1, MLX5_OPCODE_MMO, MLX5_HW_OPC_MOD_MMO_DMA, p.a.qpn,
			    MLX5_WQE_CTRL_CQ_UPDATE, 4, 0, 0xdeadbeef /* stale imm: ignored */);
	mlx5_hw_st_be32(&mw->meta.local_key, ok);
	mlx5_hw_st_be64(&mw->meta.local_address, (uintptr_t)opaque.p());
	mlx5dv_set_data_seg(&mw->src, 64, sk, (uintptr_t)src.p());
	mlx5dv_set_data_seg(&mw->dst, 64, d2, (uintptr_t)dst2.p());
	p.a.post(mmo, 64, 1);
	p.a.ring(p.h());
	CU_ASSERT_EQUAL(p.acq.drain(), 2);
	CU_ASSERT_EQUAL(p.brcq.drain(), 1);
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p(), 64), 0);
	CU_ASSERT_EQUAL(memcmp(dst2.p(), src.p(), 64), 0);
}

/*
 * SENDs into an SRQ (libmlx5's linked list, srq.c): WQEs taken along the
 * next_wqe_index links; ARM_RQ raises SRQ_LIMIT_REACHED once when fewer WQEs
 * than the limit are left, then reads back 0; a limit not below the WQE count
 * and an unknown SRQ are -EINVAL.
 */
static void test_srq_limit(void)
{
	Env e;
	TestCq scq(e.h(), 64), rcq(e.h(), 64);
	constexpr uint32_t kWqes = 8, kShift = 5;
	uint8_t *ring = static_cast<uint8_t *>(page_alloc(kWqes << kShift));
	memset(ring, 0, kWqes << kShift);
	/* links 0 -> 2 -> 4 -> 6 -> 1 -> ...: the device must follow them, not count */
	static const uint16_t next[kWqes] = {2, 3, 4, 5, 6, 7, 1, 0};
	for (uint32_t i = 0; i < kWqes; i++)
		*reinterpret_cast<uint16_t *>(ring + (i << kShift) + 2) = htobe16(next[i]);
	uint32_t srq_db[1] = {0};
	uint32_t srqn = 0;
	CU_ASSERT_EQUAL_FATAL(
		e.h().create_srq(SrqConfig{e.pdn, ring, kWqes, kShift, srq_db}, &srqn), 0);
	TestQp a(e.h(), e.pdn, scq.cqn, scq.cqn, 8, 0);
	QpConfig bc = a.cfg;
	bc.send_cqn = rcq.cqn;
	bc.recv_cqn = rcq.cqn;
	bc.rq_wqe_cnt = 0;
	bc.rq_buf = nullptr;
	bc.srqn = srqn;
	uint32_t bqpn = 0;
	CU_ASSERT_EQUAL_FATAL(e.h().create_qp(bc, &bqpn), 0);
	CU_ASSERT_EQUAL(e.h().destroy_srq(srqn), -EBUSY);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), a.qpn, bqpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), bqpn, a.qpn, kAllAccess), 0);

	Buf src(64), dst(4 * 16);
	for (int i = 0; i < 64; i++)
		src.p()[i] = (uint8_t)(i + 1);
	uint32_t sk = reg(e.h(), e.pdn, src.p(), 64, 0);
	uint32_t dk = reg(e.h(), e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	/* four WQEs along the links: 0, 2, 4, 6; each scatters into its own 16 bytes */
	uint16_t idx = 0;
	for (uint32_t n = 0; n < 4; n++) {
		struct mlx5_wqe_data_seg d = dseg(16, dk, dst.p() + 16 * n);
		memcpy(ring + ((uint32_t)idx << kShift) + 16, &d, 16);
		idx = next[idx];
	}
	__atomic_store_n(&srq_db[0], htobe32(4), __ATOMIC_RELEASE);
	e.h().srq_notify(srqn);

	uint32_t limit = 9;
	CU_ASSERT_EQUAL(e.h().arm_srq(srqn, kWqes), -EINVAL);
	CU_ASSERT_EQUAL(e.h().arm_srq(srqn + 7, 1), -EINVAL);
	CU_ASSERT_EQUAL(e.h().query_srq(srqn + 7, &limit), -EINVAL);
	CU_ASSERT_EQUAL(e.h().arm_srq(srqn, 3), 0);
	CU_ASSERT_EQUAL(e.h().query_srq(srqn, &limit), 0);
	CU_ASSERT_EQUAL(limit, 3u);

	AsyncEvent ev;
	static const uint16_t expect_idx[] = {0, 2, 4, 6};
	for (uint32_t n = 0; n < 4; n++) {
		Wqe w(a, MLX5_OPCODE_SEND);
		w.data(16, sk, src.p() + 16 * n);
		w.post(a);
		a.ring(e.h());
		struct mlx5_cqe64 r = {};
		CU_ASSERT_TRUE(rcq.poll(&r));
		CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
		CU_ASSERT_EQUAL(cqe_counter(r), expect_idx[n]);
		CU_ASSERT_EQUAL(scq.drain(), 1);
		/* 4 - (n + 1) WQEs left: below 3 first after the second SEND */
		int got = e.h().get_async_event(&ev);
		if (n == 1) {
			CU_ASSERT_EQUAL(got, 0);
			CU_ASSERT_EQUAL(ev.type, IBV_EVENT_SRQ_LIMIT_REACHED);
			CU_ASSERT_EQUAL(ev.srqn, srqn);
		} else {
			CU_ASSERT_EQUAL(got, -EAGAIN);
		}
	}
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p(), 64), 0);
	CU_ASSERT_EQUAL(e.h().query_srq(srqn, &limit), 0);
	CU_ASSERT_EQUAL(limit, 0u); /* disarmed by the event */
	CU_ASSERT_EQUAL(e.h().destroy_qp(bqpn), 0);
	CU_ASSERT_EQUAL(e.h().destroy_srq(srqn), 0);
	CU_ASSERT_EQUAL(e.h().arm_srq(srqn, 1), -EINVAL);
	free(ring);
}

/* One RDMA write of 64 bytes through self-connected @p q into @p dst / @p rkey. */
static uint8_t rereg_write(Env &e, TestCq &cq, TestQp &q, Buf &src, uint32_t sk, void *dst,
			   uint32_t rkey)
{
	Wqe w(q, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(dst, rkey).data(64, sk, src.p());
	w.post(q);
	q.ring(e.h());
	struct mlx5_cqe64 x = one(cq);
	uint8_t op = cqe_opcode(x);
	if (op != MLX5_CQE_REQ) { /* the QP is in ERR now: back to RTS */
		CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RESET), 0);
		q.pi = 0;
		__atomic_store_n(&q.dbrec[MLX5_SND_DBR], 0, __ATOMIC_RELEASE);
		CU_ASSERT_EQUAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
		return cqe_syndrome(x);
	}
	return 0;
}

/*
 * REREG_MR in place: the key stays, WQEs with it see the new access, PD and
 * range at once; refusals (bad key, PD, access, unmapped range) change nothing.
 */
static void test_rereg_mr(void)
{
	Env e;
	TestCq cq(e.h(), 64);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, q.qpn, kAllAccess), 0);
	Buf src(64, 0x5a), a(64), b(128);
	uint32_t sk = reg(e.h(), e.pdn, src.p(), 64, 0);
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	uint32_t k = reg(e.h(), e.pdn, a.p(), 64, rw);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, a.p(), k), 0);
	CU_ASSERT_EQUAL(a.p()[63], 0x5a);
	/* access without remote write: the same rkey is refused now */
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, e.pdn, (uintptr_t)a.p(), 64, IBV_ACCESS_LOCAL_WRITE), 0);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, a.p(), k),
			MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	/* another PD: the QP's PD no longer matches */
	uint32_t pd2 = 0;
	CU_ASSERT_EQUAL_FATAL(e.h().alloc_pd(&pd2), 0);
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, pd2, (uintptr_t)a.p(), 64, rw), 0);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(pd2), -EBUSY);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, a.p(), k),
			MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	/* a new range under the same key; the old one is no longer covered */
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, e.pdn, (uintptr_t)b.p(), 128, rw), 0);
	CU_ASSERT_EQUAL(e.h().dealloc_pd(pd2), 0);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, b.p() + 64, k), 0);
	CU_ASSERT_EQUAL(b.p()[127], 0x5a);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, a.p(), k),
			MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	/* refusals leave the MR as it was */
	CU_ASSERT_EQUAL(e.h().rereg_mr(k ^ 1, e.pdn, (uintptr_t)b.p(), 128, rw), -EINVAL);
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, 77, (uintptr_t)b.p(), 128, rw), -EINVAL);
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, e.pdn, (uintptr_t)b.p(), 128, IBV_ACCESS_REMOTE_WRITE),
			-EINVAL);
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, e.pdn, 0x1000, 4096, rw), -EFAULT);
	CU_ASSERT_EQUAL(rereg_write(e, cq, q, src, sk, b.p(), k), 0);
	CU_ASSERT_TRUE(a.guards_intact());
	CU_ASSERT_TRUE(b.guards_intact());
	CU_ASSERT_EQUAL(e.h().dereg_mr(k), 0);
	CU_ASSERT_EQUAL(e.h().rereg_mr(k, e.pdn, (uintptr_t)b.p(), 128, rw), -EINVAL);
}

int main(void)
{
	static const struct cunit_test ok[] = {
		{"SEND gather/inline into a receive WQE", test_send_recv},
		{"SEND_IMM and SEND_INV", test_send_imm_inv},
		{"RDMA write and read on a self-connected QP", test_rdma_write_read_self},
		{"RDMA_WRITE_IMM consumes a receive WQE", test_write_imm},
		{"atomics FA and CS", test_atomics},
		{"WQEs straddling the ring end", test_straddle_ring_end},
		{"raw WQE bytes: SEND and MMO", test_raw_wqe_bytes},
		{"SEND waits for a receive WQE (RNR)", test_rnr_wait},
		{"SENDs into an SRQ, its limit event", test_srq_limit},
		{"REREG_MR: same key, new access, PD and range", test_rereg_mr},
	};
	static const struct cunit_test rnr[] = {
		{"rnr_retry 0: RNR_RETRY_EXC at the first RNR NAK", test_rnr_retry_zero},
		{"rnr_retry 3: RNR_RETRY_EXC on the RNR timer", test_rnr_retry_timer},
		{"responder to ERR or destroyed: RETRY_EXC", test_rnr_responder_gone},
	};
	static const struct cunit_test bad[] = {
		{"RDMA write remote access errors", test_remote_write_errors},
		{"RDMA read remote access errors", test_remote_read_errors},
		{"receive too small / unwritable", test_recv_errors},
		{"responder not ready -> retry exceeded", test_responder_not_ready},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("rc transport", ok),
		CUNIT_SUITE("rc errors", bad),
		CUNIT_SUITE("rc rnr retries", rnr),
	};

	return CUNIT_RUN_SUITES(suites);
}
