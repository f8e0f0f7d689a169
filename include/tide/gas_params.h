/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The parameters of the gas scheme (physics.scheme: gas; the maths in gas_math.h), part of the
 * parameters every SPH codelet receives (tide_sph_params.gas).  Shared by C and CUDA. */
#ifndef TIDE_GAS_PARAMS_H
#define TIDE_GAS_PARAMS_H

/* Which SPH scheme a case runs (case key physics.scheme): weakly compressible SPH for water, or
 * compressible gas with adaptive smoothing lengths and an energy equation. */
enum tide_scheme { TIDE_SCHEME_WCSPH = 0, TIDE_SCHEME_GAS = 1 };

/* Equation of state of the gas (case key gas.eos), gas_math.h:
 *   ideal       p = (gamma - 1) rho u
 *   isothermal  p = cs^2 rho
 *   barotropic  p = cs^2 rho below rho_crit, cs^2 rho_crit (rho / rho_crit)^(7/5) above */
enum tide_gas_eos { TIDE_GAS_IDEAL = 0, TIDE_GAS_ISOTHERMAL = 1, TIDE_GAS_BAROTROPIC = 2 };

/* Units of a case (case key units): SI, cgs, or code units with G = 1. */
enum tide_units { TIDE_UNITS_SI = 0, TIDE_UNITS_CGS = 1, TIDE_UNITS_CODE = 2 };

typedef struct tide_gas_params {
	int eos;               /* enum tide_gas_eos */
	float gamma;           /* adiabatic index of the ideal gas */
	float cs2;             /* isothermal sound speed squared (isothermal, barotropic) */
	float rho_crit;        /* barotropic: the density where the gas stops being isothermal */
	float eta;             /* h = eta (m / rho)^(1/dim) */
	float h_tol;           /* relative tolerance of the h iteration on rho h^dim */
	int h_iter;            /* most iterations of it */
	float h_max, h_min;    /* smoothing length bounds (h_max: half the cell side) */
	float knorm;           /* kernel normalisation at h = 1 (alpha = knorm / h^dim) */
	float alpha_visc;      /* artificial viscosity alpha (Monaghan 1997 signal velocity form) */
	float beta_visc;       /* its beta: v_sig = c_i + c_j - beta w_ij */
	float alpha_cond;      /* artificial conductivity alpha_u (Price 2008) */
	float u_min;           /* floor of the specific internal energy */
	float eps_nbody;       /* collisionless particles (TIDE_NBODY): their gravitational softening,
	                        * and the length of their time step limit cfl sqrt(eps / |a|) */
} tide_gas_params;

#endif
