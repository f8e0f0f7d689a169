/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Marks functions shared by host C and CUDA device code. */
#ifndef TIDE_HD_H
#define TIDE_HD_H
#ifdef __CUDACC__
#define TIDE_HD __host__ __device__ __forceinline__
#else
#define TIDE_HD static inline
#endif
#endif
