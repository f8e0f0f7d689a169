#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_boundaries.sh — the GPU side of issue 21 and the CUDA halves of the unit tests, in
# one command on the GPU node (a tools/device_pack.sh package carried along; writes under $OUT):
#  1. every *_cuda unit test (CUDA codelet = CPU codelet: cell_sort, memory_accounting (the
#     expected device bytes = StarPU's count), sph_forces with periodic
#     images and floating bodies under DBC and mDBC (the contact force), bh, gauge_tasks,
#     mdbc (also ghosts across block faces, CUDA on 2..6 blocks against the CPU's 1 block,
#     issue 22), sps: laminar+sps's force kernel (with a floating layer in contact under mDBC) and
#     sps_tau, motion, gas,
#     jeans: the Jeans check's jeans_min, issue 24; bh_soft: per-particle softening in
#     the tree walks and the direct sum, issue 23; sinks: sink_gravity, sink_accrete and
#     sink_region, issue 24; gas_halos: the gas halos per block, halo_pack's and migrate_pack's
#     CUDA halves, issue 23) and the
#     snapshot test on the GPU; motion: the moving bodies' body_motion (issue 22); floating:
#     the floating bodies' body_force reduction (issue 22); forces_split: sph_forces split into
#     interior and boundary tasks = unsplit bit for bit (issue 25);
#  2. mDBC's cost: SPHERIC 2 at dp 0.004 (12.9 M particles), DBC against mDBC (and mDBC with
#     no-slip walls, whose ghost pass also interpolates the velocity), same steps (issue 21's
#     goal: <= 15 %), with --profile's breakdown;
#  3. the STL version of SPHERIC 2 at the same dp: particles built, time per step;
#  4. the viscous terms' cost at the same dp: laminar, and laminar+sps (its own force kernel and
#     the sps_tau pass), beside the DBC run of 2;
#  5. a moving body's cost (issue 22's goal: <= 10 %): SPHERIC 2 with its obstacle oscillating
#     across the tank (sine along y, 0.1 m, 2 s), DBC and mDBC, beside the runs of 2;
#  6. a floating body's cost (the same goal): SPHERIC 2 with its obstacle floating (density
#     2000: it stays on the floor, pushed by the wave), DBC and mDBC (its contact force); and
#     tests/test_floating_run.sh and tests/test_floating_contact.sh (landing under mDBC) with
#     the GPU's workers (the CUDA force kernel's floating and contact terms).
# TIDE_DEV_PARTS (default "tests boundaries viscosity stl moving floating") picks the parts.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
parts=" ${TIDE_DEV_PARTS:-tests boundaries viscosity stl moving floating} "
want() { [[ "$parts" == *" $1 "* ]]; }
{
if want tests; then
step "CUDA halves of the unit tests"
for x in cell_sort memory_accounting sph_forces bh bh_soft gauge_tasks mdbc sps motion floating gas gas_nbody jeans sinks gas_halos halo_cuts; do
	./build/tests/test_$x . --cuda 2>&1 | tail -2
	echo "${x}_cuda exit code: ${PIPESTATUS[0]} (0 passed; 77 no CUDA worker)"
done
# the forces split into interior and boundary tasks = unsplit, bit for bit, on the GPU (issue 25)
./build/tests/test_sph_forces . --split --cuda 2>&1 | tail -2
echo "forces_split_cuda exit code: ${PIPESTATUS[0]} (0 passed; 77 no CUDA worker)"
step "essential nodes' softenings on the GPU (2 ranks)"
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 ./build/tests/test_bh_let --cuda 2>&1 | tail -3
echo "bh_let_cuda exit code: ${PIPESTATUS[0]} (0 passed; 77 no CUDA worker)"
step "every received set in one walk on the GPU = one walk per set, bit for bit (4 ranks)"
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 ./build/tests/test_bh_let --cuda --sets 2>&1 | tail -4
echo "bh_walk_sets_cuda exit code: ${PIPESTATUS[0]} (0 passed; 77 no CUDA worker)"
step "snapshots on the GPU"
bash tests/test_snapshots.sh "$t" ./build/tests/compare_particles . 2>&1 | tail -6
echo "test_snapshots exit code: ${PIPESTATUS[0]}"
fi
summary() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%s: %d particles, %d steps, later steps %.3f ms, device %.0f B/particle' % (sys.argv[2], d['n_fluid'] + d['n_bound'], d['steps'], 1e3 * d['later_step_s'], d['peak_device_bytes'] / (d['n_fluid'] + d['n_bound'])))" "$1/run_summary.json" "$2"; }
want boundaries && for b in dbc mdbc mdbc_noslip; do
	step "SPHERIC 2, dp 0.004, physics.boundary $b"
	slip=vel0; [ "$b" = mdbc_noslip ] && slip=noslip
	$t run cases/spheric2.yaml --dp 0.004 --max-steps 200 --no-output --profile --set physics.boundary=${b%_noslip} \
		--set physics.mdbc_slip=$slip --overwrite --out "$out/sp_$b" --quiet 2>&1 | grep -E '^ +[a-z_]+ ' | head -12
	summary "$out/sp_$b" "$b"
done
want viscosity && for v in laminar laminar+sps; do
	step "SPHERIC 2, dp 0.004, physics.viscosity $v"
	$t run cases/spheric2.yaml --dp 0.004 --max-steps 200 --no-output --profile --set physics.viscosity=$v \
		--overwrite --out "$out/sp_${v/+/_}" --quiet 2>&1 | grep -E '^ +[a-z_]+ ' | head -12
	summary "$out/sp_${v/+/_}" "$v"
done
if want stl; then
step "SPHERIC 2 from STL files, dp 0.004"
$t run cases/spheric2_stl.yaml --dp 0.004 --max-steps 100 --no-output --overwrite --out "$out/sp_stl" --quiet
summary "$out/sp_stl" "spheric2_stl"
fi
if want moving; then
	# the obstacle of cases/spheric2.yaml with a motion: its 0.16 m block slides +-0.1 m along y
	sed 's|^  - {lo: \[0.6635, 0.2955, 0\], hi: \[0.8245, 0.6985, 0.161\]}$|  - {lo: [0.6635, 0.2955, 0], hi: [0.8245, 0.6985, 0.161], motion: {type: sine, amplitude: [0, 0.1, 0], period: 2}}|' \
		cases/spheric2.yaml > "$out/spheric2_moving.yaml"
	grep -q 'motion: {type: sine' "$out/spheric2_moving.yaml" || echo "spheric2_moving.yaml: the obstacle line was not found"
	for b in dbc mdbc; do
		step "SPHERIC 2 with the obstacle moving, dp 0.004, physics.boundary $b"
		$t run "$out/spheric2_moving.yaml" --dp 0.004 --max-steps 200 --no-output --profile --set physics.boundary=$b \
			--overwrite --out "$out/spm_$b" --quiet 2>&1 | grep -E '^ +[a-z_]+ ' | head -12
		summary "$out/spm_$b" "moving obstacle, $b"
	done
fi
if want floating; then
	sed 's|^  - {lo: \[0.6635, 0.2955, 0\], hi: \[0.8245, 0.6985, 0.161\]}$|  - {lo: [0.6635, 0.2955, 0], hi: [0.8245, 0.6985, 0.161], floating: {density: 2000}}|' \
		cases/spheric2.yaml > "$out/spheric2_floating.yaml"
	grep -q 'floating: {density' "$out/spheric2_floating.yaml" || echo "spheric2_floating.yaml: the obstacle line was not found"
	for b in dbc mdbc; do
		step "SPHERIC 2 with the obstacle floating, dp 0.004, $b"
		$t run "$out/spheric2_floating.yaml" --dp 0.004 --max-steps 200 --no-output --profile \
			--set physics.boundary=$b --overwrite --out "$out/spf_$b" --quiet 2>&1 |
			grep -E '^ +[a-z_]+ ' | head -14
		summary "$out/spf_$b" "floating obstacle, $b"
	done
	for x in floating_run floating_contact; do
		step "tests/test_$x.sh on the GPU node's workers"
		bash tests/test_$x.sh "$t" . 2>&1 | tail -8
		echo "test_$x exit code: ${PIPESTATUS[0]}"
	done
fi
} 2>&1 | tee "$out/device_boundaries.log"
