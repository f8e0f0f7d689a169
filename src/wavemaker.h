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

/* n components of an irregular sea of JONSWAP spectrum, significant height Hs [m], peak period
 * Tp [s] and peak enhancement gamma: frequencies f[i] = fp (0.5 + 2.5 (i + 1/2) / n) (fp = 1/Tp,
 * from 0.5 fp to 3 fp), amplitudes a[i] = sqrt(2 S(f_i) df) of the spectrum
 *   S(f) ~ f^-5 exp(-1.25 (fp / f)^4) gamma^exp(-(f - fp)^2 / (2 sigma^2 fp^2)),
 *   sigma = 0.07 (f <= fp), 0.09 (f > fp),
 * scaled so that its zeroth moment sum a_i^2 / 2 is (Hs / 4)^2, and phases phi[i] uniform in
 * [0, 2 pi) from a splitmix64 sequence of seed (the same on every machine). */
void tide_jonswap(double Hs, double Tp, double gamma, int n, unsigned long long seed, double *a,
                  double *f, double *phi);

#endif
