/* op_chf_walkable_count (src/core/chf.c): its SSE2 count of the area-0 spans against the
 * plain loop, on every length 0..1100 at every start offset modulo 16 (every tail),
 * lengths around its 255-round flush (255 x 16 = 4080 spans: 4079, 4080, 4081 and
 * multiples), all-zero and all-walkable arrays (a lane counting 255 zeros must not
 * wrap), non-zero bytes with the top bit set (a signed compare would see them), and
 * random areas at several zero densities. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "onepath/chf.h"
#include "util/testutil.h"

#define MAXN 70000

static uint32_t plain(const uint8_t *a, uint32_t n)
{
    uint32_t w = 0;
    for (uint32_t s = 0; s < n; s++)
        w += a[s] != 0;
    return w;
}

static void check(uint8_t *a, uint32_t n)
{
    op_chf chf;
    memset(&chf, 0, sizeof chf);
    chf.area = a;
    chf.span_count = n;
    const uint32_t got = op_chf_walkable_count(&chf), want = plain(a, n);
    if (got != want)
        fail_msg("op_chf_walkable_count: %u, plain loop %u (n %u, offset %u)", got, want, n,
                 (unsigned)((uintptr_t)a & 15));
}

static void test_count(void **state)
{
    (void)state;
    uint8_t *buf = malloc(MAXN + 16);
    assert_non_null(buf);
    op_rng r = {1234};
    static const uint8_t values[] = {1, 63, 0x7f, 0x80, 0xfe, 0xff};
    for (int pct = 0; pct <= 100; pct += 25) {
        for (uint32_t i = 0; i < MAXN + 16; i++)
            buf[i] = op_rng_below(&r, 100) < (uint32_t)pct
                         ? 0
                         : values[op_rng_below(&r, sizeof values)];
        for (uint32_t n = 0; n <= 1100; n++)
            check(buf + (n & 15), n);
        static const uint32_t edge[] = {4079, 4080, 4081, 8159, 8160, 8161, 4080 * 7 + 15,
                                        MAXN};
        for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
            for (uint32_t off = 0; off < 16; off += 5)
                check(buf + off, edge[k]);
    }
    for (int v = 0; v < 3; v++) {
        memset(buf, v == 0 ? 0 : v == 1 ? 0x80 : 1, MAXN + 16);
        for (uint32_t n = 4000; n < 4200; n++)
            check(buf + (n & 15), n);
        check(buf, MAXN);
        check(buf + 7, MAXN);
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
