/* The link rule and mutual links of the compact heightfield (supplement §1.5). */
#include "onepath/chf.h"
#include "core/kernels.h"

/* supplement §1.5: the lowest span of the neighbour cell that leaves walkable_height of
 * clearance in the overlap and is within walkable_climb. The four neighbour cells' span
 * ranges are looked up once per cell (most cells hold one span); the test per pair is
 * the rule's, in the same bottom-up order, so the first match is the same span. */
op_status op_chf_build_links(op_ctx *ctx, op_chf *chf)
{
    const int32_t wh = chf->walkable_height, wc = chf->walkable_climb;
    const uint32_t w = chf->width, dpt = chf->depth;
    const uint32_t *cf = chf->cell_first, *cc = chf->cell_count;
    const uint16_t *Y = chf->y, *H = chf->h;
    uint32_t *const link[4] = {chf->link[0], chf->link[1], chf->link[2], chf->link[3]};
    for (uint32_t z = 0; z < dpt; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const size_t c = (size_t)x + (size_t)z * w;
            const uint32_t s0 = cf[c], s1 = s0 + cc[c];
            if (s0 == s1)
                continue;
            /* Span ranges of the neighbour cells in directions 0 = -x, 1 = +z, 2 = +x,
             * 3 = -z (op_dir_dx/op_dir_dz); empty off the grid. */
            uint32_t t0[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0};
            if (x > 0) {
                t0[0] = cf[c - 1];
                t1[0] = t0[0] + cc[c - 1];
            }
            if (z + 1 < dpt) {
                t0[1] = cf[c + w];
                t1[1] = t0[1] + cc[c + w];
            }
            if (x + 1 < w) {
                t0[2] = cf[c + 1];
                t1[2] = t0[2] + cc[c + 1];
            }
            if (z > 0) {
                t0[3] = cf[c - w];
                t1[3] = t0[3] + cc[c - w];
            }
            for (uint32_t s = s0; s < s1; s++) {
                const int32_t sy = Y[s], stop = sy + (int32_t)H[s];
                for (int d = 0; d < 4; d++) {
                    uint32_t found = OP_NO_LINK;
                    for (uint32_t t = t0[d]; t < t1[d]; t++) {
                        const int32_t ty = Y[t], ttop = ty + (int32_t)H[t];
                        const int32_t top = stop < ttop ? stop : ttop;
                        const int32_t bot = sy > ty ? sy : ty;
                        const int32_t dy = ty - sy;
                        if (top - bot >= wh && dy <= wc && -dy <= wc) {
                            found = t;
                            break;
                        }
                    }
                    link[d][s] = found;
                }
            }
        }
    }
    op_chf_build_mutual(ctx, chf);
    return OP_OK;
}

void op_chf_build_mutual(op_ctx *ctx, op_chf *chf)
{
    const op_mutual_links_fn mutual = ctx ? ctx->k->links.mutual : op_mutual_links_scalar;
    mutual(chf, chf->mutual, 0, chf->span_count);
}
