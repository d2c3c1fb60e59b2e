/* Local topology (topology.md "Behavior", "Public Surface"; supplement §10.2-10.5,
 * §10.11): ids in increasing local tile order then LIFO flood order, exits at pop time in
 * face order, exits only where a neighbour chunk exists, degenerate axes, one-tile-thick
 * chunks, hex seams, partial chunks, region summaries, the checked accessor, the open
 * template, and the standalone local build with InvalidChunk. */
#include "topo_testlib.h"

static void build(op_world *w, op_movement_class *c, op_region_graph *g, int templ)
{
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.use_open_template = templ;
    op_region_graph_init(&ctx, g);
    assert_int_equal(op_region_graph_build(&ctx, w, c, &s, g, NULL), OP_OK);
}

/* One chunk, hand-flooded: §10.2's pop order decides ids and summaries. */
static void test_flood_order_by_hand(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "..#.",
        ".#..",
        "...#",
        "#..#",
    };
    op_world w;
    topo_world_map(&ctx, &w, 4, 4, rows, 4);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build(&w, &c, &g, 1);
    const op_local_topology *t = op_region_graph_local(&g, 0);
    assert_non_null(t);
    /* Every passable tile is one component (the (3,0) tile joins through (3,1)). */
    assert_int_equal(t->region_count, 1);
    assert_int_equal(t->regions[0].tile_count, 11);
    assert_int_equal(t->exit_count, 0); /* a single-chunk world has no exits */
    assert_int_equal(t->regions[0].bounds.min.x, 0);
    assert_int_equal(t->regions[0].bounds.max.x, 4);
    assert_int_equal(t->regions[0].bounds.max.y, 4);
    assert_int_equal(t->labels[2], 0);
    assert_int_equal(t->labels[5], 0);
    assert_int_equal(t->labels[0], 1);
    op_region_graph_free(&g);
    op_world_free(&w);

    /* Ids follow the first tile of each component in local order. */
    static const char *const rows2[] = {
        "#.#.",
        "..#.",
        "####",
        ".#..",
    };
    topo_world_map(&ctx, &w, 4, 4, rows2, 4);
    build(&w, &c, &g, 1);
    t = op_region_graph_local(&g, 0);
    assert_int_equal(t->region_count, 4);
    /* tile 1 (1,0) seeds 1; tile 3 (3,0) seeds 2; tile 12 (0,3) seeds 3; (2,3) seeds 4 */
    static const uint32_t want[16] = {0, 1, 0, 2, 1, 1, 0, 2, 0, 0, 0, 0, 3, 0, 4, 4};
    for (int i = 0; i < 16; i++)
        assert_int_equal(t->labels[i], want[i]);
    assert_int_equal(t->regions[0].tile_count, 3);
    assert_int_equal(t->regions[3].tile_count, 2);
    assert_int_equal(t->regions[0].bounds.min.x, 0);
    assert_int_equal(t->regions[0].bounds.min.y, 0);
    assert_int_equal(t->regions[0].bounds.max.x, 2);
    assert_int_equal(t->regions[0].bounds.max.y, 2);
    /* The checked accessor (1-based; NULL for 0 and out of range). */
    assert_ptr_equal(op_local_topology_region(t, 1), &t->regions[0]);
    assert_ptr_equal(op_local_topology_region(t, 4), &t->regions[3]);
    assert_null(op_local_topology_region(t, 0));
    assert_null(op_local_topology_region(t, 5));
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Two 2x2 chunks side by side, all open: exits at pop time (§10.3) in LIFO pop order. */
static void test_exit_pop_order_by_hand(void **state)
{
    (void)state;
    static const char *const rows[] = {"....", "...."};
    for (int templ = 0; templ < 2; templ++) {
        op_world w;
        topo_world_map(&ctx, &w, 2, 2, rows, 2);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        build(&w, &c, &g, templ);
        /* chunk 0: pops (0,0) (0,1) (1,1) (1,0); +x exits at (1,1) then (1,0). */
        const op_local_topology *t0 = op_region_graph_local(&g, 0);
        assert_int_equal(t0->exit_count, 2);
        assert_int_equal(t0->exits[0].local_tile, 3);
        assert_int_equal(t0->exits[1].local_tile, 1);
        assert_int_equal(t0->exits[0].face, OP_FACE_POS_X);
        assert_int_equal(t0->exits[0].target_chunk, 1);
        assert_int_equal(t0->regions[0].exit_count, 2);
        /* chunk 1: pops (2,0) (2,1) (3,1) (3,0); -x exits at (2,0) then (2,1). */
        const op_local_topology *t1 = op_region_graph_local(&g, 1);
        assert_int_equal(t1->exit_count, 2);
        assert_int_equal(t1->exits[0].local_tile, 0);
        assert_int_equal(t1->exits[1].local_tile, 2);
        assert_int_equal(t1->exits[0].coord.x, 2);
        assert_int_equal(t1->exits[1].coord.y, 1);
        assert_int_equal(t1->exits[1].face, OP_FACE_NEG_X);
        /* Portals (§10.6): chunk 0's exits in order, then chunk 1's; two open tile pairs
         * give two portals each way, nothing merged. */
        assert_int_equal(g.portal_count, 4);
        assert_int_equal(g.portals[0].from_coord.x, 1);
        assert_int_equal(g.portals[0].from_coord.y, 1);
        assert_int_equal(g.portals[0].to_coord.x, 2);
        assert_int_equal(g.portals[0].to_coord.y, 1);
        assert_int_equal(g.portals[1].from_coord.y, 0);
        assert_int_equal(g.portals[2].from.chunk, 1);
        assert_int_equal(g.portals[2].to.chunk, 0);
        assert_int_equal(g.portals[2].from_coord.y, 0);
        assert_int_equal(g.portals[3].from_coord.y, 1);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
}

/* A tile on two (three) faces gives two (three) exits, in -x, +x, -y, +y, -z, +z order;
 * a chunk one tile thick gives both faces of that axis; no exit where the grid ends. */
static void test_exit_faces(void **state)
{
    (void)state;
    op_world w;
    /* 3x3x3 chunks of 1x1x1: the middle chunk's tile is on all six faces. */
    topo_world(&ctx, &w, topo_shape(3, 3, 3, 1, 1, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build(&w, &c, &g, 1);
    const op_local_topology *mid = op_region_graph_local(&g, 13);
    assert_int_equal(mid->exit_count, 6);
    for (int f = 0; f < 6; f++)
        assert_int_equal(mid->exits[f].face, f);
    static const uint32_t tgt[6] = {12, 14, 10, 16, 4, 22};
    for (int f = 0; f < 6; f++)
        assert_int_equal(mid->exits[f].target_chunk, tgt[f]);
    /* The corner chunk (0,0,0) has neighbours only on +x, +y, +z. */
    const op_local_topology *corner = op_region_graph_local(&g, 0);
    assert_int_equal(corner->exit_count, 3);
    assert_int_equal(corner->exits[0].face, OP_FACE_POS_X);
    assert_int_equal(corner->exits[1].face, OP_FACE_POS_Y);
    assert_int_equal(corner->exits[2].face, OP_FACE_POS_Z);
    op_region_graph_free(&g);
    op_world_free(&w);

    /* A 2D world in 2x2 chunks: corner tiles of an inner chunk give two exits. */
    topo_world(&ctx, &w, topo_shape(6, 6, 1, 2, 2, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    build(&w, &c, &g, 0);
    mid = op_region_graph_local(&g, 4);
    assert_int_equal(mid->exit_count, 8);
    /* pop order (2,2) (2,3) (3,3) (3,2): -x,-y | -x,+y | +x,+y | +x,-y */
    static const uint8_t faces[8] = {0, 2, 0, 3, 1, 3, 1, 2};
    for (int i = 0; i < 8; i++)
        assert_int_equal(mid->exits[i].face, faces[i]);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Degenerate axes and single chunks create no synthetic exits. */
static void test_degenerate_axes(void **state)
{
    (void)state;
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    const op_world_shape shapes[] = {
        topo_shape(1, 1, 1, 1, 1, 1, OP_LATTICE_ORTHOGONAL),
        topo_shape(16, 1, 1, 16, 1, 1, OP_LATTICE_ORTHOGONAL),
        topo_shape(1, 9, 1, 4, 4, 4, OP_LATTICE_ORTHOGONAL),
        topo_shape(5, 1, 7, 5, 1, 7, OP_LATTICE_ORTHOGONAL),
        topo_shape(7, 7, 1, 8, 8, 1, OP_LATTICE_AXIAL_HEX),
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        op_world w;
        topo_world(&ctx, &w, shapes[i]);
        assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
        op_region_graph g;
        build(&w, &c, &g, 1);
        uint32_t exits = 0;
        for (uint32_t k = 0; k < g.slot_count; k++)
            exits += g.locals[k].exit_count;
        if (w.chunk_count == 1)
            assert_int_equal(exits, 0);
        if (i == 2) {
            /* 1 x 9 x 1 in 4x4x4 chunks: three chunks along y, exits only on y faces. */
            assert_int_equal(w.chunk_count, 3);
            for (uint32_t k = 0; k < 3; k++)
                for (uint32_t e = 0; e < g.locals[k].exit_count; e++)
                    assert_true(g.locals[k].exits[e].face == OP_FACE_NEG_Y ||
                                g.locals[k].exits[e].face == OP_FACE_POS_Y);
            assert_int_equal(g.locals[0].exit_count, 1);
            assert_int_equal(g.locals[1].exit_count, 2);
            assert_int_equal(g.locals[2].exit_count, 1);
            assert_int_equal(g.portal_count, 4);
        }
        ref_graph r;
        ref_graph_build(&w, &c, &r);
        expect_graph_equals_ref(&g, &r);
        ref_graph_free(&r);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
}

/* Hex (§10.4): steps (+1,0), (-1,0), (0,+1), (0,-1), (+1,-1), (-1,+1); the face names the
 * step, the target is the landing chunk; only a corner tile reaches a diagonal chunk. */
static void test_hex_seams(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(4, 4, 1, 2, 2, 1, OP_LATTICE_AXIAL_HEX));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build(&w, &c, &g, 0);
    /* Chunk 1 = (1,0), tiles x 2..3, y 0..1. Tile (2,1) is its corner next to chunk 2 =
     * (0,1): step (-1,+1) lands at (1,2) in chunk 2, the diagonal seam. */
    const op_local_topology *t = op_region_graph_local(&g, 1);
    int saw_diagonal = 0, saw_seam_face = 0;
    for (uint32_t i = 0; i < t->exit_count; i++) {
        const op_boundary_exit *e = &t->exits[i];
        if (e->face == OP_FACE_NEG_X_POS_Y && e->target_chunk == 2) {
            assert_int_equal(e->coord.x, 2);
            assert_int_equal(e->coord.y, 1);
            saw_diagonal = 1;
        }
        /* (-1,+1) from (2,0) lands at (1,1), chunk 0: the seam face, the -x target. */
        if (e->face == OP_FACE_NEG_X_POS_Y && e->target_chunk == 0) {
            assert_int_equal(e->coord.x, 2);
            assert_int_equal(e->coord.y, 0);
            saw_seam_face = 1;
        }
    }
    assert_true(saw_diagonal);
    assert_true(saw_seam_face);
    /* A tile's exits come in step order: (2,0) exits -x then (-1,+1). */
    assert_int_equal(t->exits[0].coord.x, 2);
    assert_int_equal(t->exits[0].face, OP_FACE_NEG_X);
    assert_int_equal(t->exits[1].face, OP_FACE_NEG_X_POS_Y);
    ref_graph r;
    ref_graph_build(&w, &c, &r);
    expect_graph_equals_ref(&g, &r);
    ref_graph_free(&r);
    /* Portals across the diagonal seam exist both ways. */
    int diag_portals = 0;
    for (uint32_t i = 0; i < g.portal_count; i++)
        if ((g.portals[i].from.chunk == 1 && g.portals[i].to.chunk == 2) ||
            (g.portals[i].from.chunk == 2 && g.portals[i].to.chunk == 1))
            diag_portals++;
    assert_int_equal(diag_portals, 2);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Partial chunks (§10.11): the grid is ceil(size / chunk); out-of-world tiles are
 * impassable with the same local indices. */
static void test_partial_chunks(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(10, 7, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(w.chunks[0], 3);
    assert_int_equal(w.chunks[1], 2);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_region_graph g;
    build(&w, &c, &g, 1);
    /* Chunk 5 = (2,1): x 8..9, y 4..6 in the world: 2 x 3 tiles. */
    const op_local_topology *t = op_region_graph_local(&g, 5);
    assert_int_equal(t->region_count, 1);
    assert_int_equal(t->regions[0].tile_count, 6);
    assert_int_equal(t->labels[2], 0); /* (10,4) is outside the world */
    assert_int_equal(t->labels[4 * 3], 0);
    assert_int_equal(t->regions[0].bounds.max.x, 10);
    assert_int_equal(t->regions[0].bounds.max.y, 7);
    ref_graph r;
    ref_graph_build(&w, &c, &r);
    expect_graph_equals_ref(&g, &r);
    ref_graph_free(&r);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* build_local_chunk_topology on its own: InvalidChunk, counts, captured version. */
static void test_local_build(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(8, 8, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    op_rng rng = {5};
    topo_fill_random(&ctx, &w, F_PASS, &rng, 35);
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 3), OP_OK);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_local_topology t;
    op_local_topology_init(&ctx, &t);
    op_local_topology_scratch s;
    op_local_topology_scratch_init(&ctx, &s);
    op_topology_build_result res;
    for (uint32_t k = 0; k < 4; k++) {
        assert_int_equal(op_local_topology_build(&ctx, &w, &c, k, &s, &t, &res), OP_OK);
        assert_int_equal(res.status, OP_TOPOLOGY_BUILT);
        assert_int_equal(res.region_count, t.region_count);
        assert_int_equal(res.boundary_exit_count, t.exit_count);
        assert_int_equal(res.topology_version_sum, k == 3 ? 1 : 0);
        assert_int_equal(t.topology_version, k == 3 ? 1 : 0);
        ref_local r;
        ref_label_chunk(&w, &c, k, &r);
        expect_local_equals_ref(&t, &r, 16);
        uint64_t tiles = 0;
        for (uint32_t i = 0; i < r.nregions; i++)
            tiles += r.regions[i].count;
        assert_int_equal(res.passable_tile_count, tiles);
        ref_local_free(&r);
    }
    /* The build does not mutate versions or dirty flags. */
    assert_int_equal(op_world_topology_version(&w, 3), 1);
    assert_int_equal(w.topology_dirty[3], 1);
    assert_int_equal(op_local_topology_build(&ctx, &w, &c, 4, &s, &t, &res), OP_OK);
    assert_int_equal(res.status, OP_TOPOLOGY_INVALID_CHUNK);
    assert_int_equal(res.region_count, 0);
    assert_int_equal(t.region_count, 0);
    assert_int_equal(t.exit_count, 0);
    op_local_topology_free(&t);
    op_local_topology_scratch_free(&s);
    op_world_free(&w);
}

/* Random worlds of every lattice and chunk shape against the reference flood, with and
 * without the open template. */
static void test_random_against_reference(void **state)
{
    (void)state;
    op_rng rng = {77};
    for (int iter = 0; iter < 120; iter++) {
        op_lattice lat = iter % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL;
        int three_d = lat == OP_LATTICE_ORTHOGONAL && iter % 3 == 1;
        op_world_shape s = topo_shape(1 + op_rng_below(&rng, 23), 1 + op_rng_below(&rng, 23),
                                      three_d ? 1 + op_rng_below(&rng, 6) : 1,
                                      1 + op_rng_below(&rng, 9), 1 + op_rng_below(&rng, 9),
                                      three_d ? 1 + op_rng_below(&rng, 4) : 1, lat);
        op_world w;
        topo_world(&ctx, &w, s);
        uint32_t walls = iter % 5 == 0 ? 0 : op_rng_below(&rng, 60);
        topo_fill_random(&ctx, &w, F_PASS, &rng, walls);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        ref_graph r;
        ref_graph_build(&w, &c, &r);
        for (int templ = 0; templ < 2; templ++) {
            op_region_graph g;
            build(&w, &c, &g, templ);
            expect_graph_equals_ref(&g, &r);
            op_region_graph_free(&g);
        }
        ref_graph_free(&r);
        op_world_free(&w);
    }
}

/* Chunks without a neighbour chunk take the grid-labelling kernel (no exits, no pop
 * order to keep): the same graph as the flood's, labels and summaries alike. */
static void test_single_chunk_kernel(void **state)
{
    (void)state;
    op_rng rng = {808};
    for (int iter = 0; iter < 60; iter++) {
        op_lattice lat = iter % 3 == 2 ? OP_LATTICE_AXIAL_HEX : OP_LATTICE_ORTHOGONAL;
        int three_d = lat == OP_LATTICE_ORTHOGONAL && iter % 3 == 1;
        uint32_t sx = 1 + op_rng_below(&rng, 90), sy = 1 + op_rng_below(&rng, 40),
                 sz = three_d ? 1 + op_rng_below(&rng, 6) : 1;
        /* one chunk covering the world, sometimes larger than it (a partial chunk) */
        op_world_shape s = topo_shape(sx, sy, sz, sx + op_rng_below(&rng, 3), sy + op_rng_below(&rng, 3),
                                      three_d ? sz + op_rng_below(&rng, 2) : 1, lat);
        op_world w;
        topo_world(&ctx, &w, s);
        topo_fill_random(&ctx, &w, F_PASS, &rng, op_rng_below(&rng, 70));
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        ref_graph r;
        ref_graph_build(&w, &c, &r);
        for (int gl = 0; gl < 2; gl++) {
            op_region_graph_settings st;
            op_region_graph_settings_defaults(&st);
            st.use_grid_label = gl;
            st.use_open_template = iter & 1;
            op_region_graph g;
            op_region_graph_init(&ctx, &g);
            assert_int_equal(op_region_graph_build(&ctx, &w, &c, &st, &g, NULL), OP_OK);
            expect_graph_equals_ref(&g, &r);
            op_region_graph_free(&g);
        }
        ref_graph_free(&r);
        op_world_free(&w);
    }
}

/* Chunks of more than 65535 padded tiles take the 32-bit flood (the others the 16-bit
 * one): the same labels, exits and portals as the reference. */
static void test_large_chunks(void **state)
{
    (void)state;
    op_rng rng = {4711};
    const op_world_shape shapes[] = {
        topo_shape(300, 290, 1, 260, 260, 1, OP_LATTICE_ORTHOGONAL),
        topo_shape(280, 270, 1, 256, 258, 1, OP_LATTICE_AXIAL_HEX),
        topo_shape(60, 55, 40, 48, 48, 28, OP_LATTICE_ORTHOGONAL),
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int walls = 2; walls <= 40; walls += 38) {
            op_world w;
            topo_world(&ctx, &w, shapes[i]);
            topo_fill_random(&ctx, &w, F_PASS, &rng, (uint32_t)walls);
            op_movement_class c;
            op_movement_class_unit_field(&c, F_PASS);
            ref_graph r;
            ref_graph_build(&w, &c, &r);
            op_region_graph g;
            build(&w, &c, &g, 1);
            assert_true((uint64_t)(shapes[i].chunk[0] + 2) * (shapes[i].chunk[1] + 2) > 65535 ||
                        shapes[i].chunk[2] > 1);
            expect_graph_equals_ref(&g, &r);
            op_region_graph_free(&g);
            ref_graph_free(&r);
            op_world_free(&w);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flood_order_by_hand),
        cmocka_unit_test(test_exit_pop_order_by_hand),
        cmocka_unit_test(test_exit_faces),
        cmocka_unit_test(test_degenerate_axes),
        cmocka_unit_test(test_hex_seams),
        cmocka_unit_test(test_partial_chunks),
        cmocka_unit_test(test_local_build),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_single_chunk_kernel),
        cmocka_unit_test(test_large_chunks),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
