// SPDX-License-Identifier: LGPL-2.1-or-later
// Agreement of the MPI ranks on their command (src/cmd_agree.h).  Plain MPI
// collectives are allowed here: StarPU-MPI has not started yet.  Rank 0's description goes to
// every rank, each compares its own, the lowest differing rank sends its description to all,
// and rank 0 says what differs: three collectives of a few kilobytes at start-up.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "checkpoint.h"
#include "cmd_agree.h"

void tide_cmd_key_init(tide_cmd_key *k, const char *command, int argc, char **argv)
{
	memset(k, 0, sizeof *k); /* every byte is sent */
	snprintf(k->command, sizeof k->command, "%s", command);
	size_t n = (size_t)snprintf(k->line, sizeof k->line, "tide");
	for (int i = 0; i < argc && n < sizeof k->line; i++)
		n += (size_t)snprintf(k->line + n, sizeof k->line - n, " %s", argv[i]);
	if (n >= sizeof k->line) strcpy(k->line + sizeof k->line - 4, "...");
}

void tide_cmd_key_add(tide_cmd_key *k, const char *option, const char *fmt, ...)
{
	if (k->nopts == TIDE_AGREE_MAX_OPTS) return; /* a programming error: the table is sized for it */
	char value[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(value, sizeof value, fmt, ap);
	va_end(ap);
	int i = k->nopts++;
	snprintf(k->name[i], sizeof k->name[i], "%s", option);
	size_t len = strlen(value), cap = sizeof k->text[i];
	memcpy(k->text[i], value, len < cap ? len + 1 : cap);
	if (len >= cap) strcpy(k->text[i] + cap - 4, "...");
	k->hash[i] = tide_fnv1a(TIDE_FNV_INIT, value, len);
}

/* Index of the first option of b that differs from a's (-1: none); *other_command when the
 * commands themselves differ. */
static int first_difference(const tide_cmd_key *a, const tide_cmd_key *b, int *other_command)
{
	*other_command = strcmp(a->command, b->command) != 0 || a->nopts != b->nopts;
	if (*other_command) return -1;
	for (int i = 0; i < a->nopts; i++)
		if (strcmp(a->name[i], b->name[i]) || a->hash[i] != b->hash[i]) return i;
	return -1;
}

/* The lowest rank for which `bad` holds (size: none), and its description in *out. */
static int lowest_rank(int bad, const tide_cmd_key *mine, int rank, int size, tide_cmd_key *out)
{
	int me = bad ? rank : size, low = size;
	MPI_Allreduce(&me, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (low < size) {
		if (rank == low) *out = *mine;
		MPI_Bcast(out, (int)sizeof *out, MPI_BYTE, low, MPI_COMM_WORLD);
	}
	return low;
}

int tide_cmd_agree(const tide_cmd_key *mine, int rank, int size)
{
	if (size <= 1) {
		if (!mine->env_error[0]) return 0;
		fprintf(stderr, "tide: %s\n", mine->env_error);
		return 2;
	}
	static tide_cmd_key first, other; /* a few kB each: not on the stack */
	if (rank == 0) first = *mine;
	MPI_Bcast(&first, (int)sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD);
	int cmd_differs, opt = first_difference(&first, mine, &cmd_differs);
	int r = lowest_rank(cmd_differs || opt >= 0, mine, rank, size, &other);
	if (r < size) {
		if (rank == 0) {
			opt = first_difference(&first, &other, &cmd_differs);
			if (cmd_differs)
				fprintf(stderr, "tide: MPI ranks run different commands: rank 0 runs '%s', rank "
				        "%d runs '%s'; every rank of an mpirun must run the same tide command.\n",
				        first.line, r, other.line);
			else
				fprintf(stderr, "tide: MPI rank %d was given other options than rank 0 (%s %s, "
				        "rank 0 %s %s); every rank of an mpirun must run the same tide %s "
				        "command.\n", r, other.name[opt], other.text[opt], first.name[opt],
				        first.text[opt], first.command);
		}
		return 2;
	}
	r = lowest_rank(mine->env_error[0] != 0, mine, rank, size, &other);
	if (r < size) {
		if (rank == 0) fprintf(stderr, "tide: MPI rank %d: %s\n", r, other.env_error);
		return 2;
	}
	return 0;
}
