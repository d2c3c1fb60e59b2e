/* onepath — the tiled bake (supplement §2): the world grid cut into T x T tiles, each
 * built from its window grown by a border band of B cells, on every core.
 *
 * Tile (tx, tz) owns world cells [tx·T, (tx+1)·T) x [tz·T, (tz+1)·T) and builds the
 * window of (T+2B)² cells whose local cell (lx, lz) is world cell (tx·T − B + lx,
 * tz·T − B + lz). The window is rasterized seam-exactly (every span of every window cell
 * equals the solo bake's), then runs the whole chain: filters, compact + links, erosion,
 * volumes, BorderRegion on the band, distance, partition (any), region filter and
 * contours with vertices in world cells. Tiles are independent: the bytes do not depend
 * on the thread count or the order tiles are built in, and the result lists tiles in
 * (tz, tx) row-major order, empty tiles included.
 *
 * Memory: triangles are binned once into a CSR index; each thread reuses one worker
 * context (op_ctx_fork) and its arena across tiles; a tile's compact heightfield, distance
 * field and scratch are dropped when the tile is done unless kept on request, so a tiled
 * bake holds the input, the output and one tile's working set per thread. */
#ifndef ONEPATH_TILES_H
#define ONEPATH_TILES_H

#include "onepath/bake.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called on the thread that called op_bake_tiled only (the rule of onepath/common.h),
 * once per finished tile, in the order tiles finished: after each tile that thread
 * bakes itself, and while it waits for the other threads' last tiles (it looks every
 * 2 ms). Tiles other threads finish while it bakes are reported when it is done with
 * its tile. tiles_done counts 1, 2, ... up to tile_count (fewer after a failure). For
 * progress display only. */
typedef struct op_tile_progress {
    uint32_t tiles_done, tile_count;
    uint64_t spans_done;  /* compact spans of the finished tiles' windows */
    uint32_t tx, tz;      /* the tile just finished */
} op_tile_progress;
typedef void (*op_tile_progress_fn)(void *user, const op_tile_progress *p);

/* Which tiles run, in what order, and where finished tiles go: the hooks under shards
 * and distributed bakes (issue 14; src/parallel/shard.c, the tool's --mpi). Every hook is
 * called one thread at a time. The bytes of a tile never depend on them. */
typedef struct op_tile op_tile;
typedef struct op_tiled_result op_tiled_result;
typedef struct op_tile_hooks {
    /* Once, after setup and binning and before any tile runs: r describes the world and
     * the tile grid (no tiles yet), cost[k] is tile k's cost estimate (op_tile_cost). A
     * status other than OP_OK (with op_fail(ctx, ...)) stops the bake. May be NULL. */
    op_status (*plan)(void *user, op_ctx *ctx, const op_tiled_result *r, const uint64_t *cost);
    /* The next tile to bake: 1 and *index (< tile_count, each index at most once), or 0
     * when there is none. NULL: every tile, largest first. */
    int (*next)(void *user, uint32_t *index);
    /* After each tile: st OP_OK and the finished tile, or its failure (st, with the reason
     * in w's error buffer, t empty). w is the worker context that ran it (op_fail on it to
     * fail). A status other than OP_OK fails the tile as if its bake had. May be NULL. */
    op_status (*done)(void *user, op_ctx *w, op_tile *t, op_status st);
    /* Nonzero: after done, the tile's contents are freed (they were sent or written
     * elsewhere); the result keeps its coordinates only and does not hold it. */
    int drop;
    void *user;
} op_tile_hooks;

/* How to run a tiled bake (not what it computes: that is op_bake_settings, whose
 * config.tile_size must be > 0 and config.border_size is B, -1 = walkable_radius + 3). */
typedef struct op_tiled_options {
    int threads;          /* 0 = OpenMP's default (OMP_NUM_THREADS, else the cores);
                             1 = this thread only. Never changes the bytes. */
    int keep_regions;     /* keep each tile's per-cell span counts and per-span region ids */
    int keep_fields;      /* keep each tile's compact heightfield and distance field
                             (not streaming: for tests and tools that compare fields) */
    int owned_digest;     /* hash each tile's owned cells (op_tile.digest_owned, OPCHFC1)
                             to compare them with a solo bake; about 4 % of a bake */
    op_tile_progress_fn progress;
    void *progress_user;
    const op_tile_hooks *hooks; /* NULL: every tile, all kept (a whole result) */
} op_tiled_options;

void op_tiled_options_defaults(op_tiled_options *o);

/* Per-tile stage times, summed over tiles (and so over threads) [ms]. */
typedef struct op_tile_times {
    double rasterize, filters, compact, erode, volumes; /* spans stage */
    double distance, regions, contours, digests;
} op_tile_times;

typedef struct op_tile {
    uint32_t tx, tz;
    int32_t x0, z0;          /* world cell of window cell (0, 0): tx·T − B, tz·T − B */
    uint32_t triangles;      /* triangles binned to the window */
    uint64_t solid_spans;    /* solid spans of the window after rasterization */
    uint32_t span_count;     /* compact spans of the window (band included) */
    uint32_t owned_spans;    /* of those, in the owned cells: with B >= walkable_radius + 3
                                the solo bake's spans of those world cells */
    uint32_t walkable_spans; /* of those, area != 0 at the end of the spans stage */
    uint32_t max_dist;
    uint32_t region_count;   /* regions 1..region_count; band spans hold BorderRegion */
    op_contour_set contours; /* vertices in world cells (supplement §2) */
    uint32_t contour_verts;  /* simplified vertices in all contours */
    /* Digests of the window's stages (supplement §5 serializations, docs/formats.md):
     * OPCHFD1 of the window field, OPDST1, OPREG1, contours (world cells). */
    uint64_t digest_spans, digest_distance, digest_regions, digest_contours;
    /* With owned_digest, OPCHFC1 of the owned cells inside the world
     * (op_digest_chf_cells): equal to the solo bake's over the same cells when
     * B >= walkable_radius + 3. Else 0. */
    uint64_t digest_owned;
    /* keep_regions: window cells' span counts ((T+2B)² entries, c = x + z·(T+2B)) and
     * span_count region ids in window span order. */
    uint32_t *cell_count;
    uint32_t *region;
    /* keep_fields: the window's compact heightfield (border_size = B) and distances. */
    op_chf chf;
    uint32_t *dist;
    op_tile_times ms;
    double cpu_ms;           /* CPU time of the thread that baked the tile [ms] */
} op_tile;

typedef struct op_tiled_result {
    uint32_t world_width, world_depth; /* world grid [cells] */
    uint32_t tile_size, border_size;   /* T and B as used */
    uint32_t tiles_x, tiles_z, tile_count;
    float bmin[3], bmax[3], cs, ch;    /* the world's */
    int32_t walkable_height, walkable_climb, walkable_radius;
    op_partition partition;
    op_stage reached;
    op_tile *tiles;                    /* tile_count, (tz, tx) row-major */
    int threads;                       /* threads that ran tiles */
    int tile_threads;                  /* threads inside each tile's grid: 1, or with
                                          more threads than tiles, threads / tiles */
    uint64_t digest;                   /* build3d/tiles (op_digest_tiles); 0 in a part */
    /* What the bake was made of (docs/formats.md "OPSCENE1", "OPSETTINGS1"): the input's
     * triangles and volumes, and every setting that shapes the output. Shards and merges
     * compare them (0 when read from a version 1 bake file). */
    uint64_t digest_world, digest_settings;
    /* A part (a shard, or hooks with next): held[k] is 1 for each tile this result holds,
     * held_count of them. NULL in a whole result, which holds every tile. */
    uint8_t *held;
    uint32_t held_count;
    /* Totals over tiles. */
    uint64_t solid_spans, spans, walkable_spans, triangle_refs;
    uint64_t owned_spans; /* the world's spans (each counted once, by its owner tile) */
    uint64_t regions, contours, contour_verts;
    uint32_t largest_tile;             /* index of the tile with the most compact spans */
    /* Wall times [ms]: the serial part (validation, bounds, walkable marks, binning), the
     * parallel tile loop, and the serial assembly (totals, digest). */
    double ms_setup, ms_bin, ms_tiles, ms_assemble, ms_total;
    op_tile_times ms;                  /* per-stage sums over tiles (all threads) */
    double ms_slowest_tile;            /* the longest one tile took [ms]: no thread count
                                          makes the tile loop shorter than this */
    /* CPU time [ms] of the process (all threads) in the same parts, and the most CPU
     * one tile took: costs that a loaded machine does not inflate, for projections. */
    double cpu_setup, cpu_bin, cpu_tiles, cpu_assemble, cpu_total, cpu_slowest_tile;
    op_allocator alloc;
} op_tiled_result;

/* Bakes scene tile by tile (supplement §2). s->config.tile_size > 0 is required;
 * s->config.border_size -1 means walkable_radius + 3. opt may be NULL (defaults).
 * result is zeroed first and owns everything (op_tiled_result_free), also after a
 * failure. A failure is reported for the tile with the smallest (tz, tx) that fails,
 * whatever thread met it first: "tile (tx, tz): <reason>". */
op_status op_bake_tiled(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        const op_tiled_options *opt, op_tiled_result *result);

void op_tiled_result_free(op_tiled_result *r);

/* build3d/tiles: XXH3-64 of the canonical serialization of the assembled result
 * (docs/formats.md "OPTILES1"). */
uint64_t op_digest_tiles(const op_tiled_result *r);

/* XXH3-64 of the cells [x0, x0+w) x [z0, z0+d) of chf (docs/formats.md "OPCHFC1"): per
 * cell its spans' y, h, area, mutual bits and, per mutual link, the index of the linked
 * span within its cell. It does not depend on where the rectangle lies in the field, so
 * a tile window and the solo field hash the same world cells alike. The rectangle must
 * lie inside the field (else 0). */
uint64_t op_digest_chf_cells(const op_chf *chf, uint32_t x0, uint32_t z0, uint32_t w,
                             uint32_t d);

/* The threads a tiled bake with threads = 0 runs: OpenMP's default (OMP_NUM_THREADS,
 * else the cores), or 1 in a build without OpenMP, where any thread count runs the same
 * loop on the calling thread. */
int op_tiled_default_threads(void);
/* 1 when this build runs tiles on several threads (OpenMP), else 0. */
int op_tiled_parallel(void);

/* OPSCENE1 (docs/formats.md): XXH3-64 of the scene's vertices, triangles and volumes, as
 * their bits in little-endian order. */
uint64_t op_digest_scene(const op_scene *scene);
/* OPSETTINGS1 (docs/formats.md): XXH3-64 of every setting that shapes a tiled bake's
 * output, as used: cfg with its bounds resolved, the tile size and border T and B, and
 * s's region and contour settings and stage. */
uint64_t op_digest_tiled_settings(const op_bake_settings *s, const op_config *cfg, uint32_t T,
                                  uint32_t B);

/* The cost estimate of a tile that the shards cut by and the schedulers order by
 * (docs/decisions/shards.md): its binned triangles plus a fixed share for its window. */
uint64_t op_tile_cost(uint64_t triangles, uint32_t window_side);

/* Tiles along x and z for a world and tile size: ceil(world / T). */
uint32_t op_tiles_along(uint32_t world_cells, uint32_t tile_size);

#ifdef __cplusplus
}
#endif
#endif
