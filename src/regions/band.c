/* The tile band (supplement §2): the border_size cells along each edge of a tile's
 * grid. Walkable band spans get OP_BORDER_REGION before any partition runs, and no
 * partition assigns them an id of its own. */
#include "regions/regions_internal.h"

#include <string.h>

uint32_t op_regions_band(const op_chf *chf, uint8_t *band, uint32_t *region)
{
    const uint32_t w = chf->width, d = chf->depth;
    const uint32_t B = chf->border_size > 0 ? (uint32_t)chf->border_size : 0;
    if (region)
        memset(region, 0, (size_t)chf->span_count * sizeof *region);
    if (band)
        memset(band, 0, chf->span_count);
    if (!B)
        return 0;
    uint32_t count = 0;
    for (uint32_t z = 0; z < d; z++) {
        const int zin = z < B || z + B >= d;
        for (uint32_t x = 0; x < w; x++) {
            if (!zin && !(x < B || x + B >= w))
                continue;
            const uint32_t c = x + z * w;
            const uint32_t f = chf->cell_first[c], e = chf->cell_first[c + 1];
            for (uint32_t s = f; s < e; s++) {
                if (band)
                    band[s] = 1;
                if (chf->area[s] != 0) {
                    count++;
                    if (region)
                        region[s] = OP_BORDER_REGION;
                }
            }
        }
    }
    return count;
}
