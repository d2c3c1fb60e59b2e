/* OPBAKE1 writer (supplement §4 "Bake output"; docs/formats.md): written byte by byte in
 * little-endian, section by section, each closed by the XXH3-64 of its bytes; into a
 * buffer, or to a file through a temporary renamed at the end, one section in memory at
 * a time. The streaming writer (op_opbake_writer) takes tiles one by one, encoded here or
 * as sections encoded elsewhere, and fills in the build3d/tiles digest at the end. */
#include "onepath/opbake.h"
#include "onepath/digest.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/io_internal.h"
#include "io/opbake_internal.h"
#include "parallel/parallel_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sink {
    op_ctx *ctx;
    FILE *f;                     /* NULL: into mem */
    const char *path;
    unsigned char *mem;
    size_t mem_len, mem_cap;
    unsigned char *sec;          /* the section being built, header included */
    size_t sec_len, sec_cap;
    op_status st;
} sink;

static int grow(sink *k, unsigned char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 1;
    size_t ncap = *cap ? *cap : 4096;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    unsigned char *q = op_mem_realloc(op_ctx_allocator(k->ctx), *p, ncap);
    if (!q) {
        k->st = op_fail(k->ctx, OP_NO_MEMORY, "OPBAKE1: out of memory for %zu bytes", ncap);
        return 0;
    }
    *p = q;
    *cap = ncap;
    return 1;
}

static unsigned char *put(sink *k, size_t n)
{
    if (k->st != OP_OK || !grow(k, &k->sec, &k->sec_cap, k->sec_len + n))
        return NULL;
    unsigned char *p = k->sec + k->sec_len;
    k->sec_len += n;
    return p;
}

static void put_u8(sink *k, uint8_t v)
{
    unsigned char *p = put(k, 1);
    if (p)
        *p = v;
}
static void put_u32(sink *k, uint32_t v)
{
    unsigned char *p = put(k, 4);
    if (p)
        op_le_put32(p, v);
}
static void put_u64(sink *k, uint64_t v)
{
    put_u32(k, (uint32_t)v);
    put_u32(k, (uint32_t)(v >> 32));
}
static void put_f32(sink *k, float v)
{
    unsigned char *p = put(k, 4);
    if (p)
        op_le_put_f32(p, v);
}
static void put_verts(sink *k, const op_contour_vert *v, uint32_t n)
{
    unsigned char *p = put(k, (size_t)n * VERT_SIZE);
    if (!p)
        return;
    for (uint32_t i = 0; i < n; i++, p += VERT_SIZE) {
        op_le_put32(p, (uint32_t)v[i].x);
        op_le_put32(p + 4, (uint32_t)v[i].y);
        op_le_put32(p + 8, (uint32_t)v[i].z);
        op_le_put32(p + 12, v[i].neighbour);
    }
}

static void section_begin(sink *k, uint32_t tag)
{
    k->sec_len = 0;
    put_u32(k, tag);
    put_u32(k, 0);
    put_u64(k, 0); /* length, filled in by section_end */
}

/* Fills in the length and appends the checksum. */
static void section_seal(sink *k)
{
    if (k->st != OP_OK)
        return;
    const uint64_t len = k->sec_len - OP_SECTION_HEAD;
    op_le_put32(k->sec + 8, (uint32_t)len);
    op_le_put32(k->sec + 12, (uint32_t)(len >> 32));
    put_u64(k, op_digest_bytes(k->sec, k->sec_len));
}

/* Emits the sealed section in k->sec. */
static void section_emit(sink *k)
{
    if (k->st != OP_OK)
        return;
    if (k->f) {
        if (fwrite(k->sec, 1, k->sec_len, k->f) != k->sec_len)
            k->st = op_fail(k->ctx, OP_IO_ERROR, "%s: write failed: %s", k->path, strerror(errno));
        return;
    }
    if (grow(k, &k->mem, &k->mem_cap, k->mem_len + k->sec_len)) {
        memcpy(k->mem + k->mem_len, k->sec, k->sec_len);
        k->mem_len += k->sec_len;
    }
}

static void section_end(sink *k)
{
    section_seal(k);
    section_emit(k);
}

static void emit_raw(sink *k, const unsigned char *bytes, size_t n)
{
    if (k->st != OP_OK)
        return;
    if (k->f) {
        if (fwrite(bytes, 1, n, k->f) != n)
            k->st = op_fail(k->ctx, OP_IO_ERROR, "%s: write failed: %s", k->path, strerror(errno));
    } else if (grow(k, &k->mem, &k->mem_cap, k->mem_len + n)) {
        memcpy(k->mem + k->mem_len, bytes, n);
        k->mem_len += n;
    }
}

static op_status check_flags(op_ctx *ctx, const op_tiled_result *r, unsigned flags)
{
    if (flags & ~OPBAKE_FILE_FLAGS)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPBAKE1: unknown flags 0x%x%s", flags,
                       (flags & OP_OPBAKE_VERSION1) ? " (version 1 files are read, not written)"
                                                    : "");
    if ((flags & OP_OPBAKE_PART) && !r->held)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "OPBAKE1: a partial file asked for, but the result holds every tile");
    if ((flags & OP_OPBAKE_REGIONS) && r->reached < OP_STAGE_REGIONS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "OPBAKE1: region ids asked for, but the bake stopped after %s",
                       op_stage_name(r->reached));
    if (r->tile_count == 0 || r->tiles_x == 0 ||
        r->tile_count != (uint64_t)r->tiles_x * r->tiles_z)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPBAKE1: the result has no tile grid");
    return OP_OK;
}

static op_status check_tile(op_ctx *ctx, const op_tile *t, unsigned flags)
{
    if ((flags & OP_OPBAKE_REGIONS) && (!t->region || !t->cell_count))
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "OPBAKE1: region ids asked for, but tile (%u, %u) did not keep them "
                       "(bake with keep_regions)",
                       t->tx, t->tz);
    if (flags & OP_OPBAKE_RAW)
        for (uint32_t c = 0; c < t->contours.count; c++)
            if (!t->contours.contours[c].raw)
                return op_fail(ctx, OP_INVALID_ARGUMENT,
                               "OPBAKE1: raw loops asked for, but tile (%u, %u) has none "
                               "(bake with keep_raw)",
                               t->tx, t->tz);
    return OP_OK;
}

static op_status check_writable(op_ctx *ctx, const op_tiled_result *r, unsigned flags)
{
    op_status st = check_flags(ctx, r, flags);
    if (st != OP_OK)
        return st;
    if (!r->tiles)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPBAKE1: the result holds no tiles");
    for (uint32_t i = 0; i < r->tile_count; i++) {
        if (r->held && !r->held[i])
            continue;
        st = check_tile(ctx, &r->tiles[i], flags);
        if (st != OP_OK)
            return st;
    }
    return OP_OK;
}

/* The WRLD section, sealed in k->sec (not emitted). */
static void build_world(sink *k, const op_tiled_result *r, unsigned flags)
{
    section_begin(k, TAG_WRLD);
    put_u32(k, r->world_width);
    put_u32(k, r->world_depth);
    put_u32(k, r->tile_size);
    put_u32(k, r->border_size);
    put_u32(k, r->tiles_x);
    put_u32(k, r->tiles_z);
    put_u32(k, (uint32_t)r->reached);
    put_u32(k, flags | (r->held ? OP_OPBAKE_PART : 0));
    for (int i = 0; i < 3; i++)
        put_f32(k, r->bmin[i]);
    for (int i = 0; i < 3; i++)
        put_f32(k, r->bmax[i]);
    put_f32(k, r->cs);
    put_f32(k, r->ch);
    put_u32(k, (uint32_t)r->walkable_height);
    put_u32(k, (uint32_t)r->walkable_climb);
    put_u32(k, (uint32_t)r->walkable_radius);
    put_u32(k, (uint32_t)r->partition);
    put_u64(k, r->held ? 0 : r->digest);
    put_u64(k, r->digest_world);
    put_u64(k, r->digest_settings);
    section_seal(k);
}

static void write_world(sink *k, const op_tiled_result *r, unsigned flags)
{
    build_world(k, r, flags);
    section_emit(k);
}

/* PART: the held tiles as runs of consecutive indices (docs/formats.md). */
static void write_part(sink *k, const op_tiled_result *r)
{
    uint32_t runs = 0;
    for (uint32_t i = 0; i < r->tile_count; i++)
        runs += r->held[i] && (i == 0 || !r->held[i - 1]);
    section_begin(k, TAG_PART);
    put_u32(k, r->held_count);
    put_u32(k, runs);
    for (uint32_t i = 0; i < r->tile_count; i++) {
        if (!r->held[i] || (i > 0 && r->held[i - 1]))
            continue;
        uint32_t e = i;
        while (e < r->tile_count && r->held[e])
            e++;
        put_u32(k, i);
        put_u32(k, e - i);
    }
    section_end(k);
}

static void write_tile(sink *k, const op_tiled_result *r, const op_tile *t, unsigned flags)
{
    section_begin(k, TAG_TILE);
    put_u32(k, t->tx);
    put_u32(k, t->tz);
    put_u32(k, t->triangles);
    put_u64(k, t->solid_spans);
    put_u32(k, t->span_count);
    put_u32(k, t->owned_spans);
    put_u32(k, t->walkable_spans);
    put_u32(k, t->max_dist);
    put_u32(k, t->region_count);
    put_u64(k, t->digest_spans);
    put_u64(k, t->digest_owned);
    put_u64(k, t->digest_distance);
    put_u64(k, t->digest_regions);
    put_u64(k, t->digest_contours);
    const op_contour_set *cs = &t->contours;
    put_u32(k, cs->count);
    put_u32(k, cs->raw_fallbacks);
    put_u32(k, cs->dropped_holes);
    for (uint32_t i = 0; i < cs->count; i++) {
        const op_contour *c = &cs->contours[i];
        put_u32(k, c->region);
        put_u8(k, c->area);
        put_u32(k, c->flags);
        put_u32(k, c->hole_count);
        put_u32(k, c->vert_count);
        put_verts(k, c->verts, c->vert_count);
        if (flags & OP_OPBAKE_RAW) {
            put_u32(k, c->raw_count);
            put_verts(k, c->raw, c->raw_count);
            put_u32(k, c->raw_hole_count);
            uint64_t hv = 0;
            for (uint32_t h = 0; h < c->raw_hole_count; h++) {
                put_u32(k, c->raw_hole_sizes[h]);
                hv += c->raw_hole_sizes[h];
            }
            put_verts(k, c->raw_holes, (uint32_t)hv);
        }
    }
    if ((flags & OP_OPBAKE_REGIONS)) {
        const uint32_t side = r->tile_size + 2 * r->border_size;
        const uint64_t cells = (uint64_t)side * side;
        put_u32(k, (uint32_t)cells);
        for (uint64_t c = 0; c < cells; c++)
            put_u32(k, t->cell_count[c]);
        for (uint32_t s = 0; s < t->span_count; s++)
            put_u32(k, t->region[s]);
    }
    section_end(k);
}

static void write_header(sink *k)
{
    unsigned char head[OPBAKE_HEADER_SIZE];
    memcpy(head, OPBAKE_MAGIC, 8);
    op_le_put32(head + 8, OP_OPBAKE_VERSION);
    op_le_put32(head + 12, 0);
    emit_raw(k, head, sizeof head);
}

static void write_ends(sink *k, const op_tiled_result *r)
{
    section_begin(k, TAG_ENDS);
    put_u32(k, r->held ? r->held_count : r->tile_count);
    put_u64(k, r->held ? 0 : r->digest);
    section_end(k);
}

static void write_all(sink *k, const op_tiled_result *r, unsigned flags)
{
    write_header(k);
    write_world(k, r, flags);
    if (r->held)
        write_part(k, r);
    for (uint32_t i = 0; i < r->tile_count && k->st == OP_OK; i++)
        if (!r->held || r->held[i])
            write_tile(k, r, &r->tiles[i], flags);
    write_ends(k, r);
}

op_status op_opbake_encode(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                           unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    op_status st = check_writable(ctx, r, flags);
    if (st != OP_OK)
        return st;
    flags &= ~OP_OPBAKE_PART;
    sink k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    write_all(&k, r, flags);
    op_mem_free(op_ctx_allocator(ctx), k.sec);
    if (k.st != OP_OK) {
        op_mem_free(op_ctx_allocator(ctx), k.mem);
        return k.st;
    }
    *buf = k.mem;
    *len = k.mem_len;
    return OP_OK;
}

op_status op_opbake_encode_tile(op_ctx *ctx, const op_tiled_result *r, const op_tile *t,
                                unsigned flags, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    op_status st = check_flags(ctx, r, flags & ~OP_OPBAKE_PART);
    if (st == OP_OK)
        st = check_tile(ctx, t, flags);
    if (st != OP_OK)
        return st;
    sink k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    write_tile(&k, r, t, flags & ~OP_OPBAKE_PART);
    op_mem_free(op_ctx_allocator(ctx), k.sec);
    if (k.st != OP_OK) {
        op_mem_free(op_ctx_allocator(ctx), k.mem);
        return k.st;
    }
    *buf = k.mem;
    *len = k.mem_len;
    return OP_OK;
}

/* ---- the streaming writer ------------------------------------------------------------ */

struct op_opbake_writer {
    op_ctx *ctx;
    op_allocator alloc;     /* the writer's and its arrays' */
    sink k;
    op_atomic_file af;      /* af.f is k.f; none without a path */
    op_tiled_result world;  /* the description; held (a copy) in a partial file; tiles:
                               every tile's counts and digests as it comes (no contours) */
    unsigned flags;
    uint8_t *seen;          /* per tile: 1 once it came */
    uint32_t next;          /* the next tile index to be written (with a file) */
    uint32_t expected, got; /* tiles the file holds, tiles written */
};

/* The first tile at or after i the file holds. */
static uint32_t next_held(const op_opbake_writer *w, uint32_t i)
{
    while (i < w->world.tile_count && w->world.held && !w->world.held[i])
        i++;
    return i;
}

void op_opbake_writer_abort(op_opbake_writer *w)
{
    if (!w)
        return;
    const op_allocator a = w->alloc;
    if (w->af.tmp)
        op_atomic_abort(&w->af);
    op_mem_free(&a, w->k.sec);
    op_mem_free(&a, w->seen);
    op_tiled_result_free(&w->world);
    op_mem_free(&a, w);
}

op_status op_opbake_writer_open(op_ctx *ctx, const op_tiled_result *world, unsigned flags,
                                const char *path, op_opbake_writer **out)
{
    *out = NULL;
    op_status st = check_flags(ctx, world, flags & ~OP_OPBAKE_PART);
    if (st != OP_OK)
        return st;
    op_opbake_writer *w = op_ctx_calloc(ctx, 1, sizeof *w, "bake file writer");
    if (!w)
        return OP_NO_MEMORY;
    w->ctx = ctx;
    w->alloc = *op_ctx_allocator(ctx);
    w->k.ctx = ctx;
    w->flags = flags & ~OP_OPBAKE_PART;
    w->world = *world;
    w->world.alloc = *op_ctx_allocator(ctx);
    w->world.tiles = op_ctx_calloc(ctx, world->tile_count, sizeof *w->world.tiles,
                                   "tiles of the bake file writer");
    w->world.held = NULL;
    w->world.held_count = 0;
    w->seen = op_ctx_calloc(ctx, world->tile_count, 1, "tiles seen by the bake file writer");
    if (!w->world.tiles || !w->seen) {
        op_opbake_writer_abort(w);
        return OP_NO_MEMORY;
    }
    if (world->held) {
        w->world.held = op_ctx_alloc(ctx, world->tile_count, 1, "held tiles");
        if (!w->world.held) {
            op_opbake_writer_abort(w);
            return OP_NO_MEMORY;
        }
        for (uint32_t i = 0; i < world->tile_count; i++)
            w->world.held_count += w->world.held[i] = world->held[i] != 0;
    }
    w->expected = world->held ? w->world.held_count : world->tile_count;
    w->next = next_held(w, 0);
    if (path) {
        st = op_atomic_open(ctx, path, &w->af);
        if (st != OP_OK) {
            op_opbake_writer_abort(w);
            return st;
        }
        w->k.f = w->af.f;
        w->k.path = path;
        /* WRLD now with digest 0; finish writes it again with the digest. */
        write_header(&w->k);
        write_world(&w->k, &w->world, w->flags);
        if (w->world.held)
            write_part(&w->k, &w->world);
        if (w->k.st != OP_OK) {
            st = w->k.st;
            op_opbake_writer_abort(w);
            return st;
        }
    }
    *out = w;
    return OP_OK;
}

/* Which tile a section or tile may be: the next one with a file, any held one without. */
static op_status check_index(op_opbake_writer *w, uint32_t tx, uint32_t tz, uint32_t *index)
{
    const op_tiled_result *r = &w->world;
    if (tx >= r->tiles_x || tz >= r->tiles_z)
        return op_fail(w->ctx, OP_BAD_INPUT, "tile (%u, %u) is outside the %u x %u tiles", tx,
                       tz, r->tiles_x, r->tiles_z);
    const uint32_t i = tx + tz * r->tiles_x;
    if (r->held && !r->held[i])
        return op_fail(w->ctx, OP_BAD_INPUT, "tile (%u, %u) is not one of the file's tiles",
                       tx, tz);
    if (w->k.f && i != w->next) {
        if (w->next >= r->tile_count)
            return op_fail(w->ctx, OP_BAD_INPUT, "tile (%u, %u) after the last tile", tx, tz);
        return op_fail(w->ctx, OP_BAD_INPUT, "tile (%u, %u) where tile (%u, %u) comes next",
                       tx, tz, w->next % r->tiles_x, w->next / r->tiles_x);
    }
    if (w->seen[i])
        return op_fail(w->ctx, OP_BAD_INPUT, "tile (%u, %u) came twice", tx, tz);
    *index = i;
    return OP_OK;
}

/* Keeps t's counts and digests (not what it points to). */
static void keep_fixed(op_opbake_writer *w, uint32_t i, const op_tile *t)
{
    op_tile *d = &w->world.tiles[i];
    *d = *t;
    memset(&d->contours, 0, sizeof d->contours);
    d->contours.count = t->contours.count;
    d->cell_count = NULL;
    d->region = NULL;
    memset(&d->chf, 0, sizeof d->chf);
    d->dist = NULL;
    w->seen[i] = 1;
    w->got++;
    if (w->k.f)
        w->next = next_held(w, i + 1);
}

op_status op_opbake_writer_put_tile(op_opbake_writer *w, const op_tile *t)
{
    uint32_t i;
    op_status st = check_index(w, t->tx, t->tz, &i);
    if (st == OP_OK)
        st = check_tile(w->ctx, t, w->flags);
    if (st != OP_OK)
        return st;
    if (w->k.f) {
        write_tile(&w->k, &w->world, t, w->flags);
        if (w->k.st != OP_OK)
            return w->k.st;
    }
    keep_fixed(w, i, t);
    return OP_OK;
}

op_status op_opbake_writer_put_section(op_opbake_writer *w, const unsigned char *sec, size_t len)
{
    /* The coordinates first, to decode against the right tile. */
    if (len < OP_SECTION_HEAD + 8)
        return op_fail(w->ctx, OP_BAD_INPUT, "tile section of %zu bytes: too short", len);
    uint32_t i;
    op_status st = check_index(w, op_le_get32(sec + OP_SECTION_HEAD),
                               op_le_get32(sec + OP_SECTION_HEAD + 4), &i);
    if (st != OP_OK)
        return st;
    op_tile t;
    st = op_opbake_decode_tile(w->ctx, &w->world, w->flags, sec, len, i, &t);
    if (st != OP_OK) {
        char msg[sizeof w->ctx->err];
        snprintf(msg, sizeof msg, "%s", w->ctx->err);
        return op_fail(w->ctx, st, "tile section of %zu bytes: %s", len, msg);
    }
    if (w->k.f)
        emit_raw(&w->k, sec, len);
    keep_fixed(w, i, &t);
    op_tile_free(&t, op_ctx_allocator(w->ctx));
    return w->k.st;
}

op_status op_opbake_writer_finish(op_opbake_writer *w, op_tiled_result *summary)
{
    if (summary)
        memset(summary, 0, sizeof *summary);
    op_ctx *ctx = w->ctx;
    op_status st = w->k.st;
    if (st == OP_OK && w->got != w->expected) {
        uint32_t m = 0;
        while (m < w->world.tile_count &&
               (w->seen[m] || (w->world.held && !w->world.held[m])))
            m++;
        st = op_fail(ctx, OP_BAD_INPUT, "%u of %u tiles came; tile (%u, %u) is missing",
                     w->got, w->expected, m % w->world.tiles_x, m / w->world.tiles_x);
    }
    if (st == OP_OK) {
        op_tiles_assemble(&w->world); /* the digest (0 in a part) and the totals */
        if (w->k.f) {
            write_ends(&w->k, &w->world);
            /* The WRLD again, now with the digest, over the one written first. */
            build_world(&w->k, &w->world, w->flags);
            st = w->k.st;
            if (st == OP_OK &&
                (fseek(w->af.f, OPBAKE_HEADER_SIZE, SEEK_SET) != 0 ||
                 fwrite(w->k.sec, 1, w->k.sec_len, w->af.f) != w->k.sec_len))
                st = op_fail(ctx, OP_IO_ERROR, "%s: write failed: %s", w->af.path,
                             strerror(errno));
            if (st == OP_OK)
                st = op_atomic_commit(ctx, &w->af);
        }
    }
    if (st == OP_OK && summary) {
        *summary = w->world;
        memset(&w->world, 0, sizeof w->world);
    }
    op_opbake_writer_abort(w);
    return st;
}

op_status op_opbake_write(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                          const char *path)
{
    op_status st = check_writable(ctx, r, flags);
    if (st != OP_OK)
        return st;
    flags &= ~OP_OPBAKE_PART;
    op_atomic_file af;
    st = op_atomic_open(ctx, path, &af);
    if (st != OP_OK)
        return st;
    sink k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    k.f = af.f;
    k.path = path;
    write_all(&k, r, flags);
    op_mem_free(op_ctx_allocator(ctx), k.sec);
    if (k.st != OP_OK) {
        op_atomic_abort(&af);
        return k.st;
    }
    return op_atomic_commit(ctx, &af);
}
