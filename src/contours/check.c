/* Contour invariant checker (regions-contours §6 promises; supplement §9.11–§9.13):
 * used by the tests and by `onepath verify`. It re-traces the raw loops itself and
 * counts boundary edges directly from the links, independent of the edge kernel. */
#include "contours/contours_internal.h"

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
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c] + chf->cell_count[c]; s++) {
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
                         t < chf->cell_first[nc] + chf->cell_count[nc]; t++)
                        if (region[t] == region[s] &&
                            !((chf->mutual[s] >> d & 1) && chf->link[d][s] == t))
                            return 0;
                }
            }
        }
    return 1;
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
    const size_t nr = (size_t)region_count + 1;
    uint64_t *spans = calloc(nr, sizeof *spans), *edges = calloc(nr, sizeof *edges);
    int64_t *area_sum = calloc(nr, sizeof *area_sum);
    uint64_t *len_sum = calloc(nr, sizeof *len_sum);
    uint32_t *npos = calloc(nr, sizeof *npos), *ncont = calloc(nr, sizeof *ncont);
    uint8_t *rarea = calloc(nr, 1), *unreliable = calloc(nr, 1);
    uint32_t **posloops = NULL;
    op_ctrace tr;
    memset(&tr, 0, sizeof tr);
    pos *sorted = NULL;
    sharedv *sh = NULL;
    if (!spans || !edges || !area_sum || !len_sum || !npos || !ncont || !rarea || !unreliable) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
        goto done;
    }
    /* Span and boundary-edge counts per region, straight from the links (§6 Edges). */
    for (uint32_t s = 0; s < chf->span_count; s++) {
        const uint32_t r = region[s];
        if (r == 0 || (br && r == br))
            continue;
        if (r > region_count) {
            st = op_fail(ctx, OP_BAD_INPUT, "span %u has region %u outside 1..%u", s, r,
                         region_count);
            goto done;
        }
        spans[r]++;
        rarea[r] = chf->area[s];
        for (int d = 0; d < 4; d++)
            if (!(chf->mutual[s] >> d & 1) || region[chf->link[d][s]] != r)
                edges[r]++;
    }
    st = op__contour_trace(ctx, chf, region, br, &tr);
    if (st != OP_OK)
        goto done;
    for (uint32_t i = 0; i < tr.loop_count; i++) {
        const op_cloop *L = &tr.loops[i];
        area_sum[L->region] += L->area2;
        len_sum[L->region] += L->count;
        if (L->area2 > 0)
            npos[L->region]++;
    }
    for (uint32_t r = 1; r <= region_count; r++) {
        if (!spans[r])
            continue;
        rep->regions_checked++;
        if (area_sum[r] != (int64_t)(2 * spans[r]))
            failf(&c, "region %u: raw loop areas sum to %lld, twice its span count is %llu", r,
                  (long long)area_sum[r], (unsigned long long)(2 * spans[r]));
        if (len_sum[r] != edges[r])
            failf(&c, "region %u: raw loop lengths sum to %llu, it has %llu boundary edges", r,
                  (unsigned long long)len_sum[r], (unsigned long long)edges[r]);
    }
    /* Positive loops per region, in discovery order: contour k of region r is the k-th. */
    posloops = calloc(nr, sizeof *posloops);
    if (!posloops) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
        goto done;
    }
    for (uint32_t r = 1; r <= region_count; r++)
        if (npos[r] && !(posloops[r] = malloc(npos[r] * sizeof **posloops))) {
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
            goto done;
        }
    memset(npos, 0, nr * sizeof *npos);
    for (uint32_t i = 0; i < tr.loop_count; i++)
        if (tr.loops[i].area2 > 0)
            posloops[tr.loops[i].region][npos[tr.loops[i].region]++] = i;

    op_csimp sp;
    memset(&sp, 0, sizeof sp);
    sp.max_error = settings->max_error;
    sp.max_edge_len = settings->max_edge_len;
    sp.straight = settings->straight_region_borders != 0;
    sp.border_region = br;
    sp.region_area = rarea;
    sp.region_count = region_count;
    const int straight_eff = sp.straight && sp.max_error > 0;
    uint32_t prev_region = 0;
    size_t maxv = 0;
    for (uint32_t i = 0; i < set->count; i++)
        if (set->contours[i].vert_count > maxv)
            maxv = set->contours[i].vert_count;
    sorted = malloc((maxv ? maxv : 1) * sizeof *sorted);
    if (!sorted) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
        goto done;
    }
    for (uint32_t i = 0; i < set->count; i++) {
        const op_contour *ct = &set->contours[i];
        const uint32_t r = ct->region;
        rep->contours_checked++;
        if (r == 0 || r > region_count || r < prev_region) {
            failf(&c, "contour %u: region %u out of range or out of order", i, r);
            continue;
        }
        prev_region = r;
        sp.area = rarea[r];
        if (ct->area != rarea[r])
            failf(&c, "contour %u: area %u, region %u has area %u", i, ct->area, r, rarea[r]);
        if (ct->vert_count < 3 || op__loop_area2(ct->verts, ct->vert_count) <= 0) {
            failf(&c, "contour %u (region %u): %u vertices, area not positive", i, r,
                  ct->vert_count);
            continue;
        }
        if (ct->flags & (OP_CONTOUR_OUTLINE_RAW | OP_CONTOUR_JOIN_RAW |
                         OP_CONTOUR_DROPPED_HOLES | OP_CONTOUR_SPIRAL))
            unreliable[r] = 1;
        const uint32_t k = ncont[r]++;
        if (k >= npos[r]) {
            failf(&c, "region %u: more contours than outlines (%u)", r, npos[r]);
            continue;
        }
        const op_cloop *L = &tr.loops[posloops[r][k]];
        const op_contour_vert *raw = tr.verts + L->first;
        if (ct->raw && (ct->raw_count != L->count ||
                        memcmp(ct->raw, raw, L->count * sizeof *raw) != 0))
            failf(&c, "contour %u (region %u): stored raw outline differs from the trace", i, r);
        for (uint32_t j = 0; j < ct->vert_count; j++) {
            sorted[j].x = ct->verts[j].x;
            sorted[j].z = ct->verts[j].z;
        }
        qsort(sorted, ct->vert_count, sizeof *sorted, cmp_pos);
        check_portals(&c, ct, sorted, raw, L->count, "outline");
        const int ostraight = straight_eff && !(ct->flags & (OP_CONTOUR_OUTLINE_RETRY0 |
                                                             OP_CONTOUR_OUTLINE_REFINED));
        check_distance(&c, ct, &sp, ostraight, raw, L->count, "outline");
        if (ct->raw_holes && !(ct->flags & (OP_CONTOUR_DROPPED_HOLES | OP_CONTOUR_SPIRAL))) {
            const op_contour_vert *h = ct->raw_holes;
            for (uint32_t q = 0; q < ct->raw_hole_count; q++) {
                check_portals(&c, ct, sorted, h, ct->raw_hole_sizes[q], "hole");
                check_distance(&c, ct, &sp, straight_eff, h, ct->raw_hole_sizes[q], "hole");
                h += ct->raw_hole_sizes[q];
            }
        }
        /* §6 / supplement §9.12: the loops that a rule crossing-checks. */
        const int checked = ct->hole_count ? !(ct->flags & OP_CONTOUR_JOIN_RAW)
                                           : straight_eff && !(ct->flags & (OP_CONTOUR_OUTLINE_RAW |
                                                                           OP_CONTOUR_OUTLINE_RETRY0));
        if (checked) {
            int crosses = 0;
            rep->crossing_checks++;
            if (op__loop_crosses(ctx, ct->verts, ct->vert_count, &crosses)) {
                st = OP_NO_MEMORY;
                goto done;
            }
            if (crosses)
                failf(&c, "contour %u (region %u): crossing-checked loop crosses itself", i, r);
        }
    }
    for (uint32_t r = 1; r <= region_count; r++)
        if (spans[r] && ncont[r] != npos[r])
            failf(&c, "region %u: %u contours for %u outlines (a region disappeared?)", r,
                  ncont[r], npos[r]);
    /* With MaxError 0 both sides of a shared boundary keep the same vertices (§9.13). */
    if (settings->max_error == 0 && shared_promise_holds(chf, region)) {
        rep->shared_boundary_checked = 1;
        size_t cap = 0, n = 0;
        for (uint32_t i = 0; i < set->count; i++)
            cap += 2 * (size_t)set->contours[i].vert_count;
        sh = malloc((cap ? cap : 1) * sizeof *sh);
        if (!sh) {
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory checking contours");
            goto done;
        }
        for (uint32_t i = 0; i < set->count; i++) {
            const op_contour *ct = &set->contours[i];
            for (uint32_t j = 0; j < ct->vert_count; j++) {
                const uint32_t nb = ct->verts[j].neighbour, r = ct->region;
                if (nb == 0 || nb > region_count || nb == r || unreliable[r] || unreliable[nb])
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
            rep->shared_checks++;
            if (sides != 3) {
                failf(&c, "regions %u/%u: vertex (%d, %d) kept on one side only", sh[a].lo,
                      sh[a].hi, sh[a].x, sh[a].z);
                break;
            }
            a = b;
        }
    }
    st = rep->failures ? OP_INTERNAL : OP_OK;
done:
    if (posloops)
        for (uint32_t r = 0; r < nr; r++)
            free(posloops[r]);
    free(posloops);
    free(spans);
    free(edges);
    free(area_sum);
    free(len_sum);
    free(npos);
    free(ncont);
    free(rarea);
    free(unreliable);
    free(sorted);
    free(sh);
    op__contour_trace_free(&tr);
    return st;
}
