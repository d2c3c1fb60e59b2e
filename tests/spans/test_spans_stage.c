/* The whole spans stage (supplement §1) on a flat quad with a box, and its errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testbuild.h"
#include "util/testutil.h"

static uint32_t vtx(op_mesh *m, float x, float y, float z)
{
    return op_test_vertex(&op_test_ctx, m, x, y, z);
}

static void tri(op_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    op_test_triangle(&op_test_ctx, m, a, b, c);
}

/* Ground [0,10]² at y 0, then a box [4,6]² x [0,2] (top and four walls, no bottom). */
static void scene_quad_box(op_scene *s)
{
    op_scene_init(s);
    op_mesh *m = &s->mesh;
    op_test_quad_up(&op_test_ctx, m, 0, 0, 10, 10, 0);
    op_test_quad_up(&op_test_ctx, m, 4, 4, 6, 6, 2);
    const float x[2] = {4, 6}, z[2] = {4, 6};
    for (int i = 0; i < 2; i++) {
        /* wall at x = x[i] and at z = z[i] */
        uint32_t a = vtx(m, x[i], 0, 4), b = vtx(m, x[i], 0, 6), c = vtx(m, x[i], 2, 6),
                 d = vtx(m, x[i], 2, 4);
        tri(m, a, b, c);
        tri(m, a, c, d);
        a = vtx(m, 4, 0, z[i]);
        b = vtx(m, 6, 0, z[i]);
        c = vtx(m, 6, 2, z[i]);
        d = vtx(m, 4, 2, z[i]);
        tri(m, a, b, c);
        tri(m, a, c, d);
    }
}

static void config(op_config *cfg)
{
    op_config_defaults(cfg);
    cfg->cs = 0.5f;
    cfg->ch = 0.25f;
    cfg->walkable_height = 8;
    cfg->walkable_climb = 2;
    cfg->walkable_radius = 0;
}

typedef struct progress_log {
    int calls, monotone;
    double last;
} progress_log;

static void on_progress(void *user, const char *stage, double f)
{
    progress_log *p = user;
    assert_string_equal(stage, "spans");
    if (p->calls && f < p->last)
        p->monotone = 0;
    p->last = f;
    p->calls++;
}

/* Expected, cell by cell (20 x 20 cells of 0.5): every column has the ground [0,1];
 * the box top is [8,9] over cells 8..11; the -x and -z walls fall in the box's first
 * column/row and merge ground and top into [0,9]; the +x and +z walls fall in column
 * 12 / row 12 outside the box and merge with the ground into an unwalkable [0,8].
 * Solid spans: 400 + 9 (box cells with separate ground and top).
 * Filters: the grid border (76) is a ledge (off-grid); the box top's -x/-z edge (7
 * merged columns) is a ledge (drop of 8 > climb to the ground), but its +x/+z edge is
 * not: the outer walls' tops at 8 are a step of 1 (ledges read geometry only, never
 * areas); the ground under the box has 7 < 8 of clearance. Compact: 400 - 76 - 16 - 8
 * ground + 9 box top = 309.
 * Erosion by 1 removes the boundary spans (fewer than four links): the ring next to
 * the grid border (68), the 19 ground spans next to the box and walls, the 8 top spans
 * around the top's centre (10,10) → 214. */
static void test_quad_box(void **state)
{
    (void)state;
    op_scene s;
    scene_quad_box(&s);
    op_config cfg;
    config(&cfg);
    op_chf chf;
    op_spans_stats st;
    progress_log log = {0, 1, 0};
    op_test_ctx.progress = on_progress;
    op_test_ctx.progress_user = &log;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, &st), OP_OK);
    op_test_ctx.progress = NULL;
    assert_true(log.calls >= 3);
    assert_true(log.monotone);
    assert_true(log.last == 1.0);
    assert_int_equal(st.width, 20);
    assert_int_equal(st.depth, 20);
    assert_int_equal(st.solid_spans, 409);
    assert_int_equal(st.compact_spans, 309);
    assert_int_equal(st.walkable_spans, 309);
    assert_int_equal(chf.width, 20);
    assert_true(chf.bmin[0] == 0 && chf.bmax[0] == 10 && chf.bmax[1] == 2);
    assert_int_equal(chf.walkable_height, 8);
    /* Box top cells (9..11)²: one span at y 9 each (the ground below is too low)... */
    for (uint32_t z = 9; z <= 11; z++)
        for (uint32_t x = 9; x <= 11; x++) {
            const uint32_t c = x + z * 20;
            assert_int_equal(op_chf_cell_count(&chf, c), 1);
            assert_int_equal(chf.y[chf.cell_first[c]], 9);
        }
    /* ... the ground at y 1 elsewhere, nothing under the walls or the border. */
    assert_int_equal(chf.y[chf.cell_first[3 + 3 * 20]], 1);
    assert_int_equal(op_chf_cell_count(&chf, 12 + 9 * 20), 0);
    assert_int_equal(op_chf_cell_count(&chf, 0), 0);
    assert_int_equal(op_chf_cell_count(&chf, 12 + 12 * 20), 1);
    op_chf_free(&chf);

    cfg.walkable_radius = 1;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, &st), OP_OK);
    assert_int_equal(st.compact_spans, 309);
    assert_int_equal(st.walkable_spans, 214);
    assert_int_equal(chf.area[chf.cell_first[10 + 10 * 20]], 63);
    assert_int_equal(chf.area[chf.cell_first[9 + 10 * 20]], 0);
    op_chf_free(&chf);

    /* Volumes are applied last, in order: mark a strip, then an obstacle inside it. */
    cfg.walkable_radius = 0;
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.box_min[0] = 0;
    v.box_min[1] = 0;
    v.box_max[0] = 10;
    v.box_max[1] = 1; /* rows 0, 1 (centres 0.25, 0.75) */
    v.ymin = -1;
    v.ymax = 1;
    v.area = 9;
    assert_int_equal(op_scene_add_volume(&op_test_ctx, &s, &v), OP_OK);
    v.box_max[0] = 1; /* columns 0, 1 */
    v.area = 0;
    assert_int_equal(op_scene_add_volume(&op_test_ctx, &s, &v), OP_OK);
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, &st), OP_OK);
    /* Row 1, columns 1..18 are walkable ground; column 1 is now an obstacle. */
    uint32_t n9 = 0;
    for (uint32_t i = 0; i < chf.span_count; i++)
        n9 += chf.area[i] == 9;
    assert_int_equal(n9, 17);
    assert_int_equal(st.walkable_spans, 308);
    op_chf_free(&chf);
    op_scene_free(&s);
}

/* Explicit bounds clip the input; the grid follows them. */
static void test_bounds(void **state)
{
    (void)state;
    op_scene s;
    scene_quad_box(&s);
    op_config cfg;
    config(&cfg);
    cfg.has_bounds = 1;
    const float bmin[3] = {2, -1, 2}, bmax[3] = {8, 1, 8}; /* below the box top */
    memcpy(cfg.bmin, bmin, sizeof bmin);
    memcpy(cfg.bmax, bmax, sizeof bmax);
    op_chf chf;
    op_spans_stats st;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, &st), OP_OK);
    assert_int_equal(st.width, 12);
    assert_int_equal(st.depth, 12);
    /* The walls are clamped to [0, by] = [0, 2] in y → [4, 8] cells (bmin.y = -1); the top is
     * above bmax.y and adds nothing. */
    assert_int_equal(st.solid_spans, 144);
    op_chf_free(&chf);
    op_scene_free(&s);
}

/* Invalid settings and input: clear statuses and messages, never a crash; out stays
 * zeroed. */
static void test_errors(void **state)
{
    (void)state;
    op_scene s;
    scene_quad_box(&s);
    op_config cfg;
    op_chf chf;
    memset(&chf, 0x5a, sizeof chf);

    config(&cfg);
    cfg.cs = 0;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_test_ctx.err, "cs"));
    assert_null(chf.y);

    config(&cfg);
    cfg.ch = NAN;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_test_ctx.err, "ch"));

    config(&cfg);
    cfg.walkable_height = 0;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_test_ctx.err, "walkable_height"));

    config(&cfg);
    cfg.walkable_radius = -1;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);

    /* An absurd grid fails before anything is allocated. */
    config(&cfg);
    cfg.has_bounds = 1;
    const float bmin[3] = {-1e7f, 0, -1e7f}, bmax[3] = {1e7f, 10, 1e7f};
    memcpy(cfg.bmin, bmin, sizeof bmin);
    memcpy(cfg.bmax, bmax, sizeof bmax);
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_test_ctx.err, "too large"));
    /* Empty bounds. */
    cfg.bmax[0] = cfg.bmin[0];
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);

    /* An empty mesh. */
    config(&cfg);
    op_scene e;
    op_scene_init(&e);
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &e, &chf, NULL), OP_BAD_INPUT);
    assert_non_null(strstr(op_test_ctx.err, "no triangles"));
    /* A mesh flat in x (zero width). */
    uint32_t a = vtx(&e.mesh, 1, 0, 0), b = vtx(&e.mesh, 1, 0, 1), c = vtx(&e.mesh, 1, 1, 1);
    tri(&e.mesh, a, b, c);
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &e, &chf, NULL), OP_INVALID_ARGUMENT);
    op_scene_free(&e);

    /* A corrupt hand-built mesh and a bad volume. */
    s.mesh.tris[0] = 1000;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_BAD_INPUT);
    s.mesh.tris[0] = 0;
    s.mesh.verts[1] = NAN;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_BAD_INPUT);
    s.mesh.verts[1] = 0;
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_CYLINDER;
    v.radius = 1;
    v.ymin = 0;
    v.ymax = 1;
    assert_int_equal(op_scene_add_volume(&op_test_ctx, &s, &v), OP_OK);
    s.volumes[0].radius = -2;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_null(chf.y);
    s.volumes[0].radius = 2;
    assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_OK);
    op_chf_free(&chf);
    op_scene_free(&s);
}

/* The mesh checks (src/spans/stage.c mesh_valid, branch-free in lanes of eight, and the
 * loops that name the culprit): a bad index or coordinate at every position of the
 * arrays (every lane, the tails after the last whole eight) is found and named; the
 * largest index and the extreme finite values pass. */
static void test_mesh_checks(void **state)
{
    (void)state;
    op_scene s;
    scene_quad_box(&s); /* 24 vertices, 12 triangles: 36 indices (a tail of 4) */
    const uint32_t unused = vtx(&s.mesh, 1, 1, 1); /* 75 coordinates (a tail of 3) */
    op_config cfg;
    config(&cfg);
    op_chf chf;
    op_mesh *m = &s.mesh;
    char want[128];
    const uint32_t bad_index[3] = {m->vert_count, m->vert_count + 1, 0xffffffffu};
    for (uint32_t i = 0; i < 3 * m->tri_count; i++) {
        const uint32_t keep = m->tris[i];
        for (int k = 0; k < 3; k++) {
            m->tris[i] = bad_index[k];
            assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_BAD_INPUT);
            snprintf(want, sizeof want, "triangle %u refers to vertex %u", i / 3, bad_index[k]);
            assert_non_null(strstr(op_test_ctx.err, want));
        }
        m->tris[i] = m->vert_count - 1; /* the largest index is one */
        assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_OK);
        op_chf_free(&chf);
        m->tris[i] = keep;
    }
    const float not_finite[3] = {NAN, INFINITY, -INFINITY};
    cfg.has_bounds = 1; /* so extreme coordinates do not move the grid */
    const float bmin[3] = {0, -1, 0}, bmax[3] = {10, 3, 10};
    memcpy(cfg.bmin, bmin, sizeof bmin);
    memcpy(cfg.bmax, bmax, sizeof bmax);
    const float finite[3] = {3.4028235e38f, -3.4028235e38f, 1e-45f};
    for (uint32_t j = 0; j < 3 * m->vert_count; j++) {
        const float keep = m->verts[j];
        for (int k = 0; k < 3; k++) {
            m->verts[j] = not_finite[k];
            assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_BAD_INPUT);
            snprintf(want, sizeof want, "vertex %u has a non-finite coordinate", j / 3);
            assert_non_null(strstr(op_test_ctx.err, want));
        }
        if (j / 3 == unused) { /* in no triangle: any finite value passes */
            for (int k = 0; k < 3; k++) {
                m->verts[j] = finite[k];
                assert_int_equal(op_build_spans(&op_test_ctx, &cfg, &s, &chf, NULL), OP_OK);
                op_chf_free(&chf);
            }
        }
        m->verts[j] = keep;
    }
    op_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quad_box),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mesh_checks),
    };
    return cmocka_run_group_tests(tests, op_test_ctx_setup, op_test_ctx_teardown);
}
