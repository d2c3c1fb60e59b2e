/* The triangle-list rasterizer (op_rasterize_triangle_list, the tiled bakes) against the
 * whole-mesh path on the same triangles: for random lists (repeated and out-of-order
 * entries, empty, longer than a binning run, with a bad entry, a bad index or a vertex
 * that is not finite at random positions and around the run and lane boundaries), every
 * variant gives the field the scalar mesh path gives for a mesh of the listed triangles
 * in list order, and the error (status and message) of the first bad list position. The
 * list's binning gathers runs of index triples for the rows kernel (raster.rows_of);
 * this pins that it stays the per-triangle checks' result, byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testscene.h"
#include "util/testutil.h"
#include "util/variants.h"

#define RUN 1024 /* src/spans/rasterize.c's RUN_MAX: lists cross it */

static uint64_t g_state;
static uint32_t rnd(uint32_t n)
{
    g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((g_state >> 33) % n) : 0;
}

/* Every span of every column the same. */
static void same_field(const op_heightfield *a, const op_heightfield *b, const char *what)
{
    if (a->span_count != b->span_count)
        fail_msg("%s: %llu spans, expected %llu", what, (unsigned long long)a->span_count,
                 (unsigned long long)b->span_count);
    for (uint32_t z = 0; z < a->depth; z++)
        for (uint32_t x = 0; x < a->width; x++) {
            uint32_t s = op_heightfield_begin(a, x, z), t = op_heightfield_begin(b, x, z);
            const uint32_t se = op_heightfield_end(a, x, z), te = op_heightfield_end(b, x, z);
            if (se - s != te - t)
                fail_msg("%s: column %u,%u has %u spans, expected %u", what, x, z, se - s,
                         te - t);
            for (; s < se; s++, t++)
                if (a->smin[s] != b->smin[t] || a->smax[s] != b->smax[t] ||
                    a->area[s] != b->area[t])
                    fail_msg("%s: column %u,%u differs", what, x, z);
        }
}

/* The status and message of the first bad list position (the per-triangle checks of
 * src/spans/rasterize.c, in list order), or OP_OK. */
static op_status expected_error(const op_mesh *m, const uint32_t *list, uint32_t n, char *msg,
                                size_t cap, uint32_t *at)
{
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = list[k];
        *at = k;
        if (i >= m->tri_count) {
            snprintf(msg, cap, "triangle list entry %u is %u of %u", k, i, m->tri_count);
            return OP_INVALID_ARGUMENT;
        }
        const uint32_t *t = m->tris + 3 * (size_t)i;
        for (int q = 0; q < 3; q++) {
            if (t[q] >= m->vert_count) {
                snprintf(msg, cap, "triangle %u refers to vertex %u but there are %u vertices",
                         i, t[q], m->vert_count);
                return OP_BAD_INPUT;
            }
            const float *v = m->verts + 3 * (size_t)t[q];
            if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
                snprintf(msg, cap, "triangle %u: vertex %u is not finite", i, t[q]);
                return OP_BAD_INPUT;
            }
        }
    }
    return OP_OK;
}

/* A list position for a bad entry: random, or at a run's or an 8-lane step's edge. */
static uint32_t bad_position(uint32_t n)
{
    static const uint32_t edges[] = {0, 1, 7, 8, 9, RUN - 1, RUN, RUN + 1, 2 * RUN - 1,
                                     2 * RUN, 2 * RUN + 7};
    const uint32_t e = edges[rnd(sizeof edges / sizeof edges[0])];
    return rnd(2) && e < n ? e : rnd(n);
}

static void test_list_against_mesh(void **state)
{
    (void)state;
    op_isa isas[OP_ISA_COUNT];
    isas[0] = OP_ISA_SCALAR;
    const int nisa = 1 + op_test_simd_variants(isas + 1, NULL);
    op_ctx ref_ctx, ctx[OP_ISA_COUNT];
    assert_int_equal(op_ctx_init(&ref_ctx, OP_ISA_SCALAR), OP_OK);
    for (int v = 0; v < nisa; v++)
        assert_int_equal(op_ctx_init(&ctx[v], isas[v]), OP_OK);
    unsigned long lists = 0, errors = 0, late_errors = 0, long_lists = 0, entries = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        op_scene s;
        op_config cfg;
        assert_int_equal(op_test_random_scene(&ref_ctx, &s, &cfg, seed * 104729, 30, 30),
                         OP_OK);
        uint32_t W, D;
        assert_int_equal(op_config_grid_size(&ref_ctx, &cfg, &W, &D), OP_OK);
        /* The scene's mesh, then three vertices (NaN, inf, a good one last: the vector
         * loads may not read the last whole) and triangles: good ones on the last
         * vertex, on the non-finite ones, and indices at nv and 0xffffffff. */
        const op_mesh *sm = &s.mesh;
        const uint32_t nv = sm->vert_count + 3, ngood = sm->tri_count + 2,
                       nt = ngood + 6;
        op_mesh m;
        memset(&m, 0, sizeof m);
        m.verts = malloc(3 * (size_t)nv * sizeof(float));
        m.tris = malloc(3 * (size_t)nt * sizeof(uint32_t));
        uint8_t *areas = malloc(nt);
        assert_true(m.verts && m.tris && areas);
        memcpy(m.verts, sm->verts, 3 * (size_t)sm->vert_count * sizeof(float));
        memcpy(m.tris, sm->tris, 3 * (size_t)sm->tri_count * sizeof(uint32_t));
        m.vert_count = nv;
        m.tri_count = nt;
        float *extra = m.verts + 3 * (size_t)sm->vert_count;
        const float *c = sm->verts; /* a vertex of the world, for the good last one */
        const float extra_v[9] = {c[0], NAN, c[2], c[0], c[1], -INFINITY, c[0] + 0.7f,
                                  c[1] + 0.3f, c[2] + 0.9f};
        memcpy(extra, extra_v, sizeof extra_v);
        const uint32_t a = sm->tri_count ? sm->tris[0] : 0, b = sm->tri_count ? sm->tris[1] : 0;
        const uint32_t extra_t[3 * 8] = {
            a, b, nv - 1,      nv - 1, a, b,      /* good, on the last vertex */
            a, nv - 3, b,      nv - 2, a, b,      /* NaN, -inf */
            a, b, nv,          0xffffffffu, a, b, /* indices past the vertices */
            nv - 3, nv, b,     a, nv - 2, nv + 5, /* both faults: the first decides */
        };
        memcpy(m.tris + 3 * (size_t)sm->tri_count, extra_t, sizeof extra_t);
        g_state = seed;
        op_mark_walkable_triangles(sm, cfg.walkable_slope_deg, areas);
        for (uint32_t i = sm->tri_count; i < nt; i++)
            areas[i] = (uint8_t)rnd(2) * OP_WALKABLE_AREA;
        for (int round = 0; round < 100; round++) {
            /* The list: empty, short, around a run, or several runs long. */
            static const uint32_t lens[] = {0, 1, 5, 8, 9, RUN - 1, RUN, RUN + 1, 2 * RUN + 3};
            uint32_t n = rnd(3) ? rnd(3 * RUN + 500) : lens[rnd(sizeof lens / sizeof lens[0])];
            uint32_t *list = malloc((n ? n : 1) * sizeof *list);
            assert_non_null(list);
            for (uint32_t k = 0; k < n; k++) {
                const uint32_t mode = rnd(8);
                list[k] = mode == 0 && k ? list[rnd(k)]                   /* repeated */
                          : mode == 1 && k ? (list[k - 1] + 1) % ngood      /* in order */
                                           : rnd(ngood);
            }
            /* Up to two bad entries: past the mesh, or a bad triangle. */
            const uint32_t nbad = n && rnd(2) ? 1 + rnd(2) : 0;
            for (uint32_t q = 0; q < nbad; q++) {
                const uint32_t p = bad_position(n), kind = rnd(8);
                list[p] = kind == 0 ? nt : kind == 1 ? 0xffffffffu : ngood + rnd(6);
            }
            char want_msg[256] = "";
            uint32_t at = 0;
            const op_status want = expected_error(&m, list, n, want_msg, sizeof want_msg, &at);
            errors += want != OP_OK;
            late_errors += want != OP_OK && at >= RUN;
            long_lists += n > RUN;
            entries += n;
            /* The reference: the scalar mesh path on a mesh of the listed triangles (a
             * failing call leaves the field as it was: empty here). */
            op_mesh r = m;
            r.tris = malloc((n ? n : 1) * 3 * sizeof(uint32_t));
            uint8_t *rareas = malloc(n ? n : 1);
            assert_true(r.tris && rareas);
            r.tri_count = want == OP_OK ? n : 0;
            for (uint32_t k = 0; k < r.tri_count; k++) {
                memcpy(r.tris + 3 * (size_t)k, m.tris + 3 * (size_t)list[k], 3 * sizeof(uint32_t));
                rareas[k] = areas[list[k]];
            }
            /* A window (a tile's) half the time, else the whole world. */
            const int win = rnd(2);
            const uint32_t ww = win ? 5 + rnd(W) : W, wd = win ? 5 + rnd(D) : D;
            const int32_t ox = win ? (int32_t)rnd(W + 4) - 4 : 0,
                          oz = win ? (int32_t)rnd(D + 4) - 4 : 0;
            op_heightfield ref;
            assert_int_equal(op_heightfield_init(&ref_ctx, &ref, ww, wd, cfg.bmin, cfg.bmax, cfg.cs,
                                                 cfg.ch),
                             OP_OK);
            if (win)
                assert_int_equal(op_heightfield_set_window(&ref_ctx, &ref, ox, oz, W, D), OP_OK);
            const op_status rst =
                op_rasterize_triangles(&ref_ctx, &ref, &r, rareas, cfg.walkable_climb);
            assert_int_equal(rst, OP_OK);
            for (int v = 0; v < nisa; v++) {
                char what[128];
                snprintf(what, sizeof what, "seed %llu round %d %s (%u entries)",
                         (unsigned long long)seed, round, op_isa_name(isas[v]), n);
                assert_int_equal(op_ctx_set_threads(&ctx[v], 1 + 2 * (int)rnd(2)), OP_OK);
                op_heightfield hf;
                assert_int_equal(op_heightfield_init(&ctx[v], &hf, ww, wd, cfg.bmin, cfg.bmax,
                                                     cfg.cs, cfg.ch),
                                 OP_OK);
                if (win)
                    assert_int_equal(op_heightfield_set_window(&ctx[v], &hf, ox, oz, W, D),
                                     OP_OK);
                const op_status st = op_rasterize_triangle_list(&ctx[v], &hf, &m, areas, list,
                                                                n, cfg.walkable_climb);
                if (st != want)
                    fail_msg("%s: status %d, expected %d", what, (int)st, (int)want);
                if (want != OP_OK && strcmp(op_ctx_error(&ctx[v]), want_msg) != 0)
                    fail_msg("%s: error \"%s\", expected \"%s\"", what, op_ctx_error(&ctx[v]),
                             want_msg);
                same_field(&hf, &ref, what);
                op_heightfield_free(&hf);
            }
            op_heightfield_free(&ref);
            free(r.tris);
            free(rareas);
            free(list);
            lists++;
        }
        free(m.verts);
        free(m.tris);
        free(areas);
        op_scene_free(&s);
    }
    print_message("%lu lists (%lu entries, %lu longer than a run, %lu with an error, %lu of "
                  "them past the first run), %d variants\n",
                  lists, entries, long_lists, errors, late_errors, nisa);
    assert_true(errors > 100 && late_errors > 30 && lists - errors > 100 && long_lists > 100);
    op_ctx_free(&ref_ctx);
    for (int v = 0; v < nisa; v++)
        op_ctx_free(&ctx[v]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_against_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
