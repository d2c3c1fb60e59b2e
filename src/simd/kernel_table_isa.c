/* The kernel table of one SIMD variant (compiled once per ISA, cmake/simd.cmake):
 * every slot points at this variant's SIMDe kernel (style.md: dav1d init ladder;
 * src/core/kernel_tables.c picks the table). */
#include "simd/simd_width.h"

void OP_FN(op_mutual_links)(const op_chf *chf, uint8_t *mutual, uint32_t begin, uint32_t end);
int OP_FN(op_distance_field)(const op_chf *chf, const uint8_t *area, uint32_t *dist,
                             op_arena *scratch);
int OP_FN(op_label_components)(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                               uint32_t *labels, uint32_t *count, op_arena *scratch);
void OP_FN(op_edge_classify)(const op_chf *chf, const uint32_t *region, uint32_t border_region,
                             uint8_t *mask, uint32_t begin, uint32_t end);

extern const op_kernels OP_FN(op_kernels);
const op_kernels OP_FN(op_kernels) = {
    .isa = OP_ISA_ID,
    .mutual_links = OP_FN(op_mutual_links),
    .distance_field = OP_FN(op_distance_field),
    .label_components = OP_FN(op_label_components),
    .edge_classify = OP_FN(op_edge_classify),
};
