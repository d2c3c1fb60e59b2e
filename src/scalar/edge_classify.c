/* Edge classification, scalar twin (regions-contours §6, Edges): the 4-bit boundary
 * mask. A neighbour value is the mutual neighbour's region, else 0 or TileBorder (-1);
 * neither equals a region R >= 1, so "no mutual link" is always a boundary edge. With
 * area, bit 4 marks a run break of region / area (core/kernels.h). */
#include "core/kernels.h"

void op_edge_classify_scalar(const op_chf *chf, const uint32_t *region, const uint8_t *area,
                             uint32_t border_region, uint8_t *mask, uint32_t begin, uint32_t end)
{
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t r = region[s];
        uint8_t m = 0;
        if (r != 0 && r != border_region) {
            const uint8_t mu = chf->mutual[s];
            for (int d = 0; d < 4; d++)
                if (!(mu >> d & 1) || region[op_chf_link(chf, d, s)] != r)
                    m |= (uint8_t)(1u << d);
            if (area && (s == 0 || r != region[s - 1] || area[s] != area[s - 1]))
                m |= (uint8_t)OP_EDGE_BREAK;
        }
        mask[s] = m;
    }
}
