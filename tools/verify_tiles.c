/* onepath verify, tiled part (supplement §2, §5): the tiled bake gives the same bytes for
 * 1, 2, 3 and 8 threads (and --threads N), every tile keeps the region and contour
 * invariants, and every tile's owned cells hold exactly the solo bake's spans. */
#include "cli.h"
#include "cli_verify.h"

#include <string.h>

/* Per-tile invariants on a result baked with keep_fields (vertices back in window cells
 * for the checkers, then forward again). Returns failures; the first is described. */
static int check_tiles(op_ctx *ctx, const op_bake_settings *s, op_tiled_result *r,
                       char *why, size_t n)
{
    int failures = 0;
    for (uint32_t i = 0; i < r->tile_count; i++) {
        op_tile *t = &r->tiles[i];
        op_contour_set *cs = &t->contours;
        for (size_t v = 0; v < cs->vert_storage_count; v++) {
            cs->vert_storage[v].x -= t->x0;
            cs->vert_storage[v].z -= t->z0;
        }
        /* Layers tiles are layer-first: checked as a non-layers partition without
         * merging (regions.h, op_check_regions). */
        op_region_settings rs = s->regions;
        if (rs.partition == OP_PARTITION_LAYERS) {
            rs.partition = OP_PARTITION_MONOTONE;
            rs.merge_region_area = 0;
        }
        op_status st = op_check_regions(ctx, &t->chf, &rs, t->region, t->region_count, 1, NULL);
        const char *what = "REGION";
        if (st == OP_OK) {
            op_contour_settings c = s->contours;
            c.border_region = r->border_size ? OP_BORDER_REGION : 0;
            st = op_check_contours(ctx, &t->chf, t->region, t->region_count, &c, cs, NULL);
            what = "CONTOUR";
        }
        for (size_t v = 0; v < cs->vert_storage_count; v++) {
            cs->vert_storage[v].x += t->x0;
            cs->vert_storage[v].z += t->z0;
        }
        if (st != OP_OK && failures++ == 0)
            snprintf(why, n, "%s INVARIANT in tile (%u, %u): %s", what, t->tx, t->tz, ctx->err);
    }
    return failures;
}

/* Owned cells of every tile against the same world cells of the solo field. */
static int compare_owned(const op_chf *solo, const op_tiled_result *r, char *why, size_t n)
{
    int failures = 0;
    for (uint32_t i = 0; i < r->tile_count; i++) {
        const op_tile *t = &r->tiles[i];
        const uint32_t gx = t->tx * r->tile_size, gz = t->tz * r->tile_size;
        const uint32_t w = solo->width - gx < r->tile_size ? solo->width - gx : r->tile_size;
        const uint32_t d = solo->depth - gz < r->tile_size ? solo->depth - gz : r->tile_size;
        if (op_digest_chf_cells(solo, gx, gz, w, d) != t->digest_owned && failures++ == 0)
            snprintf(why, n, "tile (%u, %u): owned cells differ from the solo bake's", t->tx,
                     t->tz);
    }
    return failures;
}

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
                const int inv = check_tiles(ctx, &s, &r, why, sizeof why);
                const int own = inv ? 0 : compare_owned(&solo, &r, why, sizeof why);
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
