/* Contours, internal: shared between contours_{trace,simplify,holes,build,check}.c. */
#ifndef OP_CONTOURS_INTERNAL_H
#define OP_CONTOURS_INTERNAL_H

#include "onepath/contours.h"

/* A traced raw loop (regions-contours §6, Tracing). */
typedef struct op_cloop {
    uint32_t region;
    uint32_t count;
    size_t first;  /* offset into op_ctrace.verts (with want_verts) */
    int64_t area2; /* doubled signed area, > 0 outline, < 0 hole (with want_verts) */
    uint32_t frag;  /* its first fragment (op__contour_loop_copy) */
    uint32_t nfrag; /* its fragments: frag .. frag + nfrag - 1, in loop order */
} op_cloop;

struct op_ctseg;
typedef struct op_ctrace {
    op_contour_vert *verts; /* from alloc; only with want_verts */
    size_t vert_count;
    op_cloop *loops; /* from alloc, in discovery order */
    uint32_t loop_count;
    size_t loop_cap;
    op_allocator alloc; /* ctx->alloc of the trace */
    int regions_bad;    /* the region check failed: nothing was traced */
    struct op_ctseg *seg; /* without want_verts: the loops' storage (see below) */
    int nseg;
    const void *frags;
} op_ctrace;

/* Traces every boundary loop of every region other than 0 and border_region, in
 * span-index, then direction order (zero-area loops included), on 1 + nworkers threads
 * (segment i > 0 works in workers[i - 1]); the result does not depend on it. With
 * rarea (region_count + 1 entries) it also checks op_build_contours' region rules and
 * writes each region's area there (0xffff: no span); when they fail it returns OP_OK
 * with regions_bad set, nothing traced and no message (the caller names the first
 * offending span). With want_verts the loops' vertices are in verts and their areas in
 * area2; without, op__contour_loop_copy gives a loop's vertices, from storage in the
 * arenas of ctx and the workers: keep them (do not release ctx's arena below its mark
 * before the call) until op__contour_trace_free. */
op_status op__contour_trace(op_ctx *ctx, op_ctx *const *workers, int nworkers,
                            const op_chf *chf, const uint32_t *region, uint32_t border_region,
                            uint32_t region_count, uint16_t *rarea, int want_verts,
                            op_ctrace *out);
/* Loop `loop`'s count vertices, from its first (the smallest edge id) on. */
void op__contour_loop_copy(const op_ctrace *t, uint32_t loop, op_contour_vert *out);
void op__contour_trace_free(op_ctrace *t);
/* The trace keeps vertices in 8-byte records while the grid's width and depth, the region
 * count are below this (0xfffe) and the region check is on, else in 16-byte ones; tests lower
 * it to run the wide records on small fields; nothing else changes it. */
extern uint32_t op_contour_narrow_limit;

/* Exact geometry on (x, z). */
static inline int64_t op__orient(const op_contour_vert *a, const op_contour_vert *b,
                                 const op_contour_vert *c)
{
    return ((int64_t)b->x - a->x) * ((int64_t)c->z - a->z) -
           ((int64_t)b->z - a->z) * ((int64_t)c->x - a->x);
}
static inline int op__same_pos(const op_contour_vert *a, const op_contour_vert *b)
{
    return a->x == b->x && a->z == b->z;
}
int64_t op__loop_area2(const op_contour_vert *v, uint32_t n);
static inline int64_t op__floordiv(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}
/* 1 when the closed segments p q and u w have a common point (exact). */
int op__touch(const op_contour_vert *p, const op_contour_vert *q, const op_contour_vert *u,
              const op_contour_vert *w);

/* A uniform grid of square integer cells (contours/grid.c): cell (cx, cz) covers
 * [x0 + cx·s, x0 + (cx + 1)·s) x [z0 + cz·s, ...), nx x nz cells, cell index cz·nx + cx. */
typedef struct op_cgrid {
    int64_t x0, z0, s, nx, nz;
} op_cgrid;
/* A grid over [x0, x1] x [z0, z1] with about one cell per item (at most ~4). */
void op__cgrid_init(op_cgrid *g, int64_t x0, int64_t z0, int64_t x1, int64_t z1, size_t items);
int64_t op__cgrid_col(const op_cgrid *g, int64_t x);
int64_t op__cgrid_row(const op_cgrid *g, int64_t z);
/* Calls fn(arg, cell) for every cell the closed segment a b may touch (a superset: each
 * column's rows over its z range widened by one unit); stops when fn returns nonzero. */
typedef int (*op_cgrid_fn)(void *arg, size_t cell);
int op__cgrid_walk(const op_cgrid *g, int64_t ax, int64_t az, int64_t bx, int64_t bz,
                   op_cgrid_fn fn, void *arg);
/* 1 when two edges of the closed loop cross properly (strictly). */
int op__loop_crosses(op_ctx *ctx, const op_contour_vert *v, uint32_t n, int *crosses);
/* supplement §9.10 squared distance from p to segment a b. */
double op__seg_dist2(const op_contour_vert *p, const op_contour_vert *a,
                     const op_contour_vert *b);

/* Parameters of one simplification. */
typedef struct op_csimp {
    double max_error;
    int32_t max_edge_len;
    int straight;           /* straight region borders requested (setting) */
    uint32_t border_region; /* 0 = none */
    uint8_t area;           /* the contour's region's area */
    const uint8_t *region_area; /* per region id 0..region_count */
    uint32_t region_count;
} op_csimp;

enum { OP_SIMP_PLAIN = 0, OP_SIMP_RETRY0 = 1, OP_SIMP_REFINED = 2, OP_SIMP_RAW = 3 };

/* regions-contours §6 steps 1–3 with the fallbacks of §6 and supplement §9.11:
 * out has room for n vertices; *kind is OP_SIMP_*. */
op_status op__contour_simplify(op_ctx *ctx, const op_contour_vert *raw, uint32_t n,
                               int64_t raw_area2, const op_csimp *p, op_contour_vert *out,
                               uint32_t *out_n, int *kind);

/* A stretch of the kind that §6 straight region borders leave as a chord. */
int op__straight_stretch(const op_csimp *p, uint32_t nb);

/* Index of the leftmost vertex (smallest x, then z, then index). */
uint32_t op__leftmost(const op_contour_vert *v, uint32_t n);
/* Nonzero winding with exact tests; a point on an edge is inside. */
int op__point_in_loop(const op_contour_vert *t, const op_contour_vert *v, uint32_t n);

/* Joins holes (already in join order) into an outline (regions-contours §6 Holes).
 * out has room for on + sum(hn[i] + 2). joined[i] set to 1 for each bridged hole. */
op_status op__contour_join(op_ctx *ctx, const op_contour_vert *outline, uint32_t on,
                           const op_contour_vert *const *holes, const uint32_t *hn,
                           uint32_t hcount, uint32_t region, op_contour_vert *out,
                           uint32_t *out_n, uint8_t *joined);

#endif
