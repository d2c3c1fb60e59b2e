/* onepath — a minimal streaming SVG writer for pictures seen from above (supplement §4,
 * "Human output"). Coordinates are in cells; the picture is scaled by `scale`. */
#ifndef ONEPATH_SVG_H
#define ONEPATH_SVG_H

#include "onepath/common.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* <svg> header with a width×height cell canvas (pixels = cells * scale), black background. */
void op_svg_begin(FILE *f, uint32_t width, uint32_t height, double scale);
/* Filled cell-aligned rectangle. */
void op_svg_rect(FILE *f, int64_t x, int64_t z, int64_t w, int64_t h, const uint8_t rgb[3]);
/* Closed polygon through n (x, z) points given as xz[2*i], xz[2*i+1]; fill NULL = none;
 * stroke NULL = none. */
void op_svg_polygon(FILE *f, const int32_t *xz, size_t n, const uint8_t fill[3],
                    const uint8_t stroke[3], double stroke_width);
void op_svg_end(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
