/* The region graph (issue 12): what §5 (filter) and §4 (layers) need to know of a raw
 * partition, so that they decide on regions instead of passes over the spans. Built by
 * one pass over the spans (op_regions_graph_scan, any region array) or by the partition
 * itself (the monotone row pass). */
#ifndef ONEPATH_REGIONS_REGION_GRAPH_H
#define ONEPATH_REGIONS_REGION_GRAPH_H

#include "core/kernels.h"
#include "regions/regions_internal.h"

/* A mutual link between partition regions r != q (neither 0 nor the band) whose span in
 * q has area a and whose span in r has area b, counted n times (a run of spans along one
 * border). Listed once, for both ends (16 bytes a link; the former list held each link
 * at both ends, twice the bytes at the watershed's peak). */
typedef struct op_regions_link {
    uint32_t r, q, n;
    uint8_t a, b;
} op_regions_link;

typedef struct op_regions_graph {
    uint32_t maxid; /* raw ids 1..maxid */
    /* Per raw id (maxid + 1 entries at least, zeroed when made): spans, the area of the
     * first span (in span order), a mutual link to another non-zero region or to the
     * band (§5.1), a mutual link to the band. */
    uint32_t *size;
    uint8_t *rarea, *flag, *band;
    size_t capid;
    /* Everything is allocated through the allocator hook (op_regions_graph_free). */
    op_regions_link *link; /* NULL count when not wanted */
    size_t nlink, caplink;
    /* link is memory lent by the caller (op_regions_graph_lend_links): not freed here,
     * and moved to an allocation of its own when it is outgrown. */
    int link_lent;
    uint32_t *ovl; /* overlap pairs r, q (a column holds both), both ways round */
    size_t novl, capovl;
    int want_links, want_ovl;
    /* Set by the monotone row pass: region[] then holds its sweeps' global numbers
     * 1..nsweep (0 and the band as usual) and sweep v's raw id is sweep_id[v]
     * (sweep_id[0] = 0); NULL: region[] holds raw ids. */
    uint32_t *sweep_id;
    uint32_t nsweep;
} op_regions_graph;

/* An empty graph with room for ids 1..maxid (zeroed). */
op_status op_regions_graph_init(op_ctx *ctx, op_regions_graph *g, uint32_t maxid, int want_links,
                               int want_ovl);
/* Room for ids up to maxid (new entries zeroed); g->maxid is not changed. Returns 0 when
 * out of memory. */
int op_regions_graph_grow_ids(op_ctx *ctx, op_regions_graph *g, uint32_t maxid);
void op_regions_graph_free(op_ctx *ctx, op_regions_graph *g);

/* n links between r and q (a: area of q's span, b: of r's). Returns 0 when out of
 * memory. */
static inline int op_regions_graph_link(op_ctx *ctx, op_regions_graph *g, uint32_t r, uint32_t q,
                                       uint32_t n, uint8_t a, uint8_t b);
/* Both ways round. Returns 0 when out of memory. */
int op_regions_graph_overlap(op_ctx *ctx, op_regions_graph *g, uint32_t r, uint32_t q);

/* One pass over the spans of any region array (ids 1..maxid, 0, OP_BORDER_REGION): sizes,
 * first-span areas, flags, band contacts, links (when wanted) and overlaps (when wanted).
 * A region id above maxid (not the band) or a region on an area-0 span is reported
 * (OP_INVALID_ARGUMENT, "filter regions: ...") before anything is counted for it; no
 * region is written. */
op_status op_regions_graph_scan(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                               op_regions_graph *g);

/* The overlap pairs of region[] (g->maxid set; through g->sweep_id when set): every
 * two partition regions of one column. */
op_status op_regions_graph_overlaps(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                                    op_regions_graph *g);

/* The overlap pairs listed lately, as a direct-mapped cache of unordered pairs (zeroed
 * at first; 0 is no pair, ids are at least 1): a pair whose slot still holds it is not
 * listed again. Overlaps are only used as sets (layers marks them with stamps, §4), so a
 * pair listed once or many times gives the same partition; the cache only keeps the
 * list short (a bridge repeats its pairs in every column and row). */
#define OP_OVL_RECENT 1024
typedef struct op_ovl_recent {
    uint64_t key[OP_OVL_RECENT];
} op_ovl_recent;

/* 1 when {r, q} is not in the cache (it is now), 0 when it was. */
static inline int op_ovl_recent_new(op_ovl_recent *c, uint32_t r, uint32_t q)
{
    const uint64_t k = r < q ? (uint64_t)r << 32 | q : (uint64_t)q << 32 | r;
    const uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 54); /* 1024 slots */
    if (c->key[h] == k)
        return 0;
    c->key[h] = k;
    return 1;
}

/* The overlap pairs of the cells [c0, c1) (op_regions_graph_overlaps over a part of
 * the grid, e.g. one row as the row pass finishes it); values 1..nsweep of region[] are
 * sweep numbers with ids sid[v] when sid is set; recent (zeroed at first) carries from
 * one call to the next. Returns 0 when out of memory. */
int op_regions_graph_overlaps_cells(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                                    op_regions_graph *g, uint32_t c0, uint32_t c1,
                                    const uint32_t *sid, uint32_t nsweep, op_ovl_recent *recent);

/* §5 on a graph of region[] (sweep numbers when g->sweep_id is set): islands (decided
 * on the graph's raw regions), merging when merge and merge_area > 0, numbering by
 * first span, written to region[]. */
op_status op_regions_filter_graph(op_ctx *ctx, const op_chf *chf, const op_regions_graph *g,
                                  uint32_t min_area, uint32_t merge_area, int merge,
                                  uint32_t *region, uint32_t *region_count);

/* region[s] = sweep_id[region[s]] for the sweep numbers 1..nsweep (0 and the band
 * stay): raw ids from a row pass's numbers. */
void op_regions_resolve_sweeps(uint32_t *region, uint32_t n, const uint32_t *sweep_id,
                               uint32_t nsweep);

/* The monotone row pass (§3) with the graph of its raw regions' links and, when
 * g->want_ovl, overlaps (g may be NULL). With g, region[] holds sweep numbers (g->sweep_id); without, raw ids. Returns OP_INTERNAL without a message on a hand-made field it does not
 * handle (spans not numbered cell after cell, a predecessor not visited before, a link
 * to a walkable span of a later row): the caller then walks chains and scans. */
op_status op_regions_monotone_rows(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                   uint32_t *region_count, op_regions_graph *g);

/* §3 and the graph of its raw regions (links; overlaps when want_ovl): from the row
 * pass (region[] then holds sweep numbers, g->sweep_id), or from the chain walk and
 * op_regions_graph_scan on a hand-made field (raw ids). g is initialised here (free it with op_regions_graph_free, also after a failure). */
op_status op_regions_monotone_graph(op_ctx *ctx, const op_chf *chf, uint32_t *region,
                                    uint32_t *region_count, op_regions_graph *g, int want_ovl);

int op_regions_graph_grow_links(op_ctx *ctx, op_regions_graph *g, size_t need);

/* Lets the link list start in bytes of the caller's memory (scratch that is dead while
 * the graph lives, such as the watershed's neighbour entries), so a list that fits takes
 * no allocation of its own beside it (docs/decisions/memory.md, round 5). Only on an
 * empty list; too few bytes for one link: nothing lent. */
void op_regions_graph_lend_links(op_regions_graph *g, void *mem, size_t bytes);

static inline int op_regions_graph_link(op_ctx *ctx, op_regions_graph *g, uint32_t r, uint32_t q,
                                       uint32_t n, uint8_t a, uint8_t b)
{
    if (g->nlink + 1 > g->caplink && !op_regions_graph_grow_links(ctx, g, g->nlink + 1))
        return 0;
    g->link[g->nlink++] = (op_regions_link){r, q, n, a, b};
    return 1;
}

/* §5.3 numbering by first span: region[s] = the number (1, 2, ... in order of first
 * span) of fin[region[s]], or 0 when that is 0, for ids 1..maxid; other values (0, the
 * band) stay. map (maxid + 1 entries, zeroed) receives the numbers. change_bits: the
 * context's kernel (ctx->k->regions.change_bits). Returns the count. */
uint32_t op_regions_number(op_value_change_bits_fn change_bits, uint32_t *region, uint32_t n,
                           const uint32_t *fin, uint32_t maxid, uint32_t *map);

/* fin through g->sweep_id (set): f[v] = fin[sweep_id[v]] for v = 0..nsweep, so that
 * op_regions_number(.., region, n, f, g->nsweep, map) numbers sweep numbers as fin numbers
 * raw ids (fin[0] must be 0). Arena scratch; NULL when out of memory. */
uint32_t *op_regions_compose_sweeps(op_ctx *ctx, const op_regions_graph *g, const uint32_t *fin);

/* The scan's state for links (op_regions_graph_span_links): each mutual link is taken
 * once, from the span whose -x or -z link it is, for both regions (links are symmetric);
 * consecutive spans of one border repeat a link, so each direction extends its last
 * entry. */
typedef struct op_regions_scanner {
    size_t last[2];
} op_regions_scanner;
#define OP_REGIONS_SCANNER_INIT {{SIZE_MAX, SIZE_MAX}}

/* The flags and links of a span with region r (not 0: an id <= g->maxid or
 * OP_BORDER_REGION) and area as whose -x or -z mutual neighbour (t0, t3: the span itself
 * when there is none) holds another value (q0, q3: their regions). Ids above g->maxid
 * other than the band are passed over. Returns 0 when out of memory. */
static inline int op_regions_graph_span_links(op_ctx *ctx, op_regions_graph *g,
                                              op_regions_scanner *sc, const uint8_t *area,
                                              uint32_t r, uint8_t as, uint32_t t0, uint32_t q0,
                                              uint32_t t3, uint32_t q3)
{
    const int rb = r == OP_BORDER_REGION;
    for (int k = 0; k < 2; k++) {
        const uint32_t t = k ? t3 : t0;
        const uint32_t q = k ? q3 : q0;
        if (q == r || q == 0 || (q > g->maxid && q != OP_BORDER_REGION))
            continue;
        if (rb) {
            g->flag[q] = g->band[q] = 1;
            continue;
        }
        g->flag[r] = 1;
        if (q == OP_BORDER_REGION) {
            g->band[r] = 1;
            continue;
        }
        g->flag[q] = 1;
        if (!g->want_links)
            continue;
        const uint8_t at = area[t];
        if (sc->last[k] != SIZE_MAX) {
            op_regions_link *e = &g->link[sc->last[k]];
            if (e->r == r && e->q == q && e->a == at && e->b == as) {
                e->n++;
                continue;
            }
        }
        sc->last[k] = g->nlink;
        if (!op_regions_graph_link(ctx, g, r, q, 1, at, as))
            return 0;
    }
    return 1;
}

/* Cells c..c+7 hold at most one span each (first: cell_first + c, read at [0 .. 8];
 * a count is the prefix sum's step): the scans that look only at cells of two or more
 * spans skip eight open-ground cells with one test. */
static inline int op_eight_cells_single(const uint32_t *first)
{
    uint32_t many = 0;
    for (int i = 0; i < 8; i++)
        many |= (first[i + 1] - first[i]) & ~1u;
    return many == 0;
}

#endif
