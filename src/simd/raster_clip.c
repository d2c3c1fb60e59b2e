/* Triangle clip, SIMD twin of src/scalar/raster_clip.c (supplement §1.3).
 *
 * One polygon lives in three 4-lane registers (x, y, z; lane k = vertex k), so a split
 * of dividePoly is a handful of vector operations: δ = offset − v for every vertex, the
 * edge b -> a seen by rotating δ one lane (rc_rot), the crossing points
 * b + (a − b)·(δb/(δb − δa)) of every edge at once (one division for all lanes), and the
 * outputs as the candidates c0 a0 c1 a1 .. (crossing point, then vertex, per edge)
 * compressed in order by a table (rc_from_c / rc_from_a). Every lane runs the scalar
 * twin's IEEE operations on the scalar twin's operands, so each vertex is bit-identical.
 *
 * Differences in organisation, none in the pieces (the scalar twin is the reference):
 *  - min and max over a piece's y (and a row piece's x) are taken in any lane order. The
 *    scalar order matters only for NaN, and for which of -0 and +0 comes out, and both
 *    end in the same cell and span: NaN cannot arise while every coordinate and cut plane
 *    is within 2^120 (no difference, product or sum then overflows), which is checked on
 *    entry; the scalar twin handles anything else.
 *  - a column piece's own polygon is never built (only its y range and vertex count
 *    are needed), nor the z of column splits (never read), nor the remainder after a
 *    row's last column.
 *  - a remainder of at most one vertex can never again make a piece of three, nor fail:
 *    the loop stops there.
 *  - a polygon of more than four vertices leaves the vectors: the scalar twin continues
 *    from the exact state reached (rows: the polygon before the split; columns: the
 *    remainder, rebuilt lane by lane).
 * Pieces come out in the scalar order (rows, then columns, ascending). */
#include "simd/simd_width.h"
#include "spans/raster_clip.h"

#include <simde/x86/sse4.1.h>
#include <simde/x86/ssse3.h>

OP_CLIP_ROWS_FN(OP_FN(op_clip_rows));

#if OP_VEC_BITS >= 256
/* Variants of 256-bit vectors and more keep a polygon of up to eight vertices in one
 * vector per coordinate (raster_clip8.h): the same splits, without the scalar twin's
 * hand-over of the common five- and six-vertex row pieces of large triangles. */
#include "simd/raster_clip8.h"
#else
#include "simd/raster_clip_tables.h"

typedef simde__m128 v4;

/* 2^120: see above. */
#define RC_LIMIT 1.329228e36f

OP_VINLINE v4 rc_shuffle(v4 v, const uint8_t *idx)
{
    return simde_mm_castsi128_ps(simde_mm_shuffle_epi8(simde_mm_castps_si128(v),
                                                       simde_mm_loadu_si128((const void *)idx)));
}

/* Candidates compressed by the 8-bit candidate mask cm (first four outputs). */
OP_VINLINE v4 rc_compress(v4 c, v4 a, unsigned cm)
{
    return simde_mm_or_ps(rc_shuffle(c, rc_from_c[cm]), rc_shuffle(a, rc_from_a[cm]));
}

OP_VINLINE v4 rc_lanes_of(unsigned m)
{
    return simde_mm_castsi128_ps(simde_mm_loadu_si128((const void *)rc_lanes[m]));
}

OP_VINLINE float rc_hmin(v4 a)
{
    a = simde_mm_min_ps(a, simde_mm_movehl_ps(a, a));
    a = simde_mm_min_ss(a, simde_mm_shuffle_ps(a, a, 1));
    return simde_mm_cvtss_f32(a);
}

OP_VINLINE float rc_hmax(v4 a)
{
    a = simde_mm_max_ps(a, simde_mm_movehl_ps(a, a));
    a = simde_mm_max_ss(a, simde_mm_shuffle_ps(a, a, 1));
    return simde_mm_cvtss_f32(a);
}

/* The masks of one split of a polygon of n lanes at δ = off − axis:
 * cross: edge b -> a crosses (δ >= 0 differs); m1 / m2: vertex a goes to out1 / out2. */
typedef struct rc_split {
    unsigned cross, m1, m2;
    v4 s, d;
} rc_split;

OP_VINLINE rc_split rc_classify(v4 axis, float off, int n)
{
    rc_split r;
    const v4 zero = simde_mm_setzero_ps();
    const v4 d = simde_mm_sub_ps(simde_mm_set1_ps(off), axis);
    const v4 db = rc_shuffle(d, rc_rot[n]);
    const unsigned valid = (1u << n) - 1u;
    const unsigned ge = (unsigned)simde_mm_movemask_ps(simde_mm_cmpge_ps(d, zero));
    const unsigned geb = (unsigned)simde_mm_movemask_ps(simde_mm_cmpge_ps(db, zero));
    const unsigned gt = (unsigned)simde_mm_movemask_ps(simde_mm_cmpgt_ps(d, zero));
    r.cross = (ge ^ geb) & valid;
    /* Without NaN, δ < 0 is !(δ >= 0) and δ <= 0 is !(δ > 0). */
    r.m1 = ((r.cross & gt) | (~r.cross & ge)) & valid;
    r.m2 = ((r.cross & ~ge) | (~r.cross & ~gt)) & valid;
    r.s = simde_mm_div_ps(db, simde_mm_sub_ps(db, d));
    r.d = d;
    return r;
}

/* b + (a − b)·s for every edge (lane k: b = vertex k − 1, a = vertex k). */
OP_VINLINE v4 rc_cross(v4 a, int n, v4 s)
{
    const v4 b = rc_shuffle(a, rc_rot[n]);
    return simde_mm_add_ps(b, simde_mm_mul_ps(simde_mm_sub_ps(a, b), s));
}

static int rc_in_range(const float *v, int n)
{
    for (int i = 0; i < 3 * n; i++)
        if (!(v[i] <= RC_LIMIT && v[i] >= -RC_LIMIT))
            return 0;
    return 1;
}

/* Candidates of mask cm in order, as an xyz polygon (z = 0: columns never read it). */
static int rc_unpack(unsigned cm, v4 cx, v4 cy, v4 ax, v4 ay, float *out)
{
    float fcx[4], fcy[4], fax[4], fay[4];
    simde_mm_storeu_ps(fcx, cx);
    simde_mm_storeu_ps(fcy, cy);
    simde_mm_storeu_ps(fax, ax);
    simde_mm_storeu_ps(fay, ay);
    int m = 0;
    for (int q = 0; q < 8; q++) {
        if (!(cm >> q & 1))
            continue;
        out[3 * m] = q & 1 ? fax[q / 2] : fcx[q / 2];
        out[3 * m + 1] = q & 1 ? fay[q / 2] : fcy[q / 2];
        out[3 * m + 2] = 0.0f;
        m++;
    }
    return m;
}

OP_CLIP_ROWS_FN(OP_FN(op_clip_rows))
{
    const float lim = RC_LIMIT;
    const int zs = st->z1 < z_stop ? st->z1 : z_stop;
    if (st->n > 4 || !rc_in_range(st->v, st->n) || !(g->bmin[0] <= lim && g->bmin[0] >= -lim) ||
        !(g->bmin[2] <= lim && g->bmin[2] >= -lim) ||
        !((float)g->w * g->cs <= lim) || !((float)g->h * g->cs <= lim))
        return op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out, fail);
    float lx[4] = {0}, ly[4] = {0}, lz[4] = {0};
    for (int i = 0; i < st->n; i++) {
        lx[i] = st->v[3 * i];
        ly[i] = st->v[3 * i + 1];
        lz[i] = st->v[3 * i + 2];
    }
    v4 X = simde_mm_loadu_ps(lx), Y = simde_mm_loadu_ps(ly), Z = simde_mm_loadu_ps(lz);
    int n = st->n;
    const v4 inf = simde_mm_set1_ps(INFINITY), ninf = simde_mm_set1_ps(-INFINITY);
    int np = 0;
    int z = st->z;
    for (; z <= zs; z++) {
        if (n <= 1) {
            /* Nothing more can come of it (see the top): every row is consumed. */
            z = st->z1 + 1;
            break;
        }
        const float cell_z = g->bmin[2] + (float)z * g->cs;
        const rc_split r = rc_classify(Z, cell_z + g->cs, n);
        const unsigned I1 = rc_spread[r.cross] | (unsigned)rc_spread[r.m1] << 1;
        const unsigned I2 = rc_spread[r.cross] | (unsigned)rc_spread[r.m2] << 1;
        const int n1 = __builtin_popcount(I1), n2 = __builtin_popcount(I2);
        if (n1 > 4 || n2 > 4) {
            /* The scalar twin goes on from the polygon before this row's split. */
            simde_mm_storeu_ps(lx, X);
            simde_mm_storeu_ps(ly, Y);
            simde_mm_storeu_ps(lz, Z);
            for (int i = 0; i < n; i++) {
                st->v[3 * i] = lx[i];
                st->v[3 * i + 1] = ly[i];
                st->v[3 * i + 2] = lz[i];
            }
            st->n = n;
            st->z = z;
            const int k = op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out + np, fail);
            return k < 0 ? -1 : np + k;
        }
        const v4 CX = rc_cross(X, n, r.s), CY = rc_cross(Y, n, r.s), CZ = rc_cross(Z, n, r.s);
        v4 RX = rc_compress(CX, X, I1), RY = rc_compress(CY, Y, I1);
        X = rc_compress(CX, X, I2);
        Y = rc_compress(CY, Y, I2);
        Z = rc_compress(CZ, Z, I2);
        n = n2;
        if (n1 < 3 || z < z_emit || z < 0)
            continue; /* rows z < 0, and rows before the window, only consume */
        const v4 vm = rc_lanes_of((1u << n1) - 1u);
        const float minx = rc_hmin(simde_mm_or_ps(simde_mm_and_ps(vm, RX), simde_mm_andnot_ps(vm, inf)));
        const float maxx = rc_hmax(simde_mm_or_ps(simde_mm_and_ps(vm, RX), simde_mm_andnot_ps(vm, ninf)));
        int x0, x1;
        if (!op_clip_row_columns(g, minx, maxx, x_hi, &x0, &x1))
            continue;
        int nr = n1;
        for (int x = x0; x <= x1; x++) {
            const float cell_x = g->bmin[0] + (float)x * g->cs;
            const rc_split c = rc_classify(RX, cell_x + g->cs, nr);
            const v4 CX2 = rc_cross(RX, nr, c.s), CY2 = rc_cross(RY, nr, c.s);
            const int c1 = __builtin_popcount(c.cross) + __builtin_popcount(c.m1);
            if (c1 >= 3 && x >= x_lo && x >= 0) {
                const v4 mc = rc_lanes_of(c.cross), ma = rc_lanes_of(c.m1);
                const v4 lo = simde_mm_min_ps(
                    simde_mm_or_ps(simde_mm_and_ps(mc, CY2), simde_mm_andnot_ps(mc, inf)),
                    simde_mm_or_ps(simde_mm_and_ps(ma, RY), simde_mm_andnot_ps(ma, inf)));
                const v4 hi = simde_mm_max_ps(
                    simde_mm_or_ps(simde_mm_and_ps(mc, CY2), simde_mm_andnot_ps(mc, ninf)),
                    simde_mm_or_ps(simde_mm_and_ps(ma, RY), simde_mm_andnot_ps(ma, ninf)));
                op_piece p = {x, z, 0, 0};
                if (op_clip_piece_span(g, rc_hmin(lo), rc_hmax(hi), &p))
                    out[np++] = p;
            }
            if (x == x1)
                break; /* the remainder is not needed */
            const unsigned J2 = rc_spread[c.cross] | (unsigned)rc_spread[c.m2] << 1;
            const int c2 = __builtin_popcount(J2);
            if (c2 > 4) {
                /* The scalar twin goes on with the remainder after this column. */
                float rem[OP_CLIP_MAX_VERTS * 3];
                const int m = rc_unpack(J2, CX2, CY2, RX, RY, rem);
                const int k = op_clip_columns_scalar(g, rem, m, x + 1, x1, z, x_lo, out + np, fail);
                if (k < 0)
                    return -1;
                np += k;
                break;
            }
            if (c2 <= 1)
                break; /* nothing more can come of it */
            RX = rc_compress(CX2, RX, J2);
            RY = rc_compress(CY2, RY, J2);
            nr = c2;
        }
    }
    /* The state for a later band: the polygon left and the next row. */
    simde_mm_storeu_ps(lx, X);
    simde_mm_storeu_ps(ly, Y);
    simde_mm_storeu_ps(lz, Z);
    for (int i = 0; i < n; i++) {
        st->v[3 * i] = lx[i];
        st->v[3 * i + 1] = ly[i];
        st->v[3 * i + 2] = lz[i];
    }
    st->n = n;
    st->z = z;
    return np;
}
#endif
