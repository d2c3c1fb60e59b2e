/* The tile cache (supplement §3): a layers tiled bake that keeps each tile's
 * geometry-only field and span layers; run-time obstacles with ids; dirty tiles; the
 * parallel rebuild of dirty tiles (volumes on a copy of the areas, one labelling pass,
 * island filter, numbering, contours), committed only when every tile succeeded.
 *
 * Volumes of a rebuild, in order: the world's (the scene's, in their order), then the
 * obstacles in increasing id, so the result is a plain tiled bake whose scene lists
 * exactly those volumes (docs/decisions/cache.md). A tile applies only the volumes whose
 * footprint rectangle (grown by two cells) meets its window: the others change nothing
 * there, as in the plain bake. */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"

#include <math.h>
#include <string.h>

static void free_cache_tiles(op_cache_tile *tiles, uint32_t n, const op_allocator *a)
{
    if (!tiles)
        return;
    for (uint32_t i = 0; i < n; i++) {
        op_chf_free(&tiles[i].chf);
        op_mem_free(a, tiles[i].layer);
    }
    op_mem_free(a, tiles);
}

void op_tile_cache_free(op_tile_cache *c)
{
    if (!c)
        return;
    const op_allocator a = c->alloc;
    free_cache_tiles(c->tiles, c->result.tile_count, &a);
    op_mem_free(&a, c->world_volumes);
    op_mem_free(&a, c->obstacles);
    op_mem_free(&a, c->dirty);
    op_mem_free(&a, c->rebuilt);
    op_tiled_result_free(&c->result);
    memset(c, 0, sizeof *c);
}

op_status op_tile_cache_bake(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                             const op_tiled_options *opt_in, op_tile_cache *c)
{
    if (!c)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "tile cache: NULL cache");
    memset(c, 0, sizeof *c);
    if (!ctx || !scene || !s)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "tile cache: NULL argument");
    c->alloc = ctx->alloc;
    op_tiled_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        op_tiled_options_defaults(&opt);
    if (s->regions.partition != OP_PARTITION_LAYERS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile cache: the partition must be layers (got %s): only the "
                       "layer-first partition rebuilds by labelling (regions-contours §4)",
                       op_partition_name(s->regions.partition));
    if (s->until < OP_STAGE_REGIONS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile cache: the bake must reach regions (until = %s)",
                       op_stage_name(s->until));
    if (opt.keep_fields)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile cache: keep_fields is not supported (the cache keeps the "
                       "geometry-only fields)");
    op_status st = op_bake_tiled_ex(ctx, scene, s, &opt, &c->tiles, &c->result);
    if (st != OP_OK) {
        free_cache_tiles(c->tiles, c->result.tile_count, &c->alloc);
        c->tiles = NULL;
        op_tiled_result_free(&c->result);
        return st;
    }
    const uint32_t n = c->result.tile_count;
    c->settings = *s;
    c->settings.config.has_bounds = 1;
    memcpy(c->settings.config.bmin, c->result.bmin, sizeof c->result.bmin);
    memcpy(c->settings.config.bmax, c->result.bmax, sizeof c->result.bmax);
    c->settings.config.border_size = (int)c->result.border_size;
    c->keep_regions = opt.keep_regions != 0;
    c->owned_digest = opt.owned_digest != 0;
    c->world_digest = c->result.digest_world;
    c->dirty = op_ctx_calloc(ctx, n, 1, "dirty marks of the tile cache");
    c->rebuilt = op_ctx_alloc(ctx, n, sizeof *c->rebuilt, "rebuilt tiles of the tile cache");
    if (scene->volume_count) {
        c->world_volumes = op_ctx_alloc(ctx, scene->volume_count, sizeof *c->world_volumes,
                                        "world volumes of the tile cache");
        if (c->world_volumes) {
            memcpy(c->world_volumes, scene->volumes,
                   scene->volume_count * sizeof *c->world_volumes);
            c->world_volume_count = scene->volume_count;
        }
    }
    if (!c->dirty || !c->rebuilt || (scene->volume_count && !c->world_volumes)) {
        op_tile_cache_free(c);
        return OP_NO_MEMORY;
    }
    return OP_OK;
}

/* ---- Shapes ------------------------------------------------------------------------- */

static int finite2(const float *v) { return isfinite(v[0]) && isfinite(v[1]); }

/* Sign changes of a cyclic sequence of edge components, zeros skipped: a convex
 * polygon that goes round once changes direction at most twice along each axis. */
static int sign_changes(const float *verts, uint32_t n, int axis)
{
    int first = 0, prev = 0, changes = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = i + 1 == n ? 0 : i + 1;
        const double d = (double)verts[2 * j + axis] - verts[2 * i + axis];
        const int sg = (d > 0) - (d < 0);
        if (!sg)
            continue;
        if (!first)
            first = sg;
        else if (sg != prev)
            changes++;
        prev = sg;
    }
    if (first && prev != first)
        changes++;
    return changes;
}

op_status op_obstacle_validate(op_ctx *ctx, const op_volume *v)
{
    if (!v)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: NULL shape");
    if (!isfinite(v->ymin) || !isfinite(v->ymax) || v->ymin > v->ymax)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "obstacle: y range [%g, %g] is empty or not finite", v->ymin, v->ymax);
    switch (v->kind) {
    case OP_VOLUME_BOX:
        if (!finite2(v->box_min) || !finite2(v->box_max))
            return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: box corner not finite");
        if (v->box_min[0] > v->box_max[0] || v->box_min[1] > v->box_max[1])
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "obstacle: box min (%g, %g) exceeds max (%g, %g)", v->box_min[0],
                           v->box_min[1], v->box_max[0], v->box_max[1]);
        return OP_OK;
    case OP_VOLUME_CYLINDER:
        if (!finite2(v->center) || !isfinite(v->radius))
            return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: cylinder centre or radius not finite");
        if (v->radius < 0)
            return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: cylinder radius %g < 0",
                           v->radius);
        return OP_OK;
    case OP_VOLUME_PRISM:
        break;
    default:
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: unknown shape kind %d", (int)v->kind);
    }
    const uint32_t n = v->vert_count;
    if (n < 3 || n > OP_VOLUME_MAX_VERTS)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: a prism needs 3..%d points (got %u)",
                       OP_VOLUME_MAX_VERTS, n);
    for (uint32_t i = 0; i < n; i++)
        if (!finite2(v->verts + 2 * i))
            return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: prism point %u is not finite", i);
    int pos = 0, neg = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = (i + 1) % n, k = (i + 2) % n;
        const double ax = (double)v->verts[2 * j] - v->verts[2 * i];
        const double az = (double)v->verts[2 * j + 1] - v->verts[2 * i + 1];
        const double bx = (double)v->verts[2 * k] - v->verts[2 * j];
        const double bz = (double)v->verts[2 * k + 1] - v->verts[2 * j + 1];
        const double cr = ax * bz - az * bx;
        pos |= cr > 0;
        neg |= cr < 0;
        if (pos && neg)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "obstacle: prism is not convex (it turns both ways at point %u)", j);
    }
    if (!pos && !neg)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle: prism points are all on one line");
    if (sign_changes(v->verts, n, 0) > 2 || sign_changes(v->verts, n, 1) > 2)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "obstacle: prism winds more than once (not a simple polygon)");
    return OP_OK;
}

static int same_floats(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

int op_volume_same(const op_volume *a, const op_volume *b)
{
    if (a->kind != b->kind || a->area != b->area || !same_floats(&a->ymin, &b->ymin, 1) ||
        !same_floats(&a->ymax, &b->ymax, 1))
        return 0;
    switch (a->kind) {
    case OP_VOLUME_PRISM:
        return a->vert_count == b->vert_count && a->vert_count <= OP_VOLUME_MAX_VERTS &&
               same_floats(a->verts, b->verts, 2 * (size_t)a->vert_count);
    case OP_VOLUME_BOX:
        return same_floats(a->box_min, b->box_min, 2) && same_floats(a->box_max, b->box_max, 2);
    case OP_VOLUME_CYLINDER:
        return same_floats(a->center, b->center, 2) && same_floats(&a->radius, &b->radius, 1);
    }
    return 0;
}

void op_volume_translate(op_volume *v, float dx, float dy, float dz)
{
    v->ymin += dy;
    v->ymax += dy;
    switch (v->kind) {
    case OP_VOLUME_PRISM:
        for (uint32_t i = 0; i < v->vert_count && i < OP_VOLUME_MAX_VERTS; i++) {
            v->verts[2 * i] += dx;
            v->verts[2 * i + 1] += dz;
        }
        break;
    case OP_VOLUME_BOX:
        v->box_min[0] += dx;
        v->box_max[0] += dx;
        v->box_min[1] += dz;
        v->box_max[1] += dz;
        break;
    case OP_VOLUME_CYLINDER:
        v->center[0] += dx;
        v->center[1] += dz;
        break;
    }
}

/* ---- Obstacles and dirty tiles -------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Every tile whose window [tx·T − B, tx·T + T + B) (likewise z) holds a cell whose centre
 * lies in v's footprint (op_volume_cells: the cells the volume can change). */
static void mark_footprint(op_tile_cache *c, const op_volume *v)
{
    const op_tiled_result *r = &c->result;
    uint32_t rect[4];
    if (!op_volume_cells(v, r->bmin, r->cs, r->world_width, r->world_depth, rect))
        return;
    const int64_t T = r->tile_size, B = r->border_size;
    int64_t tx0 = floor_div((int64_t)rect[0] - B, T), tx1 = floor_div((int64_t)rect[1] + B, T);
    int64_t tz0 = floor_div((int64_t)rect[2] - B, T), tz1 = floor_div((int64_t)rect[3] + B, T);
    tx0 = tx0 < 0 ? 0 : tx0;
    tz0 = tz0 < 0 ? 0 : tz0;
    tx1 = tx1 >= (int64_t)r->tiles_x ? (int64_t)r->tiles_x - 1 : tx1;
    tz1 = tz1 >= (int64_t)r->tiles_z ? (int64_t)r->tiles_z - 1 : tz1;
    for (int64_t tz = tz0; tz <= tz1; tz++)
        for (int64_t tx = tx0; tx <= tx1; tx++) {
            const size_t i = (size_t)(tx + tz * (int64_t)r->tiles_x);
            if (!c->dirty[i]) {
                c->dirty[i] = 1;
                c->dirty_count++;
            }
        }
}

/* The position of id in the table, or where it would go. */
static uint32_t lower_bound(const op_tile_cache *c, uint32_t id)
{
    uint32_t lo = 0, hi = c->obstacle_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (c->obstacles[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const op_obstacle *op_tile_cache_find(const op_tile_cache *c, uint32_t id)
{
    if (!c)
        return NULL;
    const uint32_t i = lower_bound(c, id);
    return i < c->obstacle_count && c->obstacles[i].id == id ? &c->obstacles[i] : NULL;
}

static op_status check_cache(op_ctx *ctx, const op_tile_cache *c, const char *what)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!c || !c->tiles || !c->result.tiles || !c->dirty || !c->rebuilt)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "tile cache %s: not a baked or loaded cache",
                       what);
    return OP_OK;
}

op_status op_tile_cache_add(op_ctx *ctx, op_tile_cache *c, uint32_t id, const op_volume *v)
{
    op_status st = check_cache(ctx, c, "add");
    if (st != OP_OK)
        return st;
    if ((st = op_obstacle_validate(ctx, v)) != OP_OK)
        return st;
    const uint32_t i = lower_bound(c, id);
    if (i < c->obstacle_count && c->obstacles[i].id == id)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle %u already exists", id);
    if (c->obstacle_count == c->obstacle_cap) {
        if (c->obstacle_cap >= 0x7fffffffu)
            return op_fail(ctx, OP_INVALID_ARGUMENT, "too many obstacles");
        const uint32_t cap = c->obstacle_cap ? 2 * c->obstacle_cap : 16;
        op_obstacle *grown = op_mem_realloc(&c->alloc, c->obstacles, (size_t)cap * sizeof *grown);
        if (!grown)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory growing the obstacle table to %u",
                           cap);
        c->obstacles = grown;
        c->obstacle_cap = cap;
    }
    memmove(c->obstacles + i + 1, c->obstacles + i,
            (size_t)(c->obstacle_count - i) * sizeof *c->obstacles);
    c->obstacles[i].id = id;
    c->obstacles[i].volume = *v;
    c->obstacle_count++;
    mark_footprint(c, v);
    return OP_OK;
}

op_status op_tile_cache_move(op_ctx *ctx, op_tile_cache *c, uint32_t id, const op_volume *v)
{
    op_status st = check_cache(ctx, c, "move");
    if (st != OP_OK)
        return st;
    if ((st = op_obstacle_validate(ctx, v)) != OP_OK)
        return st;
    const uint32_t i = lower_bound(c, id);
    if (i >= c->obstacle_count || c->obstacles[i].id != id)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle %u does not exist", id);
    mark_footprint(c, &c->obstacles[i].volume);
    c->obstacles[i].volume = *v;
    mark_footprint(c, v);
    return OP_OK;
}

op_status op_tile_cache_remove(op_ctx *ctx, op_tile_cache *c, uint32_t id)
{
    op_status st = check_cache(ctx, c, "remove");
    if (st != OP_OK)
        return st;
    const uint32_t i = lower_bound(c, id);
    if (i >= c->obstacle_count || c->obstacles[i].id != id)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "obstacle %u does not exist", id);
    mark_footprint(c, &c->obstacles[i].volume);
    memmove(c->obstacles + i, c->obstacles + i + 1,
            (size_t)(c->obstacle_count - i - 1) * sizeof *c->obstacles);
    c->obstacle_count--;
    return OP_OK;
}

void op_tile_cache_mark_all(op_tile_cache *c)
{
    if (!c || !c->dirty)
        return;
    memset(c->dirty, 1, c->result.tile_count);
    c->dirty_count = c->result.tile_count;
}

/* ---- Rebuild ------------------------------------------------------------------------ */

/* Cells a volume may touch, grown by two cells (a superset of op_volume_cells, for
 * culling only): x0, x1, z0, z1 in world cells, clamped far outside any grid. */
static void cull_rect(const op_volume *v, const op_tiled_result *r, int64_t out[4])
{
    double x0, x1, z0, z1;
    op_volume_footprint(v, &x0, &x1, &z0, &z1);
    const double cs = r->cs;
    const double c[4] = {floor((x0 - r->bmin[0]) / cs) - 2, floor((x1 - r->bmin[0]) / cs) + 2,
                         floor((z0 - r->bmin[2]) / cs) - 2, floor((z1 - r->bmin[2]) / cs) + 2};
    for (int k = 0; k < 4; k++)
        out[k] = c[k] < -1e12 ? (int64_t)-1e12 : c[k] > 1e12 ? (int64_t)1e12 : (int64_t)c[k];
}

typedef struct rebuild_job {
    const op_tile_cache *c;
    const int64_t *rects; /* world volumes, then obstacles */
} rebuild_job;

/* One dirty tile: the world's volumes and the obstacles that reach its window on a copy
 * of the geometry-only areas, then the layer-first end (op_tile_layer_first_end). */
static op_status rebuild_tile(op_ctx *w, const rebuild_job *job, uint32_t index, op_tile *t)
{
    const op_tile_cache *c = job->c;
    const op_tiled_result *r = &c->result;
    const op_cache_tile *ct = &c->tiles[index];
    const op_tile *old = &r->tiles[index];
    memset(t, 0, sizeof *t);
    t->tx = old->tx;
    t->tz = old->tz;
    t->x0 = old->x0;
    t->z0 = old->z0;
    t->triangles = old->triangles;
    t->solid_spans = old->solid_spans;

    const uint32_t n = ct->chf.span_count, nn = n ? n : 1;
    const uint32_t nv = c->world_volume_count + c->obstacle_count;
    const int64_t W = (int64_t)r->tile_size + 2 * (int64_t)r->border_size;
    const op_arena_mark mark = op_arena_get_mark(&w->arena);
    op_status st = OP_OK;
    double t0 = op_now_ms();
    op_chf view = ct->chf;
    view.area = op_scratch(w, nn, 1);
    op_volume *vols = op_scratch(w, nv ? nv : 1, sizeof *vols);
    uint32_t *layer = op_scratch(w, nn, sizeof *layer);
    if (!view.area || !vols || !layer) {
        st = OP_NO_MEMORY;
        goto out;
    }
    memcpy(view.area, ct->chf.area, nn);
    uint32_t k = 0;
    for (uint32_t i = 0; i < nv; i++) {
        const int64_t *q = job->rects + 4 * (size_t)i;
        if (q[1] < t->x0 || q[0] >= t->x0 + W || q[3] < t->z0 || q[2] >= t->z0 + W)
            continue;
        vols[k++] = i < c->world_volume_count ? c->world_volumes[i]
                                              : c->obstacles[i - c->world_volume_count].volume;
    }
    st = op_apply_volumes_window(w, &view, vols, k, r->bmin, t->x0, t->z0);
    if (st != OP_OK)
        goto out;
    double t1 = op_now_ms();
    t->ms.volumes += t1 - t0;
    op_tile_spans_facts(&view, r->tile_size, r->border_size, r->world_width, r->world_depth,
                        c->owned_digest, t);
    for (uint32_t i = 0; i < n; i++)
        layer[i] = ct->layer[i];
    t->ms.digests += op_now_ms() - t1;
    st = op_tile_layer_first_end(w, &c->settings, &view, layer, c->keep_regions, t);
out:
    op_arena_release(&w->arena, mark);
    if (st != OP_OK)
        op_tile_free(t, &w->alloc);
    return st;
}

typedef struct rebuild_slot {
    op_ctx ctx;
    uint32_t fail_index; /* into the dirty list; UINT32_MAX: none */
    op_status fail_status;
    char fail_msg[sizeof(((op_ctx *)0)->err)];
    double ms;
    char pad[64];
} rebuild_slot;

/* The world digest of the result with the obstacles as they are (tilecache.h). */
static void set_world_digest(op_tile_cache *c)
{
    c->result.digest_world = c->obstacle_count ? 0 : c->world_digest;
}

static int same_allocator(const op_allocator *a, const op_allocator *b)
{
    return a->malloc_fn == b->malloc_fn && a->realloc_fn == b->realloc_fn &&
           a->free_fn == b->free_fn && a->user == b->user;
}

op_status op_tile_cache_update(op_ctx *ctx, op_tile_cache *c, int threads,
                               op_cache_update_stats *stats)
{
    op_status st = check_cache(ctx, c, "update");
    if (st != OP_OK)
        return st;
    if (threads < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "threads must be >= 0 (got %d)", threads);
    if (!same_allocator(&ctx->alloc, &c->alloc))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile cache update: the context's allocator is not the cache's (the "
                       "rebuilt tiles must free like the others)");
    const double t_start = op_now_ms();
    op_cache_update_stats stat;
    memset(&stat, 0, sizeof stat);
    const uint32_t k = c->dirty_count;
    if (k == 0) {
        c->rebuilt_count = 0;
        set_world_digest(c); /* an obstacle off the grid dirties no tile */
        stat.ms = op_now_ms() - t_start;
        c->last = stat;
        if (stats)
            *stats = stat;
        return OP_OK;
    }
    threads = threads ? threads : op_omp_max_threads();
#ifndef _OPENMP
    threads = 1;
#endif
    if ((uint32_t)threads > k)
        threads = (int)k;
    const uint32_t nv = c->world_volume_count + c->obstacle_count;
    uint32_t *list = op_ctx_alloc(ctx, k, sizeof *list, "dirty tile list");
    op_tile *fresh = op_ctx_calloc(ctx, k, sizeof *fresh, "rebuilt tiles");
    int64_t *rects = op_ctx_alloc(ctx, 4 * (size_t)nv + 4, sizeof *rects, "volume rectangles");
    rebuild_slot *slots = op_ctx_calloc(ctx, (size_t)threads, sizeof *slots, "worker contexts");
    int forked = 0;
    if (!list || !fresh || !rects || !slots) {
        st = OP_NO_MEMORY;
        goto out;
    }
    for (uint32_t i = 0, j = 0; i < c->result.tile_count; i++)
        if (c->dirty[i])
            list[j++] = i;
    for (uint32_t i = 0; i < nv; i++)
        cull_rect(i < c->world_volume_count ? &c->world_volumes[i]
                                            : &c->obstacles[i - c->world_volume_count].volume,
                  &c->result, rects + 4 * (size_t)i);
    for (; forked < threads; forked++) {
        slots[forked].fail_index = UINT32_MAX;
        st = op_ctx_take_error(ctx, &slots[forked].ctx, op_ctx_fork(ctx, &slots[forked].ctx));
        if (st != OP_OK)
            goto out;
    }
    const rebuild_job job = {c, rects};
    uint32_t min_fail = UINT32_MAX;
    OP_PRAGMA(omp parallel num_threads(threads))
    {
        rebuild_slot *me = &slots[op_omp_thread()];
        OP_PRAGMA(omp for schedule(dynamic, 1))
        for (int64_t j = 0; j < (int64_t)k; j++) {
            uint32_t cur;
            OP_PRAGMA(omp atomic read)
            cur = min_fail;
            if ((uint32_t)j > cur)
                continue;
            const double t0 = op_now_ms();
            const op_status s1 = rebuild_tile(&me->ctx, &job, list[j], &fresh[j]);
            me->ms += op_now_ms() - t0;
            if (s1 == OP_OK)
                continue;
            if ((uint32_t)j < me->fail_index) {
                me->fail_index = (uint32_t)j;
                me->fail_status = s1;
                memcpy(me->fail_msg, me->ctx.err, sizeof me->fail_msg);
            }
            OP_PRAGMA(omp critical(op_cache_fail))
            {
                if ((uint32_t)j < min_fail) {
                    OP_PRAGMA(omp atomic write)
                    min_fail = (uint32_t)j;
                }
            }
        }
    }
    int failed = -1;
    for (int i = 0; i < threads; i++) {
        stat.ms_tiles_summed += slots[i].ms;
        if (slots[i].fail_index != UINT32_MAX &&
            (failed < 0 || slots[i].fail_index < slots[failed].fail_index))
            failed = i;
    }
    if (failed >= 0) {
        const uint32_t ti = list[slots[failed].fail_index];
        st = op_fail(ctx, slots[failed].fail_status, "tile (%u, %u): %s",
                     ti % c->result.tiles_x, ti / c->result.tiles_x, slots[failed].fail_msg);
        goto out;
    }
    /* Commit: nothing below allocates or fails. */
    for (uint32_t j = 0; j < k; j++) {
        const uint32_t i = list[j];
        op_tile_free(&c->result.tiles[i], &c->result.alloc);
        c->result.tiles[i] = fresh[j];
        memset(&fresh[j], 0, sizeof fresh[j]);
        c->dirty[i] = 0;
        c->rebuilt[j] = i;
        stat.spans += c->result.tiles[i].span_count;
    }
    c->dirty_count = 0;
    c->rebuilt_count = k;
    op_tiles_assemble(&c->result);
    set_world_digest(c);
    stat.rebuilt = k;
    stat.threads = threads;
    stat.ms = op_now_ms() - t_start;
    c->last = stat;
    if (stats)
        *stats = stat;
out:
    for (int i = 0; i < forked; i++)
        op_ctx_free(&slots[i].ctx);
    if (fresh)
        for (uint32_t j = 0; j < k; j++)
            op_tile_free(&fresh[j], &ctx->alloc);
    op_mem_free(&ctx->alloc, slots);
    op_mem_free(&ctx->alloc, rects);
    op_mem_free(&ctx->alloc, fresh);
    op_mem_free(&ctx->alloc, list);
    return st;
}

/* ---- Sizes ---------------------------------------------------------------------------- */

uint64_t op_tile_cache_bytes(const op_tile_cache *c)
{
    if (!c)
        return 0;
    const uint32_t n = c->result.tile_count;
    uint64_t b = (uint64_t)n * (sizeof *c->tiles + 1 + sizeof *c->rebuilt);
    for (uint32_t i = 0; c->tiles && i < n; i++) {
        const op_chf *f = &c->tiles[i].chf;
        const uint64_t spans = f->span_count ? f->span_count : 1;
        b += ((uint64_t)f->width * f->depth + 1) * 4;    /* cell_first */
        b += spans * (2 + 2 + 1 + 1 + 16 + 2);           /* y, h, area, mutual, links, layer */
    }
    b += (uint64_t)c->world_volume_count * sizeof(op_volume);
    b += (uint64_t)c->obstacle_cap * sizeof(op_obstacle);
    return b;
}

uint64_t op_tiled_result_bytes(const op_tiled_result *r)
{
    if (!r)
        return 0;
    uint64_t b = (uint64_t)r->tile_count * sizeof(op_tile);
    for (uint32_t i = 0; r->tiles && i < r->tile_count; i++) {
        const op_tile *t = &r->tiles[i];
        b += (uint64_t)t->contours.count * sizeof(op_contour);
        b += (uint64_t)t->contours.vert_storage_count * sizeof(op_contour_vert);
        b += (uint64_t)t->contours.size_storage_count * sizeof(uint32_t);
        if (t->region)
            b += (uint64_t)(t->span_count ? t->span_count : 1) * 4;
        if (t->cell_count)
            b += (uint64_t)(r->tile_size + 2ull * r->border_size) *
                 (r->tile_size + 2ull * r->border_size) * 4;
    }
    return b;
}
