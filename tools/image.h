/* onepath — a small RGB raster for pictures of regions seen from above (supplement §4,
 * "Human output"), PNG (libpng) or PPM. */
#ifndef ONEPATH_IMAGE_H
#define ONEPATH_IMAGE_H

#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct op_image {
    uint32_t w, h;
    uint8_t *rgb; /* w*h*3 bytes, row-major from the top-left */
} op_image;

/* Allocates a black w×h image (w, h >= 1, w*h <= 2^28): OP_INVALID_ARGUMENT or
 * OP_NO_MEMORY with a message. */
op_status op_image_init(op_ctx *ctx, op_image *img, uint32_t w, uint32_t h);
void op_image_free(op_image *img);
void op_image_fill(op_image *img, const uint8_t rgb[3]);
/* Pixels outside the image are ignored (clipped). */
void op_image_set(op_image *img, int64_t x, int64_t y, const uint8_t rgb[3]);
/* Integer Bresenham line including both end points, clipped per pixel. */
void op_image_line(op_image *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
                   const uint8_t rgb[3]);
/* Filled axis-aligned rectangle [x, x+w) × [y, y+h), clipped. */
void op_image_rect(op_image *img, int64_t x, int64_t y, int64_t w, int64_t h,
                   const uint8_t rgb[3]);

/* 8-bit RGB PNG; OP_UNSUPPORTED without libpng (OP_HAVE_PNG undefined). */
op_status op_image_write_png(op_ctx *ctx, const op_image *img, const char *path);
/* Binary PPM (P6), always available. */
op_status op_image_write_ppm(op_ctx *ctx, const op_image *img, const char *path);

/* Deterministic, well-spread colours: a hashed hue with varied saturation/value per
 * region; region 0 dark grey (40,40,40), OP_BORDER_REGION mid grey (128,128,128). */
void op_region_color(uint32_t region, uint8_t rgb[3]);
/* Colours of area ids: 0 black-ish, 63 (walkable) green, others hashed. */
void op_area_color(uint8_t area, uint8_t rgb[3]);

/* Top view: one scale×scale block per cell (x to the right, z downwards), coloured by
 * the region (region != NULL) or by the area (region == NULL) of the highest walkable
 * span (area != 0) of the column, shaded by that span's y (lower floors darker, over
 * the field's walkable y range); columns with no walkable span are black.
 * scale 1..64; out is allocated here (op_image_free it). */
op_status op_render_regions(op_ctx *ctx, const op_chf *chf, const uint32_t *region, int scale,
                            op_image *out);

#ifdef __cplusplus
}
#endif
#endif
