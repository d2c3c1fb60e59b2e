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
static inline vu32 v_iota(void)
{
    return simde_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
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
 * idempotent, so the shifted copies may repeat lane 0 instead of filling zeros. */
static inline vu32 v_prefix_max(vu32 v)
{
#if OP_VEC_BITS == 512
    v = v_max(v, v_perm(v, simde_mm512_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                   13, 14)));
    v = v_max(v, v_perm(v, simde_mm512_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                   12, 13)));
    v = v_max(v, v_perm(v, simde_mm512_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                   10, 11)));
    return v_max(v, v_perm(v, simde_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5,
                                                      6, 7)));
#elif OP_VEC_BITS == 256
    v = v_max(v, v_perm(v, simde_mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)));
    v = v_max(v, v_perm(v, simde_mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)));
    return v_max(v, v_perm(v, simde_mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3)));
#else
    v = v_max(v, simde_mm_slli_si128(v, 4));
    return v_max(v, simde_mm_slli_si128(v, 8));
#endif
}

/* All-ones in the lanes whose bit is set in bits (the inverse of v_nz on masks). */
static inline vu32 v_from_bits(uint32_t bits)
{
#if VW == 16
    const vu32 b = simde_mm512_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                          4096, 8192, 16384, 32768);
#elif VW == 8
    const vu32 b = simde_mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
#else
    const vu32 b = simde_mm_setr_epi32(1, 2, 4, 8);
#endif
    return v_eq(v_and(v_set1(bits), b), b);
}

#endif
