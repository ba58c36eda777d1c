/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Several engine threads run the MMO fast path of their QPs outside the device
 * mutex (HcaImpl::fast_pass(), DevMutex::enter_unlocked()). Two threads copy at the
 * same time, and the memory-safety rules hold while they do: no byte lands in an MR
 * after dereg_mr(), a shrinking rereg_mr(), or in a QP's memory after destroy_qp() or
 * a move to ERR returns; every completion is right.
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
#include "hca_impl.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

constexpr uint8_t kPattern = 0xa5;
constexpr size_t kHalf = 64 * 1024; /* the destination MR: two halves */

/*
 * The first and last byte of a half hold the pattern. Later WQEs rewrite the half with
 * the same bytes while it is read, as a CPU reading a DMA target races with the
 * device: ThreadSanitizer does not instrument this read.
 */
__attribute__((no_sanitize_thread)) bool landed(const uint8_t *half, size_t len)
{
	volatile const uint8_t *d = half;
	return d[0] == kPattern && d[len - 1] == kPattern;
}

/**
 * A QP with a CQ of its own and a destination of two halves behind a key of its own;
 * its poster copies len bytes of the source into the halves in turn.
 */
struct Lane {
	Hca &h;
	TestCq cq;
	TestQp q;
	Buf dst;
	uint32_t dkey = 0;
	size_t len = kHalf;
	uint32_t posted = 0, polled = 0, ok = 0, errs = 0;
	bool order_ok = true, err_then_ok = false;
	std::atomic<bool> stop{false};    /**< the poster leaves it alone */
	std::atomic<bool> stopped{false}; /**< ... and has done so */
	std::atomic<bool> event{false};   /**< the control thread acts on it */
	std::atomic<bool> bad_data{false};
	Lane(Hca &hca, uint32_t pdn)
		: h(hca), cq(hca, 1024), q(hca, pdn, cq.cqn, cq.cqn, 64), dst(2 * kHalf)
	{
		CU_ASSERT_EQUAL_FATAL(connect_qp(h, q.qpn, q.qpn, kAllAccess), 0);
		dkey = reg(h, pdn, dst.p(), 2 * kHalf, IBV_ACCESS_LOCAL_WRITE);
	}
	void poll()
	{
		struct mlx5_cqe64 c;
		while (cq.poll(&c)) {
			if (cqe_qpn(c) != q.qpn || cqe_counter(c) != (uint16_t)polled)
				order_ok = false;
			uint8_t op = cqe_opcode(c);
			if (op == MLX5_CQE_REQ) {
				if (errs)
					err_then_ok = true; /* a success after an error */
				ok++;
				/* the copy of WQE polled landed: checked if nothing changed its
				 * memory meanwhile (the flag is read after the bytes) */
				bool same = landed(dst.p() + (polled % 2) * kHalf, len);
				if (!same && !event.load(std::memory_order_seq_cst))
					bad_data = true;
			} else {
				errs++;
			}
			polled++;
		}
	}
	void post_one(uint32_t skey, const uint8_t *src, uint32_t okey, void *opaque)
	{
		Wqe w(q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opaque)
			.data((uint32_t)len, skey, src)
			.data((uint32_t)len, dkey, dst.p() + (posted % 2) * kHalf);
		w.post(q);
		posted++;
		q.ring(h);
	}
};

/** The device's mutex, whose gate counts the overlapping unlocked passes. */
DevMutex &mutex_of(TwoEngines &d)
{
	return dynamic_cast<HcaImpl &>(d.h()).mu_;
}

/** Two engine threads, a lane on each, the source and the opaque area they use. */
struct Pair {
	TwoEngines d;
	Buf src{kHalf, kPattern}, opaque{64};
	uint32_t skey = 0, okey = 0;
	std::unique_ptr<Lane> a, b;
	/* empty (one CPU: skipped) unless operator bool */
	explicit Pair(const char *name) : d(name)
	{
		if (!d)
			return;
		skey = reg(d.h(), d.pdn, src.p(), kHalf, IBV_ACCESS_LOCAL_WRITE);
		okey = reg(d.h(), d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		a.reset(new Lane(d.h(), d.pdn));
		b.reset(new Lane(d.h(), d.pdn));
		CU_ASSERT_NOT_EQUAL_FATAL(engine_of(d.h(), a->q.qpn), engine_of(d.h(), b->q.qpn));
	}
	explicit operator bool() const { return (bool)d; }
	/*
	 * Both lanes post from two application threads, each until done(lane) or @p secs
	 * pass, then drain their completions.
	 */
	template <typename Done>
	void stream(int secs, Done done)
	{
		auto run = [&](Lane &l) {
			auto end = std::chrono::steady_clock::now() + std::chrono::seconds(secs);
			while (std::chrono::steady_clock::now() < end && !done(l)) {
				while (l.posted - l.polled >= 32)
					l.poll();
				l.post_one(skey, src.p(), okey, opaque.p());
			}
			while (l.polled != l.posted)
				l.poll();
		};
		std::thread t([&] { run(*b); });
		run(*a);
		t.join();
	}
};

bool all(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

} // namespace

/*
 * Two QPs on two engine threads, each streaming large copies: the threads' unlocked
 * passes overlap (DevMutex::overlaps()), every byte arrives and no pass is locked
 * out for good. With every pass under the device mutex they never overlapped.
 */
static void test_two_threads_copy_at_once(void)
{
	Pair p("hcaunl-par");
	if (!p)
		return;
	TwoEngines &d = p.d;
	Lane &a = *p.a, &b = *p.b;
	uint64_t before = mutex_of(d).overlaps();
	p.stream(10, [&](const Lane &l) {
		return l.posted >= 2000 && mutex_of(d).overlaps() != before;
	});
	d.h().quiesce();
	CU_ASSERT(mutex_of(d).overlaps() > before);
	printf("(%u + %u copies, %llu overlapping passes) ", a.ok, b.ok,
	       (unsigned long long)(mutex_of(d).overlaps() - before));
	for (Lane *l : {&a, &b}) {
		CU_ASSERT_EQUAL(l->ok, l->posted);
		CU_ASSERT_EQUAL(l->errs, 0u);
		CU_ASSERT_TRUE(l->order_ok);
		CU_ASSERT_FALSE(l->bad_data.load());
		CU_ASSERT_TRUE(l->dst.guards_intact());
	}
	CU_ASSERT_EQUAL(d.h().stats().wqes_executed, (uint64_t)a.posted + b.posted);
}

/*
 * Each engine thread's unlocked passes count in a block of their own without a locked
 * add (Engine::unlocked_st_). Small copies that each ask for a CQE make both threads
 * write their counters as often as they can, and stats() still adds up to exactly
 * what ran. One block for both threads loses counts here.
 */
static void test_stats_add_up(void)
{
	Pair p("hcaunl-stats");
	if (!p)
		return;
	TwoEngines &d = p.d;
	Lane &a = *p.a, &b = *p.b;
	a.len = b.len = 64;
	HcaStats before = d.h().stats();
	uint64_t overlaps = mutex_of(d).overlaps();
	/* 3 s, and on until the passes overlapped (a loaded machine may take longer) */
	auto start = std::chrono::steady_clock::now();
	p.stream(20, [&](const Lane &) {
		return std::chrono::steady_clock::now() - start >= std::chrono::seconds(3) &&
		       mutex_of(d).overlaps() != overlaps;
	});
	d.h().quiesce();
	HcaStats s = d.h().stats();
	uint64_t n = (uint64_t)a.posted + b.posted;
	printf("(%llu copies, %llu overlapping passes) ", (unsigned long long)n,
	       (unsigned long long)(mutex_of(d).overlaps() - overlaps));
	CU_ASSERT(mutex_of(d).overlaps() > overlaps);
	CU_ASSERT_EQUAL(a.ok + b.ok, n);
	CU_ASSERT_EQUAL(s.wqes_executed - before.wqes_executed, n);
	CU_ASSERT_EQUAL(s.cqes_written - before.cqes_written, n);
	CU_ASSERT_EQUAL(s.bytes_moved - before.bytes_moved, n * 64);
	CU_ASSERT_EQUAL(s.error_cqes, before.error_cqes);
}

namespace {

enum class Act {
	Dereg,
	Shrink,
	Destroy,
	ToErr
};

/*
 * Lanes on both engine threads stream copies from two application threads while a
 * control thread acts on one lane at a time; once its call returns, the memory it
 * took away (the whole destination, its upper half, or all of it for a destroyed QP
 * or one in ERR) is cleared and must stay clear while the others go on.
 */
void stress(Act act, const char *name)
{
	constexpr int kLanes = 6;
	TwoEngines d(name);
	if (!d)
		return;
	Buf src(kHalf, kPattern), opaque(64);
	uint32_t skey = reg(d.h(), d.pdn, src.p(), kHalf, IBV_ACCESS_LOCAL_WRITE);
	uint32_t okey = reg(d.h(), d.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	std::vector<std::unique_ptr<Lane>> lanes;
	for (int i = 0; i < kLanes; i++)
		lanes.emplace_back(new Lane(d.h(), d.pdn));
	std::atomic<bool> done{false};
	auto app = [&](int first) {
		while (!done.load(std::memory_order_relaxed)) {
			for (int i = first; i < kLanes; i += 2) {
				Lane &l = *lanes[i];
				if (l.stop.load(std::memory_order_acquire)) {
					l.stopped.store(true, std::memory_order_release);
					continue;
				}
				l.poll();
				if (l.posted - l.polled < 16 && !l.errs)
					l.post_one(skey, src.p(), okey, opaque.p());
			}
		}
	};
	std::thread t0(app, 0), t1(app, 1);
	bool clear_ok = true;
	for (int i = 0; i < kLanes; i++) {
		Lane &l = *lanes[i];
		usleep(20000); /* let everybody stream */
		uint8_t *from = l.dst.p();
		size_t len = 2 * kHalf;
		l.event.store(true, std::memory_order_seq_cst);
		switch (act) {
		case Act::Dereg:
			CU_ASSERT_EQUAL(d.h().dereg_mr(l.dkey), 0);
			break;
		case Act::Shrink:
			CU_ASSERT_EQUAL(d.h().rereg_mr(l.dkey, d.pdn, (uintptr_t)l.dst.p(), kHalf,
						       IBV_ACCESS_LOCAL_WRITE),
					0);
			from += kHalf;
			len = kHalf;
			break;
		case Act::Destroy:
			/* the poster leaves the QP first, WQEs still in flight */
			l.stop.store(true, std::memory_order_release);
			while (!l.stopped.load(std::memory_order_acquire))
				usleep(100);
			CU_ASSERT_EQUAL(d.h().destroy_qp(l.q.qpn), 0);
			break;
		case Act::ToErr:
			CU_ASSERT_EQUAL(set_state(d.h(), l.q.qpn, IBV_QPS_ERR), 0);
			break;
		}
		/* returned: the device is done with that memory */
		memset(from, 0, len);
		usleep(20000);
		if (!all(from, len, 0))
			clear_ok = false;
		if (!l.dst.guards_intact())
			clear_ok = false;
	}
	done = true;
	t0.join();
	t1.join();
	d.h().quiesce();
	CU_ASSERT_TRUE(clear_ok);
	uint64_t ok = 0;
	for (auto &lp : lanes) {
		Lane &l = *lp;
		if (act != Act::Destroy)
			l.poll();
		CU_ASSERT_TRUE(l.order_ok);
		CU_ASSERT_FALSE(l.bad_data.load());
		CU_ASSERT_FALSE(l.err_then_ok);
		ok += l.ok;
		if (act == Act::Shrink || act == Act::Dereg || act == Act::ToErr) {
			/* every WQE completed, the ones after the change with an error */
			CU_ASSERT_EQUAL(l.polled, l.posted);
			if (act != Act::Shrink)
				CU_ASSERT(l.errs > 0);
		}
		if (act == Act::Destroy)
			l.q.qpn = 0;
	}
	printf("(%llu copies) ", (unsigned long long)ok);
	CU_ASSERT(ok > 0);
}

} // namespace

static void test_dereg_while_copying(void)
{
	stress(Act::Dereg, "hcaunl-dereg");
}

static void test_shrink_while_copying(void)
{
	stress(Act::Shrink, "hcaunl-shrink");
}

static void test_destroy_while_copying(void)
{
	stress(Act::Destroy, "hcaunl-destroy");
}

static void test_error_while_copying(void)
{
	stress(Act::ToErr, "hcaunl-err");
}

int main(void)
{
	static const struct cunit_test t[] = {
		{"two engine threads copy at the same time", test_two_threads_copy_at_once},
		{"statistics of both threads' unlocked passes add up", test_stats_add_up},
		{"dereg_mr while both threads copy", test_dereg_while_copying},
		{"rereg_mr shrinking while both threads copy", test_shrink_while_copying},
		{"destroy_qp while both threads copy", test_destroy_while_copying},
		{"modify to ERR while both threads copy", test_error_while_copying},
	};
	return CUNIT_RUN_SUITE("unlocked engine passes", t);
}
