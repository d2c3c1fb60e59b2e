/* build3d/tiles (supplement §5): the tiled bake of the demo world gives one pinned digest
 * per partition for every kernel variant this machine runs and for 1 and 3 threads, so
 * x86-64, AArch64 (the cross build runs this test under qemu) and every ISA agree.
 * To re-pin after an intended change: OP_GOLDEN_PRINT=1 ./test_tiles_golden. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"

/* demo 256, tile_size 48 (does not divide 256), default border; pinned on x86-64 scalar. */
static const char *const PINNED[3] = {
    "6626db07850036cf", /* watershed */
    "44f2a784c783ed31", /* monotone */
    /* layers: layer-first since issue 13 (regions-contours §4 "Layer-first partition":
     * layers from the geometry-only field, volumes after, no distance field), was
     * cc8016c8344211b1 (the §4 partition on the field after volumes) */
    "6ba0c27fe5857fa8", /* layers */
};

static void test_golden_tiles(void **state)
{
    (void)state;
    const char *pr = getenv("OP_GOLDEN_PRINT");
    const int print = pr && *pr == '1';
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_demo_world(&ctx, 256, &s, &bs.config), OP_OK);
    bs.config.tile_size = 48;
    int compared = 0;
    for (int p = 0; p < 3; p++) {
        bs.regions.partition = (op_partition)p;
        for (int v = 0; v < OP_ISA_COUNT; v++) {
            if (!op_isa_available((op_isa)v))
                continue;
            assert_int_equal(op_ctx_set_isa(&ctx, (op_isa)v), OP_OK);
            for (int threads = 1; threads <= 3; threads += 2) {
                op_tiled_options o;
                op_tiled_options_defaults(&o);
                o.threads = threads;
                op_tiled_result r;
                if (op_bake_tiled(&ctx, &s, &bs, &o, &r) != OP_OK)
                    fail_msg("%s: %s", op_isa_name((op_isa)v), op_ctx_error(&ctx));
                char h[17];
                op_digest_hex(r.digest, h);
                if (print && v == OP_ISA_SCALAR && threads == 1)
                    printf("    \"%s\", /* %s */\n", h, op_partition_name((op_partition)p));
                else if (!print && strcmp(h, PINNED[p]))
                    fail_msg("build3d/tiles %s on %s, %d threads: %s, pinned %s",
                             op_partition_name((op_partition)p), op_isa_name((op_isa)v), threads,
                             h, PINNED[p]);
                op_tiled_result_free(&r);
                compared++;
            }
        }
    }
    assert_true(compared >= 6); /* scalar at least, both thread counts, every partition */
    op_scene_free(&s);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden_tiles)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
