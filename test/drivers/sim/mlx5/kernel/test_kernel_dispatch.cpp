/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The kernel side's command channel, byte by byte: this binary links the kernel
 * side in (its libc entry points are this program's), opens
 * /dev/infiniband/uverbs0 and sends hand-made RDMA_VERBS_IOCTLs. Every refusal
 * must carry the kernel's errno and change nothing; the accepted commands answer
 * as mlx5_ib does. MLX5_SIM_RDMA_DEVICES=1 comes from meson test.
 */
#include <dirent.h>
#include <dlfcn.h>
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
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <infiniband/verbs.h>

#include "cunit_run.h"
#include "kside.h"
#include "kside_test_util.h"
#include "mlx5_abi.h"
#include "uverbs_abi.h"

using namespace mlx5sim::kernel;
using namespace kside_test;

namespace {
/* ---- tests -------------------------------------------------------------------------- */

void test_node_and_fd()
{
	struct stat st;
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(stat("/dev/infiniband/uverbs0", &st), 0);
	CU_ASSERT_TRUE(S_ISCHR(st.st_mode));
	CU_ASSERT_EQUAL(st.st_rdev, makedev(231, 192));
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT_TRUE(S_ISCHR(st.st_mode));
	CU_ASSERT_EQUAL(st.st_rdev, makedev(231, 192));
	/* only the configured devices exist */
	errno = 0;
	CU_ASSERT_EQUAL(open("/dev/infiniband/uverbs1", O_RDWR), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	/* RDMA netlink is not there: libibverbs reads the sysfs tree */
	errno = 0;
	CU_ASSERT_EQUAL(socket(AF_NETLINK, SOCK_RAW, 20), -1);
	CU_ASSERT_EQUAL(errno, EPROTONOSUPPORT);
	/* the command fd is not read or written */
	char b[16];
	CU_ASSERT_EQUAL(read(fd, b, sizeof(b)), -1);
	CU_ASSERT_EQUAL(write(fd, b, sizeof(b)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(close(fd), 0);
}

/*
 * glibc's pre-2.33 stat names: what a program built against an older glibc calls,
 * and what ThreadSanitizer's fstat interceptor goes on to. Looked up at run time, as
 * the dynamic linker binds them for such a program (the preloaded definition first).
 */
void test_compat_stat_names()
{
	typedef int (*fxstat_fn)(int, int, struct stat *);
	typedef int (*xstat_fn)(int, const char *, struct stat *);
	typedef int (*fxstatat_fn)(int, int, const char *, struct stat *, int);
	const int ver = 1; /* _STAT_VER_LINUX: the struct stat of this glibc */
	auto fx = reinterpret_cast<fxstat_fn>(dlsym(RTLD_DEFAULT, "__fxstat"));
	auto fx64 = reinterpret_cast<fxstat_fn>(dlsym(RTLD_DEFAULT, "__fxstat64"));
	auto x = reinterpret_cast<xstat_fn>(dlsym(RTLD_DEFAULT, "__xstat"));
	auto lx = reinterpret_cast<xstat_fn>(dlsym(RTLD_DEFAULT, "__lxstat64"));
	auto fxat = reinterpret_cast<fxstatat_fn>(dlsym(RTLD_DEFAULT, "__fxstatat"));
	CU_ASSERT_FATAL(fx && fx64 && x && lx && fxat);
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	struct stat st;
	for (fxstat_fn f : {fx, fx64}) {
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(f(ver, fd, &st), 0);
		CU_ASSERT_TRUE(S_ISCHR(st.st_mode));
		CU_ASSERT_EQUAL(st.st_rdev, makedev(231, 192));
	}
	for (xstat_fn f : {x, lx}) {
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(f(ver, "/dev/infiniband/uverbs0", &st), 0);
		CU_ASSERT_EQUAL(st.st_rdev, makedev(231, 192));
	}
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(fxat(ver, AT_FDCWD, "/dev/infiniband/uverbs0", &st, 0), 0);
	CU_ASSERT_EQUAL(st.st_rdev, makedev(231, 192));
	/* anything else is libc's: a pipe is a FIFO, a missing path ENOENT */
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	CU_ASSERT_EQUAL(fx(ver, p[0], &st), 0);
	CU_ASSERT_TRUE(S_ISFIFO(st.st_mode));
	errno = 0;
	CU_ASSERT_EQUAL(x(ver, "/dev/infiniband/no-such-node", &st), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	close(p[0]);
	close(p[1]);
	CU_ASSERT_EQUAL(close(fd), 0);
}

/*
 * Every stat name and opendir() serve /sys/class/infiniband from $SYSFS_PATH (a tree
 * of this test's own; the machine has no such directory): the device's directory is
 * found through each, and a missing one is ENOENT as libc says.
 */
void test_sysfs_stat_names()
{
	char root[] = "/tmp/ksysfs-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	std::string cls = std::string(root) + "/class", ib = cls + "/infiniband",
		    dev = ib + "/mlx5_0";
	CU_ASSERT_FATAL(mkdir(cls.c_str(), 0700) == 0 && mkdir(ib.c_str(), 0700) == 0 &&
			mkdir(dev.c_str(), 0700) == 0);
	CU_ASSERT_EQUAL_FATAL(setenv("SYSFS_PATH", root, 1), 0);

	typedef int (*xstat_fn)(int, const char *, struct stat *);
	typedef int (*xstat64_fn)(int, const char *, struct stat64 *);
	typedef int (*fxstatat_fn)(int, int, const char *, struct stat *, int);
	typedef int (*fxstatat64_fn)(int, int, const char *, struct stat64 *, int);
	const int ver = 1; /* _STAT_VER_LINUX */
	const char *dir = "/sys/class/infiniband/mlx5_0";
	const char *none = "/sys/class/infiniband/mlx5_99";
	auto x = reinterpret_cast<xstat_fn>(dlsym(RTLD_DEFAULT, "__xstat"));
	auto lx = reinterpret_cast<xstat_fn>(dlsym(RTLD_DEFAULT, "__lxstat"));
	auto x64 = reinterpret_cast<xstat64_fn>(dlsym(RTLD_DEFAULT, "__xstat64"));
	auto lx64 = reinterpret_cast<xstat64_fn>(dlsym(RTLD_DEFAULT, "__lxstat64"));
	auto fxat = reinterpret_cast<fxstatat_fn>(dlsym(RTLD_DEFAULT, "__fxstatat"));
	auto fxat64 = reinterpret_cast<fxstatat64_fn>(dlsym(RTLD_DEFAULT, "__fxstatat64"));
	CU_ASSERT_FATAL(x && lx && x64 && lx64 && fxat && fxat64);
	struct stat st;
	struct stat64 st64;
	for (const char *p : {dir, none}) {
		bool ok = p == dir;
		int want = ok ? 0 : -1;
		int got[] = {stat(p, &st),
			     lstat(p, &st),
			     stat64(p, &st64),
			     lstat64(p, &st64),
			     fstatat(AT_FDCWD, p, &st, 0),
			     fstatat64(AT_FDCWD, p, &st64, AT_SYMLINK_NOFOLLOW),
			     x(ver, p, &st),
			     lx(ver, p, &st),
			     x64(ver, p, &st64),
			     lx64(ver, p, &st64),
			     fxat(ver, AT_FDCWD, p, &st, 0),
			     fxat64(ver, AT_FDCWD, p, &st64, 0)};
		for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
			if (got[i] != want)
				printf("\n    %s: call %zu gave %d ", p, i, got[i]);
			CU_ASSERT_EQUAL(got[i], want);
		}
		if (ok) {
			CU_ASSERT_TRUE(S_ISDIR(st.st_mode) && S_ISDIR(st64.st_mode));
		} else {
			CU_ASSERT_EQUAL(errno, ENOENT);
		}
		DIR *d = opendir(p);
		CU_ASSERT_EQUAL(d != nullptr, ok);
		if (d)
			closedir(d);
	}
	unsetenv("SYSFS_PATH");
	rmdir(dev.c_str());
	rmdir(ib.c_str());
	rmdir(cls.c_str());
	rmdir(root);
}

void test_header_refusals()
{
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t cmd = WCMD_QUERY_DEVICE;
	/* another ioctl request */
	Req r(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	r.in(A_WRITE_CMD, &cmd, 4);
	CU_ASSERT_EQUAL(ioctl(fd, 0x1234, r.buf.data()), -1);
	CU_ASSERT_EQUAL(errno, ENOTTY);
	/* length that does not match num_attrs */
	Req bad = r;
	bad.hdr()->length += 16;
	CU_ASSERT_EQUAL(bad.send(fd), EINVAL);
	bad = r;
	bad.hdr()->num_attrs = 0;
	CU_ASSERT_EQUAL(bad.send(fd), EINVAL);
	/* reserved fields */
	bad = r;
	bad.hdr()->reserved1 = 1;
	CU_ASSERT_EQUAL(bad.send(fd), EPROTONOSUPPORT);
	bad = r;
	bad.hdr()->reserved2 = 1;
	CU_ASSERT_EQUAL(bad.send(fd), EPROTONOSUPPORT);
	/* another driver's id */
	bad = r;
	bad.hdr()->driver_id = 4;
	CU_ASSERT_EQUAL(bad.send(fd), EINVAL);
	/* unknown object, unknown method */
	CU_ASSERT_EQUAL(Req(0x77, 0).send(fd), EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, 0x55).send(fd), EPROTONOSUPPORT);
	/* a header the process cannot read */
	CU_ASSERT_EQUAL(ioctl(fd, kRdmaVerbsIoctl, (void *)8), -1);
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* an attribute array longer than a page */
	Req big(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	for (int i = 0; i < 300; i++)
		big.add(0x900 + i, 0, 0, false);
	CU_ASSERT_EQUAL(big.send(fd), EINVAL);
	close(fd);
}

void test_attr_refusals()
{
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t cmd = WCMD_QUERY_DEVICE;
	/* the probe libibverbs sends at open: ENOSPC, so it keeps using ioctls */
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE).in(A_WRITE_CMD, &cmd, 4).send(fd),
			ENOSPC);
	/* an unknown mandatory attribute; an unknown optional one is ignored */
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, &cmd, 4)
				.add(0x77, 0, 0, true)
				.send(fd),
			EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, &cmd, 4)
				.add(0x77, 0, 0, false)
				.send(fd),
			ENOSPC);
	/* the same attribute twice */
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, &cmd, 4)
				.in(A_WRITE_CMD, &cmd, 4)
				.send(fd),
			EINVAL);
	/* a mandatory attribute missing */
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE).send(fd), EINVAL);
	/* an input longer than the spec with non-zero excess; with zero excess it passes */
	uint64_t long_cmd[2] = {WCMD_QUERY_DEVICE, 1};
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, long_cmd, sizeof(long_cmd))
				.send(fd),
			EOPNOTSUPP);
	long_cmd[1] = 0;
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
				.in(A_WRITE_CMD, long_cmd, sizeof(long_cmd))
				.send(fd),
			ENOSPC);
	/* a handle attribute with a length */
	CU_ASSERT_EQUAL(Req(OBJ_PD, M_PD_DESTROY).add(A_DESTROY_HANDLE, 4, 1).send(fd), EINVAL);
	/* methods needing the context, before GET_CONTEXT */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, 1), EINVAL);
	uint64_t port = 1;
	QueryPortRespEx pr;
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_PORT)
				.in(A_QUERY_PORT_NUM, &port, 8)
				.out(A_QUERY_PORT_RESP, &pr, sizeof(pr))
				.send(fd),
			EINVAL);
	/* an output buffer shorter than the smallest answer */
	Mlx5AllocUcontextResp resp;
	CU_ASSERT_EQUAL(get_context(fd, &resp), 0);
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_PORT)
				.in(A_QUERY_PORT_NUM, &port, 8)
				.out(A_QUERY_PORT_RESP, &pr, 8)
				.send(fd),
			EINVAL);
	/* a legacy command nobody serves yet */
	uint32_t create_cq = 18;
	CU_ASSERT_EQUAL(
		Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE).in(A_WRITE_CMD, &create_cq, 4).send(fd),
		EOPNOTSUPP);
	close(fd);
}

void test_get_context()
{
	Mlx5AllocUcontextResp resp;
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	/* what libmlx5 44 cannot do without: refused with the kernel's errnos */
	CU_ASSERT_EQUAL(get_context(fd, &resp, 3, 1), EOPNOTSUPP); /* comp_mask */
	CU_ASSERT_EQUAL(get_context(fd, &resp, 0), EOPNOTSUPP);    /* static UARs */
	CU_ASSERT_EQUAL(get_context(fd, &resp, 3, 0, 8), EINVAL);  /* request too short */
	/* a failed GET_CONTEXT leaves none behind: the next one works */
	memset(&resp, 0xee, sizeof(resp));
	CU_ASSERT_EQUAL_FATAL(get_context(fd, &resp), 0);
	CU_ASSERT_EQUAL(resp.response_length, sizeof(resp));
	CU_ASSERT_EQUAL(resp.cqe_version, 1);
	CU_ASSERT_EQUAL(resp.tot_bfregs, 0);
	CU_ASSERT_EQUAL(resp.bf_reg_size, 0);
	CU_ASSERT_EQUAL(resp.cache_line_size, 64);
	CU_ASSERT_EQUAL(resp.num_ports, 1);
	CU_ASSERT_EQUAL(resp.cmds_supp_uhw & kCmdsSuppUhwQueryDevice, kCmdsSuppUhwQueryDevice);
	CU_ASSERT_EQUAL(resp.log_uar_size, 12);
	/* one context per fd */
	CU_ASSERT_EQUAL(get_context(fd, &resp), EINVAL);
	close(fd);
}

void test_pd_mr()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pd2, pdn;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd, &pdn), 0);
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd2), 0);
	CU_ASSERT_NOT_EQUAL(pd, pd2);
	std::vector<uint8_t> buf(1 << 16);
	RegMrResp mr = {};
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, buf.data(), buf.size(), 1, &mr), 0);
	CU_ASSERT_EQUAL(mr.lkey, mr.rkey);
	/* a PD handle that is no PD (an MR's), or none at all */
	RegMrResp x;
	CU_ASSERT_EQUAL(reg_mr(fd, mr.mr_handle, buf.data(), 64, 1, &x), EINVAL);
	CU_ASSERT_EQUAL(reg_mr(fd, 999, buf.data(), 64, 1, &x), EINVAL);
	/* destroying: unknown handle ENOENT, wrong type EINVAL, PD in use EBUSY */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, 999), ENOENT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, pd), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), EBUSY);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), ENOENT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	/* the legacy DEALLOC_PD as well */
	DeallocPdCmd d = {pd2};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_DEALLOC_PD, &d, sizeof(d), nullptr, 0), 0);
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_DEALLOC_PD, &d, sizeof(d), nullptr, 0), ENOENT);
	close(fd);
}

void test_mr_outside_process()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *area = (uint8_t *)mmap(nullptr, 2 * pg, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(area != MAP_FAILED);
	CU_ASSERT_EQUAL(munmap(area + pg, pg), 0);
	RegMrResp mr;
	/* memory the process does not have: the page after, a kernel address, 0 */
	CU_ASSERT_EQUAL(reg_mr(fd, pd, area, 2 * pg, 1, &mr), EFAULT);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, (void *)0xffff800000000000ull, pg, 1, &mr), EFAULT);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, (void *)0x1000, pg, 1, &mr), EFAULT);
	/* the range wraps */
	RegMrCmd wrap = {
		0, (uint64_t)(uintptr_t)area, UINT64_MAX - 8, (uint64_t)(uintptr_t)area, pd, 1};
	CU_ASSERT_NOT_EQUAL(invoke_write(fd, WCMD_REG_MR, &wrap, sizeof(wrap), &mr, sizeof(mr)), 0);
	/* iova not the address, bad access flags, zero length */
	RegMrCmd iova = {0, (uint64_t)(uintptr_t)area, (uint64_t)pg, 0x10000, pd, 1};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &iova, sizeof(iova), &mr, sizeof(mr)),
			EOPNOTSUPP);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, area, pg, 1u << 15, &mr), EINVAL);
	CU_ASSERT_EQUAL(reg_mr(fd, pd, area, 0, 1, &mr), EINVAL);
	/* the response buffer the process lacks: the MR is undone, the PD can go */
	RegMrCmd ok = {0, (uint64_t)(uintptr_t)area, (uint64_t)pg, (uint64_t)(uintptr_t)area, pd,
		       1};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REG_MR, &ok, sizeof(ok), area + pg, sizeof(mr)),
			EFAULT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	munmap(area, pg);
	close(fd);
}

/* REREG_MR command @p f on @p mr; 0 or the errno, the keys in *r. */
int rereg(int fd, uint32_t mr, uint32_t f, const void *addr, uint64_t len, uint32_t pd,
	  uint32_t access, ReregMrResp *r, uint64_t iova = 0)
{
	ReregMrCmd c = {0,   mr,
			f,   (uint64_t)(uintptr_t)addr,
			len, iova ? iova : (uint64_t)(uintptr_t)addr,
			pd,  access};
	return invoke_write(fd, WCMD_REREG_MR, &c, sizeof(c), r, sizeof(*r));
}

/*
 * REREG_MR: the keys stay; the kernel's EINVAL for flags, ranges, access and PDs,
 * ENOENT for no object, EFAULT for memory the process lacks, EOPNOTSUPP for an
 * iova that is not the address and for ODP; a refusal changes nothing (the PD the
 * MR is on stays busy, the other one free).
 */
void test_rereg_mr()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pd2;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd2), 0);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *area = (uint8_t *)mmap(nullptr, 4 * pg, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(area != MAP_FAILED);
	CU_ASSERT_EQUAL(munmap(area + 3 * pg, pg), 0);
	RegMrResp mr;
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, area, pg, 1, &mr), 0);
	const uint32_t T = IBV_REREG_MR_CHANGE_TRANSLATION, P = IBV_REREG_MR_CHANGE_PD,
		       A = IBV_REREG_MR_CHANGE_ACCESS;
	ReregMrResp r = {};
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, 0, area, pg, pd, 1, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, 8, area, pg, pd, 1, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, area, 0, pd, 1, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, nullptr, pg, pd, 1, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, area, pg, pd, 1, &r, 0x10010), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, area, pg, pd, 1, &r, 0x10000), EOPNOTSUPP);
	CU_ASSERT_EQUAL(rereg(fd, 999, A, area, pg, pd, 1, &r), ENOENT);
	CU_ASSERT_EQUAL(rereg(fd, pd, A, area, pg, pd, 1, &r), EINVAL); /* a PD, no MR */
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, A, area, pg, pd, IBV_ACCESS_REMOTE_WRITE, &r),
			EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, A, area, pg, pd, 1u << 15, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, A, area, pg, pd, 1 | IBV_ACCESS_ON_DEMAND, &r),
			EOPNOTSUPP);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, P, area, pg, 999, 1, &r), EINVAL);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, P, area, pg, mr.mr_handle, 1, &r), EINVAL);
	/* memory the process lacks, or read-only memory for a writable MR */
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, area, 4 * pg, pd, 1, &r), EFAULT);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, (void *)0x1000, pg, pd, 1, &r), EFAULT);
	CU_ASSERT_EQUAL(mprotect(area + 2 * pg, pg, PROT_READ), 0);
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T, area + 2 * pg, pg, pd, 1, &r), EFAULT);
	/* a read-only MR fits there */
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T | A, area + 2 * pg, pg, pd, 0, &r), 0);
	/* nothing changed: pd2 is free, pd busy */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), EBUSY);
	/* every change at once, keys kept */
	CU_ASSERT_EQUAL(rereg(fd, mr.mr_handle, T | P | A, area + pg, pg, pd2,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &r),
			0);
	CU_ASSERT_EQUAL(r.lkey, mr.lkey);
	CU_ASSERT_EQUAL(r.rkey, mr.rkey);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd2), EBUSY);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	/* a response the process lacks: EFAULT after the change, as the kernel's */
	ReregMrCmd c = {0, mr.mr_handle, A, 0, 0, 0, 0, IBV_ACCESS_LOCAL_WRITE};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_REREG_MR, &c, sizeof(c), area + 3 * pg, sizeof(r)),
			EFAULT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MR, M_MR_DESTROY, A_DESTROY_HANDLE, mr.mr_handle), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd2), 0);
	munmap(area, 3 * pg);
	close(fd);
}

/* ADVISE_MR of @p n SGEs at @p sges (length @p bytes if given); 0 or the errno. */
int advise(int fd, uint32_t pd, uint32_t advice, uint32_t flags, const void *sges, uint16_t bytes)
{
	return Req(OBJ_MR, M_MR_ADVISE)
		.add(A_ADVISE_MR_PD, 0, pd)
		.in(A_ADVISE_MR_ADVICE, &advice, 4)
		.in(A_ADVISE_MR_FLAGS, &flags, 4)
		.add(A_ADVISE_MR_SGE_LIST, bytes, (uint64_t)(uintptr_t)sges)
		.send(fd);
}

/*
 * ADVISE_MR: each SGE inside an on-demand MR of the PD (ENOENT otherwise, as
 * mlx5's get_prefetchable_mr); advice and flags beyond the three prefetches and
 * FLUSH EOPNOTSUPP; a list that is no whole number of SGEs EINVAL, or not the
 * process's EFAULT; a synchronous prefetch of pages the process lacks EFAULT.
 */
void test_advise_mr()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pd2;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd2), 0);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *area = (uint8_t *)mmap(nullptr, 3 * pg, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(area != MAP_FAILED);
	CU_ASSERT_EQUAL(munmap(area + 2 * pg, pg), 0);
	RegMrResp odp, plain, ro;
	const uint32_t lw = IBV_ACCESS_LOCAL_WRITE;
	/* on-demand over a page the process lacks is fine until it is touched */
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, area, 3 * pg, lw | IBV_ACCESS_ON_DEMAND, &odp), 0);
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, area, pg, lw, &plain), 0);
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, area, pg, IBV_ACCESS_ON_DEMAND, &ro), 0);
	UverbsSge sg[2] = {{(uint64_t)(uintptr_t)area, (uint32_t)pg, odp.lkey},
			   {(uint64_t)(uintptr_t)area + 64, 64, odp.lkey}};
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, sg, sizeof(sg)), 0);
	CU_ASSERT_EQUAL(advise(fd, pd, 1, kAdviseMrFlagFlush, sg, sizeof(sg)), 0);
	CU_ASSERT_EQUAL(advise(fd, pd, 2, kAdviseMrFlagFlush, sg, sizeof(sg)), 0);
	CU_ASSERT_EQUAL(advise(fd, pd, 3, 0, sg, sizeof(sg)), EOPNOTSUPP);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 2, sg, sizeof(sg)), EOPNOTSUPP);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, sg, 24), EINVAL);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, (void *)0x1000, sizeof(sg)), EFAULT);
	CU_ASSERT_EQUAL(advise(fd, pd2, 0, 0, sg, sizeof(sg)), ENOENT); /* another PD */
	CU_ASSERT_EQUAL(advise(fd, 999, 0, 0, sg, sizeof(sg)), ENOENT);
	CU_ASSERT_EQUAL(advise(fd, odp.mr_handle, 0, 0, sg, sizeof(sg)), EINVAL);
	UverbsSge bad = {(uint64_t)(uintptr_t)area + 3 * pg - 8, 16, odp.lkey}; /* past it */
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, &bad, sizeof(bad)), ENOENT);
	bad = {(uint64_t)(uintptr_t)area, 64, plain.lkey}; /* not on-demand */
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, &bad, sizeof(bad)), ENOENT);
	bad = {(uint64_t)(uintptr_t)area, 64, ro.lkey}; /* PREFETCH_WRITE of a read-only MR */
	CU_ASSERT_EQUAL(advise(fd, pd, 1, 0, &bad, sizeof(bad)), ENOENT);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, &bad, sizeof(bad)), 0);
	bad = {(uint64_t)(uintptr_t)area, 64, 0xdead00};
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, &bad, sizeof(bad)), ENOENT);
	/* the page the process lacks: only a synchronous prefetch faults */
	bad = {(uint64_t)(uintptr_t)area + 2 * pg, 64, odp.lkey};
	CU_ASSERT_EQUAL(advise(fd, pd, 0, 0, &bad, sizeof(bad)), 0);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, kAdviseMrFlagFlush, &bad, sizeof(bad)), EFAULT);
	CU_ASSERT_EQUAL(advise(fd, pd, 2, kAdviseMrFlagFlush, &bad, sizeof(bad)), 0);
	munmap(area, 2 * pg);
	close(fd);
}

/*
 * A synchronous prefetch (FLUSH) touches every page of its SGEs, up to 4 GiB each:
 * it does so without the context's lock, so the fd's other commands are not held
 * up behind it (they used to wait for the whole probe). 1 GiB of read-only zero
 * pages, then ALLOC_PD from a second thread while the probe runs; also the
 * kernel's order: an SGE that names no MR after one that faults is EFAULT.
 */
void test_advise_mr_unlocked()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pd2;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	const uint64_t len = 1ull << 30;
	uint8_t *area = (uint8_t *)mmap(nullptr, len, PROT_READ,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CU_ASSERT_FATAL(area != MAP_FAILED);
	RegMrResp odp;
	CU_ASSERT_EQUAL_FATAL(reg_mr(fd, pd, area, len, IBV_ACCESS_ON_DEMAND, &odp), 0);
	UverbsSge sg = {(uint64_t)(uintptr_t)area, (uint32_t)len, odp.lkey};
	using clock = std::chrono::steady_clock;
	std::atomic<bool> started{false};
	clock::time_point advise_done, pd_done, t0 = clock::now();
	int advise_ret = -1;
	std::thread t([&] {
		started = true;
		advise_ret = advise(fd, pd, 0, kAdviseMrFlagFlush, &sg, sizeof(sg));
		advise_done = clock::now();
	});
	while (!started)
		std::this_thread::yield();
	std::this_thread::sleep_for(std::chrono::milliseconds(5)); /* the probe runs */
	CU_ASSERT_EQUAL(alloc_pd(fd, &pd2), 0);
	pd_done = clock::now();
	t.join();
	CU_ASSERT_EQUAL(advise_ret, 0);
	double probe_ms = std::chrono::duration<double, std::milli>(advise_done - t0).count();
	double pd_ms = std::chrono::duration<double, std::milli>(pd_done - t0).count();
	printf("(probe %.1f ms, ALLOC_PD done at %.1f ms) ", probe_ms, pd_ms);
	/* a probe this short proves nothing: the machine is too fast for 1 GiB */
	if (probe_ms > 50)
		CU_ASSERT(pd_done < advise_done);
	/* SGE order: the faulting one first, then one of no MR */
	UverbsSge two[2] = {{(uint64_t)(uintptr_t)area + len - 4096, 8192, odp.lkey},
			    {(uint64_t)(uintptr_t)area, 64, 0xdead00}};
	CU_ASSERT_EQUAL(munmap(area + len - 4096, 4096), 0);
	two[0].length = 4096;
	CU_ASSERT_EQUAL(advise(fd, pd, 0, kAdviseMrFlagFlush, two, sizeof(two)), EFAULT);
	std::swap(two[0], two[1]);
	CU_ASSERT_EQUAL(advise(fd, pd, 0, kAdviseMrFlagFlush, two, sizeof(two)), ENOENT);
	two[0] = {(uint64_t)(uintptr_t)area, 64, odp.lkey}; /* fine, then none */
	two[1] = {(uint64_t)(uintptr_t)area, 64, 0xdead00};
	CU_ASSERT_EQUAL(advise(fd, pd, 0, kAdviseMrFlagFlush, two, sizeof(two)), ENOENT);
	munmap(area, len - 4096);
	close(fd);
}

void test_queries()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	/* QUERY_DEVICE (legacy), EX_QUERY_DEVICE with and without driver data */
	CmdResponsePtr rp = {0};
	QueryDeviceResp qd;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_DEVICE, &rp, sizeof(rp), &qd, sizeof(qd)), 0);
	CU_ASSERT_EQUAL(qd.vendor_part_id, 0x1021u);
	CU_ASSERT_EQUAL(qd.phys_port_cnt, 1);
	ExQueryDevice ex = {};
	ExQueryDeviceResp exr;
	Mlx5QueryDeviceResp m;
	memset(&m, 0xee, sizeof(m));
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_EX_QUERY_DEVICE, &ex, sizeof(ex), &exr, sizeof(exr),
				     &m, sizeof(m)),
			0);
	CU_ASSERT_EQUAL(exr.response_length, sizeof(exr));
	CU_ASSERT_EQUAL(m.response_length, sizeof(m));
	CU_ASSERT_EQUAL(m.dci_max_log_num_concurent, 4);
	/* a shorter response: response_length says how much */
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_EX_QUERY_DEVICE, &ex, sizeof(ex), &exr, 184), 0);
	CU_ASSERT_EQUAL(exr.response_length, 184u);
	ex.comp_mask = 1;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_EX_QUERY_DEVICE, &ex, sizeof(ex), &exr, sizeof(exr)),
			EINVAL);
	/* QUERY_PORT: port 1 only */
	uint64_t port = 1;
	QueryPortRespEx pr;
	memset(&pr, 0xee, sizeof(pr));
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_PORT)
				.in(A_QUERY_PORT_NUM, &port, 8)
				.out(A_QUERY_PORT_RESP, &pr, sizeof(pr))
				.send(fd),
			0);
	CU_ASSERT_EQUAL(pr.legacy.state, 4);
	CU_ASSERT_EQUAL(pr.legacy.link_layer, 1);
	CU_ASSERT_EQUAL(pr.port_cap_flags2, 0); /* zeroed past what was filled */
	port = 2;
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_PORT)
				.in(A_QUERY_PORT_NUM, &port, 8)
				.out(A_QUERY_PORT_RESP, &pr, sizeof(pr))
				.send(fd),
			EINVAL);
	/* GID table: one entry; a buffer for none is too small */
	uint64_t esz = sizeof(GidEntry), n = 0;
	GidEntry tbl[2];
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_GID_TABLE)
				.in(A_GID_TABLE_ENTRY_SIZE, &esz, 8)
				.out(A_GID_TABLE_RESP_ENTRIES, tbl, sizeof(tbl))
				.out(A_GID_TABLE_RESP_NUM_ENTRIES, &n, 8)
				.send(fd),
			0);
	CU_ASSERT_EQUAL(n, 1u);
	CU_ASSERT_EQUAL(be64toh(tbl[0].gid[0]), 0xfe80000000000000ull);
	CU_ASSERT_EQUAL(Req(OBJ_DEVICE, M_DEVICE_QUERY_GID_TABLE)
				.in(A_GID_TABLE_ENTRY_SIZE, &esz, 8)
				.out(A_GID_TABLE_RESP_ENTRIES, tbl, 16)
				.out(A_GID_TABLE_RESP_NUM_ENTRIES, &n, 8)
				.send(fd),
			EINVAL);
	close(fd);
}

void test_devx()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t in[16] = {}, out[kPrmQueryHcaCapOut];
	prm_set(in, kPrmInOpcode, kPrmOpQueryHcaCap);
	prm_set(in, kPrmInOpMod, kCapGeneral);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			0);
	const uint8_t *cap = out + kPrmCapOffset;
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::has_hca_cap_2), 1u);
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::dma_mmo_qp), 1u);
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::log_dma_mmo_max_size), 31u);
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::sho), 1u);
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::cqe_version), 1u);
	/* RTS2RTS with qpc_ext (mlx5dv_dci_stream_id_reset) is served */
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::qpc_extension), 1u);
	/* RESIZE_CQ is served */
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap::cq_resize), 1u);
	CU_ASSERT_EQUAL(out[kPrmCapOffset + 0x400 / 8 + 2] & 0x10, 0x10); /* obj type 0x2c */
	prm_set(in, kPrmInOpMod, kCapGeneral2);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			0);
	CU_ASSERT_EQUAL(prm_get(cap, hca_cap_2::log_reserved_qpn_granularity), 4u);
	/* the page of a feature the model lacks (device memory): every bit 0 */
	prm_set(in, kPrmInOpMod, kCapDevMem);
	memset(out, 0xa5, sizeof(out));
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			0);
	size_t nonzero = 0;
	for (size_t i = 0; i < sizeof(out); i++)
		nonzero += out[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0u);
	/* a capability type no device has: EREMOTEIO, status BAD_PARAM in the box */
	prm_set(in, kPrmInOpMod, 0x7d);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadParam);
	/* an output box too small for the capability */
	prm_set(in, kPrmInOpMod, kCapGeneral);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, 64)
				.send(fd),
			EREMOTEIO);
	/* a PRM command outside the general ones; an input box too short */
	prm_set(in, kPrmInOpcode, 0x200);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, sizeof(in))
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EINVAL);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, in, 8)
				.out(A_DEVX_CMD_OUT, out, sizeof(out))
				.send(fd),
			EINVAL);
	close(fd);
}

void test_uar_mmap()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint64_t type = kUarTypeNc, off = 0;
	uint32_t len = 0, page_id = 99;
	Req r(OBJ_MLX5_UAR, M_UAR_ALLOC);
	r.add(A_UAR_HANDLE, 0, 0)
		.in(A_UAR_TYPE, &type, 8)
		.out(A_UAR_MMAP_OFFSET, &off, 8)
		.out(A_UAR_MMAP_LENGTH, &len, 4)
		.out(A_UAR_PAGE_ID, &page_id, 4);
	CU_ASSERT_EQUAL_FATAL(r.send(fd), 0);
	uint32_t handle = (uint32_t)r.attr(0)->data;
	CU_ASSERT_NOT_EQUAL(handle, 0u);
	CU_ASSERT_EQUAL(off, 0x900000u); /* the first dynamic mmap entry, as on Linux */
	CU_ASSERT_EQUAL(len, 4096u);
	CU_ASSERT_EQUAL(page_id, 0u);
	CU_ASSERT_TRUE(r.attr(2)->flags & kAttrValidOutput);
	/* the UAR page is real memory */
	volatile uint64_t *uar = (volatile uint64_t *)mmap(nullptr, len, PROT_WRITE, MAP_SHARED, fd,
							   (off_t)off);
	CU_ASSERT_FATAL(uar != MAP_FAILED);
	uar[0x800 / 8] = 0x1234;
	CU_ASSERT_EQUAL(munmap((void *)uar, len), 0);
	/* offsets that map nothing: another page, a clock page, a wrong length */
	errno = 0;
	CU_ASSERT_EQUAL(mmap(nullptr, len, PROT_WRITE, MAP_SHARED, fd, (off_t)off + 4096),
			MAP_FAILED);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0x500000), MAP_FAILED);
	CU_ASSERT_EQUAL(mmap(nullptr, 2 * len, PROT_WRITE, MAP_SHARED, fd, (off_t)off), MAP_FAILED);
	/* bad type; destroy twice */
	type = 7;
	Req bad(OBJ_MLX5_UAR, M_UAR_ALLOC);
	bad.add(A_UAR_HANDLE, 0, 0)
		.in(A_UAR_TYPE, &type, 8)
		.out(A_UAR_MMAP_OFFSET, &off, 8)
		.out(A_UAR_MMAP_LENGTH, &len, 4)
		.out(A_UAR_PAGE_ID, &page_id, 4);
	CU_ASSERT_EQUAL(bad.send(fd), EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_UAR, M_UAR_DESTROY, A_UAR_HANDLE, handle), 0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_UAR, M_UAR_DESTROY, A_UAR_HANDLE, handle), ENOENT);
	/* a destroyed UAR maps no more */
	CU_ASSERT_EQUAL(mmap(nullptr, 4096, PROT_WRITE, MAP_SHARED, fd, 0x900000), MAP_FAILED);
	close(fd);
}

void test_async_fd()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	Req r(OBJ_ASYNC_EVENT, M_ASYNC_EVENT_ALLOC);
	r.add(A_ASYNC_EVENT_FD, 0, 0);
	CU_ASSERT_EQUAL_FATAL(r.send(fd), 0);
	int afd = (int)r.attr(0)->data;
	CU_ASSERT_FATAL(afd > 2 && afd != fd);
	/* nothing queued: not readable; a short read buffer is refused first */
	struct pollfd p = {afd, POLLIN, 0};
	CU_ASSERT_EQUAL(poll(&p, 1, 0), 0);
	char b[16];
	CU_ASSERT_EQUAL(read(afd, b, 8), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(fcntl(afd, F_SETFL, O_NONBLOCK), 0);
	CU_ASSERT_EQUAL(read(afd, b, sizeof(b)), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(ioctl(afd, kRdmaVerbsIoctl, r.buf.data()), -1);
	CU_ASSERT_EQUAL(errno, ENOTTY);
	CU_ASSERT_EQUAL(close(afd), 0);
	close(fd);
}

void test_close_releases()
{
	/* objects left at close are destroyed, as the kernel does: max_pd PDs, many times */
	for (int round = 0; round < 3; round++) {
		int fd = ready_fd();
		CU_ASSERT_FATAL(fd >= 0);
		std::vector<uint8_t> buf(4096);
		uint32_t pd = 0, h;
		int n = 0;
		while (n < 2000 && alloc_pd(fd, &h) == 0) {
			pd = h;
			n++;
		}
		CU_ASSERT_EQUAL(n, 1024); /* the device's max_pd: then ENOMEM */
		RegMrResp mr;
		CU_ASSERT_EQUAL(reg_mr(fd, pd, buf.data(), buf.size(), 1, &mr), 0);
		CU_ASSERT_EQUAL(close(fd), 0);
	}
	/* an fd number of ours reused by another file is that file's */
	int fd = open_dev();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	int other = open("/dev/null", O_RDWR);
	CU_ASSERT_EQUAL(other, fd);
	struct stat st;
	CU_ASSERT_EQUAL(fstat(other, &st), 0);
	CU_ASSERT_EQUAL(st.st_rdev, makedev(1, 3));
	close(other);
}

/** DEVX_OBJ/MODIFY of object @p h: INIT2INIT of QP @p qpn, mmo, optional mask @p mask. */
int init2init(int fd, uint32_t h, uint32_t qpn, uint32_t mask, uint8_t *status)
{
	uint8_t in[kPrmInit2InitIn] = {}, out[16] = {};
	prm_set(in, kPrmInOpcode, kPrmOpInit2InitQp);
	prm_set(in, init2init::qpc_ext, 1);
	prm_set(in, init2init::qpn, qpn);
	prm_set(in, init2init::opt_mask_63_32, mask);
	prm_set(in, init2init::qpc_ext_mmo, 1);
	int ret = Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_MODIFY)
			  .add(A_DEVX_MODIFY_HANDLE, 0, h)
			  .in(A_DEVX_MODIFY_CMD_IN, in, sizeof(in))
			  .out(A_DEVX_MODIFY_CMD_OUT, out, sizeof(out))
			  .send(fd);
	if (status)
		*status = (uint8_t)prm_get(out, kPrmOutStatus);
	return ret;
}

/** DEVX_OBJ/CREATE of @p in: 0 or the errno; the new handle, the output box. */
int devx_create(int fd, const uint8_t *in, uint16_t inlen, uint8_t *out, uint16_t outlen,
		uint32_t *h)
{
	Req r(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_CREATE);
	r.add(A_DEVX_OBJ_HANDLE, 0, 0)
		.in(A_DEVX_OBJ_CMD_IN, in, inlen)
		.out(A_DEVX_OBJ_CMD_OUT, out, outlen);
	int ret = r.send(fd);
	*h = (uint32_t)r.attr(0)->data;
	return ret;
}

/** CREATE_MKEY as mlx5dv_create_mkey sends it: KLM, free, UMR, local read, PD @p pdn. */
void mkey_in(uint8_t *in, uint32_t pdn, uint32_t octowords, bool sig)
{
	using namespace create_mkey;
	memset(in, 0, kPrmCreateMkeyIn);
	prm_set(in, kPrmInOpcode, kPrmOpCreateMkey);
	prm_set(in, access_mode_1_0, kAccessModeKlms);
	prm_set(in, is_free, 1);
	prm_set(in, umr_en, 1);
	prm_set(in, lr, 1);
	prm_set(in, pd, pdn);
	prm_set(in, qpn, 0xffffff);
	prm_set(in, translations_octword_size, octowords);
	if (sig) {
		prm_set(in, bsf_en, 1);
		prm_set(in, bsf_octword_size, kSigBsfOctowords);
	}
}

void test_devx_objects()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	uint32_t pd, pdn, h, mkey, psv, rq;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd, &pdn), 0);
	uint8_t in[kPrmCreateMkeyIn + 16], out[64];
	/* an indirect signature mkey: its index comes back, the key is index << 8 */
	mkey_in(in, pdn, 4, true);
	CU_ASSERT_EQUAL_FATAL(devx_create(fd, in, kPrmCreateMkeyIn, out, 16, &mkey), 0);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), 0u);
	CU_ASSERT_NOT_EQUAL(prm_get(out, create_mkey::out_mkey_index), 0u);
	/* the PD is busy while the mkey lives */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), EBUSY);
	/* refusals, each the device's status in the box and EREMOTEIO, nothing created */
	struct {
		PrmField f;
		uint32_t v;
		uint8_t status;
	} bad[] = {
		{create_mkey::pd, 0x7777, kPrmStatusBadParam},         /* not the context's PD */
		{create_mkey::access_mode_1_0, 1, kPrmStatusBadParam}, /* MTT: REG_MR's */
		{create_mkey::is_free, 0, kPrmStatusBadParam},
		{create_mkey::umr_en, 0, kPrmStatusBadParam},
		{create_mkey::lr, 0, kPrmStatusBadParam},
		{create_mkey::a_rw_rr_lw, 2, kPrmStatusBadParam}, /* remote read at create */
		{create_mkey::qpn, 5, kPrmStatusBadParam},
		{create_mkey::mkey_7_0, 0x11, kPrmStatusBadParam},
		{create_mkey::bsf_octword_size, 2, kPrmStatusBadParam},
		{create_mkey::crypto_en, 1, kPrmStatusBadParam},
		{create_mkey::len_lo, 4096, kPrmStatusBadParam},
		{create_mkey::translations_octword_size, 1u << 20, kPrmStatusBadParam},
	};
	for (const auto &b : bad) {
		mkey_in(in, pdn, 4, true);
		prm_set(in, b.f, b.v);
		memset(out, 0, sizeof(out));
		CU_ASSERT_EQUAL(devx_create(fd, in, kPrmCreateMkeyIn, out, 16, &h), EREMOTEIO);
		CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), b.status);
	}
	/* a BSF size without bsf_en; initial KLM entries past the box; a short box */
	mkey_in(in, pdn, 4, false);
	prm_set(in, create_mkey::bsf_octword_size, 4);
	CU_ASSERT_EQUAL(devx_create(fd, in, kPrmCreateMkeyIn, out, 16, &h), EREMOTEIO);
	mkey_in(in, pdn, 4, false);
	memset(in + kPrmCreateMkeyIn, 0, 16);
	in[kPrmCreateMkeyIn + 3] = 1;
	CU_ASSERT_EQUAL(devx_create(fd, in, sizeof(in), out, 16, &h), EREMOTEIO);
	CU_ASSERT_EQUAL(devx_create(fd, in, 64, out, 16, &h), EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadInpLen);
	/* PSVs: one per command, on an own PD */
	uint8_t pin[kPrmCreatePsvIn] = {};
	prm_set(pin, kPrmInOpcode, kPrmOpCreatePsv);
	prm_set(pin, create_psv::pd, pdn);
	prm_set(pin, create_psv::num_psv, 2);
	CU_ASSERT_EQUAL(devx_create(fd, pin, sizeof(pin), out, 32, &h), EREMOTEIO);
	prm_set(pin, create_psv::num_psv, 1);
	CU_ASSERT_EQUAL(devx_create(fd, pin, sizeof(pin), out, 16, &h), EREMOTEIO); /* short out */
	CU_ASSERT_EQUAL_FATAL(devx_create(fd, pin, sizeof(pin), out, 32, &psv), 0);
	CU_ASSERT_NOT_EQUAL(prm_get(out, create_psv::out_psv0_index), 0u);
	/* a RESERVED_QPN block of 2^granularity QPNs */
	uint8_t gin[kPrmCreateReservedQpnIn] = {};
	prm_set(gin, kPrmInOpcode, kPrmOpCreateGeneralObject);
	prm_set(gin, general_obj::obj_type, hca_cap::kObjTypeReservedQpn);
	prm_set(gin, general_obj::log_obj_range, 4);
	CU_ASSERT_EQUAL_FATAL(devx_create(fd, gin, sizeof(gin), out, 16, &rq), 0);
	CU_ASSERT_EQUAL(prm_get(out, general_obj::out_obj_id) % 16, 0u);
	/* another general object type, another create command: BAD_OP; no command: EINVAL */
	prm_set(gin, general_obj::obj_type, 0x1d);
	CU_ASSERT_EQUAL(devx_create(fd, gin, sizeof(gin), out, 16, &h), EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadOp);
	prm_set(gin, kPrmInOpcode, 0x500); /* CREATE_QP */
	CU_ASSERT_EQUAL(devx_create(fd, gin, sizeof(gin), out, 16, &h), EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadOp);
	prm_set(gin, kPrmInOpcode, 0x123);
	CU_ASSERT_EQUAL(devx_create(fd, gin, sizeof(gin), out, 16, &h), EINVAL);
	/* a general command the device lacks: BAD_OP */
	uint8_t qin[16] = {};
	prm_set(qin, kPrmInOpcode, 0x10a); /* QUERY_ISSI */
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX, M_DEVX_OTHER)
				.in(A_DEVX_CMD_IN, qin, sizeof(qin))
				.out(A_DEVX_CMD_OUT, out, 16)
				.send(fd),
			EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadOp);
	/* QUERY on an mkey: no QUERY_MKEY in the device */
	uint8_t qo[kPrmQueryQpOut];
	prm_set(qin, kPrmInOpcode, 0x201);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_QUERY)
				.add(A_DEVX_OBJ_HANDLE, 0, mkey)
				.in(A_DEVX_OBJ_CMD_IN, qin, sizeof(qin))
				.out(A_DEVX_OBJ_CMD_OUT, qo, sizeof(qo))
				.send(fd),
			EREMOTEIO);
	/* destroy: a DevX object only; once */
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, A_DEVX_OBJ_HANDLE, pd),
			EINVAL);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, A_DEVX_OBJ_HANDLE, psv),
			0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, A_DEVX_OBJ_HANDLE, psv),
			ENOENT);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, A_DEVX_OBJ_HANDLE, rq),
			0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_DESTROY, A_DEVX_OBJ_HANDLE, mkey),
			0);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_PD, M_PD_DESTROY, A_DESTROY_HANDLE, pd), 0);
	/* objects left at close go with the file, before their PD */
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd, &pdn), 0);
	mkey_in(in, pdn, 8, false);
	CU_ASSERT_EQUAL(devx_create(fd, in, kPrmCreateMkeyIn, out, 16, &mkey), 0);
	prm_set(pin, create_psv::pd, pdn);
	CU_ASSERT_EQUAL(devx_create(fd, pin, sizeof(pin), out, 32, &psv), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
}

/* mlx5dv_create_qp's DCI (with streams): QP/CREATE of TYPE driver, flags TYPE_DCI */
void test_dci()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int efd = async_fd(fd);
	CU_ASSERT_FATAL(efd >= 0);
	uint32_t pd, cq, cqn, qp, h, qpn = 0;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 16 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 128);
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 16 * 4096);
	memset(db, 0, 128);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 63, &cq, &cqn), 0);
	Mlx5CreateQp q = {};
	q.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
	q.db_addr = (uint64_t)(uintptr_t)(db + 16);
	q.sq_wqe_count = 16;
	q.uidx = 2;
	q.flags = kQpFlagTypeDci | kQpFlagDciStream;
	q.dci_log_num_concurent = 2;
	q.dci_log_num_errored = 1;
	Mlx5CreateQp bad = q;
	bad.dci_log_num_concurent = 5; /* the device has 2^4 streams */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EINVAL);
	bad = q;
	bad.dci_log_num_errored = 4; /* the device tracks 2^3 errored streams */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EINVAL);
	bad = q;
	bad.flags = kQpFlagTypeDci; /* stream sizes without DCI_STREAM */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EINVAL);
	bad = q;
	bad.rq_wqe_count = 8; /* a DCI has no RQ */
	bad.rq_wqe_shift = 6;
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EINVAL);
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, q, kUverbsQptRc, &h), EOPNOTSUPP);
	bad = q;
	bad.flags = 0; /* TYPE driver without a DC role */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EOPNOTSUPP);
	bad.flags = kQpFlagTypeDct; /* a DCT without an SRQ (the kernel's create_dct) */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, bad, kUverbsQptDriver, &h), EINVAL);
	CU_ASSERT_EQUAL_FATAL(create_qp(fd, pd, cq, efd, q, kUverbsQptDriver, &qp, &qpn), 0);
	/* the DCI table of the state machine: RTR takes no destination */
	ModifyQpCmd m = {};
	m.qp_handle = qp;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), 0);
	m.attr_mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN;
	m.qp_state = IBV_QPS_RTR;
	m.path_mtu = IBV_MTU_4096;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), EINVAL);
	m.attr_mask = IBV_QP_STATE | IBV_QP_PATH_MTU;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), 0);
	m.attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	m.qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), 0);
	QueryQpCmd qq = {0, qp, IBV_QP_STATE};
	QueryQpResp qr;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_QP, &qq, sizeof(qq), &qr, sizeof(qr)), 0);
	CU_ASSERT_EQUAL(qr.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(destroy(fd, OBJ_QP, M_QP_DESTROY, A_DESTROY_HANDLE, qp), EINVAL);
	uint32_t events = 1;
	CU_ASSERT_EQUAL(Req(OBJ_QP, M_QP_DESTROY)
				.add(A_DESTROY_HANDLE, 0, qp)
				.out(A_DESTROY_RESP, &events, sizeof(events))
				.send(fd),
			0);
	CU_ASSERT_EQUAL(events, 0u);
	CU_ASSERT_EQUAL(close(efd), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	free(ring);
	free(db);
}

void test_cq_qp()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int efd = async_fd(fd);
	CU_ASSERT_FATAL(efd >= 0);
	uint32_t pd, cq, cqn, qp, h;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	/* rings the process owns; the device keeps them until destroyed or closed */
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 64 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 128); /* CQ record, then QP record */
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 64 * 4096);
	memset(db, 0, 128);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	/* a CQ: ring outside the process, bad CQE size, compression: refused */
	Mlx5CreateCq bad = creq;
	bad.buf_addr = 0x1000;
	CU_ASSERT_EQUAL(create_cq(fd, bad, 63, &h, nullptr), EFAULT);
	bad = creq;
	bad.db_addr = 0x2000;
	CU_ASSERT_EQUAL(create_cq(fd, bad, 63, &h, nullptr), EFAULT);
	bad = creq;
	bad.cqe_size = 32;
	CU_ASSERT_EQUAL(create_cq(fd, bad, 63, &h, nullptr), EINVAL);
	bad = creq;
	bad.cqe_comp_en = 1;
	CU_ASSERT_EQUAL(create_cq(fd, bad, 63, &h, nullptr), EOPNOTSUPP);
	bad = creq;
	bad.flags = kCqFlagUarPageIndex; /* no such UAR */
	bad.uar_page_index = 5;
	CU_ASSERT_EQUAL(create_cq(fd, bad, 63, &h, nullptr), EINVAL);
	CU_ASSERT_EQUAL(create_cq(fd, creq, 0, &h, nullptr), EINVAL);
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 63, &cq, &cqn), 0);
	CU_ASSERT_NOT_EQUAL(cqn, 0u);
	/* a QP: RQ of 8 x 64 bytes, then an SQ of 16 WQEBBs, in the same ring */
	Mlx5CreateQp q = {};
	q.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
	q.db_addr = (uint64_t)(uintptr_t)(db + 16);
	q.sq_wqe_count = 16;
	q.rq_wqe_count = 8;
	q.rq_wqe_shift = 6;
	q.uidx = 1;
	Mlx5CreateQp badq = q;
	badq.buf_addr = 0x1000;
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, badq, kUverbsQptRc, &h), EFAULT);
	badq = q;
	badq.sq_wqe_count = 12; /* not a power of two */
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, badq, kUverbsQptRc, &h), EINVAL);
	badq = q;
	badq.uidx = 1u << 24;
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, badq, kUverbsQptRc, &h), EINVAL);
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, q, 8 /* raw packet */, &h), EOPNOTSUPP);
	CU_ASSERT_EQUAL(create_qp(fd, cq, cq, efd, q, kUverbsQptRc, &h), EINVAL); /* not a PD */
	CU_ASSERT_EQUAL(create_qp(fd, 999, cq, efd, q, kUverbsQptRc, &h), ENOENT);
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, fd, q, kUverbsQptRc, &h), EBADF); /* no event fd */
	uint32_t qpn = 0;
	CU_ASSERT_EQUAL_FATAL(create_qp(fd, pd, cq, efd, q, kUverbsQptRc, &qp, &qpn), 0);
	/* INIT2INIT in RESET: firmware's BAD_RES_STATE */
	uint8_t st = 0;
	CU_ASSERT_EQUAL(init2init(fd, qp, qpn, init2init::kOptMaskMmo, &st), EREMOTEIO);
	CU_ASSERT_EQUAL(st, kPrmStatusBadResState);
	/* MODIFY_QP: RESET->INIT, then an illegal jump to RTS; a port the device lacks */
	ModifyQpCmd m = {};
	m.qp_handle = qp;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 2;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), EINVAL);
	m.port_num = 1;
	/* bits a QP does not have (ON_DEMAND, as pyverbs' ODP tests pass) are ignored */
	m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), 0);
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), EINVAL);
	m.qp_handle = cq;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), EINVAL);
	QueryQpCmd qq = {0, qp, IBV_QP_STATE};
	QueryQpResp qr;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_QP, &qq, sizeof(qq), &qr, sizeof(qr)), 0);
	CU_ASSERT_EQUAL(qr.qp_state, IBV_QPS_INIT);
	/* INIT2INIT with qpc_ext.mmo (libmlx5's qp_enable_mmo) through DEVX_OBJ/MODIFY */
	CU_ASSERT_EQUAL(init2init(fd, qp, qpn + 1, init2init::kOptMaskMmo, nullptr), EINVAL);
	uint8_t status = 0xff;
	CU_ASSERT_EQUAL(init2init(fd, qp, qpn, init2init::kOptMaskMmo, &status), 0);
	CU_ASSERT_EQUAL(status, 0);
	/* another optional parameter: firmware's BAD_PARAM, EREMOTEIO */
	CU_ASSERT_EQUAL(init2init(fd, qp, qpn, 1u << 4, &status), EREMOTEIO);
	CU_ASSERT_EQUAL(status, kPrmStatusBadParam);
	CU_ASSERT_EQUAL(init2init(fd, cq, qpn, init2init::kOptMaskMmo, nullptr), EINVAL);
	/* INIT2INIT with qpc.drain_sigerr (signature pipelining), then QUERY_QP shows it */
	uint8_t din[kPrmInit2InitIn] = {}, dout[16] = {};
	prm_set(din, kPrmInOpcode, kPrmOpInit2InitQp);
	prm_set(din, init2init::qpn, qpn);
	prm_set(din, init2init::opt_param_mask, init2init::kOptMaskDrainSigerr);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_MODIFY)
				.add(A_DEVX_MODIFY_HANDLE, 0, qp)
				.in(A_DEVX_MODIFY_CMD_IN, din, sizeof(din))
				.out(A_DEVX_MODIFY_CMD_OUT, dout, sizeof(dout))
				.send(fd),
			EREMOTEIO); /* the mask without the bit */
	prm_set(din, init2init::qpc_drain_sigerr, 1);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_MODIFY)
				.add(A_DEVX_MODIFY_HANDLE, 0, qp)
				.in(A_DEVX_MODIFY_CMD_IN, din, sizeof(din))
				.out(A_DEVX_MODIFY_CMD_OUT, dout, sizeof(dout))
				.send(fd),
			0);
	uint8_t qin[kPrmQueryQpIn] = {}, qout[kPrmQueryQpOut];
	prm_set(qin, kPrmInOpcode, kPrmOpQueryQp);
	prm_set(qin, query_qp::qpn, qpn + 1);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_QUERY)
				.add(A_DEVX_OBJ_HANDLE, 0, qp)
				.in(A_DEVX_OBJ_CMD_IN, qin, sizeof(qin))
				.out(A_DEVX_OBJ_CMD_OUT, qout, sizeof(qout))
				.send(fd),
			EINVAL); /* another QP's number */
	prm_set(qin, query_qp::qpn, qpn);
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_QUERY)
				.add(A_DEVX_OBJ_HANDLE, 0, qp)
				.in(A_DEVX_OBJ_CMD_IN, qin, sizeof(qin))
				.out(A_DEVX_OBJ_CMD_OUT, qout, 64)
				.send(fd),
			EREMOTEIO); /* too short for the QP context */
	CU_ASSERT_EQUAL(Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_QUERY)
				.add(A_DEVX_OBJ_HANDLE, 0, qp)
				.in(A_DEVX_OBJ_CMD_IN, qin, sizeof(qin))
				.out(A_DEVX_OBJ_CMD_OUT, qout, sizeof(qout))
				.send(fd),
			0);
	CU_ASSERT_EQUAL(prm_get(qout, query_qp::state), kQpcStateInit);
	CU_ASSERT_EQUAL(prm_get(qout, query_qp::drain_sigerr), 1u);
	CU_ASSERT_EQUAL(prm_get(qout, query_qp::hw_sq_wqebb_counter), 0u);
	CU_ASSERT_EQUAL(init2init(fd, 999, qpn, init2init::kOptMaskMmo, nullptr), ENOENT);
	CU_ASSERT_EQUAL(qr.port_num, 1);
	CU_ASSERT_EQUAL(qr.cap.max_send_wr, 8u);
	/* the CQ is busy while the QP uses it */
	DestroyCqResp dr;
	CU_ASSERT_EQUAL(Req(OBJ_CQ, M_CQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, cq)
				.out(A_DESTROY_RESP, &dr, sizeof(dr))
				.send(fd),
			EBUSY);
	/* closing the fd destroys QP and CQ: the device lets go of the rings at once */
	CU_ASSERT_EQUAL(close(efd), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	memset(db, 0xff, 128); /* a doorbell the device must no longer see */
	free(ring);
	free(db);
	usleep(20000); /* the watcher ran over its QPs a few times meanwhile */
}

/** CQ/CREATE with a completion channel and / or an async fd (-1: attribute left out). */
int create_cq_fds(int fd, const Mlx5CreateCq &req, int channel, int efd, uint32_t *handle)
{
	uint64_t uh = 0x5151;
	uint32_t vec = 0, cqe = 3, resp_cqe = 0;
	Mlx5CreateCqResp m = {};
	Req r(OBJ_CQ, M_CQ_CREATE);
	r.add(A_CQ_HANDLE, 0, 0)
		.in(A_CQ_CQE, &cqe, 4)
		.in(A_CQ_USER_HANDLE, &uh, 8)
		.in(A_CQ_COMP_VECTOR, &vec, 4)
		.out(A_CQ_RESP_CQE, &resp_cqe, 4)
		.in(kAttrUhwIn, &req, sizeof(req))
		.out(kAttrUhwOut, &m, sizeof(m));
	if (channel >= 0)
		r.add(A_CQ_COMP_CHANNEL, 0, (uint64_t)channel);
	if (efd >= 0)
		r.add(A_CQ_EVENT_FD, 0, (uint64_t)efd);
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	return ret;
}

/** CREATE_COMP_CHANNEL of @p fd's context: the channel fd, or -1. */
int comp_channel(int fd)
{
	CmdResponsePtr in = {0};
	uint32_t out = 0;
	return invoke_write(fd, WCMD_CREATE_COMP_CHANNEL, &in, sizeof(in), &out, sizeof(out))
		       ? -1
		       : (int)out;
}

/*
 * An event fd names its context, as the kernel's fd lookup checks the file's
 * owner (rdma_core.c): a completion channel or an async fd of another context is
 * EBADF in CQ/CREATE, QP/CREATE and SRQ/CREATE, also once that context is closed;
 * its own are accepted. QP/CREATE without an event fd takes the context's first.
 */
void test_event_fd_other_context()
{
	int fd = ready_fd(), fd2 = ready_fd();
	CU_ASSERT_FATAL(fd >= 0 && fd2 >= 0);
	int efd = async_fd(fd), efd2 = async_fd(fd2);
	int ch = comp_channel(fd), ch2 = comp_channel(fd2);
	CU_ASSERT_FATAL(efd >= 0 && efd2 >= 0 && ch >= 0 && ch2 >= 0);
	uint32_t pd, cq, h, srq;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 16 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 192);
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 16 * 4096);
	memset(db, 0, 192);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	for (int pass = 0; pass < 2; pass++) { /* the other context open, then closed */
		CU_ASSERT_EQUAL(create_cq_fds(fd, creq, ch2, -1, &h), EBADF);
		CU_ASSERT_EQUAL(create_cq_fds(fd, creq, -1, efd2, &h), EBADF);
		CU_ASSERT_EQUAL(create_cq_fds(fd, creq, ch, efd2, &h), EBADF);
		CU_ASSERT_EQUAL(create_cq_fds(fd, creq, efd, -1, &h), EBADF); /* other kind */
		CU_ASSERT_EQUAL(create_cq_fds(fd, creq, ch, efd, &h), 0);
		CU_ASSERT_EQUAL(Req(OBJ_CQ, M_CQ_DESTROY)
					.add(A_DESTROY_HANDLE, 0, h)
					.out(A_DESTROY_RESP, ring + 8 * 4096, 8)
					.send(fd),
				0);
		if (pass == 0)
			CU_ASSERT_EQUAL(close(fd2), 0);
	}
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 3, &cq, nullptr), 0);
	Mlx5CreateQp q = {};
	q.buf_addr = (uint64_t)(uintptr_t)(ring + 4 * 4096);
	q.db_addr = (uint64_t)(uintptr_t)(db + 16);
	q.sq_wqe_count = 16;
	q.rq_wqe_count = 8;
	q.rq_wqe_shift = 6;
	q.uidx = 1;
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd2, q, kUverbsQptRc, &h), EBADF);
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, ch, q, kUverbsQptRc, &h), EBADF);
	Mlx5CreateSrq sreq = {};
	sreq.buf_addr = (uint64_t)(uintptr_t)(ring + 12 * 4096);
	sreq.db_addr = (uint64_t)(uintptr_t)(db + 32);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd2, sreq, 63, 3, &srq), EBADF);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, sreq, 63, 3, &srq), 0);
	CU_ASSERT_EQUAL(create_qp(fd, pd, cq, efd, q, kUverbsQptRc, &h), 0);
	close(efd2);
	close(ch2);
	close(ch);
	close(efd);
	close(fd);
	free(ring);
	free(db);
}

/** RESIZE_CQ through INVOKE_WRITE with mlx5's driver data (@p uhw_len 0: none). */
int resize_cq(int fd, uint32_t handle, uint32_t cqe, const Mlx5ResizeCq &req, ResizeCqResp *resp,
	      uint16_t uhw_len = sizeof(Mlx5ResizeCq))
{
	uint32_t cmd = WCMD_RESIZE_CQ;
	ResizeCqCmd in = {0, handle, cqe};
	Req r(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE);
	r.in(A_WRITE_CMD, &cmd, 4)
		.in(A_WRITE_CORE_IN, &in, sizeof(in))
		.out(A_WRITE_CORE_OUT, resp, sizeof(*resp));
	if (uhw_len)
		r.in(kAttrUhwIn, &req, uhw_len);
	return r.send(fd);
}

/*
 * RESIZE_CQ as mlx5_ib_resize_cq: the entries rounded up to a power of two above
 * cqe, the same size answered without a look at the driver data, the kernel's
 * EINVAL for handles, sizes and driver data, EFAULT for a ring the process lacks.
 * The device writes a RESIZE_CQ CQE (opcode 5, owner bit of its index) into the old
 * ring at the producer index and refuses while that ring is full.
 */
void test_resize_cq()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	constexpr uint8_t kCqeResize = 5; /* MLX5_CQE_RESIZE_CQ */
	uint32_t pd, cq;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 16 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 64);
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 16 * 4096);
	memset(db, 0, 64);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 3, &cq, nullptr), 0); /* 4 entries */
	uint8_t *ring2 = ring + 4096;
	Mlx5ResizeCq rq = {(uint64_t)(uintptr_t)ring2, 64, 0, 0};
	ResizeCqResp rr = {};
	/* the same size: nothing read, nothing done (no driver data at all) */
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 2, rq, &rr, 0), 0);
	CU_ASSERT_EQUAL(rr.cqe, 3u);
	/* refusals */
	CU_ASSERT_EQUAL(resize_cq(fd, pd, 15, rq, &rr), EINVAL); /* not a CQ */
	CU_ASSERT_EQUAL(resize_cq(fd, 999, 15, rq, &rr), EINVAL);
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 0, rq, &rr), EINVAL);
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 1u << 30, rq, &rr), EINVAL);
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, rq, &rr, 8), EINVAL); /* short driver data */
	Mlx5ResizeCq bad = rq;
	bad.reserved1 = 1;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, bad, &rr), EINVAL);
	bad = rq;
	bad.cqe_size = 32;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, bad, &rr), EINVAL);
	bad = rq;
	bad.buf_addr = 0x1000;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, bad, &rr), EFAULT);
	/* the new ring runs into a page the process may not write */
	uint8_t *two = (uint8_t *)mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(two != MAP_FAILED);
	CU_ASSERT_EQUAL(mprotect(two + 4096, 4096, PROT_READ), 0);
	bad = rq;
	bad.buf_addr = (uint64_t)(uintptr_t)two;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 127, bad, &rr), EFAULT); /* 128 x 64 bytes */
	munmap(two, 2 * 4096);
	/* nothing of that changed the CQ: still 4 entries, no CQE written */
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 3, rq, &rr, 0), 0);
	CU_ASSERT_EQUAL(rr.cqe, 3u);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ring[i * 64 + 63], 0);
	/* 4 -> 16 entries: the RESIZE_CQ CQE at index 0 of the old ring, owner 0 */
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, rq, &rr), 0);
	CU_ASSERT_EQUAL(rr.cqe, 15u);
	CU_ASSERT_EQUAL(ring[63], kCqeResize << 4);
	/* the consumer took it (index 1): 16 -> 2 entries, its CQE at index 1 of ring2 */
	db[0] = htobe32(1);
	uint8_t *ring3 = ring + 2 * 4096;
	rq.buf_addr = (uint64_t)(uintptr_t)ring3;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 1, rq, &rr), 0);
	CU_ASSERT_EQUAL(rr.cqe, 1u);
	CU_ASSERT_EQUAL(ring2[64 + 63], kCqeResize << 4);
	/* 2 -> 4 entries with that CQE unpolled: the next one at index 2 of the
	 * 2-entry ring, slot 0, owner 1 */
	rq.buf_addr = (uint64_t)(uintptr_t)ring2;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 3, rq, &rr), 0);
	CU_ASSERT_EQUAL(ring3[63], kCqeResize << 4 | 1);
	/* 2 CQEs unpolled (indexes 1, 2; consumer at 1) in 4 entries: into 2 they fit */
	rq.buf_addr = (uint64_t)(uintptr_t)ring3;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 1, rq, &rr), 0);
	/* now 3 unpolled (1..3) in 2 entries: the ring is full, and 3 > 2 anyway */
	rq.buf_addr = (uint64_t)(uintptr_t)ring2;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, rq, &rr), EINVAL);
	/* the consumer catches up: the resize goes through */
	db[0] = htobe32(4);
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 15, rq, &rr), 0);
	CU_ASSERT_EQUAL(rr.cqe, 15u);
	/* more unpolled CQEs than the new ring holds: 4 in 2 entries */
	db[0] = htobe32(1);
	rq.buf_addr = (uint64_t)(uintptr_t)ring3;
	CU_ASSERT_EQUAL(resize_cq(fd, cq, 1, rq, &rr), EINVAL);
	close(fd);
	free(ring);
	free(db);
}

/*
 * The doorbell thread's back-off: it spins right after work, and a doorbell after a
 * gap waits at most a sixteenth of the gap, at most 1 ms. The old back-off slept
 * 1 ms (and yielded to the polling application for whole time slices) after any
 * gap, so ibv_rc_pingpong took ~13 ms per exchange.
 */
void test_watch_pause()
{
	using mlx5sim::kernel::watch_pause;
	using std::chrono::microseconds;
	using std::chrono::milliseconds;
	using std::chrono::nanoseconds;
	CU_ASSERT(watch_pause(nanoseconds(0)) == nanoseconds(0));
	CU_ASSERT(watch_pause(microseconds(49)) == nanoseconds(0));
	CU_ASSERT(watch_pause(microseconds(50)) > nanoseconds(0));
	CU_ASSERT(watch_pause(microseconds(50)) <= microseconds(4));
	CU_ASSERT(watch_pause(microseconds(800)) <= microseconds(50));
	CU_ASSERT(watch_pause(milliseconds(8)) <= microseconds(500));
	CU_ASSERT(watch_pause(milliseconds(8)) > microseconds(100));
	CU_ASSERT(watch_pause(std::chrono::seconds(60)) == milliseconds(1));
	for (long us = 50; us < 100000; us = us * 3 / 2 + 1)
		CU_ASSERT(watch_pause(microseconds(us)) * 16 <= microseconds(us));
}

/* The threads of this process named @p name, or not (@p name NULL: all of them). */
unsigned threads_named(const char *name)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[300], comm[32] = "";
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = 0;
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = 0;
		n += !name || !strcmp(comm, name);
	}
	closedir(d);
	return n;
}

/*
 * Thread mode (the default): the device's engine thread reads the QPs' doorbell
 * records itself, so the device has one thread, as the imitation provider's. The
 * kernel side used to read them on a thread of its own that handed each doorbell to
 * the engine: an extra thread and wake-up per batch, and three busy threads on two
 * CPUs cost dma-perf a factor 10 at 64 B (app/dma-perf/kernel.ini).
 */
void test_one_device_thread()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int efd = async_fd(fd);
	CU_ASSERT_FATAL(efd >= 0);
	uint32_t pd, cq, cqn, qp;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 64 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 128);
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 64 * 4096);
	memset(db, 0, 128);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 63, &cq, &cqn), 0);
	Mlx5CreateQp q = {};
	q.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
	q.db_addr = (uint64_t)(uintptr_t)(db + 16);
	q.sq_wqe_count = 16;
	q.rq_wqe_count = 8;
	q.rq_wqe_shift = 6;
	CU_ASSERT_EQUAL_FATAL(create_qp(fd, pd, cq, efd, q, kUverbsQptRc, &qp), 0);
	/* its records are watched now; this thread, the engine and nothing else */
	usleep(10000);
	CU_ASSERT_EQUAL(threads_named("mlx5_0-engine"), 1u);
	CU_ASSERT_EQUAL(threads_named(nullptr), 2u);
	CU_ASSERT_EQUAL(close(efd), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	free(ring);
	free(db);
}

/* MLX5_SIM_RDMA_DEVARGS: one set of options per device, the last for the rest. */
void test_devargs_of()
{
	CU_ASSERT_EQUAL(devargs_of("", 0), "");
	CU_ASSERT_EQUAL(devargs_of("", 3), "");
	CU_ASSERT_EQUAL(devargs_of("sim_exec=inline", 0), "sim_exec=inline");
	CU_ASSERT_EQUAL(devargs_of("sim_exec=inline", 5), "sim_exec=inline");
	const std::string two = "sim_exec=thread,sim_core=1;sim_exec=inline";
	CU_ASSERT_EQUAL(devargs_of(two, 0), "sim_exec=thread,sim_core=1");
	CU_ASSERT_EQUAL(devargs_of(two, 1), "sim_exec=inline");
	CU_ASSERT_EQUAL(devargs_of(two, 15), "sim_exec=inline");
	CU_ASSERT_EQUAL(devargs_of(";sim_exec=inline", 0), "");
	CU_ASSERT_EQUAL(devargs_of(";sim_exec=inline", 1), "sim_exec=inline");
	CU_ASSERT_EQUAL(devargs_of("a;b;", 2), "");
}

/*
 * SRQs: the ring and record must be the process's (EFAULT), the geometry the
 * kernel's (EINVAL), XRC / tag matching / WQE signatures are not modelled
 * (EOPNOTSUPP); MODIFY_SRQ arms a limit below the WQE count and never resizes
 * (EINVAL), QUERY_SRQ reads it back; an RC QP receives from it and keeps it busy.
 */
void test_srq()
{
	int fd = ready_fd();
	CU_ASSERT_FATAL(fd >= 0);
	int efd = async_fd(fd);
	CU_ASSERT_FATAL(efd >= 0);
	uint32_t pd, cq, srq, qp, h, srqn = 0;
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 32 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 192); /* CQ, QP, SRQ records */
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 32 * 4096);
	memset(db, 0, 192);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 63, &cq, nullptr), 0);
	/* 63 WQEs + 1 of 64 bytes (next segment + 3 data segments) = 4 KiB at page 4 */
	Mlx5CreateSrq sreq = {};
	sreq.buf_addr = (uint64_t)(uintptr_t)(ring + 4 * 4096);
	sreq.db_addr = (uint64_t)(uintptr_t)(db + 32);
	Mlx5CreateSrq bad = sreq;
	bad.buf_addr = 0x1000;
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), EFAULT);
	/* 128 WQEs of 64 bytes run into a read-only page */
	uint8_t *two = (uint8_t *)mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(two != MAP_FAILED);
	CU_ASSERT_EQUAL(mprotect(two + 4096, 4096, PROT_READ), 0);
	bad = sreq;
	bad.buf_addr = (uint64_t)(uintptr_t)two;
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 127, 3, &h), EFAULT);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), 0); /* one page: fits */
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY).add(A_DESTROY_HANDLE, 0, h).send(fd), EINVAL);
	uint32_t ev0 = 0;
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, h)
				.out(A_DESTROY_RESP, &ev0, 4)
				.send(fd),
			0);
	munmap(two, 2 * 4096);
	bad = sreq;
	bad.db_addr = 0x2000;
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), EFAULT);
	bad = sreq;
	bad.flags = 1; /* WQE signatures */
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), EOPNOTSUPP);
	bad = sreq;
	bad.flags = 2;
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), EINVAL);
	bad = sreq;
	bad.reserved1 = 1;
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, bad, 63, 3, &h), EINVAL);
	/* max_wr 0 (pyverbs' SrqInitAttr()): a ring of one WQE, as the kernel makes it */
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, sreq, 0, 3, &h), 0);
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, h)
				.out(A_DESTROY_RESP, &ev0, 4)
				.send(fd),
			0);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, sreq, 1u << 20, 3, &h), EINVAL);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, sreq, 63, 1000, &h), EINVAL);
	CU_ASSERT_EQUAL(create_srq(fd, pd, efd, sreq, 63, 3, &h, nullptr, 1 /* XRC */), EOPNOTSUPP);
	CU_ASSERT_EQUAL(create_srq(fd, cq, efd, sreq, 63, 3, &h), EINVAL); /* not a PD */
	CU_ASSERT_EQUAL(create_srq(fd, 999, efd, sreq, 63, 3, &h), ENOENT);
	CU_ASSERT_EQUAL(create_srq(fd, pd, fd, sreq, 63, 3, &h), EBADF); /* no event fd */
	CU_ASSERT_EQUAL_FATAL(create_srq(fd, pd, efd, sreq, 63, 3, &srq, &srqn), 0);
	CU_ASSERT_NOT_EQUAL(srqn, 0u);
	/* query: 63 WQEs, 3 data segments, not armed */
	QuerySrqCmd sq = {0, srq, 0};
	QuerySrqResp sr = {};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_SRQ, &sq, sizeof(sq), &sr, sizeof(sr)), 0);
	CU_ASSERT_EQUAL(sr.max_wr, 63u);
	CU_ASSERT_EQUAL(sr.max_sge, 3u);
	CU_ASSERT_EQUAL(sr.srq_limit, 0u);
	sq.srq_handle = cq;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_SRQ, &sq, sizeof(sq), &sr, sizeof(sr)), EINVAL);
	/* modify: arm 10; a limit of 64 or more, resizing, unknown bits, not an SRQ */
	ModifySrqCmd ms = {srq, IBV_SRQ_LIMIT, 0, 10};
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_SRQ, &ms, sizeof(ms), nullptr, 0), 0);
	ms.srq_limit = 64;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_SRQ, &ms, sizeof(ms), nullptr, 0), EINVAL);
	ms.attr_mask = IBV_SRQ_MAX_WR;
	ms.max_wr = 127;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_SRQ, &ms, sizeof(ms), nullptr, 0), EINVAL);
	ms.attr_mask = 4;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_SRQ, &ms, sizeof(ms), nullptr, 0), EINVAL);
	ms.attr_mask = IBV_SRQ_LIMIT;
	ms.srq_handle = pd;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_SRQ, &ms, sizeof(ms), nullptr, 0), EINVAL);
	sq.srq_handle = srq;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_SRQ, &sq, sizeof(sq), &sr, sizeof(sr)), 0);
	CU_ASSERT_EQUAL(sr.srq_limit, 10u); /* the refusals changed nothing */
	/* an RC QP on the SRQ: no receive queue of its own */
	Mlx5CreateQp q = {};
	q.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
	q.db_addr = (uint64_t)(uintptr_t)(db + 16);
	q.sq_wqe_count = 16;
	q.uidx = 1;
	Mlx5CreateQp badq = q;
	badq.rq_wqe_count = 8;
	badq.rq_wqe_shift = 6;
	CU_ASSERT_EQUAL(create_qp_srq(fd, pd, cq, efd, badq, srq, &h), EINVAL);
	CU_ASSERT_EQUAL(create_qp_srq(fd, pd, cq, efd, q, cq, &h), EINVAL); /* not an SRQ */
	CU_ASSERT_EQUAL(create_qp_srq(fd, pd, cq, efd, q, 999, &h), ENOENT);
	CU_ASSERT_EQUAL_FATAL(create_qp_srq(fd, pd, cq, efd, q, srq, &qp), 0);
	uint32_t events = 0;
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, srq)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			EBUSY);
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, cq)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			EINVAL);
	CU_ASSERT_EQUAL(Req(OBJ_QP, M_QP_DESTROY)
				.add(A_DESTROY_HANDLE, 0, qp)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			0);
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, srq)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			0);
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, srq)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			ENOENT);
	/* a second SRQ stays until the fd is closed, which destroys it (QP first) */
	CU_ASSERT_EQUAL_FATAL(create_srq(fd, pd, efd, sreq, 63, 3, &srq), 0);
	CU_ASSERT_EQUAL_FATAL(create_qp_srq(fd, pd, cq, efd, q, srq, &qp), 0);
	CU_ASSERT_EQUAL(close(efd), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	memset(db, 0xff, 192); /* a doorbell the device must no longer see */
	free(ring);
	free(db);
	usleep(20000);
}

/** QP/CREATE of a DCT as libmlx5's create_dct sends it: no buffers, an SRQ, the key. */
int create_dct(int fd, uint64_t pd, uint64_t cq, int efd, uint64_t srq, uint64_t key,
	       uint32_t *handle, uint32_t *qpn_out, uint32_t flags = kQpFlagTypeDct)
{
	uint64_t uh = 0x7373;
	uint32_t type = kUverbsQptDriver, qpn = 0xdead;
	QpCap cap = {0, 0, 0, 0, 0}, rcap;
	Mlx5CreateQp req = {};
	req.flags = flags;
	req.uidx = 5;
	req.sq_buf_addr = key; /* access_key */
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
	if (srq)
		r.add(A_QP_SRQ, 0, srq);
	int ret = r.send(fd);
	*handle = (uint32_t)r.attr(0)->data;
	if (qpn_out)
		*qpn_out = qpn;
	return ret;
}

/** EX_MODIFY_QP as libmlx5's modify_dct sends it (driver request @p m). */
int ex_modify(int fd, const ModifyQpCmd &base, const Mlx5ModifyQp &m, Mlx5ModifyQpResp *d)
{
	uint32_t cmd = WCMD_EX_MODIFY_QP;
	ExModifyQp q = {};
	q.base = base;
	ExModifyQpResp r = {};
	memset(d, 0, sizeof(*d));
	int ret = Req(OBJ_DEVICE, M_DEVICE_INVOKE_WRITE)
			  .in(A_WRITE_CMD, &cmd, 4)
			  .in(A_WRITE_CORE_IN, &q, sizeof(q))
			  .out(A_WRITE_CORE_OUT, &r, sizeof(r))
			  .in(kAttrUhwIn, &m, sizeof(m))
			  .out(kAttrUhwOut, d, sizeof(*d))
			  .send(fd);
	if (!ret)
		CU_ASSERT_EQUAL(r.response_length, sizeof(r));
	return ret;
}

/* mlx5dv_create_qp's DCT: its SRQ and key, EX_MODIFY_QP's masks and dctn; stream reset */
void test_dct()
{
	int fd = ready_fd(), fd2 = ready_fd();
	CU_ASSERT_FATAL(fd >= 0 && fd2 >= 0);
	int efd = async_fd(fd), efd2 = async_fd(fd2);
	CU_ASSERT_FATAL(efd >= 0 && efd2 >= 0);
	uint32_t pd, cq, srq, dct, h, qpn = 0, pd2, srq2, x;
	uint8_t *ring = (uint8_t *)aligned_alloc(4096, 32 * 4096);
	uint32_t *db = (uint32_t *)aligned_alloc(64, 256);
	CU_ASSERT_FATAL(ring && db);
	memset(ring, 0, 32 * 4096);
	memset(db, 0, 256);
	/* the other context's SRQ gets a handle this context never hands out */
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd2, &pd2), 0);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL_FATAL(alloc_pd(fd2, &x), 0);
	Mlx5CreateSrq sreq = {};
	sreq.buf_addr = (uint64_t)(uintptr_t)(ring + 4 * 4096);
	sreq.db_addr = (uint64_t)(uintptr_t)(db + 32);
	CU_ASSERT_EQUAL_FATAL(create_srq(fd2, pd2, efd2, sreq, 63, 3, &srq2), 0);
	CU_ASSERT_EQUAL_FATAL(alloc_pd(fd, &pd), 0);
	Mlx5CreateCq creq = {
		(uint64_t)(uintptr_t)ring, (uint64_t)(uintptr_t)db, 64, 0, 0, 0, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(create_cq(fd, creq, 63, &cq, nullptr), 0);
	sreq.buf_addr = (uint64_t)(uintptr_t)(ring + 8 * 4096);
	sreq.db_addr = (uint64_t)(uintptr_t)(db + 48);
	CU_ASSERT_EQUAL_FATAL(create_srq(fd, pd, efd, sreq, 63, 3, &srq), 0);
	/* refusals: no SRQ, another context's SRQ, not an SRQ, queues, other flags */
	CU_ASSERT_EQUAL(create_dct(fd, pd, cq, efd, 0, 0x1234, &h, nullptr), EINVAL);
	CU_ASSERT(srq2 > srq);
	CU_ASSERT_EQUAL(create_dct(fd, pd, cq, efd, srq2, 0x1234, &h, nullptr), ENOENT);
	CU_ASSERT_EQUAL(create_dct(fd, pd, cq, efd, cq, 0x1234, &h, nullptr), EINVAL);
	CU_ASSERT_EQUAL(create_dct(fd, pd, cq, efd, srq, 0x1234, &h, nullptr,
				   kQpFlagTypeDct | kQpFlagUarPageIndex),
			EINVAL);
	CU_ASSERT_EQUAL(create_dct(fd, pd, cq, efd, srq, 0x1234, &h, nullptr,
				   kQpFlagTypeDct | kQpFlagTypeDci),
			EOPNOTSUPP);
	/* created: number 0 until RTR, as the kernel answers */
	CU_ASSERT_EQUAL_FATAL(create_dct(fd, pd, cq, efd, srq, 0x1234, &dct, &qpn), 0);
	CU_ASSERT_EQUAL(qpn, 0u);
	/* the legacy MODIFY_QP cannot answer the number: refused */
	ModifyQpCmd m = {};
	m.qp_handle = dct;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_MODIFY_QP, &m, sizeof(m), nullptr, 0), EINVAL);
	Mlx5ModifyQp dm = {};
	Mlx5ModifyQpResp dr;
	/* the kernel's masks exactly: one bit short, one bit more */
	ModifyQpCmd b = m;
	b.attr_mask &= ~IBV_QP_ACCESS_FLAGS;
	CU_ASSERT_EQUAL(ex_modify(fd, b, dm, &dr), EINVAL);
	b.attr_mask = m.attr_mask | IBV_QP_QKEY;
	CU_ASSERT_EQUAL(ex_modify(fd, b, dm, &dr), EINVAL);
	/* burst control, ECE: not modelled */
	dm.ece_options = 0x10000000;
	CU_ASSERT_EQUAL(ex_modify(fd, m, dm, &dr), EOPNOTSUPP);
	dm = {};
	CU_ASSERT_EQUAL(ex_modify(fd, m, dm, &dr), 0);
	CU_ASSERT_EQUAL(dr.response_length, 0u); /* INIT: no number yet */
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER;
	m.qp_state = IBV_QPS_RTR;
	m.path_mtu = IBV_MTU_4096;
	m.min_rnr_timer = 12;
	m.dest.port_num = 1;
	b = m;
	b.attr_mask |= IBV_QP_DEST_QPN; /* RC's RTR mask: not a DCT's */
	CU_ASSERT_EQUAL(ex_modify(fd, b, dm, &dr), EINVAL);
	CU_ASSERT_EQUAL(ex_modify(fd, m, dm, &dr), 0);
	CU_ASSERT_EQUAL(dr.response_length, 8u);
	uint32_t dctn = dr.dctn;
	CU_ASSERT_NOT_EQUAL(dctn, 0u);
	/* a DCT stays in RTR */
	m.attr_mask = IBV_QP_STATE;
	m.qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(ex_modify(fd, m, dm, &dr), EINVAL);
	QueryQpCmd qq = {0, dct, IBV_QP_STATE};
	QueryQpResp qr;
	CU_ASSERT_EQUAL(invoke_write(fd, WCMD_QUERY_QP, &qq, sizeof(qq), &qr, sizeof(qr)), 0);
	CU_ASSERT_EQUAL(qr.qp_state, IBV_QPS_RTR);
	/* the SRQ is busy while the DCT lives */
	uint32_t events = 0;
	CU_ASSERT_EQUAL(Req(OBJ_SRQ, M_SRQ_DESTROY)
				.add(A_DESTROY_HANDLE, 0, srq)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			EBUSY);
	/* RTS2RTS stream reset: on a DCT (no DCI) and with other parameters, BAD_PARAM */
	uint8_t in[kPrmInit2InitIn] = {}, out[16];
	prm_set(in, kPrmInOpcode, kPrmOpRts2RtsQp);
	prm_set(in, init2init::qpn, dctn);
	prm_set(in, init2init::qpc_ext, 1);
	prm_set(in, init2init::opt_mask_63_32, rts2rts::kOptMaskDciStreamChannelId);
	prm_set(in, rts2rts::dci_stream_channel_id, 1);
	auto devx_modify = [&](uint32_t handle) {
		memset(out, 0, sizeof(out));
		return Req(OBJ_MLX5_DEVX_OBJ, M_DEVX_OBJ_MODIFY)
			.add(A_DEVX_MODIFY_HANDLE, 0, handle)
			.in(A_DEVX_MODIFY_CMD_IN, in, sizeof(in))
			.out(A_DEVX_MODIFY_CMD_OUT, out, sizeof(out))
			.send(fd);
	};
	CU_ASSERT_EQUAL(devx_modify(dct), EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadParam);
	prm_set(in, init2init::opt_mask_63_32, 1u << 2); /* UDP sport */
	CU_ASSERT_EQUAL(devx_modify(dct), EREMOTEIO);
	CU_ASSERT_EQUAL(prm_get(out, kPrmOutStatus), kPrmStatusBadParam);
	prm_set(in, init2init::qpn, dctn + 1); /* not the object named */
	CU_ASSERT_EQUAL(devx_modify(dct), EINVAL);
	CU_ASSERT_EQUAL(Req(OBJ_QP, M_QP_DESTROY)
				.add(A_DESTROY_HANDLE, 0, dct)
				.out(A_DESTROY_RESP, &events, 4)
				.send(fd),
			0);
	/* one left at close goes with the file, before its SRQ */
	CU_ASSERT_EQUAL_FATAL(create_dct(fd, pd, cq, efd, srq, 0x99, &dct, nullptr), 0);
	CU_ASSERT_EQUAL(close(efd), 0);
	CU_ASSERT_EQUAL(close(fd), 0);
	CU_ASSERT_EQUAL(close(efd2), 0);
	CU_ASSERT_EQUAL(close(fd2), 0);
	free(ring);
	free(db);
}

const struct cunit_test tests[] = {
	{"device node and fd look like uverbs0", test_node_and_fd},
	{"glibc's pre-2.33 stat names answer as stat and fstat", test_compat_stat_names},
	{"every stat name and opendir serve the sysfs tree", test_sysfs_stat_names},
	{"header refusals: ENOTTY, EINVAL, EPROTONOSUPPORT, EFAULT", test_header_refusals},
	{"attribute refusals: mandatory, duplicate, length, handle, order", test_attr_refusals},
	{"GET_CONTEXT: mlx5 driver data, refusals, once per fd", test_get_context},
	{"PD and MR: handles, types, EBUSY, ENOENT", test_pd_mr},
	{"MR outside the process: EFAULT; iova, access, length", test_mr_outside_process},
	{"REREG_MR: keys kept, refusals change nothing", test_rereg_mr},
	{"ADVISE_MR: on-demand MRs of the PD only, EFAULT on sync", test_advise_mr},
	{"ADVISE_MR FLUSH: pages probed without the context's lock", test_advise_mr_unlocked},
	{"queries: device (ex), port, GID table", test_queries},
	{"DevX QUERY_HCA_CAP and refusals", test_devx},
	{"UAR objects and their mmaps", test_uar_mmap},
	{"async event fd", test_async_fd},
	{"close releases every object", test_close_releases},
	{"CQ and QP: refusals, modify, query, busy, close", test_cq_qp},
	{"SRQ: refusals, arm, query, QP on it, busy, close", test_srq},
	{"DevX objects: mkeys, PSVs, reserved QPNs, BAD_OP, refusals", test_devx_objects},
	{"DCI with streams: driver data, limits, state machine", test_dci},
	{"DCT: SRQ, key, EX_MODIFY_QP masks and dctn; stream reset", test_dct},
	{"doorbell thread: spin, then pauses of 1/16 of the gap", test_watch_pause},
	{"RESIZE_CQ: driver data, refusals, the RESIZE_CQ CQE", test_resize_cq},
	{"event fds of another context: EBADF", test_event_fd_other_context},
	{"thread mode: the engine reads the doorbell records, one device thread",
	 test_one_device_thread},
	{"MLX5_SIM_RDMA_DEVARGS: options per device", test_devargs_of},
};

} // namespace

int main()
{
	return CUNIT_RUN_SUITE("kernel side dispatcher", tests);
}
