/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma-core backend of the seam (the loader of the glue library) and the
 * device lookup across backends.
 *
 * meson points $MLX5_GLUE_PATH at the glue library of the build, linked against
 * the host's libibverbs/libmlx5: it loads and, with no mlx5 hardware, lists
 * nothing. Expectations that depend on the host (kernel verbs, devices listed,
 * an installed copy of the glue) are derived from the host, not assumed. The
 * backend loads once per process, so every other loading case runs in a child
 * process started with its own $MLX5_GLUE_PATH: no library, fake libraries with
 * one defect each (fake_glue.cpp), a search list, and the shared seam finding
 * the glue library next to itself (glue_seam_dir_helper.cpp).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <unistd.h>

#include "cunit_run.h"

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"
#include "mlx5_glue_lib.h"
#include "mlx5_sim.h"

namespace {

const char *self_exe; /* re-executed for the fresh-process children */

/* The glue library of the build, from $MLX5_GLUE_PATH (meson); NULL if none was built. */
const char *glue_dir(void)
{
	const char *dir = getenv(MLX5_GLUE_ENV_PATH);

	return dir != NULL && dir[0] != '\0' ? dir : NULL;
}

/* ---------------------------------------------------------------- loading */

/* Must run before anything touches the backend: nothing may be loaded at start. */
void test_not_linked(void)
{
	CU_ASSERT_PTR_NULL(dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD));
	CU_ASSERT_PTR_NULL(dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD));
	CU_ASSERT_PTR_NULL(dlopen(MLX5_GLUE_LIB_SONAME, RTLD_NOW | RTLD_NOLOAD));
}

/* Every member up to the optional ones is mandatory: walk the function pointers. */
void check_complete(const struct mlx5_glue *g)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_STRING_EQUAL(g->name, "rdma-core");
	const char *base = reinterpret_cast<const char *>(g);
	for (size_t off = offsetof(struct mlx5_glue, get_device_list);
	     off < offsetof(struct mlx5_glue, progress_info); off += sizeof(void (*)(void))) {
		void (*fn)(void);

		memcpy(&fn, base + off, sizeof(fn));
		CU_ASSERT_PTR_NOT_NULL(reinterpret_cast<void *>(fn));
	}
	/* hardware needs no host CPU time */
	CU_ASSERT_PTR_NULL(g->progress_info);
	CU_ASSERT_PTR_NULL(g->progress);
}

/* The seam's table, its no-library table, and the glue library's own table. */
void test_table_complete(void)
{
	char path[PATH_MAX];
	const struct mlx5_glue_lib *gl;
	void *lib;

	check_complete(mlx5_glue_rdma_core());
	check_complete(mlx5_glue_rdma_core_nolib());
	if (glue_dir() == NULL) {
		printf("\n    no glue library built: its table not checked\n");
		return;
	}
	/*
	 * The backend loads the same library first and keeps it: the dlclose() below
	 * must not unload libibverbs, whose provider list would lose libmlx5's entry
	 * (LeakSanitizer reports it).
	 */
	mlx5_glue_rdma_core_status();
	snprintf(path, sizeof(path), "%s/%s", glue_dir(), MLX5_GLUE_LIB_SONAME);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
	gl = static_cast<const struct mlx5_glue_lib *>(dlsym(lib, MLX5_GLUE_LIB_SYMBOL));
	CU_ASSERT_PTR_NOT_NULL_FATAL(gl);
	CU_ASSERT_STRING_EQUAL(gl->version, MLX5_GLUE_VERSION);
	CU_ASSERT_EQUAL(gl->glue_size, sizeof(struct mlx5_glue));
	check_complete(gl->glue);
	/* nothing else is exported: not even the helpers compiled into it */
	CU_ASSERT_PTR_NULL(dlsym(lib, "mlx5_glue_data_in_order_map"));
	dlclose(lib);
}

/* The version the seam asks for: <rdma-core major>.<table layout>. */
void test_version(void)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d", MLX5_GLUE_RDMA_CORE_MAJOR, MLX5_GLUE_LAYOUT_VERSION);
	CU_ASSERT_STRING_EQUAL(MLX5_GLUE_VERSION, want);
	snprintf(want, sizeof(want), "librte_dma_mlx5_glue.so.%d", MLX5_GLUE_RDMA_CORE_MAJOR);
	CU_ASSERT_STRING_EQUAL(MLX5_GLUE_LIB_SONAME, want);
}

/* The glue library of $MLX5_GLUE_PATH, and rdma-core with it. */
void test_loaded_from_path(void)
{
	const char *st = mlx5_glue_rdma_core_status();
	char want[PATH_MAX + 64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	printf("\n    status: %s\n", st);
	if (glue_dir() == NULL) {
		CU_ASSERT_PTR_NOT_NULL(strstr(st, "not found"));
		return;
	}
	snprintf(want, sizeof(want), "rdma-core glue loaded: %s/%s (version %s)", glue_dir(),
		 MLX5_GLUE_LIB_SONAME, MLX5_GLUE_VERSION);
	CU_ASSERT_EQUAL(strncmp(st, want, strlen(want)), 0);
	CU_ASSERT_PTR_NOT_NULL(dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD));
	CU_ASSERT_PTR_NOT_NULL(dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD));
}

bool rc_loaded(void)
{
	return strstr(mlx5_glue_rdma_core_status(), "rdma-core glue loaded") != NULL;
}

/* ---------------------------------------------------------------- devices */

/* What libibverbs itself answers here: -1 if unavailable, else errno of a NULL list or 0. */
int host_list_errno(void)
{
	void *verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	struct ibv_device **(*get)(int *);
	void (*put)(struct ibv_device **);
	struct ibv_device **list;
	int err = -1;

	if (verbs == NULL)
		return -1;
	get = reinterpret_cast<decltype(get)>(dlsym(verbs, "ibv_get_device_list"));
	put = reinterpret_cast<decltype(put)>(dlsym(verbs, "ibv_free_device_list"));
	if (get != NULL && put != NULL) {
		errno = 0;
		list = get(NULL);
		err = list == NULL ? errno : 0;
		if (list != NULL)
			put(list);
	}
	dlclose(verbs);
	return err;
}

void test_device_list(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	int host_err = host_list_errno();
	int n = -1;
	struct ibv_device **list = g->get_device_list(&n);

	printf("\n    rdma-core devices: %d (libibverbs list errno %d)\n", n, host_err);
	CU_ASSERT(n >= 0);
	if (host_err == ENOSYS || host_err == -1) {
		/* no kernel verbs, or no library: an empty list, not an error */
		CU_ASSERT_PTR_NOT_NULL_FATAL(list);
		CU_ASSERT_EQUAL(n, 0);
	}
	if (host_err == ENOSYS && rc_loaded())
		CU_ASSERT_PTR_NOT_NULL(
			strstr(mlx5_glue_rdma_core_status(), "kernel has no RDMA verbs support"));
	if (host_err == 0 && n == 0 && rc_loaded()) /* libibverbs works, no device */
		CU_ASSERT_PTR_NOT_NULL(strstr(mlx5_glue_rdma_core_status(), "; no RDMA devices"));
	if (list == NULL) {
		CU_ASSERT_EQUAL(n, 0);
		return;
	}
	for (int i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL(list[i]);
		CU_ASSERT_PTR_NOT_NULL(g->get_device_name(list[i]));
	}
	CU_ASSERT_PTR_NULL(list[n]);
	g->free_device_list(list);
	/* the count is optional */
	list = g->get_device_list(NULL);
	g->free_device_list(list);
	g->free_device_list(NULL);
}

/* Expected find_device() result for @p name, from the host's own device list. */
int expected_rc_find(const char *name)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	struct ibv_device **list = g->get_device_list(NULL);
	struct mlx5_glue_pci_addr want, have;
	bool is_pci = mlx5_glue_pci_parse(name, &want) == 0;
	int ret = -ENODEV;

	for (int i = 0; list != NULL && list[i] != NULL; i++) {
		const char *dn = g->get_device_name(list[i]);

		if (!is_pci && strcmp(dn, name) == 0)
			ret = 0;
		if (is_pci && mlx5_glue_ibdev_pci(mlx5_glue_sysfs_root(), dn, &have) == 0 &&
		    mlx5_glue_pci_equal(&want, &have))
			ret = 0;
	}
	g->free_device_list(list);
	return ret;
}

void check_rc_find(const char *name)
{
	const struct mlx5_glue *glue = NULL;
	struct ibv_device *dev = NULL;
	int want = expected_rc_find(name);
	int ret = mlx5_glue_find_device(name, &glue, &dev);

	CU_ASSERT_EQUAL(ret, want);
	if (ret == 0) {
		CU_ASSERT_PTR_EQUAL(glue, mlx5_glue_rdma_core());
		mlx5_glue_put_device(glue, dev);
	} else {
		CU_ASSERT_PTR_NULL(glue);
		CU_ASSERT_PTR_NULL(dev);
	}
}

void test_find_rdma_core(void)
{
	/* no mlx5 hardware here: these are -ENODEV, derived rather than assumed */
	check_rc_find("mlx5_0");
	check_rc_find("0000:08:00.0");
	check_rc_find("08:00.0");
	check_rc_find("simx"); /* not a sim name: goes to rdma-core */
	CU_ASSERT_EQUAL(expected_rc_find("no_such_ibdev_42"), -ENODEV);
	check_rc_find("no_such_ibdev_42");
}

void test_find_bad_args(void)
{
	const struct mlx5_glue *glue = NULL;
	struct ibv_device *dev = NULL;

	CU_ASSERT_EQUAL(mlx5_glue_find_device(NULL, &glue, &dev), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("", &glue, &dev), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("mlx5_0", NULL, &dev), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("mlx5_0", &glue, NULL), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_find_in(NULL, "mlx5_0", &dev), -EINVAL);
	CU_ASSERT_PTR_NULL(glue);
	CU_ASSERT_PTR_NULL(dev);
	/* releasing what was never found changes nothing */
	mlx5_glue_put_device(NULL, NULL);
	mlx5_glue_put_device(mlx5_glue_rdma_core(), NULL);
	mlx5_glue_put_device(mlx5_glue_rdma_core(), reinterpret_cast<struct ibv_device *>(&dev));
}

void test_find_sim(void)
{
	const struct mlx5_glue *sim = mlx5_glue_sim();
	const struct mlx5_glue *glue = NULL, *glue2 = NULL;
	struct ibv_device *dev = NULL, *dev2 = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL_FATAL(mlx5_glue_find_device("sim0", &glue, &dev), 0);
	CU_ASSERT_PTR_EQUAL(glue, sim);
	CU_ASSERT_STRING_EQUAL(sim->get_device_name(dev), "sim0");
	/* "sim" is sim0; a second lookup holds its own list */
	CU_ASSERT_EQUAL_FATAL(mlx5_glue_find_device("sim", &glue2, &dev2), 0);
	CU_ASSERT_PTR_EQUAL(glue2, sim);
	CU_ASSERT_STRING_EQUAL(sim->get_device_name(dev2), "sim0");
	mlx5_glue_put_device(glue2, dev2);
	/* the first device stays valid after the second is released */
	CU_ASSERT_STRING_EQUAL(sim->get_device_name(dev), "sim0");
	mlx5_glue_put_device(glue, dev);

	glue = NULL;
	dev = NULL;
	CU_ASSERT_EQUAL(mlx5_glue_find_device("sim99999", &glue, &dev), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("sim00", &glue, &dev), -ENODEV);
	CU_ASSERT_PTR_NULL(glue);
	CU_ASSERT_PTR_NULL(dev);
}

/* A second instance is found by its own name, and only while it exists. */
void test_find_sim_added(void)
{
	const struct mlx5_glue *glue = NULL;
	struct ibv_device *dev = NULL;

	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim7", NULL), 0);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("sim7", &glue, &dev), 0);
	if (dev != NULL) {
		CU_ASSERT_PTR_EQUAL(glue, mlx5_glue_sim());
		CU_ASSERT_STRING_EQUAL(glue->get_device_name(dev), "sim7");
		mlx5_glue_put_device(glue, dev);
	}
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim7"), 0);
	glue = NULL;
	dev = NULL;
	CU_ASSERT_EQUAL(mlx5_glue_find_device("sim7", &glue, &dev), -ENODEV);
	CU_ASSERT_PTR_NULL(dev);
}

/* Loaded backend: bad arguments fail with EINVAL instead of reaching the library. */
void test_null_args_loaded(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	struct ibv_device_attr_ex attr;
	struct ibv_query_device_ex_input in = {};

	if (!rc_loaded())
		return; /* the disabled children cover the other case */
	errno = 0;
	CU_ASSERT_PTR_NULL(g->open_device(NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(g->close_device(NULL), EINVAL);
	CU_ASSERT_EQUAL(g->query_device_ex(NULL, NULL, &attr), EINVAL);
	in.comp_mask = 1;
	CU_ASSERT_EQUAL(g->query_device_ex(NULL, &in, &attr), EINVAL);
	CU_ASSERT_PTR_NULL(g->alloc_pd(NULL));
	CU_ASSERT_PTR_NULL(g->reg_mr(NULL, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(g->create_cq_ex(NULL, NULL));
	CU_ASSERT_PTR_NULL(g->dv_create_qp(NULL, NULL, NULL));
	CU_ASSERT_PTR_NULL(g->qp_to_qp_ex(NULL));
	CU_ASSERT_PTR_NULL(g->dv_qp_ex_from_ibv_qp_ex(NULL));
	CU_ASSERT_EQUAL(g->query_qp_data_in_order(NULL, IBV_WR_SEND, 0), 0);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(NULL, 1), -EINVAL);
	CU_ASSERT_PTR_NULL(g->dv_create_mkey(NULL));
	CU_ASSERT_EQUAL(g->dv_mkey_check(NULL, NULL, 0), EINVAL);
	CU_ASSERT_EQUAL(g->get_async_event(NULL, NULL), -1);
	g->ack_async_event(NULL);
}

/*
 * The verbs rdma-core keeps inline (ibv_create_cq_ex, ibv_query_device_ex) go
 * through the context's verbs_context ops: check the dispatch on a fake one.
 */
struct ibv_cq_ex fake_cq;
size_t fake_attr_size;
int fake_query_ret;

struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *, struct ibv_cq_init_attr_ex *attr)
{
	return attr->cqe == 64 ? &fake_cq : NULL;
}

int fake_query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	fake_attr_size = attr_size;
	if (fake_query_ret == 0)
		attr->orig_attr.max_qp = 1234;
	return fake_query_ret;
}

void test_verbs_context_ops(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	struct verbs_context vctx = {};
	struct ibv_cq_init_attr_ex cq_attr = {};
	struct ibv_device_attr_ex attr = {};

	if (!rc_loaded())
		return;
	vctx.sz = sizeof(vctx);
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	cq_attr.cqe = 64;
	/* no op: EOPNOTSUPP, like the inline */
	errno = 0;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(&vctx.context, &cq_attr));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	vctx.create_cq_ex = fake_create_cq_ex;
	CU_ASSERT_PTR_EQUAL(g->create_cq_ex(&vctx.context, &cq_attr), &fake_cq);
	/* a context too old to carry the op, or not extended at all */
	vctx.sz = sizeof(vctx) - offsetof(struct verbs_context, create_cq_ex) - 1;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(&vctx.context, &cq_attr));
	vctx.sz = sizeof(vctx);
	vctx.context.abi_compat = NULL;
	CU_ASSERT_PTR_NULL(g->create_cq_ex(&vctx.context, &cq_attr));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;

	/* query_device_ex: the op's answer, with the caller's attr size */
	vctx.query_device_ex = fake_query_device_ex;
	fake_query_ret = 0;
	CU_ASSERT_EQUAL(g->query_device_ex(&vctx.context, NULL, &attr), 0);
	CU_ASSERT_EQUAL(attr.orig_attr.max_qp, 1234);
	CU_ASSERT_EQUAL(fake_attr_size, sizeof(attr));
	fake_query_ret = EIO; /* errors other than "unsupported" are not retried */
	CU_ASSERT_EQUAL(g->query_device_ex(&vctx.context, NULL, &attr), EIO);
}

/* ---------------------------------------------------------------- fresh processes */

/*
 * Run this executable again with $MLX5_GLUE_PATH = @p path (unset if NULL) and
 * $LD_LIBRARY_PATH = @p ld_path (unset if NULL: meson test sets it to the
 * build's library directories, where the glue library is) in child mode @p mode
 * ("--disabled-child": nothing usable loaded; "--loaded-child": the glue library
 * loaded), checking that the status contains @p expect.
 */
int run_child_ld(const char *path, const char *ld_path, const char *mode, const char *expect)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (path != NULL)
			setenv(MLX5_GLUE_ENV_PATH, path, 1);
		else
			unsetenv(MLX5_GLUE_ENV_PATH);
		if (ld_path != NULL)
			setenv("LD_LIBRARY_PATH", ld_path, 1);
		else
			unsetenv("LD_LIBRARY_PATH");
		execl(self_exe, self_exe, mode, expect, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int run_child(const char *path, const char *mode, const char *expect)
{
	return run_child_ld(path, NULL, mode, expect);
}

/* A fake glue library copied into a directory of its own under the real soname. */
struct fake_dir {
	char dir[64];
	char file[128];
};

bool fake_glue_setup(const char *which, fake_dir *f)
{
	char env[64];
	const char *src;
	FILE *in, *out;
	char buf[8192];
	size_t n;
	bool ok = true;

	snprintf(env, sizeof(env), "MLX5_GLUE_TEST_FAKE_%s", which);
	src = getenv(env);
	if (src == NULL) {
		printf("\n    $%s not set: run through meson test\n", env);
		return false;
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/glue_fake_XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return false;
	snprintf(f->file, sizeof(f->file), "%s/%s", f->dir, MLX5_GLUE_LIB_SONAME);
	in = fopen(src, "rb");
	out = fopen(f->file, "wb");
	if (in == NULL || out == NULL)
		ok = false;
	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	if (in != NULL)
		fclose(in);
	if (out != NULL && fclose(out) != 0)
		ok = false;
	return ok;
}

void fake_glue_clean(fake_dir *f)
{
	unlink(f->file);
	rmdir(f->dir);
}

/* Whether a copy of the glue library outside the build would be found as a fallback. */
bool glue_installed(void)
{
	const char *dir = getenv("MLX5_GLUE_TEST_INSTALL_DIR");
	char path[PATH_MAX];

	if (dir == NULL)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, MLX5_GLUE_LIB_SONAME);
	return access(path, F_OK) == 0;
}

/* No glue library anywhere: the status lists where it was looked for. */
void test_missing_glue(void)
{
	char expect[PATH_MAX + 128];
	const char *install = getenv("MLX5_GLUE_TEST_INSTALL_DIR");

	if (glue_installed()) {
		printf("\n    a glue library is installed in %s: skipped\n", install);
		return;
	}
	snprintf(expect, sizeof(expect),
		 "%s not found (searched: /nonexistent-glue-a, "
		 "/nonexistent-glue-b, ",
		 MLX5_GLUE_LIB_SONAME);
	CU_ASSERT_EQUAL(
		run_child("/nonexistent-glue-a::/nonexistent-glue-b", "--disabled-child", expect),
		0);
	/* the compiled-in install directory and the loader's own search come last */
	if (install != NULL) {
		snprintf(expect, sizeof(expect), ", %s, the library search path)", install);
		CU_ASSERT_EQUAL(run_child("/nonexistent-glue-a", "--disabled-child", expect), 0);
	}
}

/* A fake glue library in $MLX5_GLUE_PATH refused with @p expect in the status. */
void check_fake_refused(const char *which, const char *expect)
{
	fake_dir f;
	char want[512];

	if (!fake_glue_setup(which, &f)) {
		CU_FAIL("fake glue library not set up");
		return;
	}
	snprintf(want, sizeof(want), "%s: %s", f.file, expect);
	CU_ASSERT_EQUAL(run_child(f.dir, "--disabled-child", want), 0);
	fake_glue_clean(&f);
}

void test_glue_needs_missing_library(void)
{
	/* what a host without rdma-core gives: the glue loads, its dependency does not */
	check_fake_refused("NEEDS", "libfake_glue_gone.so: cannot open shared object file");
}

void test_glue_version_mismatch(void)
{
	char expect[128];

	snprintf(expect, sizeof(expect), "version mismatch: glue 0.0, seam %s", MLX5_GLUE_VERSION);
	check_fake_refused("BADVER", expect);
}

void test_glue_no_symbol(void)
{
	check_fake_refused("NOSYM", "symbol " MLX5_GLUE_LIB_SYMBOL " not found");
}

void test_glue_incomplete(void)
{
	check_fake_refused("INCOMPLETE", "incomplete table");
}

/* The search list in order; the first library that loads is the one used. */
void test_search_order(void)
{
	char path[PATH_MAX * 2], expect[PATH_MAX + 64];
	fake_dir f;

	if (glue_dir() == NULL)
		return;
	snprintf(path, sizeof(path), "/nonexistent-glue-a:%s", glue_dir());
	snprintf(expect, sizeof(expect), "rdma-core glue loaded: %s/%s", glue_dir(),
		 MLX5_GLUE_LIB_SONAME);
	CU_ASSERT_EQUAL(run_child(path, "--loaded-child", expect), 0);
	/* a wrong library first is refused, not skipped for the right one after it */
	if (!fake_glue_setup("BADVER", &f)) {
		CU_FAIL("fake glue library not set up");
		return;
	}
	snprintf(path, sizeof(path), "%s:%s", f.dir, glue_dir());
	CU_ASSERT_EQUAL(run_child(path, "--disabled-child", "version mismatch: glue 0.0"), 0);
	/* one that does not load at all is passed over */
	fake_glue_clean(&f);
	if (!fake_glue_setup("NEEDS", &f)) {
		CU_FAIL("fake glue library not set up");
		return;
	}
	snprintf(path, sizeof(path), "%s:%s", f.dir, glue_dir());
	CU_ASSERT_EQUAL(run_child(path, "--loaded-child", expect), 0);
	fake_glue_clean(&f);
	/* last, the bare soname through the loader's search ($LD_LIBRARY_PATH here) */
	if (!glue_installed())
		CU_ASSERT_EQUAL(
			run_child_ld("/nonexistent-glue-a", glue_dir(), "--loaded-child", expect),
			0);
}

/* Without $MLX5_GLUE_PATH the shared seam finds the glue library next to itself. */
void test_seam_dir(void)
{
	const char *helper = getenv("MLX5_GLUE_TEST_SEAM_DIR_HELPER");
	pid_t pid;
	int status = 0;

	if (glue_dir() == NULL || helper == NULL) {
		printf("\n    no glue library or no helper: skipped\n");
		return;
	}
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		unsetenv(MLX5_GLUE_ENV_PATH);
		execl(helper, helper, (char *)NULL);
		_exit(127);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

const char *child_expect;

void child_status(void)
{
	const char *st = mlx5_glue_rdma_core_status();

	printf("\n    status: %s\n", st);
	CU_ASSERT_PTR_NOT_NULL(strstr(st, child_expect));
	/* nothing usable loaded: rdma-core is not in the process */
	CU_ASSERT_PTR_NULL(dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD));
	/* the entries do not change what the status says */
	mlx5_glue_rdma_core()->free_device_list(mlx5_glue_rdma_core()->get_device_list(NULL));
	CU_ASSERT_PTR_EQUAL(mlx5_glue_rdma_core_status(), st);
}

/* The glue library loaded: the status names it, rdma-core came with it. */
void child_loaded(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	const char *st = mlx5_glue_rdma_core_status();
	int n = -1;
	struct ibv_device **list;

	printf("\n    status: %s\n", st);
	CU_ASSERT_PTR_NOT_NULL(strstr(st, child_expect));
	CU_ASSERT_PTR_NOT_NULL(dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD));
	list = g->get_device_list(&n);
	CU_ASSERT_PTR_NOT_NULL(list);
	CU_ASSERT(n >= 0);
	g->free_device_list(list);
}

void child_empty_list(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	int n = -1;
	struct ibv_device **list = g->get_device_list(&n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(list[0]);
	g->free_device_list(list);
	list = g->get_device_list(NULL);
	CU_ASSERT_PTR_NOT_NULL(list);
	g->free_device_list(list);
	g->free_device_list(NULL);
}

#define CU_ASSERT_ENOSYS_NULL(expr)             \
	do {                                    \
		errno = 0;                      \
		CU_ASSERT_PTR_NULL(expr);       \
		CU_ASSERT_EQUAL(errno, ENOSYS); \
	} while (0)

#define CU_ASSERT_ENOSYS_INT(expr, want)        \
	do {                                    \
		errno = 0;                      \
		CU_ASSERT_EQUAL(expr, want);    \
		CU_ASSERT_EQUAL(errno, ENOSYS); \
	} while (0)

/* Every entry fails cleanly; the dummy objects are never dereferenced. */
void child_entries_fail(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	alignas(64) unsigned char dummy[4096] = {};
	auto *dev = reinterpret_cast<struct ibv_device *>(dummy);
	auto *ctx = reinterpret_cast<struct ibv_context *>(dummy);
	auto *pd = reinterpret_cast<struct ibv_pd *>(dummy);
	auto *qp = reinterpret_cast<struct ibv_qp *>(dummy);
	struct ibv_device_attr_ex attr;
	struct mlx5dv_context dv = {};
	struct ibv_async_event ev = {};
	struct ibv_cq_init_attr_ex cq_attr = {};
	struct ibv_qp_init_attr_ex qp_attr = {};
	struct ibv_qp_attr qa = {};
	struct ibv_qp_init_attr qia = {};
	struct mlx5dv_obj obj = {};
	struct mlx5dv_mkey_init_attr mk = {};
	struct mlx5dv_mkey_err mkerr = {};
	uint32_t qpn = 0;

	CU_ASSERT_ENOSYS_NULL(g->get_device_name(dev));
	CU_ASSERT_ENOSYS_NULL(g->open_device(dev));
	CU_ASSERT_ENOSYS_INT(g->close_device(ctx), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->query_device_ex(ctx, NULL, &attr), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->dv_query_device(ctx, &dv), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->get_async_event(ctx, &ev), -1);
	g->ack_async_event(&ev);
	CU_ASSERT_ENOSYS_NULL(g->alloc_pd(ctx));
	CU_ASSERT_ENOSYS_INT(g->dealloc_pd(pd), ENOSYS);
	CU_ASSERT_ENOSYS_NULL(g->reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND));
	CU_ASSERT_ENOSYS_INT(g->dereg_mr(reinterpret_cast<struct ibv_mr *>(dummy)), ENOSYS);
	CU_ASSERT_ENOSYS_NULL(g->create_cq_ex(ctx, &cq_attr));
	CU_ASSERT_ENOSYS_INT(g->destroy_cq(reinterpret_cast<struct ibv_cq *>(dummy)), ENOSYS);
	CU_ASSERT_ENOSYS_NULL(g->dv_create_qp(ctx, &qp_attr, NULL));
	CU_ASSERT_ENOSYS_INT(g->modify_qp(qp, &qa, IBV_QP_STATE), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->query_qp(qp, &qa, IBV_QP_STATE, &qia), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->destroy_qp(qp), ENOSYS);
	CU_ASSERT_ENOSYS_NULL(g->qp_to_qp_ex(qp));
	CU_ASSERT_ENOSYS_NULL(
		g->dv_qp_ex_from_ibv_qp_ex(reinterpret_cast<struct ibv_qp_ex *>(dummy)));
	CU_ASSERT_ENOSYS_INT(g->dv_init_obj(&obj, MLX5DV_OBJ_QP), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->query_qp_data_in_order(qp, IBV_WR_SEND, 0), 0);
	CU_ASSERT_ENOSYS_INT(
		g->dv_qp_cancel_posted_send_wrs(reinterpret_cast<struct mlx5dv_qp_ex *>(dummy), 1),
		-ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->dv_dci_stream_id_reset(qp, 0), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->dv_reserved_qpn_alloc(ctx, &qpn), ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->dv_reserved_qpn_dealloc(ctx, qpn), ENOSYS);
	mk.pd = pd;
	CU_ASSERT_ENOSYS_NULL(g->dv_create_mkey(&mk));
	CU_ASSERT_ENOSYS_INT(g->dv_destroy_mkey(reinterpret_cast<struct mlx5dv_mkey *>(dummy)),
			     ENOSYS);
	CU_ASSERT_ENOSYS_INT(g->dv_mkey_check(reinterpret_cast<struct mlx5dv_mkey *>(dummy), &mkerr,
					      sizeof(mkerr)),
			     ENOSYS);
	/* the dummy objects are untouched */
	for (size_t i = 0; i < sizeof(dummy); i++)
		if (dummy[i] != 0) {
			CU_FAIL("dummy object written");
			break;
		}
}

void child_find(void)
{
	const struct mlx5_glue *glue = NULL;
	struct ibv_device *dev = NULL;

	CU_ASSERT_EQUAL(mlx5_glue_find_device("mlx5_0", &glue, &dev), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("0000:08:00.0", &glue, &dev), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_find_device("", &glue, &dev), -EINVAL);
	CU_ASSERT_PTR_NULL(glue);
	CU_ASSERT_PTR_NULL(dev);
}

int child_main(bool loaded, const char *expect)
{
	static const struct cunit_test loaded_tests[] = {
		{"loaded", child_loaded},
	};
	static const struct cunit_test disabled_tests[] = {
		{"status", child_status},
		{"empty list", child_empty_list},
		{"entries fail", child_entries_fail},
		{"find", child_find},
	};

	child_expect = expect;
	if (loaded)
		return CUNIT_RUN_SUITE("rdma_core_loaded", loaded_tests);
	return CUNIT_RUN_SUITE("rdma_core_disabled", disabled_tests);
}

/* First use from many threads at once: one load, one answer. */
void *race_worker(void *arg)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	int n = -1;
	struct ibv_device **list = g->get_device_list(&n);

	*static_cast<const char **>(arg) = mlx5_glue_rdma_core_status();
	g->free_device_list(list);
	return reinterpret_cast<void *>(static_cast<intptr_t>(n));
}

void child_race(void)
{
	enum {
		N = 8
	};
	pthread_t th[N];
	const char *status[N] = {};
	void *ret;

	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, race_worker, &status[i]), 0);
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(pthread_join(th[i], &ret), 0);
		CU_ASSERT(reinterpret_cast<intptr_t>(ret) >= 0);
		CU_ASSERT_PTR_NOT_NULL(status[i]);
		if (status[i] != NULL)
			CU_ASSERT_STRING_EQUAL(status[i], status[0]);
	}
}

int run_race_child(void)
{
	static const struct cunit_test tests[] = {
		{"threads race to load", child_race},
	};

	return CUNIT_RUN_SUITE("rdma_core_first_use", tests);
}

void test_first_use_race(void)
{
	pid_t pid = fork();
	int status = 0;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		execl(self_exe, self_exe, "--race-child", (char *)NULL);
		_exit(127);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---------------------------------------------------------------- PCI lookup */

void check_parse(const char *s, uint32_t dom, uint8_t bus, uint8_t dev, uint8_t fn)
{
	struct mlx5_glue_pci_addr a = {};

	CU_ASSERT_EQUAL_FATAL(mlx5_glue_pci_parse(s, &a), 0);
	CU_ASSERT_EQUAL(a.domain, dom);
	CU_ASSERT_EQUAL(a.bus, bus);
	CU_ASSERT_EQUAL(a.devid, dev);
	CU_ASSERT_EQUAL(a.function, fn);
}

void test_pci_parse(void)
{
	static const char *const bad[] = {
		"",         "mlx5_0",          "sim0",
		"08:00",    "08.00.0",         "08:20.0",
		"08:00.8",  "0000:08:00.0x",   "0000:08:00.",
		"g0:00.0",  "0000:08:00:00.0", ":08:00.0",
		"008:00.0", "0000:08:000.0",   "123456789:08:00.0",
		" 08:00.0", "08:00.0 ",        "0000::00.0",
	};
	struct mlx5_glue_pci_addr a = {7, 7, 7, 7};

	check_parse("0000:08:00.0", 0, 8, 0, 0);
	check_parse("08:00.0", 0, 8, 0, 0);
	check_parse("0001:af:1f.7", 1, 0xaf, 0x1f, 7);
	check_parse("0001:AF:1F.7", 1, 0xaf, 0x1f, 7);
	check_parse("10000:3b:00.1", 0x10000, 0x3b, 0, 1);
	check_parse("8:0.1", 0, 8, 0, 1);
	for (const char *s : bad) {
		CU_ASSERT_EQUAL(mlx5_glue_pci_parse(s, &a), -EINVAL);
		if (mlx5_glue_pci_parse(s, &a) != -EINVAL)
			printf("\n    accepted: \"%s\"\n", s);
	}
	CU_ASSERT_EQUAL(mlx5_glue_pci_parse(NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_pci_parse("08:00.0", NULL), -EINVAL);
	/* nothing written on failure */
	CU_ASSERT(a.domain == 7 && a.bus == 7 && a.devid == 7 && a.function == 7);
}

/* A fake sysfs tree: two PCI functions and a software device. */
char fake_root[64];

const char *const fake_dirs[] = {
	"/devices",
	"/devices/pci0000:00",
	"/devices/pci0000:00/0000:08:00.0",
	"/devices/pci0000:00/0000:08:00.1",
	"/devices/virtual",
	"/devices/virtual/net",
	"/devices/virtual/net/eth0",
	"/class",
	"/class/infiniband",
	"/class/infiniband/mlx5_0",
	"/class/infiniband/mlx5_1",
	"/class/infiniband/rxe0",
};

const struct {
	const char *link, *target;
} fake_links[] = {
	{"/class/infiniband/mlx5_0/device", "../../../devices/pci0000:00/0000:08:00.0"},
	{"/class/infiniband/mlx5_1/device", "../../../devices/pci0000:00/0000:08:00.1"},
	{"/class/infiniband/rxe0/device", "../../../devices/virtual/net/eth0"},
};

int fake_sysfs_init(void)
{
	char path[256];

	snprintf(fake_root, sizeof(fake_root), "/tmp/glue_sysfs_XXXXXX");
	if (mkdtemp(fake_root) == NULL)
		return -1;
	for (const char *d : fake_dirs) {
		snprintf(path, sizeof(path), "%s%s", fake_root, d);
		if (mkdir(path, 0755) != 0)
			return -1;
	}
	for (const auto &l : fake_links) {
		snprintf(path, sizeof(path), "%s%s", fake_root, l.link);
		if (symlink(l.target, path) != 0)
			return -1;
	}
	return 0;
}

int fake_sysfs_clean(void)
{
	char path[256];

	unsetenv(MLX5_GLUE_ENV_SYSFS_ROOT);
	for (const auto &l : fake_links) {
		snprintf(path, sizeof(path), "%s%s", fake_root, l.link);
		unlink(path);
	}
	for (size_t i = sizeof(fake_dirs) / sizeof(fake_dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s%s", fake_root, fake_dirs[i]);
		rmdir(path);
	}
	return rmdir(fake_root) == 0 ? 0 : -1;
}

void test_sysfs_root(void)
{
	unsetenv(MLX5_GLUE_ENV_SYSFS_ROOT);
	CU_ASSERT_STRING_EQUAL(mlx5_glue_sysfs_root(), "/sys");
	setenv(MLX5_GLUE_ENV_SYSFS_ROOT, fake_root, 1);
	CU_ASSERT_STRING_EQUAL(mlx5_glue_sysfs_root(), fake_root);
	setenv(MLX5_GLUE_ENV_SYSFS_ROOT, "", 1);
	CU_ASSERT_STRING_EQUAL(mlx5_glue_sysfs_root(), "/sys");
	unsetenv(MLX5_GLUE_ENV_SYSFS_ROOT);
}

void test_ibdev_pci(void)
{
	struct mlx5_glue_pci_addr a, want;

	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "mlx5_0", &a), 0);
	mlx5_glue_pci_parse("08:00.0", &want);
	CU_ASSERT(mlx5_glue_pci_equal(&a, &want));
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "mlx5_1", &a), 0);
	CU_ASSERT(!mlx5_glue_pci_equal(&a, &want));
	mlx5_glue_pci_parse("0000:08:00.1", &want);
	CU_ASSERT(mlx5_glue_pci_equal(&a, &want));
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "rxe0", &a), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "mlx5_9", &a), -ENOENT);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "../mlx5_0", &a), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "..", &a), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, "", &a), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(fake_root, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(mlx5_glue_ibdev_pci(NULL, "mlx5_0", &a), -EINVAL);
}

/* A fake backend listing the fake tree's devices, to check matching and holding. */
struct ibv_device fake_devs[3];
int fake_lists_out;

struct ibv_device **fake_get_device_list(int *num)
{
	auto **list = static_cast<struct ibv_device **>(calloc(4, sizeof(struct ibv_device *)));

	if (list == NULL)
		return NULL;
	for (int i = 0; i < 3; i++)
		list[i] = &fake_devs[i];
	if (num)
		*num = 3;
	fake_lists_out++;
	return list;
}

void fake_free_device_list(struct ibv_device **list)
{
	fake_lists_out--;
	free(list);
}

const char *fake_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

void test_find_in_fake(void)
{
	struct mlx5_glue fake = {};
	struct ibv_device *dev = NULL, *dev2 = NULL;

	fake.name = "fake";
	fake.get_device_list = fake_get_device_list;
	fake.free_device_list = fake_free_device_list;
	fake.get_device_name = fake_get_device_name;
	snprintf(fake_devs[0].name, sizeof(fake_devs[0].name), "rxe0");
	snprintf(fake_devs[1].name, sizeof(fake_devs[1].name), "mlx5_0");
	snprintf(fake_devs[2].name, sizeof(fake_devs[2].name), "mlx5_1");
	setenv(MLX5_GLUE_ENV_SYSFS_ROOT, fake_root, 1);

	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "0000:08:00.1", &dev), 0);
	CU_ASSERT_PTR_EQUAL(dev, &fake_devs[2]);
	CU_ASSERT_EQUAL(fake_lists_out, 1); /* held */
	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "08:00.0", &dev2), 0);
	CU_ASSERT_PTR_EQUAL(dev2, &fake_devs[1]);
	CU_ASSERT_EQUAL(fake_lists_out, 2);
	mlx5_glue_put_device(&fake, dev);
	CU_ASSERT_EQUAL(fake_lists_out, 1);
	mlx5_glue_put_device(&fake, dev); /* twice: nothing more to release */
	CU_ASSERT_EQUAL(fake_lists_out, 1);
	mlx5_glue_put_device(&fake, dev2);
	CU_ASSERT_EQUAL(fake_lists_out, 0);

	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "mlx5_0", &dev), 0);
	CU_ASSERT_PTR_EQUAL(dev, &fake_devs[1]);
	mlx5_glue_put_device(&fake, dev);
	dev = NULL;
	/* absent function, absent name: the list is released at once */
	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "0000:09:00.0", &dev), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "0001:08:00.0", &dev), -ENODEV);
	CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "mlx5_2", &dev), -ENODEV);
	CU_ASSERT_PTR_NULL(dev);
	CU_ASSERT_EQUAL(fake_lists_out, 0);
	/* with the real root the fake names have no PCI link */
	unsetenv(MLX5_GLUE_ENV_SYSFS_ROOT);
	if (access("/sys/class/infiniband/mlx5_1", F_OK) != 0)
		CU_ASSERT_EQUAL(mlx5_glue_find_in(&fake, "0000:08:00.1", &dev), -ENODEV);
	CU_ASSERT_EQUAL(fake_lists_out, 0);
}

void test_find_device_fake_root(void)
{
	/* the override reaches the real lookup; the host's devices are not in the tree */
	setenv(MLX5_GLUE_ENV_SYSFS_ROOT, fake_root, 1);
	check_rc_find("0000:08:00.0");
	check_rc_find("08:00.1");
	unsetenv(MLX5_GLUE_ENV_SYSFS_ROOT);
}

/* ---------------------------------------------------------------- data in order */

void test_data_in_order_map(void)
{
	const uint32_t caps = MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS;
	const int both = MLX5_GLUE_QP_DATA_IN_ORDER_WHOLE_MSG |
			 MLX5_GLUE_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;

	CU_ASSERT_EQUAL(both, 3);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(0, 0), 0);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(1, 0), 1);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(0, caps), 0);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(1, caps), both);
	/* unknown bits, alone or with RETURN_CAPS (DEVICE_ONLY = 2 is unknown on v44) */
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(1, 2), 0);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(1, caps | 2), 0);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(1, 1u << 31), 0);
	CU_ASSERT_EQUAL(mlx5_glue_data_in_order_map(0, 0xffffffffu), 0);
}

/* ---------------------------------------------------------------- doorbell */

void test_sq_doorbell(void)
{
	const struct mlx5_glue *g = mlx5_glue_rdma_core();
	alignas(64) uint64_t reg[64] = {};
	const unsigned char ctrl[8] = {0x00, 0x00, 0x01, 0x08, 0x00, 0x12, 0x34, 0x04};
	uint64_t ctrl8;

	memcpy(&ctrl8, ctrl, sizeof(ctrl8));
	g->sq_doorbell(NULL, &reg[32], ctrl8);
	/* bytes land as in memory (no swap), one 8-byte cell, nothing else */
	CU_ASSERT_EQUAL(memcmp(&reg[32], ctrl, 8), 0);
	for (int i = 0; i < 64; i++)
		if (i != 32)
			CU_ASSERT_EQUAL(reg[i], 0);
	/* the other BlueFlame half */
	g->sq_doorbell(NULL, &reg[0], ~ctrl8);
	CU_ASSERT_EQUAL(reg[0], ~ctrl8);
	CU_ASSERT_EQUAL(memcmp(&reg[32], ctrl, 8), 0);
	g->sq_doorbell(NULL, NULL, ctrl8); /* no register: nothing stored, no crash */
}

/* ---------------------------------------------------------------- main */

} // namespace

int main(int argc, char **argv)
{
	static const struct cunit_test loading[] = {
		{"libraries not linked", test_not_linked}, /* first: before any load */
		{"table complete", test_table_complete},
		{"version and soname", test_version},
		{"loaded from MLX5_GLUE_PATH", test_loaded_from_path},
	};
	static const struct cunit_test devices[] = {
		{"device list", test_device_list},
		{"find rdma-core names", test_find_rdma_core},
		{"find bad arguments", test_find_bad_args},
		{"find sim", test_find_sim},
		{"find an added sim", test_find_sim_added},
		{"NULL arguments when loaded", test_null_args_loaded},
		{"verbs_context ops of inline verbs", test_verbs_context_ops},
	};
	static const struct cunit_test disabled[] = {
		{"no glue library", test_missing_glue},
		{"glue library without rdma-core", test_glue_needs_missing_library},
		{"version mismatch", test_glue_version_mismatch},
		{"no table symbol", test_glue_no_symbol},
		{"incomplete table", test_glue_incomplete},
		{"search order", test_search_order},
		{"next to the shared seam", test_seam_dir},
		{"first use from many threads", test_first_use_race},
	};
	static const struct cunit_test pci[] = {
		{"parse", test_pci_parse},
		{"sysfs root override", test_sysfs_root},
		{"ibdev to PCI", test_ibdev_pci},
		{"find in a fake backend", test_find_in_fake},
		{"find_device with the fake root", test_find_device_fake_root},
	};
	static const struct cunit_test misc[] = {
		{"data-in-order flag emulation", test_data_in_order_map},
		{"sq doorbell store", test_sq_doorbell},
	};
	self_exe = "/proc/self/exe"; /* argv[0] may be relative to another cwd */
	if (argc == 3 && strcmp(argv[1], "--disabled-child") == 0)
		return child_main(false, argv[2]);
	if (argc == 3 && strcmp(argv[1], "--loaded-child") == 0)
		return child_main(true, argv[2]);
	if (argc == 2 && strcmp(argv[1], "--race-child") == 0)
		return run_race_child();
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("rdma_core_loading", loading),
		CUNIT_SUITE("device_lookup", devices),
		CUNIT_SUITE("rdma_core_fresh_process", disabled),
		CUNIT_SUITE_INIT("pci_lookup", pci, fake_sysfs_init, fake_sysfs_clean),
		CUNIT_SUITE("data_in_order_and_doorbell", misc),
	};

	return CUNIT_RUN_SUITES(suites);
}
