/* op_build_distance_field's max_dist (op_regions_u32_max, src/regions/distance.c: eight
 * lanes the compiler vectorizes, then a tail): every length 0..80 with the largest value
 * at every position, values with the top bit set (a signed compare would lose them),
 * ties, all zero. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "regions/regions_internal.h"

static uint32_t plain_max(const uint32_t *v, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static void test_u32_max(void **state)
{
    (void)state;
    uint32_t v[80] = {0};
    static const uint32_t top[] = {5, 9, 0x7fffffffu, 0x80000000u, 0xffffffffu};
    for (uint32_t n = 0; n <= 80; n++) {
        for (uint32_t i = 0; i < n; i++)
            v[i] = (i * 2654435761u) >> 30; /* 0..3, below every top */
        assert_int_equal(op_regions_u32_max(v, n), plain_max(v, n));
        for (uint32_t at = 0; at < n; at++)
            for (size_t k = 0; k < sizeof top / sizeof top[0]; k++) {
                const uint32_t keep = v[at];
                v[at] = top[k];
                assert_int_equal(op_regions_u32_max(v, n), top[k]);
                v[at] = keep;
            }
    }
    memset(v, 0, sizeof v);
    assert_int_equal(op_regions_u32_max(v, 80), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
