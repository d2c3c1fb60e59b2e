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

#endif
