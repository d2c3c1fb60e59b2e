/* The region stages against deliberately naive re-implementations written straight from
 * the text (regions-contours §2–§5, supplement §9.2–§9.5): quadratic where the library
 * is not, on small random multi-floor fields (with a tile band on some), byte for byte. */
#include "regions/regions_testlib.h"

#define BR OP_BORDER_REGION

static int in_band(const op_chf *chf, uint32_t x, uint32_t z)
{
    const uint32_t B = (uint32_t)chf->border_size;
    return B && (x < B || z < B || x + B >= chf->width || z + B >= chf->depth);
}

static void init_band(const op_chf *chf, uint32_t *region)
{
    for (uint32_t z = 0; z < chf->depth; z++)
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++)
                region[s] = chf->area[s] && in_band(chf, x, z) ? BR : 0;
        }
}

static uint32_t nb(const op_chf *chf, uint32_t s, int d)
{
    return (chf->mutual[s] >> d & 1) ? op_chf_link(chf, d, s) : OP_NO_LINK;
}

/* §2 with §9.2's equivalent reading: rounds over all unassigned level spans. */
static uint32_t ref_watershed(const op_chf *chf, const uint32_t *dist, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    init_band(chf, region);
    uint32_t *snap = u32_alloc(n), *q = u32_alloc(n), next = 0;
    uint64_t L = UINT64_MAX;
    for (;;) {
        /* the next level: the largest distance below L among walkable non-band spans */
        int64_t best = -1;
        for (uint32_t s = 0; s < n; s++)
            if (chf->area[s] && region[s] != BR && dist[s] < L && (int64_t)dist[s] > best)
                best = dist[s];
        if (best < 0)
            break;
        L = (uint64_t)best;
        for (int joined = 1; joined;) {
            joined = 0;
            memcpy(snap, region, (size_t)n * 4);
            for (uint32_t s = 0; s < n; s++) {
                if (!chf->area[s] || snap[s] != 0 || dist[s] != L)
                    continue;
                uint32_t m = 0;
                for (int d = 0; d < 4; d++) {
                    const uint32_t t = nb(chf, s, d);
                    if (t != OP_NO_LINK && snap[t] && snap[t] != BR && chf->area[t] == chf->area[s] &&
                        (!m || snap[t] < m))
                        m = snap[t];
                }
                if (m) {
                    region[s] = m;
                    joined = 1;
                }
            }
        }
        for (uint32_t s = 0; s < n; s++) {
            if (!chf->area[s] || region[s] != 0 || dist[s] != L)
                continue;
            region[s] = ++next;
            uint32_t h = 0, t = 0;
            q[t++] = s;
            while (h < t) {
                const uint32_t u = q[h++];
                for (int d = 0; d < 4; d++) {
                    const uint32_t v = nb(chf, u, d);
                    if (v != OP_NO_LINK && region[v] == 0 && chf->area[v] == chf->area[u] &&
                        dist[v] == L) {
                        region[v] = next;
                        q[t++] = v;
                    }
                }
            }
        }
        if (L == 0)
            break;
    }
    free(snap);
    free(q);
    return next;
}

/* §3 with §9.3, sweeps compared pairwise. */
static uint32_t ref_monotone(const op_chf *chf, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    init_band(chf, region);
    uint32_t *sweep = u32_alloc(n), *first = u32_alloc(n), next = 0;
    uint32_t *looked = u32_alloc(4 * n + 4); /* (sweep, region) pairs of one row */
    for (uint32_t z = 0; z < chf->depth; z++) {
        uint32_t ns = 0, nl = 0;
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++) {
                if (!chf->area[s] || region[s] == BR)
                    continue;
                const uint32_t p = nb(chf, s, 0);
                if (p != OP_NO_LINK && chf->area[p] == chf->area[s] && region[p] != BR) {
                    sweep[s] = sweep[p];
                } else {
                    first[ns] = s;
                    sweep[s] = ns++;
                }
                const uint32_t t = nb(chf, s, 3);
                if (t != OP_NO_LINK && region[t] && region[t] != BR &&
                    chf->area[t] == chf->area[s]) {
                    looked[2 * nl] = sweep[s];
                    looked[2 * nl + 1] = region[t];
                    nl++;
                }
            }
        }
        uint32_t *id = u32_alloc(ns);
        for (uint32_t k = 0; k < ns; k++) {
            uint32_t R = 0;
            int ok = 1;
            for (uint32_t i = 0; i < nl; i++) {
                if (looked[2 * i] != k)
                    continue;
                if (!R)
                    R = looked[2 * i + 1];
                else if (R != looked[2 * i + 1])
                    ok = 0;
            }
            ok = ok && R;
            for (uint32_t i = 0; i < nl && ok; i++)
                if (looked[2 * i] != k && looked[2 * i + 1] == R)
                    ok = 0;
            id[k] = ok ? R : ++next;
        }
        for (uint32_t x = 0; x < chf->width; x++) {
            const uint32_t c = x + z * chf->width;
            for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++)
                if (chf->area[s] && region[s] != BR)
                    region[s] = id[sweep[s]];
        }
        free(id);
    }
    free(sweep);
    free(first);
    free(looked);
    return next;
}

/* §4 with §9.4 on matrices. */
static void ref_layers_merge(const op_chf *chf, uint32_t *region, uint32_t m)
{
    const size_t M = (size_t)m + 1;
    uint8_t *adj = calloc(M * M, 1), *ovl = calloc(M * M, 1), *alive = calloc(M, 1);
    uint8_t *ar = calloc(M, 1);
    assert_true(adj && ovl && alive && ar);
    for (uint32_t s = 0; s < chf->span_count; s++) {
        const uint32_t r = region[s];
        if (!r || r == BR)
            continue;
        alive[r] = 1;
        ar[r] = chf->area[s];
        for (int d = 0; d < 4; d++) {
            const uint32_t t = nb(chf, s, d);
            if (t != OP_NO_LINK && region[t] && region[t] != BR && region[t] != r)
                adj[r * M + region[t]] = adj[region[t] * M + r] = 1;
        }
    }
    for (uint32_t c = 0; c < chf->width * chf->depth; c++)
        for (uint32_t i = chf->cell_first[c]; i < chf->cell_first[c + 1]; i++)
            for (uint32_t j = chf->cell_first[c]; j < chf->cell_first[c + 1]; j++) {
                const uint32_t a = region[i], b = region[j];
                if (a && b && a != BR && b != BR && a != b)
                    ovl[a * M + b] = 1;
            }
    uint32_t *map = u32_alloc((uint32_t)M);
    for (uint32_t r = 0; r < M; r++)
        map[r] = r;
    for (int merged = 1; merged;) {
        merged = 0;
        for (uint32_t a = 1; a <= m; a++) {
            if (!alive[a])
                continue;
            for (uint32_t b = 1; b <= m; b++) {
                if (!alive[b] || !adj[a * M + b] || ar[a] != ar[b] || ovl[a * M + b])
                    continue;
                const uint32_t k = a < b ? a : b, d = a < b ? b : a;
                for (uint32_t r = 1; r <= m; r++) {
                    adj[k * M + r] |= adj[d * M + r];
                    adj[r * M + k] |= adj[r * M + d];
                    ovl[k * M + r] |= ovl[d * M + r];
                    ovl[r * M + k] |= ovl[r * M + d];
                    adj[d * M + r] = adj[r * M + d] = ovl[d * M + r] = ovl[r * M + d] = 0;
                }
                adj[k * M + k] = ovl[k * M + k] = 0;
                alive[d] = 0;
                for (uint32_t r = 1; r <= m; r++)
                    if (map[r] == d)
                        map[r] = k;
                merged = 1;
                break;
            }
        }
    }
    for (uint32_t s = 0; s < chf->span_count; s++)
        if (region[s] && region[s] != BR)
            region[s] = map[region[s]];
    free(adj);
    free(ovl);
    free(alive);
    free(ar);
    free(map);
}

/* §5 with §9.5, counting links by scanning every span at every visit. */
static uint32_t ref_filter(const op_chf *chf, uint32_t *region, uint32_t maxid, uint32_t minA,
                           uint32_t mergeA, int merge)
{
    const uint32_t n = chf->span_count;
    const size_t M = (size_t)maxid + 1;
    uint32_t *size = calloc(M, 4), *cnt = calloc(M, 4);
    uint8_t *has = calloc(M, 1);
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (!r || r == BR)
            continue;
        size[r]++;
        for (int d = 0; d < 4; d++) {
            const uint32_t t = nb(chf, s, d);
            if (t != OP_NO_LINK && region[t] && region[t] != r)
                has[r] = 1;
        }
    }
    uint8_t *isl = calloc(M, 1);
    for (uint32_t r = 1; r <= maxid; r++)
        isl[r] = size[r] && size[r] < minA && !has[r];
    for (uint32_t s = 0; s < n; s++)
        if (region[s] && region[s] != BR && isl[region[s]]) {
            size[region[s]] = 0;
            region[s] = 0;
        }
    if (merge)
        for (int merged = 1; merged;) {
            merged = 0;
            for (uint32_t r = 1; r <= maxid; r++) {
                if (!size[r] || size[r] >= mergeA)
                    continue;
                memset(cnt, 0, M * 4);
                uint8_t a = 0;
                for (uint32_t s = 0; s < n; s++) {
                    if (region[s] != r)
                        continue;
                    a = chf->area[s];
                    for (int d = 0; d < 4; d++) {
                        const uint32_t t = nb(chf, s, d);
                        if (t != OP_NO_LINK && region[t] && region[t] != BR && region[t] != r &&
                            chf->area[t] == chf->area[s])
                            cnt[region[t]]++;
                    }
                }
                (void)a;
                uint32_t best = 0;
                for (uint32_t q = 1; q <= maxid; q++)
                    if (cnt[q] > (best ? cnt[best] : 0))
                        best = q;
                if (!best)
                    continue;
                for (uint32_t s = 0; s < n; s++)
                    if (region[s] == r)
                        region[s] = best;
                size[best] += size[r];
                size[r] = 0;
                merged = 1;
            }
        }
    uint32_t *map = calloc(M, 4), k = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t r = region[s];
        if (!r || r == BR)
            continue;
        if (!map[r])
            map[r] = ++k;
        region[s] = map[r];
    }
    free(size);
    free(cnt);
    free(has);
    free(isl);
    free(map);
    return k;
}

static void compare(const uint32_t *got, uint32_t gc, const uint32_t *want, uint32_t wc,
                    uint32_t n, const char *what, uint64_t seed)
{
    if (gc != wc)
        fail_msg("%s seed %llu: %u regions, reference %u", what, (unsigned long long)seed, gc, wc);
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s seed %llu span %u: %u, reference %u", what, (unsigned long long)seed, i,
                     got[i], want[i]);
}

static void test_reference(void **state)
{
    (void)state;
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    for (uint64_t seed = 1; seed <= 1000; seed++) {
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 6 + (uint32_t)(seed % 25), 5 + (uint32_t)(seed % 21));
        o.area_count = 1 + (uint32_t)(seed % 3);
        o.max_floors = 1 + (uint32_t)(seed % 4);
        o.hole_percent = (uint32_t)(seed % 9);
        op_chf chf;
        assert_int_equal(op_random_chf(&ctx, &chf, seed, &o), OP_OK);
        chf.border_size = seed % 5 == 0 ? 2 : 0;
        const uint32_t n = chf.span_count;
        uint32_t *dist = u32_alloc(n), *a = u32_alloc(n), *b = u32_alloc(n), ca, cb;
        assert_int_equal(op_build_distance_field(&ctx, &chf, dist, NULL), OP_OK);
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.min_region_area = (uint32_t)(seed % 7);
        s.merge_region_area = (uint32_t)(seed % 6) * 5;

        /* watershed */
        assert_int_equal(op_build_regions_watershed_raw(&ctx, &chf, dist, a, &ca), OP_OK);
        cb = ref_watershed(&chf, dist, b);
        compare(a, ca, b, cb, n, "watershed raw", seed);
        cb = ref_filter(&chf, b, cb, s.min_region_area, s.merge_region_area, 1);
        assert_int_equal(op_build_regions_watershed(&ctx, &chf, dist, &s, a, &ca), OP_OK);
        compare(a, ca, b, cb, n, "watershed", seed);

        /* monotone */
        assert_int_equal(op_build_regions_monotone_raw(&ctx, &chf, a, &ca), OP_OK);
        cb = ref_monotone(&chf, b);
        compare(a, ca, b, cb, n, "monotone raw", seed);
        cb = ref_filter(&chf, b, cb, s.min_region_area, s.merge_region_area, 1);
        s.partition = OP_PARTITION_MONOTONE;
        assert_int_equal(op_build_regions(&ctx, &chf, &s, NULL, a, &ca), OP_OK);
        compare(a, ca, b, cb, n, "monotone", seed);

        /* layers: both library paths against the reference */
        cb = ref_monotone(&chf, b);
        ref_layers_merge(&chf, b, cb);
        cb = ref_filter(&chf, b, cb, s.min_region_area, 0, 0);
        s.partition = OP_PARTITION_LAYERS;
        assert_int_equal(op_build_regions_layers_ex(&ctx, &chf, &s, 1, a, &ca), OP_OK);
        compare(a, ca, b, cb, n, "layers", seed);
        assert_int_equal(op_build_regions_layers_ex(&ctx, &chf, &s, 0, a, &ca), OP_OK);
        compare(a, ca, b, cb, n, "layers general", seed);

        free(dist);
        free(a);
        free(b);
        op_chf_free(&chf);
    }
    op_ctx_free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
