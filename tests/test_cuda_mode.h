/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA half of a C test as a test of its own (meson: NAME_cuda, the same executable with
 * --cuda): without a CUDA worker it must say so and exit 77, which meson reports as SKIP, so that
 * a machine without a GPU never counts the CUDA comparison as passed.  The device scripts
 * (tools/device_check.sh, tools/device_sph_check.sh) run the --cuda halves on the GPU node. */
#ifndef TIDE_TEST_CUDA_MODE_H
#define TIDE_TEST_CUDA_MODE_H
#include <stdio.h>
#include <string.h>
#include <starpu.h>

#define TEST_SKIP 77 /* meson's exit code for a skipped test */

/* 1 if --cuda is among the arguments. */
static inline int test_cuda_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--cuda")) return 1;
	return 0;
}

/* After starpu_init, in CUDA mode: 1 (with the reason on stdout) if there is no CUDA worker. */
static inline int test_cuda_missing(const char *name)
{
	if (starpu_cuda_worker_get_count() > 0) return 0;
	printf("%s: SKIP, no CUDA worker (no GPU, or StarPU built without CUDA); the CUDA codelets "
	       "are compared with the CPU ones on a GPU node (tools/device_sph_check.sh)\n", name);
	return 1;
}

#endif
