/* Walkable triangles and triangle rasterization (supplement §1.2, §1.3).
 *
 * The clip of one triangle (src/scalar/raster_clip.c and its SIMD twins) is Recast's
 * rasterizeTri/dividePoly operation for operation; this file organises it so that the
 * spans are built where they stay in cache:
 *  - the window's rows are cut into bands of rows (about 64k cells each), and the
 *    triangles are binned to the bands their rows touch, in input order (a counting
 *    sort, two passes);
 *  - a band's triangles are clipped in input order, each continuing from the polygon
 *    the previous band left of it (its rows before the first band are replayed, as a
 *    window replays them, supplement §2); every piece is merged at once into the
 *    band's columns with the merge rule, in a small pool that stays in cache;
 *  - the band's columns are then appended to the field in cell order, so the field
 *    comes out packed (spans.h), and the filters, compaction and links read it in order.
 * Per column the pieces arrive in input order, so the spans are those of the
 * triangle-by-triangle reference whatever the banding. */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "spans/raster_clip.h"
#include "core/alloc.h"
#include "core/prefault.h"
#include "core/kernels.h"
#include "parallel/parallel_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OP_PI_F 3.14159265f

/* supplement §1.2: unit normal of (v1 − v0) × (v2 − v0), normalized in binary32 (the
 * kernel raster.walkable; this API has no context, so the variant is op_isa_best's). */
void op_mark_walkable_triangles(const op_mesh *mesh, float slope_deg, uint8_t *tri_areas)
{
    const float thr = cosf(slope_deg / 180.0f * OP_PI_F);
    const op_isa isa = op_isa_best();
    op_kernels k;
    op_kernels_init(&k, isa, op_isa_flags(isa));
    k.raster.walkable(mesh->verts, mesh->vert_count, mesh->tris, mesh->tri_count, thr, tri_areas);
}

/* ---- The window and its bands ------------------------------------------------------ */

/* The world rows and columns a window covers, clamped to the world (supplement §2
 * "Seam-exact tiles"): [x_lo, x_hi] x [z_lo, z_hi] in world indices, empty when lo > hi;
 * bands of `band` rows from z_lo. */
typedef struct raster_job {
    op_ctx *ctx;
    op_heightfield *hf;
    const op_mesh *mesh;
    const uint8_t *tri_areas;
    const uint32_t *list; /* NULL: every triangle */
    uint32_t count;       /* triangles listed */
    int climb;
    op_clip_grid g;
    op_clip_rows_fn clip;
    op_clip_batch_fn batch; /* NULL: every triangle through clip */
    int ox, oz;
    int x_lo, x_hi, z_lo, z_hi;
    int band;           /* rows per band */
    uint32_t nbands;
    uint32_t *bin_first; /* nbands + 1 */
    uint32_t *bin;       /* list positions, band by band, in input order */
    uint32_t *band_at;   /* band of each window row z_lo .. z_hi (no division per triangle) */
    uint32_t valid;      /* list positions [0, valid) passed the checks */
    int32_t *rows;       /* per list position: first and last row (first > last: none) */
    /* The field's spans before (NULL: none): column c's were [old_first[c], old_end[c]).
     * Copies, as the bands rewrite first while others read it. */
    const uint32_t *old_first, *old_end;
    op_status bad_status;
    char bad_msg[sizeof(((op_ctx *)0)->err)];
} raster_job;

static void window_of(raster_job *j)
{
    const op_heightfield *hf = j->hf;
    const int64_t xe = (int64_t)hf->origin_x + hf->width - 1;
    const int64_t ze = (int64_t)hf->origin_z + hf->depth - 1;
    j->ox = hf->origin_x;
    j->oz = hf->origin_z;
    j->x_lo = j->ox > 0 ? j->ox : 0;
    j->z_lo = j->oz > 0 ? j->oz : 0;
    j->x_hi = (int)(xe < j->g.w - 1 ? xe : j->g.w - 1);
    j->z_hi = (int)(ze < j->g.h - 1 ? ze : j->g.h - 1);
}

/* Index and coordinate checks of triangle i. */
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

static uint32_t tri_of(const raster_job *j, uint32_t k) { return j->list ? j->list[k] : k; }

/* The clip state of list position k, which the binning found in the window: its
 * vertices, and the rows op_clip_start gives (kept by the binning). */
static void start_tri(const raster_job *j, uint32_t k, op_clip_state *st)
{
    const uint32_t *t = j->mesh->tris + 3 * (size_t)tri_of(j, k);
    const float *v = j->mesh->verts;
    for (int q = 0; q < 3; q++) {
        const float *p = v + 3 * (size_t)t[q];
        st->v[3 * q] = p[0];
        st->v[3 * q + 1] = p[1];
        st->v[3 * q + 2] = p[2];
    }
    st->n = 3;
    st->z = j->rows[2 * (size_t)k];
    st->z1 = j->rows[2 * (size_t)k + 1];
}

/* The band of row z <= z_hi. */
static inline uint32_t band_of(const raster_job *j, int z)
{
    return z <= j->z_lo ? 0 : j->band_at[z - j->z_lo];
}

/* Triangles a binning run hands the rows kernel at once (their rows stay in L1/L2). */
#define RUN_MAX 1024

/* Copies the index triples of list positions k .. k + n - 1 into out, up to the first
 * entry that is no triangle of the mesh; returns how many were copied. */
static uint32_t gather_run(const raster_job *j, uint32_t k, uint32_t n, uint32_t *out)
{
    const uint32_t nt = j->mesh->tri_count;
    for (uint32_t q = 0; q < n; q++) {
        const uint32_t i = j->list[k + q];
        if (i >= nt)
            return q;
        memcpy(out + 3 * (size_t)q, j->mesh->tris + 3 * (size_t)i, 3 * sizeof(uint32_t));
    }
    return n;
}

/* Bins the listed triangles to the bands their rows touch (a counting sort in input
 * order), in one pass over the mesh with their checks. The checks run in input order:
 * triangles from the first bad one on are left out, and its message is kept for the
 * end (an earlier triangle's clip failure comes first). Each triangle's rows
 * (op_clip_start's) are kept in j->rows for the bands. */
static op_status bin_triangles(raster_job *j)
{
    op_ctx *ctx = j->ctx;
    const op_allocator *a = op_ctx_allocator(ctx);
    j->valid = j->count;
    j->bad_status = OP_OK;
    j->bin_first = op_mem_calloc(a, (size_t)j->nbands + 1, sizeof(uint32_t));
    if (!j->bin_first)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory binning triangles to %u bands",
                       j->nbands);
    const size_t nrows = (size_t)(j->z_hi - j->z_lo) + 1;
    j->band_at = op_mem_array(a, nrows, sizeof(uint32_t));
    if (!j->band_at)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory binning %zu rows to bands", nrows);
    for (size_t r = 0; r < nrows; r++)
        j->band_at[r] = (uint32_t)(r / (size_t)j->band);
    /* Pass 1 counts into bin_first[b + 1] and keeps each triangle's rows; the counts
     * become the starts (shifted by one), and pass 2 advances them to the ends, so
     * bin_first[b] .. bin_first[b + 1] is band b. */
    /* rows and bin below: ctx's scratch (rasterize() releases it), whose kept blocks a
     * context that rasterizes again (the next tile) or a later stage (erosion) reuses
     * with their pages mapped; without a context, the allocator's. */
    const size_t nrow = j->count ? (size_t)j->count * 2 : 2;
    j->rows = ctx ? op_scratch(ctx, nrow, sizeof(int32_t))
                  : op_mem_array(a, nrow, sizeof(int32_t));
    if (!j->rows)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory binning %u triangles", j->count);
    /* rows (every triangle's, unless a bad one stops the pass) and bin below (every
     * entry, one cursor per band) are fresh memory written whole: their pages mapped by
     * one call each (docs/decisions/bake-speed.md, round 8). */
    op_mem_prefault(j->rows, (size_t)j->count * 2 * sizeof(int32_t));
    uint64_t total = 0;
    const float *verts = j->mesh->verts;
    const uint32_t nv = j->mesh->vert_count, nt = j->mesh->tri_count;
    /* The rows and checks of a run of triangles (the kernel), then their bands, in
     * input order; a run stops at its first bad triangle. A list's run is its entries'
     * index triples copied into run_tris, up to the first entry past the mesh. */
    const op_clip_rows_many_fn rows_of = ctx ? ctx->k->raster.rows_of : op_clip_rows_many_scalar;
    uint32_t run_tris[3 * RUN_MAX];
    for (uint32_t k = 0; k < j->count;) {
        uint32_t cnt = j->count - k < RUN_MAX ? j->count - k : RUN_MAX;
        const uint32_t *tris = run_tris;
        if (!j->list)
            tris = j->mesh->tris + 3 * (size_t)k;
        else if ((cnt = gather_run(j, k, cnt, run_tris)) == 0) {
            j->bad_status = op_fail(ctx, OP_INVALID_ARGUMENT,
                                    "triangle list entry %u is %u of %u", k, j->list[k], nt);
            memcpy(j->bad_msg, ctx->err, sizeof j->bad_msg);
            j->valid = k;
            break;
        }
        const uint32_t good = rows_of(&j->g, j->hf->bmax, verts, nv, tris, cnt,
                                      j->rows + 2 * (size_t)k);
        for (uint32_t q = k; q < k + good; q++) {
            const int z0 = j->rows[2 * (size_t)q], z1 = j->rows[2 * (size_t)q + 1];
            if (z0 <= z1 && z1 >= j->z_lo && z0 <= j->z_hi) {
                const uint32_t b0 = band_of(j, z0);
                const uint32_t b1 = band_of(j, z1 < j->z_hi ? z1 : j->z_hi);
                for (uint32_t b = b0; b <= b1; b++)
                    j->bin_first[b + 1]++;
                total += b1 - b0 + 1;
            } else {
                j->rows[2 * (size_t)q] = 1; /* none */
                j->rows[2 * (size_t)q + 1] = 0;
            }
        }
        if (good < cnt) {
            /* The first bad triangle: its message (index or coordinate). */
            j->bad_status = check_tri(ctx, j->mesh, tri_of(j, k + good));
            memcpy(j->bad_msg, ctx->err, sizeof j->bad_msg);
            j->valid = k + good;
            break;
        }
        k += cnt;
    }
    if (total > UINT32_MAX)
        return op_fail(ctx, OP_NO_MEMORY, "%llu triangle-band pairs exceed the index",
                       (unsigned long long)total);
    const size_t nbin = total ? (size_t)total : 1;
    j->bin = ctx ? op_scratch(ctx, nbin, sizeof(uint32_t))
                 : op_mem_array(a, nbin, sizeof(uint32_t));
    if (!j->bin)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory binning triangles (%llu entries)",
                       (unsigned long long)total);
    op_mem_prefault(j->bin, (size_t)total * sizeof *j->bin);
    uint32_t sum = 0;
    for (uint32_t b = 0; b < j->nbands; b++) {
        const uint32_t c = j->bin_first[b + 1];
        j->bin_first[b + 1] = sum;
        sum += c;
    }
    for (uint32_t k = 0; k < j->valid; k++) {
        const int z0 = j->rows[2 * (size_t)k], z1 = j->rows[2 * (size_t)k + 1];
        if (z0 > z1)
            continue;
        const uint32_t b1 = band_of(j, z1 < j->z_hi ? z1 : j->z_hi);
        for (uint32_t b = band_of(j, z0); b <= b1; b++)
            j->bin[j->bin_first[b + 1]++] = k;
    }
    return OP_OK;
}

/* ---- One band: clip in input order, merge into cached columns ---------------------- */

#define BAND_NONE 0xffffffffu

/* The band's columns: per cell a list bottom-up through next (the merge rule needs
 * insertion in the middle). Slot c of the pool is cell c's lowest span (smin > smax:
 * the cell is empty; no span has that), so the common column of one
 * span is read and merged without a head pointer; the spans above it take slots from
 * `cells` on, with a free list. A span's fields sit together (one cache line per
 * merge). */
typedef struct pool_span {
    uint16_t smin, smax;
    uint32_t next;
    uint8_t area;
} pool_span;
typedef struct band_pool {
    pool_span *s;
    uint32_t cells; /* slots [0, cells): each cell's lowest span */
    uint32_t used, cap, free_head;
} band_pool;
typedef struct carry {
    uint32_t k; /* list position */
    op_clip_state st;
} carry;

/* What one worker owns while it rasterizes a run of bands. */
typedef struct band_worker {
    band_pool pool;
    op_piece *pieces; /* band cells: a triangle leaves at most one piece per cell */
    struct tri_window *win;
    carry *cin, *cout;
    uint32_t ncin, ncout, ccap;
    /* The spans of the bands done so far, packed in cell order. */
    uint16_t *smin, *smax;
    uint8_t *area;
    uint32_t used, cap;
    uint32_t row0, row1; /* rows (from the window's first world row) of its bands */
    uint32_t row_end;    /* the end of its run's rows (do_band's estimate of its spans) */
    uint32_t carry_hint; /* carries room for at first */
    /* The first failing triangle (list position) and its message. */
    uint32_t fail_k;
    op_status fail_status;
    char fail_msg[sizeof(((op_ctx *)0)->err)];
} band_worker;

static int pool_grow(const op_allocator *a, band_pool *p)
{
    /* At first room for a span above every other cell's lowest (the demo world's bands
     * take ~11 k on average, spans-speed.md round 7): a doubling realloc copies into
     * fresh pages. */
    const uint64_t ncap =
        p->cap ? (uint64_t)p->cap * 2 : (uint64_t)p->cells + p->cells / 2 + 4096;
    if (ncap > OP_HF_MAX_SPANS)
        return 0;
    pool_span *n = op_mem_realloc(a, p->s, (size_t)ncap * sizeof *n);
    if (!n)
        return 0;
    /* Fresh slots: the first band's reset writes every cell's, the merge the others
     * (one call instead of a page fault each). */
    op_mem_prefault(n + p->cap, (size_t)(ncap - p->cap) * sizeof *n);
    p->s = n;
    p->cap = (uint32_t)ncap;
    return 1;
}

static uint32_t pool_take(const op_allocator *a, band_pool *p)
{
    if (p->free_head != BAND_NONE) {
        const uint32_t s = p->free_head;
        p->free_head = p->s[s].next;
        return s;
    }
    if (p->used == p->cap && !pool_grow(a, p))
        return BAND_NONE;
    return p->used++;
}

/* band_add for a column of two or more spans, or a new span that does not overlap or
 * touch the column's only one. */
static int band_add_list(const op_allocator *a, band_pool *p, uint32_t cell, uint16_t smin,
                         uint16_t smax, uint8_t area, int climb)
{
    pool_span *ps = p->s;
    int32_t nmin = smin, nmax = smax;
    uint8_t narea = area;
    /* A column's list is sorted and its spans neither overlap nor touch, so the rule's
     * walk is: the spans strictly below, then those it absorbs, up to the first one
     * strictly above. */
    uint32_t prev = BAND_NONE, cur = cell;
    while (cur != BAND_NONE && (int32_t)ps[cur].smax < nmin) {
        prev = cur;
        cur = ps[cur].next;
    }
    uint32_t slot = BAND_NONE; /* the first absorbed span's slot holds the union */
    while (cur != BAND_NONE && (int32_t)ps[cur].smin <= nmax) {
        /* Overlapping or touching: absorb cur. */
        if (ps[cur].smin < nmin)
            nmin = ps[cur].smin;
        if (ps[cur].smax > nmax)
            nmax = ps[cur].smax;
        const int32_t dy = nmax - (int32_t)ps[cur].smax;
        if (dy <= climb && -dy <= climb && ps[cur].area > narea)
            narea = ps[cur].area;
        const uint32_t nxt = ps[cur].next;
        if (slot == BAND_NONE) {
            slot = cur;
        } else {
            /* Never the cell's own slot: that one is the column's first, absorbed first. */
            ps[cur].next = p->free_head;
            p->free_head = cur;
        }
        cur = nxt;
    }
    if (slot == BAND_NONE) {
        slot = pool_take(a, p);
        if (slot == BAND_NONE)
            return 0;
        ps = p->s; /* the pool may have moved */
        if (prev == BAND_NONE) {
            /* Below the whole column: its lowest span moves up to the new slot, and the
             * new span takes the cell's slot. */
            ps[slot] = ps[cell];
            cur = slot;
            slot = cell;
        }
    }
    ps[slot].smin = (uint16_t)nmin;
    ps[slot].smax = (uint16_t)nmax;
    ps[slot].area = narea;
    ps[slot].next = cur;
    if (prev != BAND_NONE)
        ps[prev].next = slot;
    return 1;
}

/* supplement §1.3 merge rule (Recast's addSpan, without its 13-bit height limit). The
 * common cases inline: an empty column, and a column of one span that the new one
 * overlaps or touches (the list walk would absorb exactly that span). */
static inline int band_add(const op_allocator *a, band_pool *p, uint32_t cell, uint16_t smin,
                           uint16_t smax, uint8_t area, int climb)
{
    pool_span *c = &p->s[cell];
    if (c->smin > c->smax) {
        c->smin = smin;
        c->smax = smax;
        c->area = area;
        c->next = BAND_NONE;
        return 1;
    }
    if (c->next == BAND_NONE && c->smin <= smax && c->smax >= smin) {
        const uint16_t nmin = c->smin < smin ? c->smin : smin;
        const uint16_t nmax = c->smax > smax ? c->smax : smax;
        const int32_t dy = (int32_t)nmax - (int32_t)c->smax;
        uint8_t narea = area;
        if (dy <= climb && -dy <= climb && c->area > narea)
            narea = c->area;
        c->smin = nmin;
        c->smax = nmax;
        c->area = narea;
        return 1;
    }
    return band_add_list(a, p, cell, smin, smax, area, climb);
}

/* The span arrays at cap spans (grown, or shrunk to the spans at the end); 0 when out of
 * memory. Either way every array then holds at least wk->cap spans (a failed realloc
 * keeps its block, so the smaller of the two sizes holds). */
static int worker_resize(const op_allocator *a, band_worker *wk, uint64_t cap)
{
    void **arrays[3] = {(void **)&wk->smin, (void **)&wk->smax, (void **)&wk->area};
    static const size_t elem[3] = {sizeof(uint16_t), sizeof(uint16_t), 1};
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        void *n = op_mem_realloc(a, *arrays[i], (size_t)cap * elem[i]);
        if (n)
            *arrays[i] = n;
        ok = n != NULL;
    }
    if (ok || cap < wk->cap)
        wk->cap = (uint32_t)cap;
    return ok;
}

/* Room for `need` spans; when the arrays must grow, for `want` if that is more (an
 * estimate of the run's spans, do_band's). */
static int worker_reserve(const op_allocator *a, band_worker *wk, uint64_t need, uint64_t want)
{
    if (need <= wk->cap)
        return 1;
    if (need > OP_HF_MAX_SPANS)
        return 0;
    uint64_t ncap = wk->cap ? (uint64_t)wk->cap + wk->cap / 2 : 65536;
    if (ncap < need)
        ncap = need;
    if (ncap < want)
        ncap = want;
    if (ncap > OP_HF_MAX_SPANS)
        ncap = OP_HF_MAX_SPANS;
    return worker_resize(a, wk, ncap) || (ncap > need && worker_resize(a, wk, need));
}

static void worker_fail(band_worker *wk, uint32_t k, op_status st, const char *msg)
{
    if (wk->fail_status != OP_OK && wk->fail_k <= k)
        return;
    wk->fail_k = k;
    wk->fail_status = st;
    snprintf(wk->fail_msg, sizeof wk->fail_msg, "%s", msg);
}

static int carry_push(const op_allocator *a, band_worker *wk, uint32_t k, const op_clip_state *st)
{
    if (wk->ncout == wk->ccap) {
        /* First about one carried polygon per column (a band edge's crossings): a
         * doubling realloc copies into fresh pages. */
        const uint32_t ncap = wk->ccap ? wk->ccap * 2 : wk->carry_hint;
        carry *ni = op_mem_realloc(a, wk->cin, (size_t)ncap * sizeof *ni);
        if (!ni)
            return 0;
        wk->cin = ni;
        carry *no = op_mem_realloc(a, wk->cout, (size_t)ncap * sizeof *no);
        if (!no)
            return 0;
        wk->cout = no;
        /* The new room is written as polygons are carried (a band edge's crossings fill
         * most of it): mapped by one call. */
        op_mem_prefault(ni + wk->ccap, (size_t)(ncap - wk->ccap) * sizeof *ni);
        op_mem_prefault(no + wk->ccap, (size_t)(ncap - wk->ccap) * sizeof *no);
        wk->ccap = ncap;
    }
    wk->cout[wk->ncout].k = k;
    wk->cout[wk->ncout].st = *st;
    wk->ncout++;
    return 1;
}

/* Clips triangle k (list position) from state st through rows up to zb1 and merges
 * its pieces into the band (rows from zb0); carries it on when rows remain. Returns 0
 * when out of memory (wk's failure set); a clip failure sets wk's failure and returns 1. */
static int clip_one(const raster_job *j, band_worker *wk, uint32_t k, op_clip_state *st, int zb0,
                    int zb1)
{
    const op_allocator *a = &j->hf->alloc;
    const uint32_t bw = j->hf->width;
    op_clip_fail f;
    const int np = j->clip(&j->g, st, zb1, j->z_lo > zb0 ? j->z_lo : zb0, j->x_lo, j->x_hi,
                           wk->pieces, &f);
    if (np < 0) {
        /* The reference's message (triangle, plane, bounds). */
        const uint32_t *tv = j->mesh->tris + 3 * (size_t)tri_of(j, k);
        const float *v0 = j->mesh->verts + 3 * (size_t)tv[0],
                    *v1 = j->mesh->verts + 3 * (size_t)tv[1],
                    *v2 = j->mesh->verts + 3 * (size_t)tv[2];
        float tmin[3], tmax[3];
        for (int q = 0; q < 3; q++) {
            tmin[q] = v0[q] < v1[q] ? v0[q] : v1[q];
            tmin[q] = tmin[q] < v2[q] ? tmin[q] : v2[q];
            tmax[q] = v0[q] > v1[q] ? v0[q] : v1[q];
            tmax[q] = tmax[q] > v2[q] ? tmax[q] : v2[q];
        }
        char msg[sizeof wk->fail_msg];
        snprintf(msg, sizeof msg,
                 "triangle %u: clipping at %s %d made more than %d polygon vertices: "
                 "binary32 cannot resolve the triangle's coordinates (x %.9g..%.9g, z "
                 "%.9g..%.9g) to cs %g",
                 tri_of(j, k), f.column ? "column" : "row", f.at, OP_CLIP_MAX_VERTS,
                 (double)tmin[0], (double)tmax[0], (double)tmin[2], (double)tmax[2],
                 (double)j->g.cs);
        worker_fail(wk, k, OP_BAD_INPUT, msg);
        return 1;
    }
    const uint8_t area = j->tri_areas[tri_of(j, k)];
    for (int q = 0; q < np; q++) {
        const op_piece *pc = &wk->pieces[q];
        const uint32_t cell = (uint32_t)(pc->x - j->ox) + (uint32_t)(pc->z - zb0) * bw;
        if (!band_add(a, &wk->pool, cell, pc->smin, pc->smax, area, j->climb)) {
            worker_fail(wk, 0, OP_NO_MEMORY, "out of memory in a band of spans");
            return 0;
        }
    }
    if (st->z <= st->z1 && st->z <= j->z_hi && !carry_push(a, wk, k, st)) {
        worker_fail(wk, 0, OP_NO_MEMORY, "out of memory carrying triangles between bands");
        return 0;
    }
    return 1;
}

/* Small triangles waiting for the batch kernel, in input order. Each is written once,
 * into the open batch of its shape class (a key: which vertex is lowest and highest in
 * z and x, the rows and the vertex count), so that lanes keep the same candidates and
 * compact them without blends (src/simd/raster_batch.c); a batch is clipped as soon as
 * its lanes are full, the others when the window is flushed. Their pieces are then
 * merged in input order. */
#define WIN 128
#define WIN_BATCHES 16
struct tri_window {
    uint32_t k[WIN];     /* list positions, in input order */
    int32_t last[WIN];   /* the triangle's last row */
    uint16_t at[WIN];    /* batch * OP_CLIP_BATCH + lane of entry i */
    int n;               /* entries */
    int nb;              /* batches in use */
    int nclass;          /* classes with an open batch */
    uint16_t ckey[WIN_BATCHES];
    uint8_t cbatch[WIN_BATCHES]; /* the class's open batch */
    uint8_t lanes[WIN_BATCHES];  /* lanes written */
    uint8_t clipped[WIN_BATCHES];
    unsigned left[WIN_BATCHES];  /* lanes the kernel left */
    op_clip_batch bt[WIN_BATCHES];
};
typedef struct tri_window tri_window;

static inline uint16_t shape_key3(const float *v0, const float *v1, const float *v2, int rows)
{
    /* The first of equal vertices, as a scan from vertex 0 with strict tests. */
    int lo_z = v1[2] < v0[2], hi_z = v1[2] > v0[2], lo_x = v1[0] < v0[0], hi_x = v1[0] > v0[0];
    const float *lz = lo_z ? v1 : v0, *hz = hi_z ? v1 : v0, *lx = lo_x ? v1 : v0,
                *hx = hi_x ? v1 : v0;
    lo_z = v2[2] < lz[2] ? 2 : lo_z;
    hi_z = v2[2] > hz[2] ? 2 : hi_z;
    lo_x = v2[0] < lx[0] ? 2 : lo_x;
    hi_x = v2[0] > hx[0] ? 2 : hi_x;
    return (uint16_t)(lo_z + 3 * hi_z + 9 * lo_x + 27 * hi_x + 81 * rows + 324 * 3);
}

static uint16_t shape_key(const float *v, int n, int rows)
{
    int lo_z = 0, hi_z = 0, lo_x = 0, hi_x = 0;
    for (int i = 1; i < 3 && i < n; i++) {
        lo_z = v[3 * i + 2] < v[3 * lo_z + 2] ? i : lo_z;
        hi_z = v[3 * i + 2] > v[3 * hi_z + 2] ? i : hi_z;
        lo_x = v[3 * i] < v[3 * lo_x] ? i : lo_x;
        hi_x = v[3 * i] > v[3 * hi_x] ? i : hi_x;
    }
    return (uint16_t)(lo_z + 3 * hi_z + 9 * lo_x + 27 * hi_x + 81 * rows + 324 * n);
}

/* The window's triangles clipped and merged in input order; a lane the kernel leaves
 * is clipped alone at its turn. Returns 0 when out of memory. */
static int flush_window(const raster_job *j, band_worker *wk, tri_window *w, int zb0, int zb1,
                        int z_emit)
{
    const op_allocator *a = &j->hf->alloc;
    const uint32_t bw = j->hf->width;
    const int n = w->n;
    for (int nb = 0; nb < w->nb; nb++)
        if (!w->clipped[nb])
            w->left[nb] = j->batch(&j->g, &w->bt[nb], w->lanes[nb], z_emit, j->x_lo, j->x_hi);
    w->n = w->nb = w->nclass = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t k = w->k[i];
        if (wk->fail_status != OP_OK && k >= wk->fail_k)
            return 1;
        const int nb = w->at[i] / OP_CLIP_BATCH, l = w->at[i] % OP_CLIP_BATCH;
        const op_clip_batch *bt = &w->bt[nb];
        if (w->left[nb] >> l & 1) {
            op_clip_state st;
            st.n = bt->n[l];
            for (int q = 0; q < 3 * st.n; q++)
                st.v[q] = bt->v[q][l];
            st.z = bt->z0[l];
            st.z1 = w->last[i];
            if (!clip_one(j, wk, k, &st, zb0, zb1))
                return 0;
            continue;
        }
        const uint8_t area = j->tri_areas[tri_of(j, k)];
        const uint32_t row0 = (uint32_t)(bt->z0[l] - zb0) * bw - (uint32_t)j->ox;
        for (uint32_t m = bt->mask[l]; m; m &= m - 1) {
            const int bit = __builtin_ctz(m);
            const int r = bit / OP_CLIP_BATCH_COLS, c = bit % OP_CLIP_BATCH_COLS;
            const uint32_t cell = row0 + (uint32_t)r * bw + (uint32_t)(bt->x0[r][l] + c);
            if (!band_add(a, &wk->pool, cell, (uint16_t)bt->smin[bit][l],
                          (uint16_t)bt->smax[bit][l], area, j->climb)) {
                worker_fail(wk, 0, OP_NO_MEMORY, "out of memory in a band of spans");
                return 0;
            }
        }
        /* Rows left for the next band; a polygon of at most one vertex can make no piece
         * there (nor fail). */
        const int z1 = bt->z1[l];
        if (w->last[i] > z1 && z1 < j->z_hi && bt->rest_n[l] > 1) {
            op_clip_state st;
            st.n = bt->rest_n[l];
            for (int q = 0; q < 3 * st.n; q++)
                st.v[q] = bt->rest[q][l];
            st.z = z1 + 1;
            st.z1 = w->last[i];
            if (!carry_push(a, wk, k, &st)) {
                worker_fail(wk, 0, OP_NO_MEMORY, "out of memory carrying triangles between bands");
                return 0;
            }
        }
    }
    return 1;
}

/* The lane for the next triangle of class `key` (its open batch, or a new one), or -1
 * when the window must be flushed first. */
static inline int window_lane(tri_window *w, uint16_t key, int *cls)
{
    int c = 0;
    while (c < w->nclass && w->ckey[c] != key)
        c++;
    if (c == w->nclass) {
        if (w->nb == WIN_BATCHES)
            return -1;
        w->ckey[c] = key;
        w->cbatch[c] = (uint8_t)w->nb;
        w->lanes[w->nb] = 0;
        w->clipped[w->nb] = 0;
        w->nb++;
        w->nclass++;
    }
    *cls = c;
    const int nb = w->cbatch[c];
    return nb * OP_CLIP_BATCH + w->lanes[nb]++;
}

/* Entry bookkeeping after a lane is written; a full batch is clipped at once and its
 * class closed (the next triangle of the class opens a new batch). */
static inline void window_added(const raster_job *j, tri_window *w, int cls, int at, uint32_t k,
                                int last, int z_emit)
{
    const int i = w->n++;
    w->k[i] = k;
    w->last[i] = last;
    w->at[i] = (uint16_t)at;
    const int nb = at / OP_CLIP_BATCH;
    if (w->lanes[nb] == OP_CLIP_BATCH) {
        w->left[nb] = j->batch(&j->g, &w->bt[nb], OP_CLIP_BATCH, z_emit, j->x_lo, j->x_hi);
        w->clipped[nb] = 1;
        w->nclass--;
        w->ckey[cls] = w->ckey[w->nclass];
        w->cbatch[cls] = w->cbatch[w->nclass];
    }
}

/* A lane for the next small triangle of class `key` in *at (the window flushed first when
 * it has no room); 0 when that flush failed. */
static inline int window_take(const raster_job *j, band_worker *wk, tri_window *w, uint16_t key,
                              int zb0, int zb1, int z_emit, int *cls, int *at)
{
    *at = window_lane(w, key, cls);
    if (*at >= 0)
        return 1;
    if (!flush_window(j, wk, w, zb0, zb1, z_emit))
        return 0;
    *at = window_lane(w, key, cls);
    return 1;
}

/* Lane `at` holds a polygon of n vertices for rows [z0, zl] (its last row `last`, of
 * triangle k): the entry is recorded and a full window flushed; 0 when that failed. */
static inline int window_put(const raster_job *j, band_worker *wk, tri_window *w, int cls, int at,
                             int n, int z0, int zl, uint32_t k, int last, int zb0, int zb1,
                             int z_emit)
{
    op_clip_batch *bt = &w->bt[at / OP_CLIP_BATCH];
    const int l = at % OP_CLIP_BATCH;
    bt->n[l] = n;
    bt->z0[l] = z0;
    bt->z1[l] = zl;
    window_added(j, w, cls, at, k, last, z_emit);
    return w->n < WIN || flush_window(j, wk, w, zb0, zb1, z_emit);
}

/* op_mem_prefault of elements [at, at + n) of an array of `total` elements of `size`
 * bytes, widened to the pages they touch inside the array: op_mem_prefault leaves a
 * range's end pages alone, and here those are this array's too (the last page of the
 * band before, partly written; the first of the band after), else each band's writes
 * take a fault per array at each end. 4 KiB pages assumed (a larger page only narrows
 * what is mapped). */
static void prefault_part(void *base, size_t size, size_t total, size_t at, size_t n)
{
    const uintptr_t page = 4096, b0 = (uintptr_t)base, b1 = b0 + total * size;
    uintptr_t lo = (b0 + at * size) & ~(page - 1), hi = b0 + (at + n) * size;
    hi = (hi + page - 1) & ~(page - 1); /* the array's end is clamped below */
    lo = lo > b0 ? lo : b0;
    hi = hi < b1 ? hi : b1;
    if (base && lo < hi)
        op_mem_prefault((void *)lo, (size_t)(hi - lo));
}

/* Rasterizes band b (rows [zb0, zb1]) into wk's packed spans and writes the columns'
 * first (relative to wk's spans). `resume`: the previous band was done by
 * this worker, so its carried polygons continue here; else triangles replay from their
 * first row. */
static void do_band(const raster_job *j, band_worker *wk, uint32_t b, int resume)
{
    op_heightfield *hf = j->hf;
    const op_allocator *a = &hf->alloc;
    const int zb0 = j->z_lo + (int)b * j->band;
    const int zb1 = zb0 + j->band - 1 < j->z_hi ? zb0 + j->band - 1 : j->z_hi;
    const uint32_t bw = hf->width; /* band rows are whole local rows */
    const int lz0 = zb0 - j->oz;
    const uint32_t cells = (uint32_t)(zb1 - zb0 + 1) * bw;
    if (!resume)
        wk->row0 = (uint32_t)(zb0 - j->z_lo);
    wk->row1 = (uint32_t)(zb1 + 1 - j->z_lo);
    band_pool *p = &wk->pool;
    p->used = p->cells;
    p->free_head = BAND_NONE;
    for (uint32_t c = 0; c < cells; c++) {
        p->s[c].smin = 0xffff; /* every column empty */
        p->s[c].smax = 0;
    }

    /* The field's own spans come first (rasterizing into a field that has some). */
    const size_t c0 = (size_t)lz0 * bw;
    if (j->old_first) {
        for (uint32_t c = 0; c < cells; c++) {
            const uint32_t s0 = j->old_first[c0 + c], s1 = j->old_end[c0 + c];
            uint32_t link = 0; /* the previous slot + 1, 0: none */
            for (uint32_t s = s0; s < s1; s++) {
                const uint32_t ns = link ? pool_take(a, p) : c;
                if (ns == BAND_NONE) {
                    worker_fail(wk, 0, OP_NO_MEMORY, "out of memory in a band of spans");
                    return;
                }
                p->s[ns].smin = hf->smin[s];
                p->s[ns].smax = hf->smax[s];
                p->s[ns].area = hf->area[s];
                p->s[ns].next = BAND_NONE;
                if (link)
                    p->s[link - 1].next = ns;
                link = ns + 1;
            }
        }
    }

    /* Carried polygons of the previous band become this band's input. */
    carry *t = wk->cin;
    wk->cin = wk->cout;
    wk->cout = t;
    wk->ncin = resume ? wk->ncout : 0;
    wk->ncout = 0;
    uint32_t ci = 0;

    const int z_emit = j->z_lo > zb0 ? j->z_lo : zb0;
    /* Small triangles that end in this band go through the batch kernel, OP_CLIP_BATCH
     * at a time; the others (and the lanes it leaves) one by one. Either way each
     * triangle's pieces are merged in input order. */
    tri_window *w = wk->win;
    w->n = w->nb = w->nclass = 0;
    const float small = (float)(OP_CLIP_BATCH_COLS - 1) * j->g.cs; /* a guess: the kernel decides */
    const float *verts = j->mesh->verts;
    for (uint32_t e = j->bin_first[b]; e < j->bin_first[b + 1]; e++) {
        const uint32_t k = j->bin[e];
        if (wk->fail_status != OP_OK && k >= wk->fail_k)
            break; /* only earlier triangles can still matter */
        op_clip_state st;
        while (ci < wk->ncin && wk->cin[ci].k < k)
            ci++;
        if (ci < wk->ncin && wk->cin[ci].k == k) {
            st = wk->cin[ci++].st;
            const int zl = st.z1 < zb1 ? st.z1 : zb1; /* its last row in this band */
            if (j->batch && zl - st.z < OP_CLIP_BATCH_ROWS && st.n <= OP_CLIP_BATCH_VERTS) {
                float mnx = st.v[0], mxx = st.v[0];
                for (int q = 1; q < st.n; q++) {
                    mnx = mnx < st.v[3 * q] ? mnx : st.v[3 * q];
                    mxx = mxx > st.v[3 * q] ? mxx : st.v[3 * q];
                }
                if (mxx - mnx <= small) {
                    const uint16_t key = shape_key(st.v, st.n, zl - st.z);
                    int cls = 0, at = 0;
                    if (!window_take(j, wk, w, key, zb0, zb1, z_emit, &cls, &at))
                        return;
                    op_clip_batch *bt = &w->bt[at / OP_CLIP_BATCH];
                    const int l = at % OP_CLIP_BATCH;
                    for (int q = 0; q < 3 * st.n; q++)
                        bt->v[q][l] = st.v[q];
                    if (!window_put(j, wk, w, cls, at, st.n, st.z, zl, k, st.z1, zb0, zb1, z_emit))
                        return;
                    continue;
                }
            }
        } else {
            const uint32_t *t = j->mesh->tris + 3 * (size_t)tri_of(j, k);
            const float *v0 = verts + 3 * (size_t)t[0], *v1 = verts + 3 * (size_t)t[1],
                        *v2 = verts + 3 * (size_t)t[2];
            const int z0 = j->rows[2 * (size_t)k], z1 = j->rows[2 * (size_t)k + 1];
            const int zl = z1 < zb1 ? z1 : zb1; /* its last row in this band */
            if (j->batch && zl - z0 < OP_CLIP_BATCH_ROWS) {
                float mnx = v0[0] < v1[0] ? v0[0] : v1[0], mxx = v0[0] > v1[0] ? v0[0] : v1[0];
                mnx = mnx < v2[0] ? mnx : v2[0];
                mxx = mxx > v2[0] ? mxx : v2[0];
                if (mxx - mnx <= small) {
                    const uint16_t key = shape_key3(v0, v1, v2, zl - z0);
                    int cls = 0, at = 0;
                    if (!window_take(j, wk, w, key, zb0, zb1, z_emit, &cls, &at))
                        return;
                    op_clip_batch *bt = &w->bt[at / OP_CLIP_BATCH];
                    const int l = at % OP_CLIP_BATCH;
                    for (int q = 0; q < 3; q++) {
                        bt->v[q][l] = v0[q];
                        bt->v[3 + q][l] = v1[q];
                        bt->v[6 + q][l] = v2[q];
                    }
                    if (!window_put(j, wk, w, cls, at, 3, z0, zl, k, z1, zb0, zb1, z_emit))
                        return;
                    continue;
                }
            }
            start_tri(j, k, &st);
        }
        /* In input order: the waiting ones first. */
        if (w->n) {
            if (!flush_window(j, wk, w, zb0, zb1, z_emit))
                return;
            if (wk->fail_status != OP_OK && k >= wk->fail_k)
                break;
        }
        if (!clip_one(j, wk, k, &st, zb0, zb1))
            return;
        if (wk->fail_status != OP_OK && k >= wk->fail_k)
            break; /* this one failed */
    }
    if (w->n && !flush_window(j, wk, w, zb0, zb1, z_emit))
        return;

    /* The band's columns, appended in cell order, in one pass: the pool's slots taken
     * bound the band's spans; when that bound passes the arrays' room, the exact count.
     * Arrays that must grow grow to the run's spans so far (this band's included)
     * extrapolated over the run's rows, and a quarter more, at least by half: a
     * realloc that moves the arrays copies them into fresh pages, which is most of what
     * growing costs once the allocator serves these sizes from its heap (a process's
     * later calls: glibc raises its mmap threshold to the size of a freed block), so
     * they should grow about once. rasterize() shrinks them to the spans at the end. */
    uint64_t need = (uint64_t)wk->used + p->used;
    if (need > wk->cap) {
        uint64_t n = 0;
        for (uint32_t c = 0; c < cells; c++)
            if (p->s[c].smin <= p->s[c].smax)
                for (uint32_t s = c; s != BAND_NONE; s = p->s[s].next)
                    n++;
        need = (uint64_t)wk->used + n;
        const uint64_t want = need * (wk->row_end - wk->row0) / (wk->row1 - wk->row0);
        if (!worker_reserve(a, wk, need, want + want / 4)) {
            worker_fail(wk, 0, OP_NO_MEMORY, "out of memory for the spans of a band");
            return;
        }
    }
    const pool_span *ps = p->s;
    uint16_t *omin = wk->smin, *omax = wk->smax;
    uint8_t *oarea = wk->area;
    uint32_t used = wk->used;
    /* Fresh memory (the span arrays grow by realloc, the columns come from calloc): the
     * pages this pass writes mapped by one call each instead of a page fault per page
     * (docs/decisions/bake-speed.md, round 8). The columns' range is written whole; the
     * spans' is the bound above, which the next band's spans fill where this one's do
     * not. */
    const uint32_t bound = p->used < wk->cap - used ? p->used : wk->cap - used;
    const size_t all = (size_t)hf->width * hf->depth;
    prefault_part(omin, sizeof *omin, wk->cap, used, bound);
    prefault_part(omax, sizeof *omax, wk->cap, used, bound);
    prefault_part(oarea, 1, wk->cap, used, bound);
    prefault_part(hf->first, sizeof *hf->first, all + 1, c0, cells);
    for (uint32_t c = 0; c < cells; c++) {
        const uint32_t first = used;
        if (ps[c].smin <= ps[c].smax) {
            uint32_t s = c;
            do {
                omin[used] = ps[s].smin;
                omax[used] = ps[s].smax;
                oarea[used] = ps[s].area;
                used++;
                s = ps[s].next;
            } while (s != BAND_NONE);
        }
        hf->first[c0 + c] = first; /* the column ends at the next one's first */
    }
    wk->used = used;
}

static void worker_free(const op_allocator *a, band_worker *wk)
{
    op_mem_free(a, wk->pool.s);
    op_mem_free(a, wk->pieces);
    op_mem_free(a, wk->win);
    op_mem_free(a, wk->cin);
    op_mem_free(a, wk->cout);
    op_mem_free(a, wk->smin);
    op_mem_free(a, wk->smax);
    op_mem_free(a, wk->area);
}

static int worker_init(const raster_job *j, band_worker *wk)
{
    const op_allocator *a = &j->hf->alloc;
    memset(wk, 0, sizeof *wk);
    const size_t cells = (size_t)j->band * j->hf->width;
    if (cells > OP_HF_MAX_SPANS - 4096)
        return 0;
    wk->pool.cells = (uint32_t)cells;
    wk->carry_hint = j->hf->width > 256 ? j->hf->width : 256;
    wk->pieces = op_mem_array(a, cells, sizeof(op_piece));
    wk->win = op_mem_calloc(a, 1, sizeof *wk->win); /* unused lanes read zeros */
    return wk->pieces && wk->win && pool_grow(a, &wk->pool);
}

/* Rows per band: about 64k cells, at least one row. */
static int band_rows(uint32_t width)
{
    const uint32_t r = 65536u / (width ? width : 1);
    return r ? (int)r : 1;
}

static op_status rasterize(raster_job *j)
{
    op_ctx *ctx = j->ctx;
    op_heightfield *hf = j->hf;
    const op_allocator *a = &hf->alloc;
    if (j->climb < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_climb must be >= 0 (got %d)",
                       j->climb);
    if (j->count && (!j->mesh->tris || !j->mesh->verts))
        return op_fail(ctx, OP_BAD_INPUT, "mesh has %u triangles but no arrays",
                       j->mesh->tri_count);
    if (hf->world_width == 0 || hf->world_depth == 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "heightfield without a grid");
    j->g.bmin[0] = hf->bmin[0];
    j->g.bmin[1] = hf->bmin[1];
    j->g.bmin[2] = hf->bmin[2];
    j->g.cs = hf->cs;
    j->g.ics = 1.0f / hf->cs;
    j->g.ich = 1.0f / hf->ch;
    j->g.by = hf->bmax[1] - hf->bmin[1];
    j->g.w = (int)hf->world_width;
    j->g.h = (int)hf->world_depth;
    j->clip = ctx ? ctx->k->raster.clip_rows : op_clip_rows_scalar;
    /* The batch kernel where the grid's numbers are within 2^120 (as op_clip_rows). */
    const float lim = 1.329228e36f;
    j->batch = ctx && ctx->k->raster.clip_batch != op_clip_batch_scalar &&
                       fabsf(j->g.bmin[0]) <= lim && fabsf(j->g.bmin[2]) <= lim &&
                       (float)j->g.w * j->g.cs <= lim && (float)j->g.h * j->g.cs <= lim
                   ? ctx->k->raster.clip_batch
                   : NULL;
    window_of(j);
    if (j->x_lo > j->x_hi || j->z_lo > j->z_hi) {
        /* The window lies outside the world: nothing to draw, but the checks stand. */
        for (uint32_t k = 0; k < j->count; k++) {
            const uint32_t i = tri_of(j, k);
            if (i >= j->mesh->tri_count)
                return op_fail(ctx, OP_INVALID_ARGUMENT, "triangle list entry %u is %u of %u",
                               k, i, j->mesh->tri_count);
            op_status st = check_tri(ctx, j->mesh, i);
            if (st != OP_OK)
                return st;
        }
        return OP_OK;
    }
    j->band = band_rows(hf->width);
    j->nbands = (uint32_t)((j->z_hi - j->z_lo) / j->band + 1);

    const op_arena_mark mark = ctx ? op_arena_get_mark(&ctx->arena) : (op_arena_mark){0};
    op_status st = bin_triangles(j);
    /* Threads take runs of bands (each run continues its triangles from band to band
     * and replays rows before its first band); one thread takes them all. */
    const int T = op_grid_threads(ctx, j->nbands);
    band_worker *wks = NULL;
    band_worker wk;
    memset(&wk, 0, sizeof wk);
    if (st == OP_OK && T > 1) {
        wks = op_mem_calloc(a, (size_t)T, sizeof *wks);
        if (!wks)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %d band workers", T);
    }
    /* Columns of rows outside the world keep their (absent) spans: clear them in the
     * new layout, then the bands fill the rest. */
    uint32_t *old_first = NULL, *old_end = NULL;
    const int had_spans = hf->span_count != 0;
    if (st == OP_OK && had_spans) {
        const size_t cells = (size_t)hf->width * hf->depth;
        old_first = op_mem_array(a, cells, sizeof(uint32_t));
        old_end = op_mem_array(a, cells, sizeof(uint32_t));
        if (!old_first || !old_end)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %zu columns", cells);
        else {
            memcpy(old_first, hf->first, cells * sizeof(uint32_t));
            memcpy(old_end, op_heightfield_ends(hf), cells * sizeof(uint32_t));
            j->old_first = old_first;
            j->old_end = old_end;
        }
    }
    if (st == OP_OK && T <= 1) {
        if (!worker_init(j, &wk))
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for a band of %d rows", j->band);
        else {
            wk.row_end = (uint32_t)(j->z_hi - j->z_lo + 1);
            const uint32_t step = j->nbands / 16 ? j->nbands / 16 : 1;
            for (uint32_t b = 0; b < j->nbands; b++) {
                do_band(j, &wk, b, b > 0);
                if (wk.fail_status == OP_NO_MEMORY)
                    break;
                if (!j->list && (b + 1) % step == 0)
                    op_progress(ctx, "spans", 0.8 * (double)(b + 1) / (double)j->nbands);
            }
        }
    } else if (st == OP_OK) {
        /* Runs of bands of about equal work (triangle-band pairs plus cells). */
        uint32_t *run = op_mem_array(a, (size_t)T + 1, sizeof(uint32_t));
        if (!run)
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %d band runs", T);
        else {
            const uint64_t cells_per_band = (uint64_t)j->band * hf->width / 16 + 1;
            const uint64_t total = j->bin_first[j->nbands] + cells_per_band * j->nbands;
            uint64_t acc = 0;
            int t = 1;
            run[0] = 0;
            for (uint32_t b = 0; b < j->nbands && t < T; b++) {
                acc += j->bin_first[b + 1] - j->bin_first[b] + cells_per_band;
                while (t < T && acc * (uint64_t)T >= total * (uint64_t)t)
                    run[t++] = b + 1;
            }
            while (t <= T)
                run[t++] = j->nbands;
            OP_PRAGMA(omp parallel for num_threads(T) schedule(static, 1))
            for (int g = 0; g < T; g++) {
                band_worker *w = &wks[g];
                if (!worker_init(j, w)) {
                    worker_fail(w, 0, OP_NO_MEMORY, "out of memory for a band of rows");
                    continue;
                }
                const uint64_t rows = (uint64_t)run[g + 1] * (uint64_t)j->band;
                w->row_end = (uint32_t)(rows < (uint64_t)(j->z_hi - j->z_lo + 1)
                                            ? rows
                                            : (uint64_t)(j->z_hi - j->z_lo + 1));
                for (uint32_t b = run[g]; b < run[g + 1]; b++) {
                    do_band(j, w, b, b > run[g]);
                    if (w->fail_status == OP_NO_MEMORY)
                        break;
                }
            }
            op_mem_free(a, run);
            /* The first failure in input order (the lowest run on a tie: its bands come
             * first, as the reference meets them), else out of memory anywhere. */
            int nomem = -1, bad = -1;
            for (int g = 0; g < T; g++) {
                if (wks[g].fail_status == OP_NO_MEMORY && nomem < 0)
                    nomem = g;
                else if (wks[g].fail_status != OP_OK &&
                         (bad < 0 || wks[g].fail_k < wks[bad].fail_k))
                    bad = g;
            }
            if (nomem >= 0) {
                wk.fail_status = OP_NO_MEMORY;
                memcpy(wk.fail_msg, wks[nomem].fail_msg, sizeof wk.fail_msg);
            } else if (bad >= 0) {
                wk.fail_status = wks[bad].fail_status;
                wk.fail_k = wks[bad].fail_k;
                memcpy(wk.fail_msg, wks[bad].fail_msg, sizeof wk.fail_msg);
            }
            /* The runs' spans, one after the other (their columns are in cell order). */
            uint64_t used = 0;
            for (int g = 0; g < T; g++)
                used += wks[g].used;
            if (wk.fail_status == OP_OK && !worker_reserve(a, &wk, used ? used : 1, 0)) {
                wk.fail_status = OP_NO_MEMORY;
                snprintf(wk.fail_msg, sizeof wk.fail_msg, "out of memory for %llu spans",
                         (unsigned long long)used);
            }
            if (wk.fail_status == OP_OK) {
                uint32_t *off = op_mem_array(a, (size_t)T + 1, sizeof(uint32_t));
                if (!off) {
                    wk.fail_status = OP_NO_MEMORY;
                    snprintf(wk.fail_msg, sizeof wk.fail_msg, "out of memory for %d runs", T);
                } else {
                    off[0] = 0;
                    for (int g = 0; g < T; g++)
                        off[g + 1] = off[g] + wks[g].used;
                    OP_PRAGMA(omp parallel for num_threads(T) schedule(static, 1))
                    for (int g = 0; g < T; g++) {
                        const band_worker *w = &wks[g];
                        if (w->used) {
                            memcpy(wk.smin + off[g], w->smin,
                                   (size_t)w->used * sizeof *wk.smin);
                            memcpy(wk.smax + off[g], w->smax,
                                   (size_t)w->used * sizeof *wk.smax);
                            memcpy(wk.area + off[g], w->area, w->used);
                        }
                        /* Also a run without spans: its columns' first is the prefix
                         * sum (each column ends at the next one's first). */
                        if (!off[g])
                            continue;
                        /* The run's cells: rows of its bands. */
                        const size_t c0 = (size_t)(j->z_lo - j->oz + (int)w->row0) * hf->width;
                        const size_t c1 = (size_t)(j->z_lo - j->oz + (int)w->row1) * hf->width;
                        for (size_t c = c0; c < c1; c++)
                            hf->first[c] += off[g];
                    }
                    wk.used = off[T];
                    op_mem_free(a, off);
                }
            }
        }
    }
    if (st == OP_OK) {
        /* The first failure in input order: a clip failure of an earlier triangle, or
         * the check of the first bad one. */
        if (wk.fail_status == OP_NO_MEMORY)
            st = op_fail(ctx, OP_NO_MEMORY, "%s", wk.fail_msg);
        else if (wk.fail_status != OP_OK && wk.fail_k < j->valid)
            st = op_fail(ctx, wk.fail_status, "%s", wk.fail_msg);
        else if (j->bad_status != OP_OK)
            st = op_fail(ctx, j->bad_status, "%s", j->bad_msg);
    }
    if (st == OP_OK) {
        /* Rows of the window outside the world, and columns left and right of it, are
         * empty (spans only come from the world): the field is the bands' spans, with
         * the old spans of those columns kept after them. */
        const size_t cells = (size_t)hf->width * hf->depth;
        const size_t c0 = (size_t)(j->z_lo - j->oz) * hf->width;
        const size_t c1 = (size_t)(j->z_hi - j->oz + 1) * hf->width;
        uint64_t extra = 0;
        for (size_t c = 0; c < cells && had_spans; c++)
            if (c < c0 || c >= c1)
                extra += old_end[c] - old_first[c];
        /* With such spans the columns' ends are kept in hf->end (spans.h). */
        uint32_t *end = extra ? hf->end : NULL;
        if (extra && !end)
            end = op_mem_array(a, cells, sizeof(uint32_t));
        if (extra && (!end || !worker_reserve(a, &wk, (uint64_t)wk.used + extra, 0))) {
            if (end != hf->end)
                op_mem_free(a, end);
            st = op_fail(ctx, OP_NO_MEMORY, "out of memory for the spans of the field");
        } else {
            const uint32_t bands_used = wk.used;
            if (extra) {
                for (size_t c = c0; c < c1; c++)
                    end[c] = c + 1 < c1 ? hf->first[c + 1] : bands_used;
                for (size_t c = 0; c < cells; c++) {
                    if (c >= c0 && c < c1)
                        continue;
                    const uint32_t s0 = old_first[c], n = old_end[c] - s0;
                    memcpy(wk.smin + wk.used, hf->smin + s0, n * sizeof *wk.smin);
                    memcpy(wk.smax + wk.used, hf->smax + s0, n * sizeof *wk.smax);
                    memcpy(wk.area + wk.used, hf->area + s0, n);
                    hf->first[c] = wk.used;
                    end[c] = wk.used + n;
                    wk.used += n;
                }
            } else {
                /* The prefix sum: rows before the bands' are empty at 0, rows after
                 * them (and the end of the last column) at the bands' spans. */
                for (size_t c = 0; c < c0; c++)
                    hf->first[c] = 0;
                for (size_t c = c1; c <= cells; c++)
                    hf->first[c] = bands_used;
                if (hf->end)
                    op_mem_free(&hf->alloc, hf->end);
            }
            hf->end = end;
            if (wk.used && wk.cap > wk.used)
                worker_resize(a, &wk, wk.used); /* in place (a failure keeps the arrays) */
            op_hf_spans_free(hf);
            hf->smin = wk.smin;
            hf->smax = wk.smax;
            hf->area = wk.area;
            hf->span_cap = wk.cap;
            hf->span_used = wk.used;
            hf->span_count = wk.used;
            wk.smin = wk.smax = NULL;
            wk.area = NULL;
            /* Packed only when no column outside the bands has spans (their spans sit
             * after the bands'). */
            hf->packed = extra == 0;
            hf->tail_cell = 0;
            const uint32_t *ends = op_heightfield_ends(hf);
            for (size_t c = cells; c-- > 0;)
                if (ends[c] != hf->first[c]) {
                    hf->tail_cell = (uint32_t)c;
                    break;
                }
        }
    }
    if (st != OP_OK) {
        /* The field is left as it was (its end, if any, untouched; first only changed
         * once the copies were made). */
        const size_t cells = (size_t)hf->width * hf->depth;
        if (j->old_first) {
            memcpy(hf->first, old_first, cells * sizeof(uint32_t));
        } else if (!had_spans) {
            memset(hf->first, 0, (cells + 1) * sizeof(uint32_t));
            op_mem_free(&hf->alloc, hf->end);
            hf->end = NULL;
        }
    }
    worker_free(a, &wk);
    if (wks)
        for (int g = 0; g < T; g++)
            worker_free(a, &wks[g]);
    op_mem_free(a, wks);
    op_mem_free(a, old_first);
    op_mem_free(a, old_end);
    op_mem_free(a, j->bin_first);
    if (ctx) {
        op_arena_release(&ctx->arena, mark);
    } else {
        op_mem_free(a, j->bin);
        op_mem_free(a, j->rows);
    }
    op_mem_free(a, j->band_at);
    return st;
}

op_status op_rasterize_triangles(op_ctx *ctx, op_heightfield *hf, const op_mesh *mesh,
                                 const uint8_t *tri_areas, int walkable_climb)
{
    raster_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.hf = hf;
    j.mesh = mesh;
    j.tri_areas = tri_areas;
    j.count = mesh->tri_count;
    j.climb = walkable_climb;
    return rasterize(&j);
}

op_status op_rasterize_triangle_list(op_ctx *ctx, op_heightfield *hf, const op_mesh *mesh,
                                     const uint8_t *tri_areas, const uint32_t *list,
                                     uint32_t count, int walkable_climb)
{
    raster_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.hf = hf;
    j.mesh = mesh;
    j.tri_areas = tri_areas;
    j.list = list;
    j.count = list ? count : mesh->tri_count;
    j.climb = walkable_climb;
    return rasterize(&j);
}
