/* A property test over tiled bakes (supplement §2, §5): random scenes (seeded, so every
 * run is the same), tile sizes of 16, 32, 64, 96 and 128 cells (the larger tiles' windows
 * hold several 4096-span kernel chunks), every partition. For each combination:
 *   - the 1-thread bake with the scalar kernels keeps the region invariants (every region
 *     connected, islands removed and small regions merged per the §5 filter) and the
 *     contour invariants in every tile, and every tile's owned cells equal the solo
 *     field's: the checks of `onepath verify` (tools/tile_check.c, the same code);
 *   - every kernel variant this CPU runs on 1, 2, 3 and 8 threads gives the same
 *     build3d/tiles digest and the same digests per tile: all of them for the first
 *     scene at tile sizes 32 and 96, else one variant and thread count drawn per
 *     combination from the scene's seed.
 * Why 24 scenes: the numbering across chunks (fixed in c547a23) broke a region only where
 * a raw id at a chunk's first span equalled the number given to the span before. With
 * that fix undone, 5 of these scenes fail (scenes 5, 9, 14, 17, 20; tiles of 96 and 128;
 * watershed and monotone), none of the first four; of 32 scenes 7 (also 27 and 29, at
 * 64 and 128).
 * ONEPATH_PROPERTY_SEEDS=N runs N scenes instead (a longer soak). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "tile_check.h"
#include "util/testscene.h"

static const int TILE_SIZES[] = {16, 32, 64, 96, 128};
static const int THREADS[] = {1, 2, 3, 8};
#define NTILE (sizeof TILE_SIZES / sizeof TILE_SIZES[0])
#define NTHREADS (sizeof THREADS / sizeof THREADS[0])
#define CHUNK 4096u /* the region kernels' chunk of spans (src/regions/region_graph.c) */

static op_ctx g_ctx;
static unsigned long g_bakes, g_big_tiles, g_tiles;

static void bake(const op_scene *s, const op_bake_settings *bs, op_isa isa, int threads,
                 int keep, op_tiled_result *r)
{
    if (op_ctx_set_isa(&g_ctx, isa) != OP_OK)
        fail_msg("variant %s: %s", op_isa_name(isa), op_ctx_error(&g_ctx));
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = threads;
    o.keep_fields = o.keep_regions = keep;
    o.owned_digest = keep;
    if (op_bake_tiled(&g_ctx, s, bs, &o, r) != OP_OK)
        fail_msg("tiled bake (T %d, %s, %s, %d threads): %s", bs->config.tile_size,
                 op_partition_name(bs->regions.partition), op_isa_name(isa), threads,
                 op_ctx_error(&g_ctx));
    g_bakes++;
}

/* The tile whose digests differ between a and b (tile_count when none does). */
static uint32_t first_differing_tile(const op_tiled_result *a, const op_tiled_result *b)
{
    for (uint32_t i = 0; i < a->tile_count; i++) {
        const op_tile *x = &a->tiles[i], *y = &b->tiles[i];
        if (x->digest_spans != y->digest_spans || x->digest_distance != y->digest_distance ||
            x->digest_regions != y->digest_regions || x->digest_contours != y->digest_contours)
            return i;
    }
    return a->tile_count;
}

/* The variants this CPU runs, scalar first. */
static int g_nvar;
static op_isa g_var[OP_ISA_COUNT];

/* One scene, tile size and partition: the reference's invariants, then the variants and
 * thread counts against it (all of them with cross, else the one drawn with draw). */
static void check_combination(const op_scene *s, op_bake_settings bs, const op_chf *solo,
                              int scene, int cross, uint64_t draw)
{
    op_tiled_result ref;
    bake(s, &bs, OP_ISA_SCALAR, 1, 1, &ref);
    char why[600] = "";
    int bad = cli_check_tiles(&g_ctx, &bs, &ref, why, sizeof why);
    if (!bad)
        bad = cli_compare_owned(solo, &ref, why, sizeof why);
    if (bad)
        fail_msg("scene %d, T %d, %s: %d failure(s): %s", scene, bs.config.tile_size, op_partition_name(bs.regions.partition), bad, why);
    for (uint32_t i = 0; i < ref.tile_count; i++) {
        g_tiles++;
        g_big_tiles += ref.tiles[i].span_count > CHUNK;
    }
    for (int v = 0; v < g_nvar; v++) {
        for (size_t k = 0; k < NTHREADS; k++) {
            if (v == 0 && k == 0)
                continue; /* the reference */
            if (!cross && 1 + draw % ((uint64_t)g_nvar * NTHREADS - 1) != (uint64_t)v * NTHREADS + k)
                continue; /* not the drawn pair (drawn from all but the reference) */
            op_tiled_result r;
            bake(s, &bs, g_var[v], THREADS[k], 0, &r);
            assert_int_equal(r.tile_count, ref.tile_count);
            const uint32_t i = first_differing_tile(&ref, &r);
            if (r.digest != ref.digest || i < ref.tile_count)
                fail_msg("scene %d, T %d, %s: %s on %d threads differs from scalar on 1 "
                         "(first in tile %u of %u)",
                         scene, bs.config.tile_size,
                         op_partition_name(bs.regions.partition), op_isa_name(g_var[v]),
                         THREADS[k], i, ref.tile_count);
            op_tiled_result_free(&r);
        }
    }
    op_tiled_result_free(&ref);
}

static void test_tiled_property(void **state)
{
    (void)state;
    const char *env = getenv("ONEPATH_PROPERTY_SEEDS");
    const int seeds = env && atoi(env) > 0 ? atoi(env) : 24;
    for (int v = 0; v < OP_ISA_COUNT; v++)
        if (op_isa_available((op_isa)v))
            g_var[g_nvar++] = (op_isa)v; /* enum order: scalar first */
    assert_true(g_nvar >= 1 && g_var[0] == OP_ISA_SCALAR);
    for (int k = 1; k <= seeds; k++) {
        const uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)k;
        op_scene s;
        op_bake_settings bs;
        op_bake_settings_defaults(&bs);
        /* 150 to 209 cells a side: tiles of 128 hold a partial tile at every far edge. */
        assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed, 150, 60), OP_OK);
        bs.until = OP_STAGE_CONTOURS;
        bs.contours.keep_raw = 1; /* the contour checker reads raw loops */
        if (k % 2 == 0) {
            /* More and smaller regions than the defaults (64, 400). */
            bs.regions.min_region_area = 8;
            bs.regions.merge_region_area = 40;
        }
        op_chf solo;
        assert_int_equal(op_build_spans(&g_ctx, &bs.config, &s, &solo, NULL), OP_OK);
        for (size_t t = 0; t < NTILE; t++) {
            bs.config.tile_size = TILE_SIZES[t];
            for (int p = 0; p <= (int)OP_PARTITION_LAYERS; p++) {
                bs.regions.partition = (op_partition)p;
                const uint64_t draw = (seed >> 7) + t * 3u + (uint64_t)p;
                check_combination(&s, bs, &solo, k, k == 1 && t % 2 == 1, draw);
            }
        }
        op_chf_free(&solo);
        op_scene_free(&s);
    }
    print_message("%d scenes, %d variants: %lu tiled bakes, %lu reference tiles checked (%lu "
                  "past one %u-span chunk)\n",
                  seeds, g_nvar, g_bakes, g_tiles, g_big_tiles, CHUNK);
    /* The property must reach past a chunk, or it tests nothing about chunks. */
    assert_true(g_big_tiles >= (unsigned long)seeds);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_SCALAR) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tiled_property)};
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
