/* Peak memory of a solo bake (issue 12, docs/decisions/memory.md), counted through the
 * allocator hook with the test allocator: the peak of live bytes during op_bake_scene
 * above what the scene holds, per compact span, for each partition of the demo world.
 *
 * The bounds are this tree's figures at 768 cells (~0.62 M spans) with a few bytes of
 * slack for the fixed costs (1 MiB arena blocks, the watershed's 256 KiB histogram):
 * a stage that holds a second copy of the field, or an arena that doubles its blocks
 * again, fails here. The floor is checked too: the peak can never be below the result's
 * own arrays (field, distance, regions), so a counter that misses allocations fails
 * (all three are live when the partition starts, the distance field kept or not).
 * Bakes without keep_distance (the default) give the same digests and regions as bakes
 * with it, and their watershed phase holds 4 bytes per span less (memory.md, round 7). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/quick.h"
#include "util/testalloc.h"

/* Bytes per compact span at 768 cells; docs/decisions/memory.md has the breakdown
 * (round 7: the distance field freed in the partition). Without cell_count (round 6)
 * every figure fell by 4 bytes per cell = 3.80 per span here: the bounds fell by as
 * much, the slack kept. */
static const struct {
    op_partition p;
    double bound;
} cases[] = {{OP_PARTITION_WATERSHED, 44.2}, {OP_PARTITION_MONOTONE, 35.2},
             {OP_PARTITION_LAYERS, 39.2}};

/* The result's own arrays: the field (per span y, h (u8), area, mutual, four 16-bit
 * links; per cell first, and the prefix sum's end), the distance field and the regions. */
static size_t result_floor(const op_chf *chf)
{
    const size_t n = chf->span_count, cells = (size_t)chf->width * chf->depth;
    return n * (2 + 1 + 1 + 1 + 8) + (cells + 1) * 4 + n * 4 + n * 4;
}

/* One bake of the demo world with the test allocator, one thread. */
typedef struct demo_bake {
    op_test_alloc ta;
    op_ctx ctx;
    op_scene scene;
    op_bake_result r;
    size_t peak; /* the peak of live bytes during the bake, the scene's apart */
} demo_bake;

static void demo_bake_run(demo_bake *b, op_partition p, uint32_t size, int keep_distance,
                          op_stage until)
{
    op_test_alloc_init(&b->ta);
    assert_int_equal(op_test_alloc_ctx_init(&b->ctx, &b->ta, OP_ISA_AUTO), OP_OK);
    assert_int_equal(op_ctx_set_threads(&b->ctx, 1), OP_OK);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    assert_int_equal(op_demo_world(&b->ctx, size, &b->scene, &s.config), OP_OK);
    s.regions.partition = p;
    s.keep_distance = keep_distance;
    s.until = until;
    /* What the scene (and the context) hold is the input: the peak starts over. */
    const size_t input = b->ta.live_bytes;
    b->ta.peak_bytes = input;
    assert_int_equal(op_bake_scene(&b->ctx, &b->scene, &s, &b->r), OP_OK);
    b->peak = b->ta.peak_bytes - input;
}

static void demo_bake_free(demo_bake *b)
{
    op_bake_result_free(&b->r);
    op_scene_free(&b->scene);
    op_ctx_free(&b->ctx);
    assert_int_equal(b->ta.live_bytes, 0);
}

static void bake_peak(op_partition p, uint32_t size, double bound)
{
    demo_bake b;
    demo_bake_run(&b, p, size, 0, OP_STAGE_CONTOURS);
    const size_t peak = b.peak;
    const uint32_t n = b.r.chf.span_count;
    assert_true(n > 100000);
    const double per_span = (double)peak / n;
    printf("%s: %u spans, peak %zu bytes = %.2f bytes per span (bound %.1f, floor %.2f)\n",
           op_partition_name(p), n, peak, per_span, bound, (double)result_floor(&b.r.chf) / n);
    if (peak < result_floor(&b.r.chf))
        fail_msg("%s: peak %zu below the result's own %zu bytes", op_partition_name(p), peak,
                 result_floor(&b.r.chf));
    if (per_span > bound)
        fail_msg("%s: peak %.2f bytes per compact span exceeds %.1f", op_partition_name(p),
                 per_span, bound);
    demo_bake_free(&b);
}

static void test_bake_peak_per_span(void **state)
{
    (void)state;
    /* util/quick.h: under qemu the watershed only (the largest scratch). */
    const size_t ncases = op_test_quick() ? 1 : sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < ncases; i++)
        bake_peak(cases[i].p, 768, cases[i].bound);
}

/* keep_distance changes nothing but the result's dist: without it dist is NULL, and
 * max_dist, the distance digest (taken as the field is made), the regions (byte for
 * byte) and the contours are those of a bake that keeps it, for every partition and
 * for a bake that stops after the regions. */
static void test_keep_distance_same_result(void **state)
{
    (void)state;
    static const op_partition parts[] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE,
                                         OP_PARTITION_LAYERS};
    for (int until = OP_STAGE_REGIONS; until <= OP_STAGE_CONTOURS; until++) {
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            demo_bake kept, freed;
            demo_bake_run(&kept, parts[i], 256, 1, (op_stage)until);
            demo_bake_run(&freed, parts[i], 256, 0, (op_stage)until);
            const uint32_t n = kept.r.chf.span_count;
            assert_true(n > 0 && freed.r.chf.span_count == n);
            assert_non_null(kept.r.dist);
            assert_null(freed.r.dist);
            assert_int_equal(kept.r.reached, until);
            assert_int_equal(freed.r.reached, until);
            assert_true(kept.r.max_dist > 0 && freed.r.max_dist == kept.r.max_dist);
            assert_true(kept.r.digest_distance == op_digest_distance(kept.r.dist, n));
            assert_true(freed.r.digest_distance == kept.r.digest_distance);
            assert_int_equal(freed.r.region_count, kept.r.region_count);
            assert_memory_equal(freed.r.region, kept.r.region, (size_t)n * sizeof *kept.r.region);
            assert_true(freed.r.digest_regions == kept.r.digest_regions);
            assert_true(freed.r.digest_contours == kept.r.digest_contours);
            /* Freed early, it is never more memory. */
            assert_true(freed.peak <= kept.peak);
            demo_bake_free(&kept);
            demo_bake_free(&freed);
        }
    }
}

/* The watershed frees a distance field that is not kept before it takes its neighbour
 * entries (the bake's peak), so the peak is lower by the whole field, 4 bytes a span;
 * freed when the partition is over it would be lower by 0.02 (test_regions_watershed
 * checks that nothing reads the field after the release). */
static void test_watershed_frees_distance_before_entries(void **state)
{
    (void)state;
    demo_bake kept, freed;
    demo_bake_run(&kept, OP_PARTITION_WATERSHED, 768, 1, OP_STAGE_CONTOURS);
    demo_bake_run(&freed, OP_PARTITION_WATERSHED, 768, 0, OP_STAGE_CONTOURS);
    const size_t n = kept.r.chf.span_count;
    printf("watershed: peak %zu bytes keeping the distance field, %zu without (%.2f bytes "
           "per span less)\n",
           kept.peak, freed.peak, (double)(kept.peak - freed.peak) / (double)n);
    if (freed.peak + n * sizeof *kept.r.dist > kept.peak)
        fail_msg("watershed: peak %zu without the distance field, %zu with it: less than "
                 "%zu bytes apart",
                 freed.peak, kept.peak, n * sizeof *kept.r.dist);
    demo_bake_free(&kept);
    demo_bake_free(&freed);
}

/* The arena gives a request of a block's size or more a block of exactly its size, so
 * a stage's scratch costs what it asks for (a doubling arena held up to twice that);
 * reused with growing requests, it grows by half. */
static void test_arena_exact_blocks(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
    const size_t base = ta.live_bytes;
    const op_arena_mark start = op_arena_get_mark(&ctx.arena);
    const size_t sizes[4] = {3u << 20, 5u << 20, 40u << 20, 7u << 20};
    size_t asked = 0;
    for (int i = 0; i < 4; i++) {
        assert_non_null(op_arena_alloc(&ctx.arena, sizes[i]));
        asked += sizes[i];
    }
    /* Each block: its request plus alignment (64) and the block list itself. */
    const size_t held = ta.live_bytes - base;
    if (held > asked + 4 * 64 + 4096)
        fail_msg("arena holds %zu bytes for %zu asked", held, asked);
    /* Released, the same requests again take the same blocks: nothing new. */
    op_arena_release(&ctx.arena, start);
    for (int i = 0; i < 4; i++)
        assert_non_null(op_arena_alloc(&ctx.arena, sizes[i]));
    assert_int_equal(ta.live_bytes - base, held);
    /* A request beyond every kept block (the next, larger tile) gets half again the
     * largest block it outgrew, so the next slightly larger one fits without a new
     * block. */
    op_arena_release(&ctx.arena, start);
    assert_non_null(op_arena_alloc(&ctx.arena, 50u << 20));
    const size_t grown = ta.live_bytes - base;
    if (grown < (3u << 20) + (60u << 20) || grown > (3u << 20) + (60u << 20) + 4096)
        fail_msg("arena holds %zu bytes after outgrowing its 40 MiB block", grown);
    op_arena_release(&ctx.arena, start);
    assert_non_null(op_arena_alloc(&ctx.arena, 3u << 20));
    assert_non_null(op_arena_alloc(&ctx.arena, 55u << 20));
    assert_int_equal(ta.live_bytes - base, grown);
    /* Released and trimmed, nothing stays. */
    op_arena_release(&ctx.arena, start);
    op_arena_trim(&ctx.arena);
    assert_true(ta.live_bytes - base <= 4096);
    const size_t small = ta.live_bytes;
    /* Small requests share blocks: a thousand of 1 KiB take one 1 MiB block. */
    for (int i = 0; i < 1000; i++)
        assert_non_null(op_arena_alloc(&ctx.arena, 1024));
    assert_true(ta.live_bytes - small <= (1u << 20) + 64 + 4096);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_exact_blocks),
        cmocka_unit_test(test_bake_peak_per_span),
        cmocka_unit_test(test_keep_distance_same_result),
        cmocka_unit_test(test_watershed_frees_distance_before_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
