/* Queries (topology.md "Public Surface", "Behavior"; supplement §10.8-10.10, §10.12,
 * §10.14): endpoint rules in order, reachable's LIFO traversal and visited count,
 * coarse_path's BFS, parents, portals, corridor order and clipped bounds, precheck and
 * its statuses, epoch reuse of the scratch, and §10.14's numbers. */
#include "topo_testlib.h"

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


static void build_default(op_world *w, op_movement_class *c, op_region_graph *g)
{
    op_region_graph_init(&ctx, g);
    assert_int_equal(op_region_graph_build(&ctx, w, c, NULL, g, NULL), OP_OK);
}

/* §10.8: start outside, goal outside, start without region, goal without region, in this
 * order; visited 0; coarse_path lists empty and the zero box. */
static void test_endpoints(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "..#.",
        "..#.",
        "####",
        "....",
    };
    op_world w;
    topo_world_map(&ctx, &w, 2, 2, rows, 4);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    /* Unbuilt graph: no world, every start is outside. */
    op_region_graph_init(&ctx, &g);
    op_reach_result rr;
    op_path_request q = req(0, 0, 1, 1);
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_INVALID_START);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    struct {
        op_path_request q;
        op_reach_status want;
    } cases[] = {
        {req(-1, 0, 0, 0), OP_REACH_INVALID_START},
        {req(-1, 0, 9, 9), OP_REACH_INVALID_START}, /* both outside: start first */
        {req(0, 0, 4, 0), OP_REACH_INVALID_GOAL},
        {req(2, 0, 4, 0), OP_REACH_INVALID_GOAL},   /* blocked start, goal outside */
        {req(2, 0, 2, 1), OP_REACH_INVALID_START},  /* both blocked: start first */
        {req(0, 0, 2, 2), OP_REACH_INVALID_GOAL},
        {req(0, 0, 1, 1), OP_REACH_REACHABLE},
        {req(0, 0, 0, 3), OP_REACH_UNREACHABLE},
        {req(0, 4, 0, 0), OP_REACH_INVALID_START},
        {req(0, 0, 0, 4), OP_REACH_INVALID_GOAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(op_reachable(&ctx, &g, &cases[i].q, &sc, &rr), OP_OK);
        assert_int_equal(rr.status, cases[i].want);
        op_coarse_path_result cp;
        assert_int_equal(op_coarse_path(&ctx, &g, &cases[i].q, &sc, &cp), OP_OK);
        assert_int_equal(cp.status, cases[i].want);
        if (cases[i].want != OP_REACH_REACHABLE && cases[i].want != OP_REACH_UNREACHABLE) {
            assert_int_equal(rr.visited, 0);
            assert_int_equal(cp.visited, 0);
        }
        if (cases[i].want != OP_REACH_REACHABLE) {
            assert_int_equal(cp.region_count, 0);
            assert_int_equal(cp.portal_count, 0);
            assert_int_equal(cp.chunk_count, 0);
            op_box3 zero;
            memset(&zero, 0, sizeof zero);
            assert_memory_equal(&cp.bounds, &zero, sizeof zero);
        }
    }
    /* Unreachable counts every region reachable from the start, start included: the
     * bottom row spans two chunks (two regions). */
    q = req(0, 3, 0, 0);
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_UNREACHABLE);
    assert_int_equal(rr.visited, 2);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Same region: Reachable, visited 1; coarse_path [start], no portal, one chunk whose
 * bounds clip to the world (a partial chunk). */
static void test_same_region(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(10, 10, 1, 8, 8, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build_default(&w, &c, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = req(9, 9, 8, 8);
    op_reach_result rr;
    assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
    assert_int_equal(rr.status, OP_REACH_REACHABLE);
    assert_int_equal(rr.visited, 1);
    op_coarse_path_result cp;
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
    assert_int_equal(cp.status, OP_REACH_REACHABLE);
    assert_int_equal(cp.visited, 1);
    assert_int_equal(cp.region_count, 1);
    assert_int_equal(cp.portal_count, 0);
    assert_int_equal(cp.chunk_count, 1);
    assert_int_equal(cp.chunks[0], 3);
    assert_int_equal(cp.bounds.min.x, 8);
    assert_int_equal(cp.bounds.min.y, 8);
    assert_int_equal(cp.bounds.max.x, 10);
    assert_int_equal(cp.bounds.max.y, 10);
    assert_int_equal(cp.bounds.max.z, 1);
    /* A route through a partial chunk: bounds from the least origin to the greatest
     * clipped end. */
    q = req(0, 0, 9, 0);
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
    assert_int_equal(cp.chunk_count, 2);
    assert_int_equal(cp.bounds.max.x, 10);
    assert_int_equal(cp.bounds.max.y, 8);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* The corridor is the first-occurrence order of chunks on the route (a chunk can hold
 * several route regions), and its box may hold chunks not on the route. */
static void test_corridor_order(void **state)
{
    (void)state;
    /* 3x3 chunks of 3x3. A U-shaped route: down the left column, across the bottom, up
     * the right column; the middle chunk column is walled except the bottom row. */
    static const char *const rows[] = {
        "...###...",
        "...###...",
        "...###...",
        "...###...",
        "...###...",
        "...###...",
        ".........",
        ".........",
        ".........",
    };
    op_world w;
    topo_world_map(&ctx, &w, 3, 3, rows, 9);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build_default(&w, &c, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = req(0, 0, 8, 0);
    op_coarse_path_result cp;
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
    assert_int_equal(cp.status, OP_REACH_REACHABLE);
    static const uint32_t want[] = {0, 3, 6, 7, 8, 5, 2};
    assert_int_equal(cp.chunk_count, 7);
    for (int i = 0; i < 7; i++)
        assert_int_equal(cp.chunks[i], want[i]);
    assert_int_equal(cp.region_count, 7);
    assert_int_equal(cp.bounds.max.x, 9);
    assert_int_equal(cp.bounds.max.y, 9);
    /* portals[i] leads regions[i] -> regions[i + 1] and is a copy of a graph portal. */
    for (uint32_t i = 0; i < cp.portal_count; i++) {
        assert_int_equal(cp.portals[i].from.chunk, cp.regions[i].chunk);
        assert_int_equal(cp.portals[i].from.region, cp.regions[i].region);
        assert_int_equal(cp.portals[i].to.chunk, cp.regions[i + 1].chunk);
        int found = 0;
        for (uint32_t p = 0; p < g.portal_count && !found; p++)
            found = !memcmp(&g.portals[p], &cp.portals[i], sizeof cp.portals[i]);
        assert_true(found);
    }
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Random worlds: reachable and coarse_path against whole-bucket traversals written from
 * the text, and against a plain flood fill of the grid. Scratch reused, epochs wrap. */
static void test_random_queries(void **state)
{
    (void)state;
    op_rng rng = {2024};
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    for (int iter = 0; iter < 60; iter++) {
        op_lattice lat = iter % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL;
        int three_d = lat == OP_LATTICE_ORTHOGONAL && iter % 3 == 1;
        op_world_shape s = topo_shape(2 + op_rng_below(&rng, 30), 2 + op_rng_below(&rng, 30),
                                      three_d ? 1 + op_rng_below(&rng, 5) : 1,
                                      1 + op_rng_below(&rng, 8), 1 + op_rng_below(&rng, 8),
                                      three_d ? 1 + op_rng_below(&rng, 3) : 1, lat);
        op_world w;
        topo_world(&ctx, &w, s);
        topo_fill_random(&ctx, &w, F_PASS, &rng, 20 + op_rng_below(&rng, 30));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        build_default(&w, &c, &g);
        uint32_t *comp = grid_components(&w, &c);
        if (iter == 30)
            sc.epoch = UINT32_MAX - 3; /* wrap the epoch during the next queries */
        uint32_t *path = malloc((g.region_count + 1) * sizeof *path);
        uint32_t *pp = malloc((g.region_count + 1) * sizeof *pp);
        for (int k = 0; k < 40; k++) {
            op_path_request q;
            q.start = (op_coord3){(int32_t)op_rng_below(&rng, s.size[0] + 2) - 1,
                                  (int32_t)op_rng_below(&rng, s.size[1] + 2) - 1,
                                  (int32_t)op_rng_below(&rng, s.size[2])};
            q.goal = (op_coord3){(int32_t)op_rng_below(&rng, s.size[0]),
                                 (int32_t)op_rng_below(&rng, s.size[1]),
                                 (int32_t)op_rng_below(&rng, s.size[2])};
            op_reach_result rr, ref = ref_reachable(&g, q);
            assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
            assert_int_equal(rr.status, ref.status);
            assert_int_equal(rr.visited, ref.visited);
            if (rr.status == OP_REACH_REACHABLE || rr.status == OP_REACH_UNREACHABLE) {
                size_t a = (size_t)q.start.x + (size_t)q.start.y * s.size[0] +
                           (size_t)q.start.z * s.size[0] * s.size[1];
                size_t b = (size_t)q.goal.x + (size_t)q.goal.y * s.size[0] +
                           (size_t)q.goal.z * s.size[0] * s.size[1];
                assert_int_equal(rr.status == OP_REACH_REACHABLE, comp[a] == comp[b]);
            }
            op_coarse_path_result cp;
            assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
            assert_int_equal(cp.status, rr.status);
            if (cp.status != OP_REACH_REACHABLE && cp.status != OP_REACH_UNREACHABLE)
                continue;
            uint32_t si = op_region_graph_region_index(&g, op_region_graph_region_of(&g, q.start));
            uint32_t gi = op_region_graph_region_index(&g, op_region_graph_region_of(&g, q.goal));
            uint32_t len;
            uint32_t visited = ref_coarse(&g, si, gi, path, pp, &len);
            assert_int_equal(cp.visited, visited);
            if (cp.status == OP_REACH_UNREACHABLE) {
                assert_int_equal(len, 0);
                continue;
            }
            assert_int_equal(cp.region_count, len);
            assert_int_equal(cp.portal_count, len - 1);
            for (uint32_t i = 0; i < len; i++)
                assert_int_equal(op_region_graph_region_index(&g, cp.regions[i]), path[i]);
            for (uint32_t i = 0; i + 1 < len; i++)
                assert_memory_equal(&cp.portals[i], &g.portals[pp[i]], sizeof cp.portals[i]);
            /* corridor: first occurrence; bounds: least origin to greatest clipped end */
            uint32_t n = 0;
            int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {0, 0, 0};
            for (uint32_t i = 0; i < len; i++) {
                uint32_t k2 = cp.regions[i].chunk, seen = 0;
                for (uint32_t j = 0; j < i; j++)
                    seen |= cp.regions[j].chunk == k2;
                if (seen)
                    continue;
                assert_true(n < cp.chunk_count);
                assert_int_equal(cp.chunks[n], k2);
                n++;
                op_coord3 o = op_world_chunk_origin(&w, k2);
                int64_t org[3] = {o.x, o.y, o.z};
                for (int a = 0; a < 3; a++) {
                    int64_t end = org[a] + s.chunk[a];
                    if (end > s.size[a])
                        end = s.size[a];
                    lo[a] = org[a] < lo[a] ? org[a] : lo[a];
                    hi[a] = end > hi[a] ? end : hi[a];
                }
            }
            assert_int_equal(cp.chunk_count, n);
            assert_int_equal(cp.bounds.min.x, lo[0]);
            assert_int_equal(cp.bounds.min.y, lo[1]);
            assert_int_equal(cp.bounds.min.z, lo[2]);
            assert_int_equal(cp.bounds.max.x, hi[0]);
            assert_int_equal(cp.bounds.max.y, hi[1]);
            assert_int_equal(cp.bounds.max.z, hi[2]);
        }
        free(path);
        free(pp);
        free(comp);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
    op_region_graph_scratch_free(&sc);
}

/* Ties resolve by CSR (portal) order: two equally short routes around a block. */
static void test_tie_breaking(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "......",
        "......",
        "..##..",
        "..##..",
        "......",
        "......",
    };
    op_world w;
    topo_world_map(&ctx, &w, 2, 2, rows, 6);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build_default(&w, &c, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = req(0, 0, 5, 5);
    op_coarse_path_result cp;
    assert_int_equal(op_coarse_path(&ctx, &g, &q, &sc, &cp), OP_OK);
    /* From chunk 0 the first exits popped are on +y (the flood runs up column 0 first,
     * then back along row 1 whose +x exit is popped first)... whatever the order, the
     * route must follow the first portal in bucket order at every step. */
    assert_int_equal(cp.status, OP_REACH_REACHABLE);
    uint32_t path[16], pp[16], len;
    uint32_t si = op_region_graph_region_index(&g, op_region_graph_region_of(&g, q.start));
    uint32_t gi = op_region_graph_region_index(&g, op_region_graph_region_of(&g, q.goal));
    uint32_t visited = ref_coarse(&g, si, gi, path, pp, &len);
    assert_int_equal(cp.visited, visited);
    assert_int_equal(cp.region_count, len);
    assert_int_equal(len, 5);
    for (uint32_t i = 0; i < len; i++)
        assert_int_equal(op_region_graph_region_index(&g, cp.regions[i]), path[i]);
    /* The first hop is the target of chunk 0's first CSR entry. */
    assert_int_equal(op_region_graph_region_index(&g, cp.regions[1]), g.adj_target[g.adj_start[0]]);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* precheck_path (§10.12): NoGraph, GraphStale (versions, class, provider, shape),
 * reachable's verdict mapped across; only Unreachable rules out a path; an unmarked
 * field write keeps the graph fresh (topology.md "Field edits do not make a graph
 * stale"). */
static void dummy_each(const op_transition_provider *self, const op_world *world,
                       op_chunk_key chunk, op_transition_sink sink, void *user)
{
    (void)self;
    (void)world;
    (void)chunk;
    (void)sink;
    (void)user;
}

static const op_transition_provider_ops dummy_ops = {"dummy", dummy_each};

static void test_precheck(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "........",
        "........",
        "...###..",
        "...#.#..",
        "...###..",
        "........",
    };
    op_world w;
    topo_world_map(&ctx, &w, 4, 3, rows, 6);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_precheck_status ps;
    op_path_request sealed = req(0, 0, 4, 3), open = req(0, 0, 7, 5);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc,
                                      OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_NO_GRAPH);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc,
                                      OP_MISSING_REPORT_INDETERMINATE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE);
    assert_true(op_precheck_rules_out_path(ps));
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &open, &sc,
                                      OP_MISSING_ASSUME_IMPASSABLE, &ps),
                     OP_OK);
    assert_int_equal(ps, OP_PRECHECK_REACHABLE);
    assert_false(op_precheck_rules_out_path(ps));
    op_path_request bad = req(3, 2, 0, 0);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &bad, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_INVALID_START);
    bad = req(0, 0, 3, 2);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &bad, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_INVALID_GOAL);
    for (int s2 = OP_PRECHECK_REACHABLE; s2 <= OP_PRECHECK_NO_GRAPH; s2++)
        assert_int_equal(op_precheck_rules_out_path((op_precheck_status)s2),
                         s2 == OP_PRECHECK_UNREACHABLE);

    /* The caveat: open the wall with a raw write; the graph stays fresh and the precheck
     * still says Unreachable. */
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){3, 3, 0}, 1), OP_OK);
    assert_true(op_region_graph_is_fresh_for(&w, &g, &c));
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE);
    /* Marking the chunk dirty makes it GraphStale; a rebuild answers Reachable. */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, op_world_chunk_of(&w, (op_coord3){3, 3, 0})),
                     OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_REACHABLE);
    /* Another class, another provider: GraphStale. */
    op_movement_class other;
    op_movement_class_clear(&other);
    assert_int_equal(op_movement_pass_push(&ctx, &other, OP_PASS_NOT_ZERO, F_PASS), OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &other, NULL, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    op_transition_provider prov = {&dummy_ops, NULL, 0, 0};
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &prov, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    /* A provider with ops NULL is AdjacentTransitions, like NULL. */
    op_transition_provider none = {NULL, &w, 7, 0};
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &none, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_REACHABLE);
    /* A graph cleared is NoGraph again. */
    op_region_graph_clear(&g);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, NULL, &sealed, &sc, 0, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_NO_GRAPH);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Reserved scratch makes queries allocation-free. */
static int alloc_calls;
static void *count_malloc(void *u, size_t n)
{
    (void)u;
    alloc_calls++;
    return malloc(n);
}
static void *count_realloc(void *u, void *p, size_t n)
{
    (void)u;
    alloc_calls++;
    return realloc(p, n);
}
static void count_free(void *u, void *p)
{
    (void)u;
    free(p);
}

static void test_scratch_reserve(void **state)
{
    (void)state;
    op_allocator a = {count_malloc, count_realloc, count_free, NULL};
    op_ctx cx;
    assert_int_equal(op_ctx_init_with_allocator(&cx, OP_ISA_AUTO, &a), OP_OK);
    op_world w;
    topo_world(&cx, &w, topo_shape(64, 64, 1, 16, 16, 1, OP_LATTICE_ORTHOGONAL));
    op_rng rng = {9};
    topo_fill_random(&cx, &w, F_PASS, &rng, 25);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    op_region_graph_init(&cx, &g);
    assert_int_equal(op_region_graph_build(&cx, &w, &c, NULL, &g, NULL), OP_OK);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&cx, &sc);
    assert_int_equal(op_region_graph_scratch_reserve(&cx, &sc, &g), OP_OK);
    int before = alloc_calls;
    for (int i = 0; i < 50; i++) {
        op_path_request q = req((int32_t)op_rng_below(&rng, 64), (int32_t)op_rng_below(&rng, 64),
                                (int32_t)op_rng_below(&rng, 64), (int32_t)op_rng_below(&rng, 64));
        op_reach_result rr;
        op_coarse_path_result cp;
        assert_int_equal(op_reachable(&cx, &g, &q, &sc, &rr), OP_OK);
        assert_int_equal(op_coarse_path(&cx, &g, &q, &sc, &cp), OP_OK);
    }
    assert_int_equal(alloc_calls, before);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
    op_ctx_free(&cx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_numbers),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_same_region),
        cmocka_unit_test(test_corridor_order),
        cmocka_unit_test(test_random_queries),
        cmocka_unit_test(test_tie_breaking),
        cmocka_unit_test(test_precheck),
        cmocka_unit_test(test_scratch_reserve),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
