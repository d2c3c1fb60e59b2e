/* The per-stage cases of the baseline comparison (cases.h, issue 12). Compiled against
 * either tree: only the public API is used, and only what existed at a495c93; where the
 * current tree differs, `#if ONEPATH_VERSION_MAJOR` (defined only by the current tree's
 * generated onepath/version.h) picks the current form.
 *
 *   rasterize  op_heightfield_init + op_mark_walkable_triangles + op_rasterize_triangles
 *   filters    the three filters of supplement §1.4 on the rasterized field (its areas
 *              are put back, untimed, before every iteration)
 *   compact    op_build_compact_heightfield (cells, spans, links, mutual links); the
 *              current tree as its spans stage calls it, in place on a copy of the
 *              filtered field made before every iteration, untimed
 *   erode      op_erode_walkable_area on the compact field (areas put back untimed)
 *   spans      op_build_spans, the whole spans stage
 *   distance, watershed, monotone, layers: on the spans stage's field
 *   contours   op_build_contours on the watershed regions (or on the holes field's one
 *              region)
 *   bake       op_bake_scene (spans, distance, watershed, contours, the four digests)
 *              with a new context each time, as one bake per process
 * Every case's digest is a 64-bit hash of its output. The bake case also measures the
 * peak heap of one (untimed) bake: the largest number of heap bytes live during it above
 * those live before it (the scene), through cmp_heap_* (heap.c), and input_bytes, the
 * scene's vertex and triangle arrays. */
#include "cases.h"

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

/* ---- Small helpers ----------------------------------------------------------------- */

static void die(const char *what, const op_ctx *ctx)
{
    fprintf(stderr, "compare cases: %s%s%s\n", what, ctx ? ": " : "",
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
 * stores columns as runs of the span arrays (first, and the ends); a495c93 as linked
 * lists in a pool (head/next). */
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

struct cmp_field {
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
};
typedef struct cmp_field field;

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
        f->chf.cell_first[c] = s; /* cell_first[W·W] = n since op_chf_alloc */
#ifndef OP_CHF_CELL_FIRST_END
        f->chf.cell_count[c] = full[c]; /* a baseline's layout (compare.py builds this file
                                           against the baseline's headers too) */
#endif
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

static const char *const case_names[CMP_COUNT] = {
    "rasterize", "filters",  "compact", "erode",    "spans", "distance",
    "watershed", "monotone", "layers",  "contours", "bake"};

const char *cmp_case_name(int kind)
{
    return kind >= 0 && kind < CMP_COUNT ? case_names[kind] : NULL;
}

struct cmp_case {
    field *f;
    int kind;
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
};
typedef struct cmp_case bcase;

static void release_out(bcase *c)
{
    if (!c->have_out)
        return;
    switch (c->kind) {
    case CMP_RASTERIZE: op_heightfield_free(&c->hf); break;
    case CMP_COMPACT:
    case CMP_SPANS: op_chf_free(&c->chf); break;
    case CMP_CONTOURS: op_contour_set_free(&c->set); break;
    case CMP_BAKE: op_bake_result_free(&c->bake); break;
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
    case CMP_RASTERIZE:
        rasterize(&c->ctx, f, &c->hf);
        break;
    case CMP_FILTERS: run_filters(f, &f->raster); break;
    case CMP_COMPACT:
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
    case CMP_ERODE: st = op_erode_walkable_area(&c->ctx, &f->compact, f->cfg.walkable_radius); break;
    case CMP_SPANS: st = op_build_spans(&c->ctx, &f->cfg, &f->scene, &c->chf, NULL); break;
    case CMP_DISTANCE: st = op_build_distance_field(&c->ctx, &f->chf, c->out, NULL); break;
    case CMP_WATERSHED: {
        op_region_settings s;
        op_region_settings_defaults(&s);
        st = op_build_regions_watershed(&c->ctx, &f->chf, f->dist, &s, c->out, &c->count);
        break;
    }
    case CMP_MONOTONE:
    case CMP_LAYERS: {
        op_region_settings s;
        op_region_settings_defaults(&s);
        st = c->kind == CMP_MONOTONE
                 ? op_build_regions_monotone(&c->ctx, &f->chf, &s, c->out, &c->count)
                 : op_build_regions_layers(&c->ctx, &f->chf, &s, c->out, &c->count);
        break;
    }
    case CMP_CONTOURS: {
        op_contour_settings cs;
        op_contour_settings_defaults(&cs);
        st = op_build_contours(&c->ctx, &f->chf, f->ws_region, f->ws_count, &cs, &c->set);
        break;
    }
    case CMP_BAKE: st = bake_once(f, &c->bake); break;
    }
    if (st != OP_OK)
        die(case_names[c->kind], &c->ctx);
    c->have_out = 1;
}

uint64_t cmp_case_digest(const cmp_case *c)
{
    const field *f = c->f;
    switch (c->kind) {
    case CMP_RASTERIZE: return hf_digest(&c->hf);
    case CMP_FILTERS: return hf_digest(&f->raster);
    case CMP_COMPACT:
    case CMP_SPANS: return op_digest_chf(&c->chf);
    case CMP_ERODE: return op_digest_bytes(f->compact.area, f->compact.span_count);
    case CMP_DISTANCE: return op_digest_distance(c->out, f->chf.span_count);
    case CMP_WATERSHED:
    case CMP_MONOTONE:
    case CMP_LAYERS: return op_digest_regions(c->out, f->chf.span_count, c->count);
    case CMP_CONTOURS: return op_digest_contours(&c->set);
    default:
        return mix(mix(mix(c->bake.digest_spans, c->bake.digest_distance),
                       c->bake.digest_regions),
                   c->bake.digest_contours);
    }
}

void cmp_case_reset(cmp_case *c)
{
    field *f = c->f;
    release_out(c);
    if (c->kind == CMP_FILTERS)
        memcpy(f->raster.area, f->raster_area, hf_area_count(&f->raster));
    else if (c->kind == CMP_ERODE)
        memcpy(f->compact.area, f->compact_area, f->compact.span_count);
#if defined(ONEPATH_VERSION_MAJOR)
    else if (c->kind == CMP_COMPACT && op_heightfield_copy(&c->ctx, &c->hf, &f->filtered) != OP_OK)
        die("heightfield copy", &c->ctx);
#endif
}

cmp_case *cmp_case_open(cmp_field *f, int kind)
{
    if (kind < 0 || kind >= CMP_COUNT || (f->holes && kind != CMP_CONTOURS))
        return NULL; /* a holes field has only the contour case */
    bcase *c = calloc(1, sizeof *c);
    if (!c)
        die("out of memory", NULL);
    c->f = f;
    c->kind = kind;
    c->peak = -1;
    c->ctx = new_ctx();
    switch (kind) {
    case CMP_RASTERIZE:
    case CMP_SPANS:
    case CMP_BAKE: need_scene(f); break;
    case CMP_FILTERS: need_raster(f); break;
    case CMP_COMPACT: need_filtered(f); break;
    case CMP_ERODE: need_compact(f); break;
    case CMP_CONTOURS: need_watershed(f); break;
    case CMP_WATERSHED: need_dist(f); break;
    default: need_chf(f); break;
    }
    if (f->have_chf)
        c->spans = f->chf.span_count;
    else if (f->have_compact)
        c->spans = f->compact.span_count;
    if (kind >= CMP_DISTANCE && kind != CMP_CONTOURS && kind != CMP_BAKE)
        c->out = xmalloc((size_t)f->chf.span_count * 4 + 4);
    if (kind == CMP_BAKE) {
        /* One untimed bake for the memory figure (a fresh context, as every iteration). */
        const long long mark = cmp_heap_mark();
        if (bake_once(f, &c->bake) != OP_OK)
            die("bake", NULL);
        c->peak = cmp_heap_peak_since(mark);
        c->spans = c->bake.chf.span_count;
        c->input = (long long)f->scene.mesh.vert_count * 12 + (long long)f->scene.mesh.tri_count * 12;
        op_bake_result_free(&c->bake);
    }
    return c;
}

/* Makes the memory behind p observable: every store to it before the call happens. */
static void escape(const void *p)
{
#if defined(__GNUC__)
    __asm__ volatile("" : : "r"(p) : "memory");
#else
    static const void *volatile keep;
    keep = p;
#endif
}

uint64_t cmp_case_run(cmp_case *c)
{
    run(c);
    escape(c->out);
    return c->count ^ (uint64_t)c->have_out;
}

uint64_t cmp_case_spans(const cmp_case *c)
{
    if (c->have_out && c->kind == CMP_RASTERIZE)
        return c->hf.span_count;
    if (c->have_out && (c->kind == CMP_COMPACT || c->kind == CMP_SPANS))
        return c->chf.span_count;
    return c->spans;
}

long long cmp_case_peak_bytes(const cmp_case *c) { return c->peak; }
long long cmp_case_input_bytes(const cmp_case *c) { return c->input; }

void cmp_case_close(cmp_case *c)
{
    if (!c)
        return;
    release_out(c);
    free(c->out);
    op_ctx_free(&c->ctx);
    free(c);
}

/* ---- Field lifetime ------------------------------------------------------------------ */

cmp_field *cmp_field_new(uint32_t size, uint32_t holes)
{
    field *f = calloc(1, sizeof *f);
    if (!f)
        die("out of memory", NULL);
    f->size = size;
    f->holes = size ? 0 : holes;
    if (f->holes)
        snprintf(f->label, sizeof f->label, "holes-%u", f->holes);
    else
        snprintf(f->label, sizeof f->label, "demo-%u", f->size);
    return f;
}

const char *cmp_field_label(const cmp_field *f) { return f->label; }

#define CMP_BIT(k) (1u << (k))

void cmp_field_trim(cmp_field *f, unsigned keep)
{
    if (f->have_raster && !(keep & CMP_BIT(CMP_FILTERS))) {
        op_heightfield_free(&f->raster);
        free(f->raster_area);
        f->raster_area = NULL;
        f->have_raster = 0;
    }
    if (f->have_filtered && !(keep & CMP_BIT(CMP_COMPACT))) {
        op_heightfield_free(&f->filtered);
        f->have_filtered = 0;
    }
    if (f->have_compact && !(keep & CMP_BIT(CMP_ERODE))) {
        op_chf_free(&f->compact);
        free(f->compact_area);
        f->compact_area = NULL;
        f->have_compact = 0;
    }
    if (f->holes)
        return; /* its field and region are all it has */
    if (f->ws_region && !(keep & CMP_BIT(CMP_CONTOURS))) {
        free(f->ws_region);
        f->ws_region = NULL;
    }
    if (f->dist && !(keep & (CMP_BIT(CMP_WATERSHED) | (f->ws_region ? 0 : CMP_BIT(CMP_CONTOURS))))) {
        free(f->dist);
        f->dist = NULL;
    }
    const unsigned on_chf = CMP_BIT(CMP_DISTANCE) | CMP_BIT(CMP_WATERSHED) | CMP_BIT(CMP_MONOTONE) |
                            CMP_BIT(CMP_LAYERS) | CMP_BIT(CMP_CONTOURS);
    if (f->have_chf && !(keep & on_chf) && !f->dist && !f->ws_region) {
        op_chf_free(&f->chf);
        f->have_chf = 0;
    }
}

void cmp_field_free(cmp_field *f)
{
    if (!f)
        return;
    cmp_field_trim(f, 0);
    if (f->have_chf) /* a holes field's */
        op_chf_free(&f->chf);
    free(f->ws_region);
    free(f->dist);
    if (f->have_scene) {
        op_scene_free(&f->scene);
        free(f->tri_areas);
    }
    free(f);
}
