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
 * they are a kernel (ctx->k->distance.erode_near: src/scalar/erode_near.c and its SIMD
 * twin src/simd/erode_near.c). Larger radii add the bounded search over the spans that
 * erode. The boundary is taken
 * from the areas as they are before this pass, so the result does not depend on the
 * visiting order. Tested against the full distance field (tests/spans). */
#include "onepath/spans.h"
#include "core/kernels.h"
#include "core/alloc.h"
#include "core/prefault.h"

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
                    const uint32_t t = op_chf_link(chf, k, s);
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
                const uint32_t a = op_chf_link(chf, k, s);
                for (int e = 1; e < 4; e += 2) {
                    const int k2 = (k + e) & 3;
                    if (!(mutual[a] >> k2 & 1))
                        continue;
                    const uint32_t t = op_chf_link(chf, k2, a);
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
    /* The kernel writes every d[] and m[] (passes 1 and 2): a fresh block's pages mapped
     * at once (docs/decisions/bake-speed.md, round 8). */
    uint8_t *d = op_scratch_prefaulted(ctx, n, 1);
    uint8_t *m = limit > 2 ? op_scratch_prefaulted(ctx, n, 1) : NULL;
    if (!d || (limit > 2 && !m)) {
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "erosion: out of scratch memory (%u spans)", n);
    }
    /* Passes 1 to 3 (the kernel; limit <= 4 also erodes), then the search. */
    if (ctx->k->distance.erode_near(chf, chf->area, d, m, (uint32_t)limit, &ctx->arena)) {
        op_arena_release(&ctx->arena, mark);
        return op_fail(ctx, OP_NO_MEMORY, "erosion: out of scratch memory (%u spans)", n);
    }
    if (limit > 4) {
        if ((st = bounded_search(ctx, chf, d, (uint32_t)limit)) != OP_OK) {
            op_arena_release(&ctx->arena, mark);
            return op_fail(ctx, st, "erosion: out of scratch memory (%u spans)", n);
        }
        uint8_t *area = chf->area;
        for (uint32_t s = 0; s < n; s++)
            area[s] = d[s] < limit ? OP_NULL_AREA : area[s];
    }
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}
