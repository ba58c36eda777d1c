/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: one instance as its QPs and the other hosts of a fabric reach
 * it. A QP names its host (QpObj::owner); a request to a responder on another host
 * is checked against that host's MR table, completes on that host's CQs, and moves
 * that host's QPs to ERR, as the responder's own device would do it. The device
 * (hca_impl.h) is the one Host there is; only fabric hosts share a lock (fabric.h).
 */
#ifndef MLX5_SIM_HOST_H
#define MLX5_SIM_HOST_H

namespace mlx5sim {

class CqTable;
class EventQueue;
class FabricPort;
class MrTable;
class QpTable;
struct HcaCaps;

/** The objects of one instance that a request from anywhere may touch. */
class Host {
public:
	Host(const HcaCaps &c, MrTable &m, CqTable &cq, QpTable &q, EventQueue &e, FabricPort &p)
		: caps(c), mrt(m), cqs(cq), qps(q), events(e), port(p)
	{
	}
	Host(const Host &) = delete;
	Host &operator=(const Host &) = delete;

	const HcaCaps &caps; /**< what the instance promises (data_in_order, LID, ...) */
	MrTable &mrt;        /**< its keys: the responder checks rkeys and receive lkeys */
	CqTable &cqs;        /**< its CQs: responder CQEs */
	QpTable &qps;        /**< its QPs: the responder, its receive queues, its ERR */
	EventQueue &events;  /**< its async events */
	FabricPort &port;    /**< its port: link state, loss, delay */

	/**
	 * A QP stopped answering (ERR, RESET, destroyed) or a receive WQE arrived:
	 * sends stalled on it are re-evaluated now (inline) or by the next engine pass.
	 */
	virtual void responder_changed() = 0;

protected:
	~Host() = default;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_HOST_H */
