/* The spans stage driver (supplement §1): configuration → rasterize → filters →
 * compact heightfield with links → erosion → area volumes. */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "core/prefault.h"

#include <math.h>
#include <string.h>

/* Filters, compact + links, erosion and volumes on a rasterized field (supplement
 * §1.4–§1.7); hf is freed here. (ox, oz): world cell of hf's local cell (0, 0). */
static op_status finish_spans(op_ctx *ctx, const op_config *cfg, const op_scene *scene,
                              op_heightfield *hf, int32_t ox, int32_t oz, op_chf *out,
                              op_spans_stats *stt)
{
    stt->solid_spans = op_heightfield_span_count(hf);
    double t1 = op_now_ms();
    /* supplement §1.4, in this order */
    op_spans_filters(ctx, hf, cfg->walkable_height, cfg->walkable_climb);
    double t0 = op_now_ms();
    stt->ms_filters = t0 - t1;
    op_progress(ctx, "spans", 0.85);

    /* supplement §1.5 */
    /* In place: hf's arrays become the cells and spans (it is freed either way). */
    op_status st = op_build_compact_heightfield_in_place(ctx, hf, cfg->walkable_height,
                                                         cfg->walkable_climb, out);
    if (st != OP_OK)
        return st;
    stt->compact_spans = out->span_count;
    t1 = op_now_ms();
    stt->ms_compact = t1 - t0;
    op_progress(ctx, "spans", 0.9);

    /* supplement §1.6 */
    st = op_erode_walkable_area(ctx, out, cfg->walkable_radius);
    if (st != OP_OK)
        goto fail_out;
    t0 = op_now_ms();
    stt->ms_erode = t0 - t1;
    op_progress(ctx, "spans", 0.95);

    /* supplement §1.7, with world cell centres */
    st = op_apply_volumes_window(ctx, out, scene->volumes, scene->volume_count, cfg->bmin, ox,
                                 oz);
    if (st != OP_OK)
        goto fail_out;
    stt->ms_volumes = op_now_ms() - t0;
    stt->walkable_spans = op_chf_walkable_count(out);
    op_progress(ctx, "spans", 1.0);
    return OP_OK;

fail_out:
    op_chf_free(out);
    return st;
}

/* 1 when every vertex index is below vert_count and every coordinate is finite, in two
 * passes without branches (eight lanes the compiler vectorizes; 2.9 -> 2.1 ms on
 * demo-1936's 38 MB of mesh, memory-bound: bake-speed.md round 10). A coordinate is not
 * finite when its exponent bits are all ones: adding one to the exponent field then
 * carries into the sign bit. */
static int mesh_valid(const op_mesh *mesh)
{
    enum { L = 8 };
    const uint64_t ni = 3ull * mesh->tri_count, nv = 3ull * mesh->vert_count;
    uint32_t top[L] = {0}, bad[L] = {0};
    uint64_t i = 0;
    for (; i + L <= ni; i += L)
        for (int k = 0; k < L; k++)
            top[k] = mesh->tris[i + k] > top[k] ? mesh->tris[i + k] : top[k];
    for (; i < ni; i++)
        top[0] = mesh->tris[i] > top[0] ? mesh->tris[i] : top[0];
    for (i = 0; i + L <= nv; i += L)
        for (int k = 0; k < L; k++) {
            uint32_t b;
            memcpy(&b, &mesh->verts[i + k], 4);
            bad[k] |= (b & 0x7f800000u) + 0x00800000u;
        }
    for (; i < nv; i++) {
        uint32_t b;
        memcpy(&b, &mesh->verts[i], 4);
        bad[0] |= (b & 0x7f800000u) + 0x00800000u;
    }
    uint32_t t = 0, f = 0;
    for (int k = 0; k < L; k++) {
        t = top[k] > t ? top[k] : t;
        f |= bad[k];
    }
    return (ni == 0 || t < mesh->vert_count) && !(f & 0x80000000u);
}

op_status op_build_spans(op_ctx *ctx, const op_config *cfg_in, const op_scene *scene, op_chf *out,
                         op_spans_stats *stats)
{
    if (!ctx || !cfg_in || !scene || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_build_spans: NULL argument");
    memset(out, 0, sizeof *out);
    op_spans_stats st_local;
    op_spans_stats *stt = stats ? stats : &st_local;
    memset(stt, 0, sizeof *stt);

    op_status st = op_config_validate(ctx, cfg_in);
    if (st != OP_OK)
        return st;
    const op_mesh *mesh = &scene->mesh;
    if (mesh->tri_count == 0 || mesh->vert_count == 0)
        return op_fail(ctx, OP_BAD_INPUT, "the input has no triangles (%u vertices, %u triangles)",
                       mesh->vert_count, mesh->tri_count);
    /* Indices and coordinates first: the bounds must not see a NaN. The loops that name
     * the culprit run only when the branch-free checks find one. */
    if (!mesh_valid(mesh)) {
        for (uint64_t i = 0; i < 3ull * mesh->tri_count; i++)
            if (mesh->tris[i] >= mesh->vert_count)
                return op_fail(ctx, OP_BAD_INPUT,
                               "triangle %llu refers to vertex %u but there are %u vertices",
                               (unsigned long long)(i / 3), mesh->tris[i], mesh->vert_count);
        for (uint64_t i = 0; i < 3ull * mesh->vert_count; i++)
            if (!isfinite(mesh->verts[i]))
                return op_fail(ctx, OP_BAD_INPUT, "vertex %llu has a non-finite coordinate",
                               (unsigned long long)(i / 3));
    }
    if (scene->volume_count && !scene->volumes)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "scene lists %u volumes but no array",
                       scene->volume_count);

    /* supplement §1.1: bounds default to the input's bounds (Recast: rcCalcBounds). */
    op_config cfg = *cfg_in;
    if (!cfg.has_bounds) {
        op_mesh_bounds(mesh, cfg.bmin, cfg.bmax);
        cfg.has_bounds = 1;
    }
    uint32_t width, depth;
    st = op_config_grid_size(ctx, &cfg, &width, &depth);
    if (st != OP_OK)
        return st;
    stt->width = width;
    stt->depth = depth;

    op_heightfield hf;
    st = op_heightfield_init(ctx, &hf, width, depth, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
    if (st != OP_OK)
        return st;
    op_progress(ctx, "spans", 0.0);

    /* supplement §1.2, §1.3 */
    const double t0 = op_now_ms();
    const op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    /* Written whole by the marking: a fresh block's pages mapped by one call. */
    uint8_t *tri_areas = op_scratch_prefaulted(ctx, mesh->tri_count, 1);
    if (!tri_areas) {
        op_heightfield_free(&hf);
        return OP_NO_MEMORY;
    }
    op_mark_walkable_triangles(mesh, cfg.walkable_slope_deg, tri_areas);
    st = op_rasterize_triangles(ctx, &hf, mesh, tri_areas, cfg.walkable_climb);
    op_arena_release(&ctx->arena, mark);
    stt->ms_rasterize = op_now_ms() - t0;
    if (st != OP_OK) {
        op_heightfield_free(&hf);
        return st;
    }
    return finish_spans(ctx, &cfg, scene, &hf, 0, 0, out, stt);
}

/* supplement §2 "Seam-exact tiles": the same stage over a window of the world grid. */
op_status op_build_spans_window(op_ctx *ctx, const op_config *cfg_in, const op_scene *scene,
                                const op_window *win, const uint32_t *list, uint32_t count,
                                const uint8_t *tri_areas, op_chf *out, op_spans_stats *stats)
{
    if (!ctx || !cfg_in || !scene || !win || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_build_spans_window: NULL argument");
    memset(out, 0, sizeof *out);
    op_spans_stats st_local;
    op_spans_stats *stt = stats ? stats : &st_local;
    memset(stt, 0, sizeof *stt);
    op_status st = op_config_validate(ctx, cfg_in);
    if (st != OP_OK)
        return st;
    if (!cfg_in->has_bounds)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "op_build_spans_window: the configuration needs the world's bounds");
    if (scene->volume_count && !scene->volumes)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "scene lists %u volumes but no array",
                       scene->volume_count);
    uint32_t ww, wd;
    st = op_config_grid_size(ctx, cfg_in, &ww, &wd);
    if (st != OP_OK)
        return st;
    stt->width = win->width;
    stt->depth = win->depth;

    op_heightfield hf;
    st = op_heightfield_init(ctx, &hf, win->width, win->depth, cfg_in->bmin, cfg_in->bmax,
                             cfg_in->cs, cfg_in->ch);
    if (st == OP_OK)
        st = op_heightfield_set_window(ctx, &hf, win->x0, win->z0, ww, wd);
    if (st != OP_OK) {
        op_heightfield_free(&hf);
        return st;
    }
    const double t0 = op_now_ms();
    const op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    if (!tri_areas) {
        uint8_t *a = op_scratch_prefaulted(ctx, scene->mesh.tri_count, 1);
        if (!a) {
            op_heightfield_free(&hf);
            return OP_NO_MEMORY;
        }
        op_mark_walkable_triangles(&scene->mesh, cfg_in->walkable_slope_deg, a);
        tri_areas = a;
    }
    st = op_rasterize_triangle_list(ctx, &hf, &scene->mesh, tri_areas, list, count,
                                    cfg_in->walkable_climb);
    op_arena_release(&ctx->arena, mark);
    stt->ms_rasterize = op_now_ms() - t0;
    if (st != OP_OK) {
        op_heightfield_free(&hf);
        return st;
    }
    st = finish_spans(ctx, cfg_in, scene, &hf, win->x0, win->z0, out, stt);
    if (st == OP_OK) {
        /* The window's box, informative only (binary32 from the world's bounds). */
        out->bmin[0] = cfg_in->bmin[0] + (float)win->x0 * cfg_in->cs;
        out->bmin[2] = cfg_in->bmin[2] + (float)win->z0 * cfg_in->cs;
        out->bmax[0] = out->bmin[0] + (float)win->width * cfg_in->cs;
        out->bmax[2] = out->bmin[2] + (float)win->depth * cfg_in->cs;
    }
    return st;
}
