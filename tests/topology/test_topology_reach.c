/* Reachability equals a plain flood fill over the whole grid (issue 15 "Tests"), on
 * random worlds of every lattice, chunk size (partial chunks included) and class: a raw
 * u8 field, NotZero on a signed field, a composed AllOf/Not/AnyOf class, the
 * positive-cost class, and diagonal policies on two-axis worlds. Every passable tile is
 * queried from one start, and every pair of sampled tiles both ways. */
#include "topo_testlib.h"

enum { CLASS_RAW, CLASS_NOTZERO, CLASS_COMPOSED, CLASS_POSITIVE, CLASS_DIAGONAL, CLASS_COUNT };

static void make_class(int kind, op_movement_class *c)
{
    switch (kind) {
    case CLASS_RAW: op_movement_class_unit_field(c, F_PASS); break;
    case CLASS_NOTZERO:
        op_movement_class_clear(c);
        op_movement_pass_push(&ctx, c, OP_PASS_NOT_ZERO, F_COST);
        break;
    case CLASS_COMPOSED:
        op_movement_class_clear(c);
        op_movement_pass_push(&ctx, c, OP_PASS_ANY_OF, 2);
        op_movement_pass_push(&ctx, c, OP_PASS_ALL_OF, 2);
        op_movement_pass_push(&ctx, c, OP_PASS_FIELD, F_PASS);
        op_movement_pass_push(&ctx, c, OP_PASS_NOT, 0);
        op_movement_pass_push(&ctx, c, OP_PASS_FIELD, F_BLOCK);
        op_movement_pass_push(&ctx, c, OP_PASS_ALL_OF, 2);
        op_movement_pass_push(&ctx, c, OP_PASS_FIELD, F_BLOCK);
        op_movement_pass_push(&ctx, c, OP_PASS_NOT_ZERO, F_COST);
        break;
    case CLASS_POSITIVE: op_movement_class_positive_cost_field(c, F_PASS, F_COST); break;
    case CLASS_DIAGONAL:
        op_movement_class_unit_field(c, F_PASS);
        c->steps = OP_STEPS_DIAGONAL;
        c->corner = OP_CORNER_REQUIRE_ONE_CLEAR;
        break;
    }
}

static void check_world(op_world *w, const op_movement_class *c, op_rng *rng, int threads)
{
    const op_world_shape *s = &w->shape;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_region_graph_settings st;
    op_region_graph_settings_defaults(&st);
    st.threads = threads;
    assert_int_equal(op_region_graph_build(&ctx, w, c, &st, &g, NULL), OP_OK);
    uint32_t *comp = grid_components(w, c);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    const size_t n = (size_t)s->size[0] * s->size[1] * s->size[2];
    size_t start = SIZE_MAX;
    for (size_t i = 0; i < n && start == SIZE_MAX; i++)
        if (comp[i])
            start = i;
    op_coord3 at[64];
    size_t idx[64];
    int nat = 0;
    for (size_t i = 0; i < n; i++) {
        op_coord3 p = {(int32_t)(i % s->size[0]), (int32_t)(i / s->size[0] % s->size[1]),
                       (int32_t)(i / s->size[0] / s->size[1])};
        /* Every tile has a region exactly when it is passable. */
        assert_int_equal(op_region_graph_region_of(&g, p).region != 0, comp[i] != 0);
        if (comp[i] && nat < 64 && op_rng_below(rng, 8) == 0) {
            at[nat] = p;
            idx[nat++] = i;
        }
        if (start == SIZE_MAX || !comp[i])
            continue;
        op_path_request q = {{(int32_t)(start % s->size[0]), (int32_t)(start / s->size[0] % s->size[1]),
                              (int32_t)(start / s->size[0] / s->size[1])},
                             p};
        op_reach_result rr;
        assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
        assert_int_equal(rr.status == OP_REACH_REACHABLE, comp[start] == comp[i]);
        assert_true(rr.status == OP_REACH_REACHABLE || rr.status == OP_REACH_UNREACHABLE);
    }
    for (int a = 0; a < nat; a++)
        for (int b = 0; b < nat; b++) {
            op_path_request q = {at[a], at[b]};
            op_reach_result rr;
            op_coarse_path_result cp;
            assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
            assert_int_equal(rr.status == OP_REACH_REACHABLE, comp[idx[a]] == comp[idx[b]]);
            assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
            assert_int_equal(cp.status, rr.status);
            if (cp.status == OP_REACH_REACHABLE) {
                /* The route is a chain of portals from the start's region to the goal's. */
                op_region_ref sr = op_region_graph_region_of(&g, at[a]);
                op_region_ref gr = op_region_graph_region_of(&g, at[b]);
                assert_memory_equal(&cp.regions[0], &sr, sizeof sr);
                assert_memory_equal(&cp.regions[cp.region_count - 1], &gr, sizeof gr);
                for (uint32_t i = 0; i < cp.portal_count; i++) {
                    op_region_ref f = op_region_graph_region_of(&g, cp.portals[i].from_coord);
                    op_region_ref t = op_region_graph_region_of(&g, cp.portals[i].to_coord);
                    assert_memory_equal(&f, &cp.regions[i], sizeof f);
                    assert_memory_equal(&t, &cp.regions[i + 1], sizeof t);
                }
            }
        }
    free(comp);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
}

static void test_random_worlds(void **state)
{
    (void)state;
    op_rng rng = {0x51};
    int per_class[CLASS_COUNT] = {0};
    for (int iter = 0; iter < 150; iter++) {
        int kind = iter % CLASS_COUNT;
        op_lattice lat = (iter / CLASS_COUNT) % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL;
        int three_d = lat == OP_LATTICE_ORTHOGONAL && (iter / CLASS_COUNT) % 3 == 1;
        if (kind == CLASS_DIAGONAL) {
            lat = OP_LATTICE_ORTHOGONAL;
            three_d = 0;
        }
        op_world_shape s = topo_shape(2 + op_rng_below(&rng, 40), 2 + op_rng_below(&rng, 40),
                                      three_d ? 2 + op_rng_below(&rng, 6) : 1,
                                      1 + op_rng_below(&rng, 12), 1 + op_rng_below(&rng, 12),
                                      three_d ? 1 + op_rng_below(&rng, 4) : 1, lat);
        op_world w;
        topo_world(&ctx, &w, s);
        assert_int_equal(op_world_add_field(&ctx, &w, F_COST, OP_FIELD_I16), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_U32), OP_OK);
        uint32_t walls = op_rng_below(&rng, 55);
        topo_fill_random(&ctx, &w, F_PASS, &rng, walls);
        topo_fill_random(&ctx, &w, F_BLOCK, &rng, 70);
        /* signed cost values, some negative */
        for (uint32_t z = 0; z < s.size[2]; z++)
            for (uint32_t y = 0; y < s.size[1]; y++)
                for (uint32_t x = 0; x < s.size[0]; x++)
                    assert_int_equal(op_world_set(&ctx, &w, F_COST,
                                                  (op_coord3){(int32_t)x, (int32_t)y, (int32_t)z},
                                                  (int64_t)op_rng_below(&rng, 7) - 2),
                                     OP_OK);
        op_movement_class c;
        make_class(kind, &c);
        assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
        check_world(&w, &c, &rng, 1 + iter % 3);
        per_class[kind]++;
        op_world_free(&w);
    }
    for (int k = 0; k < CLASS_COUNT; k++)
        assert_true(per_class[k] >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_worlds),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
