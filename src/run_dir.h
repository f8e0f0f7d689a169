/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The output directory of tide run: the rules checked before anything is written into it.
 * A case name must be a plain file name (it becomes runs/NAME); the directory's path must leave
 * room for the longest name tide writes below it; a directory that holds a run is not written
 * over unless asked (--overwrite removes that run's files, by name, and nothing else; --restart
 * goes on in it); and one run at a time holds the directory, through a lock on DIR/.tide.lock
 * that the system releases when the process ends, however it ends (kill -9 included). */
#ifndef TIDE_RUN_DIR_H
#define TIDE_RUN_DIR_H
#include <stddef.h>

/* Paths below DIR are built in buffers of this size (tide_atomic_file, the gauges, series and
 * checkpoint paths). */
#define TIDE_PATH_BUF 1024

/* 0 when name may be a case name (letters, digits, '_', '-', '.'; not starting with '.' or '-';
 * no ".."; 1 to TIDE_CASE_NAME - 1 characters), otherwise -1 with the reason in err (a phrase,
 * e.g. "contains '/'"). */
int tide_run_name_check(const char *name, char *err, size_t n);
/* Makes name (a default taken from a file name) follow the rule: '_' for what it forbids,
 * "case" for an empty name. */
void tide_run_name_fix(char *name, size_t n);
/* The rule in words, for messages and docs. */
#define TIDE_RUN_NAME_RULE "letters, digits, '_', '-' and '.', not starting with '.' or '-' and " \
	"without '..' (it names the output directory runs/NAME)"

enum tide_dir_mode {
	TIDE_DIR_NEW,        /* refuse a directory that holds a run */
	TIDE_DIR_OVERWRITE,  /* remove the files of the run it holds first */
	TIDE_DIR_CONTINUE,   /* a restart: the run goes on in it */
};

typedef struct tide_run_dir {
	int lock_fd;                 /* DIR/.tide.lock, locked (-1: none) */
	int removed;                 /* files removed by --overwrite */
} tide_run_dir;

/* The checks alone, writing nothing (before a run builds its particles): 0, 2 after the
 * refusal, 1 when out of host memory. */
int tide_run_dir_check(const char *dir, enum tide_dir_mode mode);
/* Checks the path of dir (length, components) and whether another run holds it or a run lies
 * in it, then creates it, takes its lock and, for TIDE_DIR_OVERWRITE, removes the earlier run's
 * files (listed at --verbose).  Returns 0; 2 when refused (the path, another run's lock, a run
 * already there, a file of the user's in the checkpoint --overwrite would replace: one sentence
 * printed, nothing written or removed); 1 when the directory or its lock file cannot be created
 * (message printed). */
int tide_run_dir_claim(tide_run_dir *d, const char *dir, enum tide_dir_mode mode);
/* Lets the directory go (the lock file stays: removing it would race with a run taking it). */
void tide_run_dir_release(tide_run_dir *d);

/* Writes to buf "ParaView: DIR/particles.pvd; summary: ...; log: DIR/run.log", naming only the
 * main outputs that exist in dir. */
void tide_run_dir_outputs(const char *dir, char *buf, size_t n);

#endif
