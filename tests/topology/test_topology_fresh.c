/* Stamps and freshness (topology.md "Public Surface": matches_class, matches_provider,
 * is_region_graph_fresh(_for); "Field edits do not make a graph stale"; supplement
 * §10.12): the checks mutate nothing; every raw write (set, fill, a page) keeps a graph
 * fresh; only versions, the residency snapshot (count, per-key generation), the shape,
 * the class and the provider stamps (type, type_arg, instance, revision) decide; a
 * sparse graph looks only at its own chunks' versions; a cleared graph is never fresh;
 * the precheck's NoGraph and GraphStale follow. (tests/topology/test_topology_graph.c
 * has the dense class stamps and versions; test_topology_stairs.c the stair caveat.) */
#include "topo_testlib.h"

/* Everything the checks could touch, to compare before and after. */
typedef struct snapshot {
    uint64_t revision, digest;
    uint64_t versions[64];
    uint8_t dirty[64];
} snapshot;

static void take(const op_world *w, const op_region_graph *g, snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->revision = g->revision;
    if (g->stamp.built)
        assert_int_equal(op_region_graph_digest(&ctx, g, &s->digest), OP_OK);
    for (uint32_t k = 0; k < w->chunk_count && k < 64; k++) {
        s->versions[k] = w->topology_version[k];
        s->dirty[k] = w->topology_dirty[k];
    }
}

static void expect_same(const op_world *w, const op_region_graph *g, const snapshot *s)
{
    snapshot t;
    take(w, g, &t);
    assert_memory_equal(&t, s, sizeof t);
}

/* Every check, twice, and nothing moves. */
static void check_all(const op_world *w, const op_region_graph *g, const op_movement_class *c,
                      const op_transition_provider *p, int want_fresh)
{
    snapshot s;
    take(w, g, &s);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(op_region_graph_is_fresh(w, g), want_fresh);
        assert_int_equal(op_region_graph_is_fresh_for(w, g, c), want_fresh);
        (void)op_region_graph_matches_class(g, c);
        (void)op_region_graph_matches_provider(g, p);
        (void)op_region_graph_matches_shape(g, &w->shape);
    }
    expect_same(w, g, &s);
}

static void test_raw_writes_keep_fresh(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(12, 12, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    check_all(&w, &g, &c, NULL, 0); /* never built */
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    /* A wall of raw writes cutting the world in two: still fresh. */
    for (int32_t y = 0; y < 12; y++)
        assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){6, y, 0}, 0), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    uint8_t *page = op_world_page(&w, F_PASS, 4);
    page[5] = 0;
    check_all(&w, &g, &c, NULL, 1);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 0), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    /* The precheck trusts it: a definitive answer about a world that has changed. */
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = {{0, 0, 0}, {11, 11, 0}};
    op_precheck_status ps;
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_REACHABLE);
    /* Versions decide: one mark, stale; the precheck says so. */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 8), OP_OK);
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    /* Cleared: never fresh, NoGraph. */
    op_region_graph_clear(&g);
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_NO_GRAPH);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

static void nop_each(const op_transition_provider *self, const op_world *world, op_chunk_key chunk,
                     op_transition_sink sink, void *user)
{
    (void)self, (void)world, (void)chunk, (void)sink, (void)user;
}

static const op_transition_provider_ops nop_ops = {"nop", nop_each};

static void test_provider_stamps(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(8, 8, 2, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    int a, b;
    const op_transition_provider stateful = {&nop_ops, &a, 3, 0};
    op_transition_provider s = stateful;
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.provider = &s;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_false(op_region_graph_matches_provider(&g, &s)); /* false until the first build */
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &set, &g, NULL), OP_OK);
    assert_true(op_region_graph_matches_provider(&g, &stateful));
    op_transition_provider t = stateful;
    t.instance = &b; /* another live instance */
    assert_false(op_region_graph_matches_provider(&g, &t));
    t = stateful;
    t.revision = 4; /* the edge set may have changed */
    assert_false(op_region_graph_matches_provider(&g, &t));
    t = stateful;
    t.type_arg = 1; /* another type */
    assert_false(op_region_graph_matches_provider(&g, &t));
    assert_false(op_region_graph_matches_provider(&g, NULL));
    /* Stairs: no instance, revision 0, the field is the type: two providers for the same
     * field match each other whatever the world holds; another field does not. */
    op_transition_provider st = op_stair_transitions(F_STAIR);
    set.provider = &st;
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &set, &g, NULL), OP_OK);
    op_transition_provider st_again = op_stair_transitions(F_STAIR), st_other = op_stair_transitions(F_COST);
    assert_true(op_region_graph_matches_provider(&g, &st_again));
    assert_false(op_region_graph_matches_provider(&g, &st_other));
    assert_false(op_region_graph_matches_provider(&g, NULL));
    /* Freshness itself ignores providers (the precheck adds them). */
    assert_true(op_region_graph_is_fresh(&w, &g));
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = {{0, 0, 0}, {1, 1, 0}};
    op_precheck_status ps;
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &st_other, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &st_again, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_INVALID_START); /* walls everywhere */
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

static void test_sparse_freshness(void **state)
{
    (void)state;
    op_world w;
    op_world_shape shape = topo_shape(16, 16, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL); /* 4 x 4 */
    assert_int_equal(op_world_init_sparse(&ctx, &w, &shape), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, F_PASS, OP_FIELD_U8), OP_OK);
    for (op_chunk_key k = 0; k < 16; k += 2)
        assert_int_equal(op_world_make_resident(&ctx, &w, k), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    for (uint32_t i = 0; i < g.slot_count; i++)
        assert_int_equal(g.residency_generations[i], op_world_residency_generation(&w, g.sparse_keys[i]));
    /* A chunk the graph does not hold: its version is none of the graph's business. */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 3), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    /* One of its own: stale. */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 2), OP_OK);
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    /* The resident count moves (a chunk comes in): stale. */
    assert_int_equal(op_world_make_resident(&ctx, &w, 1), OP_OK);
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_world_evict(&ctx, &w, 1), OP_OK);
    check_all(&w, &g, &c, NULL, 1); /* same set, same generations of the graph's keys */
    /* A chunk swapped for another: same count, stale. */
    assert_int_equal(op_world_evict(&ctx, &w, 0), OP_OK);
    assert_int_equal(op_world_make_resident(&ctx, &w, 1), OP_OK);
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_world_evict(&ctx, &w, 1), OP_OK);
    assert_int_equal(op_world_make_resident(&ctx, &w, 0), OP_OK);
    /* Chunk 0 back: same set, but a new generation: stale. */
    check_all(&w, &g, &c, NULL, 0);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    check_all(&w, &g, &c, NULL, 1);
    /* A dense world of the same shape: another residency mode, not fresh. */
    op_world d;
    topo_world(&ctx, &d, shape);
    check_all(&d, &g, &c, NULL, 0);
    op_region_graph dg;
    op_region_graph_init(&ctx, &dg);
    assert_int_equal(op_region_graph_build(&ctx, &d, &c, NULL, &dg, NULL), OP_OK);
    check_all(&w, &dg, &c, NULL, 0);
    op_region_graph_free(&dg);
    op_world_free(&d);
    op_region_graph_free(&g);
    op_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_writes_keep_fresh),
        cmocka_unit_test(test_provider_stamps),
        cmocka_unit_test(test_sparse_freshness),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
