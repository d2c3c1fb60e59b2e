/* OPCACHE1, the tile cache file (docs/formats.md): a saved cache loads back (stored and
 * zstd, any thread count) into the same geometry, layers, volumes and obstacles, and its
 * first update gives the saved result's bytes; re-encoding gives the same bytes; every
 * truncation, flipped bytes and resealed inconsistent content are refused with an offset
 * and a reason; another version is unsupported; allocation failures are statuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "core/le.h"
#include "util/testalloc.h"
#include "util/testcache.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

/* A small cache with world volumes and three obstacles, up to date. */
static void small_cache(uint64_t seed, uint32_t cells, op_tile_cache *c)
{
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed, cells, 8), OP_OK);
    assert_true(s.volume_count > 0);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.regions.min_region_area = 5;
    bs.config.tile_size = 16;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.keep_regions = 1;
    assert_int_equal(op_tile_cache_bake(&g_ctx, &s, &bs, &o, c), OP_OK);
    op_rng rng = {seed};
    for (uint32_t id = 1; id <= 3; id++) {
        op_volume v;
        op_test_random_obstacle(&rng, &bs.config, 12, &v);
        assert_int_equal(op_tile_cache_add(&g_ctx, c, id * 7, &v), OP_OK);
    }
    assert_int_equal(op_tile_cache_update(&g_ctx, c, 2, NULL), OP_OK);
    snprintf(c->source, sizeof c->source, "random scene\n%llu", (unsigned long long)seed);
    op_scene_free(&s);
}

static void same_cache(const op_tile_cache *a, const op_tile_cache *b)
{
    assert_int_equal(a->result.tile_count, b->result.tile_count);
    assert_int_equal(a->world_volume_count, b->world_volume_count);
    assert_int_equal(a->obstacle_count, b->obstacle_count);
    for (uint32_t i = 0; i < a->obstacle_count; i++) {
        assert_int_equal(a->obstacles[i].id, b->obstacles[i].id);
        assert_true(op_volume_same(&a->obstacles[i].volume, &b->obstacles[i].volume));
    }
    for (uint32_t i = 0; i < a->world_volume_count; i++)
        assert_true(op_volume_same(&a->world_volumes[i], &b->world_volumes[i]));
    assert_string_equal(a->source, b->source);
    for (uint32_t i = 0; i < a->result.tile_count; i++) {
        const op_cache_tile *x = &a->tiles[i], *y = &b->tiles[i];
        assert_int_equal(x->digest_geometry, y->digest_geometry);
        assert_int_equal(x->layer_count, y->layer_count);
        assert_int_equal(x->chf.span_count, y->chf.span_count);
        assert_memory_equal(x->layer, y->layer, x->chf.span_count * sizeof *x->layer);
        int dir = 0;
        assert_int_equal(op_test_links_diff(&x->chf, &y->chf, &dir), -1);
    }
    assert_memory_equal(&a->settings.regions, &b->settings.regions, sizeof a->settings.regions);
    assert_int_equal(a->settings.until, b->settings.until);
    assert_true(a->settings.contours.max_error == b->settings.contours.max_error);
    assert_int_equal(a->keep_regions, b->keep_regions);
}

static void test_round_trip(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(101, 50, &c);
    const int levels[] = {0, 3, 19};
    for (int li = 0; li < 3; li++) {
        if (levels[li] && !op_opcache_have_zstd())
            continue;
        unsigned char *buf;
        size_t len;
        assert_int_equal(op_opcache_encode(&g_ctx, &c, levels[li], 2, &buf, &len), OP_OK);
        for (int threads = 1; threads <= 3; threads += 2) {
            op_tile_cache d;
            if (op_opcache_decode(&g_ctx, buf, len, threads, &d) != OP_OK)
                fail_msg("level %d: %s", levels[li], op_ctx_error(&g_ctx));
            same_cache(&c, &d);
            assert_int_equal(d.dirty_count, d.result.tile_count);
            assert_int_equal(d.saved_digest, c.result.digest);
            assert_int_equal(op_tile_cache_update(&g_ctx, &d, threads, NULL), OP_OK);
            char why[200];
            if (!op_test_same_tiles(&c.result, &d.result, why, sizeof why))
                fail_msg("loaded cache: %s", why);
            /* Obstacles present: no world digest; the settings digest from SETS. */
            assert_int_equal(d.result.digest_world, 0);
            assert_int_equal(d.world_digest, c.world_digest);
            assert_true(c.world_digest != 0);
            assert_int_equal(d.result.digest_settings, c.result.digest_settings);
            /* The same bytes again, whatever the thread count. */
            unsigned char *again;
            size_t len2;
            assert_int_equal(op_opcache_encode(&g_ctx, &d, levels[li], 3, &again, &len2), OP_OK);
            assert_int_equal(len2, len);
            assert_memory_equal(again, buf, len);
            op_free(&g_ctx, again);
            /* The loaded cache takes changes like the baked one; without obstacles its
             * world digest is the bake's again. */
            assert_int_equal(op_tile_cache_remove(&g_ctx, &d, 7), OP_OK);
            assert_int_equal(op_tile_cache_update(&g_ctx, &d, 1, NULL), OP_OK);
            assert_int_equal(d.result.digest_world, 0);
            assert_int_equal(op_tile_cache_remove(&g_ctx, &d, 14), OP_OK);
            assert_int_equal(op_tile_cache_remove(&g_ctx, &d, 21), OP_OK);
            assert_int_equal(op_tile_cache_update(&g_ctx, &d, 1, NULL), OP_OK);
            assert_int_equal(d.result.digest_world, c.world_digest);
            op_tile_cache_free(&d);
        }
        if (levels[li])
            printf("level %d: %zu bytes\n", levels[li], len);
        op_free(&g_ctx, buf);
    }
    /* Saved with dirty tiles: no digest to promise. */
    op_volume v = c.obstacles[0].volume;
    op_volume_translate(&v, 2, 0, 2);
    assert_int_equal(op_tile_cache_move(&g_ctx, &c, c.obstacles[0].id, &v), OP_OK);
    const char *path = op_test_tmp_path("cache.opcache");
    assert_int_equal(op_opcache_write(&g_ctx, &c, 0, 1, path), OP_OK);
    op_tile_cache d;
    assert_int_equal(op_opcache_read(&g_ctx, path, 0, &d), OP_OK);
    assert_int_equal(d.saved_digest, 0);
    assert_int_equal(op_tile_cache_update(&g_ctx, &d, 0, NULL), OP_OK);
    assert_int_equal(op_tile_cache_update(&g_ctx, &c, 0, NULL), OP_OK);
    assert_int_equal(d.result.digest, c.result.digest);
    op_tile_cache_free(&d);
    remove(path);
    assert_int_equal(op_opcache_read(&g_ctx, path, 0, &d), OP_IO_ERROR);
    op_tile_cache_free(&c);
}

static void refused(const unsigned char *buf, size_t len, const char *what, const char *text)
{
    op_tile_cache d;
    const op_status st = op_opcache_decode(&g_ctx, buf, len, 2, &d);
    if (st != OP_BAD_INPUT)
        fail_msg("%s: status %d (%s)", what, (int)st, op_ctx_error(&g_ctx));
    if (strncmp(op_ctx_error(&g_ctx), "offset ", 7) != 0)
        fail_msg("%s: no offset in '%s'", what, op_ctx_error(&g_ctx));
    if (text && !strstr(op_ctx_error(&g_ctx), text))
        fail_msg("%s: '%s' lacks '%s'", what, op_ctx_error(&g_ctx), text);
    assert_null(d.tiles);
}

static void test_truncated_and_corrupted(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(202, 40, &c);
    for (int level = 0; level <= 3; level += 3) {
        if (level && !op_opcache_have_zstd())
            continue;
        unsigned char *buf;
        size_t len;
        assert_int_equal(op_opcache_encode(&g_ctx, &c, level, 1, &buf, &len), OP_OK);
        /* Every truncation. */
        for (size_t n = 0; n < len; n++) {
            char what[64];
            snprintf(what, sizeof what, "level %d truncated to %zu", level, n);
            refused(buf, n, what, n >= 16 ? "truncated" : NULL);
        }
        /* A byte flipped anywhere (every 3rd byte; the checksums see them all). */
        unsigned char *copy = malloc(len + 1);
        for (size_t i = 0; i < len; i += (i < 16 ? 1 : 3)) {
            memcpy(copy, buf, len);
            copy[i] ^= (unsigned char)(1u << (i % 8));
            op_tile_cache d;
            const op_status st = op_opcache_decode(&g_ctx, copy, len, 1, &d);
            if (st == OP_UNSUPPORTED) { /* the version field */
                assert_true(i >= 8 && i < 12);
                continue;
            }
            if (st != OP_BAD_INPUT)
                fail_msg("level %d, byte %zu flipped: status %d", level, i, (int)st);
            assert_non_null(strstr(op_ctx_error(&g_ctx), "offset "));
        }
        /* A byte appended. */
        memcpy(copy, buf, len);
        copy[len] = 0;
        refused(copy, len + 1, "appended", "after the ENDS section");
        free(copy);
        op_free(&g_ctx, buf);
    }
    op_tile_cache_free(&c);
}

/* Recomputes every section's checksum (what a careful forger would do). */
static void reseal(unsigned char *p, size_t len)
{
    size_t pos = 16;
    while (pos + 24 <= len) {
        const uint64_t n = (uint64_t)op_le_get32(p + pos + 8) | (uint64_t)op_le_get32(p + pos + 12) << 32;
        if (n > len - pos - 24)
            break;
        const uint64_t sum = op_digest_bytes(p + pos, 16 + (size_t)n);
        op_le_put32(p + pos + 16 + n, (uint32_t)sum);
        op_le_put32(p + pos + 20 + n, (uint32_t)(sum >> 32));
        pos += 24 + (size_t)n;
    }
}

/* The first TILE section holding spans: its payload offset. */
static size_t tile_with_spans(const unsigned char *p, size_t len, uint32_t *spans)
{
    size_t pos = 16;
    while (pos + 24 <= len) {
        const uint64_t n = (uint64_t)op_le_get32(p + pos + 8) | (uint64_t)op_le_get32(p + pos + 12) << 32;
        if (op_le_get32(p + pos) == ('T' | 'I' << 8 | 'L' << 16 | (uint32_t)'E' << 24) &&
            op_le_get32(p + pos + 16 + 8) > 10) {
            *spans = op_le_get32(p + pos + 16 + 8);
            return pos + 16;
        }
        pos += 24 + (size_t)n;
    }
    fail_msg("no tile with spans");
    return 0;
}

static void test_resealed(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(303, 40, &c);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opcache_encode(&g_ctx, &c, 0, 1, &buf, &len), OP_OK);
    unsigned char *p = malloc(len);
    uint32_t n;
    const size_t tp = tile_with_spans(buf, len, &n);
    const uint32_t W = c.result.tile_size + 2 * c.result.border_size;
    const size_t data = tp + 48, cells = (size_t)W * W;
    /* A floor changed: the rebuilt field no longer hashes as stored. */
    memcpy(p, buf, len);
    size_t y0 = data + 2 * cells;
    p[y0] ^= 1;
    reseal(p, len);
    refused(p, len, "floor changed", NULL);
    /* An area changed. */
    memcpy(p, buf, len);
    p[data + 2 * cells + 3 * (size_t)n] ^= 0x21;
    reseal(p, len);
    refused(p, len, "area changed", "hashes to");
    /* A layer index at or past the tile's count. */
    memcpy(p, buf, len);
    op_le_put16(p + data + 2 * cells + 4 * (size_t)n, 0xffff);
    reseal(p, len);
    refused(p, len, "layer index", "layer index");
    /* A span moved to the next cell: counts still add up, the floors may not. */
    memcpy(p, buf, len);
    for (size_t k = 0; k + 1 < cells; k++)
        if (op_le_get16(p + data + 2 * k) > 0) {
            op_le_put16(p + data + 2 * k, (uint16_t)(op_le_get16(p + data + 2 * k) - 1));
            op_le_put16(p + data + 2 * k + 2, (uint16_t)(op_le_get16(p + data + 2 * k + 2) + 1));
            break;
        }
    reseal(p, len);
    refused(p, len, "span moved", NULL);
    /* A cell count too many. */
    memcpy(p, buf, len);
    op_le_put16(p + data, (uint16_t)(op_le_get16(p + data) + 1));
    reseal(p, len);
    refused(p, len, "cell count", "add up");
    /* A span count too large for the data. */
    memcpy(p, buf, len);
    op_le_put32(p + tp + 8, n + 1);
    reseal(p, len);
    refused(p, len, "span count", "raw size");
    /* Settings: partition, a stage, a negative walkable height, tiles_x. */
    const size_t sets = 16 + 16;
    memcpy(p, buf, len);
    op_le_put32(p + sets + 28, 0);
    reseal(p, len);
    refused(p, len, "partition", "partition");
    memcpy(p, buf, len);
    op_le_put32(p + sets + 24, 1);
    reseal(p, len);
    refused(p, len, "stage", "stage");
    memcpy(p, buf, len);
    op_le_put32(p + sets + 16, op_le_get32(p + sets + 16) + 1);
    reseal(p, len);
    refused(p, len, "tiles_x", "tiles");
    memcpy(p, buf, len);
    op_le_put32(p + sets + 68, 0);
    reseal(p, len);
    refused(p, len, "walkable height", "walkable_height");
    /* A world volume count past the end of the section. */
    memcpy(p, buf, len);
    op_le_put32(p + sets + 128, 0x40000000u);
    reseal(p, len);
    refused(p, len, "volume count", "cannot fit");
    /* Another version. */
    memcpy(p, buf, len);
    op_le_put32(p + 8, 2);
    op_tile_cache d;
    assert_int_equal(op_opcache_decode(&g_ctx, p, len, 1, &d), OP_UNSUPPORTED);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "version 2"));
    free(p);
    op_free(&g_ctx, buf);
    op_tile_cache_free(&c);
}

/* A compressed tile whose raw size claims more than zstd can give is refused before
 * anything is allocated; a build without zstd refuses a compressed file. */
static void test_zstd_claims(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(404, 40, &c);
    unsigned char *buf;
    size_t len;
    if (!op_opcache_have_zstd()) {
        assert_int_equal(op_opcache_encode(&g_ctx, &c, 3, 1, &buf, &len), OP_UNSUPPORTED);
        op_tile_cache_free(&c);
        skip();
    }
    assert_int_equal(op_opcache_encode(&g_ctx, &c, 3, 1, &buf, &len), OP_OK);
    uint32_t n;
    const size_t tp = tile_with_spans(buf, len, &n);
    unsigned char *p = malloc(len);
    memcpy(p, buf, len);
    /* A span count the cells could hold, and the raw size to match: far more than the
     * compressed bytes can expand to. */
    const uint32_t W = c.result.tile_size + 2 * c.result.border_size;
    const uint32_t spans = W * W * 30000u;
    op_le_put32(p + tp + 8, spans);
    const uint64_t raw = 2ull * W * W + 6ull * spans;
    const uint64_t data_len = op_le_get32(p + tp - 8) - 48u;
    assert_true(raw > data_len * 32768u + 131072u);
    op_le_put32(p + tp + 40, (uint32_t)raw);
    op_le_put32(p + tp + 44, (uint32_t)(raw >> 32));
    reseal(p, len);
    refused(p, len, "zstd claim", "cannot come from");
    /* The compressed bytes themselves damaged (and resealed). */
    memcpy(p, buf, len);
    p[tp + 48 + 6] ^= 0x5a;
    p[tp + 48 + 7] ^= 0xa5;
    reseal(p, len);
    refused(p, len, "zstd data", "tile (");
    free(p);
    op_free(&g_ctx, buf);
    op_tile_cache_free(&c);
}

/* Every allocation of a decode fails in turn: OP_NO_MEMORY, nothing leaked. */
static void test_decode_allocation_failure(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(505, 30, &c);
    unsigned char *buf;
    size_t len;
    const int level = op_opcache_have_zstd() ? 3 : 0;
    assert_int_equal(op_opcache_encode(&g_ctx, &c, level, 1, &buf, &len), OP_OK);
    uint64_t total = 0;
    for (uint64_t k = 0;; k++) {
        op_test_alloc ta;
        op_test_alloc_init(&ta);
        op_ctx ctx;
        assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
        ta.fail_at = k ? ta.allocs + k : 0;
        const uint64_t before = ta.allocs;
        op_tile_cache d;
        op_status st = op_opcache_decode(&ctx, buf, len, 1, &d);
        if (k == 0) {
            assert_int_equal(st, OP_OK);
            total = ta.allocs - before;
        } else if (st != OP_OK) {
            assert_int_equal(st, OP_NO_MEMORY);
            assert_true(strlen(op_ctx_error(&ctx)) > 0);
            assert_null(d.tiles);
        }
        /* And encoding it again. */
        if (st == OP_OK && k == 0) {
            unsigned char *e;
            size_t elen;
            assert_int_equal(op_opcache_encode(&ctx, &d, level, 1, &e, &elen), OP_OK);
            op_free(&ctx, e);
        }
        op_tile_cache_free(&d);
        op_ctx_free(&ctx);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.bad_frees, 0);
        if (k >= total)
            break;
    }
    assert_true(total > 20);
    op_free(&g_ctx, buf);
    op_tile_cache_free(&c);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated_and_corrupted),
        cmocka_unit_test(test_resealed),
        cmocka_unit_test(test_zstd_claims),
        cmocka_unit_test(test_decode_allocation_failure),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
