/* onepath_compare_bench — the same per-stage cases built against two trees (issue 12):
 * the current tree, and the baseline commit (a495c93) that bench/compare.py checks out
 * and builds with this file injected (bench/compare/inject.cmake), so that one run of
 * compare.py times both, interleaved, and prints the ratio.
 *
 * Only the public API is used, and only what existed at a495c93; where the current tree
 * differs, `#if ONEPATH_VERSION_MAJOR` (defined only by the current tree's generated
 * onepath/version.h) picks the current form.
 *
 * Cases "compare/<stage>/demo-<N>", N the demo world's edge in cells (--demo N,
 * repeatable; default 1936 ≈ 4 M spans and 4096 ≈ 18 M):
 *   rasterize  op_heightfield_init + op_mark_walkable_triangles + op_rasterize_triangles
 *   filters    the three filters of supplement §1.4 on the rasterized field (its areas
 *              are put back, untimed, before every iteration)
 *   compact    op_build_compact_heightfield (cells, spans, links, mutual links); the
 *              current tree as its spans stage calls it, in place on a copy of the
 *              filtered field made before every iteration, untimed
 *   erode      op_erode_walkable_area on the compact field (areas put back untimed)
 *   spans      op_build_spans, the whole spans stage
 *   distance, watershed, monotone, layers: on the spans stage's field
 *   contours   op_build_contours on the watershed regions
 *   bake       op_bake_scene (spans, distance, watershed, contours, the four digests)
 * and "compare/contours/holes-<H>" (--holes H, repeatable): op_build_contours on one
 * region with H holes of 2 x 2 cells every 6 cells (the join's scaling).
 *              with a new context each time, as one bake per process
 * Every case reports digest_hi / digest_lo, a 64-bit hash of its output split into two
 * exact doubles, so compare.py can check that both trees made the same bytes. The bake
 * case also reports peak_bytes: the largest number of heap bytes (malloc_usable_size)
 * live during one bake above those live before it (the scene), counted by wrapping
 * malloc & co. at link time (OP_COMPARE_WRAP, static library only; else -1), and
 * input_bytes, the scene's vertex and triangle arrays. */
#include "shim.h"

#include "onepath/common.h"
#include "onepath/bake.h"
#include "onepath/contours.h"
#include "onepath/demo.h"
#include "onepath/digest.h"
#include "onepath/regions.h"
#include "onepath/spans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Heap accounting (link-time wrapping, both trees alike) ----------------------- */

#ifdef OP_COMPARE_WRAP
#include <malloc.h>
#include <stdatomic.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t al, size_t n);
int __real_posix_memalign(void **p, size_t al, size_t n);

static _Atomic long long g_live, g_peak;

static void *counted(void *p)
{
    if (p) {
        const long long n = (long long)malloc_usable_size(p);
        const long long v = atomic_fetch_add(&g_live, n) + n;
        long long pk = atomic_load(&g_peak);
        while (v > pk && !atomic_compare_exchange_weak(&g_peak, &pk, v)) {
        }
    }
    return p;
}
static void uncount(void *p)
{
    if (p)
        atomic_fetch_sub(&g_live, (long long)malloc_usable_size(p));
}
void *__wrap_malloc(size_t n) { return counted(__real_malloc(n)); }
void *__wrap_calloc(size_t a, size_t b) { return counted(__real_calloc(a, b)); }
void *__wrap_aligned_alloc(size_t al, size_t n) { return counted(__real_aligned_alloc(al, n)); }
int __wrap_posix_memalign(void **p, size_t al, size_t n)
{
    const int rc = __real_posix_memalign(p, al, n);
    if (!rc)
        counted(*p);
    return rc;
}
void *__wrap_realloc(void *p, size_t n)
{
    const long long old = p ? (long long)malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, n);
    if (q || !n) {
        atomic_fetch_sub(&g_live, old);
        counted(q);
    }
    return q;
}
void __wrap_free(void *p)
{
    uncount(p);
    __real_free(p);
}
/* Starts a measurement: the peak is measured from what is live now. */
static long long heap_mark(void)
{
    const long long v = atomic_load(&g_live);
    atomic_store(&g_peak, v);
    return v;
}
static long long heap_peak_since(long long mark) { return atomic_load(&g_peak) - mark; }
#else
static long long heap_mark(void) { return 0; }
static long long heap_peak_since(long long mark) { return (void)mark, -1; }
#endif

/* ---- Small helpers ----------------------------------------------------------------- */

static void die(const char *what, const op_ctx *ctx)
{
    fprintf(stderr, "onepath_compare_bench: %s%s%s\n", what, ctx ? ": " : "",
            ctx ? op_ctx_error(ctx) : "");
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory", NULL);
    return p;
}

static void *xdup(const void *src, size_t n)
{
    void *p = xmalloc(n);
    memcpy(p, src, n);
    return p;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static op_ctx new_ctx(void)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_AUTO) != OP_OK) /* ONEPATH_ISA narrows it */
        die("context", &ctx);
    return ctx;
}

/* ---- The solid heightfield through the public API --------------------------------- */

/* Areas of every span slot, so the filter case can put them back. The current tree
 * stores columns as runs of the span arrays (first/count); a495c93 as linked lists in a
 * pool (head/next). */
#if defined(ONEPATH_VERSION_MAJOR)
static size_t hf_area_count(const op_heightfield *hf) { return hf->span_used; }
#define HF_FOR_SPANS(hf, x, z, s)                                                          \
    for (uint32_t s = op_heightfield_begin(hf, x, z), s##_end = op_heightfield_end(hf, x, z); \
         s < s##_end; s++)
#else
static size_t hf_area_count(const op_heightfield *hf) { return hf->pool_used; }
#define HF_FOR_SPANS(hf, x, z, s)                                                          \
    for (uint32_t s = op_heightfield_first(hf, x, z); s != OP_HF_NONE;                     \
         s = op_heightfield_next(hf, s))
#endif

/* Every column's spans (smin, smax, area) in cell order, bottom-up. */
static uint64_t hf_digest(const op_heightfield *hf)
{
    uint64_t h = mix(hf->width, hf->depth);
    for (uint32_t z = 0; z < hf->depth; z++)
        for (uint32_t x = 0; x < hf->width; x++) {
            uint32_t n = 0;
            HF_FOR_SPANS(hf, x, z, s)
            {
                h = mix(h, (uint64_t)hf->smin[s] | (uint64_t)hf->smax[s] << 16 |
                               (uint64_t)hf->area[s] << 32);
                n++;
            }
            h = mix(h, n);
        }
    return h;
}

/* ---- Fields: the demo world and what each stage needs, made on first use --------- */

typedef struct field {
    uint32_t size;
    uint32_t holes; /* > 0: not the demo world but one region with this many holes */
    char label[32];
    int have_scene;
    op_scene scene;
    op_config cfg;
    uint8_t *tri_areas;
    int have_raster; /* rasterized, unfiltered; raster_area = its areas */
    op_heightfield raster;
    uint8_t *raster_area;
    int have_filtered; /* rasterized and filtered */
    op_heightfield filtered;
    int have_compact; /* compact field before erosion; compact_area = its areas */
    op_chf compact;
    uint8_t *compact_area;
    int have_chf; /* the spans stage's field */
    op_chf chf;
    uint32_t *dist;
    uint32_t *ws_region, ws_count;
} field;

static void need_scene(field *f)
{
    if (f->have_scene)
        return;
    op_ctx ctx = new_ctx();
    if (op_demo_world(&ctx, f->size, &f->scene, &f->cfg) != OP_OK)
        die("demo world", &ctx);
    op_ctx_free(&ctx);
    f->tri_areas = xmalloc(f->scene.mesh.tri_count);
    op_mark_walkable_triangles(&f->scene.mesh, f->cfg.walkable_slope_deg, f->tri_areas);
    f->have_scene = 1;
}

static void rasterize(op_ctx *ctx, field *f, op_heightfield *hf)
{
    uint32_t w, d;
    if (op_config_grid_size(ctx, &f->cfg, &w, &d) != OP_OK ||
        op_heightfield_init(ctx, hf, w, d, f->cfg.bmin, f->cfg.bmax, f->cfg.cs, f->cfg.ch) !=
            OP_OK)
        die("heightfield", ctx);
    op_mark_walkable_triangles(&f->scene.mesh, f->cfg.walkable_slope_deg, f->tri_areas);
    if (op_rasterize_triangles(ctx, hf, &f->scene.mesh, f->tri_areas, f->cfg.walkable_climb) !=
        OP_OK)
        die("rasterize", ctx);
}

static void run_filters(field *f, op_heightfield *hf)
{
#if defined(ONEPATH_VERSION_MAJOR)
    /* The current tree's one-pass form of the same three (as its spans stage runs them). */
    op_filter_spans(hf, f->cfg.walkable_height, f->cfg.walkable_climb);
    return;
#endif
    op_filter_low_hanging_obstacles(hf, f->cfg.walkable_climb);
    op_filter_ledge_spans(hf, f->cfg.walkable_height, f->cfg.walkable_climb);
    op_filter_low_height_spans(hf, f->cfg.walkable_height);
}

static void need_raster(field *f)
{
    if (f->have_raster)
        return;
    need_scene(f);
    op_ctx ctx = new_ctx();
    rasterize(&ctx, f, &f->raster);
    op_ctx_free(&ctx);
    f->raster_area = xdup(f->raster.area, hf_area_count(&f->raster));
    f->have_raster = 1;
}

static void need_filtered(field *f)
{
    if (f->have_filtered)
        return;
    need_scene(f);
    op_ctx ctx = new_ctx();
    rasterize(&ctx, f, &f->filtered);
    op_ctx_free(&ctx);
    run_filters(f, &f->filtered);
    f->have_filtered = 1;
}

static void need_compact(field *f)
{
    if (f->have_compact)
        return;
    need_filtered(f);
    op_ctx ctx = new_ctx();
    if (op_build_compact_heightfield(&ctx, &f->filtered, f->cfg.walkable_height,
                                     f->cfg.walkable_climb, &f->compact) != OP_OK)
        die("compact", &ctx);
    op_ctx_free(&ctx);
    op_heightfield_free(&f->filtered);
    f->have_filtered = 0;
    f->compact_area = xdup(f->compact.area, f->compact.span_count);
    f->have_compact = 1;
}

static void need_chf(field *f)
{
    if (f->have_chf)
        return;
    need_scene(f);
    op_ctx ctx = new_ctx();
    if (op_build_spans(&ctx, &f->cfg, &f->scene, &f->chf, NULL) != OP_OK)
        die("spans stage", &ctx);
    op_ctx_free(&ctx);
    f->have_chf = 1;
}

static void need_dist(field *f)
{
    if (f->dist)
        return;
    need_chf(f);
    op_ctx ctx = new_ctx();
    f->dist = xmalloc((size_t)f->chf.span_count * 4 + 4);
    if (op_build_distance_field(&ctx, &f->chf, f->dist, NULL) != OP_OK)
        die("distance field", &ctx);
    op_ctx_free(&ctx);
}

/* One region on one floor with `holes` holes of 2 x 2 cells every 6 cells, in a square
 * (the many-holes contour case: every hole bridges into one outline). */
static void need_holes_field(field *f)
{
    uint32_t k = 1;
    while (k * k < f->holes)
        k++;
    const uint32_t W = k * 6 + 4;
    uint8_t *full = xmalloc((size_t)W * W);
    uint32_t n = 0;
    for (uint32_t z = 0; z < W; z++)
        for (uint32_t x = 0; x < W; x++) {
            const uint32_t ix = (x - 2) / 6, iz = (z - 2) / 6, ox = (x - 2) % 6, oz = (z - 2) % 6;
            const int hole = x >= 2 && z >= 2 && ix < k && iz < k && iz * k + ix < f->holes &&
                             ox >= 2 && ox < 4 && oz >= 2 && oz < 4;
            full[x + z * W] = (uint8_t)!hole;
            n += !hole;
        }
    op_ctx ctx = new_ctx();
    if (op_chf_alloc(&ctx, &f->chf, W, W, n) != OP_OK)
        die("holes field", &ctx);
    f->chf.cs = 0.3f;
    f->chf.ch = 0.2f;
    f->chf.walkable_height = 10;
    f->chf.walkable_climb = 4;
    uint32_t s = 0;
    for (uint32_t c = 0; c < W * W; c++) {
        f->chf.cell_first[c] = s;
        f->chf.cell_count[c] = full[c];
        if (full[c]) {
            f->chf.y[s] = (uint16_t)(c * 7 % 3);
            f->chf.h[s] = 255;
            f->chf.area[s] = 63;
            s++;
        }
    }
    if (op_chf_build_links(&ctx, &f->chf) != OP_OK)
        die("holes field links", &ctx);
    op_ctx_free(&ctx);
    free(full);
    f->ws_region = xmalloc((size_t)n * 4 + 4);
    for (uint32_t i = 0; i < n; i++)
        f->ws_region[i] = 1;
    f->ws_count = 1;
    f->have_chf = 1;
}

static void need_watershed(field *f)
{
    if (f->ws_region)
        return;
    if (f->holes) {
        need_holes_field(f);
        return;
    }
    need_dist(f);
    op_ctx ctx = new_ctx();
    op_region_settings s;
    op_region_settings_defaults(&s);
    f->ws_region = xmalloc((size_t)f->chf.span_count * 4 + 4);
    if (op_build_regions_watershed(&ctx, &f->chf, f->dist, &s, f->ws_region, &f->ws_count) !=
        OP_OK)
        die("watershed", &ctx);
    op_ctx_free(&ctx);
}

/* ---- Cases --------------------------------------------------------------------------- */

enum {
    C_RASTERIZE,
    C_FILTERS,
    C_COMPACT,
    C_ERODE,
    C_SPANS,
    C_DISTANCE,
    C_WATERSHED,
    C_MONOTONE,
    C_LAYERS,
    C_CONTOURS,
    C_BAKE,
    C_COUNT
};
static const char *const case_names[C_COUNT] = {
    "rasterize", "filters",  "compact", "erode",    "spans", "distance",
    "watershed", "monotone", "layers",  "contours", "bake"};

typedef struct bcase {
    field *f;
    int kind;
    int ready;
    op_ctx ctx;
    /* outputs */
    op_heightfield hf;
    op_chf chf;
    uint32_t *out, count;
    op_contour_set set;
    op_bake_result bake;
    int have_out; /* hf / chf / set / bake hold a result to free */
    uint64_t spans;      /* compact spans, for the report */
    long long peak;      /* bake: peak heap bytes of one bake */
    long long input;     /* bake: the scene's arrays */
} bcase;

static void release_out(bcase *c)
{
    if (!c->have_out)
        return;
    switch (c->kind) {
    case C_RASTERIZE: op_heightfield_free(&c->hf); break;
    case C_COMPACT:
    case C_SPANS: op_chf_free(&c->chf); break;
    case C_CONTOURS: op_contour_set_free(&c->set); break;
    case C_BAKE: op_bake_result_free(&c->bake); break;
    default: break;
    }
    c->have_out = 0;
}

static op_status bake_once(const field *f, op_bake_result *r)
{
    op_ctx ctx = new_ctx();
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.config = f->cfg; /* the demo world's grid, as `onepath bake --demo` takes it */
    const op_status st = op_bake_scene(&ctx, &f->scene, &s, r);
    if (st != OP_OK)
        fprintf(stderr, "onepath_compare_bench: bake: %s\n", op_ctx_error(&ctx));
    op_ctx_free(&ctx);
    return st;
}

/* One timed iteration's work. */
static void run(bcase *c)
{
    field *f = c->f;
    op_status st = OP_OK;
    switch (c->kind) {
    case C_RASTERIZE:
        rasterize(&c->ctx, f, &c->hf);
        break;
    case C_FILTERS: run_filters(f, &f->raster); break;
    case C_COMPACT:
#if defined(ONEPATH_VERSION_MAJOR)
        /* As the spans stage does it: the field is consumed (reset made a copy, untimed,
         * as the rasterizer's arrays are there, written, in a bake). */
        st = op_build_compact_heightfield_in_place(&c->ctx, &c->hf, f->cfg.walkable_height,
                                                   f->cfg.walkable_climb, &c->chf);
#else
        st = op_build_compact_heightfield(&c->ctx, &f->filtered, f->cfg.walkable_height,
                                          f->cfg.walkable_climb, &c->chf);
#endif
        break;
    case C_ERODE: st = op_erode_walkable_area(&c->ctx, &f->compact, f->cfg.walkable_radius); break;
    case C_SPANS: st = op_build_spans(&c->ctx, &f->cfg, &f->scene, &c->chf, NULL); break;
    case C_DISTANCE: st = op_build_distance_field(&c->ctx, &f->chf, c->out, NULL); break;
    case C_WATERSHED: {
        op_region_settings s;
        op_region_settings_defaults(&s);
        st = op_build_regions_watershed(&c->ctx, &f->chf, f->dist, &s, c->out, &c->count);
        break;
    }
    case C_MONOTONE:
    case C_LAYERS: {
        op_region_settings s;
        op_region_settings_defaults(&s);
        st = c->kind == C_MONOTONE
                 ? op_build_regions_monotone(&c->ctx, &f->chf, &s, c->out, &c->count)
                 : op_build_regions_layers(&c->ctx, &f->chf, &s, c->out, &c->count);
        break;
    }
    case C_CONTOURS: {
        op_contour_settings cs;
        op_contour_settings_defaults(&cs);
        st = op_build_contours(&c->ctx, &f->chf, f->ws_region, f->ws_count, &cs, &c->set);
        break;
    }
    case C_BAKE: st = bake_once(f, &c->bake); break;
    }
    if (st != OP_OK)
        die(case_names[c->kind], &c->ctx);
    c->have_out = 1;
}

static uint64_t output_digest(bcase *c)
{
    field *f = c->f;
    switch (c->kind) {
    case C_RASTERIZE: return hf_digest(&c->hf);
    case C_FILTERS: return hf_digest(&f->raster);
    case C_COMPACT:
    case C_SPANS: return op_digest_chf(&c->chf);
    case C_ERODE: return op_digest_bytes(f->compact.area, f->compact.span_count);
    case C_DISTANCE: return op_digest_distance(c->out, f->chf.span_count);
    case C_WATERSHED:
    case C_MONOTONE:
    case C_LAYERS: return op_digest_regions(c->out, f->chf.span_count, c->count);
    case C_CONTOURS: return op_digest_contours(&c->set);
    default:
        return mix(mix(mix(c->bake.digest_spans, c->bake.digest_distance),
                       c->bake.digest_regions),
                   c->bake.digest_contours);
    }
}

static void reset(void *user)
{
    bcase *c = user;
    field *f = c->f;
    release_out(c);
    if (c->kind == C_FILTERS)
        memcpy(f->raster.area, f->raster_area, hf_area_count(&f->raster));
    else if (c->kind == C_ERODE)
        memcpy(f->compact.area, f->compact_area, f->compact.span_count);
#if defined(ONEPATH_VERSION_MAJOR)
    else if (c->kind == C_COMPACT && op_heightfield_copy(&c->ctx, &c->hf, &f->filtered) != OP_OK)
        die("heightfield copy", &c->ctx);
#endif
}

static int before(void *user, op_bench_state *st)
{
    bcase *c = user;
    field *f = c->f;
    (void)st;
    if (c->ready)
        return 0;
    c->ctx = new_ctx();
    switch (c->kind) {
    case C_RASTERIZE:
    case C_SPANS:
    case C_BAKE: need_scene(f); break;
    case C_FILTERS: need_raster(f); break;
    case C_COMPACT: need_filtered(f); break;
    case C_ERODE: need_compact(f); break;
    case C_CONTOURS: need_watershed(f); break;
    case C_WATERSHED: need_dist(f); break;
    default: need_chf(f); break;
    }
    if (f->have_chf)
        c->spans = f->chf.span_count;
    else if (f->have_compact)
        c->spans = f->compact.span_count;
    if (c->kind >= C_DISTANCE && c->kind != C_CONTOURS && c->kind != C_BAKE)
        c->out = xmalloc((size_t)f->chf.span_count * 4 + 4);
    if (c->kind == C_BAKE) {
        /* One untimed bake for the memory figure (a fresh context, as every iteration). */
        const long long mark = heap_mark();
        if (bake_once(f, &c->bake) != OP_OK)
            die("bake", NULL);
        c->peak = heap_peak_since(mark);
        c->spans = c->bake.chf.span_count;
        c->input = (long long)f->scene.mesh.vert_count * 12 + (long long)f->scene.mesh.tri_count * 12;
        op_bake_result_free(&c->bake);
    }
    c->ready = 1;
    return 0;
}

static uint64_t iter(void *user)
{
    bcase *c = user;
    run(c);
    op_bench_escape(c->out);
    return c->count ^ (uint64_t)c->have_out;
}

static int after(void *user, op_bench_state *st)
{
    bcase *c = user;
    const uint64_t d = output_digest(c);
    if (c->kind == C_RASTERIZE || c->kind == C_COMPACT || c->kind == C_SPANS)
        c->spans = c->kind == C_RASTERIZE ? c->hf.span_count : c->chf.span_count;
    op_bench_counter(st, "digest_hi", (double)(d >> 32));
    op_bench_counter(st, "digest_lo", (double)(d & 0xffffffffu));
    op_bench_counter(st, "spans", (double)c->spans);
    if (c->kind == C_BAKE) {
        op_bench_counter(st, "peak_bytes", (double)c->peak);
        op_bench_counter(st, "input_bytes", (double)c->input);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static field fields[8];
    int nf = 0;
    char **rest = xmalloc(sizeof *rest * (size_t)(argc + 1));
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--demo") && i + 1 < argc) {
            if (nf == 8)
                die("at most 8 --demo sizes", NULL);
            fields[nf++].size = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--holes") && i + 1 < argc) {
            if (nf == 8)
                die("at most 8 fields", NULL);
            fields[nf++].holes = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else {
            rest[nrest++] = argv[i];
        }
    }
    rest[nrest] = NULL;
    if (!nf) {
        fields[nf++].size = 1936;
        fields[nf++].size = 4096;
    }
    for (int i = 0; i < nf; i++) {
        field *f = &fields[i];
        if (f->holes)
            snprintf(f->label, sizeof f->label, "holes-%u", f->holes);
        else
            snprintf(f->label, sizeof f->label, "demo-%u", f->size);
        for (int k = 0; k < C_COUNT; k++) {
            if (f->holes && k != C_CONTOURS)
                continue; /* a holes field has only the contour case */
            bcase *c = calloc(1, sizeof *c);
            if (!c)
                die("out of memory", NULL);
            c->f = f;
            c->kind = k;
            char name[96];
            snprintf(name, sizeof name, "compare/%s/%s", case_names[k], f->label);
            op_bench_case bc = {name, c, 0, before, iter, after, reset};
            if (op_bench_register(&bc))
                die("register", NULL);
        }
    }
    /* Cases and fields stay allocated until exit (one process per comparison run). */
    const int rc = op_bench_run(nrest, rest, 0.0);
    free(rest);
    return rc;
}
