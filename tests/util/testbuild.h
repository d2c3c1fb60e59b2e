/* Small inputs built by hand in the tests (shared so each file does not grow its own):
 * meshes from vertices, triangles and up-facing quads, solid heightfields span by span,
 * 16-bit or 8-bit PNG images, u32 arrays. Every builder asserts success (cmocka). */
#ifndef OP_TESTBUILD_H
#define OP_TESTBUILD_H

#include "onepath/spans.h"

#include <stddef.h>
#include <stdint.h>

/* n u32 values (at least one), uninitialised; free() them. */
uint32_t *op_test_u32s(size_t n);

/* Appends a vertex; returns its index. */
uint32_t op_test_vertex(op_ctx *ctx, op_mesh *m, float x, float y, float z);
void op_test_triangle(op_ctx *ctx, op_mesh *m, uint32_t a, uint32_t b, uint32_t c);
/* Up-facing quad (Recast winding) at height y over [x0, x1] x [z0, z1]: vertices
 * (x0, z0), (x0, z1), (x1, z1), (x1, z0), triangles (0, 1, 2) and (0, 2, 3). */
void op_test_quad_up(op_ctx *ctx, op_mesh *m, float x0, float z0, float x1, float z1, float y);

/* A w x d heightfield with bmin = origin (NULL: 0, 0, 0), bmax = origin + (w·cs, ymax,
 * d·cs). */
void op_test_hf(op_ctx *ctx, op_heightfield *hf, uint32_t w, uint32_t d, const float origin[3],
                float cs, float ch, float ymax);
/* Adds the solid span [lo, hi] of the given area to column (x, z) (walkable_climb 0). */
void op_test_span(op_ctx *ctx, op_heightfield *hf, uint32_t x, uint32_t z, int lo, int hi,
                  int area);

#ifdef OP_HAVE_PNG
/* Writes a w x d PNG: depth 8 or 16 bits, grey (rgb = 0) or RGB with the same value in
 * each channel, sample(x, z) per pixel (truncated to 8 bits at depth 8). */
void op_test_write_png(const char *path, uint32_t w, uint32_t d, int depth, int rgb,
                       uint16_t (*sample)(uint32_t x, uint32_t z));
#endif

/* a and b hold the same compact heightfield: every field, array and one-way link, and
 * the same OPCHFD1 digest. */
void op_test_assert_same_chf(const op_chf *a, const op_chf *b);

#endif
