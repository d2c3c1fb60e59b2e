/* Issue 10, defects 1 and 4: grids binary32 cannot resolve to the cell size are
 * refused by configuration validation (docs/decisions/hardening.md), the rasterizer's
 * clip never writes past its buffers whatever the coordinates, and a height range the
 * 16-bit span heights cannot hold at ch is refused naming the range and a ch that fits.
 * Run in the plain and the sanitizer build (ASan sees any write past the clip buffers). */
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

static void add_tri(op_ctx *ctx, op_mesh *m, const float v[9])
{
    const uint32_t b = m->vert_count;
    for (int i = 0; i < 3; i++)
        assert_int_equal(op_mesh_add_vertex(ctx, m, v[3 * i], v[3 * i + 1], v[3 * i + 2]), OP_OK);
    assert_int_equal(op_mesh_add_triangle(ctx, m, b, b + 2, b + 1), OP_OK); /* up-facing */
}

/* The case: a small triangle near 1e6 with cs 0.01 (binary32 values 0.0625
 * apart there). Before the fix the spans stage overflowed the clip buffers (SIGSEGV or
 * an ASan stack-buffer-overflow); now configuration validation refuses the grid. */
static void test_far_grid_refused(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_scene sc;
    op_scene_init(&sc);
    const float v[9] = {1000000.0f, 0, 1000000.0f, 1000000.5f, 0, 1000000.3f,
                        1000000.2f, 0, 1000000.9f};
    add_tri(&ctx, &sc.mesh, v);
    op_config cfg;
    op_config_defaults(&cfg);
    cfg.cs = 0.01f;
    op_chf chf;
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_INVALID_ARGUMENT);
    print_message("%s\n", op_ctx_error(&ctx));
    assert_non_null(strstr(op_ctx_error(&ctx), "binary32"));
    assert_non_null(strstr(op_ctx_error(&ctx), "0.0625 apart"));
    assert_non_null(strstr(op_ctx_error(&ctx), "100x too coarse"));
    /* The same mesh with a cs binary32 resolves there bakes. */
    cfg.cs = 1.0f;
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_OK);
    op_chf_free(&chf);
    /* Explicit bounds are checked the same way (z axis this time). */
    cfg.cs = 0.3f;
    cfg.has_bounds = 1;
    const float lo[3] = {0, 0, 0}, hi[3] = {10, 1, 1.0e6f};
    memcpy(cfg.bmin, lo, sizeof lo);
    memcpy(cfg.bmax, hi, sizeof hi);
    assert_int_equal(op_config_validate(&ctx, &cfg), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "grid z coordinates"));
    op_scene_free(&sc);
    op_ctx_free(&ctx);
}

/* The criterion's edge, exactly: with every coordinate in [2^k, 2^(k+1)) the binary32
 * spacing is 2^(k-23); cs = 16 such steps passes, the next smaller float does not. The
 * same for y and ch. */
static void test_resolution_edge(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (int k = -2; k <= 20; k += 2) {
        const float base = ldexpf(1.0f, k), ulp = ldexpf(1.0f, k - 23);
        const float cs_ok = 16 * ulp;
        op_config cfg;
        op_config_defaults(&cfg);
        cfg.has_bounds = 1;
        cfg.cs = cs_ok;
        cfg.ch = 0.2f;
        cfg.bmin[0] = cfg.bmin[2] = base;
        /* 1000 cells, ending below 2^(k+1) */
        cfg.bmax[0] = cfg.bmax[2] = base + 1000 * cs_ok;
        cfg.bmin[1] = 0;
        cfg.bmax[1] = 10;
        assert_true(cfg.bmax[0] < 2 * base);
        assert_int_equal(op_config_validate(&ctx, &cfg), OP_OK);
        cfg.cs = nextafterf(cs_ok, 0.0f);
        cfg.bmax[0] = cfg.bmax[2] = base + 1000 * cfg.cs;
        assert_int_equal(op_config_validate(&ctx, &cfg), OP_INVALID_ARGUMENT);
        assert_non_null(strstr(op_ctx_error(&ctx), "at least 16 are needed"));
        /* y: heights near 2^k with ch = 16 steps, and one float less. */
        cfg.cs = 0.3f;
        cfg.bmin[0] = cfg.bmin[2] = 0;
        cfg.bmax[0] = cfg.bmax[2] = 30;
        cfg.bmin[1] = base;
        cfg.bmax[1] = base + 100 * cs_ok;
        cfg.ch = cs_ok;
        assert_int_equal(op_config_validate(&ctx, &cfg), OP_OK);
        cfg.ch = nextafterf(cs_ok, 0.0f);
        assert_int_equal(op_config_validate(&ctx, &cfg), OP_INVALID_ARGUMENT);
        assert_non_null(strstr(op_ctx_error(&ctx), "grid y coordinates"));
    }
    op_ctx_free(&ctx);
}

/* The rasterizer alone, bypassing validation, on grids binary32 cannot resolve:
 * thousands of small and large triangles near 2^20..2^24 with cells of 1/8 .. 1/2
 * binary32 step. Every triangle either rasterizes or is refused with a message naming
 * it; nothing writes out of bounds (the sanitizer build checks that), and the issue's
 * triangle is among the refused ones. Before the fix this crashed. */
static void test_clip_never_overflows(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {0x5eed};
    uint32_t refused = 0, baked = 0;
    for (int k = 20; k <= 24; k += 2) {
        for (int q = 1; q <= 3; q++) {
            const float base = ldexpf(1.0f, k), cs = ldexpf(1.0f, k - 23 - q);
            const uint32_t n = 64;
            const float bmin[3] = {base, 0, base}, bmax[3] = {base + n * cs, 4, base + n * cs};
            for (int t = 0; t < 300; t++) {
                op_heightfield hf;
                assert_int_equal(op_heightfield_init(&ctx, &hf, n, n, bmin, bmax, cs, 0.2f),
                                 OP_OK);
                op_mesh m;
                op_mesh_init(&m);
                const float spread = (t % 3 == 0) ? 2.0f : (float)n;
                float v[9];
                const float x0 = (float)op_rng_below(&r, n), z0 = (float)op_rng_below(&r, n);
                for (int i = 0; i < 3; i++) {
                    v[3 * i] = base + (x0 + spread * (float)op_rng_below(&r, 1000) / 1000) * cs;
                    v[3 * i + 1] = (float)op_rng_below(&r, 100) / 50;
                    v[3 * i + 2] = base + (z0 + spread * (float)op_rng_below(&r, 1000) / 1000) * cs;
                }
                add_tri(&ctx, &m, v);
                uint8_t area = OP_WALKABLE_AREA;
                const op_status st = op_rasterize_triangles(&ctx, &hf, &m, &area, 4);
                if (st == OP_OK) {
                    baked++;
                } else {
                    assert_int_equal(st, OP_BAD_INPUT);
                    assert_non_null(strstr(op_ctx_error(&ctx), "triangle 0: clipping at"));
                    assert_non_null(strstr(op_ctx_error(&ctx), "binary32 cannot resolve"));
                    refused++;
                }
                op_mesh_free(&m);
                op_heightfield_free(&hf);
            }
        }
    }
    print_message("unresolvable grids: %u triangles rasterized, %u refused\n", baked, refused);
    assert_true(refused > 0);
    assert_true(baked > 0);

    /* The triangle on a grid of its own bounds. */
    const float v[9] = {1000000.0f, 0, 1000000.0f, 1000000.5f, 0, 1000000.3f,
                        1000000.2f, 0, 1000000.9f};
    const float bmin[3] = {1000000.0f, 0, 1000000.0f}, bmax[3] = {1000000.5f, 1, 1000000.9f};
    op_heightfield hf;
    assert_int_equal(op_heightfield_init(&ctx, &hf, 50, 90, bmin, bmax, 0.01f, 0.2f), OP_OK);
    op_mesh m;
    op_mesh_init(&m);
    add_tri(&ctx, &m, v);
    uint8_t area = OP_WALKABLE_AREA;
    assert_int_equal(op_rasterize_triangles(&ctx, &hf, &m, &area, 4), OP_BAD_INPUT);
    print_message("%s\n", op_ctx_error(&ctx));
    op_mesh_free(&m);
    op_heightfield_free(&hf);
    op_ctx_free(&ctx);
}

/* Floors of the same shape at the given heights, as one scene. */
static void floors(op_ctx *ctx, op_scene *sc, const float *ys, int n)
{
    op_scene_init(sc);
    for (int f = 0; f < n; f++) {
        const float a[9] = {0, ys[f], 0, 20, ys[f], 0, 20, ys[f], 20};
        const float b[9] = {0, ys[f], 0, 20, ys[f], 20, 0, ys[f], 20};
        add_tri(ctx, &sc->mesh, a);
        add_tri(ctx, &sc->mesh, b);
    }
}

/* Defect 4: a ground at 0 and floors at 15 000 and 20 000 with ch 0.2 (100 000 cells
 * of height): the upper floors were clamped to the top and the bake exited OK; now it
 * is refused naming the range and a ch that fits, and with that ch all three floors
 * are there. */
static void test_height_range(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_scene sc;
    const float ys[3] = {0.0f, 15000.0f, 20000.0f};
    floors(&ctx, &sc, ys, 3);
    op_config cfg;
    op_config_defaults(&cfg);
    op_chf chf;
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_INVALID_ARGUMENT);
    const char *msg = op_ctx_error(&ctx);
    print_message("%s\n", msg);
    assert_non_null(strstr(msg, "heights from 0 to 20000"));
    assert_non_null(strstr(msg, "100000 cells of ch 0.2; with walkable_height 10"));
    const char *fit = strstr(msg, "use ch >= ");
    assert_non_null(fit);
    const float ch = strtof(fit + strlen("use ch >= "), NULL);
    /* 65535 cells less the agent's walkable_height (10) above the top floor */
    assert_true(ch >= 20000.0f / 65525.0f && ch < 1.001f * 20000.0f / 65525.0f);
    cfg.ch = ch;
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_OK);
    /* Every cell well inside holds the three floors at their heights. */
    const uint32_t c = 30 + 30 * chf.width;
    assert_int_equal(op_chf_cell_count(&chf, c), 3);
    const uint32_t s = chf.cell_first[c];
    for (int f = 0; f < 3; f++) {
        const float want = ys[f] / ch;
        assert_true(fabsf((float)chf.y[s + (uint32_t)f] - want) <= 1.0f);
    }
    op_chf_free(&chf);
    /* Just below the smallest fitting ch it is refused again: the limit is exact. */
    cfg.ch = 20000.0f / 65525.0f;
    while (ceilf(20000.0f * (1.0f / cfg.ch)) <= 65525.0f)
        cfg.ch = nextafterf(cfg.ch, 0.0f);
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_INVALID_ARGUMENT);
    cfg.ch = nextafterf(cfg.ch, 1.0f);
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_OK);
    op_chf_free(&chf);
    /* Explicit y bounds are what is checked (docs/decisions/hardening.md): a tall box is
     * refused even when the geometry alone would fit. */
    op_scene_free(&sc);
    floors(&ctx, &sc, ys, 1);
    op_config_defaults(&cfg);
    cfg.has_bounds = 1;
    const float lo[3] = {0, -10000, 0}, hi[3] = {20, 10000, 20};
    memcpy(cfg.bmin, lo, sizeof lo);
    memcpy(cfg.bmax, hi, sizeof hi);
    assert_int_equal(op_build_spans(&ctx, &cfg, &sc, &chf, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "heights from -10000 to 10000"));
    /* Degenerate corners: a difference beyond binary32, and an agent as tall as the
     * whole 16-bit range (only a flat field fits). Messages, no NaN advice. */
    cfg.bmin[1] = -3e38f;
    cfg.bmax[1] = 3e38f;
    cfg.ch = 1e35f;
    assert_int_equal(op_config_validate(&ctx, &cfg), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "beyond binary32"));
    cfg.bmin[1] = 0;
    cfg.bmax[1] = 1;
    cfg.ch = 0.2f;
    cfg.walkable_height = 0xffff;
    assert_int_equal(op_config_validate(&ctx, &cfg), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "leaves no room"));
    cfg.bmax[1] = 0;
    assert_int_equal(op_config_validate(&ctx, &cfg), OP_OK);
    op_scene_free(&sc);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_grid_refused),
        cmocka_unit_test(test_resolution_edge),
        cmocka_unit_test(test_clip_never_overflows),
        cmocka_unit_test(test_height_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
