/* Allocation failure (supplement §6: "on any allocation failure the graph is cleared, its
 * revision advances, and the call returns an error status"): every allocation of a build
 * and of an update is failed in turn through the allocator hook (tests/util/testalloc.h),
 * on one and on two threads, dense and sparse, with stairs; each failed call returns
 * OP_NO_MEMORY with a message, leaves a graph that matches nothing and answers nothing,
 * and advances the revision; the next call equals a fresh build. Also the world and its
 * residency, the query scratch and the standalone local build. Nothing leaks (the
 * allocator counts live bytes; ASan too). */
#include "topo_testlib.h"

#include "util/testalloc.h"

/* Every allocation of the tests goes through this counting allocator; arm(n) fails the
 * n-th allocation from now on (0: none), failed() says whether it happened. */
static op_test_alloc TA;
static uint64_t armed_failed;

static int setup(void **state)
{
    op_test_alloc_init(&TA);
    op_allocator a = op_test_alloc_hook(&TA);
    return topo_setup_alloc(state, &a);
}

static int teardown(void **state)
{
    topo_teardown(state);
    /* Nothing leaked, nothing freed that the allocator did not give. */
    return TA.live_bytes == 0 && TA.bad_frees == 0 ? 0 : -1;
}

static void arm(long at)
{
    armed_failed = TA.failed;
    TA.fail_at = at > 0 ? TA.allocs + (uint64_t)at : 0;
}

static int failed(void)
{
    return TA.failed != armed_failed;
}

static void test_build_faults(void **state)
{
    (void)state;
    arm(0);
    op_world w;
    topo_world(&ctx, &w, topo_shape(37, 29, 1, 8, 6, 1, OP_LATTICE_ORTHOGONAL));
    op_rng rng = {12};
    topo_fill_random(&ctx, &w, F_PASS, &rng, 30);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    /* The expected result. */
    op_region_graph ref;
    op_region_graph_init(&ctx, &ref);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &ref, NULL), OP_OK);
    uint64_t want;
    assert_int_equal(op_region_graph_digest(&ctx, &ref, &want), OP_OK);
    op_region_graph_free(&ref);

    for (int threads = 1; threads <= 2; threads++) {
        int failures = 0;
        for (long at = 1;; at++) {
            /* A fresh graph each time (every first allocation fails in turn), and every
             * other time a graph that was built before (growth paths). */
            op_region_graph g;
            op_region_graph_init(&ctx, &g);
            op_region_graph_settings s;
            op_region_graph_settings_defaults(&s);
            s.threads = threads;
            if (at & 1) {
                arm(0);
                op_world small;
                topo_world(&ctx, &small, topo_shape(5, 5, 1, 5, 5, 1, OP_LATTICE_ORTHOGONAL));
                assert_int_equal(op_region_graph_build(&ctx, &small, &c, &s, &g, NULL), OP_OK);
                op_world_free(&small);
            }
            uint64_t rev = g.revision;
            arm(at / 2 + 1);
            op_status st = op_region_graph_build(&ctx, &w, &c, &s, &g, NULL);
            int hit = failed();
            arm(0);
            if (!hit) {
                assert_int_equal(st, OP_OK);
                if (!(at & 1)) {
                    uint64_t d;
                    assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
                    assert_int_equal(d, want);
                    op_region_graph_free(&g);
                    break;
                }
                op_region_graph_free(&g);
                continue;
            }
            failures++;
            assert_int_equal(st, OP_NO_MEMORY);
            assert_non_null(strstr(op_ctx_error(&ctx), "out of memory"));
            assert_true(g.revision >= rev + 1);
            assert_false(g.stamp.built);
            assert_false(op_region_graph_matches_class(&g, &c));
            assert_false(op_region_graph_matches_provider(&g, NULL));
            assert_false(op_region_graph_is_fresh(&w, &g));
            assert_int_equal(g.region_count, 0);
            assert_int_equal(g.portal_count, 0);
            assert_null(op_region_graph_local(&g, 0));
            op_region_graph_scratch sc;
            op_region_graph_scratch_init(&ctx, &sc);
            op_path_request q = {{0, 0, 0}, {1, 1, 0}};
            op_reach_result rr;
            assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
            assert_int_equal(rr.status, OP_REACH_INVALID_START);
            op_region_graph_scratch_free(&sc);
            /* The same graph builds afterwards and equals a fresh build. */
            assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
            uint64_t d;
            assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
            assert_int_equal(d, want);
            op_region_graph_free(&g);
            assert_true(at < 100000);
        }
        assert_true(failures > 10);
    }
    op_world_free(&w);
}

static void test_other_faults(void **state)
{
    (void)state;
    /* World init and fields. */
    for (long at = 1; at < 6; at++) {
        arm(at);
        op_world w;
        op_world_shape s = topo_shape(9, 9, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL);
        op_status st = op_world_init(&ctx, &w, &s);
        if (st == OP_OK)
            st = op_world_add_field(&ctx, &w, F_PASS, OP_FIELD_U8);
        if (failed())
            assert_int_equal(st, OP_NO_MEMORY);
        else
            assert_int_equal(st, OP_OK);
        op_world_free(&w);
    }
    arm(0);
    op_world w;
    topo_world(&ctx, &w, topo_shape(30, 30, 1, 7, 7, 1, OP_LATTICE_ORTHOGONAL));
    op_rng rng = {8};
    topo_fill_random(&ctx, &w, F_PASS, &rng, 35);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    /* Query scratch. */
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    for (long at = 1; at < 12; at++) {
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        arm(at);
        op_path_request q = {{0, 0, 0}, {29, 29, 0}};
        op_coarse_path_result cp;
        op_status st = op_coarse_path(&ctx, &g, &q, &sc, &cp);
        if (failed())
            assert_int_equal(st, OP_NO_MEMORY);
        else
            assert_int_equal(st, OP_OK);
        arm(0);
        op_region_graph_scratch_free(&sc);
    }
    op_region_graph_free(&g);
    /* Standalone local build. */
    for (long at = 1; at < 12; at++) {
        op_local_topology t;
        op_local_topology_init(&ctx, &t);
        op_local_topology_scratch s;
        op_local_topology_scratch_init(&ctx, &s);
        arm(at);
        op_topology_build_result r;
        op_status st = op_local_topology_build(&ctx, &w, &c, 5, &s, &t, &r);
        if (failed()) {
            assert_int_equal(st, OP_NO_MEMORY);
            assert_int_equal(t.region_count, 0);
        } else {
            assert_int_equal(st, OP_OK);
        }
        arm(0);
        op_local_topology_free(&t);
        op_local_topology_scratch_free(&s);
    }
    op_world_free(&w);
}

/* ---- update ----------------------------------------------------------------------------- */

/* A world before and after edits: the graph is built on before and updated to after with
 * the chunks that differ, so every iteration starts from the same graph. after has more
 * regions and portals (capacity growth) and chunks whose counts shrink (moves down). */
static void edit_pair(op_world *before, op_world *after, op_world_shape s, int sparse,
                      op_chunk_key *dirty, uint32_t *nd)
{
    op_world *ws[2] = {before, after};
    for (int i = 0; i < 2; i++) {
        if (sparse)
            assert_int_equal(op_world_init_sparse(&ctx, ws[i], &s), OP_OK);
        else
            assert_int_equal(op_world_init(&ctx, ws[i], &s), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, ws[i], F_PASS, OP_FIELD_U8), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, ws[i], F_STAIR, OP_FIELD_U8), OP_OK);
        if (sparse)
            for (op_chunk_key k = 0; k < ws[i]->chunk_count; k++)
                if (k % 5 != 2)
                    assert_int_equal(op_world_make_resident(&ctx, ws[i], k), OP_OK);
    }
    op_rng r = {606};
    *nd = 0;
    for (uint32_t k = 0; k < before->chunk_count; k++) {
        if (!op_world_is_resident(before, k))
            continue;
        const int kind = k % 7 == 1 ? 1 : k % 7 == 4 ? 2 : 0; /* 1 opens, 2 cuts */
        if (kind)
            dirty[(*nd)++] = k;
        const op_coord3 o = op_world_chunk_origin(before, k);
        for (uint32_t lz = 0; lz < s.chunk[2]; lz++)
            for (uint32_t ly = 0; ly < s.chunk[1]; ly++)
                for (uint32_t lx = 0; lx < s.chunk[0]; lx++) {
                    op_coord3 c = {o.x + (int32_t)lx, o.y + (int32_t)ly, o.z + (int32_t)lz};
                    if (!op_world_contains(&s, c))
                        continue;
                    int v = op_rng_below(&r, 100) >= 35;
                    int stair = op_rng_below(&r, 10) == 0 ? (int)(1 + op_rng_below(&r, 4)) : 0;
                    op_world_set(&ctx, before, F_PASS, c, v);
                    op_world_set(&ctx, before, F_STAIR, c, stair);
                    int a = kind == 1 ? 1 : kind == 2 ? (int)((lx + ly) & 1) : v;
                    op_world_set(&ctx, after, F_PASS, c, a);
                    op_world_set(&ctx, after, F_STAIR, c, kind ? (int)(lx % 5) : stair);
                }
    }
}

static void update_faults(int sparse, int stairs, int threads)
{
    arm(0);
    op_world before, after;
    op_chunk_key dirty[256];
    uint32_t nd;
    op_world_shape s = stairs ? topo_shape(24, 20, 3, 6, 5, 2, OP_LATTICE_ORTHOGONAL)
                              : topo_shape(37, 29, 1, 8, 6, 1, OP_LATTICE_ORTHOGONAL);
    edit_pair(&before, &after, s, sparse, dirty, &nd);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_transition_provider st = op_stair_transitions(F_STAIR);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.threads = threads;
    set.provider = stairs ? &st : NULL;
    op_region_graph want;
    op_region_graph_init(&ctx, &want);
    assert_int_equal(op_region_graph_build(&ctx, &after, &c, &set, &want, NULL), OP_OK);
    int failures = 0, grew = 0;
    for (long at = 1;; at++) {
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &before, &c, &set, &g, NULL), OP_OK);
        grew |= want.portal_count > g.portal_cap || want.region_count + 1 > g.region_cap;
        const uint64_t rev = g.revision;
        arm(at);
        op_topology_build_result ur;
        op_status stt = op_region_graph_update(&ctx, &after, &c, &set, dirty, nd, &g, &ur);
        const int hit = failed();
        arm(0);
        if (!hit) {
            assert_int_equal(stt, OP_OK);
            assert_int_equal(g.revision, rev + 1);
            expect_graphs_equal(&g, &want);
            op_region_graph_free(&g);
            break;
        }
        failures++;
        assert_int_equal(stt, OP_NO_MEMORY);
        assert_non_null(strstr(op_ctx_error(&ctx), "out of memory"));
        assert_true(g.revision > rev);
        assert_false(g.stamp.built);
        assert_false(op_region_graph_is_fresh(&after, &g));
        assert_false(op_region_graph_matches_class(&g, &c));
        assert_int_equal(g.region_count, 0);
        assert_int_equal(g.portal_count, 0);
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        op_path_request q = {{0, 0, 0}, {1, 1, 0}};
        op_reach_result rr;
        assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
        assert_int_equal(rr.status, OP_REACH_INVALID_START);
        op_region_graph_scratch_free(&sc);
        /* The next update rebuilds the cleared graph in full: equal to a fresh build. */
        assert_int_equal(op_region_graph_update(&ctx, &after, &c, &set, dirty, nd, &g, &ur), OP_OK);
        assert_int_equal(ur.status, OP_TOPOLOGY_BUILT);
        expect_graphs_equal(&g, &want);
        op_region_graph_free(&g);
        assert_true(at < 100000);
    }
    print_message("update (%s%s, %d threads): %d allocations failed in turn\n",
                  sparse ? "sparse" : "dense", stairs ? ", stairs" : "", threads, failures);
    assert_true(failures > 5);
    assert_true(grew); /* the growth paths ran */
    op_region_graph_free(&want);
    op_world_free(&before);
    op_world_free(&after);
}

static void test_update_faults(void **state)
{
    (void)state;
    update_faults(0, 0, 1);
    update_faults(0, 0, 2);
    update_faults(1, 0, 1);
    update_faults(0, 1, 1);
    update_faults(1, 1, 2);
}

/* A sparse build with stairs, every allocation in turn. */
static void test_sparse_build_faults(void **state)
{
    (void)state;
    arm(0);
    op_world before, after;
    op_chunk_key dirty[256];
    uint32_t nd;
    edit_pair(&before, &after, topo_shape(24, 20, 3, 6, 5, 2, OP_LATTICE_ORTHOGONAL), 1, dirty, &nd);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_transition_provider st = op_stair_transitions(F_STAIR);
    op_region_graph_settings set;
    op_region_graph_settings_defaults(&set);
    set.provider = &st;
    op_region_graph want;
    op_region_graph_init(&ctx, &want);
    assert_int_equal(op_region_graph_build(&ctx, &before, &c, &set, &want, NULL), OP_OK);
    int failures = 0;
    for (long at = 1;; at++) {
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        arm(at);
        op_status stt = op_region_graph_build(&ctx, &before, &c, &set, &g, NULL);
        const int hit = failed();
        arm(0);
        if (!hit) {
            assert_int_equal(stt, OP_OK);
            expect_graphs_equal(&g, &want);
            op_region_graph_free(&g);
            break;
        }
        failures++;
        assert_int_equal(stt, OP_NO_MEMORY);
        assert_false(g.stamp.built);
        assert_int_equal(g.revision, 2); /* the build's clear, then the failure's */
        op_region_graph_free(&g);
    }
    assert_true(failures > 10);
    op_region_graph_free(&want);
    op_world_free(&before);
    op_world_free(&after);
}

/* Residency: a failed make_resident changes nothing; a failed add_field on a sparse
 * world leaks nothing. */
static void test_residency_faults(void **state)
{
    (void)state;
    for (long at = 1; at < 8; at++) {
        arm(0);
        op_world w;
        op_world_shape s = topo_shape(9, 9, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL);
        assert_int_equal(op_world_init_sparse(&ctx, &w, &s), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, &w, F_PASS, OP_FIELD_U8), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, &w, F_COST, OP_FIELD_I32), OP_OK);
        assert_int_equal(op_world_make_resident(&ctx, &w, 1), OP_OK);
        arm(at);
        op_status st = op_world_make_resident(&ctx, &w, 4);
        if (failed()) {
            assert_int_equal(st, OP_NO_MEMORY);
            assert_false(op_world_is_resident(&w, 4));
            assert_int_equal(op_world_residency_generation(&w, 4), 0);
            assert_int_equal(op_world_resident_count(&w), 1);
            assert_null(op_world_page(&w, F_PASS, 4));
        } else {
            assert_int_equal(st, OP_OK);
            assert_true(op_world_is_resident(&w, 4));
        }
        arm(at);
        st = op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_U16);
        if (failed()) {
            assert_int_equal(st, OP_NO_MEMORY);
            assert_null(op_world_find_field(&w, F_BLOCK));
        }
        arm(at);
        op_world w2;
        st = op_world_init_sparse(&ctx, &w2, &s);
        if (failed())
            assert_int_equal(st, OP_NO_MEMORY);
        arm(0);
        op_world_free(&w2);
        op_world_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_faults),
        cmocka_unit_test(test_other_faults),
        cmocka_unit_test(test_update_faults),
        cmocka_unit_test(test_sparse_build_faults),
        cmocka_unit_test(test_residency_faults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
