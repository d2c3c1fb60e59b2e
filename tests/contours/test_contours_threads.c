/* Contours on several threads (issue 11, "threads inside one grid"): the trace by span
 * segments and the regions in chunks give the same contour set, byte for byte, for 1, 2,
 * 3 and 8 threads (raw loops, flags and counters included), on the demo world, random
 * multi-floor fields with a tile band, and one region with a thousand holes; a bad region
 * array gives the same error whatever the thread count (op_ctx_set_threads). Run
 * under ThreadSanitizer by ci (clang, OP_SANITIZE=thread). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "onepath/onepath.h"
#include "contours/test_contours_util.h"

static const int THREADS[] = {2, 3, 8};

static void same_set(const op_contour_set *a, const op_contour_set *b, int threads)
{
    if (a->count != b->count || a->raw_fallbacks != b->raw_fallbacks ||
        a->dropped_holes != b->dropped_holes || a->vert_storage_count != b->vert_storage_count ||
        a->size_storage_count != b->size_storage_count)
        fail_msg("%d threads: %u contours (%u fallbacks, %u dropped), one thread %u (%u, %u)",
                 threads, b->count, b->raw_fallbacks, b->dropped_holes, a->count,
                 a->raw_fallbacks, a->dropped_holes);
    assert_true(op_digest_contours(a) == op_digest_contours(b));
    for (uint32_t i = 0; i < a->count; i++) {
        const op_contour *x = &a->contours[i], *y = &b->contours[i];
        assert_int_equal(x->region, y->region);
        assert_int_equal(x->area, y->area);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->hole_count, y->hole_count);
        assert_int_equal(x->vert_count, y->vert_count);
        assert_memory_equal(x->verts, y->verts, x->vert_count * sizeof *x->verts);
        assert_int_equal(x->raw_count, y->raw_count);
        assert_int_equal(x->raw_hole_count, y->raw_hole_count);
        if (x->raw_count)
            assert_memory_equal(x->raw, y->raw, x->raw_count * sizeof *x->raw);
        size_t hv = 0;
        for (uint32_t h = 0; h < x->raw_hole_count; h++) {
            assert_int_equal(x->raw_hole_sizes[h], y->raw_hole_sizes[h]);
            hv += x->raw_hole_sizes[h];
        }
        if (hv)
            assert_memory_equal(x->raw_holes, y->raw_holes, hv * sizeof *x->raw_holes);
    }
}

/* One thread, then 2, 3, 8: the same set; the check passes. Returns the contour count. */
static uint32_t all_threads(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t rc, op_contour_settings st)
{
    op_contour_set one, many;
    assert_int_equal(op_ctx_set_threads(ctx, 1), OP_OK);
    if (op_build_contours(ctx, chf, region, rc, &st, &one) != OP_OK)
        fail_msg("one thread: %s", op_ctx_error(ctx));
    op_contour_report rep;
    if (op_check_contours(ctx, chf, region, rc, &st, &one, &rep) != OP_OK)
        fail_msg("check: %s", rep.first_failures);
    for (size_t k = 0; k < sizeof THREADS / sizeof THREADS[0]; k++) {
        assert_int_equal(op_ctx_set_threads(ctx, THREADS[k]), OP_OK);
        if (op_build_contours(ctx, chf, region, rc, &st, &many) != OP_OK)
            fail_msg("%d threads: %s", THREADS[k], op_ctx_error(ctx));
        same_set(&one, &many, THREADS[k]);
        op_contour_set_free(&many);
    }
    assert_int_equal(op_ctx_set_threads(ctx, 1), OP_OK);
    const uint32_t n = one.count;
    op_contour_set_free(&one);
    return n;
}

static void test_demo_world(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene scene;
    op_config cfg;
    op_chf chf;
    assert_int_equal(op_demo_world(&ctx, 320, &scene, &cfg), OP_OK);
    assert_int_equal(op_build_spans(&ctx, &cfg, &scene, &chf, NULL), OP_OK);
    assert_true(chf.span_count > 3 * 4 * 4096); /* several trace segments */
    uint32_t *dist = malloc(chf.span_count * sizeof *dist);
    uint32_t *region = malloc(chf.span_count * sizeof *region), rc;
    assert_int_equal(op_build_distance_field(&ctx, &chf, dist, NULL), OP_OK);
    op_region_settings rs;
    op_region_settings_defaults(&rs);
    assert_int_equal(op_build_regions_watershed(&ctx, &chf, dist, &rs, region, &rc), OP_OK);
    op_contour_settings st;
    op_contour_settings_defaults(&st);
    assert_true(all_threads(&ctx, &chf, region, rc, st) > 20);
    st.keep_raw = 1;
    st.max_error = 0;
    all_threads(&ctx, &chf, region, rc, st);
    free(dist);
    free(region);
    op_chf_free(&chf);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
}

static void test_random_fields(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    uint32_t total = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 60 + (uint32_t)seed * 37, 200 - (uint32_t)seed * 11);
        o.max_floors = 1 + (uint32_t)(seed % 3);
        o.area_count = 1 + (uint32_t)(seed % 2);
        o.hole_percent = 2 + (uint32_t)(seed % 4);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        uint32_t *region = malloc(chf.span_count * sizeof *region);
        uint32_t rc = ct_random_regions(&ctx, &chf, 11, 7, region);
        op_contour_settings st;
        op_contour_settings_defaults(&st);
        st.keep_raw = seed % 2 == 0;
        if (seed % 3 == 0) { /* a tile band of 4 cells: BorderRegion */
            for (uint32_t z = 0; z < chf.depth; z++)
                for (uint32_t x = 0; x < chf.width; x++) {
                    const uint32_t c = x + z * chf.width;
                    if (x >= 4 && z >= 4 && x + 4 < chf.width && z + 4 < chf.depth)
                        continue;
                    for (uint32_t s = chf.cell_first[c]; s < chf.cell_first[c + 1]; s++)
                        if (region[s])
                            region[s] = OP_BORDER_REGION;
                }
            /* renumber the rest 1..k in order of first span */
            uint32_t *map = calloc(rc + 1, sizeof *map), k = 0;
            for (uint32_t s = 0; s < chf.span_count; s++)
                if (region[s] && region[s] != OP_BORDER_REGION) {
                    if (!map[region[s]])
                        map[region[s]] = ++k;
                    region[s] = map[region[s]];
                }
            free(map);
            rc = k;
            st.border_region = OP_BORDER_REGION;
        }
        total += all_threads(&ctx, &chf, region, rc, st);
        free(region);
        op_chf_free(&chf);
    }
    assert_true(total > 500);
    op_ctx_free(&ctx);
}

/* One region with a thousand holes (the join's grid on the worker that gets it). */
static void test_many_holes(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const char *row_full = "################################################################";
    const char *row_holes = "##.####.####.####.####.####.####.####.####.####.####.####.####.##";
    const char *rows[128];
    for (int z = 0; z < 128; z++)
        rows[z] = (z % 4 == 2 && z > 0 && z < 126) ? row_holes : row_full;
    op_chf chf;
    uint32_t *region = NULL, rc = 0;
    assert_int_equal(ct_map_chf(&ctx, &chf, &region, &rc, rows, 128), OP_OK);
    for (uint32_t s = 0; s < chf.span_count; s++)
        region[s] = 1;
    rc = 1;
    op_contour_settings st;
    op_contour_settings_defaults(&st);
    st.keep_raw = 1;
    op_contour_set set;
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &set), OP_OK);
    assert_int_equal(set.count, 1);
    assert_true(set.contours[0].hole_count >= 12 * 31);
    assert_int_equal(set.dropped_holes, 0);
    op_contour_set_free(&set);
    all_threads(&ctx, &chf, region, rc, st);
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* The same error for a bad region array, whatever the thread count. */
static void test_errors(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 300, 200);
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 5, &o), OP_OK);
    uint32_t *region = malloc(chf.span_count * sizeof *region);
    const uint32_t rc = ct_random_regions(&ctx, &chf, 0, 0, region);
    /* two offending spans: the message names the first, in any segment */
    const uint32_t a = chf.span_count * 3 / 4, b = chf.span_count / 5;
    uint32_t ka = a, kb = b;
    while (!region[ka])
        ka++;
    while (!region[kb])
        kb++;
    region[ka] = rc + 5;
    region[kb] = rc + 7;
    op_contour_settings st;
    op_contour_settings_defaults(&st);
    char first[512];
    op_contour_set set;
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &set), OP_BAD_INPUT);
    snprintf(first, sizeof first, "%s", op_ctx_error(&ctx));
    char want[128];
    snprintf(want, sizeof want, "span %u has region %u", kb, rc + 7);
    assert_non_null(strstr(first, want));
    for (size_t k = 0; k < sizeof THREADS / sizeof THREADS[0]; k++) {
        assert_int_equal(op_ctx_set_threads(&ctx, THREADS[k]), OP_OK);
        assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &set), OP_BAD_INPUT);
        assert_string_equal(op_ctx_error(&ctx), first);
        assert_null(set.contours);
    }
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_world),
        cmocka_unit_test(test_random_fields),
        cmocka_unit_test(test_many_holes),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
