/* u16 lanes in the same registers as simd_width.h's u32 lanes: HW = 2 * VW lanes per
 * vector (8 for 128-bit variants, 16 for AVX2, 32 for AVX-512). Used by the distance
 * field, whose distances fit 16 bits on real fields (src/simd/distance_field.c).
 * Everything is static, as in simd_width.h. Lane masks are uint32_t, bit i = lane i. */
#ifndef OP_SIMD_U16_H
#define OP_SIMD_U16_H

#include "simd/simd_width.h"

#define HW (2 * VW)
#define H_ALL ((uint32_t)((1ull << HW) - 1))

typedef vu32 vh; /* HW u16 lanes */

#if OP_VEC_BITS == 512
static const uint16_t op_h_iota32[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                         11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                         22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
static inline vh h_load(const uint16_t *p) { return simde_mm512_loadu_si512((const void *)p); }
static inline void h_store(uint16_t *p, vh v) { simde_mm512_storeu_si512((void *)p, v); }
static inline vh h_set1(uint16_t x) { return simde_mm512_set1_epi16((int16_t)x); }
static inline vh h_min(vh a, vh b) { return simde_mm512_min_epu16(a, b); }
static inline vh h_adds(vh a, vh b) { return simde_mm512_adds_epu16(a, b); }
static inline vh h_subs(vh a, vh b) { return simde_mm512_subs_epu16(a, b); }
/* (SIMDe 0.7.4 has no cmpeq_epi16_mask: equal lanes are those where a ^ b is 0.) */
static inline uint32_t h_eqmask(vh a, vh b)
{
    const vh x = simde_mm512_xor_si512(a, b);
    return ~(uint32_t)simde_mm512_test_epi16_mask(x, x);
}
static inline vh h_eq(vh a, vh b) { return simde_mm512_movm_epi16((simde__mmask32)h_eqmask(a, b)); }
/* H_LB bits per lane of a compare result: lane i is bits [i H_LB, (i + 1) H_LB). */
#define H_LB 1
static inline uint32_t h_bits(vh v) { return (uint32_t)simde_mm512_movepi16_mask(v); }
static inline vh h_from_mask(uint32_t m) { return simde_mm512_movm_epi16((simde__mmask32)m); }
/* Lanes of HW bytes at p equal to x. */
static inline uint32_t h_u8eqmask(const uint8_t *p, uint8_t x)
{
    const simde__m256i b = simde_mm256_loadu_si256((const void *)p);
    return (uint32_t)simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(b, simde_mm256_set1_epi8((int8_t)x)));
}
/* Lane i of the result is lane i - m (up) or i + m (down) of v, 0 where that is outside. */
static inline vh h_shift_up(vh v, uint32_t m)
{
    const simde__m512i idx = simde_mm512_sub_epi16(
        simde_mm512_loadu_si512((const void *)op_h_iota32), simde_mm512_set1_epi16((int16_t)m));
    return simde_mm512_maskz_permutexvar_epi16((simde__mmask32)(H_ALL << m), idx, v);
}
static inline vh h_shift_down(vh v, uint32_t m)
{
    const simde__m512i idx = simde_mm512_add_epi16(
        simde_mm512_loadu_si512((const void *)op_h_iota32), simde_mm512_set1_epi16((int16_t)m));
    return simde_mm512_maskz_permutexvar_epi16((simde__mmask32)(H_ALL >> m), idx, v);
}
/* u16 -> u32 of lanes [0, HW/2) and [HW/2, HW). */
/* (no cvtepu16_epi32 in SIMDe 0.7.4: two 256-bit ones per half) */
static inline vu32 h_widen_q(simde__m128i a, simde__m128i b)
{
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(simde_mm256_cvtepu16_epi32(a)),
                                   simde_mm256_cvtepu16_epi32(b), 1);
}
static inline vu32 h_widen_lo(vh v)
{
    return h_widen_q(simde_mm512_extracti32x4_epi32(v, 0), simde_mm512_extracti32x4_epi32(v, 1));
}
static inline vu32 h_widen_hi(vh v)
{
    return h_widen_q(simde_mm512_extracti32x4_epi32(v, 2), simde_mm512_extracti32x4_epi32(v, 3));
}

#elif OP_VEC_BITS == 256
static inline vh h_load(const uint16_t *p) { return simde_mm256_loadu_si256((const void *)p); }
static inline void h_store(uint16_t *p, vh v) { simde_mm256_storeu_si256((void *)p, v); }
static inline vh h_set1(uint16_t x) { return simde_mm256_set1_epi16((int16_t)x); }
static inline vh h_min(vh a, vh b) { return simde_mm256_min_epu16(a, b); }
static inline vh h_adds(vh a, vh b) { return simde_mm256_adds_epu16(a, b); }
static inline vh h_subs(vh a, vh b) { return simde_mm256_subs_epu16(a, b); }
static inline vh h_eq(vh a, vh b) { return simde_mm256_cmpeq_epi16(a, b); }
#if defined(__AVX512BW__) && defined(__AVX512VL__) && defined(SIMDE_X86_AVX2_NATIVE)
/* The AVX-512 variant's 256-bit vectors (src/simd/distance_field.c): lane masks live
 * in mask registers (AVX-512VL/BW), one bit per lane. */
#include <immintrin.h>
#define H_MASKREGS 1
#define H_LB 1
static inline uint32_t h_bits(vh v) { return (uint32_t)_mm256_movepi16_mask(v); }
static inline uint32_t h_eqmask(vh a, vh b) { return (uint32_t)_mm256_cmpeq_epi16_mask(a, b); }
static inline vh h_from_mask(uint32_t m) { return _mm256_movm_epi16((__mmask16)m); }
/* Lanes of mask m: min(a, b); the others: a. */
static inline vh h_min_mask(vh a, uint32_t m, vh b) { return _mm256_mask_min_epu16(a, (__mmask16)m, a, b); }
#else
#define H_LB 2
static inline uint32_t h_bits(vh v) { return (uint32_t)simde_mm256_movemask_epi8(v); }
static inline uint32_t h_eqmask(vh a, vh b)
{
    /* bytes: lanes 0-7, 0-7, 8-15, 8-15 (packs works per 128-bit half) */
    const vh e = simde_mm256_cmpeq_epi16(a, b);
    const uint32_t m = (uint32_t)simde_mm256_movemask_epi8(simde_mm256_packs_epi16(e, e));
    return (m & 0xffu) | (m >> 8 & 0xff00u);
}
static inline vh h_from_mask(uint32_t m)
{
    static const uint16_t bit[16] = {1,    2,    4,    8,    16,    32,    64,    128,
                                     256,  512,  1024, 2048, 4096,  8192,  16384, 32768};
    const vh b = simde_mm256_loadu_si256((const void *)bit);
    return simde_mm256_cmpeq_epi16(simde_mm256_and_si256(simde_mm256_set1_epi16((int16_t)m), b), b);
}
#endif
static inline uint32_t h_u8eqmask(const uint8_t *p, uint8_t x)
{
    const simde__m128i b = simde_mm_loadu_si128((const void *)p);
    return (uint32_t)simde_mm_movemask_epi8(simde_mm_cmpeq_epi8(b, simde_mm_set1_epi8((int8_t)x)));
}
/* The byte shifts take immediates: one case per lane count. */
#define OP_H_UP(m)                                                                             \
    case m:                                                                                    \
        return m < 8 ? simde_mm256_alignr_epi8(v, t, (16 - 2 * (m)) & 15)                      \
                     : simde_mm256_slli_si256(t, (2 * ((m)-8)) & 15);
#define OP_H_DOWN(m)                                                                           \
    case m:                                                                                    \
        return m < 8 ? simde_mm256_alignr_epi8(t, v, (2 * (m)) & 15)                           \
                     : simde_mm256_srli_si256(t, (2 * ((m)-8)) & 15);
static inline vh h_shift_up(vh v, uint32_t m)
{
    const vh t = simde_mm256_permute2x128_si256(v, v, 0x08); /* [0, v.lo] */
    switch (m) {
        OP_H_UP(1) OP_H_UP(2) OP_H_UP(3) OP_H_UP(4) OP_H_UP(5) OP_H_UP(6) OP_H_UP(7)
        OP_H_UP(8) OP_H_UP(9) OP_H_UP(10) OP_H_UP(11) OP_H_UP(12) OP_H_UP(13) OP_H_UP(14)
        OP_H_UP(15)
    }
    return m ? simde_mm256_setzero_si256() : v;
}
static inline vh h_shift_down(vh v, uint32_t m)
{
    const vh t = simde_mm256_permute2x128_si256(v, v, 0x81); /* [v.hi, 0] */
    switch (m) {
        OP_H_DOWN(1) OP_H_DOWN(2) OP_H_DOWN(3) OP_H_DOWN(4) OP_H_DOWN(5) OP_H_DOWN(6)
        OP_H_DOWN(7) OP_H_DOWN(8) OP_H_DOWN(9) OP_H_DOWN(10) OP_H_DOWN(11) OP_H_DOWN(12)
        OP_H_DOWN(13) OP_H_DOWN(14) OP_H_DOWN(15)
    }
    return m ? simde_mm256_setzero_si256() : v;
}
#undef OP_H_UP
#undef OP_H_DOWN
/* The block at s - 1 (up) or s + 1 (down) from the block at s (cur) and its neighbour
 * block (prev: at s - HW; next: at s + HW), without a load (src/simd/distance_field.c). */
#define H_CHAIN 1
static inline vh h_chain_up(vh cur, vh prev)
{
    return simde_mm256_alignr_epi8(cur, simde_mm256_permute2x128_si256(prev, cur, 0x21), 14);
}
static inline vh h_chain_down(vh cur, vh next)
{
    return simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256(cur, next, 0x21), cur, 2);
}
static inline vu32 h_widen_lo(vh v) { return simde_mm256_cvtepu16_epi32(simde_mm256_castsi256_si128(v)); }
static inline vu32 h_widen_hi(vh v) { return simde_mm256_cvtepu16_epi32(simde_mm256_extracti128_si256(v, 1)); }

#else /* 128 */
static inline vh h_load(const uint16_t *p) { return simde_mm_loadu_si128((const void *)p); }
static inline void h_store(uint16_t *p, vh v) { simde_mm_storeu_si128((void *)p, v); }
static inline vh h_set1(uint16_t x) { return simde_mm_set1_epi16((int16_t)x); }
static inline vh h_min(vh a, vh b) { return simde_mm_min_epu16(a, b); }
static inline vh h_adds(vh a, vh b) { return simde_mm_adds_epu16(a, b); }
static inline vh h_subs(vh a, vh b) { return simde_mm_subs_epu16(a, b); }
static inline vh h_eq(vh a, vh b) { return simde_mm_cmpeq_epi16(a, b); }
#define H_LB 2
static inline uint32_t h_bits(vh v) { return (uint32_t)simde_mm_movemask_epi8(v); }
static inline uint32_t h_eqmask(vh a, vh b)
{
    const vh e = simde_mm_cmpeq_epi16(a, b);
    return (uint32_t)simde_mm_movemask_epi8(simde_mm_packs_epi16(e, e)) & 0xffu;
}
static inline vh h_from_mask(uint32_t m)
{
    static const uint16_t bit[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    const vh b = simde_mm_loadu_si128((const void *)bit);
    return simde_mm_cmpeq_epi16(simde_mm_and_si128(simde_mm_set1_epi16((int16_t)m), b), b);
}
static inline uint32_t h_u8eqmask(const uint8_t *p, uint8_t x)
{
    const simde__m128i b = simde_mm_loadl_epi64((const void *)p);
    return (uint32_t)simde_mm_movemask_epi8(simde_mm_cmpeq_epi8(b, simde_mm_set1_epi8((int8_t)x))) &
           0xffu;
}
#define OP_H_UP(m)                                                                             \
    case m:                                                                                    \
        return simde_mm_slli_si128(v, 2 * (m));
#define OP_H_DOWN(m)                                                                           \
    case m:                                                                                    \
        return simde_mm_srli_si128(v, 2 * (m));
static inline vh h_shift_up(vh v, uint32_t m)
{
    switch (m) { OP_H_UP(1) OP_H_UP(2) OP_H_UP(3) OP_H_UP(4) OP_H_UP(5) OP_H_UP(6) OP_H_UP(7) }
    return m ? simde_mm_setzero_si128() : v;
}
static inline vh h_shift_down(vh v, uint32_t m)
{
    switch (m) {
        OP_H_DOWN(1) OP_H_DOWN(2) OP_H_DOWN(3) OP_H_DOWN(4) OP_H_DOWN(5) OP_H_DOWN(6) OP_H_DOWN(7)
    }
    return m ? simde_mm_setzero_si128() : v;
}
#undef OP_H_UP
#undef OP_H_DOWN
static inline vu32 h_widen_lo(vh v) { return simde_mm_unpacklo_epi16(v, simde_mm_setzero_si128()); }
static inline vu32 h_widen_hi(vh v) { return simde_mm_unpackhi_epi16(v, simde_mm_setzero_si128()); }
#endif

/* All H_LB * HW bits of h_bits. */
#define H_ALLBITS ((uint32_t)((1ull << (H_LB * HW)) - 1))
/* Lanes of mask m: b; the others: a. */
#ifdef H_MASKREGS
static inline vh h_blend(uint32_t m, vh a, vh b) { return _mm256_mask_blend_epi16((__mmask16)m, a, b); }
#else
static inline vh h_blend(uint32_t m, vh a, vh b) { return v_select(h_from_mask(m), a, b); }
#endif
#ifdef H_MASKREGS
static inline uint32_t h_lessbits(vh a, vh b) { return (uint32_t)_mm256_cmplt_epu16_mask(a, b); }
static inline int h_same(vh a, vh b) { return h_eqmask(a, b) == H_ALL; }
#else
/* Lanes where a < b (unsigned), as h_bits. */
static inline uint32_t h_lessbits(vh a, vh b)
{
    return ~h_bits(h_eq(h_subs(b, a), h_set1(0))) & H_ALLBITS;
}
/* Nonzero when every lane of a equals b's. */
static inline int h_same(vh a, vh b) { return h_bits(h_eq(a, b)) == H_ALLBITS; }
#endif

#endif
