/* A tile with the layers partition (regions-contours §4 "Layer-first partition",
 * supplement §3): the window's geometry-only field (after erosion, before any volume)
 * decides each span's layer once; the volumes then go onto its areas, and the regions
 * are the components of "linked, same layer, same area" (one labelling pass), then the
 * island filter, numbering and contours. The plain tiled bake and the tile cache's
 * rebuild share op_tile_layer_first_end, so both run the same code after the volumes.
 *
 * The partition reads no distance, so a layers tile computes none: digest_distance and
 * max_dist are 0 (docs/decisions/cache.md). */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"
#include "onepath/digest.h"

#include <string.h>

void op_tile_spans_facts(const op_chf *chf, uint32_t T, uint32_t B, uint32_t world_w,
                         uint32_t world_d, int owned_digest, op_tile *t)
{
    t->span_count = chf->span_count;
    t->walkable_spans = op_chf_walkable_count(chf);
    t->digest_spans = op_digest_chf(chf);
    /* Owned cells inside the world: [B, B + min(T, world − tx·T)) locally. */
    const uint64_t ox = (uint64_t)t->tx * T, oz = (uint64_t)t->tz * T;
    const uint32_t ow = (uint32_t)(world_w - ox < T ? world_w - ox : T);
    const uint32_t od = (uint32_t)(world_d - oz < T ? world_d - oz : T);
    t->digest_owned = owned_digest ? op_digest_chf_cells(chf, B, B, ow, od) : 0;
    t->owned_spans = 0;
    for (uint32_t z = B; z < B + od; z++)
        for (uint32_t x = B; x < B + ow; x++)
            t->owned_spans += op_chf_cell_count(chf, x + z * chf->width);
}

op_status op_tile_layer_first_end(op_ctx *w, const op_bake_settings *s, const op_chf *chf,
                                  const uint32_t *span_layer, int keep_regions, op_tile *t)
{
    const size_t n = chf->span_count ? chf->span_count : 1;
    double t0 = op_now_ms();
    uint32_t *region = keep_regions ? op_ctx_alloc(w, n, sizeof *region, "region ids of a tile")
                                    : op_scratch(w, n, sizeof *region);
    if (!region)
        return OP_NO_MEMORY;
    if (keep_regions)
        t->region = region;
    t->max_dist = 0;
    t->digest_distance = 0;
    op_status st = op_build_regions_layer_first(w, chf, span_layer, &s->regions, region,
                                                &t->region_count);
    if (st != OP_OK)
        return st;
    double t1 = op_now_ms();
    t->ms.regions += t1 - t0;
    t->digest_regions = op_digest_regions(region, chf->span_count, t->region_count);
    if (keep_regions) {
        /* The cell layout gives the region ids their meaning. */
        const size_t cells = (size_t)chf->width * chf->depth;
        t->cell_count = op_ctx_alloc(w, cells ? cells : 1, sizeof *t->cell_count,
                                     "cell counts of a tile");
        if (!t->cell_count)
            return OP_NO_MEMORY;
        for (size_t c = 0; c < cells; c++)
            t->cell_count[c] = op_chf_cell_count(chf, (uint32_t)c);
    }
    t0 = op_now_ms();
    t->ms.digests += t0 - t1;
    if (s->until < OP_STAGE_CONTOURS)
        return OP_OK;

    /* The band holds BorderRegion (supplement §2); B = 0 has no band. */
    op_contour_settings cs = s->contours;
    cs.border_region = chf->border_size > 0 ? OP_BORDER_REGION : 0;
    st = op_build_contours(w, chf, region, t->region_count, &cs, &t->contours);
    if (st != OP_OK)
        return st;
    op_contours_to_world(&t->contours, t->x0, t->z0);
    t->contour_verts = 0;
    for (uint32_t i = 0; i < t->contours.count; i++)
        t->contour_verts += t->contours.contours[i].vert_count;
    t1 = op_now_ms();
    t->ms.contours += t1 - t0;
    t->digest_contours = op_digest_contours(&t->contours);
    t->ms.digests += op_now_ms() - t1;
    return OP_OK;
}

/* Hands the geometry-only field (its areas replaced by geo_area, which it takes) and
 * the layers to the cache's slot; chf is left empty. */
static op_status keep_geometry(op_ctx *w, op_cache_tile *ct, op_chf *chf, uint8_t *geo_area,
                               const uint32_t *layer, uint32_t layer_count)
{
    const size_t n = chf->span_count ? chf->span_count : 1;
    if (layer_count > 0x10000u)
        return op_fail(w, OP_UNSUPPORTED, "%u layers in one tile exceed the cache's 16-bit "
                                          "layer index",
                       layer_count);
    uint16_t *l16 = op_ctx_alloc(w, n, sizeof *l16, "layers of a cached tile");
    if (!l16)
        return OP_NO_MEMORY;
    for (uint32_t i = 0; i < chf->span_count; i++)
        l16[i] = (uint16_t)layer[i];
    if (!chf->span_count)
        l16[0] = 0;
    op_mem_free(&chf->alloc, chf->area);
    chf->area = geo_area;
    ct->chf = *chf;
    memset(chf, 0, sizeof *chf);
    ct->layer = l16;
    ct->layer_count = layer_count;
    ct->digest_geometry = op_digest_chf(&ct->chf);
    return OP_OK;
}

op_status op_tile_bake_layer_first(op_ctx *w, const op_tile_job *job, uint32_t index,
                                   const op_scene *sub, const op_window *win, op_tile *t)
{
    /* The spans stage without volumes: the geometry-only field. */
    op_scene geo = *sub;
    geo.volumes = NULL;
    geo.volume_count = 0;
    const uint64_t f = job->bins->first[index];
    op_spans_stats ss;
    op_chf chf;
    op_status st = op_build_spans_window(w, &job->cfg, &geo, win, job->bins->tris + f,
                                         t->triangles, job->tri_areas, &chf, &ss);
    if (st != OP_OK)
        return st;
    chf.border_size = (int32_t)job->B;
    t->solid_spans = ss.solid_spans;
    t->ms.rasterize = ss.ms_rasterize;
    t->ms.filters = ss.ms_filters;
    t->ms.compact = ss.ms_compact;
    t->ms.erode = ss.ms_erode;

    const size_t n = chf.span_count ? chf.span_count : 1;
    const op_arena_mark mark = op_arena_get_mark(&w->arena);
    uint8_t *geo_area = NULL;
    uint32_t layer_count = 0;
    double t0 = op_now_ms();
    uint32_t *layer = op_scratch(w, n, sizeof *layer);
    st = layer ? op_build_span_layers(w, &chf, layer, &layer_count) : OP_NO_MEMORY;
    double t1 = op_now_ms();
    t->ms.regions += t1 - t0;
    if (st == OP_OK && job->cache_tiles) {
        geo_area = op_ctx_alloc(w, n, 1, "geometry-only areas of a tile");
        if (geo_area)
            memcpy(geo_area, chf.area, n);
        else
            st = OP_NO_MEMORY;
    }
    if (st == OP_OK)
        st = op_apply_volumes_window(w, &chf, sub->volumes, sub->volume_count, job->cfg.bmin,
                                     t->x0, t->z0);
    t0 = op_now_ms();
    t->ms.volumes += t0 - t1;
    if (st == OP_OK) {
        op_tile_spans_facts(&chf, job->T, job->B, job->world_w, job->world_d,
                            job->owned_digest, t);
        t->ms.digests += op_now_ms() - t0;
        st = op_tile_layer_first_end(w, job->s, &chf, layer, job->keep_regions, t);
    }
    if (st == OP_OK && job->cache_tiles) {
        st = keep_geometry(w, &job->cache_tiles[index], &chf, geo_area, layer, layer_count);
        if (st == OP_OK)
            geo_area = NULL;
    }
    op_arena_release(&w->arena, mark);
    op_mem_free(&w->alloc, geo_area);
    if (st == OP_OK && job->keep_fields)
        t->chf = chf;
    else
        op_chf_free(&chf);
    if (st != OP_OK)
        op_tile_free(t, &w->alloc);
    return st;
}
