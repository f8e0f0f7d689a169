#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Jeans check in a run (include/tide/jeans.h, tasks/gas_jeans.c): the self-gravitating gas
# ball of docs/case-format.md (code units, G = 1, rho0 = 0.2387, particle mass 0.2387 * 0.2^3)
# logs at every output its least Jeans mass and the least M_J / (N_ngb m_i), each particle's
# own mass m_i (here all 0.0019096: N_ngb m = 57.906 * 0.0019096 = 0.1106).
# By hand at t = 0 (rho = rho0): M_J = 2.91557 c_s^3 / sqrt(0.2387) = 5.968 c_s^3, so a warm
# ball (c_s = 1: 5.968, M_J / (N_ngb m) = 53.97) is resolved and a cold one (c_s = 0.1: 0.005968, 0.05397) is not, and the run
# warns once, naming t = 0 and the density; run_summary.json has jeans_unresolved_t 0 (cold)
# and -1 (warm, never).  2 ranks log the same first check as 1 rank.
set -euo pipefail
tide=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_cpu.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$here/gas_ball.sh"
gas_ball 1.0 > "$dir/warm.yaml"
gas_ball 0.1 > "$dir/cold.yaml"
STARPU_NCPU=1 "$tide" run "$dir/warm.yaml" --blocks 2 --out "$dir/w" > "$dir/w.log" 2>&1
want="Jeans check at t = 0: least Jeans mass 5.968 at rho = 0.2387, least M_J / (N_ngb m_i) 53.97 (57.9 neighbours): resolved"
grep -qF "$want" "$dir/w.log" || { echo "FAIL: the warm ball's log lacks '$want'"; grep -i jeans "$dir/w.log"; exit 1; }
if grep -q "NOT resolved\|no longer resolved" "$dir/w.log"; then echo "FAIL: the warm ball is said unresolved"; exit 1; fi
STARPU_NCPU=1 "$tide" run "$dir/cold.yaml" --blocks 2 --out "$dir/c" > "$dir/c.log" 2>&1
want="least Jeans mass 0.005968 at rho = 0.2387, least M_J / (N_ngb m_i) 0.05397 (57.9 neighbours): NOT resolved"
grep -qF "$want" "$dir/c.log" || { echo "FAIL: the cold ball's log lacks '$want'"; grep -i jeans "$dir/c.log"; exit 1; }
n=$(grep -c "no longer resolved at t = 0: 552 particles" "$dir/c.log" || true)
[ "$n" = 1 ] || { echo "FAIL: the cold ball warned $n times (once expected)"; grep -i jeans "$dir/c.log"; exit 1; }
grep -Eq '"jeans_unresolved_t": 0,?$' "$dir/c/run_summary.json" ||
	{ echo "FAIL: the cold ball's summary lacks jeans_unresolved_t 0"; cat "$dir/c/run_summary.json"; exit 1; }
grep -Eq '"jeans_unresolved_t": -1,?$' "$dir/w/run_summary.json" ||
	{ echo "FAIL: the warm ball's summary lacks jeans_unresolved_t -1"; cat "$dir/w/run_summary.json"; exit 1; }
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" run "$dir/warm.yaml" --blocks 2 --max-steps 1 --out "$dir/w2" > "$dir/w2.log" 2>&1
	grep -qF "Jeans check at t = 0: least Jeans mass 5.968 at rho = 0.2387" "$dir/w2.log" ||
		{ echo "FAIL: 2 ranks log another first Jeans check"; grep -i jeans "$dir/w2.log"; exit 1; }
fi
echo "ok: Jeans check: warm ball resolved (5.968 > 0.1106, ratio 53.97), cold ball not (0.005968, 0.05397), warned once; 2 ranks alike"
