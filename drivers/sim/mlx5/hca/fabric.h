/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA, fabric: the hosts of this process (fabric.cpp) and of the
 * machine-wide fabric (xfabric.cpp), as the device and its lock see them.
 */
#ifndef MLX5_SIM_FABRIC_H
#define MLX5_SIM_FABRIC_H

#include <stdint.h>

#include <memory>

#include "dev_mutex.h"

namespace mlx5sim {

class Host;
struct HcaCaps;

/** The device lock of a new instance: its own, or the fabric's (fabric.cpp). */
std::shared_ptr<DevMutex> hca_device_lock(const HcaCaps &caps);

/* ---- fabric.cpp ---- */
/** The device lock of the process's fabric hosts. */
DevMutex &fabric_lock();
/** The fabric host of this process with LID @p lid, or NULL. Under fabric_lock(). */
Host *fabric_host(uint16_t lid);

/* ---- xfabric.cpp ---- */
/**
 * Claim a LID on machine-wide fabric @p name: @p *lid if free, else the next
 * free one (1..0xbfff). Returns the LID's listening socket, or -errno.
 */
int xfabric_claim_lid(const char *name, uint16_t *lid);
/**
 * Share LID @p lid of machine-wide fabric @p name with the process this one was
 * forked from: it must hold the LID's socket (inherited, the membership) and no
 * host of this process may have it yet. Claims the lowest free member index
 * (its socket "mlx5-sim-fabric/<name>/<lid>/m<index>") into @p *member. Returns
 * that socket, or -errno (-ENOENT: the LID's socket is not ours).
 */
int xfabric_join_lid(const char *name, uint16_t lid, uint8_t *member);
/** Serve requests to listening socket @p fd of our host @p lid. Under fabric_lock(). */
int xfabric_port_add(int fd, uint16_t lid);
/** Stop serving @p fd and close it. Under fabric_lock(). */
void xfabric_port_remove(int fd);

} // namespace mlx5sim

#endif /* MLX5_SIM_FABRIC_H */
