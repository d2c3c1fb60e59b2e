/* Queries (topology.md "Public Surface", "Behavior"; supplement §10.8-10.10, §10.12,
 * §10.14): endpoint rules in order, reachable's LIFO traversal and visited count,
 * coarse_path's BFS, parents, portals, corridor order and clipped bounds, precheck and
 * its statuses, epoch reuse of the scratch, and §10.14's numbers. */
#include "topo_testlib.h"

static op_ctx ctx;

static int setup(void **state)
{
    (void)state;
    return op_ctx_init(&ctx, OP_ISA_AUTO) == OP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    op_ctx_free(&ctx);
    return 0;
}

static op_path_request req(int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    op_path_request r = {{x0, y0, 0}, {x1, y1, 0}};
    return r;
}

/* supplement §10.14: 512x512 open in 32x32 chunks. */
static void test_check_numbers(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(512, 512, 1, 32, 32, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    for (int templ = 0; templ < 2; templ++) {
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        op_region_graph_settings s;
        op_region_graph_settings_defaults(&s);
        s.use_open_template = templ;
        op_region_graph_build_result br;
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, &br), OP_OK);
        assert_int_equal(g.region_count, 256);
        assert_int_equal(g.portal_count, 30720);
        assert_int_equal(br.region_count, 256);
        assert_int_equal(br.passable_tile_count, 512 * 512);
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        op_reach_result rr;
        op_path_request q = req(0, 0, 511, 511);
        assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
        assert_int_equal(rr.status, OP_REACH_REACHABLE);
        assert_int_equal(rr.visited, 59);
        op_coarse_path_result cp;
        assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
        assert_int_equal(cp.status, OP_REACH_REACHABLE);
        assert_int_equal(cp.visited, 256);
        assert_int_equal(cp.region_count, 31);
        assert_int_equal(cp.portal_count, 30);
        assert_int_equal(cp.chunk_count, 31);
        /* Down chunk column 0 to (0,15), then along chunk row 15. */
        for (uint32_t i = 0; i < 31; i++) {
            uint32_t want = i < 16 ? i * 16 : 15 * 16 + (i - 15);
            assert_int_equal(cp.regions[i].chunk, want);
            assert_int_equal(cp.regions[i].region, 1);
            assert_int_equal(cp.chunks[i], want);
        }
        for (uint32_t i = 0; i < 30; i++) {
            assert_int_equal(cp.portals[i].from.chunk, cp.regions[i].chunk);
            assert_int_equal(cp.portals[i].to.chunk, cp.regions[i + 1].chunk);
        }
        assert_int_equal(cp.bounds.min.x, 0);
        assert_int_equal(cp.bounds.min.y, 0);
        assert_int_equal(cp.bounds.max.x, 512);
        assert_int_equal(cp.bounds.max.y, 512);
        assert_int_equal(cp.bounds.max.z, 1);
        op_region_graph_scratch_free(&sc);
        op_region_graph_free(&g);
    }
    op_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_numbers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
