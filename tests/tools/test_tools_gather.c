/* Gathering tile sections into a bake file (tools/gather.c, bake --mpi's rank 0, issue
 * 14), without MPI: sections handed in in order, reversed and shuffled, with a memory
 * budget of 0 (every early section spilled to disk), a few sections' worth and unbounded,
 * give the one-process file byte for byte and its digest; the budget is kept, the spill
 * file is gone afterwards. Without a path the sections are checked and digested in any
 * order. A tile given twice or out of range, a corrupted section (also one that waited
 * in the spill file) and a missing tile are refused with a message, and leave nothing
 * next to the output: no file, no temporary, no spill file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "onepath/onepath.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static void ok(op_status st, const char *what)
{
    if (st != OP_OK)
        fail_msg("%s: %s", what, g_ctx.err);
}

/* A tiled bake with its sections and its one-process file. */
typedef struct baked {
    op_scene scene;
    op_tiled_result r;
    unsigned flags;
    unsigned char **sec;
    size_t *len;
    unsigned char *file;
    size_t file_len;
} baked;

static void bake(baked *b, uint64_t seed, int T, int keep)
{
    memset(b, 0, sizeof *b);
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    ok(op_test_random_scene(&g_ctx, &b->scene, &bs.config, seed, 60, 30), "random scene");
    bs.config.tile_size = T;
    bs.regions.min_region_area = 4;
    bs.contours.keep_raw = keep;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 2;
    o.keep_regions = keep;
    ok(op_bake_tiled(&g_ctx, &b->scene, &bs, &o, &b->r), "tiled bake");
    b->flags = keep ? OP_OPBAKE_REGIONS | OP_OPBAKE_RAW : 0;
    ok(op_opbake_encode(&g_ctx, &b->r, b->flags, &b->file, &b->file_len), "encode");
    b->sec = calloc(b->r.tile_count, sizeof *b->sec);
    b->len = calloc(b->r.tile_count, sizeof *b->len);
    assert_non_null(b->sec);
    assert_non_null(b->len);
    for (uint32_t k = 0; k < b->r.tile_count; k++)
        ok(op_opbake_encode_tile(&g_ctx, &b->r, &b->r.tiles[k], b->flags, &b->sec[k], &b->len[k]),
           "encode tile");
}

static void unbake(baked *b)
{
    for (uint32_t k = 0; k < b->r.tile_count; k++)
        op_free(&g_ctx, b->sec[k]);
    free(b->sec);
    free(b->len);
    op_free(&g_ctx, b->file);
    op_tiled_result_free(&b->r);
    op_scene_free(&b->scene);
}

/* Entries of path's directory whose name starts with path's file name. */
static int leftovers(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = 0;
    const char *base = slash + 1;
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, base, strlen(base)) == 0) {
            print_error("left over: %s/%s\n", dir, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

enum { IN_ORDER, REVERSED, SHUFFLED };

static void order_of(uint32_t *order, uint32_t n, int how, uint64_t seed)
{
    for (uint32_t i = 0; i < n; i++)
        order[i] = how == REVERSED ? n - 1 - i : i;
    if (how == SHUFFLED) {
        op_rng rng = {seed};
        for (uint32_t i = n; i > 1; i--) {
            const uint32_t j = op_rng_below(&rng, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    }
}

/* Gathers b's sections in the order to path (NULL: no file) with a budget; checks the
 * file, the digest and the statistics. */
static void gather(const baked *b, const uint32_t *order, const char *path, uint64_t budget)
{
    const uint32_t n = b->r.tile_count;
    cli_gather *g;
    ok(cli_gather_open(&g_ctx, &b->r, b->flags, path, budget, &g), "gather open");
    uint64_t bytes = 0, early = 0, early_bytes = 0, max = 0;
    uint8_t *seen = calloc(n, 1);
    assert_non_null(seen);
    uint32_t next = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = order[i];
        ok(cli_gather_put(g, k, b->sec[k], b->len[k]), "gather put");
        assert_int_equal(cli_gather_count(g), i + 1);
        bytes += b->len[k];
        max = b->len[k] > max ? b->len[k] : max;
        seen[k] = 1;
        if (k != next) {
            early++;
            early_bytes += b->len[k];
        }
        while (next < n && seen[next])
            next++;
    }
    free(seen);
    op_tiled_result sum;
    cli_gather_stats st;
    ok(cli_gather_finish(g, &sum, &st), "gather finish");
    assert_int_equal(sum.digest, b->r.digest);
    assert_int_equal(sum.tile_count, n);
    assert_int_equal(sum.spans, b->r.spans);
    assert_int_equal(sum.contour_verts, b->r.contour_verts);
    op_tiled_result_free(&sum);
    assert_int_equal(st.sections, n);
    assert_int_equal(st.bytes, bytes);
    assert_int_equal(st.max_section, max);
    if (path) {
        /* Every early section waited: in memory within the budget, the rest on disk. */
        assert_true(st.held_peak <= budget);
        assert_true(st.spilled <= early);
        assert_true(st.spilled_bytes <= early_bytes);
        if (budget == 0)
            assert_int_equal(st.spilled, early);
        if (budget == UINT64_MAX)
            assert_int_equal(st.spilled, 0);
        if (early && budget == UINT64_MAX)
            assert_true(st.held_peak > 0);
        size_t len;
        unsigned char *f = op_test_read_file(path, &len);
        assert_non_null(f);
        if (len != b->file_len || memcmp(f, b->file, len) != 0)
            fail_msg("gathered file (%zu bytes) differs from the one-process file (%zu)", len,
                     b->file_len);
        free(f);
        remove(path);
        assert_int_equal(leftovers(path), 0); /* no spill file, no temporary */
    } else {
        assert_int_equal(st.spilled, 0);
    }
}

static void test_orders_and_budgets(void **state)
{
    (void)state;
    for (int keep = 0; keep <= 1; keep++) {
        baked b;
        bake(&b, 11 + (uint64_t)keep, 16, keep);
        const uint32_t n = b.r.tile_count;
        assert_true(n >= 12);
        uint32_t *order = malloc(n * sizeof *order);
        assert_non_null(order);
        /* A budget of about three sections: some wait in memory, some on disk. */
        const uint64_t few = 3 * (uint64_t)(b.file_len / n);
        const uint64_t budgets[] = {0, few, UINT64_MAX};
        for (int how = IN_ORDER; how <= SHUFFLED; how++)
            for (size_t bi = 0; bi < sizeof budgets / sizeof *budgets; bi++)
                for (uint64_t seed = 1; seed <= (how == SHUFFLED ? 3u : 1u); seed++) {
                    order_of(order, n, how, seed * 977 + bi);
                    char path[4096];
                    snprintf(path, sizeof path, "%s", op_test_tmp_path(".opbake"));
                    gather(&b, order, path, budgets[bi]);
                }
        order_of(order, n, SHUFFLED, 5);
        gather(&b, order, NULL, 0);
        free(order);
        unbake(&b);
    }
}

/* Puts the sections in the order, the one at position bad_at replaced by bad (len
 * bad_len), expecting the first refusal at put number fail_at (n: at finish); then
 * nothing is left next to path. */
static void refused(const baked *b, const uint32_t *order, uint32_t count, uint64_t budget,
                    uint32_t bad_at, const unsigned char *bad, size_t bad_len, uint32_t fail_at,
                    const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", op_test_tmp_path(".opbake"));
    cli_gather *g;
    ok(cli_gather_open(&g_ctx, &b->r, b->flags, path, budget, &g), "gather open");
    op_status st = OP_OK;
    uint32_t i = 0;
    for (; i < count && st == OP_OK; i++) {
        const uint32_t k = order[i], own = k < b->r.tile_count ? k : 0;
        st = i == bad_at ? cli_gather_put(g, k, bad, bad_len)
                         : cli_gather_put(g, k, b->sec[own], b->len[own]);
    }
    if (st != OP_OK) {
        assert_int_equal(i - 1, fail_at);
        cli_gather_stats gs;
        cli_gather_abort(g, &gs);
    } else {
        assert_int_equal(count, fail_at);
        st = cli_gather_finish(g, NULL, NULL);
    }
    assert_int_equal(st, OP_BAD_INPUT);
    if (!strstr(g_ctx.err, text))
        fail_msg("message '%s' lacks '%s'", g_ctx.err, text);
    assert_int_equal(leftovers(path), 0);
}

static void test_refusals(void **state)
{
    (void)state;
    baked b;
    bake(&b, 7, 16, 1);
    const uint32_t n = b.r.tile_count;
    uint32_t *order = malloc((n + 1) * sizeof *order);
    assert_non_null(order);
    order_of(order, n, REVERSED, 0);
    /* A tile given twice (the second time while the first waits on disk or in memory). */
    order[2] = order[1];
    refused(&b, order, 3, 0, 99, NULL, 0, 2, "came twice");
    refused(&b, order, 3, UINT64_MAX, 99, NULL, 0, 2, "came twice");
    /* A tile that is not in the world. */
    order_of(order, n, IN_ORDER, 0);
    order[1] = n;
    refused(&b, order, 2, 0, 99, NULL, 0, 1, "was not expected");
    /* A missing tile: refused at finish. */
    order_of(order, n, REVERSED, 0);
    refused(&b, order, n - 1, 0, 99, NULL, 0, n - 1, "tile (0, 0) is missing");
    /* A corrupted section: refused when its turn comes, whether it came in its turn,
     * waited in memory or in the spill file. The last one put is tile 0 in reverse
     * order: every waiting section is checked then. */
    const uint32_t victim = n / 2;
    unsigned char *bad = malloc(b.len[victim]);
    assert_non_null(bad);
    memcpy(bad, b.sec[victim], b.len[victim]);
    bad[b.len[victim] / 2] ^= 0x10;
    order_of(order, n, IN_ORDER, 0);
    refused(&b, order, n, 0, victim, bad, b.len[victim], victim, "tile section");
    order_of(order, n, REVERSED, 0);
    refused(&b, order, n, 0, n - 1 - victim, bad, b.len[victim], n - 1, "tile section");
    refused(&b, order, n, UINT64_MAX, n - 1 - victim, bad, b.len[victim], n - 1, "tile section");
    /* Another tile's section given as this one's. */
    refused(&b, order, n, 0, n - 1 - victim, b.sec[victim + 1], b.len[victim + 1], n - 1, "");
    free(bad);
    free(order);
    unbake(&b);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_and_budgets),
        cmocka_unit_test(test_refusals),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
