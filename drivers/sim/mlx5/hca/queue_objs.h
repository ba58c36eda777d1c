/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: the queue objects (CQ table cq_table.cpp, SRQ table
 * srq_table.cpp, QP state qp_state.cpp), a CQE held back by DelayCompletions, and
 * the device's asynchronous event queue.
 */
#ifndef MLX5_SIM_QUEUE_OBJS_H
#define MLX5_SIM_QUEUE_OBJS_H

#include <endian.h>
#include <stdint.h>

#include <atomic>
#include <chrono>
#include <deque>

#include "hca.h"
#include "hca_limits.h"

namespace mlx5sim {

class Host;

/** A completion queue. */
struct CqObj {
	CqConfig cfg;
	uint32_t cqn;
	uint32_t pi;        /**< free-running producer counter */
	uint32_t refs;      /**< QPs using it */
	bool error;         /**< overrun happened: CQEs are dropped */
	bool overrun_fault; /**< injected: the next write overruns */
	/* completion events (CqTable::arm) */
	uint8_t arm_sn = 0;         /**< sn the next arm must carry (+1 per event) */
	bool armed = false;         /**< an event is requested */
	bool arm_solicited = false; /**< ... for a solicited or error CQE only */
	uint32_t arm_ci = 0;        /**< ... at this index or later (24 bits) */
	uint32_t solicit_pi = 0;    /**< pi after the last solicited or error CQE */
	uint32_t ci_seen = 0;       /**< consumer counter (dbrec[0]) as last read */
};

/** A shared receive queue. */
struct SrqObj {
	SrqConfig cfg;
	uint32_t srqn;
	uint16_t head;     /**< WQE index the device takes next */
	uint16_t consumed; /**< WQEs taken so far (compared with the counter) */
	uint32_t refs;     /**< QPs using it */
	uint32_t limit;    /**< armed limit (ARM_RQ), 0: not armed */
};

/**
 * What the MMO fast path (wqe_fast.cpp) checked for the last WQE it accepted on a QP:
 * the segment words of that WQE as they lay in the ring, and the bounds its MRs leave.
 * A later WQE with the very same segment words (keys, byte counts, metadata) needs
 * only its two addresses tested, as long as the MR table is the one the checks were
 * made against (MrTable::generation()).
 */
struct FastMemo {
	uint64_t gen;                                 /**< MrTable generation; 0: empty */
	uint64_t meta_key, meta_addr, src_bk, dst_bk; /**< ring words 2, 3, 4, 6 (raw) */
	uint64_t len;
	uint64_t src_base, src_room; /**< src - src_base <= src_room: in the source MR */
	uint64_t dst_base, dst_room;
};

/** A queue pair. */
struct QpObj {
	QpConfig cfg;
	Host *owner; /**< the instance (host.h) the QP belongs to */
	uint32_t qpn;
	CqObj *scq;
	CqObj *rcq;
	SrqObj *srq; /**< receives come from here when set */
	enum ibv_qp_state state;
	uint32_t dest_qpn;
	uint16_t dest_lid; /**< RC: the remote port (0 or the own LID: this instance) */
	uint32_t access_flags;
	uint8_t port_num;
	uint16_t pkey_index;
	uint32_t qkey;         /**< UD: datagrams must carry it (ud.cpp) */
	bool sqd_notify;       /**< raise IBV_EVENT_SQ_DRAINED once drained */
	bool sig_stop;         /**< drain_sigerr: a signature error just completed */
	bool sig_draining;     /**< drain_sigerr: run up to the next FENCE, then SQD */
	uint32_t sq_ci;        /**< free-running WQEBB counter of the next WQE to fetch */
	uint32_t rq_ci;        /**< free-running counter of the next RQ WQE */
	bool stalled;          /**< the WQE at sq_ci waits for a receive WQE (RNR) */
	bool stall_remote;     /**< ... of a responder in another process */
	uint8_t rnr_retry;     /**< RNR retries of a send (HCA_RNR_INFINITE: no limit) */
	uint8_t retry_cnt;     /**< transport retries of a lost request */
	uint8_t min_rnr_timer; /**< as responder: the RNR delay it asks for (IB encoding) */
	uint32_t rnr_naks;     /**< RNR NAKs the stalled head WQE got so far */
	std::chrono::steady_clock::time_point rnr_since; /**< first RNR NAK of the head WQE */
	std::chrono::steady_clock::time_point rnr_due;   /**< its next retry */
	/* faults */
	bool fail_armed;
	bool fail_next;         /**< FailWqe: the next WQE, not the one of fail_idx */
	bool corrupt_sig_armed; /**< CorruptSig: the next WQE through a sig mkey */
	uint16_t fail_idx;
	uint8_t fail_synd;
	uint8_t fail_vendor;
	uint32_t delay_us; /**< DelayCompletions: CQEs are held back this long */
	uint32_t deferred; /**< CQEs of this QP held back right now */
	/* DC */
	uint32_t dci_errored; /**< DCI: streams in error (ERR at 2^log_num_errored) */
	uint16_t dci_err_stream[1u << HCA_DCI_MAX_LOG_ERRORED]; /**< their ids */
	uint64_t dct_key_violations; /**< DCT: DC WQEs dropped for a wrong key */
	uint8_t rnr_peer_timer;      /**< min_rnr_timer of the responder that NAKed the head WQE */
	/** UC responder: where the next chunk of the message it receives from another
	 * process starts (0: a message's first); a chunk that is not it is dropped */
	uint64_t uc_next_off;
	FastMemo fast{}; /**< the MMO fast path's checks, kept from WQE to WQE */
	/** Thread mode: the engine thread that executes it (HcaImpl::pick_engine()); written
	 * under the device mutex, read by the doorbell path without it (HcaImpl::kick()) */
	std::atomic<uint8_t> engine{0};
	/*
	 * Doorbell path, no lock: the only fields the application's doorbell writes, on
	 * a line of their own, so that the engine's writes of the fields above
	 * (sq_ci, ...) do not take it away from the posting core at each doorbell.
	 */
	alignas(64) std::atomic<bool> db_pending{false};
	std::atomic<bool> rq_pending{false};

	/** The SQ producer counter software wrote into the doorbell record. */
	uint16_t sq_producer() const
	{
		return (uint16_t)be32toh(
			__atomic_load_n(&cfg.dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE));
	}
	/** The same for the RQ. */
	uint16_t rq_producer() const
	{
		return (uint16_t)be32toh(
			__atomic_load_n(&cfg.dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE));
	}
};

/** A CQE held back by DelayCompletions. */
struct DeferredCqe {
	std::chrono::steady_clock::time_point due;
	CqObj *cq;
	QpObj *qp;
	uint8_t cqe[64];
	bool solicited; /**< a received message with the SE bit */
};

/** The device's asynchronous events (Hca::get_async_event), under the device lock. */
class EventQueue {
public:
	void push(enum ibv_event_type type, uint32_t qpn, uint32_t cqn, uint32_t srqn = 0)
	{
		q_.push_back(AsyncEvent{type, qpn, cqn, srqn});
		n_.store((uint32_t)q_.size(), std::memory_order_release);
	}
	/** The oldest event into *ev; false when there is none. */
	bool pop(AsyncEvent *ev)
	{
		if (q_.empty())
			return false;
		*ev = q_.front();
		q_.pop_front();
		n_.store((uint32_t)q_.size(), std::memory_order_release);
		return true;
	}
	/**
	 * Without the device lock: no event is queued (one pushed meanwhile is found
	 * by the next look). Drivers poll for events from their data path when idle.
	 */
	bool none() const { return n_.load(std::memory_order_acquire) == 0; }

private:
	std::deque<AsyncEvent> q_;
	std::atomic<uint32_t> n_{0}; /**< q_.size(), written under the device lock */
};

} // namespace mlx5sim

#endif /* MLX5_SIM_QUEUE_OBJS_H */
