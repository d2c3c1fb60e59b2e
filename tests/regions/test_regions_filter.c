/* Filtering and numbering (regions-contours §5, supplement §9.5), settings (§7), the
 * invariant checker, the tile band (supplement §2) and more than 65,535 regions. */
#include "regions/regions_testlib.h"

static void test_settings(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_region_settings s;
    op_region_settings_defaults(&s);
    assert_int_equal(s.partition, OP_PARTITION_WATERSHED);
    assert_int_equal(s.min_region_area, 64);
    assert_int_equal(s.merge_region_area, 400);
    assert_int_equal(op_region_settings_validate(&ctx, &s), OP_OK);
    assert_int_equal(op_region_settings_validate(&ctx, NULL), OP_INVALID_ARGUMENT);
    op_region_settings b = s;
    b.partition = (op_partition)7;
    assert_int_equal(op_region_settings_validate(&ctx, &b), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "partition"));
    b = s;
    b.min_region_area = (uint32_t)-1;
    assert_int_equal(op_region_settings_validate(&ctx, &b), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "min_region_area"));
    b = s;
    b.merge_region_area = OP_MAX_REGION_AREA + 1u;
    assert_int_equal(op_region_settings_validate(&ctx, &b), OP_INVALID_ARGUMENT);
    b.merge_region_area = OP_MAX_REGION_AREA;
    assert_int_equal(op_region_settings_validate(&ctx, &b), OP_OK);
    for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
        op_partition q;
        assert_int_equal(op_partition_parse(op_partition_name((op_partition)p), &q), OP_OK);
        assert_int_equal((int)q, p);
    }
    op_partition q;
    assert_int_equal(op_partition_parse("Watershed2", &q), OP_INVALID_ARGUMENT);
    assert_string_equal(op_partition_name((op_partition)9), "?");
    /* Stages reject bad settings too. */
    op_chf chf;
    const char *rows[1] = {"aaa"};
    grid_chf(&ctx, &chf, 3, 1, rows);
    uint32_t region[3], count;
    b = s;
    b.partition = (op_partition)-2;
    assert_int_equal(op_build_regions(&ctx, &chf, &b, NULL, region, &count), OP_INVALID_ARGUMENT);
    b = s;
    b.min_region_area = 0x90000000u;
    assert_int_equal(op_build_regions_monotone(&ctx, &chf, &b, region, &count),
                     OP_INVALID_ARGUMENT);
    assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, NULL, &count), OP_INVALID_ARGUMENT);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* §5.2: the neighbour sharing the most links wins even when it has the larger id. */
static void test_merge_most_links(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[3] = {"aaa", "aaa", "aaa"};
    grid_chf(&ctx, &chf, 3, 3, rows);
    /* z=0: 1 2 2 / z=1: 1 3 2 / z=2: 1 2 2 (region 3 links once to 1, three times to 2) */
    uint32_t region[9] = {1, 2, 2, 1, 3, 2, 1, 2, 2}, count = 3;
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.min_region_area = 0;
    s.merge_region_area = 2;
    assert_int_equal(op_filter_regions(&ctx, &chf, &s, 1, region, &count), OP_OK);
    const uint32_t want[9] = {1, 2, 2, 1, 2, 2, 1, 2, 2};
    expect_regions(region, want, 9, "most links");
    assert_int_equal(count, 2);
    check_ok(&ctx, &chf, &s, region, count, 1, "most links");
    /* ties: equal links to 1 and 2 -> smallest id (1) */
    uint32_t r2[9] = {1, 1, 2, 1, 3, 2, 1, 2, 2};
    count = 3;
    assert_int_equal(op_filter_regions(&ctx, &chf, &s, 1, r2, &count), OP_OK);
    assert_int_equal(r2[4], r2[0]);
    /* merge = 0 (layers): nothing merges */
    uint32_t r3[9] = {1, 2, 2, 1, 3, 2, 1, 2, 2};
    count = 3;
    assert_int_equal(op_filter_regions(&ctx, &chf, &s, 0, r3, &count), OP_OK);
    assert_int_equal(count, 3);
    assert_int_equal(r3[4], 3);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* §9.5: each merge takes effect at once, later visits see the new size; the target
 * keeps its id; numbering by first span afterwards. */
static void test_merge_immediate(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[1] = {"aaaab"};
    grid_chf(&ctx, &chf, 5, 1, rows);
    /* raw ids 7 5 4 9 2 (gaps allowed; count bound 9). Pass 1 in id order with merge
     * area 2: 2 (area b) has no same-area neighbour; 4 (size 1): neighbours 5 and 9,
     * one link each -> 5 (size 2); 5 is now big enough; 7 (size 1) -> 5 (size 3);
     * 9 (size 1) -> 4? no, 4 is gone: its neighbour is 5 -> 5. */
    uint32_t region[5] = {7, 5, 4, 9, 2}, count = 9;
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.min_region_area = 0;
    s.merge_region_area = 2;
    assert_int_equal(op_filter_regions(&ctx, &chf, &s, 1, region, &count), OP_OK);
    const uint32_t want[5] = {1, 1, 1, 1, 2};
    expect_regions(region, want, 5, "immediate");
    assert_int_equal(count, 2);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* §5.1 islands: only regions with no neighbouring region of any area are removed. */
static void test_islands(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[1] = {"aa0ab0bbbb"};
    grid_chf(&ctx, &chf, 10, 1, rows);
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.partition = OP_PARTITION_MONOTONE;
    s.min_region_area = 3;
    s.merge_region_area = 0;
    uint32_t region[10], count = 0;
    assert_int_equal(op_build_regions_monotone(&ctx, &chf, &s, region, &count), OP_OK);
    /* "aa" is an island of 2 (< 3): removed. "a" + "b" (x 3, 4) are neighbours of
     * different areas: kept although small. "bbbb" is big enough. */
    const uint32_t want[10] = {0, 0, 0, 1, 2, 0, 3, 3, 3, 3};
    expect_regions(region, want, 10, "islands");
    assert_int_equal(count, 3);
    check_ok(&ctx, &chf, &s, region, count, 1, "islands");
    /* The same with layers and watershed. */
    s.partition = OP_PARTITION_LAYERS;
    assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
    expect_regions(region, want, 10, "islands layers");
    s.partition = OP_PARTITION_WATERSHED;
    assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
    expect_regions(region, want, 10, "islands watershed");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* The checker catches broken outputs (it is not a rubber stamp). */
static void test_checker_catches(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[2] = {"aaaab", "aa#ab"};
    grid_chf(&ctx, &chf, 5, 2, rows);
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.min_region_area = 0;
    s.merge_region_area = 0;
    op_region_report rep;
    /* spans: z0: 0..4, z1: 5,6,(empty),7,8 */
    const uint32_t good[9] = {1, 1, 1, 1, 2, 1, 1, 1, 2};
    assert_int_equal(op_check_regions(&ctx, &chf, &s, good, 2, 1, &rep), OP_OK);
    assert_int_equal(rep.failures, 0);
    uint32_t r[9];
    /* disconnected region */
    const uint32_t disc[9] = {1, 1, 2, 1, 3, 1, 1, 1, 3};
    assert_int_equal(op_check_regions(&ctx, &chf, &s, disc, 3, 0, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "connected"));
    /* two areas in one region */
    memcpy(r, good, sizeof r);
    r[4] = r[8] = 1;
    assert_int_equal(op_check_regions(&ctx, &chf, &s, r, 1, 1, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "area"));
    /* numbering order */
    const uint32_t swapped[9] = {2, 2, 2, 2, 1, 2, 2, 2, 1};
    assert_int_equal(op_check_regions(&ctx, &chf, &s, swapped, 2, 1, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "numbering"));
    assert_int_equal(op_check_regions(&ctx, &chf, &s, swapped, 2, 0, &rep), OP_OK);
    /* unused id */
    assert_int_equal(op_check_regions(&ctx, &chf, &s, good, 3, 1, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "compact"));
    /* id above count */
    assert_int_equal(op_check_regions(&ctx, &chf, &s, good, 1, 1, &rep), OP_INTERNAL);
    /* a small region next to a same-area region violates merging */
    s.merge_region_area = 3;
    const uint32_t small[9] = {1, 1, 1, 2, 3, 1, 1, 2, 3};
    assert_int_equal(op_check_regions(&ctx, &chf, &s, small, 3, 1, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "merge"));
    s.partition = OP_PARTITION_LAYERS; /* no merging for layers ... */
    rep.failures = 99;
    assert_int_equal(op_check_regions(&ctx, &chf, &s, small, 3, 1, &rep), OP_INTERNAL);
    /* ... but adjacent same-area layers must overlap */
    assert_non_null(strstr(rep.first, "layer"));
    s.partition = OP_PARTITION_WATERSHED;
    s.merge_region_area = 0;
    /* region-0 walkable span next to a region: not a removed island */
    memcpy(r, good, sizeof r);
    r[0] = 0;
    assert_int_equal(op_check_regions(&ctx, &chf, &s, r, 2, 1, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "island"));
    assert_int_equal(op_check_regions(&ctx, &chf, &s, r, 2, 0, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "unassigned"));
    /* monotone raw: two runs of one region in a row */
    s.partition = OP_PARTITION_MONOTONE;
    const uint32_t runs[9] = {1, 1, 1, 1, 2, 1, 1, 1, 2};
    assert_int_equal(op_check_regions(&ctx, &chf, &s, runs, 2, 0, &rep), OP_INTERNAL);
    assert_non_null(strstr(rep.first, "run"));
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Supplement §2: the band keeps OP_BORDER_REGION; partitions neither seed from nor grow
 * into it; filtering and numbering ignore it. */
static void test_band(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[8] = {"aaaaaaaa", "aaaaaaaa", "aaabaaaa", "aaab0aaa",
                           "aaaaaaaa", "aaaaaaaa", "aaaaaaaa", "aaaaaaaa"};
    grid_chf(&ctx, &chf, 8, 8, rows);
    chf.border_size = 2;
    const uint32_t n = chf.span_count;
    for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.partition = (op_partition)p;
        s.min_region_area = 100;   /* interior regions all touch the band: kept */
        s.merge_region_area = 100; /* the 'a' pieces of watershed/monotone merge */
        uint32_t region[64], count = 0;
        assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
        for (uint32_t z = 0; z < 8; z++) {
            for (uint32_t x = 0; x < 8; x++) {
                const uint32_t sp = grid_span(&chf, x, z);
                const int band = x < 2 || z < 2 || x >= 6 || z >= 6;
                if (chf.area[sp] == 0)
                    assert_int_equal(region[sp], 0);
                else if (band)
                    assert_int_equal(region[sp], OP_BORDER_REGION);
                else
                    assert_true(region[sp] >= 1 && region[sp] <= count);
            }
        }
        /* interior: 'a' spans (one component) and the 'b' pair */
        assert_int_equal(count, 2);
        assert_int_equal(region[grid_span(&chf, 2, 2)], 1);
        assert_int_equal(region[grid_span(&chf, 3, 2)], 2);
        check_ok(&ctx, &chf, &s, region, count, 1, "band");
        (void)n;
    }
    /* The checker rejects a band span with an ordinary id. */
    op_region_settings s;
    op_region_settings_defaults(&s);
    uint32_t region[64], count = 0;
    assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
    region[0] = 1;
    assert_int_equal(op_check_regions(&ctx, &chf, &s, region, count, 1, NULL), OP_INTERNAL);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* More than 65,535 regions: a checkerboard of two areas (no same-area neighbours, so no
 * merging and no islands even with the defaults). */
static void test_many_regions(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const uint32_t W = 300, D = 240; /* 72,000 spans */
    char **rows = malloc(D * sizeof *rows);
    assert_non_null(rows);
    for (uint32_t z = 0; z < D; z++) {
        rows[z] = malloc(W + 1);
        for (uint32_t x = 0; x < W; x++)
            rows[z][x] = (x + z) & 1 ? 'b' : 'a';
        rows[z][W] = 0;
    }
    op_chf chf;
    grid_chf(&ctx, &chf, W, D, (const char *const *)rows);
    uint32_t *region = u32_alloc(chf.span_count);
    for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.partition = (op_partition)p;
        uint32_t count = 0;
        assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
        assert_int_equal(count, W * D);
        for (uint32_t i = 0; i < chf.span_count; i++)
            assert_int_equal(region[i], i + 1);
        check_ok(&ctx, &chf, &s, region, count, 1, "many");
    }
    free(region);
    op_chf_free(&chf);
    for (uint32_t z = 0; z < D; z++)
        free(rows[z]);
    free(rows);
    op_ctx_free(&ctx);
}

/* One larger multi-floor field through all three partitions. */
static void test_large_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 256, 256);
    o.area_count = 3;
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 4242, &o), OP_OK);
    uint32_t *region = u32_alloc(chf.span_count);
    for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.partition = (op_partition)p;
        uint32_t count = 0;
        assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, region, &count), OP_OK);
        assert_true(count > 0);
        check_ok(&ctx, &chf, &s, region, count, 1, op_partition_name(s.partition));
    }
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_merge_most_links),
        cmocka_unit_test(test_merge_immediate),
        cmocka_unit_test(test_islands),
        cmocka_unit_test(test_checker_catches),
        cmocka_unit_test(test_band),
        cmocka_unit_test(test_many_regions),
        cmocka_unit_test(test_large_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
