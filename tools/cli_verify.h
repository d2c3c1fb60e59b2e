/* onepath verify's thread and tile parts (verify_threads.c, verify_tiles.c). */
#ifndef ONEPATH_CLI_VERIFY_H
#define ONEPATH_CLI_VERIFY_H

#include "cli.h"

/* Tile size verify uses when --tile-size is not given. */
#define CLI_VERIFY_TILE_SIZE 64

/* For a scene input: per partition, the tiled bake with 1, 2, 3, 8 (and --threads N)
 * threads must give one build3d/tiles digest, the 1-thread result must keep the region
 * and contour invariants in every tile, and every tile's owned cells must equal the solo
 * field's. Prints a table; returns the failures, or minus an exit code when a bake
 * failed (printed). */
int cli_verify_tiles(op_ctx *ctx, const cli_args *a, const op_partition *parts, int nparts);

/* The solo bake with threads inside one grid: 2, 3, 8 (and extra when above 3) threads
 * must give ref's four stage digests (ref: the same settings and variant, one thread).
 * Prints one line per count; returns the failures, or minus an exit code when a bake
 * failed (printed). Leaves ctx on one thread. */
int cli_verify_solo_threads(op_ctx *ctx, const cli_input *in, const op_bake_settings *s,
                            const op_bake_result *ref, int extra);

#endif
