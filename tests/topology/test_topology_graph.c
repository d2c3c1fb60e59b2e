/* The region graph (topology.md "Public Surface", "Behavior", "Transition Providers";
 * supplement §6, §10.6, §10.7): dense index and its inverse, CSR order with provider
 * portals, stamps (class, provider, shape), freshness, revisions, clear, and the same
 * bytes for any thread count; diagonal policies keep orthogonal components (§10.5);
 * composed classes label what their predicate says. */
#include "topo_testlib.h"

#include "onepath/digest.h"

#define PIN_OPEN "cc41d76dc3627aaf"
#define PIN_HEX "c48ae9df5e65909d"

static void test_index(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(20, 12, 1, 6, 5, 1, OP_LATTICE_ORTHOGONAL));
    op_rng rng = {3};
    topo_fill_random(&ctx, &w, F_PASS, &rng, 40);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    /* Nothing answers before a build. */
    assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){0, 1}), OP_INVALID_REGION_INDEX);
    assert_int_equal(op_region_graph_region_ref(&g, 0).chunk, OP_INVALID_CHUNK);
    assert_null(op_region_graph_local(&g, 0));
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    uint32_t n = 0;
    for (uint32_t k = 0; k < g.slot_count; k++) {
        /* offset(k) = regions in chunks of smaller key (§10.7) */
        assert_int_equal(g.region_offsets[k], n);
        for (uint32_t id = 1; id <= g.locals[k].region_count; id++) {
            op_region_ref r = {k, id};
            uint32_t i = op_region_graph_region_index(&g, r);
            assert_int_equal(i, n + id - 1);
            op_region_ref back = op_region_graph_region_ref(&g, i);
            assert_int_equal(back.chunk, k);
            assert_int_equal(back.region, id);
        }
        n += g.locals[k].region_count;
        assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){k, g.locals[k].region_count + 1}),
                         OP_INVALID_REGION_INDEX);
        assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){k, 0}),
                         OP_INVALID_REGION_INDEX);
    }
    assert_int_equal(n, g.region_count);
    assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){g.slot_count, 1}),
                     OP_INVALID_REGION_INDEX);
    assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){OP_INVALID_CHUNK, 1}),
                     OP_INVALID_REGION_INDEX);
    assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){0, 0xffffffffu}),
                     OP_INVALID_REGION_INDEX);
    assert_int_equal(op_region_graph_region_ref(&g, g.region_count).chunk, OP_INVALID_CHUNK);
    op_region_ref out = op_region_graph_region_of(&g, (op_coord3){20, 0, 0});
    assert_int_equal(out.chunk, OP_INVALID_CHUNK);
    assert_int_equal(out.region, 0);
    out = op_region_graph_region_of(&g, (op_coord3){0, 0, -1});
    assert_int_equal(out.chunk, OP_INVALID_CHUNK);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* ---- a provider from a table ---------------------------------------------------------- */

typedef struct edge_table {
    op_coord3 from[16], to[16];
    int n;
    int calls[64]; /* enumerations per chunk */
} edge_table;

static void table_each(const op_transition_provider *self, const op_world *world,
                       op_chunk_key chunk, op_transition_sink sink, void *user)
{
    (void)world;
    edge_table *t = (edge_table *)self->instance; /* test only: counts its calls */
    if (chunk < 64)
        t->calls[chunk]++;
    for (int i = 0; i < t->n; i++)
        sink(user, t->from[i], t->to[i]);
}

static const op_transition_provider_ops table_ops = {"table", table_each};

static void test_provider_portals(void **state)
{
    (void)state;
    /* 3x2 chunks of 4x4, all open but a wall tile at (9, 1). */
    op_world w;
    topo_world(&ctx, &w, topo_shape(12, 8, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){9, 1, 0}, 0), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    edge_table t;
    memset(&t, 0, sizeof t);
    /* dropped: origin in chunk 0, landing in chunk 4 (diagonal: not a regular-step
     * neighbour chunk, topology.md "Transition Providers") */
    t.from[t.n] = (op_coord3){1, 1, 0}, t.to[t.n++] = (op_coord3){5, 5, 0};
    /* kept: origin in chunk 0, landing in its +x neighbour chunk 1 */
    t.from[t.n] = (op_coord3){1, 1, 0}, t.to[t.n++] = (op_coord3){5, 2, 0};
    /* dropped: landing outside the world */
    t.from[t.n] = (op_coord3){2, 2, 0}, t.to[t.n++] = (op_coord3){12, 2, 0};
    /* dropped: landing on the wall (no region) */
    t.from[t.n] = (op_coord3){2, 2, 0}, t.to[t.n++] = (op_coord3){9, 1, 0};
    /* dropped: origin outside the world */
    t.from[t.n] = (op_coord3){-1, 2, 0}, t.to[t.n++] = (op_coord3){0, 0, 0};
    /* kept from chunk 2: tie |dx| = |dy| goes to x; face -x */
    t.from[t.n] = (op_coord3){8, 0, 0}, t.to[t.n++] = (op_coord3){6, 2, 0};
    /* kept from chunk 0: dominant y */
    t.from[t.n] = (op_coord3){0, 0, 0}, t.to[t.n++] = (op_coord3){1, 3, 0};
    op_transition_provider prov = {&table_ops, &t, 5, 0};
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = &prov;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    for (uint32_t k = 0; k < w.chunk_count; k++)
        assert_int_equal(t.calls[k], 1); /* enumerated once per chunk */
    ref_graph r;
    ref_graph_build(&w, &c, &r);
    /* Chunk 0's portals: its exit portals, then (1,1)->(5,2), then (0,0)->(1,3). */
    uint32_t exits0 = 0;
    for (uint32_t i = 0; i < r.nportals; i++)
        exits0 += r.portals[i].from.chunk == 0;
    assert_int_equal(g.portal_offsets[1] - g.portal_offsets[0], exits0 + 2);
    for (uint32_t i = 0; i < exits0; i++)
        expect_portal_eq(&g.portals[i], &r.portals[i]);
    const op_region_portal *p = &g.portals[exits0];
    assert_int_equal(p->from_coord.x, 1);
    assert_int_equal(p->to_coord.y, 2);
    assert_int_equal(p->to.chunk, 1);
    assert_int_equal(p->face, OP_FACE_POS_X);
    p = &g.portals[exits0 + 1];
    assert_int_equal(p->to_coord.y, 3);
    assert_int_equal(p->to.chunk, 0);
    assert_int_equal(p->face, OP_FACE_POS_Y);
    /* Chunk 2's provider portal follows chunk 2's exit portals. */
    uint32_t e2 = g.portal_offsets[3] - 1;
    assert_int_equal(g.portals[e2].from_coord.x, 8);
    assert_int_equal(g.portals[e2].face, OP_FACE_NEG_X);
    assert_int_equal(g.portal_count, r.nportals + 3);
    /* CSR: provider portals land in their from-region's bucket after its exit portals,
     * each bucket in portal order. */
    for (uint32_t ri = 0; ri < g.region_count; ri++)
        for (uint32_t e = g.adj_start[ri]; e + 1 < g.adj_start[ri + 1]; e++)
            assert_true(g.adj_portal[e] < g.adj_portal[e + 1]);
    for (uint32_t e = 0; e < g.portal_count; e++) {
        const op_region_portal *q = &g.portals[g.adj_portal[e]];
        assert_int_equal(g.adj_target[e], op_region_graph_region_index(&g, q->to));
    }
    /* Provider stamps. */
    assert_true(op_region_graph_matches_provider(&g, &prov));
    assert_false(op_region_graph_matches_provider(&g, NULL));
    op_transition_provider other = prov;
    other.revision = 6;
    assert_false(op_region_graph_matches_provider(&g, &other));
    other = prov;
    edge_table t2 = t;
    other.instance = &t2;
    assert_false(op_region_graph_matches_provider(&g, &other));
    other = prov;
    other.type_arg = 1; /* another type (a template argument) */
    assert_false(op_region_graph_matches_provider(&g, &other));
    /* No portal of chunk 0 lands in the diagonal chunk 4. */
    for (uint32_t i = g.portal_offsets[0]; i < g.portal_offsets[1]; i++)
        assert_int_not_equal(g.portals[i].to.chunk, 4);
    ref_graph_free(&r);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* ---- stamps, freshness, revisions ------------------------------------------------------- */

static void test_stamps_and_freshness(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(16, 16, 1, 8, 8, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_U8), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class raw, explicit_cls, no_cost, other, diag;
    op_movement_class_unit_field(&raw, F_PASS);
    op_movement_class_clear(&explicit_cls);
    assert_int_equal(op_movement_pass_push(&ctx, &explicit_cls, OP_PASS_FIELD, F_PASS), OP_OK);
    assert_int_equal(op_movement_cost_push(&ctx, &explicit_cls, OP_COST_UNIT, 0), OP_OK);
    op_movement_class_clear(&no_cost);
    assert_int_equal(op_movement_pass_push(&ctx, &no_cost, OP_PASS_FIELD, F_PASS), OP_OK);
    op_movement_class_clear(&other);
    assert_int_equal(op_movement_pass_push(&ctx, &other, OP_PASS_ALL_OF, 2), OP_OK);
    assert_int_equal(op_movement_pass_push(&ctx, &other, OP_PASS_FIELD, F_PASS), OP_OK);
    assert_int_equal(op_movement_pass_push(&ctx, &other, OP_PASS_NOT, 0), OP_OK);
    assert_int_equal(op_movement_pass_push(&ctx, &other, OP_PASS_FIELD, F_BLOCK), OP_OK);
    diag = raw;
    diag.steps = OP_STEPS_DIAGONAL;

    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(g.revision, 0);
    assert_false(op_region_graph_matches_class(&g, &raw)); /* false until the first build */
    assert_false(op_region_graph_matches_provider(&g, NULL));
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(op_region_graph_build(&ctx, &w, &raw, NULL, &g, NULL), OP_OK);
    assert_int_equal(g.revision, 1); /* a build advances the revision by one */
    assert_true(op_region_graph_matches_class(&g, &raw));
    assert_true(op_region_graph_matches_class(&g, &explicit_cls));
    assert_true(op_region_graph_matches_class(&g, &no_cost));
    assert_false(op_region_graph_matches_class(&g, &other));
    assert_false(op_region_graph_matches_class(&g, &diag));
    assert_true(op_region_graph_matches_provider(&g, NULL));
    assert_true(op_region_graph_matches_shape(&g, &w.shape));
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_true(op_region_graph_is_fresh_for(&w, &g, &explicit_cls));
    assert_false(op_region_graph_is_fresh_for(&w, &g, &other));

    /* Versions: a raw write changes nothing; mark_dirty and mark_rebuilt each move it. */
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){3, 3, 0}, 0), OP_OK);
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 0), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_false(op_region_graph_is_fresh_for(&w, &g, &raw));
    assert_true(op_region_graph_matches_class(&g, &raw)); /* stamps stay */
    assert_int_equal(op_world_mark_topology_rebuilt(&ctx, &w, 0), OP_OK);
    assert_int_equal(op_world_topology_version(&w, 0), 2);
    assert_false(op_region_graph_is_fresh(&w, &g));
    op_region_graph_build_result br;
    uint64_t versions[4];
    uint8_t dirty[4];
    for (uint32_t k = 0; k < 4; k++) {
        versions[k] = w.topology_version[k];
        dirty[k] = w.topology_dirty[k];
    }
    assert_int_equal(op_region_graph_build(&ctx, &w, &raw, NULL, &g, &br), OP_OK);
    for (uint32_t k = 0; k < 4; k++) {
        /* the build mutates no version or dirty flag (topology.md "Behavior") */
        assert_int_equal(w.topology_version[k], versions[k]);
        assert_int_equal(w.topology_dirty[k], dirty[k]);
    }
    assert_int_equal(g.revision, 2);
    assert_int_equal(br.topology_version_sum, 2);
    assert_int_equal(g.locals[0].topology_version, 2);
    assert_true(op_region_graph_is_fresh(&w, &g));

    /* Another world shape is not fresh even with equal chunk counts. */
    op_world w2;
    topo_world(&ctx, &w2, topo_shape(16, 16, 1, 8, 8, 1, OP_LATTICE_AXIAL_HEX));
    assert_false(op_region_graph_is_fresh(&w2, &g));
    assert_false(op_region_graph_matches_shape(&g, &w2.shape));
    op_world_free(&w2);

    /* A failed build (invalid class) clears the graph and advances the revision. */
    op_movement_class bad;
    op_movement_class_unit_field(&bad, 999);
    assert_int_equal(op_region_graph_build(&ctx, &w, &bad, NULL, &g, NULL), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "field 999"));
    assert_int_equal(g.revision, 3); /* rejected before the build starts: one clear */
    assert_false(op_region_graph_matches_class(&g, &raw));
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(g.region_count, 0);
    /* clear() likewise. */
    assert_int_equal(op_region_graph_build(&ctx, &w, &raw, NULL, &g, NULL), OP_OK);
    uint64_t rev = g.revision;
    op_region_graph_clear(&g);
    assert_int_equal(g.revision, rev + 1);
    assert_false(op_region_graph_matches_provider(&g, NULL));
    uint64_t d;
    assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_INVALID_ARGUMENT);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* ---- thread counts ------------------------------------------------------------------------ */

static uint64_t digest_with(op_world *w, op_movement_class *c, int threads, int templ,
                            const op_transition_provider *prov)
{
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.threads = threads;
    s.use_open_template = templ;
    s.provider = prov;
    assert_int_equal(op_region_graph_build(&ctx, w, c, &s, &g, NULL), OP_OK);
    uint64_t d;
    assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
    op_region_graph_free(&g);
    return d;
}

static void test_threads_same_bytes(void **state)
{
    (void)state;
    op_rng rng = {4242};
    for (int iter = 0; iter < 12; iter++) {
        op_lattice lat = iter % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL;
        int three_d = lat == OP_LATTICE_ORTHOGONAL && iter % 3 == 1;
        op_world_shape s = topo_shape(20 + op_rng_below(&rng, 90), 20 + op_rng_below(&rng, 90),
                                      three_d ? 2 + op_rng_below(&rng, 6) : 1,
                                      3 + op_rng_below(&rng, 14), 3 + op_rng_below(&rng, 14),
                                      three_d ? 1 + op_rng_below(&rng, 3) : 1, lat);
        op_world w;
        topo_world(&ctx, &w, s);
        topo_fill_random(&ctx, &w, F_PASS, &rng, iter % 4 == 0 ? 0 : 10 + op_rng_below(&rng, 40));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        edge_table t;
        memset(&t, 0, sizeof t);
        for (int i = 0; i < 8; i++) {
            t.from[t.n] = (op_coord3){(int32_t)op_rng_below(&rng, s.size[0]),
                                      (int32_t)op_rng_below(&rng, s.size[1]), 0};
            t.to[t.n++] = (op_coord3){(int32_t)op_rng_below(&rng, s.size[0]),
                                      (int32_t)op_rng_below(&rng, s.size[1]), 0};
        }
        op_transition_provider prov = {&table_ops, &t, 1, 0};
        uint64_t d1 = digest_with(&w, &c, 1, 1, NULL);
        static const int threads[] = {2, 3, 8};
        for (int i = 0; i < 3; i++)
            assert_int_equal(digest_with(&w, &c, threads[i], 1, NULL), d1);
        assert_int_equal(digest_with(&w, &c, 1, 0, NULL), d1);
        assert_int_equal(digest_with(&w, &c, 3, 0, NULL), d1);
        uint64_t p1 = digest_with(&w, &c, 1, 1, &prov);
        assert_int_equal(digest_with(&w, &c, 8, 1, &prov), p1);
        /* The digest sees a one-tile change. */
        int64_t v;
        op_coord3 at = {(int32_t)(s.size[0] / 2), (int32_t)(s.size[1] / 2), 0};
        assert_int_equal(op_world_get(&ctx, &w, F_PASS, at, &v), OP_OK);
        assert_int_equal(op_world_set(&ctx, &w, F_PASS, at, !v), OP_OK);
        assert_int_not_equal(digest_with(&w, &c, 2, 1, NULL), d1);
        op_world_free(&w);
    }
}

/* A graph reused for builds of other worlds and classes equals a fresh graph. */
static void test_reuse(void **state)
{
    (void)state;
    op_rng rng = {99};
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    for (int iter = 0; iter < 10; iter++) {
        op_world w;
        topo_world(&ctx, &w, topo_shape(5 + op_rng_below(&rng, 60), 5 + op_rng_below(&rng, 60), 1,
                                        2 + op_rng_below(&rng, 12), 2 + op_rng_below(&rng, 12), 1,
                                        iter & 1 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL));
        topo_fill_random(&ctx, &w, F_PASS, &rng, op_rng_below(&rng, 50));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
        uint64_t a, b = digest_with(&w, &c, 1, 1, NULL);
        assert_int_equal(op_region_graph_digest(&ctx, &g, &a), OP_OK);
        assert_int_equal(a, b);
        ref_graph r;
        ref_graph_build(&w, &c, &r);
        expect_graph_equals_ref(&g, &r);
        ref_graph_free(&r);
        op_world_free(&w);
    }
    op_region_graph_free(&g);
}

/* §10.5: diagonal step policies change nothing: face steps only, no portal between tiles
 * that touch only at a corner across a seam. */
static void test_diagonal_keeps_orthogonal(void **state)
{
    (void)state;
    /* 2x2 chunks. (0,0) and (1,1) touch only at a corner inside chunk 0; (1,1) and (2,2)
     * touch only at a corner across the seam of chunks 0 and 3. */
    static const char *const rows[] = {
        ".#..",
        "#.#.",
        ".#..",
        "#..#",
    };
    op_world w;
    topo_world_map(&ctx, &w, 2, 2, rows, 4);
    op_movement_class c, d1, d2;
    op_movement_class_unit_field(&c, F_PASS);
    d1 = c;
    d1.steps = OP_STEPS_DIAGONAL;
    d1.corner = OP_CORNER_REQUIRE_BOTH_CLEAR;
    d2 = d1;
    d2.corner = OP_CORNER_REQUIRE_ONE_CLEAR;
    uint64_t base = digest_with(&w, &c, 1, 1, NULL);
    assert_int_equal(digest_with(&w, &d1, 1, 1, NULL), base);
    assert_int_equal(digest_with(&w, &d2, 2, 1, NULL), base);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &d1, NULL, &g, NULL), OP_OK);
    assert_int_equal(g.stamp.step_identity, OP_STEP_IDENTITY_DIAGONAL_BOTH_CLEAR);
    assert_int_equal(g.stamp.cost_scale, 128);
    assert_int_equal(op_region_graph_local(&g, 0)->region_count, 2);
    /* Every portal is one face step. */
    for (uint32_t i = 0; i < g.portal_count; i++) {
        const op_region_portal *p = &g.portals[i];
        int dx = p->to_coord.x - p->from_coord.x, dy = p->to_coord.y - p->from_coord.y;
        assert_int_equal(abs(dx) + abs(dy), 1);
    }
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_reach_result rr;
    op_path_request q = {{0, 0, 0}, {1, 1, 0}};
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_UNREACHABLE);
    q = (op_path_request){{1, 1, 0}, {2, 2, 0}};
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_UNREACHABLE);
    assert_int_equal(rr.visited, 1);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* A composed class labels exactly what its predicate says: the same graph as a single
 * field precomputed from the predicate (labels, exits, portals all equal). */
static void test_composed_class(void **state)
{
    (void)state;
    op_rng rng = {31};
    op_world w;
    topo_world(&ctx, &w, topo_shape(40, 30, 1, 8, 8, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_I16), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, F_COST, OP_FIELD_U32), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, 100, OP_FIELD_U8), OP_OK);
    topo_fill_random(&ctx, &w, F_PASS, &rng, 20);
    topo_fill_random(&ctx, &w, F_BLOCK, &rng, 85);
    topo_fill_random(&ctx, &w, F_COST, &rng, 30);
    /* AllOf(Field P, Not(Field B), AnyOf(NotZero C, Not(Field P))) */
    op_movement_class c;
    op_movement_class_clear(&c);
    op_movement_pass_push(&ctx, &c, OP_PASS_ALL_OF, 3);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    op_movement_pass_push(&ctx, &c, OP_PASS_NOT, 0);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_BLOCK);
    op_movement_pass_push(&ctx, &c, OP_PASS_ANY_OF, 2);
    op_movement_pass_push(&ctx, &c, OP_PASS_NOT_ZERO, F_COST);
    op_movement_pass_push(&ctx, &c, OP_PASS_NOT, 0);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    for (int32_t y = 0; y < 30; y++)
        for (int32_t x = 0; x < 40; x++) {
            int64_t p, b, k;
            op_coord3 at = {x, y, 0};
            assert_int_equal(op_world_get(&ctx, &w, F_PASS, at, &p), OP_OK);
            assert_int_equal(op_world_get(&ctx, &w, F_BLOCK, at, &b), OP_OK);
            assert_int_equal(op_world_get(&ctx, &w, F_COST, at, &k), OP_OK);
            int want = p && !b && (k || !p);
            assert_int_equal(op_movement_passable(&w, &c, at), want);
            assert_int_equal(op_world_set(&ctx, &w, 100, at, want), OP_OK);
        }
    op_movement_class single;
    op_movement_class_unit_field(&single, 100);
    assert_int_equal(digest_with(&w, &c, 2, 1, NULL), digest_with(&w, &single, 1, 1, NULL));
    ref_graph r;
    ref_graph_build(&w, &c, &r);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    expect_graph_equals_ref(&g, &r);
    ref_graph_free(&r);
    op_region_graph_free(&g);
    op_world_free(&w);
}


/* docs/formats.md "OPTOPO1": the digest of two fixed worlds, so any change of the byte
 * stream or of the graph is seen. */
static void test_pinned_digests(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(512, 512, 1, 32, 32, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    uint64_t open = digest_with(&w, &c, 0, 1, NULL);
    op_world_free(&w);
    topo_world(&ctx, &w, topo_shape(23, 17, 1, 5, 4, 1, OP_LATTICE_AXIAL_HEX));
    op_rng rng = {1};
    topo_fill_random(&ctx, &w, F_PASS, &rng, 30);
    uint64_t hex = digest_with(&w, &c, 0, 1, NULL);
    op_world_free(&w);
    char a[17], b[17];
    op_digest_hex(open, a);
    op_digest_hex(hex, b);
    assert_string_equal(a, PIN_OPEN);
    assert_string_equal(b, PIN_HEX);
}

/* ---- ISA variants --------------------------------------------------------------------------- */

/* The graph's digest is the same whichever variant the context runs (single-chunk worlds
 * take the grid-labelling kernel of the context's table; multi-chunk worlds flood). The
 * kernels themselves are compared in tests/kernels/test_kernels_checkasm.c. */
static void test_digest_per_variant(void **state)
{
    (void)state;
    op_isa_info info[OP_ISA_COUNT];
    assert_int_equal(op_isa_list(info, OP_ISA_COUNT), OP_ISA_COUNT);
    op_ctx vctx;
    assert_int_equal(op_ctx_init(&vctx, OP_ISA_SCALAR), OP_OK);
    op_rng r = {99};
    int compared = 0;
    for (int iter = 0; iter < 12; iter++) {
        const int hex = iter % 3 == 2, three_d = iter % 3 == 1;
        uint32_t sx = 20 + op_rng_below(&r, 200), sy = 10 + op_rng_below(&r, 60),
                 sz = three_d ? 2 + op_rng_below(&r, 4) : 1;
        const int one = iter & 1; /* one chunk, or many */
        uint32_t ch = 8 + op_rng_below(&r, 30);
        op_world_shape s = topo_shape(sx, sy, sz, one ? sx : ch, one ? sy : ch,
                                      three_d ? (one ? sz : 2) : 1,
                                      hex ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL);
        op_world w;
        topo_world(&vctx, &w, s);
        topo_fill_random(&vctx, &w, F_PASS, &r, op_rng_below(&r, 60));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        uint64_t want = 0;
        for (int v = 0; v < OP_ISA_COUNT; v++) {
            if (!info[v].available)
                continue;
            assert_int_equal(op_ctx_set_isa(&vctx, (op_isa)v), OP_OK);
            op_region_graph g;
            op_region_graph_init(&vctx, &g);
            assert_int_equal(op_region_graph_build(&vctx, &w, &c, NULL, &g, NULL), OP_OK);
            uint64_t d;
            assert_int_equal(op_region_graph_digest(&vctx, &g, &d), OP_OK);
            if (v == OP_ISA_SCALAR)
                want = d;
            else
                assert_int_equal(d, want), compared++;
            op_region_graph_free(&g);
        }
        op_world_free(&w);
    }
    op_ctx_free(&vctx);
    print_message("digests compared across variants: %d\n", compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_provider_portals),
        cmocka_unit_test(test_digest_per_variant),
        cmocka_unit_test(test_stamps_and_freshness),
        cmocka_unit_test(test_threads_same_bytes),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_diagonal_keeps_orthogonal),
        cmocka_unit_test(test_composed_class),
        cmocka_unit_test(test_pinned_digests),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
