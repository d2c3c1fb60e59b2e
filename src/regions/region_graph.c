/* The region graph (region_graph.h): allocation and the pass over any region array. */
#include "regions/region_graph.h"
#include "core/links16.h"
#include "core/alloc.h"
#include "core/kernels.h"

#include <string.h>

int op_regions_graph_grow_ids(op_ctx *ctx, op_regions_graph *g, uint32_t maxid)
{
    const size_t need = (size_t)maxid + 1;
    if (need <= g->capid)
        return 1;
    size_t cap = g->capid ? g->capid : 1024;
    while (cap < need)
        cap *= 2;
    uint32_t *size = op_mem_realloc(&ctx->alloc, g->size, cap * sizeof *size);
    if (!size)
        return 0;
    g->size = size;
    uint8_t **b[3] = {&g->rarea, &g->flag, &g->band};
    for (int i = 0; i < 3; i++) {
        uint8_t *p = op_mem_realloc(&ctx->alloc, *b[i], cap);
        if (!p)
            return 0;
        *b[i] = p;
        memset(p + g->capid, 0, cap - g->capid);
    }
    memset(size + g->capid, 0, (cap - g->capid) * sizeof *size);
    g->capid = cap;
    return 1;
}

op_status op_regions_graph_init(op_ctx *ctx, op_regions_graph *g, uint32_t maxid, int want_links,
                               int want_ovl)
{
    memset(g, 0, sizeof *g);
    g->maxid = maxid;
    g->want_links = want_links;
    g->want_ovl = want_ovl;
    if (!op_regions_graph_grow_ids(ctx, g, maxid))
        return op_fail(ctx, OP_NO_MEMORY, "regions: out of memory for %u regions", maxid);
    return OP_OK;
}

void op_regions_graph_free(op_ctx *ctx, op_regions_graph *g)
{
    op_mem_free(&ctx->alloc, g->size);
    op_mem_free(&ctx->alloc, g->rarea);
    op_mem_free(&ctx->alloc, g->flag);
    op_mem_free(&ctx->alloc, g->band);
    if (!g->link_lent)
        op_mem_free(&ctx->alloc, g->link);
    op_mem_free(&ctx->alloc, g->ovl);
    op_mem_free(&ctx->alloc, g->sweep_id);
    memset(g, 0, sizeof *g);
}

int op_regions_graph_grow_links(op_ctx *ctx, op_regions_graph *g, size_t need)
{
    size_t cap = g->caplink ? g->caplink : 4096;
    while (cap < need)
        cap *= 2;
    op_regions_link *p = op_mem_realloc(&ctx->alloc, g->link_lent ? NULL : g->link,
                                        cap * sizeof *p);
    if (!p)
        return 0;
    if (g->link_lent && g->nlink)
        memcpy(p, g->link, g->nlink * sizeof *p);
    g->link = p;
    g->caplink = cap;
    g->link_lent = 0;
    return 1;
}

void op_regions_graph_lend_links(op_regions_graph *g, void *mem, size_t bytes)
{
    const size_t cap = bytes / sizeof(op_regions_link);
    if (!mem || cap == 0 || g->nlink || g->link)
        return;
    /* mem comes from the arena (64-byte aligned), so links are aligned too. */
    g->link = mem;
    g->caplink = cap;
    g->link_lent = 1;
}

int op_regions_graph_overlap(op_ctx *ctx, op_regions_graph *g, uint32_t r, uint32_t q)
{
    if (g->novl + 2 > g->capovl) {
        size_t cap = g->capovl ? g->capovl * 2 : 4096;
        uint32_t *p = op_mem_realloc(&ctx->alloc, g->ovl, cap * 2 * sizeof *p);
        if (!p)
            return 0;
        g->ovl = p;
        g->capovl = cap;
    }
    uint32_t *o = g->ovl + 2 * g->novl;
    o[0] = r;
    o[1] = q;
    o[2] = q;
    o[3] = r;
    g->novl += 2;
    return 1;
}

/* Spans per call of the spans-of-interest kernel (its bits on the stack). */
#define SCAN_CHUNK 4096u

/* Sizes, first-span areas, flags and links. Only the spans the kernel marks are visited
 * (core/kernels.h, OP_REGION_SCAN_BITS_FN): those that start a new value of region[],
 * have a region on an area-0 span, or a -x / -z mutual neighbour of another value. Every
 * other span repeats its predecessor's value and has both neighbours in its region, so
 * it only adds to the size of the value's run (counted from the run's first span) and
 * lists no link; the visited spans, in span order, make the same links, flags and
 * reports as a visit of every span. A run is a maximal stretch of one value: a region
 * broken by 0 or band spans is two runs, counted separately (the same sum). An id not
 * yet checked (a later span's) is passed over until its own span reports it; an
 * invalid value is reported at its run's first span, the first span that has it. */
static inline __attribute__((always_inline)) op_status
scan_spans_body(op_ctx *ctx, const op_chf *chf, const uint32_t *region, op_regions_graph *g,
                int nofar)
{
    const uint32_t n = chf->span_count, maxid = g->maxid;
    const uint8_t *area = chf->area, *mutual = chf->mutual;
    const int16_t *const dl0 = chf->dlink[0], *const dl3 = chf->dlink[3];
    const op_region_scan_bits_fn scan_bits = ctx->k->regions.scan_bits;
    uint32_t *const size = g->size;
    uint8_t *const rarea = g->rarea;
    op_regions_scanner sc = OP_REGIONS_SCANNER_INIT;
    uint64_t bits[SCAN_CHUNK / 64];
    /* cur: the value of the span before (0 before span 0); run: cur when it is an id
     * (not 0, not the band), counted from span start. */
    uint32_t cur = 0, run = 0, start = 0;
    for (uint32_t c0 = 0; c0 < n; c0 += SCAN_CHUNK) {
        const uint32_t c1 = n - c0 > SCAN_CHUNK ? c0 + SCAN_CHUNK : n;
        scan_bits(chf, region, c0, c1, bits);
        for (uint32_t wi = 0; wi < (c1 - c0 + 63) / 64; wi++) {
            for (uint64_t b = bits[wi]; b; b &= b - 1) {
                const uint32_t s = c0 + wi * 64 + (uint32_t)__builtin_ctzll(b);
                const uint32_t r = region[s];
                if (r != cur) {
                    if (run)
                        size[run] += s - start;
                    if (r != OP_BORDER_REGION && r > maxid)
                        return op_fail(ctx, OP_INVALID_ARGUMENT,
                                       "filter regions: span %u has region %u above the count %u",
                                       s, r, maxid);
                    cur = r;
                    run = r == OP_BORDER_REGION ? 0 : r;
                    start = s;
                    if (run && size[r] == 0)
                        rarea[r] = area[s];
                }
                if (r == 0)
                    continue;
                const uint8_t as = area[s];
                if (as == 0)
                    return op_fail(ctx, OP_INVALID_ARGUMENT,
                                   "filter regions: span %u has area 0 but region %u", s, r);
                const uint8_t ms = mutual[s];
                const size_t t0 = op_dlink_or_self_at(chf, dl0, 0, s, ms & 1, nofar),
                             t3 = op_dlink_or_self_at(chf, dl3, 3, s, ms & 8, nofar);
                const uint32_t q0 = region[t0], q3 = region[t3];
                if ((q0 != r) | (q3 != r))
                    if (!op_regions_graph_span_links(ctx, g, &sc, area, r, as, (uint32_t)t0, q0,
                                                     (uint32_t)t3, q3))
                        return op_fail(ctx, OP_NO_MEMORY,
                                       "regions: out of memory listing region links (%zu)",
                                       g->nlink);
            }
        }
    }
    if (run)
        size[run] += n - start;
    return OP_OK;
}

/* nofar (the field has no far link) as a constant: the links' reads then add the stored
 * deltas with no test. */
static op_status scan_spans(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            op_regions_graph *g)
{
    return op_chf_has_far(chf) ? scan_spans_body(ctx, chf, region, g, 0)
                               : scan_spans_body(ctx, chf, region, g, 1);
}

/* Overlap pairs of the cells [c0, c1): every two partition regions of one column.
 * Columns of one span are skipped eight at a time (a count with a bit above bit 0 is at
 * least 2); a pair still in the recent cache (the next column or row of the same
 * bridge) is not listed again. Values 1..nsweep are sweep numbers (id sid[v]) when sid
 * is set. */
int op_regions_graph_overlaps_cells(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                                    op_regions_graph *g, uint32_t c0, uint32_t c1,
                                    const uint32_t *sid, uint32_t nsweep, op_ovl_recent *recent)
{
    const uint32_t maxid = g->maxid;
    const uint32_t *cf = chf->cell_first;
    for (uint32_t c = c0; c < c1; c++) {
        if (c + 8 <= c1 && op_eight_cells_single(cf + c)) {
            c += 7;
            continue;
        }
        const uint32_t f = cf[c], e = cf[c + 1];
        if (e - f < 2)
            continue;
        for (uint32_t s = f + 1; s < e; s++) {
            uint32_t r = region[s];
            if (sid && r <= nsweep)
                r = sid[r];
            if (r == 0 || r > maxid)
                continue;
            for (uint32_t t = f; t < s; t++) {
                uint32_t q = region[t];
                if (sid && q <= nsweep)
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

op_status op_regions_graph_overlaps(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                                    op_regions_graph *g)
{
    op_ovl_recent recent;
    memset(&recent, 0, sizeof recent);
    if (!op_regions_graph_overlaps_cells(ctx, chf, region, g, 0, chf->width * chf->depth,
                                         g->sweep_id, g->nsweep, &recent))
        return op_fail(ctx, OP_NO_MEMORY, "regions: out of memory listing overlaps (%zu)",
                       g->novl);
    return OP_OK;
}

op_status op_regions_graph_scan(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                               op_regions_graph *g)
{
    op_status st = scan_spans(ctx, chf, region, g);
    if (st == OP_OK && g->want_ovl)
        st = op_regions_graph_overlaps(ctx, chf, region, g);
    return st;
}

void op_regions_resolve_sweeps(uint32_t *region, uint32_t n, const uint32_t *sweep_id,
                               uint32_t nsweep)
{
    for (uint32_t s = 0; s < n; s++)
        if (region[s] <= nsweep)
            region[s] = sweep_id[region[s]];
}

uint32_t *op_regions_compose_sweeps(op_ctx *ctx, const op_regions_graph *g, const uint32_t *fin)
{
    uint32_t *f = op_scratch(ctx, (size_t)g->nsweep + 1, sizeof *f);
    if (!f)
        return NULL;
    for (uint32_t v = 0; v <= g->nsweep; v++)
        f[v] = fin[g->sweep_id[v]];
    return f;
}

/* n copies of x at p, 16 at a time (as 64-bit stores): may write up to 15 past p + n. */
static inline void fill16(uint32_t *p, uint32_t n, uint32_t x)
{
    const uint64_t x2 = (uint64_t)x << 32 | x;
    for (uint32_t i = 0; i < n; i += 16)
        for (int j = 0; j < 8; j++)
            memcpy(p + i + 2 * j, &x2, sizeof x2);
}

uint32_t op_regions_number(op_value_change_bits_fn change_bits, uint32_t *region, uint32_t n,
                           const uint32_t *fin, uint32_t maxid, uint32_t *map)
{
    /* Only the spans where the raw value changes are looked up (the kernel marks them:
     * 750 k of 3.9 M spans at demo 1936, at irregular places, where a test per span
     * mispredicted). A word of 64 spans without a change is the last number 64 times;
     * else its numbers are made in out[] (runs written 16 at a time, a run may spill
     * into the next one's place before that is written) and copied over the word, so
     * a raw value is read before its span is written. 0 and values above maxid (the
     * band) are their own numbers. */
    uint64_t bits[SCAN_CHUNK / 64];
    uint32_t out[64 + 16];
    uint32_t k = 0, pv = 0; /* pv: the number of the run at hand (span -1: 0) */
    uint32_t raw_prev = 0;  /* the raw value of span c0 - 1 (span -1: 0) */
    for (uint32_t c0 = 0; c0 < n; c0 += SCAN_CHUNK) {
        const uint32_t c1 = n - c0 > SCAN_CHUNK ? c0 + SCAN_CHUNK : n;
        change_bits(region, c0, c1, bits);
        /* The kernel compares span c0 with region[c0 - 1], which holds its number by
         * now, not its raw value: bit 0 is the raw comparison (a raw value equal to the
         * number before it would otherwise be missed). */
        bits[0] = (bits[0] & ~(uint64_t)1) | (uint64_t)(region[c0] != raw_prev);
        const uint32_t raw_last = region[c1 - 1];
        for (uint32_t base = c0, wi = 0; base < c1; base += 64, wi++) {
            const uint32_t len = c1 - base < 64 ? c1 - base : 64;
            uint64_t b = bits[wi];
            if (!b && len == 64) {
                fill16(region + base, 64, pv);
                continue;
            }
            uint32_t at = 0;
            for (; b; b &= b - 1) {
                const uint32_t i = (uint32_t)__builtin_ctzll(b);
                fill16(out + at, i - at, pv);
                const uint32_t r = region[base + i];
                if (r == 0 || r > maxid) {
                    pv = r;
                } else {
                    const uint32_t f = fin[r];
                    if (f && !map[f])
                        map[f] = ++k;
                    pv = f ? map[f] : 0;
                }
                at = i;
            }
            fill16(out + at, len - at, pv);
            if (len == 64)
                memcpy(region + base, out, 64 * sizeof *out);
            else
                memcpy(region + base, out, (size_t)len * sizeof *out);
        }
        raw_prev = raw_last;
    }
    return k;
}
