/* OPBAKE1 writer (supplement §4 "Bake output"; docs/formats.md): written byte by byte in
 * little-endian, section by section, each closed by the XXH3-64 of its bytes; to a file,
 * one section in memory at a time, or into a buffer. */
#include "onepath/opbake.h"
#include "onepath/digest.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/opbake_internal.h"

#include <errno.h>
#include <stdio.h>
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

/* Fills in the length, appends the checksum and emits the section. */
static void section_end(sink *k)
{
    if (k->st != OP_OK)
        return;
    const uint64_t len = k->sec_len - SECTION_HEAD;
    op_le_put32(k->sec + 8, (uint32_t)len);
    op_le_put32(k->sec + 12, (uint32_t)(len >> 32));
    put_u64(k, op_digest_bytes(k->sec, k->sec_len));
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

static op_status check_writable(op_ctx *ctx, const op_tiled_result *r, unsigned flags)
{
    if (flags & ~(OP_OPBAKE_REGIONS | OP_OPBAKE_RAW))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPBAKE1: unknown flags 0x%x", flags);
    if (!r->tiles || r->tile_count == 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPBAKE1: the result holds no tiles");
    if ((flags & OP_OPBAKE_REGIONS) && r->reached < OP_STAGE_REGIONS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "OPBAKE1: region ids asked for, but the bake stopped after %s",
                       op_stage_name(r->reached));
    for (uint32_t i = 0; i < r->tile_count; i++) {
        const op_tile *t = &r->tiles[i];
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
    }
    return OP_OK;
}

static void write_world(sink *k, const op_tiled_result *r, unsigned flags)
{
    section_begin(k, TAG_WRLD);
    put_u32(k, r->world_width);
    put_u32(k, r->world_depth);
    put_u32(k, r->tile_size);
    put_u32(k, r->border_size);
    put_u32(k, r->tiles_x);
    put_u32(k, r->tiles_z);
    put_u32(k, (uint32_t)r->reached);
    put_u32(k, flags);
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
    put_u64(k, r->digest);
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

static void write_all(sink *k, const op_tiled_result *r, unsigned flags)
{
    unsigned char head[OPBAKE_HEADER_SIZE];
    memcpy(head, OPBAKE_MAGIC, 8);
    op_le_put32(head + 8, OP_OPBAKE_VERSION);
    op_le_put32(head + 12, 0);
    emit_raw(k, head, sizeof head);
    write_world(k, r, flags);
    for (uint32_t i = 0; i < r->tile_count && k->st == OP_OK; i++)
        write_tile(k, r, &r->tiles[i], flags);
    section_begin(k, TAG_ENDS);
    put_u32(k, r->tile_count);
    put_u64(k, r->digest);
    section_end(k);
}

op_status op_opbake_encode(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                           unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    op_status st = check_writable(ctx, r, flags);
    if (st != OP_OK)
        return st;
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

op_status op_opbake_write(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                          const char *path)
{
    op_status st = check_writable(ctx, r, flags);
    if (st != OP_OK)
        return st;
    FILE *f = fopen(path, "wb");
    if (!f)
        return op_fail(ctx, OP_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    sink k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    k.f = f;
    k.path = path;
    write_all(&k, r, flags);
    op_mem_free(op_ctx_allocator(ctx), k.sec);
    if ((fflush(f) != 0 || ferror(f)) && k.st == OP_OK)
        k.st = op_fail(ctx, OP_IO_ERROR, "%s: write failed: %s", path, strerror(errno));
    if (fclose(f) != 0 && k.st == OP_OK)
        k.st = op_fail(ctx, OP_IO_ERROR, "%s: write failed: %s", path, strerror(errno));
    return k.st;
}

