/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UC transport between QPs of one device (uc.cpp): SEND, SEND_IMM, RDMA WRITE and
 * WRITE_IMM delivered; losses at the responder (no receive, bad key, no write
 * access, not ready, not its peer) that the requester never hears of and that
 * leave the responder in its state; RDMA read and atomics refused at the
 * requester; the UC state machine's attribute masks.
 */
#include <errno.h>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

/** RESET -> INIT -> RTR -> RTS with the kernel's UC masks, connected to @p dqpn. */
int uc_up(Hca &h, uint32_t qpn, uint32_t dqpn, int access)
{
	int rc = qp_to_init(h, qpn, access);
	if (rc)
		return rc;
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.ah_attr.port_num = 1;
	rc = h.modify_qp(qpn, a,
			 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				 IBV_QP_RQ_PSN);
	if (rc)
		return rc;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	return h.modify_qp(qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/** Two UC QPs A and B of one device connected to each other, each with its own CQs. */
struct UcPair {
	Env e;
	TestCq acq, arcq, bcq, brcq;
	TestQp a, b;
	explicit UcPair(int b_access = kAllAccess, bool b_up = true)
		: acq(e.h(), 64), arcq(e.h(), 64), bcq(e.h(), 64), brcq(e.h(), 64),
		  a(e.h(), e.pdn, acq.cqn, arcq.cqn, 16, 16, 6, 0x11, IBV_QPT_UC),
		  b(e.h(), e.pdn, bcq.cqn, brcq.cqn, 16, 16, 6, 0x22, IBV_QPT_UC)
	{
		CU_ASSERT_EQUAL_FATAL(uc_up(e.h(), a.qpn, b.qpn, kAllAccess), 0);
		if (b_up)
			CU_ASSERT_EQUAL_FATAL(uc_up(e.h(), b.qpn, a.qpn, b_access), 0);
	}
	Hca &h() { return e.h(); }
	/** A -> B: one WQE of @p op with @p len bytes of @p src, to @p dst / @p rkey if RDMA. */
	void post(uint8_t op, uint32_t len, uint32_t sk, const void *src, const void *dst = nullptr,
		  uint32_t rkey = 0, uint32_t imm = 0)
	{
		Wqe w(a, op, MLX5_WQE_CTRL_CQ_UPDATE, 0, imm);
		if (dst)
			w.raddr(dst, rkey);
		w.data(len, sk, src);
		w.post(a);
		a.ring(h());
	}
};

struct mlx5_cqe64 one(TestCq &cq)
{
	struct mlx5_cqe64 c = {};
	CU_ASSERT_TRUE(cq.poll(&c));
	return c;
}

/** The requester's WQE completed successfully: no ACK, it completes once sent. */
void sent_ok(TestCq &cq, uint8_t op)
{
	struct mlx5_cqe64 s = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_wqe_op(s), op);
}

} // namespace

static void test_send_recv(void)
{
	UcPair p;
	Buf src(300), dst(512, 0xaa);
	for (int i = 0; i < 300; i++)
		src.p()[i] = (uint8_t)(i * 7 + 1);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 300, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 512, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(512, dk, dst.p())});
	p.post(MLX5_OPCODE_SEND, 300, sk, src.p());
	sent_ok(p.acq, MLX5_OPCODE_SEND);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_bytes(r), 300u); /* no GRH space: a connected service */
	CU_ASSERT_EQUAL(cqe_qpn(r), p.b.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(r), 0x22u);
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p(), 300), 0);
	CU_ASSERT_EQUAL(dst.p()[300], 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact());
	/* SEND with immediate */
	p.b.post_recv(p.h(), {dseg(512, dk, dst.p())});
	p.post(MLX5_OPCODE_SEND_IMM, 8, sk, src.p(), nullptr, 0, htobe32(0xc0de0001));
	sent_ok(p.acq, MLX5_OPCODE_SEND_IMM);
	r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND_IMM);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 0xc0de0001u);
	CU_ASSERT_EQUAL(cqe_bytes(r), 8u);
	CU_ASSERT_EQUAL(cqe_counter(r), 1);
}

static void test_write_and_imm(void)
{
	UcPair p;
	Buf src(2048), dst(4096, 0xaa);
	for (int i = 0; i < 2048; i++)
		src.p()[i] = (uint8_t)(i ^ 0x5c);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 2048, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 4096,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	p.post(MLX5_OPCODE_RDMA_WRITE, 2048, sk, src.p(), dst.p() + 100, dk);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 100, src.p(), 2048), 0);
	CU_ASSERT_EQUAL(dst.p()[99], 0xaa);
	CU_ASSERT_EQUAL(dst.p()[2148], 0xaa);
	CU_ASSERT_EQUAL(p.brcq.drain(), 0); /* a plain write takes no receive */
	/* WRITE_IMM: the data lands, a receive WQE completes with the immediate */
	Buf rb(64, 0xaa);
	uint32_t rk = reg(p.h(), p.e.pdn, rb.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(64, rk, rb.p())});
	p.post(MLX5_OPCODE_RDMA_WRITE_IMM, 16, sk, src.p() + 16, dst.p(), dk, htobe32(0x1234abcd));
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE_IMM);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_WR_IMM);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 0x1234abcdu);
	CU_ASSERT_EQUAL(cqe_bytes(r), 16u);
	CU_ASSERT_EQUAL(memcmp(dst.p(), src.p() + 16, 16), 0);
	CU_ASSERT_EQUAL(rb.p()[0], 0xaa); /* the receive buffer is not written */
	CU_ASSERT_TRUE(dst.guards_intact() && rb.guards_intact());
}

static void test_no_recv_lost(void)
{
	UcPair p;
	Buf src(64, 0x5a), dst(128, 0xaa), wd(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 64, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	uint32_t wk = reg(p.h(), p.e.pdn, wd.p(), 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	/* no receive posted: lost at once (no RNR), the sender completes */
	p.post(MLX5_OPCODE_SEND, 64, sk, src.p());
	sent_ok(p.acq, MLX5_OPCODE_SEND);
	p.post(MLX5_OPCODE_RDMA_WRITE_IMM, 32, sk, src.p(), wd.p(), wk, 1);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE_IMM);
	CU_ASSERT_EQUAL(wd.p()[0], 0xaa); /* the whole message is lost */
	/* a receive posted afterwards gets neither */
	p.b.post_recv(p.h(), {dseg(128, dk, dst.p())});
	CU_ASSERT_EQUAL(p.brcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[0], 0xaa);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
	/* the next message takes that receive */
	p.post(MLX5_OPCODE_SEND, 64, sk, src.p());
	sent_ok(p.acq, MLX5_OPCODE_SEND);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_counter(r), 0);
	CU_ASSERT_EQUAL(dst.p()[0], 0x5a);
}

static void test_bad_key_lost(void)
{
	UcPair p;
	Buf src(64, 0x5a), dst(64, 0xaa), ro(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 64, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	uint32_t rok = reg(p.h(), p.e.pdn, ro.p(), 64, IBV_ACCESS_REMOTE_READ);
	/* a wrong rkey, past the region, a key without remote write: nothing lands */
	p.post(MLX5_OPCODE_RDMA_WRITE, 64, sk, src.p(), dst.p(), dk ^ 0x100);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	p.post(MLX5_OPCODE_RDMA_WRITE, 64, sk, src.p(), dst.p() + 1, dk);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	p.post(MLX5_OPCODE_RDMA_WRITE, 64, sk, src.p(), ro.p(), rok);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	for (int i = 0; i < 64; i++)
		CU_ASSERT_TRUE(dst.p()[i] == 0xaa && ro.p()[i] == 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact() && ro.guards_intact());
	CU_ASSERT_EQUAL(p.bcq.drain() + p.brcq.drain(), 0);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
	/* the right key still works afterwards */
	p.post(MLX5_OPCODE_RDMA_WRITE, 64, sk, src.p(), dst.p(), dk);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	CU_ASSERT_EQUAL(dst.p()[63], 0x5a);
}

static void test_no_access_or_not_ready_lost(void)
{
	/* B's QP does not enable remote write */
	UcPair p(IBV_ACCESS_LOCAL_WRITE);
	Buf src(32, 0x5a), dst(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 32, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	p.post(MLX5_OPCODE_RDMA_WRITE, 32, sk, src.p(), dst.p(), dk);
	sent_ok(p.acq, MLX5_OPCODE_RDMA_WRITE);
	CU_ASSERT_EQUAL(dst.p()[0], 0xaa);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);

	/* B still in RESET, then in INIT: not ready, lost */
	UcPair q(kAllAccess, false);
	uint32_t qsk = reg(q.h(), q.e.pdn, src.p(), 32, 0);
	uint32_t qdk = reg(q.h(), q.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	q.b.post_recv(q.h(), {dseg(64, qdk, dst.p())});
	q.post(MLX5_OPCODE_SEND, 32, qsk, src.p());
	sent_ok(q.acq, MLX5_OPCODE_SEND);
	CU_ASSERT_EQUAL(qp_to_init(q.h(), q.b.qpn, kAllAccess), 0);
	q.post(MLX5_OPCODE_SEND, 32, qsk, src.p());
	sent_ok(q.acq, MLX5_OPCODE_SEND);
	CU_ASSERT_EQUAL(q.brcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[0], 0xaa);
	CU_ASSERT_EQUAL(qp_state(q.h(), q.b.qpn), IBV_QPS_INIT);
}

static void test_wrong_peer_lost(void)
{
	UcPair p;
	Buf src(32, 0x5a), dst(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 32, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	/* C is a UC QP connected to B, not to A's sender; an RC QP to A's number */
	TestCq cq(p.h(), 16);
	TestQp c(p.h(), p.e.pdn, cq.cqn, cq.cqn, 8, 16, 6, 0x33, IBV_QPT_UC);
	TestQp rc(p.h(), p.e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL_FATAL(uc_up(p.h(), c.qpn, p.b.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(p.h(), rc.qpn, p.a.qpn, kAllAccess), 0);
	c.post_recv(p.h(), {dseg(64, dk, dst.p())});
	rc.post_recv(p.h(), {dseg(64, dk, dst.p())});
	/* a new UC sender S connected to each: C expects B, the RC QP expects A */
	TestQp s1(p.h(), p.e.pdn, p.acq.cqn, p.acq.cqn, 8, 0, 6, 0x44, IBV_QPT_UC);
	TestQp s2(p.h(), p.e.pdn, p.acq.cqn, p.acq.cqn, 8, 0, 6, 0x45, IBV_QPT_UC);
	CU_ASSERT_EQUAL_FATAL(uc_up(p.h(), s1.qpn, c.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(uc_up(p.h(), s2.qpn, rc.qpn, kAllAccess), 0);
	for (TestQp *s : {&s1, &s2}) {
		Wqe w(*s, MLX5_OPCODE_SEND);
		w.data(32, sk, src.p());
		w.post(*s);
		s->ring(p.h());
		sent_ok(p.acq, MLX5_OPCODE_SEND);
	}
	CU_ASSERT_EQUAL(cq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[0], 0xaa);
	CU_ASSERT_EQUAL(qp_state(p.h(), c.qpn), IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(p.h(), rc.qpn), IBV_QPS_RTS);
}

static void test_rc_to_uc_refused(void)
{
	/* an RC requester never finds a UC responder: no ACK comes, retries run out */
	UcPair p;
	TestCq cq(p.h(), 16);
	TestQp rc(p.h(), p.e.pdn, cq.cqn, cq.cqn, 8);
	CU_ASSERT_EQUAL_FATAL(connect_qp(p.h(), rc.qpn, p.b.qpn, kAllAccess), 0);
	Buf src(32, 0x5a), dst(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 32, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	Wqe w(rc, MLX5_OPCODE_SEND);
	w.data(32, sk, src.p());
	w.post(rc);
	rc.ring(p.h());
	struct mlx5_cqe64 s = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(s), MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(p.brcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[0], 0xaa);
}

static void test_too_long_for_recv(void)
{
	UcPair p;
	Buf src(64, 0x5a), dst(32, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 64, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 32, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(32, dk, dst.p())});
	p.post(MLX5_OPCODE_SEND, 33, sk, src.p());
	sent_ok(p.acq, MLX5_OPCODE_SEND);
	/* that receive WQE completes in error, nothing written, B goes on */
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(r), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	for (int i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(dst.p()[i], 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact());
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
	p.b.post_recv(p.h(), {dseg(32, dk, dst.p())});
	p.post(MLX5_OPCODE_SEND, 32, sk, src.p());
	sent_ok(p.acq, MLX5_OPCODE_SEND);
	CU_ASSERT_EQUAL(cqe_opcode(one(p.brcq)), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(dst.p()[31], 0x5a);
}

static void test_read_atomic_refused(void)
{
	for (uint8_t op : {MLX5_OPCODE_RDMA_READ, MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA,
			   MLX5_OPCODE_SEND_INVAL}) {
		UcPair p;
		Buf b(64, 0x11), r(64, 0xaa);
		uint32_t k = reg(p.h(), p.e.pdn, b.p(), 64, kAllAccess);
		uint32_t rk = reg(p.h(), p.e.pdn, r.p(), 64, kAllAccess);
		bool rdma = op != MLX5_OPCODE_SEND_INVAL;
		p.post(op, 8, rk, r.p(), rdma ? b.p() : nullptr, rdma ? k : 0);
		struct mlx5_cqe64 s = one(p.acq);
		CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(s), MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_ERR);
		CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
		CU_ASSERT_EQUAL(r.p()[0], 0xaa);
		CU_ASSERT_EQUAL(b.p()[0], 0x11);
	}
}

static void test_state_masks(void)
{
	Env e;
	TestCq cq(e.h(), 16);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8, 16, 6, 0x44, IBV_QPT_UC);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	/* RESET->INIT needs the access flags, takes no Q_Key */
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
			-EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a,
					IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY),
			-EINVAL);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RESET);
	CU_ASSERT_EQUAL(qp_to_init(e.h(), q.qpn, IBV_ACCESS_REMOTE_WRITE), 0);
	/* INIT->RTR: AV, MTU, remote QPN, RQ PSN; no RD atomic or RNR timer */
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 5;
	a.ah_attr.port_num = 1;
	int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, rtr & ~IBV_QP_RQ_PSN), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, rtr | IBV_QP_MAX_DEST_RD_ATOMIC), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, rtr | IBV_QP_MIN_RNR_TIMER), -EINVAL);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_INIT);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, rtr | IBV_QP_ACCESS_FLAGS), 0);
	/* RTR->RTS: the SQ PSN only; no timeout, retries or RD atomic */
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE), -EINVAL);
	for (int extra : {IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY,
			  IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER})
		CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN | extra),
				-EINVAL);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RTR);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	/* RTS->SQD->SQD with a new address vector ->RTS; RTS->RTS with access flags */
	a = {};
	a.qp_state = IBV_QPS_SQD;
	a.ah_attr.port_num = 1;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_AV), 0);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_TIMEOUT), -EINVAL);
	CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RTS), 0);
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER), -EINVAL);
	QpInfo info{};
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(info.dest_qpn, 5u);
}

int main(void)
{
	static const struct cunit_test ok[] = {
		{"SEND and SEND_IMM into a receive WQE", test_send_recv},
		{"RDMA WRITE, WRITE_IMM with its receive", test_write_and_imm},
		{"UC attribute masks (the kernel's)", test_state_masks},
	};
	static const struct cunit_test lost[] = {
		{"no receive: lost, the sender completes", test_no_recv_lost},
		{"bad rkey, range, key access: lost", test_bad_key_lost},
		{"no remote write, responder not ready: lost", test_no_access_or_not_ready_lost},
		{"not the responder's peer, RC responder: lost", test_wrong_peer_lost},
		{"RC requester to a UC QP: no answer", test_rc_to_uc_refused},
		{"too long for the receive WQE: its error", test_too_long_for_recv},
		{"READ, atomics, SEND_INV: LOC_QP_OP", test_read_atomic_refused},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("uc transport", ok),
		CUNIT_SUITE("uc losses and errors", lost),
	};

	return CUNIT_RUN_SUITES(suites);
}
