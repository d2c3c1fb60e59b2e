/* Row kernels of the spans stage, SIMD twins of src/scalar/spans_rows.c: the ledge
 * filter (supplement §1.4.2) and the link rule (§1.5).
 *
 * Most of an open world is one span per column. Where VW consecutive cells and their
 * neighbours all hold one span, the spans of a row run are consecutive, and so are
 * those of the rows above and below: every neighbour is one unaligned vector load away,
 * and the tests of the scalar twin run on VW cells at once in 32-bit lanes (the same
 * integer comparisons: a span alone in its column has ceiling 0xffff, and so has its
 * neighbour). Any other cell goes through the scalar twin's code, one at a time. */
#include "simd/simd_width.h"
#include "spans/spans_internal.h"

void OP_FN(op_ledge_row)(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                         int32_t walkable_height, int32_t walkable_climb, int all3);
OP_LINK_ROW_FN(OP_FN(op_link_row));

/* u16 lanes widened to u32, signed 32-bit compares and min/max. */
#if OP_VEC_BITS == 512
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
#if defined(SIMDE_X86_AVX512F_NATIVE)
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
#else
    const simde__m256i lo = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
    const simde__m256i hi = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)(p + 8)));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
#endif
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm512_movm_epi32(simde_mm512_cmpgt_epi32_mask(a, b)); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm512_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm512_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m) { return simde_mm512_movepi32_mask(m) == 0xffff; }
#elif OP_VEC_BITS == 256
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
    return simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm256_cmpgt_epi32(a, b); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm256_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm256_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m)
{
    return simde_mm256_movemask_ps(simde_mm256_castsi256_ps(m)) == 0xff;
}
#else
OP_VINLINE vu32 v_load_u16(const uint16_t *p)
{
    return simde_mm_cvtepu16_epi32(simde_mm_loadl_epi64((const void *)p));
}
OP_VINLINE vu32 v_gt(vu32 a, vu32 b) { return simde_mm_cmpgt_epi32(a, b); }
OP_VINLINE vu32 v_smin(vu32 a, vu32 b) { return simde_mm_min_epi32(a, b); }
OP_VINLINE vu32 v_smax(vu32 a, vu32 b) { return simde_mm_max_epi32(a, b); }
OP_VINLINE int v_all(vu32 m) { return simde_mm_movemask_ps(simde_mm_castsi128_ps(m)) == 0xf; }
#endif

/* Lanes whose cell holds one span: cf is a prefix sum (cell_first, onepath/chf.h), the
 * counts its steps cf[i + 1] - cf[i]. */
OP_VINLINE vu32 v_one_step(const uint32_t *cf)
{
    return v_eq(v_sub(v_load(cf + 1), v_load(cf)), v_set1(1));
}

/* Lanes of a run: VW ones. */
#define OP_ALL_LANES ((uint32_t)((1ull << VW) - 1))

/* ---- Ledges ---------------------------------------------------------------------------- */

/* Lanes whose cell holds one span: ends[i] - first[i] = 1. */
OP_VINLINE vu32 v_one_span(const uint32_t *first, const uint32_t *ends)
{
    return v_eq(v_sub(v_load(ends), v_load(first)), v_set1(1));
}

/* Cells [x, x + VW) of row z: the lanes whose cell and four neighbours hold one span
 * each, at the places a run of consecutive spans puts them (bit i for cell x + i).
 * prefix: ends = first + 1 (spans.h), the row's three cells from four loads. */
OP_VINLINE uint32_t ledge_lanes(const uint32_t *first, const uint32_t *ends, size_t c, size_t w,
                                uint32_t s, uint32_t su, uint32_t sd, vu32 iota, int packed,
                                int prefix)
{
    vu32 one;
    if (prefix) {
        const vu32 l0 = v_load(first + c - 1), l1 = v_load(first + c);
        const vu32 l2 = v_load(first + c + 1), l3 = v_load(first + c + 2), v1 = v_set1(1);
        one = v_and(v_and(v_eq(v_sub(l1, l0), v1), v_eq(v_sub(l2, l1), v1)),
                    v_and(v_eq(v_sub(l3, l2), v1),
                          v_and(v_one_step(first + c + w), v_one_step(first + c - w))));
    } else {
        one = v_and(v_and(v_one_span(first + c, ends + c), v_one_span(first + c - 1, ends + c - 1)),
                    v_and(v_one_span(first + c + 1, ends + c + 1),
                          v_and(v_one_span(first + c + w, ends + c + w),
                                v_one_span(first + c - w, ends + c - w))));
    }
    /* Packed (first is the running sum of the counts): in a prefix of such lanes the
     * spans are consecutive, here and in the rows above and below, as in the link
     * kernel. */
    if (packed)
        return v_nz(one);
    const vu32 seq =
        v_and(v_and(v_eq(v_load(first + c), v_add(v_set1(s), iota)),
                    v_eq(v_load(first + c - 1), v_add(v_set1(s - 1), iota))),
              v_and(v_eq(v_load(first + c + 1), v_add(v_set1(s + 1), iota)),
                    v_and(v_eq(v_load(first + c + w), v_add(v_set1(su), iota)),
                          v_eq(v_load(first + c - w), v_add(v_set1(sd), iota)))));
    return v_nz(v_and(one, seq));
}

void OP_FN(op_ledge_row)(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                         int32_t wh, int32_t climb, int all3)
{
    const uint32_t w = hf->width, used = hf->span_used;
    const int packed = hf->packed, prefix = hf->end == NULL;
    const uint32_t *first = hf->first, *ends = op_heightfield_ends(hf);
    const uint16_t *smin = hf->smin, *smax = hf->smax;
    uint8_t *area = hf->area;
    const vu32 iota = v_iota(), top = v_set1(OP_HF_MAX_HEIGHT);
    const vu32 whm1 = v_set1((uint32_t)(wh - 1)), vclimb = v_set1((uint32_t)climb);
    const vu32 nclimb = v_set1((uint32_t)-climb);
    /* all3: the low-height filter, 0xffff - f < wh, in the same lanes (a one-span column
     * has nothing for the low-hanging filter to do); none without (wh > 0xffff - f never
     * holds for f >= 0 when the threshold is 0). */
    const vu32 vwh = v_set1(all3 ? (uint32_t)wh : 0u);
    uint32_t x = x0;
    while (x < x1) {
        const size_t c = (size_t)x + (size_t)z * w;
        uint32_t scalar_cells = 1;
        if (x1 - x >= VW) {
            /* Lanes whose cell, its two row neighbours and the cells above and below hold
             * one span each, those spans consecutive (a packed field has that). A prefix
             * of such lanes runs in the vector (the whole run, or up to the first other
             * cell, when every load stays inside the span arrays); the cells before the
             * next such lane take the scalar code. */
            const uint32_t s = first[c], su = first[c + w], sd = first[c - w];
            const uint32_t m = ledge_lanes(first, ends, c, w, s, su, sd, iota, packed, prefix);
            const uint32_t run = m == OP_ALL_LANES ? VW : (uint32_t)__builtin_ctz(~m);
            if (run > 0 && (run == VW || (s >= 1 && (uint64_t)s + VW + 1 <= used &&
                                          (uint64_t)su + VW <= used &&
                                          (uint64_t)sd + VW <= used))) {
                const vu32 f = v_load_u16(smax + s);
                const uint32_t nb[4] = {s - 1, su, s + 1, sd};
                vu32 ledge = v_set1(0), amin = f, amax = f;
                for (int d = 0; d < 4; d++) {
                    const vu32 nf = v_load_u16(smax + nb[d]), low = v_load_u16(smin + nb[d]);
                    /* Drop into empty space: min(0xffff, low) - f >= wh. */
                    ledge = v_or(ledge, v_gt(v_sub(low, f), whm1));
                    /* Passable: min(0xffff, 0xffff) - max(f, nf) >= wh. */
                    const vu32 pass = v_gt(v_sub(top, v_smax(f, nf)), whm1);
                    const vu32 dy = v_sub(nf, f);
                    ledge = v_or(ledge, v_and(pass, v_gt(nclimb, dy)));
                    const vu32 near = v_andnot(v_or(v_gt(dy, vclimb), v_gt(nclimb, dy)), pass);
                    amin = v_select(near, amin, v_smin(amin, nf));
                    amax = v_select(near, amax, v_smax(amax, nf));
                }
                ledge = v_or(ledge, v_gt(v_sub(amax, amin), vclimb));
                ledge = v_or(ledge, v_gt(vwh, v_sub(top, f)));
                if (run == VW) {
                    v_store_u8(area + s, v_andnot(ledge, v_load_u8(area + s)));
                } else {
                    /* Only the run's own spans: the rest may be another row's (threads). */
                    uint32_t lz[VW];
                    v_store(lz, ledge);
                    for (uint32_t i = 0; i < run; i++)
                        if (lz[i])
                            area[s + i] = OP_NULL_AREA;
                }
                x += run;
                continue;
            }
            if (run == 0)
                scalar_cells = m ? (uint32_t)__builtin_ctz(m) : VW;
        }
        op_ledge_cells(hf, z, x, x + scalar_cells, wh, climb, all3);
        x += scalar_cells;
    }
    op_simd_leave();
}

/* Direction loops over vectors fully unrolled (the vectors stay in registers). */
#if defined(__GNUC__) && !defined(__clang__)
#define OP_UNROLL4 _Pragma("GCC unroll 4")
#elif defined(__clang__)
#define OP_UNROLL4 _Pragma("unroll 4")
#else
#define OP_UNROLL4
#endif

/* ---- Links ------------------------------------------------------------------------------ */

#if VW == 16 && defined(SIMDE_X86_AVX512F_NATIVE) && defined(SIMDE_X86_AVX512BW_NATIVE) &&    \
    defined(SIMDE_X86_AVX512VL_NATIVE)
#define OP_LINK_PAIRS 1
/* A cell of at most 4 spans whose neighbours hold at most 4 spans each (most cells that
 * break a one-span run: every such cell of the demo world), every pair at once: lane
 * 4i + j of one 512-bit vector tests span i of the cell against span j of the
 * neighbour, for one direction. Per span i the link is the lowest passing j (the
 * scalar twin's first match in bottom-up order: a minimum over the lanes of a 128-bit
 * group); its mutual bit is set when i is also the lowest span of the cell passing
 * with that j (a minimum over the groups), as op_link_cells derives it. Masked loads
 * and stores: nothing outside the cell's and the neighbours' spans is read or written. */
static const int32_t op_pair_i[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
static const int32_t op_pair_j[16] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
static const int32_t op_pair_row0[16] = {0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

OP_VINLINE __m128i pair_load4(const uint16_t *p, uint32_t n)
{
    return _mm_cvtepu16_epi32(_mm_maskz_loadu_epi16((__mmask8)((1u << n) - 1), p));
}

/* As pair_load4, u8 values (h). */
OP_VINLINE __m128i pair_load4_u8(const uint8_t *p, uint32_t n)
{
    return _mm_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1), p));
}

/* The cell's spans [s0, s0 + k) (k <= 4): floor and top of span perm[l] in lane l. */
OP_VINLINE void pair_own(const op_chf *chf, uint32_t s0, uint32_t k, __m512i perm, __m512i *sy,
                         __m512i *stop)
{
    const __m128i y = pair_load4(chf->y + s0, k);
    const __m128i top = _mm_add_epi32(y, pair_load4_u8(chf->h + s0, k));
    *sy = _mm512_permutexvar_epi32(perm, _mm512_castsi128_si512(y));
    *stop = _mm512_permutexvar_epi32(perm, _mm512_castsi128_si512(top));
}

/* The link test (op_link_pass) in the lanes of valid: clearance over walkable_height - 1
 * and a step within walkable_climb. */
OP_VINLINE __mmask16 pair_pass(__mmask16 valid, __m512i sy, __m512i stop, __m512i ty,
                               __m512i ttop, __m512i whm1, __m512i vwc, __m512i nwc)
{
    const __m512i gap = _mm512_sub_epi32(_mm512_min_epi32(stop, ttop), _mm512_max_epi32(sy, ty));
    const __m512i dy = _mm512_sub_epi32(ty, sy);
    __mmask16 ok = _mm512_mask_cmpgt_epi32_mask(valid, gap, whm1);
    ok = _mm512_mask_cmple_epi32_mask(ok, dy, vwc);
    return _mm512_mask_cmpge_epi32_mask(ok, dy, nwc);
}

OP_VINLINE void link_cell_pairs(const op_chf *chf, uint32_t s0, uint32_t k, const uint32_t t0[4],
                                const uint32_t m[4], uint8_t *mutual, uint32_t *const link[4],
                                uint32_t r0, __m512i whm1, __m512i vwc, __m512i nwc)
{
    const __m512i vi = _mm512_loadu_si512((const void *)op_pair_i);
    const __m512i vj = _mm512_loadu_si512((const void *)op_pair_j);
    const __m512i row0 = _mm512_loadu_si512((const void *)op_pair_row0);
    const __m512i four = _mm512_set1_epi32(4), none = _mm512_set1_epi32((int32_t)OP_NO_LINK);
    __m512i sy, stop;
    pair_own(chf, s0, k, vi, &sy, &stop);
    const unsigned rows = (1u << (4 * k)) - 1; /* lanes of the cell's spans */
    const __mmask8 kk = (__mmask8)((1u << k) - 1);
    __m512i mv = _mm512_setzero_si512();
    OP_UNROLL4
    for (int d = 0; d < 4; d++) {
        const __m128i ty4 = pair_load4(chf->y + t0[d], m[d]);
        const __m128i ttop4 = _mm_add_epi32(ty4, pair_load4_u8(chf->h + t0[d], m[d]));
        const __m512i ty = _mm512_broadcast_i32x4(ty4), ttop = _mm512_broadcast_i32x4(ttop4);
        const __mmask16 valid = (__mmask16)(rows & (((1u << m[d]) - 1) * 0x1111u));
        const __mmask16 ok = pair_pass(valid, sy, stop, ty, ttop, whm1, vwc, nwc);
        /* Per span i (a 128-bit group) the lowest passing j; 4: none. */
        __m512i lj = _mm512_mask_mov_epi32(four, ok, vj);
        lj = _mm512_min_epi32(lj, _mm512_shuffle_epi32(lj, (_MM_PERM_ENUM)0x4e));
        lj = _mm512_min_epi32(lj, _mm512_shuffle_epi32(lj, (_MM_PERM_ENUM)0xb1));
        /* Per neighbour span j the lowest passing i. */
        __m512i li = _mm512_mask_mov_epi32(four, ok, vi);
        li = _mm512_min_epi32(li, _mm512_shuffle_i32x4(li, li, 0x4e));
        li = _mm512_min_epi32(li, _mm512_shuffle_i32x4(li, li, 0xb1));
        const __mmask16 back =
            _mm512_mask_cmpeq_epi32_mask(_mm512_mask_cmpeq_epi32_mask(ok, lj, vj), li, vi);
        mv = _mm512_mask_or_epi32(mv, back, mv, _mm512_set1_epi32(1 << d));
        const __m512i l = _mm512_mask_add_epi32(none, _mm512_cmplt_epi32_mask(lj, four), lj,
                                                _mm512_set1_epi32((int32_t)t0[d]));
        _mm_mask_storeu_epi32(link[d] + (s0 - r0), kk,
                              _mm512_castsi512_si128(_mm512_permutexvar_epi32(row0, l)));
    }
    if (mutual) {
        mv = _mm512_or_si512(mv, _mm512_shuffle_epi32(mv, (_MM_PERM_ENUM)0x4e));
        mv = _mm512_or_si512(mv, _mm512_shuffle_epi32(mv, (_MM_PERM_ENUM)0xb1));
        _mm_mask_storeu_epi8(mutual + s0, (__mmask16)kk,
                             _mm512_cvtepi32_epi8(_mm512_permutexvar_epi32(row0, mv)));
    }
}

/* A cell of at most 2 spans whose neighbours hold at most 2 spans each (most of the
 * cells above), all four directions in one vector: lane 4d + 2i + j tests span i of the
 * cell against span j of the neighbour in direction d; the link and the mutual bit as in
 * link_cell_pairs. */
static const int32_t op_pair2_i[16] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1};
static const int32_t op_pair2_j[16] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
static const int32_t op_pair2_t[16] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7};
static const int32_t op_pair2_d[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
static const int32_t op_pair2_bit[16] = {1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8};
static const int32_t op_pair2_row0[16] = {0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0};

/* The spans [p[d], p[d] + m[d]) (m[d] <= 2) of the four neighbours as 8 u32 lanes 2d + j
 * (0 past m[d]). */
OP_VINLINE __m256i pair2_load(const uint16_t *base, const uint32_t t0[4], const uint32_t m[4])
{
    __m128i a[4];
    OP_UNROLL4
    for (int d = 0; d < 4; d++)
        a[d] = _mm_maskz_loadu_epi16((__mmask8)((1u << m[d]) - 1), base + t0[d]);
    const __m128i lo = _mm_unpacklo_epi32(a[0], a[1]), hi = _mm_unpacklo_epi32(a[2], a[3]);
    return _mm256_cvtepu16_epi32(_mm_unpacklo_epi64(lo, hi));
}

/* As pair2_load, u8 values (h). */
OP_VINLINE __m256i pair2_load_u8(const uint8_t *base, const uint32_t t0[4], const uint32_t m[4])
{
    __m128i a[4];
    OP_UNROLL4
    for (int d = 0; d < 4; d++)
        a[d] = _mm_maskz_loadu_epi8((__mmask16)((1u << m[d]) - 1), base + t0[d]);
    const __m128i lo = _mm_unpacklo_epi16(a[0], a[1]), hi = _mm_unpacklo_epi16(a[2], a[3]);
    return _mm256_cvtepu8_epi32(_mm_unpacklo_epi32(lo, hi));
}

OP_VINLINE void link_cell_pairs2(const op_chf *chf, uint32_t s0, uint32_t k, const uint32_t t0[4],
                                 const uint32_t m[4], uint8_t *mutual, uint32_t *const link[4],
                                 uint32_t r0, __m512i whm1, __m512i vwc, __m512i nwc)
{
    const __m512i vi = _mm512_loadu_si512((const void *)op_pair2_i);
    const __m512i vj = _mm512_loadu_si512((const void *)op_pair2_j);
    const __m512i two = _mm512_set1_epi32(2), none = _mm512_set1_epi32((int32_t)OP_NO_LINK);
    __m512i sy, stop;
    pair_own(chf, s0, k, vi, &sy, &stop);
    const __m256i ty8 = pair2_load(chf->y, t0, m);
    const __m256i ttop8 = _mm256_add_epi32(ty8, pair2_load_u8(chf->h, t0, m));
    const __m512i tperm = _mm512_loadu_si512((const void *)op_pair2_t);
    const __m512i ty = _mm512_permutexvar_epi32(tperm, _mm512_castsi256_si512(ty8));
    const __m512i ttop = _mm512_permutexvar_epi32(tperm, _mm512_castsi256_si512(ttop8));
    /* Lane 4d + 2i + j valid for i < k, j < m[d]. */
    static const uint8_t cols[3] = {0x0, 0x5, 0xf};
    const unsigned rows = k == 2 ? 0xfu : 0x3u;
    const __mmask16 valid = (__mmask16)((rows & cols[m[0]]) | (rows & cols[m[1]]) << 4 |
                                        (rows & cols[m[2]]) << 8 | (rows & cols[m[3]]) << 12);
    const __mmask16 ok = pair_pass(valid, sy, stop, ty, ttop, whm1, vwc, nwc);
    /* Per (d, i) the lowest passing j (2: none); per (d, j) the lowest passing i. */
    __m512i lj = _mm512_mask_mov_epi32(two, ok, vj);
    lj = _mm512_min_epi32(lj, _mm512_shuffle_epi32(lj, (_MM_PERM_ENUM)0xb1));
    __m512i li = _mm512_mask_mov_epi32(two, ok, vi);
    li = _mm512_min_epi32(li, _mm512_shuffle_epi32(li, (_MM_PERM_ENUM)0x4e));
    const __m512i vt0 = _mm512_permutexvar_epi32(
        _mm512_loadu_si512((const void *)op_pair2_d),
        _mm512_castsi128_si512(_mm_loadu_si128((const void *)t0)));
    const __m512i l = _mm512_mask_add_epi32(none, _mm512_cmplt_epi32_mask(lj, two), lj, vt0);
    const __m512i row0 = _mm512_loadu_si512((const void *)op_pair2_row0);
    const __m512i l8 = _mm512_permutexvar_epi32(row0, l); /* lanes 2d + i */
    const __m128i l01 = _mm512_castsi512_si128(l8), l23 = _mm512_extracti32x4_epi32(l8, 1);
    const __mmask8 kk = (__mmask8)((1u << k) - 1);
    _mm_mask_storeu_epi32(link[0] + (s0 - r0), kk, l01);
    _mm_mask_storeu_epi32(link[1] + (s0 - r0), kk, _mm_unpackhi_epi64(l01, l01));
    _mm_mask_storeu_epi32(link[2] + (s0 - r0), kk, l23);
    _mm_mask_storeu_epi32(link[3] + (s0 - r0), kk, _mm_unpackhi_epi64(l23, l23));
    if (mutual) {
        const __mmask16 back =
            _mm512_mask_cmpeq_epi32_mask(_mm512_mask_cmpeq_epi32_mask(ok, lj, vj), li, vi);
        __m512i mv = _mm512_maskz_mov_epi32(back, _mm512_loadu_si512((const void *)op_pair2_bit));
        mv = _mm512_or_si512(mv, _mm512_shuffle_epi32(mv, (_MM_PERM_ENUM)0xb1));
        mv = _mm512_or_si512(mv, _mm512_shuffle_i32x4(mv, mv, 0x4e));
        mv = _mm512_or_si512(mv, _mm512_shuffle_i32x4(mv, mv, 0xb1));
        /* Lanes 0 and 2: spans 0 and 1. */
        _mm_mask_storeu_epi8(mutual + s0, (__mmask16)kk,
                             _mm512_cvtepi32_epi8(_mm512_permutexvar_epi32(row0, mv)));
    }
}
#endif

/* The cells [xa, xb) of row z, none on the grid's border: per cell and direction the
 * neighbour's spans (at most VW) are loaded once into the lanes, and each span of the cell
 * tests them all at once; the lowest passing lane is the link (the scalar twin's first
 * match in bottom-up order). The mutual bits as op_link_cells derives them: a passing
 * lane that a lower span of the cell also passed links back to that lower span. A cell
 * whose neighbour holds more than VW spans, or whose loads would leave the arrays, takes
 * the scalar code. */
static void link_cells_lanes(const op_chf *chf, uint32_t z, uint32_t xa, uint32_t xb,
                             uint8_t *mutual, uint32_t *const link[4], vu32 whm1, vu32 vwc,
                             vu32 nwc)
{
    const uint32_t w = chf->width, n = chf->span_count;
    const uint32_t *cf = chf->cell_first; /* cell c: [cf[c], cf[c + 1]) */
    const uint16_t *Y = chf->y;
    const uint8_t *H = chf->h;
    const uint32_t r0 = cf[(size_t)z * w]; /* link[d][s - r0] */
    for (uint32_t x = xa; x < xb; x++) {
        const size_t c = (size_t)x + (size_t)z * w;
        const uint32_t s0 = cf[c], s1 = cf[c + 1];
        if (s0 == s1)
            continue;
        const size_t nc[4] = {c - 1, c + w, c + 1, c - w};
#if OP_LINK_PAIRS
        {
            const uint32_t t0p[4] = {cf[nc[0]], cf[nc[1]], cf[nc[2]], cf[nc[3]]};
            const uint32_t mp[4] = {s0 - t0p[0], cf[nc[1] + 1] - t0p[1], cf[nc[2] + 1] - s1,
                                    cf[nc[3] + 1] - t0p[3]};
            if ((s1 - s0 <= 2) & (mp[0] <= 2) & (mp[1] <= 2) & (mp[2] <= 2) & (mp[3] <= 2)) {
                link_cell_pairs2(chf, s0, s1 - s0, t0p, mp, mutual, link, r0, whm1, vwc, nwc);
                continue;
            }
            if ((s1 - s0 <= 4) & (mp[0] <= 4) & (mp[1] <= 4) & (mp[2] <= 4) & (mp[3] <= 4)) {
                link_cell_pairs(chf, s0, s1 - s0, t0p, mp, mutual, link, r0, whm1, vwc, nwc);
                continue;
            }
        }
#endif
        uint32_t t0[4], valid[4];
        int fits = 1;
        for (int d = 0; d < 4; d++) {
            t0[d] = cf[nc[d]];
            const uint32_t m = cf[nc[d] + 1] - t0[d];
            fits &= (m <= VW) & ((uint64_t)t0[d] + VW <= n);
            valid[d] = (uint32_t)((1ull << (m <= VW ? m : 0)) - 1);
        }
        if (!fits) {
            op_link_cells(chf, z, x, x + 1, mutual, link);
            continue;
        }
        vu32 ty[4], ttop[4];
        OP_UNROLL4
        for (int d = 0; d < 4; d++) {
            ty[d] = v_load_u16(Y + t0[d]);
            ttop[d] = v_add(ty[d], v_load_u8(H + t0[d]));
        }
        uint32_t below[4] = {0, 0, 0, 0}; /* lanes a lower span of the cell passed */
        for (uint32_t s = s0; s < s1; s++) {
            const vu32 sy = v_set1(Y[s]), stop = v_set1((uint32_t)Y[s] + H[s]);
            unsigned mb = 0;
            OP_UNROLL4
            for (int d = 0; d < 4; d++) {
                const vu32 gap = v_sub(v_smin(stop, ttop[d]), v_smax(sy, ty[d]));
                const vu32 dy = v_sub(ty[d], sy);
                const vu32 ok = v_andnot(v_or(v_gt(dy, vwc), v_gt(nwc, dy)), v_gt(gap, whm1));
                const uint32_t bits = v_nz(ok) & valid[d];
                const uint32_t low = bits & (0u - bits);
                link[d][s - r0] = bits ? t0[d] + (uint32_t)__builtin_ctz(bits) : OP_NO_LINK;
                mb |= (unsigned)(low && !(below[d] & low)) << d;
                below[d] |= bits;
            }
            if (mutual)
                mutual[s] = (uint8_t)mb;
        }
    }
}

/* The first n < VW lanes of v to p[0 .. n) (a one-span run cut short; lanes past n are
 * other cells' spans, maybe another thread's row). AVX-512: one masked store (the
 * element loop cost ~7 % of the link pass, demo-1024, docs/decisions/spans-speed.md). */
OP_VINLINE void store_run(uint32_t *p, vu32 v, uint32_t n)
{
#if defined(SIMDE_X86_AVX512F_NATIVE) && VW == 16
    _mm512_mask_storeu_epi32(p, (__mmask16)((1u << n) - 1), v);
#else
    uint32_t tmp[VW];
    v_store(tmp, v);
    for (uint32_t i = 0; i < n; i++)
        p[i] = tmp[i];
#endif
}

/* As store_run, the lanes' low bytes. */
OP_VINLINE void store_run_u8(uint8_t *p, vu32 v, uint32_t n)
{
#if defined(SIMDE_X86_AVX512BW_NATIVE) && defined(SIMDE_X86_AVX512VL_NATIVE) && VW == 16
    _mm_mask_storeu_epi8(p, (__mmask16)((1u << n) - 1), _mm512_cvtepi32_epi8(v));
#else
    uint32_t tmp[VW];
    v_store(tmp, v);
    for (uint32_t i = 0; i < n; i++)
        p[i] = (uint8_t)tmp[i];
#endif
}

#if OP_LINK_PAIRS
/* The span counts of 16 cells from cf = cell_first + the first: the prefix sum's steps. */
OP_VINLINE __m512i counts16(const uint32_t *cf)
{
    return _mm512_sub_epi32(_mm512_loadu_si512((const void *)(cf + 1)),
                            _mm512_loadu_si512((const void *)cf));
}

/* Lanes whose cell and four neighbours hold at most one span each (bit i: cell c + i). */
OP_VINLINE uint32_t lanes_01(const uint32_t *cf, size_t c, size_t w)
{
    const __m512i one = _mm512_set1_epi32(1);
    return (uint32_t)(_mm512_cmple_epu32_mask(counts16(cf + c), one) &
                      _mm512_cmple_epu32_mask(counts16(cf + c - 1), one) &
                      _mm512_cmple_epu32_mask(counts16(cf + c + 1), one) &
                      _mm512_cmple_epu32_mask(counts16(cf + c + w), one) &
                      _mm512_cmple_epu32_mask(counts16(cf + c - w), one));
}

/* The u16 values of the lanes in has (cells holding one span, in a run of cells holding
 * at most one): they are consecutive from p, one per lane of has in lane order (the cells
 * between hold none). A masked load of exactly those, spread by an expand. */
OP_VINLINE __m512i load_spread_u16(const uint16_t *p, __mmask16 has)
{
    const unsigned k = (unsigned)__builtin_popcount((unsigned)has);
    const __m256i v = _mm256_maskz_loadu_epi16((__mmask16)((1u << k) - 1), p);
    return _mm512_maskz_expand_epi32(has, _mm512_cvtepu16_epi32(v));
}

/* As load_spread_u16, u8 values (h). */
OP_VINLINE __m512i load_spread_u8(const uint8_t *p, __mmask16 has)
{
    const unsigned k = (unsigned)__builtin_popcount((unsigned)has);
    const __m128i v = _mm_maskz_loadu_epi8((__mmask16)((1u << k) - 1), p);
    return _mm512_maskz_expand_epi32(has, _mm512_cvtepu8_epi32(v));
}

/* The cells c + i, i in run (a prefix of the lanes), each of which and each of whose
 * neighbours holds at most one span (the empty cells of an open world: steep ground,
 * eroded edges; they would cut a one-span run). As the one-span runs, with the spans
 * spread into the cells' lanes: the cell's own (from cell_first[c]) and every
 * direction's (from the neighbour's cell_first; the link is that cell's cell_first).
 * A link needs spans on both sides, and with one span each it is mutual. The lanes of
 * cells that hold a span are compressed back to the cell's spans [s, s + k) and stored
 * with a mask: nothing else is read or written. */
static void link_run01(const op_chf *chf, size_t c, size_t w, __mmask16 run, uint8_t *mutual,
                       uint32_t *const link[4], uint32_t r0, __m512i whm1, __m512i vwc, __m512i nwc)
{
    const uint32_t *cf = chf->cell_first;
    const __m512i one = _mm512_set1_epi32(1), none = _mm512_set1_epi32((int)OP_NO_LINK);
    const __mmask16 self = _mm512_mask_cmpeq_epi32_mask(run, counts16(cf + c), one);
    const uint32_t s = cf[c];
    const __mmask16 km = (__mmask16)((1u << __builtin_popcount((unsigned)self)) - 1);
    const __m512i sy = load_spread_u16(chf->y + s, self);
    const __m512i stop = _mm512_add_epi32(sy, load_spread_u8(chf->h + s, self));
    const size_t nc[4] = {c - 1, c + w, c + 1, c - w};
    __m512i mb = _mm512_setzero_si512();
    OP_UNROLL4
    for (int d = 0; d < 4; d++) {
        const __mmask16 has = _mm512_mask_cmpeq_epi32_mask(run, counts16(cf + nc[d]), one);
        const uint32_t t0 = cf[nc[d]];
        const __m512i ty = load_spread_u16(chf->y + t0, has);
        const __m512i ttop = _mm512_add_epi32(ty, load_spread_u8(chf->h + t0, has));
        const __m512i gap = _mm512_sub_epi32(_mm512_min_epi32(stop, ttop), _mm512_max_epi32(sy, ty));
        const __m512i dy = _mm512_sub_epi32(ty, sy);
        const __mmask16 ok = _mm512_mask_cmpgt_epi32_mask(has & self, gap, whm1) &
                             _mm512_cmple_epi32_mask(dy, vwc) & _mm512_cmple_epi32_mask(nwc, dy);
        const __m512i l =
            _mm512_mask_mov_epi32(none, ok, _mm512_loadu_si512((const void *)(cf + nc[d])));
        mb = _mm512_mask_or_epi32(mb, ok, mb, _mm512_set1_epi32(1 << d));
        _mm512_mask_storeu_epi32(link[d] + (s - r0), km, _mm512_maskz_compress_epi32(self, l));
    }
    if (mutual)
        _mm_mask_storeu_epi8(mutual + s, km,
                             _mm512_cvtepi32_epi8(_mm512_maskz_compress_epi32(self, mb)));
}
#endif

OP_LINK_ROW_FN(OP_FN(op_link_row))
{
    const uint32_t w = chf->width, dpt = chf->depth;
    if (z == 0 || z + 1 >= dpt || w < 3) {
        op_link_cells(chf, z, 0, w, mutual, link);
        return;
    }
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    const uint32_t *cf = chf->cell_first; /* counts are its steps (v_one_step) */
    const uint32_t n = chf->span_count;
    const uint16_t *Y = chf->y;
    const uint8_t *H = chf->h;
    const vu32 iota = v_iota(), whm1 = v_set1((uint32_t)(wh - 1)), vwc = v_set1((uint32_t)wc);
    const vu32 nwc = v_set1((uint32_t)-wc), none = v_set1(OP_NO_LINK);
    const vu32 bit[4] = {v_set1(1), v_set1(2), v_set1(4), v_set1(8)};
    const uint32_t r0 = cf[(size_t)z * w];     /* link[d][s - r0] */
    op_link_cells(chf, z, 0, 1, mutual, link); /* the first cell: -x is off the grid */
    uint32_t x = 1;
    while (x < w - 1) {
        const size_t c = (size_t)x + (size_t)z * w;
        uint32_t scalar_cells = 1;
        if (w - 1 - x >= VW) {
            /* Lanes whose cell and four neighbours hold one span each. cell_first is a
             * prefix sum: in a prefix of such lanes the spans are consecutive, and so are
             * those of the rows above and below. The prefix runs in the vector (when
             * every load stays inside the arrays), the cells before the next such lane
             * take the per-cell lanes. */
            const uint32_t m =
                v_nz(v_and(v_and(v_one_step(cf + c), v_one_step(cf + c - 1)),
                           v_and(v_one_step(cf + c + 1),
                                 v_and(v_one_step(cf + c + w), v_one_step(cf + c - w)))));
            const uint32_t run = m == OP_ALL_LANES ? VW : (uint32_t)__builtin_ctz(~m);
#if OP_LINK_PAIRS
            if (run < VW) {
                /* Cut short: the prefix of cells holding at most one span (a superset). */
                const uint32_t m01 = lanes_01(cf, c, w);
                const uint32_t r01 = m01 == OP_ALL_LANES ? VW : (uint32_t)__builtin_ctz(~m01);
                if (r01 > 0) {
                    link_run01(chf, c, w, (__mmask16)((1u << r01) - 1), mutual, link, r0, whm1, vwc,
                               nwc);
                    x += r01;
                    continue;
                }
                link_cells_lanes(chf, z, x, x + (m01 ? (uint32_t)__builtin_ctz(m01) : VW), mutual,
                                 link, whm1, vwc, nwc);
                x += m01 ? (uint32_t)__builtin_ctz(m01) : VW;
                continue;
            }
#endif
            const uint32_t s = cf[c], su = cf[c + w], sd = cf[c - w];
            if (run > 0 && (run == VW || (s >= 1 && (uint64_t)s + VW + 1 <= n &&
                                          (uint64_t)su + VW <= n && (uint64_t)sd + VW <= n))) {
                const vu32 sy = v_load_u16(Y + s), stop = v_add(sy, v_load_u8(H + s));
                const uint32_t nb[4] = {s - 1, su, s + 1, sd};
                vu32 mb = v_set1(0);
                OP_UNROLL4
                for (int d = 0; d < 4; d++) {
                    const vu32 ty = v_load_u16(Y + nb[d]);
                    const vu32 ttop = v_add(ty, v_load_u8(H + nb[d]));
                    const vu32 gap = v_sub(v_smin(stop, ttop), v_smax(sy, ty));
                    const vu32 dy = v_sub(ty, sy);
                    const vu32 ok = v_andnot(v_or(v_gt(dy, vwc), v_gt(nwc, dy)), v_gt(gap, whm1));
                    const vu32 l = v_select(ok, none, v_add(v_set1(nb[d]), iota));
                    /* One span per cell on both sides: every link is mutual. */
                    mb = v_or(mb, v_and(ok, bit[d]));
                    if (run == VW)
                        v_store(link[d] + (s - r0), l);
                    else /* only the run's own spans: the rest may be another row's */
                        store_run(link[d] + (s - r0), l, run);
                }
                if (mutual) {
                    if (run == VW)
                        v_store_u8(mutual + s, mb);
                    else
                        store_run_u8(mutual + s, mb, run);
                }
                x += run;
                continue;
            }
            if (run == 0)
                scalar_cells = m ? (uint32_t)__builtin_ctz(m) : VW;
        } else {
            scalar_cells = w - 1 - x;
        }
        link_cells_lanes(chf, z, x, x + scalar_cells, mutual, link, whm1, vwc, nwc);
        x += scalar_cells;
    }
    op_link_cells(chf, z, w - 1, w, mutual, link); /* the last cell: +x is off the grid */
    op_simd_leave();
}
