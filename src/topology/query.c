/* Queries over a built region graph: reachable, coarse_path and precheck_path
 * (topology.md "Public Surface", "Behavior"; supplement §10.8-10.10, §10.12). Traversals
 * use dense region indices, the first-occurrence adjacency (index.c: it visits exactly
 * what a scan of the CSR buckets visits) and epoch-stamped marks in caller-owned scratch,
 * so one query is O(regions + adjacency) with no clearing. */
#include "topology/topology_internal.h"

const char *op_reach_status_name(op_reach_status s)
{
    switch (s) {
    case OP_REACH_REACHABLE: return "reachable";
    case OP_REACH_UNREACHABLE: return "unreachable";
    case OP_REACH_INVALID_START: return "invalid-start";
    case OP_REACH_INVALID_GOAL: return "invalid-goal";
    case OP_REACH_INDETERMINATE: return "indeterminate";
    }
    return "?";
}

const char *op_precheck_status_name(op_precheck_status s)
{
    switch (s) {
    case OP_PRECHECK_REACHABLE: return "reachable";
    case OP_PRECHECK_UNREACHABLE: return "unreachable";
    case OP_PRECHECK_MISSING_CHUNK: return "missing-chunk";
    case OP_PRECHECK_INVALID_START: return "invalid-start";
    case OP_PRECHECK_INVALID_GOAL: return "invalid-goal";
    case OP_PRECHECK_GRAPH_STALE: return "graph-stale";
    case OP_PRECHECK_NO_GRAPH: return "no-graph";
    }
    return "?";
}

/* ---- scratch ------------------------------------------------------------------------------ */

void op_region_graph_scratch_init(op_ctx *ctx, op_region_graph_scratch *s)
{
    memset(s, 0, sizeof *s);
    s->alloc = ctx ? ctx->alloc : (op_allocator){0};
}

void op_region_graph_scratch_free(op_region_graph_scratch *s)
{
    if (!s)
        return;
    const op_allocator *a = &s->alloc;
    op_mem_free(a, s->marks);
    op_mem_free(a, s->chunk_marks);
    op_mem_free(a, s->frontier);
    op_mem_free(a, s->parent);
    op_mem_free(a, s->parent_portal);
    op_mem_free(a, s->path_regions);
    op_mem_free(a, s->path_portals);
    op_mem_free(a, s->corridor);
    op_allocator keep = s->alloc;
    memset(s, 0, sizeof *s);
    s->alloc = keep;
}

/* Marks grow zeroed (epoch 0 is never current). */
static int reserve_marks(op_region_graph_scratch *s, uint32_t regions, uint32_t slots)
{
    const op_allocator *a = &s->alloc;
    if (regions > s->mark_cap || !s->marks) {
        uint32_t *m = op_mem_calloc(a, regions ? regions : 1, sizeof *m);
        if (!m)
            return -1;
        op_mem_free(a, s->marks);
        s->marks = m;
        s->mark_cap = regions ? regions : 1;
        s->epoch = 0;
    }
    if (slots > s->chunk_mark_cap || !s->chunk_marks) {
        uint32_t *m = op_mem_calloc(a, slots ? slots : 1, sizeof *m);
        if (!m)
            return -1;
        op_mem_free(a, s->chunk_marks);
        s->chunk_marks = m;
        s->chunk_mark_cap = slots ? slots : 1;
        s->chunk_epoch = 0;
    }
    return 0;
}

static int reserve_frontier(op_region_graph_scratch *s, uint32_t regions, int paths)
{
    const op_allocator *a = &s->alloc;
    uint32_t n = regions ? regions : 1;
    if (n > s->frontier_cap || !s->frontier) {
        uint32_t *f = op_mem_array(a, n, sizeof *f);
        uint32_t *p = op_mem_array(a, n, sizeof *p);
        uint32_t *pp = op_mem_array(a, n, sizeof *pp);
        if (!f || !p || !pp) {
            op_mem_free(a, f);
            op_mem_free(a, p);
            op_mem_free(a, pp);
            return -1;
        }
        op_mem_free(a, s->frontier);
        op_mem_free(a, s->parent);
        op_mem_free(a, s->parent_portal);
        s->frontier = f;
        s->parent = p;
        s->parent_portal = pp;
        s->frontier_cap = n;
    }
    if (paths && (n > s->path_cap || !s->path_regions)) {
        op_region_ref *r = op_mem_array(a, n, sizeof *r);
        op_region_portal *p = op_mem_array(a, n, sizeof *p);
        op_chunk_key *c = op_mem_array(a, n, sizeof *c);
        if (!r || !p || !c) {
            op_mem_free(a, r);
            op_mem_free(a, p);
            op_mem_free(a, c);
            return -1;
        }
        op_mem_free(a, s->path_regions);
        op_mem_free(a, s->path_portals);
        op_mem_free(a, s->corridor);
        s->path_regions = r;
        s->path_portals = p;
        s->corridor = c;
        s->path_cap = n;
    }
    return 0;
}

op_status op_region_graph_scratch_reserve(op_ctx *ctx, op_region_graph_scratch *s,
                                          const op_region_graph *g)
{
    if (!s || !g)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_scratch_reserve: NULL argument");
    if (reserve_marks(s, g->region_count, g->slot_count) || reserve_frontier(s, g->region_count, 1))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for query scratch of %u regions",
                       g->region_count);
    return OP_OK;
}

/* begin_traversal: a new epoch; on wrap the marks are cleared. */
static uint32_t next_epoch(uint32_t *epoch, uint32_t *marks, uint32_t n)
{
    if (++*epoch == 0) {
        memset(marks, 0, (size_t)n * sizeof *marks);
        *epoch = 1;
    }
    return *epoch;
}

/* ---- endpoints (supplement §10.8) --------------------------------------------------------- */

/* The region of an in-world tile; 0 with *missing set when its chunk is not held. */
static uint32_t region_at(const op_region_graph *g, op_coord3 c, op_region_ref *r, int *missing)
{
    uint32_t local;
    op_topo_locate(&g->stamp, c, &r->chunk, &local);
    const uint32_t slot = op_topo_slot_of(g, r->chunk);
    *missing = slot == OP_INVALID_CHUNK;
    r->region = *missing ? 0 : g->labels[(size_t)slot * g->chunk_tiles + local];
    return r->region;
}

/* Fills *status and returns 0 when an endpoint is invalid or (sparse) not resident;
 * else 1 with both regions. */
static int endpoints(const op_region_graph *g, const op_path_request *req, op_reach_status *status,
                     op_region_ref *sr, op_region_ref *gr)
{
    /* In order (supplement §10.8): start outside the world, goal outside, start tile
     * without region, goal tile without region. An unbuilt graph has no world: every
     * start is outside. Sparse: a start (goal) whose chunk the graph does not hold is
     * Indeterminate where its region is looked up (topology.md "reachable"). */
    if (!g->stamp.built || !op_topo_shape_contains(&g->stamp.shape, req->start)) {
        *status = OP_REACH_INVALID_START;
        return 0;
    }
    if (!op_topo_shape_contains(&g->stamp.shape, req->goal)) {
        *status = OP_REACH_INVALID_GOAL;
        return 0;
    }
    int missing;
    if (!region_at(g, req->start, sr, &missing)) {
        *status = missing ? OP_REACH_INDETERMINATE : OP_REACH_INVALID_START;
        return 0;
    }
    if (!region_at(g, req->goal, gr, &missing)) {
        *status = missing ? OP_REACH_INDETERMINATE : OP_REACH_INVALID_GOAL;
        return 0;
    }
    return 1;
}

/* ---- reachable (§10.9) -------------------------------------------------------------------- */

op_status op_reachable(op_ctx *ctx, const op_region_graph *g, const op_path_request *req,
                       op_region_graph_scratch *s, op_reach_result *out)
{
    if (!g || !req || !s || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_reachable: NULL argument");
    out->status = OP_REACH_UNREACHABLE;
    out->visited = 0;
    op_region_ref sr, gr;
    if (!endpoints(g, req, &out->status, &sr, &gr))
        return OP_OK;
    if (sr.chunk == gr.chunk && sr.region == gr.region) {
        out->status = OP_REACH_REACHABLE;
        out->visited = 1;
        return OP_OK;
    }
    uint32_t si = op_region_graph_region_index(g, sr), gi = op_region_graph_region_index(g, gr);
    if (reserve_marks(s, g->region_count, g->slot_count) || reserve_frontier(s, g->region_count, 0))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for query scratch of %u regions",
                       g->region_count);
    uint32_t *restrict marks = s->marks;
    uint32_t *restrict stack = s->frontier;
    const uint32_t *restrict range = g->nb_range;
    const uint32_t *restrict target = g->nb_target;
    const uint8_t *restrict miss = g->residency == OP_RESIDENCY_SPARSE ? g->reaches_missing : NULL;
    const uint32_t epoch = next_epoch(&s->epoch, marks, s->mark_cap);
    /* A LIFO traversal: mark the start, visited = 1; pop, scan the bucket in order, skip
     * marked targets; the goal as a target answers at once with visited + 1; other
     * targets are marked, counted and pushed. */
    uint32_t visited = 1, sp = 0;
    int touched_missing = 0; /* a visited region reaches missing topology (sparse) */
    marks[si] = epoch;
    stack[sp++] = si;
    while (sp) {
        uint32_t cur = stack[--sp];
        if (miss)
            touched_missing |= miss[cur];
        for (uint32_t e = range[2 * (size_t)cur], end = range[2 * (size_t)cur + 1]; e < end; e++) {
            uint32_t t = target[e];
            if (marks[t] == epoch)
                continue;
            if (t == gi) {
                out->status = OP_REACH_REACHABLE;
                out->visited = visited + 1;
                return OP_OK;
            }
            marks[t] = epoch;
            visited++;
            stack[sp++] = t;
        }
    }
    /* Exhausted: every visited region was popped. One of them exits into missing
     * topology: the goal may lie beyond it (topology.md: Indeterminate, not a wrong
     * Unreachable). */
    out->status = touched_missing ? OP_REACH_INDETERMINATE : OP_REACH_UNREACHABLE;
    out->visited = visited;
    return OP_OK;
}

/* ---- coarse_path (§10.10) ----------------------------------------------------------------- */

static void corridor_bounds(const op_region_graph *g, const op_chunk_key *chunks, uint32_t n,
                            op_box3 *b)
{
    const op_region_graph_stamp *st = &g->stamp;
    int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k[3];
        op_topo_key_coord(st->chunks, chunks[i], k);
        for (int a = 0; a < 3; a++) {
            int64_t begin = (int64_t)k[a] * st->shape.chunk[a];
            int64_t end = begin + st->shape.chunk[a];
            if (end > st->shape.size[a])
                end = st->shape.size[a]; /* partial edge chunks clip to the world */
            if (begin < lo[a])
                lo[a] = begin;
            if (end > hi[a])
                hi[a] = end;
        }
    }
    b->min = (op_coord3){(int32_t)lo[0], (int32_t)lo[1], (int32_t)lo[2]};
    b->max = (op_coord3){(int32_t)hi[0], (int32_t)hi[1], (int32_t)hi[2]};
}

op_status op_coarse_path(op_ctx *ctx, const op_region_graph *g, const op_path_request *req,
                         op_region_graph_scratch *s, op_coarse_path_result *out)
{
    if (!g || !req || !s || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_coarse_path: NULL argument");
    memset(out, 0, sizeof *out);
    out->status = OP_REACH_UNREACHABLE;
    op_region_ref sr, gr;
    if (!endpoints(g, req, &out->status, &sr, &gr))
        return OP_OK;
    uint32_t si = op_region_graph_region_index(g, sr), gi = op_region_graph_region_index(g, gr);
    if (reserve_marks(s, g->region_count, g->slot_count) || reserve_frontier(s, g->region_count, 1))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for query scratch of %u regions",
                       g->region_count);
    uint32_t *restrict marks = s->marks;
    uint32_t *restrict queue = s->frontier;
    uint32_t *restrict parent = s->parent;
    uint32_t *restrict parent_portal = s->parent_portal;
    const uint32_t *restrict range = g->nb_range;
    const uint32_t *restrict target = g->nb_target;
    const uint32_t *restrict via = g->nb_portal;
    const uint8_t *restrict miss = g->residency == OP_RESIDENCY_SPARSE ? g->reaches_missing : NULL;
    const uint32_t epoch = next_epoch(&s->epoch, marks, s->mark_cap);
    /* FIFO BFS. A region's parent is the region whose bucket found it, its portal that
     * bucket's first entry reaching it; visited counts every found region, the goal
     * included; the scan stops right after the goal is found. */
    uint32_t visited = 1, head = 0, tail = 0;
    marks[si] = epoch;
    parent[si] = si;
    queue[tail++] = si;
    int found = si == gi, touched_missing = 0;
    while (head < tail && !found) {
        uint32_t cur = queue[head++];
        if (miss)
            touched_missing |= miss[cur];
        for (uint32_t e = range[2 * (size_t)cur], end = range[2 * (size_t)cur + 1]; e < end; e++) {
            uint32_t t = target[e];
            if (marks[t] == epoch)
                continue;
            marks[t] = epoch;
            parent[t] = cur;
            parent_portal[t] = via[e];
            queue[tail++] = t;
            visited++;
            if (t == gi) {
                found = 1;
                break;
            }
        }
    }
    out->visited = visited;
    if (!found) {
        /* Exhausted (every found region was popped): no partial corridor either way. */
        out->status = touched_missing ? OP_REACH_INDETERMINATE : OP_REACH_UNREACHABLE;
        return OP_OK;
    }
    /* Route: regions start -> goal, portals[i] leads regions[i] -> regions[i + 1]. */
    uint32_t len = 1;
    for (uint32_t r = gi; r != si; r = parent[r])
        len++;
    uint32_t i = len;
    for (uint32_t r = gi;; r = parent[r]) {
        s->path_regions[--i] = op_region_graph_region_ref(g, r);
        if (r == si)
            break;
        s->path_portals[i - 1] = g->portals[parent_portal[r]];
    }
    /* Corridor: chunks of the route in first-occurrence order (marks by slot). */
    const uint32_t cepoch = next_epoch(&s->chunk_epoch, s->chunk_marks, s->chunk_mark_cap);
    uint32_t nc = 0;
    for (uint32_t j = 0; j < len; j++) {
        op_chunk_key k = s->path_regions[j].chunk;
        uint32_t slot = op_topo_slot_of(g, k);
        if (s->chunk_marks[slot] != cepoch) {
            s->chunk_marks[slot] = cepoch;
            s->corridor[nc++] = k;
        }
    }
    out->status = OP_REACH_REACHABLE;
    out->regions = s->path_regions;
    out->region_count = len;
    out->portals = s->path_portals;
    out->portal_count = len - 1;
    out->chunks = s->corridor;
    out->chunk_count = nc;
    corridor_bounds(g, s->corridor, nc, &out->bounds);
    return OP_OK;
}

/* ---- precheck_path (§10.12) --------------------------------------------------------------- */

int op_precheck_rules_out_path(op_precheck_status s)
{
    return s == OP_PRECHECK_UNREACHABLE;
}

op_status op_precheck_path(op_ctx *ctx, const op_region_graph *g, const op_world *world,
                           const op_movement_class *c, const op_transition_provider *provider,
                           const op_path_request *req, op_region_graph_scratch *s,
                           op_missing_chunk_policy policy, op_precheck_status *out)
{
    if (!g || !world || !c || !req || !s || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_precheck_path: NULL argument");
    if (!g->stamp.built) {
        *out = OP_PRECHECK_NO_GRAPH;
        return OP_OK;
    }
    if (!op_region_graph_is_fresh_for(world, g, c) || !op_region_graph_matches_provider(g, provider)) {
        *out = OP_PRECHECK_GRAPH_STALE;
        return OP_OK;
    }
    op_reach_result r;
    op_status st = op_reachable(ctx, g, req, s, &r);
    if (st != OP_OK)
        return st;
    switch (r.status) {
    case OP_REACH_REACHABLE: *out = OP_PRECHECK_REACHABLE; break;
    case OP_REACH_UNREACHABLE: *out = OP_PRECHECK_UNREACHABLE; break;
    case OP_REACH_INVALID_START: *out = OP_PRECHECK_INVALID_START; break;
    case OP_REACH_INVALID_GOAL: *out = OP_PRECHECK_INVALID_GOAL; break;
    case OP_REACH_INDETERMINATE:
        /* Only sparse graphs answer it. Under AssumeImpassable a chunk that is not
         * resident is a wall: a non-resident start is InvalidStart, goal InvalidGoal, an
         * exhausted search Unreachable (supplement §10.12). */
        if (policy == OP_MISSING_REPORT_INDETERMINATE) {
            *out = OP_PRECHECK_MISSING_CHUNK;
        } else {
            op_chunk_key sk = op_world_chunk_of(world, req->start),
                         gk = op_world_chunk_of(world, req->goal);
            if (op_topo_slot_of(g, sk) == OP_INVALID_CHUNK)
                *out = OP_PRECHECK_INVALID_START;
            else if (op_topo_slot_of(g, gk) == OP_INVALID_CHUNK)
                *out = OP_PRECHECK_INVALID_GOAL;
            else
                *out = OP_PRECHECK_UNREACHABLE;
        }
        break;
    }
    return OP_OK;
}
