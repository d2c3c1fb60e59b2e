/* onepath verify, threads inside one grid (issue 11): the solo bake with 2, 3 and 8
 * threads (and --threads N) gives the 1-thread bake's four stage digests. */
#include "cli.h"
#include "cli_verify.h"

#include <string.h>

int cli_verify_solo_threads(op_ctx *ctx, const cli_input *in, const op_bake_settings *s,
                            const op_bake_result *ref, int extra)
{
    int threads[4] = {2, 3, 8, 0}, n = 3;
    if (extra > 3 && extra != 8)
        threads[n++] = extra;
    int failures = 0;
    for (int k = 0; k < n; k++) {
        op_status st = op_ctx_set_threads(ctx, threads[k]);
        op_bake_result r;
        memset(&r, 0, sizeof r);
        if (st == OP_OK)
            st = cli_bake(ctx, in, s, &r);
        cli_progress_done();
        (void)op_ctx_set_threads(ctx, 1);
        if (st != OP_OK) {
            op_bake_result_free(&r);
            return -cli_fail("verify", ctx, st);
        }
        const uint64_t got[4] = {r.digest_spans, r.digest_distance, r.digest_regions,
                                 r.digest_contours};
        const uint64_t want[4] = {ref->digest_spans, ref->digest_distance, ref->digest_regions,
                                  ref->digest_contours};
        static const char *const stage[4] = {"spans", "distance", "regions", "contours"};
        char verdict[64] = "same as 1 thread";
        for (int i = 0; i < 4; i++)
            if (got[i] != want[i]) {
                snprintf(verdict, sizeof verdict, "DIFFERS from 1 thread at %s", stage[i]);
                failures++;
                break;
            }
        char h[4][17], who[32];
        for (int i = 0; i < 4; i++)
            op_digest_hex(got[i], h[i]);
        snprintf(who, sizeof who, "%s/%dt", op_isa_name(ctx->isa), threads[k]);
        printf("%-10s %-9s %s %s %s %s %s\n", op_partition_name(s->regions.partition), who, h[0],
               h[1], h[2], h[3], verdict);
        fflush(stdout);
        op_bake_result_free(&r);
    }
    return failures;
}
