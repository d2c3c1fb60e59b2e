/* Dense region index and CSR adjacency (topology.md "Behavior"; supplement §10.7):
 * index = offset(chunk) + id - 1 with offsets the prefix sums of region counts in key
 * order; the CSR is a stable counting sort of the portal array by from-index, so bucket
 * i holds region i's portals in portal order, each with target and portal index.
 *
 * Portals are stored chunk by chunk and every portal of a chunk leaves one of that
 * chunk's regions, whose indices are contiguous: the CSR positions of a chunk's buckets
 * are exactly its portal positions, so each chunk is sorted on its own (in parallel).
 *
 * The first-occurrence adjacency keeps, per bucket, each target's first entry only. A
 * traversal that skips marked targets never acts on a repeated target of one bucket (the
 * first occurrence marked it, or returned), so scanning it visits exactly what scanning
 * the whole bucket visits, with the same parents and portals (§10.9, §10.10).
 * The lookups of a tile's region, a region's index and back are here too. */
#include "topology/topology_internal.h"

void op_topo_index_slot(op_region_graph *g, uint32_t slot, uint32_t *fill, uint64_t *seen,
                        uint64_t serial)
{
    const uint32_t off = g->region_offsets[slot];
    const uint32_t nr = g->region_offsets[slot + 1] - off;
    const uint32_t pb = g->portal_offsets[slot], pe = g->portal_offsets[slot + 1];
    if (nr == 0)
        return;
    for (uint32_t r = 0; r < nr; r++)
        fill[r] = 0;
    for (uint32_t i = pb; i < pe; i++)
        fill[g->portals[i].from.region - 1]++;
    uint32_t at = pb;
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t n = fill[r];
        g->adj_start[off + r] = at;
        fill[r] = at;
        at += n;
    }
    /* Targets through the slot of the portal's chunk: dense, the key; sparse, one
     * lookup per run of portals into the same chunk. */
    op_chunk_key last_key = OP_INVALID_CHUNK;
    uint32_t last_off = 0;
    for (uint32_t i = pb; i < pe; i++) {
        const op_region_portal *p = &g->portals[i];
        uint32_t e = fill[p->from.region - 1]++;
        if (p->to.chunk != last_key) {
            last_key = p->to.chunk;
            last_off = g->region_offsets[op_topo_slot_of(g, last_key)];
        }
        g->adj_target[e] = last_off + p->to.region - 1;
        g->adj_portal[e] = i;
    }
    uint64_t hi = serial << 32;
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t b = g->adj_start[off + r], e = fill[r], w = b;
        uint64_t stamp = hi | ((uint64_t)(off + r) + 1);
        for (uint32_t j = b; j < e; j++) {
            uint32_t t = g->adj_target[j];
            if (seen[t] == stamp)
                continue;
            seen[t] = stamp;
            g->nb_target[w] = t;
            g->nb_portal[w] = g->adj_portal[j];
            w++;
        }
        g->nb_range[2 * (size_t)(off + r)] = b;
        g->nb_range[2 * (size_t)(off + r) + 1] = w;
    }
}

/* ---- lookups through the index ------------------------------------------------------------ */

uint32_t op_region_graph_slot_of(const op_region_graph *g, op_chunk_key chunk)
{
    if (!g || !g->stamp.built)
        return OP_INVALID_CHUNK;
    return op_topo_slot_of(g, chunk);
}

const op_local_topology *op_region_graph_local(const op_region_graph *g, op_chunk_key chunk)
{
    uint32_t slot = op_region_graph_slot_of(g, chunk);
    return slot == OP_INVALID_CHUNK ? NULL : &g->locals[slot];
}

op_region_ref op_region_graph_region_of(const op_region_graph *g, op_coord3 c)
{
    /* A tile of a chunk the (sparse) graph does not hold: {key, 0}, like a wall; the
     * queries tell the two apart through the slot (query.c). */
    op_region_ref r = {OP_INVALID_CHUNK, OP_INVALID_LOCAL_REGION};
    if (!g || !g->stamp.built || !op_topo_shape_contains(&g->stamp.shape, c))
        return r;
    uint32_t local;
    op_topo_locate(&g->stamp, c, &r.chunk, &local);
    uint32_t slot = op_topo_slot_of(g, r.chunk);
    if (slot != OP_INVALID_CHUNK)
        r.region = g->labels[(size_t)slot * g->chunk_tiles + local];
    return r;
}

uint32_t op_region_graph_region_index(const op_region_graph *g, op_region_ref ref)
{
    if (!g || !g->stamp.built || ref.region == OP_INVALID_LOCAL_REGION)
        return OP_INVALID_REGION_INDEX;
    uint32_t slot = op_topo_slot_of(g, ref.chunk);
    if (slot == OP_INVALID_CHUNK)
        return OP_INVALID_REGION_INDEX;
    uint64_t i = (uint64_t)g->region_offsets[slot] + ref.region - 1;
    if (i >= g->region_offsets[slot + 1])
        return OP_INVALID_REGION_INDEX;
    return (uint32_t)i;
}

op_region_ref op_region_graph_region_ref(const op_region_graph *g, uint32_t index)
{
    op_region_ref r = {OP_INVALID_CHUNK, OP_INVALID_LOCAL_REGION};
    if (!g || !g->stamp.built || index >= g->region_count)
        return r;
    /* The last slot whose offset is <= index (upper bound - 1). */
    uint32_t lo = 0, hi = g->slot_count;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->region_offsets[mid] <= index)
            lo = mid;
        else
            hi = mid;
    }
    r.chunk = op_topo_slot_key(g, lo);
    r.region = index - g->region_offsets[lo] + 1;
    return r;
}
