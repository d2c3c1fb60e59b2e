/* One tile of the tiled bake (supplement §2): the window's spans stage (seam-exact),
 * BorderRegion on the band, distance, partition, region filter and contours, with
 * vertices moved to world cells. What the result does not keep is dropped here, so a
 * thread holds one tile's working set at a time (streaming). */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"
#include "onepath/digest.h"

#include <string.h>

void op_tile_free(op_tile *t, const op_allocator *a)
{
    op_contour_set_free(&t->contours);
    op_chf_free(&t->chf);
    op_mem_free(a, t->cell_count);
    op_mem_free(a, t->region);
    op_mem_free(a, t->dist);
    const uint32_t tx = t->tx, tz = t->tz;
    const int32_t x0 = t->x0, z0 = t->z0;
    memset(t, 0, sizeof *t);
    t->tx = tx;
    t->tz = tz;
    t->x0 = x0;
    t->z0 = z0;
}

/* supplement §2: output vertices are in world cells, x_world = x_local + tx·T − B. */
void op_contours_to_world(op_contour_set *set, int32_t x0, int32_t z0)
{
    for (size_t i = 0; i < set->vert_storage_count; i++) {
        set->vert_storage[i].x += x0;
        set->vert_storage[i].z += z0;
    }
}

/* Distance, regions and contours of the window field. */
static op_status tile_rest(op_ctx *w, const op_tile_job *job, op_chf *chf, op_tile *t)
{
    const op_bake_settings *s = job->s;
    const size_t n = chf->span_count ? chf->span_count : 1;
    double t0 = op_now_ms();
    uint32_t *dist = job->keep_fields ? op_ctx_alloc(w, n, sizeof *dist, "distance field of a tile")
                                      : op_scratch(w, n, sizeof *dist);
    uint32_t *region = job->keep_regions
                           ? op_ctx_alloc(w, n, sizeof *region, "region ids of a tile")
                           : op_scratch(w, n, sizeof *region);
    if (job->keep_fields)
        t->dist = dist;
    if (job->keep_regions)
        t->region = region;
    if (!dist || !region)
        return OP_NO_MEMORY;
    op_status st = op_build_distance_field(w, chf, dist, &t->max_dist);
    if (st != OP_OK)
        return st;
    double t1 = op_now_ms();
    t->ms.distance += t1 - t0;
    t->digest_distance = op_digest_distance(dist, chf->span_count);
    t0 = op_now_ms();
    t->ms.digests += t0 - t1;

    st = op_build_regions(w, chf, &s->regions, dist, region, &t->region_count);
    if (st != OP_OK)
        return st;
    t1 = op_now_ms();
    t->ms.regions += t1 - t0;
    t->digest_regions = op_digest_regions(region, chf->span_count, t->region_count);
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
    for (uint32_t i = 0; i < t->contours.count; i++)
        t->contour_verts += t->contours.contours[i].vert_count;
    t1 = op_now_ms();
    t->ms.contours += t1 - t0;
    t->digest_contours = op_digest_contours(&t->contours);
    t->ms.digests += op_now_ms() - t1;
    return OP_OK;
}

op_status op_tile_bake(op_ctx *w, const op_tile_job *job, uint32_t index, op_tile *t)
{
    memset(t, 0, sizeof *t);
    t->tx = index % job->tiles_x;
    t->tz = index / job->tiles_x;
    t->x0 = (int32_t)((int64_t)t->tx * job->T - job->B);
    t->z0 = (int32_t)((int64_t)t->tz * job->T - job->B);
    const uint64_t f = job->bins->first[index], e = job->bins->first[index + 1];
    t->triangles = (uint32_t)(e - f);

    const op_window win = {t->x0, t->z0, job->T + 2 * job->B, job->T + 2 * job->B};
    /* The volumes that may reach the window, in their order (the others change nothing
     * here), so a tile's cost does not grow with the world's volume count. */
    op_arena_mark vmark = op_arena_get_mark(&w->arena);
    op_scene sub = *job->scene;
    sub.volumes = NULL;
    sub.volume_count = 0;
    if (job->scene->volume_count) {
        op_volume *vols = op_scratch(w, job->scene->volume_count, sizeof *vols);
        if (!vols)
            return OP_NO_MEMORY;
        for (uint32_t i = 0; i < job->scene->volume_count; i++) {
            const int64_t *r = job->vol_rect + 4 * (size_t)i;
            if (r[1] < win.x0 || r[0] >= (int64_t)win.x0 + win.width || r[3] < win.z0 ||
                r[2] >= (int64_t)win.z0 + win.depth)
                continue;
            vols[sub.volume_count++] = job->scene->volumes[i];
        }
        sub.volumes = vols;
    }
    if (job->s->regions.partition == OP_PARTITION_LAYERS && job->s->until >= OP_STAGE_REGIONS) {
        /* Layers decided before the volumes (tile_layers.c). */
        const op_status lst = op_tile_bake_layer_first(w, job, index, &sub, &win, t);
        op_arena_release(&w->arena, vmark);
        return lst;
    }
    op_spans_stats ss;
    op_chf chf;
    op_status st = op_build_spans_window(w, &job->cfg, &sub, &win, job->bins->tris + f,
                                         t->triangles, job->tri_areas, &chf, &ss);
    op_arena_release(&w->arena, vmark);
    if (st != OP_OK)
        return st;
    chf.border_size = (int32_t)job->B;
    t->solid_spans = ss.solid_spans;
    t->span_count = chf.span_count;
    t->walkable_spans = (uint32_t)ss.walkable_spans;
    t->ms.rasterize = ss.ms_rasterize;
    t->ms.filters = ss.ms_filters;
    t->ms.compact = ss.ms_compact;
    t->ms.erode = ss.ms_erode;
    t->ms.volumes = ss.ms_volumes;

    double t0 = op_now_ms();
    t->digest_spans = op_digest_chf(&chf);
    /* Owned cells inside the world: [B, B + min(T, world − tx·T)) locally. */
    const uint64_t ox = (uint64_t)t->tx * job->T, oz = (uint64_t)t->tz * job->T;
    const uint32_t ow = (uint32_t)(job->world_w - ox < job->T ? job->world_w - ox : job->T);
    const uint32_t od = (uint32_t)(job->world_d - oz < job->T ? job->world_d - oz : job->T);
    if (job->owned_digest)
        t->digest_owned = op_digest_chf_cells(&chf, job->B, job->B, ow, od);
    for (uint32_t z = job->B; z < job->B + od; z++)
        for (uint32_t x = job->B; x < job->B + ow; x++)
            t->owned_spans += op_chf_cell_count(&chf, x + z * chf.width);
    t->ms.digests += op_now_ms() - t0;

    const op_arena_mark mark = op_arena_get_mark(&w->arena);
    if (job->s->until >= OP_STAGE_REGIONS)
        st = tile_rest(w, job, &chf, t);
    op_arena_release(&w->arena, mark);
    if (st == OP_OK && job->keep_regions && job->s->until >= OP_STAGE_REGIONS) {
        /* The cell layout gives the region ids their meaning. */
        const size_t cells = (size_t)chf.width * chf.depth;
        if (job->keep_fields) {
            t->cell_count = op_ctx_alloc(w, cells ? cells : 1, sizeof *t->cell_count,
                                         "cell counts of a tile");
            if (t->cell_count)
                for (size_t c = 0; c < cells; c++)
                    t->cell_count[c] = op_chf_cell_count(&chf, (uint32_t)c);
            else
                st = OP_NO_MEMORY;
        } else {
            /* The field goes: take its cell_first (same allocator) and turn the prefix
             * sum into the counts in place (entry c + 1 is read before it is written). */
            uint32_t *cf = chf.cell_first;
            for (size_t c = 0; c < cells; c++)
                cf[c] = cf[c + 1] - cf[c];
            t->cell_count = cf;
            chf.cell_first = NULL;
        }
    }
    if (st == OP_OK && job->keep_fields)
        t->chf = chf;
    else
        op_chf_free(&chf);
    if (st != OP_OK)
        op_tile_free(t, &w->alloc);
    return st;
}
