/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Unlocked engine passes (HcaImpl::fast_pass()) against the other writers of a CQ and
 * the calls that change what a pass may see: a SEND of a QP on another engine thread
 * completing into a CQ whose MMO QP copies unlocked, a QP that bridges two threads'
 * CQ groups created while both stream, and CQ arming while a thread streams.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

using Clock = std::chrono::steady_clock;

/** One MMO copy of @p n bytes from @p src to @p dst, asking for a CQE. */
void post_mmo(Hca &h, TestQp &q, uint32_t okey, void *opaque, uint32_t sk, const void *src,
	      uint32_t dk, void *dst, uint32_t n)
{
	Wqe w(q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, MLX5_HW_OPC_MOD_MMO_DMA);
	w.meta(okey, opaque).data(n, sk, src).data(n, dk, dst);
	w.post(q);
	q.ring(h);
}

/** The first byte of a copy's target, read while the engine may write it. */
__attribute__((no_sanitize_thread)) bool first_byte_is(const uint8_t *p, uint8_t v)
{
	return *(volatile const uint8_t *)p == v;
}

} // namespace

/*
 * CQ M is the send CQ of MMO QP m and the receive CQ of QP r (so both are on one
 * thread, which copies m's WQEs unlocked); QP s, on the other thread, SENDs to r, so
 * r's receive CQEs land in M from s's thread (a locked pass). Both writers go on at
 * once for a while: every CQE in M is whole and in its QP's order, none is lost.
 */
static void test_send_cqe_into_unlocked_cq(void)
{
	TwoEngines d("hcarace-send");
	if (!d)
		return;
	Hca &h = d.h();
	TestCq m_cq(h, 4096), s_cq(h, 1024);
	TestQp m(h, d.pdn, m_cq.cqn, m_cq.cqn, 256);
	TestQp r(h, d.pdn, m_cq.cqn, m_cq.cqn, 8, 64);
	TestQp s(h, d.pdn, s_cq.cqn, s_cq.cqn, 64);
	CU_ASSERT_EQUAL_FATAL(engine_of(h, m.qpn), engine_of(h, r.qpn));
	CU_ASSERT_NOT_EQUAL_FATAL(engine_of(h, m.qpn), engine_of(h, s.qpn));
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, m.qpn, m.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, r.qpn, s.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, s.qpn, r.qpn, kAllAccess), 0);
	Buf opaque(64), src(4096, 0x5a), dst(8192), ssrc(256, 0x33), rdst(64 * 256);
	uint32_t okey = reg(h, d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t sk = reg(h, d.pdn, src.p(), 4096, 0);
	uint32_t dk = reg(h, d.pdn, dst.p(), 8192, IBV_ACCESS_LOCAL_WRITE);
	uint32_t ssk = reg(h, d.pdn, ssrc.p(), 256, 0);
	uint32_t rdk = reg(h, d.pdn, rdst.p(), 64 * 256, IBV_ACCESS_LOCAL_WRITE);

	constexpr uint32_t kSends = 3000;
	std::atomic<uint32_t> recv_done{0};
	std::atomic<bool> sender_done{false};
	uint32_t m_posted = 0, m_polled = 0, r_polled = 0, bad = 0, others = 0;
	uint32_t s_posted = 0, s_polled = 0, s_bad = 0;

	std::thread sender([&] {
		uint32_t r_posted = 0;
		struct mlx5_cqe64 c;
		auto end = Clock::now() + std::chrono::seconds(20);
		while (s_posted < kSends && Clock::now() < end) {
			/* a receive for every SEND, at most 32 outstanding */
			if (r_posted - recv_done.load(std::memory_order_acquire) < 32 &&
			    s_posted - s_polled < 32) {
				r.post_recv(h, {dseg(256, rdk, rdst.p() + (r_posted % 64) * 256)});
				r_posted++;
				Wqe w(s, MLX5_OPCODE_SEND);
				w.data(256, ssk, ssrc.p());
				w.post(s);
				s.ring(h);
				s_posted++;
			}
			while (s_cq.poll(&c)) {
				if (cqe_opcode(c) != MLX5_CQE_REQ ||
				    cqe_counter(c) != (uint16_t)s_polled)
					s_bad++;
				s_polled++;
			}
		}
		while (s_polled < s_posted && Clock::now() < end + std::chrono::seconds(5))
			while (s_cq.poll(&c)) {
				if (cqe_opcode(c) != MLX5_CQE_REQ ||
				    cqe_counter(c) != (uint16_t)s_polled)
					s_bad++;
				s_polled++;
			}
		sender_done = true;
	});
	auto poll_m = [&] {
		struct mlx5_cqe64 c;
		while (m_cq.poll(&c)) {
			uint32_t qpn = cqe_qpn(c);
			if (qpn == m.qpn) {
				if (cqe_opcode(c) != MLX5_CQE_REQ ||
				    cqe_counter(c) != (uint16_t)m_polled)
					bad++;
				m_polled++;
			} else if (qpn == r.qpn) {
				if (cqe_opcode(c) != MLX5_CQE_RESP_SEND ||
				    cqe_counter(c) != (uint16_t)r_polled || cqe_bytes(c) != 256)
					bad++;
				r_polled++;
				recv_done.store(r_polled, std::memory_order_release);
			} else {
				others++;
			}
		}
	};
	while (!sender_done.load(std::memory_order_acquire)) {
		if (m_posted - m_polled < 128) {
			post_mmo(h, m, okey, opaque.p(), sk, src.p(), dk,
				 dst.p() + (m_posted % 2) * 4096, 4096);
			m_posted++;
		}
		poll_m();
	}
	sender.join();
	auto end = Clock::now() + std::chrono::seconds(5);
	while ((m_polled < m_posted || r_polled < s_posted) && Clock::now() < end)
		poll_m();
	h.quiesce();
	poll_m();
	printf("(%u copies, %u sends) ", m_polled, r_polled);
	CU_ASSERT_EQUAL(s_posted, kSends);
	CU_ASSERT_EQUAL(s_polled, s_posted);
	CU_ASSERT_EQUAL(s_bad, 0u);
	CU_ASSERT_EQUAL(m_polled, m_posted);
	CU_ASSERT_EQUAL(r_polled, s_posted);
	CU_ASSERT_EQUAL(bad, 0u);
	CU_ASSERT_EQUAL(others, 0u);
	CU_ASSERT_TRUE(dst.guards_intact());
	CU_ASSERT_TRUE(rdst.guards_intact());
}

/*
 * Two QPs on two engine threads stream copies; meanwhile a new QP bridges their CQs,
 * which moves one QP to the other thread while its doorbells keep coming (some rung
 * towards the old thread). Every WQE posted completes, in order, within seconds: no
 * doorbell is lost in the move. Several rounds, so the move meets a pass in flight.
 */
static void test_merge_while_streaming(void)
{
	TwoEngines d("hcarace-merge");
	if (!d)
		return;
	Hca &h = d.h();
	Buf opaque(64), src(4096, 0x6b), dst(4 * 4096);
	uint32_t okey = reg(h, d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t sk = reg(h, d.pdn, src.p(), 4096, 0);
	uint32_t dk = reg(h, d.pdn, dst.p(), 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	unsigned merged = 0;

	for (int round = 0; round < 20; round++) {
		TestCq ca(h, 1024), cb(h, 1024);
		TestQp a(h, d.pdn, ca.cqn, ca.cqn, 64);
		TestQp b(h, d.pdn, cb.cqn, cb.cqn, 64);
		if (engine_of(h, a.qpn) == engine_of(h, b.qpn))
			continue; /* the thread counts are uneven this round */
		CU_ASSERT_EQUAL_FATAL(connect_qp(h, a.qpn, a.qpn, kAllAccess), 0);
		CU_ASSERT_EQUAL_FATAL(connect_qp(h, b.qpn, b.qpn, kAllAccess), 0);
		std::atomic<bool> stop{false};
		struct Res {
			uint32_t posted = 0, polled = 0, bad = 0;
		} ra, rb;
		auto run = [&](TestQp &q, TestCq &cq, Res &res, int slot) {
			struct mlx5_cqe64 c;
			while (!stop.load(std::memory_order_relaxed)) {
				if (res.posted - res.polled < 32) {
					post_mmo(h, q, okey, opaque.p(), sk, src.p(), dk,
						 dst.p() + slot * 4096,
						 1024 + 64 * (res.posted % 32));
					res.posted++;
				}
				while (cq.poll(&c)) {
					if (cqe_opcode(c) != MLX5_CQE_REQ ||
					    cqe_counter(c) != (uint16_t)res.polled)
						res.bad++;
					res.polled++;
				}
			}
			auto end = Clock::now() + std::chrono::seconds(5);
			while (res.polled < res.posted && Clock::now() < end)
				while (cq.poll(&c)) {
					if (cqe_opcode(c) != MLX5_CQE_REQ ||
					    cqe_counter(c) != (uint16_t)res.polled)
						res.bad++;
					res.polled++;
				}
		};
		std::thread ta(run, std::ref(a), std::ref(ca), std::ref(ra), 0);
		std::thread tb(run, std::ref(b), std::ref(cb), std::ref(rb), 1);
		usleep(5000 + 1000 * round);
		{
			TestQp x(h, d.pdn, ca.cqn, cb.cqn, 8);
			CU_ASSERT_EQUAL(engine_of(h, a.qpn), engine_of(h, b.qpn));
			merged++;
			usleep(20000);
			stop = true;
			ta.join();
			tb.join();
		}
		CU_ASSERT_EQUAL(ra.polled, ra.posted);
		CU_ASSERT_EQUAL(rb.polled, rb.posted);
		CU_ASSERT_EQUAL(ra.bad + rb.bad, 0u);
		if (ra.polled != ra.posted || rb.polled != rb.posted) {
			printf("(round %d: a %u/%u b %u/%u) ", round, ra.polled, ra.posted,
			       rb.polled, rb.posted);
			break;
		}
		CU_ASSERT_EQUAL(h.destroy_qp(a.qpn), 0);
		CU_ASSERT_EQUAL(h.destroy_qp(b.qpn), 0);
		a.qpn = b.qpn = 0;
	}
	printf("(%u merges) ", merged);
	CU_ASSERT(merged > 0);
	CU_ASSERT_TRUE(dst.guards_intact());
}

namespace {

struct Events {
	std::atomic<uint32_t> n{0};
};

void on_event(void *arg)
{
	static_cast<Events *>(arg)->n.fetch_add(1, std::memory_order_seq_cst);
}

} // namespace

/*
 * A CQ armed again after each event while its QP streams copies (an armed CQ keeps
 * the QP's passes locked, a disarmed one lets them run unlocked): every arm is
 * answered by one event, none is lost or doubled, and every CQE arrives in order.
 */
static void test_arm_while_streaming(void)
{
	TwoEngines d("hcarace-arm");
	if (!d)
		return;
	Hca &h = d.h();
	Events ev;
	TestCq cq(h, 1024);
	/* a CQ with an event handler: recreate its config */
	CqConfig cfg = cq.cfg;
	cfg.comp_event = on_event;
	cfg.comp_arg = &ev;
	uint32_t cqn;
	CU_ASSERT_EQUAL_FATAL(h.create_cq(cfg, &cqn), 0);
	cq.cqn = cqn;
	TestQp q(h, d.pdn, cqn, cqn, 128);
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, q.qpn, q.qpn, kAllAccess), 0);
	/* a second QP on the other thread keeps that one busy too */
	TestCq cq2(h, 1024);
	TestQp q2(h, d.pdn, cq2.cqn, cq2.cqn, 128);
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, q2.qpn, q2.qpn, kAllAccess), 0);
	Buf opaque(64), src(8192, 0x21), dst(2 * 8192);
	uint32_t okey = reg(h, d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t sk = reg(h, d.pdn, src.p(), 8192, 0);
	uint32_t dk = reg(h, d.pdn, dst.p(), 2 * 8192, IBV_ACCESS_LOCAL_WRITE);
	std::atomic<bool> stop{false};
	std::thread other([&] {
		uint32_t posted = 0, polled = 0;
		struct mlx5_cqe64 c;
		while (!stop.load(std::memory_order_relaxed)) {
			if (posted - polled < 64) {
				post_mmo(h, q2, okey, opaque.p(), sk, src.p(), dk, dst.p() + 8192,
					 8192);
				posted++;
			}
			while (cq2.poll(&c))
				polled++;
		}
		while (polled < posted)
			while (cq2.poll(&c))
				polled++;
	});
	uint32_t posted = 0, polled = 0, bad = 0, arms = 0, lost = 0;
	struct mlx5_cqe64 c;
	auto end = Clock::now() + std::chrono::seconds(2);
	while (Clock::now() < end) {
		/* arm at the consumer index with the sn of the events so far */
		uint32_t seen = ev.n.load(std::memory_order_seq_cst);
		uint32_t word = (seen & 3) << 28 | (cq.ci & 0xffffff);
		__atomic_store_n(&cq.dbrec[1], htobe32(word), __ATOMIC_RELEASE);
		CU_ASSERT_EQUAL(h.arm_cq(cqn, word), 0);
		arms++;
		/* copies until the event comes: the next CQE raises it */
		auto due = Clock::now() + std::chrono::seconds(2);
		while (ev.n.load(std::memory_order_seq_cst) == seen) {
			if (Clock::now() > due) {
				lost++;
				break;
			}
			if (posted - polled < 64) {
				post_mmo(h, q, okey, opaque.p(), sk, src.p(), dk, dst.p(), 512);
				posted++;
			}
			while (cq.poll(&c)) {
				if (cqe_opcode(c) != MLX5_CQE_REQ ||
				    cqe_counter(c) != (uint16_t)polled)
					bad++;
				polled++;
			}
		}
		if (lost)
			break;
		/* and some copies with the CQ disarmed: the unlocked passes */
		for (int i = 0; i < 200; i++) {
			if (posted - polled < 64) {
				post_mmo(h, q, okey, opaque.p(), sk, src.p(), dk, dst.p(), 512);
				posted++;
			}
			while (cq.poll(&c)) {
				if (cqe_opcode(c) != MLX5_CQE_REQ ||
				    cqe_counter(c) != (uint16_t)polled)
					bad++;
				polled++;
			}
		}
	}
	stop = true;
	other.join();
	auto fin = Clock::now() + std::chrono::seconds(5);
	while (polled < posted && Clock::now() < fin)
		while (cq.poll(&c)) {
			if (cqe_opcode(c) != MLX5_CQE_REQ || cqe_counter(c) != (uint16_t)polled)
				bad++;
			polled++;
		}
	h.quiesce();
	printf("(%u arms, %u events, %u copies) ", arms, ev.n.load(), polled);
	CU_ASSERT_EQUAL(lost, 0u);
	CU_ASSERT_EQUAL(ev.n.load(), arms);
	CU_ASSERT_EQUAL(polled, posted);
	CU_ASSERT_EQUAL(bad, 0u);
	CU_ASSERT_EQUAL(h.destroy_qp(q.qpn), 0);
	q.qpn = 0;
	CU_ASSERT_EQUAL(h.destroy_cq(cqn), 0);
	cq.cqn = 0;
}

/*
 * quiesce() returns once everything rung before it has executed (hca.h), also when a
 * bridging QP moves the rung QP to the other thread meanwhile. Thread B copies a large
 * span for p; q (same CQ group, B too) is rung and quiesce() called, then a QP that
 * bridges q's CQ and thread A's moves q and p to A once B's pass ends. A had already
 * covered quiesce() with a pass before the move; B covers it with a pass without q.
 * Before, quiesce() returned while A was still copying q's WQE: its CQE was missing.
 */
static void test_quiesce_across_merge(void)
{
	TwoEngines d("hcarace-quiesce");
	if (!d)
		return;
	Hca &h = d.h();
	constexpr uint32_t kBig = 64u << 20;
	Buf opaque(64), src(kBig, 0x3c), dp(kBig), dq(kBig);
	uint32_t okey = reg(h, d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t sk = reg(h, d.pdn, src.p(), kBig, 0);
	uint32_t kp = reg(h, d.pdn, dp.p(), kBig, IBV_ACCESS_LOCAL_WRITE);
	uint32_t kq = reg(h, d.pdn, dq.p(), kBig, IBV_ACCESS_LOCAL_WRITE);
	TestCq ca(h, 64), cb(h, 64);
	TestQp r(h, d.pdn, ca.cqn, ca.cqn, 8);
	TestQp q(h, d.pdn, cb.cqn, cb.cqn, 8);
	CU_ASSERT_NOT_EQUAL_FATAL(engine_of(h, r.qpn), engine_of(h, q.qpn));
	/* after q in the QP list: B's pass looks at q before it copies for p */
	TestQp p(h, d.pdn, cb.cqn, cb.cqn, 8);
	CU_ASSERT_EQUAL_FATAL(engine_of(h, p.qpn), engine_of(h, q.qpn));
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, q.qpn, q.qpn, kAllAccess), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(h, p.qpn, p.qpn, kAllAccess), 0);
	/* one pass of B: 7 x 64 MiB, tens of milliseconds */
	for (int i = 0; i < 7; i++)
		post_mmo(h, p, okey, opaque.p(), sk, src.p(), kp, dp.p(), kBig);
	/* B copies for p: its pass has looked at q already */
	auto due = Clock::now() + std::chrono::seconds(10);
	while (!first_byte_is(dp.p(), 0x3c) && Clock::now() < due)
		;
	/* q: as long, so that its thread is still at it when quiesce() looks */
	for (int i = 0; i < 7; i++)
		post_mmo(h, q, okey, opaque.p(), sk, src.p(), kq, dq.p(), kBig);
	std::unique_ptr<TestQp> x;
	std::thread bridge([&] {
		usleep(5000); /* quiesce() has woken both threads, A has answered */
		x.reset(new TestQp(h, d.pdn, ca.cqn, cb.cqn, 8));
	});
	h.quiesce();
	/* rung before quiesce(): its CQE is there */
	bool q_done = false;
	std::vector<struct mlx5_cqe64> v;
	cb.drain(&v);
	for (const struct mlx5_cqe64 &e : v)
		if (cqe_qpn(e) == q.qpn && cqe_opcode(e) == MLX5_CQE_REQ && cqe_counter(e) == 6)
			q_done = true;
	bridge.join();
	CU_ASSERT_EQUAL(engine_of(h, q.qpn), engine_of(h, r.qpn));
	CU_ASSERT_TRUE(q_done);
	h.quiesce();
	cb.drain();
	CU_ASSERT_EQUAL(h.destroy_qp(x->qpn), 0);
	x->qpn = 0;
}

int main(void)
{
	static const struct cunit_test t[] = {
		{"a SEND's receive CQE into a CQ copied to unlocked",
		 test_send_cqe_into_unlocked_cq},
		{"a bridging QP merges two streaming threads", test_merge_while_streaming},
		{"CQ arming while its QP streams", test_arm_while_streaming},
		{"quiesce() covers a QP a merge moves", test_quiesce_across_merge},
	};
	return CUNIT_RUN_SUITE("unlocked passes against other writers", t);
}
