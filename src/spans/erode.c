/* Erosion by the agent radius (supplement §1.6).
 *
 * Only "distance < L = 2·radius" is asked, so a bounded search replaces the full
 * distance field: distances are capped at L (u8 while L fits, which every sensible
 * radius does) and only spans closer than L to the boundary are ever settled.
 *
 * Distances are 0 (boundary) or at least 2 (one step), so
 * - dist = 2 exactly when a mutual neighbour is a boundary span;
 * - dist = 3 exactly when not 2 and a diagonal target is a boundary span; for a span
 *   whose four neighbours are all non-boundary (so all have four mutual links) that is
 *   "some neighbour a in direction d has a boundary neighbour in a direction
 *   perpendicular to d", read from a per-span mask of boundary neighbours;
 * - every larger distance D has a shortest path whose last step leaves a span at D-2
 *   or D-3 >= 2, so Dial's buckets started from the spans at 2 and 3 finish the field
 *   up to L - 1 exactly (the scalar distance twin's search, cut at L).
 * Three passes over the spans give everything below 4 (radius <= 2, the usual agent);
 * larger radii add the bounded search over the spans that erode. The boundary is taken
 * from the areas as they are before this pass, so the result does not depend on the
 * visiting order. Tested against the full distance field (tests/spans). */
#include "onepath/spans.h"
#include "core/kernels.h"
#include "core/alloc.h"

#include <string.h>

/* The cap of a span not (yet) closer than L. */
#define FAR 0xffu
/* Largest L handled with u8 distances (FAR must stay above every settled value). */
#define MAX_LIMIT 254u

/* The full distance field, for limits beyond u8 (radius > 127 cells). */
static op_status erode_full(op_ctx *ctx, op_chf *chf, uint64_t limit)
{
    uint32_t *dist = op_scratch(ctx, chf->span_count, sizeof(uint32_t));
    if (!dist)
        return OP_NO_MEMORY;
    if (ctx->k->distance.field(chf, chf->area, dist, &ctx->arena))
        return op_fail(ctx, OP_NO_MEMORY, "out of scratch memory in the erosion distance field");
    for (uint32_t s = 0; s < chf->span_count; s++)
        if (dist[s] < limit)
            chf->area[s] = OP_NULL_AREA;
    return OP_OK;
}

/* Pass 1: d[s] = 0 for boundary spans (area 0, fewer than four mutual links, or a
 * mutual link to an area-0 span), FAR for the others. */
static void mark_boundary(const op_chf *chf, uint8_t *d, uint32_t lo, uint32_t hi)
{
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint32_t *l0 = chf->link[0], *l1 = chf->link[1], *l2 = chf->link[2],
                   *l3 = chf->link[3];
    for (uint32_t s = lo; s < hi; s++) {
        int inner = area[s] != 0 && mutual[s] == 0xf;
        if (inner)
            inner = area[l0[s]] && area[l1[s]] && area[l2[s]] && area[l3[s]];
        d[s] = inner ? FAR : 0;
    }
}

/* Pass 2: for every non-boundary span, the mask of its neighbours that are boundary
 * spans (bit d: direction d), kept in m[]; spans with one get distance 2. Boundary
 * spans get mask 0 (never read: see pass 3). */
static void mark_two(const op_chf *chf, uint8_t *d, uint8_t *m, uint32_t lo, uint32_t hi)
{
    const uint32_t *l0 = chf->link[0], *l1 = chf->link[1], *l2 = chf->link[2],
                   *l3 = chf->link[3];
    for (uint32_t s = lo; s < hi; s++) {
        uint8_t k = 0;
        if (d[s]) {
            k = (uint8_t)((d[l0[s]] == 0) | (d[l1[s]] == 0) << 1 | (d[l2[s]] == 0) << 2 |
                          (d[l3[s]] == 0) << 3);
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
static void mark_three(const op_chf *chf, uint8_t *d, const uint8_t *m, uint32_t lo,
                       uint32_t hi, uint32_t limit)
{
    const uint32_t *l0 = chf->link[0], *l1 = chf->link[1], *l2 = chf->link[2],
                   *l3 = chf->link[3];
    uint8_t *area = chf->area;
    /* Directions perpendicular to 0 and 2 are 1 and 3 (mask 0xa), to 1 and 3, 0x5. */
    for (uint32_t s = lo; s < hi; s++) {
        uint8_t ds = d[s];
        if (ds == FAR && ((m[l0[s]] | m[l2[s]]) & 0xa || (m[l1[s]] | m[l3[s]]) & 0x5))
            d[s] = ds = 3;
        if (ds < limit)
            area[s] = OP_NULL_AREA;
    }
}

/* Passes 1 to 3 over the whole field (right for any link graph); with limit <= 4 the
 * third also erodes. */
static void three_passes(const op_chf *chf, uint8_t *d, uint8_t *m, uint32_t limit)
{
    const uint32_t n = chf->span_count;
    mark_boundary(chf, d, 0, n);
    mark_two(chf, d, m, 0, n);
    mark_three(chf, d, m, 0, n, limit <= 4 ? limit : 0);
}

/* Dial's search from the spans at 2 and 3 up to limit - 1 (limit > 4): four circular
 * buckets, as in the scalar distance twin, each holding one distance value at a time.
 * They grow with the frontier (through the allocator hook), not with the field. */
typedef struct bucket {
    uint32_t *p;
    size_t n, cap;
} bucket;

static int bucket_push(op_ctx *ctx, bucket *b, uint32_t s)
{
    if (b->n == b->cap) {
        const size_t cap = b->cap ? b->cap * 2 : 4096;
        uint32_t *p = op_mem_realloc(&ctx->alloc, b->p, cap * sizeof *p);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    b->p[b->n++] = s;
    return 1;
}

static op_status search(op_ctx *ctx, const op_chf *chf, uint8_t *d, uint32_t limit,
                        bucket *bk)
{
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++)
        if ((d[s] == 2 || d[s] == 3) && !bucket_push(ctx, &bk[d[s]], s))
            return OP_NO_MEMORY;
    const uint8_t *mutual = chf->mutual;
    for (uint32_t D = 2; D < limit; D++) {
        const int b = (int)(D & 3);
        if (bk[0].n + bk[1].n + bk[2].n + bk[3].n == 0)
            break;
        const uint32_t t2 = D + 2, t3 = D + 3;
        /* Pushes go to the two other buckets (D + 2, D + 3), never to this one. */
        for (size_t i = 0; i < bk[b].n; i++) {
            const uint32_t s = bk[b].p[i];
            if (d[s] != D)
                continue; /* stale: settled earlier at a smaller distance */
            const uint8_t ms = mutual[s];
            if (t2 < limit) {
                for (int k = 0; k < 4; k++) {
                    if (!(ms >> k & 1))
                        continue;
                    const uint32_t t = chf->link[k][s];
                    if (t2 < d[t]) {
                        d[t] = (uint8_t)t2;
                        if (!bucket_push(ctx, &bk[(b + 2) & 3], t))
                            return OP_NO_MEMORY;
                    }
                }
            }
            if (t3 >= limit)
                continue;
            for (int k = 0; k < 4; k++) {
                if (!(ms >> k & 1))
                    continue;
                const uint32_t a = chf->link[k][s];
                for (int e = 1; e < 4; e += 2) {
                    const int k2 = (k + e) & 3;
                    if (!(mutual[a] >> k2 & 1))
                        continue;
                    const uint32_t t = chf->link[k2][a];
                    if (t3 < d[t]) {
                        d[t] = (uint8_t)t3;
                        if (!bucket_push(ctx, &bk[(b + 3) & 3], t))
                            return OP_NO_MEMORY;
                    }
                }
            }
        }
        bk[b].n = 0;
    }
    return OP_OK;
}

static op_status bounded_search(op_ctx *ctx, const op_chf *chf, uint8_t *d, uint32_t limit)
{
    bucket bk[4] = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}};
    const op_status st = search(ctx, chf, d, limit, bk);
    for (int b = 0; b < 4; b++)
        op_mem_free(&ctx->alloc, bk[b].p);
    return st;
}

/* supplement §1.6: every span whose exact distance (orthogonal 2, diagonal 3 reached
 * either way) to the nearest boundary span is below 2·radius becomes area 0. */
op_status op_erode_walkable_area(op_ctx *ctx, op_chf *chf, int radius)
{
    if (radius < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "erosion radius must be >= 0 (got %d)", radius);
    if (radius == 0 || chf->span_count == 0)
        return OP_OK;
    const uint32_t n = chf->span_count;
    const uint64_t limit = 2 * (uint64_t)radius;
    const op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    op_status st = OP_OK;
    if (limit > MAX_LIMIT) {
        st = erode_full(ctx, chf, limit);
        op_arena_release(&ctx->arena, mark);
        return st;
    }
    uint8_t *d = op_scratch(ctx, n, 1);
    uint8_t *m = limit > 2 ? op_scratch(ctx, n, 1) : NULL;
    if (!d || (limit > 2 && !m)) {
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "erosion: out of scratch memory (%u spans)", n);
    }
    uint8_t *area = chf->area;
    if (limit == 2) { /* radius 1 erodes the boundary spans alone */
        mark_boundary(chf, d, 0, n);
        for (uint32_t s = 0; s < n; s++)
            area[s] = d[s] == 0 ? OP_NULL_AREA : area[s];
    } else { /* limit is even: 4 (distances 0, 2, 3) or more */
        three_passes(chf, d, m, (uint32_t)limit);
        if (limit > 4) {
            if ((st = bounded_search(ctx, chf, d, (uint32_t)limit)) != OP_OK) {
                op_arena_release(&ctx->arena, mark);
                return op_fail(ctx, st, "erosion: out of scratch memory (%u spans)", n);
            }
            for (uint32_t s = 0; s < n; s++)
                area[s] = d[s] < limit ? OP_NULL_AREA : area[s];
        }
    }
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}
