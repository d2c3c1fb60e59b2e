/* onepath_bench — the chunk-region graph (issue 15 "Benchmarks"): the workloads tess 0.13
 * was measured on, through the Google Benchmark shim (bench/shim.h).
 *
 * Worlds (one u8 passable field, class Field/UnitCost, 4-neighbour):
 *   open-512      512² in 32² chunks, all open (256 regions, 30 720 portals)
 *   sealed-512    open-512 with the four neighbours of (256,256) walled
 *   open-2048     2048² in 64² chunks, all open
 *   walls30-2048  2048² in 64² chunks, 30 % walls: s = s·6364136223846793005 +
 *                 1442695040888963407 from 0x2545F4914F6CDD1D, advanced once per tile in
 *                 row-major order, wall when ((s >> 33) mod 100) < 30; the 8×8 blocks at
 *                 the four corners are open
 *   composed-512  open-512 plus a second field with a wall stripe at x = 256, class
 *                 AllOf(Field(pass), Not(Field(stripe))) (tess's composed-class case)
 * Cases "topology/<family>/<variant>/<world>":
 *   build/t1, build/t2        op_region_graph_build on 1 and 2 threads
 *   build/t1-flood            1 thread, open-chunk template off (every chunk flooded)
 *   reachable/far             (0,0) -> far corner
 *   coarse_path/far           (0,0) -> far corner
 *   precheck/reachable        (0,0) -> far corner, freshness included
 *   precheck/unreachable      (0,0) -> (256,256) on sealed-512
 * Items: tiles for builds, 1 for queries. Every case checks its result before and after
 * timing: builds against the digest of a one-thread build with the template off, queries
 * against the expected status (and §10.14's visited counts on open-512). */
#include "shim.h"

#include "onepath/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_bench_register_topology(int quick);

enum { W_OPEN512, W_SEALED512, W_OPEN2048, W_WALLS2048, W_COMPOSED512, W_COUNT };
static const char *const world_names[W_COUNT] = {"open-512", "sealed-512", "open-2048",
                                                 "walls30-2048", "composed-512"};

enum { F_PASS = 1, F_STRIPE = 2 };

typedef struct tworld {
    int ready;
    op_world w;
    op_movement_class c;
    uint64_t want_digest;
} tworld;

static op_ctx g_ctx;
static int g_ctx_ready;
static tworld g_worlds[W_COUNT];

static int make_world(int id)
{
    tworld *t = &g_worlds[id];
    if (t->ready)
        return 0;
    if (!g_ctx_ready) {
        if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
            return -1;
        g_ctx_ready = 1;
    }
    uint32_t size = id == W_OPEN2048 || id == W_WALLS2048 ? 2048 : 512;
    uint32_t chunk = size == 2048 ? 64 : 32;
    op_world_shape s = {{size, size, 1}, {chunk, chunk, 1}, OP_LATTICE_ORTHOGONAL};
    if (op_world_init(&g_ctx, &t->w, &s) != OP_OK ||
        op_world_add_field(&g_ctx, &t->w, F_PASS, OP_FIELD_U8) != OP_OK ||
        op_world_fill(&g_ctx, &t->w, F_PASS, 1) != OP_OK)
        return -1;
    op_movement_class_unit_field(&t->c, F_PASS);
    if (id == W_SEALED512) {
        static const int32_t d[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int i = 0; i < 4; i++)
            op_world_set(&g_ctx, &t->w, F_PASS, (op_coord3){256 + d[i][0], 256 + d[i][1], 0}, 0);
    } else if (id == W_WALLS2048) {
        uint64_t st = 0x2545F4914F6CDD1Dull;
        for (int32_t y = 0; y < 2048; y++)
            for (int32_t x = 0; x < 2048; x++) {
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                int corner = (x < 8 || x >= 2040) && (y < 8 || y >= 2040);
                int wall = !corner && (st >> 33) % 100 < 30;
                op_world_set(&g_ctx, &t->w, F_PASS, (op_coord3){x, y, 0}, !wall);
            }
    } else if (id == W_COMPOSED512) {
        if (op_world_add_field(&g_ctx, &t->w, F_STRIPE, OP_FIELD_U8) != OP_OK)
            return -1;
        for (int32_t y = 0; y < 512; y++)
            op_world_set(&g_ctx, &t->w, F_STRIPE, (op_coord3){256, y, 0}, 1);
        op_movement_class_clear(&t->c);
        op_movement_pass_push(&g_ctx, &t->c, OP_PASS_ALL_OF, 2);
        op_movement_pass_push(&g_ctx, &t->c, OP_PASS_FIELD, F_PASS);
        op_movement_pass_push(&g_ctx, &t->c, OP_PASS_NOT, 0);
        op_movement_pass_push(&g_ctx, &t->c, OP_PASS_FIELD, F_STRIPE);
    }
    /* The reference digest: one thread, every chunk flooded. */
    op_region_graph g;
    op_region_graph_init(&g_ctx, &g);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.threads = 1;
    set.use_open_template = 0;
    int rc = op_region_graph_build(&g_ctx, &t->w, &t->c, &set, &g, NULL) != OP_OK ||
             op_region_graph_digest(&g_ctx, &g, &t->want_digest) != OP_OK;
    op_region_graph_free(&g);
    if (rc)
        return -1;
    t->ready = 1;
    return 0;
}

/* ---- build cases ------------------------------------------------------------------- */

typedef struct bcase {
    int world, threads, templ;
    op_region_graph g;
    int graph_ready;
    char name[96];
} bcase;

static int build_check(bcase *b, op_bench_state *st, const char *when)
{
    uint64_t d = 0;
    if (op_region_graph_digest(&g_ctx, &b->g, &d) != OP_OK || d != g_worlds[b->world].want_digest) {
        op_bench_error(st, "%s: digest %016llx differs from the one-thread flood build's %016llx (%s timing)",
                       b->name, (unsigned long long)d,
                       (unsigned long long)g_worlds[b->world].want_digest, when);
        return 1;
    }
    op_bench_counter(st, "regions", (double)b->g.region_count);
    op_bench_counter(st, "portals", (double)b->g.portal_count);
    return 0;
}

static int build_before(void *user, op_bench_state *st)
{
    bcase *b = user;
    if (make_world(b->world)) {
        op_bench_error(st, "%s: cannot make the world: %s", b->name, op_ctx_error(&g_ctx));
        return 1;
    }
    if (!b->graph_ready) {
        op_region_graph_init(&g_ctx, &b->g);
        b->graph_ready = 1;
    }
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.threads = b->threads;
    s.use_open_template = b->templ;
    if (op_region_graph_build(&g_ctx, &g_worlds[b->world].w, &g_worlds[b->world].c, &s, &b->g,
                              NULL) != OP_OK) {
        op_bench_error(st, "%s: %s", b->name, op_ctx_error(&g_ctx));
        return 1;
    }
    return build_check(b, st, "before");
}

static uint64_t build_iter(void *user)
{
    bcase *b = user;
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.threads = b->threads;
    s.use_open_template = b->templ;
    op_status st = op_region_graph_build(&g_ctx, &g_worlds[b->world].w, &g_worlds[b->world].c,
                                         &s, &b->g, NULL);
    op_bench_escape(b->g.labels);
    op_bench_escape(b->g.portals);
    return (uint64_t)st + b->g.portal_count + b->g.region_count;
}

static int build_after(void *user, op_bench_state *st)
{
    return build_check(user, st, "after");
}

/* ---- query cases -------------------------------------------------------------------- */

enum { Q_REACH, Q_COARSE, Q_PRE_REACH, Q_PRE_UNREACH };

typedef struct qcase {
    int world, kind;
    op_region_graph g;
    op_region_graph_scratch s;
    int ready;
    op_path_request req;
    char name[96];
    uint32_t last_status, last_visited;
} qcase;

static uint64_t query_iter(void *user)
{
    qcase *q = user;
    switch (q->kind) {
    case Q_REACH: {
        op_reach_result r;
        op_reachable(NULL, &q->g, &q->req, &q->s, &r);
        q->last_status = r.status;
        q->last_visited = r.visited;
        return r.visited;
    }
    case Q_COARSE: {
        op_coarse_path_result r;
        op_coarse_path(NULL, &q->g, &q->req, &q->s, &r);
        q->last_status = r.status;
        q->last_visited = r.visited;
        op_bench_escape(r.regions);
        return r.visited + r.chunk_count;
    }
    default: {
        op_precheck_status p;
        op_precheck_path(NULL, &q->g, &g_worlds[q->world].w, &g_worlds[q->world].c, NULL, &q->req,
                         &q->s, OP_MISSING_REPORT_INDETERMINATE, &p);
        q->last_status = p;
        return p;
    }
    }
}

static int query_check(qcase *q, op_bench_state *st, const char *when)
{
    uint32_t want = q->kind == Q_PRE_UNREACH ? OP_PRECHECK_UNREACHABLE
                    : q->kind == Q_PRE_REACH ? OP_PRECHECK_REACHABLE
                                             : OP_REACH_REACHABLE;
    uint32_t want_visited = 0;
    if (q->world == W_OPEN512 && q->kind == Q_REACH)
        want_visited = 59; /* supplement §10.14 */
    if (q->world == W_OPEN512 && q->kind == Q_COARSE)
        want_visited = 256;
    if (q->last_status != want || (want_visited && q->last_visited != want_visited)) {
        op_bench_error(st, "%s: status %u visited %u, expected %u / %u (%s timing)", q->name,
                       q->last_status, q->last_visited, want, want_visited, when);
        return 1;
    }
    return 0;
}

static int query_before(void *user, op_bench_state *st)
{
    qcase *q = user;
    if (make_world(q->world)) {
        op_bench_error(st, "%s: cannot make the world: %s", q->name, op_ctx_error(&g_ctx));
        return 1;
    }
    if (!q->ready) {
        op_region_graph_init(&g_ctx, &q->g);
        op_region_graph_scratch_init(&g_ctx, &q->s);
        if (op_region_graph_build(&g_ctx, &g_worlds[q->world].w, &g_worlds[q->world].c, NULL, &q->g,
                                  NULL) != OP_OK ||
            op_region_graph_scratch_reserve(&g_ctx, &q->s, &q->g) != OP_OK) {
            op_bench_error(st, "%s: %s", q->name, op_ctx_error(&g_ctx));
            return 1;
        }
        q->ready = 1;
    }
    query_iter(q); /* warm: allocation-free from here on */
    return query_check(q, st, "before");
}

static int query_after(void *user, op_bench_state *st)
{
    return query_check(user, st, "after");
}

/* ---- registration ------------------------------------------------------------------- */

static void reg_build(int world, int threads, int templ)
{
    bcase *b = calloc(1, sizeof *b);
    if (!b)
        return;
    b->world = world;
    b->threads = threads;
    b->templ = templ;
    snprintf(b->name, sizeof b->name, "topology/build/t%d%s/%s", threads, templ ? "" : "-flood",
             world_names[world]);
    uint32_t size = world == W_OPEN2048 || world == W_WALLS2048 ? 2048 : 512;
    op_bench_case c = {.name = b->name, .user = b, .items_per_iter = (uint64_t)size * size,
                       .before = build_before, .iter = build_iter, .after = build_after};
    op_bench_register(&c);
}

static void reg_query(int world, int kind)
{
    qcase *q = calloc(1, sizeof *q);
    if (!q)
        return;
    static const char *const fam[] = {"reachable/far", "coarse_path/far", "precheck/reachable",
                                      "precheck/unreachable"};
    q->world = world;
    q->kind = kind;
    int32_t far = world == W_OPEN2048 || world == W_WALLS2048 ? 2047 : 511;
    q->req = (op_path_request){{0, 0, 0}, {far, far, 0}};
    if (kind == Q_PRE_UNREACH)
        q->req.goal = (op_coord3){256, 256, 0};
    snprintf(q->name, sizeof q->name, "topology/%s/%s", fam[kind], world_names[world]);
    op_bench_case c = {.name = q->name, .user = q, .items_per_iter = 1, .before = query_before,
                       .iter = query_iter, .after = query_after};
    op_bench_register(&c);
}

void op_bench_register_topology(int quick)
{
    reg_build(W_OPEN512, 1, 1);
    reg_build(W_OPEN512, 2, 1);
    reg_build(W_OPEN512, 1, 0);
    reg_build(W_COMPOSED512, 1, 1);
    reg_query(W_OPEN512, Q_REACH);
    reg_query(W_OPEN512, Q_COARSE);
    reg_query(W_OPEN512, Q_PRE_REACH);
    reg_query(W_SEALED512, Q_PRE_UNREACH);
    if (quick)
        return;
    reg_build(W_OPEN2048, 1, 1);
    reg_build(W_OPEN2048, 2, 1);
    reg_build(W_WALLS2048, 1, 1);
    reg_build(W_WALLS2048, 2, 1);
    reg_query(W_OPEN2048, Q_COARSE);
    reg_query(W_WALLS2048, Q_COARSE);
    reg_query(W_WALLS2048, Q_REACH);
}
