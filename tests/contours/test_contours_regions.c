/* Contours on the real partitions (op_build_regions: watershed, monotone, layers, with
 * and without a tile border band): every §6 promise through op_check_contours. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "onepath/regions.h"
#include "contours/test_contours_util.h"

static void test_partitions(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    uint64_t contours = 0, band = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 40 + (uint32_t)(seed * 3 % 30), 35 + (uint32_t)(seed % 25));
        o.area_count = 1 + (uint32_t)(seed % 2);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = seed % 3 == 0 ? 4 : 0;
        uint32_t *region = malloc(chf.span_count * sizeof *region), rc = 0;
        for (int p = 0; p < 3; p++) {
            op_region_settings rs;
            op_region_settings_defaults(&rs);
            rs.partition = (op_partition)p;
            rs.min_region_area = 4;
            rs.merge_region_area = 20;
            if (op_build_regions(&ctx, &chf, &rs, NULL, region, &rc) != OP_OK)
                fail_msg("regions: %s", op_ctx_error(&ctx));
            op_contour_settings st;
            op_contour_settings_defaults(&st);
            st.keep_raw = 1;
            if (chf.border_size)
                st.border_region = OP_BORDER_REGION;
            for (int v = 0; v < 2; v++) {
                if (v)
                    st.max_error = 0;
                op_contour_set set;
                if (op_build_contours(&ctx, &chf, region, rc, &st, &set) != OP_OK)
                    fail_msg("seed %llu partition %d: %s", (unsigned long long)seed, p,
                             op_ctx_error(&ctx));
                op_contour_report rep;
                if (op_check_contours(&ctx, &chf, region, rc, &st, &set, &rep) != OP_OK)
                    fail_msg("seed %llu partition %d: %s", (unsigned long long)seed, p,
                             rep.first_failures);
                contours += set.count;
                for (uint32_t i = 0; i < set.count; i++)
                    for (uint32_t j = 0; j < set.contours[i].vert_count; j++)
                        band += set.contours[i].verts[j].neighbour == OP_BORDER_REGION;
                op_contour_set_free(&set);
            }
        }
        free(region);
        op_chf_free(&chf);
    }
    printf("contours %llu, band vertices %llu\n", (unsigned long long)contours,
           (unsigned long long)band);
    assert_true(contours > 100);
    assert_true(band > 0);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
