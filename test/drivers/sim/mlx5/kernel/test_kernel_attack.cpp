/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The kernel side's command channel under attack: malformed headers and
 * attributes, pointers the process does not have, handles of the wrong kind or
 * gone, memory unmapped under live objects, and seeded random bytes. Every one
 * must end in an errno, never a crash or a hang. Links the kernel side in as
 * test_kernel_dispatch does; MLX5_SIM_RDMA_DEVICES=1 comes from meson test.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include <infiniband/verbs.h>

#include "cunit_run.h"
#include "kside.h"
#include "kside_test_util.h"
#include "mlx5_abi.h"
#include "uverbs_abi.h"
#include "uverbs_call.h"

using namespace mlx5sim::kernel;
using namespace kside_test;

namespace {

/* ---- tests -------------------------------------------------------------------------- */

constexpr uint64_t kKernelAddr = 0xffff888000000000ull;

/** A page that is mapped but PROT_NONE, and the page after it unmapped. */
uint8_t *bad_pages()
{
	uint8_t *p = (uint8_t *)mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return nullptr;
	mprotect(p + 4096, 4096, PROT_NONE);
	munmap(p + 2 * 4096, 4096);
	return p; /* [0] rw, [1] none, [2] unmapped */
}

void test_header_pointers()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	uint64_t bad[] = {0,
			  8,
			  4096,
			  kKernelAddr,
			  (uint64_t)(uintptr_t)(p + 4096),
			  (uint64_t)(uintptr_t)(p + 2 * 4096),
			  ~0ull - 8};
	for (uint64_t a : bad) {
		errno = 0;
		CU_ASSERT_EQUAL(ioctl(fd, kRdmaVerbsIoctl, (void *)(uintptr_t)a), -1);
		CU_ASSERT_EQUAL(errno, EFAULT);
	}
	/* the header readable, its attributes in the PROT_NONE page */
	uint32_t cmd = WCMD_QUERY_DEVICE;
	Req r(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	r.in(A_WRITE_CMD, &cmd, 4);
	uint8_t *h = p + 4096 - sizeof(UverbsIoctlHdr);
	memcpy(h, r.buf.data(), sizeof(UverbsIoctlHdr));
	CU_ASSERT_EQUAL(ioctl(fd, kRdmaVerbsIoctl, h), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* num_attrs the largest a header can say, length to match modulo 2^16 */
	Req big(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	big.hdr()->num_attrs = 0xffff;
	big.hdr()->length = (uint16_t)(sizeof(UverbsIoctlHdr) + 0xffffu * sizeof(UverbsAttr));
	CU_ASSERT_EQUAL(big.send(fd), EINVAL);
	big.hdr()->num_attrs = 0x1000;
	big.hdr()->length = (uint16_t)(sizeof(UverbsIoctlHdr) + 0x1000u * sizeof(UverbsAttr));
	CU_ASSERT_EQUAL(big.send(fd), EINVAL);
	munmap(p, 2 * 4096);
	close(fd);
}

void test_attr_pointers()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	uint64_t bad[] = {0, kKernelAddr, (uint64_t)(uintptr_t)(p + 4096),
			  (uint64_t)(uintptr_t)(p + 2 * 4096)};
	uint32_t cmd = WCMD_QUERY_DEVICE;
	for (uint64_t a : bad) {
		/* an output the process cannot write */
		CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
					.in(A_WRITE_CMD, &cmd, 4)
					.add(A_WRITE_CORE_IN, 8, 0)
					.add(A_WRITE_CORE_OUT, sizeof(QueryDeviceResp), a)
					.send(fd),
				EFAULT);
		/* an input longer than 8 bytes the process cannot read */
		uint32_t reg = WCMD_REG_MR;
		RegMrResp out;
		CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
					.in(A_WRITE_CMD, &reg, 4)
					.add(A_WRITE_CORE_IN, sizeof(RegMrCmd), a)
					.out(A_WRITE_CORE_OUT, &out, sizeof(out))
					.send(fd),
				EFAULT);
		/* a 16-byte command input: the trailing-zero check reads it */
		CU_ASSERT_EQUAL(
			Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE).add(A_WRITE_CMD, 16, a).send(fd),
			EFAULT);
		/* a response straddling the end of the writable page */
		QueryPortRespEx *pr = (QueryPortRespEx *)(p + 4096 - 8);
		uint64_t port = 1;
		CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_PORT)
					.in(A_QUERY_PORT_NUM, &port, 8)
					.out(A_QUERY_PORT_RESP, pr, sizeof(*pr))
					.send(fd),
				EFAULT);
	}
	/* the attribute array read-only: a new PD's handle cannot be written back */
	uint8_t *ro = (uint8_t *)mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(ro != MAP_FAILED);
	Req u(OBJ_MLX5_UAR, M_UAR_ALLOC);
	uint64_t type = kUarTypeNc, off = 0;
	uint32_t len = 0, page = 0;
	u.add(A_UAR_HANDLE, 0, 0)
		.in(A_UAR_TYPE, &type, 8)
		.out(A_UAR_MMAP_OFFSET, &off, 8)
		.out(A_UAR_MMAP_LENGTH, &len, 4)
		.out(A_UAR_PAGE_ID, &page, 4);
	memcpy(ro, u.buf.data(), u.buf.size());
	mprotect(ro, 4096, PROT_READ);
	CU_ASSERT_EQUAL(ioctl(fd, kRdmaVerbsIoctl, ro), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	munmap(ro, 4096);
	munmap(p, 2 * 4096);
	close(fd);
}

void test_handles()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pd2;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd2), 0);
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	RegMrResp mr;
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE, &mr), 0);
	/* a PD destroyed as an MR and the other way round; handles of nothing */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, pd), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_QP, M_QP_DESTROY, A_DESTROY_HANDLE, pd), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_UAR, M_UAR_DESTROY, A_UAR_HANDLE, pd), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, 0xffffffffu), ENOENT);
	/* a destroy handle with a 64-bit value whose low half names the PD */
	CU_ASSERT_EQUAL(
		Req(OBJ_PD, M_PD_DESTROY).add(A_DESTROY_HANDLE, 0, (1ull << 32) | pd2).send(fd),
		ENOENT);
	/* an MR on a PD handle that is an MR */
	RegMrResp mr2;
	CU_ASSERT_EQUAL(reg_mr(fd, mr.mr_handle, buf, 4096, 0, &mr2), EINVAL);
	/* double destroy, and a destroyed handle reused */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), ENOENT);
	DeregMrCmd dm = {mr.mr_handle};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_DEREG_MR, &dm, sizeof(dm), nullptr, 0), ENOENT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), ENOENT);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, buf, 4096, 0, &mr2), EINVAL);
	/* handles of one fd mean nothing on another */
	int fd2 = ready_fd();
	CU_ASSERT_FATAL(fd2 >= 0);
	CU_ASSERT_EQUAL(destroy(fd2, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd2), ENOENT);
	close(fd2);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd2), 0);
	close(fd);
}

void test_invoke_write_lengths()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	RegMrCmd in = {0, (uint64_t)(uintptr_t)buf, 4096, (uint64_t)(uintptr_t)buf, pd, 0};
	RegMrResp out;
	/* the core request one byte short, the response one byte short */
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &in, sizeof(in) - 1, &out, sizeof(out)),
			ENOSPC);
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &in, sizeof(in), &out, sizeof(out) - 1),
			ENOSPC);
	/* the core request inline (8 bytes or less) for a command of more */
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &in, 8, &out, sizeof(out)), ENOSPC);
	/* MODIFY_QP with a request of exactly 8 bytes (inline) */
	ModifyQpCmd m = {};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, 8, nullptr, 0), ENOSPC);
	/* a request longer than the command: the excess is not read as command */
	uint8_t longer[512] = {};
	memcpy(longer, &in, sizeof(in));
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, longer, sizeof(longer), &out, sizeof(out)),
			0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, out.mr_handle), 0);
	/* a huge response buffer that is only partly mapped */
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	uint32_t cmd = WCMD_QUERY_DEVICE;
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, &cmd, 4)
				.add(A_WRITE_CORE_IN, 8, 0)
				.add(A_WRITE_CORE_OUT, 0xfff0, (uint64_t)(uintptr_t)p)
				.send(fd),
			EFAULT);
	/* MRs over memory the process does not have in full */
	CU_ASSERT_EQUAL(reg_mr(fd, pd, p, 2 * 4096, IBV_ACCESS_LOCAL_WRITE, &out), EFAULT);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, p + 4096, 4096, 0, &out), EFAULT);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, p + 2 * 4096, 4096, 0, &out), EFAULT);
	/* a range that wraps: EINVAL, as ib_umem_get */
	CU_ASSERT_EQUAL(reg_mr(fd, pd, p, ~0ull - 4096, 0, &out), EINVAL);
	in.start = in.hca_va = ~0ull - 4095;
	in.length = 8192; /* wraps */
	int r = invoke_write(fd, WCMD_REG_MR, &in, sizeof(in), &out, sizeof(out));
	CU_ASSERT(r == EFAULT || r == EINVAL);
	in.start = in.hca_va = kKernelAddr;
	in.length = 4096;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &in, sizeof(in), &out, sizeof(out)), EFAULT);
	/* read-only memory registered for local write */
	mprotect(p, 4096, PROT_READ);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, p, 4096, IBV_ACCESS_LOCAL_WRITE, &out), EFAULT);
	munmap(p, 2 * 4096);
	close(fd);
}

void test_devx_lengths()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t in[16] = {}, out[16] = {};
	prm_set(in, kPrmInOpcode, kPrmOpQueryHcaCap);
	/* a short output: the firmware's BAD_PARAM in the 16 bytes there are */
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EREMOTEIO);
	/* input and output shorter than a command header */
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, 8)
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EINVAL);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, 15)
				.send(fd),
			EINVAL);
	/* an output length far beyond the buffer */
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.add(A_DEVX_CMD_OUT, 0xffff, (uint64_t)(uintptr_t)p)
				.send(fd),
			EFAULT);
	/* the input in unmapped memory */
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.add(A_DEVX_CMD_IN, 0x100, (uint64_t)(uintptr_t)(p + 2 * 4096))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EFAULT);
	munmap(p, 2 * 4096);
	close(fd);
}

void test_mmap_offsets()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	off_t offs[] = {0, 4096, 0x900000, 0x900000 + 1, (off_t)0x7ffffffffffff000ll, -4096};
	for (off_t o : offs) {
		errno = 0;
		void *m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, o);
		CU_ASSERT_EQUAL(m, MAP_FAILED);
		if (m != MAP_FAILED)
			munmap(m, 4096);
	}
	close(fd);
}

/** Rings for one CQ and one QP. */
struct Rings {
	int fd = -1, efd = -1;
	uint32_t pd = 0, cq = 0, cqn = 0, qp = 0, qpn = 0;
	uint8_t *ring = nullptr;
	uint32_t *db = nullptr;
	Mlx5CreateCq creq = {};
	Mlx5CreateQp qreq = {};

	bool open()
	{
		fd = ready_fd();
		if (fd < 0 || (efd = async_fd(fd)) < 0 || alloc_pd(fd, &pd))
			return false;
		ring = (uint8_t *)mmap(nullptr, 64 * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		db = (uint32_t *)mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ring == MAP_FAILED || db == MAP_FAILED)
			return false;
		/* the last page a hole: a ring that runs past the end of the mapping */
		munmap(ring + 63 * 4096, 4096);
		creq = {(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
		qreq.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
		qreq.db_addr = (uint64_t)(uintptr_t)(db + 16);
		qreq.sq_wqe_count = 16;
		qreq.rq_wqe_count = 8;
		qreq.rq_wqe_shift = 6;
		qreq.uidx = 1;
		return true;
	}
	void close_all()
	{
		if (efd >= 0)
			close(efd);
		if (fd >= 0)
			close(fd);
	}
};

void test_ring_addresses()
{
	Rings r;
	CU_ASSERT_FATAL(r.open());
	uint32_t h;
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	/* CQ ring: PROT_NONE, half mapped, read-only, kernel, wrapping */
	Mlx5CreateCq bad = r.creq;
	bad.buf_addr = (uint64_t)(uintptr_t)(p + 4096);
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 63, &h, nullptr), EFAULT);
	bad.buf_addr = (uint64_t)(uintptr_t)p; /* 64 x 64 = 1 page OK, 128 x 64 is not */
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 127, &h, nullptr), EFAULT);
	bad.buf_addr = kKernelAddr;
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 63, &h, nullptr), EFAULT);
	bad.buf_addr = ~0ull - 4095;
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 127, &h, nullptr), EFAULT);
	bad = r.creq;
	bad.db_addr = (uint64_t)(uintptr_t)(p + 4096 - 4); /* record straddles into PROT_NONE */
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 63, &h, nullptr), EFAULT);
	mprotect(p, 4096, PROT_READ);
	bad = r.creq;
	bad.buf_addr = (uint64_t)(uintptr_t)p;
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 63, &h, nullptr), EFAULT);
	bad = r.creq;
	bad.db_addr = (uint64_t)(uintptr_t)p;
	CU_ASSERT_EQUAL(create_cq(r.fd, bad, 63, &h, nullptr), EFAULT);
	/* a huge CQE count */
	CU_ASSERT_EQUAL(create_cq(r.fd, r.creq, 0xffffffffu, &h, nullptr), EINVAL);
	CU_ASSERT_EQUAL_FATAL(create_cq(r.fd, r.creq, 63, &r.cq, &r.cqn), 0);
	/* QP rings: the SQ past the mapping, db unmapped, zero WQEs, huge shift */
	Mlx5CreateQp q = r.qreq;
	q.buf_addr = (uint64_t)(uintptr_t)(r.ring + 63 * 4096 - 1024); /* RQ 512 + SQ 1024 */
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq, r.efd, q, kUverbsQptRc, &h), EFAULT);
	q = r.qreq;
	q.db_addr = (uint64_t)(uintptr_t)(p + 2 * 4096);
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq, r.efd, q, kUverbsQptRc, &h), EFAULT);
	q = r.qreq;
	q.sq_wqe_count = 0;
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq, r.efd, q, kUverbsQptRc, &h), EINVAL);
	q = r.qreq;
	q.rq_wqe_shift = 31;
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq, r.efd, q, kUverbsQptRc, &h), EINVAL);
	q = r.qreq;
	q.sq_wqe_count = 1u << 31;
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq, r.efd, q, kUverbsQptRc, &h), EINVAL);
	/* UHW request one byte short of the fields the QP needs */
	{
		uint64_t uh = 0;
		QpCap cap = {8, 8, 1, 1, 0}, rcap;
		uint32_t qpn = 0, type = kUverbsQptRc;
		Mlx5CreateQpResp m;
		CU_ASSERT_EQUAL(Req(OBJ_QP, M_QP_CREATE)
					.add(A_QP_HANDLE, 0, 0)
					.add(A_QP_PD, 0, r.pd)
					.add(A_QP_SEND_CQ, 0, r.cq)
					.add(A_QP_RECV_CQ, 0, r.cq)
					.in(A_QP_USER_HANDLE, &uh, 8)
					.in(A_QP_CAP, &cap, sizeof(cap))
					.in(A_QP_TYPE, &type, 4)
					.add(A_QP_EVENT_FD, 0, (uint64_t)r.efd)
					.out(A_QP_RESP_CAP, &rcap, sizeof(rcap))
					.out(A_QP_RESP_QP_NUM, &qpn, 4)
					.in(kAttrUhwIn, &q, offsetof(Mlx5CreateQp, sq_buf_addr) - 1)
					.out(kAttrUhwOut, &m, sizeof(m))
					.send(r.fd),
				EINVAL);
	}
	/* a QP whose send CQ is a PD handle; a CQ handle destroyed meanwhile */
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.pd, r.efd, r.qreq, kUverbsQptRc, &h), EINVAL);
	/* handles and fds wider than 32 bits whose low half names a live object */
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd | (1ull << 32), r.cq, r.efd, r.qreq, kUverbsQptRc, &h),
			ENOENT);
	CU_ASSERT_EQUAL(create_qp(r.fd, r.pd, r.cq | (1ull << 32), r.efd, r.qreq, kUverbsQptRc, &h),
			ENOENT);
	{
		uint64_t uh = 0;
		QpCap cap = {8, 8, 1, 1, 0}, rcap;
		uint32_t qpn = 0, type = kUverbsQptRc;
		Mlx5CreateQpResp m;
		CU_ASSERT_EQUAL(Req(OBJ_QP, M_QP_CREATE)
					.add(A_QP_HANDLE, 0, 0)
					.add(A_QP_PD, 0, r.pd)
					.add(A_QP_SEND_CQ, 0, r.cq)
					.add(A_QP_RECV_CQ, 0, r.cq)
					.in(A_QP_USER_HANDLE, &uh, 8)
					.in(A_QP_CAP, &cap, sizeof(cap))
					.in(A_QP_TYPE, &type, 4)
					.add(A_QP_EVENT_FD, 0, (uint64_t)r.efd | (1ull << 32))
					.out(A_QP_RESP_CAP, &rcap, sizeof(rcap))
					.out(A_QP_RESP_QP_NUM, &qpn, 4)
					.in(kAttrUhwIn, &r.qreq, sizeof(r.qreq))
					.out(kAttrUhwOut, &m, sizeof(m))
					.send(r.fd),
				EINVAL);
	}
	/* SRQ rings: read-only, PROT_NONE, past the mapping, kernel, wrapping; records
	 * read-only and unmapped; a PD handle wider than 32 bits (p is read-only now) */
	Mlx5CreateSrq sq = {};
	sq.buf_addr = (uint64_t)(uintptr_t)(r.ring + 32 * 4096);
	sq.db_addr = (uint64_t)(uintptr_t)(r.db + 48);
	Mlx5CreateSrq bs = sq;
	bs.buf_addr = (uint64_t)(uintptr_t)p;
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 63, 3, &h), EFAULT);
	bs.buf_addr = (uint64_t)(uintptr_t)(p + 4096);
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 63, 3, &h), EFAULT);
	bs.buf_addr = (uint64_t)(uintptr_t)(r.ring + 62 * 4096); /* 2 pages, 1 mapped */
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 127, 3, &h), EFAULT);
	bs.buf_addr = kKernelAddr;
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 63, 3, &h), EFAULT);
	bs.buf_addr = ~0ull - 4095;
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 127, 3, &h), EFAULT);
	bs = sq;
	bs.db_addr = (uint64_t)(uintptr_t)p;
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 63, 3, &h), EFAULT);
	bs.db_addr = (uint64_t)(uintptr_t)(p + 2 * 4096);
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, bs, 63, 3, &h), EFAULT);
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd, r.efd, sq, 0xffffffffu, 0xffffffffu, &h), EINVAL);
	CU_ASSERT_EQUAL(create_srq(r.fd, r.pd | (1ull << 32), r.efd, sq, 63, 3, &h), ENOENT);
	/* REREG_MR onto memory the process lacks: the MR stays as it was */
	RegMrResp mr;
	CU_ASSERT_EQUAL_FATAL(reg_mr(r.fd, r.pd, r.ring, 4096, 1, &mr), 0);
	ReregMrCmd rr = {0,
			 mr.mr_handle,
			 IBV_REREG_MR_CHANGE_TRANSLATION,
			 (uint64_t)(uintptr_t)(p + 4096),
			 4096,
			 (uint64_t)(uintptr_t)(p + 4096),
			 0,
			 0};
	ReregMrResp rresp;
	CU_ASSERT_EQUAL(invoke_write(r.fd, WCMD_REREG_MR, &rr, sizeof(rr), &rresp, sizeof(rresp)),
			EFAULT);
	rr.start = rr.hca_va = kKernelAddr;
	CU_ASSERT_EQUAL(invoke_write(r.fd, WCMD_REREG_MR, &rr, sizeof(rr), &rresp, sizeof(rresp)),
			EFAULT);
	rr.start = rr.hca_va = ~0ull - 4095;
	rr.length = 8192;
	CU_ASSERT_NOT_EQUAL(
		invoke_write(r.fd, WCMD_REREG_MR, &rr, sizeof(rr), &rresp, sizeof(rresp)), 0);
	CU_ASSERT_EQUAL(destroy(r.fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), 0);
	DestroyCqResp dr;
	CU_ASSERT_EQUAL(Req(OBJ_CQ, M_CQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, r.cq | (1ull << 32))
				.out(A_DESTROY_RESP, &dr, sizeof(dr))
				.send(r.fd),
			ENOENT);
	munmap(p, 2 * 4096);
	r.close_all();
	munmap(r.ring, 63 * 4096);
	munmap(r.db, 4096);
}

/*
 * Seeded random bytes in the header and the attributes of otherwise well-formed
 * commands, on every method: every answer an errno or success, never a crash.
 */
void test_random_ioctls()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	size_t nm;
	const MethodSpec *ms = method_table(&nm);
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	static uint8_t scratch[8192] __attribute__((aligned(4096)));
	uint64_t ptrs[] = {0,
			   kKernelAddr,
			   (uint64_t)(uintptr_t)p,
			   (uint64_t)(uintptr_t)(p + 4096),
			   (uint64_t)(uintptr_t)(p + 4096 - 16),
			   (uint64_t)(uintptr_t)scratch,
			   (uint64_t)(uintptr_t)(scratch + 4096 + 8),
			   1,
			   2,
			   3};
	unsigned seed = 0x5eed;
	const char *s = getenv("KSIDE_FUZZ_SEED");
	if (s)
		seed = (unsigned)strtoul(s, nullptr, 0);
	srand(seed);
	unsigned ok = 0;
	for (int it = 0; it < 5000; it++) {
		const MethodSpec &m = ms[(size_t)rand() % nm];
		Req r(m.object, m.method);
		for (size_t a = 0; a < m.n_attrs; a++) {
			if (rand() % 8 == 0)
				continue;
			uint16_t len = (uint16_t)(rand() % 4 == 0 ? rand() % 300 : rand() % 17);
			uint64_t data = rand() % 2 ? ptrs[(size_t)rand() % 10]
						   : ((uint64_t)rand() << 32 | (uint32_t)rand());
			if (rand() % 3 == 0)
				data = (uint64_t)(rand() % 8);
			r.add(m.attrs[a].id, len, data, rand() % 4 != 0);
		}
		/* flip random bytes of header and attributes */
		int flips = rand() % 4;
		for (int f = 0; f < flips; f++)
			r.buf[(size_t)rand() % r.buf.size()] ^= (uint8_t)(1u << (rand() % 8));
		for (size_t i = 0; i < sizeof(scratch); i += 64)
			scratch[i] = (uint8_t)rand();
		if (r.send(fd) == 0)
			ok++;
	}
	printf("random ioctls (seed 0x%x): %u of 5000 accepted\n", seed, ok);
	/* the context still answers */
	uint32_t pd;
	CU_ASSERT_EQUAL(alloc_pd(fd, &pd), 0);
	munmap(p, 2 * 4096);
	close(fd);
}

/** One ucma command: header {cmd, in, out} then @p body; write()'s result or -errno. */
ssize_t ucma_cmd(int fd, uint32_t cmd, const void *body, uint16_t in, uint16_t out,
		 size_t extra = 0)
{
	std::vector<uint8_t> b(8 + in + extra, 0);
	memcpy(b.data(), &cmd, 4);
	memcpy(b.data() + 4, &in, 2);
	memcpy(b.data() + 6, &out, 2);
	if (in)
		memcpy(b.data() + 8, body, in);
	ssize_t r = write(fd, b.data(), b.size());
	return r < 0 ? -errno : r;
}

/** CREATE_ID (cmd 0) of an RC id in port space TCP: the id, or -errno. */
int ucma_create(int fd, uint64_t response)
{
	struct {
		uint64_t uid, response;
		uint16_t ps;
		uint8_t qp_type, reserved[5];
	} c = {7, response, 0x106, IBV_QPT_RC, {}};
	ssize_t r = ucma_cmd(fd, 0, &c, sizeof(c), 4);
	return r < 0 ? (int)r : 0;
}

void test_ucma_writes()
{
	int fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	/* short, header only with more in than written, unknown and past the table */
	uint32_t zero[64] = {};
	CU_ASSERT_EQUAL(write(fd, zero, 7), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(ucma_cmd(fd, 0, zero, 0, 4, 0) < 0, true);
	{
		uint32_t h[2] = {0, 0xffff | (4u << 16)}; /* in 0xffff, out 4, nothing more */
		CU_ASSERT_EQUAL(write(fd, h, sizeof(h)), -1);
		CU_ASSERT_EQUAL(errno, EINVAL);
	}
	CU_ASSERT_EQUAL(ucma_cmd(fd, 23, zero, 16, 0), -EINVAL);
	CU_ASSERT_EQUAL(ucma_cmd(fd, 0xffffffffu, zero, 16, 0), -EINVAL);
	CU_ASSERT_EQUAL(ucma_cmd(fd, 16, zero, 16, 0), -ENOSYS); /* a command not served */
	/* the write buffer itself unreadable, or running into PROT_NONE */
	CU_ASSERT_EQUAL(write(fd, p + 4096, 64), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	uint32_t *h = (uint32_t *)(p + 4096 - 8);
	h[0] = 0;
	h[1] = 40 | (4u << 16);
	CU_ASSERT_EQUAL(write(fd, h, 48), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* a huge write: only the header's in is read */
	std::vector<uint8_t> huge(1 << 20, 0);
	uint32_t hh[2] = {23, 0};
	memcpy(huge.data(), hh, sizeof(hh));
	CU_ASSERT_EQUAL(write(fd, huge.data(), huge.size()), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* responses at addresses the process does not have */
	uint64_t bad[] = {0, kKernelAddr, (uint64_t)(uintptr_t)(p + 4096),
			  (uint64_t)(uintptr_t)(p + 2 * 4096)};
	for (uint64_t a : bad)
		CU_ASSERT_EQUAL(ucma_create(fd, a), -EFAULT);
	/* ids of nothing: DESTROY_ID, and GET_EVENT on an empty non-blocking channel */
	uint32_t id = 0;
	CU_ASSERT_EQUAL_FATAL(ucma_create(fd, (uint64_t)(uintptr_t)&id), 0);
	struct {
		uint64_t response;
		uint32_t id, reserved;
	} d = {(uint64_t)(uintptr_t)zero, id + 1000, 0};
	CU_ASSERT_EQUAL(ucma_cmd(fd, 1, &d, sizeof(d), 4), -ENOENT);
	d.id = id;
	d.response = (uint64_t)(uintptr_t)(p + 4096);
	ssize_t r = ucma_cmd(fd, 1, &d, sizeof(d), 4);
	CU_ASSERT(r == -EFAULT || r == 8 + (ssize_t)sizeof(d));
	d.response = (uint64_t)(uintptr_t)zero;
	r = ucma_cmd(fd, 1, &d, sizeof(d), 4);
	CU_ASSERT(r == -ENOENT || r == 8 + (ssize_t)sizeof(d));
	static uint8_t evbuf[1024];
	uint64_t ev = (uint64_t)(uintptr_t)evbuf;
	CU_ASSERT_EQUAL(ucma_cmd(fd, 12, &ev, 8, sizeof(evbuf)), -EAGAIN);
	munmap(p, 2 * 4096);
	close(fd);
}

/*
 * Seeded random ucma commands: every command number with random bodies whose
 * pointer-sized fields are good, bad or random; the channel non-blocking.
 */
void test_ucma_random()
{
	int fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	static uint8_t scratch[4096] __attribute__((aligned(4096)));
	uint64_t ptrs[] = {0, kKernelAddr, (uint64_t)(uintptr_t)(p + 4096),
			   (uint64_t)(uintptr_t)scratch, (uint64_t)(uintptr_t)(p + 4096 - 64)};
	srand(0xc0ffee);
	uint32_t id = 0;
	for (int it = 0; it < 3000; it++) {
		if (it % 50 == 0)
			(void)ucma_create(fd, (uint64_t)(uintptr_t)&id);
		uint8_t body[600];
		uint16_t in = (uint16_t)(rand() % 4 ? rand() % 320 : rand() % 600);
		for (size_t i = 0; i < sizeof(body); i += 8) {
			uint64_t v = rand() % 3 == 0 ? ptrs[(size_t)rand() % 5]
						     : (rand() % 2 ? (uint64_t)(rand() % 4)
								   : (uint64_t)rand() << 32 |
									     (uint32_t)rand());
			memcpy(body + i, &v, 8);
		}
		/* the id field where most commands have it */
		if (rand() % 2)
			memcpy(body + (rand() % 2 ? 8 : 16), &id, 4);
		uint32_t cmd = (uint32_t)(rand() % 24);
		if (cmd == 12) /* GET_EVENT would drain the channel: INIT_QP_ATTR */
			cmd = 11;
		(void)ucma_cmd(fd, cmd, body, in, (uint16_t)(rand() % 600));
	}
	/* the channel still serves */
	CU_ASSERT_EQUAL(ucma_create(fd, (uint64_t)(uintptr_t)&id), 0);
	munmap(p, 2 * 4096);
	close(fd);
}

/*
 * The interposed libc calls with the pointers the kernel answers with EFAULT: paths
 * and stat buffers the process does not have. They read and write them through the
 * kernel as the commands do; they used to dereference them and crash the process.
 */
void test_libc_pointers()
{
	uint8_t *p = bad_pages();
	CU_ASSERT_FATAL(p != nullptr);
	const char *bad[] = {(const char *)1, (const char *)(p + 4096),
			     (const char *)(p + 2 * 4096), (const char *)kKernelAddr};
	struct stat st;
	for (const char *b : bad) {
		errno = 0;
		CU_ASSERT_EQUAL(open(b, O_RDWR), -1);
		CU_ASSERT_EQUAL(errno, EFAULT);
		errno = 0;
		CU_ASSERT_EQUAL(stat(b, &st), -1);
		CU_ASSERT_EQUAL(errno, EFAULT);
		errno = 0;
		CU_ASSERT_EQUAL(fstatat(AT_FDCWD, b, &st, 0), -1);
		CU_ASSERT_EQUAL(errno, EFAULT);
	}
	/* a path running into the PROT_NONE page before its end */
	char *edge = (char *)(p + 4096 - 5);
	memcpy(edge, "/dev/", 5);
	CU_ASSERT_EQUAL(open(edge, O_RDWR), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* the device node's stat into a buffer the process does not have */
	struct stat *ust = (struct stat *)(p + 4096);
	errno = 0;
	CU_ASSERT_EQUAL(stat("/dev/infiniband/uverbs0", ust), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	CU_ASSERT_EQUAL(stat("/dev/infiniband/rdma_cm", ust), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	errno = 0;
	CU_ASSERT_EQUAL(fstat(fd, ust), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT_TRUE(S_ISCHR(st.st_mode));
	struct statx stx;
	CU_ASSERT_EQUAL(statx(AT_FDCWD, "/dev/infiniband/uverbs0", 0, STATX_BASIC_STATS,
			      (struct statx *)(p + 4096)),
			-1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	CU_ASSERT_EQUAL(statx(AT_FDCWD, "/dev/infiniband/uverbs0", 0, STATX_BASIC_STATS, &stx), 0);
	close(fd);
	munmap(p, 2 * 4096);
}

/*
 * close_range() and closefrom() close fds without close(): the numbers they free
 * are the next open()'s, and must be plain files again, neither a command fd (read
 * EINVAL) nor an event fd (events written into the new file).
 */
void test_close_range()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int afd = async_fd(fd);
	CU_ASSERT_FATAL(afd >= 0);
	int lo = fd < afd ? fd : afd, hi = fd < afd ? afd : fd;
	/* CLOSE_RANGE_CLOEXEC closes nothing: still ours */
	CU_ASSERT_EQUAL(close_range((unsigned)lo, (unsigned)hi, CLOSE_RANGE_CLOEXEC), 0);
	uint64_t v;
	errno = 0;
	CU_ASSERT_EQUAL(read(fd, &v, sizeof(v)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(close_range((unsigned)lo, (unsigned)hi, 0), 0);
	int a = open("/dev/zero", O_RDONLY), b = open("/dev/zero", O_RDONLY);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	for (int f : {a, b}) {
		v = 1;
		CU_ASSERT_EQUAL(read(f, &v, sizeof(v)), (ssize_t)sizeof(v));
		CU_ASSERT_EQUAL(v, 0u);
	}
	close(a);
	close(b);
	/* closefrom(): the highest fd of the process is a fresh command fd */
	fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	closefrom(fd);
	a = open("/dev/zero", O_RDONLY);
	CU_ASSERT_EQUAL(a, fd);
	v = 1;
	CU_ASSERT_EQUAL(read(a, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(v, 0u);
	close(a);
}

/*
 * A vfork() child shares the process's memory, not its fds: what it closes before
 * exec (Python's subprocess closes every fd with close_range) must leave the
 * parent's device fds the parent's. fork() children close theirs as their own.
 */
void test_vfork_child_closes()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int afd = async_fd(fd);
	CU_ASSERT_FATAL(afd >= 0);
	uint32_t pd = 0;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	pid_t pid = vfork();
	if (pid == 0) {
		close_range(3, ~0u, 0);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	int st = -1;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pid = vfork();
	if (pid == 0) {
		close(fd);
		close(afd);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	/* still the parent's: its objects and commands */
	uint32_t pd2 = 0;
	CU_ASSERT_EQUAL(alloc_pd(fd, &pd2), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd2), 0);
	/* a fork() child closes its own copies; the parent's stay */
	pid = fork();
	if (pid == 0) {
		close_range(3, ~0u, 0);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(alloc_pd(fd, &pd), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	close(afd);
	close(fd);
}

const struct cunit_test tests[] = {
	{"header at bad addresses, attributes unreadable, num_attrs huge", test_header_pointers},
	{"attribute pointers: NULL, kernel, PROT_NONE, unmapped, read-only", test_attr_pointers},
	{"handles: wrong type, destroyed, double destroy, other fd", test_handles},
	{"INVOKE_WRITE lengths; MRs over unmapped / PROT_NONE / half-mapped",
	 test_invoke_write_lengths},
	{"DevX short and huge buffers", test_devx_lengths},
	{"mmap of offsets that are no UAR", test_mmap_offsets},
	{"CQ / QP rings and doorbell records outside the process", test_ring_addresses},
	{"5000 seeded random ioctls", test_random_ioctls},
	{"ucma writes: short, huge, unknown, bad ids and pointers", test_ucma_writes},
	{"3000 seeded random ucma commands", test_ucma_random},
	{"libc calls with paths and buffers the process does not have", test_libc_pointers},
	{"close_range / closefrom: the freed fd numbers are plain fds again", test_close_range},
	{"a vfork() child's close leaves the parent's fds", test_vfork_child_closes},
};

} // namespace

int main()
{
	return CUNIT_RUN_SUITE("kernel side under attack", tests);
}
