/* onepath_bench — the tiled bake (issue 11 "Benchmarks"): the whole chain of
 * `onepath bake --demo --demo-size N --tile-size 256 --threads K`, one case per scale
 * and thread count, beside a solo bake of the same world where it fits in memory.
 *
 * Worlds: the demo world at 512 cells a side with --quick, else 1024 (~1.2 M spans) and
 * 2048 (~5 M); every --tiled-demo=N adds a scale (4096 ~18 M, 8192 ~70 M, 16384
 * ~280 M spans). Cases "stage/<family>/<variant>/demo<N>":
 *   tiled-256/<K>t   op_bake_tiled, T = 256, default border, K threads for K = 1 and
 *                    op_tiled_default_threads() (or every --tiled-threads=K given)
 *   solo/<K>t        op_bake_scene on the same world with K threads inside the grid
 *                    (op_ctx_set_threads), for the same K (sizes up to 4096: a solo
 *                    bake holds a few tens of bytes per span)
 * Items: the world's spans (each tile's owned spans), so spans/s compare across cases.
 * Every tiled case checks its build3d/tiles digest against the 1-thread bake's before and
 * after timing; a solo case checks that its span count is the tiled bake's world span
 * count (supplement §2: owned cells equal the solo bake's) and that its four digests are
 * the first solo case's of that world (any thread count). */
#include "shim.h"

#include "onepath/onepath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_bench_register_tiles(int quick, const uint32_t *sizes, int nsizes, const int *threads,
                             int nthreads);

#define TILE 256
#define SOLO_MAX 4096

typedef struct tworld {
    uint32_t size;
    op_scene scene;
    op_bake_settings s;
    int ref_done;
    op_status ref_status;
    uint64_t ref_digest, world_spans;
    int solo_done;
    uint64_t solo_digests[4]; /* the first solo case's, for every solo thread count */
} tworld;

typedef struct tcase {
    tworld *w;
    int solo;    /* op_bake_scene with `threads` inside the grid, else tiled */
    int threads;
    op_ctx ctx;
    op_tiled_result r;
    op_bake_result solo_r;
    op_status status;
    int checked, ok;
} tcase;

static void die(const char *what, const op_ctx *ctx)
{
    fprintf(stderr, "onepath_bench: %s: %s\n", what, ctx ? op_ctx_error(ctx) : "");
    exit(2);
}

/* The 1-thread tiled bake: the digest every thread count must give. */
static void reference(tworld *w)
{
    if (w->ref_done)
        return;
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_AUTO) != OP_OK)
        die("context", &ctx);
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 1;
    op_tiled_result r;
    w->ref_status = op_bake_tiled(&ctx, &w->scene, &w->s, &o, &r);
    if (w->ref_status != OP_OK)
        fprintf(stderr, "onepath_bench: tiled demo%u: %s\n", w->size, op_ctx_error(&ctx));
    w->ref_digest = r.digest;
    w->world_spans = r.owned_spans;
    op_tiled_result_free(&r);
    op_ctx_free(&ctx);
    w->ref_done = 1;
}

static op_status run(tcase *c)
{
    if (c->solo) {
        op_bake_result_free(&c->solo_r);
        op_bake_settings s = c->w->s;
        s.config.tile_size = 0;
        return op_bake_scene(&c->ctx, &c->w->scene, &s, &c->solo_r);
    }
    op_tiled_result_free(&c->r);
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = c->threads;
    return op_bake_tiled(&c->ctx, &c->w->scene, &c->w->s, &o, &c->r);
}

static int compare(tcase *c, op_bench_state *st, const char *when)
{
    reference(c->w);
    if (c->w->ref_status != OP_OK) {
        op_bench_error(st, "1-thread tiled bake of demo%u failed", c->w->size);
        return 1;
    }
    if (c->status != OP_OK) {
        op_bench_error(st, "bake of demo%u (%s): %s", c->w->size, when, op_ctx_error(&c->ctx));
        return 1;
    }
    if (c->solo) {
        const uint64_t d[4] = {c->solo_r.digest_spans, c->solo_r.digest_distance,
                               c->solo_r.digest_regions, c->solo_r.digest_contours};
        if (c->solo_r.chf.span_count != c->w->world_spans) {
            op_bench_error(st, "solo demo%u has %u spans, the tiles own %llu (%s)", c->w->size,
                           c->solo_r.chf.span_count, (unsigned long long)c->w->world_spans, when);
            return 1;
        }
        if (!c->w->solo_done) {
            memcpy(c->w->solo_digests, d, sizeof d);
            c->w->solo_done = 1;
        } else if (memcmp(c->w->solo_digests, d, sizeof d)) {
            op_bench_error(st, "solo demo%u with %d threads: digests differ from the first solo "
                               "case's (%s)", c->w->size, c->threads, when);
            return 1;
        }
        return 0;
    }
    if (c->r.digest != c->w->ref_digest) {
        op_bench_error(st, "tiled demo%u with %d threads: digest %016llx, 1 thread gave %016llx "
                           "(%s)",
                       c->w->size, c->threads, (unsigned long long)c->r.digest,
                       (unsigned long long)c->w->ref_digest, when);
        return 1;
    }
    return 0;
}

static void release(tcase *c)
{
    op_tiled_result_free(&c->r);
    op_bake_result_free(&c->solo_r);
    op_arena_free(&c->ctx.arena);
}

static int before(void *user, op_bench_state *st)
{
    tcase *c = user;
    if (!c->checked) {
        c->status = run(c);
        c->ok = compare(c, st, "before timing") == 0;
        c->checked = 1;
        release(c);
        if (!c->ok)
            return 1;
    }
    if (!c->ok) {
        op_bench_error(st, "demo%u: failed its check", c->w->size);
        return 1;
    }
    op_bench_counter(st, "threads", c->threads);
    c->status = OP_INTERNAL; /* the check after timing sees only a timed bake */
    return 0;
}

static uint64_t iter(void *user)
{
    tcase *c = user;
    c->status = run(c);
    if (c->solo) {
        op_bench_escape(c->solo_r.region);
        return c->solo_r.digest_contours;
    }
    op_bench_escape(c->r.tiles);
    return c->r.digest;
}

static int after(void *user, op_bench_state *st)
{
    tcase *c = user;
    const int rc = compare(c, st, "after timing");
    release(c);
    return rc;
}

static void add_case(tworld *w, int solo, int threads)
{
    tcase *c = calloc(1, sizeof *c);
    if (!c)
        die("out of memory", NULL);
    c->w = w;
    c->solo = solo;
    c->threads = threads;
    if (op_ctx_init(&c->ctx, OP_ISA_AUTO) != OP_OK)
        die("context", &c->ctx);
    if (solo && op_ctx_set_threads(&c->ctx, threads) != OP_OK)
        die("threads", &c->ctx);
    char name[128];
    if (!solo)
        snprintf(name, sizeof name, "stage/tiled-%d/%dt/demo%u", TILE, threads, w->size);
    else
        snprintf(name, sizeof name, "stage/solo/%dt/demo%u", threads, w->size);
    /* Items: the world's spans, known once the reference ran; until then an estimate
     * from the demo's ~1.1 spans per cell (the counter only scales spans/s). */
    reference(w);
    op_bench_case bc = {name, c, w->world_spans ? w->world_spans : (uint64_t)w->size * w->size,
                        before, iter, after, NULL};
    if (op_bench_register(&bc))
        die("register", NULL);
}

void op_bench_register_tiles(int quick, const uint32_t *sizes, int nsizes, const int *threads,
                             int nthreads)
{
    static const uint32_t quick_sizes[] = {512}, default_sizes[] = {1024, 2048};
    if (!nsizes) {
        sizes = quick ? quick_sizes : default_sizes;
        nsizes = quick ? 1 : 2;
    }
    int ts[8], nts = 0;
    if (nthreads) {
        for (int i = 0; i < nthreads && nts < 8; i++)
            ts[nts++] = threads[i];
    } else {
        ts[nts++] = 1;
        if (op_tiled_default_threads() > 1)
            ts[nts++] = op_tiled_default_threads();
    }
    for (int i = 0; i < nsizes; i++) {
        tworld *w = calloc(1, sizeof *w);
        if (!w)
            die("out of memory", NULL);
        w->size = sizes[i];
        op_ctx ctx;
        if (op_ctx_init(&ctx, OP_ISA_AUTO) != OP_OK)
            die("context", &ctx);
        op_bake_settings_defaults(&w->s);
        if (op_demo_world(&ctx, w->size, &w->scene, &w->s.config) != OP_OK)
            die("demo world", &ctx);
        op_ctx_free(&ctx);
        w->s.config.tile_size = TILE;
        for (int k = 0; k < nts; k++)
            add_case(w, 0, ts[k]);
        for (int k = 0; k < nts && w->size <= SOLO_MAX; k++)
            add_case(w, 1, ts[k]);
        fprintf(stderr, "onepath_bench: tiled demo%u: %llu spans, %u triangles\n", w->size,
                (unsigned long long)w->world_spans, w->scene.mesh.tri_count);
    }
}
