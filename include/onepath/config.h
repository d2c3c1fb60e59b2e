/* onepath — build configuration of the spans stage (supplement §1.1). */
#ifndef ONEPATH_CONFIG_H
#define ONEPATH_CONFIG_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct op_config {
    float cs;                 /* cell size in x and z [world units, > 0] */
    float ch;                 /* cell height in y [world units, > 0] */
    int has_bounds;           /* 0: bmin/bmax are taken from the input's bounds */
    float bmin[3], bmax[3];   /* world bounds of the grid */
    float walkable_slope_deg; /* steepest walkable triangle [degrees, 0..90] */
    int walkable_height;      /* agent height [cells, >= 1] */
    int walkable_climb;       /* max step [cells, >= 0] */
    int walkable_radius;      /* agent radius [cells, >= 0] */
    int tile_size;            /* tile edge [cells]; 0 = one tile */
    int border_size;          /* border band [cells]; -1 = walkable_radius + 3 */
} op_config;

/* Recast's defaults (supplement §1.1). */
void op_config_defaults(op_config *cfg);

/* Checks every field; with has_bounds also the grid size against the index types.
 * OP_INVALID_ARGUMENT with the field named in ctx->err. */
op_status op_config_validate(op_ctx *ctx, const op_config *cfg);

/* Grid size from bounds (supplement §1.1): width = ceil((bmax.x-bmin.x)/cs), ...;
 * also checks op_config_check_resolution. */
op_status op_config_grid_size(op_ctx *ctx, const op_config *cfg, uint32_t *width,
                              uint32_t *depth);

/* The grid's numbers are representable (docs/decisions/hardening.md): binary32 values
 * near the largest |x|, |z| of the grid are at most cs / OP_GRID_STEPS_PER_CELL apart
 * (near the largest |y|: ch / OP_GRID_STEPS_PER_CELL), and the height range
 * bmax.y - bmin.y is at most 0xffff cells of ch. OP_INVALID_ARGUMENT saying by how much
 * otherwise. Called by op_config_grid_size. */
op_status op_config_check_resolution(op_ctx *ctx, const op_config *cfg, uint32_t width,
                                     uint32_t depth);
#define OP_GRID_STEPS_PER_CELL 16

/* Largest grid edge accepted, so that width*depth cells fit 32-bit cell indices. */
#define OP_MAX_GRID_CELLS 0x7fffffffu

#ifdef __cplusplus
}
#endif
#endif
