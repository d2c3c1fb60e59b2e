/* The picture of a tile cache after an update (issue 13): the tiled picture (regions,
 * contours, tile grid), the tiles the update rebuilt shaded and framed in cyan, and every
 * obstacle's footprint outlined in red (world volumes are not drawn: their areas show in
 * the regions). */
#include "cli.h"
#include "cli_cache.h"
#include "cli_tiles.h"

#include <math.h>

static const uint8_t red[3] = {255, 40, 40}, cyan[3] = {0, 230, 255};

/* World xz to pixels. */
typedef struct view {
    const op_tiled_result *r;
    double k; /* pixels per world unit */
} view;

static int64_t px(const view *v, double x) { return (int64_t)floor((x - v->r->bmin[0]) * v->k); }
static int64_t pz(const view *v, double z) { return (int64_t)floor((z - v->r->bmin[2]) * v->k); }

static void thick_line(op_image *img, int64_t x0, int64_t z0, int64_t x1, int64_t z1,
                       const uint8_t rgb[3])
{
    for (int d = 0; d < 2; d++) {
        op_image_line(img, x0 + d, z0, x1 + d, z1, rgb);
        op_image_line(img, x0, z0 + d, x1, z1 + d, rgb);
    }
}

static void outline(op_image *img, const view *v, const op_volume *s)
{
    double xz[2 * 64];
    uint32_t n = 0;
    if (s->kind == OP_VOLUME_PRISM) {
        for (n = 0; n < s->vert_count; n++) {
            xz[2 * n] = s->verts[2 * n];
            xz[2 * n + 1] = s->verts[2 * n + 1];
        }
    } else if (s->kind == OP_VOLUME_BOX) {
        const double q[8] = {s->box_min[0], s->box_min[1], s->box_max[0], s->box_min[1],
                             s->box_max[0], s->box_max[1], s->box_min[0], s->box_max[1]};
        for (n = 0; n < 4; n++) {
            xz[2 * n] = q[2 * n];
            xz[2 * n + 1] = q[2 * n + 1];
        }
    } else {
        for (n = 0; n < 48; n++) {
            const double a = 6.283185307179586 * n / 48;
            xz[2 * n] = s->center[0] + s->radius * cos(a);
            xz[2 * n + 1] = s->center[1] + s->radius * sin(a);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = (i + 1) % n;
        thick_line(img, px(v, xz[2 * i]), pz(v, xz[2 * i + 1]), px(v, xz[2 * j]),
                   pz(v, xz[2 * j + 1]), red);
    }
}

/* Brightens the tile's pixels towards cyan and frames it. */
static void mark_tile(op_image *img, const op_tiled_result *r, uint32_t i, int scale,
                      uint32_t step)
{
    const op_tile *t = &r->tiles[i];
    const int64_t x0 = (int64_t)t->tx * r->tile_size / step * scale;
    const int64_t z0 = (int64_t)t->tz * r->tile_size / step * scale;
    int64_t x1 = (int64_t)(t->tx + 1) * r->tile_size / step * scale;
    int64_t z1 = (int64_t)(t->tz + 1) * r->tile_size / step * scale;
    x1 = x1 > img->w ? img->w : x1;
    z1 = z1 > img->h ? img->h : z1;
    for (int64_t z = z0; z < z1; z++)
        for (int64_t x = x0; x < x1; x++) {
            uint8_t *p = img->rgb + 3 * ((size_t)z * img->w + (size_t)x);
            for (int c = 0; c < 3; c++)
                p[c] = (uint8_t)((p[c] * 3 + cyan[c]) / 4);
        }
    const int64_t w = scale >= 2 ? 3 : 2;
    op_image_rect(img, x0, z0, x1 - x0, w, cyan);
    op_image_rect(img, x0, z1 - w, x1 - x0, w, cyan);
    op_image_rect(img, x0, z0, w, z1 - z0, cyan);
    op_image_rect(img, x1 - w, z0, w, z1 - z0, cyan);
}

op_status cli_write_cache_png(op_ctx *ctx, const op_tile_cache *c, const char *path, int scale)
{
    const op_tiled_result *r = &c->result;
    op_image img;
    uint32_t step;
    op_status st = cli_draw_tiles(ctx, r, &scale, &step, &img);
    if (st != OP_OK)
        return st;
    for (uint32_t k = 0; k < c->rebuilt_count; k++)
        mark_tile(&img, r, c->rebuilt[k], scale, step);
    const view v = {r, (double)scale / step / r->cs};
    for (uint32_t i = 0; i < c->obstacle_count; i++)
        outline(&img, &v, &c->obstacles[i].volume);
    st = op_image_write_png(ctx, &img, path);
    op_image_free(&img);
    return st;
}
