/* The kernel tables (style.md "Kernel tables"; dav1d's *_dsp_init): per family, every
 * slot gets its scalar twin, then the family's init ladder overrides slot by slot, one
 * rung per variant in the order of cmake/simd.cmake's table, and stops at the first
 * rung whose CPU flag is missing. A rung exists only when this build compiled its
 * variant (OP_HAVE_ISA_*, generated op_isa_table.h) and only for the slots the
 * variant improves. portable is a ladder of its own: when its flag is set (only when
 * forced), it replaces the scalar slots and the native rungs are not run. */
#include "core/kernels.h"

#include "op_isa_table.h"

#include <string.h>

#if OP_HAVE_ISA_SSE2
OP_DECLARE_VARIANT(sse2);
#endif
#if OP_HAVE_ISA_SSE41
OP_DECLARE_VARIANT(sse41);
#endif
#if OP_HAVE_ISA_AVX2
OP_DECLARE_VARIANT(avx2);
#endif
#if OP_HAVE_ISA_AVX512
OP_DECLARE_VARIANT(avx512);
#endif
#if OP_HAVE_ISA_NEON
OP_DECLARE_VARIANT(neon);
#endif
#if OP_HAVE_ISA_PORTABLE
OP_DECLARE_VARIANT(portable);
#endif

/* The rungs of a ladder, in the order of the table: OP_RUNG_<ISA>(slots) stops the
 * ladder unless the CPU has the variant's flag, then sets the slots the variant
 * improves (none: the rung only stops); a variant this build did not compile is no
 * rung. OP_RUNG_PORTABLE(slots), first, sets the portable slots and ends the ladder
 * when its flag is set. */
#if OP_HAVE_ISA_PORTABLE
#define OP_RUNG_PORTABLE(...)         \
    if (flags & OP_CPU_PORTABLE) {    \
        __VA_ARGS__;                  \
        return;                       \
    }
#else
#define OP_RUNG_PORTABLE(...)
#endif
#define OP_RUNG(flag, ...)            \
    if (!(flags & (flag)))            \
        return;                       \
    __VA_ARGS__
#if OP_HAVE_ISA_NEON
#define OP_RUNG_NEON(...) OP_RUNG(OP_CPU_NEON, __VA_ARGS__)
#else
#define OP_RUNG_NEON(...)
#endif
#if OP_HAVE_ISA_SSE2
#define OP_RUNG_SSE2(...) OP_RUNG(OP_CPU_SSE2, __VA_ARGS__)
#else
#define OP_RUNG_SSE2(...)
#endif
#if OP_HAVE_ISA_SSE41
#define OP_RUNG_SSE41(...) OP_RUNG(OP_CPU_SSE41, __VA_ARGS__)
#else
#define OP_RUNG_SSE41(...)
#endif
#if OP_HAVE_ISA_AVX2
#define OP_RUNG_AVX2(...) OP_RUNG(OP_CPU_AVX2, __VA_ARGS__)
#else
#define OP_RUNG_AVX2(...)
#endif
#if OP_HAVE_ISA_AVX512
#define OP_RUNG_AVX512(...) OP_RUNG(OP_CPU_AVX512, __VA_ARGS__)
#else
#define OP_RUNG_AVX512(...)
#endif
/* The ladder of a family that every variant improves: SET(sfx) sets its slots to
 * variant sfx's kernels. */
#define OP_LADDER(SET)                  \
    SET(scalar);                        \
    OP_RUNG_PORTABLE(SET(portable));    \
    OP_RUNG_NEON(SET(neon));            \
    OP_RUNG_SSE2(SET(sse2));            \
    OP_RUNG_SSE41(SET(sse41));          \
    OP_RUNG_AVX2(SET(avx2));            \
    OP_RUNG_AVX512(SET(avx512));        \
    (void)flags

/* Links and edges: mutual links (supplement §1.5), edge classification (§6), the 16-bit
 * links' block decoder (core/links16.h). */
#define LINKS(sfx)                                                                    \
    f->mutual = op_mutual_links_##sfx, f->edges = op_edge_classify_##sfx,             \
    f->decode = op_links_decode_##sfx
static void links_init(op_links_kernels *f, uint32_t flags)
{
    OP_LADDER(LINKS);
}

/* Distance field and erosion's distances below 4 (supplement §1.6). */
#define DISTANCE(sfx) f->field = op_distance_field_##sfx, f->erode_near = op_erode_near_##sfx
static void distance_init(op_distance_kernels *f, uint32_t flags)
{
    OP_LADDER(DISTANCE);
}

/* Span-graph labelling (regions-contours §4). */
#define LABEL(sfx) f->components = op_label_components_##sfx
static void label_init(op_label_kernels *f, uint32_t flags)
{
    OP_LADDER(LABEL);
}

/* Triangle clip (supplement §1.3). No sse2 slot: without a byte shuffle the clip's
 * tables would be emulated lane by lane, slower than the scalar twin. The batch slot
 * (8 lanes of 32 bits) only from AVX2 on: below, the scalar twin stays (the rasterizer
 * then clips every triangle alone); so do the per-triangle slots (the binning's rows,
 * the walkable marking: eight triangles a step). */
#define CLIP_ROWS(sfx) f->clip_rows = op_clip_rows_##sfx
#define CLIP_BATCH(sfx) f->clip_batch = op_clip_batch_##sfx
#define ROWS_OF(sfx) f->rows_of = op_clip_rows_many_##sfx
#define WALKABLE(sfx) f->walkable = op_mark_walkable_##sfx
static void raster_init(op_raster_kernels *f, uint32_t flags)
{
    CLIP_ROWS(scalar), CLIP_BATCH(scalar), ROWS_OF(scalar), WALKABLE(scalar);
    OP_RUNG_PORTABLE(CLIP_ROWS(portable));
    OP_RUNG_NEON(CLIP_ROWS(neon));
    OP_RUNG_SSE2();
    OP_RUNG_SSE41(CLIP_ROWS(sse41));
    OP_RUNG_AVX2(CLIP_ROWS(avx2), CLIP_BATCH(avx2), ROWS_OF(avx2), WALKABLE(avx2));
    OP_RUNG_AVX512(CLIP_ROWS(avx512), CLIP_BATCH(avx512), ROWS_OF(avx512), WALKABLE(avx512));
    (void)flags;
}

/* Solid heightfield and compaction rows: ledges (supplement §1.4.2), links (§1.5). */
#define SPANS(sfx) f->ledge_row = op_ledge_row_##sfx, f->link_row = op_link_row_##sfx
static void spans_init(op_spans_kernels *f, uint32_t flags)
{
    OP_LADDER(SPANS);
}

/* Grid labelling of one chunk (topology.md "Behavior"; supplement §10.2). Every variant
 * has its own: the runs and union-find of src/simd/grid_label.c. */
#define GRID_LABEL(sfx) f->label = op_grid_label_##sfx
static void grid_label_init(op_grid_label_kernels *f, uint32_t flags)
{
    OP_LADDER(GRID_LABEL);
}

/* Contour simplification's farthest point (regions-contours §6, supplement §9.10). The
 * SSE2 rung keeps the scalar twin (SSE2 has no 32-bit multiply). */
#define FARTHEST(sfx) \
    f->farthest_keys = op_farthest_keys_##sfx, f->farthest_pick = op_farthest_pick_##sfx
static void contour_init(op_contour_kernels *f, uint32_t flags)
{
    FARTHEST(scalar);
    OP_RUNG_PORTABLE(FARTHEST(portable));
    OP_RUNG_NEON(FARTHEST(neon));
    OP_RUNG_SSE2();
    OP_RUNG_SSE41(FARTHEST(sse41));
    OP_RUNG_AVX2(FARTHEST(avx2));
    OP_RUNG_AVX512(FARTHEST(avx512));
    (void)flags;
}

/* Region passes' spans of interest (regions-contours §5): the scan's only from AVX-512
 * on (its lane masks; below, the gathers of its -x / -z regions would not beat the
 * scalar twin's plain loop); the value changes in every variant. */
#define SCAN_BITS(sfx) f->scan_bits = op_region_scan_bits_##sfx
#define CHANGE_BITS(sfx) f->change_bits = op_value_change_bits_##sfx
static void regions_init(op_regions_kernels *f, uint32_t flags)
{
    SCAN_BITS(scalar), CHANGE_BITS(scalar);
    OP_RUNG_PORTABLE(CHANGE_BITS(portable));
    OP_RUNG_NEON(CHANGE_BITS(neon));
    OP_RUNG_SSE2(CHANGE_BITS(sse2));
    OP_RUNG_SSE41(CHANGE_BITS(sse41));
    OP_RUNG_AVX2(CHANGE_BITS(avx2));
    OP_RUNG_AVX512(SCAN_BITS(avx512), CHANGE_BITS(avx512));
    (void)flags;
}

/* The digests' XXH3 update (supplement §5): only the wider vectors improve on the twin,
 * which is xxHash's own SSE2 (x86-64) or NEON (AArch64) code already; on demo-1936's
 * compact field (116 MB of OPCHFD1 records) AVX2 takes op_digest_chf from ~13 to ~9 ms
 * (docs/decisions/bake-speed.md, round 10). */
#define DIGEST(sfx) f->update = op_digest_update_##sfx
static void digest_init(op_digest_kernels *f, uint32_t flags)
{
    DIGEST(scalar);
    OP_RUNG_PORTABLE();
    OP_RUNG_NEON();
    OP_RUNG_SSE2();
    OP_RUNG_SSE41();
    OP_RUNG_AVX2(DIGEST(avx2));
    OP_RUNG_AVX512(DIGEST(avx512));
    (void)flags;
}

void op_kernels_init(op_kernels *k, op_isa isa, uint32_t flags)
{
    k->isa = isa;
    links_init(&k->links, flags);
    distance_init(&k->distance, flags);
    label_init(&k->label, flags);
    raster_init(&k->raster, flags);
    spans_init(&k->spans, flags);
    grid_label_init(&k->grid_label, flags);
    contour_init(&k->contour, flags);
    regions_init(&k->regions, flags);
    digest_init(&k->digest, flags);
}

/* Family by family: a struct of function pointers has no padding to compare. */
int op_kernels_same(const op_kernels *a, const op_kernels *b)
{
    return a->isa == b->isa && !memcmp(&a->links, &b->links, sizeof a->links) &&
           !memcmp(&a->distance, &b->distance, sizeof a->distance) &&
           !memcmp(&a->label, &b->label, sizeof a->label) &&
           !memcmp(&a->raster, &b->raster, sizeof a->raster) &&
           !memcmp(&a->spans, &b->spans, sizeof a->spans) &&
           !memcmp(&a->grid_label, &b->grid_label, sizeof a->grid_label) &&
           !memcmp(&a->contour, &b->contour, sizeof a->contour) &&
           !memcmp(&a->regions, &b->regions, sizeof a->regions) &&
           !memcmp(&a->digest, &b->digest, sizeof a->digest);
}
