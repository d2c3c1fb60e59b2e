/* The region graph: chunk-parallel build, stamps and freshness (topology.md "Region
 * Graph Pipeline", "Public Surface", "Behavior"; supplement §6, §10.6, §10.7).
 *
 * The build runs three passes over the chunks, each parallel with OpenMP and each writing
 * only its own chunk's outputs, so the bytes do not depend on the thread count:
 *   1. label every chunk (labels, region summaries, exits);
 *   2. count each chunk's paired exits and collect its provider portals (the provider is
 *      enumerated once per chunk);
 *   3. write each chunk's portals at its prefix-sum offset, then its CSR buckets and
 *      first-occurrence adjacency.
 * Between passes the prefix sums (region offsets, portal offsets) are taken in key order.
 * A sparse world is built over its resident chunks (slots in ascending key order, the
 * keys and residency generations frozen onto the graph), with a reaches-missing flag per
 * region. Each thread of a pass reports into its own worker context (op_ctx_fork); the
 * failure of the smallest slot reaches the caller's context (op_ctx_take_error). Any
 * allocation failure clears the graph, advances its revision and returns OP_NO_MEMORY
 * (supplement §6): a graph is never observable half-built. */
#include "topology/topology_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if OP_HAVE_OPENMP
#include <omp.h>
#endif

void op_region_graph_settings_defaults(op_region_graph_settings *s)
{
    s->provider = NULL;
    s->threads = 0;
    s->use_open_template = 1;
    s->use_grid_label = 1;
}

void op_region_graph_init(op_ctx *ctx, op_region_graph *g)
{
    memset(g, 0, sizeof *g);
    g->alloc = ctx ? ctx->alloc : (op_allocator){0};
    g->residency = OP_RESIDENCY_DENSE;
}

static void work_free(op_region_graph *g)
{
    op_region_graph_work *w = g->work;
    if (!w)
        return;
    const op_allocator *a = &g->alloc;
    op_topo_plan_free(&w->plan);
    for (int i = 0; i < w->thread_count; i++) {
        op_topo_flood_free(&w->thread[i].flood);
        op_mem_free(a, w->thread[i].seen);
        op_mem_free(a, w->thread[i].fill);
    }
    op_mem_free(a, w->thread);
    for (size_t i = 0; i < w->extra_slots; i++)
        op_mem_free(a, w->extra[i]);
    op_mem_free(a, w->extra);
    op_mem_free(a, w->extra_count);
    op_mem_free(a, w->extra_cap);
    op_mem_free(a, w->exit_portals);
    op_mem_free(a, w->exit_offsets);
    op_mem_free(a, w->exit_to);
    op_mem_free(a, w->strips);
    op_mem_free(a, w->mark);
    op_mem_free(a, w->list);
    op_mem_free(a, w->old_ro);
    op_mem_free(a, w->old_po);
    op_mem_free(a, w->aux);
    op_mem_free(a, w->miss);
    op_mem_free(a, w->runs);
    op_mem_free(a, w);
    g->work = NULL;
}

/* The sparse-only arrays (a dense graph has none). */
static void sparse_free(op_region_graph *g)
{
    op_mem_free(&g->alloc, g->sparse_keys);
    op_mem_free(&g->alloc, g->residency_generations);
    op_mem_free(&g->alloc, g->reaches_missing);
    g->sparse_keys = NULL;
    g->residency_generations = NULL;
    g->reaches_missing = NULL;
    g->sparse_cap = g->missing_cap = 0;
    g->world_resident_count = 0;
}

void op_region_graph_free(op_region_graph *g)
{
    if (!g)
        return;
    const op_allocator *a = &g->alloc;
    for (size_t i = 0; i < g->slot_cap; i++)
        op_local_topology_free(&g->locals[i]);
    op_mem_free(a, g->locals);
    op_mem_free(a, g->labels);
    op_mem_free(a, g->portals);
    op_mem_free(a, g->portal_offsets);
    op_mem_free(a, g->region_offsets);
    op_mem_free(a, g->adj_start);
    op_mem_free(a, g->adj_target);
    op_mem_free(a, g->adj_portal);
    op_mem_free(a, g->nb_range);
    op_mem_free(a, g->nb_target);
    op_mem_free(a, g->nb_portal);
    sparse_free(g);
    work_free(g);
    op_allocator keep = g->alloc;
    uint64_t rev = g->revision;
    memset(g, 0, sizeof *g);
    g->alloc = keep;
    g->revision = rev + 1;
}

void op_region_graph_clear(op_region_graph *g)
{
    /* topology.md: clear() empties the graph and bumps the revision, so freshness checks
     * and stamps match nothing until the next build. Storage is kept for reuse. */
    if (!g)
        return;
    memset(&g->stamp, 0, sizeof g->stamp);
    g->slot_count = 0;
    g->world_resident_count = 0;
    g->chunk_tiles = 0;
    g->portal_count = 0;
    g->region_count = 0;
    g->revision++;
}

/* ---- storage -------------------------------------------------------------------------- */

/* Replaces *p by an uninitialised array of at least need elements when it is smaller
 * (contents are not kept). */
int op_topo_grow(const op_allocator *a, void **p, size_t *cap, size_t need, size_t elem, int zero)
{
    if (need <= *cap && *p)
        return 0;
    size_t n = need ? need : 1;
    void *q = zero ? op_mem_calloc(a, n, elem) : op_mem_array(a, n, elem);
    if (!q)
        return -1;
    op_mem_free(a, *p);
    *p = q;
    *cap = n;
    return 0;
}

static int realloc_array(const op_allocator *a, void **p, size_t n, size_t elem)
{
    if (elem && n > SIZE_MAX / elem)
        return -1;
    void *q = op_mem_realloc(a, *p, n * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Each array keeps its own capacity, so a failure half-way leaves every recorded
 * capacity true. */
static int reserve_slots(op_region_graph *g, uint32_t slots)
{
    const op_allocator *a = &g->alloc;
    if (!g->work) {
        g->work = op_mem_calloc(a, 1, sizeof *g->work);
        if (!g->work)
            return -1;
        g->work->plan.alloc = g->alloc;
    }
    op_region_graph_work *w = g->work;
    const size_t n = slots;
    if (n > g->slot_cap) {
        if (realloc_array(a, (void **)&g->locals, n, sizeof *g->locals))
            return -1;
        for (size_t i = g->slot_cap; i < n; i++) {
            memset(&g->locals[i], 0, sizeof g->locals[i]);
            g->locals[i].chunk = OP_INVALID_CHUNK;
            g->locals[i].alloc = g->alloc;
        }
        g->slot_cap = n;
    }
    if (n > w->offsets_slots || !g->portal_offsets || !g->region_offsets) {
        uint32_t *po = op_mem_array(a, n + 1, sizeof *po);
        uint32_t *ro = op_mem_array(a, n + 1, sizeof *ro);
        if (!po || !ro) {
            op_mem_free(a, po);
            op_mem_free(a, ro);
            return -1;
        }
        op_mem_free(a, g->portal_offsets);
        op_mem_free(a, g->region_offsets);
        g->portal_offsets = po;
        g->region_offsets = ro;
        w->offsets_slots = n;
    }
    if (n > w->extra_slots) {
        if (realloc_array(a, (void **)&w->extra, n, sizeof *w->extra))
            return -1;
        for (size_t i = w->extra_slots; i < n; i++)
            w->extra[i] = NULL;
        uint32_t *cap = op_mem_array(a, n, sizeof *cap);
        if (!cap)
            return -1;
        for (size_t i = 0; i < n; i++)
            cap[i] = i < w->extra_slots ? w->extra_cap[i] : 0;
        op_mem_free(a, w->extra_cap);
        w->extra_cap = cap;
        w->extra_slots = n;
    }
    if (n > w->count_slots || !w->extra_count || !w->exit_portals) {
        uint32_t *ec = op_mem_array(a, n, sizeof *ec);
        uint32_t *xp = op_mem_array(a, n, sizeof *xp);
        if (!ec || !xp) {
            op_mem_free(a, ec);
            op_mem_free(a, xp);
            return -1;
        }
        op_mem_free(a, w->extra_count);
        op_mem_free(a, w->exit_portals);
        w->extra_count = ec;
        w->exit_portals = xp;
        w->count_slots = n;
    }
    return 0;
}

int op_topo_reserve_threads(op_region_graph *g, int nt)
{
    op_region_graph_work *w = g->work;
    if (nt <= w->thread_count)
        return 0;
    if (realloc_array(&g->alloc, (void **)&w->thread, (size_t)nt, sizeof *w->thread))
        return -1;
    for (int i = w->thread_count; i < nt; i++) {
        memset(&w->thread[i], 0, sizeof w->thread[i]);
        w->thread[i].flood.alloc = g->alloc;
    }
    w->thread_count = nt;
    return 0;
}

/* The five per-portal arrays share one capacity; the two per-region arrays another. */
static int reserve_portals(op_region_graph *g, size_t n)
{
    if (n <= g->portal_cap && g->portals)
        return 0;
    const op_allocator *a = &g->alloc;
    op_mem_free(a, g->portals);
    op_mem_free(a, g->adj_target);
    op_mem_free(a, g->adj_portal);
    op_mem_free(a, g->nb_target);
    op_mem_free(a, g->nb_portal);
    size_t c = n ? n : 1;
    g->portals = op_mem_array(a, c, sizeof *g->portals);
    g->adj_target = op_mem_array(a, c, sizeof(uint32_t));
    g->adj_portal = op_mem_array(a, c, sizeof(uint32_t));
    g->nb_target = op_mem_array(a, c, sizeof(uint32_t));
    g->nb_portal = op_mem_array(a, c, sizeof(uint32_t));
    g->portal_cap = c;
    if (g->portals && g->adj_target && g->adj_portal && g->nb_target && g->nb_portal)
        return 0;
    op_mem_free(a, g->portals);
    op_mem_free(a, g->adj_target);
    op_mem_free(a, g->adj_portal);
    op_mem_free(a, g->nb_target);
    op_mem_free(a, g->nb_portal);
    g->portals = NULL;
    g->adj_target = g->adj_portal = g->nb_target = g->nb_portal = NULL;
    g->portal_cap = 0;
    return -1;
}

static int reserve_regions(op_region_graph *g, size_t regions)
{
    size_t need = regions + 1;
    if (need <= g->region_cap && g->adj_start)
        return 0;
    const op_allocator *a = &g->alloc;
    op_mem_free(a, g->adj_start);
    op_mem_free(a, g->nb_range);
    g->adj_start = op_mem_array(a, need, sizeof(uint32_t));
    g->nb_range = op_mem_array(a, need, 2 * sizeof(uint32_t));
    g->region_cap = need;
    if (g->adj_start && g->nb_range)
        return 0;
    op_mem_free(a, g->adj_start);
    op_mem_free(a, g->nb_range);
    g->adj_start = g->nb_range = NULL;
    g->region_cap = 0;
    return -1;
}


/* ---- worker contexts ------------------------------------------------------------------ */

int op_topo_thread_count(int requested)
{
#if OP_HAVE_OPENMP
    int nt = requested > 0 ? requested : omp_get_max_threads();
#else
    int nt = 1;
    (void)requested;
#endif
    return nt < 1 ? 1 : nt;
}

int op_topo_thread_id(void)
{
#if OP_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

op_status op_topo_team_begin(op_ctx *ctx, op_region_graph_work *w, int nt)
{
    for (int i = 0; i < nt; i++) {
        w->thread[i].fail_slot = UINT32_MAX;
        w->thread[i].fail = OP_OK;
        w->thread[i].forked = 0;
    }
    if (!ctx)
        return OP_OK;
    for (int i = 1; i < nt; i++) {
        op_status st = op_ctx_fork(ctx, &w->thread[i].wctx);
        if (st != OP_OK) {
            op_ctx_take_error(ctx, &w->thread[i].wctx, st);
            op_ctx_free(&w->thread[i].wctx);
            op_topo_team_end(w, i);
            return st;
        }
        w->thread[i].forked = 1;
    }
    return OP_OK;
}

void op_topo_team_fail(op_ctx *ctx, op_region_graph_work *w, int tid, uint32_t slot,
                       op_status st, const char *fmt, ...)
{
    op_topo_thread *th = &w->thread[tid];
    if (slot >= th->fail_slot)
        return;
    th->fail_slot = slot;
    th->fail = st;
    op_ctx *c = op_topo_team_ctx(ctx, w, tid);
    if (c) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, sizeof c->err, fmt, ap);
        va_end(ap);
    }
}

op_status op_topo_team_result(op_ctx *ctx, op_region_graph_work *w, int nt)
{
    int first = -1;
    for (int i = 0; i < nt; i++)
        if (w->thread[i].fail != OP_OK && (first < 0 || w->thread[i].fail_slot < w->thread[first].fail_slot))
            first = i;
    op_status st = OP_OK;
    if (first >= 0) {
        st = w->thread[first].fail;
        /* Thread 0 wrote into ctx itself; a worker's message is handed over. */
        if (ctx && w->thread[first].forked)
            op_ctx_take_error(ctx, &w->thread[first].wctx, st);
    }
    for (int i = 0; i < nt; i++) {
        w->thread[i].fail_slot = UINT32_MAX;
        w->thread[i].fail = OP_OK;
    }
    return st;
}

void op_topo_team_end(op_region_graph_work *w, int nt)
{
    for (int i = 1; i < nt; i++)
        if (w->thread[i].forked) {
            op_ctx_free(&w->thread[i].wctx);
            w->thread[i].forked = 0;
        }
}

/* ---- build -------------------------------------------------------------------------------- */

static op_status build_failed(op_ctx *ctx, op_region_graph *g, op_status st, const char *what)
{
    op_region_graph_clear(g);
    if (st == OP_NO_MEMORY)
        return op_fail(ctx, OP_NO_MEMORY, "region graph build: out of memory for %s", what);
    return op_fail(ctx, st, "region graph build: more than 2^32 - 2 %s", what);
}

/* What the steps of one build share. */
typedef struct build_state {
    op_ctx *ctx;
    const op_world *world;
    const op_movement_class *cls;
    op_region_graph *g;
    op_region_graph_work *w;
    op_region_graph_settings s;
    const op_transition_provider *prov; /* NULL: AdjacentTransitions */
    uint32_t slots, tiles;
    int nt, par, team; /* team: threads with a record (par ? nt : 1) */
    uint64_t regions, exits, portals, versions;
    uint32_t max_regions;
} build_state;

/* The slot table: dense, every key; sparse, the resident keys ascending with their
 * generations, frozen (topology.md "Public Surface"). */
static int reserve_sparse(op_region_graph *g, const op_world *world, uint32_t slots)
{
    const op_allocator *a = &g->alloc;
    if (slots > g->sparse_cap || !g->sparse_keys || !g->residency_generations) {
        size_t n = slots ? slots : 1;
        op_chunk_key *k = op_mem_array(a, n, sizeof *k);
        uint64_t *gen = op_mem_array(a, n, sizeof *gen);
        if (!k || !gen) {
            op_mem_free(a, k);
            op_mem_free(a, gen);
            return -1;
        }
        op_mem_free(a, g->sparse_keys);
        op_mem_free(a, g->residency_generations);
        g->sparse_keys = k;
        g->residency_generations = gen;
        g->sparse_cap = n;
    }
    uint32_t n = op_world_resident_keys(world, g->sparse_keys, slots);
    (void)n; /* == slots: resident_count counts the same flags */
    for (uint32_t i = 0; i < slots; i++)
        g->residency_generations[i] = world->residency_generation[g->sparse_keys[i]];
    g->world_resident_count = world->resident_count;
    return 0;
}

/* Storage for every step, the plan of the shape, the slot table and the shape stamp
 * (provider portals locate tiles through it). */
static op_status prepare(build_state *b)
{
    op_region_graph *g = b->g;
    if (reserve_slots(g, b->slots) || op_topo_reserve_threads(g, b->nt))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "its chunk tables");
    op_region_graph_work *w = b->w = g->work;
    if (b->world->residency == OP_RESIDENCY_SPARSE) {
        if (reserve_sparse(g, b->world, b->slots))
            return build_failed(b->ctx, g, OP_NO_MEMORY, "the resident key table");
    } else {
        sparse_free(g);
    }
    if (!w->have_plan || !op_topo_same_shape(&w->plan.shape, &b->world->shape)) {
        w->have_plan = 0;
        if (op_topo_plan_make(&w->plan, &b->world->shape, &g->alloc))
            return build_failed(b->ctx, g, OP_NO_MEMORY, "the flood plan");
        w->have_plan = 1;
    }
    for (int i = 0; i < b->nt; i++)
        if (op_topo_flood_reserve(&w->thread[i].flood, &w->plan, b->cls, &g->alloc))
            return build_failed(b->ctx, g, OP_NO_MEMORY, "the flood scratch");
    uint64_t nlabels = (uint64_t)b->slots * b->tiles;
    if (nlabels > SIZE_MAX / sizeof(uint32_t) ||
        op_topo_grow(&g->alloc, (void **)&g->labels, &g->labels_cap, (size_t)nlabels, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the tile labels");
    if (op_topo_grow(&g->alloc, (void **)&w->strips, &w->strips_cap,
             (size_t)b->slots * w->plan.face_total, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the face strips");
    g->chunk_tiles = b->tiles;
    g->slot_count = b->slots;
    g->residency = b->world->residency;
    g->stamp.shape = b->world->shape;
    memcpy(g->stamp.chunks, b->world->chunks, sizeof g->stamp.chunks);
    g->stamp.lattice_version = OP_LATTICE_VERSION;
    return OP_OK;
}

/* Pass 1: the local topology of every slot and its face strips. */
static op_status label_pass(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    const int use_template = b->s.use_open_template != 0, use_gl = b->s.use_grid_label != 0;
    const uint32_t slots = b->slots, tiles = b->tiles;
    const int nt = b->nt, par = b->par;
    (void)nt;
    (void)par;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t k = 0; k < (int64_t)slots; k++) {
        const int tid = op_topo_thread_id();
        const op_ctx *c = op_topo_team_ctx(b->ctx, w, tid);
        op_grid_label_fn gl = NULL;
        if (use_gl)
            gl = c && c->k ? c->k->grid_label.label : op_grid_label_scalar;
        op_local_topology *t = &g->locals[k];
        t->labels = g->labels + (size_t)k * tiles;
        t->owns_labels = 0;
        const op_chunk_key key = op_topo_slot_key(g, (uint32_t)k);
        if (op_topo_label_chunk(b->world, b->cls, &w->plan, &w->thread[tid].flood, key,
                                use_template, gl, t))
            op_topo_team_fail(b->ctx, w, tid, (uint32_t)k, OP_NO_MEMORY,
                              "region graph build: out of memory for the regions and exits of "
                              "chunk %u",
                              key);
        else
            op_topo_face_strips(&w->plan, t->labels, w->strips + (size_t)k * w->plan.face_total);
    }
    op_status st = op_topo_team_result(b->ctx, w, b->team);
    if (st != OP_OK)
        op_region_graph_clear(g);
    return st;
}

/* The dense index (supplement §10.7: offsets are prefix sums in key order), the offsets
 * of each slot's exits, and the aggregates. */
static op_status index_regions(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    uint64_t regions = 0, exits = 0, versions = 0;
    uint32_t max_regions = 0;
    for (uint32_t k = 0; k < b->slots; k++) {
        const op_local_topology *t = &g->locals[k];
        g->region_offsets[k] = (uint32_t)regions;
        regions += t->region_count;
        if (regions >= OP_INVALID_REGION_INDEX)
            return build_failed(b->ctx, g, OP_UNSUPPORTED, "regions");
        if (t->region_count > max_regions)
            max_regions = t->region_count;
        exits += t->exit_count;
        versions += t->topology_version;
    }
    g->region_offsets[b->slots] = (uint32_t)regions;
    if (exits >= UINT32_MAX)
        return build_failed(b->ctx, g, OP_UNSUPPORTED, "exits");
    if (op_topo_grow(&g->alloc, (void **)&w->exit_offsets, &w->exit_offsets_cap, (size_t)b->slots + 1,
             sizeof(uint32_t), 0) ||
        op_topo_grow(&g->alloc, (void **)&w->exit_to, &w->exit_to_cap, (size_t)exits, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the exit pairing");
    if (g->residency == OP_RESIDENCY_SPARSE) {
        if (op_topo_grow(&g->alloc, (void **)&g->reaches_missing, &g->missing_cap, (size_t)regions,
                         1, 0))
            return build_failed(b->ctx, g, OP_NO_MEMORY, "the reaches-missing flags");
        memset(g->reaches_missing, 0, (size_t)regions);
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < b->slots; k++) {
        w->exit_offsets[k] = at;
        at += g->locals[k].exit_count;
    }
    w->exit_offsets[b->slots] = at;
    b->regions = regions;
    b->exits = exits;
    b->versions = versions;
    b->max_regions = max_regions;
    return OP_OK;
}

/* Pass 2: the region across every exit, and the provider's portals, enumerated once per
 * chunk (supplement §10.6), with the reaches-missing flags of a sparse graph; then each
 * slot's portal offset. */
static op_status pair_pass(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    const op_transition_provider *prov = b->prov;
    const op_world *world = b->world;
    const uint32_t slots = b->slots;
    const int nt = b->nt, par = b->par;
    (void)nt;
    (void)par;
    uint8_t *const miss = g->residency == OP_RESIDENCY_SPARSE ? g->reaches_missing : NULL;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t k = 0; k < (int64_t)slots; k++) {
        uint8_t *m = miss ? miss + g->region_offsets[k] : NULL;
        w->exit_portals[k] = op_topo_count_exit_portals(g, (uint32_t)k, &w->plan, w->strips,
                                                        w->exit_to + w->exit_offsets[k], m);
        if (op_topo_provider_portals(g, prov, world, (uint32_t)k, &w->extra[k], &w->extra_count[k],
                                     &w->extra_cap[k], m))
            op_topo_team_fail(b->ctx, w, op_topo_thread_id(), (uint32_t)k, OP_NO_MEMORY,
                              "region graph build: out of memory for the provider portals of "
                              "chunk %u",
                              op_topo_slot_key(g, (uint32_t)k));
    }
    op_status st = op_topo_team_result(b->ctx, w, b->team);
    if (st != OP_OK) {
        op_region_graph_clear(g);
        return st;
    }
    uint64_t portals = 0;
    for (uint32_t k = 0; k < slots; k++) {
        g->portal_offsets[k] = (uint32_t)portals;
        portals += (uint64_t)w->exit_portals[k] + w->extra_count[k];
        if (portals >= UINT32_MAX)
            return build_failed(b->ctx, g, OP_UNSUPPORTED, "portals");
    }
    g->portal_offsets[slots] = (uint32_t)portals;
    b->portals = portals;
    return OP_OK;
}

int op_topo_reserve_index(op_region_graph *g, int nt, size_t regions, size_t max_regions)
{
    op_region_graph_work *w = g->work;
    w->serial = (w->serial + 1) & 0xffffffffu;
    const int wrapped = w->serial == 0;
    if (wrapped)
        w->serial = 1;
    for (int i = 0; i < nt; i++) {
        op_topo_thread *th = &w->thread[i];
        if (wrapped && th->seen)
            memset(th->seen, 0, th->seen_cap * sizeof *th->seen);
        if (th->seen && regions > th->seen_cap) {
            /* Grows zeroed: the old stamps are not kept. */
            op_mem_free(&g->alloc, th->seen);
            th->seen = NULL;
            th->seen_cap = 0;
        }
        if (op_topo_grow(&g->alloc, (void **)&th->seen, &th->seen_cap, regions, sizeof(uint64_t), 1) ||
            op_topo_grow(&g->alloc, (void **)&th->fill, &th->fill_cap, max_regions, sizeof(uint32_t), 0))
            return -1;
    }
    return 0;
}

/* Pass 3: each slot's portals at its offset (exit portals, then provider portals), its
 * CSR buckets and first-occurrence adjacency. */
static op_status assemble_pass(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    if (reserve_portals(g, (size_t)b->portals) || reserve_regions(g, (size_t)b->regions) ||
        op_topo_reserve_index(g, b->nt, (size_t)b->regions, b->max_regions))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "portals and the CSR adjacency");
    g->portal_count = (uint32_t)b->portals;
    g->region_count = (uint32_t)b->regions;
    const uint64_t serial = w->serial;
    const uint32_t slots = b->slots;
    const int nt = b->nt, par = b->par;
    (void)nt;
    (void)par;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par)
#endif
    for (int64_t k = 0; k < (int64_t)slots; k++) {
        uint32_t at = g->portal_offsets[k];
        uint32_t n = op_topo_fill_exit_portals(g, &g->locals[k], w->exit_to + w->exit_offsets[k],
                                               g->portals + at);
        if (w->extra_count[k])
            memcpy(g->portals + at + n, w->extra[k], (size_t)w->extra_count[k] * sizeof *g->portals);
        op_topo_thread *th = &w->thread[op_topo_thread_id()];
        op_topo_index_slot(g, (uint32_t)k, th->fill, th->seen, serial);
    }
    g->adj_start[b->regions] = (uint32_t)b->portals;
    return OP_OK;
}

void op_topo_stamp(op_region_graph *g, const op_movement_class *cls,
                   const op_transition_provider *prov)
{
    /* topology.md "Public Surface": class, provider type, live instance, revision. */
    op_movement_class_normalize(cls, &g->stamp.cls);
    g->stamp.step_identity = op_movement_step_identity(cls);
    g->stamp.cost_scale = op_movement_cost_scale(cls);
    g->stamp.provider_ops = prov ? prov->ops : NULL;
    g->stamp.provider_instance = prov ? prov->instance : NULL;
    g->stamp.provider_revision = prov ? prov->revision : 0;
    g->stamp.provider_type_arg = prov ? prov->type_arg : 0;
    g->stamp.built = 1;
}

const op_transition_provider *op_topo_provider_of(const op_region_graph_settings *s)
{
    return s && s->provider && s->provider->ops && s->provider->ops->for_each_transition
               ? s->provider
               : NULL;
}

op_status op_region_graph_build(op_ctx *ctx, const op_world *world, const op_movement_class *cls,
                                const op_region_graph_settings *settings, op_region_graph *g,
                                op_region_graph_build_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    if (!g)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_build: NULL graph");
    op_status st = op_movement_class_validate(ctx, world, cls);
    if (st != OP_OK) {
        op_region_graph_clear(g);
        return st;
    }
    build_state b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.world = world;
    b.cls = cls;
    b.g = g;
    op_region_graph_settings_defaults(&b.s);
    if (settings)
        b.s = *settings;
    b.prov = op_topo_provider_of(&b.s);
    b.slots = world->resident_count; /* dense: every chunk */
    b.tiles = world->chunk_tiles;
    b.nt = op_topo_thread_count(b.s.threads);
    /* With the default thread count, threads only pay off past a few chunks' worth of
     * tiles: starting and joining a team costs more than labelling a small world. An
     * explicit count is always used (the tests compare counts on small worlds). */
    b.par = b.nt > 1 && b.slots > 1 &&
            (b.s.threads > 0 || (uint64_t)b.slots * b.tiles >= 32768);
    b.team = b.par ? b.nt : 1;
    /* build_region_graph starts with clear(): the build advances the revision by one
     * (supplement §10.13). Every step clears again on failure. */
    op_region_graph_clear(g);
    if ((st = prepare(&b)) != OP_OK)
        return st;
    if ((st = op_topo_team_begin(ctx, b.w, b.team)) != OP_OK) {
        op_region_graph_clear(g);
        return st;
    }
    if ((st = label_pass(&b)) == OP_OK && (st = index_regions(&b)) == OP_OK &&
        (st = pair_pass(&b)) == OP_OK)
        st = assemble_pass(&b);
    op_topo_team_end(b.w, b.team);
    if (st != OP_OK)
        return st;
    op_topo_stamp(g, cls, b.prov);
    uint64_t passable = 0;
    for (uint32_t k = 0; k < b.slots; k++)
        for (uint32_t r = 0; r < g->locals[k].region_count; r++)
            passable += g->locals[k].regions[r].tile_count;
    b.w->passable = passable;
    b.w->exits = b.exits;
    b.w->versions = b.versions;
    b.w->max_regions = b.max_regions;
    if (result) {
        result->region_count = b.regions;
        result->boundary_exit_count = b.exits;
        result->topology_version_sum = b.versions;
        result->passable_tile_count = passable;
    }
    return OP_OK;
}
