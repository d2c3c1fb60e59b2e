/* Kernel tables (style.md: dav1d's cdef.h). One struct of function pointers per
 * family; every slot is filled with its scalar twin from src/scalar/ first and then
 * overridden up the ISA ladder by the SIMDe kernels of src/simd/ (same file names).
 * A kernel returns void (or a count); it allocates nothing except from the arena it
 * is handed, which reports exhaustion by returning nonzero. */
#ifndef ONEPATH_KERNELS_H
#define ONEPATH_KERNELS_H

#include "onepath/chf.h"

typedef struct op_kernels {
    op_isa isa;

    /* Mutual-link derivation (supplement §1.5) for spans [begin, end): bit d of
     * mutual[s] when link[d][s] = t != OP_NO_LINK and link[(d+2)&3][t] = s. */
    void (*mutual_links)(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end);

    /* Exact distance field (supplement §1.6, regions-contours §1): the shortest path to
     * the nearest boundary span (area 0, fewer than four mutual links, or a mutual link
     * to an area-0 span) over orthogonal (2) and diagonal (3) steps, no cap. area is
     * passed separately from chf->area so erosion and regions can share it.
     * Returns 0, or nonzero when the arena is exhausted. */
    int (*distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                          op_arena *scratch);

    /* Connected components of "mutually linked, same area (!= 0), and same layer when
     * layer != NULL", ids 1.. in order of first span; spans with area 0 get 0.
     * Writes the component count to *count. Returns 0 or nonzero on arena exhaustion. */
    int (*label_components)(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                            uint32_t *labels, uint32_t *count, op_arena *scratch);

    /* Edge classification (regions-contours §6, Edges) for spans [begin, end): bit d of
     * mask[s] when the edge of s in direction d is a boundary edge, i.e. the neighbour
     * value (region of the mutual neighbour, else 0 / TileBorder) differs from
     * region[s]. Spans with region 0 or region == border_region get mask 0. */
    void (*edge_classify)(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                          uint8_t *mask, uint32_t begin, uint32_t end);
} op_kernels;

/* The table of a variant; NULL when this build does not contain it. The scalar table
 * is always present. */
const op_kernels *op_kernels_for(op_isa isa);

/* supplement §1.6: the boundary rule of the distance field (area 0, fewer than four
 * mutual links, or a mutual link to an area-0 span); shared by both twins. */
int op_distance_is_boundary(const op_chf *chf, const uint8_t *area, uint32_t s);

/* Scalar twins (src/scalar/). */
void op_mutual_links_scalar(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end);
int op_distance_field_scalar(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch);
int op_label_components_scalar(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                               uint32_t *labels, uint32_t *count, op_arena *scratch);
void op_edge_classify_scalar(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                             uint8_t *mask, uint32_t begin, uint32_t end);

#endif
