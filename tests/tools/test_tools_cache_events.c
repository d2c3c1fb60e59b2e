/* The tool's JSON reader (tools/json_read.c) and the events file of `onepath update`
 * (tools/cache_events.c): values with their positions; every malformed text refused with
 * line and column; every bad step refused with its number, line and column, checked
 * against the obstacles the cache holds at that step; truncations and random bytes never
 * crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "cache_events.h"
#include "json_read.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static void parses(const char *text)
{
    op_jval v;
    char err[256];
    if (op_jread_parse(text, strlen(text), &v, err, sizeof err))
        fail_msg("'%s' refused: %s", text, err);
    op_jread_free(&v);
}

static void refused(const char *text, const char *where, const char *why)
{
    op_jval v;
    char err[256] = "";
    if (!op_jread_parse(text, strlen(text), &v, err, sizeof err))
        fail_msg("'%s' accepted", text);
    if (strncmp(err, where, strlen(where)) || !strstr(err, why))
        fail_msg("'%s': '%s', want '%s ... %s'", text, err, where, why);
}

static void test_json_reader(void **state)
{
    (void)state;
    op_jval v;
    char err[256];
    const char *t = "\xef\xbb\xbf [ {\"a\": -0.5e2, \"b\": [true, false, null],\n"
                    "  \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\"}, 12, \"\xc3\xa9\"]";
    assert_int_equal(op_jread_parse(t, strlen(t), &v, err, sizeof err), 0);
    assert_int_equal(v.type, OP_JARRAY);
    assert_int_equal(v.count, 3);
    const op_jval *o = &v.items[0];
    assert_int_equal(o->type, OP_JOBJECT);
    assert_int_equal(o->line, 1);
    assert_int_equal(o->col, 4);
    assert_true(op_jread_get(o, "a")->number == -50.0);
    assert_false(op_jread_get(o, "a")->integral);
    assert_int_equal(op_jread_get(o, "b")->count, 3);
    const op_jval *s = op_jread_get(o, "s");
    assert_int_equal(s->line, 2);
    assert_int_equal(s->col, 8);
    assert_string_equal(s->string, "x\xc3\xa9\xf0\x9f\x98\x80\n\"");
    assert_true(v.items[1].integral && v.items[1].number == 12);
    assert_null(op_jread_get(o, "missing"));
    op_jread_free(&v);
    parses("0");
    parses(" \"\" ");
    parses("[[[]]]");
    parses("{}");
    parses("-0.0E+3");

    refused("", "line 1, column 1", "end of the file");
    refused("[1, 2", "line 1, column 6", "expected ',' or ']'");
    refused("[1,]", "line 1, column 4", "trailing comma");
    refused("{\"a\" 1}", "line 1, column 6", "expected ':'");
    refused("{\"a\": 1, \"a\": 2}", "line 1, column 10", "appears twice");
    refused("{a: 1}", "line 1, column 2", "key in double quotes");
    refused("[01]", "line 1, column 2", "may not start with 0");
    refused("[1.]", "line 1, column 4", "decimal point");
    refused("[1e]", "line 1, column 4", "exponent");
    refused("[-]", "line 1, column 2", "digit");
    refused("[1e400]", "line 1, column 2", "out of range");
    refused("[tru]", "line 1, column 2", "unexpected word");
    refused("[\"a\nb\"]", "line 1, column 4", "control character");
    refused("[\"\\x\"]", "line 1, column 3", "unknown escape");
    refused("[\"\\u12g4\"]", "line 1, column 7", "hex digits");
    refused("[\"\\ud800\"]", "line 1, column 3", "low half");
    refused("[\"\\udc00\"]", "line 1, column 3", "lone low surrogate");
    refused("[\"\\u0000\"]", "line 1, column 3", "not allowed");
    refused("[\"\xff\"]", "line 1, column 3", "UTF-8");
    refused("[\"\xc0\xaf\"]", "line 1, column 3", "UTF-8"); /* overlong */
    refused("[\"abc", "line 1, column 2", "not closed");
    refused("[1] x", "line 1, column 5", "after the end");
    refused("\n\n  @", "line 3, column 3", "expected a value");
    refused("// no comments\n[]", "line 1, column 1", "expected a value");
    char deep[200];
    memset(deep, '[', 100);
    deep[100] = 0;
    refused(deep, "line 1, column 65", "deeper than 64");
}

/* Prefixes and random bytes: refused or parsed, never a crash (ASan watches). */
static void test_json_reader_garbage(void **state)
{
    (void)state;
    const char *t = "[{\"op\": \"add\", \"id\": 1, \"shape\": \"prism\", \"points\": [[0, 0], "
                    "[4, 0], [4, 4]], \"ymin\": -1e3, \"ymax\": 2.5e1, \"area\": 5, \"s\": "
                    "\"\\u00e9\\ud83d\\ude00\"}]";
    const size_t n = strlen(t);
    char err[256];
    op_jval v;
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(op_jread_parse(t, k, &v, err, sizeof err), -1);
        assert_non_null(strstr(err, "line 1, column "));
    }
    op_rng rng = {42};
    char *buf = malloc(n);
    for (int r = 0; r < 20000; r++) {
        memcpy(buf, t, n);
        for (int f = 0; f < 3; f++)
            buf[op_rng_below(&rng, (uint32_t)n)] = (char)op_rng_below(&rng, 256);
        if (op_jread_parse(buf, n, &v, err, sizeof err) == 0)
            op_jread_free(&v);
        else
            assert_non_null(strstr(err, "line "));
    }
    free(buf);
}

/* A tiny cache to check events against. */
static void small_cache(op_tile_cache *c)
{
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, 9, 24, 4), OP_OK);
    bs.regions.partition = OP_PARTITION_LAYERS;
    bs.config.tile_size = 12;
    assert_int_equal(op_tile_cache_bake(&g_ctx, &s, &bs, NULL, c), OP_OK);
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_CYLINDER;
    v.radius = 1;
    v.ymax = 2;
    assert_int_equal(op_tile_cache_add(&g_ctx, c, 7, &v), OP_OK); /* already in the cache */
    op_scene_free(&s);
}

static void bad_events(const op_tile_cache *c, const char *text, const char *want)
{
    cli_events ev;
    char err[512] = "";
    if (!cli_events_parse(&g_ctx, text, strlen(text), c, &ev, err, sizeof err))
        fail_msg("accepted: %s", text);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
    assert_null(ev.v);
}

static void test_events(void **state)
{
    (void)state;
    op_tile_cache c;
    small_cache(&c);
    const char *good =
        "[\n"
        " {\"op\": \"add\", \"id\": 1, \"shape\": \"cylinder\", \"center\": [1, 2, 3], "
        "\"radius\": 0.5, \"height\": 4, \"area\": 0},\n"
        " {\"op\": \"add\", \"id\": 2, \"shape\": \"box\", \"min\": [1, 2, 3], \"max\": [4, 5, 6], "
        "\"area\": 3},\n"
        " {\"op\": \"add\", \"id\": 3, \"shape\": \"prism\", \"points\": [[0, 0], [4, 0], [4, 4], "
        "[0, 4]], \"ymin\": -1, \"ymax\": 9, \"area\": 5},\n"
        " {\"op\": \"move\", \"id\": 1, \"center\": [7, 8, 9]},\n"
        " {\"op\": \"move\", \"id\": 2, \"offset\": [1, -1, 0.5]},\n"
        " {\"op\": \"move\", \"id\": 7, \"offset\": [1, 0, 0]},\n"
        " {\"op\": \"remove\", \"id\": 3},\n"
        " {\"op\": \"add\", \"id\": 3, \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], "
        "\"area\": 0}\n"
        "]";
    cli_events ev;
    char err[512];
    if (cli_events_parse(&g_ctx, good, strlen(good), &c, &ev, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(ev.count, 8);
    assert_int_equal(c.obstacle_count, 1); /* checking changes nothing */
    const op_volume *cyl = &ev.v[0].shape;
    assert_int_equal(cyl->kind, OP_VOLUME_CYLINDER);
    assert_true(cyl->center[0] == 1 && cyl->center[1] == 3 && cyl->ymin == 2 && cyl->ymax == 6);
    assert_true(ev.v[1].shape.box_min[1] == 3 && ev.v[1].shape.ymax == 5 && ev.v[1].shape.area == 3);
    assert_int_equal(ev.v[2].shape.vert_count, 4);
    /* The move keeps the height: ymax = 8 + 4. */
    assert_int_equal(ev.v[3].op, CLI_EVENT_MOVE);
    assert_true(ev.v[3].shape.center[0] == 7 && ev.v[3].shape.ymin == 8 && ev.v[3].shape.ymax == 12);
    assert_true(ev.v[4].shape.box_min[0] == 2 && ev.v[4].shape.ymin == 1 && ev.v[4].shape.box_max[1] == 6.5f);
    assert_true(ev.v[5].shape.center[0] == 1); /* the cache's obstacle 7 moved */
    assert_int_equal(ev.v[6].op, CLI_EVENT_REMOVE);
    assert_int_equal(ev.v[7].line, 9);
    cli_events_free(&ev);

    bad_events(&c, "[{\"op\": \"remove\", \"id\": 2}]", "step 1 (line 1, column 25): no obstacle has id 2");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 7, \"shape\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1], \"area\": 0}]",
               "obstacle 7 already exists");
    bad_events(&c, "[{\"op\": \"remove\", \"id\": 7}, {\"op\": \"move\", \"id\": 7, \"offset\": [0,0,0]}]",
               "step 2 (line 1, column 50): no obstacle has id 7");
    bad_events(&c, "[{\"op\": \"jump\", \"id\": 7}]", "unknown op \"jump\"");
    bad_events(&c, "[{\"id\": 7}]", "\"op\" is missing");
    bad_events(&c, "[{\"op\": \"remove\", \"id\": -1}]", "integer in 0..4294967295");
    bad_events(&c, "[{\"op\": \"remove\", \"id\": 1.5}]", "integer");
    bad_events(&c, "[{\"op\": \"remove\", \"id\": 7, \"why\": 1}]", "unknown key \"why\"");
    bad_events(&c, "[{\"op\": \"move\", \"id\": 7}]", "either \"center\"");
    bad_events(&c, "[{\"op\": \"move\", \"id\": 7, \"center\": [1, 2]}]", "must hold 3 numbers");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1], \"area\": 0},"
                   " {\"op\": \"move\", \"id\": 1, \"center\": [1, 2, 3]}]",
               "step 2 (line 1, column 119): obstacle 1 is a box");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"sphere\", \"area\": 0}]", "unknown shape");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [2,0,0], \"max\": [1,1,1], \"area\": 0}]",
               "exceeds max");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1e39], \"area\": 0}]",
               "beyond binary32");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"cylinder\", \"center\": [0,0,0], \"radius\": 1, \"height\": -2, \"area\": 0}]",
               "height -2 < 0");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"prism\", \"points\": [[0,0],[4,0],[1,1],[4,4],[0,4]], \"ymin\": 0, \"ymax\": 1, \"area\": 0}]",
               "not convex");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"prism\", \"points\": [[0,0],[4,0]], \"ymin\": 0, \"ymax\": 1, \"area\": 0}]",
               "3..32 points");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"prism\", \"points\": [[0,0],[4,0],[4]], \"ymin\": 0, \"ymax\": 1, \"area\": 0}]",
               "point 2 must be [x, z]");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1]}]",
               "\"area\" is missing");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1], \"area\": 256}]",
               "0..255");
    bad_events(&c, "[{\"op\": \"add\", \"id\": 1, \"shape\": \"box\", \"min\": [0,\"0\",0], \"max\": [1,1,1], \"area\": 1}]",
               "must be a number, not a string");
    bad_events(&c, "[3]", "step 1 (line 1, column 2): a step must be an object");
    bad_events(&c, "{}", "must be a JSON array");
    bad_events(&c, "[{\"op\": \"remove\", \"id\": 7}", "line 1, column 27");
    op_tile_cache_free(&c);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_reader),
        cmocka_unit_test(test_json_reader_garbage),
        cmocka_unit_test(test_events),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
