/* Distance field (supplement §1.6, regions-contours §1) against a brute-force
 * Bellman-Ford over an explicit edge list on random multi-floor fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "util/testutil.h"


static void test_distance_random(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 5 + (uint32_t)(seed % 23), 4 + (uint32_t)(seed % 19));
        o.hole_percent = (uint32_t)(seed % 5);
        o.empty_percent = (uint32_t)(seed % 7);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        uint32_t n = chf.span_count ? chf.span_count : 1;
        uint32_t *a = malloc(n * 4), *b = malloc(n * 4);
        assert_int_equal(ctx.k->distance.field(&chf, chf.area, a, &ctx.arena), 0);
        op_test_brute_distance(&chf, b);
        for (uint32_t s = 0; s < chf.span_count; s++) {
            if (a[s] != b[s])
                fail_msg("seed %llu span %u: kernel %u brute %u", (unsigned long long)seed, s,
                         a[s], b[s]);
        }
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
