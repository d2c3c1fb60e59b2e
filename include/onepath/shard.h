/* onepath — shards of a tiled bake (issue 14): a rectangle of tiles, or the k-th of n cuts
 * of the tiles in (tz, tx) order balanced by their cost estimates. A shard baked alone is
 * a part (op_tiled_result.held), written as a partial bake file (op_opbake_write) that
 * op_opbake_merge joins with the other parts into the bytes of the whole bake
 * (docs/decisions/shards.md). */
#ifndef ONEPATH_SHARD_H
#define ONEPATH_SHARD_H

#include "onepath/tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum op_shard_kind {
    OP_SHARD_RECT = 1, /* tiles x0..x1 along x, z0..z1 along z (inclusive) */
    OP_SHARD_CUT = 2   /* the k-th (1..n) of n cuts */
} op_shard_kind;

typedef struct op_shard {
    op_shard_kind kind;
    uint32_t x0, x1, z0, z1; /* RECT */
    uint32_t k, n;           /* CUT */
} op_shard;

/* "TX0-TX1,TZ0-TZ1" (tile coordinates, inclusive; either side may be one number, so
 * "TX,TZ" is one tile) or "K/N" (1 <= K <= N). OP_INVALID_ARGUMENT with the reason. */
op_status op_shard_parse(op_ctx *ctx, const char *text, op_shard *out);
/* The text form op_shard_parse reads, into buf (n bytes); returns buf. */
const char *op_shard_format(const op_shard *sh, char *buf, size_t n);

/* held[k] = 1 for each tile k of the shard, else 0 (tiles_x * tiles_z entries).
 * cost[k] (op_tile_cost; needed for a cut only) decides the cuts: tiles in (tz, tx) order,
 * tile k to the cut whose share of the total cost holds the middle of its own cost, so
 * every tile is in exactly one of the n cuts, each cut is a run of consecutive tiles, and
 * the cuts do not depend on the host. A rectangle reaching past the grid is
 * OP_INVALID_ARGUMENT (naming the grid). */
op_status op_shard_select(op_ctx *ctx, const op_shard *sh, uint32_t tiles_x, uint32_t tiles_z,
                          const uint64_t *cost, uint8_t *held);

/* op_bake_tiled of the shard's tiles only, largest first on opt's threads (opt may be
 * NULL; opt->hooks must be NULL). The result is a part: held marks the shard's tiles,
 * which it holds; the others are empty, and digest is 0. */
op_status op_bake_shard(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        const op_tiled_options *opt, const op_shard *shard,
                        op_tiled_result *result);

#ifdef __cplusplus
}
#endif
#endif
