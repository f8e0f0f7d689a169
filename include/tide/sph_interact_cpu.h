/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU pair loops of codelets/sph_forces.c, written once for any vector width: the file
 * includes this header once per width, with TIDE_CPU_VW (4 or 8 floats) and TIDE_CPU_SFX (a name
 * suffix) defined, so there is no include guard.  The includer defines fws (the workspace),
 * nbr (a neighbour cell) and tide_kparams (scalar constants) first.  The pair terms are those of
 * sph_interact.h's tide_pair, evaluated once per pair for both particles. */
#if !defined(TIDE_CPU_VW) || !defined(TIDE_CPU_SFX)
#error "define TIDE_CPU_VW and TIDE_CPU_SFX before including tide/sph_interact_cpu.h"
#endif

#define TIDE_CPU_CAT_(a, b) a##_##b
#define TIDE_CPU_CAT(a, b) TIDE_CPU_CAT_(a, b)
#define TIDE_CPU_N(x) TIDE_CPU_CAT(x, TIDE_CPU_SFX)
#define vf TIDE_CPU_N(vf)
#define vi TIDE_CPU_N(vi)
#define vload TIDE_CPU_N(vload)
#define vstore TIDE_CPU_N(vstore)
#define vsplat TIDE_CPU_N(vsplat)
#define vsel TIDE_CPU_N(vsel)
#define vmax TIDE_CPU_N(vmax)
#define vabs TIDE_CPU_N(vabs)
#define vand TIDE_CPU_N(vand)
#define vsqrt TIDE_CPU_N(vsqrt)
#define vany TIDE_CPU_N(vany)
#define vsum TIDE_CPU_N(vsum)
#define vhmax TIDE_CPU_N(vhmax)
#define ivals TIDE_CPU_N(ivals)
#define isums TIDE_CPU_N(isums)
#define kconst TIDE_CPU_N(kconst)
#define rho_h TIDE_CPU_N(rho_h)
#define pair_range TIDE_CPU_N(pair_range)
#define cell_pairs_k TIDE_CPU_N(cell_pairs_k)
#define VW TIDE_CPU_VW

typedef float vf __attribute__((vector_size(4 * TIDE_CPU_VW)));
typedef int32_t vi __attribute__((vector_size(4 * TIDE_CPU_VW)));

static inline vf vload(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline void vstore(float *p, vf v) { memcpy(p, &v, sizeof v); }
/* x - 0 is x for every x, -0 included */
static inline vf vsplat(float x) { return x - (vf){0}; }
static inline vf vsel(vi m, vf a, vf b) { return (vf)(((vi)a & m) | ((vi)b & ~m)); }
static inline vf vand(vf a, vi m) { return (vf)((vi)a & m); }
static inline vf vmax(vf a, vf b) { return vsel(a > b, a, b); }
static inline vf vabs(vf a) { return (vf)((vi)a & (0x7fffffff - (vi){0})); }
static inline vf vsqrt(vf a)
{
#if TIDE_CPU_VW == 8 && defined(__AVX__)
	return (vf)_mm256_sqrt_ps((__m256)a);
#elif TIDE_CPU_VW == 4 && defined(__SSE__)
	return (vf)_mm_sqrt_ps((__m128)a);
#else
	for (int k = 0; k < VW; k++) a[k] = sqrtf(a[k]);
	return a;
#endif
}
static inline int vany(vi m)
{
#if TIDE_CPU_VW == 8 && defined(__AVX__)
	return _mm256_movemask_ps((__m256)m) != 0;
#elif TIDE_CPU_VW == 4 && defined(__SSE__)
	return _mm_movemask_ps((__m128)m) != 0;
#else
	int32_t o = 0;
	for (int k = 0; k < VW; k++) o |= m[k];
	return o != 0;
#endif
}
/* pairwise, in a fixed order */
static inline float vsum(vf a)
{
	for (int w = VW; w > 1; w /= 2)
		for (int k = 0; k < w / 2; k++) a[k] = a[2 * k] + a[2 * k + 1];
	return a[0];
}
static inline float vhmax(vf a)
{
	for (int w = VW; w > 1; w /= 2)
		for (int k = 0; k < w / 2; k++) a[k] = a[2 * k] > a[2 * k + 1] ? a[2 * k] : a[2 * k + 1];
	return a[0];
}

/* One particle i against the particles [a, b) of the workspace, i's position shifted into the
 * frame of their cell.  Every pair term goes to i's sums and to j's accumulators. */
typedef struct ivals {
	vf x, y, z, vx, vy, vz, rho, pr, cs, m, fl;
} ivals;

typedef struct isums {
	vf ax, ay, az, dr, mu;
} isums;

/* tide_kparams as vectors */
typedef struct kconst {
	vf h2x4, tiny, invh, af, h, eta2, hvisc, one, two;
	float dhc0x2, rho0, rhoh_k, inv_gamma;
} kconst;

/* Fourtakas' hydrostatic density difference for dz = z_i - z_j, lane by lane (rare path). */
static inline vf rho_h(const kconst *K, vf dz, vi m)
{
	vf r = vsplat(0.f);
	for (int k = 0; k < VW; k++)
		if (m[k]) r[k] = K->rho0 * (powf(1.f + K->rhoh_k * (-dz[k]), K->inv_gamma) - 1.f);
	return r;
}

/* fluid_i: i is a fluid particle (full momentum); otherwise a boundary particle, whose
 * candidates are all fluid and which itself only integrates continuity.  kernel and diffusion
 * are constants where this is inlined. */
static inline __attribute__((always_inline)) void
pair_range(const kconst *K, fws *W, const ivals *I, isums *S, int fluid_i, int kernel,
           int diffusion, uint32_t a, uint32_t b)
{
	vi lane;
	for (int k = 0; k < VW; k++) lane[k] = k;
	const float *restrict X = W->x, *restrict Y = W->y, *restrict Z = W->z;
	float *restrict AX = W->ax, *restrict AY = W->ay, *restrict AZ = W->az;
	float *restrict DR = W->dr, *restrict MU = W->mu;
	vf h2x4 = K->h2x4, tiny = K->tiny;
	vf xi = I->x, yi = I->y, zi = I->z;
	for (uint32_t j = a; j < b; j += VW) {
		int32_t left = (int32_t)(b - j);
		vi valid = lane < left - (vi){0};
		vf dx = xi - vload(X + j);
		vf dy = yi - vload(Y + j);
		vf dz = zi - vload(Z + j);
		vf r2 = dx * dx + dy * dy + dz * dz;
		vi in = (r2 < h2x4) & (r2 >= tiny) & valid;
		if (!vany(in)) continue;
		vf r = vsqrt(r2);
		vf q = r * K->invh;
		vf rhoj = vload(W->rho + j), mj = vload(W->m + j);
		vf dvx = I->vx - vload(W->vx + j);
		vf dvy = I->vy - vload(W->vy + j);
		vf dvz = I->vz - vload(W->vz + j);
		vf dvr = dvx * dx + dvy * dy + dvz * dz;
		/* one division for the kernel's 1/q, mu's 1/(r^2 + eta^2) and Pi's 1/rhobar */
		vf d1 = r2 + K->eta2, d2 = vsplat(0.5f) * (I->rho + rhoj);
		vf F;
		vf inv;
		if (kernel == TIDE_KERNEL_CUBIC) {
			inv = vsplat(1.f) / (d1 * d2 * q);
			vf t = K->two - q;
			vf fo = vsplat(-0.75f) * t * t * (d1 * d2 * inv);
			vf fi = vsplat(-3.f) + vsplat(2.25f) * q;
			F = K->af * vsel(q < K->one, fi, fo);
			inv = inv * q;           /* 1/(d1 d2) */
		} else {
			inv = vsplat(1.f) / (d1 * d2);
			vf t = K->one - vsplat(0.5f) * q;
			F = K->af * (vsplat(-5.f) * t * t * t);
		}
		vf hdvr = K->h * dvr;
		vf mu = hdvr * d2 * inv;
		vf visc = vand(K->hvisc * (I->cs + vload(W->cs + j)) * hdvr * inv, dvr < vsplat(0.f));
		vf T = vand((I->pr + vload(W->pr + j) + visc) * F, in);
		vf cont = vand(dvr * F, in);
		vf amu = vand(vabs(mu), in);
		vf tx = T * dx, ty = T * dy, tz = T * dz;
		vf drj = I->m * cont, dri = mj * cont;
		if (fluid_i) {
			S->ax -= mj * tx;
			S->ay -= mj * ty;
			S->az -= mj * tz;
			if (diffusion != 0) {
				/* fluid-fluid pairs only */
				vi ff = in & (vload(W->fl + j) > vsplat(0.5f));
				vf base = vsplat(K->dhc0x2) / d1 * r2 * F;
				vf di = I->rho - rhoj, dj = rhoj - I->rho;
				if (diffusion == 2) {
					di -= rho_h(K, dz, ff);
					dj -= rho_h(K, -dz, ff);
				}
				dri += vand(base * di * mj / rhoj, ff);
				drj += vand(base * dj * I->m / I->rho, ff);
			}
		}
		S->dr += dri;
		S->mu = vmax(S->mu, amu);
		vf mi = I->m;
		vstore(AX + j, vload(AX + j) + mi * tx);
		vstore(AY + j, vload(AY + j) + mi * ty);
		vstore(AZ + j, vload(AZ + j) + mi * tz);
		vstore(DR + j, vload(DR + j) + drj);
		vstore(MU + j, vmax(vload(MU + j), amu));
	}
}

static inline __attribute__((always_inline)) void
cell_pairs_k(const tide_kparams *P, fws *W, uint32_t cs, uint32_t cf, uint32_t ce, const nbr *nb,
             int nn, int kernel, int diffusion)
{
	kconst KC = {vsplat(P->h2x4), vsplat(P->tiny), vsplat(P->invh), vsplat(P->af), vsplat(P->h),
	             vsplat(P->eta2), vsplat(P->hvisc), vsplat(1.f), vsplat(2.f), P->dhc0x2,
	             P->rho0, P->rhoh_k, P->inv_gamma};
	const kconst *K = &KC;
	for (uint32_t i = cs; i < ce; i++) {
		int fluid_i = i < cf;
		ivals I;
		I.vx = vsplat(W->vx[i]); I.vy = vsplat(W->vy[i]); I.vz = vsplat(W->vz[i]);
		I.rho = vsplat(W->rho[i]); I.pr = vsplat(W->pr[i]); I.cs = vsplat(W->cs[i]);
		I.m = vsplat(W->m[i]); I.fl = vsplat(W->fl[i]);
		isums S = {vsplat(0.f), vsplat(0.f), vsplat(0.f), vsplat(0.f), vsplat(0.f)};
		for (int k = 0; k < nn; k++) {
			const nbr *d = &nb[k];
			uint32_t a, b;
			if (fluid_i) {
				a = d->self ? i + 1 : d->s;
				b = d->e;
			} else {
				if (d->self) continue;   /* the cell's fluid particles met i already */
				a = d->s;
				b = d->fe;
			}
			if (a >= b) continue;
			I.x = vsplat(W->x[i] + d->sx);
			I.y = vsplat(W->y[i] + d->sy);
			I.z = vsplat(W->z[i] + d->sz);
			if (fluid_i) pair_range(K, W, &I, &S, 1, kernel, diffusion, a, b);
			else pair_range(K, W, &I, &S, 0, kernel, 0, a, b);
		}
		W->ax[i] += vsum(S.ax);
		W->ay[i] += vsum(S.ay);
		W->az[i] += vsum(S.az);
		W->dr[i] += vsum(S.dr);
		float mu = vhmax(S.mu);
		if (mu > W->mu[i]) W->mu[i] = mu;
	}
}

#define TIDE_CPU_ONE(k, d)                                                                      \
	static void TIDE_CPU_N(cell_pairs_##k##_##d)(const tide_kparams *P, fws *W, uint32_t cs,   \
	                                             uint32_t cf, uint32_t ce, const nbr *nb, int nn) \
	{                                                                                           \
		cell_pairs_k(P, W, cs, cf, ce, nb, nn, k, d);                                       \
	}
TIDE_CPU_ONE(0, 0) TIDE_CPU_ONE(0, 1) TIDE_CPU_ONE(0, 2)
TIDE_CPU_ONE(1, 0) TIDE_CPU_ONE(1, 1) TIDE_CPU_ONE(1, 2)
#undef TIDE_CPU_ONE

/* All pairs of one cell with the neighbour cells nb (itself among them unless it is a halo
 * cell): cs..cf its fluid particles, cf..ce its boundary particles. */
static void TIDE_CPU_N(cell_pairs)(const tide_kparams *P, fws *W, uint32_t cs, uint32_t cf,
                                   uint32_t ce, const nbr *nb, int nn)
{
	static void (*const fn[2][3])(const tide_kparams *, fws *, uint32_t, uint32_t, uint32_t,
	                              const nbr *, int) = {
		{TIDE_CPU_N(cell_pairs_0_0), TIDE_CPU_N(cell_pairs_0_1), TIDE_CPU_N(cell_pairs_0_2)},
		{TIDE_CPU_N(cell_pairs_1_0), TIDE_CPU_N(cell_pairs_1_1), TIDE_CPU_N(cell_pairs_1_2)},
	};
	fn[P->kernel != 0][P->diffusion < 0 ? 0 : (P->diffusion > 2 ? 2 : P->diffusion)](
	        P, W, cs, cf, ce, nb, nn);
}

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
#undef ivals
#undef isums
#undef kconst
#undef rho_h
#undef pair_range
#undef cell_pairs_k
#undef TIDE_CPU_N
#undef TIDE_CPU_CAT
#undef TIDE_CPU_CAT_
#undef TIDE_CPU_VW
#undef TIDE_CPU_SFX
