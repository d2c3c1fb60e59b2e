/* op_chf_links_at for the SIMD kernels (memory.md round 11): the block's 16-bit links
 * decoded inline, VW lanes a step, as the decoder kernel does (src/simd/links_decode.c:
 * the stored u16 widened and biased by 0x8000, so OP_DLINK_NONE is 0, OP_DLINK_FAR 1 and
 * a delta v is v + 0x8000 >= 2), without a call per block; a block with a far link
 * (normally none) is decoded again by op_chf_links_get. Same result as op_chf_links_at:
 * buf[i] = op_chf_link(chf, d, s0 + i) for i < n, returned. */
#ifndef OP_SIMD_LINKS_AT_H
#define OP_SIMD_LINKS_AT_H

#include "simd/simd_width.h"

/* VW u16 widened to u32 lanes. */
#if OP_VEC_BITS == 512
OP_VINLINE vu32 v_load_dl(const int16_t *p)
{
    const simde__m256i lo = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
    const simde__m256i hi = simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)(p + 8)));
    return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
}
#elif OP_VEC_BITS == 256
OP_VINLINE vu32 v_load_dl(const int16_t *p)
{
    return simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128((const void *)p));
}
#else
OP_VINLINE vu32 v_load_dl(const int16_t *p)
{
    return simde_mm_cvtepu16_epi32(simde_mm_loadl_epi64((const void *)p));
}
#endif

OP_VINLINE const uint32_t *v_links_at(const op_chf *chf, int d, uint32_t s0, uint32_t n,
                                      uint32_t *buf)
{
    const int16_t *dl = chf->dlink[d] + s0;
    const vu32 bias = v_set1(0x8000u), one = v_set1(1), two = v_set1(2), low = v_set1(0xffffu);
    const vu32 none = v_set1(OP_NO_LINK);
    vu32 farv = v_set1(0), base = v_add(v_set1(s0 - 0x8000u), v_iota());
    uint32_t i = 0;
    int far = 0;
    for (; n - i >= VW; i += VW, base = v_add(base, v_set1(VW))) {
        const vu32 b = v_and(v_add(v_load_dl(dl + i), bias), low);
        const vu32 near = v_eq(v_max(b, two), b); /* b >= 2 */
        v_store(buf + i, v_select(near, none, v_add(base, b)));
        farv = v_or(farv, v_eq(b, one));
    }
    for (; i < n; i++) {
        const int16_t v = dl[i];
        buf[i] = v >= OP_DLINK_MIN ? s0 + i + (uint32_t)(int32_t)v : OP_NO_LINK;
        far |= v == OP_DLINK_FAR;
    }
    if (far || v_any(farv))
        op_chf_links_get(chf, d, s0, n, buf);
    return buf;
}

/* Lanes i < n (8, 16 or 32) with p[i] == x as bit i: the stored deltas compared with x
 * directly, no decode. For the regular-lane tests (a link at t + x): x outside the
 * near deltas matches no lane, and neither does a far link (its delta is not stored),
 * so such lanes take the irregular path, which reads links through op_chf_link. */
OP_VINLINE uint32_t v_dl_eqmask(const int16_t *p, int64_t x, uint32_t n)
{
    if (x < OP_DLINK_MIN || x > OP_DLINK_MAX)
        return 0;
    const simde__m128i v = simde_mm_set1_epi16((int16_t)x);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i += 16) {
        const simde__m128i a = simde_mm_cmpeq_epi16(simde_mm_loadu_si128((const void *)(p + i)), v);
        const simde__m128i b =
            n - i >= 16 ? simde_mm_cmpeq_epi16(simde_mm_loadu_si128((const void *)(p + i + 8)), v)
                        : simde_mm_setzero_si128();
        m |= (uint32_t)simde_mm_movemask_epi8(simde_mm_packs_epi16(a, b)) << i;
    }
    return m;
}

/* The same over several tests before one lane mask: bit i of dl_acc_mask is set when
 * every dl_acc_and(p, x) had p[i] == x (and every x was a near delta). n (8, 16 or 32)
 * is the caller's constant, so the loops unroll. */
typedef struct dl_acc {
    simde__m128i v[4];
    int ok;
} dl_acc;

OP_VINLINE void dl_acc_init(dl_acc *a, uint32_t n)
{
    for (uint32_t i = 0; i < n / 8; i++)
        a->v[i] = simde_mm_set1_epi32(-1);
    a->ok = 1;
}

OP_VINLINE void dl_acc_and(dl_acc *a, const int16_t *p, int64_t x, uint32_t n)
{
    a->ok &= x >= OP_DLINK_MIN && x <= OP_DLINK_MAX;
    const simde__m128i v = simde_mm_set1_epi16((int16_t)x);
    for (uint32_t i = 0; i < n / 8; i++)
        a->v[i] = simde_mm_and_si128(
            a->v[i], simde_mm_cmpeq_epi16(simde_mm_loadu_si128((const void *)(p + 8 * i)), v));
}

OP_VINLINE uint32_t dl_acc_mask(const dl_acc *a, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n / 8; i += 2)
        m |= (uint32_t)simde_mm_movemask_epi8(simde_mm_packs_epi16(
                 a->v[i], i + 1 < n / 8 ? a->v[i + 1] : simde_mm_setzero_si128()))
             << (8 * i);
    return a->ok ? m : 0;
}

#endif
