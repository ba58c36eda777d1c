/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The faults of mlx5-dma-shell: the software HCA's test interface (mlx5_sim.h), on
 * the instance behind a dma_mlx5 device, through a context of the shell's own.
 */
#include <errno.h>
#include <string.h>

#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "rte_pmd_dma_mlx5.h"
#include "shell.h"

namespace {

/* The syndromes "fault ... fail" takes, by name (the CQE syndromes of mlx5dv.h). */
const struct {
	const char *name;
	uint8_t syndrome;
} kSyndromes[] = {
	{"local-length", MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR},
	{"local-qp-op", MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR},
	{"local-protection", MLX5_CQE_SYNDROME_LOCAL_PROT_ERR},
	{"local-access", MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR},
	{"bad-response", MLX5_CQE_SYNDROME_BAD_RESP_ERR},
	{"remote-invalid-request", MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR},
	{"remote-access", MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR},
	{"remote-op", MLX5_CQE_SYNDROME_REMOTE_OP_ERR},
	{"retry-exceeded", MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR},
	{"rnr-retry-exceeded", MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR},
};

/** Inject @p f into the software HCA behind dmadev @p dev; 0 or -1 (message printed). */
int inject(uint16_t dev, struct mlx5_sim_fault *f)
{
	struct rte_pmd_dma_mlx5_caps caps;
	const struct mlx5_glue *glue;
	struct ibv_device *device;

	if (rte_pmd_dma_mlx5_get_caps((int16_t)dev, &caps) != 0 || strcmp(caps.backend, "sim")) {
		shell_fail("device %u is not dma_mlx5 on a software HCA", dev);
		return -1;
	}
	if (mlx5_glue_find_device(caps.device, &glue, &device) != 0) {
		shell_fail("software HCA %s not found", caps.device);
		return -1;
	}
	struct ibv_context *ctx = glue->open_device(device);
	mlx5_glue_put_device(glue, device);
	struct mlx5_glue_progress_info pi;
	/* held-back completions are released by the engine's own threads */
	if (ctx && f->kind == MLX5_SIM_FAULT_DELAY_COMPLETIONS &&
	    (!glue->progress_info || glue->progress_info(ctx, &pi) != 0 ||
	     pi.mode != MLX5_GLUE_PROGRESS_THREADS)) {
		glue->close_device(ctx);
		shell_fail("delay needs a software HCA with engine threads (sim_exec=thread): "
			   "%s has none",
			   caps.device);
		return -1;
	}
	int ret = ctx ? mlx5_sim_inject_fault(ctx, f) : -ENODEV;
	if (ctx)
		glue->close_device(ctx);
	if (ret) {
		shell_fail("fault on %s: %s", caps.device, strerror(ret < 0 ? -ret : ret));
		return -1;
	}
	return 0;
}

} // namespace

int shell_sim_fault(uint16_t dev, uint16_t vchan, const char *kind, const char *syndrome,
		    uint32_t us)
{
	struct rte_pmd_dma_mlx5_vchan_info vi;
	struct mlx5_sim_fault f = {};
	int victim = -1;

	if (rte_pmd_dma_mlx5_vchan_info((int16_t)dev, vchan, &vi) != 0) {
		shell_fail("device %u vchan %u is not a set-up dma_mlx5 vchan", dev, vchan);
		return -1;
	}
	if (strcmp(kind, "corrupt-sig") == 0 &&
	    (victim = shell_pi_generator((int16_t)dev, vchan)) < 0)
		return -1;
	f.qpn = vi.qpn;
	if (strcmp(kind, "qp-fatal") == 0) {
		f.kind = MLX5_SIM_FAULT_QP_FATAL;
	} else if (strcmp(kind, "corrupt-sig") == 0) {
		f.kind = MLX5_SIM_FAULT_CORRUPT_SIG;
	} else if (strcmp(kind, "cq-overrun") == 0) {
		f.kind = MLX5_SIM_FAULT_CQ_OVERRUN;
		f.flags = MLX5_SIM_FAULT_F_QP_SEND_CQ;
	} else if (strcmp(kind, "fail") == 0) {
		f.kind = MLX5_SIM_FAULT_FAIL_WQE;
		f.flags = MLX5_SIM_FAULT_F_NEXT_WQE;
		for (const auto &k : kSyndromes)
			if (syndrome && strcmp(k.name, syndrome) == 0)
				f.syndrome = k.syndrome;
	} else {
		f.kind = MLX5_SIM_FAULT_DELAY_COMPLETIONS;
		f.delay_us = us;
	}
	if (inject(dev, &f) != 0)
		return -1;
	if (victim >= 0)
		shell_printf("fault %s injected into device %u vchan %u (QP %#x): the next PI "
			     "workload %d generates\n",
			     kind, dev, vchan, vi.qpn, victim);
	else
		shell_printf("fault %s injected into device %u vchan %u (QP %#x)\n", kind, dev,
			     vchan, vi.qpn);
	return 0;
}

int shell_sim_link(const char *sim, bool down)
{
	struct mlx5_sim_link link = {};

	link.down = down;
	int ret = mlx5_sim_device_set_link(sim, &link);
	if (ret) {
		shell_fail("link of software HCA \"%s\": %s", sim, strerror(-ret));
		return -1;
	}
	shell_printf("%s: link %s\n", sim, down ? "down" : "up");
	return 0;
}
