/* The previous solid heightfield and rasterizer (linked lists in a pool, one triangle
 * at a time through op_heightfield_add_span), kept as the reference that the banded
 * rasterizer must reproduce span for span (tests/spans/test_spans_raster_ref.c). */
#include "util/ref_raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MINF(a, b) ((a) < (b) ? (a) : (b))
#define MAXF(a, b) ((a) > (b) ? (a) : (b))

op_status ref_heightfield_init(op_ctx *ctx, ref_heightfield *hf, uint32_t width, uint32_t depth,
                              const float bmin[3], const float bmax[3], float cs, float ch)
{
    memset(hf, 0, sizeof *hf);
    if (width == 0 || depth == 0 || (uint64_t)width * depth > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heightfield of %u x %u columns: need 1..%u columns in all", width,
                       depth, OP_MAX_GRID_CELLS);
    if (!isfinite(cs) || cs <= 0 || !isfinite(ch) || ch <= 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "heightfield cell size %g and height %g must be finite and > 0", cs, ch);
    const size_t cells = (size_t)width * depth;
        hf->head = malloc(cells * sizeof(uint32_t));
    if (!hf->head)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory allocating %u x %u columns", width,
                       depth);
    memset(hf->head, 0xff, cells * sizeof(uint32_t)); /* REF_HF_NONE */
    hf->width = width;
    hf->depth = depth;
    hf->world_width = width;
    hf->world_depth = depth;
    memcpy(hf->bmin, bmin, sizeof hf->bmin);
    memcpy(hf->bmax, bmax, sizeof hf->bmax);
    hf->cs = cs;
    hf->ch = ch;
    hf->free_head = REF_HF_NONE;
    return OP_OK;
}

void ref_heightfield_free(ref_heightfield *hf)
{
    free(hf->head);
    free(hf->smin);
    free(hf->smax);
    free(hf->area);
    free(hf->next);
    memset(hf, 0, sizeof *hf);
}

/* supplement §2 "Seam-exact tiles": the window only changes which world columns the
 * local columns are; the span storage is the same. */
op_status ref_heightfield_set_window(op_ctx *ctx, ref_heightfield *hf, int32_t origin_x,
                                    int32_t origin_z, uint32_t world_width,
                                    uint32_t world_depth)
{
    if (world_width == 0 || world_depth == 0 ||
        (uint64_t)world_width * world_depth > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "window: world of %u x %u columns: need 1..%u columns in all", world_width,
                       world_depth, OP_MAX_GRID_CELLS);
    /* In 64 bits: the window must overlap the world somewhere. */
    const int64_t x1 = (int64_t)origin_x + hf->width, z1 = (int64_t)origin_z + hf->depth;
    if (x1 <= 0 || z1 <= 0 || origin_x >= (int64_t)world_width ||
        origin_z >= (int64_t)world_depth)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "window of %u x %u columns at world column (%d, %d) does not overlap the "
                       "%u x %u world",
                       hf->width, hf->depth, origin_x, origin_z, world_width, world_depth);
    hf->origin_x = origin_x;
    hf->origin_z = origin_z;
    hf->world_width = world_width;
    hf->world_depth = world_depth;
    return OP_OK;
}

/* Grows the pool's four arrays together; 0 on failure (the pool stays valid). */
static int ref_pool_grow(ref_heightfield *hf)
{
    uint64_t ncap = hf->pool_cap ? (uint64_t)hf->pool_cap * 2 : 1024;
    if (ncap > REF_HF_NONE - 1ull)
        ncap = REF_HF_NONE - 1ull;
    if (ncap <= hf->pool_cap)
        return 0;
    /* Each array is resized in turn; one that fails leaves the others larger, which
     * is harmless (pool_cap still describes the smallest). */
    void **arrays[4] = {(void **)&hf->smin, (void **)&hf->smax, (void **)&hf->area,
                        (void **)&hf->next};
    static const size_t elem[4] = {sizeof(uint16_t), sizeof(uint16_t), 1, sizeof(uint32_t)};
    for (int i = 0; i < 4; i++) {
        if ((uint64_t)SIZE_MAX / elem[i] < ncap)
            return 0;
        void *a = realloc(*arrays[i], (size_t)ncap * elem[i]);
        if (!a)
            return 0;
        *arrays[i] = a;
    }
    hf->pool_cap = (uint32_t)ncap;
    return 1;
}

static uint32_t span_alloc(ref_heightfield *hf)
{
    if (hf->free_head != REF_HF_NONE) {
        uint32_t s = hf->free_head;
        hf->free_head = hf->next[s];
        return s;
    }
    if (hf->pool_used == hf->pool_cap && !ref_pool_grow(hf))
        return REF_HF_NONE;
    return hf->pool_used++;
}

static void span_release(ref_heightfield *hf, uint32_t s)
{
    hf->next[s] = hf->free_head;
    hf->free_head = s;
}

/* supplement §1.3 merge rule (Recast's addSpan, without its 13-bit height limit). */
op_status ref_heightfield_add_span(op_ctx *ctx, ref_heightfield *hf, uint32_t x, uint32_t z,
                                  uint16_t smin, uint16_t smax, uint8_t area,
                                  int walkable_climb)
{
    if (x >= hf->width || z >= hf->depth)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span at column (%u, %u) outside %u x %u", x,
                       z, hf->width, hf->depth);
    if (smin > smax)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "span [%u, %u] has smin > smax", smin, smax);
    /* Take the new span first so an allocation failure leaves the column untouched. */
    const uint32_t ns = span_alloc(hf);
    if (ns == REF_HF_NONE)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory growing the span pool past %u spans",
                       hf->pool_cap);
    uint32_t *head = &hf->head[(size_t)x + (size_t)z * hf->width];
    int32_t nmin = smin, nmax = smax;
    uint8_t narea = area;
    uint32_t prev = REF_HF_NONE, cur = *head;
    while (cur != REF_HF_NONE) {
        if ((int32_t)hf->smin[cur] > nmax)
            break; /* strictly above: the new span goes below it */
        if ((int32_t)hf->smax[cur] < nmin) {
            prev = cur; /* strictly below */
            cur = hf->next[cur];
            continue;
        }
        /* Overlapping or touching: absorb cur. */
        if (hf->smin[cur] < nmin)
            nmin = hf->smin[cur];
        if (hf->smax[cur] > nmax)
            nmax = hf->smax[cur];
        const int32_t dy = nmax - (int32_t)hf->smax[cur];
        if (dy <= walkable_climb && -dy <= walkable_climb && hf->area[cur] > narea)
            narea = hf->area[cur];
        const uint32_t nxt = hf->next[cur];
        span_release(hf, cur);
        hf->span_count--;
        if (prev == REF_HF_NONE)
            *head = nxt;
        else
            hf->next[prev] = nxt;
        cur = nxt;
    }
    hf->smin[ns] = (uint16_t)nmin;
    hf->smax[ns] = (uint16_t)nmax;
    hf->area[ns] = narea;
    hf->next[ns] = cur;
    if (prev == REF_HF_NONE)
        *head = ns;
    else
        hf->next[prev] = ns;
    hf->span_count++;
    return OP_OK;
}

uint64_t ref_heightfield_span_count(const ref_heightfield *hf) { return hf->span_count; }

uint32_t ref_heightfield_column_count(const ref_heightfield *hf, uint32_t x, uint32_t z)
{
    uint32_t n = 0;
    for (uint32_t s = hf->head[(size_t)x + (size_t)z * hf->width]; s != REF_HF_NONE; s = hf->next[s])
        n++;
    return n;
}

/* Vertices a clipped polygon may hold. In exact arithmetic a triangle cut by two
 * planes of each axis has at most 7 (plus repeats of a vertex lying on a plane), but
 * with binary32 rounding a cut point can land past the next plane, or on it, and a
 * polygon then grows by up to two vertices per cut (issue 10: coordinates that binary32
 * cannot resolve to cs). No bound holds for every input, so divide_poly checks each
 * write and the triangle is rejected instead (OP_BAD_INPUT). Grids that binary32 cannot
 * resolve are refused earlier (op_config_check_resolution); this stop remains for
 * triangles reaching far beyond such a grid. */
#define OP_CLIP_MAX_VERTS 12

/* Recast's dividePoly: splits poly `in` (n vertices, xyz) by the plane axis = offset;
 * vertices with δ = offset − v[axis] >= 0 go to out1, <= 0 to out2, and each crossing
 * edge (δ signs differ as >= 0 vs < 0) adds b + (a − b)·(δb/(δb − δa)) to both.
 * Returns 0, or -1 (outputs unusable) when either output would exceed
 * OP_CLIP_MAX_VERTS: the writes stop before leaving the buffers. */
static int divide_poly(const float *in, int n, float *out1, int *n1, float *out2, int *n2,
                       float offset, int axis)
{
    float delta[OP_CLIP_MAX_VERTS]; /* n <= OP_CLIP_MAX_VERTS: inputs are earlier outputs */
    for (int i = 0; i < n; i++)
        delta[i] = offset - in[i * 3 + axis];
    int m1 = 0, m2 = 0;
    for (int a = 0, b = n - 1; a < n; b = a, a++) {
        const int same = (delta[a] >= 0) == (delta[b] >= 0);
        /* What this step writes: a crossing point to both, then a itself by its side. */
        const int add1 = same ? delta[a] >= 0 : 1 + (delta[a] > 0);
        const int add2 = same ? delta[a] <= 0 : 1 + (delta[a] < 0);
        if (m1 + add1 > OP_CLIP_MAX_VERTS || m2 + add2 > OP_CLIP_MAX_VERTS)
            return -1;
        if (!same) {
            const float s = delta[b] / (delta[b] - delta[a]);
            for (int k = 0; k < 3; k++) {
                const float v = in[b * 3 + k] + (in[a * 3 + k] - in[b * 3 + k]) * s;
                out1[m1 * 3 + k] = v;
                out2[m2 * 3 + k] = v;
            }
            m1++;
            m2++;
            /* Points on the plane were added above as the crossing point. */
            if (delta[a] > 0) {
                for (int k = 0; k < 3; k++)
                    out1[m1 * 3 + k] = in[a * 3 + k];
                m1++;
            } else if (delta[a] < 0) {
                for (int k = 0; k < 3; k++)
                    out2[m2 * 3 + k] = in[a * 3 + k];
                m2++;
            }
        } else {
            /* Same side: a vertex on the plane goes to both. */
            if (delta[a] >= 0) {
                for (int k = 0; k < 3; k++)
                    out1[m1 * 3 + k] = in[a * 3 + k];
                m1++;
                if (delta[a] != 0)
                    continue;
            }
            for (int k = 0; k < 3; k++)
                out2[m2 * 3 + k] = in[a * 3 + k];
            m2++;
        }
    }
    *n1 = m1;
    *n2 = m2;
    return 0;
}

/* (int)f clamped to [lo, hi] without converting an out-of-range float (which would be
 * undefined behaviour in C): truncation toward zero, exactly as the cast. */
static int trunc_clamp(float f, int lo, int hi)
{
    if (!(f > (float)lo))
        return lo;
    if (!(f < (float)hi))
        return hi;
    const int v = (int)f;
    return v < lo ? lo : (v > hi ? hi : v);
}

static int overlap_bounds(const float *amin, const float *amax, const float *bmin,
                          const float *bmax)
{
    for (int i = 0; i < 3; i++)
        if (amin[i] > bmax[i] || amax[i] < bmin[i])
            return 0;
    return 1;
}

static op_status clip_overflow(op_ctx *ctx, const ref_heightfield *hf, const char *what,
                               int at, const float *tmin, const float *tmax)
{
    return op_fail(ctx, OP_BAD_INPUT,
                   "clipping at %s %d made more than %d polygon vertices: binary32 cannot "
                   "resolve the triangle's coordinates (x %.9g..%.9g, z %.9g..%.9g) to cs %g",
                   what, at, OP_CLIP_MAX_VERTS, tmin[0], tmax[0], tmin[2], tmax[2], hf->cs);
}

/* The world rows and columns a window covers, clamped to the world (supplement §2
 * "Seam-exact tiles"): [x_lo, x_hi] x [z_lo, z_hi] in world indices, empty when lo > hi. */
typedef struct raster_window {
    int w, h;         /* world grid */
    int ox, oz;       /* world column of local column 0 */
    int x_lo, x_hi, z_lo, z_hi;
} raster_window;

static raster_window window_of(const ref_heightfield *hf)
{
    raster_window r;
    r.w = (int)hf->world_width;
    r.h = (int)hf->world_depth;
    r.ox = hf->origin_x;
    r.oz = hf->origin_z;
    const int64_t xe = (int64_t)hf->origin_x + hf->width - 1;
    const int64_t ze = (int64_t)hf->origin_z + hf->depth - 1;
    r.x_lo = r.ox > 0 ? r.ox : 0;
    r.z_lo = r.oz > 0 ? r.oz : 0;
    r.x_hi = (int)(xe < r.w - 1 ? xe : r.w - 1);
    r.z_hi = (int)(ze < r.h - 1 ? ze : r.h - 1);
    return r;
}

/* supplement §1.3: clip along z rows, then x columns within each row piece. Rows and
 * columns are world indices and every cut plane is bmin + index·cs + cs of the world,
 * exactly as the solo bake computes it; a triangle that starts before the window
 * consumes the rows and columns before it (supplement §2 "Seam-exact tiles"). */
static op_status rasterize_tri(op_ctx *ctx, ref_heightfield *hf, const raster_window *win,
                               const float *v0, const float *v1, const float *v2,
                               uint8_t area, float ics, float ich, int climb)
{
    float tmin[3], tmax[3];
    for (int i = 0; i < 3; i++) {
        tmin[i] = MINF(MINF(v0[i], v1[i]), v2[i]);
        tmax[i] = MAXF(MAXF(v0[i], v1[i]), v2[i]);
    }
    /* Recast skips triangles outside the field's bounding box (the world's). */
    if (!overlap_bounds(tmin, tmax, hf->bmin, hf->bmax))
        return OP_OK;

    const int w = win->w, h = win->h;
    const float cs = hf->cs;
    const float by = hf->bmax[1] - hf->bmin[1];
    /* Rows: z0 in [-1, h-1] so the part before row 0 is cut off properly. */
    const int z0 = trunc_clamp((tmin[2] - hf->bmin[2]) * ics, -1, h - 1);
    int z1 = trunc_clamp((tmax[2] - hf->bmin[2]) * ics, 0, h - 1);
    /* Rows past the window produce nothing here: stop there. */
    if (z1 > win->z_hi)
        z1 = win->z_hi;
    if (z1 < win->z_lo)
        return OP_OK; /* ends before the window */

    float buf[4][OP_CLIP_MAX_VERTS * 3];
    float *in = buf[0], *in_row = buf[1], *p1 = buf[2], *p2 = buf[3];
    for (int k = 0; k < 3; k++) {
        in[k] = v0[k];
        in[3 + k] = v1[k];
        in[6 + k] = v2[k];
    }
    int nv_in = 3, nv_row;
    for (int z = z0; z <= z1; z++) {
        const float cell_z = hf->bmin[2] + (float)z * cs;
        if (divide_poly(in, nv_in, in_row, &nv_row, p1, &nv_in, cell_z + cs, 2))
            return clip_overflow(ctx, hf, "row", z, tmin, tmax);
        float *t = in;
        in = p1;
        p1 = t;
        if (nv_row < 3 || z < win->z_lo)
            continue; /* rows z < 0, and rows before the window, only consume */
        float minx = in_row[0], maxx = in_row[0];
        for (int i = 1; i < nv_row; i++) {
            if (minx > in_row[i * 3])
                minx = in_row[i * 3];
            if (maxx < in_row[i * 3])
                maxx = in_row[i * 3];
        }
        /* Clamped to [-2, w] first (no conversion overflow); the tests below see the
         * same outcome as with the unclamped casts. */
        int x0 = trunc_clamp((minx - hf->bmin[0]) * ics, -2, w);
        int x1 = trunc_clamp((maxx - hf->bmin[0]) * ics, -2, w);
        if (x1 < 0 || x0 >= w)
            continue;
        x0 = x0 < -1 ? -1 : x0;
        x1 = x1 > w - 1 ? w - 1 : x1;
        if (x1 > win->x_hi)
            x1 = win->x_hi; /* columns past the window produce nothing here */
        const uint32_t lz = (uint32_t)(z - win->oz);
        int nv, nv2 = nv_row;
        for (int x = x0; x <= x1; x++) {
            const float cell_x = hf->bmin[0] + (float)x * cs;
            if (divide_poly(in_row, nv2, p1, &nv, p2, &nv2, cell_x + cs, 0))
                return clip_overflow(ctx, hf, "column", x, tmin, tmax);
            t = in_row;
            in_row = p2;
            p2 = t;
            if (nv < 3 || x < win->x_lo)
                continue; /* columns x < 0, and before the window, only consume */
            float ymin = p1[1], ymax = p1[1];
            for (int i = 1; i < nv; i++) {
                ymin = MINF(ymin, p1[i * 3 + 1]);
                ymax = MAXF(ymax, p1[i * 3 + 1]);
            }
            ymin -= hf->bmin[1];
            ymax -= hf->bmin[1];
            if (ymax < 0.0f || ymin > by)
                continue;
            if (ymin < 0.0f)
                ymin = 0.0f;
            if (ymax > by)
                ymax = by;
            /* Recast clamps smax to >= smin + 1 and both to the height limit; with 16
             * bits smin stops at 0xfffe so that smax >= smin + 1 always holds. */
            const float lo = floorf(ymin * ich), hi = ceilf(ymax * ich);
            const int smin = trunc_clamp(lo, 0, (int)OP_HF_MAX_HEIGHT - 1);
            int smax = trunc_clamp(hi, 0, (int)OP_HF_MAX_HEIGHT);
            if (smax < smin + 1)
                smax = smin + 1;
            op_status st = ref_heightfield_add_span(ctx, hf, (uint32_t)(x - win->ox), lz,
                                                   (uint16_t)smin, (uint16_t)smax, area, climb);
            if (st != OP_OK)
                return st;
        }
    }
    return OP_OK;
}

/* Index and coordinate checks of triangle i (the stage driver checks them all up front;
 * this keeps a direct caller safe too). */
static op_status check_tri(op_ctx *ctx, const op_mesh *mesh, uint32_t i)
{
    const uint32_t *t = mesh->tris + 3 * (size_t)i;
    for (int k = 0; k < 3; k++) {
        if (t[k] >= mesh->vert_count)
            return op_fail(ctx, OP_BAD_INPUT,
                           "triangle %u refers to vertex %u but there are %u vertices", i, t[k],
                           mesh->vert_count);
        const float *v = mesh->verts + 3 * (size_t)t[k];
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            return op_fail(ctx, OP_BAD_INPUT, "triangle %u: vertex %u is not finite", i, t[k]);
    }
    return OP_OK;
}

static op_status check_args(op_ctx *ctx, const ref_heightfield *hf, const op_mesh *mesh,
                            int walkable_climb)
{
    if (walkable_climb < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_climb must be >= 0 (got %d)",
                       walkable_climb);
    if (mesh->tri_count && (!mesh->tris || !mesh->verts))
        return op_fail(ctx, OP_BAD_INPUT, "mesh has %u triangles but no arrays", mesh->tri_count);
    if (hf->world_width == 0 || hf->world_depth == 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "heightfield without a grid");
    return OP_OK;
}

static op_status rasterize_one(op_ctx *ctx, ref_heightfield *hf, const raster_window *win,
                               const op_mesh *mesh, const uint8_t *tri_areas, uint32_t i,
                               float ics, float ich, int climb)
{
    op_status st = check_tri(ctx, mesh, i);
    if (st != OP_OK)
        return st;
    const uint32_t *t = mesh->tris + 3 * (size_t)i;
    st = rasterize_tri(ctx, hf, win, mesh->verts + 3 * (size_t)t[0],
                       mesh->verts + 3 * (size_t)t[1], mesh->verts + 3 * (size_t)t[2],
                       tri_areas[i], ics, ich, climb);
    if (st == OP_BAD_INPUT) {
        char msg[sizeof ctx->err];
        memcpy(msg, ctx->err, sizeof msg);
        return op_fail(ctx, st, "triangle %u: %s", i, msg);
    }
    return st;
}

op_status ref_rasterize_triangles(op_ctx *ctx, ref_heightfield *hf, const op_mesh *mesh,
                                 const uint8_t *tri_areas, int walkable_climb)
{
    op_status st = check_args(ctx, hf, mesh, walkable_climb);
    if (st != OP_OK)
        return st;
    const raster_window win = window_of(hf);
    if (win.x_lo > win.x_hi || win.z_lo > win.z_hi)
        return OP_OK;
    const float ics = 1.0f / hf->cs, ich = 1.0f / hf->ch;
    const uint32_t n = mesh->tri_count;
    const uint32_t step = n / 64 ? n / 64 : 1;
    for (uint32_t i = 0; i < n; i++) {
        st = rasterize_one(ctx, hf, &win, mesh, tri_areas, i, ics, ich, walkable_climb);
        if (st != OP_OK)
            return st;
        if ((i + 1) % step == 0)
            op_progress(ctx, "spans", 0.8 * (double)(i + 1) / (double)n);
    }
    return OP_OK;
}

op_status ref_rasterize_triangle_list(op_ctx *ctx, ref_heightfield *hf, const op_mesh *mesh,
                                     const uint8_t *tri_areas, const uint32_t *list,
                                     uint32_t count, int walkable_climb)
{
    op_status st = check_args(ctx, hf, mesh, walkable_climb);
    if (st != OP_OK)
        return st;
    const raster_window win = window_of(hf);
    if (win.x_lo > win.x_hi || win.z_lo > win.z_hi)
        return OP_OK; /* the window lies outside the world */
    const float ics = 1.0f / hf->cs, ich = 1.0f / hf->ch;
    const uint32_t n = list ? count : mesh->tri_count;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = list ? list[k] : k;
        if (i >= mesh->tri_count)
            return op_fail(ctx, OP_INVALID_ARGUMENT, "triangle list entry %u is %u of %u", k,
                           i, mesh->tri_count);
        st = rasterize_one(ctx, hf, &win, mesh, tri_areas, i, ics, ich, walkable_climb);
        if (st != OP_OK)
            return st;
    }
    return OP_OK;
}
