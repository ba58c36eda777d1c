/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: configuration, devices, contexts (one per open of the character
 * device), their objects and mmaps, and access to the caller's memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include <vector>

#include "mlx5_abi.h"
#include "sim_options.h"
#include "kside.h"

namespace mlx5sim {
namespace kernel {

/* ---- configuration and log ---------------------------------------------------------- */

namespace {

int g_log_level = 1;

Config read_config()
{
	Config c;
	const char *s = getenv("MLX5_SIM_RDMA_DEVICES");
	if (s && *s) {
		char *end;
		unsigned long n = strtoul(s, &end, 10);
		if (*end || n > kMaxDevices)
			fprintf(stderr,
				"mlx5-sim-kernel: MLX5_SIM_RDMA_DEVICES=%s: not 0..%u, no "
				"devices\n",
				s, kMaxDevices);
		else
			c.n_devices = (unsigned)n;
	}
	s = getenv("MLX5_SIM_RDMA_ID");
	if (s && *s)
		c.run_id = (uint32_t)strtoul(s, nullptr, 10);
	s = getenv("MLX5_SIM_RDMA_DEVARGS");
	if (s)
		c.devargs = s;
	s = getenv("MLX5_SIM_RDMA_LOG");
	if (s && *s >= '0' && *s <= '9')
		g_log_level = *s - '0';
	return c;
}

} // namespace

const Config &config()
{
	static const Config *c = new Config(read_config()); /* never freed: used until exit */
	return *c;
}

int log_level()
{
	(void)config();
	return g_log_level;
}

void klog(int level, const char *fmt, ...)
{
	if (level > log_level())
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write: lines of several threads do not interleave */
	static const char prefix[] = "mlx5-sim-kernel: ";
	char out[sizeof(prefix) + sizeof(line)];
	memcpy(out, prefix, sizeof(prefix) - 1);
	memcpy(out + sizeof(prefix) - 1, line, (size_t)n);
	ssize_t r = sys::write(2, out, sizeof(prefix) - 1 + (size_t)n);
	(void)r;
}

/* ---- the caller's memory ---------------------------------------------------------- */

bool copy_from_user(void *dst, uint64_t src, size_t n)
{
	if (n == 0)
		return true;
	struct iovec local = {dst, n};
	struct iovec remote = {reinterpret_cast<void *>(src), n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

bool copy_to_user(uint64_t dst, const void *src, size_t n)
{
	if (n == 0)
		return true;
	struct iovec local = {const_cast<void *>(src), n};
	struct iovec remote = {reinterpret_cast<void *>(dst), n};
	return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

/* ---- devices ---------------------------------------------------------------------- */

uint64_t node_guid_of(uint32_t run_id, unsigned index)
{
	/* Mellanox OUI 00:02:c9, then the run and the device: unique per wrapper run */
	return 0x0002c90300000000ull | (uint64_t)(run_id & 0xffff) << 16 | (index & 0xffff);
}

dev_t device_rdev(unsigned index)
{
	return makedev(kUverbsMajor, kUverbsMinorBase + index);
}

Device *device(unsigned index)
{
	static Device *devs = [] {
		Device *d = new Device[kMaxDevices]; /* never freed: engine threads outlive exit */
		for (unsigned i = 0; i < kMaxDevices; i++) {
			d[i].index = i;
			d[i].ibdev = "mlx5_" + std::to_string(i);
			d[i].node_guid = node_guid_of(config().run_id, i);
			d[i].rdev = device_rdev(i);
		}
		return d;
	}();
	return index < config().n_devices ? &devs[index] : nullptr;
}

namespace {

/** MLX5_SIM_RDMA_DEVARGS: the software HCA's options, "k=v,k=v" as dma_mlx5's devargs. */
int devargs_to_caps(const std::string &s, HcaCaps *caps, ExecMode *mode, cpu_set_t *cpus,
		    bool *cpus_set)
{
	std::vector<std::string> keys, vals;
	size_t pos = 0;
	while (pos < s.size()) {
		size_t end = pos, depth = 0;
		/* commas inside [..] belong to the value (sim_fabric_uids=[1001,1002]) */
		while (end < s.size() && (s[end] != ',' || depth)) {
			depth += s[end] == '[';
			depth -= s[end] == ']' && depth;
			end++;
		}
		std::string kv = s.substr(pos, end - pos);
		size_t eq = kv.find('=');
		if (!kv.empty()) {
			keys.push_back(kv.substr(0, eq));
			vals.push_back(eq == std::string::npos ? "" : kv.substr(eq + 1));
		}
		pos = end + 1;
	}
	std::vector<struct mlx5_glue_option> opts(keys.size());
	for (size_t i = 0; i < keys.size(); i++) {
		opts[i].key = keys[i].c_str();
		opts[i].value = vals[i].c_str();
	}
	struct mlx5_sim_device_attr attr;
	char why[256] = "";
	int ret = sim_parse_options(opts.data(), (unsigned)opts.size(), &attr, why, sizeof(why));
	if (ret) {
		klog(1, "MLX5_SIM_RDMA_DEVARGS: %s", why);
		return ret;
	}
	if (attr.exec_mode == MLX5_SIM_EXEC_POLLED) {
		/* nobody here calls the device's progress(): the engine thread is the device */
		klog(1, "MLX5_SIM_RDMA_DEVARGS: sim_exec=service needs a DPDK service; use "
			"thread or inline");
		return -EINVAL;
	}
	if (!sim_attr_to_caps(attr, caps, mode)) {
		klog(1, "MLX5_SIM_RDMA_DEVARGS '%s': bad attribute", s.c_str());
		return -EINVAL;
	}
	*cpus = attr.engine_cpus;
	*cpus_set = attr.engine_cpus_set;
	return 0;
}

} // namespace

std::shared_ptr<Hca> device_hca(Device *dev)
{
	std::lock_guard<std::mutex> g(dev->lock);
	if (dev->hca)
		return dev->hca;
	HcaCaps caps;
	ExecMode mode = ExecMode::Thread;
	cpu_set_t cpus;
	bool cpus_set = false;
	if (devargs_to_caps(config().devargs, &caps, &mode, &cpus, &cpus_set))
		return nullptr;
	/* the port's LID as query_port reports it: the device number + 1 */
	caps.lid = (uint16_t)(dev->index + 1);
	try {
		dev->hca = Hca::create(dev->ibdev, caps, mode, cpus_set ? &cpus : nullptr);
	} catch (...) {
		dev->hca = nullptr;
	}
	if (!dev->hca)
		klog(1, "%s: the software HCA could not be created", dev->ibdev.c_str());
	return dev->hca;
}

void fill_chardev_stat(unsigned index, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = device_rdev(index);
	st->st_nlink = 1;
	st->st_blksize = 4096;
	st->st_ino = 0x5a1000 + index;
	st->st_dev = makedev(0, 5); /* devtmpfs-like */
}

/* ---- contexts ----------------------------------------------------------------------- */

void AsyncFile::push(const AsyncEventDesc &ev)
{
	std::lock_guard<std::mutex> g(lock);
	if (fd < 0)
		return; /* closed */
	events.push_back(ev);
	uint64_t one = 1;
	ssize_t r = sys::write(fd, &one, sizeof(one));
	(void)r;
}

Context::Context(Device *dev, int fd) : dev_(dev), fd_(fd)
{
}

Context::~Context()
{
	/* as the kernel at the last close: every object of the file, newest first */
	for (auto it = objs.rbegin(); it != objs.rend(); ++it)
		if (it->second.type == Uobj::Type::Mr)
			destroy_obj(it->second);
	for (auto it = objs.rbegin(); it != objs.rend(); ++it)
		if (it->second.type != Uobj::Type::Mr)
			destroy_obj(it->second);
}

uint32_t Context::add(const Uobj &o)
{
	while (next_handle == 0 || objs.count(next_handle))
		next_handle++;
	uint32_t h = next_handle++;
	objs[h] = o;
	return h;
}

Uobj *Context::find(uint32_t handle, Uobj::Type t)
{
	auto it = objs.find(handle);
	return it == objs.end() || it->second.type != t ? nullptr : &it->second;
}

int Context::destroy_obj(Uobj &o)
{
	int ret = 0;
	switch (o.type) {
	case Uobj::Type::Pd:
		ret = hca->dealloc_pd(o.pdn);
		break;
	case Uobj::Type::Mr:
		ret = hca->dereg_mr(o.key);
		break;
	case Uobj::Type::Uar:
		if (o.uar_dev)
			munmap(o.uar_dev, kPage);
		o.uar_dev = nullptr;
		break;
	case Uobj::Type::AsyncEvent:
		break;
	}
	return ret;
}

int Context::ioctl(unsigned long request, uint64_t arg)
{
	if (request != kRdmaVerbsIoctl) {
		klog(1, "uverbs%u: ioctl request 0x%lx is not RDMA_VERBS_IOCTL", dev_->index,
		     request);
		return -ENOTTY;
	}
	std::lock_guard<std::mutex> g(lock);
	return dispatch_ioctl(*this, arg);
}

void *Context::mmap(void *addr, size_t len, int prot, int flags, off_t off)
{
	uint64_t pgoff = (uint64_t)off / kPage;
	uint32_t cmd = (uint32_t)(pgoff >> kMmapCmdShift) & 0xff;
	uint32_t index = (uint32_t)((pgoff >> 16) & 0xff) << 8 | (uint32_t)(pgoff & 0xff);
	std::lock_guard<std::mutex> g(lock);

	if ((uint64_t)off % kPage || cmd < kMmapCmdDynFirst || len != kPage ||
	    !(flags & MAP_SHARED) || (prot & PROT_EXEC)) {
		/* no clock pages, no static UARs: only UAR objects have offsets (mlx5_abi.h) */
		klog(1,
		     "uverbs%u: mmap of %zu bytes at offset 0x%llx (command %u) prot 0x%x: "
		     "no such mapping",
		     dev_->index, len, (unsigned long long)off, cmd, prot);
		errno = EINVAL;
		return MAP_FAILED;
	}
	uint32_t page = (cmd - kMmapCmdDynFirst) << 16 | index;
	for (auto &kv : objs) {
		const Uobj &o = kv.second;
		if (o.type == Uobj::Type::Uar && o.uar_page == page)
			return sys::mmap(addr, len, prot, flags, fd_, (off_t)(page * kPage));
	}
	klog(1, "uverbs%u: mmap offset 0x%llx: no UAR there", dev_->index, (unsigned long long)off);
	errno = EINVAL;
	return MAP_FAILED;
}

int open_device(unsigned index, int flags)
{
	Device *dev = device(index);
	if (!dev)
		return -ENOENT;
	char name[32];
	snprintf(name, sizeof(name), "uverbs%u", index);
	int fd = memfd_create(name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -errno;
	std::shared_ptr<Context> ctx;
	try {
		ctx = std::make_shared<Context>(dev, fd);
	} catch (...) {
		sys::close(fd);
		return -ENOMEM;
	}
	fd_register_context(fd, ctx);
	klog(2, "uverbs%u: opened as fd %d", index, fd);
	return fd;
}

} // namespace kernel
} // namespace mlx5sim
