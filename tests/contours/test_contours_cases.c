/* Contours on hand-made fields (regions-contours §6, supplement §9.6–§9.12): one cell,
 * grid edge (-1), courtyard hole, two holes, a hole whose simplified loop crosses the
 * simplified outline, a spiral ramp, the spiral rule, the MaxEdgeLength split, straight
 * region borders, settings, bad input, digest format and JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "contours/test_contours_util.h"

typedef struct fixture {
    op_ctx ctx;
    op_chf chf;
    uint32_t *region;
    uint32_t region_count;
    op_contour_settings st;
    op_contour_set set;
} fixture;

static void fx_map(fixture *f, const char *const *rows, uint32_t nrows)
{
    assert_int_equal(op_ctx_init(&f->ctx, OP_ISA_SCALAR), OP_OK);
    assert_int_equal(ct_map_chf(&f->ctx, &f->chf, &f->region, &f->region_count, rows, nrows),
                     OP_OK);
    op_contour_settings_defaults(&f->st);
    f->st.keep_raw = 1;
    memset(&f->set, 0, sizeof f->set);
}

static void fx_build_check(fixture *f)
{
    op_contour_set_free(&f->set);
    op_status st = op_build_contours(&f->ctx, &f->chf, f->region, f->region_count, &f->st, &f->set);
    if (st != OP_OK)
        fail_msg("build: %s", op_ctx_error(&f->ctx));
    op_contour_report rep;
    st = op_check_contours(&f->ctx, &f->chf, f->region, f->region_count, &f->st, &f->set, &rep);
    if (st != OP_OK)
        fail_msg("check: %s", rep.first_failures);
}

static void fx_free(fixture *f)
{
    op_contour_set_free(&f->set);
    free(f->region);
    op_chf_free(&f->chf);
    op_ctx_free(&f->ctx);
}

static const op_contour *find_contour(const op_contour_set *s, uint32_t region, uint32_t k)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (s->contours[i].region == region && k-- == 0)
            return &s->contours[i];
    return NULL;
}

static int64_t area2(const op_contour_vert *v, uint32_t n)
{
    int64_t a = 0;
    for (uint32_t i = 0, j = n - 1; i < n; j = i++)
        a += (int64_t)v[j].x * v[i].z - (int64_t)v[i].x * v[j].z;
    return a;
}

static int has_vert(const op_contour *c, int32_t x, int32_t z)
{
    for (uint32_t i = 0; i < c->vert_count; i++)
        if (c->verts[i].x == x && c->verts[i].z == z)
            return 1;
    return 0;
}

/* A one-cell region at the grid edge: every neighbour is TileBorder (-1); the two
 * extreme vertices alone are degenerate, so the MaxError 0 retry keeps all four. */
static void test_one_cell(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"a"};
    fx_map(&f, rows, 1);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    assert_int_equal(c->region, 1);
    assert_int_equal(c->area, 63);
    assert_int_equal(c->vert_count, 4);
    assert_int_equal(c->flags & OP_CONTOUR_OUTLINE_RETRY0, OP_CONTOUR_OUTLINE_RETRY0);
    /* Tracing starts at span 0, direction 0: start corner (0, 1), then (0,0), (1,0), (1,1). */
    const int32_t ex[4] = {0, 0, 1, 1}, ez[4] = {1, 0, 0, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c->raw[i].x, ex[i]);
        assert_int_equal(c->raw[i].z, ez[i]);
        assert_int_equal(c->verts[i].x, ex[i]);
        assert_int_equal(c->verts[i].z, ez[i]);
        assert_int_equal(c->verts[i].neighbour, OP_TILE_BORDER);
    }
    assert_int_equal(area2(c->verts, 4), 2);
    assert_int_equal(f.set.raw_fallbacks, 0);
    fx_free(&f);
}

/* A one-cell region inside another (same area): its loop is a straight region border
 * all round, the other region gets a hole (regions-contours §6, Holes). */
static void test_one_cell_island(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {".....", ".bbb.", ".bab.", ".bbb.", "....."};
    fx_map(&f, rows, 5);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 2);
    const op_contour *a = find_contour(&f.set, 1, 0), *b = find_contour(&f.set, 2, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->vert_count, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(a->verts[i].neighbour, 2);
    assert_int_equal(b->hole_count, 1);
    assert_int_equal(b->vert_count, 4 + 4 + 2);
    assert_int_equal(area2(b->verts, b->vert_count), 2 * 8);
    /* Shared boundary: the island's four corners appear in b's joined loop. */
    for (uint32_t i = 0; i < 4; i++)
        assert_true(has_vert(b, a->verts[i].x, a->verts[i].z));
    fx_free(&f);
}

/* Grid edge: edges leaving the grid are -1, the others 0; JSON writes -1. */
static void test_grid_edge_json(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"aaa.", "aaa.", "...."};
    fx_map(&f, rows, 3);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    int minus = 0, zero = 0;
    for (uint32_t i = 0; i < c->raw_count; i++) {
        const op_contour_vert *v = &c->raw[i], *w = &c->raw[(i + 1) % c->raw_count];
        /* edges along x = 0 or z = 0 leave the grid */
        const int edge_out = (v->x == 0 && w->x == 0) || (v->z == 0 && w->z == 0);
        assert_int_equal(v->neighbour, edge_out ? OP_TILE_BORDER : 0u);
        minus += edge_out;
        zero += !edge_out;
    }
    assert_int_equal(minus, 5);
    assert_int_equal(zero, 5);
    /* Portals survive: the two corners where -1 meets 0. */
    assert_true(has_vert(c, 3, 0));
    assert_true(has_vert(c, 0, 2));
    const char *path = op_test_tmp_path(".json");
    assert_int_equal(op_write_contours_json(&f.ctx, &f.set, path, 1), OP_OK);
    size_t size;
    char *txt = (char *)op_test_read_file(path, &size);
    assert_non_null(txt);
    txt = realloc(txt, size + 1);
    txt[size] = 0;
    assert_non_null(strstr(txt, "{\"raw_fallbacks\": 0, \"dropped_holes\": 0, \"contours\": ["));
    assert_non_null(strstr(txt, "\"region\": 1, \"area\": 63, \"verts\": [[0, 0, 0, -1], [3, 0, 0, 0], [3, 0, 2, 0], [0, 0, 2, -1]]"));
    assert_non_null(strstr(txt, "\"raw\": [["));
    assert_non_null(strstr(txt, "\"raw_holes\": []"));
    free(txt);
    assert_int_equal(op_write_contours_json(&f.ctx, &f.set, path, 0), OP_OK);
    txt = (char *)op_test_read_file(path, &size);
    txt = realloc(txt, size + 1);
    txt[size] = 0;
    assert_null(strstr(txt, "\"raw\""));
    free(txt);
    remove(path);
    assert_int_equal(op_write_contours_json(&f.ctx, &f.set, "/nonexistent-dir/x.json", 0),
                     OP_IO_ERROR);
    fx_free(&f);
}

/* A courtyard: a ring around an empty 3x3 centre; the hole joins by a bridge from its
 * leftmost vertex to the nearest outline corner, bridge edges carry the region's id. */
static void test_courtyard(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {".........", ".aaaaaaa.", ".aaaaaaa.", ".aa...aa.", ".aa...aa.",
                          ".aa...aa.", ".aaaaaaa.", ".aaaaaaa.", "........."};
    fx_map(&f, rows, 9);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    assert_int_equal(c->hole_count, 1);
    assert_int_equal(c->raw_hole_count, 1);
    assert_int_equal(c->raw_hole_sizes[0], 12);
    assert_int_equal(c->vert_count, 4 + 4 + 2);
    assert_int_equal(area2(c->verts, c->vert_count), 2 * (49 - 9));
    assert_int_equal(f.set.dropped_holes, 0);
    /* The bridge: (1,1) -> (3,3) ... (3,3) -> (1,1), both with neighbour 1. */
    int bridges = 0;
    for (uint32_t i = 0; i < c->vert_count; i++) {
        const op_contour_vert *v = &c->verts[i], *w = &c->verts[(i + 1) % c->vert_count];
        if (v->neighbour == 1) {
            bridges++;
            assert_true((v->x == 1 && v->z == 1 && w->x == 3 && w->z == 3) ||
                        (v->x == 3 && v->z == 3 && w->x == 1 && w->z == 1));
        } else {
            assert_int_equal(v->neighbour, 0);
        }
    }
    assert_int_equal(bridges, 2);
    /* supplement §9.7: a joined loop starts at its outline's first vertex. */
    const op_contour_vert *o0 = &c->verts[0];
    int found = 0;
    for (uint32_t i = 0; i < c->raw_count; i++)
        found |= c->raw[i].x == o0->x && c->raw[i].z == o0->z;
    assert_true(found);
    fx_free(&f);
}

/* Two holes in one outline: both joined, in leftmost order. */
static void test_two_holes(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"..........", ".aaaaaaaa.", ".a..aaaaa.", ".a..aa..a.", ".aaaaa..a.",
                          ".aaaaaaaa.", ".........."};
    fx_map(&f, rows, 7);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    assert_int_equal(c->hole_count, 2);
    assert_int_equal(f.set.dropped_holes, 0);
    assert_int_equal(c->vert_count, 4 + 2 * (4 + 2));
    assert_int_equal(area2(c->verts, c->vert_count), 2 * (40 - 8));
    int bridges = 0;
    for (uint32_t i = 0; i < c->vert_count; i++)
        bridges += c->verts[i].neighbour == 1;
    assert_int_equal(bridges, 4);
    /* Raw holes in discovery order: the one at (2..4, 2..4) is met first. */
    assert_int_equal(c->raw_hole_count, 2);
    assert_int_equal(c->raw_holes[0].x <= 4, 1);
    fx_free(&f);
}

/* A hole whose simplified loop crosses the simplified outline: the joined loop
 * crosses, so the outline and hole are joined from their raw loops (RawFallbacks). */
static void test_hole_crossing(void **state)
{
    (void)state;
    fixture f;
    /* A step in the bottom wall: with max_edge_len 0 the outline keeps the chord
     * (1,1)-(21,3), which cuts through the bottom edge of the hole (9..12, 2..4). */
    const char *rows[] = {
        "......................",
        ".aaaaaaaaaaaa.........",
        ".aaaaaaaa...a.........",
        ".aaaaaaaa...aaaaaaaaa.",
        ".aaaaaaaaaaaaaaaaaaaa.",
        ".aaaaaaaaaaaaaaaaaaaa.",
        ".aaaaaaaaaaaaaaaaaaaa.",
        ".aaaaaaaaaaaaaaaaaaaa.",
        "......................",
    };
    fx_map(&f, rows, 9);
    f.st.max_edge_len = 0;
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    assert_int_equal(c->hole_count, 1);
    assert_int_equal(c->flags, OP_CONTOUR_JOIN_RAW);
    assert_int_equal(f.set.raw_fallbacks, 1);
    assert_int_equal(f.set.dropped_holes, 0);
    assert_int_equal(c->vert_count, c->raw_count + c->raw_hole_sizes[0] + 2);
    /* MaxError 0 keeps the step's corners: no crossing, no fallback. */
    f.st.max_error = 0;
    fx_build_check(&f);
    assert_int_equal(f.set.raw_fallbacks, 0);
    assert_int_equal(f.set.contours[0].flags, 0);
    assert_int_equal(f.set.contours[0].vert_count, 6 + 4 + 2);
    fx_free(&f);
}

/* A spiral ramp: a 1.5-turn helix around a pillar, overlapping itself seen from above;
 * vertex Y takes the highest floor around the corner (supplement §9.1). */
static void build_helix(op_ctx *ctx, op_chf *chf, uint32_t **region, uint32_t steps)
{
    /* ring cells around (1,1) in a 3x3 grid, counter-clockwise */
    static const int rx[8] = {0, 1, 2, 2, 2, 1, 0, 0}, rz[8] = {0, 0, 0, 1, 2, 2, 2, 1};
    uint32_t cnt[9] = {0};
    for (uint32_t i = 0; i < steps; i++)
        cnt[rx[i % 8] + 3 * rz[i % 8]]++;
    assert_int_equal(op_chf_alloc(ctx, chf, 3, 3, steps), OP_OK);
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    uint32_t s = 0;
    for (uint32_t c = 0; c < 9; c++) {
        chf->cell_first[c] = s;
        /* spans of this cell, bottom-up: steps i with ring index == c */
        for (uint32_t i = 0; i < steps; i++)
            if ((uint32_t)(rx[i % 8] + 3 * rz[i % 8]) == c) {
                chf->y[s] = (uint16_t)(3 * i);
                chf->area[s] = 63;
                s++;
            }
        for (uint32_t k = chf->cell_first[c]; k < s; k++)
            chf->h[k] = (uint8_t)(k + 1 < s ? chf->y[k + 1] - chf->y[k] : 255);
    }
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
    *region = calloc(steps, sizeof **region);
    for (uint32_t k = 0; k < steps; k++)
        (*region)[k] = 1;
}

static void test_spiral_ramp(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(op_ctx_init(&f.ctx, OP_ISA_SCALAR), OP_OK);
    build_helix(&f.ctx, &f.chf, &f.region, 12);
    f.region_count = 1;
    op_contour_settings_defaults(&f.st);
    f.st.keep_raw = 1;
    memset(&f.set, 0, sizeof f.set);
    /* Column (0,0) holds steps 0 and 8 (y 0 and 24): they must not link. */
    assert_int_equal(op_chf_cell_count(&f.chf, 0), 2);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    const op_contour *c = &f.set.contours[0];
    /* One loop (a strip): outline area counts the overlap twice, twice 12 spans. */
    assert_int_equal(area2(c->raw, c->raw_count), 24);
    assert_int_equal(c->hole_count, 0);
    int32_t ymax = 0;
    for (uint32_t i = 0; i < c->raw_count; i++)
        ymax = c->raw[i].y > ymax ? c->raw[i].y : ymax;
    assert_int_equal(ymax, 33); /* the top step, 3 * 11 */
    /* Every raw vertex's Y is the floor of some span of the region. */
    for (uint32_t i = 0; i < c->raw_count; i++)
        assert_int_equal(c->raw[i].y % 3, 0);
    fx_free(&f);
}

/* The spiral rule: a hole assigned to a smaller outline (an upper floor of the same
 * region over the courtyard's corner) cancels its area; the hole is dropped and the
 * outline stays unjoined (regions-contours §6, supplement §9.12). */
static void test_spiral_rule(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(op_ctx_init(&f.ctx, OP_ISA_SCALAR), OP_OK);
    /* 7x7 grid, ring [1,6)^2 minus hole [2,5)^2, plus an upper span at (1,1). */
    const char *rows[] = {".......", ".aaaaa.", ".a...a.", ".a...a.", ".a...a.", ".aaaaa.",
                          "......."};
    uint32_t n = 0;
    for (int z = 0; z < 7; z++)
        for (int x = 0; x < 7; x++)
            n += rows[z][x] != '.';
    n += 1;
    assert_int_equal(op_chf_alloc(&f.ctx, &f.chf, 7, 7, n), OP_OK);
    f.chf.walkable_height = 10;
    f.chf.walkable_climb = 4;
    uint32_t s = 0;
    for (int z = 0; z < 7; z++)
        for (int x = 0; x < 7; x++) {
            const int c = x + 7 * z;
            f.chf.cell_first[c] = s;
            if (rows[z][x] == '.')
                continue;
            f.chf.y[s] = 0;
            f.chf.h[s] = 255;
            f.chf.area[s] = 63;
            s++;
            if (x == 1 && z == 1) {
                f.chf.h[s - 1] = 40;
                f.chf.y[s] = 40;
                f.chf.h[s] = 255;
                f.chf.area[s] = 63;
                s++;
            }
        }
    assert_int_equal(op_chf_build_links(&f.ctx, &f.chf), OP_OK);
    f.region = calloc(n, sizeof *f.region);
    for (uint32_t k = 0; k < n; k++)
        f.region[k] = 1;
    f.region_count = 1;
    op_contour_settings_defaults(&f.st);
    f.st.keep_raw = 1;
    memset(&f.set, 0, sizeof f.set);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 2);
    const op_contour *ring = &f.set.contours[0], *patch = &f.set.contours[1];
    assert_int_equal(area2(ring->verts, ring->vert_count), 2 * 25);
    assert_int_equal(ring->hole_count, 0);
    assert_int_equal(patch->vert_count, 4);
    assert_int_equal(patch->hole_count, 1);
    assert_int_equal(patch->flags & OP_CONTOUR_SPIRAL, OP_CONTOUR_SPIRAL);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(patch->verts[i].y, 40);
    assert_int_equal(f.set.dropped_holes, 1);
    fx_free(&f);
}

/* The Douglas–Peucker tie rule (supplement §9.10): the bump's corners (7,4) and (7,5)
 * are equally far from the chord x = 5; the smaller (x, z) wins from both sides, so a
 * shared border simplified with MaxError > 0 keeps the same vertices on both sides. */
/* A simplified loop that crosses itself while straight region borders are in effect is
 * simplified again with every stretch refined (regions-contours §6 step 3); found by
 * a random search. */
static void test_crossing_refined(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"............", ".aaaaaaaaaa.", ".aaaaaaaaaa.", ".aaaaaaaaaa.",
                          ".aaaaaaaaaa.", ".aabaaaaaaa.", ".aabbbbbaaa.", ".abbaba...a.",
                          ".bbaaaaaaaa.", ".aaaaaaaaaa.", "............"};
    fx_map(&f, rows, 11);
    fx_build_check(&f);
    assert_int_equal(f.set.count, 2);
    for (uint32_t i = 0; i < 2; i++)
        assert_int_equal(f.set.contours[i].flags, OP_CONTOUR_OUTLINE_REFINED);
    assert_int_equal(f.set.raw_fallbacks, 0);
    /* The same loops simplified with straight borders off are the refined retry. */
    op_contour_set first = f.set;
    memset(&f.set, 0, sizeof f.set);
    f.st.straight_region_borders = 0;
    fx_build_check(&f);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(f.set.contours[i].flags, 0);
        assert_int_equal(f.set.contours[i].vert_count, first.contours[i].vert_count);
        assert_memory_equal(f.set.contours[i].verts, first.contours[i].verts,
                            first.contours[i].vert_count * sizeof *first.contours[i].verts);
    }
    op_contour_set_free(&first);
    fx_free(&f);
}

/* Vertex Y (regions-contours §6, supplement §9.1): the highest floor among the span and
 * the spans around the corner, the diagonal reached either way; an unlinked span of a
 * neighbouring cell does not count. */
static void test_vertex_y(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"a#", "##"};
    fx_map(&f, rows, 2);
    /* spans: 0 = (0,0) region 1, 1 = (1,0), 2 = (0,1), 3 = (1,1) */
    f.chf.y[0] = 0;
    f.chf.y[1] = 50; /* too high to link */
    f.chf.y[2] = 1;
    f.chf.y[3] = 3;
    assert_int_equal(op_chf_build_links(&f.ctx, &f.chf), OP_OK);
    assert_int_equal(f.chf.mutual[0], 1u << 1); /* only +z */
    fx_build_check(&f);
    const op_contour *c = &f.set.contours[0];
    assert_int_equal(c->raw_count, 4);
    const int32_t ey[4] = {1, 0, 0, 3}; /* corners (0,1) (0,0) (1,0) (1,1) */
    const uint32_t enb[4] = {OP_TILE_BORDER, OP_TILE_BORDER, 0, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c->raw[i].y, ey[i]);
        assert_int_equal(c->raw[i].neighbour, enb[i]);
    }
    fx_free(&f);
}

static int cmp_xz(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : (a[1] > b[1]));
}

static uint32_t shared_positions(const op_contour *c, uint32_t nb, int32_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->vert_count; i++)
        if (c->verts[i].neighbour == nb)
            for (uint32_t e = 0; e < 2; e++) {
                out[2 * n] = c->verts[(i + e) % c->vert_count].x;
                out[2 * n + 1] = c->verts[(i + e) % c->vert_count].z;
                n++;
            }
    qsort(out, n, 2 * sizeof *out, cmp_xz);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!u || cmp_xz(&out[2 * i], &out[2 * (u - 1)]) != 0) {
            out[2 * u] = out[2 * i];
            out[2 * u + 1] = out[2 * i + 1];
            u++;
        }
    return u;
}

static void test_tie_rule(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"...........", ".aaaabbbbb.", ".aaaabbbbb.", ".aaaabbbbb.",
                          ".aaaaaabbb.", ".aaaabbbbb.", ".aaaabbbbb.", ".aaaabbbbb.",
                          ".aaaabbbbb.", "..........."};
    fx_map(&f, rows, 10);
    f.st.straight_region_borders = 0;
    fx_build_check(&f);
    const op_contour *a = find_contour(&f.set, 1, 0), *b = find_contour(&f.set, 2, 0);
    assert_true(has_vert(a, 7, 4));
    assert_false(has_vert(a, 7, 5));
    assert_true(has_vert(b, 7, 4));
    assert_false(has_vert(b, 7, 5));
    int32_t pa[64], pb[64];
    const uint32_t na = shared_positions(a, 2, pa), nb = shared_positions(b, 1, pb);
    assert_int_equal(na, nb);
    assert_int_equal(na, 5); /* (5,1) (5,4) (7,4) (5,5) (5,9) */
    assert_memory_equal(pa, pb, 2 * na * sizeof *pa);
    fx_free(&f);
}

static uint32_t count_nb(const op_contour *c, uint32_t nb)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->vert_count; i++)
        k += c->verts[i].neighbour == nb;
    return k;
}

/* MaxEdgeLength: a long wall is split until every piece is at most 12 cells; a grid
 * border (-1) of the same length is never split. */
static void test_max_edge_len(void **state)
{
    (void)state;
    const char *walled[] = {"................................",
                            ".aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.",
                            "................................"};
    const char *border[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    fixture f;
    fx_map(&f, walled, 3);
    fx_build_check(&f);
    const op_contour *c = &f.set.contours[0];
    const uint32_t split = c->vert_count;
    for (uint32_t i = 0; i < c->vert_count; i++) {
        const op_contour_vert *v = &c->verts[i], *w = &c->verts[(i + 1) % c->vert_count];
        const int64_t dx = w->x - v->x, dz = w->z - v->z;
        assert_true(dx * dx + dz * dz <= 144);
    }
    assert_true(split >= 8);
    f.st.max_edge_len = 0;
    fx_build_check(&f);
    assert_int_equal(f.set.contours[0].vert_count, 4);
    assert_true(f.set.contours[0].vert_count < split);
    fx_free(&f);

    fx_map(&f, border, 1);
    fx_build_check(&f);
    assert_int_equal(f.set.contours[0].vert_count, 4);
    assert_int_equal(count_nb(&f.set.contours[0], OP_TILE_BORDER), 4);
    fx_free(&f);
}

/* Straight region borders: a staircase between two same-area regions stays one chord
 * (only with MaxError > 0); between different areas, or with the setting off, it is
 * refined. The wall around both is always refined. */
static void test_straight_borders(void **state)
{
    (void)state;
    const char *same[] = {"..........", ".aaaaabbb.", ".aaaaabbb.", ".aaaaabbb.", ".aabbbbbb.",
                          ".aabbbbbb.", ".aabbbbbb.", ".........."};
    const char *diff[] = {"..........", ".aaaaaBBB.", ".aaaaaBBB.", ".aaaaaBBB.", ".aaBBBBBB.",
                          ".aaBBBBBB.", ".aaBBBBBB.", ".........."};
    fixture f;
    fx_map(&f, same, 8);
    fx_build_check(&f);
    const uint32_t on = count_nb(find_contour(&f.set, 1, 0), 2);
    assert_int_equal(on, 1); /* one chord */
    assert_int_equal(count_nb(find_contour(&f.set, 2, 0), 1), 1);
    f.st.straight_region_borders = 0;
    fx_build_check(&f);
    const uint32_t off = count_nb(find_contour(&f.set, 1, 0), 2);
    assert_int_equal(off, 3); /* both staircase corners stray more than 1.3 */
    /* MaxError 0: straight borders are not in effect, every staircase step is kept. */
    f.st.straight_region_borders = 1;
    f.st.max_error = 0;
    fx_build_check(&f);
    assert_int_equal(count_nb(find_contour(&f.set, 1, 0), 2), 3);
    assert_int_equal(count_nb(find_contour(&f.set, 2, 0), 1), 3);
    fx_free(&f);

    fx_map(&f, diff, 8);
    fx_build_check(&f);
    assert_int_equal(count_nb(find_contour(&f.set, 1, 0), 2), off);
    fx_free(&f);

    /* The band of the border region is refined too, and is never a contour. */
    fx_map(&f, same, 8);
    for (uint32_t s = 0; s < f.chf.span_count; s++)
        if (f.region[s] == 2)
            f.region[s] = OP_BORDER_REGION;
    f.region_count = 1;
    f.st.border_region = OP_BORDER_REGION;
    fx_build_check(&f);
    assert_int_equal(f.set.count, 1);
    assert_int_equal(count_nb(&f.set.contours[0], OP_BORDER_REGION), off);
    fx_free(&f);
}

static void test_settings_and_bad_input(void **state)
{
    (void)state;
    op_contour_settings s;
    op_contour_settings_defaults(&s);
    assert_true(s.max_error == 1.3);
    assert_int_equal(s.max_edge_len, 12);
    assert_int_equal(s.straight_region_borders, 1);
    assert_int_equal(s.border_region, 0);
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_OK);
    s.max_error = NAN;
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_INVALID_ARGUMENT);
    s.max_error = INFINITY;
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_INVALID_ARGUMENT);
    s.max_error = -0.5;
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_INVALID_ARGUMENT);
    s.max_error = 0;
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_OK);
    s.max_edge_len = -1;
    assert_int_equal(op_contour_settings_validate(&ctx, &s), OP_INVALID_ARGUMENT);
    op_ctx_free(&ctx);

    fixture f;
    const char *rows[] = {"aab", "aAb"};
    fx_map(&f, rows, 2);
    /* region 1 has areas 63 and 1 */
    assert_int_equal(op_build_contours(&f.ctx, &f.chf, f.region, f.region_count, &f.st, &f.set),
                     OP_BAD_INPUT);
    assert_int_equal(f.set.count, 0);
    f.chf.area[4] = 63; /* now consistent */
    assert_int_equal(op_build_contours(&f.ctx, &f.chf, f.region, 1, &f.st, &f.set), OP_BAD_INPUT);
    f.chf.area[0] = 0; /* a region on an area-0 span */
    assert_int_equal(op_build_contours(&f.ctx, &f.chf, f.region, 2, &f.st, &f.set), OP_BAD_INPUT);
    f.chf.area[0] = 63;
    f.st.border_region = 2;
    assert_int_equal(op_build_contours(&f.ctx, &f.chf, f.region, 2, &f.st, &f.set),
                     OP_INVALID_ARGUMENT);
    f.st.border_region = 0;
    f.st.max_error = -1;
    assert_int_equal(op_build_contours(&f.ctx, &f.chf, f.region, 2, &f.st, &f.set),
                     OP_INVALID_ARGUMENT);
    f.st.max_error = 1.3;
    fx_build_check(&f);
    /* The checker notices a broken set. */
    op_contour_vert saved = f.set.contours[0].verts[0];
    f.set.contours[0].verts[0].x += 5;
    op_contour_report rep;
    assert_int_equal(op_check_contours(&f.ctx, &f.chf, f.region, f.region_count, &f.st, &f.set,
                                       &rep),
                     OP_INTERNAL);
    assert_true(rep.failures > 0);
    f.set.contours[0].verts[0] = saved;
    f.set.contours[0].region = 2;
    assert_int_equal(op_check_contours(&f.ctx, &f.chf, f.region, f.region_count, &f.st, &f.set,
                                       &rep),
                     OP_INTERNAL);
    f.set.contours[0].region = 1;
    fx_free(&f);
}

/* Digest: XXH3-64 of the documented serialization (docs/formats-contours.md). */
static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_digest_format(void **state)
{
    (void)state;
    fixture f;
    const char *rows[] = {"aab.", "aabb", "..bb"};
    fx_map(&f, rows, 3);
    fx_build_check(&f);
    unsigned char buf[4096];
    size_t n = 0;
    put32(buf, f.set.count);
    put32(buf + 4, f.set.raw_fallbacks);
    put32(buf + 8, f.set.dropped_holes);
    n = 12;
    for (uint32_t i = 0; i < f.set.count; i++) {
        const op_contour *c = &f.set.contours[i];
        put32(buf + n, c->region);
        buf[n + 4] = c->area;
        put32(buf + n + 5, c->vert_count);
        n += 9;
        for (uint32_t j = 0; j < c->vert_count; j++) {
            put32(buf + n, (uint32_t)c->verts[j].x);
            put32(buf + n + 4, (uint32_t)c->verts[j].y);
            put32(buf + n + 8, (uint32_t)c->verts[j].z);
            put32(buf + n + 12, c->verts[j].neighbour);
            n += 16;
        }
    }
    const uint64_t d = op_digest_contours(&f.set);
    assert_true(d == XXH3_64bits(buf, n));
    f.set.contours[0].verts[0].y++;
    assert_true(op_digest_contours(&f.set) != d);
    f.set.contours[0].verts[0].y--;
    /* raw data is not digested */
    f.st.keep_raw = 0;
    fx_build_check(&f);
    assert_true(op_digest_contours(&f.set) == d);
    op_contour_set empty;
    memset(&empty, 0, sizeof empty);
    memset(buf, 0, 12);
    assert_true(op_digest_contours(&empty) == XXH3_64bits(buf, 12));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cell),
        cmocka_unit_test(test_one_cell_island),
        cmocka_unit_test(test_vertex_y),
        cmocka_unit_test(test_crossing_refined),
        cmocka_unit_test(test_grid_edge_json),
        cmocka_unit_test(test_courtyard),
        cmocka_unit_test(test_two_holes),
        cmocka_unit_test(test_hole_crossing),
        cmocka_unit_test(test_spiral_ramp),
        cmocka_unit_test(test_spiral_rule),
        cmocka_unit_test(test_max_edge_len),
        cmocka_unit_test(test_tie_rule),
        cmocka_unit_test(test_straight_borders),
        cmocka_unit_test(test_settings_and_bad_input),
        cmocka_unit_test(test_digest_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
