/* Golden digests of the hash-matrix scenarios (supplement §5, regions-contours §8) on the
 * demo world at a fixed small size, for every kernel variant this machine runs (and, in
 * the cross build, under qemu on AArch64): the same bytes everywhere.
 * Each bake also passes op_check_regions and op_check_contours.
 * To re-pin after an intended change: OP_GOLDEN_PRINT=1 ./test_golden prints the table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"

#define GOLDEN_SIZE 256

typedef struct golden {
    const char *scenario;
    const char *digest;
} golden;

/* Pinned on x86-64 (scalar reference); every variant and AArch64 must match. */
static const golden GOLDEN[] = {
    {"build3d/spans", "cd7da0e1ddaaf20c"},
    {"build3d/regions-watershed", "7acc979f4b92767c"},
    {"build3d/regions-monotone", "5acd089c901a38fb"},
    {"build3d/regions-layers", "fcd989b2d25e19fd"},
    {"build3d/contours", "40591c00f719f451"},
    {"build3d/regions-contours-terrain", "a096229e7f82e672"},
};

static const char *pinned(const char *scenario)
{
    for (size_t i = 0; i < sizeof GOLDEN / sizeof GOLDEN[0]; i++)
        if (!strcmp(GOLDEN[i].scenario, scenario))
            return GOLDEN[i].digest;
    return NULL;
}

static int print_mode(void)
{
    const char *e = getenv("OP_GOLDEN_PRINT");
    return e && *e == '1';
}

static int failures;

static void expect(const char *isa, const char *scenario, uint64_t digest)
{
    char h[17];
    op_digest_hex(digest, h);
    if (print_mode()) {
        printf("    {\"%s\", \"%s\"}, /* %s */\n", scenario, h, isa);
        return;
    }
    const char *want = pinned(scenario);
    if (!want || strcmp(want, h)) {
        printf("MISMATCH %s on %s: got %s, pinned %s\n", scenario, isa, h, want ? want : "(none)");
        failures++;
    }
}

/* build3d/regions-contours-terrain: regions and contours of the terrain-only world,
 * combined as XXH3-64 over the two digests, little-endian (docs/formats.md). */
static uint64_t combine(uint64_t a, uint64_t b)
{
    unsigned char buf[16];
    for (int i = 0; i < 8; i++) {
        buf[i] = (unsigned char)(a >> (8 * i));
        buf[8 + i] = (unsigned char)(b >> (8 * i));
    }
    return op_digest_bytes(buf, sizeof buf);
}

static int checked_bakes;

static void bake(op_ctx *ctx, int terrain, op_partition p, op_bake_result *r)
{
    op_scene scene;
    op_scene_init(&scene);
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = p;
    op_status st = terrain ? op_demo_terrain(ctx, GOLDEN_SIZE, &scene, &s.config)
                           : op_demo_world(ctx, GOLDEN_SIZE, &scene, &s.config);
    assert_int_equal(st, OP_OK);
    st = op_bake_scene(ctx, &scene, &s, r);
    if (st != OP_OK)
        fail_msg("bake failed: %s", ctx->err);
    op_scene_free(&scene);
    /* A pinned digest is never the only evidence (issue 10): every golden bake also
     * keeps the regions' and the contours' invariants. */
    op_region_report rrep;
    if (op_check_regions(ctx, &r->chf, &s.regions, r->region, r->region_count, 1, &rrep) != OP_OK)
        fail_msg("region invariants (%s, partition %d): %s", terrain ? "terrain" : "world",
                 (int)p, rrep.first);
    op_contour_report crep;
    if (op_check_contours(ctx, &r->chf, r->region, r->region_count, &s.contours, &r->contours,
                          &crep) != OP_OK)
        fail_msg("contour invariants (%s, partition %d): %s", terrain ? "terrain" : "world",
                 (int)p, crep.first_failures);
    assert_true(rrep.failures == 0 && crep.failures == 0);
    assert_true(crep.contours_checked == r->contours.count && crep.contours_checked > 0);
    checked_bakes++;
}

static void test_golden_all_variants(void **state)
{
    (void)state;
    int ran = 0;
    for (int v = 0; v < OP_ISA_COUNT; v++) {
        if (!op_isa_available((op_isa)v))
            continue;
        if (print_mode() && v != OP_ISA_SCALAR)
            continue;
        op_ctx ctx;
        assert_int_equal(op_ctx_init(&ctx, (op_isa)v), OP_OK);
        const char *isa = op_isa_name((op_isa)v);
        static const struct {
            op_partition p;
            const char *name;
        } parts[] = {{OP_PARTITION_WATERSHED, "build3d/regions-watershed"},
                     {OP_PARTITION_MONOTONE, "build3d/regions-monotone"},
                     {OP_PARTITION_LAYERS, "build3d/regions-layers"}};
        for (size_t i = 0; i < 3; i++) {
            op_bake_result r;
            bake(&ctx, 0, parts[i].p, &r);
            if (i == 0) {
                expect(isa, "build3d/spans", r.digest_spans);
                expect(isa, "build3d/contours", r.digest_contours);
            }
            expect(isa, parts[i].name, r.digest_regions);
            op_bake_result_free(&r);
        }
        op_bake_result r;
        bake(&ctx, 1, OP_PARTITION_WATERSHED, &r);
        expect(isa, "build3d/regions-contours-terrain", combine(r.digest_regions, r.digest_contours));
        op_bake_result_free(&r);
        printf("variant %s: checked\n", isa);
        ran++;
        op_ctx_free(&ctx);
    }
    assert_true(ran >= 1);
    assert_int_equal(checked_bakes, 4 * ran);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_all_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
