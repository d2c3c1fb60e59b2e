/* The error-message rule (common.h, op_ctx): every call that takes a context and
 * returns a status other than OP_OK writes a message about that failure, so the buffer
 * never shows an earlier call's message after a failure. Each failure path below runs
 * with the buffer pre-filled with a sentinel; the message must be non-empty and new.
 * The paths: bad arguments and settings of every public function that can refuse
 * them, malformed and missing files, broken results given to the checkers, and every
 * allocation of a small bake, a check, the loaders and the writers failed in turn. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/testutil.h"

#define SENTINEL "sentinel: a message from an earlier call"

static int checked;

static void arm(op_ctx *ctx) { snprintf(ctx->err, sizeof ctx->err, "%s", SENTINEL); }

/* The status must be a failure with a fresh message. */
static void fresh(const op_ctx *ctx, op_status st, const char *what, int line)
{
    checked++;
    if (st == OP_OK)
        fail_msg("line %d: %s returned OP_OK, a failure was expected", line, what);
    if (!ctx->err[0] || !strcmp(ctx->err, SENTINEL))
        fail_msg("line %d: %s returned %s with %s message", line, what, op_status_name(st),
                 ctx->err[0] ? "a stale" : "an empty");
}

#define FAILS(ctx, call) \
    do { \
        arm(ctx); \
        fresh((ctx), (call), #call, __LINE__); \
    } while (0)

/* A small valid field with regions and contours to break in the checker cases. */
typedef struct fixture {
    op_chf chf;
    uint32_t *dist, *region, region_count;
    op_contour_set set;
    op_contour_settings cs;
    op_region_settings rs;
} fixture;

static void fixture_make(op_ctx *ctx, fixture *f)
{
    memset(f, 0, sizeof *f);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 24, 20);
    assert_int_equal(op_random_chf(ctx, &f->chf, 3, &o), OP_OK);
    const uint32_t n = f->chf.span_count;
    f->dist = calloc(n, sizeof *f->dist);
    f->region = calloc(n, sizeof *f->region);
    assert_true(f->dist && f->region);
    op_region_settings_defaults(&f->rs);
    f->rs.min_region_area = 2;
    f->rs.merge_region_area = 8;
    op_contour_settings_defaults(&f->cs);
    assert_int_equal(op_build_distance_field(ctx, &f->chf, f->dist, NULL), OP_OK);
    assert_int_equal(op_build_regions(ctx, &f->chf, &f->rs, f->dist, f->region, &f->region_count),
                     OP_OK);
    assert_true(f->region_count >= 2);
    assert_int_equal(
        op_build_contours(ctx, &f->chf, f->region, f->region_count, &f->cs, &f->set), OP_OK);
    assert_true(f->set.count >= 2);
}

static void fixture_free(fixture *f)
{
    op_contour_set_free(&f->set);
    free(f->dist);
    free(f->region);
    op_chf_free(&f->chf);
}

static void test_bad_arguments_and_settings(void **state)
{
    (void)state;
    op_ctx c;
    op_ctx *ctx = &c;
    assert_int_equal(op_ctx_init(ctx, OP_ISA_SCALAR), OP_OK);
    FAILS(ctx, op_ctx_set_isa(ctx, (op_isa)99));
    for (int v = 0; v < OP_ISA_COUNT; v++)
        if (!op_isa_available((op_isa)v))
            FAILS(ctx, op_ctx_set_isa(ctx, (op_isa)v));
    assert_int_equal(op_ctx_set_isa(ctx, OP_ISA_SCALAR), OP_OK);
    op_allocator half = {0};
    half.malloc_fn = (void *(*)(void *, size_t))1; /* never called: refused */
    {
        op_ctx other;
        arm(&other);
        fresh(&other, op_ctx_init_with_allocator(&other, OP_ISA_SCALAR, &half),
              "op_ctx_init_with_allocator(half an allocator)", __LINE__);
    }

    /* Settings. */
    op_config cfg;
    op_config_defaults(&cfg);
    cfg.cs = 0.0f;
    FAILS(ctx, op_config_validate(ctx, &cfg));
    op_config_defaults(&cfg);
    cfg.has_bounds = 1;
    cfg.bmax[0] = cfg.bmax[1] = cfg.bmax[2] = -1.0f;
    uint32_t w, d;
    FAILS(ctx, op_config_grid_size(ctx, &cfg, &w, &d));
    op_region_settings rs;
    op_region_settings_defaults(&rs);
    rs.partition = (op_partition)7;
    FAILS(ctx, op_region_settings_validate(ctx, &rs));
    op_contour_settings cs;
    op_contour_settings_defaults(&cs);
    cs.max_error = -1.0;
    FAILS(ctx, op_contour_settings_validate(ctx, &cs));
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    bs.until = (op_stage)0;
    FAILS(ctx, op_bake_settings_validate(ctx, &bs));

    /* Geometry. */
    op_mesh m;
    op_mesh_init(&m);
    FAILS(ctx, op_mesh_add_vertex(ctx, &m, NAN, 0, 0));
    FAILS(ctx, op_mesh_add_triangle(ctx, &m, 0, 1, 2));
    FAILS(ctx, op_mesh_reserve(ctx, &m, 0xffffffffu, 0));
    op_scene scene;
    op_scene_init(&scene);
    op_volume vol;
    memset(&vol, 0, sizeof vol);
    vol.kind = OP_VOLUME_PRISM;
    vol.vert_count = 2;
    FAILS(ctx, op_scene_add_volume(ctx, &scene, &vol));
    FAILS(ctx, op_scene_reserve_volumes(ctx, &scene, 0xffffffffu));

    /* Spans stage. */
    const float bmin[3] = {0, 0, 0}, bmax[3] = {4, 4, 4};
    op_heightfield hf;
    FAILS(ctx, op_heightfield_init(ctx, &hf, 0, 4, bmin, bmax, 1.0f, 1.0f));
    assert_int_equal(op_heightfield_init(ctx, &hf, 4, 4, bmin, bmax, 1.0f, 1.0f), OP_OK);
    FAILS(ctx, op_heightfield_add_span(ctx, &hf, 9, 0, 0, 1, 63, 1));
    FAILS(ctx, op_heightfield_add_span(ctx, &hf, 0, 0, 5, 1, 63, 1));
    op_mesh bad;
    op_mesh_init(&bad);
    assert_int_equal(op_mesh_add_vertex(ctx, &bad, 0, 0, 0), OP_OK);
    bad.tri_count = 1; /* no array */
    const uint8_t areas[1] = {63};
    FAILS(ctx, op_rasterize_triangles(ctx, &hf, &bad, areas, 1));
    FAILS(ctx, op_rasterize_triangles(ctx, &hf, &m, areas, -1));
    bad.tri_count = 0;
    op_mesh_free(&bad);
    op_chf chf;
    FAILS(ctx, op_build_compact_heightfield(ctx, &hf, 0, 1, &chf));
    op_heightfield_free(&hf);
    op_scene_init(&scene);
    op_config_defaults(&cfg);
    FAILS(ctx, op_build_spans(ctx, &cfg, &scene, &chf, NULL)); /* no triangles */
    FAILS(ctx, op_build_spans(ctx, &cfg, NULL, &chf, NULL));
    FAILS(ctx, op_chf_alloc(ctx, &chf, 0x10000u, 0x10000u, 1));

    fixture f;
    fixture_make(ctx, &f);
    FAILS(ctx, op_erode_walkable_area(ctx, &f.chf, -1));
    vol.kind = (op_volume_kind)9;
    FAILS(ctx, op_apply_volumes(ctx, &f.chf, &vol, 1));

    /* Regions. */
    const uint32_t n = f.chf.span_count;
    uint32_t *tmp = calloc(n + 1, sizeof *tmp), count = 0;
    assert_non_null(tmp);
    FAILS(ctx, op_build_distance_field(ctx, NULL, f.dist, NULL));
    FAILS(ctx, op_build_distance_field(ctx, &f.chf, NULL, NULL));
    FAILS(ctx, op_build_regions_watershed(ctx, &f.chf, NULL, &f.rs, tmp, &count));
    FAILS(ctx, op_build_regions_watershed_raw(ctx, &f.chf, f.dist, NULL, &count));
    FAILS(ctx, op_build_regions_monotone(ctx, &f.chf, &f.rs, NULL, &count));
    FAILS(ctx, op_build_regions_monotone_raw(ctx, &f.chf, tmp, NULL));
    FAILS(ctx, op_build_regions_layers(ctx, &f.chf, &rs, tmp, &count));
    FAILS(ctx, op_build_regions_layers_ex(ctx, &f.chf, &f.rs, 0, NULL, &count));
    FAILS(ctx, op_build_regions(ctx, &f.chf, &rs, f.dist, tmp, &count));
    FAILS(ctx, op_filter_regions(ctx, &f.chf, &rs, 1, tmp, &count));
    FAILS(ctx, op_build_span_layers(ctx, &f.chf, NULL, &count));
    FAILS(ctx, op_build_regions_layer_first(ctx, &f.chf, NULL, &f.rs, tmp, &count));
    memcpy(tmp, f.region, (size_t)n * sizeof *tmp);
    tmp[0] = f.region_count + 5; /* outside 1..region_count */
    FAILS(ctx, op_assign_layers(ctx, &f.chf, tmp, f.region_count, tmp + 0, &count));
    FAILS(ctx, op_check_regions(ctx, &f.chf, &f.rs, tmp, f.region_count, 1, NULL));
    FAILS(ctx, op_check_regions(ctx, NULL, &f.rs, tmp, f.region_count, 1, NULL));

    /* Contours. */
    op_contour_set other;
    FAILS(ctx, op_build_contours(ctx, &f.chf, tmp, f.region_count, &f.cs, &other));
    FAILS(ctx, op_build_contours(ctx, &f.chf, f.region, f.region_count, &cs, &other));
    FAILS(ctx, op_check_contours(ctx, &f.chf, f.region, f.region_count, &f.cs, NULL, NULL));
    f.set.contours[0].vert_count = 2; /* a broken set: fewer than 3 vertices */
    FAILS(ctx, op_check_contours(ctx, &f.chf, f.region, f.region_count, &f.cs, &f.set, NULL));
    FAILS(ctx, op_write_contours_json(ctx, &f.set, "/nonexistent-dir/x.json", 0));

    /* The whole chain. */
    op_bake_result r;
    FAILS(ctx, op_bake_scene(ctx, &scene, &bs, &r));
    op_bake_result_free(&r);
    op_chf copy;
    assert_int_equal(op_chf_copy(ctx, &copy, &f.chf), OP_OK);
    FAILS(ctx, op_bake_chf(ctx, &copy, &bs, &r));
    op_bake_result_free(&r);
    op_chf_free(&copy);
    op_scene demo;
    FAILS(ctx, op_demo_world(ctx, 3, &demo, &cfg));
    FAILS(ctx, op_demo_terrain(ctx, 100000, &demo, &cfg));

    free(tmp);
    fixture_free(&f);
    op_ctx_free(ctx);
}

static void test_bad_files(void **state)
{
    (void)state;
    op_ctx c;
    op_ctx *ctx = &c;
    assert_int_equal(op_ctx_init(ctx, OP_ISA_SCALAR), OP_OK);
    const char *missing = "/nonexistent-dir/missing.bin";
    static const unsigned char junk[40] = "not a file of any format we read\n";
    unsigned char *buf;
    size_t len;
    uint32_t *v, n, rc;
    op_chf chf;
    op_mesh m;
    FAILS(ctx, op_read_file(ctx, missing, &buf, &len));
    FAILS(ctx, op_write_file(ctx, missing, junk, sizeof junk));
    FAILS(ctx, op_opchf_decode(ctx, junk, sizeof junk, &chf));
    FAILS(ctx, op_opchf_decode(ctx, junk, 3, &chf));
    FAILS(ctx, op_opchf_read(ctx, missing, &chf));
    FAILS(ctx, op_dump_distance_decode(ctx, junk, sizeof junk, &v, &n));
    FAILS(ctx, op_dump_regions_decode(ctx, junk, sizeof junk, &v, &n, &rc));
    FAILS(ctx, op_dump_distance_read(ctx, missing, &v, &n));
    FAILS(ctx, op_dump_regions_read(ctx, missing, &v, &n, &rc));
    const uint32_t ids[3] = {0, 1, 9};
    FAILS(ctx, op_dump_regions_encode(ctx, ids, 3, 2, &buf, &len));
    FAILS(ctx, op_dump_regions_write(ctx, ids, 3, 2, "/tmp/x.opreg"));
    FAILS(ctx, op_dump_distance_write(ctx, ids, 3, missing));
    FAILS(ctx, op_parse_obj(ctx, (const char *)junk, sizeof junk, NULL, &m));
    FAILS(ctx, op_parse_obj(ctx, "v 1 2\n", 6, "short.obj", &m));
    FAILS(ctx, op_parse_obj(ctx, "v 1 2 3\nf 1 2 5\n", 16, "range.obj", &m));
    FAILS(ctx, op_load_obj(ctx, missing, &m));
    const uint16_t h[4] = {0, 1, 2, 3};
    FAILS(ctx, op_heightmap_to_mesh(ctx, h, 1, 4, NULL, &m));
    op_heightmap_opts ho;
    op_heightmap_opts_defaults(&ho);
    ho.spacing = -1.0f;
    FAILS(ctx, op_heightmap_to_mesh(ctx, h, 2, 2, &ho, &m));
    FAILS(ctx, op_load_heightmap_r16(ctx, missing, 4, NULL, &m));
    FAILS(ctx, op_load_heightmap_r16(ctx, missing, 1, NULL, &m));
    FAILS(ctx, op_load_heightmap_png(ctx, missing, NULL, &m));
    char path[512];
    snprintf(path, sizeof path, "%s", op_test_tmp_path(".bin"));
    assert_int_equal(op_write_file(ctx, path, junk, sizeof junk), OP_OK);
    FAILS(ctx, op_load_heightmap_png(ctx, path, NULL, &m));
    FAILS(ctx, op_load_heightmap_r16(ctx, path, 3, NULL, &m)); /* 40 bytes, rows of 6 */
    FAILS(ctx, op_opchf_read(ctx, path, &chf));
    FAILS(ctx, op_dump_distance_read(ctx, path, &v, &n));
    FAILS(ctx, op_load_obj(ctx, path, &m));
    remove(path);
    /* Writers refuse what a reader could not take back. */
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 8, 8);
    assert_int_equal(op_random_chf(ctx, &chf, 5, &o), OP_OK);
    /* Span 0 linked to itself in direction -x: span 0 is the first, so the cell before
     * its own is empty or off the grid (h > 255, the other refusal, is unrepresentable
     * since h is u8). */
    const uint32_t keep = op_chf_link(&chf, 0, 0);
    assert_int_equal(op_chf_set_link(ctx, &chf, 0, 0, 0), OP_OK);
    FAILS(ctx, op_opchf_encode(ctx, &chf, &buf, &len));
    FAILS(ctx, op_opchf_write(ctx, &chf, "/tmp/never-written.opchf"));
    assert_int_equal(op_chf_set_link(ctx, &chf, 0, 0, keep), OP_OK);
    FAILS(ctx, op_opchf_write(ctx, &chf, missing));
    op_chf_free(&chf);
    op_ctx_free(ctx);
}

/* ---- every allocation failed in turn ------------------------------------------------- */

/* The calls a small bake, its checks and the loaders make, each armed with the sentinel.
 * Returns 1 when every call succeeded; on a failure checks the message and returns 0. */
static int pipeline(op_ctx *ctx, op_partition part, const char *tmp_chf)
{
    op_status st;
    int ok = 0;
    op_scene scene;
    op_scene_init(&scene);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = part;
    s.contours.keep_raw = 1;
    op_bake_result r;
    memset(&r, 0, sizeof r);
    op_chf back;
    memset(&back, 0, sizeof back);
    unsigned char *buf = NULL;
    size_t len;
    uint32_t *v = NULL, n, rc, *layer = NULL, lc;
    op_mesh m;
    op_mesh_init(&m);
#define STEP(call) \
    do { \
        arm(ctx); \
        st = (call); \
        if (st != OP_OK) { \
            fresh(ctx, st, #call, __LINE__); \
            goto done; \
        } \
    } while (0)
    STEP(op_demo_world(ctx, 64, &scene, &s.config));
    STEP(op_bake_scene(ctx, &scene, &s, &r));
    STEP(op_check_regions(ctx, &r.chf, &s.regions, r.region, r.region_count, 1, NULL));
    STEP(op_check_contours(ctx, &r.chf, r.region, r.region_count, &s.contours, &r.contours,
                           NULL));
    STEP(op_opchf_encode(ctx, &r.chf, &buf, &len));
    STEP(op_opchf_decode(ctx, buf, len, &back));
    STEP(op_opchf_write(ctx, &back, tmp_chf));
    op_chf_free(&back);
    STEP(op_opchf_read(ctx, tmp_chf, &back));
    op_free(ctx, buf);
    buf = NULL;
    STEP(op_dump_regions_encode(ctx, r.region, r.chf.span_count, r.region_count, &buf, &len));
    STEP(op_dump_regions_decode(ctx, buf, len, &v, &n, &rc));
    layer = malloc(((size_t)r.chf.span_count + 1) * sizeof *layer);
    assert_non_null(layer);
    STEP(op_build_span_layers(ctx, &r.chf, layer, &lc));
    STEP(op_parse_obj(ctx, "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 3 2\n", 32, NULL, &m));
    ok = 1;
done:
#undef STEP
    free(layer);
    op_mesh_free(&m);
    op_free(ctx, v);
    op_free(ctx, buf);
    op_chf_free(&back);
    op_bake_result_free(&r);
    op_scene_free(&scene);
    return ok;
}

static void test_every_allocation_failure_has_a_message(void **state)
{
    (void)state;
    char tmp_chf[512];
    snprintf(tmp_chf, sizeof tmp_chf, "%s", op_test_tmp_path(".opchf"));
    static const op_partition parts[] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE,
                                         OP_PARTITION_LAYERS};
    uint64_t failed_total = 0;
    for (size_t p = 0; p < 3; p++) {
        /* Learn how many allocations the pipeline makes. */
        op_test_alloc ta;
        op_test_alloc_init(&ta);
        op_ctx ctx;
        assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
        assert_true(pipeline(&ctx, parts[p], tmp_chf));
        op_ctx_free(&ctx);
        const uint64_t total = ta.allocs;
        assert_true(total > 10);
        for (uint64_t k = 1; k <= total; k++) {
            op_test_alloc_init(&ta);
            ta.fail_at = k;
            const op_status ist = op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR);
            if (ist != OP_OK) /* the context's own kernel table */
                fresh(&ctx, ist, "op_ctx_init_with_allocator", __LINE__);
            else
                pipeline(&ctx, parts[p], tmp_chf);
            op_ctx_free(&ctx);
            failed_total += ta.failed;
            assert_int_equal(ta.live_bytes, 0);
            assert_int_equal(ta.bad_frees, 0);
        }
        printf("%s: %llu allocations, each failed in turn\n", op_partition_name(parts[p]),
               (unsigned long long)total);
    }
    assert_true(failed_total > 0);
    remove(tmp_chf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments_and_settings),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_every_allocation_failure_has_a_message),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    printf("%d failure paths checked\n", checked);
    return rc;
}
