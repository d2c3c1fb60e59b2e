/* Mutual-link derivation, SIMD twin of src/scalar/mutual_links.c (supplement §1.5,
 * regions-contours intro): bit d of mutual[s] when link[d][s] = t != OP_NO_LINK and
 * link[(d+2)&3][t] = s.
 *
 * No gathers in the common case: per direction d the kernel predicts that the links of
 * a block of VW spans form one run (simd_width.h, "Predicted runs"): link[0] = s - 1 + i
 * and link[2] = s + 1 + i in single-floor rows, link[1] / link[3] along the next /
 * previous row, the run moving with the block. Lanes without a link (OP_NO_LINK) are not compared
 * and get no bit. When every prediction holds, the back links are four unaligned loads.
 * A miss re-predicts from the last linked lane and serves that direction through
 * back_links (a decode of the new run's block, or lane by lane). AVX-512 keeps the lane
 * masks in mask registers.
 * Blocks are VW spans (measured faster here than steps of 16 spans). */
#include "simd/simd_width.h"
#include "simd/links_at.h"

#if VW == 16 && defined(SIMDE_X86_AVX512F_NATIVE) && defined(SIMDE_X86_AVX512BW_NATIVE) &&    \
    defined(SIMDE_X86_AVX512VL_NATIVE)
#define ML_MASKS 1
#else
#define ML_MASKS 0
#endif

/* Back links link[d][idx[i]] on the wanted lanes off the predicted runs
 * (v_gather_pred's contract): one block decode (op_chf_links_at) when every wanted lane
 * is on the run *pred, else the run of the last wanted lane becomes the prediction and
 * the lanes are decoded one by one (op_chf_link; the 16-bit links have no array of
 * span indices to gather from, memory.md round 11). */
#if ML_MASKS
OP_VINLINE __m512i back_links_k(const op_chf *chf, int d, uint32_t n, __m512i idx,
                                __mmask16 want, uint32_t *pred)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint32_t li[VW], out[VW];
    const uint32_t lim = n - VW, p = *pred;
    if (p <= lim &&
        !_mm512_mask_cmpneq_epi32_mask(want, idx, _mm512_add_epi32(_mm512_set1_epi32((int)p), iota)))
        return _mm512_loadu_si512((const void *)v_links_at(chf, d, p, VW, out));
    if (!want)
        return idx; /* no lane wanted: any value, keep the prediction */
    _mm512_storeu_si512((void *)li, idx);
    /* The mask's bits by _cvtmask16_u32 (zero-extended), not a cast: with the cast,
     * GCC 12's ASan + UBSan build indexed li[] at 20 (test_regions_fast_paths). */
    const uint32_t wb = _cvtmask16_u32(want);
    const uint32_t g = 31u - (uint32_t)__builtin_clz(wb);
    *pred = li[g] - g;
    for (uint32_t i = 0; i < VW; i++)
        out[i] = (wb >> i) & 1 ? op_chf_link(chf, d, li[i]) : 0;
    return _mm512_loadu_si512((const void *)out);
}
#else
OP_VINLINE vu32 back_links(const op_chf *chf, int d, uint32_t n, vu32 idx, vu32 want,
                           uint32_t *pred)
{
    uint32_t li[VW], out[VW];
    const uint32_t lim = n - VW, p = *pred;
    if (p <= lim && !v_any(v_andnot(v_eq(idx, v_add(v_set1(p), v_iota())), want)))
        return v_load(v_links_at(chf, d, p, VW, out));
    const uint32_t wbits = v_nz(want);
    if (!wbits)
        return want; /* no lane wanted: any value, keep the prediction */
    v_store(li, idx);
    const uint32_t g = 31u - (uint32_t)__builtin_clz(wbits);
    *pred = li[g] - g;
    for (uint32_t i = 0; i < VW; i++)
        out[i] = (wbits >> i) & 1 ? op_chf_link(chf, d, li[i]) : 0;
    return v_load(out);
}
#endif

static void mutual_links_body(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint32_t s = begin;
    if (n <= OP_SIMD_MAX_SPANS && n >= 16 && begin < end && end - begin >= VW) {
        const uint32_t lim = n - VW;
        /* Blocks of links through op_chf_links_at (lb: their buffers), the rest through
         * back_links. */
        uint32_t lb[8][VW];
        /* Predicted run starts: -x and +x from the span order, +z and -z learnt. */
        uint32_t p0 = s - 1, p1 = OP_NO_LINK, p2 = s + 1, p3 = OP_NO_LINK;
#if ML_MASKS
        const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                               14, 15);
        const __m512i step = _mm512_set1_epi32(VW), none = _mm512_set1_epi32(-1);
        const __m128i b1 = _mm_set1_epi8(1), b2 = _mm_set1_epi8(2), b4 = _mm_set1_epi8(4),
                      b8 = _mm_set1_epi8(8);
        __m512i self = _mm512_add_epi32(_mm512_set1_epi32((int)s), iota);
        __m512i pv0 = _mm512_add_epi32(_mm512_set1_epi32((int)p0), iota);
        __m512i pv1 = _mm512_add_epi32(_mm512_set1_epi32((int)p1), iota);
        __m512i pv2 = _mm512_add_epi32(_mm512_set1_epi32((int)p2), iota);
        __m512i pv3 = _mm512_add_epi32(_mm512_set1_epi32((int)p3), iota);
        for (; end - s >= VW; s += VW, p0 += VW, p1 += VW, p2 += VW, p3 += VW,
                              self = _mm512_add_epi32(self, step),
                              pv0 = _mm512_add_epi32(pv0, step), pv1 = _mm512_add_epi32(pv1, step),
                              pv2 = _mm512_add_epi32(pv2, step), pv3 = _mm512_add_epi32(pv3, step)) {
            const __m512i t0 = _mm512_loadu_si512(v_links_at(chf, 0, s, VW, lb[0])),
                          t1 = _mm512_loadu_si512(v_links_at(chf, 1, s, VW, lb[1])),
                          t2 = _mm512_loadu_si512(v_links_at(chf, 2, s, VW, lb[2])),
                          t3 = _mm512_loadu_si512(v_links_at(chf, 3, s, VW, lb[3]));
            const __mmask16 v0 = _mm512_cmpneq_epi32_mask(t0, none),
                            v1 = _mm512_cmpneq_epi32_mask(t1, none),
                            v2 = _mm512_cmpneq_epi32_mask(t2, none),
                            v3 = _mm512_cmpneq_epi32_mask(t3, none);
            const __mmask16 bad = (__mmask16)(_mm512_mask_cmpneq_epi32_mask(v0, t0, pv0) |
                                              _mm512_mask_cmpneq_epi32_mask(v1, t1, pv1) |
                                              _mm512_mask_cmpneq_epi32_mask(v2, t2, pv2) |
                                              _mm512_mask_cmpneq_epi32_mask(v3, t3, pv3));
            __m512i k0, k1, k2, k3; /* back links */
            if (!bad && ((p0 > lim) | (p1 > lim) | (p2 > lim) | (p3 > lim)) == 0) {
                k0 = _mm512_loadu_si512(v_links_at(chf, 2, p0, VW, lb[4]));
                k1 = _mm512_loadu_si512(v_links_at(chf, 3, p1, VW, lb[5]));
                k2 = _mm512_loadu_si512(v_links_at(chf, 0, p2, VW, lb[6]));
                k3 = _mm512_loadu_si512(v_links_at(chf, 1, p3, VW, lb[7]));
            } else {
                k0 = back_links_k(chf, 2, n, t0, v0, &p0);
                k1 = back_links_k(chf, 3, n, t1, v1, &p1);
                k2 = back_links_k(chf, 0, n, t2, v2, &p2);
                k3 = back_links_k(chf, 1, n, t3, v3, &p3);
                pv0 = _mm512_add_epi32(_mm512_set1_epi32((int)p0), iota);
                pv1 = _mm512_add_epi32(_mm512_set1_epi32((int)p1), iota);
                pv2 = _mm512_add_epi32(_mm512_set1_epi32((int)p2), iota);
                pv3 = _mm512_add_epi32(_mm512_set1_epi32((int)p3), iota);
            }
            const __m128i m = _mm_or_si128(
                _mm_or_si128(_mm_maskz_mov_epi8(_mm512_mask_cmpeq_epi32_mask(v0, k0, self), b1),
                             _mm_maskz_mov_epi8(_mm512_mask_cmpeq_epi32_mask(v1, k1, self), b2)),
                _mm_or_si128(_mm_maskz_mov_epi8(_mm512_mask_cmpeq_epi32_mask(v2, k2, self), b4),
                             _mm_maskz_mov_epi8(_mm512_mask_cmpeq_epi32_mask(v3, k3, self), b8)));
            _mm_storeu_si128((__m128i *)(void *)(mutual + s), m);
        }
#else
        const vu32 none = v_set1(OP_NO_LINK), step = v_set1(VW), iota = v_iota();
        const vu32 c1 = v_set1(1), c2 = v_set1(2), c4 = v_set1(4), c8 = v_set1(8);
        vu32 self = v_add(v_set1(s), iota);
        vu32 pv0 = v_add(v_set1(p0), iota), pv1 = v_add(v_set1(p1), iota);
        vu32 pv2 = v_add(v_set1(p2), iota), pv3 = v_add(v_set1(p3), iota);
        for (; end - s >= VW; s += VW, p0 += VW, p1 += VW, p2 += VW, p3 += VW,
                              self = v_add(self, step), pv0 = v_add(pv0, step),
                              pv1 = v_add(pv1, step), pv2 = v_add(pv2, step),
                              pv3 = v_add(pv3, step)) {
            const vu32 t0 = v_load(v_links_at(chf, 0, s, VW, lb[0])),
                       t1 = v_load(v_links_at(chf, 1, s, VW, lb[1])),
                       t2 = v_load(v_links_at(chf, 2, s, VW, lb[2])),
                       t3 = v_load(v_links_at(chf, 3, s, VW, lb[3]));
            /* Lanes without a link (all-ones) or on the predicted run. */
            const vu32 e0 = v_eq(t0, none), e1 = v_eq(t1, none), e2 = v_eq(t2, none),
                       e3 = v_eq(t3, none);
            const vu32 good = v_and(v_and(v_or(e0, v_eq(t0, pv0)), v_or(e1, v_eq(t1, pv1))),
                                    v_and(v_or(e2, v_eq(t2, pv2)), v_or(e3, v_eq(t3, pv3))));
            vu32 k0, k1, k2, k3; /* back links */
            if (v_nz(good) == V_ALL && ((p0 > lim) | (p1 > lim) | (p2 > lim) | (p3 > lim)) == 0) {
                k0 = v_load(v_links_at(chf, 2, p0, VW, lb[4]));
                k1 = v_load(v_links_at(chf, 3, p1, VW, lb[5]));
                k2 = v_load(v_links_at(chf, 0, p2, VW, lb[6]));
                k3 = v_load(v_links_at(chf, 1, p3, VW, lb[7]));
            } else {
                const vu32 ones = v_set1(~0u);
                k0 = back_links(chf, 2, n, t0, v_andnot(e0, ones), &p0);
                k1 = back_links(chf, 3, n, t1, v_andnot(e1, ones), &p1);
                k2 = back_links(chf, 0, n, t2, v_andnot(e2, ones), &p2);
                k3 = back_links(chf, 1, n, t3, v_andnot(e3, ones), &p3);
                pv0 = v_add(v_set1(p0), iota);
                pv1 = v_add(v_set1(p1), iota);
                pv2 = v_add(v_set1(p2), iota);
                pv3 = v_add(v_set1(p3), iota);
            }
            const vu32 m = v_or(v_or(v_and(v_andnot(e0, v_eq(k0, self)), c1),
                                     v_and(v_andnot(e1, v_eq(k1, self)), c2)),
                                v_or(v_and(v_andnot(e2, v_eq(k2, self)), c4),
                                     v_and(v_andnot(e3, v_eq(k3, self)), c8)));
            v_store_u8(mutual + s, m);
        }
#endif
    }
    /* Tail (fewer than VW spans), tiny and oversized fields: the scalar twin. */
    if (s < end)
        op_mutual_links_scalar(chf, mutual, s, end);
}

void OP_FN(op_mutual_links)(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end)
{
    mutual_links_body(chf, mutual, begin, end);
    op_simd_leave();
}
