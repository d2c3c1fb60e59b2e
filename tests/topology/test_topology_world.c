/* The chunked world (topology.md "Public Surface"; supplement §6, §10.1, §10.11): shape
 * checks with messages, chunk keys x fastest, partial chunk grids, fields by id with typed
 * range checks, and topology versions that only mark_dirty / mark_rebuilt move. */
#include "topo_testlib.h"

static void expect_bad_shape(op_world_shape s, const char *words)
{
    op_world w;
    assert_int_equal(op_world_init(&ctx, &w, &s), OP_INVALID_ARGUMENT);
    if (!strstr(op_ctx_error(&ctx), words)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", op_ctx_error(&ctx), words);
        fail();
    }
    op_world_free(&w);
}

static void test_shape_checks(void **state)
{
    (void)state;
    expect_bad_shape(topo_shape(0, 4, 1, 2, 2, 1, OP_LATTICE_ORTHOGONAL), "size x = 0");
    expect_bad_shape(topo_shape(4, 4, 0, 2, 2, 1, OP_LATTICE_ORTHOGONAL), "size z = 0");
    expect_bad_shape(topo_shape(4, 4, 1, 2, 0, 1, OP_LATTICE_ORTHOGONAL), "chunk y = 0");
    expect_bad_shape(topo_shape(0x80000000u, 4, 1, 2, 2, 1, OP_LATTICE_ORTHOGONAL), "size x");
    expect_bad_shape(topo_shape(64, 64, 64, 4096, 4096, 2, OP_LATTICE_ORTHOGONAL), "tiles");
    expect_bad_shape(topo_shape(0x7fffffffu, 0x7fffffffu, 1, 1, 1, 1, OP_LATTICE_ORTHOGONAL),
                     "chunks");
    expect_bad_shape(topo_shape(4, 4, 2, 2, 2, 1, OP_LATTICE_AXIAL_HEX), "axial-hex");
    expect_bad_shape(topo_shape(4, 4, 1, 2, 2, 2, OP_LATTICE_AXIAL_HEX), "axial-hex");
    expect_bad_shape(topo_shape(4, 4, 1, 2, 2, 1, (op_lattice)7), "lattice");
    assert_int_equal(op_world_shape_validate(NULL, NULL), OP_INVALID_ARGUMENT);
    op_world_shape ok = topo_shape(4, 4, 1, 2, 2, 1, OP_LATTICE_AXIAL_HEX);
    assert_int_equal(op_world_shape_validate(NULL, &ok), OP_OK);
}

static void test_chunk_keys(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(10, 7, 5, 4, 3, 2, OP_LATTICE_ORTHOGONAL));
    /* ceil(size / chunk) per axis (§10.11) */
    assert_int_equal(w.chunks[0], 3);
    assert_int_equal(w.chunks[1], 3);
    assert_int_equal(w.chunks[2], 3);
    assert_int_equal(w.chunk_count, 27);
    assert_int_equal(w.chunk_tiles, 24);
    /* key = kx + ky·CX + kz·CX·CY (§10.1) */
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){0, 0, 0}), 0);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){4, 0, 0}), 1);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){0, 3, 0}), 3);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){0, 0, 2}), 9);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){9, 6, 4}), 26);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){10, 0, 0}), OP_INVALID_CHUNK);
    assert_int_equal(op_world_chunk_of(&w, (op_coord3){-1, 0, 0}), OP_INVALID_CHUNK);
    uint32_t k[3];
    assert_int_equal(op_world_chunk_coord(&w, 14, k), 1);
    assert_int_equal(k[0], 2);
    assert_int_equal(k[1], 1);
    assert_int_equal(k[2], 1);
    assert_int_equal(op_world_chunk_coord(&w, 27, k), 0);
    op_coord3 o = op_world_chunk_origin(&w, 14);
    assert_int_equal(o.x, 8);
    assert_int_equal(o.y, 3);
    assert_int_equal(o.z, 2);
    assert_true(op_world_contains(&w.shape, (op_coord3){9, 6, 4}));
    assert_false(op_world_contains(&w.shape, (op_coord3){9, 7, 4}));
    /* Local tile order lx + ly·cx + lz·cx·cy: page index of (5, 4, 3). */
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){5, 4, 3}, 9), OP_OK);
    const uint8_t *page = op_world_page_const(&w, F_PASS, op_world_chunk_of(&w, (op_coord3){5, 4, 3}));
    assert_non_null(page);
    assert_int_equal(page[1 + 1 * 4 + 1 * 12], 9);
    op_world_free(&w);
}

static void test_fields(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(6, 6, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    assert_int_equal(op_world_add_field(&ctx, &w, F_PASS, OP_FIELD_U16), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "already registered"));
    assert_int_equal(op_world_add_field(&ctx, &w, 1, (op_field_type)42), OP_INVALID_ARGUMENT);
    static const op_field_type types[] = {OP_FIELD_U16, OP_FIELD_U32, OP_FIELD_I8, OP_FIELD_I16,
                                          OP_FIELD_I32};
    static const int64_t lo[] = {0, 0, -128, -32768, INT32_MIN};
    static const int64_t hi[] = {65535, UINT32_MAX, 127, 32767, INT32_MAX};
    for (int i = 0; i < 5; i++) {
        uint32_t id = 100 + (uint32_t)i;
        assert_int_equal(op_world_add_field(&ctx, &w, id, types[i]), OP_OK);
        op_coord3 at = {5, 5, 0};
        int64_t v = 1;
        assert_int_equal(op_world_get(&ctx, &w, id, at, &v), OP_OK);
        assert_int_equal(v, 0); /* zeroed */
        assert_int_equal(op_world_set(&ctx, &w, id, at, lo[i]), OP_OK);
        assert_int_equal(op_world_get(&ctx, &w, id, at, &v), OP_OK);
        assert_true(v == lo[i]);
        assert_int_equal(op_world_set(&ctx, &w, id, at, hi[i]), OP_OK);
        assert_int_equal(op_world_get(&ctx, &w, id, at, &v), OP_OK);
        assert_true(v == hi[i]);
        assert_int_equal(op_world_set(&ctx, &w, id, at, hi[i] + 1), OP_INVALID_ARGUMENT);
        assert_int_equal(op_world_set(&ctx, &w, id, at, lo[i] - 1), OP_INVALID_ARGUMENT);
        assert_int_equal(op_world_fill(&ctx, &w, id, hi[i] + 1), OP_INVALID_ARGUMENT);
        assert_int_equal(op_world_fill(&ctx, &w, id, lo[i]), OP_OK);
    }
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){6, 0, 0}, 1), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "outside"));
    assert_int_equal(op_world_set(&ctx, &w, 55, (op_coord3){0, 0, 0}, 1), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&ctx), "no field 55"));
    int64_t v;
    assert_int_equal(op_world_get(&ctx, &w, F_PASS, (op_coord3){0, -1, 0}, &v), OP_INVALID_ARGUMENT);
    assert_null(op_world_page(&w, 55, 0));
    assert_null(op_world_page(&w, F_PASS, 4));
    assert_null(op_world_find_field(&w, 55));
    for (uint32_t i = 6; i < OP_WORLD_MAX_FIELDS; i++)
        assert_int_equal(op_world_add_field(&ctx, &w, 1000 + i, OP_FIELD_U8), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, 5000, OP_FIELD_U8), OP_INVALID_ARGUMENT);
    op_world_free(&w);
}

static void test_versions(void **state)
{
    (void)state;
    op_world w;
    topo_world(&ctx, &w, topo_shape(8, 8, 1, 4, 4, 1, OP_LATTICE_ORTHOGONAL));
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(op_world_topology_version(&w, k), 0);
    assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){1, 1, 0}, 1), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, F_PASS, 1), OP_OK);
    uint8_t *page = op_world_page(&w, F_PASS, 2);
    page[3] = 0;
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(op_world_topology_version(&w, k), 0); /* raw writes move nothing */
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 2), OP_OK);
    assert_int_equal(op_world_topology_version(&w, 2), 1);
    assert_int_equal(w.topology_dirty[2], 1);
    assert_int_equal(op_world_mark_topology_rebuilt(&ctx, &w, 2), OP_OK);
    assert_int_equal(op_world_topology_version(&w, 2), 2);
    assert_int_equal(w.topology_dirty[2], 0);
    assert_int_equal(op_world_topology_version(&w, 1), 0);
    assert_int_equal(op_world_mark_topology_dirty(&ctx, &w, 4), OP_INVALID_ARGUMENT);
    assert_int_equal(op_world_mark_topology_rebuilt(&ctx, &w, OP_INVALID_CHUNK), OP_INVALID_ARGUMENT);
    assert_int_equal(op_world_topology_version(&w, 9), 0);
    op_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_checks),
        cmocka_unit_test(test_chunk_keys),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests(tests, topo_setup, topo_teardown);
}
