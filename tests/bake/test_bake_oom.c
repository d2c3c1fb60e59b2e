/* Out of memory as a status (issue 10): with the failing allocator (tests/util/testalloc),
 * every allocation of a small bake is failed in turn, for each partition (whole grid and
 * tiled), and of an
 * OPCHF1 round trip, an OBJ load and the demo world's construction. Each failure must
 * give OP_NO_MEMORY with a message, leave nothing allocated once the results are freed
 * (the allocator's own count; ASan in the sanitizer build), free nothing it did not
 * allocate, and not crash. The unfailed run is the reference: its allocation count is
 * the number of runs, and every later allocation index is reached. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/quick.h"
#include "util/testutil.h"

#ifdef OP_HAVE_PNG
#include <png.h>
#endif

#define DEMO_SIZE 64 /* the smallest demo world */

static uint64_t total_failed; /* allocations failed over the whole program */

/* One run of `what` with allocation fail_at failed (0: none; with all_after, that one
 * and every later one). Returns its status and result fingerprint (*print) and checks
 * what every run must keep. */
typedef op_status (*run_fn)(op_ctx *ctx, void *arg, uint64_t *print);

static op_status run_once(run_fn fn, void *arg, uint64_t fail_at, int all_after,
                          uint64_t *allocs, uint64_t *print, const char *what)
{
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
    ta.fail_at = fail_at;
    ta.fail_all_after = all_after;
    ctx.err[0] = 0;
    *print = 0;
    const op_status st = fn(&ctx, arg, print);
    if (st != OP_OK && st != OP_NO_MEMORY)
        fail_msg("%s: allocation %llu failed: status %s (%s)", what,
                 (unsigned long long)fail_at, op_status_name(st), ctx.err);
    if (st == OP_NO_MEMORY && !ctx.err[0])
        fail_msg("%s: allocation %llu failed: OP_NO_MEMORY without a message", what,
                 (unsigned long long)fail_at);
    op_ctx_free(&ctx);
    if (ta.live_bytes || ta.live_blocks)
        fail_msg("%s: allocation %llu failed: %zu bytes in %zu blocks left", what,
                 (unsigned long long)fail_at, ta.live_bytes, ta.live_blocks);
    if (ta.bad_frees)
        fail_msg("%s: allocation %llu failed: %llu frees of foreign blocks", what,
                 (unsigned long long)fail_at, (unsigned long long)ta.bad_frees);
    total_failed += ta.failed;
    *allocs = ta.allocs;
    return st;
}

/* Fails allocation 1, 2, ... n in turn, n = the unfailed run's count: alone (the library
 * may recover, e.g. the arena retries a smaller block: then the result must equal the
 * unfailed one) and with every later allocation failing too (then nothing can recover:
 * OP_NO_MEMORY with a message). */
static void fail_each(run_fn fn, void *arg, const char *what)
{
    uint64_t n = 0, got = 0, ref = 0, print = 0, recovered = 0;
    assert_int_equal(run_once(fn, arg, 0, 0, &n, &ref, what), OP_OK);
    assert_true(n > 0);
    for (uint64_t k = 1; k <= n; k++) {
        op_status st = run_once(fn, arg, k, 0, &got, &print, what);
        if (got < k) /* deterministic up to allocation k, so it is reached */
            fail_msg("%s: allocation %llu of %llu never reached (%llu)", what,
                     (unsigned long long)k, (unsigned long long)n, (unsigned long long)got);
        if (st == OP_OK) {
            if (print != ref)
                fail_msg("%s: allocation %llu failed, status ok but a different result", what,
                         (unsigned long long)k);
            recovered++;
        }
        st = run_once(fn, arg, k, 1, &got, &print, what);
        if (st != OP_NO_MEMORY)
            fail_msg("%s: allocations %llu.. failed, status %s", what, (unsigned long long)k,
                     op_status_name(st));
    }
    print_message("%s: each of %llu allocations failed in turn (%llu recovered with the "
                  "same result), and each with all later ones: OP_NO_MEMORY, nothing left\n",
                  what, (unsigned long long)n, (unsigned long long)recovered);
}

/* ---- the runs ---------------------------------------------------------------------- */

typedef struct bake_arg {
    op_partition partition;
    uint32_t size;
    int keep_raw;
    int keep_distance; /* 0: freed inside the partition, also when a later step fails */
} bake_arg;

/* The demo world, a whole bake and both invariant checkers on it, results freed. */
static op_status run_bake(op_ctx *ctx, void *argp, uint64_t *print)
{
    const bake_arg *a = argp;
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    op_status st = op_demo_world(ctx, a->size, &scene, &s.config);
    if (st != OP_OK)
        return st;
    s.regions.partition = a->partition;
    s.contours.keep_raw = a->keep_raw;
    s.keep_distance = a->keep_distance;
    op_bake_result r;
    st = op_bake_scene(ctx, &scene, &s, &r);
    if (st == OP_OK && r.contours.count == 0)
        st = op_fail(ctx, OP_INTERNAL, "bake made no contours");
    *print = r.digest_spans ^ r.digest_distance * 3 ^ r.digest_regions * 5 ^ r.digest_contours * 7;
    if (st == OP_OK)
        st = op_check_regions(ctx, &r.chf, &s.regions, r.region, r.region_count, 1, NULL);
    if (st == OP_OK)
        st = op_check_contours(ctx, &r.chf, r.region, r.region_count, &s.contours, &r.contours,
                               NULL);
    op_bake_result_free(&r);
    op_scene_free(&scene);
    return st;
}

static void test_bake_each_partition(void **state)
{
    (void)state;
    static const struct {
        bake_arg a;
        const char *name;
    } runs[] = {{{OP_PARTITION_WATERSHED, DEMO_SIZE, 0, 0}, "bake watershed"},
                {{OP_PARTITION_MONOTONE, DEMO_SIZE, 0, 0}, "bake monotone"},
                {{OP_PARTITION_LAYERS, DEMO_SIZE, 0, 0}, "bake layers"},
                {{OP_PARTITION_WATERSHED, 2 * DEMO_SIZE, 1, 0}, "bake watershed 128 keep_raw"},
                {{OP_PARTITION_WATERSHED, DEMO_SIZE, 0, 1}, "bake watershed keep_distance"}};
    /* util/quick.h: under qemu the three partitions at 64 cells only */
    const size_t nruns = op_test_quick() ? 3 : sizeof runs / sizeof runs[0];
    for (size_t i = 0; i < nruns; i++) {
        bake_arg a = runs[i].a;
        fail_each(run_bake, &a, runs[i].name);
    }
}

/* The tiled bake (supplement §2) of the same world, 32-cell tiles, one thread (so the
 * allocation order is fixed). */
static op_status run_tiled(op_ctx *ctx, void *argp, uint64_t *print)
{
    const bake_arg *a = argp;
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    op_status st = op_demo_world(ctx, a->size, &scene, &s.config);
    if (st != OP_OK)
        return st;
    s.regions.partition = a->partition;
    s.config.tile_size = 32;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    op_tiled_result r;
    st = op_bake_tiled(ctx, &scene, &s, &o, &r);
    if (st == OP_OK && r.contours == 0)
        st = op_fail(ctx, OP_INTERNAL, "tiled bake made no contours");
    *print = r.digest;
    op_tiled_result_free(&r);
    op_scene_free(&scene);
    return st;
}

static void test_tiled_each_partition(void **state)
{
    (void)state;
    static const struct {
        bake_arg a;
        const char *name;
    } runs[] = {{{OP_PARTITION_WATERSHED, DEMO_SIZE, 0, 0}, "tiled watershed"},
                {{OP_PARTITION_MONOTONE, DEMO_SIZE, 0, 0}, "tiled monotone"},
                {{OP_PARTITION_LAYERS, DEMO_SIZE, 0, 0}, "tiled layers"}};
    /* util/quick.h: under qemu the watershed one only */
    const size_t nruns = op_test_quick() ? 1 : sizeof runs / sizeof runs[0];
    for (size_t i = 0; i < nruns; i++) {
        bake_arg a = runs[i].a;
        fail_each(run_tiled, &a, runs[i].name);
    }
}

/* OPCHF1: encode a baked field, decode it, compare. */
static op_status run_opchf(op_ctx *ctx, void *argp, uint64_t *print)
{
    const op_chf *src = argp;
    unsigned char *buf = NULL;
    size_t len = 0;
    op_status st = op_opchf_encode(ctx, src, &buf, &len);
    if (st != OP_OK)
        return st;
    op_chf back;
    st = op_opchf_decode(ctx, buf, len, &back);
    op_free(ctx, buf);
    if (st != OP_OK)
        return st;
    *print = op_digest_chf(&back);
    if (*print != op_digest_chf(src))
        st = op_fail(ctx, OP_INTERNAL, "round trip changed the field");
    op_chf_free(&back);
    return st;
}

static void test_opchf_round_trip(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.until = OP_STAGE_SPANS;
    assert_int_equal(op_demo_world(&ctx, DEMO_SIZE, &scene, &s.config), OP_OK);
    op_bake_result r;
    assert_int_equal(op_bake_scene(&ctx, &scene, &s, &r), OP_OK);
    fail_each(run_opchf, &r.chf, "OPCHF1 round trip");
    op_bake_result_free(&r);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
}

/* OBJ: a small file with polygons, comments and negative indices. */
static op_status run_obj(op_ctx *ctx, void *argp, uint64_t *print)
{
    op_mesh m;
    op_status st = op_load_obj(ctx, (const char *)argp, &m);
    if (st == OP_OK) {
        if (m.tri_count != 2 * 16 * 16)
            st = op_fail(ctx, OP_INTERNAL, "OBJ: %u triangles", m.tri_count);
        *print = op_digest_bytes(m.verts, 3 * sizeof *m.verts * m.vert_count) ^
                 op_digest_bytes(m.tris, 3 * sizeof *m.tris * m.tri_count);
        op_mesh_free(&m);
    }
    return st;
}

static void test_obj_load(void **state)
{
    (void)state;
    const char *path = op_test_tmp_path(".obj");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# 16 x 16 quads\n");
    for (int z = 0; z <= 16; z++)
        for (int x = 0; x <= 16; x++)
            fprintf(f, "v %d %d %d\n", x, (x * z) % 3, z);
    for (int z = 0; z < 16; z++)
        for (int x = 0; x < 16; x++) {
            const int a = 1 + x + z * 17;
            fprintf(f, "f %d %d %d %d\n", a, a + 17, a + 18, a + 1);
        }
    fclose(f);
    fail_each(run_obj, (void *)path, "OBJ load");
    remove(path);
}

/* Heightmaps: r16 always, PNG where the build has libpng (written by the tool-support
 * image writer). */
typedef struct hm_arg {
    const char *path;
    int png;
} hm_arg;

static op_status run_heightmap(op_ctx *ctx, void *argp, uint64_t *print)
{
    const hm_arg *a = argp;
    op_mesh m;
    op_status st = a->png ? op_load_heightmap_png(ctx, a->path, NULL, &m)
                          : op_load_heightmap_r16(ctx, a->path, 20, NULL, &m);
    if (st == OP_OK) {
        *print = op_digest_bytes(m.verts, 3 * sizeof *m.verts * m.vert_count);
        op_mesh_free(&m);
    }
    return st;
}

static void test_heightmap_load(void **state)
{
    (void)state;
    unsigned char raw[20 * 15 * 2];
    for (size_t i = 0; i < sizeof raw; i++)
        raw[i] = (unsigned char)(i * 37 + 11);
    hm_arg a = {op_test_tmp_path(".r16"), 0};
    FILE *f = fopen(a.path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(raw, 1, sizeof raw, f), sizeof raw);
    fclose(f);
    fail_each(run_heightmap, &a, "r16 heightmap load");
    remove(a.path);
#ifdef OP_HAVE_PNG
    /* 16-bit grey through libpng's simplified writer. */
    uint16_t px[20 * 15];
    for (size_t i = 0; i < 20 * 15; i++)
        px[i] = (uint16_t)(i * 977);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = 20;
    img.height = 15;
    img.format = PNG_FORMAT_LINEAR_Y;
    hm_arg b = {op_test_tmp_path(".png"), 1};
    assert_true(png_image_write_to_file(&img, b.path, 0, px, 0, NULL));
    fail_each(run_heightmap, &b, "PNG heightmap load");
    remove(b.path);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bake_each_partition),
        cmocka_unit_test(test_tiled_each_partition),
        cmocka_unit_test(test_opchf_round_trip),
        cmocka_unit_test(test_obj_load),
        cmocka_unit_test(test_heightmap_load),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    printf("allocations failed in all: %llu\n", (unsigned long long)total_failed);
    return rc;
}
