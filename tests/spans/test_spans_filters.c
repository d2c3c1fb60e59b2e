/* Spans stage filters (supplement §1.4) on hand-built heightfields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "onepath/onepath.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* w x d unit cells from the origin, up to y = 100. */
static void make_hf(op_heightfield *hf, uint32_t w, uint32_t d)
{
    op_test_hf(&op_test_ctx, hf, w, d, NULL, 1, 1, 100);
}

static void add(op_heightfield *hf, uint32_t x, uint32_t z, int lo, int hi, int area)
{
    op_test_span(&op_test_ctx, hf, x, z, lo, hi, area);
}

/* Area of the k-th span (bottom-up) of a column; -1 when there is none. */
static int area_at(const op_heightfield *hf, uint32_t x, uint32_t z, int k)
{
    for (uint32_t s = op_heightfield_begin(hf, x, z); s < op_heightfield_end(hf, x, z); s++)
        if (k-- == 0)
            return hf->area[s];
    return -1;
}

/* §1.4.1: a non-walkable span climbs onto the walkable one below within climb; the
 * climbed-onto area is copied; a stack of non-walkable spans does not climb. */
static void test_low_hanging(void **state)
{
    (void)state;
    op_heightfield hf;
    make_hf(&hf, 4, 1);
    /* column 0: floors 5 and 9 (diff 4) */
    add(&hf, 0, 0, 0, 5, 7);
    add(&hf, 0, 0, 7, 9, 0);
    /* column 1: floors 5 and 10 (diff 5) */
    add(&hf, 1, 0, 0, 5, 63);
    add(&hf, 1, 0, 7, 10, 0);
    /* column 2: stack of non-walkable spans, floors 5, 8, 11 */
    add(&hf, 2, 0, 0, 5, 63);
    add(&hf, 2, 0, 7, 8, 0);
    add(&hf, 2, 0, 10, 11, 0);
    /* column 3: a non-walkable span at the bottom stays */
    add(&hf, 3, 0, 0, 2, 0);
    add(&hf, 3, 0, 4, 5, 63);
    op_filter_low_hanging_obstacles(&hf, 4);
    assert_int_equal(area_at(&hf, 0, 0, 1), 7); /* exactly climb: climbs, area copied */
    assert_int_equal(area_at(&hf, 1, 0, 1), 0); /* climb + 1: does not */
    assert_int_equal(area_at(&hf, 2, 0, 1), 63);
    assert_int_equal(area_at(&hf, 2, 0, 2), 0); /* was not walkable before the filter */
    assert_int_equal(area_at(&hf, 3, 0, 0), 0);
    assert_int_equal(area_at(&hf, 3, 0, 1), 63);
    op_heightfield_free(&hf);
}

/* A 3x3 field of floors [0,5]; the centre (1,1) is the span under test. wh 4, climb 2. */
static void base3(op_heightfield *hf, int skip_x, int skip_z)
{
    make_hf(hf, 3, 3);
    for (int z = 0; z < 3; z++)
        for (int x = 0; x < 3; x++)
            if (!(x == skip_x && z == skip_z))
                add(hf, (uint32_t)x, (uint32_t)z, 0, 5, 63);
}

static int centre_after_ledge(op_heightfield *hf)
{
    op_filter_ledge_spans(hf, 4, 2);
    const int a = area_at(hf, 1, 1, 0);
    op_heightfield_free(hf);
    return a;
}

static void test_ledges(void **state)
{
    (void)state;
    op_heightfield hf;

    /* Flat: the centre is no ledge, every border span is (off-grid neighbour). */
    base3(&hf, -1, -1);
    op_filter_ledge_spans(&hf, 4, 2);
    assert_int_equal(area_at(&hf, 1, 1, 0), 63);
    for (int z = 0; z < 3; z++)
        for (int x = 0; x < 3; x++)
            if (x != 1 || z != 1)
                assert_int_equal(area_at(&hf, (uint32_t)x, (uint32_t)z, 0), 0);
    op_heightfield_free(&hf);
    /* A 1x1 field: off-grid in every direction. */
    make_hf(&hf, 1, 1);
    add(&hf, 0, 0, 0, 5, 63);
    op_filter_ledge_spans(&hf, 4, 2);
    assert_int_equal(area_at(&hf, 0, 0, 0), 0);
    op_heightfield_free(&hf);

    /* Drop into empty space: an empty neighbour column. */
    base3(&hf, 2, 1);
    assert_int_equal(centre_after_ledge(&hf), 0);
    /* The neighbour's lowest span starts at 9: min(c, 9) - 5 = 4 >= wh → a drop. */
    base3(&hf, 2, 1);
    add(&hf, 2, 1, 9, 12, 63);
    assert_int_equal(centre_after_ledge(&hf), 0);
    /* ... at 8: 3 < wh, a wall, no ledge. */
    base3(&hf, 2, 1);
    add(&hf, 2, 1, 8, 12, 63);
    assert_int_equal(centre_after_ledge(&hf), 63);
    /* The span's own ceiling limits the gap: centre ceiling at 8 → no drop. */
    base3(&hf, 2, 1);
    add(&hf, 2, 1, 20, 22, 63);
    add(&hf, 1, 1, 8, 30, 0);
    assert_int_equal(centre_after_ledge(&hf), 63);

    /* Drop to a lower span: neighbour floor 2 (5 - 2 = 3 > climb) → ledge. */
    base3(&hf, 0, 1);
    add(&hf, 0, 1, 0, 2, 63);
    assert_int_equal(centre_after_ledge(&hf), 0);
    /* neighbour floor 3 (exactly climb): accessible, no ledge. */
    base3(&hf, 0, 1);
    add(&hf, 0, 1, 0, 3, 63);
    assert_int_equal(centre_after_ledge(&hf), 63);
    /* A lower span under a low ceiling is not a passage, so no drop: floor 1, next
     * span [6,7] (accessible floor 7, gap min(ffff, ffff) - 7). Lower span gap:
     * min(ffff, 6) - max(5, 1) = 1 < wh. */
    base3(&hf, 0, 1);
    add(&hf, 0, 1, 0, 1, 63);
    add(&hf, 0, 1, 6, 7, 63);
    assert_int_equal(centre_after_ledge(&hf), 63);
    /* The neighbour's area is never read: area-0 neighbours at the same floor. */
    make_hf(&hf, 3, 3);
    for (int z = 0; z < 3; z++)
        for (int x = 0; x < 3; x++)
            add(&hf, (uint32_t)x, (uint32_t)z, 0, 5, x == 1 && z == 1 ? 63 : 0);
    assert_int_equal(centre_after_ledge(&hf), 63);

    /* Steep slope: accessible neighbour floors 3 and 7 around 5 → max - min = 4 > 2. */
    base3(&hf, 0, 1);
    add(&hf, 0, 1, 0, 3, 63);
    add(&hf, 2, 1, 5, 7, 63); /* merges with [0,5] → floor 7 */
    assert_int_equal(centre_after_ledge(&hf), 0);
    /* 4 and 6: spread 2, not steep. */
    base3(&hf, 0, 1);
    add(&hf, 0, 1, 0, 4, 63);
    add(&hf, 2, 1, 5, 6, 63);
    assert_int_equal(centre_after_ledge(&hf), 63);
    /* Same result whatever the visiting order: filtering a mirrored field gives the
     * mirrored areas. */
    {
        op_heightfield a, b;
        make_hf(&a, 5, 4);
        make_hf(&b, 5, 4);
        const int fl[4][5] = {{3, 4, 6, 9, 5}, {4, 5, 5, 7, 6}, {5, 5, 2, 5, 5}, {6, 7, 5, 4, 3}};
        for (int z = 0; z < 4; z++)
            for (int x = 0; x < 5; x++) {
                add(&a, (uint32_t)x, (uint32_t)z, 0, fl[z][x], 63);
                add(&b, (uint32_t)(4 - x), (uint32_t)(3 - z), 0, fl[z][x], 63);
            }
        op_filter_ledge_spans(&a, 4, 2);
        op_filter_ledge_spans(&b, 4, 2);
        int walk = 0;
        for (int z = 0; z < 4; z++)
            for (int x = 0; x < 5; x++) {
                assert_int_equal(area_at(&a, (uint32_t)x, (uint32_t)z, 0),
                                 area_at(&b, (uint32_t)(4 - x), (uint32_t)(3 - z), 0));
                walk += area_at(&a, (uint32_t)x, (uint32_t)z, 0) != 0;
            }
        /* (1,1) floor 5: neighbours 4, 5, 5, 5 → stays; (2,1): neighbour (2,2) floor 2,
         * drop 3 > climb → ledge; (3,2) floor 5 next to (2,2) → ledge; (3,1) floor 7 sees
         * accessible floors 5..9 → steep. */
        assert_int_equal(area_at(&a, 1, 1, 0), 63);
        assert_int_equal(area_at(&a, 2, 1, 0), 0);
        assert_int_equal(area_at(&a, 3, 2, 0), 0);
        /* (2,2) floor 2 in a pit: every neighbour is 3 higher, a wall, not a drop. */
        assert_int_equal(area_at(&a, 2, 2, 0), 63);
        assert_int_equal(walk, 2);
        op_heightfield_free(&a);
        op_heightfield_free(&b);
    }
}

/* §1.4.3: ceiling - floor < walkable_height → area 0; the top span's ceiling is 0xffff. */
static void test_low_height(void **state)
{
    (void)state;
    op_heightfield hf;
    make_hf(&hf, 2, 1);
    add(&hf, 0, 0, 0, 5, 63);
    add(&hf, 0, 0, 8, 20, 63); /* gap 3 */
    add(&hf, 1, 0, 0, 5, 63);
    add(&hf, 1, 0, 9, 20, 63); /* gap 4 */
    op_filter_low_height_spans(&hf, 4);
    assert_int_equal(area_at(&hf, 0, 0, 0), 0);
    assert_int_equal(area_at(&hf, 0, 0, 1), 63);
    assert_int_equal(area_at(&hf, 1, 0, 0), 63);
    assert_int_equal(area_at(&hf, 1, 0, 1), 63);
    op_heightfield_free(&hf);
    /* A span near the top of the range: ceiling 0xffff - floor 0xfffd = 2 < 4. */
    make_hf(&hf, 1, 1);
    add(&hf, 0, 0, 0xfff0, 0xfffd, 63);
    op_filter_low_height_spans(&hf, 4);
    assert_int_equal(area_at(&hf, 0, 0, 0), 0);
    op_heightfield_free(&hf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_low_hanging),
        cmocka_unit_test(test_ledges),
        cmocka_unit_test(test_low_height),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
