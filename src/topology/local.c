/* Local topology of one chunk (topology.md "Public Surface", "Behavior"; supplement
 * §10.2-10.5, §10.11): passability into the padded grid, then the open-chunk template,
 * the grid-labelling kernel (chunks without neighbour chunks) or the flood (flood.c);
 * build_local_chunk_topology. */
/* Row loops written to vectorize: GCC asks to be told at -O2 (see flood.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif
#include "topology/topology_internal.h"

/* ---- local topology arrays -------------------------------------------------------------- */

int op_topo_local_reserve_regions(op_local_topology *t, uint32_t n)
{
    if (n <= t->region_cap)
        return 0;
    uint64_t cap = t->region_cap ? (uint64_t)t->region_cap * 2 : 16;
    if (cap < n)
        cap = n;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    op_local_region *r = op_mem_realloc(&t->alloc, t->regions, (size_t)cap * sizeof *r);
    if (!r)
        return -1;
    t->regions = r;
    t->region_cap = (uint32_t)cap;
    return 0;
}

int op_topo_local_reserve_exits(op_local_topology *t, uint32_t n)
{
    if (n <= t->exit_cap)
        return 0;
    uint64_t cap = t->exit_cap ? (uint64_t)t->exit_cap * 2 : 64;
    if (cap < n)
        cap = n;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    op_boundary_exit *e = op_mem_realloc(&t->alloc, t->exits, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    t->exits = e;
    t->exit_cap = (uint32_t)cap;
    return 0;
}

const op_local_region *op_local_topology_region(const op_local_topology *t, uint32_t id)
{
    /* topology.md "Public Surface": the checked accessor of the 1-based convention. */
    if (!t || id == OP_INVALID_LOCAL_REGION || id > t->region_count)
        return NULL;
    return &t->regions[id - 1];
}

void op_local_topology_init(op_ctx *ctx, op_local_topology *t)
{
    memset(t, 0, sizeof *t);
    t->chunk = OP_INVALID_CHUNK;
    t->alloc = ctx ? ctx->alloc : (op_allocator){0};
}

void op_local_topology_free(op_local_topology *t)
{
    if (!t)
        return;
    if (t->owns_labels)
        op_mem_free(&t->alloc, t->labels);
    op_mem_free(&t->alloc, t->regions);
    op_mem_free(&t->alloc, t->exits);
    op_allocator a = t->alloc;
    memset(t, 0, sizeof *t);
    t->chunk = OP_INVALID_CHUNK;
    t->alloc = a;
}


/* Every tile passable: the template's exits, filtered by the neighbour chunks present. */
static int copy_template(const op_topo_chunk *cc, uint32_t *labels)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    /* The count in a local: labels could alias *p, so a bound read through p was
     * reloaded after every store and the fill stayed scalar. */
    const uint32_t tiles = p->tiles;
    for (uint32_t i = 0; i < tiles; i++)
        labels[i] = 1;
    if (op_topo_local_reserve_regions(t, 1) || op_topo_local_reserve_exits(t, p->open_exit_count))
        return -1;
    op_local_region *r = &t->regions[0];
    r->id = 1;
    r->tile_count = p->tiles;
    r->first_exit = 0;
    for (int a = 0; a < 3; a++) {
        (&r->bounds.min.x)[a] = cc->o[a];
        (&r->bounds.max.x)[a] = cc->o[a] + (int32_t)p->c[a];
    }
    t->region_count = 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->open_exit_count; i++) {
        const op_topo_open_exit *x = &p->open_exits[i];
        int64_t k[3];
        int ok = 1;
        for (int a = 0; a < 3; a++) {
            k[a] = (int64_t)cc->k[a] + x->d[a];
            ok &= k[a] >= 0 && k[a] < p->grid[a];
        }
        if (!ok)
            continue;
        op_boundary_exit *e = &t->exits[n++];
        e->region = 1;
        e->local_tile = x->local;
        e->coord = (op_coord3){cc->o[0] + (int32_t)x->lx, cc->o[1] + (int32_t)x->ly, cc->o[2] + (int32_t)x->lz};
        e->target_chunk = op_topo_key(p->grid, (uint32_t)k[0], (uint32_t)k[1], (uint32_t)k[2]);
        e->face = x->face;
    }
    t->exit_count = n;
    r->exit_count = n;
    return 0;
}

/* A chunk with no neighbour chunk has no exits, so nothing depends on the flood's pop
 * order: the grid-labelling kernel gives the labels (§10.2's ids), and the summaries are
 * order-free. */
static int label_with_kernel(const op_topo_chunk *cc, op_topo_flood *f, op_grid_label_fn gl,
                             uint32_t *labels)
{
    const op_topo_plan *p = cc->p;
    op_local_topology *t = cc->t;
    const uint32_t cx = p->c[0], cy = p->c[1], cz = p->c[2];
    const uint32_t zoff = p->pz > 1 ? 1 : 0;
    for (uint32_t lz = 0; lz < cz; lz++)
        for (uint32_t ly = 0; ly < cy; ly++)
            memcpy(f->mask + ly * cx + lz * cx * cy, f->st + (lz + zoff) * p->px * p->py + (ly + 1) * p->px + 1, cx);
    const uint32_t n = gl(f->mask, cx, cy, cz, p->hex, labels, f->gl_scratch);
    if (op_topo_local_reserve_regions(t, n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        op_local_region *r = &t->regions[i];
        r->id = i + 1;
        r->tile_count = 0;
        r->exit_count = 0;
        r->first_exit = 0;
        r->bounds.min = (op_coord3){INT32_MAX, INT32_MAX, INT32_MAX};
        r->bounds.max = (op_coord3){INT32_MIN, INT32_MIN, INT32_MIN};
    }
    t->region_count = n;
    const uint32_t *l = labels;
    for (uint32_t lz = 0; lz < cz; lz++)
        for (uint32_t ly = 0; ly < cy; ly++)
            for (uint32_t lx = 0; lx < cx; lx++) {
                const uint32_t id = *l++;
                if (!id)
                    continue;
                op_local_region *r = &t->regions[id - 1];
                const int32_t x = cc->o[0] + (int32_t)lx, y = cc->o[1] + (int32_t)ly,
                              z = cc->o[2] + (int32_t)lz;
                r->tile_count++;
                r->bounds.min.x = x < r->bounds.min.x ? x : r->bounds.min.x;
                r->bounds.min.y = y < r->bounds.min.y ? y : r->bounds.min.y;
                r->bounds.min.z = z < r->bounds.min.z ? z : r->bounds.min.z;
                r->bounds.max.x = x + 1 > r->bounds.max.x ? x + 1 : r->bounds.max.x;
                r->bounds.max.y = y + 1 > r->bounds.max.y ? y + 1 : r->bounds.max.y;
                r->bounds.max.z = z + 1 > r->bounds.max.z ? z + 1 : r->bounds.max.z;
            }
    return 0;
}

int op_topo_label_chunk(const op_world *w, const op_movement_class *c, const op_topo_plan *p,
                        op_topo_flood *f, op_chunk_key key, int use_template, op_grid_label_fn gl,
                        op_local_topology *t)
{
    op_topo_chunk cc;
    cc.p = p;
    cc.w = w;
    cc.t = t;
    cc.key = key;
    op_topo_key_coord(p->grid, key, cc.k);
    for (int a = 0; a < 3; a++)
        cc.o[a] = (int32_t)(cc.k[a] * p->c[a]);
    cc.fm = 0;
    for (int fc = 0; fc < 6; fc++) {
        int a = fc >> 1;
        int ok = (fc & 1) ? cc.k[a] + 1 < p->grid[a] : cc.k[a] > 0;
        cc.fm |= (uint8_t)(ok << fc);
    }
    cc.dkey[0] = -1;
    cc.dkey[1] = 1;
    cc.dkey[2] = -(int64_t)p->grid[0];
    cc.dkey[3] = (int64_t)p->grid[0];
    cc.dkey[4] = -(int64_t)p->grid[0] * p->grid[1];
    cc.dkey[5] = (int64_t)p->grid[0] * p->grid[1];

    t->chunk = key;
    for (int a = 0; a < 3; a++)
        t->chunk_coord[a] = cc.k[a];
    t->topology_version = w->topology_version[key];
    t->tile_count = p->tiles;
    t->region_count = 0;
    t->exit_count = 0;

    /* Passability into the padded grid; tiles outside the world stay impassable
     * (supplement §10.11). */
    memset(f->st, 0, p->padded);
    uint32_t in[3];
    for (int a = 0; a < 3; a++) {
        uint64_t end = (uint64_t)cc.o[a] + p->c[a];
        in[a] = end <= p->shape.size[a] ? p->c[a] : p->shape.size[a] - (uint32_t)cc.o[a];
    }
    uint32_t zoff = p->pz > 1 ? 1 : 0;
    uint64_t passable = 0;
    for (uint32_t lz = 0; lz < in[2]; lz++)
        for (uint32_t ly = 0; ly < in[1]; ly++) {
            uint8_t *row = f->st + (lz + zoff) * p->px * p->py + (ly + 1) * p->px + 1;
            op_topo_pass_row(w, c, key, ly * p->c[0] + lz * p->c[0] * p->c[1], in[0], row, &f->eval);
            for (uint32_t i = 0; i < in[0]; i++)
                passable += row[i];
        }
    uint32_t *labels = t->labels;
    if (use_template && passable == p->tiles && p->open_exits)
        return copy_template(&cc, labels);
    if (passable == 0) {
        memset(labels, 0, (size_t)p->tiles * sizeof *labels);
        return 0;
    }
    if (p->compact)
        memset(f->lab16, 0, (size_t)p->padded * sizeof *f->lab16);
    else
        memset(labels, 0, (size_t)p->tiles * sizeof *labels);
    if (gl && cc.fm == 0)
        return label_with_kernel(&cc, f, gl, labels);
    if (op_topo_local_reserve_exits(t, p->max_exits))
        return -1;
    /* Both loops give the same bytes; the branchy one wins where the ground is open
     * (supplement §10.2 either way; docs/decisions/topology.md). */
    const int open = passable * 20 >= (uint64_t)p->tiles * 19;
    return op_topo_flood_chunk(&cc, f, labels, open);
}

/* ---- build_local_chunk_topology ----------------------------------------------------------- */

typedef struct local_scratch {
    op_topo_plan plan;
    int have_plan;
    op_topo_flood flood;
} local_scratch;

void op_local_topology_scratch_init(op_ctx *ctx, op_local_topology_scratch *s)
{
    s->impl = NULL;
    s->alloc = ctx ? ctx->alloc : (op_allocator){0};
}

void op_local_topology_scratch_free(op_local_topology_scratch *s)
{
    if (!s || !s->impl)
        return;
    local_scratch *ls = s->impl;
    op_topo_plan_free(&ls->plan);
    op_topo_flood_free(&ls->flood);
    op_mem_free(&s->alloc, ls);
    s->impl = NULL;
}


op_status op_local_topology_build(op_ctx *ctx, const op_world *w, const op_movement_class *c,
                                  op_chunk_key chunk, op_local_topology_scratch *scratch,
                                  op_local_topology *out, op_topology_build_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    if (!scratch || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_local_topology_build: NULL argument");
    op_status st = op_movement_class_validate(ctx, w, c);
    if (st != OP_OK)
        return st;
    /* The topology is emptied first, whatever happens next. */
    out->region_count = out->exit_count = 0;
    out->chunk = OP_INVALID_CHUNK;
    out->topology_version = 0;
    if (chunk >= w->chunk_count) {
        /* TopologyStatus::InvalidChunk: an empty topology, not an error. */
        if (result)
            result->status = OP_TOPOLOGY_INVALID_CHUNK;
        return OP_OK;
    }
    if (!op_world_is_resident(w, chunk)) {
        /* A sparse build rejects a chunk that is not resident before touching pages. */
        if (result)
            result->status = OP_TOPOLOGY_MISSING_CHUNK;
        return OP_OK;
    }
    if (!scratch->impl) {
        scratch->impl = op_mem_calloc(&scratch->alloc, 1, sizeof(local_scratch));
        if (!scratch->impl)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood scratch");
        local_scratch *ls = scratch->impl;
        ls->plan.alloc = scratch->alloc;
        ls->flood.alloc = scratch->alloc;
    }
    local_scratch *ls = scratch->impl;
    if (!ls->have_plan || !op_topo_same_shape(&ls->plan.shape, &w->shape)) {
        ls->have_plan = 0;
        if (op_topo_plan_make(&ls->plan, &w->shape, &scratch->alloc))
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood plan");
        ls->have_plan = 1;
    }
    if (op_topo_flood_reserve(&ls->flood, &ls->plan, c, &scratch->alloc))
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the flood scratch");
    if (!out->owns_labels || !out->labels || out->tile_count != w->chunk_tiles) {
        if (out->owns_labels)
            op_mem_free(&out->alloc, out->labels);
        out->labels = op_mem_array(&out->alloc, w->chunk_tiles, sizeof *out->labels);
        out->owns_labels = out->labels != NULL;
        out->tile_count = out->labels ? w->chunk_tiles : 0;
        if (!out->labels)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u chunk labels", w->chunk_tiles);
    }
    op_grid_label_fn gl = ctx && ctx->k ? ctx->k->grid_label.label : op_grid_label_scalar;
    if (op_topo_label_chunk(w, c, &ls->plan, &ls->flood, chunk, 1, gl, out)) {
        out->region_count = out->exit_count = 0;
        out->chunk = OP_INVALID_CHUNK;
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the regions and exits of chunk %u",
                       chunk);
    }
    if (result) {
        result->status = OP_TOPOLOGY_BUILT;
        result->region_count = out->region_count;
        for (uint32_t i = 0; i < out->region_count; i++)
            result->passable_tile_count += out->regions[i].tile_count;
        result->boundary_exit_count = out->exit_count;
        result->topology_version_sum = out->topology_version;
    }
    return OP_OK;
}

