/* The topology/region-graph digest (supplement §5): XXH3-64 over a canonical
 * little-endian serialization of the labels, region summaries, exits, portals, dense
 * index and CSR — never versions, revisions or stamps, so an updated graph and a fresh
 * build of the same world agree. The byte layout is docs/formats.md "OPTOPO1". */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "topology/topology_internal.h"

/* A little-endian staging buffer over an XXH3 state on the stack: no allocation. */
typedef struct dg_stream {
    XXH3_state_t state;
    unsigned char buf[4096];
    size_t used;
} dg_stream;

static void flush(dg_stream *d)
{
    if (d->used)
        XXH3_64bits_update(&d->state, d->buf, d->used);
    d->used = 0;
}

static void dg_put(dg_stream *d, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    while (n) {
        if (d->used == sizeof d->buf)
            flush(d);
        size_t k = sizeof d->buf - d->used;
        if (k > n)
            k = n;
        memcpy(d->buf + d->used, p, k);
        d->used += k;
        p += k;
        n -= k;
    }
}

static void dg_u8(dg_stream *d, uint8_t v)
{
    dg_put(d, &v, 1);
}

static void dg_u32(dg_stream *d, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    dg_put(d, b, 4);
}

static void dg_i32(dg_stream *d, int32_t v)
{
    dg_u32(d, (uint32_t)v);
}

static void put_u32s(dg_stream *d, const uint32_t *v, size_t n)
{
    unsigned char buf[1024];
    while (n) {
        size_t k = n < sizeof buf / 4 ? n : sizeof buf / 4;
        for (size_t i = 0; i < k; i++) {
            buf[4 * i] = (unsigned char)v[i];
            buf[4 * i + 1] = (unsigned char)(v[i] >> 8);
            buf[4 * i + 2] = (unsigned char)(v[i] >> 16);
            buf[4 * i + 3] = (unsigned char)(v[i] >> 24);
        }
        dg_put(d, buf, 4 * k);
        v += k;
        n -= k;
    }
}

static void put_coord(dg_stream *d, op_coord3 c)
{
    dg_i32(d, c.x);
    dg_i32(d, c.y);
    dg_i32(d, c.z);
}

op_status op_region_graph_digest(op_ctx *ctx, const op_region_graph *g, uint64_t *out)
{
    if (!g || !out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_digest: NULL argument");
    if (!g->stamp.built)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_region_graph_digest: the graph is not built");
    dg_stream d;
    XXH3_64bits_reset(&d.state);
    d.used = 0;
    dg_put(&d, "OPTOPO1\0", 8);
    const op_world_shape *sh = &g->stamp.shape;
    for (int a = 0; a < 3; a++)
        dg_u32(&d, sh->size[a]);
    for (int a = 0; a < 3; a++)
        dg_u32(&d, sh->chunk[a]);
    dg_u32(&d, (uint32_t)sh->lattice);
    for (int a = 0; a < 3; a++)
        dg_u32(&d, g->stamp.chunks[a]);
    dg_u32(&d, g->slot_count);
    dg_u32(&d, g->chunk_tiles);
    for (uint32_t k = 0; k < g->slot_count; k++) {
        const op_local_topology *t = &g->locals[k];
        dg_u32(&d, t->chunk);
        for (int a = 0; a < 3; a++)
            dg_u32(&d, t->chunk_coord[a]);
        put_u32s(&d, t->labels, g->chunk_tiles);
        dg_u32(&d, t->region_count);
        for (uint32_t r = 0; r < t->region_count; r++) {
            const op_local_region *lr = &t->regions[r];
            dg_u32(&d, lr->id);
            dg_u32(&d, lr->tile_count);
            put_coord(&d, lr->bounds.min);
            put_coord(&d, lr->bounds.max);
            dg_u32(&d, lr->exit_count);
        }
        dg_u32(&d, t->exit_count);
        for (uint32_t i = 0; i < t->exit_count; i++) {
            const op_boundary_exit *e = &t->exits[i];
            dg_u32(&d, e->region);
            dg_u32(&d, e->local_tile);
            put_coord(&d, e->coord);
            dg_u32(&d, e->target_chunk);
            dg_u8(&d, e->face);
        }
    }
    dg_u32(&d, g->portal_count);
    for (uint32_t i = 0; i < g->portal_count; i++) {
        const op_region_portal *p = &g->portals[i];
        dg_u32(&d, p->from.chunk);
        dg_u32(&d, p->from.region);
        dg_u32(&d, p->to.chunk);
        dg_u32(&d, p->to.region);
        put_coord(&d, p->from_coord);
        put_coord(&d, p->to_coord);
        dg_u8(&d, p->face);
    }
    dg_u32(&d, g->region_count);
    put_u32s(&d, g->region_offsets, (size_t)g->slot_count + 1);
    put_u32s(&d, g->adj_start, (size_t)g->region_count + 1);
    for (uint32_t i = 0; i < g->portal_count; i++) {
        dg_u32(&d, g->adj_target[i]);
        dg_u32(&d, g->adj_portal[i]);
    }
    flush(&d);
    *out = (uint64_t)XXH3_64bits_digest(&d.state);
    return OP_OK;
}
