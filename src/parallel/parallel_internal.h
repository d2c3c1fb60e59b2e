/* The tiled bake's pieces (supplement §2): OpenMP helpers that compile away without
 * OpenMP, the triangle bins (CSR), and the per-tile pipeline. */
#ifndef OP_PARALLEL_INTERNAL_H
#define OP_PARALLEL_INTERNAL_H

#include "onepath/tilecache.h"

#ifdef _OPENMP
#include <omp.h>
#define OP_PRAGMA(x) _Pragma(#x)
static inline int op_omp_thread(void) { return omp_get_thread_num(); }
static inline int op_omp_max_threads(void) { return omp_get_max_threads(); }
static inline int op_omp_team_size(void) { return omp_get_num_threads(); }
#else
/* A build without OpenMP runs the same loops on this thread. */
#define OP_PRAGMA(x)
static inline int op_omp_thread(void) { return 0; }
static inline int op_omp_max_threads(void) { return 1; }
static inline int op_omp_team_size(void) { return 1; }
#endif

/* Triangles per tile as a CSR index: the triangles of tile k (k = tx + tz·tiles_x) are
 * tris[first[k] .. first[k+1]), in input order. A triangle is in every tile whose window
 * its xz cell rectangle, grown by one cell, touches (docs/decisions/tiles.md), unless it
 * lies outside the world's box (the rasterizer would skip it). */
typedef struct op_tile_bins {
    uint32_t tiles_x, tiles_z;
    uint64_t *first; /* tile_count + 1 */
    uint32_t *tris;
    op_allocator alloc;
} op_tile_bins;

/* cfg: the world's bounds (has_bounds), cs; world_w x world_d cells; T, B. threads:
 * how many threads may share the two passes (the bins do not depend on it). */
op_status op_tile_bins_build(op_ctx *ctx, const op_mesh *mesh, const op_config *cfg,
                             uint32_t world_w, uint32_t world_d, uint32_t T, uint32_t B,
                             int threads, op_tile_bins *out);
void op_tile_bins_free(op_tile_bins *b);

/* What every tile reads (shared, read-only while tiles run). */
typedef struct op_tile_job {
    const op_scene *scene;
    const op_bake_settings *s;
    op_config cfg;           /* world bounds set (has_bounds) */
    uint32_t T, B, world_w, world_d, tiles_x;
    const uint8_t *tri_areas; /* per mesh triangle */
    const op_tile_bins *bins;
    /* Per volume, the cells its footprint may touch, grown by two cells: x0, x1, z0, z1
     * (a tile applies only the volumes whose rectangle meets its window, in order). */
    const int64_t *vol_rect;
    int keep_regions, keep_fields, owned_digest;
    /* Layers partition: each tile's geometry-only field and layers go to
     * cache_tiles[index] (the tile cache), or NULL. */
    op_cache_tile *cache_tiles;
} op_tile_job;

/* The whole chain for tile `index` (supplement §2) with worker context w; the tile's
 * field, distances and scratch are dropped unless the job keeps them. On failure *t
 * holds nothing (freed). Scratch comes from w's arena and is released. A stage given
 * a thread team later (issue 12) runs inside this call. */
op_status op_tile_bake(op_ctx *w, const op_tile_job *job, uint32_t index, op_tile *t);
void op_tile_free(op_tile *t, const op_allocator *a);

/* Totals over the tiles, the largest tile and the build3d/tiles digest, in (tz, tx)
 * order (the tiled bake's assembly; the bake file reader uses it too). */
void op_tiles_assemble(op_tiled_result *r);

/* supplement §2: contour vertices to world cells, x_world = x_local + x0. */
void op_contours_to_world(op_contour_set *set, int32_t x0, int32_t z0);

/* op_bake_tiled; with cache_out (layers partition), *cache_out receives tile_count
 * slots (ctx's allocator) holding each tile's geometry-only field and layers. Whatever
 * the status, the caller frees *cache_out's fields and array (r->tile_count slots). */
op_status op_bake_tiled_ex(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                           const op_tiled_options *opt, op_cache_tile **cache_out,
                           op_tiled_result *r);

/* ---- Layers partition (tile_layers.c) ---------------------------------------------- */

/* The rest of op_tile_bake for the layers partition (regions-contours §4 "Layer-first
 * partition"): the window's geometry-only field, its span layers, the volumes sub (the
 * scene's, culled to the window) on its areas, then op_tile_layer_first_end. */
op_status op_tile_bake_layer_first(op_ctx *w, const op_tile_job *job, uint32_t index,
                                   const op_scene *sub, const op_window *win, op_tile *t);
/* Span count, walkable spans, OPCHFD1, owned spans and (owned_digest) OPCHFC1 of a
 * tile's window field after the volumes. */
void op_tile_spans_facts(const op_chf *chf, uint32_t T, uint32_t B, uint32_t world_w,
                         uint32_t world_d, int owned_digest, op_tile *t);
/* chf holds the areas after the volumes: layer-first regions from span_layer, islands,
 * numbering, contours in world cells and their digests into t (keep_regions: t->region
 * and t->cell_count). Shared by the plain bake and the cache's rebuild. */
op_status op_tile_layer_first_end(op_ctx *w, const op_bake_settings *s, const op_chf *chf,
                                  const uint32_t *span_layer, int keep_regions, op_tile *t);

#endif
