/* The chunked world of the region graph: shape, chunk keys, fields registered by id and
 * per-chunk topology versions (topology.md "Public Surface"; supplement §6, §10.1,
 * §10.11). */
#include "topology/topology_internal.h"

op_status op_world_shape_validate(op_ctx *ctx, const op_world_shape *s)
{
    if (!s)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "world shape: NULL");
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; a++) {
        if (s->size[a] < 1 || s->size[a] > OP_WORLD_MAX_AXIS)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "world shape: size %c = %u (must be 1..%u tiles)", axis[a],
                           s->size[a], OP_WORLD_MAX_AXIS);
        if (s->chunk[a] < 1 || s->chunk[a] > OP_CHUNK_MAX_TILES)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "world shape: chunk %c = %u (must be 1..%u tiles)", axis[a],
                           s->chunk[a], OP_CHUNK_MAX_TILES);
    }
    uint64_t tiles = (uint64_t)s->chunk[0] * s->chunk[1] * s->chunk[2];
    if (tiles > OP_CHUNK_MAX_TILES)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "world shape: a chunk of %llu tiles (at most %u)",
                       (unsigned long long)tiles, OP_CHUNK_MAX_TILES);
    uint32_t grid[3];
    op_topo_chunk_grid(s, grid);
    uint64_t chunks = (uint64_t)grid[0] * grid[1];
    if (chunks > OP_WORLD_MAX_CHUNKS || chunks * grid[2] > OP_WORLD_MAX_CHUNKS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "world shape: %u x %u x %u chunks (at most %u)", grid[0], grid[1], grid[2],
                       OP_WORLD_MAX_CHUNKS);
    if (s->lattice != OP_LATTICE_ORTHOGONAL && s->lattice != OP_LATTICE_AXIAL_HEX)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "world shape: unknown lattice %d",
                       (int)s->lattice);
    /* tess lattice::HexAxial::valid_shape: x = q, y = r, z = 0 only. */
    if (s->lattice == OP_LATTICE_AXIAL_HEX && (s->size[2] != 1 || s->chunk[2] != 1))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "world shape: an axial-hex world needs size z = 1 and chunk z = 1 "
                       "(got %u and %u)",
                       s->size[2], s->chunk[2]);
    return OP_OK;
}

int op_topo_shape_contains(const op_world_shape *s, op_coord3 c)
{
    return c.x >= 0 && c.y >= 0 && c.z >= 0 && (uint32_t)c.x < s->size[0] &&
           (uint32_t)c.y < s->size[1] && (uint32_t)c.z < s->size[2];
}

int op_topo_same_shape(const op_world_shape *a, const op_world_shape *b)
{
    for (int i = 0; i < 3; i++)
        if (a->size[i] != b->size[i] || a->chunk[i] != b->chunk[i])
            return 0;
    return a->lattice == b->lattice;
}

int op_world_contains(const op_world_shape *s, op_coord3 c)
{
    return s && op_topo_shape_contains(s, c);
}

static op_status world_init(op_ctx *ctx, op_world *w, const op_world_shape *shape,
                            op_residency residency)
{
    if (!w)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_init: NULL world");
    memset(w, 0, sizeof *w);
    w->alloc = ctx ? ctx->alloc : (op_allocator){0};
    op_status st = op_world_shape_validate(ctx, shape);
    if (st != OP_OK)
        return st;
    w->shape = *shape;
    op_topo_chunk_grid(shape, w->chunks);
    w->chunk_count = w->chunks[0] * w->chunks[1] * w->chunks[2];
    w->chunk_tiles = shape->chunk[0] * shape->chunk[1] * shape->chunk[2];
    w->residency = residency;
    w->topology_version = op_ctx_calloc(ctx, w->chunk_count, sizeof *w->topology_version,
                                        "chunk topology versions");
    w->topology_dirty = w->topology_version
                            ? op_ctx_calloc(ctx, w->chunk_count, 1, "chunk dirty flags")
                            : NULL;
    if (!w->topology_dirty) {
        op_world_free(w);
        return OP_NO_MEMORY;
    }
    if (residency == OP_RESIDENCY_SPARSE) {
        /* Per-chunk residency flags and generations (residency.c); nothing resident. */
        w->resident = op_ctx_calloc(ctx, w->chunk_count, 1, "chunk residency flags");
        w->residency_generation =
            w->resident ? op_ctx_calloc(ctx, w->chunk_count, sizeof *w->residency_generation,
                                        "chunk residency generations")
                        : NULL;
        if (!w->residency_generation) {
            op_world_free(w);
            return OP_NO_MEMORY;
        }
        w->resident_count = 0;
    } else {
        w->resident_count = w->chunk_count;
    }
    return OP_OK;
}

op_status op_world_init(op_ctx *ctx, op_world *w, const op_world_shape *shape)
{
    return world_init(ctx, w, shape, OP_RESIDENCY_DENSE);
}

op_status op_world_init_sparse(op_ctx *ctx, op_world *w, const op_world_shape *shape)
{
    return world_init(ctx, w, shape, OP_RESIDENCY_SPARSE);
}

void op_world_free(op_world *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->field_count; i++) {
        if (!w->fields[i].block && w->fields[i].pages) /* sparse: a page per resident chunk */
            for (uint32_t k = 0; k < w->chunk_count; k++)
                op_mem_free(&w->alloc, w->fields[i].pages[k]);
        op_mem_free(&w->alloc, w->fields[i].block);
        op_mem_free(&w->alloc, w->fields[i].pages);
    }
    op_mem_free(&w->alloc, w->topology_version);
    op_mem_free(&w->alloc, w->topology_dirty);
    op_mem_free(&w->alloc, w->resident);
    op_mem_free(&w->alloc, w->residency_generation);
    op_allocator a = w->alloc;
    memset(w, 0, sizeof *w);
    w->alloc = a;
}

static uint32_t field_size(op_field_type t)
{
    switch (t) {
    case OP_FIELD_U8:
    case OP_FIELD_I8: return 1;
    case OP_FIELD_U16:
    case OP_FIELD_I16: return 2;
    case OP_FIELD_U32:
    case OP_FIELD_I32: return 4;
    }
    return 0;
}

const op_world_field *op_world_find_field(const op_world *w, uint32_t id)
{
    if (!w)
        return NULL;
    for (uint32_t i = 0; i < w->field_count; i++)
        if (w->fields[i].id == id)
            return &w->fields[i];
    return NULL;
}

op_status op_world_add_field(op_ctx *ctx, op_world *w, uint32_t id, op_field_type type)
{
    if (!w || !w->topology_version)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_add_field: world not initialised");
    uint32_t es = field_size(type);
    if (!es)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "field %u: unknown type %d", id, (int)type);
    if (op_world_find_field(w, id))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "field %u: already registered", id);
    if (w->field_count == OP_WORLD_MAX_FIELDS)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "field %u: a world holds at most %d fields", id,
                       OP_WORLD_MAX_FIELDS);
    size_t per_chunk = (size_t)w->chunk_tiles * es;
    if (w->residency == OP_RESIDENCY_SPARSE) {
        /* A page per resident chunk; the others get theirs when they become resident. */
        void **pages = op_ctx_calloc(ctx, w->chunk_count, sizeof *pages, "field pages");
        if (!pages)
            return OP_NO_MEMORY;
        for (uint32_t k = 0; k < w->chunk_count; k++) {
            if (!w->resident[k])
                continue;
            pages[k] = op_ctx_calloc(ctx, 1, per_chunk, "a field page");
            if (!pages[k]) {
                for (uint32_t j = 0; j < k; j++)
                    op_mem_free(&w->alloc, pages[j]);
                op_mem_free(&w->alloc, pages);
                return OP_NO_MEMORY;
            }
        }
        op_world_field *f = &w->fields[w->field_count++];
        f->id = id;
        f->type = type;
        f->elem_size = es;
        f->pages = pages;
        f->block = NULL;
        return OP_OK;
    }
    if (w->chunk_count && per_chunk > SIZE_MAX / w->chunk_count)
        return op_fail(ctx, OP_NO_MEMORY, "field %u: %u chunks of %zu bytes do not fit memory",
                       id, w->chunk_count, per_chunk);
    unsigned char *block = op_ctx_calloc(ctx, w->chunk_count, per_chunk, "field values");
    void **pages = block ? op_ctx_alloc(ctx, w->chunk_count, sizeof *pages, "field pages") : NULL;
    if (!pages) {
        op_mem_free(&w->alloc, block);
        return OP_NO_MEMORY;
    }
    for (uint32_t k = 0; k < w->chunk_count; k++)
        pages[k] = block + (size_t)k * per_chunk;
    op_world_field *f = &w->fields[w->field_count++];
    f->id = id;
    f->type = type;
    f->elem_size = es;
    f->pages = pages;
    f->block = block;
    return OP_OK;
}

void *op_world_page(op_world *w, uint32_t field_id, op_chunk_key chunk)
{
    const op_world_field *f = op_world_find_field(w, field_id);
    if (!f || chunk >= w->chunk_count)
        return NULL;
    return f->pages[chunk]; /* NULL for a chunk that is not resident */
}

const void *op_world_page_const(const op_world *w, uint32_t field_id, op_chunk_key chunk)
{
    const op_world_field *f = op_world_find_field(w, field_id);
    if (!f || chunk >= w->chunk_count)
        return NULL;
    return f->pages[chunk];
}

int64_t op_topo_field_value(const op_world_field *f, op_chunk_key chunk, uint32_t local)
{
    const void *p = f->pages[chunk];
    switch (f->type) {
    case OP_FIELD_U8: return ((const uint8_t *)p)[local];
    case OP_FIELD_U16: return ((const uint16_t *)p)[local];
    case OP_FIELD_U32: return ((const uint32_t *)p)[local];
    case OP_FIELD_I8: return ((const int8_t *)p)[local];
    case OP_FIELD_I16: return ((const int16_t *)p)[local];
    case OP_FIELD_I32: return ((const int32_t *)p)[local];
    }
    return 0;
}

static int value_fits(op_field_type t, int64_t v)
{
    switch (t) {
    case OP_FIELD_U8: return v >= 0 && v <= UINT8_MAX;
    case OP_FIELD_U16: return v >= 0 && v <= UINT16_MAX;
    case OP_FIELD_U32: return v >= 0 && v <= UINT32_MAX;
    case OP_FIELD_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case OP_FIELD_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case OP_FIELD_I32: return v >= INT32_MIN && v <= INT32_MAX;
    }
    return 0;
}

static void store(const op_world_field *f, op_chunk_key chunk, uint32_t local, int64_t v)
{
    void *p = f->pages[chunk];
    switch (f->type) {
    case OP_FIELD_U8: ((uint8_t *)p)[local] = (uint8_t)v; break;
    case OP_FIELD_U16: ((uint16_t *)p)[local] = (uint16_t)v; break;
    case OP_FIELD_U32: ((uint32_t *)p)[local] = (uint32_t)v; break;
    case OP_FIELD_I8: ((int8_t *)p)[local] = (int8_t)v; break;
    case OP_FIELD_I16: ((int16_t *)p)[local] = (int16_t)v; break;
    case OP_FIELD_I32: ((int32_t *)p)[local] = (int32_t)v; break;
    }
}

static void locate(const op_world *w, op_coord3 c, op_chunk_key *key, uint32_t *local)
{
    const uint32_t *ch = w->shape.chunk;
    uint32_t x = (uint32_t)c.x, y = (uint32_t)c.y, z = (uint32_t)c.z;
    uint32_t kx = x / ch[0], ky = y / ch[1], kz = z / ch[2];
    *key = op_topo_key(w->chunks, kx, ky, kz);
    *local = (x - kx * ch[0]) + (y - ky * ch[1]) * ch[0] + (z - kz * ch[2]) * ch[0] * ch[1];
}

static op_status checked_field(op_ctx *ctx, const op_world *w, uint32_t field_id, op_coord3 c,
                               const op_world_field **f, const char *what)
{
    if (!w || !w->topology_version)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: world not initialised", what);
    *f = op_world_find_field(w, field_id);
    if (!*f)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: no field %u", what, field_id);
    if (!op_topo_shape_contains(&w->shape, c))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: (%d, %d, %d) is outside the %u x %u x %u world",
                       what, c.x, c.y, c.z, w->shape.size[0], w->shape.size[1], w->shape.size[2]);
    op_chunk_key key;
    uint32_t local;
    locate(w, c, &key, &local);
    if (!(*f)->pages[key])
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: (%d, %d, %d) lies in chunk %u, which is not resident",
                       what, c.x, c.y, c.z, key);
    return OP_OK;
}

op_status op_world_set(op_ctx *ctx, op_world *w, uint32_t field_id, op_coord3 c, int64_t value)
{
    const op_world_field *f;
    op_status st = checked_field(ctx, w, field_id, c, &f, "op_world_set");
    if (st != OP_OK)
        return st;
    if (!value_fits(f->type, value))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_set: %lld does not fit field %u",
                       (long long)value, field_id);
    op_chunk_key key;
    uint32_t local;
    locate(w, c, &key, &local);
    store(f, key, local, value);
    return OP_OK;
}

op_status op_world_get(op_ctx *ctx, const op_world *w, uint32_t field_id, op_coord3 c,
                       int64_t *value)
{
    const op_world_field *f;
    op_status st = checked_field(ctx, w, field_id, c, &f, "op_world_get");
    if (st != OP_OK)
        return st;
    if (!value)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_get: NULL output");
    op_chunk_key key;
    uint32_t local;
    locate(w, c, &key, &local);
    *value = op_topo_field_value(f, key, local);
    return OP_OK;
}

op_status op_world_fill(op_ctx *ctx, op_world *w, uint32_t field_id, int64_t value)
{
    if (!w || !w->topology_version)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_fill: world not initialised");
    const op_world_field *f = op_world_find_field(w, field_id);
    if (!f)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_fill: no field %u", field_id);
    if (!value_fits(f->type, value))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_world_fill: %lld does not fit field %u",
                       (long long)value, field_id);
    /* Every tile of every chunk, out-of-world tiles of partial chunks included: they are
     * impassable whatever they hold (supplement §10.11). */
    for (uint32_t k = 0; k < w->chunk_count; k++)
        if (f->pages[k])
            for (uint32_t t = 0; t < w->chunk_tiles; t++)
                store(f, k, t, value);
    return OP_OK;
}

op_chunk_key op_world_chunk_of(const op_world *w, op_coord3 c)
{
    if (!w || !op_topo_shape_contains(&w->shape, c))
        return OP_INVALID_CHUNK;
    op_chunk_key key;
    uint32_t local;
    locate(w, c, &key, &local);
    return key;
}

int op_world_chunk_coord(const op_world *w, op_chunk_key key, uint32_t out[3])
{
    if (!w || key >= w->chunk_count)
        return 0;
    op_topo_key_coord(w->chunks, key, out);
    return 1;
}

op_coord3 op_world_chunk_origin(const op_world *w, op_chunk_key key)
{
    uint32_t k[3];
    if (!op_world_chunk_coord(w, key, k))
        return (op_coord3){0, 0, 0};
    return (op_coord3){(int32_t)(k[0] * w->shape.chunk[0]), (int32_t)(k[1] * w->shape.chunk[1]),
                       (int32_t)(k[2] * w->shape.chunk[2])};
}

op_status op_world_mark_topology_dirty(op_ctx *ctx, op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "mark_topology_dirty: chunk %u outside the grid",
                       key);
    w->topology_version[key]++;
    w->topology_dirty[key] = 1;
    return OP_OK;
}

op_status op_world_mark_topology_rebuilt(op_ctx *ctx, op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "mark_topology_rebuilt: chunk %u outside the grid", key);
    w->topology_version[key]++;
    w->topology_dirty[key] = 0;
    return OP_OK;
}

uint64_t op_world_topology_version(const op_world *w, op_chunk_key key)
{
    if (!w || !w->topology_version || key >= w->chunk_count)
        return 0;
    return w->topology_version[key];
}
