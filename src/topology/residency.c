/* Residency of a sparse world (topology.md "Public Surface": SparseResident, the
 * resident set plus per-key generations; supplement §6: dense and sparse are one world
 * type with a residency mode). A resident chunk has a page in every field; a chunk that
 * is not resident has none (NULL), so nothing can read or write it. Every change of a
 * chunk's residency advances its generation: a graph freezes the generations of the
 * chunks it labelled, and a changed one makes it stale (stamps.c) and forces its update
 * to rebuild in full (update.c). */
#include "topology/topology_internal.h"

op_status op_world_make_resident(op_ctx *ctx, op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "make_resident: chunk %u outside the grid", key);
    if (w->residency == OP_RESIDENCY_DENSE || w->resident[key])
        return OP_OK; /* already resident: nothing changes */
    /* Every page first, so a failure leaves the chunk as it was. */
    void *pages[OP_WORLD_MAX_FIELDS];
    for (uint32_t i = 0; i < w->field_count; i++) {
        pages[i] = op_mem_calloc(&w->alloc, w->chunk_tiles, w->fields[i].elem_size);
        if (!pages[i]) {
            for (uint32_t j = 0; j < i; j++)
                op_mem_free(&w->alloc, pages[j]);
            return op_fail(ctx, OP_NO_MEMORY, "make_resident: out of memory for the pages of chunk %u",
                           key);
        }
    }
    for (uint32_t i = 0; i < w->field_count; i++)
        w->fields[i].pages[key] = pages[i];
    w->resident[key] = 1;
    w->resident_count++;
    w->residency_generation[key]++;
    return OP_OK;
}

op_status op_world_evict(op_ctx *ctx, op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "evict: chunk %u outside the grid", key);
    if (w->residency == OP_RESIDENCY_DENSE)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "evict: chunk %u of a dense world (every chunk "
                                                 "of a dense world stays resident)",
                       key);
    if (!w->resident[key])
        return OP_OK;
    for (uint32_t i = 0; i < w->field_count; i++) {
        op_mem_free(&w->alloc, w->fields[i].pages[key]);
        w->fields[i].pages[key] = NULL;
    }
    w->resident[key] = 0;
    w->resident_count--;
    w->residency_generation[key]++;
    return OP_OK;
}

int op_world_is_resident(const op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return 0;
    return w->residency == OP_RESIDENCY_DENSE || w->resident[key];
}

uint32_t op_world_resident_count(const op_world *w)
{
    return w && w->topology_version ? w->resident_count : 0;
}

uint32_t op_world_resident_keys(const op_world *w, op_chunk_key *out, uint32_t cap)
{
    if (!w || !w->topology_version)
        return 0;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->chunk_count; k++)
        if (w->residency == OP_RESIDENCY_DENSE || w->resident[k]) {
            if (n < cap && out)
                out[n] = k;
            n++;
        }
    return n;
}

uint64_t op_world_residency_generation(const op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count || w->residency == OP_RESIDENCY_DENSE)
        return 0;
    return w->residency_generation[key];
}
