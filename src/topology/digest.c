/* The topology/region-graph digest (supplement §5): XXH3-64 over a canonical
 * little-endian serialization of the labels, region summaries, exits, portals, dense
 * index and CSR (sparse graphs: also the reaches-missing flags) — never versions,
 * revisions, generations or stamps, so an updated graph and a fresh build of the same
 * world agree. The byte layout is docs/formats.md "OPTOPO1". */
#include "onepath/digest.h"
#include "topology/topology_internal.h"

/* (x, y, z) as three i32. */
static void put_coord(op_digest_stream *d, op_coord3 c)
{
    op_digest_i32(d, c.x);
    op_digest_i32(d, c.y);
    op_digest_i32(d, c.z);
}

op_status op_region_graph_digest(op_ctx *ctx, const op_region_graph *g, uint64_t *out)
{
    if (!g || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_digest: NULL argument");
    if (!g->stamp.built)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_digest: the graph is not built");
    op_digest_stream d;
    op_digest_begin(&d);
    op_digest_put(&d, "OPTOPO1\0", 8);
    const op_world_shape *sh = &g->stamp.shape;
    for (int a = 0; a < 3; a++)
        op_digest_u32(&d, sh->size[a]);
    for (int a = 0; a < 3; a++)
        op_digest_u32(&d, sh->chunk[a]);
    op_digest_u32(&d, (uint32_t)sh->lattice);
    for (int a = 0; a < 3; a++)
        op_digest_u32(&d, g->stamp.chunks[a]);
    op_digest_u32(&d, g->slot_count);
    op_digest_u32(&d, g->chunk_tiles);
    for (uint32_t k = 0; k < g->slot_count; k++) {
        const op_local_topology *t = &g->locals[k];
        op_digest_u32(&d, t->chunk);
        for (int a = 0; a < 3; a++)
            op_digest_u32(&d, t->chunk_coord[a]);
        op_digest_u32s(&d, t->labels, g->chunk_tiles);
        op_digest_u32(&d, t->region_count);
        for (uint32_t r = 0; r < t->region_count; r++) {
            const op_local_region *lr = &t->regions[r];
            op_digest_u32(&d, lr->id);
            op_digest_u32(&d, lr->tile_count);
            put_coord(&d, lr->bounds.min);
            put_coord(&d, lr->bounds.max);
            op_digest_u32(&d, lr->exit_count);
        }
        op_digest_u32(&d, t->exit_count);
        for (uint32_t i = 0; i < t->exit_count; i++) {
            const op_boundary_exit *e = &t->exits[i];
            op_digest_u32(&d, e->region);
            op_digest_u32(&d, e->local_tile);
            put_coord(&d, e->coord);
            op_digest_u32(&d, e->target_chunk);
            op_digest_u8(&d, e->face);
        }
    }
    op_digest_u32(&d, g->portal_count);
    for (uint32_t i = 0; i < g->portal_count; i++) {
        const op_region_portal *p = &g->portals[i];
        op_digest_u32(&d, p->from.chunk);
        op_digest_u32(&d, p->from.region);
        op_digest_u32(&d, p->to.chunk);
        op_digest_u32(&d, p->to.region);
        put_coord(&d, p->from_coord);
        put_coord(&d, p->to_coord);
        op_digest_u8(&d, p->face);
    }
    op_digest_u32(&d, g->region_count);
    op_digest_u32s(&d, g->region_offsets, (size_t)g->slot_count + 1);
    op_digest_u32s(&d, g->adj_start, (size_t)g->region_count + 1);
    for (uint32_t i = 0; i < g->portal_count; i++) {
        op_digest_u32(&d, g->adj_target[i]);
        op_digest_u32(&d, g->adj_portal[i]);
    }
    if (g->residency == OP_RESIDENCY_SPARSE) {
        /* Sparse graphs only (a dense graph's bytes end above): the residency mode and
         * the reaches-missing flag of every region. */
        op_digest_u32(&d, 1);
        op_digest_put(&d, g->reaches_missing, g->region_count);
    }
    *out = op_digest_end(&d);
    return OP_OK;
}
