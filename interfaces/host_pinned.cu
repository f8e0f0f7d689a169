// SPDX-License-Identifier: LGPL-2.1-or-later
// Pinned host memory straight from the CUDA runtime, for the one case where StarPU's own pinned
// allocation cannot be used: StarPU aborts the process when cudaHostAlloc fails, and a block
// larger than most of the RAM (a billion particles) is tried this way only after plain memory
// was refused, so that a failure is an error message, not a crash
// (interfaces/block_host.c).
#include <cuda_runtime.h>

extern "C" void *tide_cuda_host_alloc(size_t bytes)
{
	void *p = nullptr;
	if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
		(void)cudaGetLastError(); /* the failure is reported by the caller; clear it */
		return nullptr;
	}
	return p;
}

extern "C" void tide_cuda_host_free(void *p)
{
	if (p) cudaFreeHost(p);
}
