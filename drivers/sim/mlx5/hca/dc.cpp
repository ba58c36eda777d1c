/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DC transport on the device: the DCT a DCI WQE's address vector names, and the
 * error state of DCI streams (one failing stream is flushed, the others go on;
 * the DCI enters ERR once 2^log_num_errored streams are in error).
 */
#include <errno.h>

#include "fabric_port.h"
#include "qp_table.h"
#include "wqe_planner.h"

namespace mlx5sim {

QpObj *WqePlanner::dc_target(const QpObj *qp, const Plan *pl, Verdict *v)
{
	/* address vector at +16: dc_key (8), dqp_dct (4), sl, fl_mlid, rlid, ..., rgid */
	const uint8_t *av = pl->wqe + MLX5_HW_DS_BYTES;
	uint64_t key = mlx5_hw_ld_be64(av);
	uint32_t dqp_dct = mlx5_hw_ld_be32(av + 8);

	/* only the extended (DC) form names a DCT */
	if (!(dqp_dct & 0x80000000u)) {
		*v = Verdict{MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
		return nullptr;
	}
	/* the host of the address vector's LID, then its DCT */
	Host *host;
	QpObj *dct = port_.qp_at(mlx5_hw_ld_be16(av + 14), dqp_dct & 0xffffff, &host);
	/*
	 * Nobody at that LID, no DCT of that number answering, or a wrong key: the
	 * target drops the request (a key violation is counted in the DCT), so the requester's
	 * retries run out (ASSUMPTIONS.md).
	 */
	*v = Verdict{MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 0};
	if (!dct || dct->cfg.dc != DcRole::Dct || dct->state != IBV_QPS_RTR ||
	    !port_.request_reaches(qp, host))
		return nullptr;
	if (dct->cfg.dct_key != key) {
		dct->dct_key_violations++;
		return nullptr;
	}
	*v = Verdict{0, 0};
	return dct;
}

bool QpTable::dci_stream_errored(const QpObj *qp, uint16_t stream) const
{
	for (uint32_t i = 0; i < qp->dci_errored; i++)
		if (qp->dci_err_stream[i] == stream)
			return true;
	return false;
}

bool QpTable::dci_stream_failed(QpObj *qp, uint16_t stream)
{
	if (!dci_stream_errored(qp, stream))
		qp->dci_err_stream[qp->dci_errored++] = stream;
	if (qp->dci_errored < (1u << qp->cfg.dci_log_errored))
		return true;
	enter_err(qp);
	return false;
}

int QpTable::dci_stream_reset(uint32_t qpn, uint16_t stream)
{
	QpObj *qp = find(qpn);
	if (!qp || qp->cfg.dc != DcRole::Dci || qp->state != IBV_QPS_RTS)
		return -EINVAL;
	for (uint32_t i = 0; i < qp->dci_errored; i++) {
		if (qp->dci_err_stream[i] != stream)
			continue;
		qp->dci_err_stream[i] = qp->dci_err_stream[--qp->dci_errored];
		return 0;
	}
	return -EINVAL; /* not in error (FW status mapped to EINVAL: ASSUMPTIONS.md) */
}

} // namespace mlx5sim
