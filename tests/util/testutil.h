/* Shared helpers for the tests: a seeded generator and random compact heightfields. */
#ifndef OP_TESTUTIL_H
#define OP_TESTUTIL_H

#include "onepath/chf.h"

#include <stdint.h>

typedef struct op_rng {
    uint64_t s;
} op_rng;

static inline uint64_t op_rng_next(op_rng *r)
{
    /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint32_t op_rng_below(op_rng *r, uint32_t n)
{
    return n ? (uint32_t)(op_rng_next(r) % n) : 0;
}

typedef struct op_random_chf_opts {
    uint32_t width, depth;
    uint32_t max_floors;    /* spans per column: 0..max_floors */
    uint32_t empty_percent; /* chance of an empty column */
    uint32_t hole_percent;  /* chance of an area-0 span */
    uint32_t area_count;    /* walkable area ids drawn from {63, 1, 2, ...}; >= 1 */
    uint32_t y_jitter;      /* per-cell floor jitter in cells (creates one-way links) */
    int32_t walkable_height, walkable_climb;
} op_random_chf_opts;

void op_random_chf_defaults(op_random_chf_opts *o, uint32_t width, uint32_t depth);

/* A random multi-floor field with the §1.5 link rule applied (so one-way links occur
 * where floors are close) and mutual links derived with the scalar kernel. Floors
 * are smooth-ish so regions are large enough to be interesting. */
op_status op_random_chf(op_ctx *ctx, op_chf *chf, uint64_t seed, const op_random_chf_opts *o);

/* The reference distance of supplement §1.6 by Bellman-Ford over explicit edges:
 * orthogonal mutual steps (2) and diagonals by either order of two mutual steps (3),
 * sources every boundary span (area 0, mutual != 0xf, or a mutual neighbour of area 0).
 * Slow on purpose: it shares no code with the kernels it checks. */
void op_test_brute_distance(const op_chf *chf, uint32_t *dist);

/* op_chf_set_link that aborts the test on failure (an edit may allocate). */
void op_test_set_link(op_chf *chf, int d, uint32_t s, uint32_t t);

/* The first span whose link in some direction differs between a and b (same span_count),
 * with that direction in *dir; -1 when every link is the same. */
int64_t op_test_links_diff(const op_chf *a, const op_chf *b, int *dir);

/* The context of a test program that shares one (scalar variant):
 *   cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown); */
extern op_ctx op_test_ctx;
int op_test_ctx_setup(void **state);
int op_test_ctx_teardown(void **state);

/* Reads a whole file; NULL on failure. */
unsigned char *op_test_read_file(const char *path, size_t *size);

/* Path below the source tree (OP_SOURCE_DIR from CTest, else "."), static buffer. */
const char *op_test_source_path(const char *rel);
/* A fresh temporary file path (static buffer, unique per call within a process). */
const char *op_test_tmp_path(const char *suffix);

#endif
