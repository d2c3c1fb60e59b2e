/* The tile cache with run-time obstacles (supplement §3, issue 13): after every step of
 * random add/move/remove sequences on the demo world and on random worlds, the cache's
 * result equals a plain tiled bake with the same volumes (digests, contours vertex by
 * vertex, region ids); obstacles on tile corners, across the band, covering a whole
 * tile; removing the last obstacle gives back the original bytes; the same bytes for any
 * thread count; bad steps change nothing; an allocation failure during an update leaves
 * the previous result intact and returns a status. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/quick.h"
#include "util/testcache.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static void cache_bake(const op_scene *s, const op_bake_settings *bs, int threads,
                       op_tile_cache *c)
{
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = threads;
    o.keep_regions = 1;
    if (op_tile_cache_bake(&g_ctx, s, bs, &o, c) != OP_OK)
        fail_msg("cache bake: %s", op_ctx_error(&g_ctx));
}

static void update(op_tile_cache *c, int threads)
{
    if (op_tile_cache_update(&g_ctx, c, threads, NULL) != OP_OK)
        fail_msg("update: %s", op_ctx_error(&g_ctx));
    assert_int_equal(c->dirty_count, 0);
}

/* The cache's result against a plain tiled bake with the same volumes. */
static void equals_plain(const op_scene *world, const op_tile_cache *c, const char *step)
{
    op_tiled_result p;
    if (op_test_plain_bake(&g_ctx, world, c, 2, &p) != OP_OK)
        fail_msg("plain bake: %s", op_ctx_error(&g_ctx));
    char why[200];
    if (!op_test_same_tiles(&c->result, &p, why, sizeof why))
        fail_msg("%s: the cache differs from a plain tiled bake: %s", step, why);
    if (!op_test_same_bake_file(&g_ctx, c, &p, why, sizeof why))
        fail_msg("%s: the cache's bake file differs from the plain bake's: %s", step, why);
    op_tiled_result_free(&p);
}

static uint32_t tile_of(const op_tile_cache *c, uint32_t tx, uint32_t tz)
{
    return tx + tz * c->result.tiles_x;
}

static int rebuilt(const op_tile_cache *c, uint32_t index)
{
    for (uint32_t i = 0; i < c->rebuilt_count; i++)
        if (c->rebuilt[i] == index)
            return 1;
    return 0;
}

/* A box of whole cells [x0, x1) x [z0, z1) (world cells), every height, area a. */
static op_volume cell_box(const op_tile_cache *c, float x0, float x1, float z0, float z1,
                          uint8_t a)
{
    const op_tiled_result *r = &c->result;
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.area = a;
    v.ymin = r->bmin[1] - 1;
    v.ymax = r->bmax[1] + 1;
    v.box_min[0] = r->bmin[0] + x0 * r->cs;
    v.box_max[0] = r->bmin[0] + x1 * r->cs;
    v.box_min[1] = r->bmin[2] + z0 * r->cs;
    v.box_max[1] = r->bmin[2] + z1 * r->cs;
    return v;
}

/* The cache's bake is the plain bake, for any thread count; the layers tiled bake
 * decides layers before the volumes (the digest differs from the §4 partition only where
 * volumes change areas). */
static void test_bake_is_plain(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 256, &s, &bs.config), OP_OK);
    bs.config.tile_size = 48;
    bs.regions.partition = OP_PARTITION_LAYERS;
    op_tile_cache c1, c3;
    cache_bake(&s, &bs, 1, &c1);
    cache_bake(&s, &bs, 3, &c3);
    char why[200];
    assert_true(op_test_same_tiles(&c1.result, &c3.result, why, sizeof why));
    equals_plain(&s, &c1, "bake");
    assert_int_equal(c1.world_volume_count, s.volume_count);
    assert_true(s.volume_count > 0);
    assert_int_equal(c1.dirty_count, 0);
    /* Every cached tile's layers are below its count and band/area-0 spans have 0. */
    for (uint32_t i = 0; i < c1.result.tile_count; i++) {
        const op_cache_tile *t = &c1.tiles[i];
        assert_int_equal(t->chf.span_count, c1.result.tiles[i].span_count);
        assert_int_equal(t->digest_geometry, op_digest_chf(&t->chf));
        for (uint32_t k = 0; k < t->chf.span_count; k++) {
            assert_true(t->layer[k] < (t->layer_count ? t->layer_count : 1));
            if (t->chf.area[k] == 0)
                assert_int_equal(t->layer[k], 0);
        }
    }
    /* An update with nothing dirty rebuilds nothing. */
    op_cache_update_stats st;
    assert_int_equal(op_tile_cache_update(&g_ctx, &c1, 2, &st), OP_OK);
    assert_int_equal(st.rebuilt, 0);
    assert_int_equal(c1.rebuilt_count, 0);
    op_tile_cache_free(&c1);
    op_tile_cache_free(&c3);
    op_scene_free(&s);
}

/* Without volumes the layer-first partition is the §4 layer partition: every tile's
 * regions equal op_build_regions_layers on its window. */
static void test_layer_first_is_layers_without_volumes(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed * 7717, 60, 30), OP_OK);
        s.volume_count = 0;
        bs.config.tile_size = 20;
        bs.regions.partition = OP_PARTITION_LAYERS;
        bs.regions.min_region_area = 6;
        op_tiled_options o;
        op_tiled_options_defaults(&o);
        o.keep_fields = o.keep_regions = 1;
        op_tiled_result r;
        assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, &o, &r), OP_OK);
        uint32_t multi = 0;
        for (uint32_t i = 0; i < r.tile_count; i++) {
            const op_tile *t = &r.tiles[i];
            uint32_t *reg = malloc((t->span_count ? t->span_count : 1) * sizeof *reg), k = 0;
            assert_int_equal(op_build_regions_layers(&g_ctx, &t->chf, &bs.regions, reg, &k), OP_OK);
            assert_int_equal(k, t->region_count);
            assert_memory_equal(reg, t->region, t->span_count * sizeof *reg);
            free(reg);
            for (uint32_t cidx = 0; cidx < t->chf.width * t->chf.depth; cidx++)
                multi += op_chf_cell_count(&t->chf, cidx) > 1;
        }
        assert_true(multi > 0); /* several floors somewhere: the general path ran */
        op_tiled_result_free(&r);
        op_scene_free(&s);
    }
}

/* Random add/move/remove; after every step the cache equals the plain bake. */
static void random_steps(const op_scene *s, const op_bake_settings *bs, uint64_t seed,
                         int steps, uint32_t max_cells)
{
    op_tile_cache c;
    cache_bake(s, bs, 2, &c);
    const uint64_t d0 = c.result.digest;
    op_rng rng = {seed};
    uint32_t next_id = 1;
    int changed_tiles = 0;
    for (int k = 0; k < steps; k++) {
        op_volume v;
        op_test_random_obstacle(&rng, &bs->config, max_cells, &v);
        const uint32_t r = op_rng_below(&rng, 10);
        char step[64];
        if (c.obstacle_count == 0 || r < 4) {
            const uint32_t id = next_id + op_rng_below(&rng, 3); /* ids with gaps */
            next_id = id + 1;
            snprintf(step, sizeof step, "step %d (add %u)", k, id);
            assert_int_equal(op_tile_cache_add(&g_ctx, &c, id, &v), OP_OK);
        } else if (r < 8) {
            const op_obstacle *o = &c.obstacles[op_rng_below(&rng, c.obstacle_count)];
            snprintf(step, sizeof step, "step %d (move %u)", k, o->id);
            if (r < 6) { /* the same shape elsewhere */
                v = o->volume;
                op_volume_translate(&v, (float)op_rng_below(&rng, 41) - 20.0f, 0,
                                    (float)op_rng_below(&rng, 41) - 20.0f);
            }
            assert_int_equal(op_tile_cache_move(&g_ctx, &c, o->id, &v), OP_OK);
        } else {
            const uint32_t id = c.obstacles[op_rng_below(&rng, c.obstacle_count)].id;
            snprintf(step, sizeof step, "step %d (remove %u)", k, id);
            assert_int_equal(op_tile_cache_remove(&g_ctx, &c, id), OP_OK);
        }
        const uint32_t dirty = c.dirty_count;
        update(&c, 1 + (int)op_rng_below(&rng, 3));
        assert_int_equal(c.rebuilt_count, dirty);
        for (uint32_t i = 1; i < c.rebuilt_count; i++)
            assert_true(c.rebuilt[i - 1] < c.rebuilt[i]);
        changed_tiles += (int)c.rebuilt_count;
        equals_plain(s, &c, step);
    }
    assert_true(changed_tiles > 0);
    /* Removing every obstacle gives back the bake's bytes. */
    while (c.obstacle_count)
        assert_int_equal(op_tile_cache_remove(&g_ctx, &c, c.obstacles[0].id), OP_OK);
    update(&c, 2);
    assert_int_equal(c.result.digest, d0);
    equals_plain(s, &c, "every obstacle removed");
    op_tile_cache_free(&c);
}

static void test_random_demo(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 256, &s, &bs.config), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    /* OP_TEST_QUICK (qemu): fewer steps of the same kind. */
    const int q = op_test_quick();
    bs.config.tile_size = 32;
    random_steps(&s, &bs, 11, q ? 4 : 14, 40);
    bs.config.tile_size = 64;
    random_steps(&s, &bs, 12, q ? 3 : 8, 90);
    op_scene_free(&s);
}

static void test_random_fields(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed * 104723, 60, 40), OP_OK);
        bs.regions.partition = OP_PARTITION_LAYERS;
        bs.regions.min_region_area = (uint32_t)(seed * 4);
        bs.config.tile_size = seed == 2 ? 23 : 16;
        if (seed == 3)
            bs.contours.max_error = 0;
        random_steps(&s, &bs, seed, op_test_quick() ? 4 : 12, 25);
        op_scene_free(&s);
    }
}

/* Obstacles on a tile corner, across the band, inside one tile, and covering a whole
 * tile window: the tiles marked are exactly those whose window the footprint reaches,
 * and the result is the plain bake's. */
static void test_corners_band_whole_tile(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 256, &s, &bs.config), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.config.tile_size = 64;
    op_tile_cache c;
    cache_bake(&s, &bs, 2, &c);
    const float T = 64, B = (float)c.result.border_size;
    assert_int_equal(B, 5); /* walkable_radius 2 + 3 */
    const uint64_t d0 = c.result.digest;

    /* Cells 63..64 around the corner of tiles (0..1, 0..1): those four tiles exactly. */
    op_volume v = cell_box(&c, T - 1 + 0.25f, T + 1 - 0.25f, T - 1 + 0.25f, T + 1 - 0.25f, 0);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 1, &v), OP_OK);
    assert_int_equal(c.dirty_count, 4);
    update(&c, 3);
    assert_true(rebuilt(&c, tile_of(&c, 0, 0)) && rebuilt(&c, tile_of(&c, 1, 0)) &&
                rebuilt(&c, tile_of(&c, 0, 1)) && rebuilt(&c, tile_of(&c, 1, 1)));
    equals_plain(&s, &c, "corner");

    /* Inside tile (2, 1)'s own cells but within B of its -x edge: tile (1, 1)'s band
     * reaches it; nothing else does. */
    v = cell_box(&c, 2 * T + 1.25f, 2 * T + 2.75f, T + 30.25f, T + 31.75f, 0);
    assert_int_equal(op_tile_cache_move(&g_ctx, &c, 1, &v), OP_OK);
    assert_int_equal(c.dirty_count, 5); /* 4 corner tiles (one of them again) and (2, 1) */
    update(&c, 2);
    assert_true(rebuilt(&c, tile_of(&c, 1, 1)) && rebuilt(&c, tile_of(&c, 2, 1)));
    equals_plain(&s, &c, "band");
    /* Just outside every band: one tile. */
    v = cell_box(&c, 2 * T + B + 0.25f, 2 * T + B + 1.75f, T + 30.25f, T + 31.75f, 0);
    assert_int_equal(op_tile_cache_move(&g_ctx, &c, 1, &v), OP_OK);
    assert_int_equal(c.dirty_count, 2); /* the old place's two tiles (one of them also new) */
    update(&c, 2);
    equals_plain(&s, &c, "inside");
    assert_int_equal(op_tile_cache_remove(&g_ctx, &c, 1), OP_OK);
    assert_int_equal(c.dirty_count, 1);
    update(&c, 1);
    assert_int_equal(c.result.digest, d0);

    /* One cell on the last and on the first column of tile (1, 1)'s window (x = 2T + B - 1
     * and x = T - B): that tile and its neighbour; the band's areas are in the tile's
     * spans digest, so a tile left out would show. */
    const float edge[2] = {2 * T + B - 1, T - B};
    for (int e = 0; e < 2; e++) {
        v = cell_box(&c, edge[e] + 0.25f, edge[e] + 0.75f, T + 20.25f, T + 20.75f, 0);
        assert_int_equal(op_tile_cache_add(&g_ctx, &c, 2, &v), OP_OK);
        assert_int_equal(c.dirty_count, 2);
        assert_true(c.dirty[tile_of(&c, 1, 1)]);
        update(&c, 2);
        equals_plain(&s, &c, e ? "first window column" : "last window column");
        assert_int_equal(op_tile_cache_remove(&g_ctx, &c, 2), OP_OK);
        update(&c, 2);
        assert_int_equal(c.result.digest, d0);
    }

    /* A cylinder centred on a corner, radius across the band of eight tiles. */
    op_volume cyl;
    memset(&cyl, 0, sizeof cyl);
    cyl.kind = OP_VOLUME_CYLINDER;
    cyl.center[0] = c.result.bmin[0] + 2 * T * c.result.cs;
    cyl.center[1] = c.result.bmin[2] + 2 * T * c.result.cs;
    cyl.radius = (T + 2) * c.result.cs;
    cyl.ymin = c.result.bmin[1] - 1;
    cyl.ymax = c.result.bmax[1] + 1;
    cyl.area = 4;
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 7, &cyl), OP_OK);
    update(&c, 3);
    assert_true(c.rebuilt_count >= 12);
    equals_plain(&s, &c, "cylinder on a corner");

    /* A box over tile (1, 2)'s whole window: no walkable span left there. */
    const uint32_t whole = tile_of(&c, 1, 2);
    v = cell_box(&c, T - B - 1, 2 * T + B + 1, 2 * T - B - 1, 3 * T + B + 1, 0);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 3, &v), OP_OK);
    update(&c, 2);
    assert_true(rebuilt(&c, whole));
    assert_int_equal(c.result.tiles[whole].walkable_spans, 0);
    assert_int_equal(c.result.tiles[whole].region_count, 0);
    assert_int_equal(c.result.tiles[whole].contours.count, 0);
    assert_true(c.result.tiles[whole].span_count > 0);
    equals_plain(&s, &c, "whole tile");

    /* Removing the last obstacles gives back the original bytes, tile by tile. */
    op_tile_cache ref;
    cache_bake(&s, &bs, 1, &ref);
    assert_int_equal(op_tile_cache_remove(&g_ctx, &c, 3), OP_OK);
    assert_int_equal(op_tile_cache_remove(&g_ctx, &c, 7), OP_OK);
    update(&c, 2);
    char why[200];
    if (!op_test_same_tiles(&c.result, &ref.result, why, sizeof why))
        fail_msg("after removing every obstacle: %s", why);
    assert_int_equal(c.result.digest, d0);
    op_tile_cache_free(&ref);
    op_tile_cache_free(&c);
    op_scene_free(&s);
}

/* The same changes on 1, 2, 3 and 8 threads give the same bytes. */
static void test_threads(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 256, &s, &bs.config), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.config.tile_size = 32;
    const int threads[] = {1, 2, 3, 8};
    uint64_t want = 0;
    for (int t = 0; t < 4; t++) {
        op_tile_cache c;
        cache_bake(&s, &bs, threads[t], &c);
        op_rng rng = {99};
        for (uint32_t id = 1; id <= 6; id++) {
            op_volume v;
            op_test_random_obstacle(&rng, &bs.config, 60, &v);
            assert_int_equal(op_tile_cache_add(&g_ctx, &c, id * 10, &v), OP_OK);
        }
        op_cache_update_stats st;
        assert_int_equal(op_tile_cache_update(&g_ctx, &c, threads[t], &st), OP_OK);
        assert_true(st.rebuilt > 4);
        const int want_threads = (uint32_t)threads[t] < st.rebuilt ? threads[t] : (int)st.rebuilt;
        assert_int_equal(st.threads, op_tiled_parallel() ? want_threads : 1);
        if (t == 0)
            want = c.result.digest;
        assert_int_equal(c.result.digest, want);
        op_tile_cache_free(&c);
    }
    op_scene_free(&s);
}

/* Bad changes are errors and change nothing. */
static void test_bad_changes(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 5, 40, 10), OP_OK);
    op_tile_cache c;
    bs.config.tile_size = 16;
    assert_int_equal(op_tile_cache_bake(&g_ctx, &s, &bs, NULL, &c), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "layers"));
    assert_null(c.tiles);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.until = OP_STAGE_SPANS;
    assert_int_equal(op_tile_cache_bake(&g_ctx, &s, &bs, NULL, &c), OP_INVALID_ARGUMENT);
    bs.until = OP_STAGE_CONTOURS;
    cache_bake(&s, &bs, 1, &c);
    op_volume v;
    op_rng rng = {3};
    op_test_random_obstacle(&rng, &bs.config, 10, &v);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 4, &v), OP_OK);
    update(&c, 1);
    const uint64_t d = c.result.digest;
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 4, &v), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "already exists"));
    assert_int_equal(op_tile_cache_move(&g_ctx, &c, 5, &v), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "does not exist"));
    assert_int_equal(op_tile_cache_remove(&g_ctx, &c, 3), OP_INVALID_ARGUMENT);
    op_volume p;
    memset(&p, 0, sizeof p);
    p.kind = OP_VOLUME_PRISM;
    p.ymax = 10;
    const float star[] = {0, 0, 4, 0, 1, 1, 4, 4, 0, 4}; /* a dent at (1, 1) */
    p.vert_count = 5;
    memcpy(p.verts, star, sizeof star);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 9, &p), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "not convex"));
    const float line[] = {0, 0, 1, 1, 2, 2};
    p.vert_count = 3;
    memcpy(p.verts, line, sizeof line);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 9, &p), OP_INVALID_ARGUMENT);
    /* A pentagram turns one way all round but winds twice. */
    const float penta[] = {0, 10, 6, -8, -9.5f, 3, 9.5f, 3, -6, -8};
    p.vert_count = 5;
    memcpy(p.verts, penta, sizeof penta);
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 9, &p), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "winds"));
    const float square[] = {0, 0, 4, 0, 4, 4, 0, 4};
    p.vert_count = 4;
    memcpy(p.verts, square, sizeof square);
    assert_int_equal(op_obstacle_validate(&g_ctx, &p), OP_OK);
    p.ymin = 11;
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 9, &p), OP_INVALID_ARGUMENT);
    v.radius = -1;
    v.kind = OP_VOLUME_CYLINDER;
    assert_int_equal(op_tile_cache_move(&g_ctx, &c, 4, &v), OP_INVALID_ARGUMENT);
    v.kind = OP_VOLUME_BOX;
    v.box_min[0] = 0.0f / 0.0f;
    assert_int_equal(op_tile_cache_add(&g_ctx, &c, 11, &v), OP_INVALID_ARGUMENT);
    assert_int_equal(c.obstacle_count, 1);
    assert_int_equal(c.dirty_count, 0);
    assert_int_equal(c.result.digest, d);
    /* An update with another allocator is refused. */
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx other;
    assert_int_equal(op_test_alloc_ctx_init(&other, &ta, OP_ISA_AUTO), OP_OK);
    assert_int_equal(op_tile_cache_update(&other, &c, 1, NULL), OP_INVALID_ARGUMENT);
    op_ctx_free(&other);
    op_tile_cache_free(&c);
    op_scene_free(&s);
}

/* Every allocation of an update, failed in turn: OP_NO_MEMORY with a message naming a
 * tile, the previous result, dirty marks and rebuilt list untouched, nothing leaked; the
 * next update succeeds and equals the plain bake. */
static void test_update_allocation_failure(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 17, 50, 10), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.config.tile_size = 16;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    o.keep_regions = 1;
    op_tile_cache c;
    assert_int_equal(op_tile_cache_bake(&ctx, &s, &bs, &o, &c), OP_OK);
    op_rng rng = {5};
    op_volume v;
    op_test_random_obstacle(&rng, &bs.config, 12, &v);
    assert_int_equal(op_tile_cache_add(&ctx, &c, 1, &v), OP_OK);
    assert_int_equal(op_tile_cache_update(&ctx, &c, 1, NULL), OP_OK);
    uint32_t prev_rebuilt = c.rebuilt_count;
    uint32_t first_rebuilt = prev_rebuilt ? c.rebuilt[0] : 0;
    /* The change to fail: a large cylinder (many tiles). */
    op_volume big = v;
    big.kind = OP_VOLUME_CYLINDER;
    big.center[0] = (bs.config.bmin[0] + bs.config.bmax[0]) / 2;
    big.center[1] = (bs.config.bmin[2] + bs.config.bmax[2]) / 2;
    big.radius = 6 * bs.config.cs;
    assert_int_equal(op_tile_cache_move(&ctx, &c, 1, &big), OP_OK);
    const uint32_t dirty = c.dirty_count;
    assert_true(dirty >= 2);
    const uint64_t digest = c.result.digest;
    uint64_t *tile_digests = malloc(c.result.tile_count * sizeof *tile_digests);
    for (uint32_t i = 0; i < c.result.tile_count; i++)
        tile_digests[i] = c.result.tiles[i].digest_contours ^ c.result.tiles[i].digest_regions;
    uint32_t failures = 0;
    for (int threads = 1; threads <= 2; threads++) {
        for (uint64_t n = 1;; n++) {
            const size_t live = ta.live_bytes;
            ta.fail_at = ta.allocs + n;
            const op_status st = op_tile_cache_update(&ctx, &c, threads, NULL);
            ta.fail_at = 0;
            if (st == OP_OK)
                break;
            failures++;
            assert_int_equal(st, OP_NO_MEMORY);
            assert_true(strlen(op_ctx_error(&ctx)) > 0);
            assert_int_equal(c.result.digest, digest);
            assert_int_equal(c.dirty_count, dirty);
            assert_int_equal(c.rebuilt_count, prev_rebuilt);
            if (prev_rebuilt)
                assert_int_equal(c.rebuilt[0], first_rebuilt);
            for (uint32_t i = 0; i < c.result.tile_count; i++)
                assert_int_equal(tile_digests[i],
                                 c.result.tiles[i].digest_contours ^ c.result.tiles[i].digest_regions);
            assert_int_equal(ta.live_bytes, live);
            assert_int_equal(ta.bad_frees, 0);
        }
        if (threads == 1) {
            /* Undo the success to fail the update again with two threads. */
            assert_int_equal(op_tile_cache_move(&ctx, &c, 1, &v), OP_OK);
            assert_int_equal(op_tile_cache_update(&ctx, &c, 1, NULL), OP_OK);
            prev_rebuilt = c.rebuilt_count;
            first_rebuilt = c.rebuilt[0];
            assert_int_equal(op_tile_cache_move(&ctx, &c, 1, &big), OP_OK);
            assert_int_equal(c.result.digest, digest);
        }
    }
    assert_true(failures > 2 * dirty); /* every tile's arrays, and the bookkeeping */
    assert_int_equal(c.dirty_count, 0);
    op_tiled_result p;
    assert_int_equal(op_test_plain_bake(&g_ctx, &s, &c, 1, &p), OP_OK);
    char why[200];
    assert_true(op_test_same_tiles(&c.result, &p, why, sizeof why));
    op_tiled_result_free(&p);
    /* The obstacle table cannot grow: add fails and changes nothing. */
    for (uint32_t id = 2; c.obstacle_count < c.obstacle_cap; id++)
        assert_int_equal(op_tile_cache_add(&ctx, &c, id, &v), OP_OK);
    const uint32_t count = c.obstacle_count;
    ta.fail_at = ta.allocs + 1;
    assert_int_equal(op_tile_cache_add(&ctx, &c, 1000, &v), OP_NO_MEMORY);
    ta.fail_at = 0;
    assert_int_equal(c.obstacle_count, count);
    assert_null(op_tile_cache_find(&c, 1000));
    free(tile_digests);
    op_tile_cache_free(&c);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
    op_scene_free(&s);
}

/* Every allocation of the cache's bake fails in turn: a status, nothing leaked. */
static void test_bake_allocation_failure(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 23, 24, 4), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.config.tile_size = 12;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    uint64_t total = 0;
    for (uint64_t n = 0;; n++) {
        op_test_alloc ta;
        op_test_alloc_init(&ta);
        ta.fail_at = n;
        op_ctx ctx;
        op_tile_cache c;
        memset(&c, 0, sizeof c);
        op_status st = op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO);
        if (st == OP_OK)
            st = op_tile_cache_bake(&ctx, &s, &bs, &o, &c);
        if (n == 0) {
            assert_int_equal(st, OP_OK);
            total = ta.allocs;
        } else if (n <= total && st != OP_OK) {
            assert_int_equal(st, OP_NO_MEMORY);
            assert_true(strlen(op_ctx_error(&ctx)) > 0);
            assert_null(c.tiles);
        }
        op_tile_cache_free(&c);
        op_ctx_free(&ctx);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.bad_frees, 0);
        if (n >= total)
            break;
    }
    assert_true(total > 50);
    op_scene_free(&s);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const char *filter = getenv("OP_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bake_is_plain),
        cmocka_unit_test(test_layer_first_is_layers_without_volumes),
        cmocka_unit_test(test_bad_changes),
        cmocka_unit_test(test_corners_band_whole_tile),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_random_fields),
        cmocka_unit_test(test_random_demo),
        cmocka_unit_test(test_update_allocation_failure),
        cmocka_unit_test(test_bake_allocation_failure),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
