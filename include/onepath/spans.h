/* onepath — the spans stage (supplement §1): triangles → solid heightfield → filters →
 * compact heightfield with links → erosion → area volumes.
 *
 * Units follow Recast.h: [Units: wu] world units, [Units: vx] cells (x, z in cell columns,
 * y in cell heights). Every function that can fail takes the context first and returns
 * an op_status with the message in ctx->err; nothing prints or aborts. */
#ifndef ONEPATH_SPANS_H
#define ONEPATH_SPANS_H

#include "onepath/common.h"
#include "onepath/config.h"
#include "onepath/geometry.h"
#include "onepath/chf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Solid heightfield (supplement §1.3) ------------------------------------------- */

/* Largest span height [Units: vx]. */
#define OP_HF_MAX_HEIGHT 0xffffu
/* Walkable area id given by op_mark_walkable_triangles (supplement §1.2). */
#define OP_WALKABLE_AREA 63u
/* Not walkable. */
#define OP_NULL_AREA 0u

/* op_heightfield has no count array: columns end at op_heightfield_ends (tells code
 * built against both layouts apart). */
#define OP_HF_COLUMN_ENDS 1

/* Per column, solid spans bottom-up in one contiguous run of the span arrays: column
 * c = x + z*width holds spans [first[c], ends[c]) with ends = op_heightfield_ends(hf).
 * The rasterizer writes the columns in cell order with no gaps ("packed", supplement
 * §1.3 in input order) and first as their prefix sum: width*depth + 1 entries, the
 * last = span_used, column c's end is first[c + 1], and `end` is NULL (no per-column
 * count is stored). op_heightfield_add_span keeps each column's end in `end` (allocated
 * at its first call) and may move a column that grows to the end of the arrays,
 * leaving a gap, and clears `packed`. A span's ceiling is the next span's smin in its
 * run, or OP_HF_MAX_HEIGHT at the top. There is no limit on spans per column other
 * than memory; span indices are 32-bit. */
typedef struct op_heightfield {
    uint32_t width, depth;  /* [Units: vx] [Limit: width*depth <= OP_MAX_GRID_CELLS] */
    float bmin[3], bmax[3]; /* world bounds [Units: wu] */
    float cs, ch;           /* cell size and height [Units: wu] [Limit: > 0] */
    /* A window of the world grid (supplement §2 "Seam-exact tiles"): local column (x, z)
     * is world column (x + origin_x, z + origin_z) of a world of world_width x
     * world_depth columns; bmin, bmax and cs are the world's, so every cut plane is the
     * solo bake's. op_heightfield_init makes the whole world (origin 0, world = grid);
     * op_heightfield_set_window turns the field into a window. */
    int32_t origin_x, origin_z;
    uint32_t world_width, world_depth;
    uint32_t *first;        /* width*depth + 1: index of the column's lowest span (with
                               end NULL a prefix sum, first[width*depth] = span_used) */
    uint32_t *end;          /* NULL, or width*depth: one past the column's last span
                               (op_heightfield_add_span); read through
                               op_heightfield_ends */
    uint16_t *smin, *smax;  /* span bottom and top [Units: vx] */
    uint8_t *area;          /* area id, 0 = not walkable */
    uint32_t span_used;     /* array slots in use (live spans and gaps) */
    uint32_t span_cap;      /* array slots allocated */
    int packed;             /* columns in cell order without gaps (span_used = span_count) */
    uint32_t tail_cell;     /* when packed: the last non-empty column (0 when none) */
    uint64_t span_count;    /* live spans */
    op_allocator alloc;     /* the arrays' allocator (ctx->alloc at init) */
} op_heightfield;

/* Allocates an empty heightfield of width x depth columns. OP_INVALID_ARGUMENT for a
 * zero or too large grid or bad cs/ch, OP_NO_MEMORY when the columns cannot be
 * allocated (hf is then zeroed and op_heightfield_free is harmless). */
op_status op_heightfield_init(op_ctx *ctx, op_heightfield *hf, uint32_t width, uint32_t depth,
                              const float bmin[3], const float bmax[3], float cs, float ch);
/* Frees with the field's own allocator; a zeroed op_heightfield frees harmlessly. */
void op_heightfield_free(op_heightfield *hf);
/* A copy of src in dst with ctx's allocator (span arrays sized to src's slots in use).
 * OP_NO_MEMORY leaves dst zeroed. */
op_status op_heightfield_copy(op_ctx *ctx, op_heightfield *dst, const op_heightfield *src);

/* Makes hf (empty, from op_heightfield_init with the world's bmin, bmax, cs, ch) the
 * window of a world_width x world_depth world whose local column (0, 0) is world column
 * (origin_x, origin_z) (supplement §2 "Seam-exact tiles"). The window may reach past
 * the world on any side: those columns never receive spans, and the ledge filter and
 * the link rule treat them as off the grid, as a solo bake does. OP_INVALID_ARGUMENT
 * for an empty or too large world, or a window that does not overlap it. */
op_status op_heightfield_set_window(op_ctx *ctx, op_heightfield *hf, int32_t origin_x,
                                    int32_t origin_z, uint32_t world_width,
                                    uint32_t world_depth);

/* Adds span [smin, smax] to column (x, z) with the merge rule of supplement §1.3: every
 * span overlapping or touching it is absorbed; after each union, when |new.smax −
 * existing.smax| <= walkable_climb the area becomes the larger of the two.
 * x [Limit: < width], z [Limit: < depth], smin <= smax [Units: vx],
 * walkable_climb [Units: vx] [Limit: >= 0]. For building small fields by hand: a column
 * that grows moves to the end of the arrays (op_rasterize_triangles is the bulk path). */
op_status op_heightfield_add_span(op_ctx *ctx, op_heightfield *hf, uint32_t x, uint32_t z,
                                  uint16_t smin, uint16_t smax, uint8_t area,
                                  int walkable_climb);

/* Column iteration: for (s = op_heightfield_begin(hf, x, z); s < op_heightfield_end(hf,
 * x, z); s++) { hf->smin[s], hf->smax[s], hf->area[s] } (bottom-up). */
static inline uint32_t op_heightfield_begin(const op_heightfield *hf, uint32_t x, uint32_t z)
{
    return hf->first[(size_t)x + (size_t)z * hf->width];
}
/* ends[c]: one past column c's last span (first + 1 when end is NULL). */
static inline const uint32_t *op_heightfield_ends(const op_heightfield *hf)
{
    return hf->end ? hf->end : hf->first + 1;
}
static inline uint32_t op_heightfield_end(const op_heightfield *hf, uint32_t x, uint32_t z)
{
    return op_heightfield_ends(hf)[(size_t)x + (size_t)z * hf->width];
}
/* Live spans in the whole field. */
uint64_t op_heightfield_span_count(const op_heightfield *hf);
/* Spans in one column. */
uint32_t op_heightfield_column_count(const op_heightfield *hf, uint32_t x, uint32_t z);

/* ---- Rasterization (supplement §1.2, §1.3) ---------------------------------------- */

/* tri_areas[i] = OP_WALKABLE_AREA when triangle i's unit normal has y >
 * cosf(slope_deg/180·π) (binary32, Recast's formula), else OP_NULL_AREA.
 * slope_deg [Units: degrees] [Limit: 0..90]; tri_areas holds mesh->tri_count bytes. */
void op_mark_walkable_triangles(const op_mesh *mesh, float slope_deg, uint8_t *tri_areas);

/* Rasterizes every triangle in input order into hf with the binary32 clipping of
 * supplement §1.3. tri_areas: one area id per triangle. walkable_climb [Units: vx]
 * [Limit: >= 0] is the merge threshold. OP_BAD_INPUT for an index out of range or a
 * non-finite vertex; OP_NO_MEMORY when the span pool cannot grow. Reports progress
 * ("spans", 0..0.8) through ctx. */
op_status op_rasterize_triangles(op_ctx *ctx, op_heightfield *hf, const op_mesh *mesh,
                                 const uint8_t *tri_areas, int walkable_climb);

/* The same for the triangles list[0 .. count) of mesh, in that order (a tile's bin, in
 * input order; list = NULL means every triangle). With a window (op_heightfield_set_window)
 * a triangle that starts before the window replays its row and column cuts from its own
 * first world row and column, so every span of every window column is bit-identical to
 * the solo bake's (supplement §2 "Seam-exact tiles"). tri_areas is indexed by mesh
 * triangle. No progress is reported. */
op_status op_rasterize_triangle_list(op_ctx *ctx, op_heightfield *hf, const op_mesh *mesh,
                                     const uint8_t *tri_areas, const uint32_t *list,
                                     uint32_t count, int walkable_climb);

/* ---- Filters (supplement §1.4), to be run in this order --------------------------- */

/* A non-walkable span becomes walkable with the area of the span below when that span
 * was walkable before this filter and the floors differ by <= walkable_climb [vx]. */
void op_filter_low_hanging_obstacles(op_heightfield *hf, int walkable_climb);
/* Walkable spans at a ledge (off-grid neighbour, drop into empty space, drop to a lower
 * span, or a steep slope across accessible neighbours) get area 0. Reads geometry only.
 * walkable_height [Units: vx] [Limit: >= 1], walkable_climb [Units: vx] [Limit: >= 0]. */
void op_filter_ledge_spans(op_heightfield *hf, int walkable_height, int walkable_climb);
/* Spans with ceiling − floor < walkable_height [vx] get area 0. */
void op_filter_low_height_spans(op_heightfield *hf, int walkable_height);
/* The three filters above in their order, in one pass over the field (per column:
 * low-hanging, ledge, low height); the same areas as the three calls. */
void op_filter_spans(op_heightfield *hf, int walkable_height, int walkable_climb);

/* ---- Compact heightfield (supplement §1.5) ---------------------------------------- */

/* Every solid span with area != 0 becomes a compact span (y = smax, h = min(next.smin −
 * y, 255), 255 at the top of a column); cells x + z*width, bottom-up. Then the link rule
 * and mutual links (op_chf_build_links). out is overwritten (allocate-fresh; free it
 * with op_chf_free). walkable_height [vx] [Limit: >= 1], walkable_climb [vx] [>= 0]. */
op_status op_build_compact_heightfield(op_ctx *ctx, const op_heightfield *hf,
                                       int walkable_height, int walkable_climb, op_chf *out);
/* The same field from hf, which it consumes (freed, or its arrays taken, on success
 * and on failure): the columns become the cells and the span arrays the spans, so only
 * the links are new memory (one thread, hf packed and from ctx's allocator; else it
 * builds a new field and frees hf; hf->first must hold width*depth + 1 entries, as
 * op_heightfield_init makes it). The bytes are op_build_compact_heightfield's. */
op_status op_build_compact_heightfield_in_place(op_ctx *ctx, op_heightfield *hf,
                                                int walkable_height, int walkable_climb,
                                                op_chf *out);

/* ---- Erosion (supplement §1.6) ---------------------------------------------------- */

/* Sets area 0 on every span whose exact §1.6 distance (orthogonal 2, diagonal 3) to
 * the nearest boundary span is < 2·radius. radius [Units: vx] [Limit: >= 0]; 0 = no-op.
 * Scratch from ctx->arena (released before returning). Links are not changed. */
op_status op_erode_walkable_area(op_ctx *ctx, op_chf *chf, int radius);

/* ---- Area volumes (supplement §1.7) ----------------------------------------------- */

/* Applies the volumes in order: a walkable span (area != 0) whose cell centre lies in
 * the footprint and whose floor (bmin.y + y·ch) [Units: wu] lies in [ymin, ymax] gets the
 * volume's area (0 = obstacle). Spans already at area 0 stay 0. Links never change.
 * Arithmetic: docs/decisions.md (spans, §1.7). OP_INVALID_ARGUMENT for a bad volume. */
op_status op_apply_volumes(op_ctx *ctx, op_chf *chf, const op_volume *volumes, uint32_t count);

/* The checks op_apply_volumes makes first (kind, finite values, y range, prism vertex
 * count): OP_INVALID_ARGUMENT naming the volume. */
op_status op_volumes_validate(op_ctx *ctx, const op_volume *volumes, uint32_t count);
/* The footprint's xz bounds [Units: wu] (prism vertices, box, cylinder's square): a cell
 * whose centre is inside the footprint lies in them. */
void op_volume_footprint(const op_volume *v, double *x0, double *x1, double *z0, double *z1);

/* The world cells [0, world_w) x [0, world_d) whose centre (world_bmin.x + (x + 0.5)·cs,
 * likewise z) lies in v's footprint, as the smallest rectangle rect = {x0, x1, z0, z1}
 * (inclusive): exactly the cells op_apply_volumes_window tests true. Returns 0 (rect
 * untouched) when there is none. v must be valid (op_volumes_validate). */
int op_volume_cells(const op_volume *v, const float world_bmin[3], float cs, uint32_t world_w,
                    uint32_t world_d, uint32_t rect[4]);

/* The same on a window of the world grid whose local cell (0, 0) is world cell
 * (origin_x, origin_z): the cell centre is world_bmin.x + (gx + 0.5)·cs with the world
 * index gx (likewise z, and the floor from world_bmin.y), so every span gets the area
 * the solo bake gives it (supplement §2 "Seam-exact tiles"). */
op_status op_apply_volumes_window(op_ctx *ctx, op_chf *chf, const op_volume *volumes,
                                  uint32_t count, const float world_bmin[3], int32_t origin_x,
                                  int32_t origin_z);

/* ---- The whole stage ---------------------------------------------------------------- */

typedef struct op_spans_stats {
    uint32_t width, depth;   /* grid [Units: vx] */
    uint64_t solid_spans;    /* spans in the solid heightfield after rasterization */
    uint64_t compact_spans;  /* spans of the compact heightfield */
    uint64_t walkable_spans; /* compact spans with area != 0 at the end */
    double ms_rasterize, ms_filters, ms_compact, ms_erode, ms_volumes; /* wall time [ms] */
} op_spans_stats;

/* The spans stage (supplement §1): validate cfg, bounds from the mesh when
 * !cfg->has_bounds, mark walkable triangles, rasterize, the three filters in order,
 * compact + links, erode by walkable_radius, apply scene->volumes in order. out receives
 * a freshly allocated field (op_chf_free); on failure out is left zeroed. stats may be
 * NULL. Progress is reported as stage "spans". Timing never affects the output. */
op_status op_build_spans(op_ctx *ctx, const op_config *cfg, const op_scene *scene, op_chf *out,
                         op_spans_stats *stats);

/* A window of the world grid (supplement §2): local cell (x, z) is world cell
 * (x0 + x, z0 + z); it may reach past the world on any side. */
typedef struct op_window {
    int32_t x0, z0;        /* world cell of local cell (0, 0) [Units: vx] */
    uint32_t width, depth; /* [Units: vx] [Limit: width*depth <= OP_MAX_GRID_CELLS] */
} op_window;

/* The spans stage over a window (supplement §2 "Seam-exact tiles"): cfg->has_bounds is
 * required (the world's bounds; cfg's tile fields are not read); the triangles
 * list[0 .. count) of scene->mesh (NULL: all) are rasterized in that order with the
 * world's cut planes, then the three filters (window cells outside the world are off the
 * grid), compact + links, erosion and the volumes with world cell centres. Every span of
 * every window cell inside the world equals the solo bake's after rasterization; with a
 * margin of walkable_radius + 3 cells, the spans, links and areas of the cells that far
 * inside equal the solo bake's at the end. tri_areas (per mesh triangle, may be NULL:
 * computed here) from op_mark_walkable_triangles. The mesh is not validated as a whole
 * (each listed triangle is). out: the window's field, border_size 0, bmin/bmax the
 * window's box in binary32 (informative: geometry is computed from cfg's bounds). */
op_status op_build_spans_window(op_ctx *ctx, const op_config *cfg, const op_scene *scene,
                                const op_window *win, const uint32_t *list, uint32_t count,
                                const uint8_t *tri_areas, op_chf *out, op_spans_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
