/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Shared by the kernel side's channel tests (test_kernel_dispatch,
 * test_kernel_attack): hand-made RDMA_VERBS_IOCTLs and the few commands
 * every test needs to get a ready context.
 */
#ifndef MLX5_SIM_KSIDE_TEST_UTIL_H
#define MLX5_SIM_KSIDE_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <vector>

#include "mlx5_abi.h"
#include "uverbs_abi.h"

namespace kside_test {

using namespace mlx5sim::kernel;

/** One ioctl being built: header + attributes, sent as RDMA_VERBS_IOCTL. */
struct Req {
	std::vector<uint8_t> buf;

	Req(uint16_t obj, uint16_t method) : buf(sizeof(UverbsIoctlHdr))
	{
		hdr()->object_id = obj;
		hdr()->method_id = method;
		hdr()->driver_id = kDriverIdMlx5;
		fix();
	}
	UverbsIoctlHdr *hdr() { return reinterpret_cast<UverbsIoctlHdr *>(buf.data()); }
	UverbsAttr *attr(size_t i)
	{
		return reinterpret_cast<UverbsAttr *>(buf.data() + sizeof(UverbsIoctlHdr)) + i;
	}
	void fix()
	{
		hdr()->num_attrs =
			(uint16_t)((buf.size() - sizeof(UverbsIoctlHdr)) / sizeof(UverbsAttr));
		hdr()->length = (uint16_t)buf.size();
	}
	Req &add(uint16_t id, uint16_t len, uint64_t data, bool mandatory = true)
	{
		UverbsAttr a = {id, len, (uint16_t)(mandatory ? kAttrMandatory : 0), 0, data};
		const uint8_t *p = reinterpret_cast<const uint8_t *>(&a);
		buf.insert(buf.end(), p, p + sizeof(a));
		fix();
		return *this;
	}
	Req &in(uint16_t id, const void *p, uint16_t len, bool mandatory = true)
	{
		uint64_t d = 0;
		if (len <= 8)
			memcpy(&d, p, len);
		else
			d = (uint64_t)(uintptr_t)p;
		return add(id, len, d, mandatory);
	}
	Req &out(uint16_t id, void *p, uint16_t len, bool mandatory = true)
	{
		return add(id, len, (uint64_t)(uintptr_t)p, mandatory);
	}
	/** 0 or the errno. */
	int send(int fd) { return ioctl(fd, kRdmaVerbsIoctl, buf.data()) == 0 ? 0 : errno; }
};

inline int open_dev()
{
	return open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);
}

/** GET_CONTEXT as libmlx5 44 sends it (DEVX, dynamic UARs). */
inline int get_context(int fd, Mlx5AllocUcontextResp *resp, uint64_t lib_caps = 3,
		       uint32_t comp_mask = 0, uint16_t req_len = sizeof(Mlx5AllocUcontextReq))
{
	Mlx5AllocUcontextReq req = {};
	uint32_t ncomp = 0;
	uint64_t core = 0;
	req.total_num_bfregs = 16;
	req.num_low_latency_bfregs = 4;
	req.flags = kUctxDevx;
	req.comp_mask = comp_mask;
	req.max_cqe_version = 1;
	req.lib_caps = lib_caps;
	return Req(OBJ_DEVICE, M_DEVICE_GET_CONTEXT)
		.out(A_CTX_NUM_COMP_VECTORS, &ncomp, 4)
		.out(A_CTX_CORE_SUPPORT, &core, 8)
		.in(kAttrUhwIn, &req, req_len)
		.out(kAttrUhwOut, resp, sizeof(*resp))
		.send(fd);
}

/** A legacy command through INVOKE_WRITE. */
inline int invoke_write(int fd, uint32_t cmd, const void *in, uint16_t inlen, void *out,
			uint16_t outlen, void *uhw_out = nullptr, uint16_t uhw_len = 0)
{
	Req r(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	r.in(A_WRITE_CMD, &cmd, 4);
	if (inlen)
		r.in(A_WRITE_CORE_IN, in, inlen);
	if (outlen)
		r.out(A_WRITE_CORE_OUT, out, outlen);
	if (uhw_len)
		r.out(kAttrUhwOut, uhw_out, uhw_len);
	return r.send(fd);
}

inline int alloc_pd(int fd, uint32_t *handle, uint32_t *pdn = nullptr)
{
	CmdResponsePtr in = {0};
	AllocPdResp out = {};
	Mlx5AllocPdResp m = {};
	int ret = invoke_write(fd, WCMD_ALLOC_PD, &in, sizeof(in), &out, sizeof(out), &m,
			       sizeof(m));
	*handle = out.pd_handle;
	if (pdn)
		*pdn = m.pdn;
	return ret;
}

inline int reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len, uint32_t access,
		  RegMrResp *out)
{
	RegMrCmd in = {0, (uint64_t)(uintptr_t)addr, len, (uint64_t)(uintptr_t)addr, pd, access};
	return invoke_write(fd, WCMD_REG_MR, &in, sizeof(in), out, sizeof(*out));
}

inline int destroy(int fd, uint16_t obj, uint16_t method, uint16_t attr, uint32_t handle)
{
	return Req(obj, method).add(attr, 0, handle).send(fd);
}

/** A context ready for commands. */
inline int ready_fd()
{
	Mlx5AllocUcontextResp resp;
	int fd = open_dev();
	if (fd >= 0 && get_context(fd, &resp)) {
		close(fd);
		return -1;
	}
	return fd;
}

/** An async event fd of @p fd's context. */
inline int async_fd(int fd)
{
	Req r(OBJ_ASYNC_EVENT, M_ASYNC_EVENT_ALLOC);
	r.add(A_ASYNC_EVENT_FD, 0, 0);
	return r.send(fd) ? -1 : (int)r.attr(0)->data;
}

inline int create_cq(int fd, const Mlx5CreateCq &req, uint32_t cqe, uint32_t *handle, uint32_t *cqn)
{
	uint64_t uh = 0x5151;
	uint32_t vec = 0, resp_cqe = 0;
	Mlx5CreateCqResp m = {};
	Req r(OBJ_CQ, M_CQ_CREATE);
	r.add(A_CQ_HANDLE, 0, 0)
		.in(A_CQ_CQE, &cqe, 4)
		.in(A_CQ_USER_HANDLE, &uh, 8)
		.in(A_CQ_COMP_VECTOR, &vec, 4)
		.out(A_CQ_RESP_CQE, &resp_cqe, 4)
		.in(kAttrUhwIn, &req, sizeof(req))
		.out(kAttrUhwOut, &m, sizeof(m));
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	if (cqn)
		*cqn = m.cqn;
	return ret;
}

inline int create_qp(int fd, uint64_t pd, uint64_t cq, int efd, const Mlx5CreateQp &req,
		     uint32_t type, uint32_t *handle, uint32_t *qpn_out = nullptr)
{
	uint64_t uh = 0x7171;
	QpCap cap = {8, 8, 1, 1, 0}, rcap;
	uint32_t qpn = 0;
	Mlx5CreateQpResp m;
	Req r(OBJ_QP, M_QP_CREATE);
	r.add(A_QP_HANDLE, 0, 0)
		.add(A_QP_PD, 0, pd)
		.add(A_QP_SEND_CQ, 0, cq)
		.add(A_QP_RECV_CQ, 0, cq)
		.in(A_QP_USER_HANDLE, &uh, 8)
		.in(A_QP_CAP, &cap, sizeof(cap))
		.in(A_QP_TYPE, &type, 4)
		.add(A_QP_EVENT_FD, 0, (uint64_t)efd)
		.out(A_QP_RESP_CAP, &rcap, sizeof(rcap))
		.out(A_QP_RESP_QP_NUM, &qpn, 4)
		.in(kAttrUhwIn, &req, sizeof(req))
		.out(kAttrUhwOut, &m, sizeof(m));
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	if (qpn_out)
		*qpn_out = qpn;
	return ret;
}

/** QP/CREATE of an RC QP receiving from SRQ handle @p srq. */
inline int create_qp_srq(int fd, uint64_t pd, uint64_t cq, int efd, const Mlx5CreateQp &req,
			 uint64_t srq, uint32_t *handle)
{
	uint64_t uh = 0x7272;
	uint32_t type = kUverbsQptRc, qpn = 0;
	QpCap cap = {8, 0, 1, 0, 0}, rcap;
	Mlx5CreateQpResp m;
	Req r(OBJ_QP, M_QP_CREATE);
	r.add(A_QP_HANDLE, 0, 0)
		.add(A_QP_PD, 0, pd)
		.add(A_QP_SEND_CQ, 0, cq)
		.add(A_QP_RECV_CQ, 0, cq)
		.add(A_QP_SRQ, 0, srq)
		.in(A_QP_USER_HANDLE, &uh, 8)
		.in(A_QP_CAP, &cap, sizeof(cap))
		.in(A_QP_TYPE, &type, 4)
		.add(A_QP_EVENT_FD, 0, (uint64_t)efd)
		.out(A_QP_RESP_CAP, &rcap, sizeof(rcap))
		.out(A_QP_RESP_QP_NUM, &qpn, 4)
		.in(kAttrUhwIn, &req, sizeof(req))
		.out(kAttrUhwOut, &m, sizeof(m));
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	return ret;
}

/** SRQ/CREATE as libmlx5 44 sends it for ibv_create_srq (basic SRQ). */
inline int create_srq(int fd, uint64_t pd, int efd, const Mlx5CreateSrq &req, uint32_t max_wr,
		      uint32_t max_sge, uint32_t *handle, uint32_t *srqn = nullptr,
		      uint32_t type = kUverbsSrqtBasic)
{
	uint64_t uh = 0x5252;
	uint32_t limit = 0, rwr = 0, rsge = 0;
	Mlx5CreateSrqResp m = {};
	Req r(OBJ_SRQ, M_SRQ_CREATE);
	r.add(A_SRQ_HANDLE, 0, 0)
		.in(A_SRQ_TYPE, &type, 4)
		.in(A_SRQ_USER_HANDLE, &uh, 8)
		.add(A_SRQ_PD, 0, pd)
		.in(A_SRQ_MAX_WR, &max_wr, 4)
		.in(A_SRQ_MAX_SGE, &max_sge, 4)
		.in(A_SRQ_LIMIT, &limit, 4)
		.add(A_SRQ_EVENT_FD, 0, (uint64_t)efd)
		.out(A_SRQ_RESP_MAX_WR, &rwr, 4)
		.out(A_SRQ_RESP_MAX_SGE, &rsge, 4)
		.in(kAttrUhwIn, &req, sizeof(req))
		.out(kAttrUhwOut, &m, sizeof(m));
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	if (srqn)
		*srqn = m.srqn;
	return ret;
}

} /* namespace kside_test */

#endif /* MLX5_SIM_KSIDE_TEST_UTIL_H */
