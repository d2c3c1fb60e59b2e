/* The stair provider (topology.md "Stairs", "Transition Providers", "Field edits do not
 * make a graph stale"): a foot's landing one step in its direction and one level up,
 * both directions each from its origin's chunk, the limits (outside the world; sideways
 * and up across two chunk boundaries; sideways only below the top layer is fine), the
 * per-class label filter, the enumeration against a reference written from the text,
 * reachability against a flood with stair edges, stamps (null instance, revision 0, the
 * field as the type), and the stale-graph caveat for a placed stair. */
#include "topo_testlib.h"

static const int stair_dx[5] = {0, 1, -1, 0, 0}, stair_dy[5] = {0, 0, 0, 1, -1};

static void stair_world(op_world *w, op_world_shape s)
{
    topo_world(&ctx, w, s);
    assert_int_equal(op_world_add_field(&ctx, w, F_STAIR, OP_FIELD_I8), OP_OK);
}

static int stair_at(const op_world *w, int64_t x, int64_t y, int64_t z)
{
    int64_t v;
    assert_int_equal(op_world_get(&ctx, w, F_STAIR, (op_coord3){(int32_t)x, (int32_t)y, (int32_t)z}, &v),
                     OP_OK);
    return v >= 1 && v <= 4 ? (int)v : 0;
}

/* Same chunk or one axis of the chunk grid apart by one. */
static int face_near(const op_world *w, op_coord3 a, op_coord3 b)
{
    int64_t ka[3], kb[3];
    ref_chunk3(w, a, ka);
    ref_chunk3(w, b, kb);
    int64_t d = 0;
    for (int i = 0; i < 3; i++)
        d += ka[i] > kb[i] ? ka[i] - kb[i] : kb[i] - ka[i];
    return d <= 1;
}

/* The reference enumeration of one chunk, from the text: up edges of its feet in local
 * tile order, then down edges landing in it by foot z, y, x. */
static void ref_stairs(const op_world *w, op_chunk_key chunk, ref_edges *out)
{
    const op_world_shape *s = &w->shape;
    const op_coord3 o = op_world_chunk_origin(w, chunk);
    for (uint32_t lz = 0; lz < s->chunk[2]; lz++)
        for (uint32_t ly = 0; ly < s->chunk[1]; ly++)
            for (uint32_t lx = 0; lx < s->chunk[0]; lx++) {
                op_coord3 f = {o.x + (int32_t)lx, o.y + (int32_t)ly, o.z + (int32_t)lz};
                if (!topo_in(s, f.x, f.y, f.z))
                    continue;
                int d = stair_at(w, f.x, f.y, f.z);
                if (!d)
                    continue;
                op_coord3 l = {f.x + stair_dx[d], f.y + stair_dy[d], f.z + 1};
                if (topo_in(s, l.x, l.y, l.z) && face_near(w, f, l))
                    ref_edges_sink(out, f, l);
            }
    for (uint32_t z = 0; z < s->size[2]; z++)
        for (uint32_t y = 0; y < s->size[1]; y++)
            for (uint32_t x = 0; x < s->size[0]; x++) {
                int d = stair_at(w, x, y, z);
                if (!d)
                    continue;
                op_coord3 f = {(int32_t)x, (int32_t)y, (int32_t)z};
                op_coord3 l = {f.x + stair_dx[d], f.y + stair_dy[d], f.z + 1};
                if (topo_in(s, l.x, l.y, l.z) && op_world_chunk_of(w, l) == chunk && face_near(w, f, l))
                    ref_edges_sink(out, l, f);
            }
}

static void random_stairs(op_world *w, op_rng *r, uint32_t pct)
{
    const op_world_shape *s = &w->shape;
    for (uint32_t z = 0; z < s->size[2]; z++)
        for (uint32_t y = 0; y < s->size[1]; y++)
            for (uint32_t x = 0; x < s->size[0]; x++)
                if (op_rng_below(r, 100) < pct)
                    /* values outside 1..4 are None too */
                    assert_int_equal(op_world_set(&ctx, w, F_STAIR, (op_coord3){(int32_t)x, (int32_t)y, (int32_t)z},
                                                  (int64_t)op_rng_below(r, 7) - 1),
                                     OP_OK);
}

static void test_enumeration(void **state)
{
    (void)state;
    op_rng r = {4711};
    long edges = 0;
    for (int iter = 0; iter < 40; iter++) {
        op_world_shape s = topo_shape(3 + op_rng_below(&r, 14), 3 + op_rng_below(&r, 14),
                                      1 + op_rng_below(&r, 6), 1 + op_rng_below(&r, 6),
                                      1 + op_rng_below(&r, 6), 1 + op_rng_below(&r, 3),
                                      OP_LATTICE_ORTHOGONAL);
        op_world w;
        stair_world(&w, s);
        random_stairs(&w, &r, 30);
        op_transition_provider p = op_stair_transitions(F_STAIR);
        assert_ptr_equal(p.ops, &op_stair_transitions_ops);
        assert_null(p.instance);
        assert_int_equal(p.revision, 0);
        assert_int_equal(p.type_arg, F_STAIR);
        for (op_chunk_key k = 0; k < w.chunk_count; k++) {
            ref_edges got, want;
            memset(&got, 0, sizeof got);
            memset(&want, 0, sizeof want);
            p.ops->for_each_transition(&p, &w, k, ref_edges_sink, &got);
            ref_stairs(&w, k, &want);
            assert_int_equal(got.n, want.n);
            for (uint32_t i = 0; i < got.n; i++) {
                assert_memory_equal(&got.from[i], &want.from[i], sizeof got.from[i]);
                assert_memory_equal(&got.to[i], &want.to[i], sizeof got.to[i]);
                /* the origin lies in the enumerated chunk, the landing one level away */
                assert_int_equal(op_world_chunk_of(&w, got.from[i]), k);
                assert_int_equal(abs(got.to[i].z - got.from[i].z), 1);
            }
            edges += got.n;
            free(got.from);
            free(got.to);
            free(want.from);
            free(want.to);
        }
        op_world_free(&w);
    }
    print_message("stair edges compared: %ld\n", edges);
    assert_true(edges > 1000);
}

/* The text's cases by hand: 8 x 8 x 4 in chunks of 4 x 4 x 2. */
static void test_limits(void **state)
{
    (void)state;
    op_world w;
    stair_world(&w, topo_shape(8, 8, 4, 4, 4, 2, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    op_transition_provider p = op_stair_transitions(F_STAIR);
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    /* a: inside one chunk: foot (1,1,0) +x, landing (2,1,1). */
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){1, 1, 0}, OP_STAIR_POS_X);
    /* b: up across the top layer of chunk 0 only: foot (1,2,1) +y, landing (1,3,2) in the
     *    +z neighbour chunk 4. */
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){1, 2, 1}, OP_STAIR_POS_Y);
    /* c: sideways only: foot (3,1,0) +x, landing (4,1,1) in the +x neighbour chunk 1,
     *    below the top layer of chunk 0. */
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){3, 1, 0}, OP_STAIR_POS_X);
    /* d: sideways and up at once: foot (3,2,1) +x, landing (4,2,2): chunk 5, two
     *    boundaries: nothing. */
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){3, 2, 1}, OP_STAIR_POS_X);
    /* e: landing outside the world: foot (0,0,3) (top layer), foot (0,5,0) -x. */
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){0, 0, 3}, OP_STAIR_POS_X);
    op_world_set(&ctx, &w, F_STAIR, (op_coord3){0, 5, 0}, OP_STAIR_NEG_X);
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = &p;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    /* Provider portals are those whose step is not a face step. */
    int found[4][2] = {{0}};
    uint32_t extra = 0;
    for (uint32_t i = 0; i < g.portal_count; i++) {
        const op_region_portal *q = &g.portals[i];
        int dx = abs(q->to_coord.x - q->from_coord.x), dy = abs(q->to_coord.y - q->from_coord.y),
            dz = abs(q->to_coord.z - q->from_coord.z);
        if (dx + dy + dz == 1)
            continue;
        extra++;
        static const op_coord3 feet[4] = {{1, 1, 0}, {1, 2, 1}, {3, 1, 0}, {3, 2, 1}};
        for (int k = 0; k < 4; k++) {
            if (q->from_coord.x == feet[k].x && q->from_coord.y == feet[k].y && q->from_coord.z == feet[k].z) {
                found[k][0]++;
                /* up: from the foot's chunk, face by the dominant axis (tie x, then y: the
                 * step (1, 0, 1) has face +x) */
                assert_int_equal(q->from.chunk, op_world_chunk_of(&w, feet[k]));
            }
            if (q->to_coord.x == feet[k].x && q->to_coord.y == feet[k].y && q->to_coord.z == feet[k].z) {
                found[k][1]++;
                assert_int_equal(q->from.chunk, op_world_chunk_of(&w, q->from_coord));
            }
        }
    }
    assert_int_equal(extra, 6);
    assert_true(found[0][0] == 1 && found[0][1] == 1); /* a: both directions, chunk 0 */
    assert_true(found[1][0] == 1 && found[1][1] == 1); /* b: up from 0, down from 4 */
    assert_true(found[2][0] == 1 && found[2][1] == 1); /* c: up from 0, down from 1 */
    assert_true(found[3][0] == 0 && found[3][1] == 0); /* d: nothing */
    /* b's down edge comes from chunk 4 (the +z neighbour), c's from chunk 1. */
    for (uint32_t i = 0; i < g.portal_count; i++) {
        const op_region_portal *q = &g.portals[i];
        if (q->to_coord.x == 1 && q->to_coord.y == 2 && q->to_coord.z == 1 && q->from_coord.y == 3) {
            assert_int_equal(q->from.chunk, 4);
            assert_int_equal(q->face, OP_FACE_NEG_Y);
        }
        if (q->to_coord.x == 3 && q->to_coord.y == 1 && q->to_coord.z == 0 && q->from_coord.x == 4) {
            assert_int_equal(q->from.chunk, 1);
            assert_int_equal(q->face, OP_FACE_NEG_X);
        }
        if (q->from_coord.x == 1 && q->from_coord.y == 1 && q->from_coord.z == 0 && q->to_coord.z == 1)
            assert_int_equal(q->face, OP_FACE_POS_X);
    }
    /* Per class: a class that cannot stand on the landing of a gets neither direction. */
    assert_int_equal(op_world_add_field(&ctx, &w, F_BLOCK, OP_FIELD_U8), OP_OK);
    op_world_set(&ctx, &w, F_BLOCK, (op_coord3){2, 1, 1}, 1);
    op_movement_class no_block;
    op_movement_class_clear(&no_block);
    op_movement_pass_push(&ctx, &no_block, OP_PASS_ALL_OF, 2);
    op_movement_pass_push(&ctx, &no_block, OP_PASS_FIELD, F_PASS);
    op_movement_pass_push(&ctx, &no_block, OP_PASS_NOT, 0);
    op_movement_pass_push(&ctx, &no_block, OP_PASS_FIELD, F_BLOCK);
    assert_int_equal(op_region_graph_build(&ctx, &w, &no_block, &s, &g, NULL), OP_OK);
    uint32_t extra2 = 0;
    for (uint32_t i = 0; i < g.portal_count; i++) {
        const op_region_portal *q = &g.portals[i];
        int d = abs(q->to_coord.x - q->from_coord.x) + abs(q->to_coord.y - q->from_coord.y) +
                abs(q->to_coord.z - q->from_coord.z);
        extra2 += d != 1;
    }
    assert_int_equal(extra2, 4);
    /* A flat world: no stairs at all. */
    op_world flat;
    stair_world(&flat, topo_shape(8, 8, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    op_world_fill(&ctx, &flat, F_PASS, 1);
    op_world_fill(&ctx, &flat, F_STAIR, OP_STAIR_POS_X);
    ref_edges e;
    memset(&e, 0, sizeof e);
    for (op_chunk_key k = 0; k < flat.chunk_count; k++)
        p.ops->for_each_transition(&p, &flat, k, ref_edges_sink, &e);
    assert_int_equal(e.n, 0);
    /* A world without the field: nothing either. */
    op_transition_provider none = op_stair_transitions(999);
    for (op_chunk_key k = 0; k < w.chunk_count; k++)
        none.ops->for_each_transition(&none, &w, k, ref_edges_sink, &e);
    assert_int_equal(e.n, 0);
    op_world_free(&flat);
    op_region_graph_free(&g);
    op_world_free(&w);
}

/* Reachability with stairs equals a flood over face steps plus stair edges. */
static void test_reach_ground_truth(void **state)
{
    (void)state;
    op_rng r = {1234};
    long reach = 0, unreach = 0;
    for (int iter = 0; iter < 30; iter++) {
        op_world_shape s = topo_shape(4 + op_rng_below(&r, 16), 4 + op_rng_below(&r, 16),
                                      2 + op_rng_below(&r, 4), 2 + op_rng_below(&r, 6),
                                      2 + op_rng_below(&r, 6), 1 + op_rng_below(&r, 2),
                                      OP_LATTICE_ORTHOGONAL);
        op_world w;
        stair_world(&w, s);
        topo_fill_random(&ctx, &w, F_PASS, &r, 40 + op_rng_below(&r, 25));
        random_stairs(&w, &r, 15);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_transition_provider p = op_stair_transitions(F_STAIR);
        op_region_graph_settings set;
        op_region_graph_settings_defaults(&set);
        set.provider = &p;
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, &set, &g, NULL), OP_OK);
        ref_graph ref;
        ref_graph_build_prov(&w, &c, &p, &ref);
        expect_graph_equals_ref(&g, &ref);
        ref_graph_free(&ref);
        /* union-find over tiles: face steps, then stair edges (both ways) */
        const size_t n = (size_t)s.size[0] * s.size[1] * s.size[2];
        uint32_t *uf = malloc(n * sizeof *uf);
        uint8_t *pass = calloc(n, 1);
        for (size_t i = 0; i < n; i++) {
            uf[i] = (uint32_t)i;
            pass[i] = (uint8_t)op_movement_passable(&w, &c, (op_coord3){(int32_t)(i % s.size[0]),
                                                                       (int32_t)(i / s.size[0] % s.size[1]),
                                                                       (int32_t)(i / s.size[0] / s.size[1])});
        }
#define IDX(x, y, z) ((size_t)(x) + (size_t)(y) * s.size[0] + (size_t)(z) * s.size[0] * s.size[1])
        for (uint32_t z = 0; z < s.size[2]; z++)
            for (uint32_t y = 0; y < s.size[1]; y++)
                for (uint32_t x = 0; x < s.size[0]; x++) {
                    size_t a = IDX(x, y, z);
                    if (!pass[a])
                        continue;
                    size_t nb[4];
                    int k = 0;
                    if (x + 1 < s.size[0])
                        nb[k++] = IDX(x + 1, y, z);
                    if (y + 1 < s.size[1])
                        nb[k++] = IDX(x, y + 1, z);
                    if (z + 1 < s.size[2])
                        nb[k++] = IDX(x, y, z + 1);
                    int d = stair_at(&w, x, y, z);
                    op_coord3 f = {(int32_t)x, (int32_t)y, (int32_t)z};
                    op_coord3 l = {f.x + stair_dx[d], f.y + stair_dy[d], f.z + 1};
                    if (d && topo_in(&s, l.x, l.y, l.z) && face_near(&w, f, l))
                        nb[k++] = IDX(l.x, l.y, l.z);
                    for (int j = 0; j < k; j++)
                        if (pass[nb[j]]) {
                            uint32_t ra = uf_find_root(uf, (uint32_t)a), rb = uf_find_root(uf, (uint32_t)nb[j]);
                            if (ra != rb)
                                uf[ra > rb ? ra : rb] = ra < rb ? ra : rb;
                        }
                }
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        for (int q = 0; q < 100; q++) {
            size_t a = op_rng_below(&r, (uint32_t)n), b = op_rng_below(&r, (uint32_t)n);
            if (!pass[a] || !pass[b])
                continue;
            op_path_request rq = {{(int32_t)(a % s.size[0]), (int32_t)(a / s.size[0] % s.size[1]),
                                   (int32_t)(a / s.size[0] / s.size[1])},
                                  {(int32_t)(b % s.size[0]), (int32_t)(b / s.size[0] % s.size[1]),
                                   (int32_t)(b / s.size[0] / s.size[1])}};
            op_reach_result rr;
            assert_int_equal(op_reachable(&ctx, &g, &rq, &sc, &rr), OP_OK);
            const int same = uf_find_root(uf, (uint32_t)a) == uf_find_root(uf, (uint32_t)b);
            assert_int_equal(rr.status, same ? OP_REACH_REACHABLE : OP_REACH_UNREACHABLE);
            same ? reach++ : unreach++;
        }
#undef IDX
        op_region_graph_scratch_free(&sc);
        free(uf);
        free(pass);
        op_region_graph_free(&g);
        op_world_free(&w);
    }
    print_message("reachable %ld, unreachable %ld\n", reach, unreach);
    assert_true(reach > 100 && unreach > 100);
}

/* topology.md "Field edits do not make a graph stale": a stair placed by a raw write
 * leaves the graph fresh and the stair provider's stamps equal (null instance, revision
 * 0), so the precheck answers a definitive Unreachable for a route the stair just
 * opened; marking the chunk dirty and updating finds it. */
static void test_stale_caveat(void **state)
{
    (void)state;
    op_world w;
    stair_world(&w, topo_shape(8, 4, 2, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    /* Floor 0: (0..7, 0); floor 1: (0..7, 1) row only; the floors never touch. */
    for (int32_t x = 0; x < 8; x++) {
        op_world_set(&ctx, &w, F_PASS, (op_coord3){x, 0, 0}, 1);
        op_world_set(&ctx, &w, F_PASS, (op_coord3){x, 1, 1}, 1);
    }
    op_movement_class c;
    op_movement_class_unit_field(&c, F_PASS);
    op_transition_provider p = op_stair_transitions(F_STAIR);
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = &p;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, &w, &c, &s, &g, NULL), OP_OK);
    op_region_graph_scratch sc;
    op_region_graph_scratch_init(&ctx, &sc);
    op_path_request q = {{0, 0, 0}, {7, 1, 1}};
    op_precheck_status ps;
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &p, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE);
    /* Place a stair: foot (5,0,0) +y, landing (5,1,1). A raw write. */
    op_transition_provider p2 = op_stair_transitions(F_STAIR);
    assert_int_equal(op_world_set(&ctx, &w, F_STAIR, (op_coord3){5, 0, 0}, OP_STAIR_POS_Y), OP_OK);
    assert_true(op_region_graph_is_fresh(&w, &g));
    assert_true(op_region_graph_is_fresh_for(&w, &g, &c));
    assert_true(op_region_graph_matches_provider(&g, &p2));
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &p2, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_UNREACHABLE); /* wrong, and definitive: the caveat */
    assert_true(op_precheck_rules_out_path(ps));
    /* The caller's obligation: the owning chunk dirty, then an update. */
    const op_chunk_key k = op_world_chunk_of(&w, (op_coord3){5, 0, 0});
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, k), OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &p2, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_GRAPH_STALE);
    assert_int_equal(op_region_graph_update(&ctx, &w, &c, &s, &k, 1, &g, NULL), OP_OK);
    assert_int_equal(op_precheck_path(&ctx, &g, &w, &c, &p2, &q, &sc, OP_MISSING_REPORT_INDETERMINATE, &ps), OP_OK);
    assert_int_equal(ps, OP_PRECHECK_REACHABLE);
    op_region_graph_scratch_free(&sc);
    op_region_graph_free(&g);
    op_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_reach_ground_truth),
        cmocka_unit_test(test_stale_caveat),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
