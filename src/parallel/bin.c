/* Triangle binning (supplement §2): once, in input order, as a CSR index built by a
 * counting sort. Each thread counts and then places a contiguous chunk of the triangles;
 * a tile's slots for chunk t follow those of chunks < t, so every tile's list is in
 * input order whatever the thread count. No list grows under a lock. */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"

#include <string.h>

#define MINF(a, b) ((a) < (b) ? (a) : (b))
#define MAXF(a, b) ((a) > (b) ? (a) : (b))

typedef struct binner {
    const op_mesh *mesh;
    float bmin[3], bmax[3], ics;
    float inv_T;                /* 1 / T */
    float lo_shift, hi_shift;   /* B + 2 cells: the band and the margins */
    float tiles_x, tiles_z;     /* as floats, for clamping before a conversion */
} binner;

/* Tiles [t0, t1] along one axis whose window [t·T − B, t·T + T + B − 1] may meet a
 * triangle spanning the cell offsets [f0, f1] (binary32, (v − bmin)·(1/cs) as the
 * rasterizer computes them). Exactly the window test would be t from floor((c0 − B)/T)
 * to floor((c1 + B)/T) with the cells grown by one; here both ends move out by one more
 * cell, so binary32 rounding (far below a cell on any grid op_config_check_resolution
 * accepts) can only add a tile, never drop one. No floor, no division: clamped to
 * [0, tiles], a truncation is the floor. Returns 0 when no tile is met. */
static int axis_tiles(const binner *b, float f0, float f1, float tiles, int64_t *t0, int64_t *t1)
{
    float q0 = (f0 - b->lo_shift) * b->inv_T, q1 = (f1 + b->hi_shift) * b->inv_T;
    if (!(q1 >= 0.0f) || !(q0 < tiles))
        return 0; /* before the first tile or past the last (NaN cannot occur) */
    q0 = q0 < 0.0f ? 0.0f : q0;
    q1 = q1 > tiles - 1.0f ? tiles - 1.0f : q1;
    *t0 = (int64_t)q0;
    *t1 = (int64_t)q1;
    return 1;
}

/* The tiles [r0, r1] x [r2, r3] triangle i goes to; 0 when none. The test against the
 * world's box is the rasterizer's (supplement §1.3 rejection), so a skipped triangle
 * would have added nothing. */
static int tri_tiles(const binner *b, uint32_t i, int64_t r[4])
{
    const uint32_t *t = b->mesh->tris + 3 * (size_t)i;
    const float *v0 = b->mesh->verts + 3 * (size_t)t[0];
    const float *v1 = b->mesh->verts + 3 * (size_t)t[1];
    const float *v2 = b->mesh->verts + 3 * (size_t)t[2];
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = MINF(MINF(v0[k], v1[k]), v2[k]);
        hi[k] = MAXF(MAXF(v0[k], v1[k]), v2[k]);
        if (lo[k] > b->bmax[k] || hi[k] < b->bmin[k])
            return 0;
    }
    return axis_tiles(b, (lo[0] - b->bmin[0]) * b->ics, (hi[0] - b->bmin[0]) * b->ics,
                      b->tiles_x, &r[0], &r[1]) &&
           axis_tiles(b, (lo[2] - b->bmin[2]) * b->ics, (hi[2] - b->bmin[2]) * b->ics,
                      b->tiles_z, &r[2], &r[3]);
}

void op_tile_bins_free(op_tile_bins *b)
{
    op_mem_free(&b->alloc, b->first);
    op_mem_free(&b->alloc, b->tris);
    memset(b, 0, sizeof *b);
}

op_status op_tile_bins_build(op_ctx *ctx, const op_mesh *mesh, const op_config *cfg,
                             uint32_t world_w, uint32_t world_d, uint32_t T, uint32_t B,
                             int threads, op_tile_bins *out)
{
    memset(out, 0, sizeof *out);
    out->alloc = ctx->alloc;
    binner b;
    b.mesh = mesh;
    memcpy(b.bmin, cfg->bmin, sizeof b.bmin);
    memcpy(b.bmax, cfg->bmax, sizeof b.bmax);
    b.ics = 1.0f / cfg->cs;
    b.inv_T = 1.0f / (float)T;
    b.lo_shift = (float)B + 2.0f;
    b.hi_shift = (float)B + 2.0f;
    out->tiles_x = op_tiles_along(world_w, T);
    out->tiles_z = op_tiles_along(world_d, T);
    b.tiles_x = (float)out->tiles_x;
    b.tiles_z = (float)out->tiles_z;
    const size_t tiles = (size_t)out->tiles_x * out->tiles_z;
    const uint32_t n = mesh->tri_count;

    /* Chunks of triangles, one per thread; per-chunk counts cost tiles entries each, so
     * a grid of very many tiles is binned by fewer chunks. */
    int chunks = threads < 1 ? 1 : threads;
    while (chunks > 1 && (size_t)chunks * tiles > ((size_t)1 << 24))
        chunks--;
    if ((uint32_t)chunks > n)
        chunks = n ? (int)n : 1;
    uint64_t *cnt = op_ctx_calloc(ctx, (size_t)chunks * tiles, sizeof *cnt,
                                  "per-chunk tile counts of the triangle bins");
    out->first = op_ctx_alloc(ctx, tiles + 1, sizeof *out->first, "tile offsets of the triangle bins");
    if (!cnt || !out->first) {
        op_mem_free(&ctx->alloc, cnt);
        op_tile_bins_free(out);
        return OP_NO_MEMORY;
    }

    /* Pass 1: count per chunk and tile. */
    OP_PRAGMA(omp parallel for num_threads(chunks) schedule(static, 1))
    for (int c = 0; c < chunks; c++) {
        const uint32_t i0 = (uint32_t)((uint64_t)n * (uint64_t)c / (uint64_t)chunks);
        const uint32_t i1 = (uint32_t)((uint64_t)n * (uint64_t)(c + 1) / (uint64_t)chunks);
        uint64_t *cc = cnt + (size_t)c * tiles;
        for (uint32_t i = i0; i < i1; i++) {
            int64_t r[4];
            if (!tri_tiles(&b, i, r))
                continue;
            for (int64_t tz = r[2]; tz <= r[3]; tz++)
                for (int64_t tx = r[0]; tx <= r[1]; tx++)
                    cc[(size_t)tx + (size_t)tz * out->tiles_x]++;
        }
    }
    /* Offsets: tile-major, then chunk order within a tile (input order). */
    uint64_t sum = 0;
    for (size_t k = 0; k < tiles; k++) {
        out->first[k] = sum;
        for (int c = 0; c < chunks; c++) {
            const uint64_t v = cnt[(size_t)c * tiles + k];
            cnt[(size_t)c * tiles + k] = sum;
            sum += v;
        }
    }
    out->first[tiles] = sum;
    out->tris = op_ctx_alloc(ctx, sum ? sum : 1, sizeof *out->tris, "triangle bins of the tiles");
    if (!out->tris) {
        op_mem_free(&ctx->alloc, cnt);
        op_tile_bins_free(out);
        return OP_NO_MEMORY;
    }
    /* Pass 2: place. */
    OP_PRAGMA(omp parallel for num_threads(chunks) schedule(static, 1))
    for (int c = 0; c < chunks; c++) {
        const uint32_t i0 = (uint32_t)((uint64_t)n * (uint64_t)c / (uint64_t)chunks);
        const uint32_t i1 = (uint32_t)((uint64_t)n * (uint64_t)(c + 1) / (uint64_t)chunks);
        uint64_t *cc = cnt + (size_t)c * tiles;
        for (uint32_t i = i0; i < i1; i++) {
            int64_t r[4];
            if (!tri_tiles(&b, i, r))
                continue;
            for (int64_t tz = r[2]; tz <= r[3]; tz++)
                for (int64_t tx = r[0]; tx <= r[1]; tx++)
                    out->tris[cc[(size_t)tx + (size_t)tz * out->tiles_x]++] = i;
        }
    }
    op_mem_free(&ctx->alloc, cnt);
    return OP_OK;
}
