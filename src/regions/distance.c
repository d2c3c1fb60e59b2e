/* Distance field (regions-contours §1, supplement §1.6, §9.1): the exact kernel, no cap,
 * over chf->area; area-0 spans and boundary spans get 0. */
#include "regions/regions_internal.h"
#include "core/kernels.h"

#include <string.h>

/* In eight lanes: GCC -O2 vectorizes the fixed inner loop, not the plain one (2.5 ms of
 * every demo-1936 bake before; bake-speed.md round 10). */
uint32_t op_regions_u32_max(const uint32_t *v, uint32_t n)
{
    enum { L = 8 };
    uint32_t lane[L] = {0}, m = 0;
    /* by pointer: a u32 index that could wrap would make the lanes gathers */
    const uint32_t *p = v, *const blocks = v + (n - n % L), *const end = v + n;
    for (; p != blocks; p += L)
        for (int k = 0; k < L; k++)
            lane[k] = p[k] > lane[k] ? p[k] : lane[k];
    for (; p != end; p++)
        m = *p > m ? *p : m;
    for (int k = 0; k < L; k++)
        m = lane[k] > m ? lane[k] : m;
    return m;
}

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
    if (max_dist)
        *max_dist = op_regions_u32_max(dist, chf->span_count);
    return OP_OK;
}
