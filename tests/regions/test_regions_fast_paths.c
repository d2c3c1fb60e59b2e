/* The region stages' fast paths (issue 12) against what they replaced, byte for byte:
 * - the §5 filter on the region graph against the former span-list filter (copied
 *   below as the reference), on arbitrary region arrays: gaps in the ids, regions of
 *   several areas (the region's area is its first span's), the band, islands;
 * - the monotone row pass against the chain walk it falls back to (random fields with
 *   and without a band, several areas and floors), and a hand-made field whose
 *   predecessor links skip a cell (the fallback itself);
 * - the region graph the row pass builds on the way against the pass over the spans
 *   (sizes, areas, flags, band contacts, link counts per pair and area). */
#include "regions/regions_testlib.h"
#include "regions/regions_internal.h"
#include "regions/region_graph.h"

#define BR OP_BORDER_REGION

/* ---- The former filter (span lists), the reference ------------------------------- */

static uint32_t old_filter(const op_chf *chf, uint32_t *region, uint32_t maxid, uint32_t min_area,
                           uint32_t merge_area, int merge)
{
    const uint32_t n = chf->span_count;
    const size_t nr = (size_t)maxid + 1;
    uint32_t *size = calloc(nr, 4), *next = u32_alloc(n), *head = u32_alloc((uint32_t)nr),
             *tail = u32_alloc((uint32_t)nr), *cnt = calloc(nr, 4),
             *touched = u32_alloc((uint32_t)nr), *map = calloc(nr, 4);
    uint8_t *flag = calloc(nr, 1);
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r == BR)
            continue;
        size[r]++;
        for (int d = 0; d < 4; d++) {
            if (!(chf->mutual[s] >> d & 1))
                continue;
            const uint32_t t = region[op_chf_link(chf, d, s)];
            if (t != 0 && t != r)
                flag[r] = 1;
        }
    }
    for (uint32_t r = 1; r <= maxid; r++)
        if (size[r] && size[r] < min_area && !flag[r])
            flag[r] = 2;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r && r != BR && flag[r] == 2) {
            region[s] = 0;
            size[r] = 0;
        }
    }
    if (merge && merge_area > 0) {
        for (size_t r = 0; r < nr; r++)
            head[r] = tail[r] = OP_NO_LINK;
        for (uint32_t s = 0; s < n; s++) {
            const uint32_t r = region[s];
            next[s] = OP_NO_LINK;
            if (r == 0 || r == BR)
                continue;
            if (head[r] == OP_NO_LINK)
                head[r] = s;
            else
                next[tail[r]] = s;
            tail[r] = s;
        }
        for (int merged = 1; merged;) {
            merged = 0;
            for (uint32_t r = 1; r <= maxid; r++) {
                if (size[r] == 0 || size[r] >= merge_area)
                    continue;
                const uint8_t ra = chf->area[head[r]];
                uint32_t nt = 0;
                for (uint32_t s = head[r]; s != OP_NO_LINK; s = next[s])
                    for (int d = 0; d < 4; d++) {
                        if (!(chf->mutual[s] >> d & 1))
                            continue;
                        const uint32_t t = op_chf_link(chf, d, s), q = region[t];
                        if (q == 0 || q == BR || q == r || chf->area[t] != ra)
                            continue;
                        if (cnt[q]++ == 0)
                            touched[nt++] = q;
                    }
                uint32_t best = 0, bestc = 0;
                for (uint32_t i = 0; i < nt; i++) {
                    const uint32_t q = touched[i];
                    if (cnt[q] > bestc || (cnt[q] == bestc && q < best)) {
                        best = q;
                        bestc = cnt[q];
                    }
                    cnt[q] = 0;
                }
                if (!best)
                    continue;
                for (uint32_t s = head[r]; s != OP_NO_LINK; s = next[s])
                    region[s] = best;
                next[tail[best]] = head[r];
                tail[best] = tail[r];
                head[r] = tail[r] = OP_NO_LINK;
                size[best] += size[r];
                size[r] = 0;
                merged = 1;
            }
        }
    }
    uint32_t k = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r == BR)
            continue;
        if (!map[r])
            map[r] = ++k;
        region[s] = map[r];
    }
    free(size);
    free(next);
    free(head);
    free(tail);
    free(cnt);
    free(touched);
    free(map);
    free(flag);
    return k;
}

static void compare(const uint32_t *got, uint32_t gc, const uint32_t *want, uint32_t wc,
                    uint32_t n, const char *what, uint64_t seed)
{
    if (gc != wc)
        fail_msg("%s seed %llu: %u regions, expected %u", what, (unsigned long long)seed, gc, wc);
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s seed %llu span %u: %u, expected %u", what, (unsigned long long)seed, i,
                     got[i], want[i]);
}

/* Region arrays that no partition makes: blobs grown from random seeds over the links
 * (so regions have neighbours and links to count), some ids unused, areas mixed inside
 * regions, a band on some fields. */
static void random_regions(const op_chf *chf, op_rng *r, uint32_t maxid, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    for (uint32_t s = 0; s < n; s++)
        region[s] = chf->area[s] ? 1 + op_rng_below(r, maxid) : 0;
    /* smooth: copy a linked neighbour's id most of the time */
    for (int round = 0; round < 3; round++)
        for (uint32_t s = 0; s < n; s++) {
            const int d = (int)op_rng_below(r, 4);
            if (!region[s] || !(chf->mutual[s] >> d & 1) || op_rng_below(r, 10) < 2)
                continue;
            const uint32_t q = region[op_chf_link(chf, d, s)];
            if (q)
                region[s] = q;
        }
    if (chf->border_size > 0) {
        uint32_t *band = u32_alloc(n);
        op_regions_init_band(chf, band);
        for (uint32_t s = 0; s < n; s++)
            if (band[s] == BR)
                region[s] = BR;
        free(band);
    }
}

/* The scan and the numbering take their spans from kernels (core/kernels.h, regions):
 * both the scalar twins and this CPU's best variant (auto) are compared. */
static void filter_against_former(op_isa isa)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, isa), OP_OK);
    for (uint64_t seed = 1; seed <= 300; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 6 + (uint32_t)(seed % 37), 5 + (uint32_t)(seed % 29));
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 3);
        o.hole_percent = (uint32_t)(seed % 5);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = seed % 4 == 0 ? 2 : 0;
        const uint32_t n = chf.span_count;
        op_rng r = {seed * 31};
        const uint32_t maxid = 1 + op_rng_below(&r, n / 3 + 2);
        uint32_t *in = u32_alloc(n), *a = u32_alloc(n), *b = u32_alloc(n);
        random_regions(&chf, &r, maxid, in);
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.min_region_area = op_rng_below(&r, 12);
        s.merge_region_area = op_rng_below(&r, 4) ? op_rng_below(&r, 60) : 0;
        for (int merge = 0; merge <= 1; merge++) {
            memcpy(a, in, (size_t)n * 4);
            memcpy(b, in, (size_t)n * 4);
            uint32_t ca = maxid;
            assert_int_equal(op_filter_regions(&ctx, &chf, &s, merge, a, &ca), OP_OK);
            const uint32_t cb =
                old_filter(&chf, b, maxid, s.min_region_area, s.merge_region_area, merge);
            compare(a, ca, b, cb, n, merge ? "filter" : "filter (no merge)", seed);
        }
        free(in);
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

static void test_filter_against_former(void **state)
{
    (void)state;
    filter_against_former(OP_ISA_SCALAR);
    filter_against_former(OP_ISA_AUTO);
}

/* ---- Monotone: the row pass against the chain walk ------------------------------- */

static void test_monotone_rows_against_chains(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 300; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 5 + (uint32_t)(seed % 41), 4 + (uint32_t)(seed % 33));
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.hole_percent = (uint32_t)(seed % 7);
        o.empty_percent = (uint32_t)(seed % 5);
        o.y_jitter = (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = (int32_t)(seed % 3);
        const uint32_t n = chf.span_count;
        uint32_t *a = u32_alloc(n), *b = u32_alloc(n), ca, cb;
        assert_int_equal(op_build_regions_monotone_raw(&ctx, &chf, a, &ca), OP_OK);
        assert_int_equal(op_regions_monotone_raw_chains(&ctx, &chf, b, &cb), OP_OK);
        compare(a, ca, b, cb, n, "monotone rows", seed);
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

/* A 6x3 floor whose middle row's spans link -x/+x two cells apart (mutual both ways):
 * predecessors outside the cell before, so the chain walk runs, and its sweeps are
 * chains that jump cells. */
static void test_monotone_skipping_links(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    const char *rows[] = {"aaaaaa", "aaaaaa", "aaaaaa"};
    op_chf chf;
    grid_chf(&ctx, &chf, 6, 3, rows);
    for (uint32_t x = 0; x < 6; x++) {
        const uint32_t s = grid_span(&chf, x, 1);
        op_test_set_link(&chf, 0, s, x >= 2 ? grid_span(&chf, x - 2, 1) : OP_NO_LINK);
        op_test_set_link(&chf, 2, s, x + 2 < 6 ? grid_span(&chf, x + 2, 1) : OP_NO_LINK);
    }
    op_chf_build_mutual(&ctx, &chf);
    uint32_t a[18], b[18], ca, cb;
    assert_int_equal(op_build_regions_monotone_raw(&ctx, &chf, a, &ca), OP_OK);
    assert_int_equal(op_regions_monotone_raw_chains(&ctx, &chf, b, &cb), OP_OK);
    compare(a, ca, b, cb, chf.span_count, "skipping links", 0);
    /* Row 1 is two chains (even and odd x), each continuing... or not: whatever the chain
     * walk says; but they are two sweeps, so the row holds at least two ids. */
    assert_int_not_equal(a[grid_span(&chf, 0, 1)], a[grid_span(&chf, 1, 1)]);
    assert_int_equal(a[grid_span(&chf, 0, 1)], a[grid_span(&chf, 4, 1)]);
    op_chf_free(&chf);
    op_ctx_free(&ctx);
}

/* Link ends summed per (r, q, a), sorted: the graph's links as a set with counts. */
typedef struct link_sum {
    uint32_t r, q, a;
    uint64_t n;
} link_sum;

static int cmp_link(const void *x, const void *y)
{
    const link_sum *a = x, *b = y;
    if (a->r != b->r)
        return a->r < b->r ? -1 : 1;
    if (a->q != b->q)
        return a->q < b->q ? -1 : 1;
    return a->a < b->a ? -1 : a->a > b->a;
}

static size_t sum_links(const op_regions_graph *g, link_sum **out)
{
    const size_t ne = 2 * g->nlink; /* both ends of every link */
    link_sum *v = malloc((ne ? ne : 1) * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < g->nlink; i++) {
        const op_regions_link *e = &g->link[i];
        v[2 * i] = (link_sum){e->r, e->q, e->a, e->n};
        v[2 * i + 1] = (link_sum){e->q, e->r, e->b, e->n};
    }
    qsort(v, ne, sizeof *v, cmp_link);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++) {
        if (k && !cmp_link(&v[k - 1], &v[i]))
            v[k - 1].n += v[i].n;
        else
            v[k++] = v[i];
    }
    *out = v;
    return k;
}

static void test_monotone_graph_against_scan(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    uint64_t links_seen = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 5 + (uint32_t)(seed % 43), 4 + (uint32_t)(seed % 31));
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.hole_percent = (uint32_t)(seed % 7);
        o.empty_percent = (uint32_t)(seed % 5);
        o.y_jitter = (uint32_t)(seed % 3);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = (int32_t)(seed % 3);
        const uint32_t n = chf.span_count;
        uint32_t *a = u32_alloc(n), *b = u32_alloc(n), ca, cb;
        op_regions_graph ga, gb;
        assert_int_equal(op_regions_monotone_graph(&ctx, &chf, a, &ca, &ga, 1), OP_OK);
        assert_non_null(ga.sweep_id); /* the row pass ran: region[] holds sweep numbers */
        op_regions_resolve_sweeps(a, n, ga.sweep_id, ga.nsweep);
        assert_int_equal(op_regions_monotone_raw_chains(&ctx, &chf, b, &cb), OP_OK);
        compare(a, ca, b, cb, n, "monotone graph regions", seed);
        assert_int_equal(op_regions_graph_init(&ctx, &gb, cb, 1, 1), OP_OK);
        assert_int_equal(op_regions_graph_scan(&ctx, &chf, b, &gb), OP_OK);
        assert_int_equal(ga.maxid, gb.maxid);
        for (uint32_t r = 1; r <= ga.maxid; r++) {
            if (ga.size[r] != gb.size[r] || ga.rarea[r] != gb.rarea[r] ||
                ga.flag[r] != gb.flag[r] || ga.band[r] != gb.band[r])
                fail_msg("seed %llu region %u: size %u/%u area %u/%u flag %u/%u band %u/%u",
                         (unsigned long long)seed, r, ga.size[r], gb.size[r], ga.rarea[r],
                         gb.rarea[r], ga.flag[r], gb.flag[r], ga.band[r], gb.band[r]);
        }
        link_sum *la, *lb;
        const size_t na = sum_links(&ga, &la), nb = sum_links(&gb, &lb);
        if (na != nb)
            fail_msg("seed %llu: %zu linked pairs, the scan finds %zu", (unsigned long long)seed,
                     na, nb);
        for (size_t i = 0; i < na; i++)
            if (cmp_link(&la[i], &lb[i]) || la[i].n != lb[i].n)
                fail_msg("seed %llu: link (%u, %u, area %u) x%llu, the scan (%u, %u, %u) x%llu",
                         (unsigned long long)seed, la[i].r, la[i].q, la[i].a,
                         (unsigned long long)la[i].n, lb[i].r, lb[i].q, lb[i].a,
                         (unsigned long long)lb[i].n);
        links_seen += na;
        assert_int_equal(ga.novl, gb.novl);
        free(la);
        free(lb);
        op_regions_graph_free(&ctx, &ga);
        op_regions_graph_free(&ctx, &gb);
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    assert_true(links_seen > 1000); /* the fields have borders between regions */
    op_ctx_free(&ctx);
}

/* ---- Numbering across the kernel's chunks (op_regions_number) ------------------- */

/* §5.3 numbering written out span by span (the definition in region_graph.h). */
static uint32_t number_reference(uint32_t *region, uint32_t n, const uint32_t *fin,
                                 uint32_t maxid, uint32_t *map)
{
    uint32_t k = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (r == 0 || r > maxid)
            continue;
        const uint32_t f = fin[r];
        if (f && !map[f])
            map[f] = ++k;
        region[s] = f ? map[f] : 0;
    }
    return k;
}

/* The numbering writes its numbers in place chunk by chunk, so the span before a chunk
 * holds a number when the next chunk's changes are found. The fields put, at every
 * chunk start, the raw value equal to the number the span before gets (a change a
 * comparison with the written number would miss), and random runs elsewhere; the
 * result must equal the definition for the scalar twins and this CPU's variant. */
static void number_across_chunks(op_isa isa)
{
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, isa), OP_OK);
    const uint32_t chunk = 4096, maxid = 300;
    uint32_t fin[301];
    for (uint64_t seed = 1; seed <= 40; seed++) {
        op_rng rng = {seed * 977};
        const uint32_t n = 3 * chunk + (uint32_t)(seed * 37 % 200);
        for (uint32_t v = 0; v <= maxid; v++)
            fin[v] = v == 0 ? 0 : (seed & 1) ? v : 1 + (uint32_t)(op_rng_next(&rng) % maxid);
        uint32_t *raw = u32_alloc(n), *a = u32_alloc(n), *b = u32_alloc(n);
        for (uint32_t s = 0; s < n;) {
            const uint32_t len = 1 + (uint32_t)(op_rng_next(&rng) % 700);
            const uint32_t pick = (uint32_t)(op_rng_next(&rng) % 10);
            const uint32_t v = pick == 0 ? 0 : pick == 1 ? BR : 1 + (uint32_t)(op_rng_next(&rng) % maxid);
            for (uint32_t i = 0; i < len && s < n; i++)
                raw[s++] = v;
        }
        uint32_t planted = 0;
        for (uint32_t c0 = chunk; c0 < n; c0 += chunk) {
            uint32_t map[301] = {0};
            memcpy(a, raw, (size_t)n * sizeof *a);
            number_reference(a, n, fin, maxid, map);
            const uint32_t want = a[c0 - 1];
            if (want >= 1 && want <= maxid && want != raw[c0 - 1]) {
                for (uint32_t s = c0; s < c0 + 5; s++)
                    raw[s] = want;
                planted++;
            }
        }
        uint32_t map_a[301] = {0}, map_b[301] = {0};
        memcpy(a, raw, (size_t)n * sizeof *a);
        memcpy(b, raw, (size_t)n * sizeof *b);
        const uint32_t ka = number_reference(a, n, fin, maxid, map_a);
        const uint32_t kb = op_regions_number(ctx.k->regions.change_bits, b, n, fin, maxid, map_b);
        assert_int_equal(ka, kb);
        assert_memory_equal(a, b, (size_t)n * sizeof *a);
        assert_memory_equal(map_a, map_b, sizeof map_a);
        if (seed == 1)
            assert_true(planted > 0); /* the case the test is for is there */
        free(raw);
        free(a);
        free(b);
    }
    op_ctx_free(&ctx);
}

static void test_number_across_chunks(void **state)
{
    (void)state;
    number_across_chunks(OP_ISA_SCALAR);
    number_across_chunks(OP_ISA_AUTO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_against_former),
        cmocka_unit_test(test_monotone_rows_against_chains),
        cmocka_unit_test(test_monotone_skipping_links),
        cmocka_unit_test(test_monotone_graph_against_scan),
        cmocka_unit_test(test_number_across_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
