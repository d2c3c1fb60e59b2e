/* Vector width and the few u32-lane operations the SIMD kernels use, chosen per ISA
 * (style.md: mirrored files, suffixed symbols). Every SIMD source is compiled once per
 * variant with OP_ISA_SUFFIX (sse2, sse41, avx2, avx512, neon, portable) and
 * OP_VEC_BITS (128, 256, 512) from cmake/simd.cmake. Everything here is static: the
 * same helper compiled at two ISA levels must never be one external symbol (style.md,
 * ODR note). SIMDe lowers these x86 intrinsics to NEON on AArch64 and to plain C under
 * SIMDE_NO_NATIVE (the portable variant), so every variant comes from one source.
 *
 * Lanes are u32 span indices; gathers use signed 32-bit indices, so the kernels fall
 * back to the scalar twins when span_count > OP_SIMD_MAX_SPANS. */
#ifndef OP_SIMD_WIDTH_H
#define OP_SIMD_WIDTH_H

#include "core/kernels.h"

#include <string.h>

#ifndef OP_ISA_SUFFIX
#error "compile src/simd/*.c through cmake/simd.cmake (OP_ISA_SUFFIX)"
#endif
#ifndef OP_VEC_BITS
#define OP_VEC_BITS 128
#endif

#define OP_SIMD_CAT2(a, b) a##_##b
#define OP_SIMD_CAT(a, b) OP_SIMD_CAT2(a, b)
/* Suffixed entry point: OP_FN(op_mutual_links) -> op_mutual_links_avx2. */
#define OP_FN(name) OP_SIMD_CAT(name, OP_ISA_SUFFIX)
/* This variant's entry points, declared from the one signature of each slot
 * (core/kernels.h), so a definition that differs does not compile. */
OP_DECLARE_VARIANT(OP_ISA_SUFFIX);

#define OP_SIMD_MAX_SPANS 0x7fffffffu

/* The gather helpers are larger than GCC's inlining limits but must inline: called
 * out of line, every vector argument goes through memory. */
#if defined(__GNUC__)
#define OP_VINLINE static inline __attribute__((always_inline))
#else
#define OP_VINLINE static inline
#endif

/* Hardware gathers (vpgatherdd) are slow on some cores (AMD Zen: microcoded, several
 * cycles per lane); OP_SIMD_HW_GATHER=0 uses element loads instead. Both are exact. */
#ifndef OP_SIMD_HW_GATHER
#define OP_SIMD_HW_GATHER 0
#endif

#if OP_VEC_BITS == 512
#include <simde/x86/avx512.h>
#include <simde/x86/avx2.h>
#define VW 16
typedef simde__m512i vu32;
static inline vu32 v_load(const uint32_t *p) { return simde_mm512_loadu_si512((const void *)p); }
static inline void v_store(uint32_t *p, vu32 v) { simde_mm512_storeu_si512((void *)p, v); }
static inline vu32 v_set1(uint32_t x) { return simde_mm512_set1_epi32((int32_t)x); }
static inline vu32 v_add(vu32 a, vu32 b) { return simde_mm512_add_epi32(a, b); }
static inline vu32 v_sub(vu32 a, vu32 b) { return simde_mm512_sub_epi32(a, b); }
static inline vu32 v_and(vu32 a, vu32 b) { return simde_mm512_and_si512(a, b); }
static inline vu32 v_or(vu32 a, vu32 b) { return simde_mm512_or_si512(a, b); }
static inline vu32 v_andnot(vu32 a, vu32 b) { return simde_mm512_andnot_si512(a, b); }
static inline vu32 v_eq(vu32 a, vu32 b)
{
    return simde_mm512_movm_epi32(simde_mm512_cmpeq_epi32_mask(a, b));
}
static inline vu32 v_min(vu32 a, vu32 b) { return simde_mm512_min_epu32(a, b); }
static inline vu32 v_max(vu32 a, vu32 b) { return simde_mm512_max_epu32(a, b); }
/* Lane bitmask of the nonzero lanes. */
static inline uint32_t v_nz(vu32 v) { return (uint32_t)simde_mm512_test_epi32_mask(v, v); }
/* From a table: GCC 12 does not fold simde_mm512_setr_epi32 of constants (it builds the
 * vector with 16 masked moves on every call). */
static const uint32_t op_simd_iota16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static inline vu32 v_iota(void) { return simde_mm512_loadu_si512((const void *)op_simd_iota16); }
static inline vu32 v_load_u8(const uint8_t *p)
{
#if defined(SIMDE_X86_AVX512F_NATIVE)
    return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
#else
    simde__m128i b = simde_mm_loadu_si128((const void *)p);
    simde__m256i lo = simde_mm256_cvtepu8_epi32(b);
    simde__m256i hi = simde_mm256_cvtepu8_epi32(simde_mm_srli_si128(b, 8));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
#endif
}
/* Lanes hold values < 256. */
static inline void v_store_u8(uint8_t *p, vu32 v)
{
#if defined(SIMDE_X86_AVX512F_NATIVE)
    _mm_storeu_si128((__m128i *)(void *)p, _mm512_cvtepi32_epi8(v));
#else
    simde__m128i a = simde_mm_packs_epi32(simde_mm512_extracti32x4_epi32(v, 0),
                                          simde_mm512_extracti32x4_epi32(v, 1));
    simde__m128i b = simde_mm_packs_epi32(simde_mm512_extracti32x4_epi32(v, 2),
                                          simde_mm512_extracti32x4_epi32(v, 3));
    simde_mm_storeu_si128((void *)p, simde_mm_packus_epi16(a, b));
#endif
}
/* Lane i of the result is lane perm[i] of v. */
static inline vu32 v_perm(vu32 v, vu32 perm) { return simde_mm512_permutexvar_epi32(perm, v); }
OP_VINLINE vu32 v_gather_raw(const uint32_t *base, vu32 idx)
{
#if !OP_SIMD_HW_GATHER
    uint32_t i[VW];
    v_store(i, idx);
#define G(k) (int32_t)base[i[k]]
    return simde_mm512_setr_epi32(G(0), G(1), G(2), G(3), G(4), G(5), G(6), G(7), G(8), G(9),
                                  G(10), G(11), G(12), G(13), G(14), G(15));
#undef G
#elif defined(SIMDE_X86_AVX512F_NATIVE)
    return _mm512_i32gather_epi32(idx, (const void *)base, 4);
#else
    simde__m256i lo = simde_mm256_i32gather_epi32((const int32_t *)base,
                                                  simde_mm512_castsi512_si256(idx), 4);
    simde__m256i hi = simde_mm256_i32gather_epi32((const int32_t *)base,
                                                  simde_mm512_extracti64x4_epi64(idx, 1), 4);
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
#endif
}

#elif OP_VEC_BITS == 256
#include <simde/x86/avx2.h>
#define VW 8
typedef simde__m256i vu32;
static inline vu32 v_load(const uint32_t *p) { return simde_mm256_loadu_si256((const void *)p); }
static inline void v_store(uint32_t *p, vu32 v) { simde_mm256_storeu_si256((void *)p, v); }
static inline vu32 v_set1(uint32_t x) { return simde_mm256_set1_epi32((int32_t)x); }
static inline vu32 v_add(vu32 a, vu32 b) { return simde_mm256_add_epi32(a, b); }
static inline vu32 v_sub(vu32 a, vu32 b) { return simde_mm256_sub_epi32(a, b); }
static inline vu32 v_and(vu32 a, vu32 b) { return simde_mm256_and_si256(a, b); }
static inline vu32 v_or(vu32 a, vu32 b) { return simde_mm256_or_si256(a, b); }
static inline vu32 v_andnot(vu32 a, vu32 b) { return simde_mm256_andnot_si256(a, b); }
static inline vu32 v_eq(vu32 a, vu32 b) { return simde_mm256_cmpeq_epi32(a, b); }
static inline vu32 v_min(vu32 a, vu32 b) { return simde_mm256_min_epu32(a, b); }
static inline vu32 v_max(vu32 a, vu32 b) { return simde_mm256_max_epu32(a, b); }
static inline uint32_t v_nz(vu32 v)
{
    vu32 z = simde_mm256_cmpeq_epi32(v, simde_mm256_setzero_si256());
    return (uint32_t)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(z)) ^ 0xffu;
}
static inline vu32 v_iota(void) { return simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
static inline vu32 v_load_u8(const uint8_t *p)
{
    return simde_mm256_cvtepu8_epi32(simde_mm_loadl_epi64((const void *)p));
}
static inline void v_store_u8(uint8_t *p, vu32 v)
{
    simde__m128i a = simde_mm_packs_epi32(simde_mm256_castsi256_si128(v),
                                          simde_mm256_extracti128_si256(v, 1));
    simde_mm_storel_epi64((void *)p, simde_mm_packus_epi16(a, a));
}
static inline vu32 v_perm(vu32 v, vu32 perm) { return simde_mm256_permutevar8x32_epi32(v, perm); }
OP_VINLINE vu32 v_gather_raw(const uint32_t *base, vu32 idx)
{
#if !OP_SIMD_HW_GATHER
    uint32_t i[VW];
    v_store(i, idx);
    return simde_mm256_setr_epi32((int32_t)base[i[0]], (int32_t)base[i[1]], (int32_t)base[i[2]],
                                  (int32_t)base[i[3]], (int32_t)base[i[4]], (int32_t)base[i[5]],
                                  (int32_t)base[i[6]], (int32_t)base[i[7]]);
#else
    return simde_mm256_i32gather_epi32((const int32_t *)base, idx, 4);
#endif
}

#else /* 128 */
#include <simde/x86/sse4.1.h>
#define VW 4
typedef simde__m128i vu32;
static inline vu32 v_load(const uint32_t *p) { return simde_mm_loadu_si128((const void *)p); }
static inline void v_store(uint32_t *p, vu32 v) { simde_mm_storeu_si128((void *)p, v); }
static inline vu32 v_set1(uint32_t x) { return simde_mm_set1_epi32((int32_t)x); }
static inline vu32 v_add(vu32 a, vu32 b) { return simde_mm_add_epi32(a, b); }
static inline vu32 v_sub(vu32 a, vu32 b) { return simde_mm_sub_epi32(a, b); }
static inline vu32 v_and(vu32 a, vu32 b) { return simde_mm_and_si128(a, b); }
static inline vu32 v_or(vu32 a, vu32 b) { return simde_mm_or_si128(a, b); }
static inline vu32 v_andnot(vu32 a, vu32 b) { return simde_mm_andnot_si128(a, b); }
static inline vu32 v_eq(vu32 a, vu32 b) { return simde_mm_cmpeq_epi32(a, b); }
static inline vu32 v_min(vu32 a, vu32 b) { return simde_mm_min_epu32(a, b); }
static inline vu32 v_max(vu32 a, vu32 b) { return simde_mm_max_epu32(a, b); }
static inline uint32_t v_nz(vu32 v)
{
    vu32 z = simde_mm_cmpeq_epi32(v, simde_mm_setzero_si128());
    return (uint32_t)simde_mm_movemask_ps(simde_mm_castsi128_ps(z)) ^ 0xfu;
}
static inline vu32 v_iota(void) { return simde_mm_setr_epi32(0, 1, 2, 3); }
static inline vu32 v_load_u8(const uint8_t *p)
{
    int32_t w;
    memcpy(&w, p, 4);
    return simde_mm_cvtepu8_epi32(simde_mm_cvtsi32_si128(w));
}
static inline void v_store_u8(uint8_t *p, vu32 v)
{
    simde__m128i a = simde_mm_packs_epi32(v, v);
    int32_t w = simde_mm_cvtsi128_si32(simde_mm_packus_epi16(a, a));
    memcpy(p, &w, 4);
}
static inline vu32 v_perm(vu32 v, vu32 perm)
{
    uint32_t a[4], p[4], r[4];
    v_store(a, v);
    v_store(p, perm);
    for (int i = 0; i < 4; i++)
        r[i] = a[p[i] & 3];
    return v_load(r);
}
OP_VINLINE vu32 v_gather_raw(const uint32_t *base, vu32 idx)
{
    uint32_t i[4];
    v_store(i, idx);
    return simde_mm_setr_epi32((int32_t)base[i[0]], (int32_t)base[i[1]], (int32_t)base[i[2]],
                               (int32_t)base[i[3]]);
}
#endif

#define V_ALL ((uint32_t)((1ull << VW) - 1))

/* Every SIMD entry point ends with this. AVX code that returns with dirty upper vector
 * halves slows each later non-VEX SSE instruction of the baseline-compiled library (on
 * the build machine the rasterizer ran 1.8x slower after an AVX-512 kernel, in every
 * later bake of the same process); GCC's automatic vzeroupper did not cover every exit
 * of the SIMDe code, so the entry points clear the halves themselves. */
static inline void op_simd_leave(void)
{
#if defined(SIMDE_X86_AVX_NATIVE)
    _mm256_zeroupper();
#endif
}

static inline vu32 v_select(vu32 mask, vu32 a_if0, vu32 b_if1)
{
    return v_or(v_and(mask, b_if1), v_andnot(mask, a_if0));
}
/* Lanes where (v & bit) != 0, as all-ones. */
static inline vu32 v_test(vu32 v, uint32_t bit)
{
    vu32 b = v_set1(bit);
    return v_eq(v_and(v, b), b);
}
/* x + c, staying at UINT32_MAX ("unreached") instead of wrapping. */
static inline vu32 v_sat_add(vu32 x, uint32_t c) { return v_max(v_add(x, v_set1(c)), x); }

static inline uint32_t v_lane0(vu32 v)
{
#if OP_VEC_BITS == 512
    return (uint32_t)simde_mm_cvtsi128_si32(simde_mm512_castsi512_si128(v));
#elif OP_VEC_BITS == 256
    return (uint32_t)simde_mm_cvtsi128_si32(simde_mm256_castsi256_si128(v));
#else
    return (uint32_t)simde_mm_cvtsi128_si32(v);
#endif
}
static inline uint32_t v_lane_last(vu32 v)
{
#if OP_VEC_BITS == 512
    return (uint32_t)simde_mm_extract_epi32(simde_mm512_extracti32x4_epi32(v, 3), 3);
#elif OP_VEC_BITS == 256
    return (uint32_t)simde_mm_extract_epi32(simde_mm256_extracti128_si256(v, 1), 3);
#else
    return (uint32_t)simde_mm_extract_epi32(v, 3);
#endif
}

/* idx[i] == first + i for every lane, with [first, first + VW) inside [0, n). */
OP_VINLINE int v_contiguous(vu32 idx, uint32_t first, uint32_t n)
{
    if (n < VW || first > n - VW)
        return 0;
    return v_nz(v_eq(idx, v_add(v_set1(first), v_iota()))) == V_ALL;
}

/* Where the valid lanes of idx form at most two contiguous runs (idx[i] - i takes the
 * value of lane 0 or of the last lane), i.e. neighbours in a single-floor row with at
 * most one gap: the start of each run, else 0 (gather lane by lane). m0 gets the lanes
 * of the first run. */
OP_VINLINE int v_runs(vu32 idx, vu32 valid, uint32_t n, uint32_t *b0, uint32_t *b1,
                         vu32 *m0)
{
    if (n < VW)
        return 0;
    const vu32 rel = v_sub(idx, v_iota());
    const vu32 inval = v_andnot(valid, v_set1(~0u));
    const uint32_t r0 = v_lane0(rel), r1 = v_lane_last(rel);
    const vu32 e0 = v_eq(rel, v_set1(r0)), e1 = v_eq(rel, v_set1(r1));
    const int ok0 = r0 <= n - VW, ok1 = r1 <= n - VW;
    if (ok0 && v_nz(v_or(e0, inval)) == V_ALL) {
        *b0 = *b1 = r0;
        *m0 = v_set1(~0u);
        return 1;
    }
    if (ok1 && v_nz(v_or(e1, inval)) == V_ALL) {
        *b0 = *b1 = r1;
        *m0 = v_set1(~0u);
        return 1;
    }
    if (ok0 && ok1 && v_nz(v_or(v_or(e0, e1), inval)) == V_ALL) {
        *b0 = r0;
        *b1 = r1;
        *m0 = e0;
        return 2;
    }
    return 0;
}

/* base[idx[i]] on the valid lanes (idx < n there); other lanes get unspecified values
 * that the caller masks. One or two plain loads when the valid lanes form runs
 * (single-floor rows), else lane by lane (invalid lanes read base[0]). */
OP_VINLINE vu32 v_gather(const uint32_t *base, vu32 idx, vu32 valid, uint32_t n)
{
    uint32_t b0, b1;
    vu32 m0;
    const int runs = v_runs(idx, valid, n, &b0, &b1, &m0);
    if (runs == 1)
        return v_load(base + b0);
    if (runs == 2)
        return v_select(m0, v_load(base + b1), v_load(base + b0));
    return v_gather_raw(base, v_and(idx, valid));
}
OP_VINLINE vu32 v_gather_u8_raw(const uint8_t *base, vu32 idx)
{
    uint32_t i[VW];
    v_store(i, idx);
#if VW == 16
#define G(k) (int32_t)base[i[k]]
    return simde_mm512_setr_epi32(G(0), G(1), G(2), G(3), G(4), G(5), G(6), G(7), G(8), G(9),
                                  G(10), G(11), G(12), G(13), G(14), G(15));
#undef G
#elif VW == 8
    return simde_mm256_setr_epi32(base[i[0]], base[i[1]], base[i[2]], base[i[3]], base[i[4]],
                                  base[i[5]], base[i[6]], base[i[7]]);
#else
    return simde_mm_setr_epi32(base[i[0]], base[i[1]], base[i[2]], base[i[3]]);
#endif
}
OP_VINLINE vu32 v_gather_u8(const uint8_t *base, vu32 idx, vu32 valid, uint32_t n)
{
    uint32_t b0, b1;
    vu32 m0;
    const int runs = v_runs(idx, valid, n, &b0, &b1, &m0);
    if (runs == 1)
        return v_load_u8(base + b0);
    if (runs == 2)
        return v_select(m0, v_load_u8(base + b1), v_load_u8(base + b0));
    return v_gather_u8_raw(base, v_and(idx, valid));
}

/* ---- added for labelling (src/simd/label_components.c) ---- */

/* Inclusive prefix maximum over the lanes, unsigned: lane i = max(v[0..i]). Max is
 * idempotent, so the shifted copies may repeat lane 0 instead of filling zeros. Lane
 * constants are loaded from tables: SIMDe's 512-bit setr is not folded by GCC. */
static inline vu32 v_prefix_max(vu32 v)
{
#if OP_VEC_BITS == 128
    v = v_max(v, simde_mm_slli_si128(v, 4));
    return v_max(v, simde_mm_slli_si128(v, 8));
#else
    static const uint32_t shift[4][16] = {
        {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
        {0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
        {0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7},
    };
    for (int k = 0; (1 << k) < VW; k++)
        v = v_max(v, v_perm(v, v_load(shift[k])));
    return v;
#endif
}

/* All-ones in the lanes whose bit is set in bits (the inverse of v_nz on masks). */
static inline vu32 v_from_bits(uint32_t bits)
{
    static const uint32_t lane_bit[16] = {1,    2,    4,    8,     16,    32,    64,    128,
                                          256,  512,  1024, 2048,  4096,  8192,  16384, 32768};
    const vu32 b = v_load(lane_bit);
    return v_eq(v_and(v_set1(bits), b), b);
}

/* ---- Predicted runs (issue 5, edge_classify / mutual_links) --------------------------
 * Along a row the neighbour index of lane i in direction d is nearly always base + i
 * with base moving by VW per block: base = s - 1 for -x in single-floor rows, s - k in
 * rows of k-floor columns, the matching span of the next / previous row for +z / -z.
 * A kernel keeps one predicted base per direction; when the wanted lanes all match it,
 * the neighbours are one unaligned load instead of a gather. */

/* Nonzero when any bit of v is set. */
static inline int v_any(vu32 v)
{
/* ptest only where native: SIMDe 0.7.4's portable simde_mm_testz_si128 answers 1 when
 * either 64-bit half is zero. */
#if OP_VEC_BITS == 512
    return simde_mm512_test_epi32_mask(v, v) != 0;
#elif OP_VEC_BITS == 256 && defined(SIMDE_X86_AVX_NATIVE)
    return !simde_mm256_testz_si256(v, v);
#elif OP_VEC_BITS == 128 && defined(SIMDE_X86_SSE4_1_NATIVE)
    return !simde_mm_testz_si128(v, v);
#else
    return v_nz(v) != 0;
#endif
}

/* base[idx[i]] on the lanes where want is all-ones (idx < n there; n >= VW); other lanes
 * get unspecified values. *pred is the predicted run start: one load when every wanted
 * lane has idx[i] == *pred + i (and the run lies inside [0, n)); else the run of the last
 * wanted lane becomes the prediction, and a window of 16 (AVX2), or one or two loads when
 * the wanted lanes form at most two runs, serve; lane-by-lane loads otherwise. */
OP_VINLINE vu32 v_gather_pred(const uint32_t *base, uint32_t n, vu32 idx, vu32 want,
                              uint32_t *pred)
{
    const uint32_t lim = n - VW, p = *pred;
    if (p <= lim && !v_any(v_andnot(v_eq(idx, v_add(v_set1(p), v_iota())), want)))
        return v_load(base + p);
    const uint32_t wbits = v_nz(want);
    if (!wbits)
        return want; /* no lane wanted: any value, keep the prediction */
    uint32_t li[VW];
    v_store(li, idx);
    const uint32_t f = (uint32_t)__builtin_ctz(wbits), g = 31u - (uint32_t)__builtin_clz(wbits);
    const uint32_t b0 = li[f] - f, b1 = li[g] - g;
    *pred = b1;
#if VW == 8 && defined(SIMDE_X86_AVX2_NATIVE)
    /* A window of 16 elements from just below the first wanted index: two loads and two
     * permutes, whatever the runs (rows of multi-floor columns). */
    const uint32_t q = li[f] >= 4 ? li[f] - 4 : 0;
    if (n >= 16 && q <= n - 16) {
        const __m256i off = _mm256_sub_epi32(idx, _mm256_set1_epi32((int)q));
        const __m256i in = _mm256_cmpeq_epi32(_mm256_min_epu32(off, _mm256_set1_epi32(15)), off);
        if (!v_any(v_andnot(in, want))) {
            const __m256i lo = _mm256_permutevar8x32_epi32(v_load(base + q), off);
            const __m256i hi = _mm256_permutevar8x32_epi32(v_load(base + q + 8), off);
            return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(lo),
                                                        _mm256_castsi256_ps(hi),
                                                        _mm256_castsi256_ps(
                                                            _mm256_slli_epi32(off, 28))));
        }
    }
#endif
    if (b1 <= lim) {
        const vu32 e1 = v_eq(idx, v_add(v_set1(b1), v_iota()));
        const vu32 rest = v_andnot(e1, want);
        if (!v_any(rest))
            return v_load(base + b1);
        if (b0 <= lim &&
            !v_any(v_andnot(v_eq(idx, v_add(v_set1(b0), v_iota())), rest)))
            return v_select(e1, v_load(base + b0), v_load(base + b1));
    }
    return v_gather_raw(base, v_and(idx, want));
}

#if OP_VEC_BITS == 512 && defined(SIMDE_X86_AVX512F_NATIVE)
/* The same with an AVX-512 lane mask. When the prediction misses, the wanted lanes are
 * served from a window of 32 elements starting just below the first wanted index (two
 * loads and a two-source permute: rows with multi-floor columns, where the offsets vary
 * from lane to lane), else by a gather (v_gather_raw). The new prediction is the run of
 * the last wanted lane. */
OP_VINLINE __m512i v_gather_pred_k(const uint32_t *base, uint32_t n, __m512i idx,
                                   __mmask16 want, uint32_t *pred)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const uint32_t lim = n - VW, p = *pred;
    if (p <= lim &&
        !_mm512_mask_cmpneq_epi32_mask(want, idx, _mm512_add_epi32(_mm512_set1_epi32((int)p), iota)))
        return _mm512_loadu_si512((const void *)(base + p));
    if (!want)
        return idx; /* no lane wanted: any value, keep the prediction */
    const uint32_t f = (uint32_t)__builtin_ctz(want), g = 31u - (uint32_t)__builtin_clz(want);
    const uint32_t tf = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(
                       _mm512_permutexvar_epi32(_mm512_set1_epi32((int)f), idx))),
                   tl = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(
                       _mm512_permutexvar_epi32(_mm512_set1_epi32((int)g), idx)));
    *pred = tl - g;
    const uint32_t q = tf >= 4 ? tf - 4 : 0; /* lanes may sit a little below the first */
    if (n >= 32 && q <= n - 32) {
        const __m512i off = _mm512_sub_epi32(idx, _mm512_set1_epi32((int)q));
        if (!_mm512_mask_cmpgt_epu32_mask(want, off, _mm512_set1_epi32(31)))
            return _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(base + q)), off,
                                              _mm512_loadu_si512((const void *)(base + q + 16)));
    }
#if OP_SIMD_HW_GATHER
    return _mm512_mask_i32gather_epi32(idx, want, idx, (const void *)base, 4);
#else
    return v_gather_raw(base, _mm512_maskz_mov_epi32(want, idx));
#endif
}
#endif

/* Loops over the vectors of a multi-vector step must unroll fully, or arrays of vectors
 * live in memory (GCC -O2 does not unroll them by itself). */
#if defined(__GNUC__)
#define V_UNROLL _Pragma("GCC unroll 16")
#else
#define V_UNROLL
#endif

#endif
