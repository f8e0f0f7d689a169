// SPDX-License-Identifier: LGPL-2.1-or-later
// ParaView output: VTK XML PolyData snapshots (.vtp, binary appended raw) and the .pvd series
// that lists them.  Both go through tide_atomic_file so a crash never leaves a half file.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "output.h"
#include "case_units.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"

/* ---- atomic files ---- */

int tide_atomic_open(tide_atomic_file *a, const char *path)
{
	memset(a, 0, sizeof *a);
	if (strlen(path) >= sizeof a->path) {
		fprintf(stderr, "tide: cannot write %s: the path is too long.\n", path);
		return -1;
	}
	strcpy(a->path, path);
	snprintf(a->tmp, sizeof a->tmp, "%s.tmp", path);
	a->f = fopen(a->tmp, "wb");
	if (!a->f) {
		fprintf(stderr, "tide: cannot write %s: %s.\n", path, tide_io_reason(errno));
		return -1;
	}
	return 0;
}

int tide_atomic_commit(tide_atomic_file *a, int ok)
{
	/* errno still holds the failed write's reason; fclose flushes the last buffer, so a full
	 * disk may only show up there. */
	int err = ok && !ferror(a->f) ? 0 : (errno ? errno : EIO);
	if (fclose(a->f) != 0 && !err) err = errno ? errno : EIO;
	a->f = NULL;
	if (!err && rename(a->tmp, a->path) != 0) err = errno;
	if (!err) return 0;
	remove(a->tmp);
	fprintf(stderr, "tide: cannot write %s: %s.\n", a->path, tide_io_reason(err));
	return -1;
}

/* ---- .vtp ---- */

/* Arrays are produced in chunks so a 10-million-particle snapshot needs no full-size copy. */
#define CHUNK 8192

typedef struct vtp_ctx {
	const tide_particle_set *s;   /* the set being written (one of the snapshot's sets) */
	const tide_case *c;
	double tait_b;
	const tide_gas_params *gas;   /* gas runs: the EOS of Pressure and SoundSpeed; else NULL */
	int wide_ids;   /* connectivity/offsets as Int64 (only when n does not fit Int32) */
	size_t base;    /* index in the whole snapshot of particle 0 of s */
	tide_unit_system out; /* internal values to the case's units (case_units.h) */
} vtp_ctx;

typedef void (*fill_fn)(const vtp_ctx *x, size_t first, size_t count, void *buf);

typedef struct vtp_array {
	const char *section;   /* PointData, Points or Verts */
	const char *name, *vtktype;
	int ncomp;
	size_t elsize;
	fill_fn fill;
	tide_dim dim;          /* Float arrays: their dimensions, converted to the case's units */
} vtp_array;

static void fill_points(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	double *o = buf;
	for (size_t i = 0; i < count; i++) {
		o[3 * i] = x->s->x[first + i];
		o[3 * i + 1] = x->s->y[first + i];
		o[3 * i + 2] = x->s->z[first + i];
	}
}

/* output.precision single: positions rounded to float (7 digits: dp / 1e4 at 1e3 dp) */
static void fill_points_single(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	float *o = buf;
	for (size_t i = 0; i < count; i++) {
		o[3 * i] = (float)x->s->x[first + i];
		o[3 * i + 1] = (float)x->s->y[first + i];
		o[3 * i + 2] = (float)x->s->z[first + i];
	}
}

static void fill_velocity(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	float *o = buf;
	for (size_t i = 0; i < count; i++) {
		o[3 * i] = x->s->vx[first + i];
		o[3 * i + 1] = x->s->vy[first + i];
		o[3 * i + 2] = x->s->vz[first + i];
	}
}

static void fill_density(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	memcpy(buf, x->s->rho + first, count * sizeof(float));
}

float tide_tait_pressure(const tide_case *c, double tait_b, float rho)
{
	/* the case's equation of state: Tait with the caller's B, or isothermal */
	if (c->eos != TIDE_EOS_TAIT) return (float)tide_case_pressure(c, rho);
	return (float)(tait_b * (pow((double)rho / c->rho0, c->gamma) - 1.0));
}

static void fill_pressure(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	float *o = buf;
	if (x->gas) /* the gas EOS, gas_math.h */
		for (size_t i = 0; i < count; i++)
			o[i] = tide_gas_pressure(x->gas, x->s->rho[first + i], x->s->gas_u[first + i]);
	else
		for (size_t i = 0; i < count; i++) o[i] = tide_tait_pressure(x->c, x->tait_b, x->s->rho[first + i]);
}

static void fill_internal_energy(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	memcpy(buf, x->s->gas_u + first, count * sizeof(float));
}

static void fill_smoothing_length(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	memcpy(buf, x->s->gas_h + first, count * sizeof(float));
}

static void fill_sound_speed(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	float *o = buf;
	for (size_t i = 0; i < count; i++)
		o[i] = tide_gas_sound(x->gas, x->s->rho[first + i], x->s->gas_u[first + i]);
}

static void fill_type(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	uint8_t *o = buf;
	for (size_t i = 0; i < count; i++) o[i] = (uint8_t)x->s->type[first + i];
}

static void fill_id(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	memcpy(buf, x->s->id + first, count * sizeof(uint32_t));
}

static void fill_body(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	tide_body_numbers(x->c, x->s->id + first, count, buf);
}

/* Vertex cell i holds point i; its offset (end of its connectivity) is i + 1. */
static void fill_index(const vtp_ctx *x, size_t first, size_t count, void *buf, size_t plus)
{
	for (size_t i = 0; i < count; i++) {
		size_t k = x->base + first + i + plus;
		if (x->wide_ids) ((int64_t *)buf)[i] = (int64_t)k;
		else ((int32_t *)buf)[i] = (int32_t)k;
	}
}

static void fill_connectivity(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	fill_index(x, first, count, buf, 0);
}

static void fill_offsets(const vtp_ctx *x, size_t first, size_t count, void *buf)
{
	fill_index(x, first, count, buf, 1);
}

int tide_host_little_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

static void write_xml(FILE *f, const vtp_array *arr, int narr, size_t n)
{
	fprintf(f, "<?xml version=\"1.0\"?>\n"
	           "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
	           "  <PolyData>\n"
	           "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
	           "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
	        tide_host_little_endian() ? "LittleEndian" : "BigEndian", n, n);
	uint64_t offset = 0;
	const char *open = NULL;
	int has_density = 0, has_velocity = 0;
	for (int a = 0; a < narr; a++) {
		has_density |= !strcmp(arr[a].name, "Density");
		has_velocity |= !strcmp(arr[a].name, "Velocity");
	}
	for (int a = 0; a < narr; a++) {
		if (!open || strcmp(open, arr[a].section) != 0) {
			if (open) fprintf(f, "      </%s>\n", open);
			open = arr[a].section;
			if (strcmp(open, "PointData") == 0)
				fprintf(f, "      <PointData%s%s>\n", has_density ? " Scalars=\"Density\"" : "",
				        has_velocity ? " Vectors=\"Velocity\"" : "");
			else
				fprintf(f, "      <%s>\n", open);
		}
		fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
		           "format=\"appended\" offset=\"%llu\"/>\n",
		        arr[a].vtktype, arr[a].name, arr[a].ncomp, (unsigned long long)offset);
		offset += sizeof(uint64_t) + (uint64_t)n * arr[a].ncomp * arr[a].elsize;
	}
	fprintf(f, "      </%s>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _",
	        open);
}

/* A chunk of a Float array from the internal units to the case's (a gas case in cgs or SI). */
static void scale(const vtp_ctx *x, const vtp_array *a, size_t count, void *buf)
{
	double f = tide_units_factor(&x->out, a->dim);
	if (f == 1.0) return;
	size_t n = count * (size_t)a->ncomp;
	if (a->elsize == 8 && a->vtktype[0] == 'F')
		for (size_t i = 0; i < n; i++) ((double *)buf)[i] *= f;
	else if (a->vtktype[0] == 'F')
		for (size_t i = 0; i < n; i++) ((float *)buf)[i] = (float)(((float *)buf)[i] * f);
}

/* One appended block: the UInt64 byte count, then the array, set after set. */
static int write_block(FILE *f, vtp_ctx *x, const tide_particle_set *sets, int nsets, size_t n,
                       const vtp_array *a, void *buf)
{
	uint64_t bytes = (uint64_t)n * a->ncomp * a->elsize;
	if (fwrite(&bytes, sizeof bytes, 1, f) != 1) return -1;
	x->base = 0;
	for (int k = 0; k < nsets; k++) {
		x->s = &sets[k];
		for (size_t first = 0; first < sets[k].n; first += CHUNK) {
			size_t count = sets[k].n - first < CHUNK ? sets[k].n - first : CHUNK;
			a->fill(x, first, count, buf);
			scale(x, a, count, buf);
			if (fwrite(buf, a->elsize * a->ncomp, count, f) != count) return -1;
		}
		x->base += sets[k].n;
	}
	return 0;
}

int tide_vtp_write_sets(const char *path, const tide_particle_set *sets, int nsets,
                        const tide_case *c, unsigned fields, int single)
{
	size_t n = 0;
	for (int k = 0; k < nsets; k++) n += sets[k].n;
	/* a gas run's sets carry u and h (all of them: a set without is written as water) */
	int gas = c->scheme == TIDE_SCHEME_GAS;
	for (int k = 0; k < nsets; k++) gas = gas && sets[k].gas_u && sets[k].gas_h;
	tide_sph_params P;
	if (gas) tide_sim_params(c, &P);
	vtp_ctx x = { NULL, c, tide_case_tait_b(c), gas ? &P.gas : NULL, n > INT32_MAX, 0,
	              tide_case_output_units(c) };
	const char *idtype = x.wide_ids ? "Int64" : "Int32";
	size_t idsize = x.wide_ids ? 8 : 4;
	/* the PointData arrays of output.fields (bit order of enum tide_output_field), then the
	 * points and the vertex cells, which every file has */
	const vtp_array point_data[] = {
		{ "PointData", "Velocity", "Float32", 3, 4, fill_velocity, TIDE_DIM_VELOCITY },
		{ "PointData", "Density", "Float32", 1, 4, fill_density, TIDE_DIM_DENSITY },
		{ "PointData", "Pressure", "Float32", 1, 4, fill_pressure, TIDE_DIM_PRESSURE },
		{ "PointData", "Type", "UInt8", 1, 1, fill_type, TIDE_DIM_NONE },
		{ "PointData", "Id", "UInt32", 1, 4, fill_id, TIDE_DIM_NONE },
		{ "PointData", "InternalEnergy", "Float32", 1, 4, fill_internal_energy, TIDE_DIM_SPECIFIC_ENERGY },
		{ "PointData", "SmoothingLength", "Float32", 1, 4, fill_smoothing_length, TIDE_DIM_LENGTH },
		{ "PointData", "SoundSpeed", "Float32", 1, 4, fill_sound_speed, TIDE_DIM_VELOCITY },
		{ NULL, NULL, NULL, 0, 0, NULL, TIDE_DIM_NONE }, /* mass: in the .h5 files only */
		{ "PointData", "Body", "Int32", 1, 4, fill_body, TIDE_DIM_NONE },
	};
	if (!gas) fields &= ~(unsigned)TIDE_OUT_GAS_FIELDS;
	/* Body: a case with bodies, from the ids (every set must carry them) */
	int ids = 1;
	for (int k = 0; k < nsets; k++) ids = ids && sets[k].id;
	if (!c->motion.nbody || !ids) fields &= ~(unsigned)TIDE_OUT_BODY;
	vtp_array arr[13];
	int narr = 0;
	for (int k = 0; k < (int)(sizeof point_data / sizeof *point_data); k++)
		if ((fields & (TIDE_OUT_VELOCITY << k)) && point_data[k].name) arr[narr++] = point_data[k];
	arr[narr++] = single ? (vtp_array){ "Points", "Points", "Float32", 3, 4, fill_points_single, TIDE_DIM_LENGTH }
	                     : (vtp_array){ "Points", "Points", "Float64", 3, 8, fill_points, TIDE_DIM_LENGTH };
	arr[narr++] = (vtp_array){ "Verts", "connectivity", idtype, 1, idsize, fill_connectivity, TIDE_DIM_NONE };
	arr[narr++] = (vtp_array){ "Verts", "offsets", idtype, 1, idsize, fill_offsets, TIDE_DIM_NONE };

	void *buf = malloc(CHUNK * 3 * sizeof(double));
	if (!buf) {
		fprintf(stderr, "tide: cannot write %s: out of memory.\n", path);
		return -1;
	}
	tide_atomic_file af;
	if (tide_atomic_open(&af, path)) {
		free(buf);
		return -1;
	}
	write_xml(af.f, arr, narr, n);
	int ok = 1;
	for (int a = 0; a < narr && ok; a++) ok = write_block(af.f, &x, sets, nsets, n, &arr[a], buf) == 0;
	if (ok) ok = fputs("\n  </AppendedData>\n</VTKFile>\n", af.f) >= 0;
	free(buf);
	return tide_atomic_commit(&af, ok);
}

int tide_vtp_write(const char *path, const tide_particle_set *s, const tide_case *c)
{
	return tide_vtp_write_sets(path, s, 1, c, TIDE_OUT_ALL_FIELDS, 0);
}

/* ---- .pvd ---- */

/* File names go into an XML attribute. */
void tide_xml_escaped(FILE *f, const char *str)
{
	for (; *str; str++) {
		switch (*str) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*str, f);
		}
	}
}

static int pvd_rewrite(const tide_pvd *p)
{
	tide_atomic_file af;
	if (tide_atomic_open(&af, p->path)) return -1;
	fprintf(af.f, "<?xml version=\"1.0\"?>\n"
	              "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"%s\">\n"
	              "  <Collection>\n",
	        tide_host_little_endian() ? "LittleEndian" : "BigEndian");
	for (size_t i = 0; i < p->n; i++) {
		fprintf(af.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", p->time[i]);
		tide_xml_escaped(af.f, p->file[i]);
		fputs("\"/>\n", af.f);
	}
	fputs("  </Collection>\n</VTKFile>\n", af.f);
	return tide_atomic_commit(&af, 1);
}

int tide_pvd_open(tide_pvd *p, const char *path)
{
	memset(p, 0, sizeof *p);
	if (strlen(path) >= sizeof p->path) {
		fprintf(stderr, "tide: cannot write %s: the path is too long.\n", path);
		return -1;
	}
	strcpy(p->path, path);
	return pvd_rewrite(p);
}

/* ParaView resolves the file attribute relative to the .pvd, so strip the .pvd's directory. */
static const char *relative_to_pvd(const char *pvd, const char *vtp)
{
	const char *slash = strrchr(pvd, '/');
	if (!slash) return vtp;
	size_t dirlen = (size_t)(slash - pvd) + 1;
	return strncmp(pvd, vtp, dirlen) == 0 ? vtp + dirlen : vtp;
}

int tide_series_append(tide_pvd *p, const char *file, double t, size_t count)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		char **f = realloc(p->file, cap * sizeof *f);
		if (f) p->file = f;
		double *time = f ? realloc(p->time, cap * sizeof *time) : NULL;
		if (time) p->time = time;
		size_t *cnt = time ? realloc(p->count, cap * sizeof *cnt) : NULL;
		if (cnt) p->count = cnt;
		unsigned *lay = cnt ? realloc(p->layout, cap * sizeof *lay) : NULL;
		if (!lay) {
			fprintf(stderr, "tide: cannot write %s: out of memory.\n", p->path);
			return -1;
		}
		p->layout = lay;
		p->cap = cap;
	}
	char *name = strdup(relative_to_pvd(p->path, file));
	if (!name) {
		fprintf(stderr, "tide: cannot write %s: out of memory.\n", p->path);
		return -1;
	}
	p->file[p->n] = name;
	p->time[p->n] = t;
	p->count[p->n] = count;
	p->layout[p->n] = (p->fields ? p->fields : TIDE_OUT_ALL_FIELDS) | (p->single ? TIDE_LAYOUT_SINGLE : 0);
	p->n++;
	return 0;
}

int tide_pvd_add(tide_pvd *p, const char *vtp_path, double t)
{
	return tide_series_append(p, vtp_path, t, 0) || pvd_rewrite(p) ? -1 : 0;
}

void tide_pvd_close(tide_pvd *p)
{
	for (size_t i = 0; i < p->n; i++) free(p->file[i]);
	free(p->file);
	free(p->time);
	free(p->count);
	free(p->layout);
	memset(p, 0, sizeof *p);
}
