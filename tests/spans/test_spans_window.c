/* Seam-exact windows (supplement §2 "Seam-exact tiles"): for random meshes and the demo
 * world, for several tile sizes T and borders B, every window cell inside the world holds
 * exactly the solo bake's solid spans after rasterization, and with B >= walkable_radius
 * + 3 every owned cell's compact spans, links, areas after erosion and volumes equal the
 * solo bake's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/quick.h"
#include "util/testutil.h"
#include "util/testscene.h"

static op_ctx g_ctx;

/* Per triangle, its xz cell rectangle grown by one cell (the tiled bake's binning
 * margin): x0, x1, z0, z1. */
static int32_t *g_rect;

static void make_rects(const op_config *cfg, const op_mesh *m)
{
    g_rect = malloc((m->tri_count ? m->tri_count : 1) * 4 * sizeof *g_rect);
    assert_non_null(g_rect);
    const float ics = 1.0f / cfg->cs;
    for (uint32_t i = 0; i < m->tri_count; i++) {
        float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int j = 0; j < 3; j++) {
            const float *v = m->verts + 3 * (size_t)m->tris[3 * (size_t)i + j];
            for (int a = 0; a < 2; a++) {
                lo[a] = fminf(lo[a], v[2 * a]);
                hi[a] = fmaxf(hi[a], v[2 * a]);
            }
        }
        g_rect[4 * i + 0] = (int32_t)floor((lo[0] - cfg->bmin[0]) * ics) - 1;
        g_rect[4 * i + 1] = (int32_t)floor((hi[0] - cfg->bmin[0]) * ics) + 1;
        g_rect[4 * i + 2] = (int32_t)floor((lo[1] - cfg->bmin[2]) * ics) - 1;
        g_rect[4 * i + 3] = (int32_t)floor((hi[1] - cfg->bmin[2]) * ics) + 1;
    }
}

/* The triangles whose grown rectangle touches the window, in input order; count in *n. */
static uint32_t *bin_window(const op_mesh *m, int32_t x0, int32_t z0, uint32_t ww, uint32_t wd,
                            uint32_t *n)
{
    uint32_t *list = malloc((m->tri_count ? m->tri_count : 1) * sizeof *list);
    assert_non_null(list);
    uint32_t k = 0;
    const int64_t x1 = (int64_t)x0 + ww, z1 = (int64_t)z0 + wd;
    for (uint32_t i = 0; i < m->tri_count; i++) {
        const int32_t *r = g_rect + 4 * (size_t)i;
        if (r[1] < x0 || r[0] >= x1 || r[3] < z0 || r[2] >= z1)
            continue;
        list[k++] = i;
    }
    *n = k;
    return list;
}

/* Solid spans after rasterization of every window cell inside the world equal the solo
 * field's; cells outside the world are empty. */
static void check_raster(const op_config *cfg, const op_scene *s, const op_heightfield *solo,
                         const uint8_t *areas, int32_t x0, int32_t z0, uint32_t ww, uint32_t wd)
{
    op_heightfield hf;
    assert_int_equal(op_heightfield_init(&g_ctx, &hf, ww, wd, cfg->bmin, cfg->bmax, cfg->cs,
                                         cfg->ch),
                     OP_OK);
    assert_int_equal(op_heightfield_set_window(&g_ctx, &hf, x0, z0, solo->width, solo->depth),
                     OP_OK);
    /* One window in five sees every triangle, the others only their bin. */
    uint32_t n = 0, *list = NULL;
    if (((uint32_t)x0 * 31u + (uint32_t)z0) % 5u != 0)
        list = bin_window(&s->mesh, x0, z0, ww, wd, &n);
    assert_int_equal(op_rasterize_triangle_list(&g_ctx, &hf, &s->mesh, areas, list, n,
                                                cfg->walkable_climb),
                     OP_OK);
    free(list);
    for (uint32_t lz = 0; lz < wd; lz++)
        for (uint32_t lx = 0; lx < ww; lx++) {
            const int64_t gx = (int64_t)x0 + lx, gz = (int64_t)z0 + lz;
            uint32_t a = op_heightfield_begin(&hf, lx, lz);
            const uint32_t ae = op_heightfield_end(&hf, lx, lz);
            if (gx < 0 || gz < 0 || gx >= solo->width || gz >= solo->depth) {
                assert_int_equal(a, ae);
                continue;
            }
            uint32_t b = op_heightfield_begin(solo, (uint32_t)gx, (uint32_t)gz);
            const uint32_t be = op_heightfield_end(solo, (uint32_t)gx, (uint32_t)gz);
            assert_int_equal(ae - a, be - b);
            for (; a < ae; a++, b++) {
                assert_int_equal(hf.smin[a], solo->smin[b]);
                assert_int_equal(hf.smax[a], solo->smax[b]);
                assert_int_equal(hf.area[a], solo->area[b]);
            }
        }
    op_heightfield_free(&hf);
}

/* Index of span t within its cell's list. */
static uint32_t in_cell(const op_chf *chf, uint32_t cell, uint32_t t)
{
    return t == OP_NO_LINK ? OP_NO_LINK : t - chf->cell_first[cell];
}

/* Compact spans, areas (after erosion and volumes), links and mutual bits of every
 * owned cell [x0 + B, x0 + B + T) x ... inside the world equal the solo field's. */
static uint64_t check_owned(const op_chf *solo, const op_chf *win, int32_t x0, int32_t z0,
                            uint32_t B, uint32_t T)
{
    uint64_t spans = 0;
    for (uint32_t lz = B; lz < B + T; lz++)
        for (uint32_t lx = B; lx < B + T; lx++) {
            const int64_t gx = (int64_t)x0 + lx, gz = (int64_t)z0 + lz;
            if (gx >= solo->width || gz >= solo->depth)
                continue;
            const uint32_t lc = lx + lz * win->width;
            const uint32_t gc = (uint32_t)gx + (uint32_t)gz * solo->width;
            assert_int_equal(op_chf_cell_count(win, lc), op_chf_cell_count(solo, gc));
            for (uint32_t k = 0; k < op_chf_cell_count(win, lc); k++) {
                const uint32_t a = win->cell_first[lc] + k, b = solo->cell_first[gc] + k;
                assert_int_equal(win->y[a], solo->y[b]);
                assert_int_equal(win->h[a], solo->h[b]);
                assert_int_equal(win->area[a], solo->area[b]);
                assert_int_equal(win->mutual[a], solo->mutual[b]);
                for (int d = 0; d < 4; d++) {
                    const uint32_t ln = (uint32_t)((int64_t)lx + op_dir_dx(d)) +
                                        (uint32_t)((int64_t)lz + op_dir_dz(d)) * win->width;
                    const int64_t nx = gx + op_dir_dx(d), nz = gz + op_dir_dz(d);
                    if (nx < 0 || nz < 0 || nx >= solo->width || nz >= solo->depth) {
                        assert_int_equal(op_chf_link(win, d, a), OP_NO_LINK);
                        assert_int_equal(op_chf_link(solo, d, b), OP_NO_LINK);
                        continue;
                    }
                    const uint32_t gn = (uint32_t)nx + (uint32_t)nz * solo->width;
                    assert_int_equal(in_cell(win, ln, op_chf_link(win, d, a)),
                                     in_cell(solo, gn, op_chf_link(solo, d, b)));
                }
                spans++;
            }
        }
    return spans;
}

/* For each (T, B): every window's raster equals the solo raster; with B >= radius + 3
 * the owned cells of the finished window equal the solo field's. Returns the owned
 * spans compared. */
static uint64_t check_world(const op_config *cfg, const op_scene *s, const uint32_t *Ts,
                            size_t nT, const uint32_t *Bs, size_t nB)
{
    op_chf solo;
    assert_int_equal(op_build_spans(&g_ctx, cfg, s, &solo, NULL), OP_OK);
    uint8_t *areas = malloc(s->mesh.tri_count ? s->mesh.tri_count : 1);
    assert_non_null(areas);
    op_mark_walkable_triangles(&s->mesh, cfg->walkable_slope_deg, areas);
    op_heightfield shf;
    assert_int_equal(op_heightfield_init(&g_ctx, &shf, solo.width, solo.depth, cfg->bmin,
                                         cfg->bmax, cfg->cs, cfg->ch),
                     OP_OK);
    assert_int_equal(op_rasterize_triangles(&g_ctx, &shf, &s->mesh, areas, cfg->walkable_climb),
                     OP_OK);
    make_rects(cfg, &s->mesh);
    uint64_t compared = 0;
    for (size_t ti = 0; ti < nT; ti++)
        for (size_t bi = 0; bi < nB; bi++) {
            const uint32_t T = Ts[ti], B = Bs[bi];
            if (T == 1 && bi % 2)
                continue; /* T = 1 is many windows: half the borders */
            const uint32_t ntx = (solo.width + T - 1) / T, ntz = (solo.depth + T - 1) / T;
            for (uint32_t tz = 0; tz < ntz; tz++)
                for (uint32_t tx = 0; tx < ntx; tx++) {
                    const int32_t x0 = (int32_t)(tx * T) - (int32_t)B;
                    const int32_t z0 = (int32_t)(tz * T) - (int32_t)B;
                    check_raster(cfg, s, &shf, areas, x0, z0, T + 2 * B, T + 2 * B);
                    if (B < (uint32_t)cfg->walkable_radius + 3)
                        continue;
                    op_chf win;
                    const op_window w = {x0, z0, T + 2 * B, T + 2 * B};
                    uint32_t n = 0;
                    uint32_t *list = bin_window(&s->mesh, x0, z0, w.width, w.depth, &n);
                    assert_int_equal(op_build_spans_window(&g_ctx, cfg, s, &w, list, n, areas,
                                                           &win, NULL),
                                     OP_OK);
                    free(list);
                    compared += check_owned(&solo, &win, x0, z0, B, T);
                    op_chf_free(&win);
                }
        }
    op_heightfield_free(&shf);
    free(g_rect);
    free(areas);
    op_chf_free(&solo);
    return compared;
}

static void test_random_meshes(void **state)
{
    (void)state;
    const uint32_t Ts[] = {1, 7, 16, 64};
    const uint32_t Bs[] = {0, 2, 5, 8};
    const uint64_t seeds = op_test_quick() ? 1 : 4; /* util/quick.h */
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        op_scene s;
        op_config cfg;
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &cfg, seed * 7919, 40, 40), OP_OK);
        const uint64_t n = check_world(&cfg, &s, Ts, 4, Bs, 4);
        assert_true(n > 1000); /* the comparison saw real spans */
        op_scene_free(&s);
    }
}

/* walkable_radius 0: B = 0 (raster only: the window's edge cells are ledges) and B = 3,
 * the smallest border that keeps the owned cells exact. */
static void test_radius_zero(void **state)
{
    (void)state;
    op_scene s;
    op_config cfg;
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &cfg, 4242, 40, 40), OP_OK);
    cfg.walkable_radius = 0;
    const uint32_t Ts[] = {1, 9};
    const uint32_t Bs[] = {0, 3};
    assert_true(check_world(&cfg, &s, Ts, 2, Bs, 2) > 1000);
    op_scene_free(&s);
}

/* The demo world with villages (multi-floor buildings, bridge, ramp, volumes), a tile
 * size that divides the grid and one that does not. */
static void test_demo_world(void **state)
{
    (void)state;
    op_scene s;
    op_config cfg;
    assert_int_equal(op_demo_world(&g_ctx, 512, &s, &cfg), OP_OK);
    const uint32_t Ts[] = {128, 100};
    const uint32_t Bs[] = {5, 9};
    const size_t n = op_test_quick() ? 1 : 2; /* util/quick.h: T 128, B 5 only */
    assert_true(check_world(&cfg, &s, Ts, n, Bs, n) > 100000);
    op_scene_free(&s);
}

/* A window that does not overlap the world is refused; one that overlaps partly works. */
static void test_window_args(void **state)
{
    (void)state;
    const float bmin[3] = {0, 0, 0}, bmax[3] = {3, 3, 3};
    op_heightfield hf;
    assert_int_equal(op_heightfield_init(&g_ctx, &hf, 4, 4, bmin, bmax, 0.3f, 0.2f), OP_OK);
    assert_int_equal(op_heightfield_set_window(&g_ctx, &hf, 10, 0, 10, 10), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "does not overlap"));
    assert_int_equal(op_heightfield_set_window(&g_ctx, &hf, -4, 0, 10, 10), OP_INVALID_ARGUMENT);
    assert_int_equal(op_heightfield_set_window(&g_ctx, &hf, 0, 0, 0, 10), OP_INVALID_ARGUMENT);
    assert_int_equal(op_heightfield_set_window(&g_ctx, &hf, -3, 9, 10, 10), OP_OK);
    op_heightfield_free(&hf);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_args),
        cmocka_unit_test(test_random_meshes),
        cmocka_unit_test(test_radius_zero),
        cmocka_unit_test(test_demo_world),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
