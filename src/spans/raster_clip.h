/* The triangle clip of supplement §1.3 as a kernel: one triangle's rows and columns,
 * pieces out. The scalar twin (src/scalar/raster_clip.c) is the reference, Recast's
 * rasterizeTri/dividePoly operation for operation in binary32; a SIMD variant must
 * give the same pieces in the same order, and the same failure.
 *
 * A triangle is clipped row by row, from its first world row z0 to its last z1; the
 * state (the polygon still to be cut, the next row) lets a caller stop after some row
 * and continue later (a band of rows at a time, supplement §2 last sentence), or start
 * a window's rows after consuming the rows before it. */
#ifndef ONEPATH_RASTER_CLIP_H
#define ONEPATH_RASTER_CLIP_H

#include <math.h>
#include <stdint.h>

/* Vertices a clipped polygon may hold (see the scalar twin for why any bound is a
 * bound on accepted input, not a property of the arithmetic). */
#define OP_CLIP_MAX_VERTS 12

/* The world grid as the clip sees it; every value is the one the solo bake computes. */
typedef struct op_clip_grid {
    float bmin[3];
    float cs;  /* cell size */
    float ics; /* 1 / cs */
    float ich; /* 1 / ch */
    float by;  /* bmax.y - bmin.y */
    int w, h;  /* world columns and rows */
} op_clip_grid;

/* One triangle in progress: the polygon left after rows [z0, z), and the last row. */
typedef struct op_clip_state {
    float v[OP_CLIP_MAX_VERTS * 3];
    int n;
    int z, z1;
} op_clip_state;

/* A piece of a triangle in a cell (supplement §1.3): world column and row, span. */
typedef struct op_piece {
    int32_t x, z;
    uint16_t smin, smax;
} op_piece;

/* Where a clip gave up: the split at row or column `at` would have made a polygon of
 * more than OP_CLIP_MAX_VERTS vertices. */
typedef struct op_clip_fail {
    int column; /* 0: row, 1: column */
    int at;
} op_clip_fail;

/* Starts a triangle: st->v = v0, v1, v2, z0 and z1 from its bounds (supplement §1.3:
 * z0 clamped to [-1, h-1], z1 to [0, h-1]). Returns 0 when the triangle lies outside
 * the world's bounding box (grid bounds bmin..bmax, Recast's test), 1 otherwise. */
int op_clip_start(const op_clip_grid *g, const float bmax[3], const float *v0, const float *v1,
                  const float *v2, op_clip_state *st);

/* Splits rows st->z .. min(st->z1, z_stop) of the triangle; rows below z_emit only
 * consume (as do rows < 0). For each other row piece of 3+ vertices, its columns from
 * x0 (clamped to >= -1) to min(x1, x_hi) are split; columns below x_lo (and < 0) only
 * consume; each column piece of 3+ vertices within the height range appends a piece to
 * out (at most (rows x columns) of the call). On return st->z is the next row.
 * Returns the number of pieces, or -1 with *fail (st then unusable). */
#define OP_CLIP_ROWS_FN(name)                                                              \
    int name(const op_clip_grid *g, op_clip_state *st, int z_stop, int z_emit, int x_lo,   \
             int x_hi, op_piece *out, op_clip_fail *fail)

typedef OP_CLIP_ROWS_FN((*op_clip_rows_fn));
OP_CLIP_ROWS_FN(op_clip_rows_scalar);

/* ---- Many small triangles at once (kernel slot raster.clip_batch) ----------------- */

/* Up to OP_CLIP_BATCH triangles (or polygons of up to OP_CLIP_BATCH_VERTS vertices that
 * a band left of one: its clip state), each clipped from row z0 through row z1 in
 * one go (z1 is the triangle's last row, or the caller's last row of the band: then the
 * polygon left, rest, is the state op_clip_rows_scalar leaves for the next band), with
 * at most OP_CLIP_BATCH_ROWS rows and OP_CLIP_BATCH_COLS columns per row piece. Lane l's
 * pieces, listed by row r and then column c for each set bit r * COLS + c of mask[l],
 * are (x0[r][l] + c, z0[l] + r, smin, smax): exactly op_clip_rows_scalar's pieces, in
 * its order, for the state op_clip_start makes (rows below z_emit and columns below x_lo
 * only consume, columns past x_hi are not split). A lane the kernel cannot finish
 * (a polygon over OP_CLIP_BATCH_VERTS vertices, so that no split can reach
 * OP_CLIP_MAX_VERTS; more rows or columns; coordinates
 * beyond 2^120) is a bit of the returned mask: the caller clips that triangle alone. */
#define OP_CLIP_BATCH 16 /* one 512-bit vector a coordinate on avx512, two halves on avx2 */
#define OP_CLIP_BATCH_ROWS 4
#define OP_CLIP_BATCH_COLS 4
#define OP_CLIP_BATCH_VERTS 6

typedef struct op_clip_batch {
    /* In: n[l] vertices, vertex k's coordinate c of lane l at v[3 * k + c][l]; rows
     * z0..z1. */
    float v[3 * OP_CLIP_BATCH_VERTS][OP_CLIP_BATCH];
    int32_t n[OP_CLIP_BATCH];
    int32_t z0[OP_CLIP_BATCH], z1[OP_CLIP_BATCH];
    /* Out. */
    int32_t x0[OP_CLIP_BATCH_ROWS][OP_CLIP_BATCH];
    int32_t smin[OP_CLIP_BATCH_ROWS * OP_CLIP_BATCH_COLS][OP_CLIP_BATCH];
    int32_t smax[OP_CLIP_BATCH_ROWS * OP_CLIP_BATCH_COLS][OP_CLIP_BATCH];
    uint32_t mask[OP_CLIP_BATCH];
    /* The polygon left after row z1: rest_n[l] vertices, coordinate c of vertex k at
     * rest[3 * k + c][l]. */
    float rest[3 * OP_CLIP_BATCH_VERTS][OP_CLIP_BATCH];
    int32_t rest_n[OP_CLIP_BATCH];
} op_clip_batch;

/* Clips lanes [0, lanes) of b; returns the lanes left to the caller (bit l). */
#define OP_CLIP_BATCH_FN(name)                                                             \
    unsigned name(const op_clip_grid *g, op_clip_batch *b, int lanes, int z_emit, int x_lo, \
                  int x_hi)

typedef OP_CLIP_BATCH_FN((*op_clip_batch_fn));
OP_CLIP_BATCH_FN(op_clip_batch_scalar);

/* Parts of the scalar twin that a SIMD twin continues with when a polygon outgrows its
 * vectors (src/scalar/raster_clip.c). */
/* The columns x0 .. x1 of row z's piece (n vertices xyz, clobbered); count or -1. */
int op_clip_columns_scalar(const op_clip_grid *g, float *row, int n, int x0, int x1, int z,
                           int x_lo, op_piece *out, op_clip_fail *fail);

/* (int)f clamped to [lo, hi] without converting an out-of-range float (which would be
 * undefined behaviour in C): truncation toward zero, exactly as the cast. */
static inline int op_clip_trunc_clamp(float f, int lo, int hi)
{
    if (!(f > (float)lo))
        return lo;
    if (!(f < (float)hi))
        return hi;
    const int v = (int)f;
    return v < lo ? lo : (v > hi ? hi : v);
}

/* A triangle's first and last rows z0, z1 (supplement §1.3: z0 clamped to [-1, h-1], z1
 * to [0, h-1]); 0 when it lies outside the world's bounding box (Recast's test). */
static inline int op_clip_rows_of(const op_clip_grid *g, const float bmax[3], const float *v0,
                                  const float *v1, const float *v2, int *z0, int *z1)
{
    /* Recast's rcMin/rcMax order. */
    for (int i = 0; i < 3; i++) {
        float lo = v0[i] < v1[i] ? v0[i] : v1[i], hi = v0[i] > v1[i] ? v0[i] : v1[i];
        lo = lo < v2[i] ? lo : v2[i];
        hi = hi > v2[i] ? hi : v2[i];
        if (lo > bmax[i] || hi < g->bmin[i])
            return 0;
        if (i == 2) {
            *z0 = op_clip_trunc_clamp((lo - g->bmin[2]) * g->ics, -1, g->h - 1);
            *z1 = op_clip_trunc_clamp((hi - g->bmin[2]) * g->ics, 0, g->h - 1);
        }
    }
    return 1;
}

/* ---- Many triangles' rows at once (kernel slot raster.rows_of) --------------------- */

/* For triangles 0 .. n-1 of tris (three vertex indices each, into verts of nv
 * vertices): rows[2k], rows[2k+1] = op_clip_rows_of's z0, z1, or 1, 0 when it returns 0
 * (outside the world's bounding box). Stops at the first triangle with an index >= nv or
 * a coordinate that is not finite, and returns its position (n when there is none);
 * rows up to it are written, none after. */
#define OP_CLIP_ROWS_MANY_FN(name)                                                         \
    uint32_t name(const op_clip_grid *g, const float bmax[3], const float *verts,           \
                  uint32_t nv, const uint32_t *tris, uint32_t n, int32_t *rows)

typedef OP_CLIP_ROWS_MANY_FN((*op_clip_rows_many_fn));
OP_CLIP_ROWS_MANY_FN(op_clip_rows_many_scalar);

/* The columns a row piece with x range [minx, maxx] spans (supplement §1.3), clamped to
 * the world and the window's last column; 0 when none. */
static inline int op_clip_row_columns(const op_clip_grid *g, float minx, float maxx, int x_hi,
                                      int *x0, int *x1)
{
    /* Clamped to [-2, w] first (no conversion overflow); the tests below see the same
     * outcome as with the unclamped casts. */
    const int w = g->w;
    int a = op_clip_trunc_clamp((minx - g->bmin[0]) * g->ics, -2, w);
    int b = op_clip_trunc_clamp((maxx - g->bmin[0]) * g->ics, -2, w);
    if (b < 0 || a >= w)
        return 0;
    a = a < -1 ? -1 : a;
    b = b > w - 1 ? w - 1 : b;
    if (b > x_hi)
        b = x_hi; /* columns past the window produce nothing here */
    *x0 = a;
    *x1 = b;
    return 1;
}

/* The span of a column piece with y range [ymin, ymax] into p (supplement §1.3); 0 when
 * it lies outside the height range. */
static inline int op_clip_piece_span(const op_clip_grid *g, float ymin, float ymax, op_piece *p)
{
    ymin -= g->bmin[1];
    ymax -= g->bmin[1];
    if (ymax < 0.0f || ymin > g->by)
        return 0;
    if (ymin < 0.0f)
        ymin = 0.0f;
    if (ymax > g->by)
        ymax = g->by;
    /* Recast clamps smax to >= smin + 1 and both to the height limit; with 16 bits smin
     * stops at 0xfffe so that smax >= smin + 1 always holds. */
    const float lo = floorf(ymin * g->ich), hi = ceilf(ymax * g->ich);
    const int smin = op_clip_trunc_clamp(lo, 0, 0xffff - 1);
    int smax = op_clip_trunc_clamp(hi, 0, 0xffff);
    if (smax < smin + 1)
        smax = smin + 1;
    p->smin = (uint16_t)smin;
    p->smax = (uint16_t)smax;
    return 1;
}

#endif
