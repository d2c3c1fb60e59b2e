/* Spans stage: walkable triangles (supplement §1.2), rasterization and the span merge
 * rule (§1.3), on small hand-built geometry. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/testbuild.h"

/* Spans of one column, bottom-up, into arrays; returns the count. */
static uint32_t column(const op_heightfield *hf, uint32_t x, uint32_t z, uint16_t *smin,
                       uint16_t *smax, uint8_t *area, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t s = op_heightfield_begin(hf, x, z); s < op_heightfield_end(hf, x, z); s++) {
        if (n < cap) {
            smin[n] = hf->smin[s];
            smax[n] = hf->smax[s];
            area[n] = hf->area[s];
        }
        n++;
    }
    return n;
}


/* supplement §1.2: a 45° triangle is walkable just above 45° and not just below; a
 * down-facing triangle and a degenerate one are never walkable. */
static void test_slope_threshold(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_mesh m;
    op_mesh_init(&m);
    /* normal = (-t, 1, 0) for v0=(0,0,0), v1=(0,0,1), v2=(1,t,0): slope atan(t). */
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0, 0, 0), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0, 0, 1), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 1, 1, 0), OP_OK);    /* 45° */
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 1, 0.99f, 0), OP_OK); /* 44.7° */
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 1, 1.01f, 0), OP_OK); /* 45.3° */
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 2, 0, 0), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 1, 2), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 1, 3), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 1, 4), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 2, 1), OP_OK); /* down-facing */
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 5, 0), OP_OK); /* degenerate */
    uint8_t a[5];
    memset(a, 0xaa, sizeof a);
    op_mark_walkable_triangles(&m, 45.0f, a);
    assert_int_equal(a[1], 63);
    assert_int_equal(a[2], 0);
    assert_int_equal(a[3], 0);
    assert_int_equal(a[4], 0);
    /* The 45° triangle itself: just above / just below the threshold. */
    op_mark_walkable_triangles(&m, 45.01f, a);
    assert_int_equal(a[0], 63);
    assert_int_equal(a[2], 0); /* 45.3° is still too steep */
    op_mark_walkable_triangles(&m, 44.99f, a);
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 63);
    /* Flat ground is walkable at slope 0.5° and never at 0° (y > cos 0 = 1 is false). */
    op_mark_walkable_triangles(&m, 0.5f, a);
    assert_int_equal(a[0], 0);
    op_mesh_free(&m);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 0, 0, 1, 1, 0);
    op_mark_walkable_triangles(&m, 0.5f, a);
    assert_int_equal(a[0], 63);
    assert_int_equal(a[1], 63);
    op_mark_walkable_triangles(&m, 0.0f, a);
    assert_int_equal(a[0], 0);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
}

/* supplement §1.3 merge: touching spans merge; the area rule is applied after each
 * union, with |new.smax − existing.smax| <= climb. */
static void test_merge_rule(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    uint16_t lo[8], hi[8];
    uint8_t ar[8];

    /* exactly climb: [0,5] walkable, then [5,7] unwalkable touching: 7-5 = 2 <= 2. */
    op_test_hf(&ctx, &hf, 2, 2, NULL, 1, 1, 100);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 1, 0, 5, 63, 2), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 1, 5, 7, 0, 2), OP_OK);
    assert_int_equal(column(&hf, 1, 1, lo, hi, ar, 8), 1);
    assert_int_equal(lo[0], 0);
    assert_int_equal(hi[0], 7);
    assert_int_equal(ar[0], 63);
    assert_int_equal(op_heightfield_span_count(&hf), 1);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 8), 0);
    op_heightfield_free(&hf);

    /* climb + 1: the top moved by 2 > 1, the new area (0) stays. */
    op_test_hf(&ctx, &hf, 2, 2, NULL, 1, 1, 100);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 1, 0, 5, 63, 1), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 1, 5, 7, 0, 1), OP_OK);
    assert_int_equal(column(&hf, 1, 1, lo, hi, ar, 8), 1);
    assert_int_equal(hi[0], 7);
    assert_int_equal(ar[0], 0);
    op_heightfield_free(&hf);

    /* Separated spans stay apart and are ordered bottom-up whatever the insert order. */
    op_test_hf(&ctx, &hf, 1, 1, NULL, 1, 1, 100);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 10, 12, 1, 0), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 0, 5, 2, 0), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 6, 8, 3, 0), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 8), 3);
    assert_int_equal(lo[0], 0);
    assert_int_equal(lo[1], 6);
    assert_int_equal(lo[2], 10);
    assert_int_equal(ar[1], 3);
    /* A span bridging all three absorbs them; the area rule runs after each union:
     * [7,10] area 0 ∪ [6,8] → [6,10] (|10-8| = 2 > 0, area 0); ∪ [10,12] → [6,12] with
     * |12-12| = 0 → area max(0, 1) = 1; then [0,5] touches? no (5 < 6). */
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 7, 10, 0, 0), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 8), 2);
    assert_int_equal(lo[1], 6);
    assert_int_equal(hi[1], 12);
    assert_int_equal(ar[1], 1);
    assert_int_equal(op_heightfield_span_count(&hf), 2);
    op_heightfield_free(&hf);

    /* "After each union": a small unwalkable span inside a tall walkable one takes the
     * walkable area because the union's top equals the existing top. */
    op_test_hf(&ctx, &hf, 1, 1, NULL, 1, 1, 100);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 0, 10, 63, 2), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 3, 4, 0, 2), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 8), 1);
    assert_int_equal(hi[0], 10);
    assert_int_equal(ar[0], 63);
    /* Max area wins, also when the new span has the larger id. */
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 9, 11, 70, 2), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 8), 1);
    assert_int_equal(ar[0], 70);
    /* Bad arguments are errors, not crashes. */
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 0, 0, 1, 1, 0), OP_INVALID_ARGUMENT);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 5, 4, 1, 0), OP_INVALID_ARGUMENT);
    op_heightfield_free(&hf);
    op_ctx_free(&ctx);
}

/* No per-column limit: 300 separated spans, then merging them all frees the pool slots
 * and reuses them. */
static void test_many_spans(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    op_test_hf(&ctx, &hf, 2, 1, NULL, 1, 1, 2000);
    for (int i = 299; i >= 0; i--)
        assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, (uint16_t)(3 * i),
                                                 (uint16_t)(3 * i + 1), 63, 0), OP_OK);
    assert_int_equal(op_heightfield_column_count(&hf, 0, 0), 300);
    uint32_t k = 0;
    for (uint32_t s = op_heightfield_begin(&hf, 0, 0); s < op_heightfield_end(&hf, 0, 0);
         s++, k++)
        assert_int_equal(hf.smin[s], 3 * k);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 0, 1000, 1, 0), OP_OK);
    assert_int_equal(op_heightfield_column_count(&hf, 0, 0), 1);
    assert_int_equal(op_heightfield_span_count(&hf), 1);
    for (int i = 0; i < 100; i++)
        assert_int_equal(op_heightfield_add_span(&ctx, &hf, 1, 0, (uint16_t)(3 * i),
                                                 (uint16_t)(3 * i + 1), 63, 0), OP_OK);
    assert_int_equal(op_heightfield_column_count(&hf, 1, 0), 100);
    assert_int_equal(op_heightfield_span_count(&hf), 101);
    k = 0;
    for (uint32_t s = op_heightfield_begin(&hf, 1, 0); s < op_heightfield_end(&hf, 1, 0);
         s++, k++)
        assert_int_equal(hf.smax[s], 3 * k + 1);
    op_heightfield_free(&hf);
    op_ctx_free(&ctx);
}

/* supplement §1.3 clipping: a flat quad covering a 4x4 grid exactly gives one span per
 * column; [floor(y/ch), ceil(y/ch)] with smax >= smin + 1; no bleeding past a cell
 * boundary the quad ends on; pieces above bmax.y or below bmin.y add nothing. */
static void test_rasterize_flat(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    op_mesh m;
    uint8_t areas[8];
    uint16_t lo[4], hi[4];
    uint8_t ar[4];

    op_test_hf(&ctx, &hf, 4, 4, NULL, 0.5f, 0.25f, 2.0f);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 0, 0, 2, 2, 1.0f);
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 1), OP_OK);
    assert_int_equal(op_heightfield_span_count(&hf), 16);
    for (uint32_t z = 0; z < 4; z++)
        for (uint32_t x = 0; x < 4; x++) {
            assert_int_equal(column(&hf, x, z, lo, hi, ar, 4), 1);
            assert_int_equal(lo[0], 4);
            assert_int_equal(hi[0], 5);
            assert_int_equal(ar[0], 63);
        }
    op_heightfield_free(&hf);
    op_mesh_free(&m);

    /* A quad ending exactly on x = 1.0 and z = 1.0 touches only cells 0..1. */
    op_test_hf(&ctx, &hf, 4, 4, NULL, 0.5f, 0.25f, 2.0f);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 0, 0, 1, 1, 0.3f);
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 1), OP_OK);
    assert_int_equal(op_heightfield_span_count(&hf), 4);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t x = 0; x < 2; x++) {
            assert_int_equal(column(&hf, x, z, lo, hi, ar, 4), 1);
            assert_int_equal(lo[0], 1); /* floor(0.3 / 0.25) */
            assert_int_equal(hi[0], 2); /* ceil(0.3 / 0.25) */
        }
    op_heightfield_free(&hf);
    op_mesh_free(&m);

    /* Above bmax.y, below bmin.y: nothing. A quad partly outside in x is clipped. */
    op_test_hf(&ctx, &hf, 4, 4, NULL, 0.5f, 0.25f, 2.0f);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 0, 0, 2, 2, 2.5f);
    op_test_quad_up(&ctx, &m, 0, 0, 2, 2, -0.5f);
    op_test_quad_up(&ctx, &m, -3, 0.1f, 0.9f, 0.4f, 0.0f);
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 1), OP_OK);
    assert_int_equal(op_heightfield_span_count(&hf), 2); /* cells x 0..1 of row 0 */
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 4), 1);
    assert_int_equal(lo[0], 0);
    assert_int_equal(hi[0], 1);
    assert_int_equal(column(&hf, 1, 0, lo, hi, ar, 4), 1);
    op_heightfield_free(&hf);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
}

/* A ramp y = x/2 over x in [0, 2]: column x spans y in [x·0.25, (x+1)·0.25], i.e. cells
 * [x, x+1] at ch = 0.25 (every value exact in binary32). A spike clamped into bounds. */
static void test_rasterize_ramp(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    op_mesh m;
    uint8_t areas[4];
    uint16_t lo[4], hi[4];
    uint8_t ar[4];
    op_test_hf(&ctx, &hf, 4, 2, NULL, 0.5f, 0.25f, 1.0f);
    op_mesh_init(&m);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0, 0, 0), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0, 0, 1), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 2, 1, 1), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 2, 1, 0), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 1, 2), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 2, 3), OP_OK);
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(areas[0], 63);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 0), OP_OK);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t x = 0; x < 4; x++) {
            assert_int_equal(column(&hf, x, z, lo, hi, ar, 4), 1);
            assert_int_equal(lo[0], x);
            assert_int_equal(hi[0], x + 1);
        }
    op_heightfield_free(&hf);
    op_mesh_free(&m);

    /* A vertical wall from y = -5 to 5 inside one cell: clamped to [0, by] = [0, 1]. */
    op_test_hf(&ctx, &hf, 2, 2, NULL, 1.0f, 0.25f, 1.0f);
    op_mesh_init(&m);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.2f, -5, 0.2f), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.8f, -5, 0.2f), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.5f, 5, 0.2f), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 0, 1, 2), OP_OK);
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(areas[0], 0);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 0), OP_OK);
    assert_int_equal(op_heightfield_span_count(&hf), 1);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 4), 1);
    assert_int_equal(lo[0], 0);
    assert_int_equal(hi[0], 4);
    assert_int_equal(ar[0], 0);
    op_heightfield_free(&hf);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
}

/* The column layout (spans.h): a rasterized field keeps first as the prefix sum of its
 * columns (end NULL, first[width*depth] = span_used, empty rows before and after the
 * spans included); op_heightfield_add_span keeps the ends in hf->end from its first
 * edit; copies keep either layout; rasterizing into an edited field packs it again. */
static void check_layout(const op_heightfield *hf)
{
    const size_t cells = (size_t)hf->width * hf->depth;
    const uint32_t *ends = op_heightfield_ends(hf);
    uint64_t total = 0;
    for (size_t c = 0; c < cells; c++) {
        assert_true(ends[c] >= hf->first[c]);
        assert_true(ends[c] <= hf->span_used);
        const uint32_t n = ends[c] - hf->first[c];
        assert_int_equal(op_heightfield_column_count(hf, (uint32_t)(c % hf->width),
                                                     (uint32_t)(c / hf->width)),
                         n);
        total += n;
    }
    assert_int_equal(total, hf->span_count);
    if (!hf->end) {
        assert_true(hf->packed);
        assert_int_equal(hf->first[0], 0);
        assert_int_equal(hf->first[cells], hf->span_used);
    }
}

static void same_columns(const op_heightfield *a, const op_heightfield *b)
{
    uint16_t lo[2][8], hi[2][8];
    uint8_t ar[2][8];
    for (uint32_t z = 0; z < a->depth; z++)
        for (uint32_t x = 0; x < a->width; x++) {
            const uint32_t n = column(a, x, z, lo[0], hi[0], ar[0], 8);
            assert_int_equal(column(b, x, z, lo[1], hi[1], ar[1], 8), n);
            assert_true(n <= 8);
            assert_memory_equal(lo[0], lo[1], n * sizeof lo[0][0]);
            assert_memory_equal(hi[0], hi[1], n * sizeof hi[0][0]);
            assert_memory_equal(ar[0], ar[1], n);
        }
}

static void test_column_layout(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf, cp;
    op_mesh m;
    uint8_t areas[4];
    op_test_hf(&ctx, &hf, 6, 5, NULL, 0.5f, 0.25f, 2.0f);
    check_layout(&hf);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 1.0f, 1.0f, 2.0f, 1.5f, 1.0f); /* cells x 2..3, z 2 */
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 1), OP_OK);
    assert_int_equal(op_heightfield_span_count(&hf), 2);
    assert_null(hf.end);
    check_layout(&hf);
    for (uint32_t c = 0; c <= 6 * 2 + 2; c++)
        assert_int_equal(hf.first[c], 0);
    for (uint32_t c = 6 * 2 + 4; c <= 30; c++)
        assert_int_equal(hf.first[c], 2);
    assert_int_equal(op_heightfield_copy(&ctx, &cp, &hf), OP_OK);
    assert_null(cp.end);
    check_layout(&cp);
    same_columns(&hf, &cp);
    op_heightfield_free(&cp);

    /* An edit before the last column moves it to the end: the ends are kept. */
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 1, 2, 63, 1), OP_OK);
    assert_non_null(hf.end);
    assert_false(hf.packed);
    check_layout(&hf);
    assert_int_equal(op_heightfield_column_count(&hf, 0, 0), 1);
    assert_int_equal(op_heightfield_column_count(&hf, 2, 2), 1);
    assert_int_equal(op_heightfield_column_count(&hf, 4, 2), 0);
    assert_int_equal(op_heightfield_copy(&ctx, &cp, &hf), OP_OK);
    assert_non_null(cp.end);
    check_layout(&cp);
    same_columns(&hf, &cp);

    /* Rasterizing into the edited field: packed again, the prefix sum, every span kept. */
    op_heightfield_free(&cp);
    assert_int_equal(op_heightfield_copy(&ctx, &cp, &hf), OP_OK);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 1), OP_OK);
    assert_null(hf.end);
    check_layout(&hf);
    same_columns(&hf, &cp);
    op_heightfield_free(&cp);
    op_heightfield_free(&hf);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
}

/* Out of memory: the first edit's ends, and every allocation of a rasterization into an
 * edited field, fail cleanly and leave the field as it was. */
static unsigned g_oom_failures;

static void test_column_layout_oom(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf, before;
    op_mesh m;
    uint8_t areas[4];
    op_test_hf(&ctx, &hf, 6, 5, NULL, 0.5f, 0.25f, 2.0f);
    ta.fail_at = ta.allocs + 1;
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 3, 1, 1, 2, 63, 1), OP_NO_MEMORY);
    assert_null(hf.end);
    assert_int_equal(op_heightfield_span_count(&hf), 0);
    ta.fail_at = 0;
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 3, 1, 1, 2, 63, 1), OP_OK);
    assert_int_equal(op_heightfield_add_span(&ctx, &hf, 0, 0, 1, 2, 63, 1), OP_OK);
    assert_int_equal(op_heightfield_copy(&ctx, &before, &hf), OP_OK);
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 1.0f, 1.0f, 2.0f, 1.5f, 1.0f);
    op_mark_walkable_triangles(&m, 45, areas);
    for (uint64_t n = 1;; n++) {
        op_heightfield t;
        assert_int_equal(op_heightfield_copy(&ctx, &t, &before), OP_OK);
        ta.fail_at = ta.allocs + n;
        const op_status st = op_rasterize_triangles(&ctx, &t, &m, areas, 1);
        const int failed = ta.failed != 0;
        ta.fail_at = 0;
        ta.failed = 0;
        if (!failed) {
            assert_int_equal(st, OP_OK);
            assert_null(t.end);
            check_layout(&t);
            op_heightfield_free(&t);
            break;
        }
        check_layout(&t);
        if (st == OP_OK) { /* a failure it works around (a larger request first) */
            assert_null(t.end);
        } else {
            assert_int_equal(st, OP_NO_MEMORY);
            same_columns(&t, &before);
            g_oom_failures++;
        }
        op_heightfield_free(&t);
    }
    assert_true(g_oom_failures >= 6);
    op_heightfield_free(&before);
    op_heightfield_free(&hf);
    op_mesh_free(&m);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
}

/* Input order decides merges: the same two triangles in the other order differ
 * exactly as the §1.3 rule says, and bad meshes are errors. */
static void test_rasterize_order_and_errors(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_heightfield hf;
    op_mesh m;
    uint16_t lo[4], hi[4];
    uint8_t ar[4];
    /* Floor at y = 0 ([0,1]) and a wall from 0 to 2 ([0,8]); climb 2. */
    op_mesh_init(&m);
    op_test_quad_up(&ctx, &m, 0, 0, 1, 1, 0.0f);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.1f, 0, 0.5f), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.9f, 0, 0.5f), OP_OK);
    assert_int_equal(op_mesh_add_vertex(&ctx, &m, 0.5f, 2, 0.5f), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&ctx, &m, 4, 5, 6), OP_OK);
    uint8_t areas[3];
    op_mark_walkable_triangles(&m, 45, areas);
    assert_int_equal(areas[2], 0);
    /* floor first: [0,1] then wall [0,8]: |8-1| > 2 → area 0. */
    op_test_hf(&ctx, &hf, 1, 1, NULL, 1.0f, 0.25f, 2.0f);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 2), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 4), 1);
    assert_int_equal(hi[0], 8);
    assert_int_equal(ar[0], 0);
    op_heightfield_free(&hf);
    /* wall first: then the floor's union has top 8 = existing top → max area 63. */
    uint32_t t[3] = {4, 5, 6};
    memmove(m.tris + 3, m.tris, 6 * sizeof(uint32_t));
    memcpy(m.tris, t, sizeof t);
    op_mark_walkable_triangles(&m, 45, areas);
    op_test_hf(&ctx, &hf, 1, 1, NULL, 1.0f, 0.25f, 2.0f);
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 2), OP_OK);
    assert_int_equal(column(&hf, 0, 0, lo, hi, ar, 4), 1);
    assert_int_equal(ar[0], 63);
    /* An index out of range in a hand-built mesh: BAD_INPUT with a message. */
    m.tris[4] = 99;
    ctx.err[0] = 0;
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, areas, 2), OP_BAD_INPUT);
    assert_non_null(strstr(ctx.err, "vertex 99"));
    op_heightfield_free(&hf);
    op_mesh_free(&m);
    /* Zero or huge heightfields are refused before allocating. */
    const float b0[3] = {0, 0, 0}, b1[3] = {1, 1, 1};
    assert_int_equal(op_heightfield_init(&ctx, &hf, 0, 4, b0, b1, 1, 1), OP_INVALID_ARGUMENT);
    assert_int_equal(op_heightfield_init(&ctx, &hf, 70000, 70000, b0, b1, 1, 1),
                     OP_INVALID_ARGUMENT);
    op_heightfield_free(&hf);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slope_threshold),
        cmocka_unit_test(test_merge_rule),
        cmocka_unit_test(test_many_spans),
        cmocka_unit_test(test_rasterize_flat),
        cmocka_unit_test(test_rasterize_ramp),
        cmocka_unit_test(test_rasterize_order_and_errors),
        cmocka_unit_test(test_column_layout),
        cmocka_unit_test(test_column_layout_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
