/* Mutual-link derivation, SIMD twin of src/scalar/mutual_links.c (supplement §1.5,
 * regions-contours intro): bit d of mutual[s] when link[d][s] = t != OP_NO_LINK and
 * link[(d+2)&3][t] = s. The back link is gathered (a plain load when the lanes' links
 * form one or two contiguous runs, as in single-floor rows); lanes without a link are
 * masked out. */
#include "simd/simd_width.h"

void OP_FN(op_mutual_links)(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end);

void OP_FN(op_mutual_links)(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end)
{
    const uint32_t n = chf->span_count;
    uint32_t s = begin;
    if (n <= OP_SIMD_MAX_SPANS) {
        const vu32 none = v_set1(OP_NO_LINK);
        for (; s < end && end - s >= VW; s += VW) {
            const vu32 self = v_add(v_set1(s), v_iota());
            vu32 m = v_set1(0);
            for (int d = 0; d < 4; d++) {
                const vu32 t = v_load(chf->link[d] + s);
                const vu32 valid = v_andnot(v_eq(t, none), v_set1(~0u));
                const vu32 back = v_gather(chf->link[(d + 2) & 3], t, valid, n);
                const vu32 ok = v_and(valid, v_eq(back, self));
                m = v_or(m, v_and(ok, v_set1(1u << d)));
            }
            v_store_u8(mutual + s, m);
        }
    }
    /* Tail (fewer than VW spans) and oversized fields: the scalar twin. */
    if (s < end)
        op_mutual_links_scalar(chf, mutual, s, end);
}
