/* The tiled bake's progress callback (issue 11, the rule of onepath/common.h): it runs on
 * the thread that called op_bake_tiled only, whatever thread finished the tile; it
 * reports every finished tile once, tiles_done counts 1, 2, ... and ends at tile_count,
 * spans_done adds the reported tiles' spans; after a failing tile it still returns on
 * the calling thread and reports only tiles that finished. 1, 2, 3, 8 and 16 threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testscene.h"

static const int THREADS[] = {1, 2, 3, 8, 16};
#define NTHREADS (sizeof THREADS / sizeof THREADS[0])

/* Set on the calling thread only: a callback on any other thread sees 0. */
static _Thread_local int t_caller;

typedef struct seen {
    uint32_t calls, foreign, out_of_order, bad_total, duplicates, last_done;
    uint64_t spans_done;  /* the last report's */
    uint32_t tile_count;
    uint32_t order[4096];     /* tile indices in report order */
    uint64_t done_spans[4096];
} seen;

static void on_progress(void *user, const op_tile_progress *p)
{
    seen *s = user;
    s->calls++;
    if (!t_caller)
        s->foreign++;
    if (p->tiles_done != s->last_done + 1)
        s->out_of_order++;
    s->last_done = p->tiles_done;
    if (p->tile_count != s->tile_count)
        s->bad_total++;
    if (s->calls <= 4096) {
        s->order[s->calls - 1] = p->tx | (p->tz << 16);
        s->done_spans[s->calls - 1] = p->spans_done;
    }
    s->spans_done = p->spans_done;
}

/* The reports against the result: each tile once, spans_done the running sum. */
static void check_reports(seen *s, const op_tiled_result *r, int complete, int threads)
{
    if (s->foreign)
        fail_msg("%d threads: %u of %u progress calls on another thread", threads, s->foreign,
                 s->calls);
    assert_int_equal(s->out_of_order, 0);
    assert_int_equal(s->bad_total, 0);
    assert_true(s->calls <= 4096);
    uint8_t *hit = calloc(s->tile_count, 1);
    assert_non_null(hit);
    uint64_t sum = 0;
    for (uint32_t k = 0; k < s->calls; k++) {
        const uint32_t tx = s->order[k] & 0xffff, tz = s->order[k] >> 16;
        assert_true(tx < r->tiles_x && tz < r->tiles_z);
        const uint32_t i = tx + tz * r->tiles_x;
        if (hit[i]++)
            fail_msg("%d threads: tile (%u, %u) reported twice", threads, tx, tz);
        if (complete) {
            sum += r->tiles[i].span_count;
            assert_int_equal(s->done_spans[k], sum);
        }
    }
    if (complete) {
        assert_int_equal(s->calls, r->tile_count);
        assert_int_equal(s->last_done, r->tile_count);
        assert_int_equal(s->spans_done, r->spans);
    } else {
        assert_true(s->calls < s->tile_count);
    }
    free(hit);
}

static void run_world(op_ctx *ctx, const op_scene *sc, const op_bake_settings *bs)
{
    for (size_t k = 0; k < NTHREADS; k++) {
        seen *s = calloc(1, sizeof *s);
        assert_non_null(s);
        op_tiled_options o;
        op_tiled_options_defaults(&o);
        o.threads = THREADS[k];
        o.progress = on_progress;
        o.progress_user = s;
        /* The same bake without progress: the tile count and the digest to match. */
        op_tiled_result r;
        op_tiled_options q = o;
        q.progress = NULL;
        if (op_bake_tiled(ctx, sc, bs, &q, &r) != OP_OK)
            fail_msg("%s", op_ctx_error(ctx));
        s->tile_count = r.tile_count;
        const uint64_t digest = r.digest;
        op_tiled_result_free(&r);

        t_caller = 1;
        if (op_bake_tiled(ctx, sc, bs, &o, &r) != OP_OK)
            fail_msg("%s", op_ctx_error(ctx));
        t_caller = 0;
        assert_int_equal(r.digest, digest); /* progress changes nothing */
        if (op_tiled_parallel() && THREADS[k] > 1)
            assert_true(r.threads > 1); /* other threads did bake tiles */
        check_reports(s, &r, 1, THREADS[k]);
        op_tiled_result_free(&r);
        free(s);
    }
}

static void test_progress_demo(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene sc;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&ctx, 384, &sc, &bs.config), OP_OK);
    bs.config.tile_size = 40; /* 10 x 10 tiles, the last column and row narrower */
    run_world(&ctx, &sc, &bs);
    op_scene_free(&sc);
    op_ctx_free(&ctx);
}

static void test_progress_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        op_scene sc;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        assert_int_equal(op_test_random_scene(&ctx, &sc, &bs.config, seed, 64, 6), OP_OK);
        bs.config.tile_size = 7 + (int)seed * 4;
        run_world(&ctx, &sc, &bs);
        op_scene_free(&sc);
    }
    op_ctx_free(&ctx);
}

/* An allocator that refuses blocks of one size (thread-safe: no state). */
static size_t g_fail_size;
static void *fail_malloc(void *u, size_t n)
{
    (void)u;
    return n == g_fail_size ? NULL : malloc(n);
}
static void *fail_realloc(void *u, void *p, size_t n)
{
    (void)u;
    return n == g_fail_size ? NULL : realloc(p, n);
}
static void fail_free(void *u, void *p)
{
    (void)u;
    free(p);
}

/* A tile fails: the bake still returns (the calling thread stops waiting once every
 * tile is settled), every report came from the calling thread, none twice, fewer than
 * all tiles. */
static void test_progress_failure(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene sc;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&ctx, 384, &sc, &bs.config), OP_OK);
    bs.config.tile_size = 48;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    op_tiled_result r;
    assert_int_equal(op_bake_tiled(&ctx, &sc, &bs, &o, &r), OP_OK);
    /* The region array of the tile with the most spans (keep_regions: on the heap). */
    g_fail_size = (size_t)r.tiles[r.largest_tile].span_count * 4;
    const uint32_t tiles = r.tile_count;
    const uint32_t tiles_x = r.tiles_x, tiles_z = r.tiles_z;
    op_tiled_result_free(&r);

    const op_allocator al = {fail_malloc, fail_realloc, fail_free, NULL};
    op_ctx fctx;
    assert_int_equal(op_ctx_init_with_allocator(&fctx, OP_ISA_AUTO, &al), OP_OK);
    for (size_t k = 0; k < NTHREADS; k++) {
        seen *s = calloc(1, sizeof *s);
        assert_non_null(s);
        s->tile_count = tiles;
        o.threads = THREADS[k];
        o.keep_regions = 1;
        o.progress = on_progress;
        o.progress_user = s;
        t_caller = 1;
        assert_int_equal(op_bake_tiled(&fctx, &sc, &bs, &o, &r), OP_NO_MEMORY);
        t_caller = 0;
        op_tiled_result shape;
        memset(&shape, 0, sizeof shape);
        shape.tiles_x = tiles_x;
        shape.tiles_z = tiles_z;
        check_reports(s, &shape, 0, THREADS[k]);
        op_tiled_result_free(&r);
        free(s);
    }
    op_ctx_free(&fctx);
    op_scene_free(&sc);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_demo),
        cmocka_unit_test(test_progress_random),
        cmocka_unit_test(test_progress_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
