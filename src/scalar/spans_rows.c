/* Row kernels of the spans stage, scalar twins: the ledge filter (supplement §1.4.2) and
 * the link rule (§1.5), one cell at a time. The SIMD twins (src/simd/spans_rows.c) take
 * runs of cells holding one span each in several lanes at once. */
#include "core/kernels.h"
#include "spans/spans_internal.h"

void op_ledge_row_scalar(const op_heightfield *hf, uint32_t z, uint32_t x0, uint32_t x1,
                         int32_t walkable_height, int32_t walkable_climb, int all3)
{
    op_ledge_cells(hf, z, x0, x1, walkable_height, walkable_climb, all3);
}

OP_LINK_ROW_FN(op_link_row_scalar)
{
    op_link_cells(chf, z, 0, chf->width, mutual, link);
}
