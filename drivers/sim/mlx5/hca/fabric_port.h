/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the fabric endpoint of one instance, its port. Which host a
 * LID names (this one, another of the process: fabric.cpp, or one of another
 * process: xfabric.cpp), whether a request gets there (link up, loss draws, the
 * responder's connection), how long it takes, and requests that leave or enter
 * the process. Under the device lock, except join() and leave(), which take it.
 */
#ifndef MLX5_SIM_FABRIC_PORT_H
#define MLX5_SIM_FABRIC_PORT_H

#include <stdint.h>

namespace mlx5sim {

class DevMutex;
class Host;
enum class ExecMode : uint8_t;
enum class PlanResult : uint8_t;
struct DevStats;
struct HcaCaps;
struct Plan;
struct PlanError;
struct QpObj;
struct XfRep;
struct XfReq;

/** The port of one instance on its fabric (caps.fabric; alone otherwise). */
class FabricPort {
public:
	FabricPort(const HcaCaps &caps, ExecMode mode, Host &host, DevMutex &mu, DevStats &stats)
		: caps_(caps), mode_(mode), host_(host), mu_(mu), st_(stats)
	{
	}
	FabricPort(const FabricPort &) = delete;
	FabricPort &operator=(const FabricPort &) = delete;

	/* ---- fabric.cpp ---- */
	/** Join the process's fabric (caps.fabric); -EEXIST when the LID is taken. */
	int join();
	/** Leave it: no other host reaches this one afterwards. */
	void leave();
	/** Hca::set_link(); takes the device lock. */
	int set_link(bool down, uint32_t loss_ppm, uint64_t seed, uint32_t delay_us);
	/**
	 * The host whose port has LID @p lid: this one for 0 or its own LID, another
	 * fabric host, or NULL (nobody there).
	 */
	Host *host_of(uint16_t lid);
	/** QP @p qpn of the host at LID @p lid (that host in *host), or NULL. */
	QpObj *qp_at(uint16_t lid, uint32_t qpn, Host **host);
	/** Host::responder_changed() on every fabric host (this one alone if not on it). */
	void responders_changed_everywhere();
	/**
	 * A request of @p qp to @p host gets there within its retries (links up,
	 * not every attempt lost); false: RETRY_EXC.
	 */
	bool request_reaches(const QpObj *qp, Host *host);
	/** The delay of a request to @p host: both links' (0 in inline mode, or to itself). */
	uint32_t link_delay(const Host *host) const;
	/**
	 * RC QP @p resp of this host answers a request of QP @p sqpn at LID @p slid:
	 * it answers (responder_alive), is an RC QP, and that is the peer its RTR
	 * attributes name (dest_lid 0: this host). Anything else is dropped.
	 */
	bool rc_accepts(const QpObj *resp, uint16_t slid, uint32_t sqpn) const;

	/* ---- xfabric.cpp: the machine-wide fabric (caps.fabric_name) ---- */
	/** Remote WQE @p pl of @p qp goes to a host of another process. */
	bool leaves_process(const QpObj *qp, const Plan *pl);
	/**
	 * Execute remote WQE @p pl (local segments planned, transport segments at
	 * @p seg) at a host of another process, now: Ok (nothing left to move), Stall
	 * (RNR) or Error. The caller plans it as the head of its group, so every earlier
	 * WQE has executed and no later one has.
	 */
	PlanResult xfabric_execute(QpObj *qp, Plan *pl, uint32_t seg, PlanError *err);
	/**
	 * Responder side: execute request @p rq on this host into *rep (and @p out).
	 * Returns the QP whose responder CQE (from @p pl) the caller writes once the
	 * reply is sent, or NULL.
	 */
	QpObj *xfabric_serve(const XfReq &rq, const uint8_t *data, XfRep *rep, uint8_t *out,
			     Plan *pl);
	/** Responder side of a UD datagram (rq.flags XF_REQ_UD): delivered or dropped. */
	void xfabric_serve_ud(const XfReq &rq, const uint8_t *data, XfRep *rep, Plan *pl);
	/** Responder side of a UC message chunk (rq.flags XF_REQ_UC): taken or lost. */
	void xfabric_serve_uc(const XfReq &rq, const uint8_t *data, XfRep *rep, Plan *pl);
	/** The listening socket of this host's LID on the machine-wide fabric, or -1. */
	int xport_fd = -1;

private:
	/** A request with @p retry_cnt retries gets through this host's link (loss draws). */
	bool request_survives(uint8_t retry_cnt);

	const HcaCaps &caps_;
	const ExecMode mode_;
	Host &host_; /**< the instance this is the port of */
	DevMutex &mu_;
	DevStats &st_;
	/* the link (set_link) */
	bool link_down_ = false;
	uint32_t loss_ppm_ = 0;
	uint64_t loss_rng_ = 1;
	uint32_t link_delay_us_ = 0; /**< requests to this host complete this much later */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_FABRIC_PORT_H */
