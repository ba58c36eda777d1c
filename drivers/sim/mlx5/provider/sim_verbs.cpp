/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The "sim" table of the seam: every entry point wired to the software HCA.
 */
#include "sim_internal.h"

namespace mlx5sim {

const struct mlx5_glue sim_glue = {
	.name = "sim",
	.get_device_list = sim_get_device_list,
	.free_device_list = sim_free_device_list,
	.get_device_name = sim_get_device_name,
	.open_device = sim_open_device,
	.close_device = sim_close_device,
	.query_device_ex = sim_query_device_ex,
	.dv_query_device = sim_dv_query_device,
	.query_port = sim_query_port,
	.query_gid_ex = sim_query_gid_ex,
	.get_async_event = sim_get_async_event,
	.ack_async_event = sim_ack_async_event,
	.alloc_pd = sim_alloc_pd,
	.dealloc_pd = sim_dealloc_pd,
	.create_ah = sim_create_ah,
	.destroy_ah = sim_destroy_ah,
	.create_srq = sim_create_srq,
	.destroy_srq = sim_destroy_srq,
	.reg_mr = sim_reg_mr,
	.dereg_mr = sim_dereg_mr,
	.create_cq_ex = sim_create_cq_ex,
	.destroy_cq = sim_destroy_cq,
	.dv_create_qp = sim_dv_create_qp,
	.modify_qp = sim_modify_qp,
	.query_qp = sim_query_qp,
	.destroy_qp = sim_destroy_qp,
	.qp_to_qp_ex = sim_qp_to_qp_ex,
	.dv_qp_ex_from_ibv_qp_ex = sim_dv_qp_ex_from_ibv_qp_ex,
	.dv_init_obj = sim_dv_init_obj,
	.query_qp_data_in_order = sim_query_qp_data_in_order,
	.dv_qp_cancel_posted_send_wrs = sim_dv_qp_cancel_posted_send_wrs,
	.dv_dci_stream_id_reset = sim_dv_dci_stream_id_reset,
	.dv_reserved_qpn_alloc = sim_dv_reserved_qpn_alloc,
	.dv_reserved_qpn_dealloc = sim_dv_reserved_qpn_dealloc,
	.dv_create_mkey = sim_dv_create_mkey,
	.dv_destroy_mkey = sim_dv_destroy_mkey,
	.dv_mkey_check = sim_dv_mkey_check,
	.sq_doorbell = sim_sq_doorbell,
	.progress_info = sim_progress_info,
	.progress = sim_progress,
	.cm_listen = sim_cm_listen,
	.cm_listen_close = sim_cm_listen_close,
	.cm_fetch = sim_cm_fetch,
};

} // namespace mlx5sim

extern "C" const struct mlx5_glue *mlx5_glue_sim(void)
{
	return &mlx5sim::sim_glue;
}
