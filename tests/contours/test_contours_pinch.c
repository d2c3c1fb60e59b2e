/* Issue 10 defect 6, supplement §9.11: the MaxError 0 retry is crossing-checked whatever
 * StraightRegionBorders is. A raw loop pinched at vertices (a figure eight seen from
 * above) loses its pinch vertices at MaxError 0, and its straightened edges cross
 * properly, so the raw loop is used (RawFallbacks counts it), as an outline and as a
 * hole; op_check_contours checks the retry too, so a crossing retry cannot pass.
 *
 * The field, by hand: a low strip H (a row at y 0) and a high strip V (a column at y
 * 20) cross without touching; a stair of five cells climbs from H's east end to V's
 * north end, so the three are one region with one boundary loop that passes straight
 * through the four corners of the crossing cell twice (once along H's edge, once along
 * V's). No neighbour is another region, so the loop has no portal: with a large
 * MaxError and no MaxEdgeLength the first attempt keeps two vertices (degenerate) and
 * the MaxError 0 retry runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contours/contours_internal.h"
#include "contours/test_contours_util.h"

typedef struct span_at {
    uint32_t x, z;
    uint16_t y;
} span_at;

static int cmp_span(const void *pa, const void *pb)
{
    const span_at *a = pa, *b = pb;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->y < b->y ? -1 : (a->y > b->y);
}

/* A field of walkable spans at the given cells and floors, links by the §1.5 rule. */
static void build_field(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d, span_at *sp,
                        uint32_t n)
{
    qsort(sp, n, sizeof *sp, cmp_span);
    assert_int_equal(op_chf_alloc(ctx, chf, w, d, n), OP_OK);
    chf->cs = 0.3f;
    chf->ch = 0.2f;
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    uint32_t s = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        chf->cell_first[c] = s;
        while (s < n && sp[s].x + sp[s].z * w == c) {
            chf->y[s] = sp[s].y;
            chf->h[s] = 255;
            if (s > chf->cell_first[c])
                chf->h[s - 1] = (uint8_t)(sp[s].y - sp[s - 1].y);
            chf->area[s] = 63;
            s++;
        }
    }
    assert_int_equal(s, n);
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
}

/* H, V and the stair, offset by (ox, oz): H cells (ox-hw .. ox+6, oz+3) at y 0, V cells
 * (ox+3, oz .. oz+6) at y 20, stair (ox+6, oz+4..6) then (ox+5, oz+6), (ox+4, oz+6). */
static uint32_t add_figure_eight(span_at *sp, uint32_t n, uint32_t ox, uint32_t oz, uint32_t hw)
{
    for (uint32_t x = ox - hw; x <= ox + 6; x++)
        sp[n++] = (span_at){x, oz + 3, 0};
    for (uint32_t z = oz; z <= oz + 6; z++)
        sp[n++] = (span_at){ox + 3, z, 20};
    sp[n++] = (span_at){ox + 6, oz + 4, 4};
    sp[n++] = (span_at){ox + 6, oz + 5, 8};
    sp[n++] = (span_at){ox + 6, oz + 6, 12};
    sp[n++] = (span_at){ox + 5, oz + 6, 16};
    sp[n++] = (span_at){ox + 4, oz + 6, 20};
    return n;
}

static void settings(op_contour_settings *st, int straight)
{
    op_contour_settings_defaults(st);
    st->max_error = 100.0;
    st->max_edge_len = 0;
    st->straight_region_borders = straight;
    st->keep_raw = 1;
}

/* The traced loop itself is pinched: its MaxError 0 simplification crosses. */
static void assert_retry0_crosses(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                                  int want_sign)
{
    op_ctrace tr;
    assert_int_equal(op__contour_trace(ctx, NULL, 0, chf, region, 0, 0, NULL, 1, &tr), OP_OK);
    int found = 0;
    for (uint32_t i = 0; i < tr.loop_count; i++) {
        const op_cloop *L = &tr.loops[i];
        if ((L->area2 > 0) != (want_sign > 0) || L->area2 == 0)
            continue;
        const op_contour_vert *raw = tr.verts + L->first;
        int crosses = 1;
        assert_int_equal(op__loop_crosses(ctx, raw, L->count, &crosses), 0);
        assert_false(crosses); /* the raw loop only touches itself */
        op_contour_vert *out = malloc(L->count * sizeof *out);
        const uint8_t areas[2] = {0, 63};
        op_csimp p = {0.0, 0, 0, 0, 63, areas, 1};
        uint32_t m;
        int kind;
        assert_int_equal(op__contour_simplify(ctx, raw, L->count, L->area2, &p, out, &m, &kind),
                         OP_OK);
        /* Plain MaxError 0 (a first attempt, which no rule crossing-checks): crosses. */
        assert_int_equal(kind, OP_SIMP_PLAIN);
        assert_int_equal(op__loop_crosses(ctx, out, m, &crosses), 0);
        assert_true(crosses);
        free(out);
        found++;
    }
    assert_int_equal(found, 1);
    op__contour_trace_free(&tr);
}

static void build_check(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                        uint32_t region_count, const op_contour_settings *st, op_contour_set *set)
{
    assert_int_equal(op_build_contours(ctx, chf, region, region_count, st, set), OP_OK);
    op_contour_report rep;
    const op_status s = op_check_contours(ctx, chf, region, region_count, st, set, &rep);
    if (s != OP_OK)
        fail_msg("check: %s", rep.first_failures);

}

/* As an outline: the region's only loop. */
static void test_pinched_outline(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    span_at sp[64];
    const uint32_t n = add_figure_eight(sp, 0, 1, 1, 0);
    op_chf chf;
    build_field(&ctx, &chf, 9, 9, sp, n);
    uint32_t *region = malloc(n * sizeof *region);
    uint32_t *one = malloc(n * sizeof *one);
    for (uint32_t s = 0; s < n; s++)
        one[s] = 1;
    assert_int_equal(ct_relabel_connected(&chf, one, region), 1); /* one region */
    free(one);
    assert_retry0_crosses(&ctx, &chf, region, 1);
    for (int straight = 0; straight <= 1; straight++) {
        op_contour_settings st;
        settings(&st, straight);
        op_contour_set set;
        build_check(&ctx, &chf, region, 1, &st, &set);
        assert_int_equal(set.count, 1);
        const op_contour *c = &set.contours[0];
        /* The retry crossed: the raw loop stands, counted once. */
        assert_int_equal(c->flags, OP_CONTOUR_OUTLINE_RAW);
        assert_int_equal(set.raw_fallbacks, 1);
        assert_int_equal(c->vert_count, c->raw_count);
        assert_memory_equal(c->verts, c->raw, c->raw_count * sizeof *c->verts);
        op_contour_set_free(&set);
    }
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* As a hole: a ring floor at y 0 around the whole figure, joined to it through H's west
 * end; the ring's inner loop runs round the figure eight and is pinched the same way. */
static void test_pinched_hole(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    span_at sp[300];
    uint32_t n = 0;
    const uint32_t W = 15;
    for (uint32_t z = 0; z < W; z++)
        for (uint32_t x = 0; x < W; x++)
            if (x < 2 || z < 2 || x >= W - 2 || z >= W - 2)
                sp[n++] = (span_at){x, z, 0};
    n = add_figure_eight(sp, n, 3, 3, 1); /* H reaches x = 2, next to the ring at x = 1 */
    op_chf chf;
    build_field(&ctx, &chf, W, W, sp, n);
    uint32_t *region = malloc(n * sizeof *region);
    uint32_t *one = malloc(n * sizeof *one);
    for (uint32_t s = 0; s < n; s++)
        one[s] = 1;
    assert_int_equal(ct_relabel_connected(&chf, one, region), 1); /* one region */
    free(one);
    assert_retry0_crosses(&ctx, &chf, region, -1);
    for (int straight = 0; straight <= 1; straight++) {
        op_contour_settings st;
        settings(&st, straight);
        op_contour_set set;
        build_check(&ctx, &chf, region, 1, &st, &set);
        assert_int_equal(set.count, 1);
        const op_contour *c = &set.contours[0];
        /* The outline (the ring's rectangle) is its MaxError 0 retry; the hole's retry
         * crossed, so its raw loop is joined; the joined loop does not cross. */
        assert_int_equal(c->flags, OP_CONTOUR_OUTLINE_RETRY0);
        assert_int_equal(c->hole_count, 1);
        assert_int_equal(set.raw_fallbacks, 1);
        assert_int_equal(set.dropped_holes, 0);
        assert_int_equal(c->raw_hole_count, 1);
        /* outline 4 corners + the raw hole + the two bridge ends */
        assert_int_equal(c->vert_count, 4 + c->raw_hole_sizes[0] + 2);
        op_contour_set_free(&set);
    }
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* The checker no longer exempts a MaxError 0 retry from the crossing check: the pinched
 * loop's crossing retry, handed over as if the builder had kept it (flag
 * OP_CONTOUR_OUTLINE_RETRY0), fails op_check_contours with straight borders on and off;
 * the same loop flagged raw is not checked, and the raw loop itself passes. */
static void test_checker_sees_crossing_retry(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    span_at sp[64];
    const uint32_t n = add_figure_eight(sp, 0, 1, 1, 0);
    op_chf chf;
    build_field(&ctx, &chf, 9, 9, sp, n);
    uint32_t *region = malloc(n * sizeof *region), *one = malloc(n * sizeof *one);
    for (uint32_t s = 0; s < n; s++)
        one[s] = 1;
    assert_int_equal(ct_relabel_connected(&chf, one, region), 1);
    free(one);
    op_ctrace tr;
    assert_int_equal(op__contour_trace(&ctx, NULL, 0, &chf, region, 0, 0, NULL, 1, &tr), OP_OK);
    assert_int_equal(tr.loop_count, 1);
    const op_contour_vert *raw = tr.verts + tr.loops[0].first;
    const uint32_t rn = tr.loops[0].count;
    op_contour_vert *retry = malloc(rn * sizeof *retry);
    const uint8_t areas[2] = {0, 63};
    const op_csimp p = {0.0, 0, 0, 0, 63, areas, 1};
    uint32_t m;
    int kind;
    assert_int_equal(op__contour_simplify(&ctx, raw, rn, tr.loops[0].area2, &p, retry, &m, &kind),
                     OP_OK);
    op_contour c;
    memset(&c, 0, sizeof c);
    c.region = 1;
    c.area = 63;
    c.verts = retry;
    c.vert_count = m;
    c.flags = OP_CONTOUR_OUTLINE_RETRY0;
    op_contour_set set;
    memset(&set, 0, sizeof set);
    set.contours = &c;
    set.count = 1;
    for (int straight = 0; straight <= 1; straight++) {
        op_contour_settings st;
        settings(&st, straight);
        st.keep_raw = 0;
        op_contour_report rep;
        assert_int_equal(op_check_contours(&ctx, &chf, region, 1, &st, &set, &rep), OP_INTERNAL);
        assert_int_equal(rep.crossing_checks, 1);
        assert_non_null(strstr(rep.first_failures, "crossing-checked loop crosses itself"));
        /* Flagged raw it is not crossing-checked; the raw loop itself passes. */
        c.flags = OP_CONTOUR_OUTLINE_RAW;
        c.verts = (op_contour_vert *)raw;
        c.vert_count = rn;
        set.raw_fallbacks = 1;
        assert_int_equal(op_check_contours(&ctx, &chf, region, 1, &st, &set, &rep), OP_OK);
        assert_int_equal(rep.crossing_checks, 0);
        c.flags = OP_CONTOUR_OUTLINE_RETRY0;
        c.verts = retry;
        c.vert_count = m;
        set.raw_fallbacks = 0;
    }
    free(retry);
    op__contour_trace_free(&tr);
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinched_outline),
        cmocka_unit_test(test_pinched_hole),
        cmocka_unit_test(test_checker_sees_crossing_retry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
