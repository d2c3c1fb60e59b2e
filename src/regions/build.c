/* Region settings and the partition dispatcher (regions-contours §7, §2–§5). */
#include "regions/regions_internal.h"
#include "core/kernels.h"

#include <string.h>

static const char *const partition_names[] = {"watershed", "monotone", "layers"};

const char *op_partition_name(op_partition p)
{
    if ((int)p < 0 || (int)p > (int)OP_PARTITION_LAYERS)
        return "?";
    return partition_names[p];
}

op_status op_partition_parse(const char *name, op_partition *out)
{
    if (!name || !out)
        return OP_INVALID_ARGUMENT;
    for (int i = 0; i <= (int)OP_PARTITION_LAYERS; i++) {
        if (strcmp(name, partition_names[i]) == 0) {
            *out = (op_partition)i;
            return OP_OK;
        }
    }
    return OP_INVALID_ARGUMENT;
}

/* §7: watershed, MinRegionArea 64 (8²), MergeRegionArea 400 (20²). */
void op_region_settings_defaults(op_region_settings *s)
{
    memset(s, 0, sizeof *s);
    s->partition = OP_PARTITION_WATERSHED;
    s->min_region_area = 64;
    s->merge_region_area = 400;
}

op_status op_region_settings_validate(op_ctx *ctx, const op_region_settings *s)
{
    if (!s)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "region settings: NULL pointer");
    if ((int)s->partition < 0 || (int)s->partition > (int)OP_PARTITION_LAYERS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "region settings: partition %d is not watershed, monotone or layers",
                       (int)s->partition);
    if (s->min_region_area > OP_MAX_REGION_AREA)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "region settings: min_region_area %u exceeds %u spans (a negative value?)",
                       s->min_region_area, OP_MAX_REGION_AREA);
    if (s->merge_region_area > OP_MAX_REGION_AREA)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "region settings: merge_region_area %u exceeds %u spans (a negative value?)",
                       s->merge_region_area, OP_MAX_REGION_AREA);
    return OP_OK;
}

op_status op_regions_check_args(op_ctx *ctx, const op_chf *chf, const void *out1,
                                const void *out2, const char *stage)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!chf || !out1 || !out2)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: NULL argument", stage);
    if (chf->span_count && (!chf->area || !chf->mutual || !chf->cell_first))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: compact heightfield without arrays", stage);
    if (chf->border_size < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: negative border_size %d", stage,
                       (int)chf->border_size);
    return OP_OK;
}

op_status op_build_regions_rel(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                               const uint32_t *dist, op_dist_release *rel, uint32_t *region,
                               uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "regions");
    if (st != OP_OK)
        return st;
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    switch (s->partition) {
    case OP_PARTITION_WATERSHED:
        if (dist) {
            st = op_build_regions_watershed_rel(ctx, chf, dist, s, rel, region, region_count);
            break;
        }
        {
            op_arena_mark mark = op_arena_get_mark(&ctx->arena);
            uint32_t *d = op_scratch(ctx, chf->span_count ? chf->span_count : 1, sizeof *d);
            if (!d)
                return OP_NO_MEMORY;
            st = op_build_distance_field(ctx, chf, d, NULL);
            if (st == OP_OK)
                st = op_build_regions_watershed(ctx, chf, d, s, region, region_count);
            op_arena_release(&ctx->arena, mark);
            break;
        }
    case OP_PARTITION_MONOTONE:
        op_dist_release_now(rel); /* §3 does not read the distance field */
        st = op_build_regions_monotone(ctx, chf, s, region, region_count);
        break;
    case OP_PARTITION_LAYERS:
        op_dist_release_now(rel); /* nor does §4 */
        st = op_build_regions_layers(ctx, chf, s, region, region_count);
        break;
    default:
        return op_fail(ctx, OP_INVALID_ARGUMENT, "regions: unknown partition");
    }
    /* A watershed with nothing to partition returns before its ordering. */
    if (st == OP_OK)
        op_dist_release_now(rel);
    return st;
}

op_status op_build_regions(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                           const uint32_t *dist, uint32_t *region, uint32_t *region_count)
{
    return op_build_regions_rel(ctx, chf, s, dist, NULL, region, region_count);
}
