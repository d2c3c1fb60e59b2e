/* The tiled bake (supplement §2, issue 11): the same bytes for 1, 2, 3, 8 and 16
 * threads on the demo world and random meshes, every partition (with more threads than
 * tiles, the spare threads inside the tiles' grids); owned cells equal the
 * solo bake's; assembly in (tz, tx) order with empty tiles present; contour vertices in
 * world cells; tile sizes that do not divide the grid, T = 1, B = 0; the smallest failing
 * tile is the one reported; every allocation failure is a status and leaks nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testalloc.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static const int THREADS[] = {1, 2, 3, 8, 16};
#define NTHREADS (sizeof THREADS / sizeof THREADS[0])

static void tiled(const op_scene *s, const op_bake_settings *bs, int threads, int keep,
                  op_tiled_result *r)
{
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = threads;
    o.keep_regions = keep;
    o.keep_fields = keep;
    o.owned_digest = 1;
    const op_status st = op_bake_tiled(&g_ctx, s, bs, &o, r);
    if (st != OP_OK)
        fail_msg("tiled bake (%d threads): %s", threads, op_ctx_error(&g_ctx));
}

/* Same digest and same per-tile digests for every thread count; returns the compact
 * spans of all windows. */
static uint64_t same_for_all_threads(const op_scene *s, const op_bake_settings *bs)
{
    op_tiled_result ref;
    tiled(s, bs, THREADS[0], 0, &ref);
    assert_int_equal(ref.threads, 1);
    for (size_t k = 1; k < NTHREADS; k++) {
        op_tiled_result r;
        tiled(s, bs, THREADS[k], 0, &r);
        const int want = !op_tiled_parallel() ? 1
                         : THREADS[k] < (int)r.tile_count ? THREADS[k] : (int)r.tile_count;
        assert_int_equal(r.threads, want);
        /* More threads than tiles: the spare ones go inside the tiles' grids. */
        const int inner = !op_tiled_parallel() || THREADS[k] <= (int)r.tile_count
                              ? 1
                              : THREADS[k] / (int)r.tile_count;
        assert_int_equal(r.tile_threads, inner);
        assert_int_equal(r.tile_count, ref.tile_count);
        for (uint32_t i = 0; i < r.tile_count; i++) {
            assert_int_equal(r.tiles[i].digest_spans, ref.tiles[i].digest_spans);
            assert_int_equal(r.tiles[i].digest_regions, ref.tiles[i].digest_regions);
            assert_int_equal(r.tiles[i].digest_contours, ref.tiles[i].digest_contours);
        }
        assert_int_equal(r.digest, ref.digest);
        assert_int_equal(r.spans, ref.spans);
        op_tiled_result_free(&r);
    }
    const uint64_t spans = ref.spans;
    op_tiled_result_free(&ref);
    return spans;
}

static void test_threads_demo(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 512, &s, &bs.config), OP_OK);
    bs.config.tile_size = 64; /* 64 tiles: more than 16 threads */
    for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
        bs.regions.partition = (op_partition)p;
        assert_true(same_for_all_threads(&s, &bs) > 100000);
    }
    op_scene_free(&s);
}

static void test_threads_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed * 104729, 90, 60), OP_OK);
        bs.regions.min_region_area = 8;
        bs.regions.merge_region_area = 40;
        /* 37: 9 to 16 tiles, fewer than 16 threads; 160: one tile, threads inside it */
        const int Ts[] = {16, 37, 160};
        for (int t = 0; t < 3; t++) {
            bs.config.tile_size = Ts[t];
            bs.regions.partition = (op_partition)((seed + (uint64_t)t) % 3);
            assert_true(same_for_all_threads(&s, &bs) > 5000);
        }
        op_scene_free(&s);
    }
}

/* supplement §2 "Seam-exact tiles": with the default border the owned cells' spans,
 * links and areas equal the solo bake's; contour vertices of non-band regions lie in
 * the tile's owned square, in world cells; the per-tile invariants hold. */
static void owned_equal_solo(const op_scene *s, op_bake_settings *bs, int T, int check)
{
    op_chf solo;
    assert_int_equal(op_build_spans(&g_ctx, &bs->config, s, &solo, NULL), OP_OK);
    bs->config.tile_size = T;
    op_tiled_result r;
    tiled(s, bs, 3, check, &r);
    assert_int_equal(r.world_width, solo.width);
    assert_int_equal(r.world_depth, solo.depth);
    uint64_t owned_spans = 0;
    for (uint32_t i = 0; i < r.tile_count; i++) {
        const op_tile *t = &r.tiles[i];
        const uint32_t gx = t->tx * r.tile_size, gz = t->tz * r.tile_size;
        const uint32_t w = solo.width - gx < r.tile_size ? solo.width - gx : r.tile_size;
        const uint32_t d = solo.depth - gz < r.tile_size ? solo.depth - gz : r.tile_size;
        assert_int_equal(t->digest_owned, op_digest_chf_cells(&solo, gx, gz, w, d));
        for (uint32_t z = gz; z < gz + d; z++)
            for (uint32_t x = gx; x < gx + w; x++)
                owned_spans += op_chf_cell_count(&solo, x + z * solo.width);
        for (uint32_t c = 0; c < t->contours.count; c++) {
            const op_contour *ct = &t->contours.contours[c];
            for (uint32_t v = 0; v < ct->vert_count; v++) {
                assert_true(ct->verts[v].x >= (int32_t)gx && ct->verts[v].x <= (int32_t)(gx + w));
                assert_true(ct->verts[v].z >= (int32_t)gz && ct->verts[v].z <= (int32_t)(gz + d));
            }
        }
        if (!check)
            continue;
        /* The checkers work in the window's cells: move the vertices back and forth. */
        op_contour_set *cs = (op_contour_set *)&t->contours;
        for (size_t v = 0; v < cs->vert_storage_count; v++) {
            cs->vert_storage[v].x -= t->x0;
            cs->vert_storage[v].z -= t->z0;
        }
        assert_int_equal(t->chf.border_size, (int32_t)r.border_size);
        /* Layers tiles are layer-first (regions.h: check them as a non-layers partition
         * without merging). */
        op_region_settings rs = bs->regions;
        if (rs.partition == OP_PARTITION_LAYERS) {
            rs.partition = OP_PARTITION_MONOTONE;
            rs.merge_region_area = 0;
        }
        assert_int_equal(op_check_regions(&g_ctx, &t->chf, &rs, t->region, t->region_count, 1,
                                          NULL),
                         OP_OK);
        op_contour_settings cset = bs->contours;
        cset.border_region = r.border_size ? OP_BORDER_REGION : 0;
        cset.keep_raw = 0;
        if (op_check_contours(&g_ctx, &t->chf, t->region, t->region_count, &cset, &t->contours,
                              NULL) != OP_OK)
            fail_msg("tile (%u, %u): %s", t->tx, t->tz, op_ctx_error(&g_ctx));
        for (size_t v = 0; v < cs->vert_storage_count; v++) {
            cs->vert_storage[v].x += t->x0;
            cs->vert_storage[v].z += t->z0;
        }
        /* Kept region ids are the digested ones, laid out by the kept cell counts. */
        assert_int_equal(op_digest_regions(t->region, t->span_count, t->region_count),
                         t->digest_regions);
        uint64_t sum = 0;
        for (uint32_t c = 0; c < t->chf.width * t->chf.depth; c++) {
            assert_int_equal(t->cell_count[c], op_chf_cell_count(&t->chf, c));
            sum += t->cell_count[c];
        }
        assert_int_equal(sum, t->span_count);
    }
    /* Every solo span is owned by exactly one tile. */
    assert_int_equal(owned_spans, solo.span_count);
    assert_int_equal(r.owned_spans, solo.span_count);
    op_tiled_result_free(&r);
    op_chf_free(&solo);
}

static void test_owned_equal_solo_demo(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 512, &s, &bs.config), OP_OK);
    owned_equal_solo(&s, &bs, 128, 1);
    owned_equal_solo(&s, &bs, 100, 0); /* does not divide 512 */
    bs.regions.partition = OP_PARTITION_LAYERS;
    owned_equal_solo(&s, &bs, 96, 1);
    op_scene_free(&s);
}

static void test_owned_equal_solo_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed * 31337, 70, 50), OP_OK);
        bs.regions.min_region_area = 8;
        bs.regions.merge_region_area = 40;
        bs.regions.partition = (op_partition)(seed % 3);
        owned_equal_solo(&s, &bs, 23, 1);
        op_scene_free(&s);
    }
}

/* Tiles in (tz, tx) order; a tile with no geometry is present and empty. */
static void test_assembly_empty_tiles(void **state)
{
    (void)state;
    op_scene s;
    op_scene_init(&s);
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    /* A 6 x 6 m floor in one corner of a 30 x 20 m world. */
    const float q[4][3] = {{1, 0, 1}, {1, 0, 7}, {7, 0, 7}, {7, 0, 1}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(op_mesh_add_vertex(&g_ctx, &s.mesh, q[i][0], q[i][1], q[i][2]), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&g_ctx, &s.mesh, 0, 1, 2), OP_OK);
    assert_int_equal(op_mesh_add_triangle(&g_ctx, &s.mesh, 0, 2, 3), OP_OK);
    bs.config.has_bounds = 1;
    const float bmin[3] = {0, -1, 0}, bmax[3] = {30, 5, 20};
    memcpy(bs.config.bmin, bmin, sizeof bmin);
    memcpy(bs.config.bmax, bmax, sizeof bmax);
    bs.config.tile_size = 16;
    bs.regions.min_region_area = 0;
    op_tiled_result r;
    tiled(&s, &bs, 2, 0, &r);
    assert_int_equal(r.world_width, 100);
    assert_int_equal(r.world_depth, 67);
    assert_int_equal(r.tiles_x, 7);
    assert_int_equal(r.tiles_z, 5);
    assert_int_equal(r.tile_count, 35);
    uint32_t empty = 0, full = 0;
    for (uint32_t i = 0; i < r.tile_count; i++) {
        const op_tile *t = &r.tiles[i];
        assert_int_equal(t->tx, i % r.tiles_x);
        assert_int_equal(t->tz, i / r.tiles_x);
        assert_int_equal(t->x0, (int32_t)(t->tx * 16) - (int32_t)r.border_size);
        if (t->span_count == 0) {
            assert_int_equal(t->region_count, 0);
            assert_int_equal(t->contours.count, 0);
            assert_int_equal(t->triangles, 0);
            empty++;
        } else {
            full++;
        }
    }
    /* The floor covers cells 3..23 in x and z: tiles (0..1, 0..1) hold spans. */
    assert_int_equal(full, 4);
    assert_int_equal(empty, 31);
    assert_int_equal(r.reached, OP_STAGE_CONTOURS);
    assert_true(r.contours >= 1);
    op_tiled_result_free(&r);
    op_scene_free(&s);
}

/* T = 1 (every cell its own tile), B = 0 with walkable_radius 0, and --until stages:
 * thread counts agree. */
static void test_small_tiles(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 77, 30, 10), OP_OK);
    bs.regions.min_region_area = 0;
    bs.regions.merge_region_area = 0;
    bs.config.tile_size = 1;
    assert_true(same_for_all_threads(&s, &bs) > 1000);
    bs.config.walkable_radius = 0;
    bs.config.border_size = 0;
    /* A 1 x 1 grid: every neighbour is off the grid, every span a ledge (supplement
     * §1.4.2), so no compact span is left. */
    assert_int_equal(same_for_all_threads(&s, &bs), 0);
    bs.config.tile_size = 7;
    assert_true(same_for_all_threads(&s, &bs) > 500);
    op_tiled_result r;
    tiled(&s, &bs, 2, 0, &r);
    assert_int_equal(r.border_size, 0);
    op_tiled_result_free(&r);
    bs.until = OP_STAGE_SPANS;
    assert_true(same_for_all_threads(&s, &bs) > 500);
    bs.until = OP_STAGE_REGIONS;
    assert_true(same_for_all_threads(&s, &bs) > 500);
    op_scene_free(&s);
}

/* Bad settings are errors with a message. */
static void test_bad_settings(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 5, 30, 10), OP_OK);
    op_tiled_result r;
    bs.config.tile_size = 0;
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, NULL, &r), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "tile_size"));
    op_tiled_result_free(&r);
    bs.config.tile_size = 40000;
    bs.config.border_size = 20000;
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, NULL, &r), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "window"));
    bs.config.tile_size = 8;
    bs.config.border_size = -1;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = -2;
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, &o, &r), OP_INVALID_ARGUMENT);
    /* A bad volume far from every tile is refused all the same (as the solo bake does). */
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_CYLINDER;
    v.center[0] = v.center[1] = 1e6f;
    v.radius = -1.0f;
    assert_int_equal(op_scene_add_volume(&g_ctx, &s, &v), OP_OK);
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, NULL, &r), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "volume 6"));
    s.volume_count--;
    s.mesh.verts[4] = 1.0f / 0.0f;
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, NULL, &r), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "vertex 1 "));
    op_scene_free(&s);
}

/* An allocator that refuses blocks of two given sizes (thread-safe: no state). */
static size_t g_fail_size[2];
static void *fail_malloc(void *u, size_t n)
{
    (void)u;
    return n == g_fail_size[0] || n == g_fail_size[1] ? NULL : malloc(n);
}
static void *fail_realloc(void *u, void *p, size_t n)
{
    (void)u;
    return n == g_fail_size[0] || n == g_fail_size[1] ? NULL : realloc(p, n);
}
static void fail_free(void *u, void *p)
{
    (void)u;
    free(p);
}

/* Two tiles fail (their region arrays cannot be allocated); whatever the thread count
 * and schedule, the one with the smaller (tz, tx) is reported. */
static void test_smallest_failing_tile(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&g_ctx, 512, &s, &bs.config), OP_OK);
    bs.config.tile_size = 64;
    op_tiled_result r;
    tiled(&s, &bs, 1, 0, &r);
    /* Two tiles with span counts no other tile has; the earlier one fails first in
     * index order, the later one is the larger (scheduled earlier). */
    uint32_t a = UINT32_MAX, b = UINT32_MAX;
    for (uint32_t i = 0; i < r.tile_count && b == UINT32_MAX; i++) {
        int unique = r.tiles[i].span_count > 1000;
        for (uint32_t j = 0; j < r.tile_count && unique; j++)
            unique = j == i || r.tiles[j].span_count != r.tiles[i].span_count;
        if (!unique)
            continue;
        if (a == UINT32_MAX)
            a = i;
        else if (i > a + 20)
            b = i;
    }
    assert_true(a != UINT32_MAX && b != UINT32_MAX);
    g_fail_size[0] = (size_t)r.tiles[a].span_count * 4;
    g_fail_size[1] = (size_t)r.tiles[b].span_count * 4;
    char want[64];
    snprintf(want, sizeof want, "tile (%u, %u): ", a % r.tiles_x, a / r.tiles_x);
    op_tiled_result_free(&r);

    const op_allocator al = {fail_malloc, fail_realloc, fail_free, NULL};
    op_ctx ctx;
    assert_int_equal(op_ctx_init_with_allocator(&ctx, OP_ISA_AUTO, &al), OP_OK);
    for (size_t k = 0; k < NTHREADS; k++)
        for (int rep = 0; rep < 2; rep++) {
            op_tiled_options o;
            op_tiled_options_defaults(&o);
            o.threads = THREADS[k];
            o.keep_regions = 1; /* region ids on the heap: the refused size */
            assert_int_equal(op_bake_tiled(&ctx, &s, &bs, &o, &r), OP_NO_MEMORY);
            if (strncmp(op_ctx_error(&ctx), want, strlen(want)))
                fail_msg("%d threads: '%s', want '%s...'", THREADS[k], op_ctx_error(&ctx), want);
            assert_null(r.tiles);
            op_tiled_result_free(&r);
        }
    op_ctx_free(&ctx);
    op_scene_free(&s);
}

static void count_progress(void *user, const op_tile_progress *p)
{
    *(uint32_t *)user = p->tiles_done;
}

/* Every allocation of a small tiled bake, failed in turn (one thread, so the order is
 * fixed), gives OP_NO_MEMORY with a message and leaks nothing. */
static void test_every_allocation_fails(void **state)
{
    (void)state;
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 9, 24, 4), OP_OK);
    bs.config.tile_size = 12;
    bs.regions.min_region_area = 4;
    uint32_t reports = 0;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    o.keep_regions = 1;
    o.progress = count_progress; /* its slots are an allocation too */
    o.progress_user = &reports;
    uint64_t total = 0, digest = 0;
    for (uint64_t n = 0;; n++) {
        op_test_alloc ta;
        op_test_alloc_init(&ta);
        ta.fail_at = n;
        op_ctx ctx;
        op_tiled_result r;
        memset(&r, 0, sizeof r);
        /* the context's own kernel table is allocation 1 */
        op_status st = op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO);
        if (st == OP_OK)
            st = op_bake_tiled(&ctx, &s, &bs, &o, &r);
        if (n == 0) {
            assert_int_equal(st, OP_OK);
            total = ta.allocs;
            digest = r.digest;
            assert_int_equal(reports, r.tile_count);
        } else if (n <= total) {
            if (st == OP_OK) /* an allocation with a fallback (none expected) */
                assert_int_equal(r.digest, digest);
            else {
                assert_int_equal(st, OP_NO_MEMORY);
                assert_true(strlen(op_ctx_error(&ctx)) > 0);
            }
        }
        op_tiled_result_free(&r);
        op_ctx_free(&ctx);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.bad_frees, 0);
        if (n >= total)
            break;
    }
    assert_true(total > 50);
    op_scene_free(&s);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    /* ci/tiles.sh runs a few of these under ThreadSanitizer (OP_TEST_FILTER=pattern). */
    const char *filter = getenv("OP_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assembly_empty_tiles),
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_small_tiles),
        cmocka_unit_test(test_threads_random),
        cmocka_unit_test(test_threads_demo),
        cmocka_unit_test(test_owned_equal_solo_random),
        cmocka_unit_test(test_owned_equal_solo_demo),
        cmocka_unit_test(test_smallest_failing_tile),
        cmocka_unit_test(test_every_allocation_fails),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
