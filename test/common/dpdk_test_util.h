/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the suites that run inside an EAL (the offload libraries' tests):
 * starting a dmadev with one vchan, closing every dmadev at the end, and one command
 * through this process's telemetry socket.
 */
#ifndef DPDK_TEST_UTIL_H
#define DPDK_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <string>

#include <rte_dmadev.h>
#include <rte_eal.h>

/**
 * (Re)start the dmadev called @p name with one mem-to-mem vchan of @p nb_desc
 * descriptors (clamped to what the device takes). Its id, or -1.
 */
static inline int dpdk_test_dma_start(const char *name, uint16_t nb_desc = 1024)
{
	int dev = rte_dma_get_dev_id_by_name(name);
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vc = {};
	struct rte_dma_info info;

	if (dev < 0 || rte_dma_info_get(dev, &info) != 0)
		return -1;
	conf.nb_vchans = 1;
	vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vc.nb_desc = std::clamp<uint16_t>(nb_desc, info.min_desc, info.max_desc);
	if (rte_dma_stop(dev) != 0 || rte_dma_configure(dev, &conf) != 0 ||
	    rte_dma_vchan_setup(dev, 0, &vc) != 0 || rte_dma_start(dev) != 0)
		return -1;
	return dev;
}

/** Stop and close every dmadev, before rte_eal_cleanup(). */
static inline void dpdk_test_dma_close_all(void)
{
	for (int16_t d = 0; d < RTE_DMADEV_DEFAULT_MAX; d++)
		if (rte_dma_is_valid(d)) {
			rte_dma_stop(d);
			rte_dma_close(d);
		}
}

/**
 * One telemetry command through this process's telemetry socket; its JSON reply, or ""
 * (the EAL needs a runtime directory of its own: give the suite its own --file-prefix).
 */
static inline std::string dpdk_test_telemetry(const char *cmd)
{
	struct sockaddr_un sun = {};
	char buf[16384];
	std::string out;
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return out;
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 &&
	    read(fd, buf, sizeof(buf)) > 0 && /* the greeting */
	    write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) &&
	    (n = read(fd, buf, sizeof(buf) - 1)) > 0)
		out.assign(buf, (size_t)n);
	close(fd);
	return out;
}

/** The runtime directory to remove at exit (see dpdk_test_own_prefix()). */
static inline char *dpdk_test_rundir(void)
{
	static char dir[PATH_MAX];

	return dir;
}

/** Remove the runtime directory, empty once telemetry's exit handler removed its socket. */
static inline void dpdk_test_rundir_remove(void)
{
	if (dpdk_test_rundir()[0])
		rmdir(dpdk_test_rundir());
}

/**
 * "--file-prefix=<suite><pid>": a runtime directory of this process's own, so that the
 * telemetry socket is this process's. Call before rte_eal_init() (the exit handler then
 * runs after EAL's own) and dpdk_test_rundir_note() after it.
 */
static inline std::string dpdk_test_own_prefix(const char *suite)
{
	atexit(dpdk_test_rundir_remove);
	return std::string("--file-prefix=") + suite + std::to_string(getpid());
}

/** Note the runtime directory rte_eal_init() made, for removal at exit. */
static inline void dpdk_test_rundir_note(void)
{
	snprintf(dpdk_test_rundir(), PATH_MAX, "%s", rte_eal_get_runtime_dir());
}

#endif /* DPDK_TEST_UTIL_H */
