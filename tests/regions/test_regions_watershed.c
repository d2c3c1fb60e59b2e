/* Distance field (regions-contours §1) and watershed (§2, supplement §9.2): hand-made
 * fields where the tie rules decide, and the invariant checker on random fields. */
#include "regions/regions_testlib.h"
#include "regions/regions_internal.h"

/* --- §1: op_build_distance_field against a brute-force Bellman-Ford --- */

static void test_distance_brute(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 25; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 6 + (uint32_t)(seed % 17), 5 + (uint32_t)(seed % 13));
        o.hole_percent = (uint32_t)(seed % 4);
        o.empty_percent = (uint32_t)(seed % 6);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        uint32_t *a = u32_alloc(chf.span_count), *b = u32_alloc(chf.span_count);
        uint32_t maxd = 12345;
        assert_int_equal(op_build_distance_field(&ctx, &chf, a, &maxd), OP_OK);
        op_test_brute_distance(&chf, b);
        uint32_t m = 0;
        for (uint32_t s = 0; s < chf.span_count; s++) {
            if (a[s] != b[s])
                fail_msg("seed %llu span %u: %u, brute %u", (unsigned long long)seed, s, a[s],
                         b[s]);
            if (chf.area[s] == 0)
                assert_int_equal(a[s], 0);
            m = b[s] > m ? b[s] : m;
        }
        assert_int_equal(maxd, m);
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* A single row of spans with the given areas ('a'...) and hand-set distances. */
static void row_field(op_ctx *ctx, op_chf *chf, const char *row)
{
    const char *rows[1] = {row};
    grid_chf(ctx, chf, (uint32_t)strlen(row), 1, rows);
}

/* Two basins of equal distance meet; growth takes several rounds; the meeting span
 * joins the smallest id although the other basin is nearer in span order. */
static void test_watershed_tie_and_rounds(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    row_field(&ctx, &chf, "aaaaaaa");
    /* level 9: span 6 -> region 1; level 8: span 0 -> region 2; level 1: spans 1..5 grow
     * in three synchronous rounds; span 3 sees regions 2 and 1 at once and takes 1. */
    const uint32_t dist[7] = {8, 1, 1, 1, 1, 1, 9};
    uint32_t region[7], count = 0;
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, region, &count), OP_OK);
    const uint32_t want[7] = {2, 2, 2, 1, 1, 1, 1};
    assert_int_equal(count, 2);
    expect_regions(region, want, 7, "tie");
    /* Filtering with no thresholds only renumbers by first span. */
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.min_region_area = s.merge_region_area = 0;
    assert_int_equal(op_build_regions_watershed(&ctx, &chf, dist, &s, region, &count), OP_OK);
    const uint32_t want2[7] = {1, 1, 1, 2, 2, 2, 2};
    expect_regions(region, want2, 7, "tie numbered");
    check_ok(&ctx, &chf, &s, region, count, 1, "tie");
    op_chf_free(&chf);

    /* Growth stops when a round joins nothing: the other-area span cannot join, so the
     * spans beyond it are never reached and become basins. */
    row_field(&ctx, &chf, "aabaa");
    const uint32_t d2[5] = {5, 1, 1, 1, 1};
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, d2, region, &count), OP_OK);
    /* span 1 joins 1; span 2 (area b) cannot; spans 3, 4 are not reached: basins in
     * span order: span 2 -> 2 (alone, other area), span 3 -> 3 floods 4. */
    const uint32_t want3[5] = {1, 1, 2, 3, 3};
    assert_int_equal(count, 3);
    expect_regions(region, want3, 5, "area stop");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* A level with two disconnected plateaus: two basins; the saddle between them joins the
 * smaller id. */
static void test_watershed_two_plateaus(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    const char *rows[3] = {"aaaaa", "aaaaa", "aaaaa"};
    grid_chf(&ctx, &chf, 5, 3, rows);
    /* dist 4 on columns 0-1 and 3-4 of row 1 (two plateaus), 2 on the middle column,
     * 0 elsewhere. */
    uint32_t dist[15] = {0};
    dist[grid_span(&chf, 0, 1)] = 4;
    dist[grid_span(&chf, 1, 1)] = 4;
    dist[grid_span(&chf, 3, 1)] = 4;
    dist[grid_span(&chf, 4, 1)] = 4;
    dist[grid_span(&chf, 2, 1)] = 2;
    uint32_t region[15], count = 0;
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, region, &count), OP_OK);
    assert_int_equal(count, 2);
    assert_int_equal(region[grid_span(&chf, 0, 1)], 1);
    assert_int_equal(region[grid_span(&chf, 1, 1)], 1);
    assert_int_equal(region[grid_span(&chf, 3, 1)], 2);
    assert_int_equal(region[grid_span(&chf, 4, 1)], 2);
    assert_int_equal(region[grid_span(&chf, 2, 1)], 1); /* saddle: smallest id */
    /* Level 0, round 1: every span next to row 1 joins its column's region; (2, z)
     * sees only region 1; round 2 leaves nothing. */
    for (uint32_t x = 0; x < 5; x++) {
        const uint32_t r = x <= 2 ? 1 : 2;
        assert_int_equal(region[grid_span(&chf, x, 0)], r);
        assert_int_equal(region[grid_span(&chf, x, 2)], r);
    }
    op_region_settings s;
    op_region_settings_defaults(&s);
    check_ok(&ctx, &chf, &s, region, count, 0, "plateaus raw");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Area changes inside a plateau: the flood stays within one area. */
static void test_watershed_area_change(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    row_field(&ctx, &chf, "aabba0a");
    const uint32_t dist[7] = {3, 3, 3, 3, 3, 0, 3};
    uint32_t region[7], count = 0;
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, region, &count), OP_OK);
    const uint32_t want[7] = {1, 1, 2, 2, 3, 0, 4};
    assert_int_equal(count, 4);
    expect_regions(region, want, 7, "area change");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* One-way links at a bridge: cell 1 holds a low span B and a high span C; C links -x to
 * A but A's +x link goes to the lowest qualifying span B, so A-C is one-way and counts
 * as no link. */
static void test_watershed_one_way(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    assert_int_equal(op_chf_alloc(&ctx, &chf, 3, 1, 4), OP_OK);
    chf.walkable_height = 2;
    chf.walkable_climb = 1;
    chf.cell_first[0] = 0; /* A */
    chf.cell_first[1] = 1; /* B low, C high */
    chf.cell_first[2] = 3; /* D; cell_first[3] = 4 since op_chf_alloc */
    for (uint32_t s = 0; s < 4; s++)
        chf.area[s] = 1;
    chf.y[0] = 0, chf.y[1] = 0, chf.y[2] = 5, chf.y[3] = 5;
    chf.h[0] = 255, chf.h[1] = 3, chf.h[2] = 255, chf.h[3] = 255;
    op_test_set_link(&chf, 2, 0, 1); /* A -> B */
    op_test_set_link(&chf, 0, 1, 0); /* B -> A */
    op_test_set_link(&chf, 0, 2, 0); /* C -> A (one-way) */
    op_test_set_link(&chf, 2, 2, 3); /* C -> D */
    op_test_set_link(&chf, 0, 3, 2); /* D -> C */
    op_chf_build_mutual(&ctx, &chf);
    assert_int_equal(chf.mutual[2] & 1, 0);
    const uint32_t dist[4] = {5, 1, 5, 1};
    uint32_t region[4], count = 0;
    assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, region, &count), OP_OK);
    const uint32_t want[4] = {1, 1, 2, 2};
    assert_int_equal(count, 2);
    expect_regions(region, want, 4, "one-way");
    op_region_settings s;
    op_region_settings_defaults(&s);
    check_ok(&ctx, &chf, &s, region, count, 0, "one-way");
    /* The island rule sees the one-way link as no link: both regions have a neighbour?
     * No: A-B and C-D are separate islands of 2 spans; with MinRegionArea 3 both go. */
    s.min_region_area = 3;
    assert_int_equal(op_build_regions_watershed(&ctx, &chf, dist, &s, region, &count), OP_OK);
    assert_int_equal(count, 0);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(region[i], 0);
    check_ok(&ctx, &chf, &s, region, count, 1, "one-way islands");
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Checker and reference on random multi-floor fields, with and without filtering. */
static void test_watershed_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 30; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 8 + (uint32_t)(seed % 29), 6 + (uint32_t)(seed % 23));
        o.area_count = 1 + (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        const uint32_t n = chf.span_count;
        uint32_t *dist = u32_alloc(n), *region = u32_alloc(n), *again = u32_alloc(n);
        assert_int_equal(op_build_distance_field(&ctx, &chf, dist, NULL), OP_OK);
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.min_region_area = (uint32_t)(seed % 9);
        s.merge_region_area = (uint32_t)(seed % 5) * 6;
        uint32_t count = 0, c2 = 0;
        assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, region, &count), OP_OK);
        check_ok(&ctx, &chf, &s, region, count, 0, "watershed raw");
        assert_int_equal(op_build_regions_watershed(&ctx, &chf, dist, &s, region, &count), OP_OK);
        check_ok(&ctx, &chf, &s, region, count, 1, "watershed");
        /* The dispatcher without a distance field computes it: same bytes. */
        assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, again, &c2), OP_OK);
        assert_int_equal(count, c2);
        assert_memory_equal(region, again, (size_t)n * 4);
        free(dist);
        free(region);
        free(again);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* Distances beyond the counting sort's buckets take the radix path; scaled by a
 * constant they keep their order and ties, so the regions are those of the counting
 * path. Shifted or scaled to around the first pass's histogram limit (watershed.c,
 * WS_HIST_COPY: 16 384 counters a copy, distances from 16 382 up counted apart), they
 * take the histogram, the counting pass without it, or both sides of the limit. With
 * and without a band (its spans keep OP_BORDER_REGION: region[] holds the positions
 * until the end). */
static void test_watershed_large_distances(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 10 + (uint32_t)(seed % 23), 8 + (uint32_t)(seed % 19));
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = seed % 2 ? 2 : 0;
        const uint32_t n = chf.span_count;
        uint32_t *dist = u32_alloc(n), *big = u32_alloc(n), *a = u32_alloc(n), *b = u32_alloc(n),
                 *moved = u32_alloc(n);
        assert_int_equal(op_build_distance_field(&ctx, &chf, dist, NULL), OP_OK);
        uint32_t maxd = 0;
        for (uint32_t s = 0; s < n; s++) {
            big[s] = dist[s] << 23; /* distances of these fields stay below 2^9 */
            maxd = dist[s] > maxd ? dist[s] : maxd;
        }
        assert_true(maxd > 0 && maxd < (1u << 9));
        uint32_t ca = 0, cb = 0;
        assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, a, &ca), OP_OK);
        const uint32_t shift[][2] = {{1, 16000}, {1, 16382 - 1}, {1, 16382 - 3},
                                     {1, 16382 - (uint32_t)maxd}, {100, 16000}, {1, 65530}};
        for (size_t t = 0; t < sizeof shift / sizeof shift[0]; t++) {
            for (uint32_t s = 0; s < n; s++)
                moved[s] = dist[s] * shift[t][0] + shift[t][1];
            assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, moved, b, &cb), OP_OK);
            assert_int_equal(ca, cb);
            assert_memory_equal(a, b, (size_t)n * 4);
        }
        assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, big, b, &cb), OP_OK);
        assert_int_equal(ca, cb);
        assert_memory_equal(a, b, (size_t)n * 4);
        uint32_t band = 0;
        for (uint32_t s = 0; s < n; s++)
            band += b[s] == OP_BORDER_REGION;
        if (chf.border_size)
            assert_true(band > 0);
        else
            assert_int_equal(band, 0);
        free(dist);
        free(big);
        free(a);
        free(b);
        free(moved);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* A random multi-floor field (with a band for odd seeds) and its distance field. */
static uint32_t *random_field(op_ctx *ctx, op_chf *chf, uint64_t seed)
{
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 12 + (uint32_t)(seed % 29), 9 + (uint32_t)(seed % 21));
    o.area_count = 1 + (uint32_t)(seed % 3);
    o.max_floors = 1 + (uint32_t)(seed % 3);
    assert_int_equal(op_random_chf(ctx, chf, seed, &o), OP_OK);
    chf->border_size = seed % 2 ? 2 : 0;
    uint32_t *dist = u32_alloc(chf->span_count);
    assert_int_equal(op_build_distance_field(ctx, chf, dist, NULL), OP_OK);
    return dist;
}

/* The neighbour entries are packed in 24 bits while the set has fewer spans than
 * op_watershed_narrow_limit, else 32 (watershed.c): both give the same regions, raw and
 * filtered (the filter's link list lent the entries' block). */
static void test_watershed_narrow_wide(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const uint32_t keep = op_watershed_narrow_limit;
    op_region_settings s;
    op_region_settings_defaults(&s);
    for (uint64_t seed = 1; seed <= 16; seed++) {
        op_chf chf;
        uint32_t *dist = random_field(&ctx, &chf, seed);
        const uint32_t n = chf.span_count;
        uint32_t *out[2] = {u32_alloc(n), u32_alloc(n)}, c[2] = {0, 0};
        s.min_region_area = 1 + (uint32_t)(seed % 5);
        s.merge_region_area = 4 + (uint32_t)(seed % 20);
        for (int filtered = 0; filtered < 2; filtered++) {
            for (int k = 0; k < 2; k++) {
                op_watershed_narrow_limit = k ? 0 : keep;
                assert_int_equal(
                    filtered ? op_build_regions_watershed(&ctx, &chf, dist, &s, out[k], &c[k])
                             : op_build_regions_watershed_raw(&ctx, &chf, dist, out[k], &c[k]),
                    OP_OK);
            }
            assert_int_equal(c[0], c[1]);
            assert_memory_equal(out[0], out[1], (size_t)n * 4);
        }
        op_watershed_narrow_limit = keep;
        free(out[0]);
        free(out[1]);
        free(dist);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* The §5 filter with its link list started in lent memory: too small for the list (it
 * moves to an allocation of its own), large enough, and none give the same regions. */
static void test_filter_lent_links(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_chf chf;
        uint32_t *dist = random_field(&ctx, &chf, seed);
        const uint32_t n = chf.span_count;
        uint32_t *raw = u32_alloc(n), *out[3], craw = 0, c[3];
        assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, raw, &craw), OP_OK);
        const size_t lend[3] = {0, 40, (size_t)n * 32};
        for (int k = 0; k < 3; k++) {
            out[k] = u32_alloc(n);
            memcpy(out[k], raw, (size_t)n * 4);
            c[k] = craw;
            void *mem = lend[k] ? malloc(lend[k]) : NULL;
            assert_int_equal(op_regions_filter_lent(&ctx, &chf, 2, 12 + (uint32_t)seed, 1, out[k],
                                                    &c[k], mem, lend[k]),
                             OP_OK);
            free(mem);
            assert_int_equal(c[k], c[0]);
            assert_memory_equal(out[k], out[0], (size_t)n * 4);
        }
        for (int k = 0; k < 3; k++)
            free(out[k]);
        free(raw);
        free(dist);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* op_build_regions_rel (the bake without keep_distance): the release is called once,
 * and nothing reads the distance field after it: the callback scribbles over it and
 * the regions are still those of op_build_regions on the untouched field. Every
 * partition, with and without a band, distances for the counting path and the radix
 * path (scaled beyond its buckets), and a field with nothing walkable (the watershed
 * returns before ordering; the dispatcher releases on its way out). */
typedef struct scribble {
    uint32_t *dist;
    uint32_t n;
    int calls;
} scribble;

static void scribble_dist(void *arg)
{
    scribble *sc = arg;
    sc->calls++;
    for (uint32_t s = 0; s < sc->n; s++)
        sc->dist[s] = 0x9e3779b9u * (s + 1); /* not a distance field */
}

static void test_regions_release_dist(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    static const op_partition parts[] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE,
                                         OP_PARTITION_LAYERS};
    for (uint64_t seed = 1; seed <= 8; seed++) {
        op_chf chf;
        uint32_t *field = random_field(&ctx, &chf, seed);
        const uint32_t n = chf.span_count;
        if (seed == 8)
            memset(chf.area, 0, n); /* nothing walkable */
        uint32_t *dist = u32_alloc(n), *want = u32_alloc(n), *got = u32_alloc(n);
        for (int big = 0; big < 2; big++) {
            if (big)
                for (uint32_t s = 0; s < n; s++)
                    field[s] = field[s] << 23 | 5; /* past WS_MAX_BUCKETS: the radix path */
            for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
                op_region_settings s;
                op_region_settings_defaults(&s);
                s.partition = parts[p];
                s.min_region_area = 1 + (uint32_t)(seed % 5);
                s.merge_region_area = 4 + (uint32_t)(seed % 20);
                uint32_t cw = 0, cg = 0;
                assert_int_equal(op_build_regions(&ctx, &chf, &s, field, want, &cw), OP_OK);
                memcpy(dist, field, (size_t)n * sizeof *dist);
                scribble sc = {dist, n, 0};
                op_dist_release rel = {scribble_dist, &sc};
                assert_int_equal(op_build_regions_rel(&ctx, &chf, &s, dist, &rel, got, &cg), OP_OK);
                assert_int_equal(sc.calls, 1);
                assert_null(rel.fn);
                assert_int_equal(cg, cw);
                assert_memory_equal(got, want, (size_t)n * sizeof *got);
            }
        }
        free(dist);
        free(want);
        free(got);
        free(field);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance_brute),
        cmocka_unit_test(test_watershed_tie_and_rounds),
        cmocka_unit_test(test_watershed_two_plateaus),
        cmocka_unit_test(test_watershed_area_change),
        cmocka_unit_test(test_watershed_one_way),
        cmocka_unit_test(test_watershed_random),
        cmocka_unit_test(test_watershed_large_distances),
        cmocka_unit_test(test_watershed_narrow_wide),
        cmocka_unit_test(test_filter_lent_links),
        cmocka_unit_test(test_regions_release_dist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
