/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side: the rdma_cm character device (/dev/infiniband/rdma_cm), the ucma
 * ABI librdmacm 44 writes (doc/guides/sim/kernel_side.rst, "rdma-cm"). IP
 * addresses name ports of the software fabric (127.0.x.y = LID x << 8 | y); the
 * CM exchange between processes goes over abstract UNIX sockets of the fabric,
 * with the fabric's uid membership (ucma.cpp).
 */
#ifndef MLX5_SIM_KERNEL_UCMA_H
#define MLX5_SIM_KERNEL_UCMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <memory>

namespace mlx5sim {
namespace kernel {

/** Where librdmacm opens the device; its ABI version (class/misc/rdma_cm/abi_version). */
constexpr char kUcmaPath[] = "/dev/infiniband/rdma_cm";
constexpr unsigned kUcmaAbi = 4;

/** One open of the rdma_cm device: an event channel and its ids (ucma.cpp). */
class UcmaFile;

/** Open the device: a new fd (an eventfd counting queued events), or -errno. */
int ucma_open(int flags, std::shared_ptr<UcmaFile> *file);
/** write() of one command on @p file (fd @p fd): @p n, or -errno. */
ssize_t ucma_write(UcmaFile &file, int fd, const void *buf, size_t n);
/** The last close of the fd: every id of it is destroyed (peers see DISCONNECTED). */
void ucma_release(UcmaFile &file);
/**
 * In a fork() child, for fd @p fd of @p file: when it is the one the channel
 * counts its events on, a counter of the child's own under that fd number,
 * counting the events of the child's copy.
 */
void ucma_fork_file(UcmaFile &file, int fd);
/** The channel behind fd @p fd, or NULL (libc_intercept.cpp). */
std::shared_ptr<UcmaFile> fd_ucma(int fd);
/** fstat of the device node or of one of its fds. */
void ucma_fill_stat(struct stat *st);

} // namespace kernel
} // namespace mlx5sim

#endif /* MLX5_SIM_KERNEL_UCMA_H */
