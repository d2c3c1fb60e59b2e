/* Distance field (regions-contours §1, supplement §1.6, §9.1): the exact kernel, no cap,
 * over chf->area; area-0 spans and boundary spans get 0. Also the band helpers and the
 * radix sort shared by the region stages. */
#include "regions/regions_internal.h"
#include "core/kernels.h"

#include <string.h>

op_status op_build_distance_field(op_ctx *ctx, const op_chf *chf, uint32_t *dist,
                                  uint32_t *max_dist)
{
    op_status st = op_regions_check_args(ctx, chf, dist, dist, "distance field");
    if (st != OP_OK)
        return st;
    if (max_dist)
        *max_dist = 0;
    if (chf->span_count == 0)
        return OP_OK;
    if (ctx->k->distance_field(chf, chf->area, dist, &ctx->arena))
        return op_fail(ctx, OP_NO_MEMORY, "distance field: out of scratch memory (%u spans)",
                       chf->span_count);
    if (max_dist) {
        uint32_t m = 0;
        for (uint32_t s = 0; s < chf->span_count; s++)
            m = dist[s] > m ? dist[s] : m;
        *max_dist = m;
    }
    return OP_OK;
}

/* Supplement §2: band = local x or z < B or >= size - B. */
uint32_t op_regions_band(const op_chf *chf, uint8_t *band)
{
    const uint32_t w = chf->width, d = chf->depth;
    const uint32_t B = chf->border_size > 0 ? (uint32_t)chf->border_size : 0;
    uint32_t count = 0;
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            const int in = B && (x < B || z < B || x + B >= w || z + B >= d);
            const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
            for (uint32_t s = f; s < e; s++) {
                band[s] = (uint8_t)in;
                count += in && chf->area[s] != 0;
            }
        }
    }
    return count;
}

uint32_t op_regions_init_band(const op_chf *chf, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    memset(region, 0, (size_t)n * sizeof *region);
    const uint32_t B = chf->border_size > 0 ? (uint32_t)chf->border_size : 0;
    if (!B)
        return 0;
    const uint32_t w = chf->width, d = chf->depth;
    uint32_t count = 0;
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            if (!(x < B || z < B || x + B >= w || z + B >= d))
                continue;
            const uint32_t c = x + z * w;
            const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
            for (uint32_t s = f; s < e; s++) {
                if (chf->area[s] != 0) {
                    region[s] = OP_BORDER_REGION;
                    count++;
                }
            }
        }
    }
    return count;
}

void op_regions_sort_u32(uint32_t *a, uint32_t *tmp, uint32_t *cnt, uint32_t n)
{
    for (int pass = 0; pass < 2; pass++) {
        const int sh = pass * 16;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (uint32_t i = 0; i < n; i++)
            cnt[(a[i] >> sh) & 0xffff]++;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < 65536; k++) {
            const uint32_t c = cnt[k];
            cnt[k] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[cnt[(a[i] >> sh) & 0xffff]++] = a[i];
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
}
