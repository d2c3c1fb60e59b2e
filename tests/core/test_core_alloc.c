/* The allocator hook (common.h): a whole demo bake, the loaders and the writers make
 * every allocation through the context's allocator, results remember it, and nothing
 * comes from or goes back to the C library. The allocator (tests/util/testalloc.h) tags
 * its blocks, so a block freed through it that it did not make is counted; in the
 * static build the C library's malloc family is also wrapped at link time
 * (OP_TEST_WRAP_LIBC, CMakeLists.txt), so a direct call from the library shows up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/testbuild.h"
#include "util/testutil.h"


/* ---- the C library's allocator, watched ---------------------------------------------- */

static atomic_int watching;
static atomic_ulong libc_calls; /* calls made while watching, not by the test allocator */

#ifdef OP_TEST_WRAP_LIBC
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
char *__real_strdup(const char *s);
int __real_posix_memalign(void **p, size_t a, size_t n);

static void seen(void)
{
    if (atomic_load(&watching) && !op_test_alloc_busy)
        atomic_fetch_add(&libc_calls, 1);
}
void *__wrap_malloc(size_t n)
{
    seen();
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    seen();
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    seen();
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    if (p)
        seen();
    __real_free(p);
}
void *__wrap_aligned_alloc(size_t a, size_t n)
{
    seen();
    return __real_aligned_alloc(a, n);
}
char *__wrap_strdup(const char *s)
{
    seen();
    return __real_strdup(s);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    seen();
    return __real_posix_memalign(p, a, n);
}
#endif

static void watch(void)
{
    atomic_store(&libc_calls, 0);
    atomic_store(&watching, 1);
}

static unsigned long unwatch(void)
{
    atomic_store(&watching, 0);
    return atomic_load(&libc_calls);
}

/* ---- helpers --------------------------------------------------------------------------- */

static int uses(const op_allocator *a, const op_test_alloc *t) { return a->user == t; }

static void assert_clean(const op_test_alloc *t)
{
    assert_true(t->allocs > 0);
    assert_int_equal(t->live_bytes, 0);
    assert_int_equal(t->live_blocks, 0);
    assert_int_equal(t->bad_frees, 0);
    assert_true(t->frees > 0);
}

typedef struct bake_out {
    uint64_t spans, distance, regions, contours;
} bake_out;

/* Demo world of `size` cells through to contours with the given partition. */
static void demo_bake(op_ctx *ctx, uint32_t size, op_partition p, const op_test_alloc *t,
                      bake_out *out)
{
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = p;
    s.keep_distance = 1; /* r.dist is checked below */
    assert_int_equal(op_demo_world(ctx, size, &scene, &s.config), OP_OK);
    op_bake_result r;
    const op_status st = op_bake_scene(ctx, &scene, &s, &r);
    if (st != OP_OK)
        fail_msg("bake: %s", op_ctx_error(ctx));
    assert_int_equal(r.reached, OP_STAGE_CONTOURS);
    if (t) {
        /* Every owned result remembers the allocator it was made with. */
        assert_true(uses(&scene.alloc, t) && uses(&scene.mesh.alloc, t));
        assert_true(uses(&r.alloc, t) && uses(&r.chf.alloc, t) && uses(&r.contours.alloc, t));
        assert_true(op_test_alloc_owns(t, scene.mesh.verts));
        assert_true(op_test_alloc_owns(t, scene.volumes));
        assert_true(op_test_alloc_owns(t, r.chf.y) && op_test_alloc_owns(t, r.dist));
        assert_true(op_test_alloc_owns(t, r.contours.vert_storage));
        assert_true(t->live_bytes > 0 && t->peak_bytes >= t->live_bytes);
    }
    out->spans = r.digest_spans;
    out->distance = r.digest_distance;
    out->regions = r.digest_regions;
    out->contours = r.digest_contours;
    op_bake_result_free(&r);
    op_scene_free(&scene);
}

/* ---- tests ----------------------------------------------------------------------------- */

/* The control: with the default allocator the library does call the C library (through
 * core/alloc.c), so the watch below is not blind. */
static void test_default_allocator_is_the_c_library(void **state)
{
    (void)state;
#ifndef OP_TEST_WRAP_LIBC
    skip();
#else
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    bake_out b;
    watch();
    demo_bake(&ctx, 64, OP_PARTITION_WATERSHED, NULL, &b);
    op_ctx_free(&ctx);
    assert_true(unwatch() > 0);
#endif
}

static void test_demo_bake_allocates_through_the_hook(void **state)
{
    (void)state;
    static const op_partition parts[] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE,
                                         OP_PARTITION_LAYERS};
    for (size_t i = 0; i < 3; i++) {
        op_ctx ref;
        assert_int_equal(op_ctx_init(&ref, OP_ISA_AUTO), OP_OK);
        bake_out want, got;
        demo_bake(&ref, 256, parts[i], NULL, &want);
        op_ctx_free(&ref);

        op_test_alloc ta;
        op_test_alloc_init(&ta);
        watch();
        op_ctx ctx;
        assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
        demo_bake(&ctx, 256, parts[i], &ta, &got);
        op_ctx_free(&ctx);
        assert_int_equal(unwatch(), 0);
        assert_clean(&ta);
        printf("%s: %llu allocations, peak %zu bytes\n", op_partition_name(parts[i]),
               (unsigned long long)ta.allocs, ta.peak_bytes);
        /* The same bytes whatever the allocator. */
        assert_true(got.spans == want.spans && got.distance == want.distance);
        assert_true(got.regions == want.regions && got.contours == want.contours);
    }
}

/* A fixed tiny OBJ: a 2 x 2 quad made of two triangles. */
static const char quad_obj[] = "v 0 0 0\nv 2 0 0\nv 2 0 2\nv 0 0 2\nf 1 3 2\nf 1 4 3\n";

#ifdef OP_HAVE_PNG
/* Small 16-bit samples for the PNG heightmap. */
static uint16_t png_sample(uint32_t x, uint32_t z) { return (uint16_t)(x + z); }
#endif

static void test_loaders_and_writers_allocate_through_the_hook(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
    /* Inputs written with the default allocator, before the watch. */
    op_ctx plain;
    assert_int_equal(op_ctx_init(&plain, OP_ISA_SCALAR), OP_OK);
    op_chf chf;
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 24, 20);
    assert_int_equal(op_random_chf(&plain, &chf, 7, &o), OP_OK);
    char obj_path[512];
    snprintf(obj_path, sizeof obj_path, "%s", op_test_tmp_path(".obj"));
    FILE *f = fopen(obj_path, "wb");
    assert_non_null(f);
    fwrite(quad_obj, 1, sizeof quad_obj - 1, f);
    fclose(f);
    char r16_path[512];
    snprintf(r16_path, sizeof r16_path, "%s", op_test_tmp_path(".r16"));
    f = fopen(r16_path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 4 * 3; i++) {
        const unsigned char b[2] = {(unsigned char)i, 0};
        fwrite(b, 1, 2, f);
    }
    fclose(f);
#ifdef OP_HAVE_PNG
    char png_path[512];
    snprintf(png_path, sizeof png_path, "%s", op_test_tmp_path(".png"));
    op_test_write_png(png_path, 5, 4, 16, 0, png_sample);
#endif
    char chf_path[512];
    snprintf(chf_path, sizeof chf_path, "%s", op_test_tmp_path(".opchf"));
    char dst_path[512];
    snprintf(dst_path, sizeof dst_path, "%s", op_test_tmp_path(".opdst"));
    char reg_path[512];
    snprintf(reg_path, sizeof reg_path, "%s", op_test_tmp_path(".opreg"));
    const uint32_t n = chf.span_count;
    uint32_t *dist = calloc(n, sizeof *dist), *reg = calloc(n, sizeof *reg);
    assert_true(dist && reg);
    for (uint32_t i = 0; i < n; i++) {
        dist[i] = i % 17;
        reg[i] = i % 5;
    }

    watch();
    /* OPCHF1 both ways, in memory and through a file. */
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opchf_encode(&ctx, &chf, &buf, &len), OP_OK);
    assert_true(op_test_alloc_owns(&ta, buf));
    op_chf back;
    assert_int_equal(op_opchf_decode(&ctx, buf, len, &back), OP_OK);
    assert_true(uses(&back.alloc, &ta));
    op_free(&ctx, buf);
    assert_int_equal(op_opchf_write(&ctx, &back, chf_path), OP_OK);
    op_chf_free(&back);
    assert_int_equal(op_opchf_read(&ctx, chf_path, &back), OP_OK);
    assert_true(op_digest_chf(&back) == op_digest_chf(&chf));
    op_chf copy;
    assert_int_equal(op_chf_copy(&ctx, &copy, &back), OP_OK);
    assert_true(uses(&copy.alloc, &ta));
    op_chf_free(&copy);
    op_chf_free(&back);
    /* The whole file. */
    assert_int_equal(op_read_file(&ctx, chf_path, &buf, &len), OP_OK);
    assert_true(op_test_alloc_owns(&ta, buf));
    op_free(&ctx, buf);
    /* Dumps. */
    uint32_t *v, m, rc;
    assert_int_equal(op_dump_distance_encode(&ctx, dist, n, &buf, &len), OP_OK);
    assert_int_equal(op_dump_distance_decode(&ctx, buf, len, &v, &m), OP_OK);
    assert_true(op_test_alloc_owns(&ta, buf) && op_test_alloc_owns(&ta, v));
    op_free(&ctx, buf);
    op_free(&ctx, v);
    assert_int_equal(op_dump_distance_write(&ctx, dist, n, dst_path), OP_OK);
    assert_int_equal(op_dump_distance_read(&ctx, dst_path, &v, &m), OP_OK);
    assert_int_equal(memcmp(v, dist, (size_t)n * sizeof *v), 0);
    op_free(&ctx, v);
    assert_int_equal(op_dump_regions_write(&ctx, reg, n, 4, reg_path), OP_OK);
    assert_int_equal(op_dump_regions_read(&ctx, reg_path, &v, &m, &rc), OP_OK);
    assert_true(op_test_alloc_owns(&ta, v));
    op_free(&ctx, v);
    /* Meshes from OBJ and heightmaps. */
    op_mesh mesh;
    assert_int_equal(op_parse_obj(&ctx, quad_obj, sizeof quad_obj - 1, NULL, &mesh), OP_OK);
    assert_true(uses(&mesh.alloc, &ta) && op_test_alloc_owns(&ta, mesh.tris));
    op_mesh_free(&mesh);
    if (op_load_obj(&ctx, obj_path, &mesh) != OP_OK)
        fail_msg("%s", op_ctx_error(&ctx));
    assert_int_equal(mesh.tri_count, 2);
    op_mesh_free(&mesh);
    assert_int_equal(op_load_heightmap_r16(&ctx, r16_path, 4, NULL, &mesh), OP_OK);
    assert_true(uses(&mesh.alloc, &ta) && mesh.tri_count == 2 * 3 * 2);
    op_mesh_free(&mesh);
#ifdef OP_HAVE_PNG
    const uint64_t before_png = ta.allocs;
    assert_int_equal(op_load_heightmap_png(&ctx, png_path, NULL, &mesh), OP_OK);
    assert_true(mesh.tri_count == 2 * 4 * 3);
    /* libpng's own structures came through the hook too (more than our two arrays and
     * the mesh). */
    assert_true(ta.allocs - before_png > 4);
    op_mesh_free(&mesh);
#endif
    /* A scene grown one volume at a time. */
    op_scene scene;
    op_scene_init(&scene);
    op_volume vol;
    memset(&vol, 0, sizeof vol);
    vol.kind = OP_VOLUME_BOX;
    vol.ymax = 1.0f;
    for (int i = 0; i < 100; i++)
        assert_int_equal(op_scene_add_volume(&ctx, &scene, &vol), OP_OK);
    assert_true(uses(&scene.alloc, &ta));
    op_scene_free(&scene);
    op_ctx_free(&ctx);
    assert_int_equal(unwatch(), 0);
    assert_clean(&ta);

    free(dist);
    free(reg);
    op_chf_free(&chf);
    op_ctx_free(&plain);
    remove(obj_path);
    remove(r16_path);
    remove(chf_path);
    remove(dst_path);
    remove(reg_path);
#ifdef OP_HAVE_PNG
    remove(png_path);
#endif
}

/* Zeroed results free harmlessly; op_free takes NULL. */
static void test_zeroed_results_free_harmlessly(void **state)
{
    (void)state;
    op_chf chf;
    op_mesh mesh;
    op_scene scene;
    op_heightfield hf;
    op_contour_set set;
    op_bake_result r;
    memset(&chf, 0, sizeof chf);
    memset(&mesh, 0, sizeof mesh);
    memset(&scene, 0, sizeof scene);
    memset(&hf, 0, sizeof hf);
    memset(&set, 0, sizeof set);
    memset(&r, 0, sizeof r);
    op_chf_free(&chf);
    op_mesh_free(&mesh);
    op_scene_free(&scene);
    op_heightfield_free(&hf);
    op_contour_set_free(&set);
    op_contour_set_free(NULL);
    op_bake_result_free(&r);
    op_free(NULL, NULL);
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_free(&ctx, NULL);
    op_ctx_free(&ctx);
}

/* A result keeps the allocator it was made with: a mesh begun with one context grows
 * and is freed with that allocator even when a call passes another context. */
static void test_result_keeps_its_allocator(void **state)
{
    (void)state;
    op_test_alloc a, b;
    op_test_alloc_init(&a);
    op_test_alloc_init(&b);
    op_ctx ca, cb;
    assert_int_equal(op_test_alloc_ctx_init(&ca, &a, OP_ISA_SCALAR), OP_OK);
    assert_int_equal(op_test_alloc_ctx_init(&cb, &b, OP_ISA_SCALAR), OP_OK);
    /* What the contexts hold themselves (their kernel tables). */
    const uint64_t b_allocs = b.allocs;
    const size_t a_bytes = a.live_bytes, b_blocks = b.live_blocks;
    op_mesh m;
    op_mesh_init(&m);
    assert_int_equal(op_mesh_add_vertex(&ca, &m, 0, 0, 0), OP_OK);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(op_mesh_add_vertex(&cb, &m, (float)i, 0, 0), OP_OK);
    assert_int_equal(b.allocs, b_allocs);
    op_mesh_free(&m);
    assert_int_equal(a.live_bytes, a_bytes);
    /* Emptied, the mesh takes the next context's allocator. */
    assert_int_equal(op_mesh_add_vertex(&cb, &m, 0, 0, 0), OP_OK);
    assert_true(uses(&m.alloc, &b) && b.live_blocks == b_blocks + 1);
    op_mesh_free(&m);
    op_ctx_free(&ca);
    op_ctx_free(&cb);
    assert_int_equal(a.bad_frees + b.bad_frees, 0);
    assert_int_equal(a.live_bytes + b.live_bytes, 0);
}

/* Digests cannot fail because they do not allocate (issue 10, defect 5: the spans,
 * distance and regions digests used to take their XXH3 state from malloc, and a failed
 * allocation gave a digest of 0). */
static void test_digests_do_not_allocate(void **state)
{
    (void)state;
#ifndef OP_TEST_WRAP_LIBC
    skip();
#else
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.keep_distance = 1; /* its digest is taken again below */
    assert_int_equal(op_demo_world(&ctx, 64, &scene, &s.config), OP_OK);
    op_bake_result r;
    assert_int_equal(op_bake_scene(&ctx, &scene, &s, &r), OP_OK);
    const uint32_t n = r.chf.span_count;
    watch();
    const uint64_t d[5] = {op_digest_chf(&r.chf), op_digest_distance(r.dist, n),
                           op_digest_regions(r.region, n, r.region_count),
                           op_digest_contours(&r.contours),
                           op_digest_bytes(r.dist, (size_t)n * sizeof *r.dist)};
    op_digest_stream ds;
    op_digest_begin(&ds);
    op_digest_put(&ds, r.dist, (size_t)n * sizeof *r.dist);
    const uint64_t streamed = op_digest_end(&ds);
    assert_int_equal(unwatch(), 0);
    assert_true(d[0] == r.digest_spans && d[1] == r.digest_distance);
    assert_true(d[2] == r.digest_regions && d[3] == r.digest_contours);
    assert_true(d[4] != 0 && streamed == d[4]);
    op_bake_result_free(&r);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
#endif
}

/* The first allocation of a bake fails: OP_NO_MEMORY with a message, nothing leaks. */
static void test_failing_allocator_reports_no_memory(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), OP_OK);
    op_scene scene;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    assert_int_equal(op_demo_world(&ctx, 64, &scene, &s.config), OP_OK);
    const uint64_t before = ta.allocs;
    ta.fail_at = before + 1;
    ctx.err[0] = 0;
    op_bake_result r;
    assert_int_equal(op_bake_scene(&ctx, &scene, &s, &r), OP_NO_MEMORY);
    assert_true(ctx.err[0] != 0);
    assert_int_equal(ta.failed, 1);
    op_bake_result_free(&r);
    op_scene_free(&scene);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_allocator_is_the_c_library),
        cmocka_unit_test(test_demo_bake_allocates_through_the_hook),
        cmocka_unit_test(test_loaders_and_writers_allocate_through_the_hook),
        cmocka_unit_test(test_zeroed_results_free_harmlessly),
        cmocka_unit_test(test_result_keeps_its_allocator),
        cmocka_unit_test(test_failing_allocator_reports_no_memory),
        cmocka_unit_test(test_digests_do_not_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
