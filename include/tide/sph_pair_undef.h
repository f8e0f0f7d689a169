/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Undefines the names of one width of sph_pair.h's SIMD form (and TIDE_CPU_VW, TIDE_CPU_SFX),
 * so that the next width can be included.  No include guard: used once per width. */
#undef VW
#undef vf
#undef vi
#undef vload
#undef vstore
#undef vsplat
#undef vsel
#undef vmax
#undef vabs
#undef vand
#undef vsqrt
#undef vany
#undef vsum
#undef vhmax
#undef vdiv
#undef vpair_out
#undef vpair
#undef vsps_out
#undef vsps
#undef vkf_cubic_in
#undef vkf_cubic_out_q
#undef vkf_wendland
#undef vdiffusion
#undef vcontact
#undef ivals
#undef kconst
#undef rho_h
#undef TIDE_CPU_N
#undef TIDE_CPU_CAT
#undef TIDE_CPU_CAT_
#undef TIDE_CPU_VW
#undef TIDE_CPU_SFX
