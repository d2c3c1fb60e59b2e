/* Contour invariant checker (regions-contours §6 promises; supplement §9.11–§9.13):
 * used by the tests and by `onepath verify`. It re-traces the raw loops itself and
 * counts boundary edges directly from the links, independent of the edge kernel. */
#include "contours/contours_internal.h"
#include "core/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chk {
    op_ctx *ctx;
    op_contour_report *rep;
} chk;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void failf(chk *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->rep->failures == 0)
        op_fail(c->ctx, OP_INTERNAL, "contour check: %s", msg);
    c->rep->failures++;
    size_t used = strlen(c->rep->first_failures);
    if (used + strlen(msg) + 2 < sizeof c->rep->first_failures)
        snprintf(c->rep->first_failures + used, sizeof c->rep->first_failures - used, "%s\n",
                 msg);
}

typedef struct pos {
    int32_t x, z;
} pos;

static int cmp_pos(const void *pa, const void *pb)
{
    const pos *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->z < b->z ? -1 : (a->z > b->z);
}

/* Every portal vertex of the raw loop (or, with no portal, its lexicographically
 * smallest and largest vertices) is at a position of the output loop. */
static void check_portals(chk *c, const op_contour *ct, const pos *sorted,
                          const op_contour_vert *raw, uint32_t n, const char *what)
{
    uint32_t lo = 0, hi = 0, portals = 0;
    for (uint32_t i = 0; i < n; i++) {
        const op_contour_vert *v = &raw[i];
        if (v->x < raw[lo].x || (v->x == raw[lo].x && v->z < raw[lo].z))
            lo = i;
        if (v->x > raw[hi].x || (v->x == raw[hi].x && v->z > raw[hi].z))
            hi = i;
        if (raw[i].neighbour == raw[(i + n - 1) % n].neighbour)
            continue;
        portals++;
        pos k = {v->x, v->z};
        c->rep->portal_checks++;
        if (!bsearch(&k, sorted, ct->vert_count, sizeof k, cmp_pos)) {
            failf(c, "region %u: portal vertex (%d, %d) of its %s is missing", ct->region,
                  v->x, v->z, what);
            return;
        }
    }
    if (!portals) {
        const uint32_t ends[2] = {lo, hi};
        for (int e = 0; e < 2; e++) {
            pos k = {raw[ends[e]].x, raw[ends[e]].z};
            c->rep->portal_checks++;
            if (!bsearch(&k, sorted, ct->vert_count, sizeof k, cmp_pos)) {
                failf(c, "region %u: extreme vertex (%d, %d) of its %s is missing",
                      ct->region, k.x, k.z, what);
                return;
            }
        }
    }
}

/* Every raw vertex of a refined stretch lies within max_error of the output loop. */
static void check_distance(chk *c, const op_contour *ct, const op_csimp *sp, int straight,
                           const op_contour_vert *raw, uint32_t n, const char *what)
{
    const double me2 = sp->max_error * sp->max_error;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t pn = raw[(i + n - 1) % n].neighbour;
        if (straight && pn == raw[i].neighbour && op__straight_stretch(sp, pn))
            continue; /* inside a straight region border: free shape (§6) */
        c->rep->distance_checks++;
        double best = -1;
        for (uint32_t j = 0; j < ct->vert_count && best != 0; j++) {
            const double d2 =
                op__seg_dist2(&raw[i], &ct->verts[j], &ct->verts[(j + 1) % ct->vert_count]);
            if (best < 0 || d2 < best)
                best = d2;
        }
        if (!(best <= me2)) {
            failf(c, "region %u: raw %s vertex (%d, %d) is %g cells from the output", ct->region,
                  what, raw[i].x, raw[i].z, best);
            return;
        }
    }
}

typedef struct sharedv {
    uint32_t lo, hi, side;
    int32_t x, z;
} sharedv;

static int cmp_shared(const void *pa, const void *pb)
{
    const sharedv *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return a->side < b->side ? -1 : (a->side > b->side);
}

/* supplement §9.13: one walkable floor per cell and every side-by-side pair of
 * same-region spans linked. */
static int shared_promise_holds(const op_chf *chf, const uint32_t *region)
{
    for (uint32_t z = 0; z < chf->depth; z++)
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            uint32_t nreg = 0;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++) {
                if (!region[s])
                    continue;
                if (++nreg > 1)
                    return 0;
                for (int d = 0; d < 4; d++) {
                    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
                    if (nx < 0 || nz < 0 || nx >= chf->width || nz >= chf->depth)
                        continue;
                    const uint32_t nc = (uint32_t)nx + (uint32_t)nz * chf->width;
                    for (uint32_t t = chf->cell_first[nc];
                         t < chf->cell_first[nc + 1]; t++)
                        if (region[t] == region[s] &&
                            !((chf->mutual[s] >> d & 1) && op_chf_link(chf, d, s) == t))
                            return 0;
                }
            }
        }
    return 1;
}

/* What the rules share: per region 0..region_count its span and boundary-edge counts,
 * area, raw-loop sums, positive loops (discovery order) and contours seen; whether a
 * fallback made its output unreliable for the shared-boundary rule. */
typedef struct cregions {
    uint32_t count; /* region_count */
    uint64_t *spans, *edges;
    int64_t *area_sum;
    uint64_t *len_sum;
    uint32_t *npos, *ncont;
    uint8_t *rarea, *unreliable;
    uint32_t **posloops; /* posloops[r][k]: trace index of region r's k-th outline */
    const op_allocator *al;
} cregions;

static int cregions_alloc(cregions *g, uint32_t region_count, const op_allocator *al)
{
    const size_t nr = (size_t)region_count + 1;
    memset(g, 0, sizeof *g);
    g->count = region_count;
    g->al = al;
    g->spans = op_mem_calloc(g->al, nr, sizeof *g->spans);
    g->edges = op_mem_calloc(g->al, nr, sizeof *g->edges);
    g->area_sum = op_mem_calloc(g->al, nr, sizeof *g->area_sum);
    g->len_sum = op_mem_calloc(g->al, nr, sizeof *g->len_sum);
    g->npos = op_mem_calloc(g->al, nr, sizeof *g->npos);
    g->ncont = op_mem_calloc(g->al, nr, sizeof *g->ncont);
    g->rarea = op_mem_calloc(g->al, nr, 1);
    g->unreliable = op_mem_calloc(g->al, nr, 1);
    return g->spans && g->edges && g->area_sum && g->len_sum && g->npos && g->ncont &&
           g->rarea && g->unreliable;
}

static void cregions_free(cregions *g)
{
    if (g->posloops)
        for (size_t r = 0; r <= g->count; r++)
            op_mem_free(g->al, g->posloops[r]);
    op_mem_free(g->al, g->posloops);
    op_mem_free(g->al, g->spans);
    op_mem_free(g->al, g->edges);
    op_mem_free(g->al, g->area_sum);
    op_mem_free(g->al, g->len_sum);
    op_mem_free(g->al, g->npos);
    op_mem_free(g->al, g->ncont);
    op_mem_free(g->al, g->rarea);
    op_mem_free(g->al, g->unreliable);
}

/* Span and boundary-edge counts per region, straight from the links (§6 Edges). */
static op_status count_edges(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                             uint32_t br, cregions *g)
{
    for (uint32_t s = 0; s < chf->span_count; s++) {
        const uint32_t r = region[s];
        if (r == 0 || (br && r == br))
            continue;
        if (r > g->count)
            return op_fail(ctx, OP_BAD_INPUT, "span %u has region %u outside 1..%u", s, r,
                           g->count);
        g->spans[r]++;
        g->rarea[r] = chf->area[s];
        for (int d = 0; d < 4; d++)
            if (!(chf->mutual[s] >> d & 1) || region[op_chf_link(chf, d, s)] != r)
                g->edges[r]++;
    }
    return OP_OK;
}

/* The raw loops of a region enclose twice its span count and are as long as its
 * boundary-edge count. */
static void check_loop_sums(chk *c, const op_ctrace *tr, cregions *g)
{
    for (uint32_t i = 0; i < tr->loop_count; i++) {
        const op_cloop *L = &tr->loops[i];
        g->area_sum[L->region] += L->area2;
        g->len_sum[L->region] += L->count;
        if (L->area2 > 0)
            g->npos[L->region]++;
    }
    for (uint32_t r = 1; r <= g->count; r++) {
        if (!g->spans[r])
            continue;
        c->rep->regions_checked++;
        if (g->area_sum[r] != (int64_t)(2 * g->spans[r]))
            failf(c, "region %u: raw loop areas sum to %lld, twice its span count is %llu", r,
                  (long long)g->area_sum[r], (unsigned long long)(2 * g->spans[r]));
        if (g->len_sum[r] != g->edges[r])
            failf(c, "region %u: raw loop lengths sum to %llu, it has %llu boundary edges", r,
                  (unsigned long long)g->len_sum[r], (unsigned long long)g->edges[r]);
    }
}

/* Positive loops per region, in discovery order: contour k of region r is the k-th. */
static int index_outlines(const op_ctrace *tr, cregions *g)
{
    const size_t nr = (size_t)g->count + 1;
    g->posloops = op_mem_calloc(g->al, nr, sizeof *g->posloops);
    if (!g->posloops)
        return 0;
    for (uint32_t r = 1; r <= g->count; r++)
        if (g->npos[r] && !(g->posloops[r] = op_mem_array(g->al, g->npos[r], sizeof **g->posloops)))
            return 0;
    memset(g->npos, 0, nr * sizeof *g->npos);
    for (uint32_t i = 0; i < tr->loop_count; i++)
        if (tr->loops[i].area2 > 0)
            g->posloops[tr->loops[i].region][g->npos[tr->loops[i].region]++] = i;
    return 1;
}

/* Contour i against the raw outline it came from and its raw holes: stored raw loop,
 * portal vertices, distance, and (§6 / supplement §9.12) self-crossing of the loops a
 * rule crossing-checks. sorted has room for the contour's vertices. Returns OP_OK or
 * OP_NO_MEMORY. */
static op_status check_contour(op_ctx *ctx, chk *c, uint32_t i, const op_contour *ct,
                               const op_contour_vert *raw, const op_cloop *L,
                               const op_csimp *sp, int straight_eff, pos *sorted)
{
    const uint32_t r = ct->region;
    if (ct->raw && (ct->raw_count != L->count ||
                    memcmp(ct->raw, raw, L->count * sizeof *raw) != 0))
        failf(c, "contour %u (region %u): stored raw outline differs from the trace", i, r);
    for (uint32_t j = 0; j < ct->vert_count; j++) {
        sorted[j].x = ct->verts[j].x;
        sorted[j].z = ct->verts[j].z;
    }
    qsort(sorted, ct->vert_count, sizeof *sorted, cmp_pos);
    check_portals(c, ct, sorted, raw, L->count, "outline");
    const int ostraight = straight_eff && !(ct->flags & (OP_CONTOUR_OUTLINE_RETRY0 |
                                                         OP_CONTOUR_OUTLINE_REFINED));
    check_distance(c, ct, sp, ostraight, raw, L->count, "outline");
    if (ct->raw_holes && !(ct->flags & (OP_CONTOUR_DROPPED_HOLES | OP_CONTOUR_SPIRAL))) {
        const op_contour_vert *h = ct->raw_holes;
        for (uint32_t q = 0; q < ct->raw_hole_count; q++) {
            check_portals(c, ct, sorted, h, ct->raw_hole_sizes[q], "hole");
            check_distance(c, ct, sp, straight_eff, h, ct->raw_hole_sizes[q], "hole");
            h += ct->raw_hole_sizes[q];
        }
    }
    /* §6 / supplement §9.11, §9.12: the loops that a rule crossing-checks; the MaxError 0
     * retry whatever StraightRegionBorders is, a raw outline never (traces do not cross). */
    const int checked = ct->hole_count ? !(ct->flags & OP_CONTOUR_JOIN_RAW)
                        : (ct->flags & OP_CONTOUR_OUTLINE_RETRY0)
                            ? 1
                            : straight_eff && !(ct->flags & OP_CONTOUR_OUTLINE_RAW);
    if (checked) {
        int crosses = 0;
        c->rep->crossing_checks++;
        if (op__loop_crosses(ctx, ct->verts, ct->vert_count, &crosses))
            return OP_NO_MEMORY;
        if (crosses)
            failf(c, "contour %u (region %u): crossing-checked loop crosses itself", i, r);
    }
    return OP_OK;
}

/* Every contour, in order: region in range and ascending, area, positive loop, then
 * check_contour against the region's next outline; afterwards one contour per outline.
 * Returns OP_OK or an error status (already set). */
static op_status check_contour_list(op_ctx *ctx, chk *c, const op_contour_settings *settings,
                                    const op_contour_set *set, const op_ctrace *tr,
                                    cregions *g)
{
    op_csimp sp;
    memset(&sp, 0, sizeof sp);
    sp.max_error = settings->max_error;
    sp.max_edge_len = settings->max_edge_len;
    sp.straight = settings->straight_region_borders != 0;
    sp.border_region = settings->border_region;
    sp.region_area = g->rarea;
    sp.region_count = g->count;
    const int straight_eff = sp.straight && sp.max_error > 0;
    uint32_t prev_region = 0;
    size_t maxv = 0;
    for (uint32_t i = 0; i < set->count; i++)
        if (set->contours[i].vert_count > maxv)
            maxv = set->contours[i].vert_count;
    pos *sorted = op_mem_array(&ctx->alloc, maxv ? maxv : 1, sizeof *sorted);
    if (!sorted)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
    op_status st = OP_OK;
    for (uint32_t i = 0; i < set->count; i++) {
        const op_contour *ct = &set->contours[i];
        const uint32_t r = ct->region;
        c->rep->contours_checked++;
        if (r == 0 || r > g->count || r < prev_region) {
            failf(c, "contour %u: region %u out of range or out of order", i, r);
            continue;
        }
        prev_region = r;
        sp.area = g->rarea[r];
        if (ct->area != g->rarea[r])
            failf(c, "contour %u: area %u, region %u has area %u", i, ct->area, r,
                  g->rarea[r]);
        if (ct->vert_count < 3 || op__loop_area2(ct->verts, ct->vert_count) <= 0) {
            failf(c, "contour %u (region %u): %u vertices, area not positive", i, r,
                  ct->vert_count);
            continue;
        }
        if (ct->flags & (OP_CONTOUR_OUTLINE_RAW | OP_CONTOUR_JOIN_RAW |
                         OP_CONTOUR_DROPPED_HOLES | OP_CONTOUR_SPIRAL))
            g->unreliable[r] = 1;
        const uint32_t k = g->ncont[r]++;
        if (k >= g->npos[r]) {
            failf(c, "region %u: more contours than outlines (%u)", r, g->npos[r]);
            continue;
        }
        const op_cloop *L = &tr->loops[g->posloops[r][k]];
        st = check_contour(ctx, c, i, ct, tr->verts + L->first, L, &sp, straight_eff, sorted);
        if (st != OP_OK)
            break;
    }
    op_mem_free(&ctx->alloc, sorted);
    if (st != OP_OK)
        return st;
    for (uint32_t r = 1; r <= g->count; r++)
        if (g->spans[r] && g->ncont[r] != g->npos[r])
            failf(c, "region %u: %u contours for %u outlines (a region disappeared?)", r,
                  g->ncont[r], g->npos[r]);
    return OP_OK;
}

/* With MaxError 0 both sides of a shared boundary keep the same vertices (§9.13): every
 * vertex of an edge toward a neighbour region appears on both sides. */
static op_status check_shared_boundaries(op_ctx *ctx, chk *c, const op_contour_set *set,
                                         const cregions *g)
{
    c->rep->shared_boundary_checked = 1;
    size_t cap = 0, n = 0;
    for (uint32_t i = 0; i < set->count; i++)
        cap += 2 * (size_t)set->contours[i].vert_count;
    sharedv *sh = op_mem_array(&ctx->alloc, cap ? cap : 1, sizeof *sh);
    if (!sh)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
    for (uint32_t i = 0; i < set->count; i++) {
        const op_contour *ct = &set->contours[i];
        for (uint32_t j = 0; j < ct->vert_count; j++) {
            const uint32_t nb = ct->verts[j].neighbour, r = ct->region;
            if (nb == 0 || nb > g->count || nb == r || g->unreliable[r] || g->unreliable[nb])
                continue;
            for (int e = 0; e < 2; e++) {
                const op_contour_vert *v = &ct->verts[(j + (uint32_t)e) % ct->vert_count];
                sharedv s = {r < nb ? r : nb, r < nb ? nb : r, r < nb ? 0u : 1u, v->x, v->z};
                sh[n++] = s;
            }
        }
    }
    qsort(sh, n, sizeof *sh, cmp_shared);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int sides = 0;
        while (b < n && sh[b].lo == sh[a].lo && sh[b].hi == sh[a].hi && sh[b].x == sh[a].x &&
               sh[b].z == sh[a].z)
            sides |= 1 << sh[b++].side;
        c->rep->shared_checks++;
        if (sides != 3) {
            failf(c, "regions %u/%u: vertex (%d, %d) kept on one side only", sh[a].lo,
                  sh[a].hi, sh[a].x, sh[a].z);
            break;
        }
        a = b;
    }
    op_mem_free(&ctx->alloc, sh);
    return OP_OK;
}

op_status op_check_contours(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t region_count, const op_contour_settings *settings,
                            const op_contour_set *set, op_contour_report *rep)
{
    op_contour_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    if (!ctx || !chf || !set || (!region && chf->span_count))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_check_contours: NULL argument");
    op_status st = op_contour_settings_validate(ctx, settings);
    if (st != OP_OK)
        return st;
    chk c = {ctx, rep};
    const uint32_t br = settings->border_region;
    cregions g;
    op_ctrace tr;
    memset(&tr, 0, sizeof tr);
    if (!cregions_alloc(&g, region_count, &ctx->alloc)) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
        goto done;
    }
    if ((st = count_edges(ctx, chf, region, br, &g)) != OP_OK)
        goto done;
    if ((st = op__contour_trace(ctx, NULL, 0, chf, region, br, 0, NULL, 1, &tr)) != OP_OK)
        goto done;
    check_loop_sums(&c, &tr, &g);
    if (!index_outlines(&tr, &g)) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
        goto done;
    }
    if ((st = check_contour_list(ctx, &c, settings, set, &tr, &g)) != OP_OK)
        goto done;
    if (settings->max_error == 0 && shared_promise_holds(chf, region) &&
        (st = check_shared_boundaries(ctx, &c, set, &g)) != OP_OK)
        goto done;
    st = rep->failures ? OP_INTERNAL : OP_OK;
done:
    cregions_free(&g);
    op__contour_trace_free(&tr);
    return st;
}
