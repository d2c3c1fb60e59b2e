/* The tool's pictures of a tiled bake (picture_tiles.c). */
#ifndef ONEPATH_CLI_TILES_H
#define ONEPATH_CLI_TILES_H

#include "onepath/tiles.h"
#include "image.h"

/* Top view of the world: each owned cell coloured by the region of its highest span with
 * a region (regions are per tile, so the colour mixes in the tile), contours in white,
 * the tile grid in yellow. scale pixels per cell (0: fit about 2048 px; worlds above 4096
 * cells draw one pixel per 2, 3, ... cells). Region colours need the tiles' region ids
 * (keep_regions); without them cells with spans are grey. */
op_status cli_write_tiles_png(op_ctx *ctx, const op_tiled_result *r, const char *path, int scale);
/* The same picture in memory (op_image_free it): *scale is the pixels per cell asked (0:
 * fit) and receives the one used, *step the cells per pixel block. */
op_status cli_draw_tiles(op_ctx *ctx, const op_tiled_result *r, int *scale, uint32_t *step,
                         op_image *img);
/* The same as SVG: contours filled with their region's colour, the tile grid. */
op_status cli_write_tiles_svg(op_ctx *ctx, const op_tiled_result *r, const char *path);

/* The tiled bake's JSON summary (bake --tile-size --json); extra (may be NULL) adds keys
 * before "digests" (bake --mpi's "mpi"). */
struct cli_args;
struct op_json;
op_status cli_tiled_write_json(op_ctx *ctx, const char *path, const struct cli_args *a,
                               const op_tiled_result *r, double ms_total,
                               void (*extra)(struct op_json *j, void *user), void *user);
/* Its summary on stdout. */
void cli_tiled_print_summary(const struct cli_args *a, const op_ctx *ctx,
                             const op_tiled_result *r, double ms_total);

#endif
