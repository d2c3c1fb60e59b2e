/* The lane primitives of the triangle clip on 8 lanes (included by src/simd/raster_clip.c
 * for the variants of 256-bit vectors and more, before the one body of the clip,
 * raster_clip_rows.inc.h; supplement §1.3). One 256-bit vector per coordinate holds up
 * to eight vertices, lane k = vertex k; the candidates c0 a0 c1 a1 .. c7 a7 (crossing
 * point, then vertex, per edge) are compressed in order: their positions are listed
 * one per nibble (rc8_pack of each half of the 16-bit candidate mask), and each output
 * lane takes its candidate's edge from the crossing points or the vertices (a lane
 * permute of each, then a blend; the avx512 variant takes the positions by pext and
 * one two-source permute, below). A split that would give more than eight vertices,
 * row or column, either side, hands the polygon before it to the scalar twin
 * (RC_COLUMN_HAND_OVER_BEFORE), so that a split past OP_CLIP_MAX_VERTS fails in the
 * scalar twin, at the same row or column. */
#ifndef OP_RASTER_CLIP8_H
#define OP_RASTER_CLIP8_H

#include <simde/x86/avx2.h>

#include "simd/raster_clip8_tables.h"

typedef simde__m256 rc_v;
typedef simde__m256i rc_ord;

#define RC_LANES 8
#define RC_LIMIT 1.329228e36f /* 2^120 */
#define RC_COLUMN_HAND_OVER_BEFORE 1
#define RC_MM simde_mm256 /* the intrinsics' prefix of rc_v */

/* Lane k takes lane k − 1, lane 0 takes lane n − 1 (edge b -> a). */
OP_VINLINE rc_v rc_rotate(rc_v v, int n)
{
    return simde_mm256_permutevar8x32_ps(v, simde_mm256_setr_epi32(n - 1, 0, 1, 2, 3, 4, 5, 6));
}

OP_VINLINE unsigned rc_ge0(rc_v v)
{
    const rc_v zero = simde_mm256_setzero_ps();
    return (unsigned)simde_mm256_movemask_ps(simde_mm256_cmp_ps(v, zero, SIMDE_CMP_GE_OQ));
}

OP_VINLINE unsigned rc_gt0(rc_v v)
{
    const rc_v zero = simde_mm256_setzero_ps();
    return (unsigned)simde_mm256_movemask_ps(simde_mm256_cmp_ps(v, zero, SIMDE_CMP_GT_OQ));
}

OP_VINLINE unsigned rc_spread_of(unsigned m) { return rc8_spread[m]; }

#if OP_VEC_BITS == 512
/* The avx512 variant (BMI2 and AVX-512VL): each candidate's source lane in the two-source
 * permute of c and a, lane e of c (crossing point e) or lane 8 + e of a (vertex e), by
 * position p = 2e or 2e + 1: one nibble each in OP_RC8_SRC, taken in order by pext
 * from the positions of cm (a nibble mask from pdep), then one vpermt2ps per
 * coordinate. The same lanes as the nibble list below (unused lanes: crossing point 0). */
#include <immintrin.h>
#define OP_RC8_SRC 0xF7E6D5C4B3A29180ull

OP_VINLINE rc_ord rc_order(unsigned cm)
{
    const uint64_t nibbles = _pdep_u64(cm, 0x1111111111111111ull) * 15u;
    const uint32_t packed = (uint32_t)_pext_u64(OP_RC8_SRC, nibbles);
    return simde_mm256_and_si256(
        simde_mm256_srlv_epi32(simde_mm256_set1_epi32((int32_t)packed),
                               simde_mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
        simde_mm256_set1_epi32(15));
}

OP_VINLINE rc_v rc_compress(rc_v c, rc_v a, rc_ord src)
{
    return simde_mm256_permutex2var_ps(c, src, a);
}
#else
/* The output lanes of candidate mask cm (bit 2k: crossing point k, bit 2k+1: vertex k),
 * at most eight set: lane p holds the position of the p-th candidate. */
OP_VINLINE rc_ord rc_order(unsigned cm)
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

/* Candidates in the order `ord` (rc_order): crossing points c, vertices a. */
OP_VINLINE rc_v rc_compress(rc_v c, rc_v a, rc_ord ord)
{
    const rc_ord edge = simde_mm256_srli_epi32(ord, 1);
    return simde_mm256_blendv_ps(simde_mm256_permutevar8x32_ps(c, edge),
                                 simde_mm256_permutevar8x32_ps(a, edge),
                                 simde_mm256_castsi256_ps(simde_mm256_slli_epi32(ord, 31)));
}

#endif

OP_VINLINE rc_v rc_lanes_of(unsigned m)
{
    const rc_ord bits = simde_mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(
        simde_mm256_and_si256(simde_mm256_set1_epi32((int32_t)m), bits), bits));
}

OP_VINLINE float rc_hmin(rc_v a)
{
    simde__m128 m = simde_mm_min_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
    m = simde_mm_min_ps(m, simde_mm_movehl_ps(m, m));
    m = simde_mm_min_ss(m, simde_mm_shuffle_ps(m, m, 1));
    return simde_mm_cvtss_f32(m);
}

OP_VINLINE float rc_hmax(rc_v a)
{
    simde__m128 m = simde_mm_max_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
    m = simde_mm_max_ps(m, simde_mm_movehl_ps(m, m));
    m = simde_mm_max_ss(m, simde_mm_shuffle_ps(m, m, 1));
    return simde_mm_cvtss_f32(m);
}

/* mask ? v : fill, lane by lane. */
OP_VINLINE rc_v rc_select(rc_v mask, rc_v v, rc_v fill)
{
    return simde_mm256_blendv_ps(fill, v, mask);
}

/* ---- Column pieces eight at a time (RC_PIECES_IN_LANES) ----------------------------
 * A column piece's y range is kept as two vectors (its candidates' y, the other lanes
 * +inf / -inf); up to eight pieces wait, in order, and are then reduced together (lane
 * i of the result: piece i's min or max over its lanes, by a transposing tree of
 * unpacks, shuffles and 128-bit swaps instead of two horizontal reductions per piece)
 * and their spans computed in lanes: op_clip_piece_span's binary32 operations and
 * clamps, lane by lane (supplement §1.3). Min and max in another lane order than the
 * scalar twin's: see raster_clip.c (no NaN within 2^120; -0 and +0 give the same span). */
#define RC_PIECES_IN_LANES 1

/* The eight vectors' horizontal minima (mx 0) or maxima (mx 1), lane i from v[i]. */
#define RC8_TREE(OP)                                                                       \
    const rc_v a01 = OP(simde_mm256_unpacklo_ps(v[0], v[1]), simde_mm256_unpackhi_ps(v[0], v[1])); \
    const rc_v a23 = OP(simde_mm256_unpacklo_ps(v[2], v[3]), simde_mm256_unpackhi_ps(v[2], v[3])); \
    const rc_v a45 = OP(simde_mm256_unpacklo_ps(v[4], v[5]), simde_mm256_unpackhi_ps(v[4], v[5])); \
    const rc_v a67 = OP(simde_mm256_unpacklo_ps(v[6], v[7]), simde_mm256_unpackhi_ps(v[6], v[7])); \
    const rc_v b03 = OP(simde_mm256_shuffle_ps(a01, a23, 0x44), simde_mm256_shuffle_ps(a01, a23, 0xEE)); \
    const rc_v b47 = OP(simde_mm256_shuffle_ps(a45, a67, 0x44), simde_mm256_shuffle_ps(a45, a67, 0xEE)); \
    return OP(simde_mm256_permute2f128_ps(b03, b47, 0x20), simde_mm256_permute2f128_ps(b03, b47, 0x31))

OP_VINLINE rc_v rc8_hmin_each(const rc_v *v) { RC8_TREE(simde_mm256_min_ps); }
OP_VINLINE rc_v rc8_hmax_each(const rc_v *v) { RC8_TREE(simde_mm256_max_ps); }
#undef RC8_TREE

/* The pieces waiting: y ranges lo[i], hi[i] of column x[i], row z[i]. */
typedef struct rc_pending {
    rc_v lo[RC_LANES], hi[RC_LANES];
    int32_t x[RC_LANES], z[RC_LANES];
    int n;
} rc_pending;

/* Appends the n pending pieces inside the height range to out (op_clip_piece_span in
 * lanes); returns how many. */
static int rc_pieces_flush(const op_clip_grid *g, rc_pending *pd, op_piece *out)
{
    const int n = pd->n;
    pd->n = 0;
    for (int i = n; i < RC_LANES; i++) {
        /* Lanes past n repeat piece 0 (never written out). */
        pd->lo[i] = pd->lo[0];
        pd->hi[i] = pd->hi[0];
    }
    const rc_v b = simde_mm256_set1_ps(g->bmin[1]), by = simde_mm256_set1_ps(g->by), zero = simde_mm256_setzero_ps();
    rc_v ymin = simde_mm256_sub_ps(rc8_hmin_each(pd->lo), b);
    rc_v ymax = simde_mm256_sub_ps(rc8_hmax_each(pd->hi), b);
    /* Outside the height range: ymax < 0 or ymin > by. */
    const unsigned out_of = (unsigned)simde_mm256_movemask_ps(simde_mm256_or_ps(
        simde_mm256_cmp_ps(ymax, zero, SIMDE_CMP_LT_OQ), simde_mm256_cmp_ps(ymin, by, SIMDE_CMP_GT_OQ)));
    ymin = simde_mm256_blendv_ps(ymin, zero, simde_mm256_cmp_ps(ymin, zero, SIMDE_CMP_LT_OQ));
    ymax = simde_mm256_blendv_ps(ymax, by, simde_mm256_cmp_ps(ymax, by, SIMDE_CMP_GT_OQ));
    const rc_v ich = simde_mm256_set1_ps(g->ich);
    const rc_v lo = simde_mm256_floor_ps(simde_mm256_mul_ps(ymin, ich));
    const rc_v hi = simde_mm256_ceil_ps(simde_mm256_mul_ps(ymax, ich));
    /* op_clip_trunc_clamp(lo, 0, 0xfffe) and (hi, 0, 0xffff): the values are whole (or
     * ±inf), so clamping in binary32 and truncating gives the same integers. */
    const simde__m256i smin = simde_mm256_cvttps_epi32(
        simde_mm256_min_ps(simde_mm256_max_ps(lo, zero), simde_mm256_set1_ps((float)(0xffff - 1))));
    simde__m256i smax = simde_mm256_cvttps_epi32(simde_mm256_min_ps(simde_mm256_max_ps(hi, zero), simde_mm256_set1_ps((float)0xffff)));
    smax = simde_mm256_max_epi32(smax, simde_mm256_add_epi32(smin, simde_mm256_set1_epi32(1)));
    int32_t lmin[RC_LANES], lmax[RC_LANES];
    simde_mm256_storeu_si256((void *)lmin, smin);
    simde_mm256_storeu_si256((void *)lmax, smax);
    int np = 0;
    for (int i = 0; i < n; i++) {
        if (out_of >> i & 1)
            continue; /* nothing is written for a piece outside the height range */
        out[np].x = pd->x[i];
        out[np].z = pd->z[i];
        out[np].smin = (uint16_t)lmin[i];
        out[np].smax = (uint16_t)lmax[i];
        np++;
    }
    return np;
}

#endif
