/* The kernel tables: scalar twins first; SIMD variants override slot by slot
 * (style.md: dav1d init ladder). */
#include "core/kernels.h"

static const op_kernels scalar_table = {
    .isa = OP_ISA_SCALAR,
    .mutual_links = op_mutual_links_scalar,
    .distance_field = op_distance_field_scalar,
    .label_components = op_label_components_scalar,
    .edge_classify = op_edge_classify_scalar,
};

const op_kernels *op_kernels_for(op_isa isa)
{
    if (isa == OP_ISA_SCALAR)
        return &scalar_table;
    return NULL;
}
