/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "rdma-core" backend of the seam: Debian's libibverbs.so.1 and libmlx5.so.1,
 * loaded with dlopen() on first use so that no binary needs them to start.
 *
 * Loading happens once per process (pthread_once). If a library or one of the
 * symbols the table needs is missing, the backend stays disabled: its device
 * list is empty, every other entry fails with ENOSYS, and
 * mlx5_glue_rdma_core_status() says why. A kernel without RDMA verbs support
 * (libibverbs answers ENOSYS) also gives an empty list instead of NULL. The
 * names to load can be overridden with $MLX5_GLUE_IBVERBS_LIB and
 * $MLX5_GLUE_MLX5_LIB.
 *
 * Verbs that rdma-core implements as static inline functions are rebuilt here on
 * the dlsym'd pointers or the context's verbs_context ops, so there is no
 * link-time reference to either library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"
#include "mlx5_glue_mmio.h"

namespace {

/* Every exported rdma-core function the table calls. */
struct rc_syms {
	/* libibverbs */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	int (*query_device)(struct ibv_context *context, struct ibv_device_attr *attr);
	int (*get_async_event)(struct ibv_context *context, struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	struct ibv_mr *(*reg_mr_iova2)(struct ibv_pd *pd, void *addr, size_t length,
				       uint64_t iova, unsigned int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			struct ibv_qp_init_attr *init_attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	struct ibv_qp_ex *(*qp_to_qp_ex)(struct ibv_qp *qp);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags);
	/* libmlx5 */
	int (*dv_query_device)(struct ibv_context *context, struct mlx5dv_context *attrs);
	struct ibv_qp *(*dv_create_qp)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr,
				       struct mlx5dv_qp_init_attr *dv_attr);
	struct mlx5dv_qp_ex *(*dv_qp_ex_from_ibv_qp_ex)(struct ibv_qp_ex *qp);
	int (*dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);
	/* the exported 1.1 symbol behind the inline ibv_query_port() */
	int (*query_port_compat)(struct ibv_context *context, uint8_t port_num,
				 struct _compat_ibv_port_attr *attr);
	int (*query_gid_ex)(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
			    struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size);
	int (*dv_qp_cancel_posted_send_wrs)(struct mlx5dv_qp_ex *mqp, uint64_t wr_id);
	int (*dv_dci_stream_id_reset)(struct ibv_qp *qp, uint16_t stream_id);
	int (*dv_reserved_qpn_alloc)(struct ibv_context *context, uint32_t *qpn);
	int (*dv_reserved_qpn_dealloc)(struct ibv_context *context, uint32_t qpn);
	struct mlx5dv_mkey *(*dv_create_mkey)(struct mlx5dv_mkey_init_attr *attr);
	int (*dv_destroy_mkey)(struct mlx5dv_mkey *mkey);
	int (*dv_mkey_check)(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
			     size_t err_info_size);
};

/* Written only inside the pthread_once routine, read-only afterwards. */
struct rc_state {
	bool ready;
	char status[512];
	char status_no_kernel[600]; /* status once the kernel said it has no verbs */
	struct rc_syms fn;
};

rc_state rc;
pthread_once_t rc_once = PTHREAD_ONCE_INIT;
bool rc_no_kernel; /* atomic: libibverbs reported ENOSYS for the device list */

/*
 * The list returned when there are no devices to list: the backend is disabled,
 * or the kernel has no RDMA verbs support. Static, so freeing it is a no-op and
 * it never mixes with libibverbs' own lists.
 */
struct ibv_device *rc_empty_list[1];

const char *
lib_name(const char *env, const char *dflt)
{
	const char *name = getenv(env);

	return name != NULL && name[0] != '\0' ? name : dflt;
}

/* dlsym one symbol into a typed slot; on failure record the reason. */
template <typename F>
bool
bind_sym(void *lib, const char *lib_file, const char *symbol, F *slot)
{
	void *p;

	dlerror();
	p = dlsym(lib, symbol);
	if (p == NULL) {
		const char *err = dlerror();

		snprintf(rc.status, sizeof(rc.status), "%s: symbol %s not found: %s",
			 lib_file, symbol, err != NULL ? err : "NULL");
		return false;
	}
	*slot = reinterpret_cast<F>(p);
	return true;
}

bool
bind_verbs(void *lib, const char *file, rc_syms *f)
{
	return bind_sym(lib, file, "ibv_get_device_list", &f->get_device_list) &&
	       bind_sym(lib, file, "ibv_free_device_list", &f->free_device_list) &&
	       bind_sym(lib, file, "ibv_get_device_name", &f->get_device_name) &&
	       bind_sym(lib, file, "ibv_open_device", &f->open_device) &&
	       bind_sym(lib, file, "ibv_close_device", &f->close_device) &&
	       bind_sym(lib, file, "ibv_query_device", &f->query_device) &&
	       bind_sym(lib, file, "ibv_get_async_event", &f->get_async_event) &&
	       bind_sym(lib, file, "ibv_ack_async_event", &f->ack_async_event) &&
	       bind_sym(lib, file, "ibv_alloc_pd", &f->alloc_pd) &&
	       bind_sym(lib, file, "ibv_dealloc_pd", &f->dealloc_pd) &&
	       bind_sym(lib, file, "ibv_reg_mr", &f->reg_mr) &&
	       bind_sym(lib, file, "ibv_reg_mr_iova2", &f->reg_mr_iova2) &&
	       bind_sym(lib, file, "ibv_dereg_mr", &f->dereg_mr) &&
	       bind_sym(lib, file, "ibv_destroy_cq", &f->destroy_cq) &&
	       bind_sym(lib, file, "ibv_modify_qp", &f->modify_qp) &&
	       bind_sym(lib, file, "ibv_query_qp", &f->query_qp) &&
	       bind_sym(lib, file, "ibv_destroy_qp", &f->destroy_qp) &&
	       bind_sym(lib, file, "ibv_qp_to_qp_ex", &f->qp_to_qp_ex) &&
	       bind_sym(lib, file, "ibv_query_qp_data_in_order", &f->query_qp_data_in_order) &&
	       bind_sym(lib, file, "ibv_query_port", &f->query_port_compat) &&
	       bind_sym(lib, file, "_ibv_query_gid_ex", &f->query_gid_ex);
}

bool
bind_mlx5(void *lib, const char *file, rc_syms *f)
{
	return bind_sym(lib, file, "mlx5dv_query_device", &f->dv_query_device) &&
	       bind_sym(lib, file, "mlx5dv_create_qp", &f->dv_create_qp) &&
	       bind_sym(lib, file, "mlx5dv_qp_ex_from_ibv_qp_ex", &f->dv_qp_ex_from_ibv_qp_ex) &&
	       bind_sym(lib, file, "mlx5dv_init_obj", &f->dv_init_obj) &&
	       bind_sym(lib, file, "mlx5dv_qp_cancel_posted_send_wrs",
		    &f->dv_qp_cancel_posted_send_wrs) &&
	       bind_sym(lib, file, "mlx5dv_dci_stream_id_reset", &f->dv_dci_stream_id_reset) &&
	       bind_sym(lib, file, "mlx5dv_reserved_qpn_alloc", &f->dv_reserved_qpn_alloc) &&
	       bind_sym(lib, file, "mlx5dv_reserved_qpn_dealloc", &f->dv_reserved_qpn_dealloc) &&
	       bind_sym(lib, file, "mlx5dv_create_mkey", &f->dv_create_mkey) &&
	       bind_sym(lib, file, "mlx5dv_destroy_mkey", &f->dv_destroy_mkey) &&
	       bind_sym(lib, file, "_mlx5dv_mkey_check", &f->dv_mkey_check);
}

void *
open_lib(const char *file)
{
	void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);

	if (lib == NULL) {
		const char *err = dlerror();

		snprintf(rc.status, sizeof(rc.status), "%s not found: %s", file,
			 err != NULL ? err : "dlopen failed");
	}
	return lib;
}

/* The pthread_once routine. The libraries stay loaded for the process lifetime. */
void
rc_load(void)
{
	const char *verbs_file = lib_name(MLX5_GLUE_ENV_IBVERBS_LIB, "libibverbs.so.1");
	const char *mlx5_file = lib_name(MLX5_GLUE_ENV_MLX5_LIB, "libmlx5.so.1");
	rc_syms f = {};
	void *verbs, *mlx5;

	verbs = open_lib(verbs_file);
	if (verbs == NULL)
		return;
	if (!bind_verbs(verbs, verbs_file, &f)) {
		dlclose(verbs);
		return;
	}
	mlx5 = open_lib(mlx5_file);
	if (mlx5 == NULL) {
		dlclose(verbs);
		return;
	}
	if (!bind_mlx5(mlx5, mlx5_file, &f)) {
		/* never unloaded once loaded: its constructor registered the mlx5 provider
		 * with libibverbs, which may outlive us (another user holds it) */
		return;
	}
	rc.fn = f;
	rc.ready = true;
	snprintf(rc.status, sizeof(rc.status), "rdma-core loaded: %s, %s", verbs_file,
		 mlx5_file);
	snprintf(rc.status_no_kernel, sizeof(rc.status_no_kernel),
		 "%s; no devices: the kernel has no RDMA verbs support", rc.status);
}

bool
rc_ready(void)
{
	pthread_once(&rc_once, rc_load);
	return rc.ready;
}

/* Failure helpers: rdma-core reports errors as a positive errno or NULL + errno. */
int
fail(int err)
{
	errno = err;
	return err;
}

template <typename T>
T *
fail_null(int err)
{
	errno = err;
	return nullptr;
}

/* ---- devices ---- */

struct ibv_device **
rc_get_device_list(int *num_devices)
{
	struct ibv_device **list;

	if (num_devices != NULL)
		*num_devices = 0;
	if (!rc_ready())
		return rc_empty_list;
	errno = 0;
	list = rc.fn.get_device_list(num_devices);
	if (list == NULL && errno == ENOSYS) {
		/* no uverbs in the kernel: no devices rather than an error */
		__atomic_store_n(&rc_no_kernel, true, __ATOMIC_RELAXED);
		if (num_devices != NULL)
			*num_devices = 0;
		return rc_empty_list;
	}
	return list;
}

void
rc_free_device_list(struct ibv_device **list)
{
	if (list == NULL || list == rc_empty_list)
		return;
	if (rc_ready())
		rc.fn.free_device_list(list);
}

const char *
rc_get_device_name(struct ibv_device *device)
{
	if (!rc_ready())
		return fail_null<const char>(ENOSYS);
	if (device == NULL)
		return fail_null<const char>(EINVAL);
	return rc.fn.get_device_name(device);
}

struct ibv_context *
rc_open_device(struct ibv_device *device)
{
	if (!rc_ready())
		return fail_null<struct ibv_context>(ENOSYS);
	if (device == NULL)
		return fail_null<struct ibv_context>(EINVAL);
	return rc.fn.open_device(device);
}

int
rc_close_device(struct ibv_context *context)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL)
		return fail(EINVAL);
	return rc.fn.close_device(context);
}

/*
 * ibv_query_device_ex is inline in verbs.h: the provider's query_device_ex op,
 * with ibv_query_device as the fallback when the op is absent or unsupported.
 */
int
rc_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		   struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx;
	int ret;

	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL || attr == NULL || (input != NULL && input->comp_mask != 0))
		return fail(EINVAL);
	vctx = verbs_get_ctx_op(context, query_device_ex);
	if (vctx != NULL) {
		ret = vctx->query_device_ex(context, input, attr, sizeof(*attr));
		if (ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
	}
	memset(attr, 0, sizeof(*attr));
	return rc.fn.query_device(context, &attr->orig_attr);
}

/* ibv_query_port is inline in verbs.h: the provider's query_port op, or the 1.1 symbol. */
int
rc_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	struct verbs_context *vctx;

	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL || attr == NULL)
		return fail(EINVAL);
	vctx = verbs_get_ctx_op(context, query_port);
	if (vctx != NULL)
		return vctx->query_port(context, port_num, attr, sizeof(*attr));
	memset(attr, 0, sizeof(*attr));
	return rc.fn.query_port_compat(context, port_num, (struct _compat_ibv_port_attr *)attr);
}

int
rc_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		struct ibv_gid_entry *entry, uint32_t flags)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL || entry == NULL)
		return fail(EINVAL);
	return rc.fn.query_gid_ex(context, port_num, gid_index, entry, flags, sizeof(*entry));
}

int
rc_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attrs)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL || attrs == NULL)
		return fail(EINVAL);
	return rc.fn.dv_query_device(context, attrs);
}

int
rc_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	if (!rc_ready()) {
		errno = ENOSYS;
		return -1;
	}
	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	return rc.fn.get_async_event(context, event);
}

void
rc_ack_async_event(struct ibv_async_event *event)
{
	if (rc_ready() && event != NULL)
		rc.fn.ack_async_event(event);
}

/* ---- protection domains and memory ---- */

struct ibv_pd *
rc_alloc_pd(struct ibv_context *context)
{
	if (!rc_ready())
		return fail_null<struct ibv_pd>(ENOSYS);
	if (context == NULL)
		return fail_null<struct ibv_pd>(EINVAL);
	return rc.fn.alloc_pd(context);
}

int
rc_dealloc_pd(struct ibv_pd *pd)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (pd == NULL)
		return fail(EINVAL);
	return rc.fn.dealloc_pd(pd);
}

/*
 * ibv_reg_mr is a macro in verbs.h choosing between the exported ibv_reg_mr and
 * ibv_reg_mr_iova2 (for the optional access bits). Same choice here, through
 * the pointers. The implicit on-demand MR (addr NULL, length SIZE_MAX,
 * IBV_ACCESS_ON_DEMAND) passes through untouched: iova = addr = 0.
 */
struct ibv_mr *
rc_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (!rc_ready())
		return fail_null<struct ibv_mr>(ENOSYS);
	if (pd == NULL)
		return fail_null<struct ibv_mr>(EINVAL);
	if ((unsigned int)access & IBV_ACCESS_OPTIONAL_RANGE)
		return rc.fn.reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
					  (unsigned int)access);
	return rc.fn.reg_mr(pd, addr, length, access);
}

int
rc_dereg_mr(struct ibv_mr *mr)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (mr == NULL)
		return fail(EINVAL);
	return rc.fn.dereg_mr(mr);
}

/* ---- completion queues ---- */

/* ibv_create_cq_ex is inline in verbs.h: the context's create_cq_ex op. */
struct ibv_cq_ex *
rc_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct verbs_context *vctx;

	if (!rc_ready())
		return fail_null<struct ibv_cq_ex>(ENOSYS);
	if (context == NULL || attr == NULL)
		return fail_null<struct ibv_cq_ex>(EINVAL);
	vctx = verbs_get_ctx_op(context, create_cq_ex);
	if (vctx == NULL)
		return fail_null<struct ibv_cq_ex>(EOPNOTSUPP);
	return vctx->create_cq_ex(context, attr);
}

int
rc_destroy_cq(struct ibv_cq *cq)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (cq == NULL)
		return fail(EINVAL);
	return rc.fn.destroy_cq(cq);
}

/* ---- queue pairs ---- */

struct ibv_qp *
rc_dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
		struct mlx5dv_qp_init_attr *dv_attr)
{
	if (!rc_ready())
		return fail_null<struct ibv_qp>(ENOSYS);
	if (context == NULL || attr == NULL)
		return fail_null<struct ibv_qp>(EINVAL);
	return rc.fn.dv_create_qp(context, attr, dv_attr);
}

int
rc_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (qp == NULL || attr == NULL)
		return fail(EINVAL);
	return rc.fn.modify_qp(qp, attr, attr_mask);
}

int
rc_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	    struct ibv_qp_init_attr *init_attr)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (qp == NULL || attr == NULL || init_attr == NULL)
		return fail(EINVAL);
	return rc.fn.query_qp(qp, attr, attr_mask, init_attr);
}

int
rc_destroy_qp(struct ibv_qp *qp)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (qp == NULL)
		return fail(EINVAL);
	return rc.fn.destroy_qp(qp);
}

struct ibv_qp_ex *
rc_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (!rc_ready())
		return fail_null<struct ibv_qp_ex>(ENOSYS);
	if (qp == NULL)
		return fail_null<struct ibv_qp_ex>(EINVAL);
	return rc.fn.qp_to_qp_ex(qp);
}

struct mlx5dv_qp_ex *
rc_dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	if (!rc_ready())
		return fail_null<struct mlx5dv_qp_ex>(ENOSYS);
	if (qp == NULL)
		return fail_null<struct mlx5dv_qp_ex>(EINVAL);
	return rc.fn.dv_qp_ex_from_ibv_qp_ex(qp);
}

int
rc_dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (obj == NULL)
		return fail(EINVAL);
	return rc.fn.dv_init_obj(obj, obj_type);
}

/* v44 takes flags 0 only; the newer flags are derived (mlx5_glue_data_in_order.cpp). */
int
rc_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	/* "not known to be in order" is the safe answer to every failure */
	if (!rc_ready()) {
		errno = ENOSYS;
		return 0;
	}
	if (qp == NULL) {
		errno = EINVAL;
		return 0;
	}
	if (flags & ~(uint32_t)MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS)
		return 0;
	return mlx5_glue_data_in_order_map(rc.fn.query_qp_data_in_order(qp, op, 0), flags);
}

/* libmlx5 returns the number cancelled or a negative errno here. */
int
rc_dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	if (!rc_ready())
		return -fail(ENOSYS);
	if (mqp == NULL)
		return -fail(EINVAL);
	return rc.fn.dv_qp_cancel_posted_send_wrs(mqp, wr_id);
}

int
rc_dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (qp == NULL)
		return fail(EINVAL);
	return rc.fn.dv_dci_stream_id_reset(qp, stream_id);
}

int
rc_dv_reserved_qpn_alloc(struct ibv_context *context, uint32_t *qpn)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL || qpn == NULL)
		return fail(EINVAL);
	return rc.fn.dv_reserved_qpn_alloc(context, qpn);
}

int
rc_dv_reserved_qpn_dealloc(struct ibv_context *context, uint32_t qpn)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (context == NULL)
		return fail(EINVAL);
	return rc.fn.dv_reserved_qpn_dealloc(context, qpn);
}

/* ---- indirect mkeys and signature ---- */

struct mlx5dv_mkey *
rc_dv_create_mkey(struct mlx5dv_mkey_init_attr *attr)
{
	if (!rc_ready())
		return fail_null<struct mlx5dv_mkey>(ENOSYS);
	if (attr == NULL || attr->pd == NULL)
		return fail_null<struct mlx5dv_mkey>(EINVAL);
	return rc.fn.dv_create_mkey(attr);
}

int
rc_dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (mkey == NULL)
		return fail(EINVAL);
	return rc.fn.dv_destroy_mkey(mkey);
}

/* mlx5dv_mkey_check is inline in mlx5dv.h over the exported _mlx5dv_mkey_check. */
int
rc_dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
		 size_t err_info_size)
{
	if (!rc_ready())
		return fail(ENOSYS);
	if (mkey == NULL || err_info == NULL)
		return fail(EINVAL);
	return rc.fn.dv_mkey_check(mkey, err_info, err_info_size);
}

/*
 * Doorbell for WQEs built directly in the SQ ring: the caller wrote the WQE and
 * the doorbell record; make both visible, store the ctrl segment's first 8 bytes
 * to the BlueFlame register in one 64-bit write, flush write-combining. Needs
 * no library, so no load check on this fast path. The BlueFlame half toggle is
 * the caller's (it owns the mlx5dv_qp.bf view).
 */
void
rc_sq_doorbell(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8)
{
	(void)qp;
	if (bf_reg == NULL)
		return;
	mlx5_glue_wc_start();
	mlx5_glue_mmio_write64(bf_reg, ctrl8);
	mlx5_glue_wc_flush();
}

const struct mlx5_glue rc_glue = {
	.name = "rdma-core",
	.get_device_list = rc_get_device_list,
	.free_device_list = rc_free_device_list,
	.get_device_name = rc_get_device_name,
	.open_device = rc_open_device,
	.close_device = rc_close_device,
	.query_device_ex = rc_query_device_ex,
	.dv_query_device = rc_dv_query_device,
	.query_port = rc_query_port,
	.query_gid_ex = rc_query_gid_ex,
	.get_async_event = rc_get_async_event,
	.ack_async_event = rc_ack_async_event,
	.alloc_pd = rc_alloc_pd,
	.dealloc_pd = rc_dealloc_pd,
	.reg_mr = rc_reg_mr,
	.dereg_mr = rc_dereg_mr,
	.create_cq_ex = rc_create_cq_ex,
	.destroy_cq = rc_destroy_cq,
	.dv_create_qp = rc_dv_create_qp,
	.modify_qp = rc_modify_qp,
	.query_qp = rc_query_qp,
	.destroy_qp = rc_destroy_qp,
	.qp_to_qp_ex = rc_qp_to_qp_ex,
	.dv_qp_ex_from_ibv_qp_ex = rc_dv_qp_ex_from_ibv_qp_ex,
	.dv_init_obj = rc_dv_init_obj,
	.query_qp_data_in_order = rc_query_qp_data_in_order,
	.dv_qp_cancel_posted_send_wrs = rc_dv_qp_cancel_posted_send_wrs,
	.dv_dci_stream_id_reset = rc_dv_dci_stream_id_reset,
	.dv_reserved_qpn_alloc = rc_dv_reserved_qpn_alloc,
	.dv_reserved_qpn_dealloc = rc_dv_reserved_qpn_dealloc,
	.dv_create_mkey = rc_dv_create_mkey,
	.dv_destroy_mkey = rc_dv_destroy_mkey,
	.dv_mkey_check = rc_dv_mkey_check,
	.sq_doorbell = rc_sq_doorbell,
};

} // namespace

const struct mlx5_glue *
mlx5_glue_rdma_core(void)
{
	return &rc_glue;
}

const char *
mlx5_glue_rdma_core_status(void)
{
	if (rc_ready() && __atomic_load_n(&rc_no_kernel, __ATOMIC_RELAXED))
		return rc.status_no_kernel;
	return rc.status;
}

const struct mlx5_glue_backend *
mlx5_glue_rdma_core_backend(void)
{
	static const struct mlx5_glue_backend backend = {
		.name = "rdma-core",
		.glue = &rc_glue,
		.claims = NULL, /* every name no software backend claims */
		.canonical_name = NULL,
		.option_prefix = NULL,
		.prepare = NULL,
		.fallback_device = NULL,
		.auto_order = 0,
		.status = mlx5_glue_rdma_core_status,
	};

	return &backend;
}
