/* The link rule and mutual links of the compact heightfield (supplement §1.5). */
#include "onepath/chf.h"
#include "spans/spans_internal.h"
#include "core/kernels.h"

void op_chf_link_rows(const op_kernels *k, op_chf *chf, uint32_t z0, uint32_t z1,
                      uint8_t *mutual)
{
    for (uint32_t z = z0; z < z1; z++) {
        /* The kernel writes u32 span indices per row; they are the layout here. */
        const uint32_t r0 = chf->cell_first[(size_t)z * chf->width];
        uint32_t *const link[4] = {chf->link[0] + r0, chf->link[1] + r0, chf->link[2] + r0,
                                   chf->link[3] + r0};
        k->spans.link_row(chf, z, mutual, link);
    }
}

op_status op_chf_build_links(op_ctx *ctx, op_chf *chf)
{
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    /* A field from elsewhere need not own disjoint span ranges per cell: mutual links
     * from the links themselves. */
    op_chf_link_rows(k, chf, 0, chf->depth, NULL);
    op_chf_build_mutual(ctx, chf);
    return OP_OK;
}

void op_chf_build_mutual(op_ctx *ctx, op_chf *chf)
{
    const op_mutual_links_fn mutual = ctx ? ctx->k->links.mutual : op_mutual_links_scalar;
    mutual(chf, chf->mutual, 0, chf->span_count);
}

op_kernels *op_spans_scalar_kernels(op_kernels *k)
{
    op_kernels_init(k, OP_ISA_SCALAR, 0);
    return k;
}

op_kernels *op_spans_best_kernels(op_kernels *k)
{
    const op_isa isa = op_isa_best();
    op_kernels_init(k, isa, op_isa_flags(isa));
    return k;
}
