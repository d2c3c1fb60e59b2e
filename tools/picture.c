/* Pictures seen from above: regions one colour each (highest walkable span per column),
 * simplified contours drawn over them (supplement §4, "Human output"). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int fit_scale(const op_chf *chf, int scale)
{
    if (scale > 0)
        return scale;
    uint32_t m = chf->width > chf->depth ? chf->width : chf->depth;
    int s = m ? (int)(2048 / m) : 1;
    return s < 1 ? 1 : (s > 16 ? 16 : s);
}

op_status cli_write_png(op_ctx *ctx, const op_bake_result *r, const char *path, int scale)
{
    scale = fit_scale(&r->chf, scale);
    op_image img;
    op_status st = op_render_regions(ctx, &r->chf, r->reached >= OP_STAGE_REGIONS ? r->region : NULL,
                                     scale, &img);
    if (st != OP_OK)
        return st;
    if (r->reached >= OP_STAGE_CONTOURS) {
        static const uint8_t white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
        for (uint32_t i = 0; i < r->contours.count; i++) {
            const op_contour *c = &r->contours.contours[i];
            for (uint32_t k = 0; k < c->vert_count; k++) {
                const op_contour_vert *a = &c->verts[k], *b = &c->verts[(k + 1) % c->vert_count];
                op_image_line(&img, (int64_t)a->x * scale, (int64_t)a->z * scale,
                              (int64_t)b->x * scale, (int64_t)b->z * scale, white);
            }
            if (scale >= 3)
                for (uint32_t k = 0; k < c->vert_count; k++)
                    op_image_rect(&img, (int64_t)c->verts[k].x * scale - 1,
                                  (int64_t)c->verts[k].z * scale - 1, 3, 3, black);
        }
    }
    st = op_image_write_png(ctx, &img, path);
    op_image_free(&img);
    return st;
}

/* Highest walkable span of a column, or OP_NO_LINK. */
static uint32_t top_walkable(const op_chf *chf, uint32_t c)
{
    uint32_t best = OP_NO_LINK;
    for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++)
        if (chf->area[s])
            best = s;
    return best;
}

op_status cli_write_svg(op_ctx *ctx, const op_bake_result *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", path);
    const op_chf *chf = &r->chf;
    uint32_t m = chf->width > chf->depth ? chf->width : chf->depth;
    double scale = m ? 1024.0 / m : 1.0;
    if (scale < 0.25)
        scale = 0.25;
    op_svg_begin(f, chf->width, chf->depth, scale);
    /* Cells as horizontal runs of one colour, so the file stays small. */
    for (uint32_t z = 0; z < chf->depth; z++) {
        uint32_t x = 0;
        while (x < chf->width) {
            uint32_t s = top_walkable(chf, x + z * chf->width);
            uint8_t rgb[3];
            if (s == OP_NO_LINK) {
                x++;
                continue;
            }
            if (r->reached >= OP_STAGE_REGIONS)
                op_region_color(r->region[s], rgb);
            else
                op_area_color(chf->area[s], rgb);
            uint32_t x1 = x + 1;
            while (x1 < chf->width) {
                uint32_t t = top_walkable(chf, x1 + z * chf->width);
                uint8_t c2[3];
                if (t == OP_NO_LINK)
                    break;
                if (r->reached >= OP_STAGE_REGIONS)
                    op_region_color(r->region[t], c2);
                else
                    op_area_color(chf->area[t], c2);
                if (memcmp(c2, rgb, 3))
                    break;
                x1++;
            }
            op_svg_rect(f, x, z, x1 - x, 1, rgb);
            x = x1;
        }
    }
    if (r->reached >= OP_STAGE_CONTOURS) {
        static const uint8_t white[3] = {255, 255, 255};
        int32_t *xz = NULL;
        size_t cap = 0;
        for (uint32_t i = 0; i < r->contours.count; i++) {
            const op_contour *c = &r->contours.contours[i];
            if (2u * c->vert_count > cap) {
                cap = 2u * c->vert_count;
                int32_t *n = realloc(xz, cap * sizeof *xz);
                if (!n) {
                    free(xz);
                    fclose(f);
                    return op_fail(ctx, OP_NO_MEMORY, "out of memory writing %s", path);
                }
                xz = n;
            }
            for (uint32_t k = 0; k < c->vert_count; k++) {
                xz[2 * k] = c->verts[k].x;
                xz[2 * k + 1] = c->verts[k].z;
            }
            op_svg_polygon(f, xz, c->vert_count, NULL, white, 0.15);
        }
        free(xz);
    }
    op_svg_end(f);
    if (fclose(f) != 0)
        return op_fail(ctx, OP_IO_ERROR, "%s: write failed", path);
    return OP_OK;
}
