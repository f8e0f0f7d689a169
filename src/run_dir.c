// SPDX-License-Identifier: LGPL-2.1-or-later
// The output directory of tide run (src/run_dir.h): case names, path lengths, the run
// a directory already holds, --overwrite, and the lock that keeps a second run out.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tide/case.h"
#include "log.h"
#include "run_dir.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* The longest name tide writes below DIR: a temporary checkpoint directory's case file (a
 * failed_state checkpoint of mkdtemp's DIR/failed_state.tmp-XXXXXX) while it is written. */
#define LONGEST_NAME "failed_state.tmp-XXXXXX/used_parameters.yaml.tmp"
#define LOCK_NAME ".tide.lock"

static int name_char_ok(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.';
}

int tide_run_name_check(const char *name, char *err, size_t n)
{
	size_t len = strlen(name);
	const char *bad = NULL;
	if (!len) bad = "is empty";
	else if (len >= TIDE_CASE_NAME) bad = "is too long";
	else if (name[0] == '.') bad = "starts with '.'";
	else if (name[0] == '-') bad = "starts with '-'";
	else if (strstr(name, "..")) bad = "contains '..'";
	for (const char *p = name; !bad && *p; p++)
		if (!name_char_ok(*p))
			bad = *p == '/' ? "contains '/'" : "contains a character other than those";
	if (!bad) return 0;
	snprintf(err, n, "%s", bad);
	return -1;
}

void tide_run_name_fix(char *name, size_t n)
{
	for (char *p = name; *p; p++)
		if (!name_char_ok(*p) || (p == name && (*p == '.' || *p == '-')) ||
		    (*p == '.' && p[1] == '.'))
			*p = '_';
	if (!*name) snprintf(name, n, "case");
}

/* ---- the files of a run ---- */

/* Every name tide run writes directly below DIR (add new outputs here: --overwrite removes
 * exactly these, and a directory holding any of them holds a run).  A numbered entry is
 * prefix, digits, suffix; a temporary directory is prefix and mkdtemp's 6 characters; files
 * may also be seen as NAME.tmp, the atomic writers' temporaries. */
enum { PLAIN, NUMBERED, CKPT_DIR, CKPT_TMP_DIR };
typedef struct run_name {
	const char *prefix, *suffix;
	int kind;
} run_name;

static const run_name run_names[] = {
	{"used_parameters.yaml", "", PLAIN},
	{"run_summary.csv", "", PLAIN},
	{"run_summary.json", "", PLAIN},
	{"run.log", "", PLAIN},
	{"gauges.csv", "", PLAIN},
	{"sinks.csv", "", PLAIN},
	{"statistics.csv", "", PLAIN},
	{"particles.pvd", "", PLAIN},
	{"particles.xmf", "", PLAIN},
	{"failed_state.vtp", "", PLAIN},
	{"particles_", ".vtp", NUMBERED},
	{"particles_", ".h5", NUMBERED},
	{"snapshot_", ".hdf5", NUMBERED},    /* output.format swift (swift_output.h) */
	{"bodies.csv", "", PLAIN},
	{"bodies.pvd", "", PLAIN},
	{"bodies_", ".vtp", NUMBERED},
	{"step_profile_rank", ".csv", NUMBERED},
	{"step_timeline_rank", ".csv", NUMBERED},
	{"pair_stats.csv", "", PLAIN},
	{"checkpoint", "", CKPT_DIR},
	{"checkpoint.prev", "", CKPT_DIR},
	{"checkpoint.tmp-", "", CKPT_TMP_DIR},
	{"failed_state", "", CKPT_DIR},
	{"failed_state.prev", "", CKPT_DIR},
	{"failed_state.tmp-", "", CKPT_TMP_DIR},
};
#define NNAMES (sizeof run_names / sizeof *run_names)

/* What a checkpoint directory holds (src/checkpoint.c). */
static const char *const ckpt_files[] = {"header.bin", "particles.bin", "used_parameters.yaml",
                                         "checkpoint.txt"};

static int ends_as(const char *rest, const char *suffix)
{
	size_t ls = strlen(suffix);
	if (strncmp(rest, suffix, ls)) return 0;
	return !rest[ls] || !strcmp(rest + ls, ".tmp");
}

/* The entry of run_names that name is, or -1. */
static int run_name_of(const char *name)
{
	for (size_t i = 0; i < NNAMES; i++) {
		const run_name *r = &run_names[i];
		size_t lp = strlen(r->prefix);
		if (strncmp(name, r->prefix, lp)) continue;
		const char *rest = name + lp;
		switch (r->kind) {
		case PLAIN:
			if (ends_as(rest, "")) return (int)i;
			break;
		case NUMBERED: {
			const char *q = rest;
			while (isdigit((unsigned char)*q)) q++;
			if (q > rest && ends_as(q, r->suffix)) return (int)i;
			break;
		}
		case CKPT_DIR:
			if (!*rest) return (int)i;
			break;
		case CKPT_TMP_DIR:
			if (strlen(rest) == 6) return (int)i;
			break;
		}
	}
	return -1;
}

/* The names of dir's entries that belong to a run (a NULL-terminated array to free with
 * free_names), or NULL when out of memory; *n their count. */
static char **run_entries(const char *dir, size_t *n)
{
	*n = 0;
	size_t cap = 16;
	char **v = malloc(cap * sizeof *v);
	DIR *d = opendir(dir);
	if (!v) return NULL;
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (run_name_of(e->d_name) < 0) continue;
			if (*n + 1 >= cap) {
				char **w = realloc(v, 2 * cap * sizeof *v);
				if (!w) break;
				v = w;
				cap *= 2;
			}
			if (!(v[*n] = strdup(e->d_name))) break;
			(*n)++;
		}
		closedir(d);
	}
	v[*n] = NULL;
	return v;
}

static void free_names(char **v)
{
	for (size_t i = 0; v && v[i]; i++) free(v[i]);
	free(v);
}

/* Removes a checkpoint directory: the files a checkpoint holds, then the directory if that
 * emptied it (a file of the user's inside keeps it).  Returns the files removed. */
static int remove_ckpt_dir(const char *path)
{
	char p[2 * TIDE_PATH_BUF]; /* path is below TIDE_PATH_BUF (check_path) */
	int removed = 0;
	for (size_t i = 0; i < sizeof ckpt_files / sizeof *ckpt_files; i++)
		for (int tmp = 0; tmp < 2; tmp++) {
			snprintf(p, sizeof p, "%s/%s%s", path, ckpt_files[i], tmp ? ".tmp" : "");
			if (unlink(p) == 0) removed++;
		}
	if (rmdir(path) && errno != ENOENT) /* emptied after foreign_in_ckpt: a race with the user */
		tide_info("--overwrite: kept %s, which holds files that are not tide's\n", path);
	return removed;
}

/* 2 after the refusal when a checkpoint directory of the earlier run holds a file that is not
 * a checkpoint's: --overwrite would keep that directory, and the new run's checkpoints, which
 * replace it whole, would take the file with it. */
static int foreign_in_ckpt(const char *dir, char **names)
{
	char p[TIDE_PATH_BUF + NAME_MAX + 2];
	for (size_t k = 0; names[k]; k++) {
		if (run_names[run_name_of(names[k])].kind < CKPT_DIR) continue;
		snprintf(p, sizeof p, "%s/%s", dir, names[k]);
		struct stat sb;
		DIR *d = lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) ? opendir(p) : NULL;
		if (!d) continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			int ours = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
			for (size_t i = 0; i < sizeof ckpt_files / sizeof *ckpt_files && !ours; i++) {
				size_t l = strlen(ckpt_files[i]);
				ours = !strncmp(e->d_name, ckpt_files[i], l) &&
				       (!e->d_name[l] || !strcmp(e->d_name + l, ".tmp"));
			}
			if (ours) continue;
			fprintf(stderr, "tide run: --overwrite: %s/%s is not a file of tide's, and the new "
			        "run's checkpoints replace %s whole; move it out first (nothing was "
			        "removed).\n", p, e->d_name, p);
			closedir(d);
			return 2;
		}
		closedir(d);
	}
	return 0;
}

/* --overwrite: removes the earlier run's files (and only those) and says which at --verbose. */
static int remove_run(const char *dir, char **names)
{
	int count[NNAMES] = {0}, removed = 0;
	const char *first[NNAMES] = {0}, *last[NNAMES] = {0};
	char p[TIDE_PATH_BUF + NAME_MAX + 2];
	for (size_t k = 0; names[k]; k++) {
		int i = run_name_of(names[k]);
		snprintf(p, sizeof p, "%s/%s", dir, names[k]);
		struct stat sb;
		if (lstat(p, &sb)) continue;
		int is_dir = S_ISDIR(sb.st_mode), ckpt = run_names[i].kind >= CKPT_DIR;
		if (is_dir != ckpt) continue; /* not what tide writes under that name: the user's */
		if (is_dir) removed += remove_ckpt_dir(p);
		else if (unlink(p) == 0) removed++;
		else continue;
		count[i]++;
		if (!first[i] || strcmp(names[k], first[i]) < 0) first[i] = names[k];
		if (!last[i] || strcmp(names[k], last[i]) > 0) last[i] = names[k];
	}
	if (removed) tide_debug("--overwrite: removed %d files of the earlier run in %s:\n", removed, dir);
	for (size_t i = 0; i < NNAMES; i++) {
		if (!count[i]) continue;
		if (count[i] == 1) tide_debug("  %s%s\n", first[i], run_names[i].kind >= CKPT_DIR ? "/" : "");
		else tide_debug("  %s ... %s (%d)\n", first[i], last[i], count[i]);
	}
	return removed;
}

/* ---- the directory's path ---- */

static int check_path(const char *dir)
{
	size_t len = strlen(dir), room = TIDE_PATH_BUF < PATH_MAX ? TIDE_PATH_BUF : PATH_MAX;
	size_t most = room - 2 - strlen(LONGEST_NAME);
	if (!len) {
		fprintf(stderr, "tide run: --out needs a directory name, got ''.\n");
		return -1;
	}
	if (len > most) {
		fprintf(stderr, "tide run: the output directory '%.40s...' is %zu characters long; tide "
		        "writes names of up to %zu characters below it (%s), so its path may have at "
		        "most %zu: choose a shorter --out.\n", dir, len, strlen(LONGEST_NAME),
		        LONGEST_NAME, most);
		return -1;
	}
	for (const char *p = dir; *p;) {
		size_t c = strcspn(p, "/");
		if (c > NAME_MAX) {
			fprintf(stderr, "tide run: the output directory %s has a part of %zu characters "
			        "('%.20s...'); the file system allows at most %d: choose a shorter --out.\n",
			        dir, c, p, NAME_MAX);
			return -1;
		}
		p += c;
		while (*p == '/') p++;
	}
	return 0;
}

static int mkdir_p(const char *dir)
{
	char buf[TIDE_PATH_BUF];
	snprintf(buf, sizeof buf, "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/') continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST) break;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST) {
		fprintf(stderr, "tide: cannot create the output directory %s: %s.\n", dir,
		        tide_io_reason(errno));
		return -1;
	}
	return 0;
}

/* ---- the lock ---- */

/* 0: fd's lock is ours; 2: another process holds it (said); the lock is not supported here
 * (some network file systems): a warning, and 0. */
static int take_lock(int fd, const char *dir)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(fd, F_SETLK, &fl) == 0) return 0;
	if (errno != EACCES && errno != EAGAIN) {
		fprintf(stderr, "tide: warning: cannot lock %s/%s (%s): a second run into %s would not "
		        "be kept out.\n", dir, LOCK_NAME, strerror(errno), dir);
		return 0;
	}
	long pid = 0;
	struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK) pid = q.l_pid;
	char text[32] = {0};
	if (pid <= 0 && pread(fd, text, sizeof text - 1, 0) > 0) pid = atol(text);
	fprintf(stderr, "tide run: %s is in use by another tide run (pid %ld); wait for it to end, "
	        "stop it (touch %s/STOP), or choose another --out.\n", dir, pid, dir);
	return 2;
}

/* 2 after the refusal when dir holds a run that mode may not touch; 0 otherwise. */
static int refuse_run(const char *dir, char **names, size_t n, enum tide_dir_mode mode)
{
	if (!n || mode != TIDE_DIR_NEW) return 0;
	const char *shown = names[0];
	for (size_t k = 0; k < n; k++)
		if (!strcmp(names[k], "used_parameters.yaml")) shown = names[k];
	char ckpt[TIDE_PATH_BUF + 16];
	snprintf(ckpt, sizeof ckpt, "%s/checkpoint", dir);
	struct stat sb;
	int has_ckpt = stat(ckpt, &sb) == 0 && S_ISDIR(sb.st_mode);
	char others[48] = "";
	if (n > 1) snprintf(others, sizeof others, " and %zu other files", n - 1);
	if (has_ckpt)
		fprintf(stderr, "tide run: %s already holds a run (%s/%s%s); give --overwrite to replace "
		        "it (its files are removed first, no others), or --restart %s to continue it.\n",
		        dir, dir, shown, others, ckpt);
	else
		fprintf(stderr, "tide run: %s already holds a run (%s/%s%s); give --overwrite to replace "
		        "it (its files are removed first, no others), or --restart CHECKPOINT to continue "
		        "a run from its checkpoint (this one has none).\n", dir, dir, shown, others);
	return 2;
}

/* The checks that write nothing: the path, a lock held by another run, a run already there.
 * An existing lock file is locked (*fd, to be closed by the caller; -1 without one) and the
 * run's entries listed (*names, *n).  0, or 2 after the refusal. */
static int inspect(const char *dir, enum tide_dir_mode mode, int *fd, char ***names, size_t *n)
{
	*fd = -1;
	*names = NULL;
	*n = 0;
	if (check_path(dir)) return 2;
	struct stat sb;
	if (stat(dir, &sb)) return 0; /* not there yet (or unreachable: its creation will say) */
	if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tide run: the output directory %s is a file, not a directory; choose "
		        "another --out.\n", dir);
		return 2;
	}
	char lock[TIDE_PATH_BUF];
	snprintf(lock, sizeof lock, "%s/%s", dir, LOCK_NAME);
	*fd = open(lock, O_RDWR | O_CLOEXEC);
	int ret = *fd >= 0 ? take_lock(*fd, dir) : 0;
	if (!ret && !(*names = run_entries(dir, n))) {
		fprintf(stderr, "tide: out of host memory while looking into %s.\n", dir);
		ret = 1;
	}
	return ret ? ret : refuse_run(dir, *names, *n, mode);
}

int tide_run_dir_check(const char *dir, enum tide_dir_mode mode)
{
	int fd;
	char **names;
	size_t n;
	int ret = inspect(dir, mode, &fd, &names, &n);
	if (fd >= 0) close(fd); /* lets the lock go */
	free_names(names);
	return ret;
}

int tide_run_dir_claim(tide_run_dir *d, const char *dir, enum tide_dir_mode mode)
{
	char **names;
	size_t n;
	d->removed = 0;
	int ret = inspect(dir, mode, &d->lock_fd, &names, &n);
	if (ret) goto out;
	if (mkdir_p(dir)) { ret = 1; goto out; }
	char lock[TIDE_PATH_BUF];
	snprintf(lock, sizeof lock, "%s/%s", dir, LOCK_NAME);
	if (d->lock_fd < 0) {
		d->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		if (d->lock_fd < 0) {
			fprintf(stderr, "tide: cannot create the lock file %s: %s.\n", lock,
			        tide_io_reason(errno));
			ret = 1;
			goto out;
		}
		if ((ret = take_lock(d->lock_fd, dir))) goto out;
		/* another run may have come and gone between the check and the lock */
		free_names(names);
		if (!(names = run_entries(dir, &n))) {
			fprintf(stderr, "tide: out of host memory while looking into %s.\n", dir);
			ret = 1;
			goto out;
		}
		if ((ret = refuse_run(dir, names, n, mode))) goto out;
	}
	if (mode == TIDE_DIR_OVERWRITE && n) {
		if ((ret = foreign_in_ckpt(dir, names))) goto out;
		d->removed = remove_run(dir, names);
	}
	/* for people looking at the directory; the lock itself says who holds it */
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(d->lock_fd, 0) || pwrite(d->lock_fd, pid, (size_t)len, 0) != len)
		tide_debug("could not write the pid into %s\n", lock);
out:
	free_names(names);
	if (ret) tide_run_dir_release(d);
	return ret;
}

void tide_run_dir_release(tide_run_dir *d)
{
	if (d->lock_fd >= 0) close(d->lock_fd);
	d->lock_fd = -1;
}

void tide_run_dir_outputs(const char *dir, char *buf, size_t n)
{
	static const char *const what[][2] = {
		{"ParaView", "particles.pvd"}, {"ParaView", "particles.xmf"},
		{"summary", "run_summary.csv"}, {"gauges", "gauges.csv"},
		{"statistics", "statistics.csv"}, {"log", "run.log"},
	};
	size_t k = 0;
	buf[0] = 0;
	char p[TIDE_PATH_BUF + 32];
	for (size_t i = 0; i < sizeof what / sizeof *what && k < n; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, what[i][1]);
		if (access(p, F_OK)) continue;
		k += (size_t)snprintf(buf + k, n - k, "%s%s: %s", k ? "; " : "", what[i][0], p);
	}
}
