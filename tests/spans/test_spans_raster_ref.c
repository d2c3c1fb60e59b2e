/* The banded rasterizer (spans/rasterize.c, columns as runs of the span arrays) against
 * the previous one (tests/util/ref_raster.c: linked lists, one triangle at a time), span
 * for span and message for message: random meshes (slivers, huge and far triangles,
 * vertices on cut planes, degenerate triangles), windows with replayed rows and columns,
 * fields that already hold spans, the demo world, and failures (clip overflow, a bad
 * index, the first failure in input order whatever the band). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/ref_raster.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static float frand(op_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(op_rng_next(r) >> 40) / (float)(1u << 24);
}

static uint32_t vtx(op_mesh *m, float x, float y, float z)
{
    assert_int_equal(op_mesh_add_vertex(&g_ctx, m, x, y, z), OP_OK);
    return m->vert_count - 1;
}

static void tri(op_mesh *m, float ax, float ay, float az, float bx, float by, float bz, float cx,
                float cy, float cz)
{
    const uint32_t a = vtx(m, ax, ay, az), b = vtx(m, bx, by, bz), c = vtx(m, cx, cy, cz);
    assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b, c), OP_OK);
}

typedef struct grid {
    uint32_t w, d;
    float bmin[3], bmax[3], cs, ch;
} grid;

/* A coordinate: random, on a cut plane, or near one. */
static float coord(op_rng *r, float lo, float cs, uint32_t n)
{
    const uint32_t k = op_rng_below(r, n + 3);
    switch (op_rng_below(r, 4)) {
    case 0: return lo + (float)((int)k - 1) * cs;             /* on a plane */
    case 1: return nextafterf(lo + (float)((int)k - 1) * cs, 1e30f); /* just past */
    default: return frand(r, lo - 2 * cs, lo + (float)(n + 2) * cs);
    }
}

/* Random triangles over a random grid: small ones, slivers, long ones across the grid,
 * some far outside, some degenerate, some with vertices on planes; random areas. */
static void random_mesh(op_mesh *m, grid *g, uint8_t **areas, uint64_t seed)
{
    op_rng r = {seed};
    g->w = 1 + op_rng_below(&r, 70);
    g->d = 1 + op_rng_below(&r, 70);
    g->cs = 0.25f + (float)op_rng_below(&r, 8) * 0.125f;
    g->ch = 0.1f + (float)op_rng_below(&r, 4) * 0.05f;
    g->bmin[0] = frand(&r, -50, 50);
    g->bmin[1] = frand(&r, -5, 5);
    g->bmin[2] = frand(&r, -50, 50);
    g->bmax[0] = g->bmin[0] + (float)g->w * g->cs;
    g->bmax[1] = g->bmin[1] + 10.0f;
    g->bmax[2] = g->bmin[2] + (float)g->d * g->cs;
    op_mesh_init(m);
    const uint32_t n = 1 + op_rng_below(&r, 400);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t kind = op_rng_below(&r, 10);
        float v[9];
        for (int k = 0; k < 3; k++) {
            v[3 * k] = coord(&r, g->bmin[0], g->cs, g->w);
            v[3 * k + 1] = frand(&r, g->bmin[1] - 2, g->bmax[1] + 2);
            v[3 * k + 2] = coord(&r, g->bmin[2], g->cs, g->d);
        }
        if (kind == 0) { /* small, near the first vertex */
            for (int k = 1; k < 3; k++) {
                v[3 * k] = v[0] + frand(&r, -2, 2) * g->cs;
                v[3 * k + 2] = v[2] + frand(&r, -2, 2) * g->cs;
            }
        } else if (kind == 1) { /* sliver: the third vertex near the first edge */
            const float t = frand(&r, 0, 1);
            v[6] = v[0] + (v[3] - v[0]) * t + frand(&r, -1e-3f, 1e-3f);
            v[8] = v[2] + (v[5] - v[2]) * t + frand(&r, -1e-3f, 1e-3f);
        } else if (kind == 2) { /* degenerate: two equal vertices */
            v[6] = v[3];
            v[7] = v[4];
            v[8] = v[5];
        } else if (kind == 3) { /* far and huge */
            v[0] -= 1e4f;
            v[5] += 1e4f;
            v[7] = frand(&r, -1e4f, 1e4f);
        }
        tri(m, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    }
    *areas = malloc(m->tri_count);
    for (uint32_t i = 0; i < m->tri_count; i++)
        (*areas)[i] = (uint8_t)(op_rng_below(&r, 3) ? OP_WALKABLE_AREA : op_rng_below(&r, 64));
}

static void same_fields(const op_heightfield *a, const ref_heightfield *b, const char *what)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(op_heightfield_span_count(a), ref_heightfield_span_count(b));
    for (uint32_t z = 0; z < a->depth; z++)
        for (uint32_t x = 0; x < a->width; x++) {
            uint32_t s = op_heightfield_begin(a, x, z);
            const uint32_t e = op_heightfield_end(a, x, z);
            uint32_t t = b->head[(size_t)x + (size_t)z * b->width];
            for (; s < e && t != REF_HF_NONE; s++, t = b->next[t])
                if (a->smin[s] != b->smin[t] || a->smax[s] != b->smax[t] ||
                    a->area[s] != b->area[t])
                    fail_msg("%s: column (%u, %u): [%u, %u] area %u, reference [%u, %u] area %u",
                             what, x, z, a->smin[s], a->smax[s], a->area[s], b->smin[t],
                             b->smax[t], b->area[t]);
            if (s != e || t != REF_HF_NONE)
                fail_msg("%s: column (%u, %u) has a different span count", what, x, z);
        }
}

/* Rasterizes into both (window when ww > 0), compares status, message and spans. */
static op_status g_last;
static char g_last_msg[512];

static void compare(const grid *g, const op_mesh *m, const uint8_t *areas, int climb,
                    int32_t ox, int32_t oz, uint32_t ww, uint32_t wd, int prefill, uint64_t seed,
                    const char *what)
{
    op_heightfield a;
    ref_heightfield b;
    const uint32_t W = ww ? ww : g->w, D = ww ? wd : g->d;
    assert_int_equal(op_heightfield_init(&g_ctx, &a, W, D, g->bmin, g->bmax, g->cs, g->ch), OP_OK);
    assert_int_equal(ref_heightfield_init(&g_ctx, &b, W, D, g->bmin, g->bmax, g->cs, g->ch), OP_OK);
    if (ww) {
        assert_int_equal(op_heightfield_set_window(&g_ctx, &a, ox, oz, g->w, g->d), OP_OK);
        assert_int_equal(ref_heightfield_set_window(&g_ctx, &b, ox, oz, g->w, g->d), OP_OK);
    }
    if (prefill) {
        /* Spans already there, added in a scrambled cell order (unpacked columns). */
        op_rng r = {seed ^ 0x5eed};
        for (int i = 0; i < prefill; i++) {
            const uint32_t x = op_rng_below(&r, W), z = op_rng_below(&r, D);
            const uint16_t lo = (uint16_t)op_rng_below(&r, 60);
            const uint16_t hi = (uint16_t)(lo + op_rng_below(&r, 5));
            const uint8_t ar = (uint8_t)op_rng_below(&r, 64);
            assert_int_equal(op_heightfield_add_span(&g_ctx, &a, x, z, lo, hi, ar, climb), OP_OK);
            assert_int_equal(ref_heightfield_add_span(&g_ctx, &b, x, z, lo, hi, ar, climb), OP_OK);
        }
        same_fields(&a, &b, "prefill");
    }
    const op_status sa = op_rasterize_triangles(&g_ctx, &a, m, areas, climb);
    char ma[sizeof g_ctx.err];
    memcpy(ma, g_ctx.err, sizeof ma);
    const op_status sb = ref_rasterize_triangles(&g_ctx, &b, m, areas, climb);
    if (sa != sb)
        fail_msg("%s: status %s, reference %s (%s)", what, op_status_name(sa),
                 op_status_name(sb), sa != OP_OK ? ma : g_ctx.err);
    g_last = sa;
    memcpy(g_last_msg, ma, sizeof g_last_msg);
    if (sa != OP_OK) {
        if (strcmp(ma, g_ctx.err))
            fail_msg("%s: message \"%s\", reference \"%s\"", what, ma, g_ctx.err);
    } else {
        same_fields(&a, &b, what);
        /* The band spans' arrays are shrunk to the spans (rasterize.c do_band's estimate
         * of their size may pass it). */
        if (a.span_count && a.span_cap != a.span_used)
            fail_msg("%s: %u span slots allocated for %u", what, a.span_cap, a.span_used);
    }
    op_heightfield_free(&a);
    ref_heightfield_free(&b);
}

static void test_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        op_mesh m;
        grid g;
        uint8_t *areas;
        random_mesh(&m, &g, &areas, seed);
        char what[64];
        snprintf(what, sizeof what, "seed %llu solo", (unsigned long long)seed);
        const int climb = (int)(seed % 4);
        compare(&g, &m, areas, climb, 0, 0, 0, 0, 0, seed, what);
        if (seed % 3 == 0) {
            snprintf(what, sizeof what, "seed %llu prefilled", (unsigned long long)seed);
            compare(&g, &m, areas, climb, 0, 0, 0, 0, 40, seed, what);
        }
        /* Windows reaching past the world on any side. */
        op_rng r = {seed * 77};
        for (int k = 0; k < 2; k++) {
            const int32_t ox = (int32_t)op_rng_below(&r, g.w + 10) - 5;
            const int32_t oz = (int32_t)op_rng_below(&r, g.d + 10) - 5;
            uint32_t ww = 1 + op_rng_below(&r, g.w + 4), wd = 1 + op_rng_below(&r, g.d + 4);
            if (ox + (int32_t)ww <= 0)
                ww = (uint32_t)(1 - ox);
            if (oz + (int32_t)wd <= 0)
                wd = (uint32_t)(1 - oz);
            if (ox >= (int32_t)g.w || oz >= (int32_t)g.d)
                continue;
            snprintf(what, sizeof what, "seed %llu window %d", (unsigned long long)seed, k);
            compare(&g, &m, areas, climb, ox, oz, ww, wd, k ? 20 : 0, seed, what);
        }
        free(areas);
        op_mesh_free(&m);
    }
}

/* Wide grids: many bands (a band is about 64k cells), triangles crossing band edges and
 * continuing from band to band, long thin triangles spanning every band. */
static void test_bands(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        op_rng r = {seed};
        grid g = {.w = 2000 + op_rng_below(&r, 3000), .d = 60 + op_rng_below(&r, 60),
                  .cs = 0.5f, .ch = 0.2f};
        g.bmin[0] = -3.0f;
        g.bmin[1] = 0.0f;
        g.bmin[2] = 7.0f;
        g.bmax[0] = g.bmin[0] + (float)g.w * g.cs;
        g.bmax[1] = 20.0f;
        g.bmax[2] = g.bmin[2] + (float)g.d * g.cs;
        op_mesh m;
        op_mesh_init(&m);
        for (int i = 0; i < 3000; i++) {
            const float x = frand(&r, g.bmin[0], g.bmax[0]), z = frand(&r, g.bmin[2], g.bmax[2]);
            const float dz = op_rng_below(&r, 8) ? frand(&r, 0.1f, 6.0f) : (float)g.d * g.cs;
            tri(&m, x, frand(&r, 0, 20), z, x + frand(&r, -3, 3), frand(&r, 0, 20), z + dz,
                x + frand(&r, -3, 3), frand(&r, 0, 20), z - frand(&r, 0, 2));
        }
        uint8_t *areas = malloc(m.tri_count);
        op_mark_walkable_triangles(&m, 45.0f, areas);
        char what[64];
        snprintf(what, sizeof what, "bands seed %llu", (unsigned long long)seed);
        compare(&g, &m, areas, 2, 0, 0, 0, 0, 0, seed, what);
        compare(&g, &m, areas, 2, 100, 3, g.w - 150, g.d - 5, 0, seed, what);
        free(areas);
        op_mesh_free(&m);
    }
}

static void test_demo_world(void **state)
{
    (void)state;
    const uint32_t sizes[2] = {256, 700};
    for (int i = 0; i < 2; i++) {
        op_scene s;
        op_config cfg;
        assert_int_equal(op_demo_world(&g_ctx, sizes[i], &s, &cfg), OP_OK);
        uint32_t w, d;
        assert_int_equal(op_config_grid_size(&g_ctx, &cfg, &w, &d), OP_OK);
        grid g = {.w = w, .d = d, .cs = cfg.cs, .ch = cfg.ch};
        memcpy(g.bmin, cfg.bmin, sizeof g.bmin);
        memcpy(g.bmax, cfg.bmax, sizeof g.bmax);
        uint8_t *areas = malloc(s.mesh.tri_count);
        op_mark_walkable_triangles(&s.mesh, cfg.walkable_slope_deg, areas);
        compare(&g, &s.mesh, areas, cfg.walkable_climb, 0, 0, 0, 0, 0, 1, "demo");
        compare(&g, &s.mesh, areas, cfg.walkable_climb, 37, -5, w / 2, d / 3, 0, 1, "demo window");
        free(areas);
        op_scene_free(&s);
    }
}

/* A triangle near row z0 of grid g that the reference refuses (clip overflow). */
static void failing_tri(const grid *g, op_rng *r, float z0, float v[9])
{
    for (int tries = 0; tries < 100000; tries++) {
        for (int i = 0; i < 3; i++) {
            v[3 * i] = g->bmin[0] + (float)op_rng_below(r, 64000) / 1000.0f * g->cs;
            v[3 * i + 1] = (float)op_rng_below(r, 100) / 50;
            v[3 * i + 2] = g->bmin[2] + (z0 + (float)op_rng_below(r, 64000) / 1000.0f) * g->cs;
        }
        op_mesh m;
        op_mesh_init(&m);
        tri(&m, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
        ref_heightfield b;
        assert_int_equal(ref_heightfield_init(&g_ctx, &b, g->w, g->d, g->bmin, g->bmax, g->cs,
                                              g->ch),
                         OP_OK);
        const uint8_t area = 63;
        const op_status st = ref_rasterize_triangles(&g_ctx, &b, &m, &area, 1);
        ref_heightfield_free(&b);
        op_mesh_free(&m);
        if (st == OP_BAD_INPUT)
            return;
    }
    fail_msg("no failing triangle found");
}

/* Failures: the first one in input order is reported, whichever band meets it first
 * (a grid of 64 columns has bands of 1024 rows; this one has three); the field is left
 * as it was. The grid is one binary32 cannot resolve (near 2^22, cells of 1/8): some
 * triangles there need more than OP_CLIP_MAX_VERTS vertices. */
static void test_failures(void **state)
{
    (void)state;
    grid g = {.w = 64, .d = 3000, .cs = 0.125f, .ch = 0.2f};
    g.bmin[0] = g.bmin[2] = 4194304.0f;
    g.bmax[0] = g.bmin[0] + (float)g.w * g.cs;
    g.bmax[1] = 4.0f;
    g.bmax[2] = g.bmin[2] + (float)g.d * g.cs;
    op_rng r = {99};
    float late[9], early[9];
    failing_tri(&g, &r, 2500, late);
    failing_tri(&g, &r, 10, early);
    for (int variant = 0; variant < 5; variant++) {
        op_mesh m;
        op_mesh_init(&m);
        /* 0: a good triangle; 1: fails in the last band; 2: fails in the first band;
         * 3: good. */
        tri(&m, g.bmin[0] + 1, 1, g.bmin[2] + 1, g.bmin[0] + 2, 1, g.bmin[2] + 300,
            g.bmin[0] + 3, 1, g.bmin[2] + 2);
        if (variant != 4)
            tri(&m, late[0], late[1], late[2], late[3], late[4], late[5], late[6], late[7],
                late[8]);
        tri(&m, early[0], early[1], early[2], early[3], early[4], early[5], early[6], early[7],
            early[8]);
        tri(&m, g.bmin[0] + 5, 1, g.bmin[2] + 5, g.bmin[0] + 6, 1, g.bmin[2] + 6,
            g.bmin[0] + 5, 1, g.bmin[2] + 7);
        if (variant == 1)
            m.tris[3 * 3 + 1] = 999; /* a bad index after the failures */
        if (variant == 2)
            m.tris[0] = 12345; /* a bad index before them */
        if (variant == 3)
            m.verts[3 * m.tris[3 * 3] + 1] = NAN;
        uint8_t areas[4] = {63, 63, 63, 63};
        char what[32];
        snprintf(what, sizeof what, "failure variant %d", variant);
        for (int pre = 0; pre < 2; pre++) {
            compare(&g, &m, areas, 1, 0, 0, 0, 0, pre ? 30 : 0, 1, what);
            assert_int_equal(g_last, OP_BAD_INPUT);
            assert_non_null(strstr(g_last_msg, variant == 2 ? "triangle 0 refers to vertex 12345"
                                                            : "triangle 1: clipping at"));
        }
        op_mesh_free(&m);
    }
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_bands),
        cmocka_unit_test(test_demo_world),
        cmocka_unit_test(test_failures),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
