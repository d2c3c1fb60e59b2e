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

/* A random world: rolling terrain (quads at a spacing that is not a multiple of cs),
 * floating slabs and ramps (multi-floor columns), big triangles across many cells,
 * triangles with vertices exactly on cut planes, and geometry reaching past the
 * world's bounds on every side. Plus boxes, cylinders and prisms as volumes. */
static void random_scene(op_scene *s, op_config *cfg, uint64_t seed)
{
    op_rng r = {seed};
    op_scene_init(s);
    op_config_defaults(cfg);
    cfg->cs = 0.3f;
    cfg->ch = 0.2f;
    cfg->walkable_radius = 1 + (int)op_rng_below(&r, 2);
    const uint32_t W = 40 + op_rng_below(&r, 40), D = 40 + op_rng_below(&r, 40);
    const float ox = frand(&r, -500.0f, 500.0f), oz = frand(&r, -500.0f, 500.0f);
    cfg->has_bounds = 1;
    cfg->bmin[0] = ox;
    cfg->bmin[1] = -2.0f;
    cfg->bmin[2] = oz;
    cfg->bmax[0] = ox + (float)W * cfg->cs - 0.01f;
    cfg->bmax[1] = 12.0f;
    cfg->bmax[2] = oz + (float)D * cfg->cs - 0.01f;
    const float ex = (float)W * cfg->cs, ez = (float)D * cfg->cs;
    op_mesh *m = &s->mesh;

    /* Terrain past every edge of the world. */
    const float step = 0.37f + frand(&r, 0.0f, 0.3f);
    const int nx = (int)((ex + 2.0f) / step) + 2, nz = (int)((ez + 2.0f) / step) + 2;
    const uint32_t base = m->vert_count;
    for (int j = 0; j < nz; j++)
        for (int i = 0; i < nx; i++) {
            const float x = ox - 1.0f + (float)i * step, z = oz - 1.0f + (float)j * step;
            const float y = 1.0f + 0.8f * sinf(0.7f * (float)i) * cosf(0.5f * (float)j) +
                            frand(&r, 0.0f, 0.15f);
            vtx(m, x, y, z);
        }
    for (int j = 0; j + 1 < nz; j++)
        for (int i = 0; i + 1 < nx; i++) {
            const uint32_t a = base + (uint32_t)(j * nx + i), b = a + (uint32_t)nx;
            assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b, b + 1), OP_OK);
            assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b + 1, a + 1), OP_OK);
        }
    /* Slabs and ramps (up-facing, some steep). */
    for (int k = 0; k < 25; k++) {
        const float x0 = ox + frand(&r, -1.0f, ex), z0 = oz + frand(&r, -1.0f, ez);
        const float sx = frand(&r, 0.5f, 6.0f), sz = frand(&r, 0.5f, 6.0f);
        const float y0 = frand(&r, 2.0f, 9.0f), rise = frand(&r, 0.0f, 4.0f);
        const uint32_t a = vtx(m, x0, y0, z0), b = vtx(m, x0, y0 + rise, z0 + sz),
                       c = vtx(m, x0 + sx, y0 + rise, z0 + sz), d = vtx(m, x0 + sx, y0, z0);
        assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b, c), OP_OK);
        assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, c, d), OP_OK);
    }
    /* Big random triangles across many cells, either winding. */
    for (int k = 0; k < 12; k++) {
        const uint32_t a = vtx(m, ox + frand(&r, -2, ex + 2), frand(&r, 0, 10), oz + frand(&r, -2, ez + 2));
        const uint32_t b = vtx(m, ox + frand(&r, -2, ex + 2), frand(&r, 0, 10), oz + frand(&r, -2, ez + 2));
        const uint32_t c = vtx(m, ox + frand(&r, -2, ex + 2), frand(&r, 0, 10), oz + frand(&r, -2, ez + 2));
        assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b, c), OP_OK);
    }
    /* Small triangles with vertices exactly on cut planes (binary32 as the solo bake
     * computes them). */
    for (int k = 0; k < 40; k++) {
        const float cx = cfg->bmin[0] + (float)(int)op_rng_below(&r, W) * cfg->cs;
        const float cz = cfg->bmin[2] + (float)(int)op_rng_below(&r, D) * cfg->cs;
        const float y = frand(&r, 0.0f, 8.0f);
        const uint32_t a = vtx(m, cx, y, cz), b = vtx(m, cx, y, cz + 2 * cfg->cs),
                       c = vtx(m, cx + 3 * cfg->cs, y + 0.1f, cz + cfg->cs);
        assert_int_equal(op_mesh_add_triangle(&g_ctx, m, a, b, c), OP_OK);
    }
    /* Volumes of every kind, some past the world's edges. */
    for (int k = 0; k < 6; k++) {
        op_volume v;
        memset(&v, 0, sizeof v);
        v.kind = (op_volume_kind)(k % 3);
        v.area = (uint8_t)(k == 5 ? 0 : 1 + k);
        v.ymin = -5.0f;
        v.ymax = frand(&r, 2.0f, 15.0f);
        const float cx = ox + frand(&r, -1, ex + 1), cz = oz + frand(&r, -1, ez + 1);
        if (v.kind == OP_VOLUME_PRISM) {
            v.vert_count = 4;
            const float h = frand(&r, 1, 4);
            const float p[8] = {cx - h, cz, cx, cz - h, cx + h, cz, cx, cz + h};
            memcpy(v.verts, p, sizeof p);
        } else if (v.kind == OP_VOLUME_BOX) {
            v.box_min[0] = cx;
            v.box_min[1] = cz;
            v.box_max[0] = cx + frand(&r, 0.5f, 5);
            v.box_max[1] = cz + frand(&r, 0.5f, 5);
        } else {
            v.center[0] = cx;
            v.center[1] = cz;
            v.radius = frand(&r, 0.3f, 3);
        }
        assert_int_equal(op_scene_add_volume(&g_ctx, s, &v), OP_OK);
    }
}

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
            uint32_t a = op_heightfield_first(&hf, lx, lz);
            if (gx < 0 || gz < 0 || gx >= solo->width || gz >= solo->depth) {
                assert_int_equal(a, OP_HF_NONE);
                continue;
            }
            uint32_t b = op_heightfield_first(solo, (uint32_t)gx, (uint32_t)gz);
            for (; a != OP_HF_NONE && b != OP_HF_NONE;
                 a = op_heightfield_next(&hf, a), b = op_heightfield_next(solo, b)) {
                assert_int_equal(hf.smin[a], solo->smin[b]);
                assert_int_equal(hf.smax[a], solo->smax[b]);
                assert_int_equal(hf.area[a], solo->area[b]);
            }
            assert_int_equal(a, OP_HF_NONE);
            assert_int_equal(b, OP_HF_NONE);
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
            assert_int_equal(win->cell_count[lc], solo->cell_count[gc]);
            for (uint32_t k = 0; k < win->cell_count[lc]; k++) {
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
                        assert_int_equal(win->link[d][a], OP_NO_LINK);
                        assert_int_equal(solo->link[d][b], OP_NO_LINK);
                        continue;
                    }
                    const uint32_t gn = (uint32_t)nx + (uint32_t)nz * solo->width;
                    assert_int_equal(in_cell(win, ln, win->link[d][a]),
                                     in_cell(solo, gn, solo->link[d][b]));
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
    for (uint64_t seed = 1; seed <= 4; seed++) {
        op_scene s;
        op_config cfg;
        random_scene(&s, &cfg, seed * 7919);
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
    random_scene(&s, &cfg, 4242);
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
    assert_true(check_world(&cfg, &s, Ts, 2, Bs, 2) > 100000);
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
