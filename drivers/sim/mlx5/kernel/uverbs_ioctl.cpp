/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: the RDMA_VERBS_IOCTL dispatcher. Checks the header and every
 * attribute against the method's specs in the order and with the errnos of the
 * kernel's drivers/infiniband/core/uverbs_ioctl.c, then runs the handler.
 * Nothing is written back unless the handler succeeded, except what it wrote
 * itself.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "uverbs_call.h"

namespace mlx5sim {
namespace kernel {

namespace {

constexpr uint16_t kAny = 0xffff;

/* clang-format off */
const AttrSpec kInvokeWrite[] = {
	{A_WRITE_CORE_IN, AttrKind::PtrIn, false, 0, kAny},
	{A_WRITE_CORE_OUT, AttrKind::PtrOut, false, 0, 0},
	{A_WRITE_CMD, AttrKind::PtrIn, true, 4, 8},
	{kAttrUhwIn, AttrKind::PtrIn, false, 0, kAny},
	{kAttrUhwOut, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kGetContext[] = {
	{A_CTX_NUM_COMP_VECTORS, AttrKind::PtrOut, false, 4, 0},
	{A_CTX_CORE_SUPPORT, AttrKind::PtrOut, false, 8, 0},
	{kAttrUhwIn, AttrKind::PtrIn, false, 0, kAny},
	{kAttrUhwOut, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kQueryContext[] = {
	{A_CTX_NUM_COMP_VECTORS, AttrKind::PtrOut, false, 4, 0},
	{A_CTX_CORE_SUPPORT, AttrKind::PtrOut, false, 8, 0},
	{A_QUERY_CTX_MLX5_RESP_UCTX, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kQueryPort[] = {
	{A_QUERY_PORT_NUM, AttrKind::PtrIn, true, 1, 8},
	{A_QUERY_PORT_RESP, AttrKind::PtrOut, true, sizeof(QueryPortResp), 0},
};
const AttrSpec kMlx5QueryPort[] = {
	{A_MLX5_QUERY_PORT_NUM, AttrKind::PtrIn, true, 1, 8},
	{A_MLX5_QUERY_PORT_RESP, AttrKind::PtrOut, true, 8, 0},
};
const AttrSpec kGidEntry[] = {
	{A_GID_ENTRY_PORT, AttrKind::PtrIn, true, 1, 8},
	{A_GID_ENTRY_GID_INDEX, AttrKind::PtrIn, true, 1, 8},
	{A_GID_ENTRY_FLAGS, AttrKind::PtrIn, true, 1, 8},
	{A_GID_ENTRY_RESP_ENTRY, AttrKind::PtrOut, true, sizeof(GidEntry), 0},
};
const AttrSpec kGidTable[] = {
	{A_GID_TABLE_ENTRY_SIZE, AttrKind::PtrIn, true, 1, 8},
	{A_GID_TABLE_FLAGS, AttrKind::PtrIn, false, 1, 8},
	{A_GID_TABLE_RESP_ENTRIES, AttrKind::PtrOut, true, 0, 0},
	{A_GID_TABLE_RESP_NUM_ENTRIES, AttrKind::PtrOut, true, 8, 0},
};
const AttrSpec kDestroy[] = {
	{A_DESTROY_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
};
const AttrSpec kMrAdvise[] = {
	{A_ADVISE_MR_PD, AttrKind::IdrIn, true, 0, 0},
	{A_ADVISE_MR_ADVICE, AttrKind::PtrIn, true, 1, 8},
	{A_ADVISE_MR_FLAGS, AttrKind::PtrIn, true, 4, 4},
	{A_ADVISE_MR_SGE_LIST, AttrKind::PtrIn, true, sizeof(UverbsSge), kAny},
};
const AttrSpec kCqCreate[] = {
	{A_CQ_HANDLE, AttrKind::IdrNew, true, 0, 0},
	{A_CQ_CQE, AttrKind::PtrIn, true, 4, 4},
	{A_CQ_USER_HANDLE, AttrKind::PtrIn, true, 8, 8},
	{A_CQ_COMP_CHANNEL, AttrKind::FdIn, false, 0, 0},
	{A_CQ_COMP_VECTOR, AttrKind::PtrIn, true, 4, 4},
	{A_CQ_FLAGS, AttrKind::PtrIn, false, 1, 8},
	{A_CQ_RESP_CQE, AttrKind::PtrOut, true, 4, 0},
	{A_CQ_EVENT_FD, AttrKind::FdIn, false, 0, 0},
	{kAttrUhwIn, AttrKind::PtrIn, false, 0, kAny},
	{kAttrUhwOut, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kCqDestroy[] = {
	{A_DESTROY_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
	{A_DESTROY_RESP, AttrKind::PtrOut, true, sizeof(DestroyCqResp), 0},
};
const AttrSpec kQpCreate[] = {
	{A_QP_HANDLE, AttrKind::IdrNew, true, 0, 0},
	{A_QP_XRCD, AttrKind::IdrIn, false, 0, 0},
	{A_QP_PD, AttrKind::IdrIn, false, 0, 0},
	{A_QP_SRQ, AttrKind::IdrIn, false, 0, 0},
	{A_QP_SEND_CQ, AttrKind::IdrIn, false, 0, 0},
	{A_QP_RECV_CQ, AttrKind::IdrIn, false, 0, 0},
	{A_QP_IND_TABLE, AttrKind::IdrIn, false, 0, 0},
	{A_QP_USER_HANDLE, AttrKind::PtrIn, true, 8, 8},
	{A_QP_CAP, AttrKind::PtrIn, true, sizeof(QpCap), sizeof(QpCap)},
	{A_QP_TYPE, AttrKind::PtrIn, true, 1, 8},
	{A_QP_FLAGS, AttrKind::PtrIn, false, 1, 8},
	{A_QP_SOURCE_QPN, AttrKind::PtrIn, false, 4, 4},
	{A_QP_EVENT_FD, AttrKind::FdIn, false, 0, 0},
	{A_QP_RESP_CAP, AttrKind::PtrOut, true, sizeof(QpCap), 0},
	{A_QP_RESP_QP_NUM, AttrKind::PtrOut, true, 4, 0},
	{kAttrUhwIn, AttrKind::PtrIn, false, 0, kAny},
	{kAttrUhwOut, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kQpDestroy[] = {
	{A_DESTROY_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
	{A_DESTROY_RESP, AttrKind::PtrOut, true, 4, 0},
};
const AttrSpec kSrqCreate[] = {
	{A_SRQ_HANDLE, AttrKind::IdrNew, true, 0, 0},
	{A_SRQ_PD, AttrKind::IdrIn, true, 0, 0},
	{A_SRQ_XRCD, AttrKind::IdrIn, false, 0, 0},
	{A_SRQ_CQ, AttrKind::IdrIn, false, 0, 0},
	{A_SRQ_USER_HANDLE, AttrKind::PtrIn, true, 8, 8},
	{A_SRQ_MAX_WR, AttrKind::PtrIn, true, 4, 4},
	{A_SRQ_MAX_SGE, AttrKind::PtrIn, true, 4, 4},
	{A_SRQ_LIMIT, AttrKind::PtrIn, true, 4, 4},
	{A_SRQ_MAX_NUM_TAGS, AttrKind::PtrIn, false, 4, 4},
	{A_SRQ_TYPE, AttrKind::PtrIn, true, 1, 8},
	{A_SRQ_EVENT_FD, AttrKind::FdIn, false, 0, 0},
	{A_SRQ_RESP_MAX_WR, AttrKind::PtrOut, true, 4, 0},
	{A_SRQ_RESP_MAX_SGE, AttrKind::PtrOut, true, 4, 0},
	{A_SRQ_RESP_SRQ_NUM, AttrKind::PtrOut, false, 4, 0},
	{kAttrUhwIn, AttrKind::PtrIn, false, 0, kAny},
	{kAttrUhwOut, AttrKind::PtrOut, false, 0, 0},
};
const AttrSpec kSrqDestroy[] = {
	{A_DESTROY_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
	{A_DESTROY_RESP, AttrKind::PtrOut, true, 4, 0},
};
const AttrSpec kAsyncAlloc[] = {
	{A_ASYNC_EVENT_FD, AttrKind::FdNew, true, 0, 0},
};
const AttrSpec kDevxOther[] = {
	{A_DEVX_CMD_IN, AttrKind::PtrIn, true, 16, kAny},
	{A_DEVX_CMD_OUT, AttrKind::PtrOut, true, 16, 0},
};
const AttrSpec kDevxObjModify[] = {
	{A_DEVX_MODIFY_HANDLE, AttrKind::IdrIn, true, 0, 0},
	{A_DEVX_MODIFY_CMD_IN, AttrKind::PtrIn, true, 16, kAny},
	{A_DEVX_MODIFY_CMD_OUT, AttrKind::PtrOut, true, 16, 0},
};
const AttrSpec kDevxObjCreate[] = {
	{A_DEVX_OBJ_HANDLE, AttrKind::IdrNew, true, 0, 0},
	{A_DEVX_OBJ_CMD_IN, AttrKind::PtrIn, true, 16, kAny},
	{A_DEVX_OBJ_CMD_OUT, AttrKind::PtrOut, true, 16, 0},
};
const AttrSpec kDevxObjDestroy[] = {
	{A_DEVX_OBJ_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
};
const AttrSpec kDevxObjQuery[] = {
	{A_DEVX_OBJ_HANDLE, AttrKind::IdrIn, true, 0, 0},
	{A_DEVX_OBJ_CMD_IN, AttrKind::PtrIn, true, 16, kAny},
	{A_DEVX_OBJ_CMD_OUT, AttrKind::PtrOut, true, 16, 0},
};
const AttrSpec kUarAlloc[] = {
	{A_UAR_HANDLE, AttrKind::IdrNew, true, 0, 0},
	{A_UAR_TYPE, AttrKind::PtrIn, true, 1, 8},
	{A_UAR_MMAP_OFFSET, AttrKind::PtrOut, true, 8, 0},
	{A_UAR_MMAP_LENGTH, AttrKind::PtrOut, true, 4, 0},
	{A_UAR_PAGE_ID, AttrKind::PtrOut, true, 4, 0},
};
const AttrSpec kUarDestroy[] = {
	{A_UAR_HANDLE, AttrKind::IdrDestroy, true, 0, 0},
};

#define M(o, m, name, uctx, specs, fn) \
	{o, m, name, uctx, specs, sizeof(specs) / sizeof(specs[0]), fn}
const MethodSpec kMethods[] = {
	M(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE, "DEVICE/INVOKE_WRITE",
	  false, kInvokeWrite, h_invoke_write),
	M(OBJ_DEVICE, M_DEVICE_GET_CONTEXT, "DEVICE/GET_CONTEXT",
	  false, kGetContext, h_get_context),
	M(OBJ_DEVICE, M_DEVICE_QUERY_CONTEXT, "DEVICE/QUERY_CONTEXT",
	  true, kQueryContext, h_query_context),
	M(OBJ_DEVICE, M_DEVICE_QUERY_PORT, "DEVICE/QUERY_PORT",
	  true, kQueryPort, h_query_port),
	M(OBJ_DEVICE, M_DEVICE_QUERY_GID_TABLE, "DEVICE/QUERY_GID_TABLE",
	  true, kGidTable, h_query_gid_table),
	M(OBJ_DEVICE, M_DEVICE_QUERY_GID_ENTRY, "DEVICE/QUERY_GID_ENTRY",
	  true, kGidEntry, h_query_gid_entry),
	M(OBJ_DEVICE, M_DEVICE_MLX5_QUERY_PORT, "DEVICE/MLX5_QUERY_PORT",
	  true, kMlx5QueryPort, h_mlx5_query_port),
	M(OBJ_PD, M_PD_DESTROY, "PD/DESTROY",
	  true, kDestroy, h_pd_destroy),
	M(OBJ_MR, M_MR_DESTROY, "MR/DESTROY",
	  true, kDestroy, h_mr_destroy),
	M(OBJ_MR, M_MR_ADVISE, "MR/ADVISE_MR",
	  true, kMrAdvise, h_mr_advise),
	M(OBJ_CQ, M_CQ_CREATE, "CQ/CREATE",
	  true, kCqCreate, h_cq_create),
	M(OBJ_CQ, M_CQ_DESTROY, "CQ/DESTROY",
	  true, kCqDestroy, h_cq_destroy),
	M(OBJ_QP, M_QP_CREATE, "QP/CREATE",
	  true, kQpCreate, h_qp_create),
	M(OBJ_QP, M_QP_DESTROY, "QP/DESTROY",
	  true, kQpDestroy, h_qp_destroy),
	M(OBJ_SRQ, M_SRQ_CREATE, "SRQ/CREATE",
	  true, kSrqCreate, h_srq_create),
	M(OBJ_SRQ, M_SRQ_DESTROY, "SRQ/DESTROY",
	  true, kSrqDestroy, h_srq_destroy),
	M(OBJ_ASYNC_EVENT, M_ASYNC_EVENT_ALLOC, "ASYNC_EVENT/ALLOC",
	  true, kAsyncAlloc, h_async_event_alloc),
	M(OBJ_MLX5_DEVX, M_DEVX_OTHER, "MLX5_DEVX/OTHER",
	  true, kDevxOther, h_devx_other),
	M(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_MODIFY, "MLX5_DEVX_OBJ/MODIFY",
	  true, kDevxObjModify, h_devx_obj_modify),
	M(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_CREATE, "MLX5_DEVX_OBJ/CREATE",
	  true, kDevxObjCreate, h_devx_obj_create),
	M(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, "MLX5_DEVX_OBJ/DESTROY",
	  true, kDevxObjDestroy, h_devx_obj_destroy),
	M(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_QUERY, "MLX5_DEVX_OBJ/QUERY",
	  true, kDevxObjQuery, h_devx_obj_query),
	M(OBJ_MLX5_UAR, M_UAR_ALLOC, "MLX5_UAR/ALLOC",
	  true, kUarAlloc, h_uar_alloc),
	M(OBJ_MLX5_UAR, M_UAR_DESTROY, "MLX5_UAR/DESTROY",
	  true, kUarDestroy, h_uar_destroy),
};
#undef M
/* clang-format on */

const MethodSpec *find_method(uint16_t object, uint16_t method)
{
	for (const MethodSpec &m : kMethods)
		if (m.object == object && m.method == method)
			return &m;
	return nullptr;
}

/** PtrIn longer than the spec: the kernel accepts it only if the excess is zero. */
int check_trailing_zero(const UverbsAttr &a, size_t from)
{
	if (a.len <= 8) {
		uint64_t v = a.data;
		return from >= 8 || (v >> (from * 8)) == 0 ? 0 : -EOPNOTSUPP;
	}
	uint8_t buf[256];
	size_t off = from;
	while (off < a.len) {
		size_t n = a.len - off < sizeof(buf) ? a.len - off : sizeof(buf);
		if (!copy_from_user(buf, a.data + off, n))
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (buf[i])
				return -EOPNOTSUPP;
		off += n;
	}
	return 0;
}

/** Check attribute @p a against @p s. 0 or the kernel's errno. */
int check_attr(const UverbsAttr &a, const AttrSpec &s)
{
	switch (s.kind) {
	case AttrKind::PtrIn:
		if (a.attr_data)
			return -EINVAL;
		if (a.len < s.min_len)
			return -EINVAL;
		if (s.len != kAny && a.len > s.len)
			return check_trailing_zero(a, s.len);
		return 0;
	case AttrKind::PtrOut:
		if (a.attr_data)
			return -EINVAL;
		return a.len < s.min_len ? -EINVAL : 0;
	case AttrKind::IdrIn:
	case AttrKind::IdrDestroy:
		if (a.len || a.attr_data)
			return -EINVAL;
		/* handles are 32-bit (the kernel's xarray ids): a wider one names nothing,
		 * where cutting it to 32 bits would name another object */
		return a.data >> 32 ? -ENOENT : 0;
	case AttrKind::FdIn:
		if (a.len || a.attr_data)
			return -EINVAL;
		return (int64_t)a.data < 0 || a.data > INT32_MAX ? -EINVAL : 0;
	case AttrKind::IdrNew:
	case AttrKind::FdNew:
		return a.len || a.attr_data ? -EINVAL : 0;
	}
	return -EINVAL;
}

} // namespace

const MethodSpec *method_table(size_t *n)
{
	*n = sizeof(kMethods) / sizeof(kMethods[0]);
	return kMethods;
}

int Call::find(uint16_t id) const
{
	for (size_t i = 0; i < method.n_attrs; i++)
		if (method.attrs[i].id == id)
			return by_spec[i];
	return -1;
}

size_t Call::len(uint16_t id) const
{
	int i = find(id);
	return i < 0 ? 0 : attrs[i].len;
}

uint64_t Call::data(uint16_t id) const
{
	int i = find(id);
	return i < 0 ? 0 : attrs[i].data;
}

int Call::read_in(uint16_t id, void *dst, size_t size) const
{
	int i = find(id);
	memset(dst, 0, size);
	if (i < 0)
		return 0;
	const UverbsAttr &a = attrs[i];
	size_t n = a.len < size ? a.len : size;
	if (a.len <= 8) {
		memcpy(dst, &a.data, n);
		return 0;
	}
	return copy_from_user(dst, a.data, n) ? 0 : -EFAULT;
}

int Call::write_out(uint16_t id, const void *src, size_t n, size_t need)
{
	int i = find(id);
	if (i < 0)
		return 0;
	UverbsAttr &a = attrs[i];
	if (a.len < need)
		return -ENOSPC;
	size_t k = a.len < n ? a.len : n;
	if (k && !copy_to_user(a.data, src, k))
		return -EFAULT;
	if (a.len > k) {
		static const uint8_t zeros[256] = {};
		for (size_t off = k; off < a.len;) {
			size_t z = a.len - off < sizeof(zeros) ? a.len - off : sizeof(zeros);
			if (!copy_to_user(a.data + off, zeros, z))
				return -EFAULT;
			off += z;
		}
	}
	a.flags |= kAttrValidOutput;
	uint64_t where = attrs_uptr_ + (uint64_t)i * sizeof(UverbsAttr) +
			 offsetof(UverbsAttr, flags);
	return copy_to_user(where, &a.flags, sizeof(a.flags)) ? 0 : -EFAULT;
}

int Call::set_new(uint16_t id, uint64_t value)
{
	int i = find(id);
	if (i < 0)
		return -EINVAL;
	attrs[i].data = value;
	uint64_t where = attrs_uptr_ + (uint64_t)i * sizeof(UverbsAttr) +
			 offsetof(UverbsAttr, data);
	return copy_to_user(where, &value, sizeof(value)) ? 0 : -EFAULT;
}

int dispatch_ioctl(Context &ctx, uint64_t hdr_ptr, AfterUnlock *after)
{
	UverbsIoctlHdr hdr;

	if (!copy_from_user(&hdr, hdr_ptr, sizeof(hdr))) {
		klog(1, "uverbs%u: ioctl header at 0x%llx not readable", ctx.dev()->index,
		     (unsigned long long)hdr_ptr);
		return -EFAULT;
	}
	if (hdr.length != sizeof(hdr) + (size_t)hdr.num_attrs * sizeof(UverbsAttr) ||
	    hdr.length > kMaxIoctlLength) {
		klog(1, "uverbs%u: ioctl length %u does not fit %u attributes", ctx.dev()->index,
		     hdr.length, hdr.num_attrs);
		return -EINVAL;
	}
	if (hdr.reserved1 || hdr.reserved2) {
		klog(1, "uverbs%u: ioctl reserved header fields set", ctx.dev()->index);
		return -EPROTONOSUPPORT;
	}
	if (hdr.driver_id != kDriverIdMlx5) {
		klog(1, "uverbs%u: ioctl driver_id %u, the device's is %u", ctx.dev()->index,
		     hdr.driver_id, kDriverIdMlx5);
		return -EINVAL;
	}
	const MethodSpec *m = find_method(hdr.object_id, hdr.method_id);
	if (!m) {
		/* libibverbs falls back to another path on this errno */
		klog(2, "uverbs%u: no method 0x%x of object 0x%x", ctx.dev()->index, hdr.method_id,
		     hdr.object_id);
		return -EPROTONOSUPPORT;
	}
	uint64_t attrs_uptr = hdr_ptr + sizeof(hdr);
	Call c(ctx, *m, attrs_uptr);
	c.after = after;
	c.attrs.resize(hdr.num_attrs);
	if (hdr.num_attrs &&
	    !copy_from_user(c.attrs.data(), attrs_uptr, hdr.num_attrs * sizeof(UverbsAttr)))
		return -EFAULT;
	c.by_spec.assign(m->n_attrs, -1);
	for (size_t i = 0; i < c.attrs.size(); i++) {
		const UverbsAttr &a = c.attrs[i];
		size_t s = 0;
		while (s < m->n_attrs && m->attrs[s].id != a.attr_id)
			s++;
		if (s == m->n_attrs) {
			if (a.flags & kAttrMandatory) {
				klog(1, "uverbs%u: %s: unknown mandatory attribute 0x%x",
				     ctx.dev()->index, m->name, a.attr_id);
				return -EPROTONOSUPPORT;
			}
			continue; /* unknown optional attributes are ignored */
		}
		if (c.by_spec[s] >= 0) {
			klog(1, "uverbs%u: %s: attribute 0x%x given twice", ctx.dev()->index,
			     m->name, a.attr_id);
			return -EINVAL;
		}
		int ret = check_attr(a, m->attrs[s]);
		if (ret) {
			klog(1, "uverbs%u: %s: attribute 0x%x (len %u, data 0x%llx): %s",
			     ctx.dev()->index, m->name, a.attr_id, a.len,
			     (unsigned long long)a.data, strerror(-ret));
			return ret;
		}
		c.by_spec[s] = (int)i;
	}
	for (size_t s = 0; s < m->n_attrs; s++) {
		if (m->attrs[s].mandatory && c.by_spec[s] < 0) {
			klog(1, "uverbs%u: %s: mandatory attribute 0x%x missing", ctx.dev()->index,
			     m->name, m->attrs[s].id);
			return -EINVAL;
		}
	}
	if (m->needs_ucontext && !ctx.have_ucontext) {
		klog(1, "uverbs%u: %s before GET_CONTEXT", ctx.dev()->index, m->name);
		return -EINVAL;
	}
	klog(2, "uverbs%u: %s", ctx.dev()->index, m->name);
	int ret = m->fn(c);
	/* a handler's EPROTONOSUPPORT would make libibverbs try another path */
	return ret == -EPROTONOSUPPORT ? -EINVAL : ret;
}

} // namespace kernel
} // namespace mlx5sim
