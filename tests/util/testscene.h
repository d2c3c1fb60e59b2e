/* Random scenes for the spans-stage and tiled-bake tests. */
#ifndef OP_TESTSCENE_H
#define OP_TESTSCENE_H

#include "onepath/onepath.h"

/* A random world of W x D cells, W and D drawn from [min_cells, min_cells + range):
 * rolling terrain (quads at a spacing that is not a multiple of cs), floating slabs and
 * ramps (multi-floor columns), big triangles across many cells, triangles with vertices
 * exactly on cut planes, geometry reaching past the world's bounds on every side, and
 * boxes, cylinders and prisms as volumes. cfg gets the world's bounds (has_bounds) and a
 * walkable_radius of 1 or 2. The scene is initialised here (op_scene_free it). */
op_status op_test_random_scene(op_ctx *ctx, op_scene *s, op_config *cfg, uint64_t seed,
                               uint32_t min_cells, uint32_t range);

#endif
