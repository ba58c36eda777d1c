/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Several engine threads (Hca::create's engine_per_cpu, sim_core=<list>): one
 * pinned to each CPU, QPs spread over them with QPs that share a CQ kept together,
 * every QP's completions in order while many QPs stream from several application
 * threads, QPs destroyed while the other engines run, a DoorbellSource polled by
 * one engine only, and the cap on their number.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cunit_run.h"
#include "hca_impl.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

/* Up to @p max CPUs this process may run on; false when fewer than two. */
bool usable_cpus(cpu_set_t *set, unsigned max)
{
	cpu_set_t mine;
	unsigned n = 0;

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, set);
			n++;
		}
	return n >= 2;
}

/** A device with one engine thread per CPU of @p cpus and one PD. */
struct MultiEnv {
	std::shared_ptr<Hca> hca;
	uint32_t pdn = 0;
	MultiEnv(const char *name, const cpu_set_t &cpus, DoorbellSource *src = nullptr)
	{
		hca = Hca::create(name, HcaCaps(), ExecMode::Thread, &cpus, src, true);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
		CU_ASSERT_EQUAL_FATAL(hca->alloc_pd(&pdn), 0);
	}
	Hca &h() { return *hca; }
};

/** A QP with a CQ of its own, connected to itself, and an MMO poster. */
struct Lane {
	TestCq cq;
	TestQp q;
	uint32_t posted = 0, polled = 0;
	bool order_ok = true;
	Lane(Hca &h, uint32_t pdn, uint32_t sq = 64, const TestCq *shared = nullptr)
		: cq(h, 256),
		  q(h, pdn, shared ? shared->cqn : cq.cqn, shared ? shared->cqn : cq.cqn, sq)
	{
		CU_ASSERT_EQUAL_FATAL(connect_qp(h, q.qpn, q.qpn, kAllAccess), 0);
	}
	void mmo(uint32_t okey, void *opaque, uint32_t k, const void *src, void *dst, uint32_t n)
	{
		Wqe w(q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opaque).data(n, k, src).data(n, k, dst);
		w.post(q);
		posted++;
	}
	/* every CQE names the next WQE of this QP: 0, 1, 2, ... (one WQEBB each) */
	void poll_own()
	{
		struct mlx5_cqe64 c;
		while (cq.poll(&c)) {
			if (cqe_opcode(c) != MLX5_CQE_REQ || cqe_qpn(c) != q.qpn ||
			    cqe_counter(c) != (uint16_t)polled)
				order_ok = false;
			polled++;
		}
	}
};

std::string comm_of(const std::string &task)
{
	char buf[64] = "";
	FILE *f = fopen(("/proc/self/task/" + task + "/comm").c_str(), "r");
	if (!f)
		return "";
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

} // namespace

/* One engine thread per CPU named, each pinned to its CPU; engine_cpus() says how many. */
static void test_one_thread_per_cpu(void)
{
	cpu_set_t cpus, got;
	if (!usable_cpus(&cpus, 4)) {
		printf("(one CPU: skipped) ");
		return;
	}
	MultiEnv e("hcaeng-pin", cpus);
	CU_ASSERT_EQUAL(e.h().engine_cpus(&got), CPU_COUNT(&cpus));
	CU_ASSERT_TRUE(CPU_EQUAL(&got, &cpus));
	/* the threads themselves: "hcaeng-p-engN", one CPU each, all different */
	cpu_set_t seen;
	int threads = 0;
	CPU_ZERO(&seen);
	DIR *d = opendir("/proc/self/task");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while (struct dirent *de = readdir(d)) {
		if (de->d_name[0] == '.')
			continue;
		std::string comm = comm_of(de->d_name);
		if (comm.compare(0, 12, "hcaeng-p-eng") != 0)
			continue;
		cpu_set_t one, both;
		CU_ASSERT_EQUAL(sched_getaffinity(atoi(de->d_name), sizeof(one), &one), 0);
		CU_ASSERT_EQUAL(CPU_COUNT(&one), 1);
		CPU_AND(&both, &one, &seen);
		CU_ASSERT_EQUAL(CPU_COUNT(&both), 0); /* no two on one CPU */
		CPU_OR(&seen, &seen, &one);
		threads++;
	}
	closedir(d);
	CU_ASSERT_EQUAL(threads, CPU_COUNT(&cpus));
	CU_ASSERT_TRUE(CPU_EQUAL(&seen, &cpus));
	/* without engine_per_cpu: one thread on the whole set, as before */
	std::shared_ptr<Hca> one = Hca::create("hcaeng-one", HcaCaps(), ExecMode::Thread, &cpus);
	CU_ASSERT_PTR_NOT_NULL_FATAL(one.get());
	CU_ASSERT_EQUAL(one->engine_cpus(&got), 1);
	CU_ASSERT_TRUE(CPU_EQUAL(&got, &cpus));
}

/* More CPUs than HCA_MAX_ENGINES: no device (sim_core's parser says why first). */
static void test_engine_cap(void)
{
	cpu_set_t many;
	CPU_ZERO(&many);
	for (unsigned c = 0; c <= HCA_MAX_ENGINES; c++)
		CPU_SET(c, &many);
	CU_ASSERT_PTR_NULL(
		Hca::create("hcaeng-cap", HcaCaps(), ExecMode::Thread, &many, nullptr, true).get());
	/* the name was released: a valid device may take it */
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 2))
		return;
	CU_ASSERT_PTR_NOT_NULL(
		Hca::create("hcaeng-cap", HcaCaps(), ExecMode::Thread, &cpus, nullptr, true).get());
}

/*
 * QPs with CQs of their own go to the engine with the fewest QPs; a QP that shares a
 * CQ (as send or receive CQ) with another goes to that one's engine, so every CQ is
 * written by one thread.
 */
static void test_spread_and_cq_affinity(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 4)) {
		printf("(one CPU: skipped) ");
		return;
	}
	unsigned n = (unsigned)CPU_COUNT(&cpus);
	MultiEnv e("hcaeng-spread", cpus);
	std::vector<std::unique_ptr<Lane>> lanes;
	std::map<unsigned, unsigned> per_engine;
	for (unsigned i = 0; i < 4 * n; i++) {
		lanes.emplace_back(new Lane(e.h(), e.pdn));
		per_engine[engine_of(e.h(), lanes.back()->q.qpn)]++;
	}
	CU_ASSERT_EQUAL(per_engine.size(), n);
	for (auto &pe : per_engine) {
		CU_ASSERT(pe.first < n);
		CU_ASSERT_EQUAL(pe.second, 4u);
	}
	/* sharing lane 1's CQ: lane 1's engine, whatever the load */
	unsigned e1 = engine_of(e.h(), lanes[1]->q.qpn);
	for (int i = 0; i < 3; i++) {
		Lane s(e.h(), e.pdn, 64, &lanes[1]->cq);
		CU_ASSERT_EQUAL(engine_of(e.h(), s.q.qpn), e1);
		CU_ASSERT_EQUAL(e.h().destroy_qp(s.q.qpn), 0);
	}
	/* receive CQ of one QP = send CQ of another */
	TestCq a(e.h(), 64), b(e.h(), 64);
	TestQp qa(e.h(), e.pdn, a.cqn, a.cqn, 8);
	TestQp qb(e.h(), e.pdn, b.cqn, a.cqn, 8);
	CU_ASSERT_EQUAL(engine_of(e.h(), qa.qpn), engine_of(e.h(), qb.qpn));
	/* a destroyed QP leaves its engine: the next one goes there */
	unsigned e0 = engine_of(e.h(), lanes[0]->q.qpn);
	CU_ASSERT_EQUAL(e.h().destroy_qp(lanes[0]->q.qpn), 0);
	CU_ASSERT_EQUAL(e.h().destroy_qp(qa.qpn), 0);
	CU_ASSERT_EQUAL(e.h().destroy_qp(qb.qpn), 0);
	TestCq c(e.h(), 64);
	TestQp qc(e.h(), e.pdn, c.cqn, c.cqn, 8);
	CU_ASSERT_EQUAL(engine_of(e.h(), qc.qpn), e0);
}

/* Every two live QPs of @p qpns that share a CQ are on one engine thread. */
static bool one_writer_per_cq(Hca &h, const std::vector<uint32_t> &qpns,
			      const std::vector<std::pair<uint32_t, uint32_t>> &cqs)
{
	std::map<uint32_t, unsigned> cq_engine;
	for (size_t i = 0; i < qpns.size(); i++) {
		unsigned eng = engine_of(h, qpns[i]);
		for (uint32_t cqn : {cqs[i].first, cqs[i].second}) {
			auto it = cq_engine.find(cqn);
			if (it == cq_engine.end())
				cq_engine[cqn] = eng;
			else if (it->second != eng)
				return false;
		}
	}
	return true;
}

/*
 * A QP whose send CQ is served by one engine thread and whose receive CQ by another
 * merges the two CQ groups onto one thread (the whole group, also QPs linked only
 * through a third CQ), so every CQ keeps one writer; then traffic on every QP from
 * two application threads completes in order. Before, the new QP joined its send
 * CQ's thread and its receive CQ had writers on two threads.
 */
static void test_bridge_merges_groups(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 4)) {
		printf("(one CPU: skipped) ");
		return;
	}
	MultiEnv e("hcaeng-bridge", cpus);
	TestCq a(e.h(), 1024), b(e.h(), 1024), c(e.h(), 1024), d(e.h(), 1024);
	/* groups: {q1: A} and {q2: B/C, q3: C}; q4 (send A, receive B) bridges them */
	TestQp q1(e.h(), e.pdn, a.cqn, a.cqn, 64);
	TestQp q2(e.h(), e.pdn, b.cqn, c.cqn, 64);
	CU_ASSERT_NOT_EQUAL_FATAL(engine_of(e.h(), q1.qpn), engine_of(e.h(), q2.qpn));
	TestQp q3(e.h(), e.pdn, c.cqn, c.cqn, 64);
	CU_ASSERT_EQUAL(engine_of(e.h(), q3.qpn), engine_of(e.h(), q2.qpn));
	/* an unrelated QP stays where it is */
	TestQp q5(e.h(), e.pdn, d.cqn, d.cqn, 64);
	unsigned e5 = engine_of(e.h(), q5.qpn);
	TestQp q4(e.h(), e.pdn, a.cqn, b.cqn, 64);
	std::vector<uint32_t> qpns = {q1.qpn, q2.qpn, q3.qpn, q4.qpn, q5.qpn};
	std::vector<std::pair<uint32_t, uint32_t>> cqs = {
		{a.cqn, a.cqn}, {b.cqn, c.cqn}, {c.cqn, c.cqn}, {a.cqn, b.cqn}, {d.cqn, d.cqn}};
	CU_ASSERT_TRUE(one_writer_per_cq(e.h(), qpns, cqs));
	CU_ASSERT_EQUAL(engine_of(e.h(), q1.qpn), engine_of(e.h(), q4.qpn));
	CU_ASSERT_EQUAL(engine_of(e.h(), q2.qpn), engine_of(e.h(), q4.qpn));
	CU_ASSERT_EQUAL(engine_of(e.h(), q3.qpn), engine_of(e.h(), q4.qpn));
	CU_ASSERT_EQUAL(engine_of(e.h(), q5.qpn), e5);
	/* the merged group's thread counts them: a new lone QP goes elsewhere */
	TestCq f(e.h(), 64);
	TestQp q6(e.h(), e.pdn, f.cqn, f.cqn, 8);
	CU_ASSERT_NOT_EQUAL(engine_of(e.h(), q6.qpn), engine_of(e.h(), q4.qpn));

	/* traffic on all of them from two threads: every CQE, each QP's in order */
	TestQp *qs[] = {&q1, &q2, &q3, &q4, &q5};
	for (TestQp *q : qs)
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q->qpn, q->qpn, kAllAccess), 0);
	Buf opaque(64), buf(5 * 8192);
	uint32_t okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t k = reg(e.h(), e.pdn, buf.p(), 5 * 8192, IBV_ACCESS_LOCAL_WRITE);
	constexpr int kRounds = 150;
	auto app = [&](int first) {
		for (int r = 0; r < kRounds; r++)
			for (int i = first; i < 5; i += 2) {
				TestQp &q = *qs[i];
				uint8_t *src = buf.p() + (size_t)i * 8192;
				Wqe w(q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE,
				      MLX5_HW_OPC_MOD_MMO_DMA);
				w.meta(okey, opaque.p()).data(256, k, src).data(256, k, src + 4096);
				w.post(q);
				q.ring(e.h());
				if (r % 32 == 31)
					e.h().quiesce(); /* keep within the 64-WQE rings */
			}
	};
	std::thread t(app, 1);
	app(0);
	t.join();
	e.h().quiesce();
	std::map<uint32_t, uint16_t> next;
	size_t total = 0;
	for (TestCq *cq : {&a, &b, &c, &d}) {
		std::vector<struct mlx5_cqe64> v;
		total += (size_t)cq->drain(&v);
		for (const struct mlx5_cqe64 &x : v) {
			CU_ASSERT_EQUAL(cqe_opcode(x), MLX5_CQE_REQ);
			CU_ASSERT_EQUAL(cqe_counter(x), next[cqe_qpn(x)]);
			next[cqe_qpn(x)]++;
		}
	}
	CU_ASSERT_EQUAL(total, (size_t)5 * kRounds);
	for (uint32_t qpn : qpns)
		CU_ASSERT_EQUAL(next[qpn], kRounds);
	CU_ASSERT_TRUE(one_writer_per_cq(e.h(), qpns, cqs));
}

/*
 * The bridging QP joins its send CQ's thread and its receive CQ's group moves there
 * (doc/guides/sim/software_hca.rst, hca_impl.h), whichever of the two groups was
 * created first. Before, it joined the thread of the first QP in the QP list that
 * shared either CQ: here the receive CQ's, and the send CQ's group moved.
 */
static void test_bridge_joins_send_cq_thread(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 2)) {
		printf("(one CPU: skipped) ");
		return;
	}
	MultiEnv e("hcaeng-bridge-scq", cpus);
	TestCq a(e.h(), 64), b(e.h(), 64);
	TestQp qa(e.h(), e.pdn, a.cqn, a.cqn, 8);
	TestQp qb(e.h(), e.pdn, b.cqn, b.cqn, 8);
	unsigned ea = engine_of(e.h(), qa.qpn), eb = engine_of(e.h(), qb.qpn);
	CU_ASSERT_NOT_EQUAL_FATAL(ea, eb);
	/* send CQ b (qb's thread), receive CQ a (qa's, the older group) */
	TestQp x(e.h(), e.pdn, b.cqn, a.cqn, 8);
	CU_ASSERT_EQUAL(engine_of(e.h(), x.qpn), eb);
	CU_ASSERT_EQUAL(engine_of(e.h(), qb.qpn), eb);
	CU_ASSERT_EQUAL(engine_of(e.h(), qa.qpn), eb);
}

/*
 * Many QPs on several engines, streamed from several application threads, small and
 * large copies mixed: every QP's CQEs come in WQE order, every byte arrives, and the
 * QPs that share a CQ see their own CQEs in order too.
 */
static void test_order_under_load(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 4)) {
		printf("(one CPU: skipped) ");
		return;
	}
	constexpr int kLanes = 16, kApps = 2, kRounds = 300, kDepth = 48;
	MultiEnv e("hcaeng-order", cpus);
	Buf opaque(64), b((size_t)kLanes * 2 * 4096);
	uint32_t okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t k = reg(e.h(), e.pdn, b.p(), (size_t)kLanes * 2 * 4096, IBV_ACCESS_LOCAL_WRITE);
	std::vector<std::unique_ptr<Lane>> lanes;
	for (int i = 0; i < kLanes; i++)
		lanes.emplace_back(new Lane(e.h(), e.pdn, 64));
	std::map<unsigned, int> engines;
	for (auto &l : lanes)
		engines[engine_of(e.h(), l->q.qpn)]++;
	CU_ASSERT_EQUAL(engines.size(), (size_t)CPU_COUNT(&cpus));
	std::atomic<bool> bad_data{false};
	auto app = [&](int first) {
		for (int r = 0; r < kRounds; r++) {
			for (int i = first; i < kLanes; i += kApps) {
				Lane &l = *lanes[i];
				uint8_t *src = b.p() + (size_t)i * 8192, *dst = src + 4096;
				uint32_t len = (r % 3) == 0 ? 4096 : 64 << (r % 3);
				bool check = r % 4 == 0;
				/* at most kDepth WQEs in flight per QP; none while src changes */
				while (l.posted - l.polled >= (check ? 1u : (uint32_t)kDepth))
					l.poll_own();
				if (check)
					memset(src, (uint8_t)(r + i), len);
				l.mmo(okey, opaque.p(), k, src, dst, len);
				l.q.ring(e.h());
				if (check) {
					while (l.polled != l.posted)
						l.poll_own();
					if (dst[0] != (uint8_t)(r + i) ||
					    dst[len - 1] != (uint8_t)(r + i))
						bad_data = true;
				}
			}
		}
	};
	std::vector<std::thread> ts;
	for (int a = 0; a < kApps; a++)
		ts.emplace_back(app, a);
	for (std::thread &t : ts)
		t.join();
	e.h().quiesce();
	for (auto &l : lanes) {
		l->poll_own();
		CU_ASSERT_EQUAL(l->polled, (uint32_t)kRounds);
		CU_ASSERT_TRUE(l->order_ok);
	}
	CU_ASSERT_FALSE(bad_data.load());
	CU_ASSERT_EQUAL(e.h().stats().wqes_executed, (uint64_t)kLanes * kRounds);

	/* two QPs on one CQ: each one's CQEs in order, interleaved with the other's */
	TestCq shared(e.h(), 1024);
	Lane l1(e.h(), e.pdn, 256, &shared), l2(e.h(), e.pdn, 256, &shared);
	CU_ASSERT_EQUAL(engine_of(e.h(), l1.q.qpn), engine_of(e.h(), l2.q.qpn));
	std::thread t1([&] {
		for (int r = 0; r < 200; r++) {
			l1.mmo(okey, opaque.p(), k, b.p(), b.p() + 4096, 64);
			l1.q.ring(e.h());
		}
	});
	for (int r = 0; r < 200; r++) {
		l2.mmo(okey, opaque.p(), k, b.p() + 8192, b.p() + 8192 + 4096, 64);
		l2.q.ring(e.h());
	}
	t1.join();
	e.h().quiesce();
	std::vector<struct mlx5_cqe64> v;
	CU_ASSERT_EQUAL(shared.drain(&v), 400);
	uint16_t next1 = 0, next2 = 0;
	for (const struct mlx5_cqe64 &c : v) {
		uint16_t &next = cqe_qpn(c) == l1.q.qpn ? next1 : next2;
		CU_ASSERT_EQUAL(cqe_counter(c), next);
		next++;
	}
	CU_ASSERT_EQUAL(next1, 200);
	CU_ASSERT_EQUAL(next2, 200);
}

/*
 * QPs of one engine created and destroyed, with work posted and not waited for,
 * while another engine streams on its QP: the stream loses nothing and stays in order.
 */
static void test_destroy_while_running(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 2)) {
		printf("(one CPU: skipped) ");
		return;
	}
	MultiEnv e("hcaeng-destroy", cpus);
	Buf opaque(64), b(3 * 8192);
	uint32_t okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t k = reg(e.h(), e.pdn, b.p(), 3 * 8192, IBV_ACCESS_LOCAL_WRITE);
	Lane stream(e.h(), e.pdn, 64);
	std::atomic<bool> stop{false};
	std::thread app([&] {
		while (!stop.load(std::memory_order_relaxed)) {
			while (stream.posted - stream.polled >= 32)
				stream.poll_own();
			stream.mmo(okey, opaque.p(), k, b.p(), b.p() + 4096, 2048);
			stream.q.ring(e.h());
		}
	});
	unsigned other = 0;
	for (int i = 0; i < 200; i++) {
		std::unique_ptr<Lane> l(new Lane(e.h(), e.pdn, 64));
		other += engine_of(e.h(), l->q.qpn) != engine_of(e.h(), stream.q.qpn);
		for (int j = 0; j < 20; j++)
			l->mmo(okey, opaque.p(), k, b.p() + 8192, b.p() + 16384, 4096);
		l->q.ring(e.h());
		if (i % 2)
			usleep(100);
		/* the rings are freed after this returns: the device must be done with them */
		CU_ASSERT_EQUAL(e.h().destroy_qp(l->q.qpn), 0);
	}
	stop = true;
	app.join();
	e.h().quiesce();
	stream.poll_own();
	CU_ASSERT_EQUAL(stream.polled, stream.posted);
	CU_ASSERT_TRUE(stream.order_ok);
	CU_ASSERT(other >= 100); /* the fewest-QPs rule: a new QP never joins the stream's */
}

namespace {

/* Doorbell records of several QPs, polled by one thread only (the kernel side's way). */
struct Records final : DoorbellSource {
	struct Rec {
		uint32_t qpn;
		const uint32_t *dbrec;
		uint32_t seen;
	};
	std::mutex lock;
	std::vector<Rec> recs;
	std::atomic<Hca *> hca{nullptr};
	std::thread::id poller;
	std::atomic<uint64_t> polls{0};
	std::atomic<bool> two_pollers{false};

	void poll() override
	{
		if (polls.fetch_add(1) == 0)
			poller = std::this_thread::get_id();
		else if (poller != std::this_thread::get_id())
			two_pollers = true;
		Hca *h = hca.load(std::memory_order_acquire);
		if (!h)
			return;
		std::lock_guard<std::mutex> g(lock);
		for (Rec &r : recs) {
			uint32_t v = __atomic_load_n(&r.dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE);
			if (v != r.seen) {
				r.seen = v;
				h->sq_doorbell(r.qpn, 0);
			}
		}
	}
	std::chrono::nanoseconds idle(std::chrono::nanoseconds) override
	{
		return std::chrono::milliseconds(1);
	}
};

} // namespace

/*
 * Doorbells that are only stores (the kernel side): engine 0 alone polls the
 * source, and a doorbell it finds for another engine's QP wakes that engine.
 */
static void test_doorbell_source_several(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 4)) {
		printf("(one CPU: skipped) ");
		return;
	}
	Records src;
	{
		MultiEnv e("hcaeng-dbsrc", cpus, &src);
		Buf opaque(64), b(8192);
		uint32_t okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		uint32_t k = reg(e.h(), e.pdn, b.p(), 8192, IBV_ACCESS_LOCAL_WRITE);
		std::vector<std::unique_ptr<Lane>> lanes;
		std::map<unsigned, int> engines;
		for (int i = 0; i < 2 * CPU_COUNT(&cpus); i++) {
			lanes.emplace_back(new Lane(e.h(), e.pdn, 64));
			engines[engine_of(e.h(), lanes.back()->q.qpn)]++;
			std::lock_guard<std::mutex> g(src.lock);
			src.recs.push_back({lanes.back()->q.qpn, lanes.back()->q.dbrec, 0});
		}
		CU_ASSERT_EQUAL(engines.size(), (size_t)CPU_COUNT(&cpus));
		src.hca.store(e.hca.get(), std::memory_order_release);
		for (int r = 0; r < 50; r++) {
			for (size_t i = 0; i < lanes.size(); i++) {
				Lane *l = lanes[i].get();
				l->mmo(okey, opaque.p(), k, b.p(), b.p() + 4096 + i * 256, 256);
				/* the record only, as libmlx5 writes it: no sq_doorbell() */
				__atomic_store_n(&l->q.dbrec[MLX5_SND_DBR],
						 htobe32(l->q.pi & 0xffff), __ATOMIC_RELEASE);
			}
			for (auto &l : lanes) {
				for (int i = 0; i < 4000 && l->polled != l->posted; i++) {
					l->poll_own();
					if (l->polled != l->posted)
						usleep(250);
				}
				CU_ASSERT_EQUAL_FATAL(l->polled, l->posted);
			}
		}
		for (auto &l : lanes)
			CU_ASSERT_TRUE(l->order_ok);
		CU_ASSERT_FALSE(src.two_pollers.load());
		src.hca.store(nullptr, std::memory_order_release);
		e.h().quiesce();
	}
}

/*
 * A SEND waiting for a receive WQE (RNR, retried for ever: no timer) on one engine,
 * its responder on another: the receive posted there wakes the engine of the
 * waiting send too (one engine thread re-planned every stalled send at each pass).
 */
static void test_rnr_wait_other_engine(void)
{
	cpu_set_t cpus;
	if (!usable_cpus(&cpus, 2)) {
		printf("(one CPU: skipped) ");
		return;
	}
	MultiEnv e("hcaeng-rnr", cpus);
	TestCq acq(e.h(), 64), bcq(e.h(), 64), brcq(e.h(), 64);
	TestQp a(e.h(), e.pdn, acq.cqn, acq.cqn, 8, 16, 6, 0x11);
	TestQp b(e.h(), e.pdn, bcq.cqn, brcq.cqn, 8, 16, 6, 0x22);
	CU_ASSERT_NOT_EQUAL_FATAL(engine_of(e.h(), a.qpn), engine_of(e.h(), b.qpn));
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), a.qpn, b.qpn, kAllAccess, 7), 0);
	CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), b.qpn, a.qpn, kAllAccess), 0);
	Buf dst(64);
	uint32_t dk = reg(e.h(), e.pdn, dst.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	Wqe w(a, MLX5_OPCODE_SEND);
	w.inl("abc", 3);
	w.post(a);
	a.ring(e.h());
	e.h().quiesce(); /* A has tried: it waits for a receive WQE */
	CU_ASSERT_EQUAL(acq.drain(), 0);
	b.post_recv(e.h(), {dseg(64, dk, dst.p())});
	struct mlx5_cqe64 c = {};
	bool got = false;
	for (int i = 0; i < 4000 && !got; i++) {
		got = acq.poll(&c);
		if (!got)
			usleep(250);
	}
	CU_ASSERT_TRUE(got);
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(memcmp(dst.p(), "abc", 3), 0);
	e.h().quiesce();
}

/*
 * get_async_event() with no event queued does not wait for the device mutex: the
 * PMD asks whenever a poll finds no completion, and a caller waiting for the mutex
 * makes the engine give way; a poller that a busy CPU kept from running then left
 * the engine idle for whole time slices (dma-perf, two workers on one CPU).
 */
static void test_event_poll_lock_free(void)
{
	Env e(ExecMode::Thread);
	HcaImpl *impl = dynamic_cast<HcaImpl *>(e.hca.get());
	CU_ASSERT_PTR_NOT_NULL_FATAL(impl);
	AsyncEvent ev;
	std::future<int> f;
	bool quick;
	{
		DevLock lk(impl->mu_); /* the engine in a long pass */
		f = std::async(std::launch::async, [&] { return e.h().get_async_event(&ev); });
		quick = f.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
	}
	CU_ASSERT_TRUE(quick);
	CU_ASSERT_EQUAL(f.get(), -EAGAIN); /* (after the unlock, when it waited) */
	/* an event queued is still delivered, once */
	TestCq cq(e.h(), 16);
	TestQp q(e.h(), e.pdn, cq.cqn, cq.cqn, 8);
	Fault fault{};
	fault.kind = Fault::Kind::QpFatal;
	fault.qpn = q.qpn;
	CU_ASSERT_EQUAL_FATAL(e.h().inject(fault), 0);
	e.h().quiesce();
	CU_ASSERT_EQUAL(e.h().get_async_event(&ev), 0);
	CU_ASSERT_EQUAL(ev.qpn, q.qpn);
	CU_ASSERT_EQUAL(e.h().get_async_event(&ev), -EAGAIN);
}

int main(void)
{
	static const struct cunit_test t[] = {
		{"one engine thread pinned to each CPU", test_one_thread_per_cpu},
		{"more CPUs than HCA_MAX_ENGINES: refused", test_engine_cap},
		{"QPs spread over engines, QPs sharing a CQ together", test_spread_and_cq_affinity},
		{"a QP bridging two engines' CQs merges them", test_bridge_merges_groups},
		{"a bridging QP joins its send CQ's thread", test_bridge_joins_send_cq_thread},
		{"per-QP completion order with many QPs and engines", test_order_under_load},
		{"QPs destroyed while another engine streams", test_destroy_while_running},
		{"a DoorbellSource polled by engine 0 only", test_doorbell_source_several},
		{"no event: get_async_event takes no lock", test_event_poll_lock_free},
		{"a receive wakes the engine of a send waiting for it", test_rnr_wait_other_engine},
	};
	return CUNIT_RUN_SUITE("several engine threads", t);
}
