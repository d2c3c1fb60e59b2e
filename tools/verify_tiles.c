/* onepath verify, tiled part (supplement §2, §5): the tiled bake gives the same bytes for
 * 1, 2, 3 and 8 threads (and --threads N), every tile keeps the region and contour
 * invariants, and every tile's owned cells hold exactly the solo bake's spans. */
#include "cli.h"
#include "cli_verify.h"
#include "tile_check.h"

#include <string.h>

int cli_verify_tiles(op_ctx *ctx, const cli_args *a, const op_partition *parts, int nparts)
{
    op_bake_settings s = a->s;
    s.until = OP_STAGE_CONTOURS;
    s.contours.keep_raw = 1; /* the contour checker reads raw loops */
    if (s.config.tile_size <= 0)
        s.config.tile_size = CLI_VERIFY_TILE_SIZE;
    int threads[5] = {1, 2, 3, 8, 0}, nthreads = 4;
    if (a->threads > 0 && a->threads != 1 && a->threads != 2 && a->threads != 3 &&
        a->threads != 8)
        threads[nthreads++] = a->threads;

    op_scene scene;
    op_status st = cli_load_scene(ctx, &a->in, &scene, &s.config);
    op_chf solo;
    memset(&solo, 0, sizeof solo);
    if (st == OP_OK)
        st = op_build_spans(ctx, &s.config, &scene, &solo, NULL);
    if (st != OP_OK) {
        op_scene_free(&scene);
        return -cli_fail("verify", ctx, st);
    }
    printf("\ntiles of %d cells (border %s), threads", s.config.tile_size,
           s.config.border_size < 0 ? "walkable radius + 3" : "as given");
    for (int k = 0; k < nthreads; k++)
        printf(" %d", threads[k]);
    printf("%s:\n", op_tiled_parallel() ? "" : " (this build has no OpenMP: one thread each)");
    printf("%-10s %-8s %-16s %s\n", "partition", "threads", "build3d/tiles", "result");
    int failures = 0;
    for (int p = 0; p < nparts; p++) {
        s.regions.partition = parts[p];
        uint64_t ref = 0;
        for (int k = 0; k < nthreads; k++) {
            op_tiled_options o;
            op_tiled_options_defaults(&o);
            o.threads = threads[k];
            o.keep_fields = o.keep_regions = k == 0; /* the reference is checked */
            o.owned_digest = k == 0;                 /* against the solo field */
            op_tiled_result r;
            st = op_bake_tiled(ctx, &scene, &s, &o, &r);
            if (st != OP_OK) {
                op_tiled_result_free(&r);
                op_chf_free(&solo);
                op_scene_free(&scene);
                return -cli_fail("verify", ctx, st);
            }
            char verdict[700] = "";
            if (k == 0) {
                char why[600] = "";
                const int inv = cli_check_tiles(ctx, &s, &r, why, sizeof why);
                const int own = inv ? 0 : cli_compare_owned(&solo, &r, why, sizeof why);
                failures += inv + own;
                if (inv || own)
                    snprintf(verdict, sizeof verdict, "%s", why);
                else
                    snprintf(verdict, sizeof verdict,
                             "reference: %u tiles keep the invariants, owned cells equal the "
                             "solo bake's",
                             r.tile_count);
                ref = r.digest;
            } else if (r.digest != ref) {
                snprintf(verdict, sizeof verdict, "DIFFERS from 1 thread");
                failures++;
            } else {
                snprintf(verdict, sizeof verdict, "same as 1 thread");
            }
            char h[17];
            op_digest_hex(r.digest, h);
            printf("%-10s %-8d %s %s\n", op_partition_name(parts[p]), r.threads, h, verdict);
            fflush(stdout);
            op_tiled_result_free(&r);
        }
    }
    op_chf_free(&solo);
    op_scene_free(&scene);
    return failures;
}
