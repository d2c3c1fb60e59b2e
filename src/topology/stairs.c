/* The built-in stair provider, StairTransitions<StairTag> (topology.md "Stairs",
 * "Transition Providers"; supplement §6: providers as function pointers, the stair
 * provider built in).
 *
 * The stair field holds a StairDirection per tile; a tile that is not None is the foot
 * of a stair whose landing is one step in that direction and one z level up. Each stair
 * contributes both directions, each from the chunk that owns its origin tile: the up
 * edge from the foot's chunk, the down edge from the landing's chunk (the foot's chunk,
 * its +z face neighbour, or a sideways face neighbour when the landing stays below the
 * foot chunk's top layer). A landing outside the world, or one that crosses a sideways
 * chunk boundary and the top layer at once (two boundaries: not a face neighbour),
 * contributes nothing. Whether the ends are passable is the movement class's question
 * (the graph keeps a transition only between labelled tiles).
 *
 * Enumeration order for a chunk (the order its provider portals take): the up edges of
 * its feet in local tile order, then the down edges landing in it by foot coordinate
 * z, y, x. The down edges read the stair field of the chunks below and beside (a foot
 * one tile outside the chunk); a chunk that is not resident has no page and gives
 * nothing (its landing tiles lie on the face toward it, so their regions reach missing
 * topology through their exits anyway). Editing a stair's foot changes edges of the
 * foot's chunk and of a face neighbour only, so the owning chunk marked dirty suffices
 * for an update (which re-derives the neighbours' portals). */
#include "topology/topology_internal.h"

/* Step of each direction (index = op_stair_direction). */
static const int8_t stair_step[5][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static int stair_dir(const op_world_field *f, op_chunk_key chunk, uint32_t local)
{
    int64_t v = op_topo_field_value(f, chunk, local);
    return v >= OP_STAIR_POS_X && v <= OP_STAIR_NEG_Y ? (int)v : OP_STAIR_NONE;
}

/* 1 when chunk coordinates a and b are equal or differ by one on exactly one axis. */
static int face_near(const uint32_t a[3], const uint32_t b[3])
{
    uint32_t d = 0;
    for (int i = 0; i < 3; i++)
        d += a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
    return d <= 1;
}

static void chunk_of(const op_world *w, const int64_t c[3], uint32_t k[3], uint32_t *local)
{
    const uint32_t *ch = w->shape.chunk;
    uint32_t l[3];
    for (int a = 0; a < 3; a++) {
        k[a] = (uint32_t)(c[a] / ch[a]);
        l[a] = (uint32_t)(c[a] - (int64_t)k[a] * ch[a]);
    }
    *local = l[0] + l[1] * ch[0] + l[2] * ch[0] * ch[1];
}

static int in_world(const op_world *w, const int64_t c[3])
{
    for (int a = 0; a < 3; a++)
        if (c[a] < 0 || c[a] >= w->shape.size[a])
            return 0;
    return 1;
}

static void stair_each(const op_transition_provider *self, const op_world *w, op_chunk_key chunk,
                       op_transition_sink sink, void *user)
{
    const op_world_field *f = op_world_find_field(w, self->type_arg);
    if (!f || chunk >= w->chunk_count || !f->pages[chunk] || w->shape.size[2] < 2)
        return; /* no field, no page, or a flat world (every landing is off the top) */
    const uint32_t *ch = w->shape.chunk;
    uint32_t k[3];
    op_topo_key_coord(w->chunks, chunk, k);
    const int64_t o[3] = {(int64_t)k[0] * ch[0], (int64_t)k[1] * ch[1], (int64_t)k[2] * ch[2]};
    /* Up edges: feet in this chunk, local tile order. */
    for (uint32_t lz = 0; lz < ch[2]; lz++)
        for (uint32_t ly = 0; ly < ch[1]; ly++)
            for (uint32_t lx = 0; lx < ch[0]; lx++) {
                const int64_t foot[3] = {o[0] + lx, o[1] + ly, o[2] + lz};
                if (!in_world(w, foot))
                    continue;
                const int d = stair_dir(f, chunk, lx + ly * ch[0] + lz * ch[0] * ch[1]);
                if (d == OP_STAIR_NONE)
                    continue;
                const int64_t land[3] = {foot[0] + stair_step[d][0], foot[1] + stair_step[d][1],
                                         foot[2] + 1};
                if (!in_world(w, land))
                    continue;
                uint32_t lk[3], ll;
                chunk_of(w, land, lk, &ll);
                if (!face_near(k, lk))
                    continue; /* two chunk boundaries at once */
                sink(user, (op_coord3){(int32_t)foot[0], (int32_t)foot[1], (int32_t)foot[2]},
                     (op_coord3){(int32_t)land[0], (int32_t)land[1], (int32_t)land[2]});
            }
    /* Down edges: stairs landing in this chunk; their feet lie one layer lower and at
     * most one tile outside the chunk in x or y. Foot order z, y, x. */
    for (int64_t fz = o[2] - 1; fz < o[2] + (int64_t)ch[2] - 1; fz++)
        for (int64_t fy = o[1] - 1; fy <= o[1] + (int64_t)ch[1]; fy++)
            for (int64_t fx = o[0] - 1; fx <= o[0] + (int64_t)ch[0]; fx++) {
                const int64_t foot[3] = {fx, fy, fz};
                if (!in_world(w, foot))
                    continue;
                uint32_t fk[3], fl;
                chunk_of(w, foot, fk, &fl);
                const op_chunk_key fkey = op_topo_key(w->chunks, fk[0], fk[1], fk[2]);
                if (!f->pages[fkey])
                    continue; /* not resident: nothing to read */
                const int d = stair_dir(f, fkey, fl);
                if (d == OP_STAIR_NONE)
                    continue;
                const int64_t land[3] = {fx + stair_step[d][0], fy + stair_step[d][1], fz + 1};
                if (!in_world(w, land))
                    continue;
                uint32_t lk[3], ll;
                chunk_of(w, land, lk, &ll);
                if (op_topo_key(w->chunks, lk[0], lk[1], lk[2]) != chunk || !face_near(fk, lk))
                    continue;
                sink(user, (op_coord3){(int32_t)land[0], (int32_t)land[1], (int32_t)land[2]},
                     (op_coord3){(int32_t)fx, (int32_t)fy, (int32_t)fz});
            }
}

const op_transition_provider_ops op_stair_transitions_ops = {"stairs", stair_each};

op_transition_provider op_stair_transitions(uint32_t stair_field)
{
    op_transition_provider p = {&op_stair_transitions_ops, NULL, 0, stair_field};
    return p;
}
