/* onepath — 16-bit heightmaps as triangle input (supplement §1.2). */
#ifndef ONEPATH_HEIGHTMAP_H
#define ONEPATH_HEIGHTMAP_H

#include "onepath/geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct op_heightmap_opts {
    float spacing;      /* world units between samples in x and z [> 0, default 1.0] */
    float height_scale; /* world units per 16-bit height unit [> 0, default 0.01] */
} op_heightmap_opts;

/* spacing 1.0, height_scale 0.01 (0..65535 → 0..655.35 world units). */
void op_heightmap_opts_defaults(op_heightmap_opts *o);

/* h holds w*d samples, row-major by z then x (sample (x, z) at h[x + z*w]); w, d >= 2.
 * Sample (x, z) becomes vertex x + z*w at (x*spacing, h*height_scale, z*spacing).
 * Each quad gives two triangles split along the (x, z)-(x+1, z+1) diagonal, wound so
 * that the normal (b-a)x(c-a) points up (y > 0): 2*(w-1)*(d-1) triangles.
 * opts NULL = defaults. out is initialised here and left empty on failure. */
op_status op_heightmap_to_mesh(op_ctx *ctx, const uint16_t *h, uint32_t w, uint32_t d,
                               const op_heightmap_opts *opts, op_mesh *out);

/* 16-bit grayscale PNG (libpng). 8-bit or colour images are OP_BAD_INPUT with a message;
 * OP_UNSUPPORTED in a build without libpng (OP_HAVE_PNG undefined). */
op_status op_load_heightmap_png(op_ctx *ctx, const char *path, const op_heightmap_opts *opts,
                                op_mesh *out);

/* Raw little-endian u16 samples, `width` per row, rows = size / (2*width). A size that is
 * not a multiple of 2*width, width < 2 or fewer than 2 rows is OP_BAD_INPUT. */
op_status op_load_heightmap_r16(op_ctx *ctx, const char *path, uint32_t width,
                                const op_heightmap_opts *opts, op_mesh *out);

/* The same two from memory: len bytes of a PNG file, or of raw samples (never read past
 * len). name (NULL = "<memory>") starts the messages. */
op_status op_parse_heightmap_png(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 const char *name, const op_heightmap_opts *opts, op_mesh *out);
op_status op_parse_heightmap_r16(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 uint32_t width, const char *name,
                                 const op_heightmap_opts *opts, op_mesh *out);

#ifdef __cplusplus
}
#endif
#endif
