/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side of the software HCA: the uverbs ABI as the character device sees it.
 *
 * The ioctl framing (header + attribute array), the object / method / attribute ids,
 * the legacy command numbers carried by INVOKE_WRITE, and the core request and
 * response layouts of the ABI in rdma-core's kernel-headers/rdma/ (ib_user_verbs.h,
 * ib_user_ioctl_cmds.h, rdma_user_ioctl_cmds.h), written as our own structs. Every
 * struct is checked against the size the kernel ABI has; all fields are host-endian
 * except the GUIDs (big-endian).
 */
#ifndef MLX5_SIM_KERNEL_UVERBS_ABI_H
#define MLX5_SIM_KERNEL_UVERBS_ABI_H

#include <stddef.h>
#include <stdint.h>

namespace mlx5sim {
namespace kernel {

/* ---- framing: ioctl(fd, RDMA_VERBS_IOCTL, hdr) ----------------------------------- */

/** _IOWR(0x1b, 1, 24-byte header) */
constexpr unsigned long kRdmaVerbsIoctl = 0xc0181b01ul;

struct UverbsIoctlHdr {
	uint16_t length; /**< 24 + 16 * num_attrs */
	uint16_t object_id;
	uint16_t method_id;
	uint16_t num_attrs;
	uint64_t reserved1;
	uint32_t driver_id; /**< 1 = RDMA_DRIVER_MLX5 */
	uint32_t reserved2;
};
static_assert(sizeof(UverbsIoctlHdr) == 24, "ib_uverbs_ioctl_hdr");

struct UverbsAttr {
	uint16_t attr_id;
	uint16_t len;
	uint16_t flags;     /**< kAttrMandatory, kAttrValidOutput */
	uint16_t attr_data; /**< enum attrs: elem_id in the low byte; else 0 */
	uint64_t data;      /**< inline value, user pointer, handle or fd */
};
static_assert(sizeof(UverbsAttr) == 16, "ib_uverbs_attr");
static_assert(offsetof(UverbsAttr, data) == 8, "ib_uverbs_attr.data");

constexpr uint16_t kAttrMandatory = 1u << 0;
constexpr uint16_t kAttrValidOutput = 1u << 1;
/** The kernel refuses headers longer than a page. */
constexpr size_t kMaxIoctlLength = 4096;
constexpr uint32_t kDriverIdMlx5 = 1;

/* ---- ids: bits 15..12 name space (0 core, 1 driver) ----------------------------- */

enum : uint16_t {
	OBJ_DEVICE = 0,
	OBJ_PD = 1,
	OBJ_COMP_CHANNEL = 2,
	OBJ_CQ = 3,
	OBJ_QP = 4,
	OBJ_SRQ = 5,
	OBJ_AH = 6,
	OBJ_MR = 7,
	OBJ_ASYNC_EVENT = 0x10,
	OBJ_MLX5_DEVX = 0x1000,
	OBJ_MLX5_DEVX_OBJ = 0x1001,
	OBJ_MLX5_UAR = 0x1008,
};

enum : uint16_t {
	/* DEVICE */
	M_DEVICE_INVOKE_WRITE = 0,
	M_DEVICE_INFO_HANDLES = 1,
	M_DEVICE_QUERY_PORT = 2,
	M_DEVICE_GET_CONTEXT = 3,
	M_DEVICE_QUERY_CONTEXT = 4,
	M_DEVICE_QUERY_GID_TABLE = 5,
	M_DEVICE_QUERY_GID_ENTRY = 6,
	M_DEVICE_MLX5_QUERY_PORT = 0x1000,
	/* PD, MR, CQ, QP */
	M_PD_DESTROY = 0,
	M_MR_DESTROY = 1,
	M_MR_ADVISE = 2,
	M_CQ_CREATE = 0,
	M_CQ_DESTROY = 1,
	M_QP_CREATE = 0,
	M_QP_DESTROY = 1,
	M_SRQ_CREATE = 0,
	M_SRQ_DESTROY = 1,
	/* ASYNC_EVENT */
	M_ASYNC_EVENT_ALLOC = 0,
	/* mlx5 DEVX, UAR */
	M_DEVX_OTHER = 0x1000,
	M_DEVX_OBJ_MODIFY = 0x1002,
	M_DEVX_OBJ_CREATE = 0x1000,
	M_DEVX_OBJ_DESTROY = 0x1001,
	M_DEVX_OBJ_QUERY = 0x1003,
	M_UAR_ALLOC = 0x1000,
	M_UAR_DESTROY = 0x1001,
};

/** Attribute ids shared by every method carrying driver data. */
constexpr uint16_t kAttrUhwIn = 0x1000;
constexpr uint16_t kAttrUhwOut = 0x1001;

enum : uint16_t {
	/* INVOKE_WRITE */
	A_WRITE_CORE_IN = 0,
	A_WRITE_CORE_OUT = 1,
	A_WRITE_CMD = 2,
	/* QUERY_PORT */
	A_QUERY_PORT_NUM = 0,
	A_QUERY_PORT_RESP = 1,
	/* GET_CONTEXT / QUERY_CONTEXT */
	A_CTX_NUM_COMP_VECTORS = 0,
	A_CTX_CORE_SUPPORT = 1,
	A_QUERY_CTX_MLX5_RESP_UCTX = 0x1000,
	/* QUERY_GID_TABLE */
	A_GID_TABLE_ENTRY_SIZE = 0,
	A_GID_TABLE_FLAGS = 1,
	A_GID_TABLE_RESP_ENTRIES = 2,
	A_GID_TABLE_RESP_NUM_ENTRIES = 3,
	/* QUERY_GID_ENTRY */
	A_GID_ENTRY_PORT = 0,
	A_GID_ENTRY_GID_INDEX = 1,
	A_GID_ENTRY_FLAGS = 2,
	A_GID_ENTRY_RESP_ENTRY = 3,
	/* mlx5 QUERY_PORT */
	A_MLX5_QUERY_PORT_NUM = 0x1000,
	A_MLX5_QUERY_PORT_RESP = 0x1001,
	/* PD / MR DESTROY, ASYNC_EVENT ALLOC */
	A_DESTROY_HANDLE = 0,
	A_DESTROY_RESP = 1, /**< CQ / QP: the events reported */
	/* MR ADVISE_MR */
	A_ADVISE_MR_PD = 0,
	A_ADVISE_MR_ADVICE = 1,
	A_ADVISE_MR_FLAGS = 2,
	A_ADVISE_MR_SGE_LIST = 3,
	/* CQ CREATE */
	A_CQ_HANDLE = 0,
	A_CQ_CQE = 1,
	A_CQ_USER_HANDLE = 2,
	A_CQ_COMP_CHANNEL = 3,
	A_CQ_COMP_VECTOR = 4,
	A_CQ_FLAGS = 5,
	A_CQ_RESP_CQE = 6,
	A_CQ_EVENT_FD = 7,
	/* QP CREATE */
	A_QP_HANDLE = 0,
	A_QP_XRCD = 1,
	A_QP_PD = 2,
	A_QP_SRQ = 3,
	A_QP_SEND_CQ = 4,
	A_QP_RECV_CQ = 5,
	A_QP_IND_TABLE = 6,
	A_QP_USER_HANDLE = 7,
	A_QP_CAP = 8,
	A_QP_TYPE = 9,
	A_QP_FLAGS = 0xa,
	A_QP_SOURCE_QPN = 0xb,
	A_QP_EVENT_FD = 0xc,
	A_QP_RESP_CAP = 0xd,
	A_QP_RESP_QP_NUM = 0xe,
	/* SRQ CREATE (DESTROY: A_DESTROY_HANDLE, A_DESTROY_RESP) */
	A_SRQ_HANDLE = 0,
	A_SRQ_PD = 1,
	A_SRQ_XRCD = 2,
	A_SRQ_CQ = 3,
	A_SRQ_USER_HANDLE = 4,
	A_SRQ_MAX_WR = 5,
	A_SRQ_MAX_SGE = 6,
	A_SRQ_LIMIT = 7,
	A_SRQ_MAX_NUM_TAGS = 8,
	A_SRQ_TYPE = 9,
	A_SRQ_EVENT_FD = 0xa,
	A_SRQ_RESP_MAX_WR = 0xb,
	A_SRQ_RESP_MAX_SGE = 0xc,
	A_SRQ_RESP_SRQ_NUM = 0xd,
	A_ASYNC_EVENT_FD = 0,
	/* DEVX OTHER */
	A_DEVX_CMD_IN = 0x1000,
	A_DEVX_CMD_OUT = 0x1001,
	/* DEVX_OBJ MODIFY: the object (any type: a QP here), command in, out */
	A_DEVX_MODIFY_HANDLE = 0x1000,
	A_DEVX_MODIFY_CMD_IN = 0x1001,
	A_DEVX_MODIFY_CMD_OUT = 0x1002,
	/* DEVX_OBJ CREATE (new handle) / QUERY (any object) / DESTROY: the same ids */
	A_DEVX_OBJ_HANDLE = 0x1000,
	A_DEVX_OBJ_CMD_IN = 0x1001,
	A_DEVX_OBJ_CMD_OUT = 0x1002,
	/* UAR ALLOC / DESTROY */
	A_UAR_HANDLE = 0x1000,
	A_UAR_TYPE = 0x1001,
	A_UAR_MMAP_OFFSET = 0x1002,
	A_UAR_MMAP_LENGTH = 0x1003,
	A_UAR_PAGE_ID = 0x1004,
};

/** GET_CONTEXT CORE_SUPPORT: optional MR access flags are passed, not cleared. */
constexpr uint64_t kCoreSupportOptionalMrAccess = 1u << 0;

/* ---- legacy commands (INVOKE_WRITE WRITE_CMD) -------------------------------------- */

constexpr uint32_t kWriteCmdExtended = 0x80000000u;
enum : uint32_t {
	WCMD_GET_CONTEXT = 0,
	WCMD_QUERY_DEVICE = 1,
	WCMD_QUERY_PORT = 2,
	WCMD_ALLOC_PD = 3,
	WCMD_DEALLOC_PD = 4,
	WCMD_REG_MR = 9,
	WCMD_REREG_MR = 11,
	WCMD_DEREG_MR = 13,
	WCMD_CREATE_COMP_CHANNEL = 17, /**< response {u32 fd}: the kernel makes the fd */
	WCMD_RESIZE_CQ = 19,
	WCMD_QUERY_QP = 25,
	WCMD_MODIFY_QP = 26,
	WCMD_MODIFY_SRQ = 33,
	WCMD_QUERY_SRQ = 34,
	WCMD_EX_QUERY_DEVICE = kWriteCmdExtended | 1,
	WCMD_EX_MODIFY_QP = kWriteCmdExtended | 26,
};

/* ---- core request / response layouts --------------------------------------------- */

/** Requests of commands with a response start with its (legacy) user pointer. */
struct CmdResponsePtr {
	uint64_t response;
};
static_assert(sizeof(CmdResponsePtr) == 8, "ib_uverbs_query_device / alloc_pd");

struct QueryDeviceResp {
	uint64_t fw_ver;
	uint64_t node_guid;      /**< big-endian */
	uint64_t sys_image_guid; /**< big-endian */
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t device_cap_flags;
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_ee_rd_atom;
	uint32_t max_res_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_ee_init_rd_atom;
	uint32_t atomic_cap;
	uint32_t max_ee;
	uint32_t max_rdd;
	uint32_t max_mw;
	uint32_t max_raw_ipv6_qp;
	uint32_t max_raw_ethy_qp;
	uint32_t max_mcast_grp;
	uint32_t max_mcast_qp_attach;
	uint32_t max_total_mcast_qp_attach;
	uint32_t max_ah;
	uint32_t max_fmr;
	uint32_t max_map_per_fmr;
	uint32_t max_srq;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
	uint8_t reserved[4];
};
static_assert(sizeof(QueryDeviceResp) == 176, "ib_uverbs_query_device_resp");

/** EX_QUERY_DEVICE request (without headers). */
struct ExQueryDevice {
	uint32_t comp_mask;
	uint32_t reserved;
};
static_assert(sizeof(ExQueryDevice) == 8, "ib_uverbs_ex_query_device");

struct ExQueryDeviceResp {
	QueryDeviceResp base;
	uint32_t comp_mask;
	uint32_t response_length; /**< libibverbs uses a field only if this covers it */
	struct {
		uint64_t general_caps;
		uint32_t rc_odp_caps;
		uint32_t uc_odp_caps;
		uint32_t ud_odp_caps;
		uint32_t reserved;
	} odp_caps;
	uint64_t timestamp_mask;
	uint64_t hca_core_clock; /**< kHz */
	uint64_t device_cap_flags_ex;
	struct {
		uint32_t supported_qpts;
		uint32_t max_rwq_indirection_tables;
		uint32_t max_rwq_indirection_table_size;
		uint32_t reserved;
	} rss_caps;
	uint32_t max_wq_type_rq;
	uint32_t raw_packet_caps;
	struct {
		uint32_t max_rndv_hdr_size;
		uint32_t max_num_tags;
		uint32_t flags;
		uint32_t max_ops;
		uint32_t max_sge;
		uint32_t reserved;
	} tm_caps;
	struct {
		uint16_t max_cq_moderation_count;
		uint16_t max_cq_moderation_period;
		uint32_t reserved;
	} cq_moderation_caps;
	uint64_t max_dm_size;
	uint32_t xrc_odp_caps;
	uint32_t reserved;
};
static_assert(sizeof(ExQueryDeviceResp) == 304, "ib_uverbs_ex_query_device_resp");
static_assert(offsetof(ExQueryDeviceResp, odp_caps) == 184, "odp_caps");
static_assert(offsetof(ExQueryDeviceResp, timestamp_mask) == 208, "timestamp_mask");
static_assert(offsetof(ExQueryDeviceResp, device_cap_flags_ex) == 224, "device_cap_flags_ex");
static_assert(offsetof(ExQueryDeviceResp, tm_caps) == 256, "tm_caps");
static_assert(offsetof(ExQueryDeviceResp, max_dm_size) == 288, "max_dm_size");

/** QUERY_PORT (legacy) request. */
struct QueryPortCmd {
	uint64_t response;
	uint8_t port_num;
	uint8_t reserved[7];
};
static_assert(sizeof(QueryPortCmd) == 16, "ib_uverbs_query_port");

struct QueryPortResp {
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint32_t gid_tbl_len;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t state;
	uint8_t max_mtu;
	uint8_t active_mtu;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer; /**< 1 = InfiniBand, 2 = Ethernet */
	uint8_t flags;
	uint8_t reserved;
};
static_assert(sizeof(QueryPortResp) == 40, "ib_uverbs_query_port_resp");
static_assert(offsetof(QueryPortResp, state) == 26, "query_port_resp.state");
static_assert(offsetof(QueryPortResp, link_layer) == 37, "query_port_resp.link_layer");

/** The ioctl QUERY_PORT response: legacy + port_cap_flags2. */
struct QueryPortRespEx {
	QueryPortResp legacy;
	uint16_t port_cap_flags2;
	uint8_t reserved[6];
};
static_assert(sizeof(QueryPortRespEx) == 48, "ib_uverbs_query_port_resp_ex");

struct GidEntry {
	uint64_t gid[2]; /**< network order bytes */
	uint32_t gid_index;
	uint32_t port_num;
	uint32_t gid_type; /**< 0 IB, 1 RoCE v1, 2 RoCE v2 */
	uint32_t netdev_ifindex;
};
static_assert(sizeof(GidEntry) == 32, "ib_uverbs_gid_entry");

struct AllocPdResp {
	uint32_t pd_handle;
};
static_assert(sizeof(AllocPdResp) == 4, "ib_uverbs_alloc_pd_resp");

struct DeallocPdCmd {
	uint32_t pd_handle;
};
static_assert(sizeof(DeallocPdCmd) == 4, "ib_uverbs_dealloc_pd");

struct RegMrCmd {
	uint64_t response;
	uint64_t start;
	uint64_t length;
	uint64_t hca_va;
	uint32_t pd_handle;
	uint32_t access_flags;
};
static_assert(sizeof(RegMrCmd) == 40, "ib_uverbs_reg_mr");

struct RegMrResp {
	uint32_t mr_handle;
	uint32_t lkey;
	uint32_t rkey;
};
static_assert(sizeof(RegMrResp) == 12, "ib_uverbs_reg_mr_resp");

struct ReregMrCmd {
	uint64_t response;
	uint32_t mr_handle;
	uint32_t flags; /**< IBV_REREG_MR_CHANGE_TRANSLATION / _PD / _ACCESS */
	uint64_t start;
	uint64_t length;
	uint64_t hca_va;
	uint32_t pd_handle;
	uint32_t access_flags;
};
static_assert(sizeof(ReregMrCmd) == 48, "ib_uverbs_rereg_mr");

struct ReregMrResp {
	uint32_t lkey;
	uint32_t rkey;
};
static_assert(sizeof(ReregMrResp) == 8, "ib_uverbs_rereg_mr_resp");

/** ADVISE_MR: one entry of the SGE list (ib_uverbs_sge). */
struct UverbsSge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};
static_assert(sizeof(UverbsSge) == 16, "ib_uverbs_sge");
constexpr uint32_t kAdviseMrPrefetchNoFault = 2; /**< advices 0..2: PREFETCH(_WRITE, _NO_FAULT) */
constexpr uint32_t kAdviseMrFlagFlush = 1u << 0;

struct DeregMrCmd {
	uint32_t mr_handle;
};
static_assert(sizeof(DeregMrCmd) == 4, "ib_uverbs_dereg_mr");

/** QP and CQ creation: the QP type of the ioctl (ib_uverbs_qp_type). */
constexpr uint32_t kUverbsQptRc = 2;
constexpr uint32_t kUverbsQptUc = 3;
constexpr uint32_t kUverbsQptUd = 4;
/** QP/CREATE FLAGS: every send WR signaled (ib_uverbs_qp_create_flags). */
constexpr uint32_t kQpCreateSqSigAll = 1u << 12;
/** QP/CREATE FLAGS: no multicast loopback (nothing to block: no multicast modelled). */
constexpr uint32_t kQpCreateBlockMcastLb = 1u << 1;

struct QpCap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};
static_assert(sizeof(QpCap) == 20, "ib_uverbs_qp_cap");

/** The address of a QP's path (modify / query). */
struct QpDest {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint16_t dlid;
	uint16_t reserved;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};
static_assert(sizeof(QpDest) == 32, "ib_uverbs_qp_dest");

struct ModifyQpCmd {
	QpDest dest;
	QpDest alt_dest;
	uint32_t qp_handle;
	uint32_t attr_mask; /**< IBV_QP_* */
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t path_mig_state;
	uint8_t en_sqd_async_notify;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t reserved[2];
};
static_assert(sizeof(ModifyQpCmd) == 112, "ib_uverbs_modify_qp");
static_assert(offsetof(ModifyQpCmd, qp_handle) == 64, "modify_qp.qp_handle");

/** EX_MODIFY_QP request (without headers): MODIFY_QP's and a rate limit. */
struct ExModifyQp {
	ModifyQpCmd base;
	uint32_t rate_limit;
	uint32_t reserved;
};
static_assert(sizeof(ExModifyQp) == 120, "ib_uverbs_ex_modify_qp");

struct ExModifyQpResp {
	uint32_t comp_mask;
	uint32_t response_length;
};
static_assert(sizeof(ExModifyQpResp) == 8, "ib_uverbs_ex_modify_qp_resp");

struct QueryQpCmd {
	uint64_t response;
	uint32_t qp_handle;
	uint32_t attr_mask;
};
static_assert(sizeof(QueryQpCmd) == 16, "ib_uverbs_query_qp");

struct QueryQpResp {
	QpDest dest;
	QpDest alt_dest;
	QpCap cap;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t path_mig_state;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t sq_sig_all;
	uint8_t reserved[5];
};
static_assert(sizeof(QueryQpResp) == 128, "ib_uverbs_query_qp_resp");
static_assert(offsetof(QueryQpResp, qp_state) == 108, "query_qp_resp.qp_state");

/** SRQ/CREATE TYPE: basic SRQs (XRC 1 and tag matching 2 are not modelled). */
constexpr uint32_t kUverbsSrqtBasic = 0;

struct ModifySrqCmd {
	uint32_t srq_handle;
	uint32_t attr_mask; /**< IBV_SRQ_MAX_WR (resize), IBV_SRQ_LIMIT (arm) */
	uint32_t max_wr;
	uint32_t srq_limit;
};
static_assert(sizeof(ModifySrqCmd) == 16, "ib_uverbs_modify_srq");

struct QuerySrqCmd {
	uint64_t response;
	uint32_t srq_handle;
	uint32_t reserved;
};
static_assert(sizeof(QuerySrqCmd) == 16, "ib_uverbs_query_srq");

struct QuerySrqResp {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
	uint32_t reserved;
};
static_assert(sizeof(QuerySrqResp) == 16, "ib_uverbs_query_srq_resp");

struct ResizeCqCmd {
	uint64_t response;
	uint32_t cq_handle;
	uint32_t cqe;
};
static_assert(sizeof(ResizeCqCmd) == 16, "ib_uverbs_resize_cq");

struct ResizeCqResp {
	uint32_t cqe;
	uint32_t reserved;
};
static_assert(sizeof(ResizeCqResp) == 8, "ib_uverbs_resize_cq_resp");

/** DESTROY responses: the events the object raised (libibverbs waits for their acks). */
struct DestroyCqResp {
	uint32_t comp_events_reported;
	uint32_t async_events_reported;
};
static_assert(sizeof(DestroyCqResp) == 8, "ib_uverbs_destroy_cq_resp");

/** One read() of the async event fd. */
struct AsyncEventDesc {
	uint64_t element; /**< the object's user handle, or the port number */
	uint32_t event_type;
	uint32_t reserved;
};
static_assert(sizeof(AsyncEventDesc) == 16, "ib_uverbs_async_event_desc");

} // namespace kernel
} // namespace mlx5sim

#endif /* MLX5_SIM_KERNEL_UVERBS_ABI_H */
