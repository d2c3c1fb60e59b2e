/* Shards of a tiled bake (issue 14, docs/decisions/shards.md): parsing "K/N" and tile
 * rectangles, the cost estimate, the cuts, and a bake of one shard's tiles through the
 * tiled bake's hooks. */
#include "onepath/shard.h"
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binned triangles measure the rasterizer's work; every window also costs its cells
 * (allocation, filters, distance and region passes over the grid), whatever it holds. The
 * share, a triangle per 32 window cells, lies between the two per-tile CPU-time fits of
 * docs/decisions/shards.md (an empty 74 x 74 window costs what 84 to 370 triangles do). */
uint64_t op_tile_cost(uint64_t triangles, uint32_t window_side)
{
    return triangles + ((uint64_t)window_side * window_side) / 32 + 1;
}

/* A decimal u32 at *p (no sign, no spaces); advances *p. 0 when there is none. */
static int read_u32(const char **p, uint32_t *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return 0;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX)
            return 0;
        s++;
    }
    *out = (uint32_t)v;
    *p = s;
    return 1;
}

/* "A" or "A-B" (A <= B). */
static int read_range(const char **p, uint32_t *lo, uint32_t *hi)
{
    if (!read_u32(p, lo))
        return 0;
    *hi = *lo;
    if (**p == '-') {
        (*p)++;
        if (!read_u32(p, hi))
            return 0;
    }
    return 1;
}

op_status op_shard_parse(op_ctx *ctx, const char *text, op_shard *out)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "no tile range given");
    const char *p = text;
    if (strchr(text, '/')) {
        if (!read_u32(&p, &out->k) || *p++ != '/' || !read_u32(&p, &out->n) || *p)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "tile range '%s': a cut is K/N with whole numbers (e.g. 2/8)", text);
        if (out->n == 0 || out->k == 0 || out->k > out->n)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "tile range '%s': cut K/N needs 1 <= K <= N", text);
        out->kind = OP_SHARD_CUT;
        return OP_OK;
    }
    if (!read_range(&p, &out->x0, &out->x1) || *p++ != ',' ||
        !read_range(&p, &out->z0, &out->z1) || *p)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile range '%s': expected TX0-TX1,TZ0-TZ1 (tile coordinates, "
                       "inclusive, e.g. 0-3,2-5 or 4,7) or K/N",
                       text);
    if (out->x0 > out->x1 || out->z0 > out->z1)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "tile range '%s': a range runs from the smaller to the larger tile", text);
    out->kind = OP_SHARD_RECT;
    return OP_OK;
}

const char *op_shard_format(const op_shard *sh, char *buf, size_t n)
{
    if (sh->kind == OP_SHARD_CUT)
        snprintf(buf, n, "%u/%u", sh->k, sh->n);
    else
        snprintf(buf, n, "%u-%u,%u-%u", sh->x0, sh->x1, sh->z0, sh->z1);
    return buf;
}

op_status op_shard_select(op_ctx *ctx, const op_shard *sh, uint32_t tiles_x, uint32_t tiles_z,
                          const uint64_t *cost, uint8_t *held)
{
    const uint64_t count = (uint64_t)tiles_x * tiles_z;
    char text[64];
    if (sh->kind == OP_SHARD_RECT) {
        if (sh->x0 > sh->x1 || sh->z0 > sh->z1 || sh->x1 >= tiles_x || sh->z1 >= tiles_z)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "tile range %s reaches outside the %u x %u tiles (x 0-%u, z 0-%u)",
                           op_shard_format(sh, text, sizeof text), tiles_x, tiles_z,
                           tiles_x - 1, tiles_z - 1);
        for (uint64_t k = 0; k < count; k++) {
            const uint32_t tx = (uint32_t)(k % tiles_x), tz = (uint32_t)(k / tiles_x);
            held[k] = tx >= sh->x0 && tx <= sh->x1 && tz >= sh->z0 && tz <= sh->z1;
        }
        return OP_OK;
    }
    if (sh->kind != OP_SHARD_CUT || sh->n == 0 || sh->k == 0 || sh->k > sh->n)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "not a shard (kind %d)", (int)sh->kind);
    if (!cost)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "a cut needs the tiles' cost estimates");
    /* Integer arithmetic only, so every host cuts alike: costs capped at 2^32 (a tile has
     * fewer triangles), then shifted until the total times 2n fits in 64 bits. */
    uint64_t total = 0;
    for (uint64_t k = 0; k < count; k++)
        total += cost[k] < (1ull << 32) ? cost[k] : (1ull << 32);
    unsigned shift = 0;
    while ((total >> shift) >= (1ull << 31))
        shift++;
    uint64_t scaled = 0;
    for (uint64_t k = 0; k < count; k++)
        scaled += (cost[k] < (1ull << 32) ? cost[k] : (1ull << 32)) >> shift;
    if (scaled == 0)
        scaled = 1;
    uint64_t before = 0;
    for (uint64_t k = 0; k < count; k++) {
        const uint64_t c = (cost[k] < (1ull << 32) ? cost[k] : (1ull << 32)) >> shift;
        /* The cut holding the middle of [before, before + c) of the total. */
        uint64_t cut = ((2 * before + c) * sh->n) / (2 * scaled);
        if (cut >= sh->n)
            cut = sh->n - 1;
        held[k] = cut == sh->k - 1;
        before += c;
    }
    return OP_OK;
}

/* ---- one shard through the tiled bake's hooks --------------------------------------- */

typedef struct shard_run {
    const op_shard *shard;
    op_allocator alloc;
    uint32_t *order, count, pos;
    op_tile_progress_fn progress; /* the caller's, told the shard's tile count */
    void *progress_user;
} shard_run;

static void shard_progress(void *user, const op_tile_progress *p)
{
    const shard_run *run = user;
    op_tile_progress q = *p;
    q.tile_count = run->count;
    run->progress(run->progress_user, &q);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

static op_status shard_plan(void *user, op_ctx *ctx, const op_tiled_result *r,
                            const uint64_t *cost)
{
    shard_run *run = user;
    uint8_t *held = op_ctx_alloc(ctx, r->tile_count, 1, "tiles of the shard");
    if (!held)
        return OP_NO_MEMORY;
    op_status st = op_shard_select(ctx, run->shard, r->tiles_x, r->tiles_z, cost, held);
    uint32_t n = 0;
    for (uint32_t k = 0; st == OP_OK && k < r->tile_count; k++)
        n += held[k];
    /* Largest first, ties by index: keys (~cost << 32 | index), costs capped at 2^32 - 1. */
    uint64_t *key = NULL;
    if (st == OP_OK) {
        run->order = op_ctx_alloc(ctx, n ? n : 1, sizeof *run->order, "order of the shard");
        key = op_ctx_alloc(ctx, n ? n : 1, sizeof *key, "order keys of the shard");
        if (!run->order || !key)
            st = OP_NO_MEMORY;
    }
    if (st == OP_OK) {
        for (uint32_t k = 0; k < r->tile_count; k++)
            if (held[k]) {
                const uint64_t c = cost[k] < 0xffffffffu ? cost[k] : 0xffffffffu;
                key[run->count++] = (0xffffffffu - c) << 32 | k;
            }
        qsort(key, run->count, sizeof *key, cmp_u64);
        for (uint32_t i = 0; i < run->count; i++)
            run->order[i] = (uint32_t)key[i];
    }
    op_mem_free(&ctx->alloc, key);
    op_mem_free(&ctx->alloc, held);
    return st;
}

static int shard_next(void *user, uint32_t *index)
{
    shard_run *run = user;
    if (run->pos >= run->count)
        return 0;
    *index = run->order[run->pos++];
    return 1;
}

op_status op_bake_shard(op_ctx *ctx, const op_scene *scene, const op_bake_settings *s,
                        const op_tiled_options *opt, const op_shard *shard,
                        op_tiled_result *result)
{
    op_tiled_options o;
    if (opt)
        o = *opt;
    else
        op_tiled_options_defaults(&o);
    if (!result)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_bake_shard: NULL result");
    if (!shard || o.hooks) {
        memset(result, 0, sizeof *result);
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       shard ? "op_bake_shard: the options bring their own hooks"
                             : "op_bake_shard: NULL shard");
    }
    shard_run run;
    memset(&run, 0, sizeof run);
    run.shard = shard;
    run.alloc = ctx ? ctx->alloc : run.alloc;
    const op_tile_hooks hooks = {shard_plan, shard_next, NULL, 0, &run};
    o.hooks = &hooks;
    if (o.progress) {
        run.progress = o.progress;
        run.progress_user = o.progress_user;
        o.progress = shard_progress;
        o.progress_user = &run;
    }
    const op_status st = op_bake_tiled(ctx, scene, s, &o, result);
    op_mem_free(&run.alloc, run.order);
    return st;
}
