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
 * Any allocation failure clears the graph, advances its revision and returns
 * OP_NO_MEMORY (supplement §6): a graph is never observable half-built. */
#include "topology/topology_internal.h"

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
    op_mem_free(a, w);
    g->work = NULL;
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
    op_mem_free(a, g->sparse_keys);
    op_mem_free(a, g->reaches_missing);
    op_mem_free(a, g->residency_generations);
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
    g->chunk_tiles = 0;
    g->portal_count = 0;
    g->region_count = 0;
    g->revision++;
}

/* ---- storage -------------------------------------------------------------------------- */

/* Replaces *p by an uninitialised array of at least need elements when it is smaller
 * (contents are not kept). */
static int grow(const op_allocator *a, void **p, size_t *cap, size_t need, size_t elem, int zero)
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

static int reserve_threads(op_region_graph *g, int nt)
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


/* ---- provider portals ------------------------------------------------------------------- */

typedef struct provider_sink {
    op_region_graph *g;
    op_chunk_key chunk;
    op_region_portal **buf;
    uint32_t *count, *cap;
    int failed;
} provider_sink;

static void provider_emit(void *user, op_coord3 from, op_coord3 to)
{
    /* supplement §10.6: kept only when the origin is in this chunk, the landing in the
     * world and both ends have regions. */
    provider_sink *ps = user;
    op_region_graph *g = ps->g;
    if (ps->failed || !op_topo_shape_contains(&g->stamp.shape, from) ||
        !op_topo_shape_contains(&g->stamp.shape, to))
        return;
    op_chunk_key fk, tk;
    uint32_t fl, tl;
    op_topo_locate(&g->stamp, from, &fk, &fl);
    if (fk != ps->chunk)
        return;
    op_topo_locate(&g->stamp, to, &tk, &tl);
    uint32_t fr = g->labels[(size_t)fk * g->chunk_tiles + fl];
    uint32_t tr = g->labels[(size_t)tk * g->chunk_tiles + tl];
    if (!fr || !tr)
        return;
    if (*ps->count == *ps->cap) {
        uint64_t cap = *ps->cap ? (uint64_t)*ps->cap * 2 : 16;
        if (cap > UINT32_MAX) {
            ps->failed = 1;
            return;
        }
        op_region_portal *b = op_mem_realloc(&g->alloc, *ps->buf, (size_t)cap * sizeof *b);
        if (!b) {
            ps->failed = 1;
            return;
        }
        *ps->buf = b;
        *ps->cap = (uint32_t)cap;
    }
    op_region_portal *p = &(*ps->buf)[(*ps->count)++];
    p->from = (op_region_ref){fk, fr};
    p->to = (op_region_ref){tk, tr};
    p->from_coord = from;
    p->to_coord = to;
    p->face = (uint8_t)op_topo_transition_face(from, to);
}

/* ---- build -------------------------------------------------------------------------------- */

static op_status build_failed(op_ctx *ctx, op_region_graph *g, op_status st, const char *what)
{
    op_region_graph_clear(g);
    if (st == OP_NO_MEMORY)
        return op_fail(ctx, OP_NO_MEMORY, "region graph build: out of memory for %s", what);
    return op_fail(ctx, st, "region graph build: more than 2^32 - 2 %s", what);
}

static int thread_count(const op_region_graph_settings *s)
{
#if OP_HAVE_OPENMP
    int nt = s->threads > 0 ? s->threads : omp_get_max_threads();
#else
    int nt = 1;
    (void)s;
#endif
    return nt < 1 ? 1 : nt;
}

static int thread_id(void)
{
#if OP_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
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
    int nt, par;
    uint64_t regions, exits, portals, versions;
    uint32_t max_regions;
} build_state;

/* Storage for every step, the plan of the shape, and the shape stamp (provider portals
 * locate tiles through it). */
static op_status prepare(build_state *b)
{
    op_region_graph *g = b->g;
    if (reserve_slots(g, b->slots) || reserve_threads(g, b->nt))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "its chunk tables");
    op_region_graph_work *w = b->w = g->work;
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
        grow(&g->alloc, (void **)&g->labels, &g->labels_cap, (size_t)nlabels, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the tile labels");
    if (grow(&g->alloc, (void **)&w->strips, &w->strips_cap,
             (size_t)b->slots * w->plan.face_total, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the face strips");
    g->chunk_tiles = b->tiles;
    g->slot_count = b->slots;
    g->residency = OP_RESIDENCY_DENSE;
    g->stamp.shape = b->world->shape;
    memcpy(g->stamp.chunks, b->world->chunks, sizeof g->stamp.chunks);
    g->stamp.lattice_version = OP_LATTICE_VERSION;
    return OP_OK;
}

/* Pass 1: the local topology of every chunk and its face strips. */
static op_status label_pass(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    const int use_template = b->s.use_open_template != 0;
    op_grid_label_fn gl = NULL;
    if (b->s.use_grid_label) {
        gl = op_topo_grid_label_for(b->ctx ? b->ctx->isa : OP_ISA_SCALAR);
        if (!gl)
            gl = op_grid_label_scalar;
    }
    const uint32_t slots = b->slots, tiles = b->tiles;
    const int nt = b->nt, par = b->par;
    (void)nt;
    (void)par;
    int failed = 0;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par) reduction(| : failed)
#endif
    for (int64_t k = 0; k < (int64_t)slots; k++) {
        op_local_topology *t = &g->locals[k];
        t->labels = g->labels + (size_t)k * tiles;
        t->owns_labels = 0;
        if (op_topo_label_chunk(b->world, b->cls, &w->plan, &w->thread[thread_id()].flood,
                                (op_chunk_key)k, use_template, gl, t))
            failed |= 1;
        else
            op_topo_face_strips(&w->plan, t->labels, w->strips + (size_t)k * w->plan.face_total);
    }
    if (failed)
        return build_failed(b->ctx, g, OP_NO_MEMORY, "regions and exits");
    return OP_OK;
}

/* The dense index (supplement §10.7: offsets are prefix sums in key order) and the
 * offsets of each chunk's exits. */
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
    if (grow(&g->alloc, (void **)&w->exit_offsets, &w->exit_offsets_cap, (size_t)b->slots + 1,
             sizeof(uint32_t), 0) ||
        grow(&g->alloc, (void **)&w->exit_to, &w->exit_to_cap, (size_t)exits, sizeof(uint32_t), 0))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "the exit pairing");
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
 * chunk (supplement §10.6); then each chunk's portal offset. */
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
    int failed = 0;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (par) reduction(| : failed)
#endif
    for (int64_t k = 0; k < (int64_t)slots; k++) {
        w->exit_portals[k] = op_topo_count_exit_portals(g, &g->locals[k], &w->plan, w->strips,
                                                        w->exit_to + w->exit_offsets[k]);
        w->extra_count[k] = 0;
        if (prov) {
            provider_sink ps = {g, (op_chunk_key)k, &w->extra[k], &w->extra_count[k],
                                &w->extra_cap[k], 0};
            prov->ops->for_each_transition(prov->instance, world, (op_chunk_key)k, provider_emit,
                                           &ps);
            failed |= ps.failed;
        }
    }
    if (failed)
        return build_failed(b->ctx, g, OP_NO_MEMORY, "provider portals");
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

/* Pass 3: each chunk's portals at its offset (exit portals, then provider portals), its
 * CSR buckets and first-occurrence adjacency. */
static op_status assemble_pass(build_state *b)
{
    op_region_graph *g = b->g;
    op_region_graph_work *w = b->w;
    if (reserve_portals(g, (size_t)b->portals) || reserve_regions(g, (size_t)b->regions))
        return build_failed(b->ctx, g, OP_NO_MEMORY, "portals and the CSR adjacency");
    w->serial = (w->serial + 1) & 0xffffffffu;
    const int wrapped = w->serial == 0;
    if (wrapped)
        w->serial = 1;
    for (int i = 0; i < b->nt; i++) {
        op_topo_thread *th = &w->thread[i];
        if (wrapped && th->seen)
            memset(th->seen, 0, th->seen_cap * sizeof *th->seen);
        if (grow(&g->alloc, (void **)&th->seen, &th->seen_cap, (size_t)b->regions, sizeof(uint64_t), 1) ||
            grow(&g->alloc, (void **)&th->fill, &th->fill_cap, b->max_regions, sizeof(uint32_t), 0))
            return build_failed(b->ctx, g, OP_NO_MEMORY, "the adjacency marks");
    }
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
        op_topo_thread *th = &w->thread[thread_id()];
        op_topo_index_slot(g, (uint32_t)k, th->fill, th->seen, serial);
    }
    g->adj_start[b->regions] = (uint32_t)b->portals;
    return OP_OK;
}

/* Stamps (topology.md "Public Surface": class, provider type, live instance, revision). */
static void stamp(build_state *b)
{
    op_region_graph *g = b->g;
    op_movement_class_normalize(b->cls, &g->stamp.cls);
    g->stamp.step_identity = op_movement_step_identity(b->cls);
    g->stamp.cost_scale = op_movement_cost_scale(b->cls);
    g->stamp.provider_ops = b->prov ? b->prov->ops : NULL;
    g->stamp.provider_instance = b->prov ? b->prov->instance : NULL;
    g->stamp.provider_revision = b->prov ? b->prov->revision : 0;
    g->stamp.built = 1;
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
    if (world->residency != OP_RESIDENCY_DENSE) {
        op_region_graph_clear(g);
        return op_fail(ctx, OP_UNSUPPORTED, "region graph build: sparse worlds are not "
                                            "implemented (issue 16)");
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
    b.prov = b.s.provider && b.s.provider->ops && b.s.provider->ops->for_each_transition
                 ? b.s.provider
                 : NULL;
    b.slots = world->chunk_count;
    b.tiles = world->chunk_tiles;
    b.nt = thread_count(&b.s);
    /* With the default thread count, threads only pay off past a few chunks' worth of
     * tiles: starting and joining a team costs more than labelling a small world. An
     * explicit count is always used (the tests compare counts on small worlds). */
    b.par = b.nt > 1 && b.slots > 1 &&
            (b.s.threads > 0 || (uint64_t)b.slots * b.tiles >= 32768);
    /* build_region_graph starts with clear(): the build advances the revision by one
     * (supplement §10.13). Every step clears again on failure. */
    op_region_graph_clear(g);
    if ((st = prepare(&b)) != OP_OK || (st = label_pass(&b)) != OP_OK ||
        (st = index_regions(&b)) != OP_OK || (st = pair_pass(&b)) != OP_OK ||
        (st = assemble_pass(&b)) != OP_OK)
        return st;
    stamp(&b);
    if (result) {
        result->region_count = b.regions;
        result->boundary_exit_count = b.exits;
        result->topology_version_sum = b.versions;
        uint64_t passable = 0;
        for (uint32_t k = 0; k < b.slots; k++)
            for (uint32_t r = 0; r < g->locals[k].region_count; r++)
                passable += g->locals[k].regions[r].tile_count;
        result->passable_tile_count = passable;
    }
    return OP_OK;
}
