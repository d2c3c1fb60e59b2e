/* Erosion by the agent radius (supplement §1.6). */
#include "onepath/spans.h"
#include "core/kernels.h"

/* supplement §1.6: the exact distance (orthogonal 2, diagonal 3 reached either way) to
 * the nearest boundary span; every span closer than 2·radius becomes area 0. The
 * boundary is taken from the areas as they are before this pass, so the result does
 * not depend on the visiting order. */
op_status op_erode_walkable_area(op_ctx *ctx, op_chf *chf, int radius)
{
    if (radius < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "erosion radius must be >= 0 (got %d)", radius);
    if (radius == 0 || chf->span_count == 0)
        return OP_OK;
    const op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t *dist = op_scratch(ctx, chf->span_count, sizeof(uint32_t));
    if (!dist)
        return OP_NO_MEMORY;
    if (ctx->k->distance_field(chf, chf->area, dist, &ctx->arena)) {
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "out of scratch memory in the erosion distance field");
    }
    const uint64_t limit = 2 * (uint64_t)radius;
    for (uint32_t s = 0; s < chf->span_count; s++)
        if (dist[s] < limit)
            chf->area[s] = OP_NULL_AREA;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}
