/* onepath — contours (regions-contours §6–§8, supplement §4, §5, §9 items 6–14).
 *
 * From a compact heightfield and its region array, op_build_contours traces every
 * region's boundary loops, simplifies them, joins holes into their outlines and returns
 * a contour set ordered by region id, then discovery order. Coordinates are in cells:
 * x and z are cell corners (cell (x, z) covers [x, x+1] x [z, z+1]), y is a span floor
 * in cell-height units. All geometry is exact 64-bit integer arithmetic except the
 * Douglas–Peucker distance compare (supplement §9.10), which is IEEE double. */
#ifndef ONEPATH_CONTOURS_H
#define ONEPATH_CONTOURS_H

#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* op_build_contours runs the trace by span segments and the regions in chunks on the
 * context's threads (op_ctx_set_threads); the result is the same for any count.
 * regions-contours §7 defaults: max_error 1.3, max_edge_len 12, straight borders on,
 * border_region 0 ("none"; the tile pipeline sets OP_BORDER_REGION). */
typedef struct op_contour_settings {
    double max_error;            /* [Limit: finite, >= 0] [Units: cells] */
    int32_t max_edge_len;        /* [Limit: >= 0, 0 = no split] [Units: cells] */
    int straight_region_borders; /* nonzero: same-area region borders stay chords */
    uint32_t border_region;      /* region id of the tile band, 0 = none */
    int keep_raw;                /* nonzero: store raw outline and raw holes */
} op_contour_settings;

void op_contour_settings_defaults(op_contour_settings *s);
/* OP_INVALID_ARGUMENT for a non-finite or negative max_error or a negative
 * max_edge_len (with a message in ctx). */
op_status op_contour_settings_validate(op_ctx *ctx, const op_contour_settings *s);

/* A contour vertex; neighbour describes the edge to the next vertex: a region id,
 * 0 (wall), OP_TILE_BORDER (-1, off the grid) or the border region id. */
typedef struct op_contour_vert {
    int32_t x, y, z;
    uint32_t neighbour;
} op_contour_vert;

/* op_contour.flags: how the output loop came about (informative, not digested). */
#define OP_CONTOUR_OUTLINE_RAW 0x1u     /* the outline's simplification fell back to raw */
#define OP_CONTOUR_OUTLINE_RETRY0 0x2u  /* the outline is its MaxError = 0 retry */
#define OP_CONTOUR_OUTLINE_REFINED 0x4u /* the outline is its every-stretch-refined retry */
#define OP_CONTOUR_JOIN_RAW 0x8u        /* the joined loop crossed: raw loops were joined */
#define OP_CONTOUR_DROPPED_HOLES 0x10u  /* some assigned hole was not joined */
#define OP_CONTOUR_SPIRAL 0x20u         /* joined area was not positive: holes dropped */

typedef struct op_contour {
    uint32_t region;
    uint8_t area;
    uint32_t vert_count;
    op_contour_vert *verts; /* counter-clockwise, at least 3, holes joined */
    /* Only with keep_raw: the raw outline, and the raw loops of every hole assigned to
     * this outline (joined or not) in discovery order, concatenated. */
    uint32_t raw_count;
    op_contour_vert *raw;
    uint32_t raw_hole_count;
    uint32_t *raw_hole_sizes;
    op_contour_vert *raw_holes;
    uint32_t hole_count; /* holes assigned to this outline (always filled) */
    uint32_t flags;      /* OP_CONTOUR_* */
} op_contour;

typedef struct op_contour_set {
    op_contour *contours;
    uint32_t count;
    uint32_t raw_fallbacks, dropped_holes;
    /* storage owned by the set: every vertex array and size array points in here */
    op_contour_vert *vert_storage;
    size_t vert_storage_count;
    uint32_t *size_storage;
    size_t size_storage_count;
    op_allocator alloc; /* the storage's allocator (ctx->alloc of op_build_contours) */
} op_contour_set;

/* Frees with the set's own allocator; a zeroed set (or NULL) frees harmlessly. */
void op_contour_set_free(op_contour_set *set);

/* regions-contours §6. region[s] is 0, 1..region_count, or settings->border_region
 * (when nonzero); every region's spans share one area id. On failure *out is empty
 * (nothing leaked). */
op_status op_build_contours(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t region_count, const op_contour_settings *settings,
                            op_contour_set *out);

/* What op_check_contours checked (counts) and the first failures. */
typedef struct op_contour_report {
    uint32_t regions_checked;
    uint32_t contours_checked;
    uint32_t portal_checks, distance_checks, shared_checks, crossing_checks;
    int shared_boundary_checked; /* 1 when supplement §9.13's condition held */
    uint32_t failures;
    char first_failures[1024];
} op_contour_report;

/* Verifies the §6 promises on a built set: per region, the raw loops' doubled signed
 * areas sum to twice its span count and their lengths to its boundary-edge count; the
 * set is ordered by region; every region with spans has a contour; every output loop
 * has >= 3 vertices and positive area; every portal vertex survives; every raw vertex
 * of a refined stretch lies within max_error of the output loop; every loop §6
 * crossing-checks has no proper crossing; with max_error 0, where supplement §9.13
 * holds, both sides of every shared boundary keep the same vertices. Raw holes are
 * checked when the set was built with keep_raw. Returns OP_OK or OP_INTERNAL (rep, when
 * not NULL, and ctx describe the first failures). */
op_status op_check_contours(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t region_count, const op_contour_settings *settings,
                            const op_contour_set *set, op_contour_report *rep);

/* XXH3-64 of the canonical serialization (docs/formats-contours.md). */
uint64_t op_digest_contours(const op_contour_set *set);

/* Supplement §4 JSON; include_raw adds "raw" and "raw_holes" (when the set has them). */
op_status op_write_contours_json(op_ctx *ctx, const op_contour_set *set, const char *path,
                                 int include_raw);

#ifdef __cplusplus
}
#endif
#endif
