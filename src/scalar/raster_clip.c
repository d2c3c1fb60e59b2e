/* Triangle clip, scalar twin (supplement §1.3): Recast's rasterizeTri and dividePoly,
 * every expression binary32 in Recast's order, compiled with -ffp-contract=off, so the
 * spans equal Recast's on the same mesh. */
#include "spans/raster_clip.h"

#include <math.h>
#include <string.h>

/* Recast's rcMin/rcMax (not fminf/fmaxf, whose choice between -0 and +0 is free). */
#define MINF(a, b) ((a) < (b) ? (a) : (b))
#define MAXF(a, b) ((a) > (b) ? (a) : (b))

/* In exact arithmetic a triangle cut by two planes of each axis has at most 7 vertices
 * (plus repeats of a vertex lying on a plane), but with binary32 rounding a cut point
 * can land past the next plane, or on it, and a polygon then grows by up to two
 * vertices per cut (issue 10: coordinates that binary32 cannot resolve to cs). No bound
 * holds for every input, so divide_poly checks each write and the triangle is rejected
 * instead (OP_BAD_INPUT). Grids that binary32 cannot resolve are refused earlier
 * (op_config_check_resolution); this stop remains for triangles reaching far beyond
 * such a grid. */

/* Recast's dividePoly: splits poly `in` (n vertices, xyz) by the plane axis = offset;
 * vertices with δ = offset − v[axis] >= 0 go to out1, <= 0 to out2, and each crossing
 * edge (δ signs differ as >= 0 vs < 0) adds b + (a − b)·(δb/(δb − δa)) to both.
 * Returns 0, or -1 (outputs unusable) when either output would exceed
 * OP_CLIP_MAX_VERTS: with `checked`, the writes stop before leaving the buffers. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int divide_poly_impl(const float *in, int n, float *out1, int *n1, float *out2,
                                   int *n2, float offset, int axis, const int checked)
{
    float delta[OP_CLIP_MAX_VERTS]; /* n <= OP_CLIP_MAX_VERTS: inputs are earlier outputs */
    for (int i = 0; i < n; i++)
        delta[i] = offset - in[i * 3 + axis];
    int m1 = 0, m2 = 0;
    for (int a = 0, b = n - 1; a < n; b = a, a++) {
        const int same = (delta[a] >= 0) == (delta[b] >= 0);
        if (checked) {
            /* What this step writes: a crossing point to both, then a by its side. */
            const int add1 = same ? delta[a] >= 0 : 1 + (delta[a] > 0);
            const int add2 = same ? delta[a] <= 0 : 1 + (delta[a] < 0);
            if (m1 + add1 > OP_CLIP_MAX_VERTS || m2 + add2 > OP_CLIP_MAX_VERTS)
                return -1;
        }
        if (!same) {
            const float s = delta[b] / (delta[b] - delta[a]);
            for (int k = 0; k < 3; k++) {
                const float v = in[b * 3 + k] + (in[a * 3 + k] - in[b * 3 + k]) * s;
                out1[m1 * 3 + k] = v;
                out2[m2 * 3 + k] = v;
            }
            m1++;
            m2++;
            /* Points on the plane were added above as the crossing point. */
            if (delta[a] > 0) {
                for (int k = 0; k < 3; k++)
                    out1[m1 * 3 + k] = in[a * 3 + k];
                m1++;
            } else if (delta[a] < 0) {
                for (int k = 0; k < 3; k++)
                    out2[m2 * 3 + k] = in[a * 3 + k];
                m2++;
            }
        } else {
            /* Same side: a vertex on the plane goes to both. */
            if (delta[a] >= 0) {
                for (int k = 0; k < 3; k++)
                    out1[m1 * 3 + k] = in[a * 3 + k];
                m1++;
                if (delta[a] != 0)
                    continue;
            }
            for (int k = 0; k < 3; k++)
                out2[m2 * 3 + k] = in[a * 3 + k];
            m2++;
        }
    }
    *n1 = m1;
    *n2 = m2;
    return 0;
}

/* Each output gets at most one vertex per input vertex and one per crossing edge, so at
 * most 2n: up to n = OP_CLIP_MAX_VERTS / 2 no step can overflow (in exact arithmetic a
 * triangle cut by a row strip and one column plane has at most 6 vertices), and only
 * larger polygons pay for the check of each step. */
static int divide_poly(const float *in, int n, float *out1, int *n1, float *out2, int *n2,
                       float offset, int axis)
{
    if (2 * n <= OP_CLIP_MAX_VERTS)
        return divide_poly_impl(in, n, out1, n1, out2, n2, offset, axis, 0);
    return divide_poly_impl(in, n, out1, n1, out2, n2, offset, axis, 1);
}

#define trunc_clamp op_clip_trunc_clamp

int op_clip_start(const op_clip_grid *g, const float bmax[3], const float *v0, const float *v1,
                  const float *v2, op_clip_state *st)
{
    float tmin[3], tmax[3];
    for (int i = 0; i < 3; i++) {
        tmin[i] = MINF(MINF(v0[i], v1[i]), v2[i]);
        tmax[i] = MAXF(MAXF(v0[i], v1[i]), v2[i]);
    }
    /* Recast skips triangles outside the field's bounding box (the world's). */
    for (int i = 0; i < 3; i++)
        if (tmin[i] > bmax[i] || tmax[i] < g->bmin[i])
            return 0;
    /* Rows: z0 in [-1, h-1] so the part before row 0 is cut off properly. */
    st->z = trunc_clamp((tmin[2] - g->bmin[2]) * g->ics, -1, g->h - 1);
    st->z1 = trunc_clamp((tmax[2] - g->bmin[2]) * g->ics, 0, g->h - 1);
    for (int k = 0; k < 3; k++) {
        st->v[k] = v0[k];
        st->v[3 + k] = v1[k];
        st->v[6 + k] = v2[k];
    }
    st->n = 3;
    return 1;
}

/* The columns x0 .. x1 of row z's piece `row` (n vertices, xyz; clobbered), columns
 * below x_lo (and < 0) only consuming. */
int op_clip_columns_scalar(const op_clip_grid *g, float *row, int n, int x0, int x1, int z,
                           int x_lo, op_piece *out, op_clip_fail *fail)
{
    float b1[OP_CLIP_MAX_VERTS * 3], b2[OP_CLIP_MAX_VERTS * 3];
    float *in_row = row, *p1 = b1, *p2 = b2;
    int np = 0, nv, nv2 = n;
    for (int x = x0; x <= x1; x++) {
        const float cell_x = g->bmin[0] + (float)x * g->cs;
        if (divide_poly(in_row, nv2, p1, &nv, p2, &nv2, cell_x + g->cs, 0)) {
            fail->column = 1;
            fail->at = x;
            return -1;
        }
        float *t = in_row;
        in_row = p2;
        p2 = t;
        if (nv < 3 || x < x_lo || x < 0)
            continue; /* columns x < 0, and before the window, only consume */
        float ymin = p1[1], ymax = p1[1];
        for (int i = 1; i < nv; i++) {
            ymin = MINF(ymin, p1[i * 3 + 1]);
            ymax = MAXF(ymax, p1[i * 3 + 1]);
        }
        op_piece p = {x, z, 0, 0};
        if (op_clip_piece_span(g, ymin, ymax, &p))
            out[np++] = p; /* nothing is written for a piece outside the height range */
    }
    return np;
}

/* supplement §1.3: clip along z rows, then x columns within each row piece. Rows and
 * columns are world indices and every cut plane is bmin + index·cs + cs of the world,
 * exactly as the solo bake computes it; rows and columns before the window only
 * consume (supplement §2 "Seam-exact tiles"). */
OP_CLIP_ROWS_FN(op_clip_rows_scalar)
{
    float in_row[OP_CLIP_MAX_VERTS * 3], rest[OP_CLIP_MAX_VERTS * 3];
    int np = 0;
    const int zs = st->z1 < z_stop ? st->z1 : z_stop;
    for (int z = st->z; z <= zs; z++) {
        const float cell_z = g->bmin[2] + (float)z * g->cs;
        int nv_row, nv_in;
        if (divide_poly(st->v, st->n, in_row, &nv_row, rest, &nv_in, cell_z + g->cs, 2)) {
            fail->column = 0;
            fail->at = z;
            return -1;
        }
        memcpy(st->v, rest, (size_t)nv_in * 3 * sizeof(float));
        st->n = nv_in;
        st->z = z + 1;
        if (nv_row < 3 || z < z_emit || z < 0)
            continue; /* rows z < 0, and rows before the window, only consume */
        float minx = in_row[0], maxx = in_row[0];
        for (int i = 1; i < nv_row; i++) {
            if (minx > in_row[i * 3])
                minx = in_row[i * 3];
            if (maxx < in_row[i * 3])
                maxx = in_row[i * 3];
        }
        int x0, x1;
        if (!op_clip_row_columns(g, minx, maxx, x_hi, &x0, &x1))
            continue;
        const int k = op_clip_columns_scalar(g, in_row, nv_row, x0, x1, z, x_lo, out + np, fail);
        if (k < 0)
            return -1;
        np += k;
    }
    return np;
}

/* The batch slot's scalar twin: each lane through op_clip_rows_scalar, its pieces put in
 * the batch's grid (x0[r] = the row's first piece). A lane whose rows or columns do not
 * fit, or whose clip fails, is left to the caller. */
OP_CLIP_BATCH_FN(op_clip_batch_scalar)
{
    unsigned left = 0;
    for (int l = 0; l < lanes; l++) {
        b->mask[l] = 0;
        op_clip_state st;
        st.n = b->n[l];
        if (st.n < 1 || st.n > OP_CLIP_BATCH_VERTS) {
            left |= 1u << l;
            continue;
        }
        for (int k = 0; k < 3 * st.n; k++)
            st.v[k] = b->v[k][l];
        st.z = b->z0[l];
        st.z1 = b->z1[l];
        float minx = st.v[0], maxx = st.v[0];
        for (int k = 1; k < st.n; k++) {
            minx = MINF(minx, st.v[3 * k]);
            maxx = MAXF(maxx, st.v[3 * k]);
        }
        /* Pieces lie within a column of the triangle's own columns (see the top). */
        const int xa = trunc_clamp((minx - g->bmin[0]) * g->ics, -2, g->w);
        const int xb = trunc_clamp((maxx - g->bmin[0]) * g->ics, -2, g->w);
        if (st.z1 - st.z >= OP_CLIP_BATCH_ROWS || xb - xa > OP_CLIP_BATCH_COLS + 2) {
            left |= 1u << l;
            continue;
        }
        op_piece out[OP_CLIP_BATCH_ROWS * 64]; /* a few columns per row at most */
        op_clip_fail f;
        const int np = op_clip_rows_scalar(g, &st, st.z1, z_emit, x_lo, x_hi, out, &f);
        if (np < 0 || st.n > OP_CLIP_BATCH_VERTS) {
            left |= 1u << l;
            continue;
        }
        for (int q = 0; q < 3 * st.n; q++)
            b->rest[q][l] = st.v[q];
        b->rest_n[l] = st.n;
        int seen[OP_CLIP_BATCH_ROWS] = {0};
        for (int q = 0; q < np; q++) {
            const int r = out[q].z - b->z0[l];
            if (!seen[r]) {
                seen[r] = 1;
                b->x0[r][l] = out[q].x;
            }
            const int c = out[q].x - b->x0[r][l];
            if (c >= OP_CLIP_BATCH_COLS) {
                left |= 1u << l;
                break;
            }
            b->smin[r * OP_CLIP_BATCH_COLS + c][l] = out[q].smin;
            b->smax[r * OP_CLIP_BATCH_COLS + c][l] = out[q].smax;
            b->mask[l] |= 1u << (r * OP_CLIP_BATCH_COLS + c);
        }
    }
    return left;
}
