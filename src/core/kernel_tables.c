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

/* Links and edges: mutual links (supplement §1.5), edge classification (§6). */
static void links_init(op_links_kernels *f, uint32_t flags)
{
    f->mutual = op_mutual_links_scalar;
    f->edges = op_edge_classify_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->mutual = op_mutual_links_portable;
        f->edges = op_edge_classify_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->mutual = op_mutual_links_neon;
    f->edges = op_edge_classify_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
    f->mutual = op_mutual_links_sse2;
    f->edges = op_edge_classify_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->mutual = op_mutual_links_sse41;
    f->edges = op_edge_classify_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->mutual = op_mutual_links_avx2;
    f->edges = op_edge_classify_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->mutual = op_mutual_links_avx512;
    f->edges = op_edge_classify_avx512;
#endif
    (void)flags;
}

/* Distance field (supplement §1.6). */
static void distance_init(op_distance_kernels *f, uint32_t flags)
{
    f->field = op_distance_field_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->field = op_distance_field_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->field = op_distance_field_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
    f->field = op_distance_field_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->field = op_distance_field_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->field = op_distance_field_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->field = op_distance_field_avx512;
#endif
    (void)flags;
}

/* Span-graph labelling (regions-contours §4). */
static void label_init(op_label_kernels *f, uint32_t flags)
{
    f->components = op_label_components_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->components = op_label_components_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->components = op_label_components_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
    f->components = op_label_components_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->components = op_label_components_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->components = op_label_components_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->components = op_label_components_avx512;
#endif
    (void)flags;
}

/* Triangle clip (supplement §1.3). No sse2 rung: without a byte shuffle the clip's
 * tables would be emulated lane by lane, slower than the scalar twin. The batch slot
 * (8 lanes of 32 bits) only from AVX2 on: below, the scalar twin stays (the rasterizer
 * then clips every triangle alone). */
static void raster_init(op_raster_kernels *f, uint32_t flags)
{
    f->clip_rows = op_clip_rows_scalar;
    f->clip_batch = op_clip_batch_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->clip_rows = op_clip_rows_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->clip_rows = op_clip_rows_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->clip_rows = op_clip_rows_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->clip_rows = op_clip_rows_avx2;
    f->clip_batch = op_clip_batch_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->clip_rows = op_clip_rows_avx512;
    f->clip_batch = op_clip_batch_avx512;
#endif
    (void)flags;
}

/* Solid heightfield and compaction rows: ledges (supplement §1.4.2), links (§1.5). */
static void spans_init(op_spans_kernels *f, uint32_t flags)
{
    f->ledge_row = op_ledge_row_scalar;
    f->link_row = op_link_row_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->ledge_row = op_ledge_row_portable;
        f->link_row = op_link_row_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->ledge_row = op_ledge_row_neon;
    f->link_row = op_link_row_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
    f->ledge_row = op_ledge_row_sse2;
    f->link_row = op_link_row_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->ledge_row = op_ledge_row_sse41;
    f->link_row = op_link_row_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->ledge_row = op_ledge_row_avx2;
    f->link_row = op_link_row_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->ledge_row = op_ledge_row_avx512;
    f->link_row = op_link_row_avx512;
#endif
    (void)flags;
}

/* Grid labelling of one chunk (topology.md "Behavior"; supplement §10.2). Every variant
 * has its own: the runs and union-find of src/simd/grid_label.c. */
static void grid_label_init(op_grid_label_kernels *f, uint32_t flags)
{
    f->label = op_grid_label_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->label = op_grid_label_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->label = op_grid_label_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
    f->label = op_grid_label_sse2;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->label = op_grid_label_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->label = op_grid_label_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->label = op_grid_label_avx512;
#endif
    (void)flags;
}

/* Contour simplification's farthest point (regions-contours §6, supplement §9.10). The
 * SSE2 rung keeps the scalar twin (SSE2 has no 32-bit multiply). */
static void contour_init(op_contour_kernels *f, uint32_t flags)
{
    f->farthest_keys = op_farthest_keys_scalar;
    f->farthest_pick = op_farthest_pick_scalar;
#if OP_HAVE_ISA_PORTABLE
    if (flags & OP_CPU_PORTABLE) {
        f->farthest_keys = op_farthest_keys_portable;
        f->farthest_pick = op_farthest_pick_portable;
        return;
    }
#endif
#if OP_HAVE_ISA_NEON
    if (!(flags & OP_CPU_NEON))
        return;
    f->farthest_keys = op_farthest_keys_neon;
    f->farthest_pick = op_farthest_pick_neon;
#endif
#if OP_HAVE_ISA_SSE2
    if (!(flags & OP_CPU_SSE2))
        return;
#endif
#if OP_HAVE_ISA_SSE41
    if (!(flags & OP_CPU_SSE41))
        return;
    f->farthest_keys = op_farthest_keys_sse41;
    f->farthest_pick = op_farthest_pick_sse41;
#endif
#if OP_HAVE_ISA_AVX2
    if (!(flags & OP_CPU_AVX2))
        return;
    f->farthest_keys = op_farthest_keys_avx2;
    f->farthest_pick = op_farthest_pick_avx2;
#endif
#if OP_HAVE_ISA_AVX512
    if (!(flags & OP_CPU_AVX512))
        return;
    f->farthest_keys = op_farthest_keys_avx512;
    f->farthest_pick = op_farthest_pick_avx512;
#endif
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
           !memcmp(&a->contour, &b->contour, sizeof a->contour);
}
