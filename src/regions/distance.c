/* Distance field (regions-contours §1, supplement §1.6, §9.1): the exact kernel, no cap,
 * over chf->area; area-0 spans and boundary spans get 0. */
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
    if (ctx->k->distance.field(chf, chf->area, dist, &ctx->arena))
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
