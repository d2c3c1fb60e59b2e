/* Area volumes (supplement §1.7): prisms, boxes, cylinders, in order, with y range. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* 10x10 cells of 1 world unit from (0, 0, 0), ch 0.5: a floor at y 2 (world 1.0)
 * everywhere and a second floor at y 10 (world 5.0) in columns x >= 5. */
static void field(op_chf *chf)
{
    op_heightfield hf;
    op_test_hf(&op_test_ctx, &hf, 10, 10, NULL, 1.0f, 0.5f, 20);
    for (uint32_t z = 0; z < 10; z++)
        for (uint32_t x = 0; x < 10; x++) {
            op_test_span(&op_test_ctx, &hf, x, z, 0, 2, 63);
            if (x >= 5)
                op_test_span(&op_test_ctx, &hf, x, z, 8, 10, 63);
        }
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 1, chf), OP_OK);
    op_heightfield_free(&hf);
}

static uint8_t lower(const op_chf *chf, uint32_t x, uint32_t z)
{
    return chf->area[chf->cell_first[x + z * chf->width]];
}

static uint8_t upper(const op_chf *chf, uint32_t x, uint32_t z)
{
    const uint32_t c = x + z * chf->width;
    assert_int_equal(op_chf_cell_count(chf, c), 2);
    return chf->area[chf->cell_first[c] + 1];
}

static op_volume box(float x0, float z0, float x1, float z1, float y0, float y1, uint8_t area)
{
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.box_min[0] = x0;
    v.box_min[1] = z0;
    v.box_max[0] = x1;
    v.box_max[1] = z1;
    v.ymin = y0;
    v.ymax = y1;
    v.area = area;
    return v;
}

static int count_area(const op_chf *chf, uint8_t a)
{
    int n = 0;
    for (uint32_t s = 0; s < chf->span_count; s++)
        n += chf->area[s] == a;
    return n;
}

/* Box: cell centres on the boundary count; y range inclusive picks floors. */
static void test_box_and_y(void **state)
{
    (void)state;
    op_chf chf;
    field(&chf);
    /* x in [1.5, 3.5] covers centres 1.5, 2.5, 3.5 (cells 1..3); z in [2, 3] covers 2.5. */
    op_volume v = box(1.5f, 2.0f, 3.5f, 3.0f, 0.0f, 1.0f, 5);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &chf, &v, 1), OP_OK);
    assert_int_equal(count_area(&chf, 5), 3);
    assert_int_equal(lower(&chf, 1, 2), 5);
    assert_int_equal(lower(&chf, 3, 2), 5);
    assert_int_equal(lower(&chf, 4, 2), 63);
    assert_int_equal(lower(&chf, 1, 3), 63);
    /* y range: [4, 6] picks the upper floor (5.0) only; [1.0001, 4.99] nothing. */
    v = box(0, 0, 10, 10, 4.0f, 6.0f, 9);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &chf, &v, 1), OP_OK);
    assert_int_equal(count_area(&chf, 9), 50);
    assert_int_equal(upper(&chf, 7, 7), 9);
    assert_int_equal(lower(&chf, 7, 7), 63);
    v = box(0, 0, 10, 10, 1.0001f, 4.99f, 11);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &chf, &v, 1), OP_OK);
    assert_int_equal(count_area(&chf, 11), 0);
    op_chf_free(&chf);
}

/* Order: later volumes override earlier ones; an obstacle (0) stays 0 (unwalkable
 * spans are never marked, as in Recast); links never change. */
static void test_order_and_obstacles(void **state)
{
    (void)state;
    op_chf chf, ref;
    field(&chf);
    assert_int_equal(op_chf_copy(&op_test_ctx, &ref, &chf), OP_OK);
    op_volume v[4];
    v[0] = box(0, 0, 4, 4, -10, 10, 5);   /* cells 0..3 x 0..3 */
    v[1] = box(2, 2, 6, 6, -10, 10, 7);   /* cells 2..5 x 2..5, overrides the overlap */
    v[2] = box(0, 0, 1, 1, -10, 10, 0);   /* obstacle at cell (0,0) */
    v[3] = box(0, 0, 1, 1, -10, 10, 8);   /* cannot revive it */
    assert_int_equal(op_apply_volumes(&op_test_ctx, &chf, v, 4), OP_OK);
    assert_int_equal(lower(&chf, 0, 0), 0);
    assert_int_equal(lower(&chf, 1, 1), 5);
    assert_int_equal(lower(&chf, 2, 2), 7);
    assert_int_equal(lower(&chf, 3, 3), 7);
    assert_int_equal(lower(&chf, 5, 5), 7);
    assert_int_equal(upper(&chf, 5, 5), 7);
    assert_int_equal(lower(&chf, 6, 6), 63);
    assert_int_equal(count_area(&chf, 5), 16 - 4 - 1);
    for (uint32_t s = 0; s < chf.span_count; s++) {
        for (int d = 0; d < 4; d++)
            assert_int_equal(op_chf_link(&chf, d, s), op_chf_link(&ref, d, s));
        assert_int_equal(chf.mutual[s], ref.mutual[s]);
    }
    /* Reversed order: the first box wins the overlap. */
    op_chf_free(&chf);
    assert_int_equal(op_chf_copy(&op_test_ctx, &chf, &ref), OP_OK);
    op_volume r[2] = {v[1], v[0]};
    assert_int_equal(op_apply_volumes(&op_test_ctx, &chf, r, 2), OP_OK);
    assert_int_equal(lower(&chf, 2, 2), 5);
    assert_int_equal(lower(&chf, 5, 5), 7);
    op_chf_free(&chf);
    op_chf_free(&ref);
}

/* Prisms of either winding mark the same cells; points on an edge are inside.
 * Cylinders: dx² + dz² <= r² with the boundary inside. Bad volumes are errors. */
static void test_prism_cylinder(void **state)
{
    (void)state;
    op_chf a, b;
    field(&a);
    assert_int_equal(op_chf_copy(&op_test_ctx, &b, &a), OP_OK);
    /* Triangle (0.5,0.5), (4.5,0.5), (0.5,4.5): centres with x + z <= 5 (edge inclusive)
     * in cells 0..4: pairs (x, z) with x + z <= 4 → 15 cells. */
    op_volume p;
    memset(&p, 0, sizeof p);
    p.kind = OP_VOLUME_PRISM;
    p.vert_count = 3;
    const float ccw[6] = {0.5f, 0.5f, 4.5f, 0.5f, 0.5f, 4.5f};
    memcpy(p.verts, ccw, sizeof ccw);
    p.ymin = 0;
    p.ymax = 2;
    p.area = 3;
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, &p, 1), OP_OK);
    const float cw[6] = {0.5f, 0.5f, 0.5f, 4.5f, 4.5f, 0.5f};
    memcpy(p.verts, cw, sizeof cw);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &b, &p, 1), OP_OK);
    assert_memory_equal(a.area, b.area, a.span_count);
    assert_int_equal(count_area(&a, 3), 15);
    assert_int_equal(lower(&a, 0, 4), 3);
    assert_int_equal(lower(&a, 2, 2), 3);
    assert_int_equal(lower(&a, 2, 3), 63);
    op_chf_free(&b);

    /* Cylinder at (5.5, 5.5), r 1: centres at distance 0 and 1 (the four orthogonal
     * neighbours, on the circle) → 5 cells; diagonal ones (√2) are outside. */
    op_volume c;
    memset(&c, 0, sizeof c);
    c.kind = OP_VOLUME_CYLINDER;
    c.center[0] = 5.5f;
    c.center[1] = 5.5f;
    c.radius = 1.0f;
    c.ymin = 0;
    c.ymax = 100;
    c.area = 4;
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, &c, 1), OP_OK);
    assert_int_equal(count_area(&a, 4), 9); /* 5 cells; x >= 5 also on the upper floor */
    assert_int_equal(lower(&a, 6, 5), 4);
    assert_int_equal(upper(&a, 5, 6), 4);
    assert_int_equal(lower(&a, 6, 6), 63);
    /* A volume outside the grid touches nothing. */
    op_volume far = box(100, 100, 200, 200, -10, 10, 1);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, &far, 1), OP_OK);
    assert_int_equal(count_area(&a, 1), 0);

    /* Errors: too few prism vertices, ymin > ymax, negative radius, unknown kind;
     * nothing is applied when any volume is bad. */
    op_volume bad[2] = {box(0, 0, 10, 10, -10, 10, 2), p};
    bad[1].vert_count = 2;
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, bad, 2), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_test_ctx.err, "volume 1"));
    assert_int_equal(count_area(&a, 2), 0);
    bad[1] = box(0, 0, 1, 1, 5, 4, 2);
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, bad, 2), OP_INVALID_ARGUMENT);
    bad[1] = c;
    bad[1].radius = -1;
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, bad, 2), OP_INVALID_ARGUMENT);
    bad[1].kind = (op_volume_kind)7;
    assert_int_equal(op_apply_volumes(&op_test_ctx, &a, bad, 2), OP_INVALID_ARGUMENT);
    op_chf_free(&a);
}

/* ---- The per-row test against the per-cell one --------------------------------------
 * src/spans/volumes.c computes per row what does not depend on the cell's x (round
 * 10 of bake-speed.md); this is the per-cell code it replaced, the arithmetic of
 * supplement §1.7 as written there, run on random fields and volumes: prisms of 3..32
 * vertices on a grid of quarter cells (vertices and edges through cell centres, both
 * windings, repeated and collinear vertices, non-convex ones), boxes and cylinders with
 * edges on centres, zero radii, random windows (origins) and world corners. */
static int ref_in_footprint(const op_volume *v, float px, float pz)
{
    switch (v->kind) {
    case OP_VOLUME_PRISM: {
        int pos = 0, neg = 0;
        for (uint32_t i = 0, n = v->vert_count; i < n; i++) {
            const uint32_t j = i + 1 == n ? 0 : i + 1;
            const double ax = v->verts[2 * i], az = v->verts[2 * i + 1];
            const double bx = v->verts[2 * j], bz = v->verts[2 * j + 1];
            const double cr = (bx - ax) * ((double)pz - az) - (bz - az) * ((double)px - ax);
            pos |= cr > 0;
            neg |= cr < 0;
        }
        return !(pos && neg);
    }
    case OP_VOLUME_BOX:
        return v->box_min[0] <= px && px <= v->box_max[0] && v->box_min[1] <= pz &&
               pz <= v->box_max[1];
    case OP_VOLUME_CYLINDER: {
        const double dx = (double)px - v->center[0], dz = (double)pz - v->center[1];
        return dx * dx + dz * dz <= (double)v->radius * v->radius;
    }
    }
    return 0;
}

/* Every cell of the window, no footprint bounds (they only skip cells outside). */
static void ref_apply(const op_chf *chf, uint8_t *area, const op_volume *vols, uint32_t n,
                      const float wb[3], int32_t ox, int32_t oz)
{
    for (uint32_t i = 0; i < n; i++) {
        const op_volume *v = &vols[i];
        for (uint32_t z = 0; z < chf->depth; z++) {
            const float pz = wb[2] + ((float)((int64_t)z + oz) + 0.5f) * chf->cs;
            for (uint32_t x = 0; x < chf->width; x++) {
                const float px = wb[0] + ((float)((int64_t)x + ox) + 0.5f) * chf->cs;
                const uint32_t c = x + z * chf->width;
                if (!ref_in_footprint(v, px, pz))
                    continue;
                for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++) {
                    if (area[s] == OP_NULL_AREA)
                        continue;
                    const float fy = wb[1] + (float)chf->y[s] * chf->ch;
                    if (v->ymin <= fy && fy <= v->ymax)
                        area[s] = v->area;
                }
            }
        }
    }
}

static void test_rows_random(void **state)
{
    (void)state;
    op_rng r = {20261207};
    const uint32_t W = 40, D = 36;
    const float cs = 0.5f, ch = 0.25f;
    op_heightfield hf;
    op_test_hf(&op_test_ctx, &hf, W, D, NULL, cs, ch, 40);
    for (uint32_t z = 0; z < D; z++)
        for (uint32_t x = 0; x < W; x++) {
            if (op_rng_below(&r, 10) == 0)
                continue; /* empty cell */
            const int y = (int)op_rng_below(&r, 8);
            op_test_span(&op_test_ctx, &hf, x, z, y, y + 2, 63);
            if (op_rng_below(&r, 3) == 0)
                op_test_span(&op_test_ctx, &hf, x, z, y + 30, y + 32, 63);
        }
    op_chf chf;
    assert_int_equal(op_build_compact_heightfield(&op_test_ctx, &hf, 2, 1, &chf), OP_OK);
    op_heightfield_free(&hf);
    uint8_t *start = malloc(chf.span_count), *want = malloc(chf.span_count);
    assert_non_null(start);
    assert_non_null(want);
    for (uint32_t s = 0; s < chf.span_count; s++)
        start[s] = op_rng_below(&r, 6) == 0 ? OP_NULL_AREA : (uint8_t)(1 + op_rng_below(&r, 63));
    for (int round = 0; round < 400; round++) {
        const int32_t ox = (int32_t)op_rng_below(&r, 9) - 4, oz = (int32_t)op_rng_below(&r, 9) - 4;
        const float wb[3] = {(float)op_rng_below(&r, 5) * 0.25f - 0.5f, 0,
                             (float)op_rng_below(&r, 5) * 0.25f - 0.5f};
        op_volume vols[6];
        const uint32_t nv = 1 + op_rng_below(&r, 6);
        for (uint32_t i = 0; i < nv; i++) {
            op_volume *v = &vols[i];
            memset(v, 0, sizeof *v);
            v->kind = (op_volume_kind)op_rng_below(&r, 3);
            v->ymin = (float)op_rng_below(&r, 12) * 0.5f - 1;
            v->ymax = v->ymin + (float)op_rng_below(&r, 40) * 0.25f;
            v->area = (uint8_t)op_rng_below(&r, 64);
            if (v->kind == OP_VOLUME_PRISM) {
                v->vert_count = 3 + op_rng_below(&r, OP_VOLUME_MAX_VERTS - 2);
                for (uint32_t k = 0; k < v->vert_count; k++) {
                    /* quarter cells around the grid; now and then a repeat */
                    const int rep = k > 0 && op_rng_below(&r, 8) == 0;
                    v->verts[2 * k] = rep ? v->verts[2 * k - 2]
                                          : (float)op_rng_below(&r, 100) * 0.125f - 2;
                    v->verts[2 * k + 1] = rep ? v->verts[2 * k - 1]
                                              : (float)op_rng_below(&r, 90) * 0.125f - 2;
                }
            } else if (v->kind == OP_VOLUME_BOX) {
                for (int k = 0; k < 2; k++) {
                    v->box_min[k] = (float)op_rng_below(&r, 90) * 0.125f - 1;
                    v->box_max[k] = v->box_min[k] + (float)op_rng_below(&r, 60) * 0.125f;
                }
            } else {
                v->center[0] = (float)op_rng_below(&r, 90) * 0.125f - 1;
                v->center[1] = (float)op_rng_below(&r, 90) * 0.125f - 1;
                v->radius = (float)op_rng_below(&r, 40) * 0.125f;
            }
        }
        memcpy(chf.area, start, chf.span_count);
        memcpy(want, start, chf.span_count);
        assert_int_equal(op_apply_volumes_window(&op_test_ctx, &chf, vols, nv, wb, ox, oz), OP_OK);
        ref_apply(&chf, want, vols, nv, wb, ox, oz);
        if (memcmp(chf.area, want, chf.span_count) != 0)
            fail_msg("volumes: round %d differs from the per-cell test", round);
    }
    free(start);
    free(want);
    op_chf_free(&chf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_and_y),
        cmocka_unit_test(test_order_and_obstacles),
        cmocka_unit_test(test_prism_cylinder),
        cmocka_unit_test(test_rows_random),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
