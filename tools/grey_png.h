/* onepath tool — an 8- or 16-bit greyscale PNG as a grid of values (the input of
 * `onepath topology`: a pixel is passable when its value is at least a threshold). */
#ifndef ONEPATH_GREY_PNG_H
#define ONEPATH_GREY_PNG_H

#include "onepath/common.h"

typedef struct op_grey_image {
    uint32_t w, h;
    uint32_t depth;  /* 8 or 16 (1, 2 and 4-bit images are widened to 8) */
    uint16_t *v;     /* w·h values, row-major from the top-left */
} op_grey_image;

/* OP_BAD_INPUT with the file name and the reason for anything that is not a greyscale
 * PNG (colour, alpha, palette, broken data); OP_IO_ERROR when it cannot be read;
 * OP_UNSUPPORTED in a build without libpng. At most 2^28 pixels. */
op_status op_grey_png_load(op_ctx *ctx, const char *path, op_grey_image *out);
void op_grey_png_free(op_grey_image *img);
/* Writes a greyscale PNG of the given depth (8 or 16) (tests and examples). */
op_status op_grey_png_write(op_ctx *ctx, const char *path, const op_grey_image *img);

#endif
