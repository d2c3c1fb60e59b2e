/* Edge classification, SIMD twin of src/scalar/edge_classify.c (regions-contours §6,
 * Edges): bit d of mask[s] when s has no mutual link in d or the mutual neighbour's
 * region differs from region[s]; spans with region 0 or the border region get 0.
 *
 * No gathers in the common case: per direction d the kernel predicts that the links of
 * a step of spans form one run (simd_width.h, "Predicted runs"): link[0] = s - 1 + i and
 * link[2] = s + 1 + i in single-floor rows, link[1] / link[3] along the next / previous
 * row, the run moving with the step. Only lanes with a mutual link in d are compared (a
 * lane without one gets bit d whatever its link holds: supplement §1.5, only mutual
 * links count), so boundary spans do not break the run. When every prediction holds,
 * the neighbour regions are four unaligned loads. A miss re-predicts from the last
 * wanted lane and serves that direction from a window (two loads and a permute,
 * AVX-512 / AVX2), from one or two runs, or lane by lane (v_gather_pred).
 * AVX-512 uses lane masks (one step = 16 spans); the other variants take steps of 16
 * (8 for 128-bit vectors) spans and hand a step with a miss to ec_step_slow.
 *
 * With area, bit 4 (OP_EDGE_BREAK) marks an active span whose region or area differs
 * from its predecessor's (the region check's run breaks, core/kernels.h), from the
 * regions the step has loaded anyway: the contour pass then needs no pass of its own
 * over every span's region and area. */
#include "simd/simd_width.h"
#include "simd/links_at.h"

#if VW == 16 && defined(SIMDE_X86_AVX512F_NATIVE) && defined(SIMDE_X86_AVX512BW_NATIVE) &&    \
    defined(SIMDE_X86_AVX512VL_NATIVE)
#define EC_MASKS 1
#else
#define EC_MASKS 0
#endif

/* Prefetch distance in spans. The kernel is the first to touch the links, mutual bits
 * and the next row's regions (the +z prediction) of a step: without hints every call
 * (4096 spans between the trace's runs) stalls on them, with the hardware's streams
 * restarting. Hints only: no value depends on them. */
#ifndef EC_PF
#define EC_PF 512u
#endif

#if defined(__GNUC__)
#define EC_PREFETCH(p) __builtin_prefetch(p)
#else
#define EC_PREFETCH(p) ((void)(p))
#endif
/* The step EC_PF spans after s: its links and mutual bits, and the regions of the +z
 * prediction p1 (n, the span count, is above EC_PF). */
#define EC_PREFETCH_STEP(s, p1)                                                                \
    do {                                                                                       \
        if ((s) < n - EC_PF) {                                                                 \
            EC_PREFETCH(chf->dlink[0] + (s) + EC_PF);                                          \
            EC_PREFETCH(chf->dlink[1] + (s) + EC_PF);                                          \
            EC_PREFETCH(chf->dlink[2] + (s) + EC_PF);                                          \
            EC_PREFETCH(chf->dlink[3] + (s) + EC_PF);                                          \
            EC_PREFETCH(mutual + (s) + EC_PF);                                                 \
        }                                                                                      \
        if ((p1) < n - EC_PF)                                                                  \
            EC_PREFETCH(region + (p1) + EC_PF);                                                \
    } while (0)

#if !EC_MASKS
/* Spans per step of the generic path: 16 (one mask store), 8 for 128-bit vectors. */
#ifndef EC_STEP
#define EC_STEP (VW >= 8 ? 16 : 8)
#endif
#define EC_NV (EC_STEP / VW)


static inline void ec_load_mu(const uint8_t *p, vu32 *out)
{
    V_UNROLL
    for (int j = 0; j < EC_NV; j++)
        out[j] = v_load_u8(p + VW * j);
}
static inline void ec_store_mask(uint8_t *p, const vu32 *in)
{
    V_UNROLL
    for (int j = 0; j < EC_NV; j++)
        v_store_u8(p + VW * j, in[j]);
}

/* One step [s, s + EC_STEP) where a prediction missed: VW spans at a time, each
 * direction through v_gather_pred. pred[d]: the prediction of direction d for s in,
 * for s + EC_STEP out. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void ec_step_slow(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                         uint8_t *mask, uint32_t s, uint32_t *pred, const vu32 *bk)
{
    const uint32_t n = chf->span_count;
    const vu32 zero = v_set1(0), border = v_set1(border_region);
    for (int j = 0; j < EC_NV; j++, s += VW) {
        const vu32 r = v_load(region + s);
        const vu32 ina = v_or(v_eq(r, zero), v_eq(r, border));
        const vu32 mu = v_load_u8(chf->mutual + s);
        vu32 m = zero;
        for (int d = 0; d < 4; d++) {
            const vu32 want = v_test(mu, 1u << d);
            uint32_t buf[VW];
            const vu32 nb = v_gather_pred(region, n, v_load(v_links_at(chf, d, s, VW, buf)),
                                          want, &pred[d]);
            m = v_or(m, v_andnot(v_and(want, v_eq(nb, r)), v_set1(1u << d)));
            pred[d] += VW;
        }
        if (bk)
            m = v_or(m, bk[j]);
        v_store_u8(mask + s, v_andnot(ina, m));
    }
}

/* Bit 4 of the step [s, s + EC_STEP), s >= 1 (r: its regions, act16: 16 in its active
 * lanes): region or area differs from the span before. */
static inline void ec_breaks(const uint32_t *region, const uint8_t *area, uint32_t s,
                             const vu32 *r, const vu32 *act16, vu32 *bk)
{
    V_UNROLL
    for (int j = 0; j < EC_NV; j++) {
        const uint32_t k = s + VW * (uint32_t)j;
        const vu32 same = v_and(v_eq(r[j], v_load(region + k - 1)),
                                v_eq(v_load_u8(area + k), v_load_u8(area + k - 1)));
        bk[j] = v_andnot(same, act16[j]);
    }
}
#endif

static void edge_classify_body(const op_chf *chf, const uint32_t *region, const uint8_t *area,
    uint32_t border_region, uint8_t *mask, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint32_t s = begin;
    if (s == 0 && area && s < end) {
        /* span 0 has no span before it: the first 16 by the twin, so that every vector
         * step reads the span before its first */
        s = end < 16 ? end : 16;
        op_edge_classify_scalar(chf, region, area, border_region, mask, 0, s);
    }
    if (n <= OP_SIMD_MAX_SPANS && n >= 16 && s < end && end - s >= VW) {
        const uint32_t lim = n - VW;
        const int pf = n > EC_PF;
        const uint8_t *const mutual = chf->mutual;
        /* Predicted run starts: -x and +x from the span order, +z and -z learnt. */
        uint32_t p0 = s - 1, p1 = OP_NO_LINK, p2 = s + 1, p3 = OP_NO_LINK;
#if EC_MASKS
        const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                               14, 15);
        const __m512i step = _mm512_set1_epi32(VW), border = _mm512_set1_epi32((int)border_region);
        const __m128i b1 = _mm_set1_epi8(1), b2 = _mm_set1_epi8(2), b4 = _mm_set1_epi8(4),
                      b8 = _mm_set1_epi8(8);
        __m512i pv0 = _mm512_add_epi32(_mm512_set1_epi32((int)p0), iota);
        __m512i pv1 = _mm512_add_epi32(_mm512_set1_epi32((int)p1), iota);
        __m512i pv2 = _mm512_add_epi32(_mm512_set1_epi32((int)p2), iota);
        __m512i pv3 = _mm512_add_epi32(_mm512_set1_epi32((int)p3), iota);
        /* the run breaks: the regions of the step before (lane 15 is span s - 1; s >= 1
         * with area) */
        const __m128i b16 = _mm_set1_epi8((char)OP_EDGE_BREAK);
        __m512i rprev = _mm512_set1_epi32((int)(s ? region[s - 1] : 0));
        for (; end - s >= VW; s += VW, p0 += VW, p1 += VW, p2 += VW, p3 += VW,
                              pv0 = _mm512_add_epi32(pv0, step), pv1 = _mm512_add_epi32(pv1, step),
                              pv2 = _mm512_add_epi32(pv2, step), pv3 = _mm512_add_epi32(pv3, step)) {
            const __m512i r = _mm512_loadu_si512((const void *)(region + s));
            const __mmask16 act = _mm512_mask_cmpneq_epi32_mask(_mm512_test_epi32_mask(r, r), r,
                                                                border);
            const __m512i rp = rprev;
            rprev = r;
            if (!act) {
                _mm_storeu_si128((__m128i *)(void *)(mask + s), _mm_setzero_si128());
                continue;
            }
            if (pf)
                EC_PREFETCH_STEP(s, p1);
            const __m128i mu = _mm_loadu_si128((const __m128i *)(const void *)(mutual + s));
            const __mmask16 w0 = _mm_test_epi8_mask(mu, b1), w1 = _mm_test_epi8_mask(mu, b2),
                            w2 = _mm_test_epi8_mask(mu, b4), w3 = _mm_test_epi8_mask(mu, b8);
            uint32_t lb[4][VW]; /* the step's links (op_chf_links_at) */
            const __m512i k0 = _mm512_loadu_si512(v_links_at(chf, 0, s, VW, lb[0])),
                          k1 = _mm512_loadu_si512(v_links_at(chf, 1, s, VW, lb[1])),
                          k2 = _mm512_loadu_si512(v_links_at(chf, 2, s, VW, lb[2])),
                          k3 = _mm512_loadu_si512(v_links_at(chf, 3, s, VW, lb[3]));
            const __mmask16 bad = (__mmask16)(_mm512_mask_cmpneq_epi32_mask(w0, k0, pv0) |
                                              _mm512_mask_cmpneq_epi32_mask(w1, k1, pv1) |
                                              _mm512_mask_cmpneq_epi32_mask(w2, k2, pv2) |
                                              _mm512_mask_cmpneq_epi32_mask(w3, k3, pv3));
            __m512i n0, n1, n2, n3;
            if (!bad && ((p0 > lim) | (p1 > lim) | (p2 > lim) | (p3 > lim)) == 0) {
                n0 = _mm512_loadu_si512((const void *)(region + p0));
                n1 = _mm512_loadu_si512((const void *)(region + p1));
                n2 = _mm512_loadu_si512((const void *)(region + p2));
                n3 = _mm512_loadu_si512((const void *)(region + p3));
            } else {
                n0 = v_gather_pred_k(region, n, k0, w0, &p0);
                n1 = v_gather_pred_k(region, n, k1, w1, &p1);
                n2 = v_gather_pred_k(region, n, k2, w2, &p2);
                n3 = v_gather_pred_k(region, n, k3, w3, &p3);
                pv0 = _mm512_add_epi32(_mm512_set1_epi32((int)p0), iota);
                pv1 = _mm512_add_epi32(_mm512_set1_epi32((int)p1), iota);
                pv2 = _mm512_add_epi32(_mm512_set1_epi32((int)p2), iota);
                pv3 = _mm512_add_epi32(_mm512_set1_epi32((int)p3), iota);
            }
            /* Bit d unless the lane has a mutual link in d to the same region. */
            const __mmask16 e0 = (__mmask16)(act & ~_mm512_mask_cmpeq_epi32_mask(w0, n0, r)),
                            e1 = (__mmask16)(act & ~_mm512_mask_cmpeq_epi32_mask(w1, n1, r)),
                            e2 = (__mmask16)(act & ~_mm512_mask_cmpeq_epi32_mask(w2, n2, r)),
                            e3 = (__mmask16)(act & ~_mm512_mask_cmpeq_epi32_mask(w3, n3, r));
            __m128i m = _mm_or_si128(
                _mm_or_si128(_mm_maskz_mov_epi8(e0, b1), _mm_maskz_mov_epi8(e1, b2)),
                _mm_or_si128(_mm_maskz_mov_epi8(e2, b4), _mm_maskz_mov_epi8(e3, b8)));
            if (area) {
                /* lane i against span s + i - 1: [rp lane 15, r lanes 0..14] */
                const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(area + s));
                const __m128i ap =
                    _mm_loadu_si128((const __m128i *)(const void *)(area + s - 1));
                const __mmask16 bk = (__mmask16)(
                    act & (_mm512_cmpneq_epi32_mask(r, _mm512_alignr_epi32(r, rp, 15)) |
                           _mm_cmpneq_epi8_mask(a, ap)));
                m = _mm_or_si128(m, _mm_maskz_mov_epi8(bk, b16));
            }
            _mm_storeu_si128((__m128i *)(void *)(mask + s), m);
        }
#else
        /* EC_STEP spans per step as EC_NV vectors, one prediction per direction for all
         * of them (vector j of direction d predicts p_d + VW*j). Mutual bits stay
         * packed: on = OR_d (lane on its run) << d, compared with mu once. A step with a
         * miss goes to ec_step_slow as a whole, so that no vector lives across both. */
        const vu32 zero = v_set1(0), border = v_set1(border_region), c15 = v_set1(15);
        const vu32 c1 = v_set1(1), c2 = v_set1(2), c4 = v_set1(4), c8 = v_set1(8),
                   c16 = v_set1(OP_EDGE_BREAK);
        vu32 kj[EC_NV]; /* VW*j + lane */
        V_UNROLL
        for (int j = 0; j < EC_NV; j++)
            kj[j] = v_add(v_set1((uint32_t)(VW * j)), v_iota());
        const uint32_t plim = n - EC_STEP; /* runs [p, p + EC_STEP) inside [0, n) */
        for (; end - s >= EC_STEP; s += EC_STEP) {
            vu32 r[EC_NV], act[EC_NV], act16[EC_NV], mu[EC_NV], bk[EC_NV], bad = zero;
            uint32_t allina = V_ALL;
            V_UNROLL
            for (int j = 0; j < EC_NV; j++) {
                r[j] = v_load(region + s + VW * j);
                const vu32 ina = v_or(v_eq(r[j], zero), v_eq(r[j], border));
                act[j] = v_andnot(ina, c15);
                act16[j] = v_andnot(ina, c16);
                allina &= v_nz(ina);
            }
            if (allina == V_ALL) {
                V_UNROLL
                for (int j = 0; j < EC_NV; j++)
                    v_store_u8(mask + s + VW * j, zero);
                p0 += EC_STEP, p1 += EC_STEP, p2 += EC_STEP, p3 += EC_STEP;
                continue;
            }
            if (pf)
                EC_PREFETCH_STEP(s, p1);
            if (area)
                ec_breaks(region, area, s, r, act16, bk);
            ec_load_mu(mutual + s, mu);
            const vu32 q0 = v_set1(p0), q1 = v_set1(p1), q2 = v_set1(p2),
                       q3 = v_set1(p3);
            uint32_t lb[4][EC_STEP]; /* the step's links (op_chf_links_at) */
            const uint32_t *const l0 = v_links_at(chf, 0, s, EC_STEP, lb[0]),
                           *const l1 = v_links_at(chf, 1, s, EC_STEP, lb[1]),
                           *const l2 = v_links_at(chf, 2, s, EC_STEP, lb[2]),
                           *const l3 = v_links_at(chf, 3, s, EC_STEP, lb[3]);
            V_UNROLL
            for (int j = 0; j < EC_NV; j++) {
                const vu32 on =
                    v_or(v_or(v_and(v_eq(v_load(l0 + VW * j), v_add(q0, kj[j])), c1),
                              v_and(v_eq(v_load(l1 + VW * j), v_add(q1, kj[j])), c2)),
                         v_or(v_and(v_eq(v_load(l2 + VW * j), v_add(q2, kj[j])), c4),
                              v_and(v_eq(v_load(l3 + VW * j), v_add(q3, kj[j])), c8)));
                bad = v_or(bad, v_andnot(on, mu[j]));
            }
            if (v_any(bad) || ((p0 > plim) | (p1 > plim) | (p2 > plim) |
                               (p3 > plim))) {
                uint32_t pa[4] = {p0, p1, p2, p3};
                ec_step_slow(chf, region, border_region, mask, s, pa, area ? bk : NULL);
                p0 = pa[0];
                p1 = pa[1];
                p2 = pa[2];
                p3 = pa[3];
                continue;
            }
            /* Bit d unless the lane has a mutual link in d to the same region. */
            vu32 m[EC_NV];
            V_UNROLL
            for (int j = 0; j < EC_NV; j++) {
                const vu32 same =
                    v_or(v_or(v_and(v_eq(v_load(region + p0 + VW * j), r[j]), c1),
                              v_and(v_eq(v_load(region + p1 + VW * j), r[j]), c2)),
                         v_or(v_and(v_eq(v_load(region + p2 + VW * j), r[j]), c4),
                              v_and(v_eq(v_load(region + p3 + VW * j), r[j]), c8)));
                m[j] = v_andnot(v_and(same, mu[j]), act[j]);
                if (area)
                    m[j] = v_or(m[j], bk[j]);
            }
            ec_store_mask(mask + s, m);
            p0 += EC_STEP, p1 += EC_STEP, p2 += EC_STEP, p3 += EC_STEP;
        }
        (void)lim;
#endif
    }
    /* Tail (fewer than VW spans), tiny and oversized fields: the scalar twin. */
    if (s < end)
        op_edge_classify_scalar(chf, region, area, border_region, mask, s, end);
}

void OP_FN(op_edge_classify)(const op_chf *chf, const uint32_t *region, const uint8_t *area,
                             uint32_t border_region, uint8_t *mask, uint32_t begin, uint32_t end)
{
    edge_classify_body(chf, region, area, border_region, mask, begin, end);
    op_simd_leave();
}
