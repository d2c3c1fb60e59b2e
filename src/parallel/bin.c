/* Triangle binning (supplement §2): once, in input order, as a CSR index built by a
 * counting sort. Each thread counts and then places a contiguous chunk of the triangles;
 * a tile's slots for chunk t follow those of chunks < t, so every tile's list is in
 * input order whatever the thread count. No list grows under a lock. */
#include "parallel/parallel_internal.h"
#include "core/alloc.h"

#include <math.h>
#include <string.h>

#define MINF(a, b) ((a) < (b) ? (a) : (b))
#define MAXF(a, b) ((a) > (b) ? (a) : (b))

typedef struct binner {
    const op_mesh *mesh;
    float bmin[3], bmax[3], ics;
    int64_t T, B, tiles_x, tiles_z;
} binner;

static int64_t floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Cell index of a binary32 offset, floored, clamped far outside any grid. */
static int64_t cell_of(float rel_times_ics)
{
    double f = floor((double)rel_times_ics);
    if (!(f > -1e12))
        f = -1e12;
    if (f > 1e12)
        f = 1e12;
    return (int64_t)f;
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
    /* Cell rectangle grown by one cell: interpolated cut points may lie a few ulps
     * outside the triangle's box (docs/decisions/tiles.md). */
    const int64_t cx0 = cell_of((lo[0] - b->bmin[0]) * b->ics) - 1;
    const int64_t cx1 = cell_of((hi[0] - b->bmin[0]) * b->ics) + 1;
    const int64_t cz0 = cell_of((lo[2] - b->bmin[2]) * b->ics) - 1;
    const int64_t cz1 = cell_of((hi[2] - b->bmin[2]) * b->ics) + 1;
    /* Window of tile t covers cells [t·T − B, t·T + T + B − 1]. */
    r[0] = floor_div(cx0 - b->B, b->T);
    r[1] = floor_div(cx1 + b->B, b->T);
    r[2] = floor_div(cz0 - b->B, b->T);
    r[3] = floor_div(cz1 + b->B, b->T);
    r[0] = r[0] < 0 ? 0 : r[0];
    r[2] = r[2] < 0 ? 0 : r[2];
    r[1] = r[1] > b->tiles_x - 1 ? b->tiles_x - 1 : r[1];
    r[3] = r[3] > b->tiles_z - 1 ? b->tiles_z - 1 : r[3];
    return r[0] <= r[1] && r[2] <= r[3];
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
    b.T = T;
    b.B = B;
    b.tiles_x = op_tiles_along(world_w, T);
    b.tiles_z = op_tiles_along(world_d, T);
    out->tiles_x = (uint32_t)b.tiles_x;
    out->tiles_z = (uint32_t)b.tiles_z;
    const size_t tiles = (size_t)b.tiles_x * (size_t)b.tiles_z;
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
                    cc[(size_t)tx + (size_t)tz * (size_t)b.tiles_x]++;
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
                    out->tris[cc[(size_t)tx + (size_t)tz * (size_t)b.tiles_x]++] = i;
        }
    }
    op_mem_free(&ctx->alloc, cnt);
    return OP_OK;
}
