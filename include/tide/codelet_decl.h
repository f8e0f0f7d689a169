/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one way to declare a tide codelet (as Chameleon's CODELETS macro): the history-based
 * performance model with its symbol "tide_NAME" (the calibrated models on a machine are keyed
 * by it), and struct starpu_codelet tide_NAME_cl with the CPU function, the CUDA function
 * (asynchronous: it queues its work on starpu_cuda_get_local_stream()) in a CUDA build, the
 * buffers' access modes and the name NAME.
 *
 *   TIDE_CODELET(cell_sort, cell_sort_cpu, tide_cell_sort_cuda, 3,
 *                STARPU_RW, STARPU_W, STARPU_SCRATCH);
 *   TIDE_CODELET_VARIABLE(halo_pack, halo_pack_cpu, tide_halo_pack_cuda);
 *   TIDE_CODELET_WITH(snap_copy, snap_copy_cpu, tide_snap_copy_cuda, .nbuffers = 2, ...);
 *
 * (In a simulation build the model is the non-linear regression, see TIDE_PERFMODEL_TYPE_.)
 * The second form is for a variable number of buffers (STARPU_VARIABLE_NBUFFERS: each task
 * gives its access modes).  In a build without CUDA the CUDA function is not named, so it
 * need not be declared.  Where a codelet may run is restricted in one way only,
 * tide_codelet_restrict. */
#ifndef TIDE_CODELET_DECL_H
#define TIDE_CODELET_DECL_H
#include <starpu.h>

#ifdef TIDE_USE_CUDA
#define TIDE_CODELET_CUDA_(cuda_func) .cuda_funcs = {cuda_func}, .cuda_flags = {STARPU_CUDA_ASYNC},
#define TIDE_CODELET_CUDA_REDUX_(cuda_func) TIDE_CODELET_CUDA_(cuda_func)
#elif defined(TIDE_SIMGRID)
/* a simulation build (meson -Dsimgrid=true): StarPU's SimGrid mode needs a non-NULL CUDA
 * function to simulate a codelet on a GPU.  It never calls it for a task, but it does call a
 * reduction's init function itself when a simulated GPU first takes a STARPU_REDUX handle
 * (_starpu_init_data_replicate: the step reduction's dt_init), so the function must be one
 * that can be called: a GPU copy holds nothing in a simulation, nothing to set.  (With a dummy
 * address there the GPU-only simulation looped on SIGSEGV at 100 % CPU.) */
static inline void tide_sim_cuda_nothing(void *buffers[], void *cl_arg)
{
	(void)buffers;
	(void)cl_arg;
}
#ifndef TIDE_SIM_CUDA_SYNC
/* as the CUDA build: the simulated kernel runs while the CUDA worker goes on moving data (a
 * synchronous simulated kernel holds the worker, whose driver loop also drives its memory
 * node's transfers, so nothing would overlap a kernel: the forces split would gain nothing).
 * -DTIDE_SIM_CUDA_SYNC: the simulation of before, every simulated kernel synchronous. */
#define TIDE_CODELET_CUDA_(cuda_func) .cuda_funcs = {tide_sim_cuda_nothing}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define TIDE_CODELET_CUDA_(cuda_func) .cuda_funcs = {tide_sim_cuda_nothing},
#endif
/* A reduction's combining codelet (starpu_data_set_reduction_methods) is synchronous in a
 * simulation: StarPU submits its tasks itself, as internal tasks, and StarPU 1.4's SimGrid
 * driver neither simulates an internal task (_starpu_simgrid_submit_job returns at once) nor,
 * for an asynchronous one, marks its pipeline slot finished (task_finished[worker][slot]).  The
 * CUDA worker then waits for the slot's mark, which only an earlier task's completion in the same
 * slot (one of STARPU_MAX_PIPELINE = 4) has left: a rank whose GPU had run fewer than 4 tasks
 * before the step's first reduction (one block alone: cell_sort, dt_init, sph_forces) waited for
 * ever, SimGrid's "Deadlock detected".  A synchronous internal task is finished at once. */
#define TIDE_CODELET_CUDA_REDUX_(cuda_func) .cuda_funcs = {tide_sim_cuda_nothing},
#else
#define TIDE_CODELET_CUDA_(cuda_func)
#define TIDE_CODELET_CUDA_REDUX_(cuda_func)
#endif

/* A task's size for its model: the particles of the whole blocks it takes (interfaces/
 * block_interface.c; 1 for a task of none).  History-based models key by footprint and only
 * record it; a simulation build's models are non-linear regressions a size^b + c in it, so that
 * bench/sim_fit_models.py can write models fitted at calibrated sizes for any size (16 M
 * particles per GPU), and fall back to the history of the footprint where a model file has no
 * fit (the calibrated models of bench/sim_validate.sh). */
size_t tide_perfmodel_size(struct starpu_task *task, unsigned nimpl);
#ifdef TIDE_SIMGRID
#define TIDE_PERFMODEL_TYPE_ STARPU_NL_REGRESSION_BASED
#else
#define TIDE_PERFMODEL_TYPE_ STARPU_HISTORY_BASED
#endif

#define TIDE_CODELET_MODEL_(NAME, size_func)                                                    \
	static struct starpu_perfmodel tide_##NAME##_model = {                                  \
		.type = TIDE_PERFMODEL_TYPE_,                                                   \
		.symbol = "tide_" #NAME,                                                        \
		.size_base = size_func,                                                         \
	}

/* fields: the buffers' designators */
#define TIDE_CODELET_(NAME, cpu_func, cuda_func, ...)                                           \
	TIDE_CODELET_SIZED_(NAME, cpu_func, cuda_func, tide_perfmodel_size, __VA_ARGS__)
/* ... with a size of its own for the model (size_t size_func(struct starpu_task *, unsigned),
 * e.g. a part of the block: sph_forces' split, include/tide/cell_split.h); the footprint is
 * StarPU's hash of that size, as for the others. */
#define TIDE_CODELET_SIZED_(NAME, cpu_func, cuda_func, size_func, ...)                          \
	TIDE_CODELET_BODY_(NAME, cpu_func, TIDE_CODELET_CUDA_(cuda_func), size_func, __VA_ARGS__)
/* ... cuda_fields: the CUDA designators (TIDE_CODELET_CUDA_ or TIDE_CODELET_CUDA_REDUX_) */
#define TIDE_CODELET_BODY_(NAME, cpu_func, cuda_fields, size_func, ...)                         \
	TIDE_CODELET_MODEL_(NAME, size_func);                                                   \
	struct starpu_codelet tide_##NAME##_cl = {                                              \
		.name = #NAME,                                                                  \
		.cpu_funcs = {cpu_func},                                                        \
		cuda_fields                                                                     \
		.model = &tide_##NAME##_model,                                                  \
		__VA_ARGS__                                                                     \
	}

#define TIDE_CODELET(NAME, cpu_func, cuda_func, nbuf, ...)                                      \
	TIDE_CODELET_(NAME, cpu_func, cuda_func, .nbuffers = nbuf, .modes = {__VA_ARGS__})
#define TIDE_CODELET_VARIABLE(NAME, cpu_func, cuda_func)                                        \
	TIDE_CODELET_(NAME, cpu_func, cuda_func, .nbuffers = STARPU_VARIABLE_NBUFFERS)
#define TIDE_CODELET_VARIABLE_SIZED(NAME, cpu_func, cuda_func, size_func)                       \
	TIDE_CODELET_SIZED_(NAME, cpu_func, cuda_func, size_func, .nbuffers = STARPU_VARIABLE_NBUFFERS)
/* A reduction's combining codelet (its redux method: StarPU submits its tasks itself), of
 * nbuf fixed buffers; the same as TIDE_CODELET but in a simulation build (TIDE_CODELET_CUDA_REDUX_). */
#define TIDE_CODELET_REDUX(NAME, cpu_func, cuda_func, nbuf, ...)                                \
	TIDE_CODELET_BODY_(NAME, cpu_func, TIDE_CODELET_CUDA_REDUX_(cuda_func), tide_perfmodel_size, \
	                   .nbuffers = nbuf, .modes = {__VA_ARGS__})
/* A codelet that does no work (the variable buffers of each task only move data, e.g.
 * halo_fetch): StarPU's "nop" model (1 us), which a simulation can price without calibration. */
#define TIDE_CODELET_NOWORK(NAME, cpu_func, cuda_func)                                          \
	struct starpu_codelet tide_##NAME##_cl = {                                              \
		.name = #NAME,                                                                  \
		.cpu_funcs = {cpu_func},                                                        \
		TIDE_CODELET_CUDA_(cuda_func)                                                   \
		.model = &starpu_perfmodel_nop,                                                 \
		.nbuffers = STARPU_VARIABLE_NBUFFERS,                                           \
	}
/* Any other fields of struct starpu_codelet given as designators (e.g. .specific_nodes and
 * .nodes for a buffer that must be in main memory): .nbuffers and .modes among them. */
#define TIDE_CODELET_WITH(NAME, cpu_func, cuda_func, ...)                                       \
	TIDE_CODELET_(NAME, cpu_func, cuda_func, __VA_ARGS__)

/* Where a codelet may run: wherever it has an implementation, or on CPU or CUDA workers only.
 * The values are StarPU's where masks. */
enum tide_where { TIDE_WHERE_ANY = 0, TIDE_WHERE_CPU = STARPU_CPU, TIDE_WHERE_CUDA = STARPU_CUDA };

/* Restricts cl to where (StarPU's where mask).  TIDE_WHERE_ANY names the implementations the
 * codelet has: StarPU computes an unset mask only before a codelet's first task, so 0 would
 * mean nowhere on a codelet already used (or copied from one). */
static inline void tide_codelet_restrict(struct starpu_codelet *cl, enum tide_where where)
{
	uint32_t any = cl->cpu_funcs[0] ? STARPU_CPU : 0;
	if (cl->cuda_funcs[0]) any |= STARPU_CUDA;
	cl->where = where == TIDE_WHERE_ANY ? any : (uint32_t)where;
}

/* The restriction of cl (TIDE_WHERE_ANY when it may run on both, or before its first task if
 * it was never restricted). */
static inline enum tide_where tide_codelet_where(const struct starpu_codelet *cl)
{
	if (cl->where == STARPU_CPU) return TIDE_WHERE_CPU;
	if (cl->where == STARPU_CUDA) return TIDE_WHERE_CUDA;
	return TIDE_WHERE_ANY;
}
#endif
