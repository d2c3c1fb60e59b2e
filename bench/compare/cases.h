/* The per-stage cases of the baseline comparison (issue 12), as plain C: what one case
 * prepares (untimed), what one timed iteration runs, and the hash of its output.
 *
 * cases.c is compiled against either tree's public headers and library; two front ends
 * drive it: stages.c (onepath_compare_bench, Google Benchmark, one tree per process,
 * bench/compare.py) and ab_main.c (onepath_ab, both trees in one process, the baseline's
 * copy of cases.c and library renamed base_*, bench/compare/ab.py). So both measure the
 * same work with the same inputs and stage boundaries. Only plain C types cross this
 * interface, so a front end never depends on either tree's structs.
 *
 * Fields: "demo-<N>", the demo world of N x N cells (each input a case needs is made on
 * first use, with the field's own tree), or "holes-<H>", one region with H holes of
 * 2 x 2 cells every 6 cells (the contour case only). */
#ifndef OP_COMPARE_CASES_H
#define OP_COMPARE_CASES_H

#include <stdint.h>

enum {
    CMP_RASTERIZE, /* op_heightfield_init + op_mark_walkable_triangles + rasterize */
    CMP_FILTERS,   /* the three filters of supplement §1.4 on the rasterized field */
    CMP_COMPACT,   /* compaction, links and mutual links, as the spans stage calls it */
    CMP_ERODE,     /* op_erode_walkable_area on the compact field */
    CMP_SPANS,     /* op_build_spans, the whole spans stage */
    CMP_DISTANCE,  /* op_build_distance_field on the spans stage's field */
    CMP_WATERSHED, /* op_build_regions_watershed on it and its distance field */
    CMP_MONOTONE,
    CMP_LAYERS,
    CMP_CONTOURS, /* op_build_contours on the watershed regions */
    CMP_BAKE,     /* op_bake_scene with a new context, as one bake per process */
    CMP_COUNT
};

/* The case's name ("rasterize", ...), or NULL past the end. */
const char *cmp_case_name(int kind);

typedef struct cmp_field cmp_field;
typedef struct cmp_case cmp_case;

/* size > 0: the demo world of size x size cells; else holes > 0: the holes field.
 * Nothing is computed yet. Exits the process on failure (message on stderr). */
cmp_field *cmp_field_new(uint32_t size, uint32_t holes);
const char *cmp_field_label(const cmp_field *f); /* "demo-1936", "holes-1000" */
/* Frees the prepared inputs that none of the cases in keep (bit k: case k) reads, to
 * bound the memory of a process that runs many cases on a field in turn. */
void cmp_field_trim(cmp_field *f, unsigned keep);
void cmp_field_free(cmp_field *f);

/* Prepares the case's inputs (untimed; the bake case also bakes once here for the peak
 * heap, measured through cmp_heap_*). NULL when the field has no such case (a holes
 * field has only the contour case). */
cmp_case *cmp_case_open(cmp_field *f, int kind);
/* Untimed, before every timed iteration: frees the previous iteration's output and puts
 * back the input that an iteration changes in place. */
void cmp_case_reset(cmp_case *c);
/* One timed iteration; returns a witness derived from its output. */
uint64_t cmp_case_run(cmp_case *c);
/* Untimed: a 64-bit hash of the last iteration's output (equal hashes: same bytes). */
uint64_t cmp_case_digest(const cmp_case *c);
/* Spans of the case's field (the compact spans; the solid spans for rasterize). */
uint64_t cmp_case_spans(const cmp_case *c);
/* The bake case: peak heap bytes of one bake above what was live before it (-1 when
 * not counted), and the scene's vertex and triangle bytes; else -1 and 0. */
long long cmp_case_peak_bytes(const cmp_case *c);
long long cmp_case_input_bytes(const cmp_case *c);
void cmp_case_close(cmp_case *c);

/* Heap accounting, defined by the front end's program once (heap.c): the live heap
 * bytes now, which also starts a peak measurement, and the peak since that mark (-1
 * when the program does not count). */
long long cmp_heap_mark(void);
long long cmp_heap_peak_since(long long mark);

#endif
