/* Sparse worlds (topology.md "Public Surface": SparseRegionGraph, MissingChunk,
 * Indeterminate; supplement §6, §10.7, §10.12): residency and generations; the graph
 * built over the resident chunks only, sized by their count, with a frozen sorted key
 * table that later evictions cannot invalidate; MissingChunk; reaches-missing flags;
 * Indeterminate exactly where the text says (a non-resident endpoint, an exhausted
 * search touching missing topology; a route in the resident set still wins, an enclosed
 * component is a definite Unreachable), against a flood over the resident tiles; the
 * precheck mapping; a sparse world with every chunk resident gives the dense graph. */
#include "topo_testlib.h"

static op_path_request req(int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    op_path_request r = {{x0, y0, 0}, {x1, y1, 0}};
    return r;
}

static void sparse_world(op_world *w, op_world_shape s)
{
    assert_int_equal(op_world_init_sparse(&ctx, w, &s), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, w, F_PASS, OP_FIELD_U8), OP_OK);
}

/* ---- residency ------------------------------------------------------------------------------ */

static void test_residency(void **state)
{
    (void)state;
    op_world w;
    sparse_world(&w, topo_shape(10, 10, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL)); /* 3 x 3 chunks */
    assert_int_equal(w.residency, OP_RESIDENCY_SPARSE);
    assert_int_equal(op_world_resident_count(&w), 0);
    assert_null(op_world_page(&w, F_PASS, 4));
    int64_t v;
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){5, 5, 0}, 1), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "not resident"));
    assert_int_equal(op_world_get(&ctx, &w, F_PASS, (op_coord3){5, 5, 0}, &v), OP_INVALID_ARGUMENT);
    assert_int_equal(op_world_make_resident(&ctx, &w, 4), OP_OK);
    assert_int_equal(op_world_residency_generation(&w, 4), 1);
    assert_int_equal(op_world_make_resident(&ctx, &w, 4), OP_OK); /* again: nothing changes */
    assert_int_equal(op_world_residency_generation(&w, 4), 1);
    assert_int_equal(op_world_make_resident(&ctx, &w, 8), OP_OK);
    assert_int_equal(op_world_make_resident(&ctx, &w, 0), OP_OK);
    assert_int_equal(op_world_resident_count(&w), 3);
    op_chunk_key keys[9];
    assert_int_equal(op_world_resident_keys(&w, keys, 9), 3);
    assert_int_equal(keys[0], 0); /* ascending, whatever the order they came in */
    assert_int_equal(keys[1], 4);
    assert_int_equal(keys[2], 8);
    assert_int_equal(op_world_resident_keys(&w, keys, 1), 3); /* the count, whatever cap */
    /* A resident chunk's page is zeroed and writable. */
    assert_int_equal(op_world_get(&ctx, &w, F_PASS, (op_coord3){5, 5, 0}, &v), OP_OK);
    assert_int_equal(v, 0);
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){5, 5, 0}, 1), OP_OK);
    /* fill writes the resident chunks only. */
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    assert_null(op_world_page(&w, F_PASS, 1));
    /* A field added later gets pages for the resident chunks only. */
    assert_int_equal(op_world_add_field(&ctx, &w, F_COST, OP_FIELD_I16), OP_OK);
    assert_non_null(op_world_page(&w, F_COST, 8));
    assert_null(op_world_page(&w, F_COST, 7));
    /* Evict: pages gone, generation advanced; evict again: nothing. */
    assert_int_equal(op_world_evict(&ctx, &w, 4), OP_OK);
    assert_int_equal(op_world_residency_generation(&w, 4), 2);
    assert_false(op_world_is_resident(&w, 4));
    assert_null(op_world_page(&w, F_PASS, 4));
    assert_int_equal(op_world_evict(&ctx, &w, 4), OP_OK);
    assert_int_equal(op_world_residency_generation(&w, 4), 2);
    assert_int_equal(op_world_resident_count(&w), 2);
    /* Loaded again: a new generation and a zeroed page. */
    assert_int_equal(op_world_make_resident(&ctx, &w, 4), OP_OK);
    assert_int_equal(op_world_residency_generation(&w, 4), 3);
    assert_int_equal(op_world_get(&ctx, &w, F_PASS, (op_coord3){5, 5, 0}, &v), OP_OK);
    assert_int_equal(v, 0);
    /* Keys outside the grid. */
    assert_int_equal(op_world_make_resident(&ctx, &w, 9), OP_INVALID_ARGUMENT);
    assert_int_equal(op_world_evict(&ctx, &w, 9), OP_INVALID_ARGUMENT);
    assert_false(op_world_is_resident(&w, 9));
    op_world_free(&w);
    /* A dense world: everything resident, nothing to evict. */
    op_world d;
    topo_world(&ctx, &d, topo_shape(10, 10, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_resident_count(&d), 9);
    assert_true(op_world_is_resident(&d, 8));
    assert_int_equal(op_world_make_resident(&ctx, &d, 3), OP_OK);
    assert_int_equal(op_world_evict(&ctx, &d, 3), OP_INVALID_ARGUMENT);
    assert_int_equal(op_world_residency_generation(&d, 3), 0);
    op_world_free(&d);
}

/* ---- the sparse graph ------------------------------------------------------------------------- */

static void test_missing_chunk_local(void **state)
{
    (void)state;
    op_world w;
    sparse_world(&w, topo_shape(8, 8, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_make_resident(&ctx, &w, 1), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_local_topology t;
    op_local_topology_init(&ctx, &t);
    op_local_topology_scratch s;
    op_local_topology_scratch_init(&ctx, &s);
    op_topology_build_result r;
    assert_int_equal(op_local_topology_build(&ctx, &w, &c, 0, &s, &t, &r), OP_OK);
    assert_int_equal(r.status, OP_TOPOLOGY_MISSING_CHUNK);
    assert_int_equal(t.region_count, 0);
    assert_int_equal(r.region_count, 0);
    assert_int_equal(op_local_topology_build(&ctx, &w, &c, 4, &s, &t, &r), OP_OK);
    assert_int_equal(r.status, OP_TOPOLOGY_INVALID_CHUNK);
    /* A resident chunk: its exits go to every neighbour chunk of the grid, resident or
     * not (-x toward chunk 0 that is missing, +y toward chunk 3 that is missing). */
    assert_int_equal(op_local_topology_build(&ctx, &w, &c, 1, &s, &t, &r), OP_OK);
    assert_int_equal(r.status, OP_TOPOLOGY_BUILT);
    assert_int_equal(t.exit_count, 8);
    op_local_topology_free(&t);
    op_local_topology_scratch_free(&s);
    op_world_free(&w);
}

/* Random sparse worlds of every lattice and chunk size against the reference over the
 * resident chunks (labels, exits, portals, index, CSR, reaches-missing flags). */
static void test_random_against_reference(void **state)
{
    (void)state;
    op_rng r = {2024};
    for (int iter = 0; iter < 40; iter++) {
        const int kind = iter % 4; /* 2D, hex, 3D, 2D partial chunks */
        op_world_shape s = kind == 1 ? topo_shape(10 + op_rng_below(&r, 40), 10 + op_rng_below(&r, 40), 1,
                                                  2 + op_rng_below(&r, 9), 2 + op_rng_below(&r, 9), 1,
                                                  OP_LATTICE_AXIAL_HEX)
                           : kind == 2 ? topo_shape(6 + op_rng_below(&r, 16), 6 + op_rng_below(&r, 16),
                                                    2 + op_rng_below(&r, 5), 2 + op_rng_below(&r, 6),
                                                    2 + op_rng_below(&r, 6), 1 + op_rng_below(&r, 3),
                                                    OP_LATTICE_ORTHOGONAL)
                                       : topo_shape(10 + op_rng_below(&r, 50), 10 + op_rng_below(&r, 50), 1,
                                                    3 + op_rng_below(&r, 11), 3 + op_rng_below(&r, 11), 1,
                                                    OP_LATTICE_ORTHOGONAL);
        op_world w;
        sparse_world(&w, s);
        const uint32_t keep = 20 + op_rng_below(&r, 80);
        for (uint32_t k = 0; k < w.chunk_count; k++)
            if (op_rng_below(&r, 100) < keep)
                assert_int_equal(op_world_make_resident(&ctx, &w, k), OP_OK);
        const uint32_t walls = op_rng_below(&r, 50);
        for (uint32_t z = 0; z < s.size[2]; z++)
            for (uint32_t y = 0; y < s.size[1]; y++)
                for (uint32_t x = 0; x < s.size[0]; x++) {
                    op_coord3 c = {(int32_t)x, (int32_t)y, (int32_t)z};
                    if (op_world_is_resident(&w, op_world_chunk_of(&w, c)))
                        op_world_set(&ctx, &w, F_PASS, c, op_rng_below(&r, 100) >= walls);
                }
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        op_region_graph_settings set;
        op_region_graph_settings_defaults(&set);
        set.threads = 1 + iter % 3;
        op_region_graph_build_result br;
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, &set, &g, &br), OP_OK);
        assert_int_equal(g.residency, OP_RESIDENCY_SPARSE);
        /* Sized by the resident count. */
        assert_int_equal(g.slot_count, op_world_resident_count(&w));
        assert_true(g.labels_cap <= (size_t)(g.slot_count ? g.slot_count : 1) * w.chunk_tiles);
        for (uint32_t i = 1; i < g.slot_count; i++)
            assert_true(g.sparse_keys[i - 1] < g.sparse_keys[i]);
        ref_graph ref;
        ref_graph_build(&w, &c, &ref);
        expect_graph_equals_ref(&g, &ref);
        assert_int_equal(br.region_count, ref.nregions);
        ref_graph_free(&ref);
        /* Lookups through the key table. */
        for (uint32_t k = 0; k < w.chunk_count; k++) {
            const uint32_t slot = op_region_graph_slot_of(&g, k);
            assert_int_equal(slot == OP_INVALID_CHUNK, !op_world_is_resident(&w, k));
            if (slot != OP_INVALID_CHUNK) {
                assert_ptr_equal(op_region_graph_local(&g, k), &g.locals[slot]);
                assert_int_equal(g.locals[slot].chunk, k);
            } else {
                assert_null(op_region_graph_local(&g, k));
                assert_int_equal(op_region_graph_region_index(&g, (op_region_ref){k, 1}),
                                 OP_INVALID_REGION_INDEX);
            }
        }
        for (uint32_t i = 0; i < g.region_count; i++)
            assert_int_equal(op_region_graph_region_index(&g, op_region_graph_region_ref(&g, i)), i);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
}

/* Every chunk resident: the sparse graph holds what the dense graph holds (labels,
 * exits, portals, index, CSR), with no region reaching missing topology. */
static void test_all_resident_is_dense(void **state)
{
    (void)state;
    op_rng r = {55};
    for (int iter = 0; iter < 12; iter++) {
        op_world_shape s = topo_shape(15 + op_rng_below(&r, 40), 15 + op_rng_below(&r, 40), 1,
                                      3 + op_rng_below(&r, 9), 3 + op_rng_below(&r, 9), 1,
                                      iter % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL);
        op_world sp, de;
        sparse_world(&sp, s);
        topo_world(&ctx, &de, s);
        for (uint32_t k = 0; k < sp.chunk_count; k++)
            assert_int_equal(op_world_make_resident(&ctx, &sp, k), OP_OK);
        const uint64_t seed = 1000 + (uint64_t)iter;
        op_rng a = {seed}, b = {seed};
        topo_fill_random(&ctx, &sp, F_PASS, &a, 35);
        topo_fill_random(&ctx, &de, F_PASS, &b, 35);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph gs, gd;
        op_region_graph_init(&ctx, &gs);
        op_region_graph_init(&ctx, &gd);
        assert_int_equal(op_region_graph_build(&ctx, &sp, &c, NULL, &gs, NULL), OP_OK);
        assert_int_equal(op_region_graph_build(&ctx, &de, &c, NULL, &gd, NULL), OP_OK);
        assert_int_equal(gs.slot_count, gd.slot_count);
        assert_memory_equal(gs.labels, gd.labels, (size_t)gs.slot_count * gs.chunk_tiles * 4);
        assert_int_equal(gs.portal_count, gd.portal_count);
        for (uint32_t i = 0; i < gs.portal_count; i++) {
            expect_portal_eq(&gs.portals[i], &gd.portals[i]);
            assert_int_equal(gs.adj_target[i], gd.adj_target[i]);
            assert_int_equal(gs.adj_portal[i], gd.adj_portal[i]);
        }
        for (uint32_t i = 0; i < gs.region_count; i++)
            assert_int_equal(gs.reaches_missing[i], 0);
        /* Queries agree (never Indeterminate). */
        op_region_graph_scratch ss, sd;
        op_region_graph_scratch_init(&ctx, &ss);
        op_region_graph_scratch_init(&ctx, &sd);
        for (int q = 0; q < 50; q++) {
            op_path_request rq = req((int32_t)op_rng_below(&r, s.size[0]), (int32_t)op_rng_below(&r, s.size[1]),
                                     (int32_t)op_rng_below(&r, s.size[0]), (int32_t)op_rng_below(&r, s.size[1]));
            op_reach_result x, y;
            assert_int_equal(op_reachable(&ctx, &gs, &rq, &ss, &x), OP_OK);
            assert_int_equal(op_reachable(&ctx, &gd, &rq, &sd, &y), OP_OK);
            assert_int_equal(x.status, y.status);
            assert_int_equal(x.visited, y.visited);
        }
        op_region_graph_scratch_free(&ss);
        op_region_graph_scratch_free(&sd);
        op_region_graph_free(&gs);
        op_region_graph_free(&gd);
        op_world_free(&sp);
        op_world_free(&de);
    }
}

/* The key table is frozen: evicting chunks after the build neither invalidates the graph
 * nor changes its answers (it is only no longer fresh). */
static void test_frozen_key_table(void **state)
{
    (void)state;
    op_world w;
    sparse_world(&w, topo_shape(12, 4, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL)); /* chunks 0 1 2 */
    for (op_chunk_key k = 0; k < 3; k++)
        assert_int_equal(op_world_make_resident(&ctx, &w, k), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_int_equal(op_world_evict(&ctx, &w, 1), OP_OK);
    assert_false(op_region_graph_is_fresh(&w, &g));
    op_region_graph_scratch s;
    op_region_graph_scratch_init(&ctx, &s);
    op_path_request q = req(0, 0, 11, 3);
    op_reach_result rr;
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_REACHABLE); /* the graph still holds chunk 1 */
    assert_int_equal(g.slot_count, 3);
    assert_int_equal(g.sparse_keys[1], 1);
    /* The precheck says the graph is stale. */
    op_precheck_status ps;
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    /* Rebuilt: chunk 1 is missing, the route through it is Indeterminate. */
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    assert_int_equal(g.slot_count, 2);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    assert_int_equal(rr.visited, 1);
    op_region_graph_scratch_free(&s);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* ---- Indeterminate, exactly where the text says -------------------------------------------- */

/* 3 x 3 chunks of 4 x 4; the centre chunk (4) is not resident. */
static void hole_world(op_world *w, const char *const *rows)
{
    sparse_world(w, topo_shape(12, 12, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    for (op_chunk_key k = 0; k < 9; k++)
        if (k != 4)
            assert_int_equal(op_world_make_resident(&ctx, w, k), OP_OK);
    for (int32_t y = 0; y < 12; y++)
        for (int32_t x = 0; x < 12; x++)
            if (op_world_is_resident(w, op_world_chunk_of(w, (op_coord3){x, y, 0})))
                assert_int_equal(op_world_set(&ctx, w, F_PASS, (op_coord3){x, y, 0}, rows[y][x] == '.'),
                                 OP_OK);
}

static void test_indeterminate(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "............", /* 0 */
        "............", /* 1 */
        "..........##", /* 2 */
        "####..#.#.#.", /* 3 */
        "....????...#", /* 4  ? = chunk 4, not resident */
        "....????....", /* 5 */
        "....????....", /* 6 */
        "....????....", /* 7 */
        "######......", /* 8 */
        ".....#......", /* 9 */
        "..#..#......", /* 10 */
        ".....#......", /* 11 */
    };
    op_world w;
    hole_world(&w, rows);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    op_region_graph_scratch s;
    op_region_graph_scratch_init(&ctx, &s);
    op_reach_result rr;
    op_coarse_path_result cp;
    /* A non-resident endpoint: Indeterminate, visited 0 (after the world checks). */
    op_path_request q = req(5, 5, 0, 0);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    assert_int_equal(rr.visited, 0);
    q = req(0, 0, 5, 5);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    q = req(-1, 0, 5, 5); /* start outside the world first */
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INVALID_START);
    q = req(5, 5, 12, 0); /* goal outside the world before the start's residency */
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INVALID_GOAL);
    q = req(0, 3, 5, 5); /* a blocked start before the goal's residency */
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INVALID_START);
    q = req(5, 5, 0, 3); /* a missing start before the goal's wall */
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    /* A route within the resident set wins: (0,0) to (11,11) around the east side. */
    q = req(0, 0, 11, 11);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_REACHABLE);
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &s, &cp), OP_OK);
    assert_int_equal(cp.status, OP_REACH_REACHABLE);
    /* An enclosed component (the pocket at (0,9)..(4,11), walled by row 8 and column 5)
     * never touches missing topology: a definite Unreachable. */
    q = req(0, 10, 0, 0);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_UNREACHABLE);
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &s, &cp), OP_OK);
    assert_int_equal(cp.status, OP_REACH_UNREACHABLE);
    /* The west strip (0,4)..(3,7) touches chunk 4 (missing) and is cut off from the
     * rest by the walls of rows 3 and 8: Indeterminate, not Unreachable. */
    q = req(0, 5, 0, 0);
    assert_int_equal(op_reachable(&ctx, &g, &q, &s, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    assert_true(rr.visited >= 1);
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &s, &cp), OP_OK);
    assert_int_equal(cp.status, OP_REACH_INDETERMINATE);
    assert_int_equal(cp.region_count, 0); /* no partial corridor */
    assert_int_equal(cp.portal_count, 0);
    assert_int_equal(cp.chunk_count, 0);
    assert_null(cp.regions);
    assert_int_equal(cp.bounds.max.x, 0);
    assert_true(cp.visited >= 1);
    /* The precheck maps it: MissingChunk by default; under AssumeImpassable a missing
     * start is InvalidStart, a missing goal InvalidGoal, an exhausted search Unreachable. */
    op_precheck_status ps;
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_MISSING_CHUNK);
    assert_false(op_precheck_rules_out_path(ps));
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_ASSUME_IMPASSABLE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE);
    q = req(5, 5, 0, 0);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_ASSUME_IMPASSABLE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_INVALID_START);
    q = req(0, 0, 5, 5);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_ASSUME_IMPASSABLE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_INVALID_GOAL);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_MISSING_CHUNK);
    q = req(0, 10, 0, 0);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &q, &s, OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE);
    assert_true(op_precheck_rules_out_path(ps));
    op_region_graph_scratch_free(&s);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* A provider transition landing in a chunk that is not resident marks its origin. */
typedef struct one_edge {
    op_coord3 from, to;
} one_edge;

static void one_each(const op_transition_provider *self, const op_world *world, op_chunk_key chunk,
                     op_transition_sink sink, void *user)
{
    const one_edge *e = self->instance;
    if (op_world_chunk_of(world, e->from) == chunk)
        sink(user, e->from, e->to);
}

static const op_transition_provider_ops one_ops = {"one", one_each};

static void test_provider_missing(void **state)
{
    (void)state;
    /* Chunks 0 1 2 in a row, chunk 2 not resident. Chunk 0 holds one open tile (0,0)
     * away from every seam, chunk 1 one open tile (5,1) with a provider edge into the
     * missing chunk 2. */
    op_world w;
    sparse_world(&w, topo_shape(12, 4, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_make_resident(&ctx, &w, 0), OP_OK);
    assert_int_equal(op_world_make_resident(&ctx, &w, 1), OP_OK);
    /* chunk 0: a pocket at (0,0); chunk 1: one open tile (5,1) walled in */
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){0, 0, 0}, 1), OP_OK);
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){5, 1, 0}, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    one_edge e = {{5, 1, 0}, {8, 1, 0}}; /* from chunk 1 into chunk 2 (missing) */
    op_transition_provider p = {&one_ops, &e, 1, 0};
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = &p;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    /* (5,1) is walled in within chunk 1 but its provider edge lands in missing chunk 2. */
    uint32_t i = op_region_graph_region_index(&g, op_region_graph_region_of(&g, (op_coord3){5, 1, 0}));
    assert_int_equal(g.reaches_missing[i], 1);
    uint32_t j = op_region_graph_region_index(&g, op_region_graph_region_of(&g, (op_coord3){0, 0, 0}));
    assert_int_equal(g.reaches_missing[j], 0);
    assert_int_equal(g.portal_count, 0);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = req(5, 1, 0, 0);
    op_reach_result rr;
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INDETERMINATE);
    q = req(0, 0, 5, 1);
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_UNREACHABLE);
    /* The edge lands outside the world instead: dropped, not missing. */
    e.to = (op_coord3){12, 1, 0};
    p.revision++;
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    assert_int_equal(g.reaches_missing[i], 0);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Ground truth on random sparse worlds: a flood over the resident passable tiles. The
 * start's component holds the goal: Reachable; else it has a tile with a face step into
 * a non-resident chunk: Indeterminate; else Unreachable. */
static void test_random_ground_truth(void **state)
{
    (void)state;
    op_rng r = {8086};
    long counts[5] = {0};
    for (int iter = 0; iter < 30; iter++) {
        const int hex = iter % 3 == 2;
        op_world_shape s = topo_shape(10 + op_rng_below(&r, 40), 10 + op_rng_below(&r, 40), 1,
                                      2 + op_rng_below(&r, 9), 2 + op_rng_below(&r, 9), 1,
                                      hex ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL);
        op_world w;
        sparse_world(&w, s);
        for (uint32_t k = 0; k < w.chunk_count; k++)
            if (op_rng_below(&r, 100) < 75)
                op_world_make_resident(&ctx, &w, k);
        const uint32_t walls = 20 + op_rng_below(&r, 30);
        const size_t n = (size_t)s.size[0] * s.size[1];
        uint8_t *pass = calloc(n, 1), *res = calloc(n, 1);
        for (uint32_t y = 0; y < s.size[1]; y++)
            for (uint32_t x = 0; x < s.size[0]; x++) {
                op_coord3 c = {(int32_t)x, (int32_t)y, 0};
                res[x + y * s.size[0]] = (uint8_t)op_world_is_resident(&w, op_world_chunk_of(&w, c));
                if (res[x + y * s.size[0]]) {
                    pass[x + y * s.size[0]] = op_rng_below(&r, 100) >= walls;
                    op_world_set(&ctx, &w, F_PASS, c, pass[x + y * s.size[0]]);
                }
            }
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        /* components over resident passable tiles, and whether each touches missing */
        uint32_t *comp = calloc(n, sizeof *comp);
        uint8_t *touch = calloc(n + 1, 1);
        size_t *queue = malloc(n * sizeof *queue);
        static const int o4[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
        const int nn = hex ? 6 : 4;
        uint32_t next = 0;
        for (size_t i = 0; i < n; i++) {
            if (!pass[i] || comp[i])
                continue;
            comp[i] = ++next;
            size_t head = 0, tail = 0;
            queue[tail++] = i;
            while (head < tail) {
                size_t t = queue[head++];
                int64_t x = (int64_t)(t % s.size[0]), y = (int64_t)(t / s.size[0]);
                for (int d = 0; d < nn; d++) {
                    int64_t nx = x + o4[d][0], ny = y + o4[d][1];
                    if (!topo_in(&s, nx, ny, 0))
                        continue;
                    size_t m = (size_t)(nx + ny * s.size[0]);
                    if (!res[m]) {
                        touch[next] = 1;
                        continue;
                    }
                    if (pass[m] && !comp[m]) {
                        comp[m] = next;
                        queue[tail++] = m;
                    }
                }
            }
        }
        for (int qi = 0; qi < 200; qi++) {
            op_path_request q = req((int32_t)op_rng_below(&r, s.size[0]), (int32_t)op_rng_below(&r, s.size[1]),
                                    (int32_t)op_rng_below(&r, s.size[0]), (int32_t)op_rng_below(&r, s.size[1]));
            size_t a = (size_t)q.start.x + (size_t)q.start.y * s.size[0],
                   b = (size_t)q.goal.x + (size_t)q.goal.y * s.size[0];
            op_reach_status want;
            if (!res[a])
                want = OP_REACH_INDETERMINATE;
            else if (!pass[a])
                want = OP_REACH_INVALID_START;
            else if (!res[b])
                want = OP_REACH_INDETERMINATE;
            else if (!pass[b])
                want = OP_REACH_INVALID_GOAL;
            else if (comp[a] == comp[b])
                want = OP_REACH_REACHABLE;
            else
                want = touch[comp[a]] ? OP_REACH_INDETERMINATE : OP_REACH_UNREACHABLE;
            op_reach_result rr;
            assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
            if (rr.status != want) {
                fprintf(stderr, "iter %d query (%d,%d)->(%d,%d): %s, want %s\n", iter, q.start.x,
                        q.start.y, q.goal.x, q.goal.y, op_reach_status_name(rr.status),
                        op_reach_status_name(want));
                fail();
            }
            op_coarse_path_result cp;
            assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
            assert_int_equal(cp.status, want);
            if (want == OP_REACH_INDETERMINATE)
                assert_int_equal(cp.region_count, 0);
            counts[want]++;
        }
        free(comp);
        free(touch);
        free(queue);
        free(pass);
        free(res);
        op_region_graph_scratch_free(&sc);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
    print_message("reachable %ld, unreachable %ld, invalid start %ld, invalid goal %ld, "
                  "indeterminate %ld\n",
                  counts[0], counts[1], counts[2], counts[3], counts[4]);
    for (int i = 0; i < 5; i++)
        assert_true(counts[i] > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_residency),
        cmocka_unit_test(test_missing_chunk_local),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_all_resident_is_dense),
        cmocka_unit_test(test_frozen_key_table),
        cmocka_unit_test(test_indeterminate),
        cmocka_unit_test(test_provider_missing),
        cmocka_unit_test(test_random_ground_truth),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
