/* The per-polygon triangle clip on 8 lanes (included by src/simd/raster_clip.c for the
 * variants of 256-bit vectors and more; supplement §1.3). The same as the 4-lane code
 * there, lane k = vertex k, with room for eight vertices: dividePoly's δ = offset − v for
 * every vertex, the edge b -> a by rotating one lane, the crossing points
 * b + (a − b)·(δb/(δb − δa)) of every edge at once, and the outputs as the candidates
 * c0 a0 c1 a1 .. c7 a7 (crossing point, then vertex, per edge) compressed in order: the
 * candidates' positions are listed one per nibble (rc8_pack of each half of the 16-bit
 * candidate mask), and each output lane takes its candidate's edge from the crossing
 * points or the vertices (a lane permute of each, then a blend). Every lane runs the
 * scalar twin's IEEE operations on the scalar twin's operands, so each vertex is
 * bit-identical; the reasons why min/max order does not matter, and the 2^120 bound,
 * are those of the 4-lane code (the top of raster_clip.c). A polygon of more than
 * eight vertices goes on in the scalar twin, from the exact state reached (the polygon
 * before the split that would make it, so that a split past OP_CLIP_MAX_VERTS fails
 * in the scalar twin, at the same row or column). */
#ifndef OP_RASTER_CLIP8_H
#define OP_RASTER_CLIP8_H

#include <simde/x86/avx2.h>

#include "simd/raster_clip8_tables.h"

typedef simde__m256 v8;
typedef simde__m256i v8i;

#define RC8_LIMIT 1.329228e36f /* 2^120 */

/* Lane k takes lane k − 1, lane 0 takes lane n − 1 (edge b -> a). */
OP_VINLINE v8 rc8_rot(v8 v, int n)
{
    return simde_mm256_permutevar8x32_ps(v, simde_mm256_setr_epi32(n - 1, 0, 1, 2, 3, 4, 5, 6));
}

OP_VINLINE unsigned rc8_mask(v8 m) { return (unsigned)simde_mm256_movemask_ps(m); }

/* The output lanes of candidate mask cm (bit 2k: crossing point k, bit 2k+1: vertex k),
 * at most eight set: lane p holds the position of the p-th candidate. */
OP_VINLINE v8i rc8_order(unsigned cm)
{
    const unsigned lo = cm & 0xffu, hi = cm >> 8;
    const int cl = __builtin_popcount(lo), ch = __builtin_popcount(hi);
    const uint64_t hp = (uint64_t)(rc8_pack[hi] | (0x88888888u & (uint32_t)((1ull << (4 * ch)) - 1u)));
    const uint32_t packed = (uint32_t)(rc8_pack[lo] | (hp << (4 * cl)));
    return simde_mm256_and_si256(
        simde_mm256_srlv_epi32(simde_mm256_set1_epi32((int32_t)packed),
                               simde_mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
        simde_mm256_set1_epi32(15));
}

/* Candidates in the order `ord` (rc8_order): crossing points c, vertices a. */
OP_VINLINE v8 rc8_compress(v8 c, v8 a, v8i ord)
{
    const v8i edge = simde_mm256_srli_epi32(ord, 1);
    return simde_mm256_blendv_ps(simde_mm256_permutevar8x32_ps(c, edge),
                                 simde_mm256_permutevar8x32_ps(a, edge),
                                 simde_mm256_castsi256_ps(simde_mm256_slli_epi32(ord, 31)));
}

OP_VINLINE v8 rc8_lanes_of(unsigned m)
{
    const v8i bits = simde_mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(
        simde_mm256_and_si256(simde_mm256_set1_epi32((int32_t)m), bits), bits));
}

OP_VINLINE float rc8_hmin(v8 a)
{
    simde__m128 m = simde_mm_min_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
    m = simde_mm_min_ps(m, simde_mm_movehl_ps(m, m));
    m = simde_mm_min_ss(m, simde_mm_shuffle_ps(m, m, 1));
    return simde_mm_cvtss_f32(m);
}

OP_VINLINE float rc8_hmax(v8 a)
{
    simde__m128 m = simde_mm_max_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
    m = simde_mm_max_ps(m, simde_mm_movehl_ps(m, m));
    m = simde_mm_max_ss(m, simde_mm_shuffle_ps(m, m, 1));
    return simde_mm_cvtss_f32(m);
}

/* One split's masks (as rc_classify): cross: edge b -> a crosses; m1 / m2: vertex a goes
 * to out1 / out2; s: δb / (δb − δa) per edge. */
typedef struct rc8_split {
    unsigned cross, m1, m2;
    v8 s;
} rc8_split;

OP_VINLINE rc8_split rc8_classify(v8 axis, float off, int n)
{
    rc8_split r;
    const v8 zero = simde_mm256_setzero_ps();
    const v8 d = simde_mm256_sub_ps(simde_mm256_set1_ps(off), axis);
    const v8 db = rc8_rot(d, n);
    const unsigned valid = (1u << n) - 1u;
    const unsigned ge = rc8_mask(simde_mm256_cmp_ps(d, zero, SIMDE_CMP_GE_OQ));
    const unsigned geb = rc8_mask(simde_mm256_cmp_ps(db, zero, SIMDE_CMP_GE_OQ));
    const unsigned gt = rc8_mask(simde_mm256_cmp_ps(d, zero, SIMDE_CMP_GT_OQ));
    r.cross = (ge ^ geb) & valid;
    /* Without NaN, δ < 0 is !(δ >= 0) and δ <= 0 is !(δ > 0). */
    r.m1 = ((r.cross & gt) | (~r.cross & ge)) & valid;
    r.m2 = ((r.cross & ~ge) | (~r.cross & ~gt)) & valid;
    r.s = simde_mm256_div_ps(db, simde_mm256_sub_ps(db, d));
    return r;
}

/* b + (a − b)·s for every edge (lane k: b = vertex k − 1, a = vertex k). */
OP_VINLINE v8 rc8_cross(v8 a, int n, v8 s)
{
    const v8 b = rc8_rot(a, n);
    return simde_mm256_add_ps(b, simde_mm256_mul_ps(simde_mm256_sub_ps(a, b), s));
}

static int rc8_in_range(const float *v, int n)
{
    for (int i = 0; i < 3 * n; i++)
        if (!(v[i] <= RC8_LIMIT && v[i] >= -RC8_LIMIT))
            return 0;
    return 1;
}

/* Candidates of mask cm in order, as an xyz polygon (z = 0: columns never read it). */
static int rc8_unpack(unsigned cm, v8 cx, v8 cy, v8 ax, v8 ay, float *out)
{
    float fcx[8], fcy[8], fax[8], fay[8];
    simde_mm256_storeu_ps(fcx, cx);
    simde_mm256_storeu_ps(fcy, cy);
    simde_mm256_storeu_ps(fax, ax);
    simde_mm256_storeu_ps(fay, ay);
    int m = 0;
    for (int q = 0; q < 16; q++) {
        if (!(cm >> q & 1))
            continue;
        out[3 * m] = q & 1 ? fax[q / 2] : fcx[q / 2];
        out[3 * m + 1] = q & 1 ? fay[q / 2] : fcy[q / 2];
        out[3 * m + 2] = 0.0f;
        m++;
    }
    return m;
}

/* The polygon of the vectors back into the state. */
static void rc8_store(op_clip_state *st, v8 X, v8 Y, v8 Z, int n)
{
    float lx[8], ly[8], lz[8];
    simde_mm256_storeu_ps(lx, X);
    simde_mm256_storeu_ps(ly, Y);
    simde_mm256_storeu_ps(lz, Z);
    for (int i = 0; i < n; i++) {
        st->v[3 * i] = lx[i];
        st->v[3 * i + 1] = ly[i];
        st->v[3 * i + 2] = lz[i];
    }
    st->n = n;
}

OP_CLIP_ROWS_FN(OP_FN(op_clip_rows))
{
    const float lim = RC8_LIMIT;
    const int zs = st->z1 < z_stop ? st->z1 : z_stop;
    if (st->n > 8 || !rc8_in_range(st->v, st->n) || !(g->bmin[0] <= lim && g->bmin[0] >= -lim) ||
        !(g->bmin[2] <= lim && g->bmin[2] >= -lim) ||
        !((float)g->w * g->cs <= lim) || !((float)g->h * g->cs <= lim))
        return op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out, fail);
    float lx[8] = {0}, ly[8] = {0}, lz[8] = {0};
    for (int i = 0; i < st->n; i++) {
        lx[i] = st->v[3 * i];
        ly[i] = st->v[3 * i + 1];
        lz[i] = st->v[3 * i + 2];
    }
    v8 X = simde_mm256_loadu_ps(lx), Y = simde_mm256_loadu_ps(ly), Z = simde_mm256_loadu_ps(lz);
    int n = st->n;
    const v8 inf = simde_mm256_set1_ps(INFINITY), ninf = simde_mm256_set1_ps(-INFINITY);
    int np = 0;
    int z = st->z;
    for (; z <= zs; z++) {
        if (n <= 1) {
            /* Nothing more can come of it (see raster_clip.c): every row is consumed. */
            z = st->z1 + 1;
            break;
        }
        const float cell_z = g->bmin[2] + (float)z * g->cs;
        const rc8_split r = rc8_classify(Z, cell_z + g->cs, n);
        const unsigned I1 = rc8_spread[r.cross] | (unsigned)rc8_spread[r.m1] << 1;
        const unsigned I2 = rc8_spread[r.cross] | (unsigned)rc8_spread[r.m2] << 1;
        const int n1 = __builtin_popcount(I1), n2 = __builtin_popcount(I2);
        if (n1 > 8 || n2 > 8) {
            /* The scalar twin goes on from the polygon before this row's split. */
            rc8_store(st, X, Y, Z, n);
            st->z = z;
            const int k = op_clip_rows_scalar(g, st, z_stop, z_emit, x_lo, x_hi, out + np, fail);
            return k < 0 ? -1 : np + k;
        }
        const v8 CX = rc8_cross(X, n, r.s), CY = rc8_cross(Y, n, r.s), CZ = rc8_cross(Z, n, r.s);
        const v8i o1 = rc8_order(I1), o2 = rc8_order(I2);
        v8 RX = rc8_compress(CX, X, o1), RY = rc8_compress(CY, Y, o1);
        X = rc8_compress(CX, X, o2);
        Y = rc8_compress(CY, Y, o2);
        Z = rc8_compress(CZ, Z, o2);
        n = n2;
        if (n1 < 3 || z < z_emit || z < 0)
            continue; /* rows z < 0, and rows before the window, only consume */
        const v8 vm = rc8_lanes_of((1u << n1) - 1u);
        const float minx = rc8_hmin(simde_mm256_blendv_ps(inf, RX, vm));
        const float maxx = rc8_hmax(simde_mm256_blendv_ps(ninf, RX, vm));
        int x0, x1;
        if (!op_clip_row_columns(g, minx, maxx, x_hi, &x0, &x1))
            continue;
        int nr = n1;
        for (int x = x0; x <= x1; x++) {
            const float cell_x = g->bmin[0] + (float)x * g->cs;
            const rc8_split c = rc8_classify(RX, cell_x + g->cs, nr);
            const int c1 = __builtin_popcount(c.cross) + __builtin_popcount(c.m1);
            const unsigned J2 = rc8_spread[c.cross] | (unsigned)rc8_spread[c.m2] << 1;
            const int c2 = __builtin_popcount(J2);
            if (c1 > 8 || c2 > 8) {
                /* The scalar twin goes on from the polygon before this column's split
                 * (where it may also fail, as it would have). */
                float rem[OP_CLIP_MAX_VERTS * 3];
                const int m = rc8_unpack(rc8_spread[(1u << nr) - 1u] << 1, RX, RY, RX, RY, rem);
                const int k = op_clip_columns_scalar(g, rem, m, x, x1, z, x_lo, out + np, fail);
                if (k < 0)
                    return -1;
                np += k;
                break;
            }
            const v8 CX2 = rc8_cross(RX, nr, c.s), CY2 = rc8_cross(RY, nr, c.s);
            if (c1 >= 3 && x >= x_lo && x >= 0) {
                const v8 mc = rc8_lanes_of(c.cross), ma = rc8_lanes_of(c.m1);
                const v8 lo = simde_mm256_min_ps(simde_mm256_blendv_ps(inf, CY2, mc),
                                                 simde_mm256_blendv_ps(inf, RY, ma));
                const v8 hi = simde_mm256_max_ps(simde_mm256_blendv_ps(ninf, CY2, mc),
                                                 simde_mm256_blendv_ps(ninf, RY, ma));
                op_piece p = {x, z, 0, 0};
                if (op_clip_piece_span(g, rc8_hmin(lo), rc8_hmax(hi), &p))
                    out[np++] = p;
            }
            if (x == x1)
                break; /* the remainder is not needed */
            if (c2 <= 1)
                break; /* nothing more can come of it */
            const v8i oc = rc8_order(J2);
            RX = rc8_compress(CX2, RX, oc);
            RY = rc8_compress(CY2, RY, oc);
            nr = c2;
        }
    }
    /* The state for a later band: the polygon left and the next row. */
    rc8_store(st, X, Y, Z, n);
    st->z = z;
    return np;
}

#endif
