/* The issue-12 contour speed work against the code it replaced, byte for byte
 * (tests/contours/contours_reference.h): the one-pass trace with fragments (on 1, 2, 3
 * and 8 segments) against the §6 walk over the field; the farthest-point search and the
 * grid crossing check against op__seg_dist2 and the x sweep; the hole join with grid
 * candidates and labels against the quadratic join. Inputs: random multi-floor fields
 * (one-way links, holes, several areas, a tile band), their traced and simplified loops,
 * random polygons with many collinear and touching edges, and hole sets with many
 * distance ties (lattices, duplicates, holes outside or across the outline). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contours/test_contours_util.h"
#include "contours/contours_reference.h"

#define NW 7 /* workers: segments 1 + 0, 1, 2, 7 */

typedef struct counts {
    uint64_t loops, multi_seg, simplified, joins, bridged, dropped, crossing, plain, ties;
    uint64_t copied[2]; /* traces with the region check, loops copied: narrow, wide */
} counts;

static counts g_n;

/* ---- Trace ------------------------------------------------------------------------- */

static void same_trace(const op_ctrace *a, const op_ctrace *b, const char *what)
{
    if (a->loop_count != b->loop_count || a->vert_count != b->vert_count)
        fail_msg("%s: %u loops / %zu vertices, reference %u / %zu", what, b->loop_count,
                 b->vert_count, a->loop_count, a->vert_count);
    for (uint32_t i = 0; i < a->loop_count; i++) {
        const op_cloop *x = &a->loops[i], *y = &b->loops[i];
        if (x->region != y->region || x->count != y->count || x->first != y->first ||
            x->area2 != y->area2)
            fail_msg("%s: loop %u differs", what, i);
    }
    if (a->vert_count &&
        memcmp(a->verts, b->verts, a->vert_count * sizeof *a->verts))
        fail_msg("%s: vertices differ", what);
}

/* The trace with the region check (as op_build_contours runs it), its loops copied out of
 * the chunks (op__contour_loop_copy), equals the reference ref; wide: 16-byte records
 * forced (op_contour_narrow_limit 0), else the 8-byte ones these fields fit. */
static void check_copy(op_ctx *ctx, op_ctx **wp, int nw, const op_chf *chf,
                       const uint32_t *region, uint32_t br, uint32_t rc, const op_ctrace *ref,
                       int wide)
{
    const uint32_t keep = op_contour_narrow_limit;
    if (wide)
        op_contour_narrow_limit = 0;
    uint16_t *ra = malloc(((size_t)rc + 1) * sizeof *ra);
    memset(ra, 0xff, ((size_t)rc + 1) * sizeof *ra);
    op_ctrace t;
    const op_status st = op__contour_trace(ctx, wp, nw, chf, region, br, rc, ra, 0, &t);
    op_contour_narrow_limit = keep;
    if (st != OP_OK)
        fail_msg("trace with the region check: %s", op_ctx_error(ctx));
    assert_false(t.regions_bad);
    if (t.loop_count != ref->loop_count || t.vert_count != ref->vert_count)
        fail_msg("%s records, %d workers: %u loops / %zu vertices, reference %u / %zu",
                 wide ? "wide" : "narrow", nw, t.loop_count, t.vert_count, ref->loop_count,
                 ref->vert_count);
    op_contour_vert *v = malloc((ref->vert_count ? ref->vert_count : 1) * sizeof *v);
    for (uint32_t i = 0; i < t.loop_count; i++) {
        const op_cloop *x = &ref->loops[i];
        if (t.loops[i].region != x->region || t.loops[i].count != x->count)
            fail_msg("%s records, %d workers: loop %u differs", wide ? "wide" : "narrow", nw, i);
        op__contour_loop_copy(&t, i, v);
        if (memcmp(v, ref->verts + x->first, x->count * sizeof *v))
            fail_msg("%s records, %d workers: loop %u's vertices differ", wide ? "wide" : "narrow",
                     nw, i);
    }
    g_n.copied[wide]++;
    free(v);
    op__contour_trace_free(&t);
    free(ra);
}

/* The new trace on 1 + nw segments equals the reference; returns the reference. */
static void check_trace(op_ctx *ctx, op_ctx *workers, const op_chf *chf,
                        const uint32_t *region, uint32_t br, uint32_t rc, op_ctrace *ref)
{
    assert_int_equal(ref_contour_trace(ctx, chf, region, br, ref), OP_OK);
    static const int nws[4] = {0, 1, 2, NW};
    for (int k = 0; k < 4; k++) {
        op_ctx *wp[NW];
        for (int i = 0; i < nws[k]; i++)
            wp[i] = &workers[i];
        op_ctrace t;
        if (op__contour_trace(ctx, wp, nws[k], chf, region, br, 0, NULL, 1, &t) != OP_OK)
            fail_msg("trace: %s", op_ctx_error(ctx));
        char what[64];
        snprintf(what, sizeof what, "trace, %d workers", nws[k]);
        same_trace(ref, &t, what);
        op__contour_trace_free(&t);
        check_copy(ctx, wp, nws[k], chf, region, br, rc, ref, 0);
        check_copy(ctx, wp, nws[k], chf, region, br, rc, ref, 1);
    }
    /* more than one segment was really used on the larger fields */
    g_n.multi_seg += chf->span_count > 3 * 4 * 4096u;
    g_n.loops += ref->loop_count;
}

/* ---- Simplification ------------------------------------------------------------------ */

static void check_simplify(op_ctx *ctx, const op_ctrace *tr, const uint8_t *rarea,
                           uint32_t rc, uint32_t br)
{
    static const struct {
        double err;
        int32_t len;
        int straight;
    } set[] = {{1.3, 12, 1}, {1.3, 12, 0}, {0.0, 12, 1}, {0.5, 3, 1}, {3.0, 0, 1}, {2.0, 1, 0}};
    for (uint32_t i = 0; i < tr->loop_count; i++) {
        const op_cloop *L = &tr->loops[i];
        if (!L->area2)
            continue;
        const op_contour_vert *raw = tr->verts + L->first;
        op_contour_vert *a = malloc(L->count * sizeof *a), *b = malloc(L->count * sizeof *b);
        for (size_t k = 0; k < sizeof set / sizeof set[0]; k++) {
            const op_csimp p = {set[k].err, set[k].len, set[k].straight, br,
                                rarea[L->region], rarea, rc};
            uint32_t an = 0, bn = 0;
            int ak = -1, bk = -2;
            assert_int_equal(ref_contour_simplify(ctx, raw, L->count, L->area2, &p, a, &an, &ak),
                             OP_OK);
            assert_int_equal(op__contour_simplify(ctx, raw, L->count, L->area2, &p, b, &bn, &bk),
                             OP_OK);
            if (ak != bk || an != bn || memcmp(a, b, an * sizeof *a))
                fail_msg("simplify loop %u setting %zu: kind %d/%d, %u/%u vertices", i, k, bk,
                         ak, bn, an);
            g_n.simplified++;
        }
        free(a);
        free(b);
    }
}

/* ---- Join ------------------------------------------------------------------------------- */

static void check_join(op_ctx *ctx, const op_contour_vert *ov, uint32_t on,
                       const op_contour_vert *const *hv, const uint32_t *hn, uint32_t hc,
                       uint32_t region)
{
    size_t cap = on;
    for (uint32_t h = 0; h < hc; h++)
        cap += (size_t)hn[h] + 2;
    op_contour_vert *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    uint8_t *ja = malloc(hc + 1), *jb = malloc(hc + 1);
    uint32_t an = 0, bn = 0;
    assert_int_equal(ref_contour_join(ctx, ov, on, hv, hn, hc, region, a, &an, ja), OP_OK);
    assert_int_equal(op__contour_join(ctx, ov, on, hv, hn, hc, region, b, &bn, jb), OP_OK);
    if (an != bn || memcmp(ja, jb, hc) || memcmp(a, b, an * sizeof *a)) {
        uint32_t d = 0;
        while (d < an && d < bn && !memcmp(&a[d], &b[d], sizeof *a))
            d++;
        fail_msg("join of %u holes into %u vertices: %u/%u vertices, first difference at %u",
                 hc, on, bn, an, d);
    }
    g_n.joins++;
    for (uint32_t h = 0; h < hc; h++) {
        g_n.bridged += ja[h];
        g_n.dropped += !ja[h];
    }
    free(a);
    free(b);
    free(ja);
    free(jb);
}

typedef struct lp {
    const op_contour_vert *v;
    uint32_t n;
    int32_t lx, lz;
    uint32_t disc;
} lp;

static int cmp_lp(const void *pa, const void *pb)
{
    const lp *a = pa, *b = pb;
    if (a->lx != b->lx)
        return a->lx < b->lx ? -1 : 1;
    if (a->lz != b->lz)
        return a->lz < b->lz ? -1 : 1;
    return a->disc < b->disc ? -1 : (a->disc > b->disc);
}

/* Every outline of every region with all the region's holes (raw, or simplified with
 * the defaults), in leftmost order as op_build_contours hands them. */
static void join_field_loops(op_ctx *ctx, const op_ctrace *tr, const uint8_t *rarea,
                             uint32_t rc, int simplified)
{
    op_contour_vert **simp = calloc(tr->loop_count + 1, sizeof *simp);
    uint32_t *sn = calloc(tr->loop_count + 1, sizeof *sn);
    for (uint32_t i = 0; i < tr->loop_count; i++) {
        const op_cloop *L = &tr->loops[i];
        const op_contour_vert *raw = tr->verts + L->first;
        simp[i] = malloc(L->count * sizeof **simp);
        if (simplified && L->area2) {
            const op_csimp p = {1.3, 12, 1, 0, rarea[L->region], rarea, rc};
            int kind;
            assert_int_equal(
                op__contour_simplify(ctx, raw, L->count, L->area2, &p, simp[i], &sn[i], &kind),
                OP_OK);
        } else {
            memcpy(simp[i], raw, L->count * sizeof *raw);
            sn[i] = L->count;
        }
    }
    lp *holes = malloc((tr->loop_count + 1) * sizeof *holes);
    const op_contour_vert **hv = malloc((tr->loop_count + 1) * sizeof *hv);
    uint32_t *hn = malloc((tr->loop_count + 1) * sizeof *hn);
    for (uint32_t o = 0; o < tr->loop_count; o++) {
        if (tr->loops[o].area2 <= 0)
            continue;
        uint32_t hc = 0;
        for (uint32_t i = 0; i < tr->loop_count; i++)
            if (tr->loops[i].region == tr->loops[o].region && tr->loops[i].area2 < 0) {
                const uint32_t l = ref_leftmost(simp[i], sn[i]);
                holes[hc] = (lp){simp[i], sn[i], simp[i][l].x, simp[i][l].z, i};
                hc++;
            }
        if (!hc)
            continue;
        qsort(holes, hc, sizeof *holes, cmp_lp);
        for (uint32_t h = 0; h < hc; h++) {
            hv[h] = holes[h].v;
            hn[h] = holes[h].n;
        }
        check_join(ctx, simp[o], sn[o], hv, hn, hc, tr->loops[o].region);
    }
    for (uint32_t i = 0; i < tr->loop_count; i++)
        free(simp[i]);
    free(simp);
    free(sn);
    free(holes);
    free(hv);
    free(hn);
}

/* ---- Random fields --------------------------------------------------------------------- */

static void field_case(op_ctx *ctx, op_ctx *workers, uint64_t seed, uint32_t w, uint32_t d,
                       int band)
{
    op_random_chf_opts o;
    op_random_chf_defaults(&o, w, d);
    o.hole_percent = 2 + (uint32_t)(seed % 7);
    o.empty_percent = (uint32_t)(seed % 9);
    o.max_floors = 1 + (uint32_t)(seed % 3);
    o.area_count = 1 + (uint32_t)(seed % 3);
    op_chf chf;
    assert_int_equal(op_random_chf(ctx, &chf, seed, &o), OP_OK);
    const uint32_t n = chf.span_count;
    uint32_t *region = malloc((n ? n : 1) * sizeof *region);
    const uint32_t rc = ct_random_regions(ctx, &chf, seed % 2 ? 9 : 0, seed % 2 ? 6 : 0, region);
    uint32_t br = 0;
    if (band) { /* a tile band of 3 cells with the border region's id */
        br = OP_BORDER_REGION;
        for (uint32_t z = 0; z < chf.depth; z++)
            for (uint32_t x = 0; x < chf.width; x++) {
                const uint32_t c = x + z * chf.width;
                if (x >= 3 && z >= 3 && x + 3 < chf.width && z + 3 < chf.depth)
                    continue;
                for (uint32_t s = chf.cell_first[c]; s < chf.cell_first[c] + chf.cell_count[c]; s++)
                    if (region[s])
                        region[s] = br;
            }
    }
    uint8_t *rarea = calloc(rc + 2, 1);
    for (uint32_t s = 0; s < n; s++)
        if (region[s] && region[s] <= rc)
            rarea[region[s]] = chf.area[s];
    op_ctrace ref;
    check_trace(ctx, workers, &chf, region, br, rc, &ref);
    if (w * d <= 120 * 120) { /* the per-loop comparisons on the smaller fields */
        check_simplify(ctx, &ref, rarea, rc, br);
        join_field_loops(ctx, &ref, rarea, rc, 0);
        join_field_loops(ctx, &ref, rarea, rc, 1);
    }
    ref_trace_free(&ref);
    free(rarea);
    free(region);
    op_chf_free(&chf);
}

static void test_trace_simplify_join_fields(void **state)
{
    (void)state;
    op_ctx ctx, workers[NW];
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_AUTO), OP_OK);
    for (int i = 0; i < NW; i++)
        assert_int_equal(op_ctx_fork(&ctx, &workers[i]), OP_OK);
    memset(&g_n, 0, sizeof g_n);
    for (uint64_t seed = 1; seed <= 40; seed++)
        field_case(&ctx, workers, seed, 6 + (uint32_t)(seed * 13 % 90),
                   5 + (uint32_t)(seed * 7 % 80), seed % 5 == 0);
    for (uint64_t seed = 200; seed < 206; seed++) /* several segments, rows of any length */
        field_case(&ctx, workers, seed, seed % 2 ? 420 : 150, seed % 2 ? 160 : 700, seed == 203);
    printf("loops %llu (fields on several segments %llu), simplifications %llu, joins %llu "
           "(%llu bridged, %llu dropped)\n",
           (unsigned long long)g_n.loops, (unsigned long long)g_n.multi_seg,
           (unsigned long long)g_n.simplified, (unsigned long long)g_n.joins,
           (unsigned long long)g_n.bridged, (unsigned long long)g_n.dropped);
    printf("traces with the region check, loops copied: narrow records %llu, wide %llu\n",
           (unsigned long long)g_n.copied[0], (unsigned long long)g_n.copied[1]);
    assert_true(g_n.multi_seg >= 4);
    assert_true(g_n.copied[0] >= 4 * 46 && g_n.copied[1] >= 4 * 46);
    assert_true(g_n.simplified > 10000);
    assert_true(g_n.joins > 100 && g_n.bridged > 500 && g_n.dropped > 50);
    for (int i = 0; i < NW; i++)
        op_ctx_free(&workers[i]);
    op_ctx_free(&ctx);
}

/* A region with a corrupt successor map (links that are not mutual while mutual says so)
 * is reported, not traced forever; both traces fail. */
static void test_trace_bad_region_check(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_random_chf_opts o;
    op_random_chf_defaults(&o, 40, 30);
    op_chf chf;
    assert_int_equal(op_random_chf(&ctx, &chf, 9, &o), OP_OK);
    uint32_t *region = malloc(chf.span_count * sizeof *region);
    const uint32_t rc = ct_random_regions(&ctx, &chf, 0, 0, region);
    uint16_t *rarea = malloc((rc + 1) * sizeof *rarea);
    /* the fused region check agrees with the rules: a bad id is flagged */
    op_ctrace t;
    memset(rarea, 0xff, (rc + 1) * sizeof *rarea);
    assert_int_equal(op__contour_trace(&ctx, NULL, 0, &chf, region, 0, rc, rarea, 0, &t), OP_OK);
    assert_false(t.regions_bad);
    for (uint32_t s = 0; s < chf.span_count; s++)
        if (region[s])
            assert_int_equal(rarea[region[s]], chf.area[s]);
    op__contour_trace_free(&t);
    const uint32_t s0 = chf.span_count / 2;
    const uint32_t keep = region[s0];
    region[s0] = rc + 1;
    memset(rarea, 0xff, (rc + 1) * sizeof *rarea);
    assert_int_equal(op__contour_trace(&ctx, NULL, 0, &chf, region, 0, rc, rarea, 0, &t), OP_OK);
    assert_true(t.regions_bad);
    op__contour_trace_free(&t);
    region[s0] = keep;
    free(rarea);
    free(region);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* ---- Random polygons and hole sets ------------------------------------------------------ */

static void test_crossing_and_distance(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_ctx actx;
    assert_int_equal(op_ctx_init(&actx, OP_ISA_AUTO), OP_OK);
    op_rng rng = {12345};
    for (int it = 0; it < 4000; it++) {
        const uint32_t n = 4 + op_rng_below(&rng, it % 10 == 0 ? 1200 : 80);
        const int32_t span = 2 + (int32_t)op_rng_below(&rng, it % 3 ? 12 : 300);
        op_contour_vert *v = malloc(n * sizeof *v);
        int32_t x = 0, z = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (it % 3 == 2) { /* around a circle: mostly simple, rounding makes ties */
                const double t = 6.283185307179586 * i / n;
                x = (int32_t)(span * (1.0 + cos(t)));
                z = (int32_t)(span * (1.0 + sin(t)));
            } else if (it % 3 == 1) { /* short steps: many collinear and touching edges */
                x += (int32_t)op_rng_below(&rng, 5) - 2;
                z += (int32_t)op_rng_below(&rng, 5) - 2;
            } else {
                x = (int32_t)op_rng_below(&rng, (uint32_t)span);
                z = (int32_t)op_rng_below(&rng, (uint32_t)span);
            }
            v[i] = (op_contour_vert){x, 0, z, 0};
        }
        /* simplification of the same polygon as a loop (large coordinates on some: the
         * farthest-point search without division below 2^50 and with it above) */
        if (it % 4 == 3)
            for (uint32_t i = 0; i < n; i++) {
                v[i].x = v[i].x * 40000 + (int32_t)op_rng_below(&rng, 3);
                v[i].z = v[i].z * 30011;
            }
        /* extents up to 2^15 (the farthest-point kernels' int32 keys; |cross| beyond
         * 2^25 goes back to the exact search) */
        if (it % 8 == 1) {
            const int32_t scale = 30000 / (2 * span + 6);
            for (uint32_t i = 0; i < n; i++) {
                v[i].x = v[i].x * scale + (int32_t)op_rng_below(&rng, 3);
                v[i].z = v[i].z * scale + (int32_t)op_rng_below(&rng, 3);
            }
        }
        for (uint32_t i = 0; i < n; i++)
            v[i].neighbour = op_rng_below(&rng, 4) ? 0 : 1 + op_rng_below(&rng, 2);
        const int64_t area2 = ref_loop_area2(v, n);
        if (area2) {
            static const uint8_t areas[3] = {0, 63, 63};
            const op_csimp ps = {(double)(it % 5) * 0.7, (int32_t)(it % 4) * 4, it % 2, 0, 63,
                                 areas, 2};
            op_contour_vert *sa = malloc(n * sizeof *sa), *sb = malloc(n * sizeof *sb);
            uint32_t an = 0, bn = 0;
            int ak = -1, bk = -2;
            assert_int_equal(ref_contour_simplify(&ctx, v, n, area2, &ps, sa, &an, &ak), OP_OK);
            /* the scalar twin and this CPU's farthest-point kernels */
            for (int c = 0; c < 2; c++) {
                assert_int_equal(op__contour_simplify(c ? &actx : &ctx, v, n, area2, &ps, sb,
                                                      &bn, &bk),
                                 OP_OK);
                if (ak != bk || an != bn || memcmp(sa, sb, an * sizeof *sa))
                    fail_msg("polygon %d (%s): simplification differs", it,
                             c ? "auto" : "scalar");
            }
            free(sa);
            free(sb);
        }
        int a = -1, b = -1;
        assert_int_equal(ref_loop_crosses(&ctx, v, n, &a), 0);
        assert_int_equal(op__loop_crosses(&ctx, v, n, &b), 0);
        if (a != b)
            fail_msg("polygon %d of %u vertices: crosses %d, reference %d", it, n, b, a);
        g_n.crossing += a;
        g_n.plain += !a;
        free(v);
    }
    printf("polygons: %llu cross, %llu do not\n", (unsigned long long)g_n.crossing,
           (unsigned long long)g_n.plain);
    assert_true(g_n.crossing > 500 && g_n.plain > 500);
    /* supplement §9.10 distances, small and near the 128-bit path */
    for (int it = 0; it < 200000; it++) {
        const uint32_t lim = it % 4 == 0 ? 1u << 30 : (it % 4 == 1 ? 1u << 16 : 40);
        op_contour_vert p[3];
        for (int k = 0; k < 3; k++)
            p[k] = (op_contour_vert){(int32_t)op_rng_below(&rng, lim), 0,
                                     (int32_t)op_rng_below(&rng, lim), 0};
        const double a = ref_seg_dist2(&p[0], &p[1], &p[2]), b = op__seg_dist2(&p[0], &p[1], &p[2]);
        assert_memory_equal(&a, &b, sizeof a);
    }
    op_ctx_free(&actx);
    op_ctx_free(&ctx);
}

/* A polygon of k vertices around (cx, cz), clockwise (a hole). */
static uint32_t random_hole(op_rng *rng, op_contour_vert *v, int32_t cx, int32_t cz, int kind)
{
    const int32_t r = 1 + (int32_t)op_rng_below(rng, 3);
    switch (kind) {
    case 0: /* square */
        v[0] = (op_contour_vert){cx - r, 0, cz - r, 0};
        v[1] = (op_contour_vert){cx - r, 0, cz + r, 0};
        v[2] = (op_contour_vert){cx + r, 0, cz + r, 0};
        v[3] = (op_contour_vert){cx + r, 0, cz - r, 0};
        return 4;
    case 1: /* diamond */
        v[0] = (op_contour_vert){cx - r, 0, cz, 0};
        v[1] = (op_contour_vert){cx, 0, cz + r, 0};
        v[2] = (op_contour_vert){cx + r, 0, cz, 0};
        v[3] = (op_contour_vert){cx, 0, cz - r, 0};
        return 4;
    case 2: /* triangle */
        v[0] = (op_contour_vert){cx - r, 0, cz - r, 0};
        v[1] = (op_contour_vert){cx, 0, cz + r, 0};
        v[2] = (op_contour_vert){cx + r, 0, cz - r, 0};
        return 3;
    default: /* L shape */
        v[0] = (op_contour_vert){cx - r, 0, cz - r, 0};
        v[1] = (op_contour_vert){cx - r, 0, cz + r, 0};
        v[2] = (op_contour_vert){cx, 0, cz + r, 0};
        v[3] = (op_contour_vert){cx, 0, cz, 0};
        v[4] = (op_contour_vert){cx + r, 0, cz, 0};
        v[5] = (op_contour_vert){cx + r, 0, cz - r, 0};
        return 6;
    }
}

static void test_join_hole_sets(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    op_rng rng = {777};
    memset(&g_n, 0, sizeof g_n);
    for (int it = 0; it < 600; it++) {
        const int32_t W = 8 + (int32_t)op_rng_below(&rng, it % 50 == 0 ? 400 : 60);
        const int32_t D = 8 + (int32_t)op_rng_below(&rng, 60);
        /* outline: a rectangle, or a staircase with collinear runs (counter-clockwise) */
        op_contour_vert ov[64];
        uint32_t on = 0;
        if (it % 3) {
            ov[on++] = (op_contour_vert){0, 0, 0, 5};
            ov[on++] = (op_contour_vert){W / 2, 0, 0, 6};
            ov[on++] = (op_contour_vert){W, 0, 0, 0};
            ov[on++] = (op_contour_vert){W, 0, D, 0};
            ov[on++] = (op_contour_vert){0, 0, D, 7};
        } else {
            ov[on++] = (op_contour_vert){0, 0, 0, 0};
            ov[on++] = (op_contour_vert){W / 2, 0, 0, 0}; /* collinear */
            ov[on++] = (op_contour_vert){W, 0, 0, 0};
            const int steps = 2 + (int)op_rng_below(&rng, 6);
            int32_t xp = W;
            for (int k = 1; k <= steps; k++) { /* up, then left */
                const int32_t zk = D * k / steps, xk = W - W * k / (steps + 1);
                ov[on++] = (op_contour_vert){xp, 0, zk, 0};
                ov[on++] = (op_contour_vert){xk, 0, zk, 0};
                xp = xk;
            }
            ov[on++] = (op_contour_vert){0, 0, D, 0};
        }
        /* holes: a lattice (many equal distances), random ones (overlapping, touching,
         * outside the outline), and duplicates */
        const uint32_t hmax = it % 50 == 0 ? 2000 : 40;
        op_contour_vert *pool = malloc((size_t)hmax * 6 * sizeof *pool);
        const op_contour_vert **hv = malloc(hmax * sizeof *hv);
        uint32_t *hn = malloc(hmax * sizeof *hn);
        lp *order = malloc(hmax * sizeof *order);
        uint32_t hc = 0;
        const int lattice = it % 4 == 0;
        const uint32_t want = 1 + op_rng_below(&rng, hmax);
        for (uint32_t h = 0; h < want; h++) {
            int32_t cx, cz;
            if (lattice) {
                const int32_t step = 4 + (int32_t)(it % 3) * 2, per = W / step > 1 ? W / step : 1;
                cx = 2 + (int32_t)(h % (uint32_t)per) * step;
                cz = 2 + (int32_t)(h / (uint32_t)per) * step;
                if (cz > D + 4)
                    break;
            } else {
                cx = (int32_t)op_rng_below(&rng, (uint32_t)W + 6) - 3;
                cz = (int32_t)op_rng_below(&rng, (uint32_t)D + 6) - 3;
            }
            op_contour_vert *v = pool + (size_t)hc * 6;
            if (h && op_rng_below(&rng, 20) == 0) { /* a duplicate of the previous hole */
                memcpy(v, pool + (size_t)(hc - 1) * 6, 6 * sizeof *v);
                hn[hc] = hn[hc - 1];
            } else {
                hn[hc] = random_hole(&rng, v, cx, cz, lattice ? 0 : (int)op_rng_below(&rng, 4));
            }
            for (uint32_t k = 0; k < hn[hc]; k++)
                v[k].neighbour = op_rng_below(&rng, 3);
            const uint32_t l = ref_leftmost(v, hn[hc]);
            order[hc] = (lp){v, hn[hc], v[l].x, v[l].z, hc};
            hc++;
        }
        if (it % 5) /* leftmost order as op_build_contours; else as made */
            qsort(order, hc, sizeof *order, cmp_lp);
        for (uint32_t h = 0; h < hc; h++) {
            hv[h] = order[h].v;
            hn[h] = order[h].n;
        }
        check_join(&ctx, ov, on, hv, hn, hc, 9);
        free(pool);
        free(hv);
        free(hn);
        free(order);
    }
    printf("joins %llu: %llu holes bridged, %llu dropped\n", (unsigned long long)g_n.joins,
           (unsigned long long)g_n.bridged, (unsigned long long)g_n.dropped);
    assert_true(g_n.bridged > 2000 && g_n.dropped > 200);
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_simplify_join_fields),
        cmocka_unit_test(test_trace_bad_region_check),
        cmocka_unit_test(test_crossing_and_distance),
        cmocka_unit_test(test_join_hole_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
