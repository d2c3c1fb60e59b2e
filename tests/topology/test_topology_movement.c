/* Movement classes as data (topology.md "Movement Vocabulary"; supplement §6):
 * validation (MovementClassFor, StepPolicyFor) with messages, the normalized identity,
 * passability terms, cost expressions with u32 saturation and 0 = impassable, step
 * identities and scales, and the single-field fast path. */
#include "topo_testlib.h"

static op_world w;

static int setup(void **state)
{
    if (topo_setup(state))
        return -1;
    topo_world(&ctx, &w, topo_shape(4, 4, 1, 2, 2, 1, OP_LATTICE_ORTHOGONAL));
    op_world_add_field(&ctx, &w, F_COST, OP_FIELD_I32);
    op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_U32);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    op_world_free(&w);
    return topo_teardown(state);
}

static void expect_invalid(const op_world *world, const op_movement_class *c, const char *words)
{
    assert_int_equal(op_movement_class_validate(&ctx, world, c), OP_INVALID_ARGUMENT);
    if (!strstr(op_ctx_error(&ctx), words)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", op_ctx_error(&ctx), words);
        fail();
    }
}

static void test_validate(void **state)
{
    (void)state;
    op_movement_class c;
    op_movement_class_clear(&c);
    expect_invalid(&w, &c, "no nodes");
    op_movement_pass_push(&ctx, &c, OP_PASS_ALL_OF, 2);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    expect_invalid(&w, &c, "missing children");
    op_movement_pass_push(&ctx, &c, OP_PASS_NOT_ZERO, F_COST);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    expect_invalid(&w, &c, "node after a complete expression");
    op_movement_class_clear(&c);
    op_movement_pass_push(&ctx, &c, (op_pass_op)99, 0);
    expect_invalid(&w, &c, "unknown operator");
    op_movement_class_unit_field(&c, 12345);
    expect_invalid(&w, &c, "field 12345");
    op_movement_class_unit_field(&c, F_PASS);
    c.cost[0] = (op_expr_node){OP_COST_SELECT, F_BLOCK};
    c.cost_count = 2;
    c.cost[1] = (op_expr_node){OP_COST_UNIT, 0};
    expect_invalid(&w, &c, "cost node 2: missing children");
    c.cost[2] = (op_expr_node){OP_COST_FIELD, 4444};
    c.cost_count = 3;
    expect_invalid(&w, &c, "reads field 4444");
    c.cost[2] = (op_expr_node){OP_COST_FIELD, F_COST};
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    /* Node arrays are bounded. */
    op_movement_class_clear(&c);
    for (int i = 0; i < OP_MOVEMENT_MAX_NODES; i++)
        assert_int_equal(op_movement_pass_push(&ctx, &c, OP_PASS_NOT, 0), OP_OK);
    assert_int_equal(op_movement_pass_push(&ctx, &c, OP_PASS_NOT, 0), OP_INVALID_ARGUMENT);
    c.pass[OP_MOVEMENT_MAX_NODES - 1] = (op_expr_node){OP_PASS_FIELD, F_PASS};
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK); /* 31 Nots of a field */
    assert_int_equal(op_movement_passable(&w, &c, (op_coord3){0, 0, 0}), 1); /* !0 odd times */

    /* StepPolicyFor: diagonals only on an orthogonal lattice with two axes of size > 1. */
    op_movement_class_unit_field(&c, F_PASS);
    c.steps = OP_STEPS_DIAGONAL;
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    c.corner = (op_corner_rule)5;
    expect_invalid(&w, &c, "corner rule");
    c.corner = OP_CORNER_REQUIRE_ONE_CLEAR;
    c.steps = (op_step_policy)3;
    expect_invalid(&w, &c, "step policy");
    c.steps = OP_STEPS_DIAGONAL;
    op_world w3, wl, wh;
    topo_world(&ctx, &w3, topo_shape(4, 4, 4, 2, 2, 2, OP_LATTICE_ORTHOGONAL));
    expect_invalid(&w3, &c, "exactly two axes");
    topo_world(&ctx, &wl, topo_shape(4, 1, 1, 2, 1, 1, OP_LATTICE_ORTHOGONAL));
    expect_invalid(&wl, &c, "exactly two axes");
    topo_world(&ctx, &wh, topo_shape(4, 4, 1, 2, 2, 1, OP_LATTICE_AXIAL_HEX));
    expect_invalid(&wh, &c, "orthogonal lattice");
    op_world w2d_xz;
    topo_world(&ctx, &w2d_xz, topo_shape(4, 1, 4, 2, 1, 2, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_movement_class_validate(&ctx, &w2d_xz, &c), OP_OK);
    op_world_free(&w3);
    op_world_free(&wl);
    op_world_free(&wh);
    op_world_free(&w2d_xz);
    assert_int_equal(op_movement_class_validate(&ctx, &w, NULL), OP_INVALID_ARGUMENT);
}

static void test_identity(void **state)
{
    (void)state;
    op_movement_class raw, expl, nocost, other, diag1, diag2;
    op_movement_class_unit_field(&raw, F_PASS);
    op_movement_class_clear(&expl);
    op_movement_pass_push(&ctx, &expl, OP_PASS_FIELD, F_PASS);
    op_movement_cost_push(&ctx, &expl, OP_COST_UNIT, 77); /* the arg of UnitCost is ignored */
    expl.corner = OP_CORNER_REQUIRE_ONE_CLEAR;             /* ignored under default steps */
    op_movement_class_clear(&nocost);
    op_movement_pass_push(&ctx, &nocost, OP_PASS_FIELD, F_PASS);
    assert_true(op_movement_class_same(&raw, &expl));
    assert_true(op_movement_class_same(&raw, &nocost));
    assert_int_equal(op_movement_class_identity(&raw), op_movement_class_identity(&expl));
    assert_int_equal(op_movement_class_identity(&raw), op_movement_class_identity(&nocost));
    op_movement_class_clear(&other);
    op_movement_pass_push(&ctx, &other, OP_PASS_NOT_ZERO, F_PASS);
    assert_false(op_movement_class_same(&raw, &other)); /* Field and NotZero are distinct terms */
    assert_int_not_equal(op_movement_class_identity(&raw), op_movement_class_identity(&other));
    other = raw;
    other.cost[0] = (op_expr_node){OP_COST_CONSTANT, 1};
    assert_false(op_movement_class_same(&raw, &other));
    diag1 = raw;
    diag1.steps = OP_STEPS_DIAGONAL;
    diag2 = diag1;
    diag2.corner = OP_CORNER_REQUIRE_ONE_CLEAR;
    assert_false(op_movement_class_same(&raw, &diag1));
    assert_false(op_movement_class_same(&diag1, &diag2));
    assert_int_equal(op_movement_step_identity(&raw), OP_STEP_IDENTITY_DEFAULT);
    assert_int_equal(op_movement_step_identity(&diag1), OP_STEP_IDENTITY_DIAGONAL_BOTH_CLEAR);
    assert_int_equal(op_movement_step_identity(&diag2), OP_STEP_IDENTITY_DIAGONAL_ONE_CLEAR);
    assert_int_equal(op_movement_cost_scale(&raw), 1);
    assert_int_equal(op_movement_cost_scale(&diag1), 128);
    op_movement_class n;
    op_movement_class_normalize(&nocost, &n);
    assert_int_equal(n.cost_count, 1);
    assert_int_equal(n.cost[0].op, OP_COST_UNIT);
    uint32_t f = 0;
    assert_true(op_movement_class_single_field(&raw, &f));
    assert_int_equal(f, F_PASS);
    op_movement_class pc;
    op_movement_class_positive_cost_field(&pc, F_PASS, F_COST);
    assert_false(op_movement_class_single_field(&pc, &f));
    assert_int_equal(pc.pass_count, 3);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &pc), OP_OK);
}

static void test_passability_terms(void **state)
{
    (void)state;
    /* Field truthy, NotZero, Not, AllOf, AnyOf, and the empty folds. */
    op_coord3 a = {1, 2, 0};
    op_world_set(&ctx, &w, F_PASS, a, 3);
    op_world_set(&ctx, &w, F_COST, a, -5);
    op_world_set(&ctx, &w, F_BLOCK, a, 0);
    op_movement_class c;
    struct {
        op_expr_node n[6];
        uint32_t count;
        int want;
    } cases[] = {
        {{{OP_PASS_FIELD, F_PASS}}, 1, 1},
        {{{OP_PASS_NOT_ZERO, F_COST}}, 1, 1},
        {{{OP_PASS_FIELD, F_BLOCK}}, 1, 0},
        {{{OP_PASS_NOT, 0}, {OP_PASS_FIELD, F_BLOCK}}, 2, 1},
        {{{OP_PASS_ALL_OF, 2}, {OP_PASS_FIELD, F_PASS}, {OP_PASS_FIELD, F_BLOCK}}, 3, 0},
        {{{OP_PASS_ANY_OF, 2}, {OP_PASS_FIELD, F_BLOCK}, {OP_PASS_FIELD, F_PASS}}, 3, 1},
        {{{OP_PASS_ALL_OF, 0}}, 1, 1},
        {{{OP_PASS_ANY_OF, 0}}, 1, 0},
        {{{OP_PASS_ANY_OF, 2}, {OP_PASS_ALL_OF, 0}, {OP_PASS_ANY_OF, 0}}, 3, 1},
        {{{OP_PASS_NOT, 0}, {OP_PASS_ANY_OF, 3}, {OP_PASS_FIELD, F_BLOCK}, {OP_PASS_NOT, 0},
          {OP_PASS_FIELD, F_PASS}, {OP_PASS_ANY_OF, 0}},
         6, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op_movement_class_clear(&c);
        for (uint32_t k = 0; k < cases[i].count; k++)
            op_movement_pass_push(&ctx, &c, (op_pass_op)cases[i].n[k].op, cases[i].n[k].arg);
        assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
        if (op_movement_passable(&w, &c, a) != cases[i].want) {
            fprintf(stderr, "case %zu\n", i);
            fail();
        }
        /* The labelling path (row evaluation) agrees: a one-tile region or none. */
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
        assert_int_equal(op_region_graph_region_of(&g, a).region != 0, cases[i].want);
        op_region_graph_free(&g);
    }
    assert_int_equal(op_movement_passable(&w, &c, (op_coord3){4, 0, 0}), 0); /* outside */
    op_world_set(&ctx, &w, F_PASS, a, 0);
    op_world_set(&ctx, &w, F_COST, a, 0);
}

static void test_costs(void **state)
{
    (void)state;
    op_coord3 a = {3, 3, 0};
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 1); /* UnitCost */
    c.cost_count = 0;
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 1);
    c.cost[0] = (op_expr_node){OP_COST_CONSTANT, 7};
    c.cost_count = 1;
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 7);
    /* FieldCost: <= 0 -> 0 (impassable), u32 values as they are. */
    c.cost[0] = (op_expr_node){OP_COST_FIELD, F_COST};
    op_world_set(&ctx, &w, F_COST, a, -3);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 0);
    op_world_set(&ctx, &w, F_COST, a, 12);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 12);
    c.cost[0] = (op_expr_node){OP_COST_FIELD, F_BLOCK};
    op_world_set(&ctx, &w, F_BLOCK, a, UINT32_MAX);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), UINT32_MAX);
    /* SelectCost(sel, WhenSet, WhenClear). */
    op_movement_class_clear(&c);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    op_movement_cost_push(&ctx, &c, OP_COST_SELECT, F_PASS);
    op_movement_cost_push(&ctx, &c, OP_COST_CONSTANT, 5);
    op_movement_cost_push(&ctx, &c, OP_COST_FIELD, F_COST);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    op_world_set(&ctx, &w, F_PASS, a, 0);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 12); /* clear: the field */
    op_world_set(&ctx, &w, F_PASS, a, 1);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 5); /* set: the constant */
    /* OverlayCost(base, overlay): 0 iff base is 0; else base + overlay saturated. */
    op_movement_class_clear(&c);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    op_movement_cost_push(&ctx, &c, OP_COST_OVERLAY, 0);
    op_movement_cost_push(&ctx, &c, OP_COST_FIELD, F_COST);
    op_movement_cost_push(&ctx, &c, OP_COST_FIELD, F_BLOCK);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    op_world_set(&ctx, &w, F_COST, a, 0);
    op_world_set(&ctx, &w, F_BLOCK, a, 9);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 0); /* impassable base stays 0 */
    op_world_set(&ctx, &w, F_COST, a, 4);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 13);
    op_world_set(&ctx, &w, F_BLOCK, a, 0);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 4); /* overlay 0 = no surcharge */
    op_world_set(&ctx, &w, F_BLOCK, a, UINT32_MAX - 1);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), UINT32_MAX); /* saturated */
    /* Nested: Overlay(Select(...), Constant). */
    op_movement_class_clear(&c);
    op_movement_pass_push(&ctx, &c, OP_PASS_FIELD, F_PASS);
    op_movement_cost_push(&ctx, &c, OP_COST_OVERLAY, 0);
    op_movement_cost_push(&ctx, &c, OP_COST_SELECT, F_PASS);
    op_movement_cost_push(&ctx, &c, OP_COST_CONSTANT, 0);
    op_movement_cost_push(&ctx, &c, OP_COST_UNIT, 0);
    op_movement_cost_push(&ctx, &c, OP_COST_CONSTANT, 100);
    assert_int_equal(op_movement_class_validate(&ctx, &w, &c), OP_OK);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 0); /* F_PASS set: Constant 0 */
    op_world_set(&ctx, &w, F_PASS, a, 0);
    assert_int_equal(op_movement_entry_cost(&w, &c, a), 101);
    assert_int_equal(op_movement_entry_cost(&w, &c, (op_coord3){0, 9, 0}), 0);
    op_world_set(&ctx, &w, F_BLOCK, a, 0);
    op_world_set(&ctx, &w, F_COST, a, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_passability_terms),
        cmocka_unit_test(test_costs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
