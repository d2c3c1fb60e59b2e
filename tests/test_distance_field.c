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

static void brute_distance(const op_chf *chf, uint32_t *dist)
{
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++) {
        int b = chf->area[s] == 0 || chf->mutual[s] != 0xf;
        for (int d = 0; d < 4 && !b; d++)
            b = chf->area[chf->link[d][s]] == 0;
        dist[s] = b ? 0 : UINT32_MAX;
    }
    /* Relax every edge until nothing changes. Edges: orthogonal mutual (2); diagonal by
     * either order of two mutual steps (3). */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (dist[s] == UINT32_MAX)
                continue;
            for (int d = 0; d < 4; d++) {
                if (!(chf->mutual[s] >> d & 1))
                    continue;
                uint32_t t = chf->link[d][s];
                if (dist[s] + 2 < dist[t]) {
                    dist[t] = dist[s] + 2;
                    changed = 1;
                }
                for (int e = 0; e < 4; e++) {
                    if (e == d || e == ((d + 2) & 3) || !(chf->mutual[t] >> e & 1))
                        continue;
                    uint32_t u = chf->link[e][t];
                    if (dist[s] + 3 < dist[u]) {
                        dist[u] = dist[s] + 3;
                        changed = 1;
                    }
                }
            }
        }
    }
}

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
        assert_int_equal(ctx.k->distance_field(&chf, chf.area, a, &ctx.arena), 0);
        brute_distance(&chf, b);
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
