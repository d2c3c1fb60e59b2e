/* `onepath topology` end to end (issue 15 "What to build"): 8- and 16-bit greyscale PNG
 * inputs with --threshold, generated worlds, the query line format and statuses, --path,
 * --png, the digest equal to the library's for the same world, the same digest for any
 * thread count, and the exit codes of bad input and bad usage. Skipped when the tool is
 * not built. */
#include "topo_testlib.h"

#include "grey_png.h"
#include "onepath/digest.h"

#include <sys/stat.h>
#include <sys/wait.h>

static char tool[1024];

static int setup(void **state)
{
    const char *bin = getenv("OP_BINARY_DIR");
    snprintf(tool, sizeof tool, "%s/onepath", bin ? bin : ".");
    return topo_setup(state);
}

/* Runs the tool with args, returns its exit code and its stdout in out. */
static int run(const char *args, char *out, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' topology %s 2>/dev/null", tool, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int have_tool(void)
{
    struct stat sb;
    return stat(tool, &sb) == 0;
}

/* The digest line of the tool's output. */
static void digest_of(const char *out, char hex[17])
{
    const char *d = strstr(out, "digest topology/region-graph ");
    assert_non_null(d);
    memcpy(hex, d + strlen("digest topology/region-graph "), 16);
    hex[16] = 0;
}

static void test_png_inputs(void **state)
{
    (void)state;
    if (!have_tool())
        skip();
    /* A 40 x 30 image: values 0..999 scaled per depth; passable when >= threshold. */
    op_rng rng = {17};
    for (int depth = 8; depth <= 16; depth += 8) {
        op_grey_image img = {40, 30, (uint32_t)depth, calloc(40 * 30, sizeof(uint16_t))};
        uint32_t maxv = depth == 8 ? 255 : 65535, thr = depth == 8 ? 100 : 30000;
        for (int i = 0; i < 40 * 30; i++)
            img.v[i] = (uint16_t)op_rng_below(&rng, maxv + 1);
        img.v[0] = (uint16_t)thr;      /* (0,0): exactly the threshold: passable */
        img.v[1] = (uint16_t)(thr - 1); /* (1,0): just below */
        char path[1024];
        snprintf(path, sizeof path, "%s", op_test_tmp_path(".png"));
        assert_int_equal(op_grey_png_write(&ctx, path, &img), OP_OK);
        op_grey_image back;
        assert_int_equal(op_grey_png_load(&ctx, path, &back), OP_OK);
        assert_int_equal(back.depth, depth);
        assert_memory_equal(back.v, img.v, 40 * 30 * sizeof(uint16_t));
        op_grey_png_free(&back);
        /* The same world through the library. */
        op_world w;
        topo_world(&ctx, &w, topo_shape(40, 30, 1, 8, 8, 1, OP_LATTICE_ORTHOGONAL));
        for (int32_t y = 0; y < 30; y++)
            for (int32_t x = 0; x < 40; x++)
                assert_int_equal(op_world_set(&ctx, &w, F_PASS, (op_coord3){x, y, 0},
                                              img.v[y * 40 + x] >= thr),
                                 OP_OK);
        op_movement_class c;
        op_movement_class_unit_field(&c, F_PASS);
        op_region_graph g;
        op_region_graph_init(&ctx, &g);
        assert_int_equal(op_region_graph_build(&ctx, &w, &c, NULL, &g, NULL), OP_OK);
        uint64_t d;
        assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
        char want[17];
        op_digest_hex(d, want);
        op_region_graph_scratch sc;
        op_region_graph_scratch_init(&ctx, &sc);
        char args[2048], out[1 << 16], hex[17];
        for (int threads = 1; threads <= 3; threads++) {
            snprintf(args, sizeof args,
                     "'%s' --threshold %u --chunk 8 --threads %d --query 0,0,39,29 --query 1,0,0,0 "
                     "--query 0,0,40,0 --path 0,0,39,29 --png '%s'",
                     path, thr, threads, op_test_tmp_path(".png"));
            assert_int_equal(run(args, out, sizeof out), 0);
            digest_of(out, hex);
            assert_string_equal(hex, want);
        }
        /* query lines: 'query X0,Y0,X1,Y1 STATUS visited=N', as op_reachable says */
        op_path_request q = {{0, 0, 0}, {39, 29, 0}};
        op_reach_result rr;
        assert_int_equal(op_reachable(&ctx, &g, &q, &sc, &rr), OP_OK);
        char line[128];
        snprintf(line, sizeof line, "query 0,0,39,29 %s visited=%u\n", op_reach_status_name(rr.status),
                 rr.visited);
        assert_non_null(strstr(out, line));
        assert_non_null(strstr(out, "query 1,0,0,0 invalid-start visited=0\n"));
        assert_non_null(strstr(out, "query 0,0,40,0 invalid-goal visited=0\n"));
        assert_non_null(strstr(out, "path 0,0,39,29 "));
        op_region_graph_scratch_free(&sc);
        op_region_graph_free(&g);
        op_world_free(&w);
        op_grey_png_free(&img);
    }
}

static void test_generated_and_errors(void **state)
{
    (void)state;
    if (!have_tool())
        skip();
    char out[1 << 16], hex[17];
    /* §10.14 through the tool. */
    assert_int_equal(run("--generate open --query 0,0,511,511 --path 0,0,511,511", out, sizeof out), 0);
    assert_non_null(strstr(out, "regions 256 portals 30720"));
    assert_non_null(strstr(out, "query 0,0,511,511 reachable visited=59\n"));
    assert_non_null(strstr(out, "path 0,0,511,511 reachable visited=256 regions=31 portals=30 chunks=31 "
                                "bounds=0,0..512,512"));
    digest_of(out, hex);
    assert_string_equal(hex, "cc41d76dc3627aaf"); /* docs/formats.md */
    /* An enclosed goal is unreachable. */
    assert_int_equal(run("--generate walls --size 64 --walls 100 --chunk 16 --query 0,0,63,63 "
                         "--query 0,0,20,20",
                         out, sizeof out),
                     0);
    assert_non_null(strstr(out, "query 0,0,63,63 unreachable visited=1\n"));
    assert_non_null(strstr(out, "query 0,0,20,20 invalid-goal visited=0\n"));
    assert_int_equal(run("--generate walls --lattice hex --size 50 --chunk 7 --threads 2", out, sizeof out), 0);
    assert_non_null(strstr(out, "axial hex"));
    /* Usage errors: 2; bad input: 3. */
    assert_int_equal(run("", out, sizeof out), 2);
    assert_int_equal(run("--generate open --query 1,2,3", out, sizeof out), 2);
    assert_int_equal(run("--generate open --chunk 0", out, sizeof out), 2);
    assert_int_equal(run("--generate open --threshold 3", out, sizeof out), 2);
    assert_int_equal(run("--generate sideways", out, sizeof out), 2);
    assert_int_equal(run("--help", out, sizeof out), 0);
    assert_non_null(strstr(out, "--query X0,Y0,X1,Y1"));
    const char *bad = op_test_tmp_path(".png");
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    fputs("not a png at all", f);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args, "'%s'", bad);
    assert_int_equal(run(args, out, sizeof out), 3);
    assert_int_equal(run("/nonexistent/x.png", out, sizeof out), 3);
}

/* The value after "what " in the output. */
static void hex_after(const char *out, const char *what, char hex[17])
{
    const char *d = strstr(out, what);
    assert_non_null(d);
    memcpy(hex, d + strlen(what), 16);
    hex[16] = 0;
}

static void lib_digest(const op_world *w, const op_transition_provider *p, char hex[17])
{
    op_movement_class c;
    op_movement_class_unit_field(&c, 1); /* the tool's field ids: 1 passable, 2 stairs */
    op_region_graph_settings s;
    op_region_graph_settings_defaults(&s);
    s.provider = p;
    op_region_graph g;
    op_region_graph_init(&ctx, &g);
    assert_int_equal(op_region_graph_build(&ctx, w, &c, &s, &g, NULL), OP_OK);
    uint64_t d;
    assert_int_equal(op_region_graph_digest(&ctx, &g, &d), OP_OK);
    op_digest_hex(d, hex);
    op_region_graph_free(&g);
}

/* --set: one update after the first build; the digest after it equals the library's
 * fresh build of the edited world; --sparse and stairs from a PNG likewise. */
static void test_edits_sparse_stairs(void **state)
{
    (void)state;
    if (!have_tool())
        skip();
    char out[1 << 16], hex[17], want[17], args[4096];
    /* Generated open 512 with a wall line across chunk (1,1) and one tile reopened. */
    assert_int_equal(run("--generate open --set 32,40,0 --set 33,40,0 --set 34,40,0 --set 33,40,255 "
                         "--set 100,100,1 --query 0,0,511,511",
                         out, sizeof out),
                     0);
    assert_non_null(strstr(out, "update 5 edits, status built, "));
    assert_non_null(strstr(out, "rebuilt chunks 17 51 (10 chunks re-derived)"));
    assert_non_null(strstr(out, "(equal)"));
    op_world w;
    assert_int_equal(op_world_init(&ctx, &w, &(op_world_shape){{512, 512, 1}, {32, 32, 1}, 0}), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, 1, OP_FIELD_U8), OP_OK);
    assert_int_equal(op_world_add_field(&ctx, &w, 2, OP_FIELD_U8), OP_OK);
    assert_int_equal(op_world_fill(&ctx, &w, 1, 1), OP_OK);
    op_world_set(&ctx, &w, 1, (op_coord3){32, 40, 0}, 0);
    op_world_set(&ctx, &w, 1, (op_coord3){34, 40, 0}, 0);
    op_world_set(&ctx, &w, 1, (op_coord3){100, 100, 0}, 0); /* value 1 < 128 */
    lib_digest(&w, NULL, want);
    hex_after(out, "digest after update ", hex);
    assert_string_equal(hex, want);
    digest_of(out, hex); /* the first build's, before the edits */
    assert_string_equal(hex, "cc41d76dc3627aaf");
    op_world_free(&w);

    /* A PNG world, two floors, stairs from a second PNG, sparse, with a stair edit. */
    op_rng rng = {99};
    op_grey_image img = {40, 30, 8, calloc(40 * 30, sizeof(uint16_t))};
    op_grey_image st = {40, 30, 8, calloc(40 * 30, sizeof(uint16_t))};
    for (int i = 0; i < 40 * 30; i++) {
        img.v[i] = (uint16_t)(op_rng_below(&rng, 100) < 65 ? 200 : 10);
        st.v[i] = (uint16_t)(op_rng_below(&rng, 100) < 6 ? 1 + op_rng_below(&rng, 6) : 0);
    }
    char map_path[1024], stair_path[1024];
    snprintf(map_path, sizeof map_path, "%s", op_test_tmp_path(".png"));
    snprintf(stair_path, sizeof stair_path, "%s", op_test_tmp_path(".png"));
    assert_int_equal(op_grey_png_write(&ctx, map_path, &img), OP_OK);
    assert_int_equal(op_grey_png_write(&ctx, stair_path, &st), OP_OK);
    op_world_shape shape = {{40, 30, 2}, {8, 8, 1}, 0};
    for (int sparse = 0; sparse <= 1; sparse++) {
        if (sparse)
            assert_int_equal(op_world_init_sparse(&ctx, &w, &shape), OP_OK);
        else
            assert_int_equal(op_world_init(&ctx, &w, &shape), OP_OK);
        if (sparse) /* chunks 1..3 x 0..2 on both floors */
            for (uint32_t kz = 0; kz < 2; kz++)
                for (uint32_t ky = 0; ky <= 2; ky++)
                    for (uint32_t kx = 1; kx <= 3; kx++)
                        assert_int_equal(op_world_make_resident(&ctx, &w, kx + ky * 5 + kz * 20), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, &w, 1, OP_FIELD_U8), OP_OK);
        assert_int_equal(op_world_add_field(&ctx, &w, 2, OP_FIELD_U8), OP_OK);
        for (int32_t z = 0; z < 2; z++)
            for (int32_t y = 0; y < 30; y++)
                for (int32_t x = 0; x < 40; x++) {
                    op_coord3 c = {x, y, z};
                    if (!op_world_is_resident(&w, op_world_chunk_of(&w, c)))
                        continue;
                    op_world_set(&ctx, &w, 1, c, img.v[y * 40 + x] >= 128);
                    int v = st.v[y * 40 + x];
                    if (z == 0 && v >= 1 && v <= 4)
                        op_world_set(&ctx, &w, 2, c, v);
                }
        op_transition_provider p = op_stair_transitions(2);
        lib_digest(&w, &p, want);
        snprintf(args, sizeof args, "'%s' --stairs '%s' --chunk 8 %s --threads 2 --query 10,10,0,20,20,1",
                 map_path, stair_path, sparse ? "--sparse 1,0,3,2" : "");
        assert_int_equal(run(args, out, sizeof out), 0);
        digest_of(out, hex);
        assert_string_equal(hex, want);
        assert_non_null(strstr(out, "floors 2"));
        if (sparse)
            assert_non_null(strstr(out, "sparse: 18 of 40 chunks resident"));
        /* An edit: a stair at (12,12,0) toward +x, and a wall at (13,12,1). */
        op_world_set(&ctx, &w, 1, (op_coord3){12, 12, 0}, 1);
        op_world_set(&ctx, &w, 2, (op_coord3){12, 12, 0}, OP_STAIR_POS_X);
        op_world_set(&ctx, &w, 1, (op_coord3){13, 12, 1}, 1);
        lib_digest(&w, &p, want);
        snprintf(args, sizeof args,
                 "'%s' --stairs '%s' --chunk 8 %s --set 12,12,0,255 --set-stair 12,12,0,1 "
                 "--set 13,12,1,200",
                 map_path, stair_path, sparse ? "--sparse 1,0,3,2" : "");
        assert_int_equal(run(args, out, sizeof out), 0);
        hex_after(out, "digest after update ", hex);
        assert_string_equal(hex, want);
        assert_non_null(strstr(out, "(equal)"));
        assert_non_null(strstr(out, "rebuilt chunks 6 26 "));
        op_world_free(&w);
    }
    /* Generated stairs: the same digest for any thread count. */
    char first[17];
    for (int threads = 1; threads <= 3; threads++) {
        snprintf(args, sizeof args,
                 "--generate walls --size 96 --chunk 16 --floors 3 --stair-density 30 --threads %d "
                 "--set 5,5,2,0",
                 threads);
        assert_int_equal(run(args, out, sizeof out), 0);
        hex_after(out, "digest after update ", hex);
        if (threads == 1)
            memcpy(first, hex, sizeof first);
        else
            assert_string_equal(hex, first);
    }
    /* Errors: usage (2), an edit outside the resident set or the world (an argument: 2). */
    assert_int_equal(run("--generate open --set 1,2", out, sizeof out), 2);
    assert_int_equal(run("--generate open --set-stair 1,2,0,5", out, sizeof out), 2);
    assert_int_equal(run("--generate open --sparse 3,3,1,1", out, sizeof out), 2);
    assert_int_equal(run("--generate open --lattice hex --stair-density 5", out, sizeof out), 2);
    assert_int_equal(run("--generate open --size 64 --chunk 16 --sparse 9,9,10,10", out, sizeof out), 2);
    assert_int_not_equal(run("--generate open --size 64 --chunk 16 --sparse 0,0,1,1 --set 60,60,0",
                             out, sizeof out),
                         0);
    assert_int_not_equal(run("--generate open --size 64 --set 64,0,0", out, sizeof out), 0);
    snprintf(args, sizeof args, "--generate open --size 64 --stairs '%s'", stair_path);
    assert_int_equal(run(args, out, sizeof out), 3); /* a stair image of another size */
    free(img.v);
    free(st.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_inputs),
        cmocka_unit_test(test_generated_and_errors),
        cmocka_unit_test(test_edits_sparse_stairs),
    };
    return cmocka_run_group_tests(tests, setup, topo_teardown);
}
