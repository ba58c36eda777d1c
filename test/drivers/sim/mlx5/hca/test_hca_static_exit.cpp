/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * An Hca held by a static std::shared_ptr until exit: its destructor runs among the
 * static destructors, possibly after those of the model's own statics (here: this
 * file is linked before the model's static library, so its static is constructed
 * first and destroyed last). The process must exit 0 without a sanitizer report.
 * Not a CUnit suite: the failure happens after main() returns.
 */
#include <stdio.h>

#include <memory>

#include "hca.h"

namespace {

std::shared_ptr<mlx5sim::Hca> g_inline;
std::shared_ptr<mlx5sim::Hca> g_thread;

} // namespace

int main(void)
{
	g_inline = mlx5sim::Hca::create("static-exit-inline", mlx5sim::HcaCaps(),
					mlx5sim::ExecMode::Inline);
	g_thread = mlx5sim::Hca::create("static-exit-thread", mlx5sim::HcaCaps(),
					mlx5sim::ExecMode::Thread);
	if (!g_inline || !g_thread) {
		fprintf(stderr, "Hca::create failed\n");
		return 1;
	}
	/* the names are taken while the instances live */
	if (mlx5sim::Hca::create("static-exit-inline", mlx5sim::HcaCaps(),
				 mlx5sim::ExecMode::Inline)) {
		fprintf(stderr, "duplicate name accepted\n");
		return 1;
	}
	return 0; /* the instances are destroyed by the static destructors */
}
