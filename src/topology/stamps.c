/* Stamps and freshness of a region graph (topology.md "Public Surface": matches_class,
 * matches_provider, is_region_graph_fresh(_for); supplement §6): what a graph was built
 * for, compared without mutating anything. */
#include "topology/topology_internal.h"

int op_region_graph_matches_shape(const op_region_graph *g, const op_world_shape *shape)
{
    return g && shape && g->stamp.built && op_topo_same_shape(&g->stamp.shape, shape) &&
           g->stamp.lattice_version == OP_LATTICE_VERSION;
}

int op_region_graph_matches_class(const op_region_graph *g, const op_movement_class *c)
{
    /* False until the first build; normalized, so a raw field and its unit-cost
     * identity class agree. */
    return g && c && g->stamp.built && op_movement_class_same(&g->stamp.cls, c) &&
           g->stamp.step_identity == op_movement_step_identity(c) &&
           g->stamp.cost_scale == op_movement_cost_scale(c);
}

int op_region_graph_matches_provider(const op_region_graph *g, const op_transition_provider *p)
{
    if (!g || !g->stamp.built)
        return 0;
    /* As the build stamps it: a provider without an enumeration is AdjacentTransitions. */
    const op_transition_provider_ops *ops =
        p && p->ops && p->ops->for_each_transition ? p->ops : NULL;
    const void *instance = ops ? p->instance : NULL;
    uint64_t revision = ops ? p->revision : 0;
    uint32_t type_arg = ops ? p->type_arg : 0;
    return g->stamp.provider_ops == ops && g->stamp.provider_type_arg == type_arg &&
           g->stamp.provider_instance == instance && g->stamp.provider_revision == revision;
}

int op_topo_residency_holds(const op_world *world, const op_region_graph *g)
{
    /* The frozen snapshot: the resident count and every slot's key still resident with
     * the generation it had at the build (a chunk evicted and loaded again has moved on). */
    if (g->residency != OP_RESIDENCY_SPARSE)
        return g->slot_count == world->chunk_count;
    if (world->resident_count != g->world_resident_count || g->slot_count != world->resident_count)
        return 0;
    for (uint32_t k = 0; k < g->slot_count; k++) {
        const op_chunk_key key = g->sparse_keys[k];
        if (!world->resident[key] || world->residency_generation[key] != g->residency_generations[k])
            return 0;
    }
    return 1;
}

int op_region_graph_is_fresh(const op_world *world, const op_region_graph *g)
{
    if (!world || !g || !world->topology_version || g->residency != world->residency ||
        !op_region_graph_matches_shape(g, &world->shape) || !op_topo_residency_holds(world, g))
        return 0;
    for (uint32_t k = 0; k < g->slot_count; k++)
        if (g->locals[k].topology_version != world->topology_version[op_topo_slot_key(g, k)])
            return 0;
    return 1;
}

int op_region_graph_is_fresh_for(const op_world *world, const op_region_graph *g,
                                 const op_movement_class *c)
{
    return op_region_graph_matches_class(g, c) && op_region_graph_is_fresh(world, g);
}
