/* OPBAKE1, the bake file (supplement §4, docs/formats.md): round trip (same digests,
 * contours, raw loops and region ids; the file and the buffer are the same bytes), and
 * corruption: every truncation and every flipped byte of a file is refused with an
 * offset, and so are files whose checksums are right but whose content is not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/onepath.h"
#include "core/le.h"
#include "util/testscene.h"
#include "util/testutil.h"

static op_ctx g_ctx;

static void small_bake(uint64_t seed, int keep, op_stage until, op_tiled_result *r)
{
    op_scene s;
    op_bake_settings bs;
    op_bake_settings_defaults(&bs);
    assert_int_equal(op_test_random_scene(&g_ctx, &s, &bs.config, seed, 40, 10), OP_OK);
    bs.config.tile_size = 16;
    bs.regions.min_region_area = 4;
    bs.contours.keep_raw = keep;
    bs.until = until;
    op_tiled_options o;
    op_tiled_options_defaults(&o);
    o.threads = 2;
    o.keep_regions = keep;
    assert_int_equal(op_bake_tiled(&g_ctx, &s, &bs, &o, r), OP_OK);
    op_scene_free(&s);
}

static void verts_equal(const op_contour_vert *a, const op_contour_vert *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(a[i].x, b[i].x);
        assert_int_equal(a[i].y, b[i].y);
        assert_int_equal(a[i].z, b[i].z);
        assert_int_equal(a[i].neighbour, b[i].neighbour);
    }
}

static void same_result(const op_tiled_result *a, const op_tiled_result *b, unsigned flags)
{
    assert_int_equal(a->digest, b->digest);
    assert_int_equal(a->tile_count, b->tile_count);
    assert_int_equal(a->world_width, b->world_width);
    assert_int_equal(a->border_size, b->border_size);
    assert_int_equal(a->reached, b->reached);
    assert_int_equal(a->spans, b->spans);
    assert_int_equal(a->regions, b->regions);
    assert_int_equal(a->contour_verts, b->contour_verts);
    assert_memory_equal(a->bmin, b->bmin, sizeof a->bmin);
    for (uint32_t i = 0; i < a->tile_count; i++) {
        const op_tile *x = &a->tiles[i], *y = &b->tiles[i];
        assert_int_equal(x->tx, y->tx);
        assert_int_equal(x->x0, y->x0);
        assert_int_equal(x->span_count, y->span_count);
        assert_int_equal(x->owned_spans, y->owned_spans);
        assert_int_equal(x->solid_spans, y->solid_spans);
        assert_int_equal(x->digest_owned, y->digest_owned);
        assert_int_equal(x->contours.count, y->contours.count);
        for (uint32_t c = 0; c < x->contours.count; c++) {
            const op_contour *p = &x->contours.contours[c], *q = &y->contours.contours[c];
            assert_int_equal(p->vert_count, q->vert_count);
            verts_equal(p->verts, q->verts, p->vert_count);
            assert_int_equal(p->flags, q->flags);
            if (flags & OP_OPBAKE_RAW) {
                assert_int_equal(p->raw_count, q->raw_count);
                verts_equal(p->raw, q->raw, p->raw_count);
                assert_int_equal(p->raw_hole_count, q->raw_hole_count);
                uint32_t hv = 0;
                for (uint32_t h = 0; h < p->raw_hole_count; h++) {
                    assert_int_equal(p->raw_hole_sizes[h], q->raw_hole_sizes[h]);
                    hv += p->raw_hole_sizes[h];
                }
                verts_equal(p->raw_holes, q->raw_holes, hv);
            }
        }
        if (flags & OP_OPBAKE_REGIONS) {
            assert_memory_equal(x->region, y->region, (size_t)x->span_count * 4);
            const size_t cells = (size_t)(a->tile_size + 2 * a->border_size) *
                                 (a->tile_size + 2 * a->border_size);
            assert_memory_equal(x->cell_count, y->cell_count, cells * 4);
        }
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    op_tiled_result r;
    small_bake(11, 1, OP_STAGE_CONTOURS, &r);
    const unsigned all[] = {0, OP_OPBAKE_REGIONS, OP_OPBAKE_RAW, OP_OPBAKE_REGIONS | OP_OPBAKE_RAW};
    for (size_t k = 0; k < 4; k++) {
        unsigned char *buf;
        size_t len;
        assert_int_equal(op_opbake_encode(&g_ctx, &r, all[k], &buf, &len), OP_OK);
        /* The streaming writer gives the same bytes. */
        const char *path = op_test_tmp_path(".opbake");
        assert_int_equal(op_opbake_write(&g_ctx, &r, all[k], path), OP_OK);
        size_t flen;
        unsigned char *fbuf = op_test_read_file(path, &flen);
        assert_non_null(fbuf);
        assert_int_equal(flen, len);
        assert_memory_equal(fbuf, buf, len);
        free(fbuf);
        op_tiled_result back;
        unsigned flags = 99;
        assert_int_equal(op_opbake_read(&g_ctx, path, &back, &flags), OP_OK);
        remove(path);
        assert_int_equal(flags, all[k]);
        same_result(&r, &back, all[k]);
        /* Encoding what was read gives the same file. */
        unsigned char *again;
        size_t alen;
        assert_int_equal(op_opbake_encode(&g_ctx, &back, all[k], &again, &alen), OP_OK);
        assert_int_equal(alen, len);
        assert_memory_equal(again, buf, len);
        op_free(&g_ctx, again);
        op_free(&g_ctx, buf);
        op_tiled_result_free(&back);
    }
    op_tiled_result_free(&r);
    /* Earlier stages round-trip too. */
    for (int until = OP_STAGE_SPANS; until <= OP_STAGE_REGIONS; until++) {
        small_bake(12, 1, (op_stage)until, &r);
        unsigned char *buf;
        size_t len;
        const unsigned fl = until >= OP_STAGE_REGIONS ? OP_OPBAKE_REGIONS : 0;
        assert_int_equal(op_opbake_encode(&g_ctx, &r, fl, &buf, &len), OP_OK);
        op_tiled_result back;
        assert_int_equal(op_opbake_decode(&g_ctx, buf, len, &back, NULL), OP_OK);
        same_result(&r, &back, fl);
        op_free(&g_ctx, buf);
        op_tiled_result_free(&back);
        op_tiled_result_free(&r);
    }
}

static void test_not_writable(void **state)
{
    (void)state;
    op_tiled_result r;
    small_bake(13, 0, OP_STAGE_CONTOURS, &r);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opbake_encode(&g_ctx, &r, OP_OPBAKE_REGIONS, &buf, &len),
                     OP_INVALID_ARGUMENT);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "keep_regions"));
    assert_int_equal(op_opbake_encode(&g_ctx, &r, OP_OPBAKE_RAW, &buf, &len), OP_INVALID_ARGUMENT);
    assert_int_equal(op_opbake_encode(&g_ctx, &r, 0x80, &buf, &len), OP_INVALID_ARGUMENT);
    assert_int_equal(op_opbake_write(&g_ctx, &r, 0, "/nonexistent-dir/x.opbake"), OP_IO_ERROR);
    op_tiled_result_free(&r);
}

static void expect_bad(const unsigned char *buf, size_t len, const char *needle)
{
    op_tiled_result back;
    const op_status st = op_opbake_decode(&g_ctx, buf, len, &back, NULL);
    if (st != OP_BAD_INPUT && st != OP_UNSUPPORTED)
        fail_msg("accepted (%s) a bad file of %zu bytes (expected '%s')", op_status_name(st),
                 len, needle ? needle : "");
    assert_null(back.tiles);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "offset "));
    if (needle && !strstr(op_ctx_error(&g_ctx), needle))
        fail_msg("message '%s' lacks '%s'", op_ctx_error(&g_ctx), needle);
}

/* Every truncation and every single flipped byte is refused. */
static void test_corruption(void **state)
{
    (void)state;
    op_tiled_result r;
    small_bake(14, 1, OP_STAGE_CONTOURS, &r);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opbake_encode(&g_ctx, &r, OP_OPBAKE_REGIONS | OP_OPBAKE_RAW, &buf, &len),
                     OP_OK);
    op_tiled_result_free(&r);
    unsigned char *cp = malloc(len + 8);
    assert_non_null(cp);
    for (size_t n = 0; n < len; n++) /* every truncation */
        expect_bad(buf, n, n < 16 ? "truncated" : NULL);
    memcpy(cp, buf, len);
    memset(cp + len, 0, 8);
    expect_bad(cp, len + 8, "extra bytes");
    for (size_t i = 0; i < len; i += 1 + i / 4096) { /* flips, denser at the start */
        memcpy(cp, buf, len);
        cp[i] ^= (unsigned char)(1u << (i % 8));
        expect_bad(cp, len, NULL);
    }
    memcpy(cp, buf, len);
    cp[20] ^= 1; /* inside the WRLD section header: its tag */
    expect_bad(cp, len, "WRLD");
    memcpy(cp, buf, len);
    cp[40] ^= 4; /* WRLD payload */
    expect_bad(cp, len, "checksum mismatch");
    memcpy(cp, buf, len);
    cp[8] = 3; /* version */
    op_tiled_result back;
    assert_int_equal(op_opbake_decode(&g_ctx, cp, len, &back, NULL), OP_UNSUPPORTED);
    assert_non_null(strstr(op_ctx_error(&g_ctx), "version 3"));
    free(cp);
    op_free(&g_ctx, buf);
}

/* Right checksums, wrong content: each caught by its own check. */
static void reseal(unsigned char *file, size_t section)
{
    const uint64_t len = op_le_get32(file + section + 8);
    const uint64_t sum = op_digest_bytes(file + section, 16 + (size_t)len);
    op_le_put32(file + section + 16 + len, (uint32_t)sum);
    op_le_put32(file + section + 20 + len, (uint32_t)(sum >> 32));
}

static void test_consistency(void **state)
{
    (void)state;
    op_tiled_result r;
    small_bake(15, 1, OP_STAGE_CONTOURS, &r);
    unsigned char *buf;
    size_t len;
    assert_int_equal(op_opbake_encode(&g_ctx, &r, OP_OPBAKE_REGIONS, &buf, &len), OP_OK);
    /* Find a tile with contours: walk the sections. */
    const size_t wrld = 16, tile0 = wrld + 16 + 104 + 8; /* WRLD of version 2 */
    size_t tile = tile0, with_contours = 0;
    for (uint32_t i = 0; i < r.tile_count; i++) {
        if (!with_contours && op_le_get32(buf + tile + 16 + 80) > 0)
            with_contours = tile;
        tile += 16 + op_le_get32(buf + tile + 8) + 8;
    }
    assert_true(with_contours > 0);
    unsigned char *cp = malloc(len);
    assert_non_null(cp);

    memcpy(cp, buf, len); /* a digest in WRLD */
    cp[wrld + 16 + 80] ^= 1;
    reseal(cp, wrld);
    expect_bad(cp, len, "ENDS section disagrees");

    memcpy(cp, buf, len); /* tiles_x */
    op_le_put32(cp + wrld + 16 + 16, r.tiles_x + 1);
    reseal(cp, wrld);
    expect_bad(cp, len, "do not cover");

    memcpy(cp, buf, len); /* a huge world whose tiles cannot fit in the file */
    op_le_put32(cp + wrld + 16 + 0, 40000);
    op_le_put32(cp + wrld + 16 + 4, 40000);
    op_le_put32(cp + wrld + 16 + 8, 1);
    op_le_put32(cp + wrld + 16 + 12, 0);
    op_le_put32(cp + wrld + 16 + 16, 40000);
    op_le_put32(cp + wrld + 16 + 20, 40000);
    reseal(cp, wrld);
    expect_bad(cp, len, "truncated");

    const size_t pay = with_contours + 16;
    memcpy(cp, buf, len); /* tile coordinates out of order */
    op_le_put32(cp + pay, op_le_get32(cp + pay) + 1);
    reseal(cp, with_contours);
    expect_bad(cp, len, "(tz, tx) order");

    memcpy(cp, buf, len); /* first contour's region 0 */
    op_le_put32(cp + pay + 80 + 12, 0);
    reseal(cp, with_contours);
    expect_bad(cp, len, "region 0 outside");

    memcpy(cp, buf, len); /* a vertex moved: the contour digest catches it */
    op_le_put32(cp + pay + 80 + 12 + 17, op_le_get32(cp + pay + 80 + 12 + 17) + 1);
    reseal(cp, with_contours);
    expect_bad(cp, len, "contours digest");

    memcpy(cp, buf, len); /* a vertex count larger than the section */
    op_le_put32(cp + pay + 80 + 12 + 13, 0x10000000);
    reseal(cp, with_contours);
    expect_bad(cp, len, "ends inside");

    memcpy(cp, buf, len); /* a region id changed: the regions digest catches it */
    const size_t end = with_contours + 16 + op_le_get32(cp + with_contours + 8);
    op_le_put32(cp + end - 4, op_le_get32(cp + end - 4) == 1 ? 2 : 1);
    reseal(cp, with_contours);
    expect_bad(cp, len, NULL);

    free(cp);
    op_free(&g_ctx, buf);
    op_tiled_result_free(&r);
}

int main(void)
{
    if (op_ctx_init(&g_ctx, OP_ISA_AUTO) != OP_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_not_writable),
        cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_consistency),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    op_ctx_free(&g_ctx);
    return rc;
}
