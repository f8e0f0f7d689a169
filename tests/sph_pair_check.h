/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* test_sph_pair's check for one SIMD width, included once per width after tide/sph_pair.h (with
 * TIDE_CPU_VW and TIDE_CPU_SFX defined); defines check_SFX(). */
static void TIDE_CPU_N(check)(int kernel, int diffusion, int viscosity, int npairs, errs *E)
{
	tide_sph_params P = params(kernel, diffusion, viscosity);
	int art = viscosity == TIDE_VISC_ARTIFICIAL;
	kconst K = {vsplat(P.h2x4), vsplat(1e-18f), vsplat(1.f / P.h), vsplat(P.af), vsplat(P.h),
	            vsplat(P.eta2), vsplat(art ? -P.visco * 0.5f : 0.f), vsplat(1.f), vsplat(2.f),
	            vsplat(P.delta_hc0 * 2.f), P.rho0,
	            {P.rhoh_g[0], P.rhoh_g[1], P.rhoh_g[2]}, 1.f / P.gamma,
	            vsplat(art ? 0.f : 2.f * P.nu), viscosity == TIDE_VISC_LAMINAR_SPS,
	            vsplat(P.contact_k), vsplat(P.contact_g), vsplat(P.contact_d), 0};
	for (int done = 0; done < npairs; done += VW) {
		mirrored = K.own = (done / VW) % 2;
		particle pi_ = random_particle(&P, urand() < 0.75 ? TIDE_FLUID : TIDE_BOUND, NULL);
		int fluid_i = pi_.type == TIDE_FLUID;
		ivals I;
		I.x = vsplat(pi_.x); I.y = vsplat(pi_.y); I.z = vsplat(pi_.z);
		I.vx = vsplat(pi_.vx); I.vy = vsplat(pi_.vy); I.vz = vsplat(pi_.vz);
		I.rho = vsplat(pi_.rho); I.pr = vsplat(pi_.pr); I.cs = vsplat(pi_.cs);
		I.m = vsplat(pi_.m); I.fl = vsplat(fluid_i ? 1.f : 0.f); I.mr = vsplat(pi_.m / pi_.rho);
		I.ox = vsplat(pi_.ox); I.oy = vsplat(pi_.oy); I.oz = vsplat(pi_.oz);
		/* laminar+sps: random tau / rho^2 of fluid particles (walls carry none) */
		float taui[6], tauj[VW][6];
		vf tjv[6];
		for (int q = 0; q < 6; q++) {
			taui[q] = K.sps && fluid_i ? (float)(1e-3 * (urand() - 0.5)) : 0.f;
			I.tau[q] = vsplat(taui[q]);
		}
		particle pj[VW];
		vf dx, dy, dz, r2, vxj, vyj, vzj, oxj, oyj, ozj, rhoj, mj, prj, csj, flj;
		vi in;
		for (int k = 0; k < VW; k++) {
			/* a boundary particle meets fluid only (the loops skip wall-wall pairs) */
			int tj = !fluid_i || urand() < 0.75 ? TIDE_FLUID : TIDE_BOUND;
			pj[k] = random_particle(&P, tj, &pi_);
			dx[k] = pi_.x - pj[k].x; dy[k] = pi_.y - pj[k].y; dz[k] = pi_.z - pj[k].z;
			r2[k] = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
			in[k] = r2[k] < P.h2x4 && r2[k] >= 1e-18f ? -1 : 0;
			vxj[k] = pj[k].vx; vyj[k] = pj[k].vy; vzj[k] = pj[k].vz; rhoj[k] = pj[k].rho;
			oxj[k] = pj[k].ox; oyj[k] = pj[k].oy; ozj[k] = pj[k].oz;
			mj[k] = pj[k].m; prj[k] = pj[k].pr; csj[k] = pj[k].cs;
			flj[k] = tj == TIDE_FLUID ? 1.f : 0.f;
			for (int q = 0; q < 6; q++) {
				tauj[k][q] = K.sps && tj == TIDE_FLUID ? (float)(1e-3 * (urand() - 0.5)) : 0.f;
				tjv[q][k] = tauj[k][q];
			}
		}
		vpair_out o = vpair(&K, &I, fluid_i, kernel, fluid_i ? diffusion : 0, dx, dy, dz, r2, in,
		                    vxj, vyj, vzj, oxj, oyj, ozj, rhoj, mj, prj, csj, flj);
		vsps_out so = vsps(I.tau, tjv, o.F, dx, dy, dz, I.vx - vxj, I.vy - vyj, I.vz - vzj);
		/* the contact force of the same pairs, as two boundary particles of different
		 * bodies with random relative velocities (test_sph_pair.c's head) */
		vf cdv[3];
		for (int q = 0; q < 3; q++)
			for (int k = 0; k < VW; k++) cdv[q][k] = (float)(urand() - 0.5);
		vf cc = vand(vcontact(K.kc, K.gc, K.dc, r2, cdv[0] * dx + cdv[1] * dy + cdv[2] * dz), in);
		for (int k = 0; k < VW; k++) {
			if (!in[k]) {
				if (cc[k] != 0.f) E->masked++;
				continue;
			}
			tide_acc ci = {0.f, 0.f, 0.f, 0.f, 0.f}, cj = ci;
			tide_pair_contact(&P, dx[k], dy[k], dz[k], r2[k], cdv[0][k], cdv[1][k], cdv[2][k], &ci);
			tide_pair_contact(&P, -dx[k], -dy[k], -dz[k], r2[k], -cdv[0][k], -cdv[1][k],
			                  -cdv[2][k], &cj);
			float d[3] = {dx[k], dy[k], dz[k]}, si[3] = {ci.ax, ci.ay, ci.az},
			      sj[3] = {cj.ax, cj.ay, cj.az};
			double r = sqrt((double)r2[k]), dvr = 0.0;
			for (int q = 0; q < 3; q++) dvr += (double)cdv[q][k] * (double)d[q];
			double c = r < P.contact_d ? (double)P.contact_k * ((double)P.contact_d - r) -
			                                     (double)P.contact_g * dvr / r : 0.0;
			c = c > 0.0 ? c / r : 0.0;
			for (int q = 0; q < 3; q++) {
				compare(E, 6, si[q], cc[k] * d[q]);
				compare(E, 6, sj[q], -cc[k] * d[q]);
				compare(E, 7, (float)(c * (double)d[q]), si[q]);
			}
		}
		for (int k = 0; k < VW; k++) {
			if (!in[k]) {
				/* outside the support or i itself: nothing at all */
				if (o.tx[k] != 0.f || o.ty[k] != 0.f || o.tz[k] != 0.f || o.dri[k] != 0.f ||
				    o.drj[k] != 0.f || o.amu[k] != 0.f)
					E->masked++;
				continue;
			}
			/* the scalar form for i, and for j with the roles exchanged */
			tide_acc ai = scalar(&P, kernel, diffusion, &pi_, &pj[k], dx[k], dy[k], dz[k],
			                     r2[k]);
			tide_acc aj = scalar(&P, kernel, diffusion, &pj[k], &pi_, -dx[k], -dy[k], -dz[k],
			                     r2[k]);
			if (fluid_i) {
				compare(E, 0, ai.ax, -pj[k].m * o.tx[k]);
				compare(E, 0, ai.ay, -pj[k].m * o.ty[k]);
				compare(E, 0, ai.az, -pj[k].m * o.tz[k]);
			}
			if (pj[k].type == TIDE_FLUID) { /* a wall's acceleration is dropped */
				compare(E, 0, aj.ax, pi_.m * o.tx[k]);
				compare(E, 0, aj.ay, pi_.m * o.ty[k]);
				compare(E, 0, aj.az, pi_.m * o.tz[k]);
			}
			/* equal velocities: the density rate is the diffusion alone, its own kind */
			int still = pj[k].ox == pi_.ox && pj[k].oy == pi_.oy && pj[k].oz == pi_.oz;
			/* a mirrored wall's own density rate is not used (mDBC: the ghost's density), and
			 * tide_pair_k takes i's own velocity as the one it shows */
			if (fluid_i || !mirrored) compare(E, still ? 3 : 1, ai.drho, o.dri[k]);
			if (pj[k].type == TIDE_FLUID || !mirrored)
				compare(E, still ? 3 : 1, aj.drho, o.drj[k]);
			compare(E, 2, ai.mu_max, o.amu[k]);
			compare(E, 2, aj.mu_max, o.amu[k]);
			if (!K.sps) continue;
			/* the SPS terms (kinds 4: stress force, 5: gradient): tide_pair_sps_k for i
			 * and for j (roles exchanged: r_ji = -r_ij, v_ji = -v_ij) against vsps with
			 * its documented shares: i +m_j t, j -m_i t; gradients -m/rho g */
			float dvx = pi_.vx - pj[k].vx, dvy = pi_.vy - pj[k].vy, dvz = pi_.vz - pj[k].vz;
			tide_acc si = {0.f, 0.f, 0.f, 0.f, 0.f}, sj = si;
			float gi[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f}, gj[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
			tide_pair_sps_k(&P, kernel, taui, dx[k], dy[k], dz[k], r2[k], dvx, dvy, dvz,
			                pj[k].rho, pj[k].type, tauj[k], &si, gi);
			tide_pair_sps_k(&P, kernel, tauj[k], -dx[k], -dy[k], -dz[k], r2[k], -dvx, -dvy,
			                -dvz, pi_.rho, pi_.type, taui, &sj, gj);
			if (fluid_i) {
				compare(E, 4, si.ax, pj[k].m * so.tx[k]);
				compare(E, 4, si.ay, pj[k].m * so.ty[k]);
				compare(E, 4, si.az, pj[k].m * so.tz[k]);
				for (int q = 0; q < 6; q++)
					compare(E, 5, gi[q], -pj[k].m / pj[k].rho * so.g[q][k]);
			}
			if (pj[k].type == TIDE_FLUID) {
				compare(E, 4, sj.ax, -pi_.m * so.tx[k]);
				compare(E, 4, sj.ay, -pi_.m * so.ty[k]);
				compare(E, 4, sj.az, -pi_.m * so.tz[k]);
				for (int q = 0; q < 6; q++)
					compare(E, 5, gj[q], -pi_.m / pi_.rho * so.g[q][k]);
			}
		}
	}
}
