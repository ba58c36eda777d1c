/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault commands in a build without the software HCA (-Dsim=false): refused. */
#include "shell.h"

int shell_sim_fault(uint16_t dev, uint16_t vchan, const char *kind, const char *, uint32_t)
{
	shell_fail("fault %s on device %u vchan %u: this build has no software HCA (-Dsim=false)",
		   kind, dev, vchan);
	return -1;
}

int shell_sim_link(const char *sim, bool)
{
	shell_fail("link of \"%s\": this build has no software HCA (-Dsim=false)", sim);
	return -1;
}
