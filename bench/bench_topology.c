/* onepath_bench — the chunk-region graph (issues 15 and 16 "Benchmarks"): the workloads
 * tess 0.13 was measured on, through the Google Benchmark shim (bench/shim.h).
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
 *   build/t1-sparse-quarter   1 thread, the same world as a sparse world with the centre
 *                             quarter of its chunks resident (half the chunks per axis)
 *   update/one-chunk          op_region_graph_update of one chunk near the centre with no
 *                             edit (its version marked dirty): tess's "update of one chunk"
 *   update/one-chunk-edit     the same chunk with a wall line across it toggled before
 *                             each update (regions 1 <-> 2, portal counts change: the runs
 *                             after it move and are re-targeted)
 *   update/one-chunk-sparse   update/one-chunk on the sparse quarter world
 *   reachable/far             (0,0) -> far corner
 *   coarse_path/far           (0,0) -> far corner
 *   precheck/reachable        (0,0) -> far corner, freshness included
 *   precheck/unreachable      (0,0) -> (256,256) on sealed-512
 * Items: tiles for builds, 1 for queries and updates. Every case checks its result before
 * and after timing: builds against the digest of a one-thread build with the template
 * off, updates against a fresh build of the world as it is, queries against the
 * expected status (and §10.14's visited counts on open-512). */
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
    /* The same world as a sparse world, the centre quarter of its chunks resident. */
    int sparse_ready;
    op_world sparse;
    uint64_t sparse_digest;
} tworld;

static op_ctx g_ctx;
static int g_ctx_ready;
static tworld g_worlds[W_COUNT];

static int digest_of_build(const op_world *w, const op_movement_class *c, uint64_t *out)
{
    op_region_graph g;
    op_region_graph_init(&g_ctx, &g);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.threads = 1;
    set.use_open_template = 0;
    int rc = op_region_graph_build(&g_ctx, w, c, &set, &g, NULL) != OP_OK ||
             op_region_graph_digest(&g_ctx, &g, out) != OP_OK;
    op_region_graph_free(&g);
    return rc;
}

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
    if (digest_of_build(&t->w, &t->c, &t->want_digest))
        return -1;
    t->ready = 1;
    return 0;
}

/* The sparse copy: chunks [CX/4, 3CX/4) x [CY/4, 3CY/4) resident, their pages copied. */
static int make_sparse(int id)
{
    if (make_world(id))
        return -1;
    tworld *t = &g_worlds[id];
    if (t->sparse_ready)
        return 0;
    const op_world *d = &t->w;
    if (op_world_init_sparse(&g_ctx, &t->sparse, &d->shape) != OP_OK)
        return -1;
    for (uint32_t f = 0; f < d->field_count; f++)
        if (op_world_add_field(&g_ctx, &t->sparse, d->fields[f].id, d->fields[f].type) != OP_OK)
            return -1;
    const uint32_t cx = d->chunks[0], cy = d->chunks[1];
    for (uint32_t ky = cy / 4; ky < cy - cy / 4; ky++)
        for (uint32_t kx = cx / 4; kx < cx - cx / 4; kx++) {
            op_chunk_key k = kx + ky * cx;
            if (op_world_make_resident(&g_ctx, &t->sparse, k) != OP_OK)
                return -1;
            for (uint32_t f = 0; f < d->field_count; f++)
                memcpy(op_world_page(&t->sparse, d->fields[f].id, k),
                       op_world_page_const(d, d->fields[f].id, k),
                       (size_t)d->chunk_tiles * d->fields[f].elem_size);
        }
    if (digest_of_build(&t->sparse, &t->c, &t->sparse_digest))
        return -1;
    t->sparse_ready = 1;
    return 0;
}

/* ---- build cases ------------------------------------------------------------------- */

typedef struct bcase {
    int world, threads, templ, sparse;
    op_region_graph g;
    int graph_ready;
    char name[96];
} bcase;

static const op_world *case_world(int world, int sparse)
{
    return sparse ? &g_worlds[world].sparse : &g_worlds[world].w;
}

static int build_check(bcase *b, op_bench_state *st, const char *when)
{
    uint64_t d = 0;
    const uint64_t want = b->sparse ? g_worlds[b->world].sparse_digest : g_worlds[b->world].want_digest;
    if (op_region_graph_digest(&g_ctx, &b->g, &d) != OP_OK || d != want) {
        op_bench_error(st, "%s: digest %016llx differs from the one-thread flood build's %016llx (%s timing)",
                       b->name, (unsigned long long)d, (unsigned long long)want, when);
        return 1;
    }
    op_bench_counter(st, "regions", (double)b->g.region_count);
    op_bench_counter(st, "portals", (double)b->g.portal_count);
    return 0;
}

static int build_before(void *user, op_bench_state *st)
{
    bcase *b = user;
    if (b->sparse ? make_sparse(b->world) : make_world(b->world)) {
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
    if (op_region_graph_build(&g_ctx, case_world(b->world, b->sparse), &g_worlds[b->world].c, &s,
                              &b->g, NULL) != OP_OK) {
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
    op_status st = op_region_graph_build(&g_ctx, case_world(b->world, b->sparse),
                                         &g_worlds[b->world].c, &s, &b->g, NULL);
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

/* ---- update cases -------------------------------------------------------------------- */

enum { U_NOEDIT, U_EDIT, U_SPARSE };

typedef struct ucase {
    int world, kind;
    op_region_graph g;
    int ready;
    op_chunk_key key;  /* the chunk updated */
    op_coord3 origin;  /* its first tile */
    uint32_t side;     /* chunk side */
    int wall;          /* edit: the wall line is in */
    char name[96];
} ucase;

static op_world *ucase_world(ucase *u)
{
    return u->kind == U_SPARSE ? &g_worlds[u->world].sparse : &g_worlds[u->world].w;
}

/* Edit: a wall line across the chunk's middle row (on open ground the chunk becomes two
 * regions; its and its x neighbours' portal counts change). */
static void toggle_wall(ucase *u)
{
    u->wall = !u->wall;
    /* A raw write into the chunk's page (row side / 2), as a game edits its world. */
    uint8_t *page = op_world_page(ucase_world(u), F_PASS, u->key);
    memset(page + (size_t)(u->side / 2) * u->side, !u->wall, u->side);
}

static uint64_t update_iter(void *user)
{
    ucase *u = user;
    if (u->kind == U_EDIT)
        toggle_wall(u);
    op_world_mark_topology_dirty(&g_ctx, ucase_world(u), u->key);
    op_topology_build_result r;
    op_status st = op_region_graph_update(&g_ctx, ucase_world(u), &g_worlds[u->world].c, NULL,
                                          &u->key, 1, &u->g, &r);
    op_bench_escape(u->g.portals);
    return (uint64_t)st + r.region_count + u->g.portal_count;
}

static int update_check(ucase *u, op_bench_state *st, const char *when)
{
    uint64_t d = 0, want = 0;
    if (digest_of_build(ucase_world(u), &g_worlds[u->world].c, &want) ||
        op_region_graph_digest(&g_ctx, &u->g, &d) != OP_OK || d != want ||
        !op_region_graph_is_fresh(ucase_world(u), &u->g)) {
        op_bench_error(st, "%s: digest %016llx differs from a fresh build's %016llx (%s timing)",
                       u->name, (unsigned long long)d, (unsigned long long)want, when);
        return 1;
    }
    op_bench_counter(st, "regions", (double)u->g.region_count);
    op_bench_counter(st, "portals", (double)u->g.portal_count);
    return 0;
}

static int update_before(void *user, op_bench_state *st)
{
    ucase *u = user;
    if (u->kind == U_SPARSE ? make_sparse(u->world) : make_world(u->world)) {
        op_bench_error(st, "%s: cannot make the world: %s", u->name, op_ctx_error(&g_ctx));
        return 1;
    }
    if (!u->ready) {
        op_region_graph_init(&g_ctx, &u->g);
        const op_world *w = ucase_world(u);
        /* the chunk at the centre of the grid (inside the sparse quarter) */
        u->key = w->chunks[0] / 2 + (w->chunks[1] / 2) * w->chunks[0];
        u->origin = op_world_chunk_origin(w, u->key);
        u->side = w->shape.chunk[0];
        u->ready = 1;
    }
    if (u->wall)
        toggle_wall(u); /* back to the world as made */
    if (op_region_graph_build(&g_ctx, ucase_world(u), &g_worlds[u->world].c, NULL, &u->g, NULL) != OP_OK) {
        op_bench_error(st, "%s: %s", u->name, op_ctx_error(&g_ctx));
        return 1;
    }
    update_iter(u); /* warm: the update's scratch is allocated */
    return update_check(u, st, "before");
}

static int update_after(void *user, op_bench_state *st)
{
    ucase *u = user;
    int rc = update_check(u, st, "after");
    if (u->wall)
        toggle_wall(u);
    return rc;
}

/* ---- registration ------------------------------------------------------------------- */

static void reg_update(int world, int kind)
{
    ucase *u = calloc(1, sizeof *u);
    if (!u)
        return;
    static const char *const fam[] = {"one-chunk", "one-chunk-edit", "one-chunk-sparse"};
    u->world = world;
    u->kind = kind;
    snprintf(u->name, sizeof u->name, "topology/update/%s/%s", fam[kind], world_names[world]);
    op_bench_case c = {.name = u->name, .user = u, .items_per_iter = 1, .before = update_before,
                       .iter = update_iter, .after = update_after};
    op_bench_register(&c);
}

static void reg_build_ex(int world, int threads, int templ, int sparse)
{
    bcase *b = calloc(1, sizeof *b);
    if (!b)
        return;
    b->world = world;
    b->threads = threads;
    b->templ = templ;
    b->sparse = sparse;
    snprintf(b->name, sizeof b->name, "topology/build/t%d%s%s/%s", threads, templ ? "" : "-flood",
             sparse ? "-sparse-quarter" : "", world_names[world]);
    uint32_t size = world == W_OPEN2048 || world == W_WALLS2048 ? 2048 : 512;
    op_bench_case c = {.name = b->name, .user = b, .items_per_iter = (uint64_t)size * size,
                       .before = build_before, .iter = build_iter, .after = build_after};
    op_bench_register(&c);
}

static void reg_build(int world, int threads, int templ)
{
    reg_build_ex(world, threads, templ, 0);
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
    reg_update(W_OPEN512, U_NOEDIT);
    reg_update(W_OPEN512, U_EDIT);
    reg_build_ex(W_OPEN512, 1, 1, 1);
    if (quick)
        return;
    reg_build(W_OPEN2048, 1, 1);
    reg_build(W_OPEN2048, 2, 1);
    reg_build(W_WALLS2048, 1, 1);
    reg_build(W_WALLS2048, 2, 1);
    reg_query(W_OPEN2048, Q_COARSE);
    reg_query(W_WALLS2048, Q_COARSE);
    reg_query(W_WALLS2048, Q_REACH);
    reg_update(W_OPEN2048, U_NOEDIT);
    reg_update(W_OPEN2048, U_EDIT);
    reg_update(W_WALLS2048, U_NOEDIT);
    reg_update(W_WALLS2048, U_EDIT);
    reg_update(W_WALLS2048, U_SPARSE);
    reg_build_ex(W_OPEN2048, 1, 1, 1);
    reg_build_ex(W_WALLS2048, 1, 1, 1);
}
