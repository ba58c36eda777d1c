/* SPDX-License-Identifier: BSD-3-Clause */
/* A dependency of the FAKE_GLUE_NEEDS fake glue, absent where the fake is copied to. */
extern "C" __attribute__((visibility("default"))) int fake_glue_gone_answer(void)
{
	return 0;
}
