/* Kernel tables (style.md "Kernel tables", dav1d's cdef.h / cdef_tmpl.c / x86 init).
 *
 * One struct of function pointers per kernel family. Every signature is written once,
 * as a macro (OP_<SLOT>_FN(name)) that declares the scalar twin, each variant's
 * suffixed entry point and the slot's pointer type alike, so a mismatch does not
 * compile. src/core/kernel_tables.c fills every slot with its scalar twin
 * (src/scalar/) and then runs the family's init ladder: one rung per SIMD variant
 * (src/simd/, the same file names, compiled once per ISA with a name suffix), lowest
 * first, each returning early when the CPU flags lack that rung
 * (`if (!(flags & OP_CPU_AVX2)) return;`). A rung overrides only the slots its
 * variant improves, so a family need not exist for every ISA; every slot is always
 * callable. The context holds the resulting table (op_ctx.k, filled by
 * op_kernels_init); a forced variant (op_ctx_set_isa, --isa, ONEPATH_ISA) runs the
 * ladders on op_isa_flags(isa): its rungs up to and including it.
 *
 * Kernels return void (or 0 / nonzero for "the arena ran out"); they allocate nothing
 * except from the arena they are handed.
 *
 * Adding a family (as the topology layer's grid labelling was added):
 *  1. Here: a signature macro per slot (OP_GRID_LABEL_FN), a struct op_grid_label_kernels
 *     of pointers, a member `grid_label` in op_kernels, the scalar twin's declaration,
 *     and the suffixed entry points in OP_DECLARE_VARIANT.
 *  2. The scalar twin in src/scalar/<name>.c; SIMD kernels, if any, in src/simd/<name>.c
 *     (same name; cmake/simd.cmake compiles it once per variant automatically).
 *  3. src/core/kernel_tables.c: a grid_label_init(f, flags) that sets the scalar slots
 *     and has a rung for each variant that has the kernel, called from
 *     op_kernels_init; the family's line in op_kernels_same.
 *  4. tests/kernels/test_kernels_checkasm.c: a check comparing every variant's slot with
 *     the scalar twin (it already skips slots a variant inherits).
 * Callers reach the family as ctx->k->grid_label.<slot>(...). */
#ifndef ONEPATH_KERNELS_H
#define ONEPATH_KERNELS_H

#include "onepath/chf.h"
#include "onepath/spans.h"
#include "spans/raster_clip.h"

/* ---- links and edges -------------------------------------------------------------- */

/* Mutual-link derivation (supplement §1.5) for spans [begin, end): bit d of
 * mutual[s] when link[d][s] = t != OP_NO_LINK and link[(d+2)&3][t] = s. */
#define OP_MUTUAL_LINKS_FN(name) \
    void name(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end)

/* Edge classification (regions-contours §6, Edges) for spans [begin, end): bit d of
 * mask[s] when the edge of s in direction d is a boundary edge, i.e. the neighbour
 * value (region of the mutual neighbour, else 0 / TileBorder) differs from
 * region[s]. Spans with region 0 or region == border_region get mask 0. With area
 * (not NULL), also bit 4 (OP_EDGE_BREAK) of such an active span when s = 0 or its region
 * or area differs from span s - 1's: the spans the contour stage's region check looks
 * up (op_build_contours). Bits 5..7 are 0. */
#define OP_EDGE_CLASSIFY_FN(name)                                                  \
    void name(const op_chf *chf, const uint32_t *region, const uint8_t *area,    \
              uint32_t border_region, uint8_t *mask, uint32_t begin, uint32_t end)
#define OP_EDGE_BREAK 0x10u

/* The 16-bit links' block decoder (core/links16.h): out[i] = s0 + i + dl[i] where dl[i]
 * is a delta (>= OP_DLINK_MIN), OP_NO_LINK where it is OP_DLINK_NONE or OP_DLINK_FAR;
 * returns how many of dl[0 .. n) are OP_DLINK_FAR (op_dlinks_decode then reads those from
 * the far table). */
#define OP_LINKS_DECODE_FN(name) \
    uint32_t name(const int16_t *dl, uint32_t s0, uint32_t n, uint32_t *out)

typedef OP_MUTUAL_LINKS_FN((*op_mutual_links_fn));
typedef OP_EDGE_CLASSIFY_FN((*op_edge_classify_fn));
typedef OP_LINKS_DECODE_FN((*op_links_decode_fn));

typedef struct op_links_kernels {
    op_mutual_links_fn mutual;
    op_edge_classify_fn edges;
    op_links_decode_fn decode;
} op_links_kernels;

/* ---- distance --------------------------------------------------------------------- */

/* Exact distance field (supplement §1.6, regions-contours §1): the shortest path to
 * the nearest boundary span (area 0, fewer than four mutual links, or a mutual link
 * to an area-0 span) over orthogonal (2) and diagonal (3) steps, no cap. area is
 * passed separately from chf->area so erosion and regions can share it.
 * Returns 0, or nonzero when the arena is exhausted. */
#define OP_DISTANCE_FIELD_FN(name) \
    int name(const op_chf *chf, const uint8_t *area, uint32_t *dist, op_arena *scratch)

typedef OP_DISTANCE_FIELD_FN((*op_distance_field_fn));

/* Erosion's distances below 4 (supplement §1.6; src/spans/erode.c has the reasoning):
 * d[s] = 0 for boundary spans (the rule below, on area), 0xff for the others; with
 * limit > 2 then m[s] = the mask of s's neighbours that are boundary spans (bit d:
 * direction d; 0 for boundary spans), d[s] = 2 where m[s] != 0, and d[s] = 3 where a
 * span still at 0xff has a diagonal target at 0. With limit <= 4 every span whose d
 * is below limit gets area 0 (after all reads of area); m is unused when limit <= 2.
 * Returns 0, or nonzero when the arena is exhausted (the twins never do: the SIMD one's
 * scratch falls back to the scalar one, which needs none). */
#define OP_ERODE_NEAR_FN(name)                                                          \
    int name(const op_chf *chf, uint8_t *area, uint8_t *d, uint8_t *m, uint32_t limit, \
             op_arena *scratch)

typedef OP_ERODE_NEAR_FN((*op_erode_near_fn));

typedef struct op_distance_kernels {
    op_distance_field_fn field;
    op_erode_near_fn erode_near;
} op_distance_kernels;

/* supplement §1.6: the boundary rule of the distance field (area 0, fewer than four
 * mutual links, or a mutual link to an area-0 span); shared by both twins. */
int op_distance_is_boundary(const op_chf *chf, const uint8_t *area, uint32_t s);

/* ---- labelling -------------------------------------------------------------------- */

/* What span-graph labelling reads: a graph of count spans, with per direction d the
 * neighbour op_chf_link(links, d, s) (valid where bit d of mutual[s] is set; mutual[]
 * symmetric, as the supplement §1.5 derivation makes it), the area of every span and
 * optionally a layer per span. Only links' storage is taken from the field (read
 * through op_chf_link / op_chf_links_at, whatever its layout: memory.md round 8); the
 * mutual mask, areas and layers are the caller's. */
typedef struct op_label_view {
    uint32_t count;
    const op_chf *links;
    const uint8_t *mutual;
    const uint8_t *area;
    const uint32_t *layer; /* NULL: no layer condition */
} op_label_view;

/* The view of a compact heightfield's span graph with the given areas and layers. */
static inline op_label_view op_label_view_of(const op_chf *chf, const uint8_t *area,
                                             const uint32_t *layer)
{
    op_label_view v = {chf->span_count, chf, chf->mutual, area, layer};
    return v;
}

/* Connected components of "mutually linked, same area (!= 0), and same layer when
 * v->layer != NULL", ids 1.. in order of first span; spans with area 0 get 0.
 * Writes the component count to *count. Returns 0 or nonzero on arena exhaustion. */
#define OP_LABEL_COMPONENTS_FN(name) \
    int name(const op_label_view *v, uint32_t *labels, uint32_t *count, op_arena *scratch)

typedef OP_LABEL_COMPONENTS_FN((*op_label_components_fn));

typedef struct op_label_kernels {
    op_label_components_fn components;
} op_label_kernels;

/* ---- rasterization ---------------------------------------------------------------- */

/* Triangle clip (supplement §1.3), spans/raster_clip.h: a triangle's rows and columns
 * into pieces, the scalar twin's pieces in its order (OP_CLIP_ROWS_FN there). */
/* Walkable triangles (supplement §1.2) for triangles 0 .. n-1 of tris (indices into
 * verts, nv vertices): areas[i] = OP_WALKABLE_AREA when the unit normal's y (binary32)
 * exceeds thr (the slope's cosine), else OP_NULL_AREA. */
#define OP_MARK_WALKABLE_FN(name)                                                          \
    void name(const float *verts, uint32_t nv, const uint32_t *tris, uint32_t n, float thr, \
              uint8_t *areas)
typedef OP_MARK_WALKABLE_FN((*op_mark_walkable_fn));

typedef struct op_raster_kernels {
    op_clip_rows_fn clip_rows;
    op_clip_batch_fn clip_batch; /* many small triangles at once (OP_CLIP_BATCH_FN) */
    op_clip_rows_many_fn rows_of; /* many triangles' rows (OP_CLIP_ROWS_MANY_FN) */
    op_mark_walkable_fn walkable; /* walkable triangles (OP_MARK_WALKABLE_FN) */
} op_raster_kernels;

/* ---- solid heightfield and compaction rows ---------------------------------------- */

/* The ledge filter (supplement §1.4.2) for the cells [x0, x1) of row z of a solid
 * heightfield whose four neighbour columns are all on the grid: walkable spans that are
 * ledges get area 0. With all3 nonzero, per column the low-hanging filter (§1.4.1)
 * before it and the low-height filter (§1.4.3) after it: the three filters in one pass. */
#define OP_LEDGE_ROW_FN(name)                                                            \
    void name(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,            \
              int32_t walkable_height, int32_t walkable_climb, int all3)
/* The link rule (supplement §1.5) for the spans of row z of a compact heightfield:
 * link[d][s - r0] for every direction and span s of the row (r0 = cell_first[z·width],
 * the row's first span; OP_NO_LINK off the grid), u32 span indices into the caller's
 * buffers, which the caller stores in the field's layout; the cells and spans of rows
 * z - 1 .. z + 1 are in place. mutual != NULL: also mutual[s] for the row's spans (bit d
 * when link[d][s] = t and link[(d+2)&3][t] = s), from the cells alone; only for a field
 * whose cells own disjoint span ranges (spans/spans_internal.h, op_link_cells). */
#define OP_LINK_ROW_FN(name) \
    void name(const op_chf *chf, uint32_t z, uint8_t *mutual, uint32_t *const link[4])

typedef OP_LEDGE_ROW_FN((*op_ledge_row_fn));
typedef OP_LINK_ROW_FN((*op_link_row_fn));

typedef struct op_spans_kernels {
    op_ledge_row_fn ledge_row;
    op_link_row_fn link_row;
} op_spans_kernels;

/* ---- grid labelling (topology) ---------------------------------------------------- */

/* The passable components of a cx·cy·cz byte mask (pass[t] != 0 is passable), tiles in
 * local order lx + ly·cx + lz·cx·cy, face steps (hex, 2D only: also (+1,-1) and
 * (-1,+1)); ids 1, 2, ... by each component's first tile in that order, which are the
 * ids of topology.md's flood (supplement §10.2). Writes every label (0 = impassable)
 * and returns the count; scratch holds op_grid_label_scratch_size(cx, cy, cz) bytes. */
#define OP_GRID_LABEL_FN(name)                                                           \
    uint32_t name(const uint8_t *pass, uint32_t cx, uint32_t cy, uint32_t cz, int hex,   \
                  uint32_t *labels, void *scratch)

typedef OP_GRID_LABEL_FN((*op_grid_label_fn));

typedef struct op_grid_label_kernels {
    op_grid_label_fn label;
} op_grid_label_kernels;

/* Scratch bytes every variant of the family needs for one chunk shape. */
size_t op_grid_label_scratch_size(uint32_t cx, uint32_t cy, uint32_t cz);

/* ---- contour simplification ------------------------------------------------------- */

/* The farthest point of a simplification stretch (regions-contours §6 step 2,
 * supplement §9.10) over the points (x[i], z[i]), i in [0, n), against the chord
 * seg = {ax, az, bx, bz}. With dot = (p - a)·(b - a) and len2 = |b - a|², a point is of
 * kind 0 when len2 = 0 or dot < 0 (key |p - a|²), of kind 1 when dot > len2 (key
 * |p - b|²), else of kind 2 (key |(p - a) x (b - a)|: d² = key² / len2). The caller
 * keeps every coordinate difference among the points, a and b below 2^15 in magnitude
 * (every value fits int32), and x, z have 15 readable elements past n within the same
 * bounds (a vector step may load them; their lanes are ignored). keys: keys[k] = the
 * largest key of kind k (-1: none). */
#define OP_FARTHEST_KEYS_FN(name)                                          \
    void name(const int32_t *x, const int32_t *z, uint32_t n, const int32_t seg[4], \
              int32_t keys[3])
/* pick: the index of the first point, among those with the smallest (x, z), whose key
 * equals want[kind] (want[k] = -1 wants nothing of kind k); n when there is none. */
#define OP_FARTHEST_PICK_FN(name)                                              \
    uint32_t name(const int32_t *x, const int32_t *z, uint32_t n, const int32_t seg[4], \
                  const int32_t want[3])

typedef OP_FARTHEST_KEYS_FN((*op_farthest_keys_fn));
typedef OP_FARTHEST_PICK_FN((*op_farthest_pick_fn));

typedef struct op_contour_kernels {
    op_farthest_keys_fn farthest_keys;
    op_farthest_pick_fn farthest_pick;
} op_contour_kernels;

/* ---- regions: the §5 scan's spans of interest ------------------------------------- */

/* The spans of [begin, end) that the region graph's scan (regions-contours §5,
 * src/regions/region_graph.c) must visit: bit i of bits[i / 64] (i = s - begin; every
 * word up to the one of end - 1 written) is set when span s starts a new value
 * (region[s] != region[s - 1], and region[-1] reads as 0), or region[s] != 0 and area[s]
 * is 0, or region[s] != 0 and the span's -x (bit 0) or -z (bit 3) mutual neighbour holds
 * another value. Between two set bits region[] is constant and every span with a region
 * has both those neighbours in it. Spans with region 0 read no link. */
#define OP_REGION_SCAN_BITS_FN(name)                                                    \
    void name(const op_chf *chf, const uint32_t *region, uint32_t begin, uint32_t end, \
              uint64_t *bits)

/* The spans of [begin, end) where v[] changes, for passes over runs of one value (the
 * §5.3 numbering): bit i of bits[i / 64] (i = s - begin; every word up to the one of
 * end - 1 written) is set when v[s] != v[s - 1], and v[-1] reads as 0. */
#define OP_VALUE_CHANGE_BITS_FN(name) \
    void name(const uint32_t *v, uint32_t begin, uint32_t end, uint64_t *bits)

typedef OP_REGION_SCAN_BITS_FN((*op_region_scan_bits_fn));
typedef OP_VALUE_CHANGE_BITS_FN((*op_value_change_bits_fn));

typedef struct op_regions_kernels {
    op_region_scan_bits_fn scan_bits;
    op_value_change_bits_fn change_bits;
} op_regions_kernels;

/* ---- digests ---------------------------------------------------------------------- */

/* XXH3-64's streaming update (supplement §5: every digest is XXH3-64 of its byte
 * stream) on an XXH3_state_t of xxhash.h, opaque here: appends len bytes at data. XXH3
 * is defined by its bytes, not by its vector width, so after the call every variant's
 * state equals the scalar twin's (each variant is xxHash compiled for that ISA; the
 * twin is xxHash as the library's baseline compiles it). */
#define OP_DIGEST_UPDATE_FN(name) void name(void *xxh3_state, const void *data, size_t len)

typedef OP_DIGEST_UPDATE_FN((*op_digest_update_fn));

typedef struct op_digest_kernels {
    op_digest_update_fn update;
} op_digest_kernels;

/* ---- the table -------------------------------------------------------------------- */

typedef struct op_kernels {
    op_isa isa; /* the variant whose ladders filled the table */
    op_links_kernels links;
    op_distance_kernels distance;
    op_label_kernels label;
    op_raster_kernels raster;
    op_spans_kernels spans;
    op_grid_label_kernels grid_label;
    op_contour_kernels contour;
    op_regions_kernels regions;
    op_digest_kernels digest;
} op_kernels;

/* CPU flags, one per SIMD variant: set when the CPU runs everything that variant is
 * compiled for (cmake/simd.cmake's table; src/core/isa.c reads them). */
enum {
    OP_CPU_SSE2 = 1u << OP_ISA_SSE2,
    OP_CPU_SSE41 = 1u << OP_ISA_SSE41,
    OP_CPU_AVX2 = 1u << OP_ISA_AVX2,
    OP_CPU_AVX512 = 1u << OP_ISA_AVX512,
    OP_CPU_NEON = 1u << OP_ISA_NEON,
    OP_CPU_PORTABLE = 1u << OP_ISA_PORTABLE,
};

/* What this CPU runs (every flag whose variant's features it has). */
uint32_t op_cpu_flags(void);
/* The flags that select variant isa's ladder up to and including it: op_cpu_flags()
 * narrowed to isa's rung and the rungs below it (dav1d's CPU mask). Portable is a
 * ladder of its own (scalar, then portable); scalar selects no rung. */
uint32_t op_isa_flags(op_isa isa);
/* 1 when this build contains variant isa's kernels. */
int op_isa_compiled(op_isa isa);

/* Fills k: every slot with its scalar twin, then every family's ladder on flags;
 * k->isa = isa. */
void op_kernels_init(op_kernels *k, op_isa isa, uint32_t flags);
/* 1 when a and b hold the same variant and the same kernel in every slot. */
int op_kernels_same(const op_kernels *a, const op_kernels *b);

/* ---- entry points ----------------------------------------------------------------- */

/* Scalar twins (src/scalar/). */
OP_MUTUAL_LINKS_FN(op_mutual_links_scalar);
OP_EDGE_CLASSIFY_FN(op_edge_classify_scalar);
OP_LINKS_DECODE_FN(op_links_decode_scalar);
OP_DISTANCE_FIELD_FN(op_distance_field_scalar);
OP_ERODE_NEAR_FN(op_erode_near_scalar);
OP_LABEL_COMPONENTS_FN(op_label_components_scalar);
/* op_clip_rows_scalar: spans/raster_clip.h */
OP_MARK_WALKABLE_FN(op_mark_walkable_scalar);
OP_LEDGE_ROW_FN(op_ledge_row_scalar);
OP_LINK_ROW_FN(op_link_row_scalar);
OP_GRID_LABEL_FN(op_grid_label_scalar);
OP_FARTHEST_KEYS_FN(op_farthest_keys_scalar);
OP_FARTHEST_PICK_FN(op_farthest_pick_scalar);
OP_REGION_SCAN_BITS_FN(op_region_scan_bits_scalar);
OP_VALUE_CHANGE_BITS_FN(op_value_change_bits_scalar);
OP_DIGEST_UPDATE_FN(op_digest_update_scalar);

/* The suffixed entry points of one SIMD variant (src/simd/; OP_FN in simd_width.h).
 * Declared for every variant the build has, also where a ladder leaves one out. */
#define OP_DECLARE_VARIANT(sfx) OP_DECLARE_VARIANT_(sfx)
#define OP_DECLARE_VARIANT_(sfx)                   \
    OP_MUTUAL_LINKS_FN(op_mutual_links_##sfx);     \
    OP_EDGE_CLASSIFY_FN(op_edge_classify_##sfx);   \
    OP_LINKS_DECODE_FN(op_links_decode_##sfx);     \
    OP_DISTANCE_FIELD_FN(op_distance_field_##sfx); \
    OP_ERODE_NEAR_FN(op_erode_near_##sfx);         \
    OP_LABEL_COMPONENTS_FN(op_label_components_##sfx); \
    OP_CLIP_ROWS_FN(op_clip_rows_##sfx);           \
    OP_CLIP_BATCH_FN(op_clip_batch_##sfx);         \
    OP_CLIP_ROWS_MANY_FN(op_clip_rows_many_##sfx); \
    OP_MARK_WALKABLE_FN(op_mark_walkable_##sfx);   \
    OP_LEDGE_ROW_FN(op_ledge_row_##sfx);           \
    OP_LINK_ROW_FN(op_link_row_##sfx);             \
    OP_GRID_LABEL_FN(op_grid_label_##sfx);         \
    OP_FARTHEST_KEYS_FN(op_farthest_keys_##sfx);   \
    OP_FARTHEST_PICK_FN(op_farthest_pick_##sfx);   \
    OP_REGION_SCAN_BITS_FN(op_region_scan_bits_##sfx);   \
    OP_VALUE_CHANGE_BITS_FN(op_value_change_bits_##sfx); \
    OP_DIGEST_UPDATE_FN(op_digest_update_##sfx)

#endif
