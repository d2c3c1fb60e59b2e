/* The per-tile checks of a tiled bake (supplement §2, §5), shared by `onepath verify`
 * (verify_tiles.c) and the tiled property test (tests/parallel/test_tiles_property.c). */
#ifndef ONEPATH_TOOLS_TILE_CHECK_H
#define ONEPATH_TOOLS_TILE_CHECK_H

#include "onepath/onepath.h"

#include <stddef.h>

/* The region and contour invariants of every tile of r, baked with s (until contours,
 * contours.keep_raw set) and keep_fields / keep_regions: op_check_regions (layers tiles,
 * being layer-first, as a non-layers partition without merging) and op_check_contours
 * (BorderRegion when the tiles have a band) in the window's cells (the vertices are
 * moved there and back). Returns the failures; the first is described in why[0..n). */
int cli_check_tiles(op_ctx *ctx, const op_bake_settings *s, op_tiled_result *r, char *why,
                    size_t n);

/* Every tile's owned cells against the same world cells of the solo field (r baked with
 * owned_digest). Returns the failures; the first is described in why[0..n). */
int cli_compare_owned(const op_chf *solo, const op_tiled_result *r, char *why, size_t n);

#endif
