/* onepath — the tile cache with run-time obstacles (supplement §3, regions-contours §4
 * "Layer-first partition", supplement §1.7 for the shapes).
 *
 * A tiled bake with the layers partition decides each span's layer once, on the window's
 * geometry-only field (after erosion, before any volume). The cache keeps, per tile, that
 * field and the layer of every span, plus the world's own volumes and a table of run-time
 * obstacles with ids. Adding, moving or removing an obstacle marks every tile whose window
 * (band included) the old or new footprint touches; an update rebuilds exactly those
 * tiles, in parallel: the volumes are re-applied to a copy of the geometry-only areas,
 * then one labelling pass (the labelling kernel, never the sweep-and-merge path), the
 * island filter, numbering and contours.
 *
 * The promise: after every successful update, cache->result is byte-identical to
 * op_bake_tiled of the same world and settings whose scene volumes are the world's
 * volumes in their order followed by the obstacles in increasing id
 * (docs/decisions/cache.md), for any thread count: every tile, the build3d/tiles digest
 * and the settings digest; the world digest (OPSCENE1) only while no obstacle is
 * present (0 otherwise, see world_digest below).
 *
 * The cache can be saved and loaded (OPCACHE1, docs/formats.md): versioned, every section
 * checksummed, tile payloads compressed with zstd when the build has it. A game ships
 * the file and loads it without the triangles. */
#ifndef ONEPATH_TILECACHE_H
#define ONEPATH_TILECACHE_H

#include "onepath/tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OP_CACHE_SOURCE_MAX 1024

/* A run-time obstacle: an id and its shape (a convex prism, a box or a vertical
 * cylinder, world units) with its area id (0 = obstacle, supplement §1.7). */
typedef struct op_obstacle {
    uint32_t id;
    op_volume volume;
} op_obstacle;

/* What the cache keeps of one tile. */
typedef struct op_cache_tile {
    op_chf chf;           /* the window's geometry-only field: after erosion, before any
                             volume; border_size = B, cs/ch the world's */
    uint16_t *layer;      /* chf.span_count layer indices (supplement §3; 0 for area-0
                             and band spans) */
    uint32_t layer_count;
    uint64_t digest_geometry; /* OPCHFD1 of chf (what a loaded file must reproduce) */
} op_cache_tile;

/* The last update. */
typedef struct op_cache_update_stats {
    uint32_t rebuilt;       /* tiles rebuilt (cache->rebuilt lists them) */
    uint64_t spans;         /* compact spans of the rebuilt windows */
    double ms;              /* wall time of the update [ms] */
    double ms_tiles_summed; /* per-tile rebuild times summed over the threads [ms] */
    int threads;            /* threads that ran */
} op_cache_update_stats;

typedef struct op_tile_cache {
    /* What the world was baked with: config with the world's bounds (has_bounds = 1) and
     * border_size as used; regions.partition = OP_PARTITION_LAYERS. */
    op_bake_settings settings;
    op_volume *world_volumes;       /* the scene's volumes, applied first, in order */
    uint32_t world_volume_count;
    op_obstacle *obstacles;         /* in increasing id */
    uint32_t obstacle_count, obstacle_cap;
    op_cache_tile *tiles;           /* result.tile_count, (tz, tx) row-major */
    /* The current result; equal to a plain tiled bake (see above) when dirty_count is
     * 0. Its tiles hold contours, digests and, with keep_regions, region ids. */
    op_tiled_result result;
    uint8_t *dirty;                 /* per tile: 1 = an obstacle change touched it */
    uint32_t dirty_count;
    uint32_t *rebuilt;              /* tiles the last update rebuilt, increasing index */
    uint32_t rebuilt_count;
    op_cache_update_stats last;
    int keep_regions, owned_digest; /* as the bake's options: kept by rebuilds */
    uint64_t saved_digest;          /* read from a file: build3d/tiles when it was saved
                                       (0: it was saved with tiles still dirty) */
    /* OPSCENE1 of what was baked (the mesh and the world's volumes). The result's world
     * digest is this while no obstacle is present and 0 otherwise: the cache holds no
     * triangles to hash a scene with obstacles (docs/decisions/cache.md). Its settings
     * digest is always the bake's (OPSETTINGS1 needs only the settings). */
    uint64_t world_digest;
    /* What the world was baked from, as the caller describes it (the tool: its input
     * options, one per line). Saved and loaded with the cache; the library never reads
     * it. At most OP_CACHE_SOURCE_MAX - 1 bytes, no NUL. */
    char source[OP_CACHE_SOURCE_MAX];
    op_allocator alloc;
} op_tile_cache;

/* Bakes scene tiled with the layers partition (s->regions.partition must be
 * OP_PARTITION_LAYERS, s->until >= OP_STAGE_REGIONS, s->config.tile_size > 0) and keeps
 * the cache. cache->result is exactly op_bake_tiled(scene, s, opt)'s result. opt may be
 * NULL; keep_regions and owned_digest are remembered for rebuilds; keep_fields is
 * refused (the cache holds the geometry; the fields after volumes are not kept).
 * cache is zeroed first and owns everything (op_tile_cache_free), also after a failure. */
op_status op_tile_cache_bake(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                             const op_tiled_options *opt, op_tile_cache *cache);
void op_tile_cache_free(op_tile_cache *c);

/* OP_OK when v is a shape the cache takes: a known kind, finite numbers, ymin <= ymax, a
 * box with min <= max, a cylinder radius >= 0, a prism of 3..OP_VOLUME_MAX_VERTS
 * vertices that is convex (either winding, collinear vertices allowed), simple and not
 * degenerate. OP_INVALID_ARGUMENT with the reason otherwise. */
op_status op_obstacle_validate(op_ctx *ctx, const op_volume *v);
/* 1 when a and b are the same shape: kind, area, y range and the kind's own numbers
 * (the prism's first vert_count points), compared bit for bit; padding and unused
 * points do not count. */
int op_volume_same(const op_volume *a, const op_volume *b);
/* Moves a shape by (dx, dy, dz) world units in binary32 (vertices, box corners, the
 * cylinder's centre, ymin and ymax). */
void op_volume_translate(op_volume *v, float dx, float dy, float dz);

/* Obstacle changes. Each marks the tiles whose window (band included, clipped to the
 * world) holds a cell whose centre lies in the old or the new footprint
 * (op_volume_cells); nothing is rebuilt until op_tile_cache_update. On any failure
 * nothing changes: OP_INVALID_ARGUMENT for an id already present (add) or absent
 * (move, remove) or a shape op_obstacle_validate refuses; OP_NO_MEMORY when the table
 * cannot grow. move gives the obstacle a new shape (any kind, any area). */
op_status op_tile_cache_add(op_ctx *ctx, op_tile_cache *c, uint32_t id, const op_volume *v);
op_status op_tile_cache_move(op_ctx *ctx, op_tile_cache *c, uint32_t id, const op_volume *v);
op_status op_tile_cache_remove(op_ctx *ctx, op_tile_cache *c, uint32_t id);
/* The obstacle with this id, or NULL. */
const op_obstacle *op_tile_cache_find(const op_tile_cache *c, uint32_t id);
/* Marks every tile dirty (a loaded cache starts so). */
void op_tile_cache_mark_all(op_tile_cache *c);

/* Rebuilds every dirty tile (threads as op_tiled_options.threads: 0 = OpenMP's default,
 * never changes the bytes), then reassembles the result (totals, build3d/tiles digest)
 * and lists the rebuilt tiles in c->rebuilt. On failure (e.g. OP_NO_MEMORY) the result,
 * the dirty marks and the rebuilt list are what they were before the call, and the
 * message names the smallest failing tile: "tile (tx, tz): reason". stats may be NULL
 * (c->last holds them too). */
op_status op_tile_cache_update(op_ctx *ctx, op_tile_cache *c, int threads,
                               op_cache_update_stats *stats);

/* Bytes the cache itself holds in memory (geometry fields, layers, volumes, obstacle
 * table, dirty marks), not counting the result. */
uint64_t op_tile_cache_bytes(const op_tile_cache *c);
/* Bytes of the result's per-tile data (contours, kept region ids and cell counts). */
uint64_t op_tiled_result_bytes(const op_tiled_result *r);

/* ---- OPCACHE1, the cache file (docs/formats.md) --------------------------------------- */

#define OP_OPCACHE_VERSION 1u
/* 1 when this build compresses tile payloads with zstd (CMake OP_ZSTD), else 0: a build
 * without it writes them stored and refuses a compressed file with OP_UNSUPPORTED. */
int op_opcache_have_zstd(void);

/* Serialises the cache (settings, world volumes, obstacles, per tile the geometry-only
 * field's cells, floors, clearances, areas and layers; links are rebuilt on load by the
 * link rule) into a buffer from ctx's allocator (op_free(ctx, *buf)). level: 0 = stored,
 * 1..19 = zstd level (OP_UNSUPPORTED without zstd). Tiles are compressed on `threads`
 * threads; the bytes do not depend on it. */
op_status op_opcache_encode(op_ctx *ctx, const op_tile_cache *c, int level, int threads,
                            unsigned char **buf, size_t *len);
op_status op_opcache_write(op_ctx *ctx, const op_tile_cache *c, int level, int threads,
                           const char *path);
/* Parses and checks len bytes (never reads past them) into c (op_tile_cache_free; zeroed
 * on failure): settings, volumes, obstacles and every tile's geometry and layers, links
 * rebuilt and each tile's OPCHFD1 checked against the stored one. Every tile is dirty and
 * the result holds the tile grid only: call op_tile_cache_update to build it (its
 * build3d/tiles digest then equals c->saved_digest when that is not 0). OP_BAD_INPUT
 * "offset N: reason" for a truncated, corrupted or inconsistent file; OP_UNSUPPORTED for
 * another version or a compressed file in a build without zstd. */
op_status op_opcache_decode(op_ctx *ctx, const unsigned char *buf, size_t len, int threads,
                            op_tile_cache *c);
op_status op_opcache_read(op_ctx *ctx, const char *path, int threads, op_tile_cache *c);

#ifdef __cplusplus
}
#endif
#endif
