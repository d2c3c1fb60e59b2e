/* update_region_graph (topology.md "Incremental Updates", "Public Surface"; supplement
 * §10.13): after random edits on random worlds (every lattice, partial chunks, 3D,
 * dense and sparse, with and without stairs and a table provider) an update equals a
 * fresh build of the edited world in every array, portal order and first-occurrence
 * adjacency included, and in its digest and counts, for any thread count; the order of
 * update's checks (full rebuild for a graph not built for this shape, residency, class
 * or provider; InvalidChunk / MissingChunk before any mutation; an empty set a no-op);
 * revisions; duplicates; chunks not named keep their labels. */
#include "topo_testlib.h"

/* A random 2D or 3D world (3D for stairs), sparse or dense, with the passable field
 * and a stair field. */
static op_world_shape random_shape(op_rng *r, int three_d)
{
    const int hex = !three_d && op_rng_below(r, 4) == 0;
    op_world_shape s;
    if (three_d)
        s = topo_shape(6 + op_rng_below(r, 24), 6 + op_rng_below(r, 24), 2 + op_rng_below(r, 4),
                       2 + op_rng_below(r, 8), 2 + op_rng_below(r, 8), 1 + op_rng_below(r, 2),
                       OP_LATTICE_ORTHOGONAL);
    else
        s = topo_shape(8 + op_rng_below(r, 50), 8 + op_rng_below(r, 50), 1, 2 + op_rng_below(r, 12),
                       2 + op_rng_below(r, 12), 1, hex ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL);
    return s;
}

static void make_world(op_world *w, op_world_shape s, int sparse, op_rng *r)
{
    if (sparse)
        assert_int_equal(op_world_init_sparse(&ctx, w, &s), OP_OK);
    else
        assert_int_equal(op_world_init(&ctx, w, &s), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, w, F_PASS, OP_FIELD_U8), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, w, F_STAIR, OP_FIELD_U8), OP_OK);
    if (sparse) /* about two thirds resident */
        for (uint32_t k = 0; k < w->chunk_count; k++)
            if (op_rng_below(r, 3))
                assert_int_equal(op_world_make_resident(&ctx, w, k), OP_OK);
    const uint32_t walls = op_rng_below(r, 45);
    for (uint32_t z = 0; z < s.size[2]; z++)
        for (uint32_t y = 0; y < s.size[1]; y++)
            for (uint32_t x = 0; x < s.size[0]; x++) {
                op_coord3 c = {(int32_t)x, (int32_t)y, (int32_t)z};
                if (!op_world_is_resident(w, op_world_chunk_of(w, c)))
                    continue;
                assert_int_equal(op_world_set(&ctx, w, F_PASS, c, op_rng_below(r, 100) >= walls), OP_OK);
                if (s.size[2] > 1 && op_rng_below(r, 12) == 0)
                    assert_int_equal(op_world_set(&ctx, w, F_STAIR, c, 1 + op_rng_below(r, 4)), OP_OK);
            }
}

/* A random resident tile, or 0 when nothing is resident. */
static int random_tile(op_rng *r, const op_world *w, op_coord3 *c)
{
    if (!op_world_resident_count(w))
        return 0;
    for (;;) {
        c->x = (int32_t)op_rng_below(r, w->shape.size[0]);
        c->y = (int32_t)op_rng_below(r, w->shape.size[1]);
        c->z = (int32_t)op_rng_below(r, w->shape.size[2]);
        if (op_world_is_resident(w, op_world_chunk_of(w, *c)))
            return 1;
    }
}

static void build_fresh(const op_world *w, const op_movement_class *c,
                        const op_region_graph_settings *s, op_region_graph *f,
                        op_region_graph_build_result *br)
{
    op_region_graph_init(&ctx, f);
    assert_int_equal(op_region_graph_build(&ctx, w, c, s, f, br), OP_OK);
}

/* ---- the table provider: random edges near each chunk ----------------------------------- */

typedef struct edge_list {
    op_coord3 from[64], to[64];
    int n;
} edge_list;

static void list_each(const op_transition_provider *self, const op_world *world, op_chunk_key chunk,
                      op_transition_sink sink, void *user)
{
    const edge_list *l = self->instance;
    for (int i = 0; i < l->n; i++)
        if (op_world_chunk_of(world, l->from[i]) == chunk)
            sink(user, l->from[i], l->to[i]);
}

static const op_transition_provider_ops list_ops = {"list", list_each};

static void random_edges(op_rng *r, const op_world *w, edge_list *l)
{
    l->n = 0;
    for (int i = 0; i < 24; i++) {
        op_coord3 a;
        if (!random_tile(r, w, &a))
            return;
        op_coord3 b = {a.x + (int32_t)op_rng_below(r, 9) - 4, a.y + (int32_t)op_rng_below(r, 9) - 4,
                       a.z + (int32_t)op_rng_below(r, 3) - 1};
        l->from[l->n] = a;
        l->to[l->n++] = b;
    }
}

/* ---- random edits, every step against a fresh build ---------------------------------------- */

typedef struct run_stats {
    long steps, patches, noops, rebuilds, ref_checks;
} run_stats;

static void random_run(uint64_t seed, int sparse, int provider, run_stats *st)
{
    op_rng r = {seed};
    const int three_d = provider == 1 || op_rng_below(&r, 4) == 0;
    op_world w;
    make_world(&w, random_shape(&r, three_d), sparse, &r);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_transition_provider stairs = op_stair_transitions(F_STAIR);
    edge_list edges;
    random_edges(&r, &w, &edges);
    op_transition_provider table = {&list_ops, &edges, 1, 0};
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = provider == 1 ? &stairs : provider == 2 ? &table : NULL;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    op_chunk_key dirty[16];
    for (int step = 0; step < 60; step++) {
        uint32_t nd = 0;
        int residency_changed = 0;
        const uint32_t what = op_rng_below(&r, 20);
        if (what == 0) {
            /* nothing dirty */
        } else if (what == 1 && sparse) {
            /* residency moves: the update must rebuild in full */
            op_chunk_key k = op_rng_below(&r, w.chunk_count);
            if (op_world_is_resident(&w, k))
                assert_int_equal(op_world_evict(&ctx, &w, k), OP_OK);
            else
                assert_int_equal(op_world_make_resident(&ctx, &w, k), OP_OK);
            residency_changed = 1;
            /* any key, even the evicted one: the rebuild comes before the key checks */
            dirty[nd++] = k;
        } else if (what == 2) {
            /* a provider revision moves: a full rebuild too (the table gets new edges) */
            random_edges(&r, &w, &edges);
            table.revision++;
            op_coord3 t;
            if (random_tile(&r, &w, &t))
                dirty[nd++] = op_world_chunk_of(&w, t);
        } else {
            const uint32_t edits = 1 + op_rng_below(&r, what < 6 ? 12 : 3);
            for (uint32_t e = 0; e < edits && nd < 14; e++) {
                op_coord3 t;
                if (!random_tile(&r, &w, &t))
                    break;
                const op_chunk_key k = op_world_chunk_of(&w, t);
                if (three_d && op_rng_below(&r, 3) == 0)
                    assert_int_equal(op_world_set(&ctx, &w, F_STAIR, t, op_rng_below(&r, 5)), OP_OK);
                else
                    assert_int_equal(op_world_set(&ctx, &w, F_PASS, t, op_rng_below(&r, 2)), OP_OK);
                assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, k), OP_OK);
                dirty[nd++] = k;
                if (op_rng_below(&r, 4) == 0)
                    dirty[nd++] = k; /* duplicates are harmless */
            }
        }
        /* Sometimes a clean chunk too (relabelling it changes nothing). */
        if (nd && nd < 16 && op_rng_below(&r, 5) == 0) {
            op_coord3 t;
            if (random_tile(&r, &w, &t))
                dirty[nd++] = op_world_chunk_of(&w, t);
        }
        op_region_graph_settings us = s;
        /* Now and then two threads (test_threads compares counts; a team on a loaded
         * machine costs more than these small patches). */
        us.threads = step % 8 == 7 ? 2 : 1;
        const uint64_t rev = g.revision;
        op_topology_build_result ur;
        assert_int_equal(op_region_graph_update(&ctx, &w, &c, &us, dirty, nd, &g, &ur), OP_OK);
        assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
        const int rebuilt = residency_changed || (what == 2 && provider == 2);
        if (nd == 0 && !rebuilt) {
            assert_int_equal(g.revision, rev); /* a no-op keeps the revision */
            st->noops++;
        } else {
            assert_int_equal(g.revision, rev + 1); /* a patch or a build: one */
            if (rebuilt)
                st->rebuilds++;
            else
                st->patches++;
        }
        op_region_graph f;
        op_region_graph_build_result fr;
        build_fresh(&w, &c, &s, &f, &fr);
        expect_graphs_equal(&g, &f);
        assert_int_equal(ur.region_count, fr.region_count);
        assert_int_equal(ur.passable_tile_count, fr.passable_tile_count);
        assert_int_equal(ur.boundary_exit_count, fr.boundary_exit_count);
        assert_int_equal(ur.topology_version_sum, fr.topology_version_sum);
        assert_true(op_region_graph_is_fresh(&w, &g));
        if (step % 20 == 19) {
            /* And both against the reference written from the text. */
            ref_graph ref;
            ref_graph_build_prov(&w, &c, s.provider, &ref);
            expect_graph_equals_ref(&g, &ref);
            ref_graph_free(&ref);
            st->ref_checks++;
        }
        op_region_graph_free(&f);
        st->steps++;
    }
    op_region_graph_free(&g);
    op_world_free(&w);
}

static void report_stats(const char *what, const run_stats *st)
{
    print_message("%s: %ld steps (%ld patches, %ld no-ops, %ld full rebuilds, %ld reference "
                  "checks)\n",
                  what, st->steps, st->patches, st->noops, st->rebuilds, st->ref_checks);
}

static void test_random_dense(void **state)
{
    (void)state;
    run_stats st = {0};
    for (uint64_t seed = 1; seed <= 24; seed++)
        random_run(seed * 7919, 0, 0, &st);
    report_stats("dense", &st);
    assert_true(st.patches > 1000);
}

static void test_random_sparse(void **state)
{
    (void)state;
    run_stats st = {0};
    for (uint64_t seed = 1; seed <= 20; seed++)
        random_run(seed * 104729, 1, 0, &st);
    report_stats("sparse", &st);
    assert_true(st.patches > 800 && st.rebuilds > 20);
}

static void test_random_stairs(void **state)
{
    (void)state;
    run_stats st = {0};
    for (uint64_t seed = 1; seed <= 12; seed++)
        random_run(seed * 15485863, (int)(seed & 1), 1, &st);
    report_stats("stairs", &st);
    assert_true(st.patches > 500);
}

static void test_random_table_provider(void **state)
{
    (void)state;
    run_stats st = {0};
    for (uint64_t seed = 1; seed <= 12; seed++)
        random_run(seed * 32452843, (int)(seed & 1), 2, &st);
    report_stats("table provider", &st);
    assert_true(st.patches > 400 && st.rebuilds > 10);
}

/* Region and portal counts that change across long key distances (a wall line that cuts
 * a chunk in two, then opens again), many dirty chunks at once (threads), 3D. */
static void test_counts_change(void **state)
{
    (void)state;
    op_rng r = {777};
    for (int iter = 0; iter < 40; iter++) {
        const int three_d = iter % 4 == 3;
        op_world w;
        make_world(&w, random_shape(&r, three_d), iter & 1, &r);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
        for (int step = 0; step < 8; step++) {
            op_chunk_key dirty[64];
            uint32_t nd = 0;
            const uint32_t lines = 1 + op_rng_below(&r, 6);
            for (uint32_t l = 0; l < lines; l++) {
                op_coord3 t;
                if (!random_tile(&r, &w, &t))
                    break;
                /* a whole row of the chunk, to or from wall */
                const op_chunk_key k = op_world_chunk_of(&w, t);
                const op_coord3 o = op_world_chunk_origin(&w, k);
                const int v = (int)op_rng_below(&r, 2);
                for (uint32_t x = 0; x < w.shape.chunk[0]; x++) {
                    op_coord3 q = {o.x + (int32_t)x, t.y, t.z};
                    if (op_world_contains(&w.shape, q))
                        assert_int_equal(op_world_set(&ctx, &w, F_PASS, q, v), OP_OK);
                }
                op_world_mark_topology_dirty(&ctx, &w, k);
                dirty[nd++] = k;
            }
            op_region_graph_settings s;
            op_region_graph_settings_defaults(&s);
            s.threads = 1 + (step == 7);
            assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, dirty, nd, &g, NULL), OP_OK);
            op_region_graph f;
            build_fresh(&w, &c, NULL, &f, NULL);
            expect_graphs_equal(&g, &f);
            op_region_graph_free(&f);
        }
        op_region_graph_free(&g);
        op_world_free(&w);
    }
}

/* The same update on 1, 2, 3 and 8 threads gives the same graph. */
static void test_threads(void **state)
{
    (void)state;
    op_rng r = {31337};
    for (int iter = 0; iter < 6; iter++) {
        op_world w;
        make_world(&w, topo_shape(96, 80, 2, 8, 8, 1, OP_LATTICE_ORTHOGONAL), iter & 1, &r);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_transition_provider stairs = op_stair_transitions(F_STAIR);
        op_region_graph_settings s;
        op_region_graph_settings_defaults(&s);
        s.provider = &stairs;
        op_chunk_key dirty[200];
        uint32_t nd = 0;
        for (int e = 0; e < 120; e++) {
            op_coord3 t;
            if (!random_tile(&r, &w, &t))
                break;
            op_world_set(&ctx, &w, F_PASS, t, op_rng_below(&r, 2));
            dirty[nd++] = op_world_chunk_of(&w, t);
        }
        uint64_t want = 0;
        static const int threads[] = {1, 2, 3, 8};
        for (int i = 0; i < 4; i++) {
            op_region_graph g;
            op_region_graph_init(&ctx, &g);
            s.threads = threads[i];
            /* built before the edits are seen: build a copy of the old world state */
            assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
            for (uint32_t k = 0; k < nd; k++)
                op_world_set(&ctx, &w, F_PASS, op_world_chunk_origin(&w, dirty[k]), k & 1);
            assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, dirty, nd, &g, NULL), OP_OK);
            uint64_t d;
            assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
            if (i == 0)
                want = d;
            else
                assert_int_equal(d, want);
            op_region_graph f;
            build_fresh(&w, &c, &s, &f, NULL);
            expect_graphs_equal(&g, &f);
            op_region_graph_free(&f);
            op_region_graph_free(&g);
            for (uint32_t k = 0; k < nd; k++) /* undo, for the next count */
                op_world_set(&ctx, &w, F_PASS, op_world_chunk_origin(&w, dirty[k]), 1);
        }
        op_world_free(&w);
    }
}

/* ---- the order of update's checks (§10.13) ----------------------------------------------------- */

static void small_world(op_world *w)
{
    static const char *const rows[] = {
        "........", //
        ".##.....", //
        "...#..#.", //
        "........", //
        "..##....", //
        "........", //
    };
    topo_world_map(&ctx, w, 3, 3, rows, 6);
}

static uint64_t digest_of(const op_region_graph *g)
{
    uint64_t d;
    assert_int_equal(op_region_graph_digest(&ctx, g, &d), OP_OK);
    return d;
}

static void test_check_order(void **state)
{
    (void)state;
    op_world w;
    small_world(&w);
    op_movement_class c, other;
    op_movement_class_unit_field(&c, F_PASS);
    op_movement_class_clear(&other);
    op_movement_pass_push(&ctx, &other, OP_PASS_NOT, 0);
    op_movement_pass_push(&ctx, &other, OP_PASS_FIELD, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_topology_build_result ur;
    const op_chunk_key bad[] = {1, 99}; /* 99 is outside the 3 x 2 grid */

    /* 1. Never built: a full build whatever the dirty set (even an invalid key). */
    uint64_t rev = g.revision;
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(g.stamp.built);
    assert_int_equal(g.revision, rev + 1);
    op_region_graph f;
    op_region_graph_build_result fr;
    build_fresh(&w, &c, NULL, &f, &fr);
    expect_graphs_equal(&g, &f);
    assert_int_equal(ur.region_count, fr.region_count);
    assert_int_equal(ur.passable_tile_count, fr.passable_tile_count);
    assert_int_equal(ur.boundary_exit_count, fr.boundary_exit_count);

    /* 2. Built: an invalid key is InvalidChunk with zero counts, the graph untouched. */
    rev = g.revision;
    const uint64_t d0 = digest_of(&g);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_INVALID_CHUNK);
    assert_int_equal(ur.region_count, 0);
    assert_int_equal(ur.passable_tile_count, 0);
    assert_int_equal(g.revision, rev);
    assert_int_equal(digest_of(&g), d0);
    assert_true(g.stamp.built);
    /* ... even when the bad key comes after a good one whose chunk was edited. */
    op_world_set(&ctx, &w, F_PASS, (op_coord3){1, 1, 0}, 1);
    const op_chunk_key bad2[] = {0, OP_INVALID_CHUNK};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, bad2, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_INVALID_CHUNK);
    assert_int_equal(digest_of(&g), d0);

    /* 3. Empty: a no-op with the graph's counts, revision kept (even with edits pending). */
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, NULL, 0, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_int_equal(g.revision, rev);
    assert_int_equal(digest_of(&g), d0);
    assert_int_equal(ur.region_count, fr.region_count);
    assert_int_equal(ur.passable_tile_count, fr.passable_tile_count);
    assert_int_equal(ur.boundary_exit_count, fr.boundary_exit_count);
    assert_int_equal(ur.topology_version_sum, fr.topology_version_sum);
    op_region_graph_free(&f);

    /* 4. A patch: one revision, equal to a fresh build. */
    const op_chunk_key one[] = {0};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, one, 1, &g, &ur), OP_OK);
    assert_int_equal(g.revision, rev + 1);
    build_fresh(&w, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);

    /* Another class: a full rebuild with the requested class's labels, even with an
     * invalid key in the set. */
    rev = g.revision;
    assert_int_equal(op_region_graph_update(&ctx, &w, &other, NULL, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(op_region_graph_matches_class(&g, &other));
    assert_int_equal(g.revision, rev + 1);
    build_fresh(&w, &other, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);

    /* Another provider (type, type_arg, instance, revision): a full rebuild. */
    op_transition_provider st1 = op_stair_transitions(F_STAIR), st2 = op_stair_transitions(F_COST);
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = &st1;
    rev = g.revision;
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(op_region_graph_matches_provider(&g, &st1));
    assert_false(op_region_graph_matches_provider(&g, &st2));
    s.provider = &st2;
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(op_region_graph_matches_provider(&g, &st2));
    /* The same provider again: back to the checks. */
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_INVALID_CHUNK);
    assert_int_equal(g.revision, rev + 2);

    /* Another shape: a full rebuild for the new world. */
    op_world w2;
    topo_world(&ctx, &w2, topo_shape(8, 6, 1, 4, 3, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w2, F_PASS, 1), OP_OK);
    assert_int_equal(op_region_graph_update(&ctx, &w2, &c, NULL, bad, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(op_region_graph_matches_shape(&g, &w2.shape));
    build_fresh(&w2, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);

    /* A cleared graph: a full build. */
    op_region_graph_clear(&g);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, one, 1, &g, &ur), OP_OK);
    assert_true(g.stamp.built);
    build_fresh(&w, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);

    /* Every chunk dirty: the same as a full build. */
    const op_chunk_key all[] = {5, 4, 3, 2, 1, 0, 3};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, all, 7, &g, &ur), OP_OK);
    build_fresh(&w, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);

    /* An invalid class: cleared, revision advanced, an error. */
    op_movement_class bad_class;
    op_movement_class_unit_field(&bad_class, 12345);
    rev = g.revision;
    assert_int_equal(op_region_graph_update(&ctx, &w, &bad_class, NULL, one, 1, &g, &ur),
                     OP_INVALID_ARGUMENT);
    assert_false(g.stamp.built);
    assert_true(g.revision > rev);
    /* Bad arguments. */
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, NULL, 3, &g, &ur), OP_INVALID_ARGUMENT);
    assert_int_equal(op_region_graph_update(&ctx, NULL, &c, NULL, one, 1, &g, &ur), OP_INVALID_ARGUMENT);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, one, 1, NULL, &ur), OP_INVALID_ARGUMENT);
    op_region_graph_free(&g);
    op_world_free(&w2);
    op_world_free(&w);
}

/* Sparse: a key in the grid whose chunk is not resident is MissingChunk (untouched); a
 * residency change since the build (count, or one chunk evicted and loaded again) is a
 * full rebuild whatever the keys. */
static void test_sparse_checks(void **state)
{
    (void)state;
    op_world w;
    assert_int_equal(op_world_init_sparse(&ctx, &w, &(op_world_shape){{12, 12, 1}, {4, 4, 1}, 0}),
                     OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, F_PASS, OP_FIELD_U8), OP_OK);
    for (op_chunk_key k = 0; k < 9; k++)
        if (k != 4)
            assert_int_equal(op_world_make_resident(&ctx, &w, k), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    op_topology_build_result ur;
    const uint64_t rev = g.revision, d0 = digest_of(&g);
    const op_chunk_key missing[] = {0, 4};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, missing, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_MISSING_CHUNK);
    assert_int_equal(g.revision, rev);
    assert_int_equal(digest_of(&g), d0);
    /* InvalidChunk wins over MissingChunk. */
    const op_chunk_key both[] = {4, 9};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, both, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_INVALID_CHUNK);
    /* Evict chunk 8 and load it again: same resident set, new generation: rebuilt. */
    assert_int_equal(op_world_evict(&ctx, &w, 8), OP_OK);
    assert_int_equal(op_world_make_resident(&ctx, &w, 8), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, missing, 2, &g, &ur), OP_OK);
    assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
    assert_true(op_region_graph_is_fresh(&w, &g));
    op_region_graph f;
    build_fresh(&w, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f); /* chunk 8 is walls now (a fresh page) */
    op_region_graph_free(&f);
    /* Chunk 4 comes in: a rebuild, and 4 is a slot now. */
    assert_int_equal(op_world_make_resident(&ctx, &w, 4), OP_OK);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, missing, 2, &g, &ur), OP_OK);
    assert_int_equal(g.slot_count, 9);
    /* A dense world over a sparse graph (residency mode): rebuilt. */
    op_world d;
    topo_world(&ctx, &d, topo_shape(12, 12, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_region_graph_update(&ctx, &d, &c, NULL, missing, 2, &g, &ur), OP_OK);
    assert_int_equal(g.residency, OP_RESIDENCY_DENSE);
    assert_null(g.sparse_keys);
    op_region_graph_free(&g);
    op_world_free(&d);
    op_world_free(&w);
}

/* §10.13: "No topology versions are compared: chunks not named keep their labels." */
static void test_unnamed_chunks_keep_labels(void **state)
{
    (void)state;
    op_world w;
    small_world(&w);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    /* Wall off (0,0) in chunk 0 and (7,5) in chunk 5; name only chunk 0. */
    op_world_set(&ctx, &w, F_PASS, (op_coord3){0, 0, 0}, 0);
    op_world_set(&ctx, &w, F_PASS, (op_coord3){7, 5, 0}, 0);
    const op_chunk_key one[] = {0};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, one, 1, &g, NULL), OP_OK);
    assert_int_equal(op_region_graph_region_of(&g, (op_coord3){0, 0, 0}).region, 0);
    assert_int_not_equal(op_region_graph_region_of(&g, (op_coord3){7, 5, 0}).region, 0);
    /* The versions did not move, so the graph still reports fresh: the caveat. */
    assert_true(op_region_graph_is_fresh(&w, &g));
    /* Naming chunk 5 too brings it up to date. */
    const op_chunk_key five[] = {5};
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, five, 1, &g, NULL), OP_OK);
    op_region_graph f;
    build_fresh(&w, &c, NULL, &f, NULL);
    expect_graphs_equal(&g, &f);
    op_region_graph_free(&f);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Versions: an update captures the dirty chunks' current versions, so the graph is fresh
 * after it; mark_rebuilt afterwards moves the version again. */
static void test_versions(void **state)
{
    (void)state;
    op_world w;
    small_world(&w);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 4), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    const op_chunk_key k[] = {4};
    op_topology_build_result ur;
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, k, 1, &g, &ur), OP_OK);
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(g.locals[4].topology_version, 1);
    assert_int_equal(ur.topology_version_sum, 1);
    assert_int_equal(op_world_mark_topology_rebuilt(&ctx, &w, 4), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, k, 1, &g, &ur), OP_OK);
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(ur.topology_version_sum, 2);
    /* A neighbour of 4 whose version moved but that is not named stays stale. */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 1), OP_OK);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, NULL, k, 1, &g, &ur), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(g.locals[1].topology_version, 0);
    op_region_graph_free(&g);
    op_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_order),
        cmocka_unit_test(test_sparse_checks),
        cmocka_unit_test(test_unnamed_chunks_keep_labels),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_random_dense),
        cmocka_unit_test(test_random_sparse),
        cmocka_unit_test(test_random_stairs),
        cmocka_unit_test(test_random_table_provider),
        cmocka_unit_test(test_counts_change),
        cmocka_unit_test(test_threads),
    };
    /* TOPO_FILTER=name runs one test (cmocka pattern). */
    if (getenv("TOPO_FILTER"))
        cmocka_set_test_filter(getenv("TOPO_FILTER"));
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
