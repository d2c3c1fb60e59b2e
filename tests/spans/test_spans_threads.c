/* Threads inside one grid (issue 11, supplement §2 last sentence): the rasterizer's runs
 * of row bands, the filters and the compaction by rows give the bytes of one thread for
 * 1, 2, 3, 8 and 16 threads: the spans stage's field (digest and every array), the solid
 * heightfield, windows, the whole bake's digests, and the same first failure. Run in the
 * plain, sanitizer and ThreadSanitizer builds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testutil.h"

static const int THREADS[] = {1, 2, 3, 8, 16};
#define NT ((int)(sizeof THREADS / sizeof THREADS[0]))

static op_ctx ctx_with(int threads)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    assert_int_equal(op_ctx_set_threads(&ctx, threads), OP_OK);
    return ctx;
}

static void same_chf(const op_chf *a, const op_chf *b, const char *what)
{
    assert_int_equal(a->span_count, b->span_count);
    const size_t cells = (size_t)a->width * a->depth, n = a->span_count;
    if (memcmp(a->cell_first, b->cell_first, (cells + 1) * 4) || memcmp(a->y, b->y, n * 2) ||
        memcmp(a->h, b->h, n) || memcmp(a->area, b->area, n) ||
        memcmp(a->mutual, b->mutual, n))
        fail_msg("%s: cells or spans differ", what);
    int dir = 0;
    const int64_t at = op_test_links_diff(a, b, &dir);
    if (at >= 0)
        fail_msg("%s: link[%d] differs at span %lld", what, dir, (long long)at);
    assert_int_equal(op_digest_chf(a), op_digest_chf(b));
}

static void same_hf(const op_heightfield *a, const op_heightfield *b, const char *what)
{
    assert_int_equal(op_heightfield_span_count(a), op_heightfield_span_count(b));
    for (uint32_t z = 0; z < a->depth; z++)
        for (uint32_t x = 0; x < a->width; x++) {
            const uint32_t s = op_heightfield_begin(a, x, z), e = op_heightfield_end(a, x, z);
            const uint32_t t = op_heightfield_begin(b, x, z), f = op_heightfield_end(b, x, z);
            if (e - s != f - t)
                fail_msg("%s: column (%u, %u) count", what, x, z);
            for (uint32_t k = 0; k < e - s; k++)
                if (a->smin[s + k] != b->smin[t + k] || a->smax[s + k] != b->smax[t + k] ||
                    a->area[s + k] != b->area[t + k])
                    fail_msg("%s: column (%u, %u) span %u", what, x, z, k);
        }
}

/* The spans stage and the whole bake on the demo world (many bands and rows). */
static void test_demo(void **state)
{
    (void)state;
    op_ctx c1 = ctx_with(1);
    op_scene scene;
    op_config cfg;
    assert_int_equal(op_demo_world(&c1, 900, &scene, &cfg), OP_OK);
    op_chf ref;
    assert_int_equal(op_build_spans(&c1, &cfg, &scene, &ref, NULL), OP_OK);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.config = cfg;
    op_bake_result rref;
    assert_int_equal(op_bake_scene(&c1, &scene, &s, &rref), OP_OK);
    for (int i = 1; i < NT; i++) {
        op_ctx c = ctx_with(THREADS[i]);
        op_chf chf;
        assert_int_equal(op_build_spans(&c, &cfg, &scene, &chf, NULL), OP_OK);
        char what[32];
        snprintf(what, sizeof what, "demo, %d threads", THREADS[i]);
        same_chf(&chf, &ref, what);
        op_chf_free(&chf);
        op_bake_result r;
        assert_int_equal(op_bake_scene(&c, &scene, &s, &r), OP_OK);
        assert_int_equal(r.digest_spans, rref.digest_spans);
        assert_int_equal(r.digest_distance, rref.digest_distance);
        assert_int_equal(r.digest_regions, rref.digest_regions);
        assert_int_equal(r.digest_contours, rref.digest_contours);
        op_bake_result_free(&r);
        op_ctx_free(&c);
    }
    op_bake_result_free(&rref);
    op_chf_free(&ref);
    op_scene_free(&scene);
    op_ctx_free(&c1);
}

static float frand(op_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(op_rng_next(r) >> 40) / (float)(1u << 24);
}

/* Random meshes on wide grids (many bands, triangles crossing runs of bands), solid
 * heightfields and windows. */
static void test_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        op_rng r = {seed};
        op_ctx c1 = ctx_with(1);
        op_mesh m;
        op_mesh_init(&m);
        const uint32_t W = 300 + op_rng_below(&r, 3000), D = 200 + op_rng_below(&r, 300);
        const float cs = 0.5f;
        const float bmin[3] = {-10, 0, 5}, bmax[3] = {-10 + (float)W * cs, 30, 5 + (float)D * cs};
        for (int i = 0; i < 4000; i++) {
            const float x = frand(&r, bmin[0], bmax[0]), z = frand(&r, bmin[2], bmax[2]);
            const float dz = op_rng_below(&r, 10) ? frand(&r, 0.1f, 8) : (float)D * cs;
            uint32_t v = m.vert_count;
            assert_int_equal(op_mesh_add_vertex(&c1, &m, x, frand(&r, 0, 30), z), OP_OK);
            assert_int_equal(op_mesh_add_vertex(&c1, &m, x + frand(&r, -4, 4), frand(&r, 0, 30),
                                                z + dz),
                             OP_OK);
            assert_int_equal(op_mesh_add_vertex(&c1, &m, x + frand(&r, -4, 4), frand(&r, 0, 30),
                                                z - frand(&r, 0, 3)),
                             OP_OK);
            assert_int_equal(op_mesh_add_triangle(&c1, &m, v, v + 1, v + 2), OP_OK);
        }
        uint8_t *areas = malloc(m.tri_count);
        op_mark_walkable_triangles(&m, 50.0f, areas);
        op_heightfield ref;
        assert_int_equal(op_heightfield_init(&c1, &ref, W, D, bmin, bmax, cs, 0.25f), OP_OK);
        assert_int_equal(op_rasterize_triangles(&c1, &ref, &m, areas, 3), OP_OK);
        for (int i = 1; i < NT; i++) {
            op_ctx c = ctx_with(THREADS[i]);
            op_heightfield hf;
            assert_int_equal(op_heightfield_init(&c, &hf, W, D, bmin, bmax, cs, 0.25f), OP_OK);
            assert_int_equal(op_rasterize_triangles(&c, &hf, &m, areas, 3), OP_OK);
            char what[48];
            snprintf(what, sizeof what, "seed %llu, %d threads", (unsigned long long)seed,
                     THREADS[i]);
            same_hf(&hf, &ref, what);
            op_heightfield_free(&hf);
            /* A window reaching past the world. */
            op_heightfield wa, wb;
            const int32_t ox = (int32_t)op_rng_below(&r, W / 2) - 20, oz = -7;
            assert_int_equal(op_heightfield_init(&c1, &wa, W / 2 + 40, D + 14, bmin, bmax, cs,
                                                 0.25f),
                             OP_OK);
            assert_int_equal(op_heightfield_init(&c, &wb, W / 2 + 40, D + 14, bmin, bmax, cs,
                                                 0.25f),
                             OP_OK);
            assert_int_equal(op_heightfield_set_window(&c1, &wa, ox, oz, W, D), OP_OK);
            assert_int_equal(op_heightfield_set_window(&c, &wb, ox, oz, W, D), OP_OK);
            assert_int_equal(op_rasterize_triangle_list(&c1, &wa, &m, areas, NULL, 0, 3), OP_OK);
            assert_int_equal(op_rasterize_triangle_list(&c, &wb, &m, areas, NULL, 0, 3), OP_OK);
            same_hf(&wb, &wa, what);
            /* Filters and compaction of the window. */
            op_chf ca, cb;
            op_filter_low_hanging_obstacles(&wa, 3);
            op_filter_ledge_spans(&wa, 8, 3);
            op_filter_low_height_spans(&wa, 8);
            assert_int_equal(op_build_compact_heightfield(&c1, &wa, 8, 3, &ca), OP_OK);
            assert_int_equal(op_build_compact_heightfield(&c, &wa, 8, 3, &cb), OP_OK);
            same_chf(&cb, &ca, what);
            op_chf_free(&ca);
            op_chf_free(&cb);
            op_heightfield_free(&wa);
            op_heightfield_free(&wb);
            op_ctx_free(&c);
        }
        op_heightfield_free(&ref);
        free(areas);
        op_mesh_free(&m);
        op_ctx_free(&c1);
    }
}

/* The first failure in input order, whichever thread's run of bands meets it: a grid
 * binary32 cannot resolve (near 2^22, cells of 1/8), triangles spread over its rows. */
static void test_failure(void **state)
{
    (void)state;
    op_ctx c1 = ctx_with(1);
    const uint32_t W = 64, D = 4000;
    const float cs = 0.125f, base = 4194304.0f;
    const float bmin[3] = {base, 0, base}, bmax[3] = {base + W * cs, 4, base + D * cs};
    op_rng r = {5};
    op_mesh m;
    op_mesh_init(&m);
    for (int i = 0; i < 3000; i++) {
        const float z0 = (float)op_rng_below(&r, D - 70);
        uint32_t v = m.vert_count;
        for (int k = 0; k < 3; k++)
            assert_int_equal(op_mesh_add_vertex(&c1, &m,
                                                base + (float)op_rng_below(&r, 64000) / 1000 * cs,
                                                (float)op_rng_below(&r, 100) / 50,
                                                base + (z0 + (float)op_rng_below(&r, 64000) / 1000) *
                                                           cs),
                             OP_OK);
        assert_int_equal(op_mesh_add_triangle(&c1, &m, v, v + 1, v + 2), OP_OK);
    }
    uint8_t *areas = malloc(m.tri_count);
    memset(areas, 63, m.tri_count);
    op_heightfield ref;
    assert_int_equal(op_heightfield_init(&c1, &ref, W, D, bmin, bmax, cs, 0.2f), OP_OK);
    const op_status s1 = op_rasterize_triangles(&c1, &ref, &m, areas, 1);
    assert_int_equal(s1, OP_BAD_INPUT);
    char msg[sizeof c1.err];
    memcpy(msg, c1.err, sizeof msg);
    for (int i = 1; i < NT; i++) {
        op_ctx c = ctx_with(THREADS[i]);
        op_heightfield hf;
        assert_int_equal(op_heightfield_init(&c, &hf, W, D, bmin, bmax, cs, 0.2f), OP_OK);
        assert_int_equal(op_rasterize_triangles(&c, &hf, &m, areas, 1), OP_BAD_INPUT);
        assert_string_equal(c.err, msg);
        assert_int_equal(op_heightfield_span_count(&hf), 0); /* left as it was */
        op_heightfield_free(&hf);
        op_ctx_free(&c);
    }
    op_heightfield_free(&ref);
    free(areas);
    op_mesh_free(&m);
    op_ctx_free(&c1);
}

static void test_set_threads(void **state)
{
    (void)state;
    op_ctx c;
    assert_int_equal(op_ctx_init(&c, OP_ISA_SCALAR), OP_OK);
    assert_int_equal(c.threads, 1);
    assert_int_equal(op_ctx_set_threads(&c, -1), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&c), "threads must be >= 0"));
    assert_int_equal(op_ctx_set_threads(&c, 0), OP_OK);
    op_ctx w;
    assert_int_equal(op_ctx_fork(&c, &w), OP_OK);
    assert_int_equal(w.threads, 1); /* a worker starts with one */
    op_ctx_free(&w);
    op_ctx_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_threads),
        cmocka_unit_test(test_failure),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_demo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
