/* OPCACHE1, the tile cache file (docs/formats.md; include/onepath/tilecache.h).
 *
 * A 16-byte header, then sections like OPBAKE1's (u32 tag, u32 0, u64 length, payload,
 * u64 XXH3-64 of header and payload): SETS (settings, world volumes, obstacles), one
 * TILE per tile in (tz, tx) order (the geometry-only field's cells, floors, clearances,
 * areas and layers, stored or zstd-compressed), ENDS. Links are not stored: the loader
 * rebuilds them with the link rule (supplement §1.5) and checks each tile's OPCHFD1
 * against the one stored, so a file can only load into the field it was saved from.
 *
 * The reader trusts nothing: every count is checked against the bytes present before
 * anything is allocated, a compressed payload may not claim more than zstd can expand it
 * to, and every failure names the offset and the reason. Tiles are compressed and
 * decompressed on several threads; the bytes and the first error reported do not depend
 * on how many. */
#include "onepath/tilecache.h"
#include "onepath/digest.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/section_reader.h"
#include "parallel/parallel_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef OP_HAVE_ZSTD
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: zstd allocates through the hook */
#include <zstd.h>
#include <zstd_errors.h>
#endif

#define MAGIC "OPCACHE1" /* 8 bytes, no NUL */
#define HEADER_SIZE 16u
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TAG_SETS TAG('S', 'E', 'T', 'S')
#define TAG_TILE TAG('T', 'I', 'L', 'E')
#define TAG_ENDS TAG('E', 'N', 'D', 'S')
#define SETS_FIXED 140u /* the fixed fields and the source length */
#define TILE_FIXED 48u
#define ENDS_SIZE 12u
#define VOLUME_MIN 16u /* kind, area, ymin, ymax */
#define CODEC_STORED 0u
#define CODEC_ZSTD 1u
/* Option bits of SETS. */
#define OPT_KEEP_REGIONS 0x1u
#define OPT_OWNED_DIGEST 0x2u
/* zstd cannot expand past 128 KiB per 4-byte block (an RLE block is the densest). */
#define ZSTD_MAX_RATIO 32768u

int op_opcache_have_zstd(void)
{
#ifdef OP_HAVE_ZSTD
    return 1;
#else
    return 0;
#endif
}

#ifdef OP_HAVE_ZSTD
static void *zstd_alloc(void *opaque, size_t n) { return op_mem_alloc(opaque, n); }
static void zstd_free(void *opaque, void *p) { op_mem_free(opaque, p); }
static ZSTD_customMem zstd_mem(const op_allocator *a)
{
    ZSTD_customMem m = {zstd_alloc, zstd_free, (void *)a};
    return m;
}
#endif

/* ---- Writer --------------------------------------------------------------------------- */

typedef struct buf {
    op_ctx *ctx;
    unsigned char *p;
    size_t n, cap;
    op_status st;
} buf;

static unsigned char *put(buf *b, size_t n)
{
    if (b->st != OP_OK)
        return NULL;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->st = op_fail(b->ctx, OP_NO_MEMORY, "OPCACHE1: buffer size overflows");
                return NULL;
            }
            cap *= 2;
        }
        unsigned char *q = op_mem_realloc(&b->ctx->alloc, b->p, cap);
        if (!q) {
            b->st = op_fail(b->ctx, OP_NO_MEMORY, "OPCACHE1: out of memory for %zu bytes", cap);
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    unsigned char *r = b->p + b->n;
    b->n += n;
    return r;
}

static void put_u32(buf *b, uint32_t v)
{
    unsigned char *p = put(b, 4);
    if (p)
        op_le_put32(p, v);
}
static void put_u64(buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}
static void put_f32(buf *b, float v)
{
    unsigned char *p = put(b, 4);
    if (p)
        op_le_put_f32(p, v);
}
static void put_f64(buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(b, u);
}

/* Opens a section: returns its start for end_section. */
static size_t begin_section(buf *b, uint32_t tag)
{
    const size_t at = b->n;
    put_u32(b, tag);
    put_u32(b, 0);
    put_u64(b, 0); /* length, patched */
    return at;
}

static void end_section(buf *b, size_t at)
{
    if (b->st != OP_OK)
        return;
    const uint64_t len = b->n - at - OP_SECTION_HEAD;
    op_le_put32(b->p + at + 8, (uint32_t)len);
    op_le_put32(b->p + at + 12, (uint32_t)(len >> 32));
    put_u64(b, op_digest_bytes(b->p + at, b->n - at));
}

static void put_volume(buf *b, const op_volume *v)
{
    put_u32(b, (uint32_t)v->kind);
    put_u32(b, v->area);
    put_f32(b, v->ymin);
    put_f32(b, v->ymax);
    if (v->kind == OP_VOLUME_PRISM) {
        put_u32(b, v->vert_count);
        for (uint32_t i = 0; i < 2 * v->vert_count; i++)
            put_f32(b, v->verts[i]);
    } else if (v->kind == OP_VOLUME_BOX) {
        put_f32(b, v->box_min[0]);
        put_f32(b, v->box_min[1]);
        put_f32(b, v->box_max[0]);
        put_f32(b, v->box_max[1]);
    } else {
        put_f32(b, v->center[0]);
        put_f32(b, v->center[1]);
        put_f32(b, v->radius);
    }
}

static uint64_t saved_digest(const op_tile_cache *c)
{
    return c->dirty_count == 0 ? c->result.digest : 0;
}

static void put_settings(buf *b, const op_tile_cache *c)
{
    const op_tiled_result *r = &c->result;
    const op_bake_settings *s = &c->settings;
    const size_t at = begin_section(b, TAG_SETS);
    put_u32(b, r->world_width);
    put_u32(b, r->world_depth);
    put_u32(b, r->tile_size);
    put_u32(b, r->border_size);
    put_u32(b, r->tiles_x);
    put_u32(b, r->tiles_z);
    put_u32(b, (uint32_t)s->until);
    put_u32(b, (uint32_t)s->regions.partition);
    for (int i = 0; i < 3; i++)
        put_f32(b, r->bmin[i]);
    for (int i = 0; i < 3; i++)
        put_f32(b, r->bmax[i]);
    put_f32(b, r->cs);
    put_f32(b, r->ch);
    put_f32(b, s->config.walkable_slope_deg);
    put_u32(b, (uint32_t)s->config.walkable_height);
    put_u32(b, (uint32_t)s->config.walkable_climb);
    put_u32(b, (uint32_t)s->config.walkable_radius);
    put_u32(b, s->regions.min_region_area);
    put_u32(b, s->regions.merge_region_area);
    put_f64(b, s->contours.max_error);
    put_u32(b, (uint32_t)s->contours.max_edge_len);
    put_u32(b, s->contours.straight_region_borders ? 1u : 0u);
    put_u32(b, s->contours.keep_raw ? 1u : 0u);
    put_u32(b, (c->keep_regions ? OPT_KEEP_REGIONS : 0) | (c->owned_digest ? OPT_OWNED_DIGEST : 0));
    put_u64(b, saved_digest(c));
    put_u64(b, c->world_digest);
    put_u32(b, c->world_volume_count);
    put_u32(b, c->obstacle_count);
    for (uint32_t i = 0; i < c->world_volume_count; i++)
        put_volume(b, &c->world_volumes[i]);
    for (uint32_t i = 0; i < c->obstacle_count; i++) {
        put_u32(b, c->obstacles[i].id);
        put_volume(b, &c->obstacles[i].volume);
    }
    const size_t sl = strnlen(c->source, OP_CACHE_SOURCE_MAX - 1);
    put_u32(b, (uint32_t)sl);
    unsigned char *p = put(b, sl);
    if (p && sl)
        memcpy(p, c->source, sl);
    end_section(b, at);
}

/* The tile's raw data: cells × u16 count, spans × u16 y, u8 h, u8 area, u16 layer
 * (planar, so each array compresses on its own terms). */
static size_t raw_size(uint64_t cells, uint64_t spans) { return (size_t)(2 * cells + 6 * spans); }

static void fill_raw(const op_cache_tile *t, unsigned char *p)
{
    const op_chf *f = &t->chf;
    const size_t cells = (size_t)f->width * f->depth;
    const uint32_t n = f->span_count;
    for (size_t i = 0; i < cells; i++)
        op_le_put16(p + 2 * i, (uint16_t)op_chf_cell_count(f, (uint32_t)i));
    p += 2 * cells;
    for (uint32_t i = 0; i < n; i++)
        op_le_put16(p + 2 * (size_t)i, f->y[i]);
    p += 2 * (size_t)n;
    memcpy(p, f->h, n);
    p += n;
    memcpy(p, f->area, n);
    p += n;
    for (uint32_t i = 0; i < n; i++)
        op_le_put16(p + 2 * (size_t)i, t->layer[i]);
}

/* One tile's payload data, compressed or stored, in memory from the worker's allocator. */
typedef struct packed {
    unsigned char *data;
    size_t len, raw;
    uint32_t codec;
} packed;

static op_status pack_tile(op_ctx *w, const op_cache_tile *t, int level, packed *out)
{
    const op_chf *f = &t->chf;
    const size_t cells = (size_t)f->width * f->depth;
    for (size_t i = 0; i < cells; i++)
        if (op_chf_cell_count(f, (uint32_t)i) > 0xffffu)
            return op_fail(w, OP_UNSUPPORTED, "a cell holds %u spans (the file keeps 16 bits)",
                           op_chf_cell_count(f, (uint32_t)i));
    out->raw = raw_size(cells, f->span_count);
    unsigned char *raw = op_ctx_alloc(w, out->raw ? out->raw : 1, 1, "a tile's cache bytes");
    if (!raw)
        return OP_NO_MEMORY;
    fill_raw(t, raw);
    if (level == 0) {
        out->data = raw;
        out->len = out->raw;
        out->codec = CODEC_STORED;
        return OP_OK;
    }
#ifdef OP_HAVE_ZSTD
    const size_t bound = ZSTD_compressBound(out->raw);
    unsigned char *z = op_ctx_alloc(w, bound, 1, "a tile's compressed bytes");
    ZSTD_CCtx *cc = z ? ZSTD_createCCtx_advanced(zstd_mem(&w->alloc)) : NULL;
    if (!cc) {
        op_mem_free(&w->alloc, raw);
        op_mem_free(&w->alloc, z);
        return op_fail(w, OP_NO_MEMORY, "out of memory compressing a tile");
    }
    const size_t got = ZSTD_compressCCtx(cc, z, bound, raw, out->raw, level);
    ZSTD_freeCCtx(cc);
    op_mem_free(&w->alloc, raw);
    if (ZSTD_isError(got)) {
        op_mem_free(&w->alloc, z);
        return op_fail(w, ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? OP_NO_MEMORY
                                                                                 : OP_INTERNAL,
                       "zstd: %s", ZSTD_getErrorName(got));
    }
    out->data = z;
    out->len = got;
    out->codec = CODEC_ZSTD;
    return OP_OK;
#else
    op_mem_free(&w->alloc, raw);
    return op_fail(w, OP_UNSUPPORTED, "zstd level %d asked, but this build has no zstd", level);
#endif
}

/* Runs f(worker, i) for i in [0, n) on `threads` worker contexts; the failure of the
 * smallest i is reported into ctx (whatever thread met it first). */
typedef op_status (*tile_fn)(op_ctx *w, void *user, uint32_t i);

typedef struct worker {
    op_ctx ctx;
    uint32_t fail; /* UINT32_MAX: none */
    op_status st;
    char msg[sizeof(((op_ctx *)0)->err)];
    char pad[64];
} worker;

static op_status for_tiles(op_ctx *ctx, int threads, uint32_t n, tile_fn f, void *user,
                           uint32_t *fail_index)
{
    *fail_index = UINT32_MAX;
    if (n == 0)
        return OP_OK;
    threads = threads > 0 ? threads : op_omp_max_threads();
#ifndef _OPENMP
    threads = 1;
#endif
    if ((uint32_t)threads > n)
        threads = (int)n;
    worker *ws = op_ctx_calloc(ctx, (size_t)threads, sizeof *ws, "worker contexts");
    if (!ws)
        return OP_NO_MEMORY;
    int forked = 0;
    op_status st = OP_OK;
    for (; forked < threads; forked++) {
        ws[forked].fail = UINT32_MAX;
        st = op_ctx_take_error(ctx, &ws[forked].ctx, op_ctx_fork(ctx, &ws[forked].ctx));
        if (st != OP_OK)
            break;
    }
    if (st == OP_OK) {
        uint32_t min_fail = UINT32_MAX;
        OP_PRAGMA(omp parallel num_threads(threads))
        {
            worker *me = &ws[op_omp_thread()];
            OP_PRAGMA(omp for schedule(dynamic, 1))
            for (int64_t i = 0; i < (int64_t)n; i++) {
                uint32_t cur;
                OP_PRAGMA(omp atomic read)
                cur = min_fail;
                if ((uint32_t)i > cur)
                    continue;
                const op_status s1 = f(&me->ctx, user, (uint32_t)i);
                if (s1 == OP_OK)
                    continue;
                if ((uint32_t)i < me->fail) {
                    me->fail = (uint32_t)i;
                    me->st = s1;
                    memcpy(me->msg, me->ctx.err, sizeof me->msg);
                }
                OP_PRAGMA(omp critical(op_cache_file_fail))
                {
                    if ((uint32_t)i < min_fail) {
                        OP_PRAGMA(omp atomic write)
                        min_fail = (uint32_t)i;
                    }
                }
            }
        }
        int failed = -1;
        for (int k = 0; k < threads; k++)
            if (ws[k].fail != UINT32_MAX && (failed < 0 || ws[k].fail < ws[failed].fail))
                failed = k;
        if (failed >= 0) {
            *fail_index = ws[failed].fail;
            st = op_fail(ctx, ws[failed].st, "%s", ws[failed].msg);
        }
    }
    for (int k = 0; k < forked; k++)
        op_ctx_free(&ws[k].ctx);
    op_mem_free(&ctx->alloc, ws);
    return st;
}

typedef struct pack_job {
    const op_tile_cache *c;
    int level;
    packed *out;
} pack_job;

static op_status pack_one(op_ctx *w, void *user, uint32_t i)
{
    pack_job *j = user;
    return pack_tile(w, &j->c->tiles[i], j->level, &j->out[i]);
}

op_status op_opcache_encode(op_ctx *ctx, const op_tile_cache *c, int level, int threads,
                            unsigned char **out, size_t *out_len)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!out || !out_len)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: NULL output");
    *out = NULL;
    *out_len = 0;
    if (!c || !c->tiles || !c->result.tiles)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: not a baked or loaded cache");
    if (level < 0 || level > 19)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: zstd level %d outside 0..19", level);
    if (level > 0 && !op_opcache_have_zstd())
        return op_fail(ctx, OP_UNSUPPORTED,
                       "OPCACHE1: zstd level %d asked, but this build has no zstd (level 0 "
                       "writes the tiles stored)",
                       level);
    const op_tiled_result *r = &c->result;
    const uint32_t n = r->tile_count;
    packed *pk = op_ctx_calloc(ctx, n ? n : 1, sizeof *pk, "packed tiles");
    if (!pk)
        return OP_NO_MEMORY;
    pack_job job = {c, level, pk};
    uint32_t fi;
    op_status st = for_tiles(ctx, threads, n, pack_one, &job, &fi);
    if (st != OP_OK && fi != UINT32_MAX)
        st = op_fail(ctx, st, "OPCACHE1: tile (%u, %u): %s", fi % r->tiles_x, fi / r->tiles_x,
                     op_ctx_error(ctx));
    buf b = {ctx, NULL, 0, 0, OP_OK};
    if (st == OP_OK) {
        unsigned char *h = put(&b, HEADER_SIZE);
        if (h) {
            memcpy(h, MAGIC, 8);
            op_le_put32(h + 8, OP_OPCACHE_VERSION);
            op_le_put32(h + 12, 0);
        }
        put_settings(&b, c);
        for (uint32_t i = 0; i < n && b.st == OP_OK; i++) {
            const op_cache_tile *t = &c->tiles[i];
            const op_tile *rt = &r->tiles[i];
            const size_t at = begin_section(&b, TAG_TILE);
            put_u32(&b, rt->tx);
            put_u32(&b, rt->tz);
            put_u32(&b, t->chf.span_count);
            put_u32(&b, t->layer_count);
            put_u32(&b, rt->triangles);
            put_u32(&b, pk[i].codec);
            put_u64(&b, rt->solid_spans);
            put_u64(&b, t->digest_geometry);
            put_u64(&b, pk[i].raw);
            unsigned char *d = put(&b, pk[i].len);
            if (d && pk[i].len)
                memcpy(d, pk[i].data, pk[i].len);
            end_section(&b, at);
        }
        const size_t at = begin_section(&b, TAG_ENDS);
        put_u32(&b, n);
        put_u64(&b, saved_digest(c));
        end_section(&b, at);
        st = b.st;
    }
    for (uint32_t i = 0; i < n; i++)
        op_mem_free(&ctx->alloc, pk[i].data);
    op_mem_free(&ctx->alloc, pk);
    if (st != OP_OK) {
        op_mem_free(&ctx->alloc, b.p);
        return st;
    }
    *out = b.p;
    *out_len = b.n;
    return OP_OK;
}

op_status op_opcache_write(op_ctx *ctx, const op_tile_cache *c, int level, int threads,
                           const char *path)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!path)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: NULL path");
    unsigned char *p = NULL;
    size_t len = 0;
    op_status st = op_opcache_encode(ctx, c, level, threads, &p, &len);
    if (st == OP_OK)
        st = op_write_file(ctx, path, p, len);
    op_mem_free(&ctx->alloc, p);
    return st;
}

/* ---- Reader --------------------------------------------------------------------------- */

static op_status get_volume(op_section_reader *r, op_volume *v, const char *what, uint32_t index)
{
    memset(v, 0, sizeof *v);
    const size_t at = r->pos;
    const uint32_t kind = op_sr_u32(r, "volume kind");
    const uint32_t area = op_sr_u32(r, "volume area");
    v->ymin = op_sr_f32(r, "volume ymin");
    v->ymax = op_sr_f32(r, "volume ymax");
    if (r->st != OP_OK)
        return r->st;
    if (kind > (uint32_t)OP_VOLUME_CYLINDER)
        return op_sr_fail(r, at, "%s %u: unknown kind %u", what, index, kind);
    if (area > 255)
        return op_sr_fail(r, at + 4, "%s %u: area %u above 255", what, index, area);
    v->kind = (op_volume_kind)kind;
    v->area = (uint8_t)area;
    if (v->kind == OP_VOLUME_PRISM) {
        const size_t nat = r->pos;
        v->vert_count = op_sr_u32(r, "prism point count");
        if (r->st != OP_OK)
            return r->st;
        if (v->vert_count < 3 || v->vert_count > OP_VOLUME_MAX_VERTS)
            return op_sr_fail(r, nat, "%s %u: prism of %u points (3..%d)", what, index, v->vert_count,
                       OP_VOLUME_MAX_VERTS);
        for (uint32_t i = 0; i < 2 * v->vert_count; i++)
            v->verts[i] = op_sr_f32(r, "prism points");
    } else if (v->kind == OP_VOLUME_BOX) {
        v->box_min[0] = op_sr_f32(r, "box");
        v->box_min[1] = op_sr_f32(r, "box");
        v->box_max[0] = op_sr_f32(r, "box");
        v->box_max[1] = op_sr_f32(r, "box");
    } else {
        v->center[0] = op_sr_f32(r, "cylinder");
        v->center[1] = op_sr_f32(r, "cylinder");
        v->radius = op_sr_f32(r, "cylinder");
    }
    return r->st;
}

/* A check of the library (op_*_validate) failing inside a section: its message, placed. */
static op_status bad_setting(op_section_reader *r, size_t at, op_status st)
{
    if (st == OP_OK)
        return OP_OK;
    char msg[sizeof(((op_ctx *)0)->err)];
    snprintf(msg, sizeof msg, "%s", op_ctx_error(r->ctx));
    return op_sr_fail(r, at, "%s", msg);
}

static op_status read_settings(op_section_reader *r, op_tile_cache *c)
{
    size_t at;
    if (op_sr_open(r, TAG_SETS, "SETS", 1, &at) != OP_OK)
        return r->st;
    const size_t p0 = r->pos;
    if (r->end - r->pos < SETS_FIXED)
        return op_sr_fail(r, at + 8, "SETS section is %zu bytes, at least %u expected", r->end - r->pos,
                   SETS_FIXED);
    op_tiled_result *o = &c->result;
    op_bake_settings *s = &c->settings;
    op_bake_settings_defaults(s);
    o->world_width = op_sr_u32(r, "world_width");
    o->world_depth = op_sr_u32(r, "world_depth");
    o->tile_size = op_sr_u32(r, "tile_size");
    o->border_size = op_sr_u32(r, "border_size");
    o->tiles_x = op_sr_u32(r, "tiles_x");
    o->tiles_z = op_sr_u32(r, "tiles_z");
    const uint32_t until = op_sr_u32(r, "stage");
    const uint32_t partition = op_sr_u32(r, "partition");
    for (int i = 0; i < 3; i++)
        o->bmin[i] = op_sr_f32(r, "bmin");
    for (int i = 0; i < 3; i++)
        o->bmax[i] = op_sr_f32(r, "bmax");
    o->cs = op_sr_f32(r, "cs");
    o->ch = op_sr_f32(r, "ch");
    s->config.walkable_slope_deg = op_sr_f32(r, "walkable_slope_deg");
    s->config.walkable_height = (int32_t)op_sr_u32(r, "walkable_height");
    s->config.walkable_climb = (int32_t)op_sr_u32(r, "walkable_climb");
    s->config.walkable_radius = (int32_t)op_sr_u32(r, "walkable_radius");
    s->regions.min_region_area = op_sr_u32(r, "min_region_area");
    s->regions.merge_region_area = op_sr_u32(r, "merge_region_area");
    s->contours.max_error = op_sr_f64(r, "max_error");
    s->contours.max_edge_len = (int32_t)op_sr_u32(r, "max_edge_len");
    const uint32_t straight = op_sr_u32(r, "straight_region_borders");
    const uint32_t keep_raw = op_sr_u32(r, "keep_raw");
    const uint32_t options = op_sr_u32(r, "options");
    c->saved_digest = op_sr_u64(r, "saved digest");
    c->world_digest = op_sr_u64(r, "world digest");
    const uint32_t nwv = op_sr_u32(r, "world volume count");
    const uint32_t nob = op_sr_u32(r, "obstacle count");
    if (r->st != OP_OK)
        return r->st;
    const uint64_t cells = (uint64_t)o->world_width * o->world_depth;
    if (o->world_width == 0 || o->world_depth == 0 || cells > OP_MAX_GRID_CELLS)
        return op_sr_fail(r, p0, "world of %u x %u cells (need 1..%u cells)", o->world_width,
                   o->world_depth, OP_MAX_GRID_CELLS);
    if (o->tile_size == 0 || o->tile_size > 65536)
        return op_sr_fail(r, p0 + 8, "tile_size %u outside 1..65536", o->tile_size);
    if (o->border_size > 65536)
        return op_sr_fail(r, p0 + 12, "border_size %u above 65536", o->border_size);
    const uint64_t side = (uint64_t)o->tile_size + 2ull * o->border_size;
    if (side * side > OP_MAX_GRID_CELLS || side > 0xffffu)
        return op_sr_fail(r, p0 + 8, "tile window of %llu cells per side is too large",
                   (unsigned long long)side);
    if (o->tiles_x != op_tiles_along(o->world_width, o->tile_size) ||
        o->tiles_z != op_tiles_along(o->world_depth, o->tile_size))
        return op_sr_fail(r, p0 + 16, "%u x %u tiles do not cover a %u x %u world with tile_size %u",
                   o->tiles_x, o->tiles_z, o->world_width, o->world_depth, o->tile_size);
    if (until != OP_STAGE_REGIONS && until != OP_STAGE_CONTOURS)
        return op_sr_fail(r, p0 + 24, "stage %u is not regions (2) or contours (3)", until);
    if (partition != (uint32_t)OP_PARTITION_LAYERS)
        return op_sr_fail(r, p0 + 28, "partition %u is not layers (2)", partition);
    if (straight > 1 || keep_raw > 1)
        return op_sr_fail(r, p0 + 100, "contour flags %u, %u are not 0 or 1", straight, keep_raw);
    if (options & ~(OPT_KEEP_REGIONS | OPT_OWNED_DIGEST))
        return op_sr_fail(r, p0 + 108, "unknown options 0x%x", options);
    s->until = (op_stage)until;
    s->regions.partition = OP_PARTITION_LAYERS;
    s->contours.straight_region_borders = (int)straight;
    s->contours.keep_raw = (int)keep_raw;
    s->config.cs = o->cs;
    s->config.ch = o->ch;
    s->config.has_bounds = 1;
    memcpy(s->config.bmin, o->bmin, sizeof o->bmin);
    memcpy(s->config.bmax, o->bmax, sizeof o->bmax);
    s->config.tile_size = (int)o->tile_size;
    s->config.border_size = (int)o->border_size;
    c->keep_regions = (options & OPT_KEEP_REGIONS) != 0;
    c->owned_digest = (options & OPT_OWNED_DIGEST) != 0;
    if (bad_setting(r, p0 + 32, op_bake_settings_validate(r->ctx, s)) != OP_OK)
        return r->st;
    uint32_t w, d;
    if (bad_setting(r, p0 + 32, op_config_grid_size(r->ctx, &s->config, &w, &d)) != OP_OK)
        return r->st;
    if (w != o->world_width || d != o->world_depth)
        return op_sr_fail(r, p0, "the bounds give a %u x %u grid, the file says %u x %u", w, d,
                   o->world_width, o->world_depth);
    o->walkable_height = s->config.walkable_height;
    o->walkable_climb = s->config.walkable_climb;
    o->walkable_radius = s->config.walkable_radius;
    o->partition = OP_PARTITION_LAYERS;
    o->reached = s->until;
    o->tile_count = o->tiles_x * o->tiles_z; /* <= cells */
    o->digest_settings = op_digest_tiled_settings(s, &s->config, o->tile_size, o->border_size);

    /* Volumes: counts against the bytes left before anything is allocated. */
    const size_t vat = r->pos;
    if (((uint64_t)nwv + nob) * VOLUME_MIN + (uint64_t)nob * 4 > r->end - r->pos)
        return op_sr_fail(r, vat, "%u world volumes and %u obstacles cannot fit in the %zu bytes left",
                   nwv, nob, r->end - r->pos);
    if (nwv) {
        c->world_volumes = op_ctx_alloc(r->ctx, nwv, sizeof *c->world_volumes, "world volumes");
        if (!c->world_volumes)
            return r->st = OP_NO_MEMORY;
    }
    if (nob) {
        c->obstacles = op_ctx_alloc(r->ctx, nob, sizeof *c->obstacles, "obstacles");
        if (!c->obstacles)
            return r->st = OP_NO_MEMORY;
        c->obstacle_cap = nob;
    }
    for (uint32_t i = 0; i < nwv; i++) {
        const size_t vp = r->pos;
        if (get_volume(r, &c->world_volumes[i], "world volume", i) != OP_OK)
            return r->st;
        c->world_volume_count++;
        if (bad_setting(r, vp, op_volumes_validate(r->ctx, &c->world_volumes[i], 1)) != OP_OK)
            return r->st;
    }
    for (uint32_t i = 0; i < nob; i++) {
        const size_t vp = r->pos;
        const uint32_t id = op_sr_u32(r, "obstacle id");
        if (r->st != OP_OK)
            return r->st;
        if (i > 0 && id <= c->obstacles[i - 1].id)
            return op_sr_fail(r, vp, "obstacle ids not increasing (%u after %u)", id,
                       c->obstacles[i - 1].id);
        c->obstacles[i].id = id;
        if (get_volume(r, &c->obstacles[i].volume, "obstacle", i) != OP_OK)
            return r->st;
        c->obstacle_count++;
        if (bad_setting(r, vp + 4, op_obstacle_validate(r->ctx, &c->obstacles[i].volume)) != OP_OK)
            return r->st;
    }
    const size_t sat = r->pos;
    const uint32_t sl = op_sr_u32(r, "source length");
    if (r->st != OP_OK)
        return r->st;
    if (sl >= OP_CACHE_SOURCE_MAX)
        return op_sr_fail(r, sat, "source of %u bytes (at most %d)", sl, OP_CACHE_SOURCE_MAX - 1);
    const unsigned char *src = op_sr_take(r, sl, "source");
    if (!src)
        return r->st;
    if (memchr(src, 0, sl))
        return op_sr_fail(r, sat + 4, "source holds a NUL byte");
    memcpy(c->source, src, sl);
    c->source[sl] = 0;
    if (op_sr_close(r) != OP_OK)
        return r->st;
    const uint64_t min_tile = OP_SECTION_HEAD + TILE_FIXED + OP_SECTION_TAIL;
    if ((uint64_t)o->tile_count * min_tile > r->len - r->end)
        return op_sr_fail(r, p0 + 16, "truncated: %u tiles need at least %llu more bytes, %zu left",
                   o->tile_count, (unsigned long long)o->tile_count * min_tile, r->len - r->end);
    return OP_OK;
}

/* Where each TILE section lies, found by a serial walk; the tiles are then read in
 * parallel. */
typedef struct tile_at {
    size_t start; /* section header */
    size_t pos;   /* payload */
    size_t len;
} tile_at;

typedef struct load_job {
    const unsigned char *buf;
    size_t len;
    op_tile_cache *c;
    const tile_at *at;
} load_job;

/* Reads tile i into c->tiles[i] and the grid facts of c->result.tiles[i]. */
static op_status load_tile(op_ctx *w, void *user, uint32_t i)
{
    load_job *j = user;
    op_tile_cache *c = j->c;
    const op_tiled_result *o = &c->result;
    op_section_reader rd = {w, j->buf, j->len, j->at[i].start, j->at[i].start, "TILE", OP_OK};
    op_section_reader *r = &rd;
    size_t at;
    if (op_sr_open(r, TAG_TILE, "TILE", 1, &at) != OP_OK)
        return r->st;
    const size_t p0 = r->pos;
    const uint32_t tx = op_sr_u32(r, "tx"), tz = op_sr_u32(r, "tz");
    const uint32_t n = op_sr_u32(r, "span_count");
    const uint32_t layer_count = op_sr_u32(r, "layer_count");
    const uint32_t triangles = op_sr_u32(r, "triangles");
    const uint32_t codec = op_sr_u32(r, "codec");
    const uint64_t solid = op_sr_u64(r, "solid spans");
    const uint64_t digest = op_sr_u64(r, "geometry digest");
    const uint64_t raw = op_sr_u64(r, "raw size");
    if (r->st != OP_OK)
        return r->st;
    const uint32_t W = o->tile_size + 2 * o->border_size;
    const uint64_t cells = (uint64_t)W * W;
    if (n > OP_MAX_SPANS || (uint64_t)n > cells * 32768u)
        return op_sr_fail(r, p0 + 8, "tile (%u, %u): %u spans cannot fit in %llu cells", tx, tz, n,
                   (unsigned long long)cells);
    if (layer_count > 0x10000u)
        return op_sr_fail(r, p0 + 12, "tile (%u, %u): %u layers (at most 65536)", tx, tz, layer_count);
    if (codec != CODEC_STORED && codec != CODEC_ZSTD)
        return op_sr_fail(r, p0 + 20, "tile (%u, %u): unknown codec %u", tx, tz, codec);
    if (raw != 2 * cells + 6ull * n)
        return op_sr_fail(r, p0 + 40, "tile (%u, %u): raw size %llu, expected %llu for %llu cells and "
                               "%u spans",
                   tx, tz, (unsigned long long)raw, (unsigned long long)(2 * cells + 6ull * n),
                   (unsigned long long)cells, n);
    const size_t data_at = r->pos, data_len = r->end - r->pos;
    if (codec == CODEC_STORED && data_len != raw)
        return op_sr_fail(r, data_at, "tile (%u, %u): %zu stored bytes, expected %llu", tx, tz, data_len,
                   (unsigned long long)raw);
    if (codec == CODEC_ZSTD && raw > (uint64_t)data_len * ZSTD_MAX_RATIO + 131072u)
        return op_sr_fail(r, p0 + 40, "tile (%u, %u): %llu bytes cannot come from %zu compressed bytes",
                   tx, tz, (unsigned long long)raw, data_len);
    r->pos = r->end;
    const op_arena_mark mark = op_arena_get_mark(&w->arena);
    const unsigned char *d = j->buf + data_at;
    if (codec == CODEC_ZSTD) {
#ifdef OP_HAVE_ZSTD
        unsigned char *z = op_scratch(w, raw ? (size_t)raw : 1, 1);
        ZSTD_DCtx *dc = z ? ZSTD_createDCtx_advanced(zstd_mem(&w->alloc)) : NULL;
        if (!dc) {
            op_arena_release(&w->arena, mark);
            return op_fail(w, OP_NO_MEMORY, "out of memory decompressing tile (%u, %u)", tx, tz);
        }
        const size_t got = ZSTD_decompressDCtx(dc, z, (size_t)raw, d, data_len);
        ZSTD_freeDCtx(dc);
        if (ZSTD_isError(got) || got != raw) {
            op_arena_release(&w->arena, mark);
            if (ZSTD_isError(got) && ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation)
                return op_fail(w, OP_NO_MEMORY, "zstd: out of memory in tile (%u, %u)", tx, tz);
            return op_sr_fail(r, data_at, "tile (%u, %u): compressed data %s", tx, tz,
                       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "gives the wrong size");
        }
        d = z;
#else
        return op_fail(w, OP_UNSUPPORTED,
                       "offset %zu: tile (%u, %u) is zstd-compressed, but this build has no "
                       "zstd",
                       data_at, tx, tz);
#endif
    }
    /* Cells, then the spans' floors, clearances, areas and layers. */
    op_cache_tile *ct = &c->tiles[i];
    op_status st = op_chf_alloc(w, &ct->chf, W, W, n);
    ct->layer = st == OP_OK ? op_ctx_alloc(w, n ? n : 1, sizeof *ct->layer, "layers") : NULL;
    if (st == OP_OK && !ct->layer)
        st = OP_NO_MEMORY;
    if (st != OP_OK) {
        op_arena_release(&w->arena, mark);
        return st;
    }
    op_chf *f = &ct->chf;
    uint64_t sum = 0;
    for (uint64_t k = 0; k < cells; k++) {
        f->cell_first[k] = (uint32_t)sum;
        sum += op_le_get16(d + 2 * k);
    }
    const char *why = NULL;
    uint64_t where = 0;
    if (sum != n) {
        why = "cell counts add up to the wrong span count";
    } else {
        const unsigned char *py = d + 2 * cells, *ph = py + 2 * (size_t)n, *pa = ph + n,
                            *pl = pa + n;
        for (uint32_t s = 0; s < n; s++) {
            f->y[s] = op_le_get16(py + 2 * (size_t)s);
            f->h[s] = ph[s];
            f->area[s] = pa[s];
            ct->layer[s] = op_le_get16(pl + 2 * (size_t)s);
            if (ct->layer[s] >= (layer_count ? layer_count : 1) && !why) {
                why = "a layer index is not below the layer count";
                where = 2 * cells + 4ull * n + 2ull * s;
            }
        }
        for (uint64_t k = 0; k < cells && !why; k++) {
            const uint32_t s0 = f->cell_first[k], s1 = f->cell_first[k + 1];
            for (uint32_t s = s0; s + 1 < s1; s++)
                if ((uint32_t)f->y[s] + f->h[s] > f->y[s + 1] || f->y[s] >= f->y[s + 1]) {
                    why = "spans of a cell overlap or are not bottom-up";
                    where = 2 * cells + 2ull * s;
                    break;
                }
        }
    }
    op_arena_release(&w->arena, mark);
    if (why)
        return codec == CODEC_STORED
                   ? op_sr_fail(r, data_at + (size_t)where, "tile (%u, %u): %s", tx, tz, why)
                   : op_sr_fail(r, data_at, "tile (%u, %u): decompressed data: %s", tx, tz, why);
    f->cs = o->cs;
    f->ch = o->ch;
    f->walkable_height = c->settings.config.walkable_height;
    f->walkable_climb = c->settings.config.walkable_climb;
    f->border_size = (int32_t)o->border_size;
    const op_tile *rt = &o->tiles[i];
    f->bmin[0] = o->bmin[0] + (float)rt->x0 * o->cs;
    f->bmin[1] = o->bmin[1];
    f->bmin[2] = o->bmin[2] + (float)rt->z0 * o->cs;
    f->bmax[0] = f->bmin[0] + (float)W * o->cs;
    f->bmax[1] = o->bmax[1];
    f->bmax[2] = f->bmin[2] + (float)W * o->cs;
    st = op_chf_build_links(w, f);
    if (st != OP_OK)
        return st;
    ct->layer_count = layer_count;
    ct->digest_geometry = op_digest_chf(f);
    if (ct->digest_geometry != digest)
        return op_sr_fail(r, p0 + 32, "tile (%u, %u): the field rebuilt from the file hashes to "
                               "%016llx, the file says %016llx",
                   tx, tz, (unsigned long long)ct->digest_geometry, (unsigned long long)digest);
    op_tile *t = &c->result.tiles[i];
    t->triangles = triangles;
    t->solid_spans = solid;
    return OP_OK;
}

op_status op_opcache_decode(op_ctx *ctx, const unsigned char *data, size_t len, int threads,
                            op_tile_cache *c)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (!c)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: NULL cache");
    memset(c, 0, sizeof *c);
    c->alloc = ctx->alloc;
    c->result.alloc = ctx->alloc;
    if (!data && len)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: NULL buffer");
    if (threads < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "threads must be >= 0 (got %d)", threads);
    op_section_reader rd = {ctx, data, len, 0, 0, "header", OP_OK};
    op_section_reader *r = &rd;
    op_status st = OP_OK;
    tile_at *at = NULL;
    if (len < HEADER_SIZE) {
        st = op_sr_fail(r, 0, "truncated: %zu bytes, the header alone is %u", len, HEADER_SIZE);
        goto fail;
    }
    if (memcmp(data, MAGIC, 8) != 0) {
        st = op_sr_fail(r, 0, "not an OPCACHE1 file (bad magic)");
        goto fail;
    }
    const uint32_t version = op_le_get32(data + 8);
    if (version != OP_OPCACHE_VERSION) {
        st = op_fail(ctx, OP_UNSUPPORTED, "offset 8: OPCACHE1 version %u (this build reads %u)",
                     version, OP_OPCACHE_VERSION);
        goto fail;
    }
    if (op_le_get32(data + 12) != 0) {
        st = op_sr_fail(r, 12, "reserved header field is not 0");
        goto fail;
    }
    r->end = HEADER_SIZE;
    if ((st = read_settings(r, c)) != OP_OK)
        goto fail;
    op_tiled_result *o = &c->result;
    const uint32_t n = o->tile_count;
    o->tiles = op_ctx_calloc(ctx, n, sizeof *o->tiles, "tile results");
    c->tiles = op_ctx_calloc(ctx, n, sizeof *c->tiles, "cached tiles");
    c->dirty = op_ctx_alloc(ctx, n, 1, "dirty marks");
    c->rebuilt = op_ctx_alloc(ctx, n, sizeof *c->rebuilt, "rebuilt tiles");
    at = op_ctx_alloc(ctx, n, sizeof *at, "tile offsets");
    if (!o->tiles || !c->tiles || !c->dirty || !c->rebuilt || !at) {
        st = OP_NO_MEMORY;
        goto fail;
    }
    /* The serial walk: each TILE's place, length and coordinates. */
    for (uint32_t i = 0; i < n; i++) {
        op_tile *t = &o->tiles[i];
        t->tx = i % o->tiles_x;
        t->tz = i / o->tiles_x;
        t->x0 = (int32_t)((int64_t)t->tx * o->tile_size - o->border_size);
        t->z0 = (int32_t)((int64_t)t->tz * o->tile_size - o->border_size);
        if ((st = op_sr_open(r, TAG_TILE, "TILE", 0, &at[i].start)) != OP_OK)
            goto fail;
        at[i].pos = r->pos;
        at[i].len = r->end - r->pos;
        if (at[i].len < TILE_FIXED) {
            st = op_sr_fail(r, at[i].start + 8, "TILE section of %zu bytes (at least %u)", at[i].len,
                     TILE_FIXED);
            goto fail;
        }
        const uint32_t tx = op_le_get32(data + r->pos), tz = op_le_get32(data + r->pos + 4);
        if (tx != t->tx || tz != t->tz) {
            st = op_sr_fail(r, r->pos, "tile (%u, %u) where tile (%u, %u) comes in (tz, tx) order", tx,
                     tz, t->tx, t->tz);
            goto fail;
        }
        r->end += OP_SECTION_TAIL;
    }
    size_t eat;
    if ((st = op_sr_open(r, TAG_ENDS, "ENDS", 1, &eat)) != OP_OK)
        goto fail;
    if (r->end - r->pos != ENDS_SIZE) {
        st = op_sr_fail(r, eat + 8, "ENDS section is %zu bytes, expected %u", r->end - r->pos, ENDS_SIZE);
        goto fail;
    }
    const uint32_t count = op_sr_u32(r, "tile count");
    const uint64_t digest = op_sr_u64(r, "digest");
    if (count != n || digest != c->saved_digest) {
        st = op_sr_fail(r, eat + OP_SECTION_HEAD, "ENDS (%u tiles, digest %016llx) disagrees with SETS (%u, "
                                    "%016llx)",
                 count, (unsigned long long)digest, n, (unsigned long long)c->saved_digest);
        goto fail;
    }
    if ((st = op_sr_close(r)) != OP_OK)
        goto fail;
    if (r->end != len) {
        st = op_sr_fail(r, r->end, "%zu bytes after the ENDS section", len - r->end);
        goto fail;
    }
    /* The tiles, in parallel: checksums, data, links, digests. */
    load_job job = {data, len, c, at};
    uint32_t fi;
    if ((st = for_tiles(ctx, threads, n, load_tile, &job, &fi)) != OP_OK)
        goto fail;
    op_mem_free(&ctx->alloc, at);
    op_tile_cache_mark_all(c);
    return OP_OK;
fail:
    op_mem_free(&ctx->alloc, at);
    op_tile_cache_free(c);
    return st;
}

op_status op_opcache_read(op_ctx *ctx, const char *path, int threads, op_tile_cache *c)
{
    if (!ctx)
        return OP_INVALID_ARGUMENT;
    if (c)
        memset(c, 0, sizeof *c);
    if (!path)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCACHE1: NULL path");
    unsigned char *p = NULL;
    size_t len = 0;
    op_status st = op_read_file(ctx, path, &p, &len);
    if (st == OP_OK) {
        st = op_opcache_decode(ctx, p, len, threads, c);
        if (st != OP_OK && st != OP_NO_MEMORY) {
            char msg[sizeof(((op_ctx *)0)->err)];
            snprintf(msg, sizeof msg, "%s", op_ctx_error(ctx));
            st = op_fail(ctx, st, "%s: %s", path, msg);
        }
    }
    op_mem_free(&ctx->alloc, p);
    return st;
}
