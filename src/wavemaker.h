/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Linear wave-maker theory (the one home of these formulas): the dispersion relation of water
 * waves and the Biesel transfer functions of piston and flap paddles (Dean & Dalrymple, "Water
 * wave mechanics for engineers and scientists", 1991, ch. 6), from which src/case_motion.c
 * derives a paddle's stroke for a target regular wave. */
#ifndef TIDE_WAVEMAKER_H
#define TIDE_WAVEMAKER_H

/* The wave number k [1/m] of a wave of period T [s] in water of depth d [m] under gravity g:
 * omega^2 = g k tanh(k d), omega = 2 pi / T (Newton's method on k d, to round-off). */
double tide_wave_number(double T, double d, double g);
/* H/S of a piston paddle (stroke S, wave height H): 2 (cosh 2kd - 1) / (sinh 2kd + 2kd). */
double tide_piston_transfer(double kd);
/* H/S of a flap paddle hinged at height l above the bottom (l < d; l < 0: below it), S its
 * stroke at the still water level: for a paddle displacement S/2 f(z) with f linear, 1 at the
 * surface and 0 at the hinge (0 below it),
 *   H/S = 4 sinh kd [k int f(z) cosh k(d + z) dz] / (sinh 2kd + 2kd),
 * which with l = 0 is Dean & Dalrymple's 4 (sinh kd / kd) (kd sinh kd - cosh kd + 1) /
 * (sinh 2kd + 2kd). */
double tide_flap_transfer(double kd, double l_over_d);

#endif
