/* The link rule and mutual links of the compact heightfield (supplement §1.5). */
#include "onepath/chf.h"
#include "spans/spans_internal.h"
#include "core/kernels.h"
#include "core/links16.h"

#include <string.h>

void op_link_rowbuf_free(const op_allocator *a, op_link_rowbuf *rb)
{
    op_mem_free(a, rb->link[0]);
    memset(rb, 0, sizeof *rb);
}

int op_chf_link_rows(const op_kernels *k, op_chf *chf, uint32_t z0, uint32_t z1,
                     uint8_t *mutual, op_link_rowbuf *rb, op_link_far *far)
{
    const op_allocator *a = &chf->alloc;
    for (uint32_t z = z0; z < z1; z++) {
        /* The kernel writes the row's u32 span indices into rb (room for its vector
         * stores past the row too), then they are encoded into dlink (core/links16.h). */
        const uint32_t r0 = chf->cell_first[(size_t)z * chf->width],
                       r1 = chf->cell_first[(size_t)(z + 1) * chf->width];
        const size_t need = (size_t)(r1 - r0) + 64;
        if (need > rb->cap) {
            const size_t cap = need > 2 * rb->cap ? need : 2 * rb->cap;
            op_mem_free(a, rb->link[0]);
            rb->link[0] = op_mem_array(a, 4 * cap, sizeof(uint32_t));
            if (!rb->link[0]) {
                rb->cap = 0;
                return -1;
            }
            for (int d = 1; d < 4; d++)
                rb->link[d] = rb->link[0] + (size_t)d * cap;
            rb->cap = cap;
        }
        k->spans.link_row(chf, z, mutual, rb->link);
        for (int d = 0; d < 4; d++)
            if (op_dlinks_encode(a, chf->dlink[d] + r0, &far[d], r0, r1 - r0, rb->link[d]) != 0)
                return -1;
    }
    return 0;
}

op_status op_chf_build_links(op_ctx *ctx, op_chf *chf)
{
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    /* A field from elsewhere need not own disjoint span ranges per cell: mutual links
     * from the links themselves. */
    for (int d = 0; d < 4; d++)
        chf->far[d].count = 0;
    op_link_rowbuf rb = {0};
    const int bad = op_chf_link_rows(k, chf, 0, chf->depth, NULL, &rb, chf->far);
    op_link_rowbuf_free(&chf->alloc, &rb);
    if (bad)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the links of %u spans",
                       chf->span_count);
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
