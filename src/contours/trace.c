/* Contour tracing (regions-contours §6, Edges and Tracing; supplement §9.1, §9.6):
 * the boundary mask from the edge-classification kernel, then the (span, dir) state
 * machine from every unvisited boundary edge in span-index, then direction order. */
#include "contours/contours_internal.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/kernels.h"

#include <string.h>

void op__contour_trace_free(op_ctrace *t)
{
    op_mem_free(&t->alloc, t->verts);
    op_mem_free(&t->alloc, t->loops);
    memset(t, 0, sizeof *t);
}

int64_t op__loop_area2(const op_contour_vert *v, uint32_t n)
{
    int64_t a = 0;
    for (uint32_t i = 0, j = n ? n - 1 : 0; i < n; j = i++)
        a += (int64_t)v[j].x * v[i].z - (int64_t)v[i].x * v[j].z;
    return a;
}

/* Neighbour value (regions-contours §6 Edges, supplement §9.6): the mutual neighbour's
 * region; else 0 inside the grid, TileBorder outside. */
static uint32_t neighbour_value(const op_chf *chf, const uint32_t *region, uint32_t s,
                                int32_t x, int32_t z, int d)
{
    if (chf->mutual[s] >> d & 1)
        return region[chf->link[d][s]];
    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
    if (nx < 0 || nz < 0 || nx >= (int64_t)chf->width || nz >= (int64_t)chf->depth)
        return OP_TILE_BORDER;
    return 0;
}

/* Vertex Y (regions-contours §6, supplement §9.1): the highest floor among the span and
 * the spans around the edge's start corner, which is shared with directions d and
 * (d+1) mod 4; the diagonal is every span reached by either order of the two steps. */
static int32_t corner_y(const op_chf *chf, uint32_t s, int d)
{
    const int e = (d + 1) & 3;
    uint32_t y = chf->y[s];
    const uint8_t mu = chf->mutual[s];
    if (mu >> d & 1) {
        const uint32_t a = chf->link[d][s];
        if (chf->y[a] > y)
            y = chf->y[a];
        if (chf->mutual[a] >> e & 1) {
            const uint32_t c = chf->link[e][a];
            if (chf->y[c] > y)
                y = chf->y[c];
        }
    }
    if (mu >> e & 1) {
        const uint32_t b = chf->link[e][s];
        if (chf->y[b] > y)
            y = chf->y[b];
        if (chf->mutual[b] >> d & 1) {
            const uint32_t c = chf->link[d][b];
            if (chf->y[c] > y)
                y = chf->y[c];
        }
    }
    return (int32_t)y;
}

op_status op__contour_trace(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t border_region, op_ctrace *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t n = chf->span_count;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint8_t *mask = op_scratch(ctx, n ? n : 1, 1);
    if (!mask)
        return OP_NO_MEMORY;
    ctx->k->links.edges(chf, region, border_region, mask, 0, n);
    size_t edges = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint8_t m = mask[s];
        edges += (size_t)((m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1));
    }
    out->alloc = ctx->alloc;
    out->verts = op_mem_array(&out->alloc, edges ? edges : 1, sizeof *out->verts);
    if (!out->verts ||
        op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap, 64,
                      sizeof *out->loops, UINT32_MAX) != OP_OK) {
        op__contour_trace_free(out);
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu contour edges", edges);
    }
    /* Corner offsets of the start corner of the edge in direction d. */
    static const int cx[4] = {0, 1, 1, 0}, cz[4] = {1, 1, 0, 0};
    size_t nv = 0;
    for (uint32_t z = 0; z < chf->depth; z++) {
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            const uint32_t end = chf->cell_first[c] + chf->cell_count[c];
            for (uint32_t s0 = chf->cell_first[c]; s0 < end; s0++) {
                for (int d0 = 0; d0 < 4; d0++) {
                    if (!(mask[s0] >> d0 & 1))
                        continue; /* not a boundary edge, or visited (bit cleared) */
                    if (op_array_grow(&out->alloc, (void **)&out->loops, &out->loop_cap,
                                      (size_t)out->loop_count + 1, sizeof *out->loops,
                                      UINT32_MAX) != OP_OK) {
                        op__contour_trace_free(out);
                        op_arena_release(&ctx->arena, mark);
                        return op_fail(ctx, OP_NO_MEMORY, "out of memory for loops");
                    }
                    op_cloop *L = &out->loops[out->loop_count++];
                    L->region = region[s0];
                    L->first = nv;
                    uint32_t s = s0;
                    int32_t sx = (int32_t)x, sz = (int32_t)z;
                    int d = d0;
                    /* The state map is a permutation, so the orbit returns to its first
                     * state; the guard only protects against a corrupt field. */
                    uint64_t guard = 4ull * n + 8;
                    do {
                        if (mask[s] >> d & 1) {
                            op_contour_vert *v = &out->verts[nv++];
                            v->x = sx + cx[d];
                            v->z = sz + cz[d];
                            v->y = corner_y(chf, s, d);
                            v->neighbour = neighbour_value(chf, region, s, sx, sz, d);
                            /* visited: boundary bit moves to the high nibble */
                            mask[s] = (uint8_t)((mask[s] & ~(1u << d)) | (0x10u << d));
                            d = (d + 3) & 3;
                        } else if (mask[s] >> (4 + d) & 1) {
                            /* A visited boundary edge of an earlier loop cannot lie on
                             * this orbit (orbits are disjoint). */
                            guard = 0;
                        } else {
                            s = chf->link[d][s];
                            sx += op_dir_dx(d);
                            sz += op_dir_dz(d);
                            d = (d + 1) & 3;
                        }
                        if (guard-- == 0) {
                            op__contour_trace_free(out);
                            op_arena_release(&ctx->arena, mark);
                            return op_fail(ctx, OP_INTERNAL,
                                           "contour trace from span %u dir %d does not close",
                                           s0, d0);
                        }
                    } while (!(s == s0 && d == d0));
                    L->count = (uint32_t)(nv - L->first);
                    L->area2 = op__loop_area2(out->verts + L->first, L->count);
                }
            }
        }
    }
    out->vert_count = nv;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}
