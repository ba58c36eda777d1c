/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: one ioctl call as the method handlers see it (uverbs_ioctl.cpp
 * validates the framing against the method's attribute specs first), and the
 * handlers (uverbs_cmds.cpp, devx_cmds.cpp).
 */
#ifndef MLX5_SIM_KERNEL_UVERBS_CALL_H
#define MLX5_SIM_KERNEL_UVERBS_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kside.h"

namespace mlx5sim {
namespace kernel {

/** How the kernel treats an attribute (its uverbs_attr_spec type). */
enum class AttrKind : uint8_t {
	PtrIn,      /**< bytes in: inline when len <= 8, else a pointer */
	PtrOut,     /**< bytes out: always a pointer; VALID_OUTPUT set when written */
	IdrIn,      /**< handle of an existing object in data, len 0 */
	IdrNew,     /**< the new object's handle is written into data, len 0 */
	IdrDestroy, /**< handle of the object the method destroys, len 0 */
	FdNew,      /**< the new fd is written into data, len 0 */
	FdIn,       /**< an fd of the caller in data, len 0 */
};

struct AttrSpec {
	uint16_t id;
	AttrKind kind;
	bool mandatory;
	uint16_t min_len; /**< Ptr*: shortest accepted */
	uint16_t len;     /**< PtrIn: longer input must be zero past this (EOPNOTSUPP) */
};

class Call;
using Handler = int (*)(Call &c);

struct MethodSpec {
	uint16_t object;
	uint16_t method;
	const char *name;
	bool needs_ucontext;
	const AttrSpec *attrs;
	size_t n_attrs;
	Handler fn;
};

/** A validated call: the attributes by spec, helpers to read and answer them. */
class Call {
public:
	Call(Context &ctx, const MethodSpec &m, uint64_t attrs_uptr)
		: ctx(ctx), method(m), attrs_uptr_(attrs_uptr)
	{
	}

	Context &ctx;
	const MethodSpec &method;
	/** Work for after the Context lock (kside.h), or NULL: then do it in the handler. */
	AfterUnlock *after = nullptr;

	/** Attribute @p id present? */
	bool has(uint16_t id) const { return find(id) >= 0; }
	/** Its length (0 when absent). */
	size_t len(uint16_t id) const;
	/** Its data word (inline value, handle, pointer). */
	uint64_t data(uint16_t id) const;
	/**
	 * Copy PtrIn @p id into @p dst (@p size bytes; zero past the attribute's
	 * length). 0, -EFAULT.
	 */
	int read_in(uint16_t id, void *dst, size_t size) const;
	/**
	 * Write @p n bytes to PtrOut @p id: min(n, len) bytes, the rest of a longer
	 * buffer zeroed, VALID_OUTPUT set. 0, -EFAULT, or -ENOSPC when the buffer is
	 * shorter than @p need.
	 */
	int write_out(uint16_t id, const void *src, size_t n, size_t need = 0);
	/** After success: the new handle / fd of IdrNew / FdNew @p id into the caller's attr. */
	int set_new(uint16_t id, uint64_t value);

	/* used by the dispatcher */
	std::vector<UverbsAttr> attrs;
	std::vector<int> by_spec; /**< index into attrs per method.attrs entry, -1 absent */

private:
	int find(uint16_t id) const;
	uint64_t attrs_uptr_;
};

/* handlers: uverbs_cmds.cpp */
int h_invoke_write(Call &c);
int h_get_context(Call &c);
int h_query_context(Call &c);
int h_query_port(Call &c);
int h_mlx5_query_port(Call &c);
int h_query_gid_entry(Call &c);
int h_query_gid_table(Call &c);
int h_pd_destroy(Call &c);
int h_mr_destroy(Call &c);
int h_mr_advise(Call &c);
int h_async_event_alloc(Call &c);
int h_uar_alloc(Call &c);
int h_uar_destroy(Call &c);
/* uverbs_qp.cpp */
int h_cq_create(Call &c);
int h_cq_destroy(Call &c);
int h_qp_create(Call &c);
int h_qp_destroy(Call &c);
int w_resize_cq(Call &c, const uint8_t *in, size_t inlen);
int w_modify_qp(Call &c, const uint8_t *in, size_t inlen);
int w_ex_modify_qp(Call &c, const uint8_t *in, size_t inlen);
int w_query_qp(Call &c, const uint8_t *in, size_t inlen);
/* uverbs_srq.cpp */
int h_srq_create(Call &c);
int h_srq_destroy(Call &c);
int w_modify_srq(Call &c, const uint8_t *in, size_t inlen);
int w_query_srq(Call &c, const uint8_t *in, size_t inlen);
/* uverbs_events.cpp */
int w_create_comp_channel(Call &c, const uint8_t *in, size_t inlen);
/* devx_cmds.cpp */
int h_devx_other(Call &c);
int h_devx_obj_modify(Call &c);
int h_devx_obj_create(Call &c);
int h_devx_obj_destroy(Call &c);
int h_devx_obj_query(Call &c);

/** The method table, for tests and the guide's list. */
const MethodSpec *method_table(size_t *n);

} // namespace kernel
} // namespace mlx5sim

#endif /* MLX5_SIM_KERNEL_UVERBS_CALL_H */
