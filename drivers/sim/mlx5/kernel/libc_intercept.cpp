/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: the libc entry points libibverbs and libmlx5 reach the kernel
 * through (rdma-core util/open_cdev.c, libibverbs/sysfs.c, ibdev_nl.c, providers/mlx5).
 * Preloaded (devtools/sim-rdma), these
 * definitions come before libc's in every library's lookup, so a call on the fake
 * character device lands here and everything else goes on to libc (RTLD_NEXT):
 *   open*, openat*          /dev/infiniband/uverbs<i> -> a Context on a memfd
 *   stat*, fstat*, statx    that path and those fds look like the char device
 *   __xstat*, __fxstat*     the same, under glibc's pre-2.33 names: programs built
 *                           against an older glibc, and sanitizer runtimes (TSan's
 *                           fstat goes to __fxstat), still call them
 *   ioctl, mmap             the command channel and the UAR pages
 *   read, write, close      async event fds, teardown
 *   dup, dup2, dup3, fcntl  a copy of one of ours is ours (the same file); an fd
 *                           replaced by another is ours no more
 *   close_range, closefrom  as close, for each fd of the range
 *   socket                  NETLINK_RDMA fails, so libibverbs reads $SYSFS_PATH
 * With MLX5_SIM_RDMA_DEVICES unset or 0 every call goes straight to libc.
 */
/*
 * Our definitions replace libc's under their own names: neither the inline fortify
 * wrappers nor the open -> open64 style renaming of large-file builds may apply.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/close_range.h>

#include <atomic>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "kside.h"
#include "ucma.h"

using namespace mlx5sim::kernel;

namespace {

constexpr int kNetlinkRdma = 20;
constexpr char kUverbsPrefix[] = "/dev/infiniband/uverbs";
constexpr char kSysIb[] = "/sys/class/infiniband";

/* ---- libc's own definitions ------------------------------------------------------- */

template <typename F>
F real(F &slot, const char *name)
{
	F f = __atomic_load_n(&slot, __ATOMIC_ACQUIRE);
	if (!f) {
		f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
		__atomic_store_n(&slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

#define REAL(name) real(real_##name, #name)
int (*real_open)(const char *, int, ...);
int (*real_open64)(const char *, int, ...);
int (*real___open_2)(const char *, int);
int (*real___open64_2)(const char *, int);
int (*real_openat)(int, const char *, int, ...);
int (*real_openat64)(int, const char *, int, ...);
int (*real___openat_2)(int, const char *, int);
int (*real___openat64_2)(int, const char *, int);
int (*real_stat)(const char *, struct stat *);
int (*real_stat64)(const char *, struct stat64 *);
int (*real_lstat)(const char *, struct stat *);
int (*real_lstat64)(const char *, struct stat64 *);
int (*real_fstat)(int, struct stat *);
int (*real_fstat64)(int, struct stat64 *);
int (*real_fstatat)(int, const char *, struct stat *, int);
int (*real_fstatat64)(int, const char *, struct stat64 *, int);
int (*real_statx)(int, const char *, int, unsigned int, struct statx *);
/* glibc's compatibility symbols; @p ver is _STAT_VER (the struct layout the caller has) */
int (*real___xstat)(int, const char *, struct stat *);
int (*real___xstat64)(int, const char *, struct stat64 *);
int (*real___lxstat)(int, const char *, struct stat *);
int (*real___lxstat64)(int, const char *, struct stat64 *);
int (*real___fxstat)(int, int, struct stat *);
int (*real___fxstat64)(int, int, struct stat64 *);
int (*real___fxstatat)(int, int, const char *, struct stat *, int);
int (*real___fxstatat64)(int, int, const char *, struct stat64 *, int);
DIR *(*real_opendir)(const char *);
int (*real_ioctl)(int, unsigned long, ...);
void *(*real_mmap)(void *, size_t, int, int, int, off_t);
void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
int (*real_close)(int);
ssize_t (*real_read)(int, void *, size_t);
ssize_t (*real_write)(int, const void *, size_t);
int (*real_dup)(int);
int (*real_dup2)(int, int);
int (*real_fcntl)(int, int, ...);
int (*real_fcntl64)(int, int, ...);
int (*real_dup3)(int, int, int);
int (*real_close_range)(unsigned int, unsigned int, int);
void (*real_closefrom)(int);
int (*real_socket)(int, int, int);

/* ---- the fake fds ------------------------------------------------------------------ */

struct FakeFd {
	std::shared_ptr<Context> ctx;     /**< a command fd */
	std::shared_ptr<AsyncFile> async; /**< an async event fd */
	std::shared_ptr<UcmaFile> ucma;   /**< an rdma_cm fd (ucma.cpp) */
	bool inherited = false;           /**< a fork() child's copy of the parent's */
};

std::mutex g_fd_lock;
std::map<int, FakeFd> *g_fds;     /* never freed: fds may be closed during exit */
std::atomic<int> g_nfds{0};       /* fast path: no fake fd, no lock */
std::atomic<pid_t> g_fd_owner{0}; /* the process whose fds g_fds lists */

/* the fork() child's inherited fds it closed: never released there (forget()) */
std::vector<FakeFd> *g_inherited_closed;

/*
 * fork() takes the table's lock first: a thread that opens or closes an fd at that
 * moment would leave the child a table half changed, which it could not mark
 * inherited, and the child's close of an fd it inherited then released the
 * parent's file (an rdma-cm channel: DREQ on every connection of the parent).
 * Its lock order: after ucma.cpp's g_cm (whose prepare handler, registered later,
 * runs first), as in the commands, which look fds up holding g_cm.
 */
void fork_prepare()
{
	g_fd_lock.lock();
}

void fork_parent()
{
	g_fd_lock.unlock();
}

/*
 * fork(): the child has copies of the table and of the fds, its own from now on.
 * What it inherited stays the parent's: as the kernel's file, which the child's
 * close leaves open in the parent, its close releases nothing (no rdma_cm DREQ on
 * the connections the parent holds, no lock a thread of the parent held).
 *
 * An event fd's queue is copied, but its eventfd count would be the parent's: the
 * child's read or GET_EVENT took the counts of the parent's events (a parent that
 * polls the fd then never saw them), or, with its copy empty, spun on a count only
 * the parent takes down. So each gets a count of the child's own, its copy's
 * length (sys::own_counter; dups of the fd keep the shared one).
 */
void fork_child()
{
	new (&g_fd_lock) std::mutex; /* held by the thread that forked (fork_prepare) */
	g_fd_owner.store(getpid(), std::memory_order_relaxed);
	if (!g_fds)
		return;
	for (auto &kv : *g_fds) {
		kv.second.inherited = true;
		if (kv.second.ucma)
			ucma_fork_file(*kv.second.ucma, kv.first);
		AsyncFile *a = kv.second.async.get();
		if (a && a->fd == kv.first) {
			/* held: by a thread not in the child, its queue maybe half changed */
			bool whole = a->lock.try_lock();
			new (&a->lock) std::mutex;
			sys::own_counter(a->fd, whole ? (unsigned)a->events.size() : 0);
		}
	}
}

/*
 * The caller closes fds of the table: not so in a vfork() child (Python's
 * subprocess closes every fd there before exec), which runs in our memory, no
 * atfork handler, with fds of its own: closing its copies leaves ours open.
 */
bool table_ours()
{
	return g_fd_owner.load(std::memory_order_relaxed) == getpid();
}

bool active()
{
	return config().n_devices > 0;
}

bool lookup(int fd, FakeFd *out)
{
	if (g_nfds.load(std::memory_order_acquire) == 0 || fd < 0)
		return false;
	std::lock_guard<std::mutex> g(g_fd_lock);
	auto it = g_fds->find(fd);
	if (it == g_fds->end())
		return false;
	*out = it->second;
	return true;
}

void insert(int fd, const FakeFd &f)
{
	std::lock_guard<std::mutex> g(g_fd_lock);
	if (!g_fds) {
		g_fds = new std::map<int, FakeFd>();
		g_fd_owner.store(getpid(), std::memory_order_relaxed);
		pthread_atfork(fork_prepare, fork_parent, fork_child);
	}
	if (!g_fds->count(fd))
		g_nfds.fetch_add(1, std::memory_order_release);
	(*g_fds)[fd] = f;
}

/** Another fd of ours for the same file as @p f (g_fd_lock held), or -1. */
int other_fd(const FakeFd &f, int fd)
{
	for (const auto &kv : *g_fds)
		if (kv.first != fd &&
		    ((f.async && kv.second.async == f.async) || (f.ctx && kv.second.ctx == f.ctx) ||
		     (f.ucma && kv.second.ucma == f.ucma)))
			return kv.first;
	return -1;
}

/**
 * Forget @p fd; the file goes when its last fd does (the kernel's release): a
 * Context and an event file live on while a dup of the fd is open, reached through
 * that one from now on.
 */
void forget(int fd)
{
	FakeFd gone; /* destroyed after the lock */
	if (g_nfds.load(std::memory_order_acquire) == 0 || !table_ours())
		return;
	std::lock_guard<std::mutex> g(g_fd_lock);
	auto it = g_fds->find(fd);
	if (it == g_fds->end())
		return;
	gone = it->second;
	if (gone.inherited) {
		/* kept, never released here (fork_child); memory of this child only */
		g_fds->erase(it);
		g_nfds.fetch_sub(1, std::memory_order_release);
		try {
			if (!g_inherited_closed)
				g_inherited_closed = new std::vector<FakeFd>();
			g_inherited_closed->push_back(gone);
		} catch (...) {
			(void)new (std::nothrow) FakeFd(gone); /* leaked as well */
		}
		return;
	}
	int other = other_fd(gone, fd);
	if (gone.async) {
		/* with no copy left, events raised later go nowhere, not into a reused number */
		std::lock_guard<std::mutex> ga(gone.async->lock);
		if (gone.async->fd == fd)
			gone.async->fd = other;
	}
	if (gone.ctx && other >= 0 && gone.ctx->fd() == fd)
		gone.ctx->set_fd(other);
	g_fds->erase(it);
	g_nfds.fetch_sub(1, std::memory_order_release);
}

/** @p copy is a new fd for the file of @p fd (dup): ours when that one is. */
void copied(int fd, int copy)
{
	FakeFd f;
	if (copy < 0 || copy == fd || !lookup(fd, &f))
		return;
	insert(copy, f);
}

/** forget() each fd of ours in [@p first, @p last]. */
void forget_range(unsigned first, unsigned last)
{
	std::vector<int> fds;
	if (g_nfds.load(std::memory_order_acquire) == 0 || first > (unsigned)INT_MAX ||
	    !table_ours())
		return;
	{
		std::lock_guard<std::mutex> g(g_fd_lock);
		for (auto it = g_fds->lower_bound((int)first);
		     it != g_fds->end() && (unsigned)it->first <= last; ++it)
			fds.push_back(it->first);
	}
	for (int fd : fds)
		forget(fd);
}

/** /dev/infiniband/uverbs<i> of an existing device: its index. */
/*
 * The caller's path, read through the kernel (copy_from_user): a path pointer libc
 * would answer with EFAULT must reach the real call, never fault in here. False if
 * unreadable or longer than any path served (not ours either way).
 */
bool user_path(const char *upath, char *buf, size_t size)
{
	uint64_t a = (uint64_t)(uintptr_t)upath;
	for (size_t n = 0; n < size;) {
		size_t chunk = kPage - ((a + n) & (kPage - 1));
		if (chunk > size - n)
			chunk = size - n;
		if (!copy_from_user(buf + n, a + n, chunk))
			return false;
		if (memchr(buf + n, 0, chunk))
			return true;
		n += chunk;
	}
	return false;
}

bool uverbs_path(const char *upath, unsigned *index)
{
	char path[64];
	if (!upath || !active() || !user_path(upath, path, sizeof(path)) ||
	    strncmp(path, kUverbsPrefix, sizeof(kUverbsPrefix) - 1))
		return false;
	const char *p = path + sizeof(kUverbsPrefix) - 1;
	unsigned n = 0;
	if (!*p || (p[0] == '0' && p[1]))
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > kMaxDevices)
			return false;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (!device(n))
		return false;
	*index = n;
	return true;
}

int fail(int err)
{
	errno = err;
	return -1;
}

/**
 * The network interface of device @p index's port, in the tree at @p root: the
 * port whose address is 127.0.0.1 (LID 1, ucma.cpp) shows the loopback
 * interface "lo", the one real interface that carries that address; another port
 * shows none (no "net" directory, as a device without a netdev). Decided by a
 * process that has the device open; one that has not (an "ls" the program
 * started) sees what that process left.
 */
void sync_net(const std::string &root, unsigned index)
{
	Device *d = device(index);
	uint16_t lid = d ? device_lid_if_made(d) : 0;
	if (!lid)
		return;
	std::string net = root + "/class/infiniband/mlx5_" + std::to_string(index) + "/device/net";
	if (lid == 1) {
		(void)mkdir(net.c_str(), 0755);
		(void)mkdir((net + "/lo").c_str(), 0755);
	} else {
		(void)rmdir((net + "/lo").c_str());
		(void)rmdir(net.c_str());
	}
}

/**
 * @p rest ("" or "/..." after /sys/class/infiniband) as a path inside the tree,
 * into @p out: "." and empty components dropped, ".." taking the last one off
 * (the tree has no symbolic links, devtools/sim-rdma). false when a ".." climbs
 * out of the tree; @p left is then the offset in @p rest just past it.
 */
bool tree_rest(const char *rest, std::string *out, size_t *left)
{
	out->clear();
	for (const char *p = rest; *p;) {
		while (*p == '/')
			p++;
		const char *e = p;
		while (*e && *e != '/')
			e++;
		size_t len = (size_t)(e - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (out->empty()) {
				*left = (size_t)(e - rest);
				return false;
			}
			out->erase(out->rfind('/'));
		} else if (len && !(len == 1 && p[0] == '.')) {
			out->push_back('/');
			out->append(p, len);
		}
		p = e;
	}
	size_t n = strlen(rest);
	if (n && rest[n - 1] == '/' && !out->empty())
		out->push_back('/'); /* "dir/" is not a file */
	return true;
}

/**
 * A path under /sys/class/infiniband: the model's devices are in the tree the
 * wrapper wrote under $SYSFS_PATH (libibverbs reads it there itself), so a program
 * that looks at /sys/class/infiniband directly (pyverbs lists a device's
 * "device/net" with ls) sees the same devices; @p out is that path. A ".." that
 * leaves the tree goes on from /sys/class, a real directory as /sys is, never
 * from the tree's parents under $SYSFS_PATH: @p out is then a real path (or one
 * in the tree again, "/sys/class/infiniband/../infiniband/mlx5_0").
 */
bool sysfs_path(const char *upath, std::string *out)
{
	char buf[PATH_MAX];
	const size_t n = sizeof(kSysIb) - 1;
	if (!upath || !active() || !user_path(upath, buf, sizeof(buf)) || strncmp(buf, kSysIb, n) ||
	    (buf[n] && buf[n] != '/'))
		return false;
	const char *root = getenv("SYSFS_PATH");
	if (!root || root[0] != '/')
		return false;
	try {
		std::string path(buf), rest;
		size_t left;
		/* each round takes "infiniband/.." off: it ends */
		while (!tree_rest(path.c_str() + n, &rest, &left)) {
			path = "/sys/class" + path.substr(n + left);
			if (path.compare(0, n, kSysIb) || (path.size() > n && path[n] != '/')) {
				*out = path; /* outside the tree: the real one */
				return true;
			}
		}
		unsigned idx = 0;
		char tail[16];
		/* "/mlx5_<i>/device/net...": its port's interface first */
		if (sscanf(rest.c_str(), "/mlx5_%u/devic%15s", &idx, tail) == 2 &&
		    idx < kMaxDevices && !strncmp(tail, "e/net", 5))
			sync_net(root, idx);
		*out = std::string(root) + "/class/infiniband" + rest;
	} catch (...) {
		return false; /* no memory: libc answers for the real path */
	}
	return true;
}

/** /dev/infiniband/rdma_cm, while the library serves devices. */
bool ucma_path(const char *upath)
{
	char path[sizeof(kUcmaPath) + 1];
	return upath && active() && user_path(upath, path, sizeof(path)) &&
	       !strcmp(path, kUcmaPath);
}

/** The first byte of the caller's path, read as user_path does; false if unreadable. */
bool path_head(const char *upath, char *c)
{
	return upath && active() && copy_from_user(c, (uint64_t)(uintptr_t)upath, 1);
}

/** Copy a stat answer built here to the caller's buffer: 0, or -1 with EFAULT. */
template <typename St>
int put_stat(St *ust, const St &st)
{
	return copy_to_user((uint64_t)(uintptr_t)ust, &st, sizeof(st)) ? 0 : fail(EFAULT);
}

int do_open_ucma(int flags)
{
	std::shared_ptr<UcmaFile> file;
	int fd = ucma_open(flags, &file);
	if (fd < 0)
		return fail(-fd);
	insert(fd, FakeFd{nullptr, nullptr, file});
	return fd;
}

int do_open(unsigned index, int flags)
{
	int fd = open_device(index, flags);
	return fd < 0 ? fail(-fd) : fd;
}

/** The fields of a node's stat @p s the caller sees, in its own layout (stat or stat64). */
template <typename St>
int put_node_stat(const struct stat &s, St *ust)
{
	St st;
	memset(&st, 0, sizeof(st));
	st.st_mode = s.st_mode;
	st.st_rdev = s.st_rdev;
	st.st_nlink = s.st_nlink;
	st.st_blksize = s.st_blksize;
	st.st_ino = s.st_ino;
	st.st_dev = s.st_dev;
	return put_stat(ust, st);
}

template <typename St>
int fill_stat(unsigned index, St *ust)
{
	struct stat s;
	fill_chardev_stat(index, &s);
	return put_node_stat(s, ust);
}

/** An rdma_cm fd. */
bool ucma_fd(int fd)
{
	FakeFd f;
	return lookup(fd, &f) && f.ucma;
}

bool ucma_stat_target(int dirfd, const char *path, int flags)
{
	char c;
	if (!path_head(path, &c))
		return false;
	if (c == '/')
		return ucma_path(path);
	return (flags & AT_EMPTY_PATH) && !c && ucma_fd(dirfd);
}

template <typename St>
int ucma_stat(St *ust)
{
	struct stat s;
	ucma_fill_stat(&s);
	return put_node_stat(s, ust);
}

/**
 * The stat family's one answer: a uverbs node (@p dev, its index @p idx), the
 * rdma_cm node (@p ucma), else what libc says (@p real).
 */
template <typename St, typename Real>
int stat_as(St *st, bool dev, unsigned idx, bool ucma, Real real)
{
	if (dev)
		return fill_stat(idx, st);
	return ucma ? ucma_stat(st) : real();
}

/**
 * A stat of @p path: under /sys/class/infiniband, libc's of the same path under
 * $SYSFS_PATH; a uverbs or rdma_cm node, as stat_as(); else libc's. @p real(p) is
 * libc's call on path @p p.
 */
template <typename St, typename Real>
int stat_path(const char *path, St *st, Real real)
{
	std::string sys;
	if (sysfs_path(path, &sys))
		return real(sys.c_str());
	unsigned idx = 0;
	bool dev = uverbs_path(path, &idx);
	return stat_as(st, dev, idx, !dev && ucma_path(path), [=] { return real(path); });
}

/** A command fd: the index of its device. */
bool cmd_fd(int fd, unsigned *index)
{
	FakeFd f;
	if (!lookup(fd, &f) || !f.ctx)
		return false;
	*index = f.ctx->dev()->index;
	return true;
}

int fill_statx(unsigned index, struct statx *ustx)
{
	struct stat s;
	struct statx stx;
	fill_chardev_stat(index, &s);
	memset(&stx, 0, sizeof(stx));
	stx.stx_mask = STATX_BASIC_STATS;
	stx.stx_mode = (uint16_t)s.st_mode;
	stx.stx_nlink = 1;
	stx.stx_blksize = 4096;
	stx.stx_ino = s.st_ino;
	stx.stx_rdev_major = major(s.st_rdev);
	stx.stx_rdev_minor = minor(s.st_rdev);
	stx.stx_dev_major = major(s.st_dev);
	stx.stx_dev_minor = minor(s.st_dev);
	return put_stat(ustx, stx);
}

/** fstatat-like lookups: the node by absolute path, or one of our fds by AT_EMPTY_PATH. */
bool stat_target(int dirfd, const char *path, int flags, unsigned *index)
{
	char c;
	if (!path_head(path, &c))
		return false;
	if (c == '/')
		return uverbs_path(path, index);
	if ((flags & AT_EMPTY_PATH) && !c)
		return cmd_fd(dirfd, index);
	return false;
}

/** stat_path() for the *at() calls: @p path relative to @p dirfd, with @p flags. */
template <typename St, typename Real>
int stat_path_at(int dirfd, const char *path, int flags, St *st, Real real)
{
	std::string sys;
	if (sysfs_path(path, &sys))
		return real(sys.c_str());
	unsigned idx = 0;
	bool dev = stat_target(dirfd, path, flags, &idx);
	return stat_as(st, dev, idx, !dev && ucma_stat_target(dirfd, path, flags),
		       [=] { return real(path); });
}

/** read() of an event fd: one descriptor, blocking as the fd says (uverbs_events.cpp). */
ssize_t async_read(AsyncFile &file, void *buf, size_t n)
{
	ssize_t r = file.read(buf, n);
	return r < 0 ? fail((int)-r) : r;
}

} // namespace

/* ---- for kside.cpp ------------------------------------------------------------------ */

namespace mlx5sim {
namespace kernel {

void fd_register_context(int fd, const std::shared_ptr<Context> &ctx)
{
	insert(fd, FakeFd{ctx, nullptr, nullptr});
}

void fd_register_async(int fd, const std::shared_ptr<AsyncFile> &file)
{
	insert(fd, FakeFd{nullptr, file, nullptr});
}

std::shared_ptr<EventFile> fd_event_file(int fd)
{
	FakeFd f;
	return lookup(fd, &f) ? f.async : nullptr;
}

std::shared_ptr<UcmaFile> fd_ucma(int fd)
{
	FakeFd f;
	return lookup(fd, &f) ? f.ucma : nullptr;
}

namespace sys {
int close(int fd)
{
	return REAL(close)(fd);
}
ssize_t read(int fd, void *buf, size_t n)
{
	return REAL(read)(fd, buf, n);
}
ssize_t write(int fd, const void *buf, size_t n)
{
	return REAL(write)(fd, buf, n);
}
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return REAL(mmap)(addr, len, prot, flags, fd, off);
}
void own_counter(int fd, unsigned count)
{
	int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
	int fdfl = (int)syscall(SYS_fcntl, fd, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return;
	int n = eventfd(count, EFD_SEMAPHORE | (fl & O_NONBLOCK ? EFD_NONBLOCK : 0));
	if (n < 0)
		return;
	if (syscall(SYS_dup3, n, fd, fdfl & FD_CLOEXEC ? O_CLOEXEC : 0) < 0)
		klog(1, "fd %d: no event count of the fork child's own", fd);
	(void)syscall(SYS_close, n);
}
} // namespace sys

} // namespace kernel
} // namespace mlx5sim

/* ---- the interposed entry points -------------------------------------------------- */

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {
mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}
} // namespace

EXPORT int open(const char *path, int flags, ...)
{
	unsigned idx;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(open)(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	unsigned idx;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(open64)(path, flags, mode);
}

EXPORT int __open_2(const char *path, int flags)
{
	unsigned idx;
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(__open_2)(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	unsigned idx;
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(__open64_2)(path, flags);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	unsigned idx;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(openat)(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	unsigned idx;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(openat64)(dirfd, path, flags, mode);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	unsigned idx;
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(__openat_2)(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	unsigned idx;
	if (uverbs_path(path, &idx))
		return do_open(idx, flags);
	if (ucma_path(path))
		return do_open_ucma(flags);
	return REAL(__openat64_2)(dirfd, path, flags);
}

EXPORT int stat(const char *path, struct stat *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(stat)(p, st); });
}

EXPORT int stat64(const char *path, struct stat64 *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(stat64)(p, st); });
}

EXPORT int lstat(const char *path, struct stat *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(lstat)(p, st); });
}

EXPORT int lstat64(const char *path, struct stat64 *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(lstat64)(p, st); });
}

EXPORT int fstat(int fd, struct stat *st) noexcept
{
	unsigned idx = 0;
	bool dev = cmd_fd(fd, &idx);
	return stat_as(st, dev, idx, !dev && ucma_fd(fd), [=] { return REAL(fstat)(fd, st); });
}

EXPORT int fstat64(int fd, struct stat64 *st) noexcept
{
	unsigned idx = 0;
	bool dev = cmd_fd(fd, &idx);
	return stat_as(st, dev, idx, !dev && ucma_fd(fd), [=] { return REAL(fstat64)(fd, st); });
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags) noexcept
{
	return stat_path_at(dirfd, path, flags, st,
			    [=](const char *p) { return REAL(fstatat)(dirfd, p, st, flags); });
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) noexcept
{
	return stat_path_at(dirfd, path, flags, st,
			    [=](const char *p) { return REAL(fstatat64)(dirfd, p, st, flags); });
}

/*
 * glibc before 2.33 compiled stat() into calls of these, and still exports them for
 * such programs; ThreadSanitizer's fstat interceptor calls __fxstat. The struct is
 * the one of the caller's glibc (@p ver names it): the layout fill_stat() writes on
 * every 64-bit architecture glibc has.
 */
EXPORT int __xstat(int ver, const char *path, struct stat *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(__xstat)(ver, p, st); });
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(__xstat64)(ver, p, st); });
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(__lxstat)(ver, p, st); });
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st) noexcept
{
	return stat_path(path, st, [=](const char *p) { return REAL(__lxstat64)(ver, p, st); });
}

EXPORT int __fxstat(int ver, int fd, struct stat *st) noexcept
{
	unsigned idx = 0;
	bool dev = cmd_fd(fd, &idx);
	return stat_as(st, dev, idx, !dev && ucma_fd(fd),
		       [=] { return REAL(__fxstat)(ver, fd, st); });
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st) noexcept
{
	unsigned idx = 0;
	bool dev = cmd_fd(fd, &idx);
	return stat_as(st, dev, idx, !dev && ucma_fd(fd),
		       [=] { return REAL(__fxstat64)(ver, fd, st); });
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags) noexcept
{
	return stat_path_at(dirfd, path, flags, st, [=](const char *p) {
		return REAL(__fxstatat)(ver, dirfd, p, st, flags);
	});
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags) noexcept
{
	return stat_path_at(dirfd, path, flags, st, [=](const char *p) {
		return REAL(__fxstatat64)(ver, dirfd, p, st, flags);
	});
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
		 struct statx *stx) noexcept
{
	std::string sys;
	if (sysfs_path(path, &sys))
		return REAL(statx)(dirfd, sys.c_str(), flags, mask, stx);
	unsigned idx;
	if (stat_target(dirfd, path, flags, &idx)) {
		return fill_statx(idx, stx);
	}
	return REAL(statx)(dirfd, path, flags, mask, stx);
}

EXPORT DIR *opendir(const char *path)
{
	std::string sys;
	if (sysfs_path(path, &sys))
		return REAL(opendir)(sys.c_str());
	return REAL(opendir)(path);
}

EXPORT int ioctl(int fd, unsigned long request, ...) noexcept
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	FakeFd f;
	if (lookup(fd, &f)) {
		if (!f.ctx)
			return fail(ENOTTY); /* an async event fd has no ioctls */
		int ret = f.ctx->ioctl(request, (uint64_t)(uintptr_t)arg);
		return ret < 0 ? fail(-ret) : ret;
	}
	return REAL(ioctl)(fd, request, arg);
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) noexcept
{
	FakeFd f;
	if (!(flags & MAP_ANONYMOUS) && lookup(fd, &f)) {
		if (!f.ctx) {
			errno = ENODEV;
			return MAP_FAILED;
		}
		return f.ctx->mmap(addr, len, prot, flags, off);
	}
	return REAL(mmap)(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off) noexcept
{
	FakeFd f;
	if (!(flags & MAP_ANONYMOUS) && lookup(fd, &f)) {
		if (!f.ctx) {
			errno = ENODEV;
			return MAP_FAILED;
		}
		return f.ctx->mmap(addr, len, prot, flags, off);
	}
	return REAL(mmap64)(addr, len, prot, flags, fd, off);
}

EXPORT int close(int fd)
{
	forget(fd);
	return REAL(close)(fd);
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	FakeFd f;
	if (lookup(fd, &f)) {
		if (f.async)
			return async_read(*f.async, buf, n);
		if (f.ucma) /* commands and events travel by write() */
			return fail(EINVAL);
		return fail(EINVAL); /* the command fd is not read */
	}
	return REAL(read)(fd, buf, n);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	FakeFd f;
	if (lookup(fd, &f)) {
		if (f.ucma) {
			ssize_t r = ucma_write(*f.ucma, fd, buf, n);
			return r < 0 ? fail((int)-r) : r;
		}
		if (f.ctx)
			/* libibverbs sends legacy commands as INVOKE_WRITE ioctls (the probe) */
			klog(1, "uverbs%u: legacy write() of %zu bytes: only ioctls are served",
			     f.ctx->dev()->index, n);
		return fail(EINVAL);
	}
	return REAL(write)(fd, buf, n);
}

/* libc closes these without close(): ours are forgotten first, as close() does */
EXPORT int close_range(unsigned int first, unsigned int last, int flags) noexcept
{
	if (first <= last && !(flags & CLOSE_RANGE_CLOEXEC))
		forget_range(first, last);
	return REAL(close_range)(first, last, flags);
}

EXPORT void closefrom(int lowfd) noexcept
{
	if (lowfd >= 0)
		forget_range((unsigned)lowfd, UINT_MAX);
	REAL(closefrom)(lowfd);
}

EXPORT int dup(int oldfd) noexcept
{
	int ret = REAL(dup)(oldfd);
	copied(oldfd, ret);
	return ret;
}

EXPORT int dup2(int oldfd, int newfd) noexcept
{
	int ret = REAL(dup2)(oldfd, newfd);
	if (ret >= 0 && oldfd != newfd) {
		forget(newfd);
		copied(oldfd, newfd);
	}
	return ret;
}

EXPORT int dup3(int oldfd, int newfd, int flags) noexcept
{
	int ret = REAL(dup3)(oldfd, newfd, flags);
	if (ret >= 0) {
		forget(newfd);
		copied(oldfd, newfd);
	}
	return ret;
}

/*
 * fcntl: F_DUPFD and F_DUPFD_CLOEXEC copy an fd (Python's os.dup uses the latter).
 * The third argument is passed on as a pointer-sized word, as libc reads it.
 */
EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int ret = REAL(fcntl)(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		copied(fd, ret);
	return ret;
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int ret = REAL(fcntl64)(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		copied(fd, ret);
	return ret;
}

EXPORT int socket(int domain, int type, int protocol) noexcept
{
	/* RDMA netlink would win over $SYSFS_PATH (libibverbs/ibdev_nl.c, device.c) */
	if (domain == AF_NETLINK && protocol == kNetlinkRdma && active())
		return fail(EPROTONOSUPPORT);
	return REAL(socket)(domain, type, protocol);
}
