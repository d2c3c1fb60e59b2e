/* Edge classification, SIMD twin of src/scalar/edge_classify.c (regions-contours §6,
 * Edges): bit d of mask[s] when s has no mutual link in d or the mutual neighbour's
 * region differs from region[s]; spans with region 0 or the border region get 0.
 * Neighbour regions are gathered, as one load when the links of the lanes are
 * contiguous (single-floor rows, the common case). */
#include "simd/simd_width.h"

void OP_FN(op_edge_classify)(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                             uint8_t *mask, uint32_t begin, uint32_t end);

void OP_FN(op_edge_classify)(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                             uint8_t *mask, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint32_t s = begin;
    if (n <= OP_SIMD_MAX_SPANS) {
        const vu32 zero = v_set1(0), border = v_set1(border_region);
        for (; s < end && end - s >= VW; s += VW) {
            const vu32 r = v_load(region + s);
            const vu32 inactive = v_or(v_eq(r, zero), v_eq(r, border));
            if (v_nz(inactive) == V_ALL) {
                v_store_u8(mask + s, zero);
                continue;
            }
            const vu32 mu = v_load_u8(chf->mutual + s);
            vu32 m = zero;
            for (int d = 0; d < 4; d++) {
                const vu32 linked = v_test(mu, 1u << d);
                const vu32 lk = v_load(chf->link[d] + s);
                const vu32 same = v_and(linked, v_eq(v_gather(region, lk, linked, n), r));
                m = v_or(m, v_andnot(same, v_set1(1u << d)));
            }
            v_store_u8(mask + s, v_andnot(inactive, m));
        }
    }
    if (s < end)
        op_edge_classify_scalar(chf, region, border_region, mask, s, end);
}
