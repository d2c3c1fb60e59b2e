/* Connected-component labelling, SIMD twin of src/scalar/label_components.c
 * (regions-contours §4 shortcut and layer-first partition). A different algorithm with
 * the same bytes: union-find over the mutual links, each edge taken once from its
 * larger span (mutual links are symmetric, supplement §1.5; on a grid these are the -x
 * and -z links, +x/+z only matter for non-grid links), where every
 * tree pointer goes to a smaller span index and roots are the smallest span of their
 * component. The join tests "linked, same area != 0, same layer" are computed VW spans
 * at a time (gathers, plain loads on single-floor rows); a span joined to the previous
 * span along -x just takes its pointer (run-based). The final pass numbers roots in
 * span order and gives every other span its (smaller) parent's id, which is the scalar
 * twin's "ids in order of first span". labels[] itself holds the parent pointers. */
#include "simd/simd_width.h"

int OP_FN(op_label_components)(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                               uint32_t *labels, uint32_t *count, op_arena *scratch);

static inline uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving: pointers only decrease */
        x = parent[x];
    }
    return x;
}

/* Merge the trees of s and t; the smaller root stays root. */
static inline void unite(uint32_t *parent, uint32_t s, uint32_t t)
{
    uint32_t a = find_root(parent, s), b = find_root(parent, t);
    if (a == b)
        return;
    if (a < b)
        parent[b] = a;
    else
        parent[a] = b;
}

/* Bit d: s joins its mutual neighbour t = link[d][s] < s (same area != 0, same layer). */
static inline uint32_t join_bits_one(const op_chf *chf, const uint8_t *area,
                                     const uint32_t *layer, uint32_t s)
{
    uint32_t j = 0;
    if (area[s] == 0)
        return 0;
    const uint8_t mu = chf->mutual[s];
    for (int d = 0; d < 4; d++) {
        if (!(mu >> d & 1))
            continue;
        const uint32_t t = chf->link[d][s];
        if (t < s && area[t] == area[s] && (!layer || layer[t] == layer[s]))
            j |= 1u << d;
    }
    return j;
}

/* Every parent[t], t < s, is set before s is joined. *zprev is the -z neighbour that
 * span s-1 joined (OP_NO_LINK if none): when s joins s-1 along x and its own -z
 * neighbour t is zprev + 1 with a mutual -x link to zprev, then s ~ s-1 ~ zprev ~ t
 * already (same area and layer are transitive), so the union is skipped. */
static inline void join_span(const op_chf *chf, uint32_t *parent, uint32_t s, uint32_t j,
                             uint32_t *zprev)
{
    parent[s] = s;
    uint32_t zthis = OP_NO_LINK;
    if (j) {
        const int run = (j & 1) && chf->link[0][s] == s - 1;
        if (run)
            parent[s] = parent[s - 1]; /* run along x: share the pointer (< s) */
        else if (j & 1)
            unite(parent, s, chf->link[0][s]);
        for (int d = 1; d < 4; d++) {
            if (!(j >> d & 1))
                continue;
            const uint32_t t = chf->link[d][s];
            if (d == 3) {
                zthis = t;
                if (run && *zprev != OP_NO_LINK && t == *zprev + 1 && (chf->mutual[t] & 1) &&
                    chf->link[0][t] == *zprev)
                    continue;
            }
            unite(parent, s, t);
        }
    }
    *zprev = zthis;
}

int OP_FN(op_label_components)(const op_chf *chf, const uint8_t *area, const uint32_t *layer,
                               uint32_t *labels, uint32_t *count, op_arena *scratch)
{
    const uint32_t n = chf->span_count;
    *count = 0;
    if (n == 0)
        return 0;
    if (n > OP_SIMD_MAX_SPANS)
        return op_label_components_scalar(chf, area, layer, labels, count, scratch);
    uint32_t *parent = labels;
    uint32_t zprev = OP_NO_LINK;
    const uint32_t full = n - n % VW;
    const vu32 zero = v_set1(0);
    for (uint32_t s = 0; s < full; s += VW) {
        const vu32 self = v_add(v_set1(s), v_iota());
        const vu32 ar = v_load_u8(area + s);
        const vu32 mu = v_load_u8(chf->mutual + s);
        const vu32 walk = v_andnot(v_eq(ar, zero), v_set1(~0u));
        vu32 j = zero;
        if (v_nz(walk)) {
            const vu32 ly = layer ? v_load(layer + s) : zero;
            for (int d = 0; d < 4; d++) {
                const vu32 lk = v_load(chf->link[d] + s);
                const vu32 linked = v_and(walk, v_test(mu, 1u << d));
                /* t < s: min(t, s) == t and t != s */
                const vu32 below = v_andnot(v_eq(lk, self), v_eq(v_min(lk, self), lk));
                vu32 ok = v_and(linked, below);
                if (!v_nz(ok))
                    continue; /* +x/+z on a grid: never smaller */
                const vu32 same_area = v_eq(v_gather_u8(area, lk, ok, n), ar);
                if (layer)
                    ok = v_and(ok, v_eq(v_gather(layer, lk, ok, n), ly));
                ok = v_and(ok, same_area);
                j = v_or(j, v_and(ok, v_set1(1u << d)));
            }
        }
        uint32_t jb[VW];
        v_store(jb, j);
        for (uint32_t i = 0; i < VW; i++)
            join_span(chf, parent, s + i, jb[i], &zprev);
    }
    for (uint32_t s = full; s < n; s++)
        join_span(chf, parent, s, join_bits_one(chf, area, layer, s), &zprev);
    /* Canonical numbering (ids in order of first span): parent[s] <= s. */
    uint32_t next = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (area[s] == 0)
            labels[s] = 0;
        else if (parent[s] == s)
            labels[s] = ++next;
        else
            labels[s] = labels[parent[s]];
    }
    *count = next;
    return 0;
}
