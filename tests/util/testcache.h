/* Helpers for the tile cache tests: random obstacles, the plain tiled bake a cache must
 * equal, and a byte-for-byte comparison of two tiled results. */
#ifndef OP_TESTCACHE_H
#define OP_TESTCACHE_H

#include "onepath/onepath.h"
#include "util/testutil.h"

/* A random valid obstacle inside (or reaching a little past) the world box of cfg: a box,
 * a cylinder or a convex prism of 1 to max_cells cells across; area 0 most of the time,
 * else 1..5 or 63; a y range that spans the world or a random slice of it. */
void op_test_random_obstacle(op_rng *rng, const op_config *cfg, uint32_t max_cells,
                             op_volume *out);

/* op_bake_tiled of world with the world's volumes followed by c's obstacles in id
 * order (the cache's promise), with c's settings and options. */
op_status op_test_plain_bake(op_ctx *ctx, const op_scene *world, const op_tile_cache *c,
                             int threads, op_tiled_result *out);

/* 1 when a and b hold the same bytes: the build3d/tiles digest, every tile's counts and
 * digests, every contour vertex, and the region ids where both kept them. Else 0 and
 * the first difference in why. */
int op_test_same_tiles(const op_tiled_result *a, const op_tiled_result *b, char *why, size_t n);

/* 1 when c's result and the plain bake p encode to the same OPBAKE1 bytes (region ids
 * included where c keeps them), the settings digest equal and the world digest as
 * tilecache.h promises: p's while c holds no obstacle, else 0 (compared with p's set to
 * 0). Else 0 and the reason in why. */
int op_test_same_bake_file(op_ctx *ctx, const op_tile_cache *c, const op_tiled_result *p,
                           char *why, size_t n);

#endif
