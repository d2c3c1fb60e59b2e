/* Portals: exits paired across chunk seams, and provider transitions (topology.md
 * "Behavior", "Transition Providers"; supplement §10.6). With every chunk labelled,
 * chunks are taken by ascending key and each chunk's exits in order; an exit whose tile
 * across has a region gives one directed portal. Nothing is merged: k open tile pairs on
 * a seam give k portals each way. */
#include "topology/topology_internal.h"

op_coord3 op_boundary_face_step(op_coord3 c, op_boundary_face f)
{
    switch (f) {
    case OP_FACE_NEG_X: c.x--; break;
    case OP_FACE_POS_X: c.x++; break;
    case OP_FACE_NEG_Y: c.y--; break;
    case OP_FACE_POS_Y: c.y++; break;
    case OP_FACE_NEG_Z: c.z--; break;
    case OP_FACE_POS_Z: c.z++; break;
    case OP_FACE_POS_X_NEG_Y:
        c.x++;
        c.y--;
        break;
    case OP_FACE_NEG_X_POS_Y:
        c.x--;
        c.y++;
        break;
    }
    return c;
}

const char *op_boundary_face_name(op_boundary_face f)
{
    static const char *const names[8] = {"-x", "+x", "-y", "+y", "-z", "+z", "+x-y", "-x+y"};
    return (unsigned)f < 8 ? names[f] : "?";
}

op_boundary_face op_topo_transition_face(op_coord3 from, op_coord3 to)
{
    /* supplement §10.6: the dominant axis of the step, ties to x, then y, then z. */
    int64_t dx = (int64_t)to.x - from.x, dy = (int64_t)to.y - from.y, dz = (int64_t)to.z - from.z;
    int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy, az = dz < 0 ? -dz : dz;
    if (ax >= ay && ax >= az)
        return dx < 0 ? OP_FACE_NEG_X : OP_FACE_POS_X;
    if (ay >= az)
        return dy < 0 ? OP_FACE_NEG_Y : OP_FACE_POS_Y;
    return dz < 0 ? OP_FACE_NEG_Z : OP_FACE_POS_Z;
}

int op_topo_exit_across(const op_region_graph *g, const op_boundary_exit *e, op_chunk_key *key,
                        uint32_t *local)
{
    const uint32_t *c = g->stamp.shape.chunk;
    uint32_t l = e->local_tile;
    switch (e->face) {
    /* The tile across an orthogonal face lies in the target chunk at the opposite edge
     * (same local indices in partial chunks, supplement §10.11). */
    case OP_FACE_NEG_X: *local = l + (c[0] - 1); break;
    case OP_FACE_POS_X: *local = l - (c[0] - 1); break;
    case OP_FACE_NEG_Y: *local = l + (c[1] - 1) * c[0]; break;
    case OP_FACE_POS_Y: *local = l - (c[1] - 1) * c[0]; break;
    case OP_FACE_NEG_Z: *local = l + (c[2] - 1) * c[0] * c[1]; break;
    case OP_FACE_POS_Z: *local = l - (c[2] - 1) * c[0] * c[1]; break;
    default: {
        /* Hex seam steps: the target may be a face or a diagonal chunk. */
        op_coord3 to = op_boundary_face_step(e->coord, (op_boundary_face)e->face);
        if (!op_topo_shape_contains(&g->stamp.shape, to))
            return 0;
        op_topo_locate(&g->stamp, to, key, local);
        return 1;
    }
    }
    *key = e->target_chunk;
    return 1;
}

uint32_t op_topo_count_exit_portals(const op_region_graph *g, uint32_t slot,
                                    const op_topo_plan *plan, const uint32_t *strips,
                                    uint32_t *to, uint8_t *miss)
{
    const op_local_topology *t = &g->locals[slot];
    uint32_t n = 0;
    const uint32_t tiles = g->chunk_tiles;
    const uint32_t *c = plan->c;
    const int32_t ox = (int32_t)(t->chunk_coord[0] * c[0]), oy = (int32_t)(t->chunk_coord[1] * c[1]),
                  oz = (int32_t)(t->chunk_coord[2] * c[2]);
    const int dense = g->residency == OP_RESIDENCY_DENSE;
    /* The slot across each orthogonal face, looked up once (sparse: binary search). */
    uint32_t face_slot[6];
    for (int f = 0; f < 6; f++)
        face_slot[f] = OP_INVALID_CHUNK - 1; /* not looked up yet */
    for (uint32_t i = 0; i < t->exit_count; i++) {
        const op_boundary_exit *e = &t->exits[i];
        uint32_t r = 0, ts;
        if (e->face < 6) {
            if (dense) {
                ts = e->target_chunk;
            } else {
                if (face_slot[e->face] == OP_INVALID_CHUNK - 1)
                    face_slot[e->face] = op_topo_slot_of(g, e->target_chunk);
                ts = face_slot[e->face];
            }
            if (ts == OP_INVALID_CHUNK) {
                /* topology.md: the region exits into a chunk that is not resident. */
                miss[e->region - 1] = 1;
            } else if (plan->face_len[e->face ^ 1]) {
                /* The tile across sits at the same face position on the target's
                 * opposite face: read the target's strip. */
                const uint32_t lx = (uint32_t)(e->coord.x - ox), ly = (uint32_t)(e->coord.y - oy),
                               lz = (uint32_t)(e->coord.z - oz);
                const int a = e->face >> 1;
                const uint32_t pos = a == 0 ? ly + lz * c[1] : a == 1 ? lx + lz * c[0] : lx + ly * c[0];
                r = strips[(size_t)ts * plan->face_total + plan->face_off[e->face ^ 1] + pos];
            } else {
                op_chunk_key key;
                uint32_t local;
                if (op_topo_exit_across(g, e, &key, &local))
                    r = g->labels[(size_t)ts * tiles + local];
            }
        } else {
            op_chunk_key key;
            uint32_t local;
            if (op_topo_exit_across(g, e, &key, &local)) {
                ts = op_topo_slot_of(g, key);
                if (ts == OP_INVALID_CHUNK)
                    miss[e->region - 1] = 1;
                else
                    r = g->labels[(size_t)ts * tiles + local];
            }
        }
        to[i] = r;
        n += r != 0;
    }
    return n;
}

uint32_t op_topo_fill_exit_portals(const op_region_graph *g, const op_local_topology *t,
                                   const uint32_t *to, op_region_portal *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->exit_count; i++) {
        if (!to[i])
            continue;
        const op_boundary_exit *e = &t->exits[i];
        op_chunk_key key = e->target_chunk;
        uint32_t local;
        if (e->face >= OP_FACE_POS_X_NEG_Y)
            op_topo_exit_across(g, e, &key, &local); /* a hex seam may reach a diagonal chunk */
        op_region_portal *p = &out[n++];
        p->from.chunk = t->chunk;
        p->from.region = e->region;
        p->to.chunk = key;
        p->to.region = to[i];
        p->from_coord = e->coord;
        p->to_coord = op_topo_face_step(e->coord, e->face);
        p->face = e->face;
    }
    return n;
}

/* ---- regular-step neighbour chunks ------------------------------------------------------ */

/* Chunk-grid steps of the lattices: orthogonal faces -x, +x, -y, +y, -z, +z; axial hex
 * in its step order (supplement §10.4). */
static const int8_t ortho_step[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                        {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
static const int8_t hex_step[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                      {0, -1, 0}, {1, -1, 0}, {-1, 1, 0}};

uint32_t op_topo_chunk_neighbours(const op_region_graph_stamp *st, op_chunk_key key,
                                  op_chunk_key out[6])
{
    uint32_t k[3];
    op_topo_key_coord(st->chunks, key, k);
    const int8_t(*d)[3] = st->shape.lattice == OP_LATTICE_AXIAL_HEX ? hex_step : ortho_step;
    uint32_t n = 0;
    for (int s = 0; s < 6; s++) {
        int64_t c[3];
        int ok = 1;
        for (int a = 0; a < 3; a++) {
            c[a] = (int64_t)k[a] + d[s][a];
            ok &= c[a] >= 0 && c[a] < st->chunks[a];
        }
        if (ok)
            out[n++] = op_topo_key(st->chunks, (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2]);
    }
    return n;
}

int op_topo_chunk_near(const op_region_graph_stamp *st, op_chunk_key a, op_chunk_key b)
{
    if (a == b)
        return 1;
    uint32_t ka[3], kb[3];
    op_topo_key_coord(st->chunks, a, ka);
    op_topo_key_coord(st->chunks, b, kb);
    int64_t d[3];
    for (int i = 0; i < 3; i++)
        d[i] = (int64_t)kb[i] - ka[i];
    const int8_t(*steps)[3] = st->shape.lattice == OP_LATTICE_AXIAL_HEX ? hex_step : ortho_step;
    for (int s = 0; s < 6; s++)
        if (d[0] == steps[s][0] && d[1] == steps[s][1] && d[2] == steps[s][2])
            return 1;
    return 0;
}

/* ---- provider portals ----------------------------------------------------------------- */

typedef struct provider_sink {
    const op_region_graph *g;
    op_chunk_key chunk;
    uint32_t slot;
    op_region_portal **buf;
    uint32_t *count, *cap;
    uint8_t *miss;
    int failed;
} provider_sink;

static void provider_emit(void *user, op_coord3 from, op_coord3 to)
{
    /* supplement §10.6: kept only when the origin is in this chunk, the landing in the
     * world and both ends have regions; topology.md: the landing in the same chunk or a
     * regular-step neighbour chunk (a longer edge would survive an update, stale). */
    provider_sink *ps = user;
    const op_region_graph *g = ps->g;
    if (ps->failed || !op_topo_shape_contains(&g->stamp.shape, from) ||
        !op_topo_shape_contains(&g->stamp.shape, to))
        return;
    op_chunk_key fk, tk;
    uint32_t fl, tl;
    op_topo_locate(&g->stamp, from, &fk, &fl);
    if (fk != ps->chunk)
        return;
    op_topo_locate(&g->stamp, to, &tk, &tl);
    if (!op_topo_chunk_near(&g->stamp, fk, tk))
        return;
    uint32_t fr = g->labels[(size_t)ps->slot * g->chunk_tiles + fl];
    if (!fr)
        return;
    uint32_t ts = tk == fk ? ps->slot : op_topo_slot_of(g, tk);
    if (ts == OP_INVALID_CHUNK) {
        /* Sparse: the landing chunk is not resident; the origin reaches missing
         * topology (topology.md "Transition Providers"). */
        ps->miss[fr - 1] = 1;
        return;
    }
    uint32_t tr = g->labels[(size_t)ts * g->chunk_tiles + tl];
    if (!tr)
        return;
    if (*ps->count == *ps->cap) {
        uint64_t cap = *ps->cap ? (uint64_t)*ps->cap * 2 : 16;
        if (cap > UINT32_MAX / 2) {
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

int op_topo_provider_portals(const op_region_graph *g, const op_transition_provider *prov,
                             const op_world *world, uint32_t slot, op_region_portal **buf,
                             uint32_t *count, uint32_t *cap, uint8_t *miss)
{
    *count = 0;
    if (!prov)
        return 0;
    provider_sink ps = {g, op_topo_slot_key(g, slot), slot, buf, count, cap, miss, 0};
    prov->ops->for_each_transition(prov, world, ps.chunk, provider_emit, &ps);
    return ps.failed ? -1 : 0;
}
