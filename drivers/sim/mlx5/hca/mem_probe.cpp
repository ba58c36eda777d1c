/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Memory probes: may the device touch [addr, addr + len) of its own process?
 *
 * reg_mr pins pages on hardware; the model instead checks the mappings once
 * (/proc/self/maps) and faults every page in for reading through the kernel
 * (madvise MADV_POPULATE_READ, or process_vm_readv of one byte per page before
 * Linux 5.14), which fails with EFAULT where get_user_pages would (a page past the
 * end of a file mapping: SIGBUS on access). Shared mappings of writable MRs are
 * faulted in for writing too (MADV_POPULATE_WRITE). On-demand MRs are checked at
 * access time, and their bytes are moved by safe_move(): process_vm_readv/writev
 * on the own process report EFAULT instead of faulting, so memory the application
 * unmaps never crashes the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <vector>

#include "mem_probe.h"

namespace mlx5sim {
namespace mem {

namespace {

constexpr uint64_t kPage = 4096;
constexpr unsigned kBatch = 256;        /**< pages probed per syscall */
constexpr uint64_t kChunk = 1ull << 20; /**< bytes per safe_move() syscall */
constexpr uint64_t kBounce = 64 << 10;  /**< bounce buffer of overlapping moves */

#ifndef MADV_POPULATE_READ /* Linux 5.14 */
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

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

/**
 * Fault [addr, addr + len) in like pinning does: false if a page cannot be (it
 * would raise SIGBUS/SIGSEGV on access). One madvise for the whole range.
 */
bool populate(uint64_t addr, uint64_t len, bool write)
{
	uint64_t start = addr & ~(kPage - 1);
	uint64_t end = (addr + len + kPage - 1) & ~(kPage - 1);
	int rc;
	do
		rc = madvise(reinterpret_cast<void *>(start), end - start,
			     write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	while (rc != 0 && errno == EINTR);
	if (rc == 0)
		return true;
	if (errno != EINVAL)
		return false; /* EFAULT (would signal), ENOMEM (hole), EHWPOISON */
	/* EINVAL: a kernel before 5.14 or a special mapping: probe page by page */
	return probe_pages(addr, len, write);
}

} // namespace

bool range_pinnable(uint64_t addr, uint64_t len, bool write)
{
	struct Piece {
		uint64_t s, e;
		bool shared;
	};
	std::vector<Piece> probe; /* file-backed or shared parts of the range */
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
		uint64_t s, e, inode;
		char perms[8];
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*x %*x:%*x %" SCNu64, &s, &e, perms,
			   &inode) != 4)
			continue;
		if (e <= cur)
			continue;
		if (s > cur || perms[0] != 'r' || (write && perms[1] != 'w'))
			break;
		if (inode != 0 || perms[3] == 's')
			probe.push_back(Piece{cur, e < end ? e : end, perms[3] == 's'});
		cur = e;
		if (cur >= end) {
			ok = true;
			break;
		}
	}
	free(line);
	fclose(f);
	/*
	 * Fault pages in outside the maps walk, where a fault can fail: file-backed
	 * (past EOF, truncated, hugetlbfs pool empty) and shared mappings. A page of a
	 * private anonymous mapping can always be faulted in (short of memory), and not
	 * touching those keeps registering a large sparse reservation cheap. Reading
	 * suffices for private mappings (a write fault there only copies the page);
	 * shared ones can fail a write fault alone (page_mkwrite: ENOSPC), so writable
	 * MRs fault those in for writing.
	 */
	for (size_t i = 0; ok && i < probe.size(); i++)
		ok = populate(probe[i].s, probe[i].e - probe[i].s, write && probe[i].shared);
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

int safe_move(uint8_t *dst, const uint8_t *src, uint64_t n)
{
	pid_t self = getpid();
	bool overlap = dst < src + n && src < dst + n;
	if (!overlap) {
		/* one copy in the kernel: remote = source, local = destination */
		for (uint64_t off = 0; off < n; off += kChunk) {
			uint64_t c = n - off < kChunk ? n - off : kChunk;
			struct iovec l = {dst + off, c};
			struct iovec r = {const_cast<uint8_t *>(src) + off, c};
			if (process_vm_readv(self, &l, 1, &r, 1, 0) != (ssize_t)c)
				return probe_pages((uintptr_t)src + off, c, false) ? 2 : 1;
		}
		return 0;
	}
	/* overlapping: through a bounce buffer, in the direction memmove would take */
	uint8_t bounce[kBounce];
	uint64_t chunks = (n + kBounce - 1) / kBounce;
	for (uint64_t k = 0; k < chunks; k++) {
		uint64_t i = dst > src ? chunks - 1 - k : k;
		uint64_t off = i * kBounce;
		uint64_t c = n - off < kBounce ? n - off : kBounce;
		struct iovec b = {bounce, c};
		struct iovec r = {const_cast<uint8_t *>(src) + off, c};
		if (process_vm_readv(self, &b, 1, &r, 1, 0) != (ssize_t)c)
			return 1;
		r.iov_base = dst + off;
		if (process_vm_writev(self, &b, 1, &r, 1, 0) != (ssize_t)c)
			return 2;
	}
	return 0;
}

} // namespace mem
} // namespace mlx5sim
