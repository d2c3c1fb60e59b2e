/* Pictures of a tiled bake seen from above (supplement §4 "Human output"; issue 11: the
 * PNG of a tiled bake draws the tile grid). */
#include "cli.h"
#include "cli_tiles.h"
#include "core/alloc.h"

#include <string.h>

static const uint8_t white[3] = {255, 255, 255}, grid[3] = {255, 210, 0},
                     grey[3] = {110, 110, 110};

/* Regions are numbered per tile: mix the tile into the colour. */
static void tile_region_color(uint32_t tile, uint32_t region, uint8_t rgb[3])
{
    op_region_color(region ? region * 2654435761u + tile * 40503u + 1u : 0, rgb);
}

/* Paints the owned cells of tile i: one pixel block per `step`-th cell. */
static void paint_tile(op_image *img, const op_tiled_result *r, uint32_t i, int scale,
                       uint32_t step)
{
    const op_tile *t = &r->tiles[i];
    const uint32_t side = r->tile_size + 2 * r->border_size, B = r->border_size;
    uint32_t first = 0; /* first span of the current window cell */
    for (uint32_t lz = 0; lz < side; lz++)
        for (uint32_t lx = 0; lx < side; lx++) {
            const uint32_t c = lx + lz * side;
            const uint32_t n = t->cell_count ? t->cell_count[c] : 0;
            const uint32_t f = first;
            first += n;
            if (lx < B || lz < B || lx >= B + r->tile_size || lz >= B + r->tile_size)
                continue;
            const int64_t gx = (int64_t)lx + t->x0, gz = (int64_t)lz + t->z0;
            if (gx >= r->world_width || gz >= r->world_depth || gx % step || gz % step)
                continue;
            uint8_t rgb[3];
            uint32_t reg = 0;
            for (uint32_t k = 0; k < n; k++)
                if (t->region[f + k])
                    reg = t->region[f + k];
            if (!n)
                continue;
            tile_region_color(i, reg, rgb);
            op_image_rect(img, gx / step * scale, gz / step * scale, scale, scale, rgb);
        }
}

op_status cli_write_tiles_png(op_ctx *ctx, const op_tiled_result *r, const char *path, int scale)
{
    op_image img;
    uint32_t step;
    op_status st = cli_draw_tiles(ctx, r, &scale, &step, &img);
    if (st != OP_OK)
        return st;
    st = op_image_write_png(ctx, &img, path);
    op_image_free(&img);
    return st;
}

op_status cli_draw_tiles(op_ctx *ctx, const op_tiled_result *r, int *scale_io, uint32_t *step_out,
                         op_image *out)
{
    int scale = *scale_io;
    const uint32_t m = r->world_width > r->world_depth ? r->world_width : r->world_depth;
    uint32_t step = 1;
    if (scale <= 0) {
        scale = (int)(2048 / m);
        scale = scale < 1 ? 1 : (scale > 16 ? 16 : scale);
        step = m > 4096 ? (m + 4095) / 4096 : 1;
    }
    op_image img;
    op_status st = op_image_init(ctx, &img, (r->world_width + step - 1) / step * (uint32_t)scale,
                                 (r->world_depth + step - 1) / step * (uint32_t)scale);
    if (st != OP_OK)
        return st;
    for (uint32_t i = 0; i < r->tile_count; i++) {
        if (r->tiles[i].region && r->tiles[i].cell_count)
            paint_tile(&img, r, i, scale, step);
        else if (r->tiles[i].span_count) /* no region ids kept: the tile is grey */
            op_image_rect(&img, (int64_t)r->tiles[i].tx * r->tile_size / step * scale,
                          (int64_t)r->tiles[i].tz * r->tile_size / step * scale,
                          (int64_t)r->tile_size / step * scale,
                          (int64_t)r->tile_size / step * scale, grey);
    }
    for (uint32_t i = 0; i < r->tile_count; i++) {
        const op_contour_set *cs = &r->tiles[i].contours;
        for (uint32_t k = 0; k < cs->count; k++) {
            const op_contour *c = &cs->contours[k];
            for (uint32_t v = 0; v < c->vert_count; v++) {
                const op_contour_vert *a = &c->verts[v], *b = &c->verts[(v + 1) % c->vert_count];
                op_image_line(&img, (int64_t)a->x / step * scale, (int64_t)a->z / step * scale,
                              (int64_t)b->x / step * scale, (int64_t)b->z / step * scale, white);
            }
        }
    }
    /* The tile grid over everything, two pixels wide from a scale of 2. */
    const int64_t wide = scale >= 2 ? 2 : 1;
    for (uint32_t tx = 1; tx < r->tiles_x; tx++) {
        const int64_t x = (int64_t)tx * r->tile_size / step * scale;
        op_image_rect(&img, x - wide / 2, 0, wide, img.h, grid);
    }
    for (uint32_t tz = 1; tz < r->tiles_z; tz++) {
        const int64_t z = (int64_t)tz * r->tile_size / step * scale;
        op_image_rect(&img, 0, z - wide / 2, img.w, wide, grid);
    }
    *scale_io = scale;
    *step_out = step;
    *out = img;
    return OP_OK;
}

op_status cli_write_tiles_svg(op_ctx *ctx, const op_tiled_result *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot open for writing", path);
    const uint32_t m = r->world_width > r->world_depth ? r->world_width : r->world_depth;
    double scale = m ? 1024.0 / m : 1.0;
    if (scale < 0.25)
        scale = 0.25;
    op_svg_begin(f, r->world_width, r->world_depth, scale);
    int32_t *xz = NULL;
    size_t cap = 0;
    op_status st = OP_OK;
    for (uint32_t i = 0; i < r->tile_count && st == OP_OK; i++) {
        const op_contour_set *cs = &r->tiles[i].contours;
        for (uint32_t k = 0; k < cs->count; k++) {
            const op_contour *c = &cs->contours[k];
            if (2u * (size_t)c->vert_count > cap) {
                cap = 2u * (size_t)c->vert_count;
                int32_t *n = op_mem_realloc(op_ctx_allocator(ctx), xz, cap * sizeof *xz);
                if (!n) {
                    st = op_fail(ctx, OP_NO_MEMORY, "out of memory writing %s", path);
                    break;
                }
                xz = n;
            }
            for (uint32_t v = 0; v < c->vert_count; v++) {
                xz[2 * v] = c->verts[v].x;
                xz[2 * v + 1] = c->verts[v].z;
            }
            uint8_t rgb[3];
            tile_region_color(i, c->region, rgb);
            op_svg_polygon(f, xz, c->vert_count, rgb, white, 0.15);
        }
    }
    op_mem_free(op_ctx_allocator(ctx), xz);
    for (uint32_t i = 0; i < r->tile_count && st == OP_OK; i++) {
        const int32_t x0 = (int32_t)(r->tiles[i].tx * r->tile_size);
        const int32_t z0 = (int32_t)(r->tiles[i].tz * r->tile_size);
        const int32_t T = (int32_t)r->tile_size;
        const int32_t sq[8] = {x0, z0, x0 + T, z0, x0 + T, z0 + T, x0, z0 + T};
        op_svg_polygon(f, sq, 4, NULL, grid, 0.5);
    }
    op_svg_end(f);
    if (fclose(f) != 0 && st == OP_OK)
        st = op_fail(ctx, OP_IO_ERROR, "%s: write failed", path);
    return st;
}
