/* Helpers for the tile cache tests (testcache.h). */
#include "util/testcache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float uniform(op_rng *rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)(op_rng_next(rng) >> 40) / (float)(1u << 24);
}

void op_test_random_obstacle(op_rng *rng, const op_config *cfg, uint32_t max_cells,
                             op_volume *v)
{
    memset(v, 0, sizeof *v);
    const float cs = cfg->cs;
    const float size = cs * (float)(1 + op_rng_below(rng, max_cells));
    /* Centre anywhere in the world, a little past its edges too. */
    const float cx = uniform(rng, cfg->bmin[0] - 2 * cs, cfg->bmax[0] + 2 * cs);
    const float cz = uniform(rng, cfg->bmin[2] - 2 * cs, cfg->bmax[2] + 2 * cs);
    const uint32_t a = op_rng_below(rng, 10);
    v->area = (uint8_t)(a < 7 ? 0 : a < 9 ? a - 6 : 63);
    if (op_rng_below(rng, 3)) {
        v->ymin = cfg->bmin[1] - 1;
        v->ymax = cfg->bmax[1] + 1;
    } else {
        v->ymin = uniform(rng, cfg->bmin[1], cfg->bmax[1]);
        v->ymax = v->ymin + uniform(rng, 0, cfg->bmax[1] - cfg->bmin[1]);
    }
    switch (op_rng_below(rng, 3)) {
    case 0:
        v->kind = OP_VOLUME_BOX;
        v->box_min[0] = cx - size / 2;
        v->box_min[1] = cz - uniform(rng, 0, size);
        v->box_max[0] = cx + size / 2;
        v->box_max[1] = cz + uniform(rng, 0, size);
        break;
    case 1:
        v->kind = OP_VOLUME_CYLINDER;
        v->center[0] = cx;
        v->center[1] = cz;
        v->radius = size / 2;
        break;
    default: {
        /* Points on an ellipse at increasing angles: convex. */
        v->kind = OP_VOLUME_PRISM;
        v->vert_count = 3 + op_rng_below(rng, 6);
        const float rx = size / 2, rz = uniform(rng, cs, size);
        double ang[OP_VOLUME_MAX_VERTS];
        for (uint32_t i = 0; i < v->vert_count; i++)
            ang[i] = 6.283185307179586 * ((double)i + 0.8 * ((double)op_rng_below(rng, 1000) / 1000.0)) /
                     v->vert_count;
        for (uint32_t i = 0; i < v->vert_count; i++) {
            v->verts[2 * i] = cx + rx * (float)cos(ang[i]);
            v->verts[2 * i + 1] = cz + rz * (float)sin(ang[i]);
        }
        break;
    }
    }
}

op_status op_test_plain_bake(op_ctx *ctx, const op_scene *world, const op_tile_cache *c,
                             int threads, op_tiled_result *out)
{
    op_scene s = *world;
    const uint32_t n = c->world_volume_count + c->obstacle_count;
    op_volume *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return OP_NO_MEMORY;
    for (uint32_t i = 0; i < c->world_volume_count; i++)
        v[i] = c->world_volumes[i];
    for (uint32_t i = 0; i < c->obstacle_count; i++)
        v[c->world_volume_count + i] = c->obstacles[i].volume;
    s.volumes = v;
    s.volume_count = s.volume_cap = n;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = threads;
    o.keep_regions = c->keep_regions;
    o.owned_digest = c->owned_digest;
    op_status st = op_bake_tiled(ctx, &s, &c->settings, &o, out);
    free(v);
    return st;
}

static int differ(char *why, size_t n, const char *fmt, uint32_t tx, uint32_t tz)
{
    snprintf(why, n, fmt, tx, tz);
    return 0;
}

int op_test_same_tiles(const op_tiled_result *a, const op_tiled_result *b, char *why, size_t n)
{
    if (a->tile_count != b->tile_count || a->tiles_x != b->tiles_x)
        return differ(why, n, "tile grids differ (%u vs %u tiles)", a->tile_count, b->tile_count);
    for (uint32_t i = 0; i < a->tile_count; i++) {
        const op_tile *x = &a->tiles[i], *y = &b->tiles[i];
        if (x->span_count != y->span_count || x->walkable_spans != y->walkable_spans ||
            x->owned_spans != y->owned_spans || x->triangles != y->triangles ||
            x->solid_spans != y->solid_spans)
            return differ(why, n, "tile (%u, %u): span counts differ", x->tx, x->tz);
        if (x->digest_spans != y->digest_spans || x->digest_owned != y->digest_owned)
            return differ(why, n, "tile (%u, %u): spans digests differ", x->tx, x->tz);
        if (x->region_count != y->region_count || x->digest_regions != y->digest_regions ||
            x->digest_distance != y->digest_distance || x->max_dist != y->max_dist)
            return differ(why, n, "tile (%u, %u): regions differ", x->tx, x->tz);
        if (x->region && y->region &&
            memcmp(x->region, y->region, (size_t)x->span_count * sizeof *x->region))
            return differ(why, n, "tile (%u, %u): region ids differ", x->tx, x->tz);
        if (x->digest_contours != y->digest_contours || x->contour_verts != y->contour_verts)
            return differ(why, n, "tile (%u, %u): contour digests differ", x->tx, x->tz);
        const op_contour_set *p = &x->contours, *q = &y->contours;
        if (p->count != q->count || p->raw_fallbacks != q->raw_fallbacks ||
            p->dropped_holes != q->dropped_holes)
            return differ(why, n, "tile (%u, %u): contour counts differ", x->tx, x->tz);
        for (uint32_t k = 0; k < p->count; k++) {
            const op_contour *u = &p->contours[k], *w = &q->contours[k];
            if (u->region != w->region || u->area != w->area || u->vert_count != w->vert_count ||
                u->hole_count != w->hole_count ||
                memcmp(u->verts, w->verts, (size_t)u->vert_count * sizeof *u->verts))
                return differ(why, n, "tile (%u, %u): a contour differs", x->tx, x->tz);
        }
    }
    if (a->digest != b->digest)
        return differ(why, n, "build3d/tiles digests differ", 0, 0);
    return 1;
}

int op_test_same_bake_file(op_ctx *ctx, const op_tile_cache *c, const op_tiled_result *p,
                           char *why, size_t n)
{
    if (c->result.digest_settings != p->digest_settings || p->digest_settings == 0)
        return differ(why, n, "settings digests differ", 0, 0);
    if (p->digest_world == 0)
        return differ(why, n, "the plain bake has no world digest", 0, 0);
    const uint64_t want = c->obstacle_count ? 0 : p->digest_world;
    if (c->result.digest_world != want)
        return differ(why, n, "the world digest is not the promised one", 0, 0);
    op_tiled_result q = *p; /* a shallow copy: only the world digest differs */
    q.digest_world = want;
    const unsigned flags = c->keep_regions ? OP_OPBAKE_REGIONS : 0;
    unsigned char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    op_status st = op_opbake_encode(ctx, &c->result, flags, &x, &nx);
    if (st == OP_OK)
        st = op_opbake_encode(ctx, &q, flags, &y, &ny);
    int same = st == OP_OK && nx == ny && memcmp(x, y, nx) == 0;
    if (st != OP_OK)
        snprintf(why, n, "encoding: %s", op_ctx_error(ctx));
    else if (!same)
        snprintf(why, n, "OPBAKE1 bytes differ (%zu vs %zu bytes)", nx, ny);
    op_free(ctx, x);
    op_free(ctx, y);
    return same;
}
