/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Messages of the machine-wide simulated fabric (xfabric.cpp): one request and
 * one reply per SOCK_SEQPACKET message, between the requester host's engine and
 * the responder host's process. Both ends are the same library on the same
 * machine, so fields are host-endian; the magic changes with the layout.
 */
#ifndef MLX5_SIM_FABRIC_WIRE_H
#define MLX5_SIM_FABRIC_WIRE_H

#include <stdint.h>

namespace mlx5sim {

/** "mx5F" + layout version 1. */
constexpr uint32_t XF_MAGIC = 0x6d783546u + 1;
/** Data bytes one message carries; a longer RDMA write or read takes several. */
constexpr uint32_t XF_CHUNK = 64 * 1024;

/** XfReq::flags */
enum : uint8_t {
	XF_REQ_DC = 1 << 0,   /**< dqpn is a DCT, dc_key is checked */
	XF_REQ_LAST = 1 << 1, /**< the message's last chunk (WRITE_IMM consumes a receive) */
	XF_REQ_SE = 1 << 2,   /**< the WQE's solicited event bit (responder CQ events) */
	XF_REQ_UD = 1 << 3,   /**< a datagram: dc_key is the Q_Key, rsvd the SL; no reply status */
	XF_REQ_UC = 1 << 4,   /**< UC: a message the responder cannot take is lost, no status */
};

/** A request: RDMA write / read chunk, SEND, atomic. Data follows for writes and sends. */
struct XfReq {
	uint32_t magic;
	uint8_t opcode;    /**< MLX5_OPCODE_* of the requester's WQE */
	uint8_t flags;     /**< XF_REQ_* */
	uint8_t retry_cnt; /**< the requester QP's transport retries (loss draws) */
	uint8_t rsvd;
	uint64_t seq;  /**< echoed by the reply */
	uint16_t dlid; /**< the responder host */
	uint16_t slid; /**< the requester host */
	uint32_t dqpn; /**< RC: the responder QP; DC: the DCT number */
	uint32_t sqpn; /**< the requester QP (responder CQEs) */
	uint32_t imm;  /**< ctrl imm as in the WQE */
	uint64_t dc_key;
	uint64_t raddr; /**< remote address of the whole message */
	uint32_t rkey;
	uint32_t len;   /**< data bytes of this chunk */
	uint64_t total; /**< bytes of the whole message */
	uint64_t off;   /**< this chunk's offset in the message */
	uint64_t swap_add;
	uint64_t compare;
};
static_assert(sizeof(XfReq) == 88, "XfReq layout");

/** XfRep::status */
enum : uint8_t {
	XF_REP_DONE = 0,  /**< executed; syndrome 0 or the requester's error */
	XF_REP_STALL = 1, /**< RNR NAK: no receive WQE; rnr_timer paces the retries */
};

/** A reply: status, the requester's syndrome, and read data or the atomic's old value. */
struct XfRep {
	uint32_t magic;
	uint8_t status;    /**< XF_REP_* */
	uint8_t syndrome;  /**< MLX5_CQE_SYNDROME_* for the requester (0: success) */
	uint8_t vendor;    /**< vendor syndrome */
	uint8_t rnr_timer; /**< XF_REP_STALL: the responder's min_rnr_timer */
	uint64_t seq;
	uint64_t atomic_old; /**< the responder's old value (host-endian as in memory) */
	uint32_t len;        /**< read data bytes that follow */
	uint32_t delay_us;   /**< the responder's link delay (its CQE waits for it) */
};
static_assert(sizeof(XfRep) == 32, "XfRep layout");

} // namespace mlx5sim

#endif /* MLX5_SIM_FABRIC_WIRE_H */
