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

#include <string.h>

#define MIXED 0xffffffffu

static int has_pred(const op_chf *chf, const uint32_t *region, uint32_t s)
{
    if (!(chf->mutual[s] & 1))
        return 0;
    const uint32_t t = chf->link[0][s];
    return chf->area[t] == chf->area[s] && region[t] != OP_BORDER_REGION;
}

/* The sweep successor of u, or OP_NO_LINK. */
static uint32_t succ(const op_chf *chf, const uint32_t *region, uint32_t u)
{
    if (!(chf->mutual[u] >> 2 & 1))
        return OP_NO_LINK;
    const uint32_t t = chf->link[2][u];
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
            const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
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
                const uint32_t t = chf->link[3][u];
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
} row_pass;

static void row_pass_free(op_ctx *ctx, row_pass *p)
{
    op_mem_free(&ctx->alloc, p->cand);
    op_mem_free(&ctx->alloc, p->tl);
    op_mem_free(&ctx->alloc, p->touched);
    op_mem_free(&ctx->alloc, p->ssize);
    op_mem_free(&ctx->alloc, p->sinfo);
    op_mem_free(&ctx->alloc, p->rec);
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

/* Whether spans are numbered cell after cell (cell_first is the prefix sum of
 * cell_count from 0 to span_count), so that a row's spans are one range in cell order. */
static int canonical_cells(const op_chf *chf)
{
    const size_t cells = (size_t)chf->width * chf->depth;
    const uint32_t *first = chf->cell_first, *count = chf->cell_count;
    if (cells == 0)
        return 0;
    uint32_t bad = first[0];
    size_t c = 0;
    for (; c + 9 <= cells; c += 8) /* fixed blocks: vectorised at -O2 too */
        for (int i = 0; i < 8; i++)
            bad |= first[c + i + 1] ^ (first[c + i] + count[c + i]);
    for (; c + 1 < cells; c++)
        bad |= first[c + 1] ^ (first[c] + count[c]);
    return !bad && (uint64_t)first[cells - 1] + count[cells - 1] == chf->span_count;
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

/* The row pass, rows as span ranges (canonical_cells). A predecessor must be a span of
 * this row visited already (tagged); the chain walk's sweeps are then the same. With
 * g, every -x and -z link end is noted once (each mutual link is the -x or -z link of
 * exactly one of its spans); a link to a walkable span not visited yet would be missed
 * and sends the field to the fallback. OP_INTERNAL (no message): fall back. */
static op_status monotone_rows(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                               uint32_t *region_count, row_pass *p, op_regions_graph *gr)
{
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const uint32_t *l0 = chf->link[0], *l3 = chf->link[3];
    const uint32_t w = chf->width, dpt = chf->depth, n = chf->span_count;
    const int band = chf->border_size > 0; /* else no span holds OP_BORDER_REGION */
    if (!canonical_cells(chf))
        return OP_INTERNAL;
    uint32_t next_id = 0;
    uint32_t g = 0; /* sweeps before this row (a sweep's global number is g + k + 1) */
    for (uint32_t z = 0; z < dpt; z++) {
        const uint32_t rs = chf->cell_first[(size_t)z * w];
        const uint32_t re = z + 1 < dpt ? chf->cell_first[(size_t)(z + 1) * w] : n;
        uint32_t ns = 0, nt = 0, nrec = 0;
        uint32_t last_s = OP_NO_LINK, last_k = 0; /* the last span tagged, its sweep, */
        uint8_t last_a = 0;                       /* and its area */
        uint32_t lrec = UINT32_MAX; /* the last -x record */
        /* The run of -z link ends with one pair (sweep zk, region value zr != 0): counted
         * in zc, recorded when the pair changes; its looked-at effect is taken once. */
        uint32_t zk = UINT32_MAX, zr = 0, zc = 0;
        uint32_t sk = 0, sn = 0; /* the run of spans of sweep sk not yet added to ssize */
        for (uint32_t s = rs; s < re; s++) {
            const uint8_t as = area[s];
            if (as == 0)
                continue;
            const uint8_t ms = mutual[s];
            if (band && region[s] == OP_BORDER_REGION) {
                if (!gr)
                    continue;
                /* A band span: the partition regions it touches. */
                for (int d = 0; d < 4; d += 3) {
                    if (!(ms >> d & 1))
                        continue;
                    const uint32_t t = chf->link[d][s], v = region[t];
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
                const uint32_t t = l0[s];
                if (t == last_s && as == last_a) {
                    k = last_k; /* the span just visited (not band: tagged) */
                } else if (area[t] == as && (!band || region[t] != OP_BORDER_REGION)) {
                    const uint32_t v = region[t];
                    if (v <= TAG) /* not visited in this row */
                        return OP_INTERNAL;
                    k = v - TAG - 1;
                } else {
                    xt = t;
                }
            }
            if (k == UINT32_MAX) {
                if (ns == OP_MAX_REGION_ID)
                    return op_fail(ctx, OP_UNSUPPORTED, "monotone: more than %u sweeps in row %u",
                                   OP_MAX_REGION_ID, z);
                if (!grow(ctx, &p->cand, &p->scap, (uint64_t)ns + 1))
                    return NOMEM("sweeps of a row");
                if (gr && (!grow(ctx, &p->ssize, &p->s2cap, (uint64_t)ns + 1) ||
                           !grow(ctx, &p->sinfo, &p->s3cap, (uint64_t)ns + 1)))
                    return NOMEM("sweeps of a row");
                k = ns++;
                p->cand[k] = 0;
                if (gr) {
                    p->ssize[k] = 0;
                    p->sinfo[k] = as;
                }
            }
            region[s] = TAG | (k + 1);
            last_s = s;
            last_k = k;
            last_a = as;
            if (gr) {
                /* sizes per run of one sweep (a register), added when the sweep changes */
                if (k != sk) {
                    if (sn)
                        p->ssize[sk] += sn;
                    sk = k;
                    sn = 0;
                }
                sn++;
                if (xt != OP_NO_LINK) {
                    const int r = note_link(ctx, p, &nrec, &lrec, k, region[xt], area[xt], 1);
                    if (r <= 0)
                        return r ? NOMEM("links of a row") : OP_INTERNAL;
                }
            }
            if (!(ms >> 3 & 1))
                continue;
            const uint32_t t = l3[s];
            const uint32_t r = region[t];
            if (r == zr && k == zk) {
                zc++; /* the pair just seen (zr != 0): nothing else changes */
                continue;
            }
            if (r == 0) {
                /* no region: nothing, unless a walkable span not visited yet */
                if (gr && area[t] != 0)
                    return OP_INTERNAL;
                continue;
            }
            if (gr && zc) {
                uint32_t dummy = UINT32_MAX;
                const int ok = note_link(ctx, p, &nrec, &dummy, zk, zr, 1, zc);
                if (ok <= 0)
                    return ok ? NOMEM("links of a row") : OP_INTERNAL;
            }
            zk = k;
            zr = r;
            zc = 1;
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
        if (gr && zc) {
            uint32_t dummy = UINT32_MAX;
            const int ok = note_link(ctx, p, &nrec, &dummy, zk, zr, 1, zc);
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
        /* The row's spans take their sweep's id. */
        for (uint32_t s = rs; s < re; s++)
            if (region[s] > TAG)
                region[s] = p->cand[region[s] - TAG - 1];
        if (g > UINT32_MAX - 1 - ns)
            return op_fail(ctx, OP_UNSUPPORTED, "monotone: more than %u sweeps", UINT32_MAX - 1);
        g += ns;
    }
    *region_count = next_id;
    if (gr)
        gr->maxid = next_id;
    return OP_OK;
}

op_status op_regions_monotone_rows(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                   uint32_t *region_count, op_regions_graph *g)
{
    *region_count = 0;
    if (chf->span_count == 0)
        return OP_OK;
    op_regions_init_band(chf, region);
    row_pass p;
    memset(&p, 0, sizeof p);
    op_status st = monotone_rows(ctx, chf, region, region_count, &p, g);
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
    if (st == OP_OK && want_ovl)
        st = op_regions_graph_overlaps(ctx, chf, region, g);
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
