/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "rdma-core" backend of the seam: a loader for the glue library.
 *
 * librte_dma_mlx5_glue.so.<rdma-core major> (mlx5_glue_rdma_core_lib.cpp) is
 * the only binary linked against libibverbs and libmlx5. On first use of this
 * backend it is dlopen()ed (RTLD_NOW | RTLD_LOCAL) from the first place that has
 * it:
 *   1. each directory of $MLX5_GLUE_PATH (':'-separated);
 *   2. the directory of the binary holding the seam (the shared seam of an
 *      in-tree build has the glue library next to it);
 *   3. MLX5_GLUE_INSTALL_DIR, compiled in: <libdir>/dpdk/pmds-<ABI>-glue, beside
 *      DPDK's plugin directory but outside it, so EAL never loads it as a PMD;
 *   4. the bare soname, through the dynamic loader's search (LD_LIBRARY_PATH,
 *      ld.so.cache, ...).
 * One dlsym() of MLX5_GLUE_LIB_SYMBOL, then the version check. The first library
 * that loads is the one used: a wrong version there refuses the backend rather
 * than falling through to another copy.
 *
 * Whatever fails, the backend stays registered with an empty device list, every
 * other entry fails with ENOSYS, and mlx5_glue_rdma_core_status() says why.
 *
 * The table mlx5_glue_rdma_core() returns is the seam's own and never changes:
 * each entry forwards to the glue library's table, or to the "no library" table
 * when nothing loaded. The doorbell needs no library and is done here directly.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"
#include "mlx5_glue_lib.h"
#include "mlx5_glue_mmio.h"

#ifndef MLX5_GLUE_INSTALL_DIR
#define MLX5_GLUE_INSTALL_DIR ""
#endif

namespace {

/*
 * The list returned when there are no devices to list: nothing loaded, or the
 * kernel has no RDMA verbs support. Static, so freeing it is a no-op and it
 * never mixes with libibverbs' own lists.
 */
struct ibv_device *rc_empty_list[1];

/* ---------------------------------------------------------------- no library */

struct ibv_device **nl_get_device_list(int *num_devices)
{
	if (num_devices != NULL)
		*num_devices = 0;
	return rc_empty_list;
}

void nl_free_device_list(struct ibv_device **)
{
}

const char *nl_get_device_name(struct ibv_device *)
{
	return mlx5_glue_fail_null<const char>(ENOSYS);
}

struct ibv_context *nl_open_device(struct ibv_device *)
{
	return mlx5_glue_fail_null<struct ibv_context>(ENOSYS);
}

int nl_close_device(struct ibv_context *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *,
		       struct ibv_device_attr_ex *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_dv_query_device(struct ibv_context *, struct mlx5dv_context *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_query_gid_ex(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_get_async_event(struct ibv_context *, struct ibv_async_event *)
{
	errno = ENOSYS;
	return -1;
}

void nl_ack_async_event(struct ibv_async_event *)
{
}

struct ibv_pd *nl_alloc_pd(struct ibv_context *)
{
	return mlx5_glue_fail_null<struct ibv_pd>(ENOSYS);
}

struct ibv_ah *nl_create_ah(struct ibv_pd *, struct ibv_ah_attr *)
{
	return mlx5_glue_fail_null<struct ibv_ah>(ENOSYS);
}

int nl_destroy_ah(struct ibv_ah *)
{
	return mlx5_glue_fail(ENOSYS);
}

struct ibv_srq *nl_create_srq(struct ibv_pd *, struct ibv_srq_init_attr *)
{
	return mlx5_glue_fail_null<struct ibv_srq>(ENOSYS);
}

int nl_destroy_srq(struct ibv_srq *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_dealloc_pd(struct ibv_pd *)
{
	return mlx5_glue_fail(ENOSYS);
}

struct ibv_mr *nl_reg_mr(struct ibv_pd *, void *, size_t, int)
{
	return mlx5_glue_fail_null<struct ibv_mr>(ENOSYS);
}

int nl_dereg_mr(struct ibv_mr *)
{
	return mlx5_glue_fail(ENOSYS);
}

struct ibv_cq_ex *nl_create_cq_ex(struct ibv_context *, struct ibv_cq_init_attr_ex *)
{
	return mlx5_glue_fail_null<struct ibv_cq_ex>(ENOSYS);
}

int nl_destroy_cq(struct ibv_cq *)
{
	return mlx5_glue_fail(ENOSYS);
}

struct ibv_qp *nl_dv_create_qp(struct ibv_context *, struct ibv_qp_init_attr_ex *,
			       struct mlx5dv_qp_init_attr *)
{
	return mlx5_glue_fail_null<struct ibv_qp>(ENOSYS);
}

int nl_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_destroy_qp(struct ibv_qp *)
{
	return mlx5_glue_fail(ENOSYS);
}

struct ibv_qp_ex *nl_qp_to_qp_ex(struct ibv_qp *)
{
	return mlx5_glue_fail_null<struct ibv_qp_ex>(ENOSYS);
}

struct mlx5dv_qp_ex *nl_dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *)
{
	return mlx5_glue_fail_null<struct mlx5dv_qp_ex>(ENOSYS);
}

int nl_dv_init_obj(struct mlx5dv_obj *, uint64_t)
{
	return mlx5_glue_fail(ENOSYS);
}

/* "not known to be in order" */
int nl_query_qp_data_in_order(struct ibv_qp *, enum ibv_wr_opcode, uint32_t)
{
	errno = ENOSYS;
	return 0;
}

int nl_dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *, uint64_t)
{
	return -mlx5_glue_fail(ENOSYS);
}

int nl_dv_dci_stream_id_reset(struct ibv_qp *, uint16_t)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_dv_reserved_qpn_alloc(struct ibv_context *, uint32_t *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_dv_reserved_qpn_dealloc(struct ibv_context *, uint32_t)
{
	return mlx5_glue_fail(ENOSYS);
}

struct mlx5dv_mkey *nl_dv_create_mkey(struct mlx5dv_mkey_init_attr *)
{
	return mlx5_glue_fail_null<struct mlx5dv_mkey>(ENOSYS);
}

int nl_dv_destroy_mkey(struct mlx5dv_mkey *)
{
	return mlx5_glue_fail(ENOSYS);
}

int nl_dv_mkey_check(struct mlx5dv_mkey *, struct mlx5dv_mkey_err *, size_t)
{
	return mlx5_glue_fail(ENOSYS);
}

/*
 * Doorbell for WQEs built directly in the SQ ring: the caller wrote the WQE and
 * the doorbell record; make both visible, store the ctrl segment's first 8 bytes
 * to the BlueFlame register in one 64-bit write, flush write-combining. Needs
 * no library: the seam does it itself, with or without the glue library, and
 * the fast path pays no forwarding. The BlueFlame half toggle is the caller's
 * (it owns the mlx5dv_qp.bf view).
 */
void rc_sq_doorbell(struct ibv_qp *qp, void *bf_reg, uint64_t ctrl8)
{
	(void)qp;
	mlx5_glue_bf_doorbell(bf_reg, ctrl8);
}

const struct mlx5_glue rc_nolib = {
	.name = "rdma-core",
	.get_device_list = nl_get_device_list,
	.free_device_list = nl_free_device_list,
	.get_device_name = nl_get_device_name,
	.open_device = nl_open_device,
	.close_device = nl_close_device,
	.query_device_ex = nl_query_device_ex,
	.dv_query_device = nl_dv_query_device,
	.query_port = nl_query_port,
	.query_gid_ex = nl_query_gid_ex,
	.get_async_event = nl_get_async_event,
	.ack_async_event = nl_ack_async_event,
	.alloc_pd = nl_alloc_pd,
	.dealloc_pd = nl_dealloc_pd,
	.create_ah = nl_create_ah,
	.destroy_ah = nl_destroy_ah,
	.create_srq = nl_create_srq,
	.destroy_srq = nl_destroy_srq,
	.reg_mr = nl_reg_mr,
	.dereg_mr = nl_dereg_mr,
	.create_cq_ex = nl_create_cq_ex,
	.destroy_cq = nl_destroy_cq,
	.dv_create_qp = nl_dv_create_qp,
	.modify_qp = nl_modify_qp,
	.query_qp = nl_query_qp,
	.destroy_qp = nl_destroy_qp,
	.qp_to_qp_ex = nl_qp_to_qp_ex,
	.dv_qp_ex_from_ibv_qp_ex = nl_dv_qp_ex_from_ibv_qp_ex,
	.dv_init_obj = nl_dv_init_obj,
	.query_qp_data_in_order = nl_query_qp_data_in_order,
	.dv_qp_cancel_posted_send_wrs = nl_dv_qp_cancel_posted_send_wrs,
	.dv_dci_stream_id_reset = nl_dv_dci_stream_id_reset,
	.dv_reserved_qpn_alloc = nl_dv_reserved_qpn_alloc,
	.dv_reserved_qpn_dealloc = nl_dv_reserved_qpn_dealloc,
	.dv_create_mkey = nl_dv_create_mkey,
	.dv_destroy_mkey = nl_dv_destroy_mkey,
	.dv_mkey_check = nl_dv_mkey_check,
	.sq_doorbell = rc_sq_doorbell,
	.progress_info = NULL,
	.progress = NULL,
};

/* ---------------------------------------------------------------- loading */

/* snprintf() for messages and paths that may be cut short: logs, never parsed. */
__attribute__((format(printf, 3, 4))) void put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* What the last device list said, for the status. */
enum rc_list_state {
	RC_LIST_UNKNOWN,
	RC_LIST_DEVICES,
	RC_LIST_EMPTY,
	RC_LIST_NO_KERNEL,
};

/* Written only inside the pthread_once routine, read-only afterwards. */
struct rc_state {
	const struct mlx5_glue *impl; /* the glue library's table, or rc_nolib */
	char status[1024];            /* why nothing loaded, or what did */
	char status_empty[1100];      /* loaded, the device list was empty */
	char status_no_kernel[1100];  /* loaded, libibverbs said the kernel has no verbs */
};

rc_state rc = {&rc_nolib, "", "", ""};
pthread_once_t rc_once = PTHREAD_ONCE_INIT;
int rc_list; /* enum rc_list_state, atomic */

} // namespace

/* The directory of the binary holding this code, "" when unknown. */
void mlx5_glue_seam_dir(char *dir, size_t len, bool *shared)
{
	Dl_info info;
	struct link_map *map = NULL;
	char path[PATH_MAX];
	char *slash;

	dir[0] = '\0';
	if (shared != NULL)
		*shared = false;
	if (dladdr1(reinterpret_cast<void *>(&mlx5_glue_rdma_core), &info,
		    reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) == 0)
		return;
	if (map != NULL && map->l_name != NULL && map->l_name[0] != '\0') {
		put(path, sizeof(path), "%s", map->l_name);
		if (shared != NULL)
			*shared = true;
	} else {
		/* the main program (the seam linked in statically): argv[0] may be relative */
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

		if (n <= 0)
			return;
		path[n] = '\0';
	}
	slash = strrchr(path, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	put(dir, len, "%s", path[0] != '\0' ? path : "/");
}

namespace {

/* The search, its outcome so far, and the first real failure. */
struct rc_search {
	void *lib;
	char path[PATH_MAX]; /* of lib */
	char searched[512];  /* where nothing was found */
	char failure[768];   /* the first library found that would not load */
};

void note_searched(rc_search *s, const char *where)
{
	size_t used = strlen(s->searched);

	put(s->searched + used, sizeof(s->searched) - used, "%s%s", used ? ", " : "", where);
}

/* Try @p file (a path, or the bare soname when @p dir is NULL). true: stop searching. */
bool try_open(rc_search *s, const char *dir)
{
	char file[PATH_MAX];
	const char *err;
	void *lib;

	if (dir != NULL) {
		if (dir[0] == '\0')
			return false;
		put(file, sizeof(file), "%s/%s", dir, MLX5_GLUE_LIB_SONAME);
		if (access(file, F_OK) != 0) {
			note_searched(s, dir);
			return false;
		}
	} else {
		put(file, sizeof(file), "%s", MLX5_GLUE_LIB_SONAME);
	}
	dlerror();
	lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (lib != NULL) {
		s->lib = lib;
		/* the path the loader chose for the bare soname */
		struct link_map *map = NULL;

		if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL &&
		    map->l_name[0] != '\0')
			put(s->path, sizeof(s->path), "%s", map->l_name);
		else
			put(s->path, sizeof(s->path), "%s", file);
		return true;
	}
	err = dlerror();
	if (err == NULL)
		err = "dlopen failed";
	if (dir == NULL && strncmp(err, file, strlen(file)) == 0 && err[strlen(file)] == ':' &&
	    strstr(err, "cannot open shared object file") != NULL) {
		note_searched(s, "the library search path");
		return false;
	}
	/* found but not loadable (rdma-core missing, wrong architecture, ...) */
	if (s->failure[0] == '\0') {
		if (strncmp(err, file, strlen(file)) == 0)
			put(s->failure, sizeof(s->failure), "%s", err);
		else
			put(s->failure, sizeof(s->failure), "%s: %s", file, err);
	}
	return false;
}

/* Find and dlopen the glue library; s->lib stays NULL when nothing loaded. */
void search(rc_search *s)
{
	const char *env = getenv(MLX5_GLUE_ENV_PATH);
	char dir[PATH_MAX];

	if (env != NULL && env[0] != '\0') {
		const char *p = env;

		while (*p != '\0') {
			size_t n = strcspn(p, ":");

			if (n > 0 && n < sizeof(dir)) {
				memcpy(dir, p, n);
				dir[n] = '\0';
				if (try_open(s, dir))
					return;
			}
			p += n;
			if (*p == ':')
				p++;
		}
	}
	mlx5_glue_seam_dir(dir, sizeof(dir), NULL);
	if (try_open(s, dir))
		return;
	if (try_open(s, MLX5_GLUE_INSTALL_DIR))
		return;
	try_open(s, NULL);
}

/* The table of a loaded library if it is the one this seam was built for, else NULL. */
const struct mlx5_glue *check_lib(void *lib, const char *path)
{
	const struct mlx5_glue_lib *gl;

	gl = static_cast<const struct mlx5_glue_lib *>(dlsym(lib, MLX5_GLUE_LIB_SYMBOL));
	if (gl == NULL) {
		put(rc.status, sizeof(rc.status), "%s: symbol %s not found (not a glue library)",
		    path, MLX5_GLUE_LIB_SYMBOL);
		return NULL;
	}
	if (gl->version == NULL || strcmp(gl->version, MLX5_GLUE_VERSION) != 0) {
		put(rc.status, sizeof(rc.status), "%s: version mismatch: glue %s, seam %s", path,
		    gl->version != NULL ? gl->version : "(none)", MLX5_GLUE_VERSION);
		return NULL;
	}
	if (gl->glue_size != sizeof(struct mlx5_glue) || gl->glue == NULL) {
		put(rc.status, sizeof(rc.status),
		    "%s: table mismatch: glue %zu bytes, seam %zu bytes", path, gl->glue_size,
		    sizeof(struct mlx5_glue));
		return NULL;
	}
	/* every member before the optional ones is mandatory: callers never test for NULL */
	const char *base = reinterpret_cast<const char *>(gl->glue);
	for (size_t off = offsetof(struct mlx5_glue, get_device_list);
	     off < offsetof(struct mlx5_glue, progress_info); off += sizeof(void (*)(void))) {
		void (*fn)(void);

		memcpy(&fn, base + off, sizeof(fn));
		if (fn == NULL) {
			put(rc.status, sizeof(rc.status),
			    "%s: incomplete table: no entry at offset %zu", path, off);
			return NULL;
		}
	}
	return gl->glue;
}

/* The pthread_once routine. A library that loaded stays loaded for the process lifetime. */
void rc_load(void)
{
	rc_search s = {};
	const struct mlx5_glue *table;

	search(&s);
	if (s.lib == NULL) {
		if (s.failure[0] != '\0')
			put(rc.status, sizeof(rc.status), "%s", s.failure);
		else
			put(rc.status, sizeof(rc.status), "%s not found (searched: %s)",
			    MLX5_GLUE_LIB_SONAME, s.searched);
		return;
	}
	table = check_lib(s.lib, s.path);
	if (table == NULL) {
		/*
		 * Not unloaded: its libmlx5 registered itself with a libibverbs that may be
		 * shared with another user of the process and outlive it.
		 */
		return;
	}
	rc.impl = table;
	put(rc.status, sizeof(rc.status), "rdma-core glue loaded: %s (version %s)", s.path,
	    MLX5_GLUE_VERSION);
	put(rc.status_empty, sizeof(rc.status_empty), "%s; no RDMA devices", rc.status);
	put(rc.status_no_kernel, sizeof(rc.status_no_kernel),
	    "%s; no devices: the kernel has no RDMA verbs support", rc.status);
}

const struct mlx5_glue *rc_impl(void)
{
	pthread_once(&rc_once, rc_load);
	return rc.impl;
}

/* ---------------------------------------------------------------- the seam's table */

/* An entry of the seam's table calling the same entry of rc_impl(). */
template <typename F>
struct forward;

template <typename R, typename... A>
struct forward<R (*)(A...)> {
	template <R (*mlx5_glue::*entry)(A...)>
	static R call(A... args)
	{
		return (rc_impl()->*entry)(args...);
	}
};

#define RC_FORWARD(member) forward<decltype(mlx5_glue::member)>::call<&mlx5_glue::member>

/* An empty list rather than an error when the kernel has no verbs; the status says which. */
struct ibv_device **rc_get_device_list(int *num_devices)
{
	const struct mlx5_glue *impl = rc_impl();
	struct ibv_device **list;
	int n = 0;

	errno = 0;
	list = impl->get_device_list(&n);
	if (list == NULL && errno == ENOSYS && impl != &rc_nolib) {
		__atomic_store_n(&rc_list, RC_LIST_NO_KERNEL, __ATOMIC_RELAXED);
		list = rc_empty_list;
		n = 0;
	} else if (list != NULL && impl != &rc_nolib) {
		__atomic_store_n(&rc_list, list[0] != NULL ? RC_LIST_DEVICES : RC_LIST_EMPTY,
				 __ATOMIC_RELAXED);
	}
	if (num_devices != NULL)
		*num_devices = list != NULL ? n : 0;
	return list;
}

void rc_free_device_list(struct ibv_device **list)
{
	if (list == NULL || list == rc_empty_list)
		return;
	rc_impl()->free_device_list(list);
}

/* The connection manager: the glue library's, -ENOSYS when it has none (or none loaded). */
int rc_cm_listen(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		 const void *req, size_t req_len, const void *reply, size_t reply_len,
		 void (*note)(void *arg, const char *line), void *note_arg,
		 struct mlx5_glue_cm_listener **out)
{
	const struct mlx5_glue *impl = rc_impl();

	if (impl->cm_listen == NULL)
		return -ENOSYS;
	return impl->cm_listen(context, addr, qpn, req, req_len, reply, reply_len, note, note_arg,
			       out);
}

void rc_cm_listen_close(struct mlx5_glue_cm_listener *listener)
{
	const struct mlx5_glue *impl = rc_impl();

	if (impl->cm_listen_close != NULL)
		impl->cm_listen_close(listener);
}

int rc_cm_fetch(struct ibv_context *context, const struct sockaddr_in *addr, uint32_t qpn,
		const void *req, size_t req_len, int timeout_ms,
		int (*check)(void *arg, uint16_t lid, const void *reply, size_t len),
		void *check_arg)
{
	const struct mlx5_glue *impl = rc_impl();

	if (impl->cm_fetch == NULL)
		return -ENOSYS;
	return impl->cm_fetch(context, addr, qpn, req, req_len, timeout_ms, check, check_arg);
}

const struct mlx5_glue rc_glue = {
	.name = "rdma-core",
	.get_device_list = rc_get_device_list,
	.free_device_list = rc_free_device_list,
	.get_device_name = RC_FORWARD(get_device_name),
	.open_device = RC_FORWARD(open_device),
	.close_device = RC_FORWARD(close_device),
	.query_device_ex = RC_FORWARD(query_device_ex),
	.dv_query_device = RC_FORWARD(dv_query_device),
	.query_port = RC_FORWARD(query_port),
	.query_gid_ex = RC_FORWARD(query_gid_ex),
	.get_async_event = RC_FORWARD(get_async_event),
	.ack_async_event = RC_FORWARD(ack_async_event),
	.alloc_pd = RC_FORWARD(alloc_pd),
	.dealloc_pd = RC_FORWARD(dealloc_pd),
	.create_ah = RC_FORWARD(create_ah),
	.destroy_ah = RC_FORWARD(destroy_ah),
	.create_srq = RC_FORWARD(create_srq),
	.destroy_srq = RC_FORWARD(destroy_srq),
	.reg_mr = RC_FORWARD(reg_mr),
	.dereg_mr = RC_FORWARD(dereg_mr),
	.create_cq_ex = RC_FORWARD(create_cq_ex),
	.destroy_cq = RC_FORWARD(destroy_cq),
	.dv_create_qp = RC_FORWARD(dv_create_qp),
	.modify_qp = RC_FORWARD(modify_qp),
	.query_qp = RC_FORWARD(query_qp),
	.destroy_qp = RC_FORWARD(destroy_qp),
	.qp_to_qp_ex = RC_FORWARD(qp_to_qp_ex),
	.dv_qp_ex_from_ibv_qp_ex = RC_FORWARD(dv_qp_ex_from_ibv_qp_ex),
	.dv_init_obj = RC_FORWARD(dv_init_obj),
	.query_qp_data_in_order = RC_FORWARD(query_qp_data_in_order),
	.dv_qp_cancel_posted_send_wrs = RC_FORWARD(dv_qp_cancel_posted_send_wrs),
	.dv_dci_stream_id_reset = RC_FORWARD(dv_dci_stream_id_reset),
	.dv_reserved_qpn_alloc = RC_FORWARD(dv_reserved_qpn_alloc),
	.dv_reserved_qpn_dealloc = RC_FORWARD(dv_reserved_qpn_dealloc),
	.dv_create_mkey = RC_FORWARD(dv_create_mkey),
	.dv_destroy_mkey = RC_FORWARD(dv_destroy_mkey),
	.dv_mkey_check = RC_FORWARD(dv_mkey_check),
	.sq_doorbell = rc_sq_doorbell,
	.progress_info = NULL, /* hardware needs no host CPU time */
	.progress = NULL,
	.cm_listen = rc_cm_listen,
	.cm_listen_close = rc_cm_listen_close,
	.cm_fetch = rc_cm_fetch,
};

} // namespace

const struct mlx5_glue *mlx5_glue_rdma_core(void)
{
	return &rc_glue;
}

const struct mlx5_glue *mlx5_glue_rdma_core_nolib(void)
{
	return &rc_nolib;
}

const char *mlx5_glue_rdma_core_status(void)
{
	if (rc_impl() == &rc_nolib)
		return rc.status;
	if (__atomic_load_n(&rc_list, __ATOMIC_RELAXED) == RC_LIST_UNKNOWN)
		rc_free_device_list(rc_get_device_list(NULL)); /* asked before any listing */
	switch (__atomic_load_n(&rc_list, __ATOMIC_RELAXED)) {
	case RC_LIST_EMPTY:
		return rc.status_empty;
	case RC_LIST_NO_KERNEL:
		return rc.status_no_kernel;
	default:
		return rc.status;
	}
}

const struct mlx5_glue_backend *mlx5_glue_rdma_core_backend(void)
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
