/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software fabric's connection manager on the wire: one SOCK_SEQPACKET connection
 * per rdma-cm connection to an abstract UNIX socket "mlx5-sim-cm/<fabric>/<lid>/<port>"
 * of the listener, carrying fixed-size records that stand for the IB CM's REQ, REP,
 * RTU, REJ, DREQ, DREP (and SIDR REQ/REP). Spoken by the kernel side's ucma
 * (drivers/sim/mlx5/kernel/ucma.cpp, for librdmacm) and by the embedded backend's
 * connection manager (drivers/sim/mlx5/provider/sim_cm.cpp), so that processes of
 * either kind meet on one fabric (doc/guides/sim/kernel_side.rst, "rdma-cm").
 */
#ifndef MLX5_SIM_CM_WIRE_H
#define MLX5_SIM_CM_WIRE_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <chrono>

namespace mlx5sim {
namespace cm {

enum MsgType : uint8_t {
	MSG_REQ = 1,
	MSG_REP,
	MSG_RTU,
	MSG_REJ,
	MSG_DREQ,
	MSG_DREP,
	MSG_SIDR_REQ, /* UD port space: no connection, one request and its answer */
	MSG_SIDR_REP
};
constexpr uint32_t kMsgMagic = 0x6d43536d; /* "mSCm" */

struct Msg {
	uint32_t magic;
	uint8_t type;
	uint8_t pd_len;
	uint8_t resp_res;
	uint8_t init_depth;
	uint8_t retry;
	uint8_t rnr_retry;
	uint8_t flow_control;
	uint8_t srq;
	uint16_t slid;
	uint16_t sport; /* REQ: the requester's address */
	uint32_t sip;   /* network order */
	uint64_t sguid; /* the sender's node GUID, for the path's GIDs */
	uint32_t qpn;
	uint32_t psn;
	uint32_t reason; /* REJ reason, SIDR REP status */
	uint8_t pd[256];
	uint32_t qkey; /* SIDR REP */
};

/** The listener socket of @p lid and @p port on @p fabric (UDP: "/ud" after the port). */
inline socklen_t sock_addr(const char *fabric, uint16_t lid, uint16_t port, struct sockaddr_un *a,
			   bool ud = false)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "mlx5-sim-cm/%s/%u/%u%s", fabric,
			 (unsigned)lid, (unsigned)port, ud ? "/ud" : "");
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/*
 * How long a connection waits for the peer's next record (REQ, REP or RTU) before it
 * is given up: the kernel's CM gives up after its retries (rdma_cm's
 * CMA_CM_RESPONSE_TIMEOUT 20, i.e. 4.3 s, times CMA_MAX_CM_RETRIES 15: about 70 s).
 * MLX5_SIM_RDMA_CM_TIMEOUT_MS sets it, for both connection managers.
 */
inline std::chrono::milliseconds cm_timeout()
{
	static const long ms = [] {
		const char *e = getenv("MLX5_SIM_RDMA_CM_TIMEOUT_MS");
		long v = e ? strtol(e, nullptr, 10) : 0;
		return v > 0 ? v : 70000L;
	}();
	return std::chrono::milliseconds(ms);
}

} // namespace cm
} // namespace mlx5sim

#endif /* MLX5_SIM_CM_WIRE_H */
