/* The whole chain (architecture.md data flow) for a single-tile build. */
#include "onepath/bake.h"
#include "onepath/digest.h"
#include "core/alloc.h"
#include "core/prefault.h"
#include "regions/regions_internal.h"

#include <string.h>

const char *op_stage_name(op_stage s)
{
    switch (s) {
    case OP_STAGE_SPANS: return "spans";
    case OP_STAGE_REGIONS: return "regions";
    case OP_STAGE_CONTOURS: return "contours";
    }
    return "unknown";
}

op_status op_stage_parse(const char *name, op_stage *out)
{
    static const op_stage all[] = {OP_STAGE_SPANS, OP_STAGE_REGIONS, OP_STAGE_CONTOURS};
    for (size_t i = 0; i < 3; i++)
        if (name && !strcmp(name, op_stage_name(all[i]))) {
            *out = all[i];
            return OP_OK;
        }
    return OP_INVALID_ARGUMENT;
}

void op_bake_settings_defaults(op_bake_settings *s)
{
    memset(s, 0, sizeof *s);
    op_config_defaults(&s->config);
    op_region_settings_defaults(&s->regions);
    op_contour_settings_defaults(&s->contours);
    s->until = OP_STAGE_CONTOURS;
    s->keep_distance = 0; /* nothing after the partition reads it (op_bake_settings) */
}

/* The settings of the stages after the spans stage (all that op_bake_chf uses). */
static op_status validate_after_spans(op_ctx *ctx, const op_bake_settings *s)
{
    op_status st = op_region_settings_validate(ctx, &s->regions);
    if (st == OP_OK)
        st = op_contour_settings_validate(ctx, &s->contours);
    if (st == OP_OK && (s->until < OP_STAGE_SPANS || s->until > OP_STAGE_CONTOURS))
        st = op_fail(ctx, OP_INVALID_ARGUMENT, "unknown final stage %d", (int)s->until);
    return st;
}

op_status op_bake_settings_validate(op_ctx *ctx, const op_bake_settings *s)
{
    op_status st = op_config_validate(ctx, &s->config);
    return st == OP_OK ? validate_after_spans(ctx, s) : st;
}

void op_bake_result_free(op_bake_result *r)
{
    op_chf_free(&r->chf);
    op_mem_free(&r->alloc, r->dist);
    op_mem_free(&r->alloc, r->region);
    op_contour_set_free(&r->contours);
    memset(r, 0, sizeof *r);
}

/* The distance field of a bake that does not keep it, freed by the partition once it
 * reads it no more (op_dist_release). */
static void free_dist(void *arg)
{
    op_bake_result *r = arg;
    op_mem_free(&r->alloc, r->dist);
    r->dist = NULL;
}

/* Distance, regions and contours on r->chf. */
static op_status bake_rest(op_ctx *ctx, const op_bake_settings *s, op_bake_result *r)
{
    r->digest_spans = op_digest_chf(&r->chf);
    r->reached = OP_STAGE_SPANS;
    /* Between stages no scratch is live: the next stage starts from what it needs, not
     * from the largest stage so far (the bake's peak memory, issue 12). */
    op_arena_trim(&ctx->arena);
    if (s->until < OP_STAGE_REGIONS)
        return OP_OK;
    const size_t n = r->chf.span_count ? r->chf.span_count : 1;
    r->alloc = ctx->alloc;
    r->dist = op_mem_array(&r->alloc, n, sizeof *r->dist);
    if (!r->dist)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u spans of distance",
                       r->chf.span_count);
    /* Fresh memory that the stage writes whole (as region[] below): its pages mapped by
     * one call instead of a page fault each (docs/decisions/bake-speed.md, round 8). */
    op_mem_prefault(r->dist, n * sizeof *r->dist);
    double t0 = op_now_ms();
    op_progress(ctx, "distance", 0.0);
    op_status st = op_build_distance_field(ctx, &r->chf, r->dist, &r->max_dist);
    if (st != OP_OK)
        return st;
    r->ms_distance = op_now_ms() - t0;
    r->digest_distance = op_digest_distance(r->dist, r->chf.span_count);
    /* The distance kernel's scratch is not the partition's: region[] is taken after it
     * is gone (docs/decisions/memory.md). */
    op_arena_trim(&ctx->arena);
    r->region = op_mem_array(&r->alloc, n, sizeof *r->region);
    if (!r->region)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u spans of regions",
                       r->chf.span_count);
    op_mem_prefault(r->region, n * sizeof *r->region);
    t0 = op_now_ms();
    op_progress(ctx, "regions", 0.0);
    /* Not kept, the distance field is freed inside the partition, before the
     * watershed's neighbour entries (the bake's peak) are taken; its digest is above.
     * After a failure it may still be here, for op_bake_result_free. */
    op_dist_release rel = {s->keep_distance ? NULL : free_dist, r};
    st = op_build_regions_rel(ctx, &r->chf, &s->regions, r->dist, &rel, r->region,
                              &r->region_count);
    if (st != OP_OK)
        return st;
    r->ms_regions = op_now_ms() - t0;
    r->digest_regions = op_digest_regions(r->region, r->chf.span_count, r->region_count);
    r->reached = OP_STAGE_REGIONS;
    op_arena_trim(&ctx->arena);
    if (s->until < OP_STAGE_CONTOURS)
        return OP_OK;
    t0 = op_now_ms();
    op_progress(ctx, "contours", 0.0);
    /* supplement §2, §4: a field with a band (a tile window, or an OPCHF1 with
     * border_size > 0) gives the band BorderRegion; contours must know that id. */
    op_contour_settings cs = s->contours;
    if (r->chf.border_size > 0)
        cs.border_region = OP_BORDER_REGION;
    st = op_build_contours(ctx, &r->chf, r->region, r->region_count, &cs, &r->contours);
    if (st != OP_OK)
        return st;
    r->ms_contours = op_now_ms() - t0;
    r->digest_contours = op_digest_contours(&r->contours);
    r->contour_verts = 0;
    for (uint32_t i = 0; i < r->contours.count; i++)
        r->contour_verts += r->contours.contours[i].vert_count;
    r->reached = OP_STAGE_CONTOURS;
    op_progress(ctx, "done", 1.0);
    return OP_OK;
}

op_status op_bake_scene(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        op_bake_result *r)
{
    memset(r, 0, sizeof *r);
    op_status st = op_bake_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    const double t0 = op_now_ms();
    st = op_build_spans(ctx, &s->config, scene, &r->chf, &r->spans);
    if (st != OP_OK)
        return st;
    r->have_spans_stats = 1;
    r->ms_spans = op_now_ms() - t0;
    return bake_rest(ctx, s, r);
}

op_status op_bake_chf(op_ctx *ctx, op_chf *chf, const op_bake_settings *s, op_bake_result *r)
{
    memset(r, 0, sizeof *r);
    r->chf = *chf;
    memset(chf, 0, sizeof *chf);
    const op_status st = validate_after_spans(ctx, s);
    if (st != OP_OK)
        return st;
    return bake_rest(ctx, s, r);
}
