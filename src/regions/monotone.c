/* Monotone partition (regions-contours §3, supplement §9.3), then §5.
 *
 * A sweep is a chain of walkable spans of one area along mutual +x links within a row;
 * its start is a span without a predecessor (mutual -x neighbour, walkable, same area,
 * not in the band). Sweeps are enumerated in start order (cells by increasing x, spans
 * bottom-up).
 *
 * One pass per row in cell order: a span joins its predecessor's sweep (the
 * predecessor, in the cell before, was visited already) or starts the next one, and its
 * looked-at neighbour is noted for its sweep at once; the sweeps' ids are then decided
 * in sweep order and written over the row's spans. While a row is open its spans hold
 * their sweep, tagged (OP_BORDER_REGION | sweep + 1) so that no region id, 0 or the
 * band can be mistaken for one. When a predecessor link leaves the cell before (a
 * field made by hand; the link rule never does that), sweeps are chains that need not
 * follow the row: the chain walk below, the former implementation, runs instead. */
#include "regions/region_graph.h"
#include "core/alloc.h"
#include "core/links16.h"

#include <string.h>

#define MIXED 0xffffffffu

/* A stored delta v in [OP_DLINK_MIN, -1]: a link to a span below s (one compare). */
#define DLINK_BELOW(v) ((uint32_t)((v) - OP_DLINK_MIN) < (uint32_t)-OP_DLINK_MIN)

static int has_pred(const op_chf *chf, const uint32_t *region, uint32_t s)
{
    if (!(chf->mutual[s] & 1))
        return 0;
    const uint32_t t = op_chf_link_or_self(chf, 0, s, 1);
    return chf->area[t] == chf->area[s] && region[t] != OP_BORDER_REGION;
}

/* The sweep successor of u, or OP_NO_LINK. */
static uint32_t succ(const op_chf *chf, const uint32_t *region, uint32_t u)
{
    if (!(chf->mutual[u] >> 2 & 1))
        return OP_NO_LINK;
    const uint32_t t = op_chf_link_or_self(chf, 2, u, 1);
    if (chf->area[t] != chf->area[u] || region[t] == OP_BORDER_REGION)
        return OP_NO_LINK;
    return t;
}

/* The chain walk: every sweep followed along its +x links from its start. Right for
 * any link graph; the row pass gives the same bytes when predecessors are in the cell
 * before. */
op_status op_regions_monotone_raw_chains(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                         uint32_t *region_count)
{
    const uint32_t n = chf->span_count;
    *region_count = 0;
    if (n == 0)
        return OP_OK;
    op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;
    const uint32_t w = chf->width, dpt = chf->depth;

    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t *start = op_scratch(ctx, n, sizeof *start);
    uint32_t *sreg = op_scratch(ctx, n, sizeof *sreg);
    uint32_t *touch = op_scratch(ctx, (size_t)n + 1, sizeof *touch);
    uint32_t *rstamp = op_scratch(ctx, (size_t)n + 1, sizeof *rstamp);
    uint32_t *touched = op_scratch(ctx, n, sizeof *touched);
    if (!start || !sreg || !touch || !rstamp || !touched) {
        op_arena_release(&ctx->arena, mark);
        return OP_NO_MEMORY;
    }
    memset(touch, 0, ((size_t)n + 1) * sizeof *touch);
    memset(rstamp, 0, ((size_t)n + 1) * sizeof *rstamp);
    uint32_t next_id = 0, gid = 0;

    for (uint32_t z = 0; z < dpt; z++) {
        uint32_t ns = 0;
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            const uint32_t f = chf->cell_first[c], e = chf->cell_first[c + 1];
            for (uint32_t s = f; s < e; s++)
                if (area[s] != 0 && region[s] == 0 && !has_pred(chf, region, s))
                    start[ns++] = s;
        }
        /* Looked-at neighbours (§9.3): -z, with a region, same area as the sweep. */
        uint32_t nt = 0;
        for (uint32_t k = 0; k < ns; k++) {
            const uint32_t g = ++gid;
            uint32_t cand = 0;
            for (uint32_t u = start[k]; u != OP_NO_LINK; u = succ(chf, region, u)) {
                if (!(chf->mutual[u] >> 3 & 1))
                    continue;
                const uint32_t t = op_chf_link_or_self(chf, 3, u, 1);
                const uint32_t r = region[t];
                if (!r || r == OP_BORDER_REGION || area[t] != area[u])
                    continue;
                if (rstamp[r] != g) {
                    rstamp[r] = g;
                    if (touch[r]++ == 0)
                        touched[nt++] = r;
                }
                cand = cand == 0 ? r : (cand == r ? r : MIXED);
            }
            sreg[k] = cand;
        }
        /* Continue R when all looked-at neighbours are R and no other sweep touches R;
         * otherwise a new id, in sweep order. */
        for (uint32_t k = 0; k < ns; k++) {
            const uint32_t R = sreg[k];
            uint32_t id;
            if (R != 0 && R != MIXED && touch[R] == 1) {
                id = R;
            } else {
                if (next_id == OP_MAX_REGION_ID) {
                    op_arena_release(&ctx->arena, mark);
                    return op_fail(ctx, OP_UNSUPPORTED, "monotone: more than %u regions",
                                   OP_MAX_REGION_ID);
                }
                id = ++next_id;
            }
            /* succ() reads region[t] only for the band test, which assigning ids
             * here cannot change. */
            for (uint32_t u = start[k]; u != OP_NO_LINK; u = succ(chf, region, u))
                region[u] = id;
        }
        for (uint32_t i = 0; i < nt; i++)
            touch[touched[i]] = 0;
    }
    *region_count = next_id;
    op_arena_release(&ctx->arena, mark);
    return OP_OK;
}

#define TAG OP_BORDER_REGION

/* Growable u32 arrays of the row pass (sized by what the field needs, not its spans). */
static int grow(op_ctx *ctx, uint32_t **p, uint32_t *cap, uint64_t need)
{
    if (need <= *cap)
        return 1;
    if (need > 0xffffffffu)
        return 0;
    uint64_t c = *cap ? (uint64_t)*cap * 2 : 4096;
    while (c < need)
        c *= 2;
    if (c > 0xffffffffu)
        c = 0xffffffffu;
    uint32_t *q = op_mem_realloc(&ctx->alloc, *p, (size_t)c * sizeof *q);
    if (!q)
        return 0;
    *p = q;
    *cap = (uint32_t)c;
    return 1;
}

/* Per row: cand[k], sweep k's looked-at region (0, R or MIXED), then its id; with a
 * graph also ssize[k] (spans), sarea[k] (area) and sband[k] (a link to the band), and
 * the links met, as records (k, other, count) whose other end is a region id or a sweep
 * of this row (tagged), resolved at the row's end.
 * tl: per region id r, tl[2r] = sweeps of the row that touch r, tl[2r + 1] = the last
 * sweep (global number) that did. Counting a sweep again when another came in between
 * overcounts only where two sweeps touch r, so "exactly one" stays exact. */
typedef struct row_pass {
    uint32_t *cand, *tl, *touched; /* touched: ids with tl[2r] > 0 in this row */
    uint32_t scap, rcap, tcap;
    uint32_t *ssize, *sinfo;       /* sinfo[k] = area | band << 8 */
    uint32_t s2cap, s3cap;
    uint32_t *rec; /* (k, other, count) triples */
    uint32_t reccap;
    uint32_t *sid; /* sid[v]: the id of sweep v (global number, 1..nsweep); sid[0] = 0 */
    uint32_t sidcap, nsweep;
    /* Per sweep k of the row, its run of -z link ends with one region value r != 0:
     * zs[3k] = what region[] holds at the end of its last link (UINT32_MAX: none to
     * compare), zs[3k + 1] = r, zs[3k + 2] = links counted (0: no run yet). */
    uint32_t *zs;
    uint32_t zscap;
} row_pass;

static void row_pass_free(op_ctx *ctx, row_pass *p)
{
    op_mem_free(&ctx->alloc, p->cand);
    op_mem_free(&ctx->alloc, p->tl);
    op_mem_free(&ctx->alloc, p->touched);
    op_mem_free(&ctx->alloc, p->ssize);
    op_mem_free(&ctx->alloc, p->sinfo);
    op_mem_free(&ctx->alloc, p->rec);
    op_mem_free(&ctx->alloc, p->sid);
    op_mem_free(&ctx->alloc, p->zs);
}

#define NOMEM(what) op_fail(ctx, OP_NO_MEMORY, "monotone: out of memory (%s)", what)

/* The row's sweeps and links into the graph, once the sweeps' ids
 * (p->cand) are known: a link between a sweep and the region it continues is inside
 * that region. Regions have one area each, so the span at either end of a link has its
 * region's area. */
static op_status graph_row(op_ctx *ctx, row_pass *p, op_regions_graph *g, uint32_t ns,
                           uint32_t nrec, uint32_t next_id)
{
    if (!op_regions_graph_grow_ids(ctx, g, next_id))
        return NOMEM("regions");
    for (uint32_t k = 0; k < ns; k++) {
        const uint32_t r = p->cand[k];
        if (g->size[r] == 0)
            g->rarea[r] = (uint8_t)p->sinfo[k];
        g->size[r] += p->ssize[k];
        if (p->sinfo[k] >> 8)
            g->band[r] = g->flag[r] = 1;
    }
    for (uint32_t i = 0; i < nrec; i++) {
        const uint32_t *rc = p->rec + 3 * (size_t)i;
        const uint32_t r = p->cand[rc[0]];
        const uint32_t q = rc[1] > TAG ? p->cand[rc[1] - TAG - 1] : rc[1];
        if (q == r)
            continue;
        g->flag[r] = g->flag[q] = 1;
        if (!op_regions_graph_link(ctx, g, r, q, rc[2], g->rarea[q], g->rarea[r]))
            return NOMEM("region links");
    }
    return OP_OK;
}

/* Whether the spans of the cells [c0, c1) are numbered cell after cell, the first
 * from first[c0] and the last ending at end (first[c1]): cell_first does not decrease
 * (a cell's count is its step, onepath/chf.h). Checked row by row as the row pass
 * reaches it, so that a row is one span range in cell order (and the arrays are in cache
 * for the overlaps). */
static int cells_in_order(const uint32_t *first, size_t c0, size_t c1, uint32_t end)
{
    uint32_t bad = 0;
    size_t c = c0;
    for (; c + 8 <= c1; c += 8) /* fixed blocks: vectorised at -O2 too */
        for (int i = 0; i < 8; i++)
            bad |= first[c + i + 1] < first[c + i];
    for (; c < c1; c++)
        bad |= first[c + 1] < first[c];
    return !bad && first[c1] == end;
}

/* c link ends met in a row from sweep k: v is the region value of the span at the
 * other end as it is now. A sweep of this row (tagged) or a region of a row before:
 * record (k, v, c) (extending the last record when it is the same pair). The band: the
 * sweep touches it. 0: nothing, unless that span is a walkable one not visited yet (a
 * link that leaves the rows around it; other_area is its area): the caller falls back.
 * Returns 1, 0 to fall back, -1 when out of memory. */
static inline int note_link(op_ctx *ctx, row_pass *p, uint32_t *nrec, uint32_t *last, uint32_t k,
                            uint32_t v, uint8_t other_area, uint32_t c)
{
    if (v == 0)
        return other_area == 0;
    if (v == OP_BORDER_REGION) {
        p->sinfo[k] |= 1u << 8;
        return 1;
    }
    if (*last != UINT32_MAX) { /* no record yet: rec may be NULL (fuzz_obj, issue 10) */
        uint32_t *lr = p->rec + 3 * (size_t)*last;
        if (lr[0] == k && lr[1] == v) {
            lr[2] += c;
            return 1;
        }
    }
    if (!grow(ctx, &p->rec, &p->reccap, 3 * ((uint64_t)*nrec + 1)))
        return -1;
    uint32_t *rc = p->rec + 3 * (size_t)*nrec;
    rc[0] = k;
    rc[1] = v;
    rc[2] = c;
    *last = (*nrec)++;
    return 1;
}

/* What region[t] held for the former row pass (which wrote raw ids back at each row's
 * end): 0, the band, a raw id for a sweep of an earlier row (its global number v <= g,
 * id sid[v]) or TAG | (k + 1) for sweep k of this row (v = g + k + 1). Spans below lim
 * were visited (written); a later one holds what op_regions_init_band left (0 or the
 * band) when the field has a band, and is read as 0 otherwise (region[] was not
 * cleared). */
static inline uint32_t value_at(const uint32_t *region, int band, const uint32_t *sid, uint32_t g,
                                uint32_t t, uint32_t lim)
{
    if (t >= lim)
        return band ? region[t] : 0;
    const uint32_t v = region[t];
    if (v == 0 || v == OP_BORDER_REGION)
        return v;
    return v > g ? TAG | (v - g) : sid[v];
}

/* The spans from s on (to re at most) that continue the sweep of s - 1 (number v, area
 * a: the same area, a mutual -x link to s - 1, not band) and whose mutual -z link ends
 * on a visited span holding zv; they get v. Returns how many. */
static inline uint32_t sweep_run(const op_chf *chf, const uint8_t *area, const uint8_t *mutual,
                                 uint32_t *region, int band, uint32_t s, uint32_t re, uint8_t a,
                                 uint32_t v, uint32_t zv)
{
    const uint32_t s0 = s;
    const int16_t *dl0 = chf->dlink[0], *dl3 = chf->dlink[3];
    for (; s < re; s++) {
        /* The stored deltas: -x link s - 1 is a delta of -1, and a -z link below s a
         * negative one (a far link ends the run: the general path reads it). */
        const int32_t v3 = dl3[s];
        const uint32_t t = s + (uint32_t)v3;
        const int ok = (area[s] == a) & ((mutual[s] & 9) == 9) & (dl0[s] == -1) & DLINK_BELOW(v3);
        if (!ok || region[t] != zv || (band && region[s] == OP_BORDER_REGION))
            break;
        region[s] = v;
    }
    return s - s0;
}

/* op_regions_graph_overlaps_cells for the cells [c0, c1) of one row of a field whose
 * spans are numbered cell after cell: the same pairs in the same order, with sid always
 * set; eight columns of at most one span at a time. */
static int row_overlaps(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                        op_regions_graph *g, uint32_t c0, uint32_t c1, const uint32_t *sid,
                        uint32_t nsweep, op_ovl_recent *recent)
{
    const uint32_t maxid = g->maxid;
    const uint32_t *cf = chf->cell_first;
    for (uint32_t c = c0; c < c1; c++) {
        if (c + 8 <= c1 && op_eight_cells_single(cf + c)) {
            c += 7;
            continue;
        }
        const uint32_t f = cf[c], e = cf[c + 1];
        for (uint32_t s = f + 1; s < e; s++) {
            uint32_t r = region[s];
            if (r <= nsweep)
                r = sid[r];
            if (r == 0 || r > maxid)
                continue;
            for (uint32_t t = f; t < s; t++) {
                uint32_t q = region[t];
                if (q <= nsweep)
                    q = sid[q];
                if (q == 0 || q > maxid || q == r || !op_ovl_recent_new(recent, r, q))
                    continue;
                if (!op_regions_graph_overlap(ctx, g, r, q))
                    return 0;
            }
        }
    }
    return 1;
}

/* The row pass, rows as span ranges (cells_in_order). A predecessor must be a span of
 * this row visited already; the chain walk's sweeps are then the same. With g, every -x
 * and -z link end is noted once (each mutual link is the -x or -z link of exactly one of
 * its spans); a link to a walkable span not visited yet would be missed and sends the
 * field to the fallback. OP_INTERNAL (no message): fall back.
 * Every span is written once: its sweep's global number (1, 2, ... over all rows), 0
 * (area 0; without a band region[] is not cleared first) or, with a band, left as
 * op_regions_init_band set it. The sweeps' ids go to p->sid (sid[v], the id of sweep
 * v), so no row is written twice: the numbering maps through sid. */
static inline __attribute__((always_inline)) op_status
monotone_rows_body(op_ctx *ctx, const op_chf *chf, uint32_t *region, uint32_t *region_count,
                   row_pass *p, op_regions_graph *gr, int nofar)
{
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint32_t w = chf->width, dpt = chf->depth, n = chf->span_count;
    const int band = chf->border_size > 0; /* else no span holds OP_BORDER_REGION */
    if ((size_t)w * dpt == 0 || chf->cell_first[0] != 0)
        return OP_INTERNAL;
    uint32_t next_id = 0;
    uint32_t g = 0; /* sweeps before this row (a sweep's global number is g + k + 1) */
    op_ovl_recent ovl_recent;
    memset(&ovl_recent, 0, sizeof ovl_recent);
    if (!grow(ctx, &p->sid, &p->sidcap, 1))
        return NOMEM("sweeps");
    p->sid[0] = 0;
    for (uint32_t z = 0; z < dpt; z++) {
        const uint32_t rs = chf->cell_first[(size_t)z * w];
        const uint32_t re = z + 1 < dpt ? chf->cell_first[(size_t)(z + 1) * w] : n;
        if (!cells_in_order(chf->cell_first, (size_t)z * w, (size_t)(z + 1) * w, re))
            return OP_INTERNAL;
        uint32_t ns = 0, nt = 0, nrec = 0;
        uint32_t last_s = OP_NO_LINK, last_k = 0, last_v = 0; /* the last span tagged, */
        uint8_t last_a = 0;                       /* its sweep, number and area */
        uint32_t lrec = UINT32_MAX; /* the last -x record */
        uint32_t sk = 0, sn = 0; /* the run of spans of sweep sk not yet added to ssize */
        uint32_t *zs = p->zs;
        for (uint32_t s = rs; s < re; s++) {
            /* Most spans continue the sweep of the span just visited and look at a span
             * of that sweep's -z run: a run of them changes nothing else. */
            if (last_s + 1 == s && last_a) {
                const uint32_t len = sweep_run(chf, area, mutual, region, band, s, re, last_a,
                                               last_v, zs[3 * (size_t)last_k]);
                if (len) {
                    s += len;
                    last_s = s - 1;
                    sn += len;
                    zs[3 * (size_t)last_k + 2] += len;
                    if (s == re)
                        break;
                }
            }
            const uint8_t as = area[s];
            const uint8_t ms = mutual[s];
            /* A span whose mutual -x neighbour (same area) is a span of sweep k of this row
             * and whose mutual -z link continues k's run: what the general path below
             * does, without its tests. Under a bridge the two floors' sweeps alternate
             * span by span, so these are not runs of sweep_run. */
            if ((ms & 9) == 9 && as) {
                /* t < s and t3 < s: near deltas below 0 (DLINK_BELOW; a far link takes
                 * the general path) */
                const int32_t v0 = chf->dlink[0][s], v3 = chf->dlink[3][s];
                const uint32_t t = s + (uint32_t)v0, t3 = s + (uint32_t)v3;
                if (DLINK_BELOW(v0) && DLINK_BELOW(v3) && area[t] == as &&
                    (!band || region[s] != OP_BORDER_REGION)) {
                    const uint32_t k = region[t] - g - 1; /* wraps for 0, earlier rows, band */
                    if (k < ns && region[t3] == zs[3 * (size_t)k]) {
                        last_v = g + k + 1;
                        region[s] = last_v;
                        last_s = s;
                        last_k = k;
                        last_a = as;
                        if (k != sk) {
                            if (gr && sn)
                                p->ssize[sk] += sn;
                            sk = k;
                            sn = 0;
                        }
                        sn++;
                        zs[3 * (size_t)k + 2]++;
                        continue;
                    }
                }
            }
            if (as == 0) {
                if (!band)
                    region[s] = 0;
                continue;
            }
            if (band && region[s] == OP_BORDER_REGION) {
                if (!gr)
                    continue;
                /* A band span: the partition regions it touches. */
                for (int d = 0; d < 4; d += 3) {
                    if (!(ms >> d & 1))
                        continue;
                    const uint32_t t = op_chf_link_or_self_nf(chf, d, s, 1, nofar);
                    const uint32_t v = value_at(region, band, p->sid, g, t, s);
                    if (v > TAG)
                        p->sinfo[v - TAG - 1] |= 1u << 8;
                    else if (v != 0 && v != OP_BORDER_REGION)
                        gr->band[v] = gr->flag[v] = 1;
                    else if (v == 0 && area[t] != 0)
                        return OP_INTERNAL;
                }
                continue;
            }
            uint32_t k = UINT32_MAX, xt = OP_NO_LINK; /* xt: the -x span if not the pred */
            if (ms & 1) {
                const uint32_t t = op_chf_link_or_self_nf(chf, 0, s, 1, nofar);
                if (t == last_s && as == last_a) {
                    k = last_k; /* the span just visited (not band: tagged) */
                } else if (area[t] == as && (!band || region[t] != OP_BORDER_REGION)) {
                    const uint32_t v = value_at(region, band, p->sid, g, t, s);
                    if (v <= TAG) /* not visited in this row */
                        return OP_INTERNAL;
                    k = v - TAG - 1;
                } else {
                    xt = t;
                }
            }
            if (k == UINT32_MAX) {
                if ((uint64_t)g + ns + 1 >= OP_BORDER_REGION)
                    return OP_INTERNAL; /* global numbers would reach the band's value */
                if (!grow(ctx, &p->cand, &p->scap, (uint64_t)ns + 1) ||
                    !grow(ctx, &p->zs, &p->zscap, 3 * ((uint64_t)ns + 1)))
                    return NOMEM("sweeps of a row");
                zs = p->zs;
                if (gr && (!grow(ctx, &p->ssize, &p->s2cap, (uint64_t)ns + 1) ||
                           !grow(ctx, &p->sinfo, &p->s3cap, (uint64_t)ns + 1)))
                    return NOMEM("sweeps of a row");
                k = ns++;
                p->cand[k] = 0;
                zs[3 * (size_t)k] = UINT32_MAX;
                zs[3 * (size_t)k + 1] = zs[3 * (size_t)k + 2] = 0;
                if (gr) {
                    p->ssize[k] = 0;
                    p->sinfo[k] = as;
                }
            }
            last_v = g + k + 1;
            region[s] = last_v;
            last_s = s;
            last_k = k;
            last_a = as;
            /* sizes per run of one sweep (a register), added when the sweep changes */
            if (k != sk) {
                if (gr && sn)
                    p->ssize[sk] += sn;
                sk = k;
                sn = 0;
            }
            sn++;
            if (gr && xt != OP_NO_LINK) {
                const int r = note_link(ctx, p, &nrec, &lrec, k,
                                        value_at(region, band, p->sid, g, xt, s + 1), area[xt], 1);
                if (r <= 0)
                    return r ? NOMEM("links of a row") : OP_INTERNAL;
            }
            if (!(ms >> 3 & 1))
                continue;
            const uint32_t t = op_chf_link_or_self_nf(chf, 3, s, 1, nofar);
            uint32_t *z3 = zs + 3 * (size_t)k;
            if (t < s && region[t] == z3[0]) {
                z3[2]++; /* the sweep's run goes on: nothing else changes */
                continue;
            }
            const uint32_t r = value_at(region, band, p->sid, g, t, s + 1);
            if (r == 0) {
                /* no region: nothing, unless a walkable span not visited yet */
                if (gr && area[t] != 0)
                    return OP_INTERNAL;
                continue;
            }
            const uint32_t zv = t <= s ? region[t] : UINT32_MAX;
            if (r == z3[1]) {
                z3[0] = zv;
                z3[2]++; /* the same region (r != 0): nothing else changes */
                continue;
            }
            if (gr && z3[2]) {
                uint32_t dummy = UINT32_MAX;
                const int ok = note_link(ctx, p, &nrec, &dummy, k, z3[1], 1, z3[2]);
                if (ok <= 0)
                    return ok ? NOMEM("links of a row") : OP_INTERNAL;
            }
            z3[0] = zv;
            z3[1] = r;
            z3[2] = 1;
            /* Looked-at neighbour (§9.3): -z, with a region, same area. Spans of this
             * row (tagged) and of later rows count as without a region. */
            if (r >= TAG || area[t] != as)
                continue;
            if (p->tl[2 * (size_t)r + 1] != g + k + 1) {
                p->tl[2 * (size_t)r + 1] = g + k + 1;
                if (p->tl[2 * (size_t)r]++ == 0) {
                    if (!grow(ctx, &p->touched, &p->tcap, (uint64_t)nt + 1))
                        return NOMEM("regions of a row");
                    p->touched[nt++] = r;
                }
            }
            const uint32_t cd = p->cand[k];
            p->cand[k] = cd == 0 ? r : (cd == r ? r : MIXED);
        }
        for (uint32_t k = 0; gr && k < ns; k++) {
            if (!zs[3 * (size_t)k + 2])
                continue;
            uint32_t dummy = UINT32_MAX;
            const int ok = note_link(ctx, p, &nrec, &dummy, k, zs[3 * (size_t)k + 1], 1,
                                     zs[3 * (size_t)k + 2]);
            if (ok <= 0)
                return ok ? NOMEM("links of a row") : OP_INTERNAL;
        }
        if (ns == 0)
            continue;
        /* Continue R when all looked-at neighbours are R and no other sweep touches R;
         * otherwise a new id, in sweep order. */
        for (uint32_t k = 0; k < ns; k++) {
            const uint32_t R = p->cand[k];
            if (R != 0 && R != MIXED && p->tl[2 * (size_t)R] == 1) {
                p->cand[k] = R;
                continue;
            }
            if (next_id == OP_MAX_REGION_ID)
                return op_fail(ctx, OP_UNSUPPORTED, "monotone: more than %u regions",
                               OP_MAX_REGION_ID);
            if (!grow(ctx, &p->tl, &p->rcap, 2 * ((uint64_t)next_id + 2)))
                return NOMEM("regions");
            p->cand[k] = ++next_id;
            p->tl[2 * (size_t)next_id] = p->tl[2 * (size_t)next_id + 1] = 0;
        }
        for (uint32_t i = 0; i < nt; i++)
            p->tl[2 * (size_t)p->touched[i]] = 0;
        if (gr) {
            if (sn)
                p->ssize[sk] += sn;
            const op_status st = graph_row(ctx, p, gr, ns, nrec, next_id);
            if (st != OP_OK)
                return st;
        }
        /* The row's sweeps' ids (the spans keep their sweeps' numbers). */
        if (!grow(ctx, &p->sid, &p->sidcap, (uint64_t)g + ns + 1))
            return NOMEM("sweeps");
        memcpy(p->sid + g + 1, p->cand, (size_t)ns * sizeof *p->sid);
        g += ns;
        /* Overlaps while the row's regions are in cache (the same pairs, in the same
         * order, as op_regions_graph_overlaps after the pass). */
        if (gr && gr->want_ovl) {
            gr->maxid = next_id;
            if (!row_overlaps(ctx, chf, region, gr, z * w, (z + 1) * w, p->sid, g,
                              &ovl_recent))
                return NOMEM("overlaps");
        }
    }
    *region_count = next_id;
    p->nsweep = g;
    if (gr)
        gr->maxid = next_id;
    return OP_OK;
}

/* nofar (the field has no far link) as a constant: the mutual links' reads then add the
 * stored deltas with no test. */
static op_status monotone_rows(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                               uint32_t *region_count, row_pass *p, op_regions_graph *gr)
{
    return op_chf_has_far(chf) ? monotone_rows_body(ctx, chf, region, region_count, p, gr, 0)
                               : monotone_rows_body(ctx, chf, region, region_count, p, gr, 1);
}

op_status op_regions_monotone_rows(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                   uint32_t *region_count, op_regions_graph *g)
{
    *region_count = 0;
    if (chf->span_count == 0)
        return OP_OK;
    if (chf->border_size > 0)
        op_regions_init_band(chf, region);
    row_pass p;
    memset(&p, 0, sizeof p);
    op_status st = monotone_rows(ctx, chf, region, region_count, &p, g);
    if (st == OP_OK) {
        if (g) {
            g->sweep_id = p.sid;
            g->nsweep = p.nsweep;
            p.sid = NULL;
        } else {
            op_regions_resolve_sweeps(region, chf->span_count, p.sid, p.nsweep);
        }
    }
    row_pass_free(ctx, &p);
    return st;
}

op_status op_build_regions_monotone_raw(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                        uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "monotone");
    if (st != OP_OK)
        return st;
    st = op_regions_monotone_rows(ctx, chf, region, region_count, NULL);
    if (st == OP_INTERNAL)
        return op_regions_monotone_raw_chains(ctx, chf, region, region_count);
    return st;
}

/* §3 and the graph of its raw regions (links, and overlaps when g wants them): from the
 * row pass, or the chain walk and a scan on a hand-made field. g is initialised here. */
op_status op_regions_monotone_graph(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                    uint32_t *region_count, op_regions_graph *g, int want_ovl)
{
    op_status st = op_regions_graph_init(ctx, g, 0, 1, want_ovl);
    if (st == OP_OK)
        st = op_regions_monotone_rows(ctx, chf, region, region_count, g);
    if (st != OP_INTERNAL)
        return st;
    op_regions_graph_free(ctx, g);
    if ((st = op_regions_monotone_raw_chains(ctx, chf, region, region_count)) != OP_OK)
        return st;
    if ((st = op_regions_graph_init(ctx, g, *region_count, 1, want_ovl)) != OP_OK)
        return st;
    return op_regions_graph_scan(ctx, chf, region, g);
}

op_status op_build_regions_monotone(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                    uint32_t *region, uint32_t *region_count)
{
    op_status st = op_region_settings_validate(ctx, s);
    if (st != OP_OK)
        return st;
    if ((st = op_regions_check_args(ctx, chf, region, region_count, "monotone")) != OP_OK)
        return st;
    op_regions_graph g;
    st = op_regions_monotone_graph(ctx, chf, region, region_count, &g, 0);
    if (st == OP_OK)
        st = op_regions_filter_graph(ctx, chf, &g, s->min_region_area, s->merge_region_area, 1,
                                     region, region_count);
    op_regions_graph_free(ctx, &g);
    return st;
}
