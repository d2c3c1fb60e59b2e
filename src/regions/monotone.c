/* Monotone partition (regions-contours §3, supplement §9.3), then §5.
 *
 * A sweep is a chain of walkable spans of one area along mutual +x links within a row;
 * its start is a span without a predecessor (mutual -x neighbour, walkable, same area,
 * not in the band). Sweeps are enumerated in start order (cells by increasing x, spans
 * bottom-up), which makes each sweep's spans contiguous to walk. */
#include "regions/regions_internal.h"

#include <string.h>

#define MIXED 0xffffffffu

static int has_pred(const op_chf *chf, const uint32_t *region, uint32_t s)
{
    if (!(chf->mutual[s] & 1))
        return 0;
    const uint32_t t = chf->link[0][s];
    return chf->area[t] == chf->area[s] && region[t] != OP_BORDER_REGION;
}

/* The sweep successor of u, or OP_NO_LINK. */
static uint32_t succ(const op_chf *chf, const uint32_t *region, uint32_t u)
{
    if (!(chf->mutual[u] >> 2 & 1))
        return OP_NO_LINK;
    const uint32_t t = chf->link[2][u];
    if (chf->area[t] != chf->area[u] || region[t] == OP_BORDER_REGION)
        return OP_NO_LINK;
    return t;
}

op_status op_build_regions_monotone_raw(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                        uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "monotone");
    if (st != OP_OK)
        return st;
    const uint32_t n = chf->span_count;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;
    const uint32_t w = chf->width, dpt = chf->depth;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t *start = op_scratch(ctx, n, sizeof *start);
    uint32_t *sreg = op_scratch(ctx, n, sizeof *sreg);
    uint32_t *touch = op_scratch(ctx, (size_t)n + 1, sizeof *touch);
    uint32_t *rstamp = op_scratch(ctx, (size_t)n + 1, sizeof *rstamp);
    uint32_t *touched = op_scratch(ctx, n, sizeof *touched);
    if (!start || !sreg || !touch || !rstamp || !touched) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(touch, 0, ((size_t)n + 1) * sizeof *touch);
    memset(rstamp, 0, ((size_t)n + 1) * sizeof *rstamp);
    uint32_t next_id = 0, gid = 0;

    for (uint32_t z = 0; z < dpt; z++) {
        uint32_t ns = 0;
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
            for (uint32_t s = f; s < e; s++)
                if (area[s] != 0 && region[s] == 0 && !has_pred(chf, region, s))
                    start[ns++] = s;
        }
        /* Looked-at neighbours (§9.3): -z, with a region, same area as the sweep. */
        uint32_t nt = 0;
        for (uint32_t k = 0; k < ns; k++) {
            const uint32_t g = ++gid;
            uint32_t cand = 0;
            for (uint32_t u = start[k]; u != OP_NO_LINK; u = succ(chf, region, u)) {
                if (!(chf->mutual[u] >> 3 & 1))
                    continue;
                const uint32_t t = chf->link[3][u];
                const uint32_t r = region[t];
                if (!r || r == OP_BORDER_REGION || area[t] != area[u])
                    continue;
                if (rstamp[r] != g) {
                    rstamp[r] = g;
                    if (touch[r]++ == 0)
                        touched[nt++] = r;
                }
                cand = cand == 0 ? r : (cand == r ? r : MIXED);
            }
            sreg[k] = cand;
        }
        /* Continue R when all looked-at neighbours are R and no other sweep touches R;
         * otherwise a new id, in sweep order. */
        for (uint32_t k = 0; k < ns; k++) {
            const uint32_t R = sreg[k];
            uint32_t id;
            if (R != 0 && R != MIXED && touch[R] == 1) {
                id = R;
            } else {
                if (next_id == OP_MAX_REGION_ID) {
                    op_arena_release(&ctx->arena, mark);
                    return op_fail(ctx, OP_UNSUPPORTED, "monotone: more than %u regions",
                                   OP_MAX_REGION_ID);
                }
                id = ++next_id;
            }
            /* succ() reads region[t] only for the band test, which assigning ids
             * here cannot change. */
            for (uint32_t u = start[k]; u != OP_NO_LINK; u = succ(chf, region, u))
                region[u] = id;
        }
        for (uint32_t i = 0; i < nt; i++)
            touch[touched[i]] = 0;
    }
    *region_count = next_id;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

op_status op_build_regions_monotone(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                    uint32_t *region, uint32_t *region_count)
{
    op_status st = op_region_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    if ((st = op_build_regions_monotone_raw(ctx, chf, region, region_count)) != OP_OK)
        return st;
    return op_regions_filter_impl(ctx, chf, s->min_region_area, s->merge_region_area, 1, region,
                                  region_count);
}
