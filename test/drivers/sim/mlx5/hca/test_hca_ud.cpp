/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UD transport between QPs of one device (ud.cpp): datagrams with the address
 * vector in the WQE, the GRH space of the receive buffer, receive CQE fields,
 * drops (wrong Q_Key, no receive, no such QP), the controlled Q_Key, too long
 * datagrams at either end, and the UD state machine's attribute masks.
 */
#include <errno.h>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

constexpr uint32_t kQkey = 0x11111111;

/** RESET -> INIT -> RTR -> RTS with the kernel's UD masks. */
int ud_up(Hca &h, uint32_t qpn, uint32_t qkey)
{
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	int rc = h.modify_qp(qpn, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	if (rc)
		return rc;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if ((rc = h.modify_qp(qpn, a, IBV_QP_STATE)))
		return rc;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	return h.modify_qp(qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/** A UD send WQE: ctrl, address vector (as libmlx5's set_datagram_seg), data. */
struct UdWqe : Wqe {
	UdWqe(const TestQp &q, uint32_t dqpn, uint32_t qkey, uint16_t dlid = 0, uint8_t sl = 0,
	      uint8_t opcode = MLX5_OPCODE_SEND, uint32_t imm = 0)
		: Wqe(q, opcode, MLX5_WQE_CTRL_CQ_UPDATE, 0, imm)
	{
		memset(b + off, 0, 48);
		mlx5_hw_st_be32(b + off, qkey);
		mlx5_hw_st_be32(b + off + 8, dqpn | 0x80000000u);
		b[off + 12] = sl;
		mlx5_hw_st_be16(b + off + 14, dlid);
		off += 48;
	}
};

/** Two UD QPs A and B of one device, each with its own send and recv CQ, in RTS. */
struct UdPair {
	Env e;
	TestCq acq, arcq, bcq, brcq;
	TestQp a, b;
	UdPair()
		: acq(e.h(), 64), arcq(e.h(), 64), bcq(e.h(), 64), brcq(e.h(), 64),
		  a(e.h(), e.pdn, acq.cqn, arcq.cqn, 16, 16, 6, 0x11, IBV_QPT_UD),
		  b(e.h(), e.pdn, bcq.cqn, brcq.cqn, 16, 16, 6, 0x22, IBV_QPT_UD)
	{
		CU_ASSERT_EQUAL_FATAL(ud_up(e.h(), a.qpn, kQkey), 0);
		CU_ASSERT_EQUAL_FATAL(ud_up(e.h(), b.qpn, kQkey), 0);
	}
	Hca &h() { return e.h(); }
	/** A -> B: @p len bytes of @p src (key @p sk) with @p qkey. */
	void send(uint32_t len, uint32_t sk, const void *src, uint32_t qkey = kQkey, uint8_t sl = 0)
	{
		UdWqe w(a, b.qpn, qkey, 0, sl);
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

/** The sender's WQE completed successfully (a UD send always does once it leaves). */
void sent_ok(TestCq &cq, uint8_t op = MLX5_OPCODE_SEND)
{
	struct mlx5_cqe64 s = one(cq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(cqe_wqe_op(s), op);
}

} // namespace

static void test_send_recv(void)
{
	UdPair p;
	Buf src(200), dst(400, 0xaa);
	for (int i = 0; i < 200; i++)
		src.p()[i] = (uint8_t)(i + 1);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 200, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 400, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(400, dk, dst.p())});
	p.send(200, sk, src.p(), kQkey, 5);
	sent_ok(p.acq);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_bytes(r), 240u); /* the GRH space counts */
	CU_ASSERT_EQUAL(be32toh(r.flags_rqpn) & 0xffffff, p.a.qpn);
	CU_ASSERT_EQUAL((be32toh(r.flags_rqpn) >> 24) & 0xf, 5u); /* SL */
	CU_ASSERT_EQUAL((be32toh(r.flags_rqpn) >> 28) & 0x3, 0u); /* no GRH */
	CU_ASSERT_EQUAL(be16toh(r.slid), p.h().caps().lid);
	CU_ASSERT_EQUAL(cqe_qpn(r), p.b.qpn);
	CU_ASSERT_EQUAL(cqe_uidx(r), 0x22u);
	CU_ASSERT_EQUAL(cqe_counter(r), 0);
	/* the 40 bytes of GRH space are left alone, the data follows them */
	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(dst.p()[i], 0xaa);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 40, src.p(), 200), 0);
	CU_ASSERT_EQUAL(dst.p()[240], 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact());
}

static void test_send_imm_split_grh(void)
{
	UdPair p;
	Buf grh(16, 0xaa), dst(64, 0xaa);
	uint32_t gk = reg(p.h(), p.e.pdn, grh.p(), 16, IBV_ACCESS_LOCAL_WRITE);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	/* GRH space over two segments: 16 bytes in the first, 24 in the second */
	p.b.post_recv(p.h(), {dseg(16, gk, grh.p()), dseg(64, dk, dst.p())});
	UdWqe w(p.a, p.b.qpn, kQkey, 0, 0, MLX5_OPCODE_SEND_IMM, htobe32(0xfeed0001));
	w.inl("datagram", 8);
	w.post(p.a);
	p.a.ring(p.h());
	sent_ok(p.acq, MLX5_OPCODE_SEND_IMM);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND_IMM);
	CU_ASSERT_EQUAL(be32toh(r.imm_inval_pkey), 0xfeed0001u);
	CU_ASSERT_EQUAL(cqe_bytes(r), 48u);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(grh.p()[i], 0xaa);
	for (int i = 0; i < 24; i++)
		CU_ASSERT_EQUAL(dst.p()[i], 0xaa);
	CU_ASSERT_EQUAL(memcmp(dst.p() + 24, "datagram", 8), 0);
	CU_ASSERT_TRUE(grh.guards_intact() && dst.guards_intact());
}

static void test_qkey_mismatch_drops(void)
{
	UdPair p;
	Buf src(32, 0x5a), dst(128, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 32, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(128, dk, dst.p())});
	p.send(32, sk, src.p(), kQkey + 1);
	sent_ok(p.acq);
	CU_ASSERT_EQUAL(p.brcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[40], 0xaa);
	/* the receive WQE is still there for the next datagram with the right key */
	p.send(32, sk, src.p());
	sent_ok(p.acq);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_counter(r), 0);
	CU_ASSERT_EQUAL(dst.p()[40], 0x5a);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
}

static void test_controlled_qkey(void)
{
	UdPair p;
	Buf dst(128, 0xaa);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(128, dk, dst.p())});
	/* high bit set: the sending QP's own Q_Key (equal to B's) goes out */
	UdWqe w(p.a, p.b.qpn, 0x80000000u);
	w.inl("k", 1);
	w.post(p.a);
	p.a.ring(p.h());
	sent_ok(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(one(p.brcq)), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(dst.p()[40], 'k');
}

static void test_no_recv_drops(void)
{
	UdPair p;
	Buf src(32, 0x5a), dst(128, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, src.p(), 32, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	p.send(32, sk, src.p());
	sent_ok(p.acq); /* no RNR wait: dropped at once */
	/* a receive posted afterwards does not get the dropped datagram */
	p.b.post_recv(p.h(), {dseg(128, dk, dst.p())});
	CU_ASSERT_EQUAL(p.brcq.drain(), 0);
	CU_ASSERT_EQUAL(dst.p()[40], 0xaa);
	/* nobody at that QPN, an RC QP, a UD QP in INIT: dropped too */
	TestCq cq(p.h(), 16);
	TestQp rc(p.h(), p.e.pdn, cq.cqn, cq.cqn, 8);
	TestQp init(p.h(), p.e.pdn, cq.cqn, cq.cqn, 8, 16, 6, 0x33, IBV_QPT_UD);
	CU_ASSERT_EQUAL_FATAL(connect_qp(p.h(), rc.qpn, p.a.qpn, kAllAccess), 0);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = kQkey;
	CU_ASSERT_EQUAL(
		p.h().modify_qp(init.qpn, a,
				IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
		0);
	Buf r2(128);
	uint32_t r2k = reg(p.h(), p.e.pdn, r2.p(), 128, IBV_ACCESS_LOCAL_WRITE);
	rc.post_recv(p.h(), {dseg(128, r2k, r2.p())});
	init.post_recv(p.h(), {dseg(128, r2k, r2.p())});
	for (uint32_t dqpn : {rc.qpn, init.qpn, 0xfffffeu}) {
		UdWqe w(p.a, dqpn, kQkey);
		w.data(32, sk, src.p());
		w.post(p.a);
		p.a.ring(p.h());
		sent_ok(p.acq);
	}
	CU_ASSERT_EQUAL(cq.drain(), 0);
	CU_ASSERT_EQUAL(qp_state(p.h(), rc.qpn), IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(p.h(), p.a.qpn), IBV_QPS_RTS);
}

static void test_too_long(void)
{
	UdPair p;
	Buf big(4097, 1), dst(64, 0xaa);
	uint32_t sk = reg(p.h(), p.e.pdn, big.p(), 4097, 0);
	uint32_t dk = reg(p.h(), p.e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	/* longer than the rest of the receive buffer (64 - 40): the receive fails, the
	 * receiver goes on, nothing is written; the sender cannot tell */
	p.send(25, sk, big.p());
	sent_ok(p.acq);
	struct mlx5_cqe64 r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(r), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	for (int i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(dst.p()[i], 0xaa);
	CU_ASSERT_TRUE(dst.guards_intact());
	CU_ASSERT_EQUAL(qp_state(p.h(), p.b.qpn), IBV_QPS_RTS);
	/* exactly the rest fits */
	p.b.post_recv(p.h(), {dseg(64, dk, dst.p())});
	p.send(24, sk, big.p());
	sent_ok(p.acq);
	r = one(p.brcq);
	CU_ASSERT_EQUAL(cqe_opcode(r), MLX5_CQE_RESP_SEND);
	CU_ASSERT_EQUAL(cqe_bytes(r), 64u);
	CU_ASSERT_TRUE(dst.guards_intact());
	/* longer than the port MTU: the sender's local length error */
	p.send(4097, sk, big.p());
	struct mlx5_cqe64 s = one(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(s), MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	CU_ASSERT_EQUAL(p.brcq.drain(), 0);
}

static void test_bad_wqes(void)
{
	UdPair p;
	Buf b(64);
	uint32_t k = reg(p.h(), p.e.pdn, b.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	/* an RDMA write has no place on a UD QP */
	UdWqe w(p.a, p.b.qpn, kQkey, 0, 0, MLX5_OPCODE_RDMA_WRITE);
	w.raddr(b.p(), k).data(8, k, b.p());
	w.post(p.a);
	p.a.ring(p.h());
	struct mlx5_cqe64 s = one(p.acq);
	CU_ASSERT_EQUAL(cqe_opcode(s), MLX5_CQE_REQ_ERR);
	CU_ASSERT_EQUAL(cqe_syndrome(s), MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* a SEND without room for the address vector */
	UdPair q;
	Wqe n(q.a, MLX5_OPCODE_SEND);
	n.inl("x", 1);
	n.post(q.a);
	q.a.ring(q.h());
	s = one(q.acq);
	CU_ASSERT_EQUAL(cqe_syndrome(s), MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

static void test_state_masks(void)
{
	Env e;
	TestCq cq(e.h(), 16);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8, 16, 6, 0x44, IBV_QPT_UD);
	struct ibv_qp_attr a = {};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x1234;
	/* RESET->INIT needs the Q_Key and takes no access flags */
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
			-EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a,
					IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS),
			-EINVAL);
	CU_ASSERT_EQUAL(qp_state(e.h(), q.qpn), IBV_QPS_RESET);
	CU_ASSERT_EQUAL(
		e.h().modify_qp(q.qpn, a,
				IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
		0);
	/* INIT->RTR: no remote fields */
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.dest_qp_num = 5;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_DEST_QPN), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE), 0);
	/* RTR->RTS needs SQ_PSN, takes a new Q_Key */
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.qkey = 0x5678;
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_QKEY), -EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT),
			-EINVAL);
	CU_ASSERT_EQUAL(e.h().modify_qp(q.qpn, a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_QKEY), 0);
	QpInfo info{};
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(info.qkey, 0x5678u);
	/* RESET forgets the Q_Key */
	CU_ASSERT_EQUAL(set_state(e.h(), q.qpn, IBV_QPS_RESET), 0);
	CU_ASSERT_EQUAL(e.h().query_qp(q.qpn, &info), 0);
	CU_ASSERT_EQUAL(info.qkey, 0u);
}

int main(void)
{
	static const struct cunit_test ok[] = {
		{"datagram into a receive WQE: GRH space, CQE fields", test_send_recv},
		{"SEND_IMM, GRH space over two segments", test_send_imm_split_grh},
		{"controlled Q_Key: the QP's own", test_controlled_qkey},
		{"UD attribute masks, Q_Key in QUERY_QP", test_state_masks},
	};
	static const struct cunit_test drops[] = {
		{"wrong Q_Key: dropped, the receive stays", test_qkey_mismatch_drops},
		{"no receive, no UD QP in RTR: dropped", test_no_recv_drops},
		{"too long for the receive buffer or the MTU", test_too_long},
		{"RDMA on UD, no address vector: LOC_QP_OP", test_bad_wqes},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("ud transport", ok),
		CUNIT_SUITE("ud drops and errors", drops),
	};

	return CUNIT_RUN_SUITES(suites);
}
