/* onepath_bench — spans per second of every kernel × variant and of every stage
 * (issue 5), through Google Benchmark (bench/shim.h).
 *
 * Fields: the demo world at about 1M and 4M spans (op_demo_world + op_build_spans;
 * random single-floor-ish fields of 1024² and 2048² cells when the demo world is not in
 * this build), and every OPCHF1 file named with --chf FILE.
 *
 * Case names are "kind/family/variant/field", kind = kernel or stage, e.g.
 * "kernel/distance_field/avx2/demo-1M", "stage/watershed/scalar/demo-4M"; bench/table.py
 * reads them back. "stage/bake/<variant>/<field>" is the whole bake (op_bake_scene) on
 * the demo world, for scalar, every variant this CPU runs and auto. Every case first checks that its output equals the scalar twin's
 * byte for byte (before any timing), and checks the output of the last timed iteration
 * again after timing; a difference fails the case with the first differing span. */
#include "shim.h"

#include "onepath/onepath.h"
#include "core/kernels.h"

/* Which stages this build has (bench/CMakeLists.txt looks for each header and the
 * definition of its entry point, so the bench builds while stages are being added). */
#ifndef OP_BENCH_HAVE_SPANS
#define OP_BENCH_HAVE_SPANS 0
#endif
#ifndef OP_BENCH_HAVE_DEMO
#define OP_BENCH_HAVE_DEMO 0
#endif
#ifndef OP_BENCH_HAVE_REGIONS
#define OP_BENCH_HAVE_REGIONS 0
#endif
#ifndef OP_BENCH_HAVE_CONTOURS
#define OP_BENCH_HAVE_CONTOURS 0
#endif
#ifndef OP_BENCH_HAVE_OPCHF
#define OP_BENCH_HAVE_OPCHF 0
#endif
/* The whole bake (stage/bake/...) needs every stage and a scene to start from. */
#define OP_BENCH_HAVE_BAKE                                                                 \
    (OP_BENCH_HAVE_SPANS && OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_REGIONS &&                \
     OP_BENCH_HAVE_CONTOURS)
#include "core/kernels.h"

#if OP_BENCH_HAVE_SPANS
#include "onepath/spans.h"
#endif
#if OP_BENCH_HAVE_DEMO
#include "onepath/demo.h"
#endif
#if OP_BENCH_HAVE_REGIONS
#include "onepath/regions.h"
#endif
#if OP_BENCH_HAVE_CONTOURS
#include "onepath/contours.h"
#endif
#if OP_BENCH_HAVE_OPCHF
#include "onepath/opchf.h"
#endif
#if OP_BENCH_HAVE_BAKE
#include "onepath/bake.h"
#endif
#include "util/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fields ---------------------------------------------------------------------- */

enum { ST_SPANS, ST_DISTANCE, ST_WATERSHED, ST_MONOTONE, ST_LAYERS, ST_CONTOURS, ST_COUNT };
static const char *const stage_names[ST_COUNT] = {"spans",    "distance", "watershed",
                                                  "monotone", "layers",   "contours"};

typedef struct ref_out {
    int done;
    op_status status;
    uint32_t *data; /* span_count entries */
    uint32_t count;
    uint64_t digest; /* contours: a digest of the serialised contour set */
} ref_out;

typedef struct field {
    char label[64];
    op_chf chf;
    int has_scene; /* the spans stage can run (demo world) */
#if OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS
    op_scene scene;
    op_config cfg;
#endif
    /* Scalar-twin outputs of the kernels, computed once. */
    uint8_t *mutual_ref;
    uint32_t *dist_ref;
    uint32_t *labels_ref, labels_count_ref;
    uint8_t *edge_ref;
    /* Scalar outputs of the stages, computed on first use. */
    ref_out stage_ref[ST_COUNT];
    uint32_t *stage_dist; /* distance field input of the watershed stage */
    /* The scalar whole bake (stage/bake): status and the four digests of supplement §5
     * (spans, distance, regions, contours), computed on first use. */
    int bake_done;
    op_status bake_status;
    uint64_t bake_digest[4];
} field;

#define MAX_FIELDS 16
static field *g_fields[MAX_FIELDS];
static int g_field_count;

static void die(const char *what, op_ctx *ctx)
{
    fprintf(stderr, "onepath_bench: %s: %s\n", what, ctx ? op_ctx_error(ctx) : "");
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "onepath_bench: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* First index where two arrays of n elements of size sz differ, or -1. */
static long long first_diff(const void *a, const void *b, size_t n, size_t sz)
{
    if (!memcmp(a, b, n * sz))
        return -1;
    const unsigned char *p = a, *q = b;
    for (size_t i = 0; i < n; i++)
        if (memcmp(p + i * sz, q + i * sz, sz))
            return (long long)i;
    return -1;
}

static void field_kernel_refs(field *f)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    const op_chf *chf = &f->chf;
    const uint32_t n = chf->span_count;
    f->mutual_ref = xmalloc(n);
    op_mutual_links_scalar(chf, f->mutual_ref, 0, n);
    f->dist_ref = xmalloc((size_t)n * 4);
    if (op_distance_field_scalar(chf, chf->area, f->dist_ref, &ctx.arena))
        die("scalar distance field: arena exhausted", NULL);
    f->labels_ref = xmalloc((size_t)n * 4);
    const op_label_view graph = op_label_view_of(chf, chf->area, NULL);
    if (op_label_components_scalar(&graph, f->labels_ref, &f->labels_count_ref, &ctx.arena))
        die("scalar labelling: arena exhausted", NULL);
    f->edge_ref = xmalloc(n);
    op_edge_classify_scalar(chf, f->labels_ref, chf->area, OP_BORDER_REGION, f->edge_ref, 0, n);
    op_ctx_free(&ctx);
}

static field *field_new(const char *label)
{
    if (g_field_count == MAX_FIELDS) {
        fprintf(stderr, "onepath_bench: too many fields\n");
        exit(2);
    }
    field *f = calloc(1, sizeof *f);
    if (!f)
        die("out of memory", NULL);
    snprintf(f->label, sizeof f->label, "%s", label);
    g_fields[g_field_count++] = f;
    return f;
}

/* "1M", "4M", "950k". */
static void span_label(char *buf, size_t n, const char *prefix, uint64_t target)
{
    if (target >= 1000000)
        snprintf(buf, n, "%s-%lluM", prefix, (unsigned long long)(target / 1000000));
    else
        snprintf(buf, n, "%s-%lluk", prefix, (unsigned long long)(target / 1000));
}

#if OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS
/* The demo world sized so that its spans stage gives about target spans: a probe at a
 * small size gives spans per cell, the edge follows from that. */
static void add_demo_field(uint64_t target)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    uint32_t size = 256;
    for (int round = 0; round < 3; round++) {
        op_scene scene;
        op_config cfg;
        op_chf chf;
        if (op_demo_world(&ctx, size, &scene, &cfg) != OP_OK)
            die("demo world", &ctx);
        if (op_build_spans(&ctx, &cfg, &scene, &chf, NULL) != OP_OK)
            die("spans stage on the demo world", &ctx);
        double ratio = (double)target / (chf.span_count ? chf.span_count : 1);
        op_chf_free(&chf);
        op_scene_free(&scene);
        if (ratio > 0.97 && ratio < 1.03)
            break;
        double next = size * sqrt(ratio);
        size = (uint32_t)((next + 8) / 16) * 16;
        if (size < 16)
            size = 16;
    }
    char label[64];
    span_label(label, sizeof label, "demo", target);
    field *f = field_new(label);
    if (op_demo_world(&ctx, size, &f->scene, &f->cfg) != OP_OK)
        die("demo world", &ctx);
    if (op_build_spans(&ctx, &f->cfg, &f->scene, &f->chf, NULL) != OP_OK)
        die("spans stage on the demo world", &ctx);
    f->has_scene = 1;
    fprintf(stderr, "onepath_bench: %s: demo world %u cells, %u x %u grid, %u spans\n",
            f->label, size, f->chf.width, f->chf.depth, f->chf.span_count);
    op_ctx_free(&ctx);
    field_kernel_refs(f);
}
#else
/* Until the demo world is in this build: a random field with at most one floor per
 * column (1024² cells ≈ 1M spans, 2048² ≈ 4M). */
static void add_random_field(uint64_t target)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    uint32_t edge = (uint32_t)(sqrt((double)target / 0.96) + 0.5);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, edge, edge);
    o.max_floors = 1;
    o.empty_percent = 4;
    o.hole_percent = 1;
    char label[64];
    span_label(label, sizeof label, "random", target);
    field *f = field_new(label);
    if (op_random_chf(&ctx, &f->chf, 5, &o) != OP_OK)
        die("random field", &ctx);
    fprintf(stderr, "onepath_bench: %s: random field %u x %u, %u spans\n", f->label, edge,
            edge, f->chf.span_count);
    op_ctx_free(&ctx);
    field_kernel_refs(f);
}
#endif

static void add_chf_file(const char *path)
{
#if OP_BENCH_HAVE_OPCHF
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char label[64];
    snprintf(label, sizeof label, "file:%.50s", base);
    for (char *p = label; *p; p++)
        if (*p == '/')
            *p = '_';
    field *f = field_new(label);
    if (op_opchf_read(&ctx, path, &f->chf) != OP_OK) {
        fprintf(stderr, "onepath_bench: %s: %s\n", path, op_ctx_error(&ctx));
        exit(2);
    }
    fprintf(stderr, "onepath_bench: %s: %u x %u grid, %u spans\n", f->label, f->chf.width,
            f->chf.depth, f->chf.span_count);
    op_ctx_free(&ctx);
    field_kernel_refs(f);
#else
    fprintf(stderr, "onepath_bench: --chf %s: this build has no OPCHF1 reader\n", path);
    exit(2);
#endif
}

/* ---- Kernel cases ----------------------------------------------------------------- */

enum { K_MUTUAL, K_DISTANCE, K_LABEL, K_EDGE, K_COUNT };
static const char *const kernel_names[K_COUNT] = {"mutual_links", "distance_field",
                                                  "label_components", "edge_classify"};

typedef struct kcase {
    field *f;
    op_kernels k; /* the variant's table (its ladder up to it) */
    op_isa isa;
    int family;
    op_arena arena;
    void *out;
    uint32_t count;
    int rc;          /* nonzero when a timed call reported arena exhaustion */
    int checked, ok; /* the comparison before timing, done once */
    struct kcase *next;
} kcase;

static kcase *g_kcases;
/* --inject-mismatch=after: corrupt the mutual_links reference once the first case has
 * passed its check before timing, so its check after timing must fail (self-test). */
static int g_inject_after;

static size_t kernel_elem(int family)
{
    return family == K_MUTUAL || family == K_EDGE ? 1 : 4;
}

static int kernel_call(kcase *c)
{
    const op_chf *chf = &c->f->chf;
    const uint32_t n = chf->span_count;
    int rc = 0;
    op_arena_mark m = op_arena_get_mark(&c->arena);
    switch (c->family) {
    case K_MUTUAL: c->k.links.mutual(chf, c->out, 0, n); break;
    case K_DISTANCE: rc = c->k.distance.field(chf, chf->area, c->out, &c->arena); break;
    case K_LABEL: {
        const op_label_view graph = op_label_view_of(chf, chf->area, NULL);
        rc = c->k.label.components(&graph, c->out, &c->count, &c->arena);
        break;
    }
    case K_EDGE: c->k.links.edges(chf, c->f->labels_ref, chf->area, OP_BORDER_REGION, c->out, 0, n); break;
    }
    op_arena_release(&c->arena, m);
    return rc;
}

static const void *kernel_ref(const kcase *c)
{
    switch (c->family) {
    case K_MUTUAL: return c->f->mutual_ref;
    case K_DISTANCE: return c->f->dist_ref;
    case K_LABEL: return c->f->labels_ref;
    default: return c->f->edge_ref;
    }
}

/* Compares the current output with the scalar twin's; 0 when equal. */
static int kernel_compare(kcase *c, op_bench_state *st, const char *when)
{
    const uint32_t n = c->f->chf.span_count;
    if (c->rc) {
        op_bench_error(st, "%s %s on %s: arena exhausted (%s)", kernel_names[c->family],
                       op_isa_name(c->isa), c->f->label, when);
        return 1;
    }
    long long d = first_diff(c->out, kernel_ref(c), n, kernel_elem(c->family));
    if (d >= 0) {
        op_bench_error(st, "%s %s differs from scalar on %s (%s): first at span %lld of %u",
                       kernel_names[c->family], op_isa_name(c->isa), c->f->label, when, d, n);
        return 1;
    }
    if (c->family == K_LABEL && c->count != c->f->labels_count_ref) {
        op_bench_error(st, "label_components %s on %s (%s): %u components, scalar %u",
                       op_isa_name(c->isa), c->f->label, when, c->count,
                       c->f->labels_count_ref);
        return 1;
    }
    return 0;
}

static int kernel_before(void *user, op_bench_state *st)
{
    kcase *c = user;
    const size_t bytes = (size_t)c->f->chf.span_count * kernel_elem(c->family);
    if (!c->out)
        c->out = xmalloc(bytes);
    if (!c->checked) {
        /* A sentinel the scalar output never is everywhere, so a span the kernel
         * forgets to write is caught. */
        memset(c->out, 0xa5, bytes);
        c->count = 0xdeadbeef;
        c->rc = kernel_call(c);
        c->ok = kernel_compare(c, st, "before timing") == 0;
        c->checked = 1;
        if (c->ok && g_inject_after && c->family == K_MUTUAL && c->f->chf.span_count) {
            c->f->mutual_ref[c->f->chf.span_count / 2] ^= 0x10;
            g_inject_after = 0;
        }
        if (!c->ok)
            return 1;
    }
    if (!c->ok) {
        op_bench_error(st, "%s %s on %s: failed the comparison with scalar",
                       kernel_names[c->family], op_isa_name(c->isa), c->f->label);
        return 1;
    }
    /* Another sentinel, so the check after timing sees only the timed output. */
    memset(c->out, 0x5a, bytes);
    c->count = 0xdeadbeef;
    return 0;
}

static uint64_t kernel_iter(void *user)
{
    kcase *c = user;
    c->rc |= kernel_call(c);
    op_bench_escape(c->out);
    const uint32_t n = c->f->chf.span_count;
    if (!n)
        return c->count;
    if (kernel_elem(c->family) == 1) {
        const uint8_t *o = c->out;
        return o[0] | (uint64_t)o[n / 2] << 8 | (uint64_t)o[n - 1] << 16 | (uint64_t)c->count << 32;
    }
    const uint32_t *o = c->out;
    return o[0] ^ (uint64_t)o[n / 2] << 16 ^ (uint64_t)o[n - 1] << 32 ^ c->count;
}

static int kernel_after(void *user, op_bench_state *st)
{
    return kernel_compare(user, st, "after timing");
}

static void register_kernels(field *f)
{
    for (int fam = 0; fam < K_COUNT; fam++)
        for (int isa = 0; isa < OP_ISA_COUNT; isa++) {
            if (!op_isa_available((op_isa)isa))
                continue;
            kcase *c = calloc(1, sizeof *c);
            if (!c)
                die("out of memory", NULL);
            c->next = g_kcases;
            g_kcases = c;
            c->f = f;
            c->family = fam;
            c->isa = (op_isa)isa;
            op_kernels_init(&c->k, c->isa, op_isa_flags(c->isa));
            char name[160];
            snprintf(name, sizeof name, "kernel/%s/%s/%s", kernel_names[fam],
                     op_isa_name(c->isa), f->label);
            op_bench_case bc = {name, c, f->chf.span_count, kernel_before, kernel_iter,
                                kernel_after, NULL};
            if (op_bench_register(&bc))
                die("register", NULL);
        }
}

/* ---- Stage cases ------------------------------------------------------------------ */

typedef struct scase {
    field *f;
    int stage;
    op_isa isa;
    op_ctx ctx;
    uint32_t *out;
    uint32_t count;
    uint64_t digest;
    op_chf chf_out; /* spans stage */
#if OP_BENCH_HAVE_CONTOURS
    op_contour_set set; /* contours stage */
#endif
    op_status status;
    int checked, ok;
    struct scase *next;
} scase;

static scase *g_scases;

#if OP_BENCH_HAVE_REGIONS
static op_region_settings stage_settings(int stage)
{
    op_region_settings s;
    op_region_settings_defaults(&s);
    s.partition = stage == ST_MONOTONE ? OP_PARTITION_MONOTONE
                  : stage == ST_LAYERS ? OP_PARTITION_LAYERS
                                       : OP_PARTITION_WATERSHED;
    return s;
}
#endif


#if OP_BENCH_HAVE_CONTOURS
/* regions-contours §7 defaults; the band's region id when the field has a band. */
static op_contour_settings contour_settings(const field *f)
{
    op_contour_settings cs;
    op_contour_settings_defaults(&cs);
    cs.border_region = f->chf.border_size > 0 ? OP_BORDER_REGION : 0;
    return cs;
}

/* The contour stage on the scalar watershed regions of the field. */
static op_status bench_contours_call(op_ctx *ctx, field *f, op_contour_set *set)
{
    const ref_out *r = &f->stage_ref[ST_WATERSHED];
    op_contour_settings cs = contour_settings(f);
    op_contour_set_free(set);
    return op_build_contours(ctx, &f->chf, r->data, r->count, &cs, set);
}
#endif

/* One run of a stage with ctx (any variant). Fills out/count (or chf_out). */
static op_status stage_call(op_ctx *ctx, field *f, int stage, uint32_t *out, uint32_t *count,
                            void *contour_set, op_chf *chf_out)
{
    const op_chf *chf = &f->chf;
    (void)out;
    (void)count;
    (void)contour_set;
    (void)chf_out;
    switch (stage) {
#if OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS
    case ST_SPANS:
        op_chf_free(chf_out);
        return op_build_spans(ctx, &f->cfg, &f->scene, chf_out, NULL);
#endif
#if OP_BENCH_HAVE_REGIONS
    case ST_DISTANCE: return op_build_distance_field(ctx, chf, out, count);
    case ST_WATERSHED: {
        op_region_settings s = stage_settings(stage);
        return op_build_regions_watershed(ctx, chf, f->stage_dist, &s, out, count);
    }
    case ST_MONOTONE: {
        op_region_settings s = stage_settings(stage);
        return op_build_regions_monotone(ctx, chf, &s, out, count);
    }
    case ST_LAYERS: {
        op_region_settings s = stage_settings(stage);
        return op_build_regions_layers(ctx, chf, &s, out, count);
    }
#endif
#if OP_BENCH_HAVE_CONTOURS
    case ST_CONTOURS: return bench_contours_call(ctx, f, contour_set);
#endif
    default: (void)chf; return op_fail(ctx, OP_UNSUPPORTED, "stage not in this build");
    }
}

static int chf_equal(const op_chf *a, const op_chf *b, char *why, size_t n)
{
    if (a->width != b->width || a->depth != b->depth || a->span_count != b->span_count) {
        snprintf(why, n, "grid %ux%u/%u spans vs %ux%u/%u", a->width, a->depth, a->span_count,
                 b->width, b->depth, b->span_count);
        return 0;
    }
    const size_t cells = (size_t)a->width * a->depth, s = a->span_count;
    long long d;
    if ((d = first_diff(a->cell_first, b->cell_first, cells + 1, 4)) >= 0) {
        snprintf(why, n, "cell_first at cell %lld", d);
        return 0;
    }
    if ((d = first_diff(a->y, b->y, s, 2)) >= 0 || (d = first_diff(a->h, b->h, s, sizeof *a->h)) >= 0 ||
        (d = first_diff(a->area, b->area, s, 1)) >= 0 ||
        (d = first_diff(a->mutual, b->mutual, s, 1)) >= 0) {
        snprintf(why, n, "span data at span %lld", d);
        return 0;
    }
    for (uint32_t i = 0; i < s; i++)
        for (int k = 0; k < 4; k++)
            if (op_chf_link(a, k, i) != op_chf_link(b, k, i)) {
                snprintf(why, n, "link[%d] at span %u", k, i);
                return 0;
            }
    return 1;
}

static ref_out *stage_reference(field *f, int stage)
{
    ref_out *r = &f->stage_ref[stage];
    if (r->done)
        return r;
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    const uint32_t n = f->chf.span_count;
    if (stage != ST_SPANS)
        r->data = xmalloc((size_t)n * 4);
    if (stage == ST_SPANS) {
        r->status = OP_OK; /* the field itself was built by the scalar spans stage */
    } else {
#if OP_BENCH_HAVE_CONTOURS
        op_contour_set set;
        memset(&set, 0, sizeof set);
        r->status = stage_call(&ctx, f, stage, r->data, &r->count, &set, NULL);
        if (stage == ST_CONTOURS && r->status == OP_OK)
            r->digest = op_digest_contours(&set);
        op_contour_set_free(&set);
#else
        r->status = stage_call(&ctx, f, stage, r->data, &r->count, NULL, NULL);
#endif
    }
    if (r->status != OP_OK)
        fprintf(stderr, "onepath_bench: scalar %s on %s: %s\n", stage_names[stage], f->label,
                op_ctx_error(&ctx));
    op_ctx_free(&ctx);
    r->done = 1;
    return r;
}

static int stage_compare(scase *c, op_bench_state *st, const char *when)
{
    const char *sn = stage_names[c->stage];
    ref_out *r = stage_reference(c->f, c->stage);
    if (r->status != OP_OK) {
        op_bench_error(st, "scalar %s on %s failed: %s", sn, c->f->label,
                       op_status_name(r->status));
        return 1;
    }
    if (c->status != OP_OK) {
        op_bench_error(st, "%s %s on %s (%s): %s", sn, op_isa_name(c->isa), c->f->label, when,
                       op_ctx_error(&c->ctx));
        return 1;
    }
    if (c->stage == ST_SPANS) {
        char why[160];
        if (!chf_equal(&c->chf_out, &c->f->chf, why, sizeof why)) {
            op_bench_error(st, "spans %s on %s differs from scalar (%s): %s",
                           op_isa_name(c->isa), c->f->label, when, why);
            return 1;
        }
        return 0;
    }
    if (c->stage == ST_CONTOURS) {
#if OP_BENCH_HAVE_CONTOURS
        c->digest = op_digest_contours(&c->set);
#endif
        if (c->digest != r->digest) {
            op_bench_error(st, "contours %s on %s differ from scalar (%s): digest %016llx vs %016llx",
                           op_isa_name(c->isa), c->f->label, when,
                           (unsigned long long)c->digest, (unsigned long long)r->digest);
            return 1;
        }
        return 0;
    }
    long long d = first_diff(c->out, r->data, c->f->chf.span_count, 4);
    if (d >= 0 || c->count != r->count) {
        op_bench_error(st, "%s %s on %s differs from scalar (%s): first span %lld, count %u vs %u",
                       sn, op_isa_name(c->isa), c->f->label, when, d, c->count, r->count);
        return 1;
    }
    return 0;
}

static void stage_prepare_inputs(field *f, int stage)
{
#if OP_BENCH_HAVE_REGIONS
    if ((stage == ST_WATERSHED || stage == ST_CONTOURS) && !f->stage_dist) {
        op_ctx ctx;
        if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
            die("context", &ctx);
        f->stage_dist = xmalloc((size_t)f->chf.span_count * 4);
        uint32_t maxd;
        if (op_build_distance_field(&ctx, &f->chf, f->stage_dist, &maxd) != OP_OK)
            die("distance field", &ctx);
        op_ctx_free(&ctx);
    }
    if (stage == ST_CONTOURS)
        stage_reference(f, ST_WATERSHED); /* the contour stage's region input */
#else
    (void)f;
    (void)stage;
#endif
}

static void *stage_set(scase *c)
{
#if OP_BENCH_HAVE_CONTOURS
    return &c->set;
#else
    (void)c;
    return NULL;
#endif
}

static int stage_before(void *user, op_bench_state *st)
{
    scase *c = user;
    const size_t n = c->f->chf.span_count;
    stage_prepare_inputs(c->f, c->stage);
    if (!c->out)
        c->out = xmalloc(n * 4);
    if (!c->checked) {
        memset(c->out, 0xa5, n * 4);
        c->count = 0xdeadbeef;
        c->digest = 0;
        c->status = stage_call(&c->ctx, c->f, c->stage, c->out, &c->count, stage_set(c),
                               &c->chf_out);
        c->ok = stage_compare(c, st, "before timing") == 0;
        c->checked = 1;
        if (!c->ok)
            return 1;
    }
    if (!c->ok) {
        op_bench_error(st, "%s %s on %s: failed the comparison with scalar",
                       stage_names[c->stage], op_isa_name(c->isa), c->f->label);
        return 1;
    }
    memset(c->out, 0x5a, n * 4);
    c->count = 0xdeadbeef;
    c->digest = 0;
    return 0;
}

static uint64_t stage_iter(void *user)
{
    scase *c = user;
    op_status s = stage_call(&c->ctx, c->f, c->stage, c->out, &c->count, stage_set(c),
                             &c->chf_out);
    if (s != OP_OK)
        c->status = s;
    op_bench_escape(c->out);
    op_bench_escape(c->chf_out.y);
    uint64_t w = c->chf_out.span_count;
#if OP_BENCH_HAVE_CONTOURS
    op_bench_escape(c->set.vert_storage);
    w ^= (uint64_t)c->set.count << 32 ^ c->set.vert_storage_count;
#endif
    const uint32_t n = c->f->chf.span_count;
    return (n ? c->out[n / 2] : 0) ^ c->count ^ w;
}

static int stage_after(void *user, op_bench_state *st)
{
    return stage_compare(user, st, "after timing");
}

static int stage_in_build(int stage)
{
    switch (stage) {
    case ST_SPANS: return OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS;
    case ST_CONTOURS: return OP_BENCH_HAVE_CONTOURS;
    default: return OP_BENCH_HAVE_REGIONS;
    }
}

static void register_stages(field *f)
{
    op_isa variants[2] = {OP_ISA_SCALAR, op_isa_best()};
    const int nv = variants[1] == OP_ISA_SCALAR ? 1 : 2;
    for (int stage = 0; stage < ST_COUNT; stage++) {
        if (!stage_in_build(stage) || (stage == ST_SPANS && !f->has_scene))
            continue;
        for (int v = 0; v < nv; v++) {
            scase *c = calloc(1, sizeof *c);
            if (!c)
                die("out of memory", NULL);
            c->next = g_scases;
            g_scases = c;
            c->f = f;
            c->stage = stage;
            c->isa = variants[v];
            if (op_ctx_init(&c->ctx, c->isa) != OP_OK)
                die("context", &c->ctx);
            char name[160];
            snprintf(name, sizeof name, "stage/%s/%s/%s", stage_names[stage],
                     op_isa_name(c->isa), f->label);
            /* The spans stage is measured in output spans too. */
            op_bench_case bc = {name, c, f->chf.span_count, stage_before, stage_iter,
                                stage_after, NULL};
            if (op_bench_register(&bc))
                die("register", NULL);
        }
    }
}

/* ---- Whole-bake cases ------------------------------------------------------------- */

/* "stage/bake/<variant>/<field>": op_bake_scene, the chain `onepath bake` runs (spans
 * stage, distance field, watershed regions, contours, with the digests of every stage),
 * on the demo world of the field, for scalar, every variant this CPU runs and auto.
 * Items are the field's compact spans. Each iteration is a cold bake like the tool's:
 * the previous result is freed first and the case's scratch arena starts empty on every
 * run of the case (it is freed after the check), so a case holds no memory once done.
 * Every digest must equal the scalar bake's, before and after timing. */
#if OP_BENCH_HAVE_BAKE
static const char *const bake_digest_names[4] = {"spans", "distance", "regions", "contours"};

typedef struct bcase {
    field *f;
    op_isa isa; /* OP_ISA_AUTO for the auto case */
    op_ctx ctx;
    op_bake_result r;
    op_status status;
    int checked, ok;
    struct bcase *next;
} bcase;

static bcase *g_bcases;
/* --inject-mismatch=bake: one wrong bit in every field's scalar contours digest, so
 * every bake case must fail its check before timing (self-test). */
static int g_inject_bake;

static op_status bake_call(op_ctx *ctx, field *f, op_bake_result *r)
{
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.config = f->cfg; /* the demo world's grid, as `onepath bake --demo` takes it */
    op_bake_result_free(r);
    return op_bake_scene(ctx, &f->scene, &s, r);
}

static void bake_digests(const op_bake_result *r, uint64_t d[4])
{
    d[0] = r->digest_spans;
    d[1] = r->digest_distance;
    d[2] = r->digest_regions;
    d[3] = r->digest_contours;
}

static void bake_reference(field *f)
{
    if (f->bake_done)
        return;
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        die("context", &ctx);
    op_bake_result r;
    memset(&r, 0, sizeof r);
    f->bake_status = bake_call(&ctx, f, &r);
    if (f->bake_status != OP_OK)
        fprintf(stderr, "onepath_bench: scalar bake on %s: %s\n", f->label, op_ctx_error(&ctx));
    bake_digests(&r, f->bake_digest);
    if (g_inject_bake)
        f->bake_digest[3] ^= 1;
    op_bake_result_free(&r);
    op_ctx_free(&ctx);
    f->bake_done = 1;
}

static int bake_compare(bcase *c, op_bench_state *st, const char *when)
{
    const char *vn = op_isa_name(c->isa);
    bake_reference(c->f);
    if (c->f->bake_status != OP_OK) {
        op_bench_error(st, "scalar bake on %s failed: %s", c->f->label,
                       op_status_name(c->f->bake_status));
        return 1;
    }
    if (c->status != OP_OK) {
        op_bench_error(st, "bake %s on %s (%s): %s", vn, c->f->label, when,
                       op_ctx_error(&c->ctx));
        return 1;
    }
    uint64_t d[4];
    bake_digests(&c->r, d);
    for (int i = 0; i < 4; i++)
        if (d[i] != c->f->bake_digest[i]) {
            op_bench_error(st, "bake %s on %s differs from scalar (%s): %s digest %016llx vs %016llx",
                           vn, c->f->label, when, bake_digest_names[i], (unsigned long long)d[i],
                           (unsigned long long)c->f->bake_digest[i]);
            return 1;
        }
    return 0;
}

static int bake_before(void *user, op_bench_state *st)
{
    bcase *c = user;
    if (!c->checked) {
        c->status = bake_call(&c->ctx, c->f, &c->r);
        c->ok = bake_compare(c, st, "before timing") == 0;
        c->checked = 1;
        op_bake_result_free(&c->r);
        op_arena_free(&c->ctx.arena);
        if (!c->ok)
            return 1;
    }
    if (!c->ok) {
        op_bench_error(st, "bake %s on %s: failed the comparison with scalar",
                       op_isa_name(c->isa), c->f->label);
        return 1;
    }
    c->status = OP_INTERNAL; /* the check after timing sees only a timed bake */
    return 0;
}

static uint64_t bake_iter(void *user)
{
    bcase *c = user;
    c->status = bake_call(&c->ctx, c->f, &c->r);
    op_bench_escape(c->r.region);
    op_bench_escape(c->r.contours.vert_storage);
    return c->r.digest_contours ^ c->r.digest_regions ^ c->r.chf.span_count;
}

static int bake_after(void *user, op_bench_state *st)
{
    bcase *c = user;
    const int rc = bake_compare(c, st, "after timing");
    op_bake_result_free(&c->r);
    op_arena_free(&c->ctx.arena);
    return rc;
}

static void register_bake(field *f)
{
    if (!f->has_scene)
        return;
    /* scalar, every other variant this CPU runs (enum order), then auto */
    for (int v = 0; v <= OP_ISA_COUNT; v++) {
        const op_isa which = v == OP_ISA_COUNT ? OP_ISA_AUTO : (op_isa)v;
        if (v < OP_ISA_COUNT && !op_isa_available(which))
            continue;
        bcase *c = calloc(1, sizeof *c);
        if (!c)
            die("out of memory", NULL);
        c->next = g_bcases;
        g_bcases = c;
        c->f = f;
        c->isa = which;
        if (op_ctx_init(&c->ctx, which) != OP_OK)
            die("context", &c->ctx);
        char name[160];
        snprintf(name, sizeof name, "stage/bake/%s/%s", op_isa_name(which), f->label);
        op_bench_case bc = {name, c, f->chf.span_count, bake_before, bake_iter, bake_after, NULL};
        if (op_bench_register(&bc))
            die("register", NULL);
    }
}
#else
static void register_bake(field *f) { (void)f; }
#endif

void op_bench_register_topology(int quick); /* bench_topology.c */
void op_bench_register_tile_cache(int quick); /* bench_tile_cache.c */
void op_bench_register_tiles(int quick, const uint32_t *sizes, int nsizes, const int *threads,
                             int nthreads); /* bench_tiles.c */

/* ---- main ------------------------------------------------------------------------- */

static void free_all(void)
{
    while (g_kcases) {
        kcase *c = g_kcases;
        g_kcases = c->next;
        op_arena_free(&c->arena);
        free(c->out);
        free(c);
    }
    while (g_scases) {
        scase *c = g_scases;
        g_scases = c->next;
        op_chf_free(&c->chf_out);
#if OP_BENCH_HAVE_CONTOURS
        op_contour_set_free(&c->set);
#endif
        op_ctx_free(&c->ctx);
        free(c->out);
        free(c);
    }
#if OP_BENCH_HAVE_BAKE
    while (g_bcases) {
        bcase *c = g_bcases;
        g_bcases = c->next;
        op_bake_result_free(&c->r);
        op_ctx_free(&c->ctx);
        free(c);
    }
#endif
    for (int i = 0; i < g_field_count; i++) {
        field *f = g_fields[i];
        op_chf_free(&f->chf);
#if OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS
        if (f->has_scene)
            op_scene_free(&f->scene);
#endif
        free(f->mutual_ref);
        free(f->dist_ref);
        free(f->labels_ref);
        free(f->edge_ref);
        for (int st = 0; st < ST_COUNT; st++)
            free(f->stage_ref[st].data);
        free(f->stage_dist);
        free(f);
    }
    g_field_count = 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: onepath_bench [--quick] [--chf FILE]... [--no-kernels] [--no-stages]\n"
            "                     [Google Benchmark flags, e.g. --benchmark_filter=REGEX\n"
            "                      --benchmark_format=json]\n"
            "  --quick       the ~1M-span field only and a short minimum time (CI)\n"
            "  --chf FILE    also run every kernel and stage on an OPCHF1 file\n"
            "  --inject-mismatch[=after]  corrupt the mutual_links reference at start\n"
            "                (or after the first check): a self-test that must fail\n"
            "  --tiled-demo=N  also time the tiled bake (T = 256) on the demo world of N\n"
            "                cells a side (repeatable; default 1024 and 2048, 512 with\n"
            "                --quick; 4096 ~18 M spans, 8192 ~70 M, 16384 ~280 M)\n"
            "  --tiled-threads=K  thread counts of the tiled cases (repeatable; default 1\n"
            "                and OpenMP's default)\n"
            "  --inject-mismatch=bake  corrupt the scalar bake's contours digest: every\n"
            "                stage/bake case must fail (scalar too: it is compared with\n"
            "                the corrupted reference)\n"
            "Case names: kernel|stage / family / variant / field; items_per_second is\n"
            "spans per second. Every case is compared with its scalar twin first.\n");
}

int main(int argc, char **argv)
{
    int quick = 0, kernels = 1, stages = 1, inject = 0;
    uint32_t tiled_sizes[8];
    int tiled_threads[8], ntiled_sizes = 0, ntiled_threads = 0;
    const char *files[MAX_FIELDS];
    int nfiles = 0;
    char **rest = xmalloc(sizeof *rest * ((size_t)argc + 1));
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--no-kernels"))
            kernels = 0;
        else if (!strcmp(argv[i], "--no-stages"))
            stages = 0;
        else if (!strncmp(argv[i], "--tiled-demo=", 13) && ntiled_sizes < 8)
            tiled_sizes[ntiled_sizes++] = (uint32_t)strtoul(argv[i] + 13, NULL, 10);
        else if (!strncmp(argv[i], "--tiled-threads=", 16) && ntiled_threads < 8)
            tiled_threads[ntiled_threads++] = atoi(argv[i] + 16);
        else if (!strcmp(argv[i], "--inject-mismatch"))
            inject = 1;
        else if (!strcmp(argv[i], "--inject-mismatch=after"))
            g_inject_after = 1;
#if OP_BENCH_HAVE_BAKE
        else if (!strcmp(argv[i], "--inject-mismatch=bake"))
            g_inject_bake = 1;
#endif
        else if (!strcmp(argv[i], "--chf") && i + 1 < argc && nfiles < MAX_FIELDS - 2)
            files[nfiles++] = argv[++i];
        else if (!strncmp(argv[i], "--chf=", 6) && nfiles < MAX_FIELDS - 2)
            files[nfiles++] = argv[i] + 6;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else
            rest[nrest++] = argv[i];
    }
    rest[nrest] = NULL;

    const uint64_t targets[2] = {1000000, 4000000};
    for (int t = 0; t < (quick ? 1 : 2); t++) {
#if OP_BENCH_HAVE_DEMO && OP_BENCH_HAVE_SPANS
        add_demo_field(targets[t]);
#else
        add_random_field(targets[t]);
#endif
    }
    for (int i = 0; i < nfiles; i++)
        add_chf_file(files[i]);
    /* Self-test of the comparison (ctest bench_detects_mismatch): one wrong byte in the
     * scalar reference of mutual_links must fail every mutual_links case. */
    for (int i = 0; inject && i < g_field_count; i++)
        if (g_fields[i]->chf.span_count)
            g_fields[i]->mutual_ref[g_fields[i]->chf.span_count / 2] ^= 0x10;

    fprintf(stderr, "onepath_bench: variants:");
    for (int isa = 0; isa < OP_ISA_COUNT; isa++)
        if (op_isa_available((op_isa)isa))
            fprintf(stderr, " %s", op_isa_name((op_isa)isa));
    fprintf(stderr, " (best %s)\n", op_isa_name(op_isa_best()));

    for (int i = 0; i < g_field_count; i++) {
        if (kernels)
            register_kernels(g_fields[i]);
        if (stages) {
            register_stages(g_fields[i]);
            register_bake(g_fields[i]);
        }
    }
    if (stages) {
        op_bench_register_topology(quick);
#if OP_BENCH_HAVE_BAKE
        op_bench_register_tiles(quick, tiled_sizes, ntiled_sizes, tiled_threads, ntiled_threads);
        op_bench_register_tile_cache(quick);
#endif
    }
    int rc = op_bench_run(nrest, rest, quick ? 0.05 : 0.0);
    free(rest);
    free_all();
    return rc;
}
