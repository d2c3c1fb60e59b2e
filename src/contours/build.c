/* Contour set driver (regions-contours §6 Output, §7 defaults): validation, tracing,
 * per-region simplification, hole assignment and joining, the post-join fallback and
 * the spiral rule; the set's storage (its digest is in io/digest.c). */
#include "contours/contours_internal.h"
#include "core/alloc.h"
#include "core/array.h"

#include <math.h>
#if OP_HAVE_OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>


void op_contour_settings_defaults(op_contour_settings *s)
{
    memset(s, 0, sizeof *s);
    s->max_error = 1.3;
    s->max_edge_len = 12;
    s->straight_region_borders = 1;
    s->border_region = 0;
    s->keep_raw = 0;
}

op_status op_contour_settings_validate(op_ctx *ctx, const op_contour_settings *s)
{
    if (!s)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "contour settings are NULL");
    if (!isfinite(s->max_error) || s->max_error < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "contour max_error %g must be finite and >= 0", s->max_error);
    if (s->max_edge_len < 0)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "contour max_edge_len %d must be >= 0",
                       (int)s->max_edge_len);
    if (s->border_region == OP_TILE_BORDER)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "contour border_region 0xffffffff collides with TileBorder");
    return OP_OK;
}

void op_contour_set_free(op_contour_set *set)
{
    if (!set)
        return;
    const op_allocator a = set->alloc;
    op_mem_free(&a, set->contours);
    op_mem_free(&a, set->vert_storage);
    op_mem_free(&a, set->size_storage);
    memset(set, 0, sizeof *set);
}

/* ---- growable output -------------------------------------------------------------- */

typedef struct ctmp {
    uint32_t region, flags, hole_count, vcount, rcount, rhcount;
    uint8_t area;
    size_t voff, roff, rhsz_off, rhv_off;
} ctmp;

typedef struct cbuild {
    op_contour_vert *v;
    size_t vn, vcap;
    uint32_t *sz;
    size_t sn, scap;
    ctmp *c;
    uint32_t cn, ccap;
    const op_allocator *al; /* the set's allocator */
} cbuild;

static int grow(cbuild *b, void **p, size_t *cap, size_t need, size_t elem)
{
    return op_array_grow(b->al, p, cap, need, elem, SIZE_MAX) == OP_OK ? 0 : -1;
}

static int push_verts(cbuild *b, const op_contour_vert *src, size_t n, size_t *off)
{
    if (grow(b, (void **)&b->v, &b->vcap, b->vn + n, sizeof *b->v))
        return -1;
    memcpy(b->v + b->vn, src, n * sizeof *src);
    *off = b->vn;
    b->vn += n;
    return 0;
}

/* ---- per region ------------------------------------------------------------------- */

typedef struct cloopw {
    const op_contour_vert *raw;
    uint32_t raw_n;
    int64_t raw_area2;
    op_contour_vert *simp;
    uint32_t simp_n;
    int64_t simp_area2;
    int kind;
    uint32_t lm;      /* leftmost simplified vertex */
    uint32_t owner;   /* hole: outline index in the region's loop list, or UINT32_MAX */
    uint32_t disc;    /* discovery rank within the region */
} cloopw;

typedef struct jhole {
    const op_contour_vert *v;
    uint32_t n, disc;
    int32_t lx, lz;
} jhole;

static int cmp_jhole(const void *pa, const void *pb)
{
    const jhole *a = pa, *b = pb;
    if (a->lx != b->lx)
        return a->lx < b->lx ? -1 : 1;
    if (a->lz != b->lz)
        return a->lz < b->lz ? -1 : 1;
    return a->disc < b->disc ? -1 : (a->disc > b->disc);
}

/* Joins holes (given in discovery order) into the outline, in the order of their
 * leftmost vertices (supplement §9.12). */
static op_status join_holes(op_ctx *ctx, const op_contour_vert *ov, uint32_t on, jhole *jh,
                            uint32_t hc, uint32_t region, op_contour_vert **merged,
                            uint32_t *mn, uint32_t *dropped)
{
    size_t cap = on;
    for (uint32_t h = 0; h < hc; h++) {
        const uint32_t l = op__leftmost(jh[h].v, jh[h].n);
        jh[h].lx = jh[h].v[l].x;
        jh[h].lz = jh[h].v[l].z;
        cap += (size_t)jh[h].n + 2;
    }
    qsort(jh, hc, sizeof *jh, cmp_jhole);
    const op_contour_vert **hv = op_scratch(ctx, hc, sizeof *hv);
    uint32_t *hn = op_scratch(ctx, hc, sizeof *hn);
    uint8_t *joined = op_scratch(ctx, hc, 1);
    *merged = op_scratch(ctx, cap, sizeof **merged);
    if (!hv || !hn || !joined || !*merged)
        return OP_NO_MEMORY;
    for (uint32_t h = 0; h < hc; h++) {
        hv[h] = jh[h].v;
        hn[h] = jh[h].n;
    }
    op_status st = op__contour_join(ctx, ov, on, hv, hn, hc, region, *merged, mn, joined);
    if (st != OP_OK)
        return st;
    *dropped = 0;
    for (uint32_t h = 0; h < hc; h++)
        *dropped += !joined[h];
    return OP_OK;
}

/* Simplifies every outline and hole of a region on its own (regions-contours §6) and
 * lists the outlines (positive loops) in discovery order. */
static op_status simplify_loops(op_ctx *ctx, const op_ctrace *tr, const uint32_t *loops,
                                uint32_t nl, const op_csimp *sp, cloopw *w, uint32_t *outl,
                                uint32_t *no, uint32_t *raw_fb)
{
    *no = 0;
    for (uint32_t i = 0; i < nl; i++) {
        const op_cloop *L = &tr->loops[loops[i]];
        cloopw *c = &w[i];
        memset(c, 0, sizeof *c);
        op_contour_vert *raw = op_scratch(ctx, L->count, sizeof *raw);
        if (!raw)
            return OP_NO_MEMORY;
        op__contour_loop_copy(tr, loops[i], raw);
        c->raw = raw;
        c->raw_n = L->count;
        c->raw_area2 = op__loop_area2(raw, L->count);
        c->disc = i;
        c->owner = UINT32_MAX;
        if (c->raw_area2 == 0)
            continue; /* supplement §9.6: a slit is neither outline nor hole */
        c->simp = op_scratch(ctx, L->count, sizeof *c->simp);
        if (!c->simp)
            return OP_NO_MEMORY;
        op_status st = op__contour_simplify(ctx, c->raw, c->raw_n, c->raw_area2, sp, c->simp,
                                            &c->simp_n, &c->kind);
        if (st != OP_OK)
            return st;
        if (c->kind == OP_SIMP_RAW)
            (*raw_fb)++;
        c->simp_area2 = op__loop_area2(c->simp, c->simp_n);
        c->lm = op__leftmost(c->simp, c->simp_n);
        if (c->raw_area2 > 0)
            outl[(*no)++] = i;
    }
    return OP_OK;
}

/* Assigns each hole to the smallest simplified outline containing its leftmost
 * simplified vertex (supplement §9.12); nholes[i] counts the holes of outline i. A hole
 * no outline contains is dropped. */
static void assign_holes(cloopw *w, uint32_t nl, const uint32_t *outl, uint32_t no,
                         uint32_t *nholes, uint32_t *dropped_holes)
{
    memset(nholes, 0, nl * sizeof *nholes);
    for (uint32_t i = 0; i < nl; i++) {
        cloopw *c = &w[i];
        if (c->raw_area2 >= 0)
            continue;
        const op_contour_vert *t = &c->simp[c->lm];
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < no; k++) {
            const cloopw *o = &w[outl[k]];
            if ((best == UINT32_MAX || o->simp_area2 < w[best].simp_area2) &&
                op__point_in_loop(t, o->simp, o->simp_n))
                best = outl[k];
        }
        c->owner = best;
        if (best == UINT32_MAX)
            (*dropped_holes)++;
        else
            nholes[best]++;
    }
}

/* The hole loops of outline oi in discovery order, simplified (raw == 0) or raw. */
static void list_holes(const cloopw *w, uint32_t nl, uint32_t oi, int raw, jhole *jh)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < nl; i++)
        if (w[i].owner == oi) {
            jh[h].v = raw ? w[i].raw : w[i].simp;
            jh[h].n = raw ? w[i].raw_n : w[i].simp_n;
            jh[h].disc = i;
            h++;
        }
}

/* Joins the hc holes of outline oi into it (regions-contours §6 Holes) with the
 * post-join fallback to raw loops and the spiral rule; sets *fv / *fn to the contour's
 * final loop and adds to ct->flags. */
static op_status join_outline_holes(op_ctx *ctx, const cloopw *w, uint32_t nl, uint32_t oi,
                                    uint32_t hc, uint32_t r, ctmp *ct,
                                    const op_contour_vert **fv, uint32_t *fn, uint32_t *raw_fb,
                                    uint32_t *dropped_holes)
{
    const cloopw *o = &w[oi];
    jhole *jh = op_scratch(ctx, hc, sizeof *jh);
    if (!jh)
        return OP_NO_MEMORY;
    list_holes(w, nl, oi, 0, jh);
    op_contour_vert *merged;
    uint32_t mn, dropped;
    op_status st = join_holes(ctx, o->simp, o->simp_n, jh, hc, r, &merged, &mn, &dropped);
    if (st != OP_OK)
        return st;
    int crosses = 0;
    if (op__loop_crosses(ctx, merged, mn, &crosses))
        return OP_NO_MEMORY;
    const op_contour_vert *base = o->simp;
    uint32_t base_n = o->simp_n;
    if (crosses) {
        /* §6: discard the outline and its holes for their raw loops, joined by
         * the same rule, raw holes in their own leftmost order (§9.11, §9.12). */
        (*raw_fb)++;
        ct->flags |= OP_CONTOUR_JOIN_RAW;
        list_holes(w, nl, oi, 1, jh);
        st = join_holes(ctx, o->raw, o->raw_n, jh, hc, r, &merged, &mn, &dropped);
        if (st != OP_OK)
            return st;
        base = o->raw;
        base_n = o->raw_n;
    }
    *fv = merged;
    *fn = mn;
    /* The spiral rule, checked last. */
    if (op__loop_area2(merged, mn) <= 0) {
        dropped = hc;
        *fv = base;
        *fn = base_n;
        ct->flags |= OP_CONTOUR_SPIRAL;
    }
    if (dropped)
        ct->flags |= OP_CONTOUR_DROPPED_HOLES;
    *dropped_holes += dropped;
    return OP_OK;
}

/* Appends contour ct with final loop fv / fn to the set being built; with keep_raw also
 * the raw outline of outline oi and its raw holes in discovery order. */
static op_status push_contour(cbuild *b, ctmp *ct, const op_contour_vert *fv, uint32_t fn,
                              const cloopw *w, uint32_t nl, uint32_t oi, int keep_raw)
{
    const cloopw *o = &w[oi];
    const uint32_t hc = ct->hole_count;
    if (push_verts(b, fv, fn, &ct->voff))
        return OP_NO_MEMORY;
    ct->vcount = fn;
    if (keep_raw) {
        if (push_verts(b, o->raw, o->raw_n, &ct->roff))
            return OP_NO_MEMORY;
        ct->rcount = o->raw_n;
        ct->rhcount = hc;
        ct->rhsz_off = b->sn;
        ct->rhv_off = b->vn;
        if (grow(b, (void **)&b->sz, &b->scap, b->sn + hc, sizeof *b->sz))
            return OP_NO_MEMORY;
        for (uint32_t i = 0; i < nl; i++) /* raw holes in discovery order */
            if (w[i].owner == oi) {
                size_t off;
                if (push_verts(b, w[i].raw, w[i].raw_n, &off))
                    return OP_NO_MEMORY;
                b->sz[b->sn++] = w[i].raw_n;
            }
    }
    if (b->cn == b->ccap &&
        op_array_grow32(b->al, (void **)&b->c, &b->ccap, (uint64_t)b->cn + 1, sizeof *b->c,
                        UINT32_MAX) != OP_OK)
        return OP_NO_MEMORY;
    b->c[b->cn++] = *ct;
    return OP_OK;
}

/* One region's contours (regions-contours §6): simplify its loops, give each hole an
 * outline, then one contour per outline in discovery order. */
static op_status build_region(op_ctx *ctx, const op_ctrace *tr, const uint32_t *loops,
                              uint32_t nl, uint32_t r, const op_csimp *sp,
                              const op_contour_settings *set, cbuild *b, uint32_t *raw_fb,
                              uint32_t *dropped_holes)
{
    cloopw *w = op_scratch(ctx, nl, sizeof *w);
    uint32_t *outl = op_scratch(ctx, nl, sizeof *outl);
    if (!w || !outl)
        return OP_NO_MEMORY;
    uint32_t no;
    op_status st = simplify_loops(ctx, tr, loops, nl, sp, w, outl, &no, raw_fb);
    if (st != OP_OK)
        return st;
    uint32_t *nholes = op_scratch(ctx, nl, sizeof *nholes);
    if (!nholes)
        return OP_NO_MEMORY;
    assign_holes(w, nl, outl, no, nholes, dropped_holes);
    for (uint32_t k = 0; k < no; k++) {
        op_arena_mark mark = op_arena_get_mark(&ctx->arena);
        const uint32_t oi = outl[k];
        const cloopw *o = &w[oi];
        const uint32_t hc = nholes[oi];
        ctmp ct;
        memset(&ct, 0, sizeof ct);
        ct.region = r;
        ct.area = sp->area;
        ct.hole_count = hc;
        if (o->kind == OP_SIMP_RAW)
            ct.flags |= OP_CONTOUR_OUTLINE_RAW;
        else if (o->kind == OP_SIMP_RETRY0)
            ct.flags |= OP_CONTOUR_OUTLINE_RETRY0;
        else if (o->kind == OP_SIMP_REFINED)
            ct.flags |= OP_CONTOUR_OUTLINE_REFINED;
        const op_contour_vert *fv = o->simp;
        uint32_t fn = o->simp_n;
        if (hc && (st = join_outline_holes(ctx, w, nl, oi, hc, r, &ct, &fv, &fn, raw_fb,
                                           dropped_holes)) != OP_OK)
            return st;
        if ((st = push_contour(b, &ct, fv, fn, w, nl, oi, set->keep_raw)) != OP_OK)
            return st;
        op_arena_release(&ctx->arena, mark);
    }
    return OP_OK;
}

/* ---- Regions in chunks (threads) ----------------------------------------------------- */

typedef struct cchunk {
    uint32_t r0, r1; /* regions [r0, r1) */
    cbuild b;
    uint32_t raw_fb, dropped;
    op_status st;
} cchunk;

typedef struct cregions_in {
    const op_ctrace *tr;
    const uint32_t *order, *off;
    const uint8_t *rarea8;
    uint32_t region_count;
    const op_contour_settings *settings;
} cregions_in;

/* Regions [r0, r1) into the chunk's own output, with ctx's arena as scratch; progress
 * per region when ctx is the caller's and this is the only chunk. */
static op_status build_regions(op_ctx *ctx, const cregions_in *in, uint32_t r0, uint32_t r1,
                               cchunk *c, int report)
{
    const op_contour_settings *settings = in->settings;
    op_csimp sp;
    sp.max_error = settings->max_error;
    sp.max_edge_len = settings->max_edge_len;
    sp.straight = settings->straight_region_borders != 0;
    sp.border_region = settings->border_region;
    sp.region_area = in->rarea8;
    sp.region_count = in->region_count;
    for (uint32_t r = r0; r < r1; r++) {
        const uint32_t nl = in->off[r + 1] - in->off[r];
        if (!nl)
            continue;
        sp.area = in->rarea8[r];
        op_arena_mark rm = op_arena_get_mark(&ctx->arena);
        const op_status st = build_region(ctx, in->tr, in->order + in->off[r], nl, r, &sp,
                                          settings, &c->b, &c->raw_fb, &c->dropped);
        op_arena_release(&ctx->arena, rm);
        if (st != OP_OK)
            return st;
        if (report)
            op_progress(ctx, "contours", (double)r / in->region_count);
    }
    return OP_OK;
}

/* The chunks' contours, in order, as one set (a lone chunk's storage is handed over). */
static op_status join_chunks(op_ctx *ctx, cchunk *ch, uint32_t nch, int keep_raw,
                             op_contour_set *out)
{
    const op_allocator *al = &ctx->alloc;
    size_t vn = 0, sn = 0, cn = 0;
    uint32_t raw_fb = 0, dropped = 0;
    for (uint32_t k = 0; k < nch; k++) {
        vn += ch[k].b.vn;
        sn += ch[k].b.sn;
        cn += ch[k].b.cn;
        raw_fb += ch[k].raw_fb;
        dropped += ch[k].dropped;
    }
    if (cn > UINT32_MAX - 1)
        return op_fail(ctx, OP_UNSUPPORTED, "%zu contours exceed 2^32 - 2", cn);
    cbuild b;
    memset(&b, 0, sizeof b);
    if (nch == 1) {
        b = ch[0].b;
        memset(&ch[0].b, 0, sizeof ch[0].b);
    } else {
        b.v = op_mem_array(al, vn ? vn : 1, sizeof *b.v);
        b.sz = sn ? op_mem_array(al, sn, sizeof *b.sz) : NULL;
        b.c = op_mem_array(al, cn ? cn : 1, sizeof *b.c);
        if (!b.v || (sn && !b.sz) || !b.c) {
            op_mem_free(al, b.v);
            op_mem_free(al, b.sz);
            op_mem_free(al, b.c);
            return op_fail(ctx, OP_NO_MEMORY, "out of memory building contours");
        }
        for (uint32_t k = 0; k < nch; k++) {
            const cbuild *x = &ch[k].b;
            if (x->vn)
                memcpy(b.v + b.vn, x->v, x->vn * sizeof *b.v);
            if (x->sn)
                memcpy(b.sz + b.sn, x->sz, x->sn * sizeof *b.sz);
            for (uint32_t i = 0; i < x->cn; i++) {
                ctmp t = x->c[i];
                t.voff += b.vn;
                t.roff += b.vn;
                t.rhv_off += b.vn;
                t.rhsz_off += b.sn;
                b.c[b.cn++] = t;
            }
            b.vn += x->vn;
            b.sn += x->sn;
        }
    }
    /* Hand the storage to the set and turn offsets into pointers. */
    out->contours = op_mem_array(al, b.cn ? b.cn : 1, sizeof *out->contours);
    if (!out->contours) {
        op_mem_free(al, b.v);
        op_mem_free(al, b.sz);
        op_mem_free(al, b.c);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory building contours");
    }
    out->alloc = ctx->alloc;
    out->count = b.cn;
    out->raw_fallbacks = raw_fb;
    out->dropped_holes = dropped;
    out->vert_storage = b.v;
    out->vert_storage_count = b.vn;
    out->size_storage = b.sz;
    out->size_storage_count = b.sn;
    for (uint32_t i = 0; i < b.cn; i++) {
        const ctmp *t = &b.c[i];
        op_contour *c = &out->contours[i];
        memset(c, 0, sizeof *c);
        c->region = t->region;
        c->area = t->area;
        c->vert_count = t->vcount;
        c->verts = b.v + t->voff;
        c->hole_count = t->hole_count;
        c->flags = t->flags;
        if (keep_raw) {
            c->raw_count = t->rcount;
            c->raw = b.v + t->roff;
            c->raw_hole_count = t->rhcount;
            c->raw_hole_sizes = b.sz ? b.sz + t->rhsz_off : NULL;
            c->raw_holes = b.v + t->rhv_off;
        }
    }
    op_mem_free(al, b.c);
    return OP_OK;
}

/* The first span that breaks the region rules of op_build_contours (ids in
 * 1..region_count unless 0 or the band's, area not 0, one area per region), in span
 * order, for the message; the trace found that one exists. */
static op_status region_error(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                              uint32_t region_count, uint32_t br)
{
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint16_t *rarea = op_scratch(ctx, (size_t)region_count + 1, sizeof *rarea);
    if (!rarea)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u region areas", region_count);
    memset(rarea, 0xff, ((size_t)region_count + 1) * sizeof *rarea);
    op_status st = OP_OK;
    for (uint32_t s = 0; s < chf->span_count && st == OP_OK; s++) {
        const uint32_t r = region[s];
        if (r == 0 || (br != 0 && r == br))
            continue;
        if (r > region_count)
            st = op_fail(ctx, OP_BAD_INPUT, "span %u has region %u outside 1..%u", s, r,
                         region_count);
        else if (chf->area[s] == 0)
            st = op_fail(ctx, OP_BAD_INPUT, "span %u has region %u but area 0", s, r);
        else if (rarea[r] != 0xffff && rarea[r] != chf->area[s])
            st = op_fail(ctx, OP_BAD_INPUT, "region %u has spans of areas %u and %u", r,
                         (unsigned)rarea[r], (unsigned)chf->area[s]);
        else
            rarea[r] = chf->area[s];
    }
    op_arena_release(&ctx->arena, mark);
    if (st == OP_OK)
        st = op_fail(ctx, OP_INTERNAL, "contour region check: no offending span found");
    return st;
}

op_status op_build_contours(op_ctx *ctx, const op_chf *chf, const uint32_t *region,
                            uint32_t region_count, const op_contour_settings *settings,
                            op_contour_set *out)
{
    if (!out)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "contour output is NULL");
    memset(out, 0, sizeof *out);
    if (!ctx || !chf || (!region && chf->span_count))
        return op_fail(ctx, OP_INVALID_ARGUMENT, "op_build_contours: NULL argument");
    op_status st = op_contour_settings_validate(ctx, settings);
    if (st != OP_OK)
        return st;
    const uint32_t br = settings->border_region;
    if (region_count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "region_count %u exceeds %u", region_count,
                       OP_MAX_REGION_ID);
    if (br != 0 && br <= region_count)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "border_region %u collides with regions 1..%u", br, region_count);
    if (chf->width > 0x7fffffffu || chf->depth > 0x7fffffffu)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "grid too large for contour coordinates");

    /* Threads (op_ctx_set_threads): the calling one and T - 1 worker contexts (own
     * arenas). */
    int T = ctx->threads > 1 ? ctx->threads : 1;
#if OP_HAVE_OPENMP
    if (ctx->threads == 0)
        T = omp_get_max_threads();
#else
    T = 1;
#endif
    if (T > 1024)
        T = 1024;
    op_ctx *wk = NULL, **wp = NULL;
    if (T > 1) {
        wk = op_mem_calloc(&ctx->alloc, (size_t)T - 1, sizeof *wk);
        wp = op_mem_calloc(&ctx->alloc, (size_t)T, sizeof *wp);
        int forked = 0;
        while (wk && wp && forked < T - 1 && op_ctx_fork(ctx, &wk[forked]) == OP_OK)
            forked++;
        if (!wk || !wp || forked < T - 1) {
            for (int i = 0; i < forked; i++)
                op_ctx_free(&wk[i]);
            op_mem_free(&ctx->alloc, wk);
            op_mem_free(&ctx->alloc, wp);
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for %d contour threads", T);
        }
        wp[0] = ctx;
        for (int i = 1; i < T; i++)
            wp[i] = &wk[i - 1];
    }
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    cchunk *ch = NULL;
    uint32_t nch = 0;
    /* Region areas; the trace checks that every region has exactly one area (§ intro). */
    uint16_t *rarea = op_scratch(ctx, (size_t)region_count + 1, sizeof *rarea);
    uint8_t *rarea8 = op_scratch(ctx, (size_t)region_count + 1, 1);
    op_ctrace tr;
    memset(&tr, 0, sizeof tr);
    if (!rarea || !rarea8) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory for %u region areas", region_count);
        goto done;
    }
    st = op__contour_trace(ctx, wp ? wp + 1 : NULL, T - 1, chf, region, br, region_count, rarea,
                           0, &tr);
    if (st == OP_OK && tr.regions_bad)
        st = region_error(ctx, chf, region, region_count, br);
    if (st != OP_OK)
        goto done;
    for (uint32_t r = 0; r <= region_count; r++)
        rarea8[r] = rarea[r] == 0xffff ? 0 : (uint8_t)rarea[r];

    /* Group loops by region, keeping discovery order (counting sort). */
    uint32_t *off = op_scratch(ctx, (size_t)region_count + 2, sizeof *off);
    uint32_t *order = op_scratch(ctx, tr.loop_count ? tr.loop_count : 1, sizeof *order);
    if (!off || !order) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory building contours");
        goto done;
    }
    memset(off, 0, ((size_t)region_count + 2) * sizeof *off);
    for (uint32_t i = 0; i < tr.loop_count; i++)
        off[tr.loops[i].region + 1]++;
    for (uint32_t r = 0; r <= region_count; r++)
        off[r + 1] += off[r];
    for (uint32_t i = 0; i < tr.loop_count; i++)
        order[off[tr.loops[i].region]++] = i;
    for (uint32_t r = region_count + 1; r > 0; r--)
        off[r] = off[r - 1];
    off[0] = 0;

    /* Chunks of consecutive regions of about equal vertex counts (one with one thread);
     * each builds its own contours, joined in region order: the same bytes for any
     * split. */
    size_t total = 0;
    for (uint32_t i = 0; i < tr.loop_count; i++)
        total += tr.loops[i].count;
    const uint32_t want = T > 1 ? (uint32_t)(8 * T) : 1;
    ch = op_mem_calloc(&ctx->alloc, want, sizeof *ch);
    if (!ch) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory building contours");
        goto done;
    }
    {
        const size_t per = total / want + 1;
        uint32_t r0 = 1;
        size_t acc = 0;
        for (uint32_t r = 1; r <= region_count; r++) {
            for (uint32_t k = off[r]; k < off[r + 1]; k++)
                acc += tr.loops[order[k]].count;
            if ((acc >= per && nch + 1 < want) || r == region_count) {
                ch[nch].r0 = r0;
                ch[nch].r1 = r + 1;
                nch++;
                r0 = r + 1;
                acc = 0;
            }
        }
    }
    cregions_in in = {&tr, order, off, rarea8, region_count, settings};
    int failed = 0;
    uint32_t done_chunks = 0;
#if OP_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(T) reduction(| : failed)
#endif
    for (int64_t k = 0; k < (int64_t)nch; k++) {
#if OP_HAVE_OPENMP
        const int tid = T > 1 ? omp_get_thread_num() : 0;
#else
        const int tid = 0;
#endif
        op_ctx *c = T > 1 ? wp[tid] : ctx;
        ch[k].b.al = &ctx->alloc;
        ch[k].st = build_regions(c, &in, ch[k].r0, ch[k].r1, &ch[k], nch == 1 && c == ctx);
        failed |= ch[k].st != OP_OK;
        uint32_t d;
#if OP_HAVE_OPENMP
#pragma omp atomic capture
#endif
        d = ++done_chunks;
        if (tid == 0 && nch > 1) /* progress from the calling thread only */
            op_progress(ctx, "contours", (double)d / nch);
    }
    if (failed) {
        st = op_fail(ctx, OP_NO_MEMORY, "out of memory building contours");
        goto done;
    }
    st = join_chunks(ctx, ch, nch, settings->keep_raw, out);
done:
    for (uint32_t k = 0; ch && k < nch; k++) {
        op_mem_free(&ctx->alloc, ch[k].b.v);
        op_mem_free(&ctx->alloc, ch[k].b.sz);
        op_mem_free(&ctx->alloc, ch[k].b.c);
    }
    op_mem_free(&ctx->alloc, ch);
    op__contour_trace_free(&tr);
    op_arena_release(&ctx->arena, mark);
    for (int i = 0; wk && i < T - 1; i++)
        op_ctx_free(&wk[i]);
    op_mem_free(&ctx->alloc, wk);
    op_mem_free(&ctx->alloc, wp);
    if (st != OP_OK)
        memset(out, 0, sizeof *out);
    return st;
}
