/* OPBAKE1 reader (supplement §4 "Bake output"; docs/formats.md). Trusts nothing: every
 * length and count is checked against the bytes present before anything is allocated,
 * every section's checksum and every stored digest is recomputed, and a failure names
 * the offset and the reason. */
#include "onepath/opbake.h"
#include "onepath/digest.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/section_reader.h"
#include "io/io_internal.h"
#include "io/opbake_internal.h"
#include "parallel/parallel_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct world_info {
    uint32_t version;
    unsigned flags;
    uint64_t digest;
} world_info;

/* Every tile needs a section: refuse a count the remaining bytes cannot hold before
 * allocating the tiles. */
static op_status check_room(op_section_reader *r, size_t at, uint32_t tiles)
{
    const uint64_t min_tile = OP_SECTION_HEAD + TILE_FIXED + 12 + OP_SECTION_TAIL;
    if ((uint64_t)tiles * min_tile > r->len - r->end)
        return op_sr_fail(r, at, "truncated: %u tiles need at least %llu more bytes, %zu left", tiles,
                   (unsigned long long)tiles * min_tile, r->len - r->end);
    return OP_OK;
}

static op_status read_world(op_section_reader *r, op_tiled_result *out, world_info *wi)
{
    size_t at;
    if (op_sr_open(r, TAG_WRLD, "WRLD", 1, &at) != OP_OK)
        return r->st;
    const size_t p0 = r->pos;
    const uint32_t size = wi->version == 1 ? WRLD_SIZE_V1 : WRLD_SIZE;
    if (r->end - r->pos != size)
        return op_sr_fail(r, at + 8, "WRLD section is %zu bytes, expected %u", r->end - r->pos, size);
    out->world_width = op_sr_u32(r, "world_width");
    out->world_depth = op_sr_u32(r, "world_depth");
    out->tile_size = op_sr_u32(r, "tile_size");
    out->border_size = op_sr_u32(r, "border_size");
    out->tiles_x = op_sr_u32(r, "tiles_x");
    out->tiles_z = op_sr_u32(r, "tiles_z");
    const uint32_t reached = op_sr_u32(r, "stage");
    wi->flags = op_sr_u32(r, "flags");
    for (int i = 0; i < 3; i++)
        out->bmin[i] = op_sr_f32(r, "bmin");
    for (int i = 0; i < 3; i++)
        out->bmax[i] = op_sr_f32(r, "bmax");
    out->cs = op_sr_f32(r, "cs");
    out->ch = op_sr_f32(r, "ch");
    out->walkable_height = (int32_t)op_sr_u32(r, "walkable_height");
    out->walkable_climb = (int32_t)op_sr_u32(r, "walkable_climb");
    out->walkable_radius = (int32_t)op_sr_u32(r, "walkable_radius");
    const uint32_t partition = op_sr_u32(r, "partition");
    wi->digest = op_sr_u64(r, "digest");
    if (wi->version >= 2) {
        out->digest_world = op_sr_u64(r, "world digest");
        out->digest_settings = op_sr_u64(r, "settings digest");
    }
    if (r->st != OP_OK)
        return r->st;
    const uint64_t cells = (uint64_t)out->world_width * out->world_depth;
    if (out->world_width == 0 || out->world_depth == 0 || cells > OP_MAX_GRID_CELLS)
        return op_sr_fail(r, p0, "world of %u x %u cells (need 1..%u cells)", out->world_width,
                   out->world_depth, OP_MAX_GRID_CELLS);
    if (out->tile_size == 0 || out->tile_size > 65536)
        return op_sr_fail(r, p0 + 8, "tile_size %u outside 1..65536", out->tile_size);
    if (out->border_size > 65536)
        return op_sr_fail(r, p0 + 12, "border_size %u above 65536", out->border_size);
    const uint64_t side = (uint64_t)out->tile_size + 2ull * out->border_size;
    if (side * side > OP_MAX_GRID_CELLS)
        return op_sr_fail(r, p0 + 8, "tile window of %llu cells per side is too large",
                   (unsigned long long)side);
    if (out->tiles_x != op_tiles_along(out->world_width, out->tile_size) ||
        out->tiles_z != op_tiles_along(out->world_depth, out->tile_size))
        return op_sr_fail(r, p0 + 16, "%u x %u tiles do not cover a %u x %u world with tile_size %u",
                   out->tiles_x, out->tiles_z, out->world_width, out->world_depth,
                   out->tile_size);
    if (reached < OP_STAGE_SPANS || reached > OP_STAGE_CONTOURS)
        return op_sr_fail(r, p0 + 24, "unknown stage %u", reached);
    out->reached = (op_stage)reached;
    if (wi->flags & ~(wi->version == 1 ? OPBAKE_V1_FLAGS : OPBAKE_FILE_FLAGS))
        return op_sr_fail(r, p0 + 28, "unknown flags 0x%x", wi->flags);
    if ((wi->flags & OP_OPBAKE_PART) && wi->digest != 0)
        return op_sr_fail(r, p0 + WRLD_DIGEST_AT, "a partial file with a build3d/tiles digest");
    if ((wi->flags & OP_OPBAKE_REGIONS) && reached < OP_STAGE_REGIONS)
        return op_sr_fail(r, p0 + 28, "region ids flagged, but the bake stopped after spans");
    for (int i = 0; i < 3; i++)
        if (!isfinite(out->bmin[i]) || !isfinite(out->bmax[i]) || out->bmin[i] > out->bmax[i])
            return op_sr_fail(r, p0 + 32, "bounds not finite or bmin > bmax");
    if (!isfinite(out->cs) || out->cs <= 0 || !isfinite(out->ch) || out->ch <= 0)
        return op_sr_fail(r, p0 + 56, "cs %g and ch %g must be finite and > 0", out->cs, out->ch);
    if (out->walkable_height < 1 || out->walkable_climb < 0 || out->walkable_radius < 0)
        return op_sr_fail(r, p0 + 64, "walkable settings out of range");
    if (partition > (uint32_t)OP_PARTITION_LAYERS)
        return op_sr_fail(r, p0 + 76, "unknown partition %u", partition);
    out->partition = (op_partition)partition;
    out->tile_count = out->tiles_x * out->tiles_z; /* <= cells <= 2^31 */
    if (op_sr_close(r) != OP_OK)
        return r->st;
    return (wi->flags & OP_OPBAKE_PART) ? OP_OK : check_room(r, p0 + 16, out->tile_count);
}

/* PART: the held tiles as runs (first, count), increasing, apart, inside the grid. */
static op_status read_part(op_section_reader *r, op_tiled_result *out)
{
    size_t at;
    if (op_sr_open(r, TAG_PART, "PART", 1, &at) != OP_OK)
        return r->st;
    const size_t p0 = r->pos;
    const uint32_t held = op_sr_u32(r, "held tile count");
    const uint32_t runs = op_sr_u32(r, "run count");
    if (r->st != OP_OK)
        return r->st;
    if ((uint64_t)runs * 8 != r->end - r->pos)
        return op_sr_fail(r, p0 + 4, "PART section: %u runs need %llu bytes, it has %zu", runs,
                   (unsigned long long)runs * 8, r->end - r->pos);
    if (held > out->tile_count)
        return op_sr_fail(r, p0, "PART section: %u tiles held of %u", held, out->tile_count);
    out->held = op_ctx_calloc(r->ctx, out->tile_count, 1, "held tiles of a bake file");
    if (!out->held)
        return r->st = OP_NO_MEMORY;
    uint64_t sum = 0, end = 0;
    for (uint32_t i = 0; i < runs; i++) {
        const size_t rat = r->pos;
        const uint32_t first = op_sr_u32(r, "run start");
        const uint32_t count = op_sr_u32(r, "run length");
        if (r->st != OP_OK)
            return r->st;
        if (count == 0)
            return op_sr_fail(r, rat + 4, "PART section: run %u is empty", i);
        if (i > 0 && first <= end)
            return op_sr_fail(r, rat, "PART section: run %u starts at tile %u, not after the previous "
                               "run's end (%llu)",
                       i, first, (unsigned long long)end);
        if ((uint64_t)first + count > out->tile_count)
            return op_sr_fail(r, rat, "PART section: run %u (tiles %u..%llu) leaves the %u tiles", i,
                       first, (unsigned long long)first + count - 1, out->tile_count);
        memset(out->held + first, 1, count);
        sum += count;
        end = (uint64_t)first + count;
    }
    if (sum != held)
        return op_sr_fail(r, p0, "PART section: %u tiles held, the runs hold %llu", held,
                   (unsigned long long)sum);
    out->held_count = held;
    if (op_sr_close(r) != OP_OK)
        return r->st;
    return check_room(r, p0, held);
}

/* Vertices into the set's growing storage; the contours refer to them by offset until
 * the storage stops moving (see fix_pointers). */
typedef struct vstore {
    op_contour_vert *v;
    size_t n, cap;
    uint32_t *sz;
    size_t nsz, capsz;
} vstore;

static int vstore_reserve(op_section_reader *r, vstore *vs, size_t more)
{
    if (vs->cap - vs->n >= more)
        return 1;
    size_t ncap = vs->cap ? vs->cap : 256;
    while (ncap - vs->n < more)
        ncap *= 2;
    op_contour_vert *q = op_mem_realloc(op_ctx_allocator(r->ctx), vs->v, ncap * sizeof *q);
    if (!q) {
        r->st = op_fail(r->ctx, OP_NO_MEMORY, "OPBAKE1: out of memory for %zu vertices", ncap);
        return 0;
    }
    vs->v = q;
    vs->cap = ncap;
    return 1;
}

/* n vertices of the payload (checked against what is left first). */
static size_t get_verts(op_section_reader *r, vstore *vs, uint32_t n, uint32_t region_count,
                        const char *field)
{
    if (r->st != OP_OK)
        return 0;
    if ((uint64_t)n * VERT_SIZE > r->end - r->pos) {
        op_sr_fail(r, r->pos, "%s section ends inside %s: %u vertices need %llu bytes, %zu left",
            r->what, field, n, (unsigned long long)n * VERT_SIZE, r->end - r->pos);
        return 0;
    }
    if (!vstore_reserve(r, vs, n))
        return 0;
    const size_t first = vs->n;
    for (uint32_t i = 0; i < n; i++) {
        const size_t at = r->pos;
        const unsigned char *p = op_sr_take(r, VERT_SIZE, field);
        op_contour_vert *v = &vs->v[vs->n++];
        v->x = (int32_t)op_le_get32(p);
        v->y = (int32_t)op_le_get32(p + 4);
        v->z = (int32_t)op_le_get32(p + 8);
        v->neighbour = op_le_get32(p + 12);
        if (v->neighbour > region_count && v->neighbour != OP_BORDER_REGION &&
            v->neighbour != OP_TILE_BORDER) {
            op_sr_fail(r, at + 12, "%s: neighbour %u is no region of the tile (1..%u), wall, "
                            "TileBorder or BorderRegion",
                field, v->neighbour, region_count);
            return 0;
        }
    }
    return first;
}

static op_status read_contours(op_section_reader *r, op_tile *t, unsigned flags)
{
    op_contour_set *cs = &t->contours;
    cs->alloc = *op_ctx_allocator(r->ctx);
    const size_t at = r->pos;
    cs->count = op_sr_u32(r, "contour count");
    cs->raw_fallbacks = op_sr_u32(r, "raw_fallbacks");
    cs->dropped_holes = op_sr_u32(r, "dropped_holes");
    if (r->st != OP_OK)
        return r->st;
    if ((uint64_t)cs->count * (CONTOUR_FIXED + 3 * VERT_SIZE) > r->end - r->pos)
        return op_sr_fail(r, at, "%u contours cannot fit in the %zu bytes left of the section",
                   cs->count, r->end - r->pos);
    if (cs->count == 0)
        return OP_OK;
    cs->contours = op_ctx_calloc(r->ctx, cs->count, sizeof *cs->contours, "contours of a tile");
    if (!cs->contours)
        return r->st = OP_NO_MEMORY;
    vstore vs;
    memset(&vs, 0, sizeof vs);
    /* Offsets into vs while it grows; pointers once it is complete. */
    size_t *off = op_ctx_alloc(r->ctx, (size_t)cs->count * 4, sizeof *off, "contour offsets");
    if (!off)
        return r->st = OP_NO_MEMORY;
    for (uint32_t i = 0; i < cs->count && r->st == OP_OK; i++) {
        op_contour *c = &cs->contours[i];
        const size_t cat = r->pos;
        c->region = op_sr_u32(r, "contour region");
        c->area = op_sr_u8(r, "contour area");
        c->flags = op_sr_u32(r, "contour flags");
        c->hole_count = op_sr_u32(r, "contour hole count");
        c->vert_count = op_sr_u32(r, "contour vertex count");
        if (r->st != OP_OK)
            break;
        if (c->region == 0 || c->region > t->region_count) {
            op_sr_fail(r, cat, "contour %u: region %u outside 1..%u", i, c->region, t->region_count);
            break;
        }
        if (c->vert_count < 3) {
            op_sr_fail(r, cat + 13, "contour %u has %u vertices (at least 3)", i, c->vert_count);
            break;
        }
        off[4 * i] = get_verts(r, &vs, c->vert_count, t->region_count, "contour vertices");
        if (!(flags & OP_OPBAKE_RAW))
            continue;
        c->raw_count = op_sr_u32(r, "raw outline size");
        off[4 * i + 1] = get_verts(r, &vs, c->raw_count, t->region_count, "raw outline");
        const size_t hat = r->pos;
        c->raw_hole_count = op_sr_u32(r, "raw hole count");
        if (r->st != OP_OK)
            break;
        if ((uint64_t)c->raw_hole_count * 4 > r->end - r->pos) {
            op_sr_fail(r, hat, "contour %u: %u raw holes cannot fit", i, c->raw_hole_count);
            break;
        }
        if (vs.capsz - vs.nsz < c->raw_hole_count) {
            size_t ncap = vs.capsz ? vs.capsz : 64;
            while (ncap - vs.nsz < c->raw_hole_count)
                ncap *= 2;
            uint32_t *q = op_mem_realloc(op_ctx_allocator(r->ctx), vs.sz, ncap * sizeof *q);
            if (!q) {
                r->st = op_fail(r->ctx, OP_NO_MEMORY, "OPBAKE1: out of memory for hole sizes");
                break;
            }
            vs.sz = q;
            vs.capsz = ncap;
        }
        off[4 * i + 2] = vs.nsz;
        uint64_t hv = 0;
        for (uint32_t h = 0; h < c->raw_hole_count; h++) {
            const uint32_t n = op_sr_u32(r, "raw hole size");
            vs.sz[vs.nsz++] = n;
            hv += n;
        }
        if (r->st != OP_OK)
            break;
        if (hv > UINT32_MAX) {
            op_sr_fail(r, hat, "contour %u: raw holes hold %llu vertices", i, (unsigned long long)hv);
            break;
        }
        off[4 * i + 3] = get_verts(r, &vs, (uint32_t)hv, t->region_count, "raw hole vertices");
    }
    if (r->st == OP_OK) {
        for (uint32_t i = 0; i < cs->count; i++) {
            op_contour *c = &cs->contours[i];
            c->verts = vs.v + off[4 * i];
            if (flags & OP_OPBAKE_RAW) {
                c->raw = vs.v + off[4 * i + 1];
                c->raw_hole_sizes = c->raw_hole_count ? vs.sz + off[4 * i + 2] : NULL;
                c->raw_holes = vs.v + off[4 * i + 3];
            }
        }
    }
    cs->vert_storage = vs.v;
    cs->vert_storage_count = vs.n;
    cs->size_storage = vs.sz;
    cs->size_storage_count = vs.nsz;
    op_mem_free(op_ctx_allocator(r->ctx), off);
    return r->st;
}

static op_status read_regions(op_section_reader *r, const op_tiled_result *out, op_tile *t)
{
    const size_t at = r->pos;
    const uint32_t cells = op_sr_u32(r, "cell count");
    if (r->st != OP_OK)
        return r->st;
    const uint64_t side = (uint64_t)out->tile_size + 2ull * out->border_size;
    if (cells != side * side)
        return op_sr_fail(r, at, "tile (%u, %u): %u cells, the window has %llu", t->tx, t->tz, cells,
                   (unsigned long long)(side * side));
    if (((uint64_t)cells + t->span_count) * 4 > r->end - r->pos)
        return op_sr_fail(r, at, "tile (%u, %u): %u cells and %u region ids cannot fit in the %zu "
                          "bytes left",
                   t->tx, t->tz, cells, t->span_count, r->end - r->pos);
    t->cell_count = op_ctx_alloc(r->ctx, cells, sizeof *t->cell_count, "cell counts of a tile");
    t->region = op_ctx_alloc(r->ctx, t->span_count ? t->span_count : 1, sizeof *t->region,
                             "region ids of a tile");
    if (!t->cell_count || !t->region)
        return r->st = OP_NO_MEMORY;
    uint64_t sum = 0;
    for (uint32_t c = 0; c < cells; c++)
        sum += t->cell_count[c] = op_sr_u32(r, "cell count");
    if (sum != t->span_count)
        return op_sr_fail(r, at + 4, "tile (%u, %u): cells hold %llu spans, the tile has %u", t->tx,
                   t->tz, (unsigned long long)sum, t->span_count);
    for (uint32_t s = 0; s < t->span_count; s++) {
        const size_t sat = r->pos;
        const uint32_t id = t->region[s] = op_sr_u32(r, "region id");
        if (id > t->region_count && id != OP_BORDER_REGION)
            return op_sr_fail(r, sat, "tile (%u, %u): span %u has region %u outside 0..%u and not "
                               "BorderRegion",
                       t->tx, t->tz, s, id, t->region_count);
    }
    if (op_digest_regions(t->region, t->span_count, t->region_count) != t->digest_regions)
        return op_sr_fail(r, at, "tile (%u, %u): the region ids do not match the tile's regions digest",
                   t->tx, t->tz);
    return OP_OK;
}

static op_status read_tile(op_section_reader *r, const op_tiled_result *out, op_tile *t, uint32_t index,
                           unsigned flags)
{
    size_t at;
    if (op_sr_open(r, TAG_TILE, "TILE", 1, &at) != OP_OK)
        return r->st;
    const size_t p0 = r->pos;
    t->tx = op_sr_u32(r, "tx");
    t->tz = op_sr_u32(r, "tz");
    t->triangles = op_sr_u32(r, "triangles");
    t->solid_spans = op_sr_u64(r, "solid_spans");
    t->span_count = op_sr_u32(r, "span_count");
    t->owned_spans = op_sr_u32(r, "owned_spans");
    t->walkable_spans = op_sr_u32(r, "walkable_spans");
    t->max_dist = op_sr_u32(r, "max_dist");
    t->region_count = op_sr_u32(r, "region_count");
    t->digest_spans = op_sr_u64(r, "spans digest");
    t->digest_owned = op_sr_u64(r, "owned digest");
    t->digest_distance = op_sr_u64(r, "distance digest");
    t->digest_regions = op_sr_u64(r, "regions digest");
    t->digest_contours = op_sr_u64(r, "contours digest");
    if (r->st != OP_OK)
        return r->st;
    if (t->tx != index % out->tiles_x || t->tz != index / out->tiles_x)
        return op_sr_fail(r, p0, "tile %u is (%u, %u), expected (%u, %u) in (tz, tx) order", index,
                   t->tx, t->tz, index % out->tiles_x, index / out->tiles_x);
    t->x0 = (int32_t)((int64_t)t->tx * out->tile_size - out->border_size);
    t->z0 = (int32_t)((int64_t)t->tz * out->tile_size - out->border_size);
    if (t->owned_spans > t->span_count || t->walkable_spans > t->span_count ||
        t->region_count > OP_MAX_REGION_ID)
        return op_sr_fail(r, p0 + 24, "tile (%u, %u): owned or walkable spans or region count out of "
                               "range",
                   t->tx, t->tz);
    if (out->reached < OP_STAGE_REGIONS && (t->region_count || t->digest_regions))
        return op_sr_fail(r, p0 + 36, "tile (%u, %u): regions in a bake that stopped after spans",
                   t->tx, t->tz);
    if (read_contours(r, t, flags) != OP_OK)
        return r->st;
    if (out->reached < OP_STAGE_CONTOURS && t->contours.count)
        return op_sr_fail(r, p0 + TILE_FIXED, "tile (%u, %u): contours in a bake that stopped before "
                                       "contours",
                   t->tx, t->tz);
    if (out->reached >= OP_STAGE_CONTOURS &&
        op_digest_contours(&t->contours) != t->digest_contours)
        return op_sr_fail(r, p0 + TILE_FIXED, "tile (%u, %u): the contours do not match the tile's "
                                       "contours digest",
                   t->tx, t->tz);
    for (uint32_t i = 0; i < t->contours.count; i++)
        t->contour_verts += t->contours.contours[i].vert_count;
    if ((flags & OP_OPBAKE_REGIONS) && read_regions(r, out, t) != OP_OK)
        return r->st;
    return op_sr_close(r);
}

op_status op_opbake_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                           op_tiled_result *out, unsigned *flags_out)
{
    memset(out, 0, sizeof *out);
    if (flags_out)
        *flags_out = 0;
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    out->alloc = *op_ctx_allocator(ctx);
    op_section_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.buf = buf;
    r.len = len;
    r.what = "header";
    if (len < OPBAKE_HEADER_SIZE)
        return op_sr_fail(&r, 0, "truncated: %zu bytes, the header alone is %u", len, OPBAKE_HEADER_SIZE);
    if (memcmp(buf, OPBAKE_MAGIC, 8) != 0)
        return op_sr_fail(&r, 0, "not an OPBAKE1 file (bad magic)");
    const uint32_t version = op_le_get32(buf + 8);
    if (version != 1 && version != OP_OPBAKE_VERSION)
        return op_fail(ctx, OP_UNSUPPORTED,
                       "offset 8: OPBAKE1 version %u, this build reads 1 and %u", version,
                       OP_OPBAKE_VERSION);
    if (op_le_get32(buf + 12) != 0)
        return op_sr_fail(&r, 12, "reserved header field is not 0");
    r.end = OPBAKE_HEADER_SIZE;
    world_info wi = {version, 0, 0};
    op_status st = read_world(&r, out, &wi);
    if (st == OP_OK && (wi.flags & OP_OPBAKE_PART))
        st = read_part(&r, out);
    if (st == OP_OK) {
        out->tiles = op_ctx_calloc(ctx, out->tile_count, sizeof *out->tiles, "tiles of a bake file");
        st = out->tiles ? OP_OK : OP_NO_MEMORY;
    }
    const unsigned tflags = wi.flags & ~OP_OPBAKE_PART;
    for (uint32_t i = 0; st == OP_OK && i < out->tile_count; i++) {
        op_tile *t = &out->tiles[i];
        if (out->held && !out->held[i]) { /* not in this part: coordinates only */
            t->tx = i % out->tiles_x;
            t->tz = i / out->tiles_x;
            t->x0 = (int32_t)((int64_t)t->tx * out->tile_size - out->border_size);
            t->z0 = (int32_t)((int64_t)t->tz * out->tile_size - out->border_size);
            continue;
        }
        st = read_tile(&r, out, t, i, tflags);
    }
    size_t at = 0;
    const uint32_t in_file = out->held ? out->held_count : out->tile_count;
    if (st == OP_OK && op_sr_open(&r, TAG_ENDS, "ENDS", 1, &at) == OP_OK) {
        const uint32_t n = op_sr_u32(&r, "tile count");
        const uint64_t d = op_sr_u64(&r, "digest");
        if (r.st == OP_OK && (n != in_file || d != wi.digest))
            op_sr_fail(&r, at + OP_SECTION_HEAD, "ENDS section disagrees with WRLD (tiles %u vs %u)", n,
                in_file);
        if (op_sr_close(&r) == OP_OK && r.end != len)
            op_sr_fail(&r, r.end, "%zu extra bytes after the ENDS section", len - r.end);
    }
    if (st == OP_OK)
        st = r.st;
    if (st == OP_OK) {
        op_tiles_assemble(out);
        if (out->digest != wi.digest)
            st = op_sr_fail(&r, OPBAKE_HEADER_SIZE + OP_SECTION_HEAD + WRLD_DIGEST_AT,
                     "build3d/tiles digest %016llx stored, the tiles give %016llx",
                     (unsigned long long)wi.digest, (unsigned long long)out->digest);
    }
    if (st != OP_OK) {
        op_tiled_result_free(out);
        return st;
    }
    if (flags_out)
        *flags_out = wi.flags | (version == 1 ? OP_OPBAKE_VERSION1 : 0);
    return OP_OK;
}

op_status op_opbake_read(op_ctx *ctx, const char *path, op_tiled_result *out, unsigned *flags)
{
    memset(out, 0, sizeof *out);
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_opbake_decode(ctx, buf, len, out, flags);
    op_free(ctx, buf);
    return op_io_prefix_path(ctx, st, path);
}

op_status op_opbake_decode_tile(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                                const unsigned char *buf, size_t len, uint32_t index,
                                op_tile *t)
{
    memset(t, 0, sizeof *t);
    op_section_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.buf = buf;
    r.len = len;
    r.what = "TILE";
    if (index >= world->tile_count)
        return op_sr_fail(&r, 0, "tile %u of %u", index, world->tile_count);
    op_status st = read_tile(&r, world, t, index, flags & ~OP_OPBAKE_PART);
    if (st == OP_OK && r.end != len)
        st = op_sr_fail(&r, r.end, "%zu extra bytes after the TILE section", len - r.end);
    if (st != OP_OK)
        op_tile_free(t, op_ctx_allocator(ctx));
    return st;
}
