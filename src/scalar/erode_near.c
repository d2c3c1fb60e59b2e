/* Erosion's distances below 4, scalar twin (supplement §1.6; the reasoning is in
 * src/spans/erode.c, the contract in core/kernels.h, OP_ERODE_NEAR_FN). Three passes
 * over the spans: the boundary, distance 2 with the mask of boundary neighbours, and
 * distance 3 from the neighbours' masks. */
#include "core/kernels.h"

/* The cap of a span not (yet) closer than the limit. */
#define FAR 0xffu

/* Pass 1: d[s] = 0 for boundary spans (area 0, fewer than four mutual links, or a
 * mutual link to an area-0 span), FAR for the others. */
static void mark_boundary(const op_chf *chf, const uint8_t *area, uint8_t *d, uint32_t n)
{
    const uint8_t *mutual = chf->mutual;
    for (uint32_t s = 0; s < n; s++) {
        int inner = area[s] != 0 && mutual[s] == 0xf;
        if (inner)
            inner = area[op_chf_link(chf, 0, s)] && area[op_chf_link(chf, 1, s)] &&
                    area[op_chf_link(chf, 2, s)] && area[op_chf_link(chf, 3, s)];
        d[s] = inner ? FAR : 0;
    }
}

/* Pass 2: for every non-boundary span, the mask of its neighbours that are boundary
 * spans (bit d: direction d), kept in m[]; spans with one get distance 2. Boundary
 * spans get mask 0 (never read: see pass 3). */
static void mark_two(const op_chf *chf, uint8_t *d, uint8_t *m, uint32_t n)
{
    for (uint32_t s = 0; s < n; s++) {
        uint8_t k = 0;
        if (d[s]) {
            k = (uint8_t)((d[op_chf_link(chf, 0, s)] == 0) | (d[op_chf_link(chf, 1, s)] == 0) << 1 |
                          (d[op_chf_link(chf, 2, s)] == 0) << 2 |
                          (d[op_chf_link(chf, 3, s)] == 0) << 3);
            if (k)
                d[s] = 2;
        }
        m[s] = k;
    }
}

/* Pass 3: a non-boundary span with no boundary neighbour has four non-boundary
 * neighbours, each with four mutual links, so its diagonal targets are exactly the
 * neighbours' neighbours in the perpendicular directions: it is at 3 when neighbour a
 * in direction d has a boundary neighbour in direction d+1 or d+3 (bits of m[a]).
 * When limit <= 4 nothing follows, so the areas are eroded here too (limit 0: not). */
static void mark_three(const op_chf *chf, uint8_t *area, uint8_t *d, const uint8_t *m,
                       uint32_t n, uint32_t limit)
{
    /* Directions perpendicular to 0 and 2 are 1 and 3 (mask 0xa), to 1 and 3, 0x5. */
    for (uint32_t s = 0; s < n; s++) {
        uint8_t ds = d[s];
        if (ds == FAR && ((m[op_chf_link(chf, 0, s)] | m[op_chf_link(chf, 2, s)]) & 0xa ||
                          (m[op_chf_link(chf, 1, s)] | m[op_chf_link(chf, 3, s)]) & 0x5))
            d[s] = ds = 3;
        if (ds < limit)
            area[s] = OP_NULL_AREA;
    }
}

int op_erode_near_scalar(const op_chf *chf, uint8_t *area, uint8_t *d, uint8_t *m,
                         uint32_t limit, op_arena *scratch)
{
    (void)scratch;
    const uint32_t n = chf->span_count;
    mark_boundary(chf, area, d, n);
    if (limit <= 2) {
        if (limit)
            for (uint32_t s = 0; s < n; s++)
                area[s] = d[s] == 0 ? OP_NULL_AREA : area[s];
        return 0;
    }
    mark_two(chf, d, m, n);
    mark_three(chf, area, d, m, n, limit <= 4 ? limit : 0);
    return 0;
}
