/* The spans stage's one-pass forms give the bytes of the plain ones (issue 12):
 * op_filter_spans = the three filters of supplement §1.4 called in order, and
 * op_build_compact_heightfield_in_place (the field's arrays become the compact field's)
 * = op_build_compact_heightfield, on random solid fields (empty columns, stacks, area-0
 * spans, windows, packed and not), with every variant, threads, other allocators and
 * a failed allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/testbuild.h"
#include "util/testutil.h"
#include "spans/spans_internal.h"

/* A random solid field of w x d columns on ctx's allocator: most columns one span on a
 * smooth floor, some empty, some stacks of 2..5; area 0 on some spans. Columns are
 * added in cell order (the field stays packed, as the rasterizer writes it) unless
 * shuffled (op_heightfield_add_span then moves columns: not packed). */
static void random_hf(op_ctx *ctx, op_heightfield *hf, uint64_t seed, uint32_t w, uint32_t d,
                      int shuffled)
{
    static const float origin[3] = {0, 0, 0};
    op_test_hf(ctx, hf, w, d, origin, 0.5f, 0.25f, 200);
    op_rng r = {seed};
    const uint32_t cells = w * d;
    for (uint32_t i = 0; i < cells; i++) {
        uint32_t c = i;
        if (shuffled)
            c = (uint32_t)((i * 7919ull + seed) % cells); /* 7919 prime, cells not a multiple */
        const uint32_t x = c % w, z = c / w;
        const uint32_t roll = op_rng_below(&r, 100);
        const uint32_t n = roll < 10 ? 0 : roll < 80 ? 1 : 2 + op_rng_below(&r, 4);
        int lo = (int)((x + z) % 9) + (int)op_rng_below(&r, 3);
        for (uint32_t k = 0; k < n; k++) {
            const int hi = lo + 1 + (int)op_rng_below(&r, 6);
            const uint32_t a = op_rng_below(&r, 100);
            op_test_span(ctx, hf, x, z, lo, hi, a < 15 ? 0 : a < 25 ? 5 : 63);
            lo = hi + 2 + (int)op_rng_below(&r, k == 0 && op_rng_below(&r, 2) ? 4 : 30);
        }
    }
}

/* op_filter_spans and the stage's one-pass filters (every variant, one and three
 * threads) against the three calls, on fields with and without a window. */
static void test_filters_one_pass(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        const uint32_t w = 3 + (uint32_t)(seed * 13 % 41), d = 3 + (uint32_t)(seed * 11 % 47);
        op_heightfield a, b;
        random_hf(&op_test_ctx, &a, seed, w, d, seed % 5 == 0);
        if (seed % 3 == 0) /* a window inside a larger world: some edges are not the world's */
            assert_int_equal(op_heightfield_set_window(&op_test_ctx, &a, (int32_t)(seed % 4) - 1,
                                                       seed % 2 ? 2 : 0, w + 3, d + 2),
                             OP_OK);
        assert_int_equal(op_heightfield_copy(&op_test_ctx, &b, &a), OP_OK);
        const int wh = 1 + (int)(seed % 9), climb = (int)(seed % 5);
        op_filter_low_hanging_obstacles(&a, climb);
        op_filter_ledge_spans(&a, wh, climb);
        op_filter_low_height_spans(&a, wh);
        op_heightfield orig;
        assert_int_equal(op_heightfield_copy(&op_test_ctx, &orig, &b), OP_OK);
        op_filter_spans(&b, wh, climb);
        assert_int_equal(a.span_used, b.span_used);
        assert_memory_equal(a.area, b.area, a.span_used ? a.span_used : 1);
        for (int isa = 0; isa < OP_ISA_COUNT; isa++) {
            op_ctx ctx;
            if (op_ctx_init(&ctx, (op_isa)isa) != OP_OK) {
                op_ctx_free(&ctx);
                continue; /* not on this machine */
            }
            for (int threads = 1; threads <= 3; threads += 2) {
                assert_int_equal(op_ctx_set_threads(&ctx, threads), OP_OK);
                memcpy(b.area, orig.area, orig.span_used);
                op_spans_filters(&ctx, &b, wh, climb);
                assert_memory_equal(a.area, b.area, a.span_used ? a.span_used : 1);
            }
            op_ctx_free(&ctx);
        }
        op_heightfield_free(&orig);
        op_heightfield_free(&a);
        op_heightfield_free(&b);
    }
}

/* In place against a new field: every variant, one and three threads, packed or not. */
/* The compaction's mutual bits (from the cells, in the link pass) equal the mutual links
 * derived from its links: bit d when link[d][s] = t and link[(d+2)&3][t] = s. Returns the
 * links that are one-way. */
static unsigned long assert_mutual_from_links(const op_chf *chf)
{
    unsigned long oneway = 0;
    for (uint32_t s = 0; s < chf->span_count; s++) {
        unsigned m = 0;
        for (int d = 0; d < 4; d++) {
            const uint32_t t = op_chf_link(chf, d, s);
            if (t != OP_NO_LINK && op_chf_link(chf, (d + 2) & 3, t) == s)
                m |= 1u << d;
            oneway += t != OP_NO_LINK && op_chf_link(chf, (d + 2) & 3, t) != s;
        }
        if (chf->mutual[s] != m)
            fail_msg("span %u: mutual %#x, from the links %#x", s, chf->mutual[s], m);
    }
    return oneway;
}

static void test_compact_in_place(void **state)
{
    unsigned long oneway = 0;
    (void)state;
    for (int isa = 0; isa < OP_ISA_COUNT; isa++) {
        op_ctx ctx;
        if (op_ctx_init(&ctx, (op_isa)isa) != OP_OK) {
            op_ctx_free(&ctx);
            continue; /* not on this machine */
        }
        for (uint64_t seed = 1; seed <= 12; seed++) {
            /* Three threads split rows only from 16 rows on (op_grid_threads). */
            const int shuffled = seed % 4 == 0, threads = seed % 6 == 5 ? 3 : 1;
            const uint32_t w = 2 + (uint32_t)(seed * 17 % 53);
            const uint32_t d = threads > 1 ? 40 : 1 + (uint32_t)(seed * 5 % 23);
            assert_int_equal(op_ctx_set_threads(&ctx, threads), OP_OK);
            op_heightfield a, b;
            random_hf(&ctx, &a, seed, w, d, shuffled);
            /* A third of the fields climb walkable_height or more: one-way links. */
            const int wh = 1 + (int)(seed % 7), climb = seed % 3 == 2 ? 6 : (int)(seed % 4);
            op_filter_spans(&a, wh, climb);
            assert_int_equal(op_heightfield_copy(&ctx, &b, &a), OP_OK);
            op_chf ref, got;
            assert_int_equal(op_build_compact_heightfield(&ctx, &a, wh, climb, &ref), OP_OK);
            const uint32_t *first = b.first;
            const int packed = b.packed;
            assert_int_equal(op_build_compact_heightfield_in_place(&ctx, &b, wh, climb, &got),
                             OP_OK);
            /* Consumed: zeroed, and in place (the columns became the cells) where it can. */
            assert_null(b.first);
            assert_null(b.smin);
            if (packed && threads == 1 && ref.span_count)
                assert_ptr_equal(got.cell_first, first);
            else
                assert_ptr_not_equal(got.cell_first, first);
            op_test_assert_same_chf(&ref, &got);
            /* Compaction links row z while it fills the rows after it: the links must be
             * the finished field's (a cell's count is cell_first's step, so row z's links
             * need row z + 2's first entry written). */
            op_chf again;
            assert_int_equal(op_chf_copy(&ctx, &again, &got), OP_OK);
            assert_int_equal(op_chf_build_links(&ctx, &again), OP_OK);
            op_test_assert_same_chf(&again, &got);
            op_chf_free(&again);
            oneway += assert_mutual_from_links(&ref);
            op_chf_free(&ref);
            op_chf_free(&got);
            op_heightfield_free(&a);
        }
        op_ctx_free(&ctx);
    }
    print_message("compact in place: %lu one-way links\n", oneway);
    assert_true(oneway > 0); /* climbs of walkable_height or more: one-way links occur */
}

/* A field where row 0's links would see row 2's spans if compaction linked a row
 * before row + 2's first cell_first entry was written: cell (1, 1) is empty, so the +z
 * neighbour range of span (1, 0) ends at cell_first[4], which in place still holds the
 * solid index 4 (cell (0, 1)'s area-0 span is dropped) until row 2 is filled, and the
 * solid span 4 left in slot 3 ((0, 1)'s floor at 10) would pass the link rule with it. */
static void test_compact_links_rows_ahead(void **state)
{
    (void)state;
    for (int isa = 0; isa < OP_ISA_COUNT; isa++) {
        op_ctx ctx;
        if (op_ctx_init(&ctx, (op_isa)isa) != OP_OK) {
            op_ctx_free(&ctx);
            continue;
        }
        for (int in_place = 0; in_place < 2; in_place++) {
            static const float origin[3] = {0, 0, 0};
            op_heightfield hf;
            op_test_hf(&ctx, &hf, 2, 3, origin, 0.5f, 0.25f, 200);
            op_test_span(&ctx, &hf, 0, 0, 0, 10, 63);
            op_test_span(&ctx, &hf, 1, 0, 0, 10, 63);
            op_test_span(&ctx, &hf, 0, 1, 0, 3, 0);
            op_test_span(&ctx, &hf, 0, 1, 6, 10, 63);
            op_test_span(&ctx, &hf, 0, 2, 0, 10, 63);
            op_test_span(&ctx, &hf, 1, 2, 0, 10, 63);
            op_chf got, again;
            if (in_place)
                assert_int_equal(op_build_compact_heightfield_in_place(&ctx, &hf, 2, 1, &got),
                                 OP_OK);
            else
                assert_int_equal(op_build_compact_heightfield(&ctx, &hf, 2, 1, &got), OP_OK);
            assert_int_equal(got.span_count, 5);
            assert_int_equal(got.cell_first[6], 5);
            assert_int_equal(op_chf_cell_count(&got, 3), 0);
            assert_int_equal(op_chf_link(&got, 1, 1), OP_NO_LINK); /* (1, 0) -> the empty (1, 1) */
            assert_int_equal(op_chf_copy(&ctx, &again, &got), OP_OK);
            assert_int_equal(op_chf_build_links(&ctx, &again), OP_OK);
            op_test_assert_same_chf(&again, &got);
            op_chf_free(&again);
            op_chf_free(&got);
            op_heightfield_free(&hf);
        }
        op_ctx_free(&ctx);
    }
}

/* The in-place arrays are freed by the allocator that made them; a field from another
 * allocator is copied instead; a failed links allocation frees the field too; a field
 * without walkable spans gives an empty compact field. */
static void test_compact_in_place_memory(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
    const size_t base_blocks = ta.live_blocks;
    op_heightfield a, b;
    random_hf(&ctx, &a, 99, 31, 17, 0);
    op_filter_spans(&a, 3, 2);
    op_chf ref, got;
    assert_int_equal(op_build_compact_heightfield(&ctx, &a, 3, 2, &ref), OP_OK);

    /* Same allocator: in place, every block freed through it. */
    assert_int_equal(op_heightfield_copy(&ctx, &b, &a), OP_OK);
    const void *first = b.first;
    assert_int_equal(op_build_compact_heightfield_in_place(&ctx, &b, 3, 2, &got), OP_OK);
    assert_ptr_equal(got.cell_first, first);
    assert_true(op_test_alloc_owns(&ta, got.y) && op_test_alloc_owns(&ta, got.dlink[3]));
    op_test_assert_same_chf(&ref, &got);
    op_chf_free(&got);

    /* A field from the C library's allocator: a new field from ctx's, the old one freed
     * by its own allocator. */
    assert_int_equal(op_heightfield_copy(NULL, &b, &a), OP_OK);
    assert_null(b.alloc.malloc_fn); /* (owns() would read before a foreign block) */
    assert_int_equal(op_build_compact_heightfield_in_place(&ctx, &b, 3, 2, &got), OP_OK);
    assert_true(op_test_alloc_owns(&ta, got.cell_first) && op_test_alloc_owns(&ta, got.y));
    op_test_assert_same_chf(&ref, &got);
    op_chf_free(&got);

    /* Every allocation of the in-place build failing in turn: OP_NO_MEMORY, out zeroed,
     * the field freed. */
    const uint64_t fails = ta.failed;
    for (uint64_t k = 1;; k++) {
        assert_int_equal(op_heightfield_copy(&ctx, &b, &a), OP_OK);
        ta.fail_at = ta.allocs + k;
        const op_status st = op_build_compact_heightfield_in_place(&ctx, &b, 3, 2, &got);
        ta.fail_at = 0;
        assert_null(b.first);
        if (st == OP_OK) {
            op_test_assert_same_chf(&ref, &got);
            op_chf_free(&got);
            break;
        }
        assert_int_equal(st, OP_NO_MEMORY);
        assert_null(got.cell_first);
        assert_null(got.dlink[0]);
        assert_true(k < 16);
    }
    assert_true(ta.failed > fails);

    /* No walkable span. */
    memset(a.area, 0, a.span_used);
    assert_int_equal(op_heightfield_copy(&ctx, &b, &a), OP_OK);
    assert_int_equal(op_build_compact_heightfield_in_place(&ctx, &b, 3, 2, &got), OP_OK);
    assert_int_equal(got.span_count, 0);
    assert_int_equal(op_chf_cell_count(&got, 5), 0);
    op_chf_free(&got);

    op_chf_free(&ref);
    op_heightfield_free(&a);
    assert_int_equal(ta.live_blocks, base_blocks);
    assert_int_equal(ta.bad_frees, 0);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filters_one_pass),
        cmocka_unit_test(test_compact_in_place),
        cmocka_unit_test(test_compact_links_rows_ahead),
        cmocka_unit_test(test_compact_in_place_memory),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
