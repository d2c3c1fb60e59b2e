/* The compact field's far links (core/links16.h, docs/decisions/memory.md round 11): with
 * the test hook op_dlink_near_limit lowered, links go to the per-direction far tables
 * (-1: every link), and every digest stays that of a normal bake: a solo bake per
 * partition (in-place compaction), a bake on threads (per-chunk far tables merged in
 * row order), a tiled bake, a tile cache through its OPCACHE file (the reader rebuilds
 * the links), and a field through OPCHF1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/links16.h"
#include "onepath/onepath.h"
#include "util/testutil.h"

static const int32_t limits[] = {-1, 0, 3, 200};
#define NLIMITS (sizeof limits / sizeof limits[0])

typedef struct digests {
    uint64_t spans, distance, regions, contours;
    uint32_t regions_n, contours_n, far;
} digests;

static void bake(op_partition p, int threads, digests *out)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    assert_int_equal(op_ctx_set_threads(&ctx, threads), OP_OK);
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    assert_int_equal(op_demo_world(&ctx, 256, &scene, &s.config), OP_OK);
    s.regions.partition = p;
    op_bake_result r;
    if (op_bake_scene(&ctx, &scene, &s, &r) != OP_OK)
        fail_msg("bake: %s", op_ctx_error(&ctx));
    assert_int_equal(r.reached, OP_STAGE_CONTOURS);
    out->spans = r.digest_spans;
    out->distance = r.digest_distance;
    out->regions = r.digest_regions;
    out->contours = r.digest_contours;
    out->regions_n = r.region_count;
    out->contours_n = r.contours.count;
    out->far = 0;
    for (int d = 0; d < 4; d++) {
        out->far += r.chf.far[d].count;
        for (uint32_t i = 1; i < r.chf.far[d].count; i++)
            assert_true(r.chf.far[d].span[i - 1] < r.chf.far[d].span[i]);
    }
    /* Through OPCHF1 and back: the reader's links (op_chf_set_link in span order). */
    if (p == OP_PARTITION_WATERSHED && threads == 1) {
        unsigned char *buf;
        size_t len;
        assert_int_equal(op_opchf_encode(&ctx, &r.chf, &buf, &len), OP_OK);
        op_chf back;
        assert_int_equal(op_opchf_decode(&ctx, buf, len, &back), OP_OK);
        assert_int_equal(op_digest_chf(&back), op_digest_chf(&r.chf));
        assert_int_equal(op_test_links_diff(&back, &r.chf, NULL), -1);
        op_chf_free(&back);
        op_free(&ctx, buf);
    }
    op_bake_result_free(&r);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
}

static void same(const digests *a, const digests *b, const char *what, int32_t limit)
{
    if (a->spans != b->spans || a->distance != b->distance || a->regions != b->regions ||
        a->contours != b->contours || a->regions_n != b->regions_n ||
        a->contours_n != b->contours_n)
        fail_msg("%s, op_dlink_near_limit %d: digests differ from the normal bake", what,
                 limit);
}

static void bakes(op_partition p, int threads)
{
    const int32_t keep = op_dlink_near_limit;
    digests want, got;
    bake(p, threads, &want);
    assert_int_equal(want.far, 0); /* the demo world needs none */
    for (size_t i = 0; i < NLIMITS; i++) {
        op_dlink_near_limit = limits[i];
        bake(p, threads, &got);
        op_dlink_near_limit = keep;
        same(&want, &got, op_partition_name(p), limits[i]);
        assert_true(got.far > 0);
    }
}

static void test_watershed(void **state)
{
    (void)state;
    bakes(OP_PARTITION_WATERSHED, 1);
}

static void test_monotone(void **state)
{
    (void)state;
    bakes(OP_PARTITION_MONOTONE, 1);
}

static void test_layers(void **state)
{
    (void)state;
    bakes(OP_PARTITION_LAYERS, 1);
}

static void test_threads(void **state)
{
    (void)state;
    bakes(OP_PARTITION_WATERSHED, 4);
}

/* A tiled bake's digest, and a tile cache saved, read back (the reader rebuilds each
 * tile's links, op_chf_build_links, and checks each tile's OPCHFD1) and updated. */
static void tiled(int32_t limit, uint64_t *digest, uint64_t *cache_digest)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    assert_int_equal(op_demo_world(&ctx, 256, &scene, &s.config), OP_OK);
    s.config.tile_size = 64;
    s.regions.partition = OP_PARTITION_LAYERS; /* the tile cache's partition */
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    const int32_t keep = op_dlink_near_limit;
    op_dlink_near_limit = limit;
    op_tiled_result r;
    if (op_bake_tiled(&ctx, &scene, &s, &o, &r) != OP_OK)
        fail_msg("tiled bake: %s", op_ctx_error(&ctx));
    *digest = r.digest;
    op_tiled_result_free(&r);
    op_tile_cache c;
    op_tiled_options_defaults(&o);
    o.keep_regions = 1;
    if (op_tile_cache_bake(&ctx, &scene, &s, &o, &c) != OP_OK)
        fail_msg("cache bake: %s", op_ctx_error(&ctx));
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opcache_encode(&ctx, &c, 0, 1, &buf, &len), OP_OK);
    op_tile_cache back;
    if (op_opcache_decode(&ctx, buf, len, 1, &back) != OP_OK)
        fail_msg("cache read: %s", op_ctx_error(&ctx));
    if (op_tile_cache_update(&ctx, &back, 1, NULL) != OP_OK)
        fail_msg("cache update: %s", op_ctx_error(&ctx));
    op_dlink_near_limit = keep;
    *cache_digest = back.result.digest;
    assert_int_equal(back.result.digest, c.result.digest);
    op_tile_cache_free(&back);
    op_tile_cache_free(&c);
    op_free(&ctx, buf);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
}

static void test_tiled(void **state)
{
    (void)state;
    uint64_t want, want_cache;
    tiled(op_dlink_near_limit, &want, &want_cache);
    for (size_t i = 0; i < NLIMITS; i++) {
        uint64_t got, got_cache;
        tiled(limits[i], &got, &got_cache);
        if (got != want || got_cache != want_cache)
            fail_msg("tiled, op_dlink_near_limit %d: digests differ", limits[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watershed), cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_layers),    cmocka_unit_test(test_threads),
        cmocka_unit_test(test_tiled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
