/* The built-in demo world (demo.h, supplement §1.2): determinism, sizes, bounds, and,
 * through the spans stage, the features later stages must meet.
 *
 * Environment: OP_DEMO_PNG=path writes the area view of the 512 world there;
 * OP_DEMO_BIG=1 also measures the 1024 and 2048 worlds (span counts for benchmarks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kernels.h"
#include "onepath/demo.h"
#include "onepath/digest.h"
#include "image.h"
#include "onepath/spans.h"
#include "util/testutil.h"

#define GOLDEN_WORLD_256 0x6e837d1d4c1a3daeull
#define GOLDEN_TERRAIN_300 0x5ecb116045e1a48aull

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_invalid_sizes(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const uint32_t bad[] = {0, 1, 63, OP_DEMO_MAX_SIZE + 1, 32768, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        op_scene s;
        op_config cfg;
        ctx.err[0] = 0;
        assert_int_equal(op_demo_world(&ctx, bad[i], &s, &cfg), OP_INVALID_ARGUMENT);
        assert_true(strstr(ctx.err, "size") != NULL);
        assert_int_equal(op_demo_terrain(&ctx, bad[i], &s, &cfg), OP_INVALID_ARGUMENT);
    }
    op_config cfg;
    op_scene s;
    assert_int_equal(op_demo_world(&ctx, 64, NULL, &cfg), OP_INVALID_ARGUMENT);
    assert_int_equal(op_demo_world(&ctx, 64, &s, NULL), OP_INVALID_ARGUMENT);
    op_ctx_free(&ctx);
}

static void assert_same_scene(const op_scene *a, const op_scene *b)
{
    assert_int_equal(a->mesh.vert_count, b->mesh.vert_count);
    assert_int_equal(a->mesh.tri_count, b->mesh.tri_count);
    assert_int_equal(a->volume_count, b->volume_count);
    assert_memory_equal(a->mesh.verts, b->mesh.verts, (size_t)a->mesh.vert_count * 3 * sizeof(float));
    assert_memory_equal(a->mesh.tris, b->mesh.tris, (size_t)a->mesh.tri_count * 3 * sizeof(uint32_t));
    if (a->volume_count)
        assert_memory_equal(a->volumes, b->volumes, (size_t)a->volume_count * sizeof(op_volume));
}

static void test_deterministic(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (int terrain = 0; terrain < 2; terrain++) {
        const uint32_t sizes[] = {64, 256, 300};
        for (size_t i = 0; i < 3; i++) {
            op_scene a, b;
            op_config ca, cb;
            /* Different garbage in the outputs must not matter. */
            memset(&ca, 0x11, sizeof ca);
            memset(&cb, 0x77, sizeof cb);
            if (terrain) {
                assert_int_equal(op_demo_terrain(&ctx, sizes[i], &a, &ca), OP_OK);
                assert_int_equal(op_demo_terrain(&ctx, sizes[i], &b, &cb), OP_OK);
            } else {
                assert_int_equal(op_demo_world(&ctx, sizes[i], &a, &ca), OP_OK);
                assert_int_equal(op_demo_world(&ctx, sizes[i], &b, &cb), OP_OK);
            }
            assert_same_scene(&a, &b);
            assert_memory_equal(&ca, &cb, sizeof ca);
            op_scene_free(&a);
            op_scene_free(&b);
        }
    }
    op_ctx_free(&ctx);
}

static void put_f32(op_digest_stream *d, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    op_digest_u32(d, u);
}

/* Little-endian serialization of a scene: vertices (binary32 bits), triangles, volumes
 * field by field, then the config's bounds. */
static uint64_t scene_digest(const op_scene *s, const op_config *cfg)
{
    op_digest_stream d;
    op_digest_begin(&d);
    op_digest_u32(&d, s->mesh.vert_count);
    for (size_t i = 0; i < 3 * (size_t)s->mesh.vert_count; i++)
        put_f32(&d, s->mesh.verts[i]);
    op_digest_u32(&d, s->mesh.tri_count);
    for (size_t i = 0; i < 3 * (size_t)s->mesh.tri_count; i++)
        op_digest_u32(&d, s->mesh.tris[i]);
    op_digest_u32(&d, s->volume_count);
    for (uint32_t i = 0; i < s->volume_count; i++) {
        const op_volume *v = &s->volumes[i];
        op_digest_u32(&d, (uint32_t)v->kind);
        op_digest_u8(&d, v->area);
        put_f32(&d, v->ymin);
        put_f32(&d, v->ymax);
        op_digest_u32(&d, v->vert_count);
        for (uint32_t k = 0; k < 2 * v->vert_count; k++)
            put_f32(&d, v->verts[k]);
        for (int k = 0; k < 2; k++) {
            put_f32(&d, v->box_min[k]);
            put_f32(&d, v->box_max[k]);
            put_f32(&d, v->center[k]);
        }
        put_f32(&d, v->radius);
    }
    for (int k = 0; k < 3; k++) {
        put_f32(&d, cfg->bmin[k]);
        put_f32(&d, cfg->bmax[k]);
    }
    return op_digest_end(&d);
}

/* Golden digests: the same bits on every platform (x86-64 and AArch64, any compiler
 * honouring -ffp-contract=off). A deliberate change of the world updates them. */
static void test_golden_digests(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    struct {
        uint32_t size;
        int terrain;
        uint64_t digest;
    } cases[] = {
        {256, 0, GOLDEN_WORLD_256},
        {300, 1, GOLDEN_TERRAIN_300},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_scene s;
        op_config cfg;
        op_status st = cases[i].terrain ? op_demo_terrain(&ctx, cases[i].size, &s, &cfg)
                                        : op_demo_world(&ctx, cases[i].size, &s, &cfg);
        assert_int_equal(st, OP_OK);
        const uint64_t got = scene_digest(&s, &cfg);
        char hex[17];
        op_digest_hex(got, hex);
        if (got != cases[i].digest)
            fail_msg("%s %u: digest %s differs from the golden value",
                     cases[i].terrain ? "terrain" : "world", cases[i].size, hex);
        op_scene_free(&s);
    }
    op_ctx_free(&ctx);
}

/* The grid is exactly size² cells, the config is the defaults plus bounds, and the
 * mesh lies inside the bounds in x and z (up to one binary32 step). */
static void test_bounds_and_config(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const uint32_t sizes[] = {64, 65, 100, 256, 333, 512, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int terrain = 0; terrain < 2; terrain++) {
            op_scene s;
            op_config cfg, def;
            op_status st = terrain ? op_demo_terrain(&ctx, sizes[i], &s, &cfg)
                                   : op_demo_world(&ctx, sizes[i], &s, &cfg);
            assert_int_equal(st, OP_OK);
            assert_int_equal(op_config_validate(&ctx, &cfg), OP_OK);
            uint32_t w = 0, d = 0;
            assert_int_equal(op_config_grid_size(&ctx, &cfg, &w, &d), OP_OK);
            assert_int_equal(w, sizes[i]);
            assert_int_equal(d, sizes[i]);
            op_config_defaults(&def);
            assert_true(cfg.has_bounds);
            assert_true(cfg.cs == def.cs && cfg.ch == def.ch);
            assert_int_equal(cfg.walkable_height, def.walkable_height);
            assert_int_equal(cfg.walkable_climb, def.walkable_climb);
            assert_int_equal(cfg.walkable_radius, def.walkable_radius);
            assert_true(cfg.walkable_slope_deg == def.walkable_slope_deg);
            float lo[3], hi[3];
            op_mesh_bounds(&s.mesh, lo, hi);
            assert_true(lo[0] == 0.0f && lo[2] == 0.0f);
            assert_true(hi[0] >= cfg.bmax[0] && hi[0] <= cfg.bmax[0] + 0.001f);
            assert_true(hi[2] >= cfg.bmax[2] && hi[2] <= cfg.bmax[2] + 0.001f);
            assert_true(cfg.bmin[1] == lo[1] && cfg.bmax[1] == hi[1]);
            /* Villages only in whole 256-cell blocks. */
            const uint32_t nb = terrain ? 0 : sizes[i] / OP_DEMO_BLOCK;
            assert_int_equal(s.volume_count, nb * nb * 4);
            op_scene_free(&s);
        }
    }
    op_ctx_free(&ctx);
}

static void test_sizes_scale(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const uint32_t sizes[] = {64, 128, 256, 512, 1024};
    uint32_t prev_world = 0, prev_terrain = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        op_scene s;
        op_config cfg;
        assert_int_equal(op_demo_terrain(&ctx, sizes[i], &s, &cfg), OP_OK);
        /* One quad per 2 x 2 cells (the 8192 world's terrain: 33.6M triangles). */
        const uint32_t q = sizes[i] / 2;
        assert_int_equal(s.mesh.tri_count, 2 * q * q);
        assert_int_equal(s.mesh.vert_count, (q + 1) * (q + 1));
        assert_true(s.mesh.tri_count > prev_terrain);
        prev_terrain = s.mesh.tri_count;
        /* Every terrain triangle is up-facing (counter-clockwise seen from above). */
        uint32_t down = 0;
        for (uint32_t t = 0; t < s.mesh.tri_count; t++) {
            const float *a = s.mesh.verts + 3 * (size_t)s.mesh.tris[3 * t];
            const float *b = s.mesh.verts + 3 * (size_t)s.mesh.tris[3 * t + 1];
            const float *c = s.mesh.verts + 3 * (size_t)s.mesh.tris[3 * t + 2];
            const double cy = ((double)b[2] - a[2]) * ((double)c[0] - a[0]) -
                              ((double)b[0] - a[0]) * ((double)c[2] - a[2]);
            down += cy <= 0;
        }
        assert_int_equal(down, 0);
        op_scene_free(&s);

        assert_int_equal(op_demo_world(&ctx, sizes[i], &s, &cfg), OP_OK);
        assert_true(s.mesh.tri_count > prev_world);
        assert_true(s.mesh.tri_count >= 2 * q * q);
        if (sizes[i] >= 512) /* more villages: the structures scale with the area too */
            assert_true(s.mesh.tri_count - 2 * q * q >=
                        4 * (prev_world - 2 * (q / 2) * (q / 2)));
        prev_world = s.mesh.tri_count;
        op_scene_free(&s);
    }
    op_ctx_free(&ctx);
}

/* Walkable spans of cell (x, z) (area != 0); the areas bottom-up into out[]. */
static uint32_t column_walkable(const op_chf *chf, uint32_t x, uint32_t z, uint8_t *out,
                                uint16_t *ys, uint32_t cap)
{
    const uint32_t c = x + z * chf->width;
    uint32_t n = 0;
    for (uint32_t i = 0; i < op_chf_cell_count(chf, c); i++) {
        const uint32_t s = chf->cell_first[c] + i;
        if (chf->area[s] == 0)
            continue;
        if (n < cap) {
            out[n] = chf->area[s];
            ys[n] = chf->y[s];
        }
        n++;
    }
    return n;
}

typedef struct demo_summary {
    uint32_t size, tris, verts, volumes;
    uint64_t compact, walkable;
    uint32_t multi_columns, max_floors;
    uint32_t area_count[64];
    uint32_t max_dist, small_islands;
    double s_demo, s_spans;
} demo_summary;

static void summarize(op_ctx *ctx, uint32_t size, op_scene *scene, op_config *cfg, op_chf *chf,
                      demo_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    sum->size = size;
    double t0 = now_s();
    assert_int_equal(op_demo_world(ctx, size, scene, cfg), OP_OK);
    double t1 = now_s();
    op_spans_stats stats;
    op_status st = op_build_spans(ctx, cfg, scene, chf, &stats);
    if (st != OP_OK)
        fail_msg("op_build_spans: %s", ctx->err);
    double t2 = now_s();
    sum->s_demo = t1 - t0;
    sum->s_spans = t2 - t1;
    sum->tris = scene->mesh.tri_count;
    sum->verts = scene->mesh.vert_count;
    sum->volumes = scene->volume_count;
    sum->compact = stats.compact_spans;
    sum->walkable = stats.walkable_spans;
    assert_int_equal(chf->width, size);
    assert_int_equal(chf->depth, size);
    assert_int_equal(chf->span_count, stats.compact_spans);
    for (uint32_t z = 0; z < chf->depth; z++) {
        for (uint32_t x = 0; x < chf->width; x++) {
            uint8_t a[8];
            uint16_t y[8];
            uint32_t n = column_walkable(chf, x, z, a, y, 8);
            sum->multi_columns += n >= 2;
            if (n > sum->max_floors)
                sum->max_floors = n;
        }
    }
    for (uint32_t s = 0; s < chf->span_count; s++)
        sum->area_count[chf->area[s] & 63]++;
    /* Distance to the boundary over the final areas (supplement §1.6 metric). */
    op_arena_mark mk = op_arena_get_mark(&ctx->arena);
    uint32_t n = chf->span_count ? chf->span_count : 1;
    uint32_t *dist = op_scratch(ctx, n, sizeof(uint32_t));
    uint32_t *labels = op_scratch(ctx, n, sizeof(uint32_t));
    assert_non_null(dist);
    assert_non_null(labels);
    assert_int_equal(ctx->k->distance.field(chf, chf->area, dist, &ctx->arena), 0);
    for (uint32_t s = 0; s < chf->span_count; s++)
        if (dist[s] > sum->max_dist)
            sum->max_dist = dist[s];
    /* Islands: connected same-area components of fewer than 64 spans. */
    uint32_t count = 0;
    const op_label_view graph = op_label_view_of(chf, chf->area, NULL);
    assert_int_equal(ctx->k->label.components(&graph, labels, &count, &ctx->arena), 0);
    uint32_t *sizes = calloc((size_t)count + 1, sizeof(uint32_t));
    assert_non_null(sizes);
    for (uint32_t s = 0; s < chf->span_count; s++)
        sizes[labels[s]]++;
    for (uint32_t r = 1; r <= count; r++)
        sum->small_islands += sizes[r] > 0 && sizes[r] < 64;
    free(sizes);
    op_arena_release(&ctx->arena, mk);
}

static void print_summary(const demo_summary *s)
{
    printf("demo %u: %u tris, %u verts, %u volumes; compact %llu, walkable %llu; "
           "columns with >=2 walkable %u (max %u); areas 63:%u 1:%u 2:%u 3:%u 0:%u; "
           "max dist %u; small islands %u; demo %.2f s, spans %.2f s\n",
           s->size, s->tris, s->verts, s->volumes, (unsigned long long)s->compact,
           (unsigned long long)s->walkable, s->multi_columns, s->max_floors, s->area_count[63],
           s->area_count[1], s->area_count[2], s->area_count[3], s->area_count[0], s->max_dist,
           s->small_islands, s->s_demo, s->s_spans);
}

/* Local cell (u, v) of village (0, 0) has at least n walkable spans; returns them. */
static uint32_t walkable_at(const op_chf *chf, uint32_t u, uint32_t v, uint8_t *a, uint16_t *y)
{
    return column_walkable(chf, u, v, a, y, 8);
}

static void test_features_256(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_scene scene;
    op_config cfg;
    op_chf chf;
    demo_summary sum;
    summarize(&ctx, 256, &scene, &cfg, &chf, &sum);
    print_summary(&sum);
    /* Multi-floor columns: building (4 floors), spiral (3), bridge (2). */
    assert_true(sum.multi_columns >= 2000);
    assert_true(sum.max_floors >= 4);
    /* Area ids: walkable, volumes 1/2/3, and area 0 (erosion, obstacle). */
    assert_true(sum.area_count[63] > 30000);
    assert_true(sum.area_count[OP_DEMO_AREA_WATER] > 500);
    assert_true(sum.area_count[OP_DEMO_AREA_ROAD] > 2000);
    assert_true(sum.area_count[OP_DEMO_AREA_GRASS] > 300);
    assert_true(sum.area_count[0] > 1000);
    /* Open terrain: some span is 15 cells (distance 30) from any boundary. */
    assert_true(sum.max_dist >= 30);
    /* Pillar tops, the well and the spiral's pillar: small islands. */
    assert_true(sum.small_islands >= 5);
    /* Most columns hold one walkable floor (terrain). */
    assert_true(sum.compact > 256u * 256u * 7 / 10 && sum.compact < 256u * 256u * 13 / 10);

    uint8_t a[8];
    uint16_t y[8];
    /* Building interior away from stairs and holes: ground, 3 m, 6 m, roof at 9 m,
     * 15 cells apart (ch 0.2). */
    uint32_t n = walkable_at(&chf, 62, 62, a, y);
    assert_int_equal(n, 4);
    assert_int_equal(y[1] - y[0], 15);
    assert_int_equal(y[2] - y[1], 15);
    assert_int_equal(y[3] - y[2], 15);
    const uint16_t slab1 = y[1];
    /* Under the mezzanine (1.6 m) nothing on the ground is walkable; under the beam
     * (2.3 m) the ground is. */
    n = walkable_at(&chf, 76, 72, a, y);
    assert_int_equal(n, 3); /* slab 1, slab 2, roof: ground and mezzanine too low */
    assert_int_equal(y[0], slab1);
    n = walkable_at(&chf, 48, 72, a, y);
    assert_int_equal(n, 4);
    /* Bridge over the road: road (area 2) below, deck (63) 5 m above. */
    n = walkable_at(&chf, 212, 128, a, y);
    assert_int_equal(n, 2);
    assert_int_equal(a[0], OP_DEMO_AREA_ROAD);
    assert_int_equal(a[1], 63);
    assert_int_equal(y[1] - y[0], 25);
    /* The spiral overlaps itself: ground and two turns 3.2 m (16 cells) apart where the
     * first turn is high enough above the ground (step 55 of 64, mid-radius). */
    n = walkable_at(&chf, 183, 50, a, y);
    assert_int_equal(n, 3);
    assert_true(y[2] - y[1] == 16);
    /* Courtyard: yard walkable next to the well, the well itself not at ground level. */
    n = walkable_at(&chf, 56, 186, a, y);
    assert_int_equal(n, 1);
    n = walkable_at(&chf, 80, 186, a, y);
    assert_int_equal(n, 1);
    /* Water in the middle of the pond. */
    n = walkable_at(&chf, 164, 186, a, y);
    assert_true(n == 1 && a[0] == OP_DEMO_AREA_WATER);
    /* The obstacle volume: nothing walkable there. */
    assert_int_equal(walkable_at(&chf, 112, 50, a, y), 0);
    /* Grass. */
    n = walkable_at(&chf, 120, 186, a, y);
    assert_true(n == 1 && a[0] == OP_DEMO_AREA_GRASS);

    op_chf_free(&chf);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
}

/* The larger case: 512 (four villages), rendered by area; optionally written as PNG. */
static void test_world_512_picture(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene scene;
    op_config cfg;
    op_chf chf;
    demo_summary sum;
    summarize(&ctx, 512, &scene, &cfg, &chf, &sum);
    print_summary(&sum);
    assert_true(sum.multi_columns >= 4 * 2000);
    assert_true(sum.small_islands >= 20);
    op_image img;
    assert_int_equal(op_render_regions(&ctx, &chf, NULL, 1, &img), OP_OK);
    assert_int_equal(img.w, 512);
    assert_int_equal(img.h, 512);
    const char *png = getenv("OP_DEMO_PNG");
    if (png && *png) {
        op_status st = op_image_write_png(&ctx, &img, png);
        if (st == OP_UNSUPPORTED)
            st = op_image_write_ppm(&ctx, &img, png);
        assert_int_equal(st, OP_OK);
    }
    op_image_free(&img);
    op_chf_free(&chf);
    op_scene_free(&scene);

    const char *big = getenv("OP_DEMO_BIG");
    if (big && *big == '1') {
        const uint32_t sizes[] = {1024, 2048};
        for (size_t i = 0; i < 2; i++) {
            summarize(&ctx, sizes[i], &scene, &cfg, &chf, &sum);
            print_summary(&sum);
            op_chf_free(&chf);
            op_scene_free(&scene);
        }
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_sizes),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_golden_digests),
        cmocka_unit_test(test_bounds_and_config),
        cmocka_unit_test(test_sizes_scale),
        cmocka_unit_test(test_features_256),
        cmocka_unit_test(test_world_512_picture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
