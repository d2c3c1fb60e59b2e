/* A field with a border band (border_size > 0, supplement §2, §4) bakes through every
 * partition: band spans get BorderRegion, no contour is traced for the band, and an edge
 * towards a walkable band span has neighbour value BorderRegion (issue 10, defect 3:
 * such an OPCHF1 loaded but did not bake). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "util/testutil.h"

static op_ctx g_ctx;

/* A tile window of the demo world with its band: tile (1, 1) of size T, border B. */
static void band_field(uint32_t T, uint32_t B, op_chf *out)
{
    op_scene s;
    op_config cfg;
    assert_int_equal(op_demo_world(&g_ctx, 512, &s, &cfg), OP_OK);
    const op_window w = {(int32_t)T - (int32_t)B, (int32_t)T - (int32_t)B, T + 2 * B, T + 2 * B};
    assert_int_equal(op_build_spans_window(&g_ctx, &cfg, &s, &w, NULL, 0, NULL, out, NULL),
                     OP_OK);
    out->border_size = (int32_t)B;
    op_scene_free(&s);
}

static void bake_band(op_partition p, uint32_t T, uint32_t B)
{
    op_chf chf;
    band_field(T, B, &chf);
    /* Through OPCHF1, as the tool reads it. */
    const char *path = op_test_tmp_path(".opchf");
    assert_int_equal(op_opchf_write(&g_ctx, &chf, path), OP_OK);
    op_chf_free(&chf);
    op_chf in;
    assert_int_equal(op_opchf_read(&g_ctx, path, &in), OP_OK);
    remove(path);
    assert_int_equal(in.border_size, (int32_t)B);

    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = p;
    op_bake_result r;
    op_status st = op_bake_chf(&g_ctx, &in, &s, &r);
    if (st != OP_OK)
        fail_msg("%s, T %u, B %u: %s", op_partition_name(p), T, B, op_ctx_error(&g_ctx));
    assert_int_equal(r.reached, OP_STAGE_CONTOURS);

    /* Band spans carry BorderRegion and nothing else does (the checker's rule). */
    uint32_t band = 0, walkable_band = 0;
    for (uint32_t z = 0; z < r.chf.depth; z++)
        for (uint32_t x = 0; x < r.chf.width; x++) {
            const int in_band = x < B || z < B || x >= r.chf.width - B || z >= r.chf.depth - B;
            const uint32_t c = x + z * r.chf.width;
            for (uint32_t k = 0; k < op_chf_cell_count(&r.chf, c); k++) {
                const uint32_t sp = r.chf.cell_first[c] + k;
                if (in_band && r.chf.area[sp]) {
                    assert_int_equal(r.region[sp], OP_BORDER_REGION);
                    walkable_band++;
                }
                band += r.region[sp] == OP_BORDER_REGION;
            }
        }
    assert_true(walkable_band > 0);
    assert_int_equal(band, walkable_band);
    assert_int_equal(op_check_regions(&g_ctx, &r.chf, &s.regions, r.region, r.region_count, 1,
                                      NULL),
                     OP_OK);

    /* No contour for the band; some edge faces it; the checker agrees. */
    uint32_t towards_band = 0;
    assert_true(r.contours.count > 0);
    for (uint32_t i = 0; i < r.contours.count; i++) {
        const op_contour *c = &r.contours.contours[i];
        assert_true(c->region >= 1 && c->region <= r.region_count);
        for (uint32_t v = 0; v < c->vert_count; v++)
            towards_band += c->verts[v].neighbour == OP_BORDER_REGION;
    }
    assert_true(towards_band > 0);
    op_contour_settings cs = s.contours;
    cs.border_region = OP_BORDER_REGION;
    assert_int_equal(op_check_contours(&g_ctx, &r.chf, r.region, r.region_count, &cs,
                                       &r.contours, NULL),
                     OP_OK);
    op_bake_result_free(&r);
}

static void test_watershed(void **state)
{
    (void)state;
    bake_band(OP_PARTITION_WATERSHED, 128, 5);
}

static void test_monotone(void **state)
{
    (void)state;
    bake_band(OP_PARTITION_MONOTONE, 128, 5);
}

static void test_layers(void **state)
{
    (void)state;
    bake_band(OP_PARTITION_LAYERS, 128, 5);
}

/* A wider band than the default, a tile that does not divide anything. */
static void test_wide_band(void **state)
{
    (void)state;
    bake_band(OP_PARTITION_WATERSHED, 100, 12);
    bake_band(OP_PARTITION_LAYERS, 100, 12);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watershed),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_wide_band),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
