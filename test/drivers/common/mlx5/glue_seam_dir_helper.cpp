/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Started by test_glue_rdma_core without $MLX5_GLUE_PATH. Linked with the shared
 * seam: the rdma-core backend must find the glue library next to that library
 * (in-tree build). Prints the status; exit 0 when it names the glue library in
 * the seam's directory.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mlx5_glue.h"
#include "mlx5_glue_lib.h"

int main(void)
{
	Dl_info info;
	char want[PATH_MAX + 64];
	const char *st, *slash;

	if (dladdr(reinterpret_cast<void *>(&mlx5_glue_rdma_core), &info) == 0 ||
	    info.dli_fname == NULL)
		return 2;
	slash = strrchr(info.dli_fname, '/');
	if (slash == NULL)
		return 2;
	snprintf(want, sizeof(want), "rdma-core glue loaded: %.*s/%s",
		 static_cast<int>(slash - info.dli_fname), info.dli_fname, MLX5_GLUE_LIB_SONAME);
	st = mlx5_glue_rdma_core_status();
	printf("seam: %s\nstatus: %s\n", info.dli_fname, st);
	return strstr(st, want) == st ? 0 : 1;
}
