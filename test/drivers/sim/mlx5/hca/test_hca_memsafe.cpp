/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Memory safety of the model against what the application does to its memory:
 * registration probes every page like pinning would (a page past the end of a
 * file mapping fails with EFAULT, never a SIGBUS at copy time), and on-demand
 * pages unmapped while the engine copies give an error CQE, never a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cunit_run.h"
#include "hca_test_util.h"

using namespace hcatest;

namespace {

/** A device (inline or thread mode), one CQ, one RC QP in RTS, the opaque buffer. */
struct MmoDev {
	Env e;
	TestCq cq;
	TestQp q;
	Buf opaque;
	uint32_t okey;
	explicit MmoDev(ExecMode mode)
		: e(mode), cq(e.h(), 64), q(e.h(), e.pdn, cq.cqn, cq.cqn, 16), opaque(64)
	{
		okey = reg(e.h(), e.pdn, opaque.p(), 64, IBV_ACCESS_LOCAL_WRITE);
		CU_ASSERT_EQUAL_FATAL(connect_qp(e.h(), q.qpn, 0, 0), 0);
	}
	void mmo(uint32_t skey, const void *src, uint32_t dkey, const void *dst, uint32_t bc)
	{
		Wqe w(q, MLX5_OPCODE_MMO, MLX5_WQE_CTRL_CQ_UPDATE, MLX5_HW_OPC_MOD_MMO_DMA);
		w.meta(okey, opaque.p()).data(bc, skey, src).data(bc, dkey, dst);
		w.post(q);
		q.ring(e.h());
	}
	/** Wait up to @p ms for one CQE. */
	bool wait_cqe(struct mlx5_cqe64 *c, int ms)
	{
		auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
		while (!cq.poll(c)) {
			if (std::chrono::steady_clock::now() > until)
				return false;
			std::this_thread::yield();
		}
		return true;
	}
};

/** A 4 KiB file mapped over 8 KiB (MAP_SHARED): the second page is past EOF. */
struct ShortFileMap {
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p = nullptr;
	ShortFileMap()
	{
		char path[] = "/tmp/hca_memsafe_XXXXXX";
		int fd = mkstemp(path);
		CU_ASSERT_FATAL(fd >= 0);
		unlink(path);
		CU_ASSERT_EQUAL_FATAL(ftruncate(fd, pg), 0);
		void *m = mmap(nullptr, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		CU_ASSERT_NOT_EQUAL_FATAL(m, MAP_FAILED);
		p = static_cast<uint8_t *>(m);
	}
	~ShortFileMap() { munmap(p, 2 * pg); }
};

/* ---- registration: pages past the end of a file mapping (D2) ---- */

/**
 * reg_mr over both pages fails with EFAULT (read-only and writable MRs), as
 * pinning would. Should a registration succeed, a copy into or out of the second
 * page must end with an error CQE, never SIGBUS.
 */
void test_reg_past_eof(void)
{
	MmoDev m(ExecMode::Inline);
	ShortFileMap f;
	Buf b(64, 0x5a);
	uint32_t bk = reg(m.e.h(), m.e.pdn, b.p(), 64, IBV_ACCESS_LOCAL_WRITE);
	uint32_t key = 0;
	int rc = m.e.h().reg_mr(m.e.pdn, (uintptr_t)f.p, 2 * f.pg, IBV_ACCESS_LOCAL_WRITE, &key);
	CU_ASSERT_EQUAL(rc, -EFAULT);
	if (rc == 0) {
		struct mlx5_cqe64 c;
		m.mmo(bk, b.p(), key, f.p + f.pg, 64); /* SIGBUS before the fix */
		CU_ASSERT_TRUE(m.wait_cqe(&c, 1000));
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
		m.e.h().dereg_mr(key);
	}
	rc = m.e.h().reg_mr(m.e.pdn, (uintptr_t)f.p + f.pg, f.pg, 0, &key);
	CU_ASSERT_EQUAL(rc, -EFAULT);
	if (rc == 0)
		m.e.h().dereg_mr(key);
	/* the page inside the file registers and copies */
	uint32_t fk = reg(m.e.h(), m.e.pdn, f.p, f.pg, IBV_ACCESS_LOCAL_WRITE);
	struct mlx5_cqe64 c;
	m.mmo(bk, b.p(), fk, f.p + 8, 64);
	CU_ASSERT_TRUE(m.wait_cqe(&c, 1000));
	CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ);
	CU_ASSERT_EQUAL(f.p[8], 0x5a);
	CU_ASSERT_EQUAL(f.p[71], 0x5a);
}

/** Pages that cannot be accessed at all (PROT_NONE inside a readable MR). */
void test_reg_prot_none_page(void)
{
	Env e;
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p = static_cast<uint8_t *>(
		mmap(nullptr, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_NOT_EQUAL_FATAL(p, MAP_FAILED);
	CU_ASSERT_EQUAL(mprotect(p + pg, pg, PROT_NONE), 0);
	uint32_t key;
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)p, 3 * pg, 0, &key), -EFAULT);
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)p + 2 * pg, pg, 0, &key), 0);
	munmap(p, 3 * pg);
}

/**
 * A large registration stays cheap: 1 GiB of populated shared memory (every page
 * is probed) and a 16 GiB sparse private reservation (nothing to probe: anonymous
 * private pages can always be faulted in) register quickly.
 */
void test_reg_large_fast(void)
{
	Env e;
	const size_t big = 1ull << 30, sparse = 16ull << 30;
	int fd = memfd_create("hca_memsafe", MFD_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, big), 0);
	uint8_t *p = static_cast<uint8_t *>(
		mmap(nullptr, big, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	close(fd);
	CU_ASSERT_NOT_EQUAL_FATAL(p, MAP_FAILED);
	memset(p, 1, big);
	uint8_t *s = static_cast<uint8_t *>(mmap(nullptr, sparse, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
						 0));
	CU_ASSERT_NOT_EQUAL_FATAL(s, MAP_FAILED);
	uint32_t k1, k2;
	auto t0 = std::chrono::steady_clock::now();
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)p, big, kAllAccess, &k1), 0);
	auto t1 = std::chrono::steady_clock::now();
	CU_ASSERT_EQUAL(e.h().reg_mr(e.pdn, (uintptr_t)s, sparse, IBV_ACCESS_LOCAL_WRITE, &k2), 0);
	auto t2 = std::chrono::steady_clock::now();
	double a = std::chrono::duration<double>(t1 - t0).count();
	double b = std::chrono::duration<double>(t2 - t1).count();
	printf("\n    reg_mr 1 GiB shared populated: %.1f ms, 16 GiB sparse: %.1f ms ", a * 1e3,
	       b * 1e3);
	CU_ASSERT_TRUE(a < 2.0);
	CU_ASSERT_TRUE(b < 1.0);
	munmap(p, big);
	munmap(s, sparse);
}

/* ---- on-demand pages unmapped while the engine copies (D3) ---- */

/**
 * Whether the engine has started writing @p dst (either end changed). Out of TSan's
 * view: the device writes application memory without synchronisation, as DMA does,
 * and the application only watches for its bytes (a plain volatile read each).
 */
__attribute__((no_sanitize_thread)) bool copy_started(const uint8_t *dst, size_t len)
{
	return *(const volatile uint8_t *)&dst[0] != 0 ||
	       *(const volatile uint8_t *)&dst[len - 1] != 0;
}

/**
 * Thread mode, implicit ODP MR, one large MMO. Another thread waits until the
 * copy has started (either end of the destination changed), then unmaps the
 * middle of the source (or destination). The CQE is a success (the copy won) or
 * LOC_PROT with the ODP page-fault vendor syndrome; the process survives.
 */
void odp_unmap_during_copy(bool unmap_dst)
{
	MmoDev m(ExecMode::Thread);
	uint32_t odp;
	CU_ASSERT_EQUAL_FATAL(m.e.h().reg_mr(m.e.pdn, 0, UINT64_MAX,
					     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, &odp),
			      0);
	const size_t len = 512ull << 20, quarter = len / 4;
	uint8_t *src = static_cast<uint8_t *>(
		mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	uint8_t *dst = static_cast<uint8_t *>(
		mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CU_ASSERT_NOT_EQUAL_FATAL(src, MAP_FAILED);
	CU_ASSERT_NOT_EQUAL_FATAL(dst, MAP_FAILED);
	memset(src, 0xab, len);
	uint8_t *victim = (unmap_dst ? dst : src) + quarter;

	std::atomic<int> unmapped{0};
	std::thread app([&] {
		/* generous, and yielding: on a loaded 2-core machine the engine may start late */
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
		while (!copy_started(dst, len)) {
			if (std::chrono::steady_clock::now() > until)
				return;
			std::this_thread::yield();
		}
		unmapped = munmap(victim, 2 * quarter) == 0 ? 1 : -1;
	});
	m.mmo(odp, src, odp, dst, (uint32_t)len);
	struct mlx5_cqe64 c = {};
	bool got = m.wait_cqe(&c, 10000);
	app.join();
	CU_ASSERT_TRUE(got);
	CU_ASSERT_EQUAL(unmapped.load(), 1);
	if (cqe_opcode(c) == MLX5_CQE_REQ) {
		printf("\n    the copy finished before the unmap ");
		CU_ASSERT_EQUAL(cqe_bytes(c), (uint32_t)len);
	} else {
		CU_ASSERT_EQUAL(cqe_opcode(c), MLX5_CQE_REQ_ERR);
		CU_ASSERT_EQUAL(cqe_syndrome(c), MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		CU_ASSERT_EQUAL(cqe_vendor(c), MLX5_CQE_VENDOR_SYNDROME_ODP_PFAULT);
		CU_ASSERT_EQUAL(qp_state(m.e.h(), m.q.qpn), IBV_QPS_ERR);
	}
	munmap(src, quarter);
	munmap(src + 3 * quarter, quarter);
	munmap(dst, quarter);
	munmap(dst + 3 * quarter, quarter);
	if (!unmap_dst)
		munmap(dst + quarter, 2 * quarter);
	else
		munmap(src + quarter, 2 * quarter);
}

void test_odp_unmap_src_during_copy(void)
{
	odp_unmap_during_copy(false);
}

void test_odp_unmap_dst_during_copy(void)
{
	odp_unmap_during_copy(true);
}

} // namespace

int main(void)
{
	static const struct cunit_test reg_tests[] = {
		{"file mapping past EOF -> EFAULT, never SIGBUS", test_reg_past_eof},
		{"PROT_NONE page inside the range -> EFAULT", test_reg_prot_none_page},
		{"1 GiB shared and 16 GiB sparse register fast", test_reg_large_fast},
	};
	static const struct cunit_test odp_tests[] = {
		{"thread mode: source unmapped during a 512 MiB copy",
		 test_odp_unmap_src_during_copy},
		{"thread mode: destination unmapped during a 512 MiB copy",
		 test_odp_unmap_dst_during_copy},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("registration probes", reg_tests),
		CUNIT_SUITE("odp copies", odp_tests),
	};
	return CUNIT_RUN_SUITES(suites);
}
