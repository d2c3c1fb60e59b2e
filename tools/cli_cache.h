/* The tool's tile cache pieces (issue 13): `bake --out-cache`, `update`, the picture. */
#ifndef ONEPATH_CLI_CACHE_H
#define ONEPATH_CLI_CACHE_H

#include "onepath/tilecache.h"

struct cli_args;

/* bake --tile-size T --partition layers --out-cache FILE: bakes the cache (region ids
 * kept for pictures and checks), writes it with a->cache_level, records the input in
 * it (cli_cache_source), and hands the result to *r as op_bake_tiled would. */
op_status cli_bake_cache(op_ctx *ctx, const struct cli_args *a, const op_scene *scene,
                         const op_tiled_options *o, op_tiled_result *r);
/* The input options of a, one per line, as `update --check` parses them back (paths made
 * absolute). 0, or -1 when they do not fit OP_CACHE_SOURCE_MAX. */
int cli_cache_source(const struct cli_args *a, char *out, size_t n);

/* The tiled picture of c's result, the tiles its last update rebuilt shaded and framed,
 * and every obstacle's footprint outlined (picture_cache.c). */
op_status cli_write_cache_png(op_ctx *ctx, const op_tile_cache *c, const char *path, int scale);

int cmd_update(int argc, char **argv);

#endif
