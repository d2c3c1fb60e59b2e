/* checkasm-style identity test of the spans row kernels (kernel family `spans`): for
 * every variant this machine runs, ledge_row (supplement §1.4.2; with all3 the three
 * filters of §1.4 in one pass) on random solid
 * heightfields and link_row (§1.5) on random compact heightfields give the scalar twin's
 * bytes. Fields: widths 1..70 (every tail of a vector run) and wide ones, mostly one span
 * per column (the vector runs) with breaks of empty and multi-span columns, steps near
 * walkable_climb and walkable_height, floors near the 16-bit top, unpacked solid fields
 * (columns moved by op_heightfield_add_span: spans not consecutive), walkable_climb 0;
 * the ledges on each field as op_heightfield_add_span leaves it (column ends in hf->end)
 * and packed (op_hf_pack: end NULL, first the prefix sum, as the rasterizer writes it).
 * Link arrays are pre-filled with different sentinels, so an unwritten slot differs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernels.h"
#include "core/links16.h"
#include "spans/spans_internal.h"
#include "util/testutil.h"
#include "util/variants.h"

static op_isa variants[OP_ISA_COUNT];
static int variant_count;
static unsigned long compared[OP_ISA_COUNT][2];
static op_ctx g_ctx;
static unsigned long g_marked, g_kept, g_linked, g_unlinked, g_raised, g_oneway;
static int g_prefix;           /* ledge fields packed by op_hf_pack (end NULL) */
static unsigned long g_fields[2]; /* ledge fields compared: with end, prefix sums */

/* The field as built (column ends in hf->end), or packed with g_prefix. */
static void ledge_field_ready(op_heightfield *hf)
{
    assert_non_null(hf->end);
    if (g_prefix) {
        assert_int_equal(op_hf_pack(&g_ctx, hf), OP_OK);
        assert_null(hf->end);
        assert_int_equal(hf->first[(size_t)hf->width * hf->depth], hf->span_used);
    }
    g_fields[g_prefix]++;
}

static int setup(void **state)
{
    (void)state;
    variant_count = op_test_simd_variants(variants, NULL);
    return op_ctx_init(&g_ctx, OP_ISA_SCALAR) == OP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    op_ctx_free(&g_ctx);
    return 0;
}

/* Mostly single-span columns on a smooth floor with steps; pct_multi % of columns hold
 * 2..3 spans, pct_empty % none. high: floors near 0xffff. scramble: columns added out of
 * cell order (unpacked). */
static void random_hf(op_heightfield *hf, uint64_t seed, uint32_t w, uint32_t d,
                      uint32_t pct_multi, uint32_t pct_empty, int high, int scramble)
{
    const float bmin[3] = {0, 0, 0}, bmax[3] = {(float)w, 100, (float)d};
    assert_int_equal(op_heightfield_init(&g_ctx, hf, w, d, bmin, bmax, 1.0f, 1.0f), OP_OK);
    op_rng r = {seed};
    const uint32_t base = high ? 65500 : 200;
    for (uint32_t k = 0; k < w * d; k++) {
        const uint32_t c = scramble ? (k * 7919u) % (w * d) : k;
        if (scramble && (w * d) % 7919u == 0)
            continue;
        const uint32_t x = c % w, z = c / w;
        if (op_rng_below(&r, 100) < pct_empty)
            continue;
        const uint32_t floors = op_rng_below(&r, 100) < pct_multi ? 2 + op_rng_below(&r, 2) : 1;
        uint32_t y = base + (x + z) / 4 + op_rng_below(&r, 7) +
                     (op_rng_below(&r, 10) == 0 ? op_rng_below(&r, 30) : 0);
        uint32_t lo = op_rng_below(&r, 4) == 0 ? (y > 40 ? y - 40 : 0) : (y > 3 ? y - 3 : 0);
        for (uint32_t f = 0; f < floors && y < 65535; f++) {
            const uint8_t area = op_rng_below(&r, 8) ? OP_WALKABLE_AREA : OP_NULL_AREA;
            assert_int_equal(op_heightfield_add_span(&g_ctx, hf, x, z, (uint16_t)lo,
                                                     (uint16_t)y, area, 1),
                             OP_OK);
            /* A third of the stacks close above (floors 2..5 apart: the low-hanging
             * filter's climb), the rest a gap of 2..15. */
            lo = y + 1 + (op_rng_below(&r, 3) == 0 ? 0 : 1 + op_rng_below(&r, 14));
            y = lo + 1 + op_rng_below(&r, 4);
        }
    }
}

static void check_ledges_with(uint64_t seed, uint32_t w, uint32_t d, uint32_t multi,
                              uint32_t empty, int high, int scramble, int all3)
{
    op_heightfield hf;
    random_hf(&hf, seed, w, d, multi, empty, high, scramble);
    ledge_field_ready(&hf);
    uint8_t *orig = malloc(hf.span_used + 1), *ref = malloc(hf.span_used + 1);
    memcpy(orig, hf.area, hf.span_used);
    const int32_t wh = 2 + (int32_t)(seed % 12), climb = (int32_t)(seed % 5);
    /* Interior cells only, as the filter calls it. */
    for (uint32_t z = 1; z + 1 < d; z++)
        if (w > 2)
            op_ledge_row_scalar(&hf, z, 1, w - 1, wh, climb, all3);
    memcpy(ref, hf.area, hf.span_used);
    for (uint32_t s = 0; s < hf.span_used; s++) {
        g_marked += orig[s] && !ref[s];
        g_kept += ref[s] != 0;
        g_raised += all3 && !orig[s] && ref[s];
    }
    for (int vi = 0; vi < variant_count; vi++) {
        op_kernels k;
        op_kernels_init(&k, variants[vi], op_isa_flags(variants[vi]));
        memcpy(hf.area, orig, hf.span_used);
        for (uint32_t z = 1; z + 1 < d; z++)
            if (w > 2)
                k.spans.ledge_row(&hf, z, 1, w - 1, wh, climb, all3);
        compared[variants[vi]][0]++;
        for (uint32_t s = 0; s < hf.span_used; s++)
            if (hf.area[s] != ref[s])
                fail_msg("ledge_row %s all3 %d, seed %llu (%ux%u): span %u area %u, scalar %u",
                         op_isa_name(variants[vi]), all3, (unsigned long long)seed, w, d, s,
                         hf.area[s], ref[s]);
    }
    free(orig);
    free(ref);
    op_heightfield_free(&hf);
}

/* The ledge filter alone, and the three filters in one pass (all3). */
static void check_ledges(uint64_t seed, uint32_t w, uint32_t d, uint32_t multi, uint32_t empty,
                         int high, int scramble)
{
    for (g_prefix = 0; g_prefix < 2; g_prefix++)
        for (int all3 = 0; all3 < 2; all3++)
            check_ledges_with(seed, w, d, multi, empty, high, scramble, all3);
    g_prefix = 0;
}

/* A compact field whose clearances and steps sit at the rule's edges: h within 2 of
 * walkable_height, floor steps within 1 of walkable_climb; pct_multi % of cells hold two
 * spans, pct_empty % none. */
static void edge_chf(op_chf *chf, uint64_t seed, uint32_t w, uint32_t d, uint32_t pct_multi,
                     uint32_t pct_empty, int32_t wh, int32_t climb)
{
    op_rng r = {seed * 31 + 7};
    uint32_t *cnt = calloc((size_t)w * d, sizeof *cnt);
    uint32_t total = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        cnt[c] = op_rng_below(&r, 100) < pct_empty ? 0
                 : op_rng_below(&r, 100) < pct_multi ? 2 : 1;
        total += cnt[c];
    }
    assert_int_equal(op_chf_alloc(&g_ctx, chf, w, d, total), OP_OK);
    chf->walkable_height = wh;
    chf->walkable_climb = climb;
    uint32_t s = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        chf->cell_first[c] = s;
        uint32_t y = 1000 + (c % w) / 3 * (uint32_t)(climb + 1) + op_rng_below(&r, (uint32_t)climb + 3);
        for (uint32_t k = 0; k < cnt[c]; k++) {
            const int32_t h = wh - 2 + (int32_t)op_rng_below(&r, 5);
            chf->y[s] = (uint16_t)y;
            chf->h[s] = (uint8_t)(k + 1 == cnt[c] && op_rng_below(&r, 3) == 0 ? 255
                                  : (h < 0 ? 0 : h > 255 ? 255 : h));
            chf->area[s] = OP_WALKABLE_AREA;
            y += (uint32_t)chf->h[s] + 1 + op_rng_below(&r, 3);
            s++;
        }
    }
    free(cnt);
}

/* The links of every row by the scalar twin, and its mutual bits (checked against the
 * mutual links derived from those links, op_mutual_links_scalar); then every variant with
 * mutual bits (links and bits compared) and without (links compared, the bits' buffer
 * untouched). Link and mutual arrays are pre-filled with sentinels, so an unwritten slot
 * differs. tag: the field, for a failure. */
/* Every row of chf by fn, the links into buf[d][s] (u32 span indices). */
static void link_rows(op_link_row_fn fn, const op_chf *chf, uint8_t *mutual, uint32_t *buf[4])
{
    for (uint32_t z = 0; z < chf->depth; z++) {
        const uint32_t r0 = chf->cell_first[(size_t)z * chf->width];
        uint32_t *const row[4] = {buf[0] + r0, buf[1] + r0, buf[2] + r0, buf[3] + r0};
        fn(chf, z, mutual, row);
    }
}

static void compare_links(op_chf *chf, const char *tag)
{
    const uint32_t n = chf->span_count;
    uint32_t *ref[4], *got[4];
    uint8_t *mref = malloc((size_t)n + 1), *mder = malloc((size_t)n + 1);
    uint8_t *mv = malloc((size_t)n + 1);
    memset(mref, 0xA5, (size_t)n + 1);
    for (int dd = 0; dd < 4; dd++) {
        ref[dd] = malloc((size_t)n * 4 + 4);
        got[dd] = malloc((size_t)n * 4 + 4);
        memset(ref[dd], 0xA5, (size_t)n * 4);
    }
    link_rows(op_link_row_scalar, chf, mref, ref);
    for (int dd = 0; dd < 4; dd++) {
        for (uint32_t s = 0; s < n; s++)
            op_test_set_link(chf, dd, s, ref[dd][s]); /* for op_mutual_links_scalar */
        for (uint32_t s = 0; s < n; s++) {
            g_linked += ref[dd][s] != OP_NO_LINK;
            g_unlinked += ref[dd][s] == OP_NO_LINK;
            g_oneway += ref[dd][s] != OP_NO_LINK && !((mref[s] >> dd) & 1);
        }
    }
    op_mutual_links_scalar(chf, mder, 0, n);
    for (uint32_t s = 0; s < n; s++)
        if (mref[s] != mder[s])
            fail_msg("link_row scalar, %s: mutual[%u] = %#x, derived from the links %#x", tag,
                     s, mref[s], mder[s]);
    /* The scalar twin without mutual bits: the same links. */
    for (int dd = 0; dd < 4; dd++)
        memset(got[dd], 0x3C, (size_t)n * 4);
    link_rows(op_link_row_scalar, chf, NULL, got);
    for (int dd = 0; dd < 4; dd++)
        if (memcmp(got[dd], ref[dd], (size_t)n * 4) != 0)
            fail_msg("link_row scalar without mutual, %s: link[%d] differs", tag, dd);
    for (int vi = 0; vi < variant_count; vi++) {
        op_kernels k;
        op_kernels_init(&k, variants[vi], op_isa_flags(variants[vi]));
        for (int with = 0; with < 2; with++) {
            for (int dd = 0; dd < 4; dd++)
                memset(got[dd], 0x5A, (size_t)n * 4 + 4);
            memset(mv, 0x5A, (size_t)n + 1);
            link_rows(k.spans.link_row, chf, with ? mv : NULL, got);
            for (int dd = 0; dd < 4; dd++)
                for (uint32_t s = 0; s <= n; s++)
                    if (got[dd][s] != (s < n ? ref[dd][s] : 0x5A5A5A5Au))
                        fail_msg("link_row %s (mutual %d), %s: link[%d][%u] = %u, scalar %u",
                                 op_isa_name(variants[vi]), with, tag, dd, s, got[dd][s],
                                 s < n ? ref[dd][s] : 0x5A5A5A5Au);
            for (uint32_t s = 0; s <= n; s++)
                if (mv[s] != (with && s < n ? mref[s] : 0x5A))
                    fail_msg("link_row %s (mutual %d), %s: mutual[%u] = %#x, scalar %#x",
                             op_isa_name(variants[vi]), with, tag, s, mv[s],
                             with && s < n ? mref[s] : 0x5A);
        }
        compared[variants[vi]][1]++;
    }
    /* Through op_chf_link_rows' encoding into the field (op_chf_build_links) with the
     * hook at a few limits: -1 (every link far), 0, 2 and the layout's own. The far
     * tables hold one ascending entry per OP_DLINK_FAR, and a block decode agrees. */
    static const int32_t lims[] = {-1, 0, 2, OP_DLINK_MAX};
    const int32_t keep = op_dlink_near_limit;
    for (size_t li = 0; li < sizeof lims / sizeof *lims; li++) {
        op_dlink_near_limit = lims[li];
        assert_int_equal(op_chf_build_links(&g_ctx, chf), OP_OK);
        op_dlink_near_limit = keep;
        for (int dd = 0; dd < 4; dd++) {
            uint32_t nfar = 0;
            for (uint32_t s = 0; s < n; s++) {
                if (op_chf_link(chf, dd, s) != ref[dd][s])
                    fail_msg("op_chf_build_links at limit %d, %s: link[%d][%u] = %u, scalar %u",
                             lims[li], tag, dd, s, op_chf_link(chf, dd, s), ref[dd][s]);
                nfar += chf->dlink[dd][s] == OP_DLINK_FAR;
            }
            assert_int_equal(chf->far[dd].count, nfar);
            for (uint32_t i = 1; i < nfar; i++)
                assert_true(chf->far[dd].span[i - 1] < chf->far[dd].span[i]);
            memset(got[dd], 0x5A, (size_t)n * 4 + 4);
            op_chf_links_get(chf, dd, 0, n, got[dd]);
            assert_memory_equal(got[dd], ref[dd], (size_t)n * 4);
        }
        for (uint32_t s = 0; s < n; s++)
            if (chf->mutual[s] != mder[s])
                fail_msg("op_chf_build_links at limit %d, %s: mutual[%u]", lims[li], tag, s);
    }
    for (int dd = 0; dd < 4; dd++) {
        free(ref[dd]);
        free(got[dd]);
    }
    free(mref);
    free(mder);
    free(mv);
}

static void check_links(uint64_t seed, uint32_t w, uint32_t d, uint32_t floors, uint32_t empty,
                        int32_t climb)
{
    op_chf chf;
    if (seed % 2) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, w, d);
        o.max_floors = floors;
        o.empty_percent = empty;
        o.walkable_climb = climb;
        o.y_jitter = 1 + (uint32_t)(seed % 6);
        assert_int_equal(op_random_chf(&g_ctx, &chf, seed, &o), OP_OK);
    } else {
        edge_chf(&chf, seed, w, d, floors > 1 ? 15 : 2, empty, 3 + (int32_t)(seed % 9), climb);
    }
    char tag[96];
    snprintf(tag, sizeof tag, "seed %llu (%ux%u)", (unsigned long long)seed, w, d);
    compare_links(&chf, tag);
    op_chf_free(&chf);
}

static void test_ledges(void **state)
{
    (void)state;
    uint64_t seed = 1;
    for (uint32_t w = 1; w <= 70; w++, seed++)
        check_ledges(seed, w, 3 + (uint32_t)(seed % 5), (uint32_t)(seed % 4) * 5,
                     (uint32_t)(seed % 3) * 3, seed % 9 == 0, 0);
    for (int i = 0; i < 12; i++, seed++)
        check_ledges(seed, 200 + (uint32_t)i * 37, 40, (uint32_t)(i % 3) * 10, (uint32_t)i % 4,
                     i == 5, i % 4 == 3);
}

static void test_links(void **state)
{
    (void)state;
    uint64_t seed = 1000;
    for (uint32_t w = 1; w <= 70; w++, seed++)
        check_links(seed, w, 2 + (uint32_t)(seed % 6), 1 + (uint32_t)(seed % 3),
                    (uint32_t)(seed % 3) * 4, (int32_t)(seed % 5));
    for (int i = 0; i < 10; i++, seed++)
        check_links(seed, 150 + (uint32_t)i * 53, 30, i % 3 ? 1 : 2, (uint32_t)i % 3, i % 2 ? 4 : 0);
}

/* Tall stacks: cells of up to 40 spans (more than any variant's lanes: the per-cell lanes
 * hand such a neighbour to the scalar code), close floors and low ceilings, climbs above
 * walkable_height (one-way links: the mutual bit is a lower span's), tall cells at the
 * arrays' ends. */
static void test_links_tall(void **state)
{
    (void)state;
    uint64_t seed = 3000;
    for (uint32_t i = 0; i < 24; i++, seed++) {
        op_random_chf_opts o;
        const uint32_t w = 3 + i * 3, d = 3 + i % 5;
        op_random_chf_defaults(&o, w, d);
        o.max_floors = i % 3 == 0 ? 40 : i % 3 == 1 ? 17 : 5;
        o.empty_percent = (i % 4) * 6;
        /* A climb of walkable_height or more lets two spans of a cell pass with one
         * neighbour span, which links back only to the lower: one-way links. */
        o.walkable_height = 2 + (int32_t)(i % 6);
        o.walkable_climb = (int32_t)((i * 5) % 11);
        o.y_jitter = 1 + i % 5;
        op_chf chf;
        assert_int_equal(op_random_chf(&g_ctx, &chf, seed, &o), OP_OK);
        char tag[96];
        snprintf(tag, sizeof tag, "tall seed %llu (%ux%u, floors %u)",
                 (unsigned long long)seed, w, d, o.max_floors);
        compare_links(&chf, tag);
        op_chf_free(&chf);
    }
}

/* Clearances in the top half of h's u8 range (walkable_height 120..255, h within 2 of
 * it): the kernels widen h from u8 lanes, so a sign extension (h >= 128 read as
 * negative) or a 16-bit load of the u8 array shows as a wrong link. Every shape of
 * edge_chf's fields: one-span runs, two-span cells, empty cells. */
static void test_links_high_clearance(void **state)
{
    (void)state;
    static const int32_t whs[] = {120, 126, 127, 128, 129, 130, 200, 253, 254, 255};
    uint64_t seed = 5000;
    for (size_t i = 0; i < sizeof whs / sizeof whs[0]; i++)
        for (uint32_t j = 0; j < 3; j++, seed++) {
            const uint32_t w = 20 + (uint32_t)i * 11 + j * 7, d = 4 + j;
            op_chf chf;
            edge_chf(&chf, seed, w, d, j == 0 ? 0 : 15 * j, j * 3, whs[i], (int32_t)(seed % 5));
            char tag[96];
            snprintf(tag, sizeof tag, "high h seed %llu (%ux%u, wh %d)", (unsigned long long)seed,
                     w, d, whs[i]);
            compare_links(&chf, tag);
            op_chf_free(&chf);
        }
}

/* Adversarial runs for the kernels' prefix path (a vector run cut at its first cell that
 * is not one span with one-span neighbours): one break cell (empty, or two spans) at
 * every position of a run in a middle row, the outer rows empty or full (so the spans
 * of the rows above and below, and the run's own, end or begin at the arrays' ends,
 * where a prefix must not load past them), steps at walkable_climb's edge. */
static void pattern_hf(op_heightfield *hf, uint32_t w, uint32_t d, uint32_t bx, uint32_t bz,
                       int kind, int empty_outer, uint64_t seed)
{
    const float bmin[3] = {0, 0, 0}, bmax[3] = {(float)w, 100, (float)d};
    assert_int_equal(op_heightfield_init(&g_ctx, hf, w, d, bmin, bmax, 1.0f, 1.0f), OP_OK);
    op_rng r = {seed};
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            if (empty_outer && (z == 0 || z + 1 == d))
                continue;
            const int brk = x == bx && z == bz;
            if (brk && kind == 0)
                continue;
            uint32_t y = 300 + op_rng_below(&r, 5);
            const uint32_t floors = brk ? 2 : 1;
            for (uint32_t f = 0; f < floors; f++) {
                assert_int_equal(op_heightfield_add_span(&g_ctx, hf, x, z, (uint16_t)(y - 3),
                                                         (uint16_t)y, OP_WALKABLE_AREA, 1),
                                 OP_OK);
                y += 6 + op_rng_below(&r, 4);
            }
        }
}

static void check_pattern_ledges_with(uint32_t w, uint32_t d, uint32_t bx, uint32_t bz,
                                      int kind, int empty_outer, uint64_t seed, int all3)
{
    op_heightfield hf;
    pattern_hf(&hf, w, d, bx, bz, kind, empty_outer, seed);
    ledge_field_ready(&hf);
    const uint32_t n = hf.span_used;
    uint8_t *orig = malloc(n + 1), *ref = malloc(n + 1);
    memcpy(orig, hf.area, n);
    const int32_t wh = 4, climb = 2;
    for (uint32_t z = 1; z + 1 < d; z++)
        op_ledge_row_scalar(&hf, z, 1, w - 1, wh, climb, all3);
    memcpy(ref, hf.area, n);
    for (int vi = 0; vi < variant_count; vi++) {
        op_kernels k;
        op_kernels_init(&k, variants[vi], op_isa_flags(variants[vi]));
        memcpy(hf.area, orig, n);
        for (uint32_t z = 1; z + 1 < d; z++)
            k.spans.ledge_row(&hf, z, 1, w - 1, wh, climb, all3);
        compared[variants[vi]][0]++;
        for (uint32_t s = 0; s < n; s++)
            if (hf.area[s] != ref[s])
                fail_msg("ledge_row %s all3 %d, break (%u, %u) kind %d outer %d: span %u "
                         "area %u, scalar %u",
                         op_isa_name(variants[vi]), all3, bx, bz, kind, empty_outer, s,
                         hf.area[s], ref[s]);
    }
    free(orig);
    free(ref);
    op_heightfield_free(&hf);
}

static void check_pattern_ledges(uint32_t w, uint32_t d, uint32_t bx, uint32_t bz, int kind,
                                 int empty_outer, uint64_t seed)
{
    for (g_prefix = 0; g_prefix < 2; g_prefix++)
        for (int all3 = 0; all3 < 2; all3++)
            check_pattern_ledges_with(w, d, bx, bz, kind, empty_outer, seed, all3);
    g_prefix = 0;
}

/* The compact field of the same pattern, its arrays exactly span_count long (ASan sees
 * a load past them). */
/* The link fixtures' field: w x d cells, total spans, walkable height 4, climb 2. */
static void fixture_alloc(op_chf *chf, uint32_t w, uint32_t d, uint32_t total)
{
    assert_int_equal(op_chf_alloc(&g_ctx, chf, w, d, total), OP_OK);
    chf->walkable_height = 4;
    chf->walkable_climb = 2;
}

static void check_pattern_links(uint32_t w, uint32_t d, uint32_t bx, uint32_t bz, int kind,
                                int empty_outer, uint64_t seed)
{
    op_rng r = {seed};
    uint32_t total = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        const uint32_t x = c % w, z = c / w;
        const int brk = x == bx && z == bz;
        total += empty_outer && (z == 0 || z + 1 == d) ? 0 : brk ? (uint32_t)kind * 2 : 1;
    }
    op_chf chf;
    fixture_alloc(&chf, w, d, total);
    uint32_t s = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        const uint32_t x = c % w, z = c / w;
        const int brk = x == bx && z == bz;
        const uint32_t cnt = empty_outer && (z == 0 || z + 1 == d) ? 0 : brk ? (uint32_t)kind * 2 : 1;
        chf.cell_first[c] = s;
        uint32_t y = 300 + op_rng_below(&r, 5);
        for (uint32_t k = 0; k < cnt; k++) {
            chf.y[s] = (uint16_t)y;
            chf.h[s] = (uint8_t)(k + 1 == cnt ? 255 : 3 + op_rng_below(&r, 3));
            chf.area[s] = OP_WALKABLE_AREA;
            y += chf.h[s] + 1u;
            s++;
        }
    }
    char tag[96];
    snprintf(tag, sizeof tag, "break (%u, %u) kind %d outer %d", bx, bz, kind, empty_outer);
    compare_links(&chf, tag);
    op_chf_free(&chf);
}

static void test_prefix_runs(void **state)
{
    (void)state;
    uint64_t seed = 5000;
    for (uint32_t w = 18; w <= 52; w += 17)
        for (uint32_t d = 3; d <= 4; d++)
            for (uint32_t bz = 0; bz < d; bz++)
                for (uint32_t bx = 0; bx < w; bx++)
                    for (int kind = 0; kind < 2; kind++)
                        for (int outer = 0; outer < 2; outer++, seed++) {
                            check_pattern_ledges(w, d, bx, bz, kind, outer, seed);
                            check_pattern_links(w, d, bx, bz, kind, outer, seed);
                        }
}

/* Runs of cells holding at most one span (the avx512 kernel's spread runs): every cell
 * empty with pct_empty %, else one span (a few two-span cells cut the runs); rows of
 * every fill, from none to all; the first and last rows empty or not, so the spans start
 * and end at the arrays' ends (exactly span_count long); floors in steps at
 * walkable_climb's edge and clearances at walkable_height's, so links pass and fail. */
static void check_runs01(uint64_t seed, uint32_t w, uint32_t d, uint32_t pct_empty,
                         uint32_t pct_multi, int empty_outer)
{
    op_rng r = {seed * 7 + 3};
    uint32_t *cnt = calloc((size_t)w * d, sizeof *cnt);
    uint32_t total = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        const uint32_t z = c / w;
        /* Some rows all empty or all full, whatever pct_empty says. */
        const uint32_t row_kind = (uint32_t)((seed + z * 5) % 7);
        const uint32_t pe = row_kind == 0 ? 100 : row_kind == 1 ? 0 : pct_empty;
        cnt[c] = empty_outer && (z == 0 || z + 1 == d) ? 0
                 : op_rng_below(&r, 100) < pe         ? 0
                 : op_rng_below(&r, 100) < pct_multi  ? 2
                                                      : 1;
        total += cnt[c];
    }
    op_chf chf;
    fixture_alloc(&chf, w, d, total);
    uint32_t s = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        chf.cell_first[c] = s;
        uint32_t y = 300 + (c % w) / 2 * 2 + op_rng_below(&r, 4);
        for (uint32_t k = 0; k < cnt[c]; k++) {
            chf.y[s] = (uint16_t)y;
            chf.h[s] = (uint8_t)(k + 1 == cnt[c] && op_rng_below(&r, 2) ? 255 : 2 + op_rng_below(&r, 4));
            chf.area[s] = OP_WALKABLE_AREA;
            y += chf.h[s] + 1u;
            s++;
        }
    }
    free(cnt);
    char tag[96];
    snprintf(tag, sizeof tag, "runs01 seed %llu (%ux%u, empty %u%%, multi %u%%, outer %d)",
             (unsigned long long)seed, w, d, pct_empty, pct_multi, empty_outer);
    compare_links(&chf, tag);
    op_chf_free(&chf);
}

static void test_runs01(void **state)
{
    (void)state;
    static const uint32_t empties[] = {0, 3, 10, 30, 50, 80, 97, 100};
    uint64_t seed = 7000;
    for (uint32_t w = 17; w <= 53; w += 4)
        for (int e = 0; e < 8; e++)
            for (int outer = 0; outer < 2; outer++, seed++)
                check_runs01(seed, w, 3 + (uint32_t)(seed % 4), empties[e],
                             seed % 3 == 0 ? 4 : 0, outer);
}

static void test_promised_variants_compared(void **state)
{
    (void)state;
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    op_isa_info info[OP_ISA_COUNT];
    op_isa_list(info, OP_ISA_COUNT);
    int ran = 0;
    for (int i = 0; i < np; i++) {
        const op_isa v = promised[i];
        if (!info[v].cpu) {
            print_message("spans rows: %s is built but this CPU cannot run it\n", info[v].name);
            continue;
        }
        if (!compared[v][0] || !compared[v][1])
            fail_msg("spans rows: variant %s was never compared", info[v].name);
        print_message("spans rows: %-8s %lu ledge fields, %lu link fields\n", info[v].name,
                      compared[v][0], compared[v][1]);
        ran++;
    }
    /* Both outcomes of both tests occur. */
    print_message("spans rows: %lu ledges, %lu kept, %lu raised (low-hanging); %lu links, "
                  "%lu none, %lu one-way\n",
                  g_marked, g_kept, g_raised, g_linked, g_unlinked, g_oneway);
    assert_true(g_marked > 1000 && g_kept > 1000 && g_linked > 1000 && g_unlinked > 1000);
    assert_true(g_oneway > 100); /* links that are not mutual: bits from a lower span */
    print_message("spans rows: ledge fields %lu with column ends, %lu prefix sums\n",
                  g_fields[0], g_fields[1]);
    assert_true(g_fields[0] > 1000 && g_fields[1] > 1000);
    assert_true(g_raised > 10); /* raised and kept through the ledge and low-height tests */
    assert_true(ran >= 1);
}

int main(void)
{
    const int skip = op_test_simd_skip("spans rows");
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ledges),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_links_tall),
        cmocka_unit_test(test_links_high_clearance),
        cmocka_unit_test(test_prefix_runs),
        cmocka_unit_test(test_runs01),
        cmocka_unit_test(test_promised_variants_compared),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
