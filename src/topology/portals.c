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

int op_topo_exit_across(const op_region_graph *g, const op_boundary_exit *e, uint32_t *slot,
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
        op_chunk_key key;
        op_topo_locate(&g->stamp, to, &key, local);
        *slot = key;
        return 1;
    }
    }
    *slot = e->target_chunk;
    return 1;
}

uint32_t op_topo_count_exit_portals(const op_region_graph *g, const op_local_topology *t,
                                    const op_topo_plan *plan, const uint32_t *strips,
                                    uint32_t *to)
{
    uint32_t n = 0;
    const uint32_t tiles = g->chunk_tiles;
    const uint32_t *c = plan->c;
    const int32_t ox = (int32_t)(t->chunk_coord[0] * c[0]), oy = (int32_t)(t->chunk_coord[1] * c[1]),
                  oz = (int32_t)(t->chunk_coord[2] * c[2]);
    for (uint32_t i = 0; i < t->exit_count; i++) {
        const op_boundary_exit *e = &t->exits[i];
        uint32_t r = 0;
        if (e->face < 6 && plan->face_len[e->face ^ 1]) {
            /* The tile across sits at the same face position on the target's opposite
             * face: read the target's strip. */
            const uint32_t lx = (uint32_t)(e->coord.x - ox), ly = (uint32_t)(e->coord.y - oy),
                           lz = (uint32_t)(e->coord.z - oz);
            const int a = e->face >> 1;
            const uint32_t pos = a == 0 ? ly + lz * c[1] : a == 1 ? lx + lz * c[0] : lx + ly * c[0];
            r = strips[(size_t)e->target_chunk * plan->face_total + plan->face_off[e->face ^ 1] + pos];
        } else {
            uint32_t slot, local;
            if (op_topo_exit_across(g, e, &slot, &local))
                r = g->labels[(size_t)slot * tiles + local];
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
        uint32_t slot = e->target_chunk, local;
        if (e->face >= OP_FACE_POS_X_NEG_Y)
            op_topo_exit_across(g, e, &slot, &local); /* a hex seam may reach a diagonal chunk */
        op_region_portal *p = &out[n++];
        p->from.chunk = t->chunk;
        p->from.region = e->region;
        p->to.chunk = slot; /* dense: slot = chunk key */
        p->to.region = to[i];
        p->from_coord = e->coord;
        p->to_coord = op_topo_face_step(e->coord, e->face);
        p->face = e->face;
    }
    return n;
}
