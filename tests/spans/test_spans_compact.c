/* Compact heightfield and the link rule (supplement §1.5). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "onepath/onepath.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* w x d cells of 0.5 x 0.25 from (1, 2, 3), up to y = 50. */
static void make_hf(op_heightfield *hf, uint32_t w, uint32_t d)
{
    static const float origin[3] = {1, 2, 3};
    op_test_hf(&op_test_ctx, hf, w, d, origin, 0.5f, 0.25f, 48);
}

static void add(op_heightfield *hf, uint32_t x, uint32_t z, int lo, int hi, int area)
{
    op_test_span(&op_test_ctx, hf, x, z, lo, hi, area);
}

/* Layout: cells x + z*width, spans bottom-up, area-0 spans dropped, cell_first a prefix
 * sum over empty cells too, y = smax, h = min(next.smin - y, 255), 255 at the top. */
static void test_layout(void **state)
{
    (void)state;
    op_heightfield hf;
    make_hf(&hf, 3, 2);
    add(&hf, 0, 0, 0, 2, 63);
    add(&hf, 0, 0, 10, 12, 0); /* dropped, but still the ceiling of the span below */
    add(&hf, 2, 0, 0, 4, 5);
    add(&hf, 2, 0, 300, 301, 63); /* gap 296 → h 255 */
    add(&hf, 1, 1, 7, 9, 63);
    add(&hf, 1, 1, 20, 22, 63);
    op_chf chf;
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 3, 1, &chf), OP_OK);
    assert_int_equal(chf.width, 3);
    assert_int_equal(chf.depth, 2);
    assert_int_equal(chf.span_count, 5);
    const uint32_t first[6] = {0, 1, 1, 3, 3, 5}, count[6] = {1, 0, 2, 0, 2, 0};
    for (int c = 0; c < 6; c++) {
        assert_int_equal(chf.cell_first[c], first[c]);
        assert_int_equal(op_chf_cell_count(&chf, c), count[c]);
    }
    const uint16_t y[5] = {2, 4, 301, 9, 22}, h[5] = {8, 255, 255, 11, 255};
    const uint8_t ar[5] = {63, 5, 63, 63, 63};
    for (int s = 0; s < 5; s++) {
        assert_int_equal(chf.y[s], y[s]);
        assert_int_equal(chf.h[s], h[s]);
        assert_int_equal(chf.area[s], ar[s]);
    }
    assert_true(chf.bmin[0] == 1 && chf.bmin[1] == 2 && chf.bmin[2] == 3);
    assert_true(chf.bmax[1] == 50);
    assert_true(chf.cs == 0.5f && chf.ch == 0.25f);
    assert_int_equal(chf.walkable_height, 3);
    assert_int_equal(chf.walkable_climb, 1);
    assert_int_equal(chf.border_size, 0);
    assert_int_equal(op_chf_span_cell(&chf, 3), 4);
    op_chf_free(&chf);
    op_heightfield_free(&hf);
    /* Bad settings are refused. */
    make_hf(&hf, 1, 1);
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 0, 1, &chf),
                     OP_INVALID_ARGUMENT);
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, -1, &chf),
                     OP_INVALID_ARGUMENT);
    op_heightfield_free(&hf);
}

/* Link rule: the lowest neighbour span with overlap >= walkable_height and step <=
 * walkable_climb; one-way links from multi-floor columns; mutual bits; off-grid none.
 * wh 2, climb 3. A (x=0): a1 y=1 (h 4), a2 y=6 (h 255). B (x=1): b1 y=3.
 * a1–b1: overlap min(5, 258) - 3 = 2, step 2 → linked both ways.
 * a2–b1: overlap 258 - 6, step 3 → a2 links to b1, but b1's lowest match is a1. */
static void test_links(void **state)
{
    (void)state;
    op_heightfield hf;
    make_hf(&hf, 2, 1);
    add(&hf, 0, 0, 0, 1, 63);
    add(&hf, 0, 0, 5, 6, 63);
    add(&hf, 1, 0, 0, 3, 63);
    op_chf chf;
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 3, &chf), OP_OK);
    assert_int_equal(chf.span_count, 3);
    const uint32_t a1 = 0, a2 = 1, b1 = 2;
    assert_int_equal(op_chf_link(&chf, 2, a1), b1);
    assert_int_equal(op_chf_link(&chf, 2, a2), b1);
    assert_int_equal(op_chf_link(&chf, 0, b1), a1);
    assert_int_equal(chf.mutual[a1], 1u << 2);
    assert_int_equal(chf.mutual[a2], 0); /* one-way */
    assert_int_equal(chf.mutual[b1], 1u << 0);
    for (uint32_t s = 0; s < 3; s++) {
        assert_int_equal(op_chf_link(&chf, 1, s), OP_NO_LINK); /* off-grid */
        assert_int_equal(op_chf_link(&chf, 3, s), OP_NO_LINK);
    }
    assert_int_equal(op_chf_link(&chf, 0, a1), OP_NO_LINK);
    assert_int_equal(op_chf_link(&chf, 2, b1), OP_NO_LINK);
    op_chf_free(&chf);
    /* Climb 1: a1–b1 step 2 > 1 → no link at all. Height 3: overlap 2 < 3 for a1–b1,
     * a2–b1 step 3 within climb 3 → b1 links to a2 now, mutually. */
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 1, &chf), OP_OK);
    for (uint32_t s = 0; s < 3; s++)
        for (int d = 0; d < 4; d++)
            assert_int_equal(op_chf_link(&chf, d, s), OP_NO_LINK);
    op_chf_free(&chf);
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 3, 3, &chf), OP_OK);
    assert_int_equal(op_chf_link(&chf, 2, a1), OP_NO_LINK);
    assert_int_equal(op_chf_link(&chf, 2, a2), b1);
    assert_int_equal(op_chf_link(&chf, 0, b1), a2);
    assert_int_equal(chf.mutual[a2], 1u << 2);
    assert_int_equal(chf.mutual[b1], 1u << 0);
    op_chf_free(&chf);
    op_heightfield_free(&hf);

    /* All four directions on a plus shape: centre (1,1) links to each arm with the
     * right direction numbering (0 = -x, 1 = +z, 2 = +x, 3 = -z). */
    make_hf(&hf, 3, 3);
    add(&hf, 1, 1, 0, 10, 63);
    add(&hf, 0, 1, 0, 10, 63);
    add(&hf, 1, 2, 0, 11, 63);
    add(&hf, 2, 1, 0, 9, 63);
    add(&hf, 1, 0, 0, 12, 63);
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 2, &chf), OP_OK);
    const uint32_t c = chf.cell_first[1 + 1 * 3];
    const uint32_t ny[4] = {10, 11, 9, 12};
    for (int d = 0; d < 4; d++) {
        const uint32_t t = op_chf_link(&chf, d, c);
        assert_int_not_equal(t, OP_NO_LINK);
        assert_int_equal(chf.y[t], ny[d]);
        assert_int_equal(op_chf_link(&chf, (d + 2) & 3, t), c);
    }
    assert_int_equal(chf.mutual[c], 0xf);
    op_chf_free(&chf);
    op_heightfield_free(&hf);
}

/* No per-column limit: 300 spans in a column, links from the neighbour column reach
 * span indices > 255 within the cell (which OPCHF1 could not store, §4). */
static void test_300_spans(void **state)
{
    (void)state;
    op_heightfield hf;
    make_hf(&hf, 2, 1);
    for (int i = 0; i < 300; i++) {
        add(&hf, 0, 0, 3 * i, 3 * i + 1, 63);
        add(&hf, 1, 0, 3 * i, 3 * i + 1, 63);
    }
    op_chf chf;
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 0, &chf), OP_OK);
    assert_int_equal(chf.span_count, 600);
    assert_int_equal(op_chf_cell_count(&chf, 0), 300);
    assert_int_equal(op_chf_cell_count(&chf, 1), 300);
    for (uint32_t i = 0; i < 300; i++) {
        const uint32_t s = chf.cell_first[0] + i, t = chf.cell_first[1] + i;
        assert_int_equal(chf.h[s], i == 299 ? 255 : 2);
        assert_int_equal(op_chf_link(&chf, 2, s), t);
        assert_int_equal(op_chf_link(&chf, 0, t), s);
        assert_int_equal(chf.mutual[s], 1u << 2);
    }
    assert_true(op_chf_link(&chf, 2, chf.cell_first[0] + 299) - chf.cell_first[1] > 255);
    op_chf_free(&chf);
    op_heightfield_free(&hf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_300_spans),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
