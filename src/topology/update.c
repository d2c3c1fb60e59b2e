/* update_region_graph: the incremental patch (topology.md "Incremental Updates",
 * "Public Surface"; supplement §10.13 for the order of the checks, §6 for failure).
 *
 * The dirty chunks are relabelled; the portals of them and their regular-step
 * neighbours (the "affected" slots) are dropped and re-derived from their exits and the
 * provider; canonical order, the dense index and the CSR are then restored in place.
 * The graph keeps every array in canonical order (portals chunk by chunk, each chunk's
 * CSR buckets at its portal positions, regions chunk by chunk), so the patch is one
 * filtered pass over runs: a run of unaffected slots keeps its bytes and only moves when
 * an affected slot before it changed its portal or region count, its values shifted by
 * the change (portal indices by the portal delta, target region indices by the region
 * deltas of the dirty chunks below them). When nothing changed size, nothing outside
 * the affected slots is touched: an update of one chunk costs that chunk's labelling and
 * a handful of chunks' pairing, not a rebuild of the index.
 *
 * Why unaffected slots can keep their CSR: every portal of a slot lands in the slot
 * itself or a regular-step neighbour (face pairing; provider landings are limited to
 * that), and the neighbour relation is symmetric, so no portal of an unaffected slot
 * lands in a dirty (relabelled) chunk. */
/* The moves are plain loops over u32 arrays, written to vectorize; GCC vectorizes at -O2
 * only cheaply (no loops that need an overlap check), so ask for it (flood.c too). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif
#include "topology/topology_internal.h"

#include <stdlib.h>

#if OP_HAVE_OPENMP
#include <omp.h>
#endif

/* A run of unaffected slots [a, b) and how its values move. */
typedef struct run {
    uint32_t a, b;
    uint32_t psrc, pdst, plen; /* portal positions */
    uint32_t rsrc, rdst, rlen; /* region positions */
    int64_t dp;                /* portal delta */
    int64_t base;              /* region delta of targets below every breakpoint */
    uint32_t bp_first, bp_count; /* breakpoints: changed dirty slots near the run */
} run;

typedef struct patch_state {
    op_ctx *ctx;
    const op_world *world;
    const op_movement_class *cls;
    const op_transition_provider *prov;
    op_region_graph *g;
    op_region_graph_work *w;
    op_region_graph_settings s;
    uint32_t slots;
    uint32_t *dirty, nd;    /* dirty slots, ascending */
    uint32_t *aff, na;      /* affected slots, ascending */
    uint32_t *changed, nc;  /* dirty slots whose region count changed, ascending */
    int64_t *change;        /* their region count changes */
    int nt, par, team;
    int regions_moved, portals_moved;
} patch_state;

static op_status patch_failed(patch_state *p, op_status st, const char *what)
{
    op_region_graph_clear(p->g);
    if (st == OP_NO_MEMORY)
        return op_fail(p->ctx, st, "region graph update: out of memory for %s", what);
    return op_fail(p->ctx, st, "region graph update: more than 2^32 - 2 %s", what);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Resizes *p to n elements keeping its contents (0 or -1; *p unchanged on failure). */
static int keep_grow(const op_allocator *a, void **p, size_t n, size_t elem)
{
    if (elem && n > SIZE_MAX / elem)
        return -1;
    void *q = op_mem_realloc(a, *p, n * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* ---- the dirty and affected slots ----------------------------------------------------- */

static uint32_t next_mark(op_region_graph_work *w)
{
    /* Two marks per update: base + 1 dirty, base affected. */
    if (w->mark_epoch >= UINT32_MAX - 2) {
        memset(w->mark, 0, w->mark_cap * sizeof *w->mark);
        w->mark_epoch = 0;
    }
    w->mark_epoch += 2;
    return w->mark_epoch;
}

static op_status collect(patch_state *p, const op_chunk_key *dirty, size_t n)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const size_t slots = p->slots;
    const size_t nd_cap = n < slots ? n : slots;
    const size_t na_cap = (nd_cap * 7 < slots ? nd_cap * 7 : slots);
    if (w->mark_cap < slots) {
        op_mem_free(&g->alloc, w->mark);
        w->mark = NULL;
        w->mark_cap = 0;
        w->mark_epoch = 0;
    }
    if (op_topo_grow(&g->alloc, (void **)&w->mark, &w->mark_cap, slots, sizeof *w->mark, 1) ||
        op_topo_grow(&g->alloc, (void **)&w->list, &w->list_cap, nd_cap + 2 * na_cap, sizeof(uint32_t), 0))
        return patch_failed(p, OP_NO_MEMORY, "the dirty chunk lists");
    const uint32_t base = next_mark(w);
    p->dirty = w->list;
    p->aff = w->list + nd_cap;
    p->changed = w->list + nd_cap + na_cap;
    p->nd = p->na = p->nc = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t s = op_topo_slot_of(g, dirty[i]);
        if (w->mark[s] == base + 1)
            continue; /* duplicates are harmless */
        w->mark[s] = base + 1;
        p->dirty[p->nd++] = s;
    }
    qsort(p->dirty, p->nd, sizeof *p->dirty, cmp_u32);
    /* Affected: the dirty slots and their regular-step neighbours (hex: with the seam
     * chunks) that the graph holds. */
    for (uint32_t i = 0; i < p->nd; i++) {
        const uint32_t d = p->dirty[i];
        p->aff[p->na++] = d;
        op_chunk_key nb[6];
        const uint32_t m = op_topo_chunk_neighbours(&g->stamp, op_topo_slot_key(g, d), nb);
        for (uint32_t j = 0; j < m; j++) {
            const uint32_t s = op_topo_slot_of(g, nb[j]);
            if (s == OP_INVALID_CHUNK || w->mark[s] >= base)
                continue;
            w->mark[s] = base;
            p->aff[p->na++] = s;
        }
    }
    qsort(p->aff, p->na, sizeof *p->aff, cmp_u32);
    return OP_OK;
}

/* ---- relabel and re-derive ------------------------------------------------------------- */

static op_status relabel(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const int use_template = p->s.use_open_template != 0, use_gl = p->s.use_grid_label != 0;
    /* The aggregates lose the old chunks and gain the new (after the pass). */
    for (uint32_t i = 0; i < p->nd; i++) {
        const op_local_topology *t = &g->locals[p->dirty[i]];
        for (uint32_t r = 0; r < t->region_count; r++)
            w->passable -= t->regions[r].tile_count;
        w->exits -= t->exit_count;
        w->versions -= t->topology_version;
    }
    const uint32_t nd = p->nd;
    const int nt = p->nt, par = p->par && nd > 1;
    (void)nt;
    (void)par;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t i = 0; i < (int64_t)nd; i++) {
        const int tid = op_topo_thread_id();
        const op_ctx *c = op_topo_team_ctx(p->ctx, w, tid);
        op_grid_label_fn gl = NULL;
        if (use_gl)
            gl = c && c->k ? c->k->grid_label.label : op_grid_label_scalar;
        const uint32_t slot = p->dirty[i];
        op_local_topology *t = &g->locals[slot];
        const op_chunk_key key = op_topo_slot_key(g, slot);
        if (op_topo_label_chunk(p->world, p->cls, &w->plan, &w->thread[tid].flood, key,
                                use_template, gl, t))
            op_topo_team_fail(p->ctx, w, tid, slot, OP_NO_MEMORY,
                              "region graph update: out of memory for the regions and exits of "
                              "chunk %u",
                              key);
        else
            op_topo_face_strips(&w->plan, t->labels, w->strips + (size_t)slot * w->plan.face_total);
    }
    op_status st = op_topo_team_result(p->ctx, w, p->team);
    if (st != OP_OK) {
        op_region_graph_clear(g);
        return st;
    }
    for (uint32_t i = 0; i < p->nd; i++) {
        const op_local_topology *t = &g->locals[p->dirty[i]];
        for (uint32_t r = 0; r < t->region_count; r++)
            w->passable += t->regions[r].tile_count;
        w->exits += t->exit_count;
        w->versions += t->topology_version;
        if (t->region_count > w->max_regions)
            w->max_regions = t->region_count;
    }
    return OP_OK;
}

/* New region offsets (old ones kept in w->old_ro): only from the first dirty slot whose
 * region count changed. */
static op_status reindex_regions(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const uint32_t *old = w->old_ro;
    p->change = NULL;
    uint32_t first = UINT32_MAX;
    for (uint32_t i = 0; i < p->nd; i++) {
        const uint32_t d = p->dirty[i];
        const int64_t delta = (int64_t)g->locals[d].region_count - (old[d + 1] - old[d]);
        if (delta) {
            if (first == UINT32_MAX)
                first = d;
            p->changed[p->nc++] = d;
        }
    }
    p->regions_moved = p->nc != 0;
    if (!p->nc)
        return OP_OK;
    uint64_t at = g->region_offsets[first];
    for (uint32_t k = first; k < p->slots; k++) {
        g->region_offsets[k] = (uint32_t)at;
        at += g->locals[k].region_count;
        if (at >= OP_INVALID_REGION_INDEX)
            return patch_failed(p, OP_UNSUPPORTED, "regions");
    }
    g->region_offsets[p->slots] = (uint32_t)at;
    return OP_OK;
}

/* Exits and provider portals of the affected slots, into scratch: w->aux holds per
 * affected slot its exit offset and its region offset into w->exit_to and w->miss. */
static op_status rederive(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const int sparse = g->residency == OP_RESIDENCY_SPARSE;
    if (op_topo_grow(&g->alloc, (void **)&w->aux, &w->aux_cap, 2 * (size_t)p->na + 2, sizeof(uint32_t), 0))
        return patch_failed(p, OP_NO_MEMORY, "the affected chunks");
    uint64_t exits = 0, regions = 0;
    for (uint32_t i = 0; i < p->na; i++) {
        const op_local_topology *t = &g->locals[p->aff[i]];
        w->aux[2 * i] = (uint32_t)exits;
        w->aux[2 * i + 1] = (uint32_t)regions;
        exits += t->exit_count;
        regions += t->region_count;
    }
    if (op_topo_grow(&g->alloc, (void **)&w->exit_to, &w->exit_to_cap, (size_t)exits, sizeof(uint32_t), 0) ||
        (sparse && op_topo_grow(&g->alloc, (void **)&w->miss, &w->miss_cap, (size_t)regions, 1, 0)))
        return patch_failed(p, OP_NO_MEMORY, "the exit pairing");
    if (sparse)
        memset(w->miss, 0, (size_t)regions);
    const uint32_t na = p->na;
    const int nt = p->nt, par = p->par && na > 1;
    (void)nt;
    (void)par;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t i = 0; i < (int64_t)na; i++) {
        const uint32_t slot = p->aff[i];
        uint8_t *m = sparse ? w->miss + w->aux[2 * i + 1] : NULL;
        w->exit_portals[slot] = op_topo_count_exit_portals(g, slot, &w->plan, w->strips,
                                                           w->exit_to + w->aux[2 * i], m);
        if (op_topo_provider_portals(g, p->prov, p->world, slot, &w->extra[slot],
                                     &w->extra_count[slot], &w->extra_cap[slot], m))
            op_topo_team_fail(p->ctx, w, op_topo_thread_id(), slot, OP_NO_MEMORY,
                              "region graph update: out of memory for the provider portals of "
                              "chunk %u",
                              op_topo_slot_key(g, slot));
    }
    op_status st = op_topo_team_result(p->ctx, w, p->team);
    if (st != OP_OK)
        op_region_graph_clear(g);
    return st;
}

/* New portal offsets from the first affected slot on (old ones in w->old_po). */
static op_status reindex_portals(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const uint32_t *old = w->old_po;
    const uint32_t first = p->aff[0];
    uint64_t at = g->portal_offsets[first];
    uint32_t j = 0;
    p->portals_moved = 0;
    for (uint32_t k = first; k < p->slots; k++) {
        g->portal_offsets[k] = (uint32_t)at;
        p->portals_moved |= at != old[k];
        if (j < p->na && p->aff[j] == k) {
            at += (uint64_t)w->exit_portals[k] + w->extra_count[k];
            j++;
        } else {
            at += old[k + 1] - old[k];
        }
        if (at >= UINT32_MAX)
            return patch_failed(p, OP_UNSUPPORTED, "portals");
    }
    p->portals_moved |= at != old[p->slots];
    g->portal_offsets[p->slots] = (uint32_t)at;
    return OP_OK;
}

/* Room for the new counts, keeping the contents (the runs move in place). */
static op_status reserve(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const op_allocator *a = &g->alloc;
    const size_t portals = g->portal_offsets[p->slots], regions = g->region_offsets[p->slots];
    if (portals > g->portal_cap || !g->portals) {
        const size_t cap = portals + portals / 4 + 16;
        /* Each array alone: a failure leaves portal_cap true for all of them. */
        if (keep_grow(a, (void **)&g->portals, cap, sizeof *g->portals) ||
            keep_grow(a, (void **)&g->adj_target, cap, sizeof(uint32_t)) ||
            keep_grow(a, (void **)&g->adj_portal, cap, sizeof(uint32_t)) ||
            keep_grow(a, (void **)&g->nb_target, cap, sizeof(uint32_t)) ||
            keep_grow(a, (void **)&g->nb_portal, cap, sizeof(uint32_t)))
            return patch_failed(p, OP_NO_MEMORY, "the portals");
        g->portal_cap = cap;
    }
    if (regions + 1 > g->region_cap || !g->adj_start) {
        const size_t cap = regions + regions / 4 + 16;
        if (keep_grow(a, (void **)&g->adj_start, cap, sizeof(uint32_t)) ||
            keep_grow(a, (void **)&g->nb_range, cap, 2 * sizeof(uint32_t)))
            return patch_failed(p, OP_NO_MEMORY, "the CSR adjacency");
        g->region_cap = cap;
    }
    if (g->residency == OP_RESIDENCY_SPARSE && (regions > g->missing_cap || !g->reaches_missing)) {
        const size_t cap = regions + regions / 4 + 16;
        if (keep_grow(a, (void **)&g->reaches_missing, cap, 1))
            return patch_failed(p, OP_NO_MEMORY, "the reaches-missing flags");
        g->missing_cap = cap;
    }
    if (op_topo_reserve_index(g, p->team, regions, w->max_regions))
        return patch_failed(p, OP_NO_MEMORY, "the adjacency marks");
    return OP_OK;
}

/* ---- moving the unaffected runs ---------------------------------------------------------- */

/* Key distance of the farthest regular-step neighbour chunk. */
static uint64_t key_span(const op_region_graph *g)
{
    const uint32_t *c = g->stamp.chunks;
    if (c[2] > 1)
        return (uint64_t)c[0] * c[1];
    if (c[1] > 1)
        return c[0];
    return 1;
}

/* First slot whose key is >= key. */
static uint32_t slot_lower(const op_region_graph *g, uint64_t key)
{
    if (g->residency != OP_RESIDENCY_SPARSE)
        return key < g->slot_count ? (uint32_t)key : g->slot_count;
    uint32_t lo = 0, hi = g->slot_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->sparse_keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One run of unaffected slots [a, b) with its moves and, when region counts changed,
 * its target remap: base (the changes below every slot its portals can reach) and the
 * breakpoints of the changed slots among them. *j walks the changed slots. */
static void add_run(patch_state *p, run *r, uint32_t a, uint32_t b, uint32_t *j)
{
    op_region_graph *g = p->g;
    const uint32_t *old_ro = p->w->old_ro, *old_po = p->w->old_po;
    r->a = a;
    r->b = b;
    r->psrc = old_po[a];
    r->pdst = g->portal_offsets[a];
    r->plen = old_po[b] - old_po[a];
    r->rsrc = old_ro[a];
    r->rdst = g->region_offsets[a];
    r->rlen = old_ro[b] - old_ro[a];
    r->dp = (int64_t)r->pdst - r->psrc;
    r->base = 0;
    r->bp_first = r->bp_count = 0;
    if (!p->nc)
        return;
    /* Targets of the run lie in slots whose keys are within span of it. */
    const uint64_t span = key_span(g);
    const uint64_t ka = op_topo_slot_key(g, a), kb = op_topo_slot_key(g, b - 1);
    const uint32_t lo = slot_lower(g, ka > span ? ka - span : 0);
    const uint32_t hi = slot_lower(g, kb + span + 1);
    while (*j < p->nc && p->changed[*j] < lo)
        (*j)++;
    int64_t base = 0;
    for (uint32_t c = 0; c < *j; c++)
        base += p->change[c];
    r->base = base;
    r->bp_first = *j;
    uint32_t e = *j;
    while (e < p->nc && p->changed[e] < hi)
        e++;
    r->bp_count = e - *j;
}

/* The runs between affected slots, each cut where a changed slot's reach begins and
 * ends, so only the slots near a change pay for the per-entry remap and the rest of a
 * long run shifts its targets by one constant. */
static uint32_t plan_runs(patch_state *p, run *runs, uint32_t *cuts)
{
    op_region_graph *g = p->g;
    const uint64_t span = key_span(g);
    uint32_t nc2 = 0;
    for (uint32_t c = 0; c < p->nc; c++) {
        const uint64_t k = op_topo_slot_key(g, p->changed[c]);
        cuts[nc2++] = slot_lower(g, k > span ? k - span : 0);
        cuts[nc2++] = slot_lower(g, k + span + 1);
    }
    qsort(cuts, nc2, sizeof *cuts, cmp_u32);
    uint32_t n = 0, a = 0, j = 0, cut = 0;
    for (uint32_t i = 0; i <= p->na; i++) {
        const uint32_t b = i < p->na ? p->aff[i] : p->slots;
        uint32_t x = a;
        while (cut < nc2 && cuts[cut] <= x)
            cut++;
        while (cut < nc2 && cuts[cut] < b) {
            add_run(p, &runs[n++], x, cuts[cut], &j);
            x = cuts[cut];
            while (cut < nc2 && cuts[cut] <= x)
                cut++;
        }
        if (b > x)
            add_run(p, &runs[n++], x, b, &j);
        if (i < p->na)
            a = p->aff[i] + 1;
    }
    return n;
}

/* The new index of an old target region index. */
static inline uint32_t remap(const patch_state *p, const run *r, const uint32_t *bp, uint32_t t)
{
    int64_t v = (int64_t)t + r->base;
    for (uint32_t j = 0; j < r->bp_count; j++)
        v += t >= bp[j] ? p->change[r->bp_first + j] : 0;
    return (uint32_t)v;
}

/* Adds d (mod 2^32) to n values. */
static void add_u32(uint32_t *restrict v, size_t n, uint32_t d)
{
    for (size_t i = 0; i < n; i++)
        v[i] += d;
}

/* v[dst + i] = v[src + i] + d for i < n, one pass (the order keeps an overlapping move
 * right: front to back moving down, back to front moving up). */
static void move_add_u32(uint32_t *v, size_t src, size_t dst, size_t n, uint32_t d)
{
    if (dst < src) {
        uint32_t *o = v + dst;
        const uint32_t *in = v + src;
        for (size_t i = 0; i < n; i++)
            o[i] = in[i] + d;
    } else if (dst > src) {
        for (size_t i = n; i-- > 0;)
            v[dst + i] = v[src + i] + d;
    } else if (d) {
        add_u32(v + dst, n, d);
    }
}

/* Target region indices: the same move, each value remapped (§10.7 index shifts). */
static void move_retarget(const patch_state *p, const run *r, const uint32_t *bp, uint32_t *v)
{
    const size_t src = r->psrc, dst = r->pdst, n = r->plen;
    if (!r->bp_count) {
        move_add_u32(v, src, dst, n, (uint32_t)r->base);
        return;
    }
    if (r->bp_count == 1) {
        /* The common case, one change nearby: a select per entry (vectorizes). */
        const uint32_t b0 = bp[0], base = (uint32_t)r->base,
                       c0 = (uint32_t)p->change[r->bp_first];
        if (dst <= src)
            for (size_t i = 0; i < n; i++) {
                const uint32_t t = v[src + i];
                v[dst + i] = t + base + (t >= b0 ? c0 : 0);
            }
        else
            for (size_t i = n; i-- > 0;) {
                const uint32_t t = v[src + i];
                v[dst + i] = t + base + (t >= b0 ? c0 : 0);
            }
        return;
    }
    if (dst <= src)
        for (size_t i = 0; i < n; i++)
            v[dst + i] = remap(p, r, bp, v[src + i]);
    else
        for (size_t i = n; i-- > 0;)
            v[dst + i] = remap(p, r, bp, v[src + i]);
}

/* A run's portals, CSR entries and first-occurrence entries to their new place, their
 * values shifted on the way. */
static void move_portals(patch_state *p, const run *r, const uint32_t *bp)
{
    op_region_graph *g = p->g;
    const size_t s = r->psrc, d = r->pdst, n = r->plen;
    if (s != d)
        memmove(g->portals + d, g->portals + s, n * sizeof *g->portals);
    move_add_u32(g->adj_portal, s, d, n, (uint32_t)r->dp);
    move_add_u32(g->nb_portal, s, d, n, (uint32_t)r->dp);
    move_retarget(p, r, bp, g->adj_target);
    move_retarget(p, r, bp, g->nb_target);
}

static void move_regions(patch_state *p, const run *r)
{
    op_region_graph *g = p->g;
    const size_t s = r->rsrc, d = r->rdst, n = r->rlen;
    move_add_u32(g->adj_start, s, d, n, (uint32_t)r->dp);
    move_add_u32(g->nb_range, 2 * s, 2 * d, 2 * n, (uint32_t)r->dp);
    if (s != d && g->residency == OP_RESIDENCY_SPARSE)
        memmove(g->reaches_missing + d, g->reaches_missing + s, n);
}

static op_status move_runs(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    if (!p->portals_moved && !p->regions_moved)
        return OP_OK; /* nothing outside the affected slots changes */
    /* runs: at most one per gap between affected slots plus two cuts per changed slot;
     * the cuts themselves after them. */
    const size_t max_runs = (size_t)p->na + 1 + 2 * (size_t)p->nc;
    if (op_topo_grow(&g->alloc, &w->runs, &w->runs_cap,
                     max_runs * sizeof(run) + 2 * (size_t)p->nc * sizeof(uint32_t) + 1, 1, 0))
        return patch_failed(p, OP_NO_MEMORY, "the moves");
    run *runs = w->runs;
    const uint32_t nr = plan_runs(p, runs, (uint32_t *)(void *)(runs + max_runs));
    /* Breakpoints (the old index from which a change counts) per changed slot. */
    uint32_t bpv[64];
    uint32_t *bps = p->nc <= 64 ? bpv : op_mem_array(&g->alloc, p->nc, sizeof *bps);
    if (!bps)
        return patch_failed(p, OP_NO_MEMORY, "the moves");
    for (uint32_t c = 0; c < p->nc; c++)
        bps[c] = w->old_ro[p->changed[c] + 1];
    /* Portal positions and region positions move independently; within each, runs that
     * move down go first, front to back, then runs that move up, back to front, so no
     * run overwrites one that has not moved yet. */
    for (uint32_t i = 0; i < nr; i++)
        if (runs[i].pdst <= runs[i].psrc)
            move_portals(p, &runs[i], bps + runs[i].bp_first);
    for (uint32_t i = nr; i-- > 0;)
        if (runs[i].pdst > runs[i].psrc)
            move_portals(p, &runs[i], bps + runs[i].bp_first);
    for (uint32_t i = 0; i < nr; i++)
        if (runs[i].rdst <= runs[i].rsrc)
            move_regions(p, &runs[i]);
    for (uint32_t i = nr; i-- > 0;)
        if (runs[i].rdst > runs[i].rsrc)
            move_regions(p, &runs[i]);
    if (bps != bpv)
        op_mem_free(&g->alloc, bps);
    return OP_OK;
}

/* ---- the affected slots' portals, CSR and flags ------------------------------------------- */

static void write_affected(patch_state *p)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    const int sparse = g->residency == OP_RESIDENCY_SPARSE;
    const uint64_t serial = w->serial;
    const uint32_t na = p->na;
    const int nt = p->nt, par = p->par && na > 1;
    (void)nt;
    (void)par;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t i = 0; i < (int64_t)na; i++) {
        const uint32_t slot = p->aff[i];
        const uint32_t at = g->portal_offsets[slot];
        const uint32_t n = op_topo_fill_exit_portals(g, &g->locals[slot], w->exit_to + w->aux[2 * i],
                                                     g->portals + at);
        if (w->extra_count[slot])
            memcpy(g->portals + at + n, w->extra[slot], (size_t)w->extra_count[slot] * sizeof *g->portals);
        op_topo_thread *th = &w->thread[op_topo_thread_id()];
        op_topo_index_slot(g, slot, th->fill, th->seen, serial);
        if (sparse)
            memcpy(g->reaches_missing + g->region_offsets[slot], w->miss + w->aux[2 * i + 1],
                   g->locals[slot].region_count);
    }
}

/* ---- update ----------------------------------------------------------------------------------- */

static void report(const op_region_graph *g, op_topology_build_result *result)
{
    if (!result)
        return;
    const op_region_graph_work *w = g->work;
    result->status = OP_TOPOLOGY_BUILT;
    result->region_count = g->region_count;
    result->passable_tile_count = w->passable;
    result->boundary_exit_count = w->exits;
    result->topology_version_sum = w->versions;
}

static op_status full_build(op_ctx *ctx, const op_world *world, const op_movement_class *cls,
                            const op_region_graph_settings *s, op_region_graph *g,
                            op_topology_build_result *result)
{
    /* An update that falls back to a full rebuild converts the result, reporting Built. */
    op_region_graph_build_result br;
    op_status st = op_region_graph_build(ctx, world, cls, s, g, &br);
    if (st == OP_OK && result) {
        result->status = OP_TOPOLOGY_BUILT;
        result->region_count = br.region_count;
        result->passable_tile_count = br.passable_tile_count;
        result->boundary_exit_count = br.boundary_exit_count;
        result->topology_version_sum = br.topology_version_sum;
    }
    return st;
}

static op_status patch(patch_state *p, const op_chunk_key *dirty, size_t n)
{
    op_region_graph *g = p->g;
    op_region_graph_work *w = p->w;
    op_status st;
    if ((st = collect(p, dirty, n)) != OP_OK)
        return st;
    if (p->nd == p->slots) /* every chunk: the same as a full build */
        return full_build(p->ctx, p->world, p->cls, &p->s, g, NULL);
    const size_t slots = p->slots;
    if (w->old_cap < slots + 1) {
        op_mem_free(&g->alloc, w->old_ro);
        op_mem_free(&g->alloc, w->old_po);
        w->old_ro = op_mem_array(&g->alloc, slots + 1, sizeof(uint32_t));
        w->old_po = op_mem_array(&g->alloc, slots + 1, sizeof(uint32_t));
        w->old_cap = w->old_ro && w->old_po ? slots + 1 : 0;
        if (!w->old_cap)
            return patch_failed(p, OP_NO_MEMORY, "the old offsets");
    }
    int64_t change_v[64];
    int64_t *change = p->nd <= 64 ? change_v : op_mem_array(&g->alloc, p->nd, sizeof *change);
    if (!change)
        return patch_failed(p, OP_NO_MEMORY, "the region changes");
    memcpy(w->old_ro, g->region_offsets, (slots + 1) * sizeof(uint32_t));
    memcpy(w->old_po, g->portal_offsets, (slots + 1) * sizeof(uint32_t));
    if (op_topo_reserve_threads(g, p->team)) {
        st = patch_failed(p, OP_NO_MEMORY, "the thread storage");
        goto done;
    }
    for (int i = 0; i < p->team; i++)
        if (op_topo_flood_reserve(&w->thread[i].flood, &w->plan, p->cls, &g->alloc)) {
            st = patch_failed(p, OP_NO_MEMORY, "the flood scratch");
            goto done;
        }
    if ((st = op_topo_team_begin(p->ctx, w, p->team)) != OP_OK) {
        op_region_graph_clear(g);
        goto done;
    }
    if ((st = relabel(p)) == OP_OK && (st = reindex_regions(p)) == OP_OK) {
        for (uint32_t c = 0; c < p->nc; c++) {
            const uint32_t d = p->changed[c];
            change[c] = (int64_t)g->locals[d].region_count - (w->old_ro[d + 1] - w->old_ro[d]);
        }
        p->change = change;
        if ((st = rederive(p)) == OP_OK && (st = reindex_portals(p)) == OP_OK &&
            (st = reserve(p)) == OP_OK && (st = move_runs(p)) == OP_OK) {
            write_affected(p);
            g->portal_count = g->portal_offsets[slots];
            g->region_count = g->region_offsets[slots];
            g->adj_start[g->region_count] = g->portal_count;
            g->revision++; /* a patch advances the revision by one (§10.13) */
        }
    }
    op_topo_team_end(w, p->team);
done:
    if (change != change_v)
        op_mem_free(&g->alloc, change);
    return st;
}

op_status op_region_graph_update(op_ctx *ctx, const op_world *world, const op_movement_class *cls,
                                 const op_region_graph_settings *settings,
                                 const op_chunk_key *dirty, size_t dirty_count,
                                 op_region_graph *g, op_topology_build_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    if (!g || !world)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_update: NULL graph or world");
    if (dirty_count && !dirty)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_update: NULL dirty chunks");
    op_status st = op_movement_class_validate(ctx, world, cls);
    if (st != OP_OK) {
        op_region_graph_clear(g);
        return st;
    }
    patch_state p;
    memset(&p, 0, sizeof p);
    op_region_graph_settings_defaults(&p.s);
    if (settings)
        p.s = *settings;
    /* 1. Not built for this shape, residency, class and provider, or the residency
     * snapshot moved: a full rebuild, whatever the dirty set (§10.13). */
    if (!g->stamp.built || !g->work || g->residency != world->residency ||
        !op_region_graph_matches_shape(g, &world->shape) || !op_region_graph_matches_class(g, cls) ||
        !op_region_graph_matches_provider(g, p.s.provider) || !op_topo_residency_holds(world, g))
        return full_build(ctx, world, cls, &p.s, g, result);
    /* 2. Keys outside the grid (then keys of chunks the sparse graph does not hold):
     * rejected before any mutation. */
    for (size_t i = 0; i < dirty_count; i++)
        if (dirty[i] >= world->chunk_count) {
            if (result)
                result->status = OP_TOPOLOGY_INVALID_CHUNK;
            return OP_OK;
        }
    for (size_t i = 0; i < dirty_count; i++)
        if (op_topo_slot_of(g, dirty[i]) == OP_INVALID_CHUNK) {
            if (result)
                result->status = OP_TOPOLOGY_MISSING_CHUNK;
            return OP_OK;
        }
    /* 3. Nothing dirty: a no-op that reports the graph. */
    if (dirty_count == 0) {
        report(g, result);
        return OP_OK;
    }
    /* 4. The patch. */
    p.ctx = ctx;
    p.world = world;
    p.cls = cls;
    p.prov = op_topo_provider_of(&p.s);
    p.g = g;
    p.w = g->work;
    p.slots = g->slot_count;
    p.nt = op_topo_thread_count(p.s.threads);
    /* Threads for a patch of many chunks only: starting a team and its barriers cost
     * more than relabelling a few chunks (with an explicit count, from 8 dirty keys on,
     * so the tests see the parallel passes on small worlds). */
    const size_t many = dirty_count < p.slots ? dirty_count : p.slots;
    p.par = p.nt > 1 && many >= 8 && (p.s.threads > 0 || many * g->chunk_tiles >= 32768);
    p.team = p.par ? p.nt : 1;
    st = patch(&p, dirty, dirty_count);
    if (st == OP_OK)
        report(g, result);
    return st;
}
