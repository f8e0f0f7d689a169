// SPDX-License-Identifier: LGPL-2.1-or-later
// The Bonnor-Ebert generator (case key bonnor_ebert, src/bonnor_ebert.c).
// Asserted:
//  - the Lane-Emden solution at the critical xi_max = 6.451 has rho_c / rho_edge = exp(psi) =
//    14.04 and mu = xi^2 psi' = 15.70 (Bonnor 1956; Ebert 1955), each within 0.2 %;
//  - a case file with fluid_spheres (radius 1, dp 0.1: 4169 particles) and bonnor_ebert: {}
//    builds particles whose enclosed count at r = R xi / xi_max is mu(xi) / mu(xi_max) of all
//    within 10 % at xi = 1, 2, 4 (the lattice's shells are discrete: 88 particles within xi = 1
//    where the profile says 81.5; a uniform sphere would be off by 5x there);
//  - after one step of the gas scheme the SPH density, averaged in shells, follows
//    rho_c exp(-psi) within 10 % inside 0.6 R (the kernel smooths the outer shells and the edge;
//    measured: 2.5 % low at the centre, 0.4 % at 0.55 R).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "bonnor_ebert.h"
#include "case_load.h"
#include "host_blocks.h"
#include "runtime.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const char *case_text =
	"dim: 3\ndp: 0.1\nunits: code\ndomain: {lo: [-3, -3, -3], hi: [3, 3, 3]}\n"
	"fluid_spheres: [{centre: [0, 0, 0], radius: 1}]\n"
	"physics: {scheme: gas, rho0: 0.2387, gravity: [0, 0, 0], cfl: 0.3,\n"
	"          self_gravity: {theta: 0.5, softening: 0.02}}\n"
	"gas: {eos: isothermal, cs: 0.25, h_max: 0.6}\n"
	"bonnor_ebert: {}\n"
	"time: {end: 0.1, output: 0.05}\n";

int main(void)
{
	double psi, mu;
	tide_be_solve(6.451, &psi, &mu);
	printf("bonnor_ebert: xi 6.451: rho_c / rho_edge = %.4f (14.04), mu = %.4f (15.70)\n", exp(psi), mu);
	EXPECT(fabs(exp(psi) / 14.04 - 1) < 2e-3, "rho_c / rho_edge %.4f", exp(psi));
	EXPECT(fabs(mu / 15.70 - 1) < 2e-3, "mu %.4f", mu);

	tide_runtime rt;
	int argc = 1;
	char *args[] = {"test_bonnor_ebert", NULL}, **argv = args;
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	char path[] = "/tmp/tide_be_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, case_text, strlen(case_text)) != (ssize_t)strlen(case_text)) return 1;
	close(fd);
	tide_case c;
	int bad = tide_case_load(path, 0, &c);
	unlink(path);
	EXPECT(!bad && c.bonnor_ebert.on && c.bonnor_ebert.xi_max == 6.451, "the case did not load");
	if (bad) return 1;
	void *mem;
	tide_block_view v;
	size_t nf, nb;
	if (tide_host_block_build(&c, 1, &mem, &v, &nf, &nb)) return 1;
	double xm = c.bonnor_ebert.xi_max, mu_max;
	tide_be_solve(xm, &psi, &mu_max);
	for (int k = 0; k < 3; k++) {
		double xi = k == 0 ? 1 : k == 1 ? 2 : 4, r = xi / xm, p, m;
		tide_be_solve(xi, &p, &m);
		size_t in = 0;
		for (uint32_t i = 0; i < v.count; i++)
			in += v.x[i] * v.x[i] + v.y[i] * v.y[i] + v.z[i] * v.z[i] < r * r;
		double got = (double)in / v.count, want = m / mu_max;
		printf("bonnor_ebert: %u particles; within xi = %g (r = %.4f): %.5f of them, profile %.5f, "
		       "uniform %.5f\n", v.count, xi, r, got, want, r * r * r);
		EXPECT(fabs(got / want - 1) < 0.1, "enclosed fraction %.5f, profile %.5f", got, want);
	}
	tide_sim sim;
	if (tide_sim_setup_take(&sim, &c, &mem, &v, 1, tide_runtime_uses_mpi())) return 1;
	tide_sim_step(&sim);
	void *gm = NULL;
	tide_block_view g;
	if (tide_sim_gather(&sim, 0, &gm, &g)) return 1;
	double rho_c = c.rho0 * xm * xm * xm / (3 * mu_max), worst = 0;
	for (int s = 0; s < 6; s++) {
		double r0 = 0.1 * s, r1 = 0.1 * (s + 1), sum = 0, want = 0;
		int n = 0;
		for (uint32_t i = 0; i < g.count; i++) {
			double r = sqrt(g.x[i] * g.x[i] + g.y[i] * g.y[i] + g.z[i] * g.z[i]);
			if (r < r0 || r >= r1) continue;
			double p, m;
			tide_be_solve(r * xm, &p, &m);
			sum += g.rho[i];
			want += rho_c * exp(-p);
			n++;
		}
		double e = n ? sum / want - 1 : 1;
		printf("bonnor_ebert: shell [%.1f, %.1f): %d particles, SPH density / profile %.4f\n", r0, r1, n, 1 + e);
		worst = fmax(worst, fabs(e));
	}
	EXPECT(worst < 0.1, "SPH density off the profile by %.3g inside 0.6 R", worst);
	free(gm);
	tide_sim_free(&sim);
	if (mem) tide_block_free_host(mem, v.cap);
	tide_runtime_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("bonnor_ebert: all checks passed\n");
	return 0;
}
