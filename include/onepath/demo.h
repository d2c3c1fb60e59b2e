/* onepath — the built-in procedural demo world (supplement §1.2, "the built-in
 * procedural demo world"), the input of `onepath bake --demo` and of the benchmarks.
 *
 * Fully deterministic: integer hash value noise, coordinates built as binary32 from
 * integers (x, z in quarter cells, y in millimetres) with one rounding each, and a fixed
 * integer cosine table for round shapes, so x86-64 and AArch64 give the same bytes.
 *
 * The world is size_cells x size_cells cells at the default cs (0.3 wu): rolling terrain
 * with cliffs (terraces) and steep mountain slopes, and, in every 256 x 256-cell block
 * that lies fully inside the world, one "village": a three-storey building with stairs
 * and low ceilings, a bridge over a road (two floors per column), a two-turn spiral ramp
 * that overlaps itself seen from above, a walled courtyard with a well in the middle,
 * pillar tops (small islands), and area volumes: water (1, prism over a pond), road
 * (2, box), grass (3, cylinder) and an obstacle (0, box). Worlds under 256 cells hold
 * terrain only. */
#ifndef ONEPATH_DEMO_H
#define ONEPATH_DEMO_H

#include "onepath/common.h"
#include "onepath/config.h"
#include "onepath/geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Accepted world edge [Units: vx]. */
#define OP_DEMO_MIN_SIZE 64u
#define OP_DEMO_MAX_SIZE 16384u
/* Edge of the repeating village block [Units: vx]. */
#define OP_DEMO_BLOCK 256u

/* Area ids the demo's volumes use. */
#define OP_DEMO_AREA_WATER 1u
#define OP_DEMO_AREA_ROAD 2u
#define OP_DEMO_AREA_GRASS 3u

/* The whole world. out is initialised here (any previous content is not freed) and
 * owned by the caller (op_scene_free); cfg receives op_config_defaults with
 * has_bounds = 1 and bounds whose grid is exactly size_cells x size_cells.
 * size_cells [Units: vx] [Limit: OP_DEMO_MIN_SIZE..OP_DEMO_MAX_SIZE], else
 * OP_INVALID_ARGUMENT; OP_NO_MEMORY leaves out empty. Progress as stage "demo". */
op_status op_demo_world(op_ctx *ctx, uint32_t size_cells, op_scene *out, op_config *cfg);

/* The terrain alone (hills, cliffs, steep slopes; no plateaus, structures or volumes),
 * for the build3d/regions-contours-terrain scenario. Same contract as op_demo_world. */
op_status op_demo_terrain(op_ctx *ctx, uint32_t size_cells, op_scene *out, op_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
