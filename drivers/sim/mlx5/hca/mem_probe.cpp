/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Memory probes: may the device touch [addr, addr + len) of its own process?
 *
 * reg_mr pins pages on hardware; the model instead checks the mappings once
 * (/proc/self/maps, like get_user_pages would fail with EFAULT). On-demand MRs are
 * checked at access time with process_vm_readv/writev on the own process, which
 * report EFAULT instead of faulting, so a bad address never crashes the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hca_impl.h"

namespace mlx5sim {
namespace mem {

namespace {

constexpr uint64_t kPage = 4096;
constexpr unsigned kBatch = 256; /**< pages probed per syscall */

/** Probe one byte inside the range on every page it touches. */
bool probe_pages(uint64_t addr, uint64_t len, bool write)
{
	uint8_t scratch[kBatch];
	struct iovec local, remote[kBatch];
	uint64_t end = addr + len;
	uint64_t cur = addr;

	while (cur < end) {
		unsigned n = 0;
		while (cur < end && n < kBatch) {
			remote[n].iov_base = reinterpret_cast<void *>(cur);
			remote[n].iov_len = 1;
			n++;
			cur = (cur & ~(kPage - 1)) + kPage;
		}
		local.iov_base = scratch;
		local.iov_len = n;
		if (process_vm_readv(getpid(), &local, 1, remote, n, 0) != (ssize_t)n)
			return false;
		/* write back what was read: the bytes lie inside the DMA target */
		if (write && process_vm_writev(getpid(), &local, 1, remote, n, 0) != (ssize_t)n)
			return false;
	}
	return true;
}

} // namespace

bool range_mapped(uint64_t addr, uint64_t len, bool write)
{
	if (len == 0)
		return true;
	if (len > UINT64_MAX - addr)
		return false;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	uint64_t cur = addr, end = addr + len;
	bool ok = false;
	char *line = nullptr;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		uint64_t s, e;
		char perms[8];
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &s, &e, perms) != 3)
			continue;
		if (e <= cur)
			continue;
		if (s > cur || perms[0] != 'r' || (write && perms[1] != 'w'))
			break;
		cur = e;
		if (cur >= end) {
			ok = true;
			break;
		}
	}
	free(line);
	fclose(f);
	return ok;
}

bool range_readable(uint64_t addr, uint64_t len)
{
	if (len == 0)
		return true;
	if (len > UINT64_MAX - addr)
		return false;
	return probe_pages(addr, len, false);
}

bool range_writable(uint64_t addr, uint64_t len)
{
	if (len == 0)
		return true;
	if (len > UINT64_MAX - addr)
		return false;
	return probe_pages(addr, len, true);
}

} // namespace mem
} // namespace mlx5sim
