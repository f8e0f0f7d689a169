/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turbulent initial velocities (issue 24): a Gaussian random velocity field on a periodic grid,
 * power spectrum P(k) = <|v(k)|^2> per Fourier mode proportional to k^slope (slope -4: Burgers'
 * spectrum, E(k) = 4 pi k^2 P(k) ~ k^-2, as Bate et al. 2003 and the SP-TL run), its solenoidal
 * and compressive parts mixed by Federrath et al.'s (2010) projection
 *     P_ij = zeta (delta_ij - k_i k_j / k^2) + (1 - zeta) k_i k_j / k^2,
 * zeta = 1 purely solenoidal (div v = 0), 0 purely compressive (curl v = 0).  Modes 1 <= |k| <
 * N/2 in units of 2 pi / L.  Each mode's random numbers come from a hash of the seed and the
 * mode's integer wave vector, not from a sequence: the field does not depend on the order of
 * work, the number of ranks or threads, and a finer grid keeps the coarse grid's modes.
 * The particles take the field trilinearly interpolated at their positions (the grid spans the
 * cube around their bounding box), minus their mean velocity, scaled so that their rms speed is
 * mach times the gas's sound speed. */
#ifndef TIDE_TURBULENCE_H
#define TIDE_TURBULENCE_H
#include <stddef.h>
#include <stdint.h>
#include "tide/case.h"   /* tide_turbulence: the case keys */


/* In-place 3-D complex FFT of an n^3 grid (n a power of two, index (i n + j) n + k), re/im
 * interleaved; sign -1 forward, +1 inverse (not normalised). */
void tide_fft3(double *a, int n, int sign);

/* The field on an n^3 grid of unit box: v[c][(i n + j) n + k], c = 0..2, not normalised
 * (unit rms per mode amplitude).  0, or -1 (out of memory, or n not a power of two >= 4). */
int tide_turb_grid(const tide_turbulence *t, int n, float *v[3]);

/* Adds the field to particles 0..np-1 (positions x, y, z; velocities written to vel[c] and,
 * when vhalf is not NULL, to the leapfrog's half-step velocities vhalf[c]), scaled to an rms
 * speed mach * cs over the particles after their mean is removed.  0, or -1 (out of memory). */
int tide_turb_apply(const tide_turbulence *t, double cs, size_t np, const double *x,
                    const double *y, const double *z, float *vel[3], float *vhalf[3]);

#endif
