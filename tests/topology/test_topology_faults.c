/* Allocation failure (supplement §6: "on any allocation failure the graph is cleared, its
 * revision advances, and the call returns an error status"): every allocation of a build
 * is failed in turn through the allocator hook, on one and on two threads; each failed
 * build returns OP_NO_MEMORY with a message, leaves a graph that matches nothing and
 * answers nothing, and advances the revision; the next build equals a fresh one. Also
 * the world, the query scratch and the standalone local build. ASan checks for leaks. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_faults),
        cmocka_unit_test(test_other_faults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
