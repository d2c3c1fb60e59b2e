/* Shards and merges (issue 14): cuts K/N and rectangles cover every tile exactly once;
 * shards 1/3, 2/3, 3/3 (and other splits) merged give the one-machine file byte for byte
 * on the demo world and random meshes, with region ids and raw loops too; merge refuses a
 * missing, duplicated or foreign part naming the tiles and files; partial files round
 * trip; version 1 files are still read; the world and settings digests follow what they
 * cover; writes are atomic (a killed writer leaves no file); the hooks' misuse fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onepath/onepath.h"
#include "core/le.h"
#include "util/testalloc.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static void ok(op_status st, const char *what)
{
    if (st != OP_OK)
        fail_msg("%s: %s: %s", what, op_status_name(st), op_ctx_error(&g_ctx));
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Bytes of a file (malloc'd). */
static unsigned char *slurp(const char *path, size_t *len)
{
    unsigned char *b = op_test_read_file(path, len);
    if (!b)
        fail_msg("cannot read %s", path);
    return b;
}

typedef struct world {
    op_scene scene;
    op_bake_settings bs;
    int keep; /* region ids and raw loops in the files */
} world;

static void demo_world(world *w, uint32_t size, int T)
{
    memset(w, 0, sizeof *w);
    op_bake_settings_defaults(&w->bs);
    ok(op_demo_world(&g_ctx, size, &w->scene, &w->bs.config), "demo world");
    w->bs.config.tile_size = T;
}

static void random_world(world *w, uint64_t seed, int T, int keep)
{
    memset(w, 0, sizeof *w);
    op_bake_settings_defaults(&w->bs);
    ok(op_test_random_scene(&g_ctx, &w->scene, &w->bs.config, seed, 40, 30), "random scene");
    w->bs.config.tile_size = T;
    w->bs.regions.min_region_area = 4;
    w->bs.contours.keep_raw = keep;
    w->keep = keep;
}

static unsigned file_flags(const world *w)
{
    return w->keep ? OP_OPBAKE_REGIONS | OP_OPBAKE_RAW : 0;
}

static void options(const world *w, int threads, op_tiled_options *o)
{
    op_tiled_options_defaults(o);
    o->threads = threads;
    o->keep_regions = w->keep;
}

/* The one-machine bake's file. */
static void bake_whole(const world *w, const char *path, op_tiled_result *r)
{
    op_tiled_options o;
    options(w, 2, &o);
    ok(op_bake_tiled(&g_ctx, &w->scene, &w->bs, &o, r), "whole bake");
    ok(op_opbake_write(&g_ctx, r, file_flags(w), path), "write whole");
}

static void bake_part(const world *w, const char *range, int threads, const char *path)
{
    op_shard sh;
    ok(op_shard_parse(&g_ctx, range, &sh), range);
    op_tiled_options o;
    options(w, threads, &o);
    op_tiled_result r;
    ok(op_bake_shard(&g_ctx, &w->scene, &w->bs, &o, &sh, &r), range);
    assert_non_null(r.held);
    assert_int_equal(r.digest, 0);
    uint32_t n = 0;
    for (uint32_t k = 0; k < r.tile_count; k++) {
        n += r.held[k];
        if (!r.held[k]) /* tiles outside the shard were not baked */
            assert_int_equal(r.tiles[k].span_count + r.tiles[k].contours.count, 0);
    }
    assert_int_equal(n, r.held_count);
    ok(op_opbake_write(&g_ctx, &r, file_flags(w), path), "write part");
    op_tiled_result_free(&r);
}

static void same_file(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    if (la != lb || memcmp(x, y, la) != 0)
        fail_msg("%s (%zu bytes) and %s (%zu bytes) differ", a, la, b, lb);
    free(x);
    free(y);
}

/* Splits into parts by each list of ranges, merges in the order given, and compares
 * with the whole bake's file. */
static void split_and_merge(const world *w, const char *const *ranges, size_t n)
{
    char whole[4096], merged[4096], parts[8][4096];
    snprintf(whole, sizeof whole, "%s", op_test_tmp_path(".opbake"));
    snprintf(merged, sizeof merged, "%s", op_test_tmp_path(".opbake"));
    op_tiled_result r;
    bake_whole(w, whole, &r);
    const char *names[8];
    for (size_t i = 0; i < n; i++) {
        snprintf(parts[i], sizeof parts[i], "%s", op_test_tmp_path(".part.opbake"));
        bake_part(w, ranges[i], 1 + (int)(i % 3), parts[i]);
        names[i] = parts[i];
    }
    op_opbake_merge_info info;
    ok(op_opbake_merge(&g_ctx, names, n, merged, &info), "merge");
    assert_int_equal(info.parts, n);
    assert_int_equal(info.tiles, r.tile_count);
    assert_int_equal(info.digest, r.digest);
    same_file(whole, merged);
    struct stat sb;
    assert_int_equal(stat(merged, &sb), 0);
    assert_int_equal((uint64_t)sb.st_size, info.bytes);
    /* Merging the merged file alone gives it again (a whole file is a part of itself). */
    const char *one[1] = {merged};
    char again[4096];
    snprintf(again, sizeof again, "%s", op_test_tmp_path(".opbake"));
    ok(op_opbake_merge(&g_ctx, one, 1, again, NULL), "merge of a whole file");
    same_file(whole, again);
    remove(again);
    for (size_t i = 0; i < n; i++)
        remove(parts[i]);
    remove(whole);
    remove(merged);
    op_tiled_result_free(&r);
}

static void test_cuts_demo(void **state)
{
    (void)state;
    world w;
    demo_world(&w, 512, 64);
    static const char *const thirds[] = {"1/3", "2/3", "3/3"};
    split_and_merge(&w, thirds, 3);
    static const char *const reversed[] = {"3/3", "1/3", "2/3"};
    split_and_merge(&w, reversed, 3);
    static const char *const rects[] = {"0-3,0-7", "4-7,0-3", "4-7,4-7"};
    split_and_merge(&w, rects, 3);
    static const char *const one[] = {"1/1"};
    split_and_merge(&w, one, 1);
    op_scene_free(&w.scene);
}

static void test_cuts_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        world w;
        random_world(&w, seed, 12 + (int)seed * 3, seed % 2 == 0);
        static const char *const thirds[] = {"2/3", "1/3", "3/3"};
        split_and_merge(&w, thirds, 3);
        static const char *const many[] = {"1/5", "2/5", "3/5", "4/5", "5/5"};
        split_and_merge(&w, many, 5);
        op_scene_free(&w.scene);
    }
}

/* More cuts than tiles: some parts hold nothing, and the merge still works. */
static void test_empty_parts(void **state)
{
    (void)state;
    world w;
    random_world(&w, 7, 32, 0);
    op_tiled_result r;
    op_tiled_options o;
    options(&w, 1, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), "bake");
    const uint32_t n = r.tile_count + 2;
    op_tiled_result_free(&r);
    char ranges[64][24];
    const char *list[64];
    assert_true(n <= 64);
    for (uint32_t k = 0; k < n; k++) {
        snprintf(ranges[k], sizeof ranges[k], "%u/%u", k + 1, n);
        list[k] = ranges[k];
    }
    /* split_and_merge holds at most 8 parts: merge the rest by hand. */
    char whole[4096], merged[4096];
    char(*parts)[4096] = malloc((size_t)n * 4096);
    const char *names[64];
    snprintf(whole, sizeof whole, "%s", op_test_tmp_path(".opbake"));
    snprintf(merged, sizeof merged, "%s", op_test_tmp_path(".opbake"));
    bake_whole(&w, whole, &r);
    uint32_t empty = 0;
    for (uint32_t k = 0; k < n; k++) {
        snprintf(parts[k], 4096, "%s", op_test_tmp_path(".part.opbake"));
        bake_part(&w, list[k], 1, parts[k]);
        names[k] = parts[k];
        op_tiled_result p;
        ok(op_opbake_read(&g_ctx, parts[k], &p, NULL), "read part");
        empty += p.held_count == 0;
        op_tiled_result_free(&p);
    }
    assert_true(empty >= 2);
    ok(op_opbake_merge(&g_ctx, names, n, merged, NULL), "merge");
    same_file(whole, merged);
    for (uint32_t k = 0; k < n; k++)
        remove(parts[k]);
    remove(whole);
    remove(merged);
    free(parts);
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* The cuts: a partition of the tiles into runs, balanced within one tile's cost. */
static void test_select(void **state)
{
    (void)state;
    op_rng rng = {42};
    for (int round = 0; round < 200; round++) {
        const uint32_t tx = 1 + op_rng_below(&rng, 20), tz = 1 + op_rng_below(&rng, 20);
        const uint32_t count = tx * tz, n = 1 + op_rng_below(&rng, 12);
        uint64_t cost[400], total = 0, max = 0;
        for (uint32_t k = 0; k < count; k++) {
            cost[k] = round % 3 == 0 ? 1 + op_rng_below(&rng, 4)
                                     : (uint64_t)op_rng_below(&rng, 1000) * op_rng_below(&rng, 1000) + 1;
            if (round == 7)
                cost[k] = UINT64_MAX / 4; /* capped, and still a partition */
            total += cost[k] < (1ull << 32) ? cost[k] : (1ull << 32);
            max = cost[k] > max ? cost[k] : max;
        }
        uint8_t held[400];
        uint32_t owner[400];
        for (uint32_t k = 0; k < count; k++)
            owner[k] = UINT32_MAX;
        for (uint32_t c = 1; c <= n; c++) {
            const op_shard sh = {OP_SHARD_CUT, 0, 0, 0, 0, c, n};
            ok(op_shard_select(&g_ctx, &sh, tx, tz, cost, held), "select");
            uint64_t sum = 0;
            int runs = 0;
            for (uint32_t k = 0; k < count; k++) {
                if (!held[k])
                    continue;
                assert_int_equal(owner[k], UINT32_MAX);
                owner[k] = c;
                sum += cost[k];
                runs += k == 0 || !held[k - 1];
            }
            assert_true(runs <= 1);
            if (round != 7 && max < (1ull << 32))
                assert_true(sum <= total / n + max + 1);
        }
        for (uint32_t k = 0; k < count; k++) {
            assert_true(owner[k] != UINT32_MAX);
            if (k)
                assert_true(owner[k] >= owner[k - 1]); /* cuts in (tz, tx) order */
        }
    }
    /* Rectangles. */
    uint8_t held[12];
    op_shard sh;
    ok(op_shard_parse(&g_ctx, "1-2,0-1", &sh), "parse");
    ok(op_shard_select(&g_ctx, &sh, 4, 3, NULL, held), "rect");
    static const uint8_t want[12] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(held, want, 12);
    ok(op_shard_parse(&g_ctx, "3,2", &sh), "one tile");
    ok(op_shard_select(&g_ctx, &sh, 4, 3, NULL, held), "one tile");
    for (int k = 0; k < 12; k++)
        assert_int_equal(held[k], k == 11);
    ok(op_shard_parse(&g_ctx, "0-4,0", &sh), "parse");
    assert_int_equal(op_shard_select(&g_ctx, &sh, 4, 3, NULL, held), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "4 x 3 tiles"));
    char buf[32];
    assert_string_equal(op_shard_format(&sh, buf, sizeof buf), "0-4,0-0");
    static const char *const bad[] = {"", "0/3", "4/3", "1/0", "a/b", "1/3x", "3-1,0", "0,",
                                      "0-,1", "1,2,3", "-1,0", "99999999999,0", "2/-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (op_shard_parse(&g_ctx, bad[i], &sh) != OP_INVALID_ARGUMENT)
            fail_msg("'%s' parsed", bad[i]);
        assert_non_null(strstr(op_ctx_error(&g_ctx), "tile range"));
    }
}

/* Merge refuses what does not make the whole bake, naming files and tiles. */
static void expect_merge_fails(const char *const *names, size_t n, const char *out,
                               const char *needle, const char *needle2)
{
    const op_status st = op_opbake_merge(&g_ctx, names, n, out, NULL);
    if (st == OP_OK)
        fail_msg("merge accepted (expected '%s')", needle);
    const char *e = op_ctx_error(&g_ctx);
    if (!strstr(e, needle) || (needle2 && !strstr(e, needle2)))
        fail_msg("message '%s' lacks '%s' / '%s'", e, needle, needle2 ? needle2 : "");
    assert_false(exists(out)); /* no file at all */
}

static void test_merge_refuses(void **state)
{
    (void)state;
    world w, other;
    random_world(&w, 11, 16, 0);
    random_world(&other, 12, 16, 0);
    char p[6][4096], out[4096];
    for (int i = 0; i < 6; i++)
        snprintf(p[i], sizeof p[i], "%s", op_test_tmp_path(".part.opbake"));
    snprintf(out, sizeof out, "%s", op_test_tmp_path(".opbake"));
    bake_part(&w, "1/3", 2, p[0]);
    bake_part(&w, "2/3", 2, p[1]);
    bake_part(&w, "3/3", 2, p[2]);
    bake_part(&other, "3/3", 2, p[3]); /* another world */
    op_bake_settings keep = w.bs;
    w.bs.contours.max_error = 2.5; /* other settings */
    bake_part(&w, "3/3", 2, p[4]);
    w.bs = keep;
    bake_part(&w, "0-1,0-1", 1, p[5]); /* overlaps 1/3 */

    const char *missing[] = {p[0], p[2]};
    op_tiled_result mid;
    ok(op_opbake_read(&g_ctx, p[1], &mid, NULL), "read 2/3");
    uint32_t first = 0;
    while (!mid.held[first])
        first++;
    char tile[64];
    snprintf(tile, sizeof tile, "(%u, %u)", first % mid.tiles_x, first / mid.tiles_x);
    op_tiled_result_free(&mid);
    expect_merge_fails(missing, 2, out, "in none of the 2 parts", tile);
    const char *dup[] = {p[0], p[1], p[2], p[1]};
    expect_merge_fails(dup, 4, out, "is in both", p[1]);
    const char *overlap[] = {p[0], p[1], p[2], p[5]};
    expect_merge_fails(overlap, 4, out, "tile (0, 0) is in both", p[5]);
    const char *foreign[] = {p[0], p[1], p[3]};
    expect_merge_fails(foreign, 3, out, "another world", p[3]);
    const char *settings[] = {p[0], p[1], p[4]};
    expect_merge_fails(settings, 3, out, "other settings", p[4]);
    const char *absent[] = {p[0], "/nonexistent/part.opbake"};
    expect_merge_fails(absent, 2, out, "/nonexistent/part.opbake", NULL);

    /* A corrupted part is named with its offset. */
    size_t len;
    unsigned char *b = slurp(p[1], &len);
    b[len / 2] ^= 0x10;
    char bad[4096];
    snprintf(bad, sizeof bad, "%s", op_test_tmp_path(".bad.opbake"));
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
    const char *corrupt[] = {p[0], bad, p[2]};
    expect_merge_fails(corrupt, 3, out, bad, "offset");
    /* A version 1 file cannot be merged (no digests to compare). */
    const char *good[] = {p[0], p[1], p[2]};
    ok(op_opbake_merge(&g_ctx, good, 3, out, NULL), "merge");
    remove(bad);
    remove(out);
    for (int i = 0; i < 6; i++)
        remove(p[i]);
    op_scene_free(&w.scene);
    op_scene_free(&other.scene);
}

/* A version 2 whole file rewritten as version 1 (header 1, WRLD without the two
 * digests): read, same tiles and digest, flagged VERSION1; not mergeable. */
static unsigned char *as_version1(const unsigned char *v2, size_t len, size_t *out_len)
{
    unsigned char *v1 = malloc(len);
    assert_non_null(v1);
    memcpy(v1, v2, 16);
    op_le_put32(v1 + 8, 1);
    const size_t wrld = 16;
    memcpy(v1 + wrld, v2 + wrld, 16 + 88);
    op_le_put32(v1 + wrld + 8, 88);
    const uint64_t sum = op_digest_bytes(v1 + wrld, 16 + 88);
    op_le_put32(v1 + wrld + 16 + 88, (uint32_t)sum);
    op_le_put32(v1 + wrld + 16 + 92, (uint32_t)(sum >> 32));
    const size_t rest = wrld + 16 + 104 + 8;
    memcpy(v1 + wrld + 16 + 88 + 8, v2 + rest, len - rest);
    *out_len = len - 16;
    return v1;
}

static void test_version1_read(void **state)
{
    (void)state;
    world w;
    random_world(&w, 21, 16, 1);
    op_tiled_result r;
    op_tiled_options o;
    options(&w, 2, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), "bake");
    unsigned char *v2;
    size_t len;
    ok(op_opbake_encode(&g_ctx, &r, file_flags(&w), &v2, &len), "encode");
    assert_int_equal(op_le_get32(v2 + 8), 2);
    size_t len1;
    unsigned char *v1 = as_version1(v2, len, &len1);
    op_tiled_result back;
    unsigned flags;
    ok(op_opbake_decode(&g_ctx, v1, len1, &back, &flags), "decode version 1");
    assert_int_equal(flags, file_flags(&w) | OP_OPBAKE_VERSION1);
    assert_int_equal(back.digest, r.digest);
    assert_int_equal(back.digest_world, 0);
    assert_null(back.held);
    for (uint32_t k = 0; k < r.tile_count; k++)
        assert_int_equal(back.tiles[k].digest_contours, r.tiles[k].digest_contours);
    /* Written again it is the version 2 file but for the two digests. */
    unsigned char *again;
    size_t alen;
    assert_int_equal(op_opbake_encode(&g_ctx, &back, flags, &again, &alen), OP_INVALID_ARGUMENT);
    ok(op_opbake_encode(&g_ctx, &back, flags & ~OP_OPBAKE_VERSION1, &again, &alen), "re-encode");
    assert_int_equal(alen, len);
    assert_memory_equal(again + 144, v2 + 144, len - 144); /* after WRLD */
    op_free(&g_ctx, again);
    op_tiled_result_free(&back);
    /* A version 1 WRLD cannot claim PART. */
    op_le_put32(v1 + 16 + 16 + 28, OP_OPBAKE_PART);
    const uint64_t sum = op_digest_bytes(v1 + 16, 16 + 88);
    op_le_put32(v1 + 16 + 16 + 88, (uint32_t)sum);
    op_le_put32(v1 + 16 + 16 + 92, (uint32_t)(sum >> 32));
    assert_int_equal(op_opbake_decode(&g_ctx, v1, len1, &back, NULL), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "unknown flags"));
    /* Merging it is refused. */
    char path[4096], out[4096];
    snprintf(path, sizeof path, "%s", op_test_tmp_path(".v1.opbake"));
    snprintf(out, sizeof out, "%s", op_test_tmp_path(".opbake"));
    unsigned char *v1b = as_version1(v2, len, &len1);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(v1b, 1, len1, f), len1);
    fclose(f);
    const char *names[] = {path};
    expect_merge_fails(names, 1, out, "version 1", path);
    remove(path);
    free(v1b);
    free(v1);
    op_free(&g_ctx, v2);
    op_tiled_result_free(&back);
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* Partial files: decoded as parts, canonical, and checked like whole files. */
static void test_partial_files(void **state)
{
    (void)state;
    world w;
    random_world(&w, 31, 12, 1);
    op_shard sh;
    ok(op_shard_parse(&g_ctx, "1-2,0-1", &sh), "parse");
    op_tiled_options o;
    options(&w, 2, &o);
    op_tiled_result r;
    ok(op_bake_shard(&g_ctx, &w.scene, &w.bs, &o, &sh, &r), "shard");
    assert_int_equal(r.held_count, 4);
    unsigned char *buf;
    size_t len;
    ok(op_opbake_encode(&g_ctx, &r, file_flags(&w), &buf, &len), "encode part");
    op_tiled_result back;
    unsigned flags;
    ok(op_opbake_decode(&g_ctx, buf, len, &back, &flags), "decode part");
    assert_int_equal(flags, file_flags(&w) | OP_OPBAKE_PART);
    assert_int_equal(back.held_count, 4);
    assert_memory_equal(back.held, r.held, r.tile_count);
    assert_int_equal(back.digest_world, r.digest_world);
    assert_int_equal(back.digest_settings, r.digest_settings);
    assert_int_equal(back.spans, r.spans);
    unsigned char *again;
    size_t alen;
    ok(op_opbake_encode(&g_ctx, &back, flags, &again, &alen), "re-encode part");
    assert_int_equal(alen, len);
    assert_memory_equal(again, buf, len);
    op_free(&g_ctx, again);
    /* PART asked for a whole result: refused. */
    op_tiled_result whole;
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &whole), "whole");
    assert_int_equal(op_opbake_encode(&g_ctx, &whole, OP_OPBAKE_PART, &again, &alen),
                     OP_INVALID_ARGUMENT);
    /* Each tile section of the part equals the whole file's section of that tile. */
    for (uint32_t k = 0; k < r.tile_count; k++) {
        if (!r.held[k])
            continue;
        unsigned char *a, *b;
        size_t la, lb;
        ok(op_opbake_encode_tile(&g_ctx, &r, &r.tiles[k], file_flags(&w), &a, &la), "tile");
        ok(op_opbake_encode_tile(&g_ctx, &whole, &whole.tiles[k], file_flags(&w), &b, &lb),
           "tile");
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        op_free(&g_ctx, a);
        op_free(&g_ctx, b);
    }
    op_tiled_result_free(&whole);
    op_tiled_result_free(&back);
    /* Corrupted PART sections, resealed so the content checks are reached. */
    const size_t part = 16 + 16 + 104 + 8, pay = part + 16;
    unsigned char *cp = malloc(len);
    assert_non_null(cp);
    struct {
        size_t at;
        uint32_t v;
        const char *needle;
    } cases[] = {{pay, 5, "runs hold"},            /* held count */
                 {pay + 8, 999, "leaves the"},     /* run start past the grid */
                 {pay + 12, 0, "is empty"},        /* empty run */
                 {pay + 4, 7, "runs need"}};       /* run count vs length */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(cp, buf, len);
        op_le_put32(cp + cases[i].at, cases[i].v);
        const uint64_t plen = op_le_get32(cp + part + 8);
        const uint64_t sum = op_digest_bytes(cp + part, 16 + (size_t)plen);
        op_le_put32(cp + part + 16 + plen, (uint32_t)sum);
        op_le_put32(cp + part + 20 + plen, (uint32_t)(sum >> 32));
        assert_int_equal(op_opbake_decode(&g_ctx, cp, len, &back, NULL), OP_BAD_INPUT);
        if (!strstr(op_ctx_error(&g_ctx), cases[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, op_ctx_error(&g_ctx), cases[i].needle);
    }
    free(cp);
    op_free(&g_ctx, buf);
    op_tiled_result_free(&back);
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* The streaming writer: sections in order give the whole file; out of order, twice,
 * foreign or corrupted sections are refused; abort leaves nothing. */
static void test_writer(void **state)
{
    (void)state;
    world w;
    random_world(&w, 41, 14, 0);
    op_tiled_result r;
    op_tiled_options o;
    options(&w, 2, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), "bake");
    assert_true(r.tile_count >= 4);
    char whole[4096], out[4096];
    snprintf(whole, sizeof whole, "%s", op_test_tmp_path(".opbake"));
    snprintf(out, sizeof out, "%s", op_test_tmp_path(".opbake"));
    ok(op_opbake_write(&g_ctx, &r, 0, whole), "write");
    unsigned char *sec[64];
    size_t slen[64];
    assert_true(r.tile_count <= 64);
    for (uint32_t k = 0; k < r.tile_count; k++)
        ok(op_opbake_encode_tile(&g_ctx, &r, &r.tiles[k], 0, &sec[k], &slen[k]), "tile");
    op_opbake_writer *wr;
    ok(op_opbake_writer_open(&g_ctx, &r, 0, out, &wr), "open");
    assert_int_equal(op_opbake_writer_put_section(wr, sec[1], slen[1]), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "tile (0, 0) comes next"));
    for (uint32_t k = 0; k < r.tile_count; k++) {
        if (k % 2)
            ok(op_opbake_writer_put_section(wr, sec[k], slen[k]), "section");
        else
            ok(op_opbake_writer_put_tile(wr, &r.tiles[k]), "tile");
    }
    assert_int_equal(op_opbake_writer_put_section(wr, sec[0], slen[0]), OP_BAD_INPUT);
    op_tiled_result sum;
    ok(op_opbake_writer_finish(wr, &sum), "finish");
    assert_int_equal(sum.digest, r.digest);
    assert_int_equal(sum.spans, r.spans);
    assert_int_equal(sum.contour_verts, r.contour_verts);
    op_tiled_result_free(&sum);
    same_file(whole, out);
    remove(out);

    /* Without a path: any order, each tile once, all of them. */
    ok(op_opbake_writer_open(&g_ctx, &r, 0, NULL, &wr), "open");
    for (uint32_t k = r.tile_count; k-- > 0;)
        ok(op_opbake_writer_put_section(wr, sec[k], slen[k]), "section");
    assert_int_equal(op_opbake_writer_put_section(wr, sec[2], slen[2]), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "came twice"));
    ok(op_opbake_writer_finish(wr, &sum), "finish");
    assert_int_equal(sum.digest, r.digest);
    op_tiled_result_free(&sum);

    /* A missing tile, a corrupted section. */
    ok(op_opbake_writer_open(&g_ctx, &r, 0, out, &wr), "open");
    ok(op_opbake_writer_put_section(wr, sec[0], slen[0]), "section");
    sec[1][slen[1] / 2] ^= 1;
    assert_int_equal(op_opbake_writer_put_section(wr, sec[1], slen[1]), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "checksum"));
    sec[1][slen[1] / 2] ^= 1;
    assert_int_equal(op_opbake_writer_finish(wr, NULL), OP_BAD_INPUT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "tile (1, 0) is missing"));
    assert_false(exists(out));
    ok(op_opbake_writer_open(&g_ctx, &r, 0, out, &wr), "open");
    op_opbake_writer_abort(wr);
    assert_false(exists(out));
    for (uint32_t k = 0; k < r.tile_count; k++)
        op_free(&g_ctx, sec[k]);
    remove(whole);
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* A writer killed half way (a child process that exits without finishing) leaves no
 * file at the path; an existing file there stays as it was. */
static void test_killed_writer(void **state)
{
    (void)state;
    world w;
    random_world(&w, 51, 12, 0);
    op_tiled_result r;
    op_tiled_options o;
    options(&w, 1, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), "bake");
    char out[4096];
    snprintf(out, sizeof out, "%s", op_test_tmp_path(".opbake"));
    for (int existing = 0; existing < 2; existing++) {
        if (existing) {
            FILE *f = fopen(out, "wb");
            assert_non_null(f);
            fputs("old", f);
            fclose(f);
        }
        fflush(NULL);
        const pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            op_opbake_writer *wr;
            if (op_opbake_writer_open(&g_ctx, &r, 0, out, &wr) != OP_OK)
                _exit(3);
            for (uint32_t k = 0; k + 1 < r.tile_count; k++)
                if (op_opbake_writer_put_tile(wr, &r.tiles[k]) != OP_OK)
                    _exit(4);
            _exit(0); /* killed before the last tile */
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (existing) {
            size_t n;
            unsigned char *b = slurp(out, &n);
            assert_int_equal(n, 3);
            assert_memory_equal(b, "old", 3);
            free(b);
        } else {
            assert_false(exists(out));
        }
    }
    remove(out);
    /* The temporaries the children left: PATH.tmp-PID-N. */
    const char *slash = strrchr(out, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int left = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, slash + 1, strlen(slash + 1)) || !strstr(e->d_name, ".tmp-"))
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        remove(p);
        left++;
    }
    closedir(d);
    assert_int_equal(left, 2); /* one per killed writer, never at the path itself */
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* The digests: the world's follows the input, the settings' every setting that shapes
 * the output, neither the thread count. */
static void test_digests(void **state)
{
    (void)state;
    world w;
    random_world(&w, 61, 16, 0);
    op_tiled_result a, b;
    op_tiled_options o;
    options(&w, 1, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &a), "bake");
    options(&w, 3, &o);
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &b), "bake");
    assert_int_equal(a.digest_world, b.digest_world);
    assert_int_equal(a.digest_settings, b.digest_settings);
    assert_true(a.digest_world != 0 && a.digest_settings != 0);
    op_tiled_result_free(&b);
    const uint64_t ds = a.digest_settings;
    op_config cfg = w.bs.config;
    cfg.border_size = (int)a.border_size;
    assert_int_equal(op_digest_tiled_settings(&w.bs, &cfg, a.tile_size, a.border_size), ds);
    /* Each setting moves the digest. */
    for (int field = 0; field < 14; field++) {
        op_bake_settings s = w.bs;
        op_config c = cfg;
        uint32_t T = a.tile_size, B = a.border_size;
        switch (field) {
        case 0: c.cs *= 1.5f; break;
        case 1: c.ch *= 1.5f; break;
        case 2: c.bmin[1] -= 1; break;
        case 3: c.bmax[2] += 1; break;
        case 4: c.walkable_slope_deg += 1; break;
        case 5: c.walkable_height += 1; break;
        case 6: c.walkable_climb += 1; break;
        case 7: c.walkable_radius += 1; break;
        case 8: T += 1; break;
        case 9: B += 1; break;
        case 10: s.regions.partition = OP_PARTITION_MONOTONE; break;
        case 11: s.regions.merge_region_area += 1; break;
        case 12: s.contours.max_error += 0.125; break;
        case 13: s.until = OP_STAGE_REGIONS; break;
        }
        if (op_digest_tiled_settings(&s, &c, T, B) == ds)
            fail_msg("setting %d does not change the settings digest", field);
    }
    /* Threads, keep_raw and the band region id do not. */
    op_bake_settings s = w.bs;
    s.contours.keep_raw = 1;
    s.contours.border_region = 7;
    assert_int_equal(op_digest_tiled_settings(&s, &cfg, a.tile_size, a.border_size), ds);
    /* The world's: a vertex, a triangle, a volume. */
    const uint64_t dw = op_digest_scene(&w.scene);
    assert_int_equal(dw, a.digest_world);
    w.scene.mesh.verts[4] += 0.25f;
    assert_true(op_digest_scene(&w.scene) != dw);
    w.scene.mesh.verts[4] -= 0.25f;
    assert_int_equal(op_digest_scene(&w.scene), dw);
    const uint32_t t = w.scene.mesh.tris[0];
    w.scene.mesh.tris[0] = w.scene.mesh.tris[1];
    assert_true(op_digest_scene(&w.scene) != dw);
    w.scene.mesh.tris[0] = t;
    assert_true(w.scene.volume_count > 0);
    w.scene.volumes[0].area ^= 1;
    assert_true(op_digest_scene(&w.scene) != dw);
    w.scene.volumes[0].area ^= 1;
    op_tiled_result_free(&a);
    op_scene_free(&w.scene);
}

/* OPSCENE1 and OPSETTINGS1 as docs/formats.md writes them, built here byte by byte and
 * hashed whole: the library's streams give the same digests (and the pinned values). */
typedef struct bytes {
    unsigned char b[512];
    size_t n;
} bytes;
static void b_u32(bytes *x, uint32_t v)
{
    op_le_put32(x->b + x->n, v);
    x->n += 4;
}
static void b_f32(bytes *x, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    b_u32(x, u);
}

static void test_digest_streams(void **state)
{
    (void)state;
    op_scene s;
    op_scene_init(&s);
    ok(op_mesh_add_vertex(&g_ctx, &s.mesh, 0, 0, 0), "v");
    ok(op_mesh_add_vertex(&g_ctx, &s.mesh, 4.5f, 0.25f, 0), "v");
    ok(op_mesh_add_vertex(&g_ctx, &s.mesh, 0, -1, 3), "v");
    ok(op_mesh_add_triangle(&g_ctx, &s.mesh, 0, 2, 1), "t");
    op_volume v;
    memset(&v, 0, sizeof v);
    v.kind = OP_VOLUME_BOX;
    v.area = 7;
    v.ymin = -1;
    v.ymax = 2;
    v.box_min[0] = 0.5f;
    v.box_min[1] = 0.25f;
    v.box_max[0] = 1;
    v.box_max[1] = 2;
    ok(op_scene_add_volume(&g_ctx, &s, &v), "volume");
    bytes x = {{0}, 0};
    memcpy(x.b, "OPSCENE1", 8);
    x.n = 8;
    b_u32(&x, 3);
    const float vs[9] = {0, 0, 0, 4.5f, 0.25f, 0, 0, -1, 3};
    for (int i = 0; i < 9; i++)
        b_f32(&x, vs[i]);
    b_u32(&x, 1);
    b_u32(&x, 0);
    b_u32(&x, 2);
    b_u32(&x, 1);
    b_u32(&x, 1);                       /* volumes */
    b_u32(&x, 1);                       /* box */
    x.b[x.n++] = 7;                     /* area */
    b_f32(&x, -1);
    b_f32(&x, 2);
    b_f32(&x, 0.5f);                    /* min x, max x, min z, max z */
    b_f32(&x, 1);
    b_f32(&x, 0.25f);
    b_f32(&x, 2);
    const uint64_t scene = op_digest_scene(&s);
    assert_int_equal(scene, op_digest_bytes(x.b, x.n));
    assert_int_equal(scene, 0x39e8b9d28da4693dull);

    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    op_config c = bs.config;
    const float lo[3] = {0, -1, 0}, hi[3] = {4.5f, 0.25f, 3};
    memcpy(c.bmin, lo, sizeof lo);
    memcpy(c.bmax, hi, sizeof hi);
    bytes y = {{0}, 0};
    memcpy(y.b, "OPSETTINGS1", 11);
    y.n = 11;
    b_f32(&y, c.cs);
    b_f32(&y, c.ch);
    for (int i = 0; i < 3; i++)
        b_f32(&y, lo[i]);
    for (int i = 0; i < 3; i++)
        b_f32(&y, hi[i]);
    b_f32(&y, c.walkable_slope_deg);
    b_u32(&y, (uint32_t)c.walkable_height);
    b_u32(&y, (uint32_t)c.walkable_climb);
    b_u32(&y, (uint32_t)c.walkable_radius);
    b_u32(&y, 64);
    b_u32(&y, 5);
    b_u32(&y, (uint32_t)bs.regions.partition);
    b_u32(&y, bs.regions.min_region_area);
    b_u32(&y, bs.regions.merge_region_area);
    uint64_t e;
    memcpy(&e, &bs.contours.max_error, 8);
    b_u32(&y, (uint32_t)e);
    b_u32(&y, (uint32_t)(e >> 32));
    b_u32(&y, (uint32_t)bs.contours.max_edge_len);
    b_u32(&y, bs.contours.straight_region_borders != 0);
    b_u32(&y, (uint32_t)bs.until);
    const uint64_t set = op_digest_tiled_settings(&bs, &c, 64, 5);
    assert_int_equal(set, op_digest_bytes(y.b, y.n));
    assert_int_equal(set, 0x5c3efd9c109a42e7ull);
    op_scene_free(&s);
}

/* Hooks: a schedule that repeats or invents a tile fails the bake with a reason; a done
 * hook's failure is that tile's. */
typedef struct bad_sched {
    uint32_t seq[4], n, pos;
    uint32_t fail_at; /* done fails for this tile */
} bad_sched;

static int bad_next(void *user, uint32_t *index)
{
    bad_sched *b = user;
    if (b->pos >= b->n)
        return 0;
    *index = b->seq[b->pos++];
    return 1;
}

static op_status bad_done(void *user, op_ctx *w, op_tile *t, op_status st)
{
    bad_sched *b = user;
    if (st == OP_OK && t->tx + t->tz * 1000 == b->fail_at)
        return op_fail(w, OP_IO_ERROR, "cannot send it");
    return OP_OK;
}

static void test_hooks(void **state)
{
    (void)state;
    world w;
    random_world(&w, 71, 10, 0);
    op_tiled_options o;
    options(&w, 2, &o);
    op_tiled_result r;
    bad_sched b = {{1, 0, 1, 2}, 4, 0, UINT32_MAX};
    op_tile_hooks hk = {NULL, bad_next, bad_done, 0, &b};
    o.hooks = &hk;
    assert_int_equal(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "gave tile 1 twice"));
    assert_null(r.tiles);
    assert_null(r.held);
    op_tiled_result_free(&r);
    bad_sched c = {{0, 9999, 1, 2}, 4, 0, UINT32_MAX};
    hk.user = &c;
    assert_int_equal(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "gave tile 9999"));
    op_tiled_result_free(&r);
    bad_sched d = {{2, 1, 0}, 3, 0, 1};
    hk.user = &d;
    assert_int_equal(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), OP_IO_ERROR);
    assert_string_equal(op_ctx_error(&g_ctx), "tile (1, 0): cannot send it");
    op_tiled_result_free(&r);
    /* drop: the tiles pass through done and the result keeps none. */
    bad_sched e = {{2, 1, 0}, 3, 0, UINT32_MAX};
    hk.user = &e;
    hk.drop = 1;
    ok(op_bake_tiled(&g_ctx, &w.scene, &w.bs, &o, &r), "drop");
    assert_int_equal(r.held_count, 0);
    assert_int_equal(r.tiles[1].span_count, 0);
    assert_null(r.tiles[1].contours.contours);
    op_tiled_result_free(&r);
    /* op_bake_shard refuses options that bring hooks. */
    op_shard sh = {OP_SHARD_CUT, 0, 0, 0, 0, 1, 2};
    assert_int_equal(op_bake_shard(&g_ctx, &w.scene, &w.bs, &o, &sh, &r), OP_INVALID_ARGUMENT);
    op_tiled_result_free(&r);
    op_scene_free(&w.scene);
}

/* Through the allocator hook: shards, the writer and the merge free what they take
 * with the allocator they took it from; every allocation of a merge, failed in turn, is
 * a status with a message, leaks nothing and leaves no file. */
static void test_allocator(void **state)
{
    (void)state;
    world w;
    random_world(&w, 81, 14, 1);
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    ok(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), "ctx");
    char p[2][4096], whole[4096], out[4096];
    for (int i = 0; i < 2; i++)
        snprintf(p[i], sizeof p[i], "%s", op_test_tmp_path(".part.opbake"));
    snprintf(whole, sizeof whole, "%s", op_test_tmp_path(".opbake"));
    snprintf(out, sizeof out, "%s", op_test_tmp_path(".opbake"));
    for (int i = 0; i < 2; i++) {
        op_shard sh = {OP_SHARD_CUT, 0, 0, 0, 0, (uint32_t)i + 1, 2};
        op_tiled_options o;
        options(&w, 2, &o);
        op_tiled_result r;
        if (op_bake_shard(&ctx, &w.scene, &w.bs, &o, &sh, &r) != OP_OK ||
            op_opbake_write(&ctx, &r, file_flags(&w), p[i]) != OP_OK)
            fail_msg("%s", op_ctx_error(&ctx));
        op_tiled_result_free(&r);
    }
    op_tiled_result r;
    op_tiled_options o;
    options(&w, 2, &o);
    if (op_bake_tiled(&ctx, &w.scene, &w.bs, &o, &r) != OP_OK ||
        op_opbake_write(&ctx, &r, file_flags(&w), whole) != OP_OK)
        fail_msg("%s", op_ctx_error(&ctx));
    op_opbake_writer *wr;
    ok(op_opbake_writer_open(&ctx, &r, file_flags(&w), NULL, &wr), "open");
    for (uint32_t k = 0; k < r.tile_count; k++)
        ok(op_opbake_writer_put_tile(wr, &r.tiles[k]), "tile");
    op_tiled_result sum;
    ok(op_opbake_writer_finish(wr, &sum), "finish");
    assert_int_equal(sum.digest, r.digest);
    op_tiled_result_free(&sum);
    op_tiled_result_free(&r);
    const char *names[] = {p[0], p[1]};
    const uint64_t before = ta.allocs;
    if (op_opbake_merge(&ctx, names, 2, out, NULL) != OP_OK)
        fail_msg("merge: %s", op_ctx_error(&ctx));
    const uint64_t allocs = ta.allocs - before;
    same_file(whole, out);
    remove(out);
    op_ctx_free(&ctx);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
    assert_true(allocs > 5);
    for (uint64_t n = 1; n <= allocs; n++) {
        op_test_alloc_init(&ta);
        ok(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_SCALAR), "ctx");
        ta.fail_at = ta.allocs + n;
        const op_status st = op_opbake_merge(&ctx, names, 2, out, NULL);
        if (st != OP_NO_MEMORY)
            fail_msg("allocation %llu failed: %s (%s)", (unsigned long long)n,
                     op_status_name(st), op_ctx_error(&ctx));
        assert_true(op_ctx_error(&ctx)[0] != 0);
        assert_false(exists(out));
        op_ctx_free(&ctx);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.bad_frees, 0);
    }
    for (int i = 0; i < 2; i++)
        remove(p[i]);
    remove(whole);
    op_scene_free(&w.scene);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    /* ci/tiles.sh runs a few of these under ThreadSanitizer (OP_TEST_FILTER=pattern). */
    const char *filter = getenv("OP_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_cuts_demo),
        cmocka_unit_test(test_cuts_random),
        cmocka_unit_test(test_empty_parts),
        cmocka_unit_test(test_merge_refuses),
        cmocka_unit_test(test_version1_read),
        cmocka_unit_test(test_partial_files),
        cmocka_unit_test(test_writer),
        cmocka_unit_test(test_killed_writer),
        cmocka_unit_test(test_digests),
        cmocka_unit_test(test_digest_streams),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_allocator),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
