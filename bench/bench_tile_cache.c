/* onepath_bench — the tile cache (issue 13 "Benchmarks"): per obstacle change on the
 * demo world (1024 cells a side, 512 with --quick) with T = 64 and T = 128, one thread:
 *
 *   cache/update/T<T>/demo<N>      one iteration = a fixed cycle of CHANGES moves of one
 *                                  cylinder (radius 1.5 wu, every height, area 0) through
 *                                  tile interiors, edges, bands and corners, each followed
 *                                  by op_tile_cache_update (1 thread)
 *   cache/bake-tiles/T<T>/demo<N>  the same tiles, as many times as the cycle rebuilds
 *                                  them, baked from triangles (op_tile_bake: the spans
 *                                  stage of the window, layers, volumes, regions,
 *                                  contours, digests), 1 thread
 *   cache/load/T<T>/demo<N>        op_opcache_decode of the saved cache (zstd level 3 when
 *                                  the build has zstd), 1 thread
 *
 * Items: rebuilt tiles for the first two (items/s = tiles/s, so microseconds per rebuilt
 * tile = 1e6 / items_per_second and the ratio of the two cases' times is the speed-up of
 * a rebuild over a bake of the same tiles), spans for the load. Counters: tiles rebuilt
 * per change, cache bytes per span in memory and in the file (stored and zstd).
 * Before and after timing the update case checks that the cache equals a plain tiled
 * bake with the cylinder at the cycle's last position, and the bake case checks each
 * tile's digests against the cache's. */
#include "shim.h"

#include "onepath/onepath.h"
#include "parallel/parallel_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_bench_register_tile_cache(int quick);

#define CHANGES 16

typedef struct cworld {
    uint32_t size, T;
    op_scene scene;
    op_bake_settings s;
    op_ctx ctx;
    op_tile_cache cache;
    op_volume pos[CHANGES]; /* the cylinder at each position of the cycle */
    uint32_t *tiles;        /* the tiles one cycle rebuilds, with repeats */
    uint32_t ntiles;
    unsigned char *file;
    size_t file_len, stored_len;
    /* op_tile_bake's job. */
    op_tile_bins bins;
    uint8_t *tri_areas;
    int64_t *vol_rect;
    op_tile_job job;
    int ok;
} cworld;

static void die(const char *what, const op_ctx *ctx)
{
    fprintf(stderr, "onepath_bench: cache: %s: %s\n", what, ctx ? op_ctx_error(ctx) : "");
    exit(2);
}

/* Centre of the cylinder at step k: tile interiors, edges and corners, in world units. */
static void position(cworld *w, int k, op_volume *v)
{
    const op_tiled_result *r = &w->cache.result;
    const double tw = r->tile_size * r->cs, span = r->world_width * r->cs;
    /* Tile fractions: interior, band of the -x edge, corner, +z edge ... */
    static const double fx[CHANGES] = {0.5, 0.02, 0.0, 0.97, 0.5, 0.3, 0.0, 0.5,
                                       0.9, 0.1, 0.5, 0.0, 0.75, 0.25, 0.98, 0.5};
    static const double fz[CHANGES] = {0.5, 0.5, 0.0, 0.5, 0.03, 0.7, 0.5, 0.0,
                                       0.9, 0.1, 0.97, 0.0, 0.25, 0.75, 0.02, 0.5};
    const uint32_t tiles = r->tiles_x;
    const uint32_t tx = 1 + (uint32_t)(k * 5) % (tiles - 2), tz = 1 + (uint32_t)(k * 3) % (tiles - 2);
    memset(v, 0, sizeof *v);
    v->kind = OP_VOLUME_CYLINDER;
    v->area = 0;
    v->radius = 1.5f;
    v->ymin = r->bmin[1] - 1;
    v->ymax = r->bmax[1] + 1;
    v->center[0] = (float)(r->bmin[0] + fmin((tx + fx[k]) * tw, span - 1));
    v->center[1] = (float)(r->bmin[2] + fmin((tz + fz[k]) * tw, span - 1));
}

/* One cycle of changes; appends the rebuilt tiles when record. */
static op_status cycle(cworld *w, int record)
{
    for (int k = 0; k < CHANGES; k++) {
        op_status st = op_tile_cache_move(&w->ctx, &w->cache, 1, &w->pos[k]);
        if (st == OP_OK)
            st = op_tile_cache_update(&w->ctx, &w->cache, 1, NULL);
        if (st != OP_OK)
            return st;
        for (uint32_t i = 0; record && i < w->cache.rebuilt_count; i++)
            w->tiles[w->ntiles++] = w->cache.rebuilt[i];
    }
    return OP_OK;
}

/* The cache against a plain tiled bake with the cylinder where the cycle left it. */
static int equals_plain(cworld *w, op_bench_state *st, const char *when)
{
    op_scene s = w->scene;
    const uint32_t n = w->cache.world_volume_count + 1;
    op_volume *v = malloc(n * sizeof *v);
    if (!v)
        die("out of memory", NULL);
    memcpy(v, w->cache.world_volumes, (n - 1) * sizeof *v);
    v[n - 1] = w->cache.obstacles[0].volume;
    s.volumes = v;
    s.volume_count = s.volume_cap = n;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    op_tiled_result r;
    const op_status rs = op_bake_tiled(&w->ctx, &s, &w->s, &o, &r);
    free(v);
    int bad = rs != OP_OK || r.digest != w->cache.result.digest;
    if (bad)
        op_bench_error(st, "cache T=%u demo%u differs from a plain tiled bake (%s)", w->T, w->size,
                       when);
    op_tiled_result_free(&r);
    return bad;
}

static void prepare(cworld *w)
{
    if (op_ctx_init(&w->ctx, OP_ISA_AUTO) != OP_OK)
        die("context", &w->ctx);
    op_bake_settings_defaults(&w->s);
    if (op_demo_world(&w->ctx, w->size, &w->scene, &w->s.config) != OP_OK)
        die("demo world", &w->ctx);
    w->s.config.tile_size = (int)w->T;
    w->s.regions.partition = OP_PARTITION_LAYERS;
    op_tiled_options o;
    op_tiled_options_defaults(&o); /* no region ids kept: as the plain tile bake below */
    if (op_tile_cache_bake(&w->ctx, &w->scene, &w->s, &o, &w->cache) != OP_OK)
        die("cache bake", &w->ctx);
    w->s = w->cache.settings;
    for (int k = 0; k < CHANGES; k++)
        position(w, k, &w->pos[k]);
    if (op_tile_cache_add(&w->ctx, &w->cache, 1, &w->pos[CHANGES - 1]) != OP_OK ||
        op_tile_cache_update(&w->ctx, &w->cache, 1, NULL) != OP_OK)
        die("first obstacle", &w->ctx);
    w->tiles = malloc((size_t)CHANGES * w->cache.result.tile_count * sizeof *w->tiles);
    if (!w->tiles || cycle(w, 1) != OP_OK)
        die("cycle", &w->ctx);
    const int level = op_opcache_have_zstd() ? 3 : 0;
    if (op_opcache_encode(&w->ctx, &w->cache, 0, 1, &w->file, &w->stored_len) != OP_OK)
        die("encode", &w->ctx);
    op_free(&w->ctx, w->file);
    if (op_opcache_encode(&w->ctx, &w->cache, level, 1, &w->file, &w->file_len) != OP_OK)
        die("encode", &w->ctx);
    /* The plain bake's pieces for op_tile_bake. */
    const op_mesh *m = &w->scene.mesh;
    w->tri_areas = malloc(m->tri_count ? m->tri_count : 1);
    w->vol_rect = malloc((4 * (size_t)w->scene.volume_count + 4) * sizeof *w->vol_rect);
    if (!w->tri_areas || !w->vol_rect)
        die("out of memory", NULL);
    op_mark_walkable_triangles(m, w->s.config.walkable_slope_deg, w->tri_areas);
    const op_tiled_result *r = &w->cache.result;
    for (uint32_t i = 0; i < w->scene.volume_count; i++) {
        double x0, x1, z0, z1;
        op_volume_footprint(&w->scene.volumes[i], &x0, &x1, &z0, &z1);
        w->vol_rect[4 * i] = (int64_t)floor((x0 - r->bmin[0]) / r->cs) - 2;
        w->vol_rect[4 * i + 1] = (int64_t)floor((x1 - r->bmin[0]) / r->cs) + 2;
        w->vol_rect[4 * i + 2] = (int64_t)floor((z0 - r->bmin[2]) / r->cs) - 2;
        w->vol_rect[4 * i + 3] = (int64_t)floor((z1 - r->bmin[2]) / r->cs) + 2;
    }
    if (op_tile_bins_build(&w->ctx, m, &w->s.config, r->world_width, r->world_depth,
                           r->tile_size, r->border_size, 1, &w->bins) != OP_OK)
        die("bins", &w->ctx);
    const op_tile_job job = {&w->scene, &w->s, w->s.config, r->tile_size, r->border_size,
                             r->world_width, r->world_depth, r->tiles_x, w->tri_areas,
                             &w->bins, w->vol_rect, 0, 0, 0, NULL};
    w->job = job;
    w->ok = 1;
}

/* ---- cases ------------------------------------------------------------------------------ */

static void counters(cworld *w, op_bench_state *st)
{
    const double spans = (double)w->cache.result.spans;
    op_bench_counter(st, "tiles_per_change", (double)w->ntiles / CHANGES);
    op_bench_counter(st, "memory_bytes_per_span", (double)op_tile_cache_bytes(&w->cache) / spans);
    op_bench_counter(st, "file_bytes_per_span", (double)w->file_len / spans);
    op_bench_counter(st, "stored_bytes_per_span", (double)w->stored_len / spans);
}

static int update_before(void *user, op_bench_state *st)
{
    cworld *w = user;
    counters(w, st);
    return equals_plain(w, st, "before timing");
}
static uint64_t update_iter(void *user)
{
    cworld *w = user;
    if (cycle(w, 0) != OP_OK)
        die("update", &w->ctx);
    op_bench_escape(w->cache.result.tiles);
    return w->cache.result.digest;
}
static int update_after(void *user, op_bench_state *st)
{
    return equals_plain(user, st, "after timing");
}

static uint64_t bake_iter(void *user)
{
    cworld *w = user;
    uint64_t x = 0;
    for (uint32_t i = 0; i < w->ntiles; i++) {
        op_tile t;
        if (op_tile_bake(&w->ctx, &w->job, w->tiles[i], &t) != OP_OK)
            die("tile bake", &w->ctx);
        x ^= t.digest_contours;
        op_tile_free(&t, &w->ctx.alloc);
    }
    return x;
}
static int bake_before(void *user, op_bench_state *st)
{
    cworld *w = user;
    counters(w, st);
    /* The cycle left the cylinder at its last position: tiles baked from triangles with
     * it (scene volumes + the obstacle) equal the cache's tiles. */
    op_scene s = w->scene;
    const uint32_t n = w->cache.world_volume_count + 1;
    op_volume *v = malloc(n * sizeof *v);
    int64_t *rect = malloc(4 * (size_t)n * sizeof *rect);
    memcpy(v, w->cache.world_volumes, (n - 1) * sizeof *v);
    memcpy(rect, w->vol_rect, 4 * (size_t)(n - 1) * sizeof *rect);
    v[n - 1] = w->cache.obstacles[0].volume;
    rect[4 * (n - 1)] = INT64_MIN / 2;
    rect[4 * (n - 1) + 1] = INT64_MAX / 2;
    rect[4 * (n - 1) + 2] = INT64_MIN / 2;
    rect[4 * (n - 1) + 3] = INT64_MAX / 2;
    s.volumes = v;
    s.volume_count = n;
    op_tile_job job = w->job;
    job.scene = &s;
    job.vol_rect = rect;
    int bad = 0;
    for (uint32_t i = 0; i < w->cache.rebuilt_count && !bad; i++) {
        const uint32_t k = w->cache.rebuilt[i];
        op_tile t;
        if (op_tile_bake(&w->ctx, &job, k, &t) != OP_OK)
            die("tile bake", &w->ctx);
        const op_tile *c = &w->cache.result.tiles[k];
        bad = t.digest_spans != c->digest_spans || t.digest_regions != c->digest_regions ||
              t.digest_contours != c->digest_contours;
        op_tile_free(&t, &w->ctx.alloc);
    }
    free(v);
    free(rect);
    if (bad)
        op_bench_error(st, "a tile baked from triangles differs from the cache's");
    return bad;
}

static uint64_t load_iter(void *user)
{
    cworld *w = user;
    op_tile_cache c;
    if (op_opcache_decode(&w->ctx, w->file, w->file_len, 1, &c) != OP_OK)
        die("decode", &w->ctx);
    const uint64_t x = c.tiles[c.result.tile_count / 2].digest_geometry;
    op_tile_cache_free(&c);
    return x;
}
static int load_before(void *user, op_bench_state *st)
{
    counters(user, st);
    return 0;
}

void op_bench_register_tile_cache(int quick)
{
    static const uint32_t Ts[2] = {64, 128};
    for (int t = 0; t < 2; t++) {
        cworld *w = calloc(1, sizeof *w);
        if (!w)
            die("out of memory", NULL);
        w->size = quick ? 512 : 1024;
        w->T = Ts[t];
        prepare(w);
        char name[128];
        snprintf(name, sizeof name, "cache/update/T%u/demo%u", w->T, w->size);
        op_bench_case u = {name, w, w->ntiles, update_before, update_iter, update_after, NULL};
        int bad = op_bench_register(&u);
        snprintf(name, sizeof name, "cache/bake-tiles/T%u/demo%u", w->T, w->size);
        op_bench_case b = {name, w, w->ntiles, bake_before, bake_iter, NULL, NULL};
        bad |= op_bench_register(&b);
        snprintf(name, sizeof name, "cache/load/T%u/demo%u", w->T, w->size);
        op_bench_case l = {name, w, w->cache.result.spans, load_before, load_iter, NULL, NULL};
        bad |= op_bench_register(&l);
        if (bad)
            die("register", NULL);
    }
}
