/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fake rdma-core glue libraries for test_glue_rdma_core: each is copied at run
 * time into a directory of its own under the real soname and offered to the
 * seam through $MLX5_GLUE_PATH. Built several times, one defect each:
 *   FAKE_GLUE_BAD_VERSION   exports the symbol with version "0.0";
 *   FAKE_GLUE_NO_SYMBOL     exports something else;
 *   FAKE_GLUE_INCOMPLETE    the right version; the table, as in every fake,
 *                           has only get_device_list, so it is refused;
 *   FAKE_GLUE_NEEDS         needs a library that is not found once the fake is
 *                           copied away from it.
 */
#include "mlx5_glue.h"
#include "mlx5_glue_lib.h"

#ifdef FAKE_GLUE_NEEDS
extern "C" int fake_glue_gone_answer(void);
#endif

namespace {

struct ibv_device *empty[1];

struct ibv_device **fake_get_device_list(int *n)
{
#ifdef FAKE_GLUE_NEEDS
	if (n != NULL)
		*n = fake_glue_gone_answer();
#else
	if (n != NULL)
		*n = 0;
#endif
	return empty;
}

const struct mlx5_glue fake_table = {
	.name = "fake",
	.get_device_list = fake_get_device_list,
};

} // namespace

#ifdef FAKE_GLUE_NO_SYMBOL
extern "C" __attribute__((visibility("default"))) const struct mlx5_glue_lib not_the_glue_symbol = {
	MLX5_GLUE_VERSION, sizeof(struct mlx5_glue), &fake_table};
#else
extern "C" __attribute__((visibility("default")))
const struct mlx5_glue_lib mlx5_glue_rdma_core_lib = {
#ifdef FAKE_GLUE_BAD_VERSION
	"0.0",
#else
	MLX5_GLUE_VERSION,
#endif
	sizeof(struct mlx5_glue), &fake_table};
#endif
