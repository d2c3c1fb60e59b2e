/* Mutual-link derivation, scalar twin (supplement §1.5, regions-contours intro). */
#include "core/kernels.h"

void op_mutual_links_scalar(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end)
{
    for (uint32_t s = begin; s < end; s++) {
        uint8_t m = 0;
        for (int d = 0; d < 4; d++) {
            const uint32_t t = op_chf_link(chf, d, s);
            if (t != OP_NO_LINK && op_chf_link(chf, (d + 2) & 3, t) == s)
                m |= (uint8_t)(1u << d);
        }
        mutual[s] = m;
    }
}
