# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the run tests: mpi=(...) runs a command on CPU ranks (one CPU worker each, StarPU
# quiet), or is empty when mpirun is missing.
mpi=()
if command -v mpirun >/dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
	     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
	if [ -n "${STARPU_HOME:-}" ]; then mpi+=(-x STARPU_HOME); fi
fi
