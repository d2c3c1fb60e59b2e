/* The tiled bake (supplement §2): validate, bin the triangles once, run every tile on
 * the thread team (OpenMP, dynamic, largest tiles first), one worker context per
 * thread reused across tiles, results in per-tile slots; then assemble in (tz, tx)
 * order. Without OpenMP the same loop runs on this thread. */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void op_tiled_options_defaults(op_tiled_options *o)
{
    memset(o, 0, sizeof *o);
}

int op_tiled_default_threads(void) { return op_omp_max_threads(); }

int op_tiled_parallel(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

uint32_t op_tiles_along(uint32_t world_cells, uint32_t tile_size)
{
    return tile_size ? (uint32_t)(((uint64_t)world_cells + tile_size - 1) / tile_size) : 0;
}

void op_tiled_result_free(op_tiled_result *r)
{
    if (!r)
        return;
    const op_allocator a = r->alloc;
    if (r->tiles)
        for (uint32_t i = 0; i < r->tile_count; i++)
            op_tile_free(&r->tiles[i], &a);
    op_mem_free(&a, r->tiles);
    op_mem_free(&a, r->held);
    memset(r, 0, sizeof *r);
}

/* A chunk's first bad triangle (index out of range) and first non-finite vertex; the
 * smallest over chunks is reported, as a serial scan would. */
static op_status validate_mesh(op_ctx *ctx, const op_mesh *m, int threads)
{
    if (m->tri_count == 0 || m->vert_count == 0)
        return op_fail(ctx, OP_BAD_INPUT, "the input has no triangles (%u vertices, %u triangles)",
                       m->vert_count, m->tri_count);
    const uint64_t nt = 3ull * m->tri_count, nv = 3ull * m->vert_count;
    uint64_t bad_t = UINT64_MAX, bad_v = UINT64_MAX;
    OP_PRAGMA(omp parallel for num_threads(threads) schedule(static) reduction(min : bad_t))
    for (int64_t i = 0; i < (int64_t)nt; i++)
        if (m->tris[i] >= m->vert_count && (uint64_t)i < bad_t)
            bad_t = (uint64_t)i;
    if (bad_t != UINT64_MAX)
        return op_fail(ctx, OP_BAD_INPUT,
                       "triangle %llu refers to vertex %u but there are %u vertices",
                       (unsigned long long)(bad_t / 3), m->tris[bad_t], m->vert_count);
    OP_PRAGMA(omp parallel for num_threads(threads) schedule(static) reduction(min : bad_v))
    for (int64_t i = 0; i < (int64_t)nv; i++)
        if (!isfinite(m->verts[i]) && (uint64_t)i < bad_v)
            bad_v = (uint64_t)i;
    if (bad_v != UINT64_MAX)
        return op_fail(ctx, OP_BAD_INPUT, "vertex %llu has a non-finite coordinate",
                       (unsigned long long)(bad_v / 3));
    return OP_OK;
}

/* supplement §1.2 per triangle, in chunks (each triangle's mark is its own). */
static void mark_walkable(const op_mesh *m, float slope, uint8_t *areas, int threads)
{
    const uint32_t n = m->tri_count;
    const int chunks = threads < 1 ? 1 : threads * 4;
    OP_PRAGMA(omp parallel for num_threads(threads) schedule(static))
    for (int c = 0; c < chunks; c++) {
        const uint32_t i0 = (uint32_t)((uint64_t)n * (uint64_t)c / (uint64_t)chunks);
        const uint32_t i1 = (uint32_t)((uint64_t)n * (uint64_t)(c + 1) / (uint64_t)chunks);
        op_mesh part = *m;
        part.tris = m->tris + 3 * (size_t)i0;
        part.tri_count = i1 - i0;
        op_mark_walkable_triangles(&part, slope, areas + i0);
    }
}

/* Per volume, its footprint's cells grown by two (op_apply_volumes_window's cell range
 * is the footprint's plus one), as world cells: x0, x1, z0, z1. */
static void volume_rects(const op_scene *scene, const op_config *cfg, int64_t *rect)
{
    const double cs = cfg->cs;
    for (uint32_t i = 0; i < scene->volume_count; i++) {
        double x0, x1, z0, z1;
        op_volume_footprint(&scene->volumes[i], &x0, &x1, &z0, &z1);
        const double c[4] = {floor((x0 - cfg->bmin[0]) / cs) - 2, floor((x1 - cfg->bmin[0]) / cs) + 2,
                             floor((z0 - cfg->bmin[2]) / cs) - 2, floor((z1 - cfg->bmin[2]) / cs) + 2};
        for (int k = 0; k < 4; k++)
            rect[4 * (size_t)i + k] = c[k] < -1e12 ? (int64_t)-1e12
                                      : c[k] > 1e12 ? (int64_t)1e12
                                                    : (int64_t)c[k];
    }
}

/* Largest first: more binned triangles first, ties by tile index (deterministic; the
 * order only changes the schedule, never the bytes). Keys are (~count << 32 | index). */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

static op_status order_tiles(op_ctx *ctx, uint32_t *order, uint32_t n, const op_tile_bins *bins)
{
    uint64_t *key = op_ctx_alloc(ctx, n, sizeof *key, "tile order keys");
    if (!key)
        return OP_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t c = bins->first[i + 1] - bins->first[i];
        key[i] = ((uint64_t)(0xffffffffu - (c > 0xffffffffu ? 0xffffffffu : (uint32_t)c)) << 32) | i;
    }
    qsort(key, n, sizeof *key, cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        order[i] = (uint32_t)key[i];
    op_mem_free(&ctx->alloc, key);
    return OP_OK;
}

/* Hooks: the held flags of a part (with next), then plan with every tile's cost. */
static op_status plan_hooks(op_ctx *ctx, const op_tile_hooks *hk, const op_tile_bins *bins,
                            op_tiled_result *r)
{
    if (hk->next) {
        r->held = op_ctx_calloc(ctx, r->tile_count, 1, "held tiles");
        if (!r->held)
            return OP_NO_MEMORY;
    }
    if (!hk->plan)
        return OP_OK;
    uint64_t *cost = op_ctx_alloc(ctx, r->tile_count, sizeof *cost, "tile cost estimates");
    if (!cost)
        return OP_NO_MEMORY;
    const uint32_t side = r->tile_size + 2 * r->border_size;
    for (uint32_t k = 0; k < r->tile_count; k++)
        cost[k] = op_tile_cost(bins->first[k + 1] - bins->first[k], side);
    const op_status st = hk->plan(hk->user, ctx, r, cost);
    op_mem_free(&ctx->alloc, cost);
    return st;
}

/* What each thread keeps: its worker context, its first failure, its stage times.
 * Padded so two threads never share a cache line. */
typedef struct worker_slot {
    op_ctx ctx;
    uint32_t fail_index; /* UINT32_MAX: none */
    op_status fail_status;
    char fail_msg[sizeof(((op_ctx *)0)->err)];
    op_tile_times ms;
    char pad[64];
} worker_slot;

static void add_times(op_tile_times *a, const op_tile_times *b)
{
    a->rasterize += b->rasterize;
    a->filters += b->filters;
    a->compact += b->compact;
    a->erode += b->erode;
    a->volumes += b->volumes;
    a->distance += b->distance;
    a->regions += b->regions;
    a->contours += b->contours;
    a->digests += b->digests;
}

/* Progress is reported on the calling thread only (the rule of onepath/common.h): a
 * thread that finishes a tile publishes its index in `finished` (slot from a counter),
 * and the calling thread, OpenMP's master of the team, reports every published tile in
 * order after each of its own tiles and, once it has no tile left, polls until every
 * thread of the team has left the tile loop. Nothing is shared but these atomics. With
 * hooks->next the number of tiles this bake runs is not known ahead, hence threads. */
typedef struct tile_feed {
    _Atomic int out;            /* threads of the team that left the tile loop */
    _Atomic uint32_t published; /* slots of `finished` taken */
    _Atomic uint64_t *finished; /* (spans << 32 | tile index) in the order tiles
                                   finished (spans: a dropped tile's are gone); NULL:
                                   no progress callback, nothing is published */
    uint32_t reported;          /* calling thread only */
    uint64_t spans_done;        /* calling thread only */
} tile_feed;

static void feed_publish(tile_feed *f, uint32_t index, uint32_t spans)
{
    if (f->finished) {
        const uint32_t slot = atomic_fetch_add_explicit(&f->published, 1, memory_order_relaxed);
        atomic_store_explicit(&f->finished[slot], (uint64_t)spans << 32 | index,
                              memory_order_release);
    }
}

/* Calling thread: report every tile published so far, in slot order (a slot taken but
 * not yet written stops the walk until the next call). */
static void feed_report(tile_feed *f, const op_tiled_result *r, const op_tiled_options *opt)
{
    if (!f->finished)
        return;
    const uint32_t n = atomic_load_explicit(&f->published, memory_order_acquire);
    while (f->reported < n) {
        const uint64_t e = atomic_load_explicit(&f->finished[f->reported], memory_order_acquire);
        if (e == UINT64_MAX)
            break;
        const op_tile *t = &r->tiles[(uint32_t)e];
        f->spans_done += e >> 32;
        f->reported++;
        const op_tile_progress p = {f->reported, r->tile_count, f->spans_done, t->tx, t->tz};
        opt->progress(opt->progress_user, &p);
    }
}

/* Calling thread, out of tiles: report as the others finish, until the whole team has
 * left the loop (every publication happens before its thread's `out` increment). */
static void feed_drain(tile_feed *f, int team, const op_tiled_result *r,
                       const op_tiled_options *opt)
{
    const struct timespec nap = {0, 2000000}; /* 2 ms: a progress bar needs no more */
    for (;;) {
        const int all = atomic_load_explicit(&f->out, memory_order_acquire) == team;
        feed_report(f, r, opt); /* after `all` was read: then every tile is published */
        if (all || !f->finished)
            break;
        nanosleep(&nap, NULL);
    }
}

/* What the threads of the tile loop share. */
typedef struct tile_loop {
    const op_tile_job *job;
    op_tiled_result *r;
    const op_tiled_options *opt;
    tile_feed *feed;
    uint32_t min_fail;
} tile_loop;

static void note_failure(tile_loop *L, worker_slot *me, uint32_t index, op_status st)
{
    if (index < me->fail_index) {
        me->fail_index = index;
        me->fail_status = st;
        memcpy(me->fail_msg, me->ctx.err, sizeof me->fail_msg);
    }
    OP_PRAGMA(omp critical(op_tiles_fail))
    {
        uint32_t m;
        OP_PRAGMA(omp atomic read)
        m = L->min_fail;
        if (index < m) {
            OP_PRAGMA(omp atomic write)
            L->min_fail = index;
        }
    }
}

/* One tile on this thread's worker, unless a tile with a smaller index has already
 * failed: the smallest failing tile therefore always runs and is the one reported. */
static void run_one(tile_loop *L, worker_slot *me, uint32_t index)
{
    uint32_t cur;
    OP_PRAGMA(omp atomic read)
    cur = L->min_fail;
    if (index > cur)
        return;
    const op_tile_hooks *hk = L->opt->hooks;
    op_tile *t = &L->r->tiles[index];
    const double c0 = op_thread_cpu_ms();
    op_status st = op_tile_bake(&me->ctx, L->job, index, t);
    t->cpu_ms = op_thread_cpu_ms() - c0;
    op_tile_times ms = t->ms;
    add_times(&me->ms, &ms);
    if (hk && hk->done) {
        op_status hs = OP_OK;
        OP_PRAGMA(omp critical(op_tiles_hooks))
        hs = hk->done(hk->user, &me->ctx, t, st);
        if (st == OP_OK && hs != OP_OK) {
            op_tile_free(t, &me->ctx.alloc);
            st = hs;
        }
    }
    if (st != OP_OK) {
        note_failure(L, me, index, st);
        return;
    }
    const uint32_t spans = t->span_count;
    if (hk && hk->drop)
        op_tile_free(t, &L->r->alloc);
    else if (L->r->held) {
        OP_PRAGMA(omp critical(op_tiles_hooks))
        L->r->held[index] = 1;
    }
    feed_publish(L->feed, index, spans);
}

/* The tile loop: the tiles in `order` (largest first), or those hooks->next gives. */
static void run_tiles(const op_tile_job *job, op_tiled_result *r, const uint32_t *order,
                      worker_slot *slots, int threads, const op_tiled_options *opt,
                      tile_feed *feed)
{
    tile_loop L = {job, r, opt, feed, UINT32_MAX};
    const uint32_t n = r->tile_count;
    const op_tile_hooks *hk = opt->hooks;
    uint8_t *claimed = r->held; /* with next: 2 once given, 1 once held (kept) */
    OP_PRAGMA(omp parallel num_threads(threads))
    {
        const int tid = op_omp_thread();
        worker_slot *me = &slots[tid];
        if (hk && hk->next) {
            for (;;) {
                uint32_t index = 0;
                int more, again = 0;
                OP_PRAGMA(omp critical(op_tiles_hooks))
                {
                    more = hk->next(hk->user, &index);
                    if (more && index < n) {
                        again = claimed[index] != 0;
                        claimed[index] = 2;
                    }
                }
                if (!more)
                    break;
                if (index >= n || again) {
                    const op_status st =
                        op_fail(&me->ctx, OP_INVALID_ARGUMENT,
                                index >= n ? "the schedule gave tile %u of %u"
                                           : "the schedule gave tile %u twice (of %u)",
                                index, n);
                    note_failure(&L, me, index >= n ? n - 1 : index, st);
                    continue;
                }
                run_one(&L, me, index);
                if (tid == 0)
                    feed_report(feed, r, opt);
            }
        } else {
            OP_PRAGMA(omp for schedule(dynamic, 1) nowait)
            for (int64_t k = 0; k < (int64_t)n; k++) {
                run_one(&L, me, order[k]);
                if (tid == 0)
                    feed_report(feed, r, opt);
            }
        }
        atomic_fetch_add_explicit(&feed->out, 1, memory_order_release);
        if (tid == 0)
            feed_drain(feed, op_omp_team_size(), r, opt);
    }
}

/* Totals, the largest tile, and the build3d/tiles digest (serial, in (tz, tx) order). */
void op_tiles_assemble(op_tiled_result *r)
{
    uint32_t best = 0;
    r->solid_spans = r->spans = r->walkable_spans = r->triangle_refs = 0;
    r->regions = r->contours = r->contour_verts = r->owned_spans = 0;
    r->ms_slowest_tile = r->cpu_slowest_tile = 0;
    for (uint32_t i = 0; i < r->tile_count; i++) {
        const op_tile *t = &r->tiles[i];
        r->solid_spans += t->solid_spans;
        r->spans += t->span_count;
        r->owned_spans += t->owned_spans;
        r->walkable_spans += t->walkable_spans;
        r->triangle_refs += t->triangles;
        r->regions += t->region_count;
        r->contours += t->contours.count;
        r->contour_verts += t->contour_verts;
        if (t->span_count > r->tiles[best].span_count)
            best = i;
        const op_tile_times *m = &t->ms;
        const double ms = m->rasterize + m->filters + m->compact + m->erode + m->volumes +
                          m->distance + m->regions + m->contours + m->digests;
        if (ms > r->ms_slowest_tile)
            r->ms_slowest_tile = ms;
        if (t->cpu_ms > r->cpu_slowest_tile)
            r->cpu_slowest_tile = t->cpu_ms;
    }
    r->largest_tile = best;
    r->digest = r->held ? 0 : op_digest_tiles(r); /* a part cannot know the whole's */
}

/* Settings, bounds and the tile grid; fills r's description of the world. */
static op_status setup(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                       int threads, op_config *cfg, op_tiled_result *r)
{
    op_status st = op_bake_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    if (s->config.tile_size <= 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "a tiled bake needs tile_size > 0 (got %d; 0 is the solo bake)",
                       s->config.tile_size);
    if (scene->volume_count && !scene->volumes)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "scene lists %u volumes but no array",
                       scene->volume_count);
    /* All volumes once here: a tile sees only those near it. */
    st = op_volumes_validate(ctx, scene->volumes, scene->volume_count);
    if (st != OP_OK)
        return st;
    st = validate_mesh(ctx, &scene->mesh, threads);
    if (st != OP_OK)
        return st;
    *cfg = s->config;
    /* supplement §1.1: bounds default to the input's bounds. */
    if (!cfg->has_bounds) {
        op_mesh_bounds(&scene->mesh, cfg->bmin, cfg->bmax);
        cfg->has_bounds = 1;
    }
    st = op_config_grid_size(ctx, cfg, &r->world_width, &r->world_depth);
    if (st != OP_OK)
        return st;
    const uint32_t T = (uint32_t)cfg->tile_size;
    const uint32_t B = cfg->border_size < 0 ? (uint32_t)cfg->walkable_radius + 3
                                            : (uint32_t)cfg->border_size;
    const uint64_t side = (uint64_t)T + 2ull * B;
    if (side * side > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile window of %llu x %llu cells (tile_size %u + 2 x border %u) exceeds "
                       "%u cells",
                       (unsigned long long)side, (unsigned long long)side, T, B,
                       OP_MAX_GRID_CELLS);
    r->tile_size = T;
    r->border_size = B;
    r->tiles_x = op_tiles_along(r->world_width, T);
    r->tiles_z = op_tiles_along(r->world_depth, T);
    const uint64_t count = (uint64_t)r->tiles_x * r->tiles_z;
    if (count > 0x7fffffffu)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "%llu tiles of %u cells: too many; raise tile_size",
                       (unsigned long long)count, T);
    r->tile_count = (uint32_t)count;
    memcpy(r->bmin, cfg->bmin, sizeof r->bmin);
    memcpy(r->bmax, cfg->bmax, sizeof r->bmax);
    r->cs = cfg->cs;
    r->ch = cfg->ch;
    r->walkable_height = cfg->walkable_height;
    r->walkable_climb = cfg->walkable_climb;
    r->walkable_radius = cfg->walkable_radius;
    r->partition = s->regions.partition;
    /* What shards and merges compare (docs/formats.md OPSETTINGS1, OPSCENE1). */
    r->digest_settings = op_digest_tiled_settings(s, cfg, T, B);
    r->digest_world = op_digest_scene(scene);
    return OP_OK;
}

op_status op_bake_tiled(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        const op_tiled_options *opt_in, op_tiled_result *r)
{
    return op_bake_tiled_ex(ctx, scene, s, opt_in, NULL, r);
}

op_status op_bake_tiled_ex(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                           const op_tiled_options *opt_in, op_cache_tile **cache_out,
                           op_tiled_result *r)
{
    op_cache_tile *cache_tiles = NULL;
    if (cache_out)
        *cache_out = NULL;
    if (!r)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_bake_tiled: NULL result");
    memset(r, 0, sizeof *r);
    if (!ctx || !scene || !s)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_bake_tiled: NULL argument");
    r->alloc = ctx->alloc;
    op_tiled_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        op_tiled_options_defaults(&opt);
    if (opt.threads < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "threads must be >= 0 (got %d)", opt.threads);
    int threads = opt.threads ? opt.threads : op_omp_max_threads();
#ifndef _OPENMP
    threads = 1; /* a build without OpenMP runs the same loop here */
#endif
    const double t_start = op_now_ms(), c_start = op_cpu_ms();

    op_config cfg;
    op_status st = setup(ctx, scene, s, threads, &cfg, r);
    if (st != OP_OK)
        return st;
    /* More threads than tiles: the spare threads work inside the tiles' grids (the
     * stages with threads of their own; same bytes). With one tile the team has one
     * thread and its nested teams are active; with several, nested teams get threads
     * only where the application enabled nesting (omp_set_max_active_levels). */
    int inner = 1;
    if (r->tile_count > 0 && (uint32_t)threads > r->tile_count) {
        inner = threads / (int)r->tile_count;
        threads = (int)r->tile_count;
    }
    r->threads = threads;
    r->tile_threads = inner;
    r->reached = s->until;

    op_tile_bins bins;
    memset(&bins, 0, sizeof bins);
    uint32_t *order = NULL;
    worker_slot *slots = NULL;
    tile_feed feed = {0}; /* progress: see run_tiles */
    atomic_init(&feed.out, 0);
    atomic_init(&feed.published, 0);
    uint8_t *areas = op_ctx_alloc(ctx, scene->mesh.tri_count, 1, "walkable marks of the triangles");
    int64_t *vol_rect = op_ctx_alloc(ctx, (size_t)scene->volume_count * 4 + 1, sizeof *vol_rect,
                                     "volume rectangles");
    if (!areas || !vol_rect) {
        st = OP_NO_MEMORY;
        goto out;
    }
    volume_rects(scene, &cfg, vol_rect);
    mark_walkable(&scene->mesh, cfg.walkable_slope_deg, areas, threads);
    double t1 = op_now_ms(), c1 = op_cpu_ms();
    r->ms_setup = t1 - t_start;
    r->cpu_setup = c1 - c_start;

    st = op_tile_bins_build(ctx, &scene->mesh, &cfg, r->world_width, r->world_depth,
                            r->tile_size, r->border_size, threads, &bins);
    if (st != OP_OK)
        goto out;
    r->tiles = op_ctx_calloc(ctx, r->tile_count, sizeof *r->tiles, "tile results");
    order = op_ctx_alloc(ctx, r->tile_count, sizeof *order, "tile order");
    slots = op_ctx_calloc(ctx, (size_t)threads, sizeof *slots, "worker contexts");
    if (!r->tiles || !order || !slots) {
        st = OP_NO_MEMORY;
        goto out;
    }
    if (cache_out) { /* the tile cache's slots (tile_cache.c frees them) */
        cache_tiles = *cache_out = op_ctx_calloc(ctx, r->tile_count, sizeof *cache_tiles,
                                                 "cached tiles");
        if (!cache_tiles) {
            st = OP_NO_MEMORY;
            goto out;
        }
    }
    st = order_tiles(ctx, order, r->tile_count, &bins);
    if (st == OP_OK && opt.hooks)
        st = plan_hooks(ctx, opt.hooks, &bins, r);
    if (st != OP_OK)
        goto out;
    if (opt.progress) {
        feed.finished = op_ctx_alloc(ctx, r->tile_count, sizeof *feed.finished,
                                     "finished tiles (progress)");
        if (!feed.finished) {
            st = OP_NO_MEMORY;
            goto out;
        }
        for (uint32_t i = 0; i < r->tile_count; i++)
            atomic_init(&feed.finished[i], UINT64_MAX);
    }
    for (int i = 0; i < threads; i++) {
        slots[i].fail_index = UINT32_MAX;
        /* a fork allocates the worker's kernel table: its message goes to ctx */
        st = op_ctx_take_error(ctx, &slots[i].ctx, op_ctx_fork(ctx, &slots[i].ctx));
        if (st == OP_OK)
            (void)op_ctx_set_threads(&slots[i].ctx, inner); /* inner >= 1: cannot fail */
        if (st != OP_OK) {
            for (int j = 0; j < i; j++)
                op_ctx_free(&slots[j].ctx);
            goto out;
        }
    }
    double t2 = op_now_ms(), c2 = op_cpu_ms();
    r->ms_bin = t2 - t1;
    r->cpu_bin = c2 - c1;

    const op_tile_job job = {scene,      s,        cfg,          r->tile_size,     r->border_size,
                             r->world_width, r->world_depth, r->tiles_x, areas, &bins, vol_rect,
                             opt.keep_regions, opt.keep_fields, opt.owned_digest,
                             cache_tiles};
    run_tiles(&job, r, order, slots, threads, &opt, &feed);
    double t3 = op_now_ms(), c3 = op_cpu_ms();
    r->ms_tiles = t3 - t2;
    r->cpu_tiles = c3 - c2;

    /* The failure of the smallest (tz, tx), whatever thread met it. */
    int failed = -1;
    for (int i = 0; i < threads; i++) {
        if (slots[i].fail_index != UINT32_MAX &&
            (failed < 0 || slots[i].fail_index < slots[failed].fail_index))
            failed = i;
        add_times(&r->ms, &slots[i].ms);
        op_ctx_free(&slots[i].ctx);
    }
    if (failed >= 0) {
        const uint32_t fi = slots[failed].fail_index;
        st = op_fail(ctx, slots[failed].fail_status, "tile (%u, %u): %s", fi % r->tiles_x,
                     fi / r->tiles_x, slots[failed].fail_msg);
        goto out;
    }
    if (r->held) { /* a part: the tiles kept */
        r->held_count = 0;
        for (uint32_t i = 0; i < r->tile_count; i++) {
            r->held[i] = r->held[i] == 1;
            r->held_count += r->held[i];
        }
    }
    op_tiles_assemble(r);
    r->ms_assemble = op_now_ms() - t3;
    r->ms_total = op_now_ms() - t_start;
    r->cpu_assemble = op_cpu_ms() - c3;
    r->cpu_total = op_cpu_ms() - c_start;
out:
    op_mem_free(&ctx->alloc, (void *)feed.finished);
    op_mem_free(&ctx->alloc, slots);
    op_mem_free(&ctx->alloc, order);
    op_tile_bins_free(&bins);
    op_mem_free(&ctx->alloc, areas);
    op_mem_free(&ctx->alloc, vol_rect);
    if (st != OP_OK) {
        /* Keep the description, drop every tile (the result owns nothing then). */
        const op_allocator a = r->alloc;
        if (r->tiles)
            for (uint32_t i = 0; i < r->tile_count; i++)
                op_tile_free(&r->tiles[i], &a);
        op_mem_free(&a, r->tiles);
        op_mem_free(&a, r->held);
        r->tiles = NULL;
        r->held = NULL;
        r->held_count = 0;
    }
    return st;
}
