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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_inputs),
        cmocka_unit_test(test_generated_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, topo_teardown);
}
