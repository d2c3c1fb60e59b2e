/* Region passes' spans of interest, SIMD twins of src/scalar/region_scan.c
 * (core/kernels.h; regions-contours §5). The scan's (OP_REGION_SCAN_BITS_FN), AVX-512
 * only: 16 spans a step, four steps a 64-bit word. A span's predecessor value comes from
 * the step itself (valignd with the last step's values); its -x and -z neighbours'
 * regions from predicted runs (simd_width.h, "Predicted runs": one unaligned load when
 * every wanted lane's link is the run's, else a window or a gather, v_gather_pred_k),
 * wanted only on lanes with a region and the mutual bit, as the scalar twin reads them.
 * Other variants and the tail (fewer than 64 spans) run the scalar twin. The value
 * changes (OP_VALUE_CHANGE_BITS_FN) in every variant, below. */
#include "simd/simd_width.h"
#include "simd/links_at.h"

#if VW == 16 && defined(SIMDE_X86_AVX512F_NATIVE) && defined(SIMDE_X86_AVX512BW_NATIVE) &&    \
    defined(SIMDE_X86_AVX512VL_NATIVE)
#define RS_MASKS 1
#else
#define RS_MASKS 0
#endif

void OP_FN(op_region_scan_bits)(const op_chf *chf, const uint32_t *region, uint32_t begin,
                                uint32_t end, uint64_t *bits)
{
    uint32_t s = begin, w = 0;
#if RS_MASKS
    const uint32_t n = chf->span_count;
    if (n <= OP_SIMD_MAX_SPANS && n >= 32 && end > begin) {
        const uint8_t *const area = chf->area, *const mutual = chf->mutual;
        const __m128i zero8 = _mm_setzero_si128(), b1 = _mm_set1_epi8(1), b8 = _mm_set1_epi8(8);
        /* Predicted run starts: -x from the span order, -z learnt. */
        uint32_t p0 = s - 1, p3 = OP_NO_LINK;
        __m512i last = _mm512_set1_epi32((int)(begin ? region[begin - 1] : 0));
        for (; end - s >= 64; s += 64, w++) {
            uint64_t word = 0;
            for (int j = 0; j < 4; j++) {
                const uint32_t t = s + 16 * (uint32_t)j;
                const __m512i r = _mm512_loadu_si512((const void *)(region + t));
                /* lane i: region[t + i - 1] */
                const __m512i prev = _mm512_alignr_epi32(r, last, 15);
                last = r;
                const __mmask16 nz = _mm512_test_epi32_mask(r, r);
                const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(area + t));
                const __m128i mu = _mm_loadu_si128((const __m128i *)(const void *)(mutual + t));
                const __mmask16 w0 = (__mmask16)(nz & _mm_test_epi8_mask(mu, b1)),
                                w3 = (__mmask16)(nz & _mm_test_epi8_mask(mu, b8));
                __mmask16 hit = (__mmask16)(_mm512_cmpneq_epi32_mask(r, prev) |
                                            (nz & _mm_cmpeq_epi8_mask(a, zero8)));
                if (w0) {
                    uint32_t buf[16];
                    const __m512i k0 = _mm512_loadu_si512(v_links_at(chf, 0, t, 16, buf));
                    const __m512i q0 = v_gather_pred_k(region, n, k0, w0, &p0);
                    hit |= _mm512_mask_cmpneq_epi32_mask(w0, q0, r);
                }
                if (w3) {
                    uint32_t buf[16];
                    const __m512i k3 = _mm512_loadu_si512(v_links_at(chf, 3, t, 16, buf));
                    const __m512i q3 = v_gather_pred_k(region, n, k3, w3, &p3);
                    hit |= _mm512_mask_cmpneq_epi32_mask(w3, q3, r);
                }
                word |= (uint64_t)hit << (16 * j);
                p0 += 16;
                p3 += 16;
            }
            bits[w] = word;
        }
    }
#endif
    /* Tail (fewer than 64 spans), tiny and oversized fields, other variants. */
    if (s < end || s == begin)
        op_region_scan_bits_scalar(chf, region, s, end, bits + w);
    op_simd_leave();
}

/* The value changes, every variant: VW spans a step, each compared with the load one
 * span back (64 / VW steps a word); span 0's word and the tail run the scalar twin. */
void OP_FN(op_value_change_bits)(const uint32_t *v, uint32_t begin, uint32_t end, uint64_t *bits)
{
    uint32_t s = begin, w = 0;
    if (s == 0 && end > 0) { /* v[-1] reads as 0: not loadable */
        s = end < 64 ? end : 64;
        op_value_change_bits_scalar(v, 0, s, bits);
        w = 1;
    }
    for (; end - s >= 64; s += 64, w++) {
        uint64_t word = 0;
        for (int j = 0; j < 64 / VW; j++) {
            const uint32_t t = s + (uint32_t)(VW * j);
            const uint32_t same = v_nz(v_eq(v_load(v + t), v_load(v + t - 1)));
            word |= (uint64_t)(~same & V_ALL) << (VW * j);
        }
        bits[w] = word;
    }
    if (s < end)
        op_value_change_bits_scalar(v, s, end, bits + w);
    op_simd_leave();
}
