# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the failure tests (test_failures.sh, test_faults_mpi.sh): fail and expect, which
# count failures in $nfail and keep each command's output under $work.
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

# expect NAME CODE TEXT CMD...: CMD exits with CODE and says TEXT (a fixed string) on stderr.
# An exit code of 128 or more is a failure unless it is the CODE asked for (a run stopped by a
# signal on purpose exits 128 + the signal).
expect() {
	local name=$1 want=$2 text=$3; shift 3
	timeout -k 10 120 "$@" >"$work/$name.out" 2>"$work/$name.err"
	local rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then fail "$name: hung (killed after 120 s)"; return 1; fi
	if [ $rc -ge 128 ] && [ $rc != "$want" ]; then fail "$name: killed by signal $((rc - 128)) (exit code $rc)"; return 1; fi
	if [ $rc != "$want" ]; then
		fail "$name: exit code $rc, not $want: $(head -c 600 "$work/$name.err")"
		return 1
	fi
	if ! grep -qF -- "$text" "$work/$name.err"; then
		fail "$name: stderr does not say '$text': $(head -c 600 "$work/$name.err")"
		return 1
	fi
	echo "ok: $name (exit $rc): $(grep -F -m1 -- "$text" "$work/$name.err" | head -c 300)"
}
