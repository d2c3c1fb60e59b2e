/* The per-tile checks of a tiled bake (tile_check.h; supplement §2, §5). */
#include "tile_check.h"

#include <stdio.h>

int cli_check_tiles(op_ctx *ctx, const op_bake_settings *s, op_tiled_result *r, char *why,
                    size_t n)
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
            snprintf(why, n, "%s INVARIANT in tile (%u, %u): %s", what, t->tx, t->tz, op_ctx_error(ctx));
    }
    return failures;
}

int cli_compare_owned(const op_chf *solo, const op_tiled_result *r, char *why, size_t n)
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
