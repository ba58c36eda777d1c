/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Kernel side of the software HCA: mlx5 driver data (the UHW_IN / UHW_OUT attributes)
 * and the PRM boxes of the DevX commands libmlx5 sends while opening a context.
 *
 * Layouts of rdma-core's kernel-headers/rdma/mlx5-abi.h, mlx5_user_ioctl_verbs.h and
 * providers/mlx5/mlx5_ifc.h, written as our own structs and field offsets; each
 * struct is checked against the size the ABI has. PRM boxes are
 * big-endian with MSB-first bit numbering: prm_set() writes a field given its bit
 * offset and width as the PRM lists them.
 */
#ifndef MLX5_SIM_KERNEL_MLX5_ABI_H
#define MLX5_SIM_KERNEL_MLX5_ABI_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace mlx5sim {
namespace kernel {

/* ---- alloc_ucontext (GET_CONTEXT driver data) ------------------------------------- */

struct Mlx5AllocUcontextReq {
	uint32_t total_num_bfregs;
	uint32_t num_low_latency_bfregs;
	uint32_t flags; /**< kUctxDevx */
	uint32_t comp_mask;
	uint8_t max_cqe_version;
	uint8_t reserved0;
	uint16_t reserved1;
	uint32_t reserved2;
	uint64_t lib_caps; /**< kLibCap4kUar | kLibCapDynUar */
};
static_assert(sizeof(Mlx5AllocUcontextReq) == 32, "mlx5_ib_alloc_ucontext_req_v2");
/** Request sizes libmlx5 retries with: up to max_cqe_version, up to lib_caps. */
constexpr size_t kUctxReqMin = offsetof(Mlx5AllocUcontextReq, max_cqe_version);
constexpr size_t kUctxReqNoLibCaps = offsetof(Mlx5AllocUcontextReq, lib_caps);
static_assert(kUctxReqMin == 16 && kUctxReqNoLibCaps == 24, "retry sizes");

constexpr uint32_t kUctxDevx = 1u << 0;
constexpr uint64_t kLibCap4kUar = 1u << 0;
constexpr uint64_t kLibCapDynUar = 1u << 1;

struct Mlx5AllocUcontextResp {
	uint32_t qp_tab_size;
	uint32_t bf_reg_size;     /**< 0: no BlueFlame, QPs ring the NC UAR */
	uint32_t tot_bfregs;      /**< 0 with dynamic UARs */
	uint32_t cache_line_size; /**< doorbell record slot size */
	uint16_t max_sq_desc_sz;
	uint16_t max_rq_desc_sz;
	uint32_t max_send_wqebb;
	uint32_t max_recv_wr;
	uint32_t max_srq_recv_wr;
	uint16_t num_ports;
	uint16_t flow_action_flags;
	uint32_t comp_mask; /**< kUctxResp* */
	uint32_t response_length;
	uint8_t cqe_version;
	uint8_t cmds_supp_uhw; /**< bit0 QUERY_DEVICE driver data */
	uint8_t eth_min_inline;
	uint8_t clock_info_versions;
	uint64_t hca_core_clock_offset;
	uint32_t log_uar_size;
	uint32_t num_uars_per_page;
	uint32_t num_dyn_bfregs;
	uint32_t dump_fill_mkey;
};
static_assert(sizeof(Mlx5AllocUcontextResp) == 72, "mlx5_ib_alloc_ucontext_resp");
static_assert(offsetof(Mlx5AllocUcontextResp, cqe_version) == 44, "cqe_version");
static_assert(offsetof(Mlx5AllocUcontextResp, hca_core_clock_offset) == 48, "clock offset");

constexpr uint32_t kUctxRespSqd2Rts = 1u << 3;
constexpr uint8_t kCmdsSuppUhwQueryDevice = 1u << 0;

/* ---- driver data of queries and PDs ----------------------------------------------- */

struct Mlx5QueryDeviceResp {
	uint32_t comp_mask;
	uint32_t response_length;
	uint32_t tso_max;
	uint32_t tso_supported_qpts;
	uint64_t rss_rx_hash_fields_mask;
	uint8_t rss_rx_hash_function;
	uint8_t rss_reserved[7];
	uint32_t cqe_comp_max_num;
	uint32_t cqe_comp_supported_format;
	uint32_t pp_qp_rate_limit_min;
	uint32_t pp_qp_rate_limit_max;
	uint32_t pp_supported_qpts;
	uint8_t pp_cap_flags;
	uint8_t pp_reserved[3];
	uint32_t support_multi_pkt_send_wqes;
	uint32_t flags;
	uint32_t sw_parsing_offloads;
	uint32_t sw_parsing_supported_qpts;
	uint32_t striding_rq[6];
	uint32_t tunnel_offloads_caps;
	uint8_t dci_max_log_num_concurent;
	uint8_t dci_max_log_num_errored;
	uint16_t reserved;
};
static_assert(sizeof(Mlx5QueryDeviceResp) == 104, "mlx5_ib_query_device_resp");
static_assert(offsetof(Mlx5QueryDeviceResp, flags) == 60, "flags");
static_assert(offsetof(Mlx5QueryDeviceResp, dci_max_log_num_concurent) == 100, "dci streams");

struct Mlx5AllocPdResp {
	uint32_t pdn;
};
static_assert(sizeof(Mlx5AllocPdResp) == 4, "mlx5_ib_alloc_pd_resp");

/** mlx5dv_query_port's answer (DEVICE method 0x1000). */
struct Mlx5QueryPortResp {
	uint64_t flags;
	uint16_t vport;
	uint16_t vport_vhca_id;
	uint16_t esw_owner_vhca_id;
	uint16_t rsvd0;
	uint64_t vport_steering_icm_rx;
	uint64_t vport_steering_icm_tx;
	uint32_t reg_c0_value;
	uint32_t reg_c0_mask;
};
static_assert(sizeof(Mlx5QueryPortResp) == 40, "mlx5_ib_uapi_query_port");

/* ---- CQ and QP creation ----------------------------------------------------------- */

struct Mlx5CreateCq {
	uint64_t buf_addr;
	uint64_t db_addr;
	uint32_t cqe_size; /**< 64 or 128 */
	uint8_t cqe_comp_en;
	uint8_t cqe_comp_res_format;
	uint16_t flags; /**< kCqFlag* */
	uint16_t uar_page_index;
	uint16_t reserved0;
	uint32_t reserved1;
};
static_assert(sizeof(Mlx5CreateCq) == 32, "mlx5_ib_create_cq");
constexpr uint16_t kCqFlagUarPageIndex = 1u << 1;

/** RESIZE_CQ's driver data: the new ring (libmlx5's mlx5_resize_cq); no response. */
struct Mlx5ResizeCq {
	uint64_t buf_addr;
	uint16_t cqe_size;
	uint16_t reserved0;
	uint32_t reserved1;
};
static_assert(sizeof(Mlx5ResizeCq) == 16, "mlx5_ib_resize_cq");

struct Mlx5CreateCqResp {
	uint32_t cqn;
	uint32_t reserved;
};
static_assert(sizeof(Mlx5CreateCqResp) == 8, "mlx5_ib_create_cq_resp");

struct Mlx5CreateQp {
	uint64_t buf_addr; /**< RQ first, the SQ right after it */
	uint64_t db_addr;
	uint32_t sq_wqe_count; /**< WQEBBs of 64 bytes */
	uint32_t rq_wqe_count;
	uint32_t rq_wqe_shift;
	uint32_t flags; /**< kQpFlag* */
	uint32_t uidx;
	uint32_t bfreg_index;
	uint64_t sq_buf_addr; /**< raw packet SQ / DCT access key */
	uint32_t ece_options;
	uint8_t dci_log_num_concurent;
	uint8_t dci_log_num_errored;
	uint16_t reserved;
};
static_assert(sizeof(Mlx5CreateQp) == 56, "mlx5_ib_create_qp");
constexpr uint32_t kQpFlagScatterCqe = 1u << 1;
constexpr uint32_t kQpFlagUarPageIndex = 1u << 10;
/** DC (QP/CREATE of type IBV_QPT_DRIVER, mlx5dv_create_qp's dc_init_attr) */
constexpr uint32_t kQpFlagTypeDct = 1u << 4;
constexpr uint32_t kQpFlagTypeDci = 1u << 5;
constexpr uint32_t kQpFlagDciStream = 1u << 11;
/** QP/CREATE TYPE of mlx5dv's DC QPs (IB_UVERBS_QPT_DRIVER) */
constexpr uint32_t kUverbsQptDriver = 0xff;

struct Mlx5CreateQpResp {
	uint32_t bfreg_index;
	uint32_t ece_options;
	uint32_t comp_mask;
	uint32_t tirn;
	uint32_t tisn;
	uint32_t rqn;
	uint32_t sqn;
	uint32_t reserved1;
	uint64_t tir_icm_addr;
};
static_assert(sizeof(Mlx5CreateQpResp) == 40, "mlx5_ib_create_qp_resp");

/** EX_MODIFY_QP's driver request: burst control and ECE (neither modelled). */
struct Mlx5ModifyQp {
	uint32_t comp_mask;
	uint32_t max_burst_sz; /**< mlx5_ib_burst_info */
	uint16_t typical_pkt_sz;
	uint16_t reserved;
	uint32_t ece_options;
};
static_assert(sizeof(Mlx5ModifyQp) == 16, "mlx5_ib_modify_qp");

/** EX_MODIFY_QP's driver response: a DCT's number, given at its modify to RTR. */
struct Mlx5ModifyQpResp {
	uint32_t response_length; /**< bytes of this struct written, from the start */
	uint32_t dctn;
	uint32_t ece_options;
	uint32_t reserved;
};
static_assert(sizeof(Mlx5ModifyQpResp) == 16, "mlx5_ib_modify_qp_resp");
static_assert(offsetof(Mlx5ModifyQpResp, dctn) == 4, "mlx5_ib_modify_qp_resp.dctn");

struct Mlx5CreateSrq {
	uint64_t buf_addr; /**< the WQE ring, a linked list (libmlx5's srq.c) */
	uint64_t db_addr;  /**< [0] counter of posted WQEs */
	uint32_t flags;    /**< bit 0: WQE signatures (not modelled) */
	uint32_t reserved0;
	uint32_t uidx; /**< user index (XRC SRQs' CQEs); 0 from a basic create */
	uint32_t reserved1;
};
static_assert(sizeof(Mlx5CreateSrq) == 32, "mlx5_ib_create_srq");

struct Mlx5CreateSrqResp {
	uint32_t srqn;
	uint32_t reserved;
};
static_assert(sizeof(Mlx5CreateSrqResp) == 8, "mlx5_ib_create_srq_resp");

/* ---- mmap offsets ------------------------------------------------------------------ */

/** pgoff = offset >> 12: bits 15..8 command, 7..0 and 23..16 index. */
constexpr unsigned kMmapCmdShift = 8;
constexpr uint32_t kMmapCmdCoreClock = 5;
constexpr uint32_t kMmapCmdClockInfo = 7;
/** First command of dynamic entries (UAR objects): the first UAR is at 0x900000. */
constexpr uint32_t kMmapCmdDynFirst = 9;

/** UAR/ALLOC types. */
constexpr uint32_t kUarTypeBf = 0;
constexpr uint32_t kUarTypeNc = 1;

/* ---- PRM: DevX general commands ---------------------------------------------------- */

constexpr uint16_t kPrmOpQueryHcaCap = 0x100;
/** QUERY_HCA_CAP: in 16 bytes; out = 16-byte header + the 4096-byte capability. */
constexpr size_t kPrmQueryHcaCapIn = 16;
constexpr size_t kPrmQueryHcaCapOut = 4112;
constexpr size_t kPrmCapOffset = 16;
constexpr size_t kPrmOutHeader = 16;
/** op_mod = cap_type << 1 | 1 (current values) */
constexpr uint16_t kCapGeneral = 0x1;
constexpr uint16_t kCapOdp = 0x5;
constexpr uint16_t kCapAtomic = 0x7;
constexpr uint16_t kCapGeneral2 = 0x41;
/** Capability types of features the model lacks: answered with every bit 0. */
constexpr uint16_t kCapEthOffloads = 0x3;
constexpr uint16_t kCapRoce = 0x9;
constexpr uint16_t kCapNicFlowTable = 0xf;
constexpr uint16_t kCapEswFlowTable = 0x11;
constexpr uint16_t kCapEsw = 0x13;
constexpr uint16_t kCapQos = 0x19;
constexpr uint16_t kCapDevMem = 0x1f;
constexpr uint16_t kCapCrypto = 0x35;
/** PRM command status BAD_PARAM, BAD_OP: libmlx5 maps both to EINVAL. */
constexpr uint8_t kPrmStatusBadOp = 0x2;
constexpr uint8_t kPrmStatusBadParam = 0x3;

/** A field of cmd_hca_cap / cmd_hca_cap_2: bit offset and width inside the capability. */
struct PrmField {
	uint32_t bit;
	uint32_t width;
};
namespace hca_cap {
constexpr PrmField has_hca_cap_2{0x20, 1}; /**< the field hca_cap_2 */
constexpr PrmField qp_data_in_order{0x62, 1};
constexpr PrmField log_dma_mmo_max_size{0x6b, 5};
constexpr PrmField log_max_qp_sz{0x88, 8};
constexpr PrmField log_max_qp{0x9b, 5};
constexpr PrmField log_max_cq{0xdb, 5};
constexpr PrmField sig_crc64_xp10{0x147, 1};
constexpr PrmField sig_crc32c{0x148, 1};
constexpr PrmField dma_mmo_sq{0x153, 1};
constexpr PrmField port_type{0x1b6, 2}; /**< 0 = InfiniBand */
constexpr PrmField log_max_msg{0x1c3, 5};
constexpr PrmField sig_block_4048{0x1f0, 1};
constexpr PrmField cqe_version{0x1fc, 4};
constexpr PrmField sho{0x217, 1};
constexpr PrmField dct{0x21a, 1};
constexpr PrmField cq_resize{0x221, 1};
/** qpc_ext in QP modify commands (libmlx5 needs it for mlx5dv_dci_stream_id_reset) */
constexpr PrmField qpc_extension{0x122, 1};
constexpr PrmField log_max_pd{0x32b, 5};
constexpr PrmField general_obj_types{0x400, 64};
constexpr PrmField sigerr_domain_and_sig_type{0x480, 1};
constexpr PrmField dma_mmo_qp{0x748, 1};
/** general_obj_types bit of RESERVED_QPN objects */
constexpr uint32_t kObjTypeReservedQpn = 0x2c;
} // namespace hca_cap
namespace hca_cap_2 {
constexpr PrmField log_reserved_qpn_granularity{0x93, 5};
} // namespace hca_cap_2

/** Capability layouts are 0x800 bits: every field above lies inside. */
constexpr uint32_t kPrmCapBits = 0x800;
static_assert(hca_cap::dma_mmo_qp.bit + 1 <= kPrmCapBits, "cmd_hca_cap size");

/**
 * Write @p value into the big-endian, MSB-first field @p f of @p box (a field up
 * to 32 bits inside one dword, or a 64-bit field on a 64-bit boundary).
 */
inline void prm_set(uint8_t *box, PrmField f, uint64_t value)
{
	if (f.width == 64) {
		uint64_t be = htobe64(value);
		memcpy(box + f.bit / 8, &be, 8);
		return;
	}
	uint32_t dw_off = f.bit / 32 * 4;
	uint32_t shift = 32 - (f.bit % 32) - f.width;
	uint32_t mask = (f.width == 32 ? 0xffffffffu : ((1u << f.width) - 1)) << shift;
	uint32_t dw;
	memcpy(&dw, box + dw_off, 4);
	dw = be32toh(dw);
	dw = (dw & ~mask) | (((uint32_t)value << shift) & mask);
	dw = htobe32(dw);
	memcpy(box + dw_off, &dw, 4);
}

/** Read field @p f of @p box (up to 32 bits). */
inline uint32_t prm_get(const uint8_t *box, PrmField f)
{
	uint32_t dw;
	memcpy(&dw, box + f.bit / 32 * 4, 4);
	dw = be32toh(dw);
	uint32_t shift = 32 - (f.bit % 32) - f.width;
	return (dw >> shift) & (f.width == 32 ? 0xffffffffu : ((1u << f.width) - 1));
}

/** QUERY_HCA_CAP input: opcode (dword 0 bits 31..16), op_mod (dword 1 bits 15..0). */
constexpr PrmField kPrmInOpcode{0x00, 16};
constexpr PrmField kPrmInUid{0x10, 16};
constexpr PrmField kPrmInOpMod{0x30, 16};
/**
 * INIT2INIT_QP through DEVX_OBJ/MODIFY on a QP (libmlx5's qp_enable_mmo, verbs.c):
 * qpc_ext flag, qpn, the 32-bit and the upper 64-bit optional parameter masks, and
 * qpc_ext.mmo in the extended QP context at bit 0x880. 464 bytes in, 16 out.
 */
constexpr uint16_t kPrmOpInit2InitQp = 0x50e;
constexpr size_t kPrmInit2InitIn = 0x1d0;
namespace init2init {
constexpr PrmField qpc_ext{0x40, 1};
constexpr PrmField qpn{0x48, 24};
constexpr PrmField opt_param_mask{0x80, 32};
constexpr PrmField opt_mask_95_64{0x840, 32};
constexpr PrmField opt_mask_63_32{0x860, 32};
constexpr PrmField qpc_ext_mmo{0x882, 1};
/** opt_param_mask_95_32: the MMO bit (the only one served) */
constexpr uint32_t kOptMaskMmo = 1u << 3;
} // namespace init2init
/**
 * RTS2RTS_QP (0x505): INIT2INIT's layout. libmlx5's mlx5dv_dci_stream_id_reset sets
 * qpc_ext and qpc_data_ext.dci_stream_channel_id (bit 0x10 of it), named by bit 0 of
 * opt_param_mask_95_32's low dword.
 */
constexpr uint16_t kPrmOpRts2RtsQp = 0x505;
namespace rts2rts {
constexpr PrmField dci_stream_channel_id{0x880 + 0x10, 16};
constexpr uint32_t kOptMaskDciStreamChannelId = 1u << 0;
} // namespace rts2rts
/** PRM status BAD_RES_STATE: the object is not in a state the command allows. */
constexpr uint8_t kPrmStatusBadResState = 0x9;

/** Output header: status (byte 0), syndrome (dword 1). */
constexpr PrmField kPrmOutStatus{0x00, 8};
constexpr PrmField kPrmOutSyndrome{0x20, 32};

/* ---- PRM: DevX objects (DEVX_OBJ CREATE / DESTROY / QUERY) ------------------------- */

/**
 * INIT2INIT's qpc.drain_sigerr (libmlx5's mlx5_modify_qp_drain_sigerr, mlx5.c): the QP
 * context starts at bit 0xc0 of the input, drain_sigerr is its bit 0x25; the 32-bit
 * optional parameter mask names it with bit 11.
 */
namespace init2init {
constexpr PrmField qpc_drain_sigerr{0xc0 + 0x25, 1};
constexpr uint32_t kOptMaskDrainSigerr = 1u << 11;
} // namespace init2init

/** CREATE_MKEY (0x200): 272 bytes in, 16 out; the mkey context (mkc) at bit 0x80. */
constexpr uint16_t kPrmOpCreateMkey = 0x200;
constexpr size_t kPrmCreateMkeyIn = 272;
constexpr size_t kPrmCreateMkeyOut = 16;
namespace create_mkey {
constexpr uint32_t kMkc = 0x80;
constexpr PrmField pg_access{0x60, 1};
constexpr PrmField mkey_umem_valid{0x61, 1};
constexpr PrmField is_free{kMkc + 0x01, 1}; /**< mkc.free */
constexpr PrmField access_mode_4_2{kMkc + 0x03, 3};
constexpr PrmField relaxed_ordering_write{kMkc + 0x0d, 1};
constexpr PrmField umr_en{kMkc + 0x10, 1};
/** a, rw, rr, lw: the rights beyond local read (bits 0x11..0x14) */
constexpr PrmField a_rw_rr_lw{kMkc + 0x11, 4};
constexpr PrmField lr{kMkc + 0x15, 1};
constexpr PrmField access_mode_1_0{kMkc + 0x16, 2};
constexpr PrmField qpn{kMkc + 0x20, 24};
constexpr PrmField mkey_7_0{kMkc + 0x38, 8};
constexpr PrmField length64{kMkc + 0x60, 1};
constexpr PrmField bsf_en{kMkc + 0x61, 1};
constexpr PrmField sync_umr{kMkc + 0x62, 1};
constexpr PrmField expected_sigerr_count{kMkc + 0x65, 1};
constexpr PrmField en_rinval{kMkc + 0x67, 1};
constexpr PrmField pd{kMkc + 0x68, 24};
constexpr PrmField start_addr_hi{kMkc + 0x80, 32};
constexpr PrmField start_addr_lo{kMkc + 0xa0, 32};
constexpr PrmField len_hi{kMkc + 0xc0, 32};
constexpr PrmField len_lo{kMkc + 0xe0, 32};
constexpr PrmField bsf_octword_size{kMkc + 0x100, 32};
constexpr PrmField translations_octword_size{kMkc + 0x1a0, 32};
constexpr PrmField relaxed_ordering_read{kMkc + 0x1d9, 1};
constexpr PrmField crypto_en{kMkc + 0x1e3, 2};
constexpr PrmField translations_octword_actual_size{0x300, 32};
/** out: the new mkey's index (its key is index << 8, tag 0) */
constexpr PrmField out_mkey_index{0x48, 24};
/** access mode KLMs: an indirect mkey a UMR fills */
constexpr uint32_t kAccessModeKlms = 2;
/** the signature BSF: 4 octowords (64 bytes) */
constexpr uint32_t kSigBsfOctowords = 4;
} // namespace create_mkey
static_assert(create_mkey::crypto_en.bit + 2 <= create_mkey::kMkc + 0x200, "mkc is 0x200 bits");
static_assert(create_mkey::translations_octword_actual_size.bit + 32 <= kPrmCreateMkeyIn * 8,
	      "create_mkey_in size");

/** CREATE_PSV (0x600): 16 bytes in, 32 out. */
constexpr uint16_t kPrmOpCreatePsv = 0x600;
constexpr size_t kPrmCreatePsvIn = 16;
constexpr size_t kPrmCreatePsvOut = 32;
namespace create_psv {
constexpr PrmField num_psv{0x40, 4};
constexpr PrmField pd{0x48, 24};
constexpr PrmField out_psv0_index{0x88, 24};
} // namespace create_psv
static_assert(create_psv::out_psv0_index.bit + 24 <= kPrmCreatePsvOut * 8, "create_psv_out");

/**
 * CREATE_GENERAL_OBJECT (0xa00): the general object header (16 bytes: obj_type in the
 * op_mod position, log_obj_range), then the object's fields; out: obj_id.
 * RESERVED_QPN (0x2c) has no fields of its own that libmlx5 sets: 32 bytes in.
 */
constexpr uint16_t kPrmOpCreateGeneralObject = 0xa00;
constexpr size_t kPrmGeneralObjHdr = 16;
constexpr size_t kPrmCreateReservedQpnIn = 32;
namespace general_obj {
constexpr PrmField obj_type{0x30, 16};
constexpr PrmField log_obj_range{0x63, 5};
constexpr PrmField out_obj_id{0x40, 32};
} // namespace general_obj
static_assert(general_obj::log_obj_range.bit + 5 <= kPrmGeneralObjHdr * 8, "obj hdr");

/**
 * QUERY_QP (0x50b): 16 bytes in (qpn), 272 out; the QP context at bit 0xc0. Served:
 * state (PRM numbering, kQpcState*), pd, data_in_order, drain_sigerr and
 * hw_sq_wqebb_counter (libmlx5's cancel_posted_send_wrs, ibv_query_qp_data_in_order).
 */
constexpr uint16_t kPrmOpQueryQp = 0x50b;
constexpr size_t kPrmQueryQpIn = 16;
constexpr size_t kPrmQueryQpOut = 272;
namespace query_qp {
constexpr uint32_t kQpc = 0xc0;
constexpr PrmField qpn{0x48, 24};
constexpr PrmField state{kQpc + 0x00, 4};
constexpr PrmField drain_sigerr{kQpc + 0x25, 1};
constexpr PrmField pd{kQpc + 0x28, 24};
constexpr PrmField data_in_order{kQpc + 0x5a, 1};
constexpr PrmField hw_sq_wqebb_counter{kQpc + 0x5a0, 16};
} // namespace query_qp
static_assert(query_qp::hw_sq_wqebb_counter.bit + 16 <= kPrmQueryQpOut * 8, "query_qp_out");
/** qpc.state values */
constexpr uint32_t kQpcStateRst = 0, kQpcStateInit = 1, kQpcStateRtr = 2, kQpcStateRts = 3,
		   kQpcStateSqer = 4, kQpcStateSqd = 5, kQpcStateErr = 6;

/**
 * What a device answers a command it does not implement: status BAD_OP. The
 * syndrome is the software HCA's own (no device's value is documented here).
 */
constexpr uint32_t kPrmSyndromeBadOp = 0x0badc0de;
/** PRM status BAD_RES (no such resource), RES_BUSY, LIM (a limit reached: ENOMEM), BAD_INP_LEN. */
constexpr uint8_t kPrmStatusBadRes = 0x5;
constexpr uint8_t kPrmStatusResBusy = 0x6;
constexpr uint8_t kPrmStatusLim = 0x8;
constexpr uint8_t kPrmStatusBadInpLen = 0x50;

} // namespace kernel
} // namespace mlx5sim

#endif /* MLX5_SIM_KERNEL_MLX5_ABI_H */
