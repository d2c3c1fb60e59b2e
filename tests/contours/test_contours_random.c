/* Contours on random multi-floor fields: every §6 promise through op_check_contours
 * (loop areas and lengths per region, portals, MaxError distance, no region lost,
 * >= 3 vertices and positive area, no crossing where §6 checks), with several
 * settings; MaxError 0 shared boundaries on single floors (supplement §9.13);
 * determinism; and one large field for speed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/quick.h"
#include "contours/test_contours_util.h"

typedef struct stats {
    uint64_t contours, holes, portals, fallbacks, dropped, joined_loops, shared, refined, retry0,
        join_raw, spiral;
} stats;

static void build_and_check(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t rc, const op_contour_settings *st, uint64_t seed,
                            stats *sts)
{
    op_contour_settings s = *st;
    s.keep_raw = 1;
    op_contour_set a, b;
    op_status r = op_build_contours(ctx, chf, region, rc, &s, &a);
    if (r != OP_OK)
        fail_msg("seed %llu: build: %s", (unsigned long long)seed, op_ctx_error(ctx));
    op_contour_report rep;
    r = op_check_contours(ctx, chf, region, rc, &s, &a, &rep);
    if (r != OP_OK)
        fail_msg("seed %llu (err %g, len %d, straight %d): %s", (unsigned long long)seed,
                 s.max_error, (int)s.max_edge_len, s.straight_region_borders,
                 rep.first_failures);
    /* Without raw data: same digest (raw is not digested), and still checkable. */
    s.keep_raw = 0;
    assert_int_equal(op_build_contours(ctx, chf, region, rc, &s, &b), OP_OK);
    assert_true(op_digest_contours(&a) == op_digest_contours(&b));
    assert_null(b.count ? b.contours[0].raw : NULL);
    assert_int_equal(op_check_contours(ctx, chf, region, rc, &s, &b, NULL), OP_OK);
    sts->contours += a.count;
    sts->fallbacks += a.raw_fallbacks;
    sts->dropped += a.dropped_holes;
    sts->portals += rep.portal_checks;
    sts->shared += rep.shared_checks;
    for (uint32_t i = 0; i < a.count; i++) {
        sts->holes += a.contours[i].hole_count;
        sts->refined += !!(a.contours[i].flags & OP_CONTOUR_OUTLINE_REFINED);
        sts->retry0 += !!(a.contours[i].flags & OP_CONTOUR_OUTLINE_RETRY0);
        sts->join_raw += !!(a.contours[i].flags & OP_CONTOUR_JOIN_RAW);
        sts->spiral += !!(a.contours[i].flags & OP_CONTOUR_SPIRAL);
        sts->joined_loops += a.contours[i].hole_count &&
                             !(a.contours[i].flags & OP_CONTOUR_DROPPED_HOLES);
    }
    op_contour_set_free(&a);
    op_contour_set_free(&b);
}

static void test_random_promises(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    stats sts;
    memset(&sts, 0, sizeof sts);
    for (uint64_t seed = 1; seed <= 60; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 8 + (uint32_t)(seed * 7 % 40), 6 + (uint32_t)(seed * 5 % 37));
        o.hole_percent = 3 + (uint32_t)(seed % 9);
        o.empty_percent = (uint32_t)(seed % 11);
        o.max_floors = 1 + (uint32_t)(seed % 3);
        o.area_count = 1 + (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        uint32_t *region = malloc((chf.span_count ? chf.span_count : 1) * sizeof *region);
        const uint32_t rc = ct_random_regions(&ctx, &chf, seed % 2 ? 7 : 0, seed % 2 ? 5 : 0,
                                              region);
        op_contour_settings st;
        op_contour_settings_defaults(&st);
        build_and_check(&ctx, &chf, region, rc, &st, seed, &sts);
        st.straight_region_borders = 0;
        build_and_check(&ctx, &chf, region, rc, &st, seed, &sts);
        st.max_error = 0;
        build_and_check(&ctx, &chf, region, rc, &st, seed, &sts);
        st.straight_region_borders = 1;
        st.max_error = 0.5 + (double)(seed % 4);
        st.max_edge_len = (int32_t)(seed % 5);
        build_and_check(&ctx, &chf, region, rc, &st, seed, &sts);
        free(region);
        op_chf_free(&chf);
    }
    /* The fields exercised what they should. */
    assert_true(sts.contours > 1000);
    assert_true(sts.holes > 20);
    assert_true(sts.joined_loops > 20);
    assert_true(sts.portals > 1000);
    printf("contours %llu holes %llu fallbacks %llu dropped %llu refined %llu retry0 %llu "
           "join_raw %llu spiral %llu\n",
           (unsigned long long)sts.contours, (unsigned long long)sts.holes,
           (unsigned long long)sts.fallbacks, (unsigned long long)sts.dropped,
           (unsigned long long)sts.refined, (unsigned long long)sts.retry0,
           (unsigned long long)sts.join_raw, (unsigned long long)sts.spiral);
    op_ctx_free(&ctx);
}

/* A tile: the band gets the border region id, regions inside (supplement §2). */
static void test_random_border_band(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    stats sts;
    memset(&sts, 0, sizeof sts);
    uint64_t band_edges = 0;
    for (uint64_t seed = 100; seed < 120; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 30, 30);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        const uint32_t n = chf.span_count;
        uint32_t *key = malloc(n * sizeof *key), *region = malloc(n * sizeof *region);
        uint32_t rc = ct_random_regions(&ctx, &chf, 6, 6, key);
        (void)rc;
        const uint32_t B = 3;
        for (uint32_t z = 0; z < chf.depth; z++)
            for (uint32_t x = 0; x < chf.width; x++) {
                const uint32_t c = x + z * chf.width;
                const int band = x < B || z < B || x >= chf.width - B || z >= chf.depth - B;
                for (uint32_t s = chf.cell_first[c]; s < chf.cell_first[c + 1]; s++)
                    if (band && key[s])
                        key[s] = 0x7fffffffu; /* one key for the whole band */
            }
        rc = ct_relabel_connected(&chf, key, region);
        for (uint32_t s = 0; s < n; s++)
            if (region[s] && key[s] == 0x7fffffffu)
                region[s] = OP_BORDER_REGION;
        /* renumber the non-band pieces 1..k */
        uint32_t *map = calloc(rc + 1, sizeof *map), k = 0;
        for (uint32_t s = 0; s < n; s++)
            if (region[s] && region[s] != OP_BORDER_REGION) {
                if (!map[region[s]])
                    map[region[s]] = ++k;
                region[s] = map[region[s]];
            }
        op_contour_settings st;
        op_contour_settings_defaults(&st);
        st.border_region = OP_BORDER_REGION;
        build_and_check(&ctx, &chf, region, k, &st, seed, &sts);
        op_contour_set set;
        assert_int_equal(op_build_contours(&ctx, &chf, region, k, &st, &set), OP_OK);
        for (uint32_t i = 0; i < set.count; i++) {
            assert_true(set.contours[i].region >= 1 && set.contours[i].region <= k);
            for (uint32_t j = 0; j < set.contours[i].vert_count; j++)
                band_edges += set.contours[i].verts[j].neighbour == OP_BORDER_REGION;
        }
        op_contour_set_free(&set);
        free(map);
        free(key);
        free(region);
        op_chf_free(&chf);
    }
    assert_true(band_edges > 0);
    op_ctx_free(&ctx);
}

/* MaxError 0 on one floor with every side-by-side pair linked: both sides of every
 * shared boundary keep the same vertices (§6, supplement §9.13). */
static void test_shared_boundaries(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    stats sts;
    memset(&sts, 0, sizeof sts);
    for (uint64_t seed = 200; seed < 230; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 20 + (uint32_t)(seed % 17), 15 + (uint32_t)(seed % 13));
        o.max_floors = 1;
        o.y_jitter = 0;
        o.walkable_climb = 100;
        o.area_count = 1 + (uint32_t)(seed % 2);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        uint32_t *region = malloc((chf.span_count ? chf.span_count : 1) * sizeof *region);
        const uint32_t rc = ct_random_regions(&ctx, &chf, 4 + (uint32_t)(seed % 4),
                                              3 + (uint32_t)(seed % 5), region);
        op_contour_settings st;
        op_contour_settings_defaults(&st);
        st.max_error = 0;
        st.keep_raw = 1;
        op_contour_set set;
        assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &set), OP_OK);
        op_contour_report rep;
        if (op_check_contours(&ctx, &chf, region, rc, &st, &set, &rep) != OP_OK)
            fail_msg("seed %llu: %s", (unsigned long long)seed, rep.first_failures);
        assert_int_equal(rep.shared_boundary_checked, 1);
        sts.shared += rep.shared_checks;
        /* The checker does catch a one-sided vertex: drop one shared-border vertex. */
        for (uint32_t i = 0; i < set.count; i++) {
            op_contour *c = &set.contours[i];
            if (c->vert_count <= 4 || (c->flags & OP_CONTOUR_OUTLINE_RAW))
                continue;
            uint32_t j = 0;
            while (j < c->vert_count &&
                   !(c->verts[j].neighbour != 0 && c->verts[j].neighbour <= rc &&
                     c->verts[(j + c->vert_count - 1) % c->vert_count].neighbour ==
                         c->verts[j].neighbour))
                j++;
            if (j == c->vert_count)
                continue;
            memmove(c->verts + j, c->verts + j + 1, (c->vert_count - j - 1) * sizeof *c->verts);
            c->vert_count--;
            assert_int_equal(op_check_contours(&ctx, &chf, region, rc, &st, &set, &rep),
                             OP_INTERNAL);
            break;
        }
        op_contour_set_free(&set);
        free(region);
        op_chf_free(&chf);
    }
    assert_true(sts.shared > 500);
    op_ctx_free(&ctx);
}

/* Same input, same bytes; a change of settings changes them. */
static void test_determinism(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 64, 48);
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 77, &o), OP_OK);
    uint32_t *region = malloc(chf.span_count * sizeof *region);
    const uint32_t rc = ct_random_regions(&ctx, &chf, 7, 5, region);
    op_contour_settings st;
    op_contour_settings_defaults(&st);
    op_contour_set a, b;
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &a), OP_OK);
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &b), OP_OK);
    assert_true(op_digest_contours(&a) == op_digest_contours(&b));
    assert_int_equal(a.count, b.count);
    for (uint32_t i = 0; i < a.count; i++) {
        assert_int_equal(a.contours[i].vert_count, b.contours[i].vert_count);
        assert_memory_equal(a.contours[i].verts, b.contours[i].verts,
                            a.contours[i].vert_count * sizeof *a.contours[i].verts);
    }
    op_contour_set_free(&b);
    st.max_error = 2.5;
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &b), OP_OK);
    assert_true(op_digest_contours(&a) != op_digest_contours(&b));
    op_contour_set_free(&a);
    op_contour_set_free(&b);
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* One large field (~1M spans): the build stays fast (no quadratic loops). */
static void test_large_field(void **state)
{
    if (op_test_quick()) { /* util/quick.h: 900k spans take minutes under qemu */
        print_message("OP_TEST_QUICK: large fields skipped\n");
        return;
    }
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 700, 700);
    o.max_floors = 3;
    o.hole_percent = 2;
    o.area_count = 1;
    o.empty_percent = 3;
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 4242, &o), OP_OK);
    assert_true(chf.span_count > 900000);
    uint32_t *region = malloc(chf.span_count * sizeof *region);
    /* components cut into blocks of 40 x 25 cells */
    const uint32_t rc = ct_random_regions(&ctx, &chf, 40, 25, region);
    op_contour_settings st;
    op_contour_settings_defaults(&st);
    op_contour_set set;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc, &st, &set), OP_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("large field: %u spans, %u regions, %u contours in %.3f s\n", chf.span_count, rc,
           set.count, sec);
    assert_true(set.count > 0);
    uint32_t holes = 0;
    for (uint32_t i = 0; i < set.count; i++)
        holes += set.contours[i].hole_count;
    assert_true(holes > 1000);
    op_contour_report rep;
    if (op_check_contours(&ctx, &chf, region, rc, &st, &set, &rep) != OP_OK)
        fail_msg("large field: %s", rep.first_failures);
    op_contour_set_free(&set);
    free(region);
    op_chf_free(&chf);

    /* One region with thousands of holes: bridging is per outline, O(v * h). */
    op_random_chf_defaults(&o, 200, 200);
    o.area_count = 1;
    o.hole_percent = 2;
    o.empty_percent = 3;
    assert_int_equal(op_random_chf(&ctx, &chf, 4242, &o), OP_OK);
    region = malloc(chf.span_count * sizeof *region);
    const uint32_t rc2 = ct_random_regions(&ctx, &chf, 0, 0, region);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(op_build_contours(&ctx, &chf, region, rc2, &st, &set), OP_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double sec2 = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    uint32_t maxh = 0;
    for (uint32_t i = 0; i < set.count; i++)
        maxh = set.contours[i].hole_count > maxh ? set.contours[i].hole_count : maxh;
    printf("many holes: %u spans, max %u holes in one outline, %.3f s\n", chf.span_count, maxh,
           sec2);
    assert_true(maxh > 1000);
    if (op_check_contours(&ctx, &chf, region, rc2, &st, &set, &rep) != OP_OK)
        fail_msg("many holes: %s", rep.first_failures);
    op_contour_set_free(&set);
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_promises),
        cmocka_unit_test(test_random_border_band),
        cmocka_unit_test(test_shared_boundaries),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_large_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
