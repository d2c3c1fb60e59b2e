/* Connected-component labelling, SIMD twin of src/scalar/label_components.c
 * (regions-contours §4 shortcut and layer-first partition). A different algorithm with
 * the same bytes: union-find over the mutual links where every tree pointer goes to a
 * smaller span index, so a root is the smallest span of its component, then ids in
 * span order (the scalar twin's "ids in order of first span"). labels[] holds the
 * parent pointers; no scratch.
 *
 * Edges. Mutual links are symmetric (supplement §1.5): bit d of s with t = link[d][s]
 * is bit (d+2)&3 of t. So every mutual edge is seen exactly once as a -x (d = 0) or -z
 * (d = 3) link of one of its ends, and only link[0] and link[3] are read. On a grid
 * those go to smaller spans; a joined edge to a larger span (injected, non-grid links)
 * sets a flag and a scalar pass unites those edges at the end, when every parent
 * pointer exists.
 *
 * Pass 1, groups of 16 spans (area / mutual compared 16 bytes at a time, links VW u32
 * lanes at a time; bit i of a mask is span s + i):
 *  - X: joined to s-1 along -x (link[0] == s-1, mutual, same area != 0, same layer).
 *    Pointer = the run start: the inclusive prefix maximum of (X ? 0 : s) over the
 *    lanes, and the previous group's run start for the leading run (kept in a register,
 *    so groups do not wait on each other's stores).
 *  - XK: joined -x link of stride k (link[0] == s-k, rows of k-floor columns, k from
 *    the group's first irregular link): pointer s-k, a new node joining a tree.
 *  - Z: joined to t = link[3][s] < s. Its union is implied, and skipped, when the -x
 *    neighbour u (s-1 or s-k) has its joined -z link to t' and t's mutual -x link goes
 *    to t' (s ~ u ~ t' ~ t; same area / layer are transitive; u's -z edge and t's -x
 *    edge belong to smaller spans, so by induction each is united, implied or
 *    deferred). With the -z neighbours one contiguous run (single-floor rows, uniform
 *    k-floor rows) this is plain loads and compares; inside a region only run starts
 *    and edges of the region are left.
 *  - The rest (other -x links, non-contiguous -z rows) in scalar, then the unions.
 * Pass 2: roots get ++next in span order, every other span its parent's id (parent <
 * span, so already final): per group one or two broadcast ids when the pointers lead
 * before the group, lane permutes for pointers into the group (8 lanes), else scalar. */
#include "simd/simd_width.h"
#include "simd/links_at.h"

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

/* s and t = link[d][s] (mutual) are joined: same area != 0, same layer, t != s. */
static inline int joined(const uint8_t *area, const uint32_t *layer, uint32_t s, uint32_t t)
{
    return t != s && area[s] != 0 && area[t] == area[s] && (!layer || layer[t] == layer[s]);
}

/* Scalar form of pass 1 for one span: its own root, then unions with its joined -x and
 * -z neighbours below it. Returns 1 when one of them lies above it (deferred). */
static int join_one(const op_label_view *graph, const uint8_t *area, const uint32_t *layer,
                    uint32_t *parent, uint32_t s)
{
    int defer = 0;
    parent[s] = s;
    for (int d = 0; d < 4; d += 3) {
        if (!(graph->mutual[s] >> d & 1))
            continue;
        const uint32_t t = op_chf_link(graph->links, d, s);
        if (!joined(area, layer, s, t))
            continue;
        if (t < s)
            unite(parent, s, t);
        else
            defer = 1;
    }
    return defer;
}

/* The deferred edges: joined -x / -z links to larger spans. */
static void join_upward(const op_label_view *graph, const uint8_t *area, const uint32_t *layer,
                        uint32_t *parent, uint32_t n)
{
    for (uint32_t s = 0; s < n; s++)
        for (int d = 0; d < 4; d += 3) {
            const uint32_t t = op_chf_link(graph->links, d, s);
            if ((graph->mutual[s] >> d & 1) && t > s && joined(area, layer, s, t))
                unite(parent, s, t);
        }
}

/* Spans per group: the byte arrays (area, mutual) are compared 16 at a time in one
 * 128-bit vector (bit i of a mask = span s + i), the u32 links VW lanes at a time. */
#define G 16
#define G_ALL 0xffffu
#define NV (G / VW)
/* Loops over the NV vectors of a group unroll fully: V_UNROLL (simd_width.h). */

typedef simde__m128i vb16;
static inline vb16 b_load(const uint8_t *p) { return simde_mm_loadu_si128((const void *)p); }
/* Bit i: byte i of a equals byte i of b. */
static inline uint32_t b_eq(vb16 a, vb16 b)
{
    return (uint32_t)simde_mm_movemask_epi8(simde_mm_cmpeq_epi8(a, b)) & G_ALL;
}
/* Bit i: byte i has the given bit. */
static inline uint32_t b_bit(vb16 a, uint8_t bit)
{
    const vb16 m = simde_mm_set1_epi8((int8_t)bit);
    return b_eq(simde_mm_and_si128(a, m), m);
}
/* Bit i: a[i] == b[i] for the G u32 at a and b. */
OP_VINLINE uint32_t w_eq(const uint32_t *a, const uint32_t *b)
{
    uint32_t m = 0;
    V_UNROLL
    for (uint32_t k = 0; k < G; k += VW)
        m |= v_nz(v_eq(v_load(a + k), v_load(b + k))) << k;
    return m;
}
/* Bit i: link d of span s0 + i is base + i (w_seq of the decoded links): the stored
 * deltas compared with base - s0, no decode (v_dl_eqmask). A far link's lane is never
 * set: every use below is a fast path whose lanes left out go the scalar way. */
OP_VINLINE uint32_t l_seq(const op_chf *lk, int d, uint32_t s0, uint32_t base)
{
    return v_dl_eqmask(lk->dlink[d] + s0, (int64_t)base - (int64_t)s0, G);
}

/* Pass 1 on the group [s, s + G), 1 <= s, s + G <= n. *carry: span s-1 is a Z span;
 * *run: a pointer for spans joined to s-1 along -x (s-1's run start or pointer), kept
 * in a register so groups do not wait on each other's stores.
 *  X    joined to s-1 along -x (regular);   XK    joined to s-k (k-floor rows);
 *  rest other mutual -x links (scalar);     Z     joined to t = link[3][s] < s;
 *  red  Z unions that are implied. */
OP_VINLINE void join_group(const op_label_view *graph, const uint8_t *area, const uint32_t *layer,
                           const int has_layer, uint32_t *parent, uint32_t n, uint32_t s,
                           uint32_t *carry, uint32_t *run, uint32_t *defer)
{
    const op_chf *const lk = graph->links;
    const uint8_t *mutual = graph->mutual;
    const vb16 A = b_load(area + s);
    const uint32_t walk = b_eq(A, simde_mm_setzero_si128()) ^ G_ALL;
    const vb16 M = b_load(mutual + s);
    const uint32_t mx = b_bit(M, 1) & walk, mz = b_bit(M, 8) & walk;
    const uint32_t xl = l_seq(lk, 0, s, s - 1);
    uint32_t X = mx & xl & b_eq(A, b_load(area + s - 1));
    if (has_layer)
        X &= w_eq(layer + s, layer + s - 1);
    /* Irregular -x links: in rows of k-floor columns they are mostly link = s - k
     * (stride k, k taken from the first one); the joined ones (XK) get pointer v - k
     * in vector, the rest go to the scalar loop. */
    uint32_t rest = mx & ~xl, XK = 0, k = 0;
    if (rest) {
        const uint32_t i0 = (uint32_t)__builtin_ctz(rest);
        k = s + i0 - op_chf_link(lk, 0, s + i0);
        if (k >= 2 && k <= s) {
            const uint32_t xk = mx & l_seq(lk, 0, s, s - k);
            XK = xk & b_eq(A, b_load(area + s - k));
            if (has_layer)
                XK &= w_eq(layer + s, layer + s - k);
            rest &= ~xk;
        }
    }

    uint32_t Z = 0, red = 0;
    const uint32_t first = op_chf_link(lk, 3, s);
    if (first < s && first <= n - G && l_seq(lk, 3, s, first) == G_ALL) {
        /* -z neighbours first.. first+G-1, all below s: plain loads. The union of Z
         * span v with t is implied when v is X, v-1 is Z with t-1, and t has its
         * mutual -x link to t-1: v ~ v-1 ~ t-1 ~ t (same area and layer transitive).
         * For an XK span v the same with stride k: u = v-k has its joined -z link to
         * t-k, which is t's mutual -x neighbour (same area and layer as v). */
        Z = mz & b_eq(b_load(area + first), A);
        if (has_layer)
            Z &= w_eq(layer + first, layer + s);
        const uint32_t mt = b_bit(b_load(mutual + first), 1);
        red = X & Z & (Z << 1 | *carry) & mt & l_seq(lk, 0, first, first - 1);
        if (first != op_chf_link(lk, 3, s - 1) + 1)
            red &= ~1u;
        if ((XK & Z) && first >= k) {
            uint32_t imp = XK & Z & mt & b_bit(b_load(mutual + s - k), 8) &
                           b_eq(b_load(area + first - k), A) & l_seq(lk, 0, first, first - k) &
                           l_seq(lk, 3, s - k, first - k);
            if (has_layer)
                imp &= w_eq(layer + first - k, layer + s);
            red |= imp;
        }
    } else {
        rest |= XK; /* the scalar loop checks their implied -z unions */
        XK = 0;
        for (uint32_t b = mz; b;) {
            const uint32_t i = (uint32_t)__builtin_ctz(b), v = s + i, t = op_chf_link(lk, 3, v);
            b &= b - 1;
            if (!joined(area, has_layer ? layer : NULL, v, t))
                continue;
            if (t > v) {
                *defer = 1;
                continue;
            }
            Z |= 1u << i;
            const uint32_t zp = i ? Z >> (i - 1) & 1 : *carry;
            if ((X >> i & 1) && zp && t == op_chf_link(lk, 3, v - 1) + 1 && (mutual[t] & 1) &&
                op_chf_link(lk, 0, t) == t - 1)
                red |= 1u << i;
        }
    }
    *carry = Z >> (G - 1) & 1;

    /* Run pointers: X spans take their run start (the leading run *run). W is 0 exactly
     * on the leading run (X lanes count 0, others their own index >= s > *run). */
    V_UNROLL
    for (uint32_t g = 0; g < G; g += VW) {
        const vu32 self = v_add(v_set1(s + g), v_iota());
        const vu32 W = v_prefix_max(v_andnot(v_from_bits(X >> g & V_ALL), self));
        vu32 R = v_max(W, v_set1(*run));
        if (XK)
            R = v_select(v_from_bits(XK >> g & V_ALL), R, v_sub(self, v_set1(k)));
        v_store(parent + s + g, R);
        const uint32_t wl = v_lane_last(W);
        *run = wl ? wl : *run;
    }

    /* Irregular spans, branch-free: a joined -x neighbour u < v becomes v's pointer
     * (v is still its own root). v's -z union with t is implied when u's -z neighbour
     * tu is t's mutual -x neighbour with the same area and layer: v ~ u ~ tu ~ t, where
     * u's -z edge and t's -x edge belong to smaller spans (united, implied the same
     * way, or deferred). */
    uint32_t zu = Z & ~red & ~rest;
    for (uint32_t b = rest; b;) {
        const uint32_t i = (uint32_t)__builtin_ctz(b), v = s + i, zbit = Z >> i & 1;
        b &= b - 1;
        const uint32_t u = op_chf_link(lk, 0, v);
        uint32_t j = (u != v) & (area[u] == area[v]);
        if (has_layer)
            j &= layer[u] == layer[v];
        const uint32_t p = j & (u < v);
        *defer |= j & (u > v);
        parent[v] = p ? u : v;
        /* invalid links read span v / u instead */
        const uint32_t mu3 = mutual[u] >> 3 & 1;
        const uint32_t t = zbit ? op_chf_link(lk, 3, v) : v,
                       tu = mu3 ? op_chf_link(lk, 3, u) : u;
        uint32_t imp = p & mu3 & mutual[t] & (op_chf_link(lk, 0, t) == tu) & (area[tu] == area[v]);
        if (has_layer)
            imp &= layer[tu] == layer[v];
        zu |= (zbit & ~imp) << i;
    }
    for (uint32_t b = zu; b;) {
        const uint32_t v = s + (uint32_t)__builtin_ctz(b);
        b &= b - 1;
        unite(parent, v, op_chf_link(lk, 3, v));
    }
}

static int join_all(const op_label_view *graph, const uint8_t *area, const uint32_t *layer,
                    const int has_layer, uint32_t *parent, uint32_t n)
{
    uint32_t s = 0, carry = 0, run = 0, defer = 0; /* span 0 has no -z join below it */
    defer |= (uint32_t)join_one(graph, area, layer, parent, s++);
    for (; n >= G && s <= n - G; s += G)
        join_group(graph, area, layer, has_layer, parent, n, s, &carry, &run, &defer);
    for (; s < n; s++)
        defer |= (uint32_t)join_one(graph, area, layer, parent, s);
    return defer != 0;
}

/* In-group pointers in vector only with 8 lanes: measured slower than the scalar
 * loop with 4 (no lane permute in SSE) and 16 (zmm permute latency) on the EPYC. */
#define HERE_VEC (VW == 8)

#if HERE_VEC
/* Lane idx[i] (0..15) of the group held in two vectors x[] (permutes use 3 bits). */
OP_VINLINE vu32 g_perm(const vu32 *x, vu32 idx)
{
    return v_select(v_test(idx, 8u), v_perm(x[0], idx), v_perm(x[1], idx));
}
#endif

/* Scalar pass 2 on [s, s + G). */
static inline void number_scalar(uint32_t *labels, uint32_t walk, uint32_t s, uint32_t *next)
{
    for (uint32_t i = 0; i < G; i++) {
        const uint32_t v = s + i, p = labels[v];
        labels[v] = !(walk >> i & 1) ? 0 : p == v ? ++*next : labels[p];
    }
}

/* Pass 2 on the group [s, s + G): labels[] below s are final ids, from s on pointers.
 * Vector when no span is a root and every walkable span points before s to one of two
 * spans (the first and the last walkable span's pointers; area-0 spans point to
 * themselves) or, with 8-lane vectors (HERE_VEC), into the group: those take their
 * target's id by lane permutes, jumping along chains of in-group pointers. */
OP_VINLINE void number_group(const uint8_t *area, uint32_t *labels, uint32_t s, uint32_t *next)
{
    const uint32_t walk = b_eq(b_load(area + s), simde_mm_setzero_si128()) ^ G_ALL;
    if (!walk) {
        V_UNROLL
        for (uint32_t k = 0; k < G; k += VW)
            v_store(labels + s + k, v_set1(0));
        return;
    }
    const uint32_t pa = labels[s + (uint32_t)__builtin_ctz(walk)];
    const uint32_t pl = labels[s + 31 - (uint32_t)__builtin_clz(walk)], pb = pl < s ? pl : pa;
    if (pa >= s) { /* the first walkable span is a root */
        number_scalar(labels, walk, s, next);
        return;
    }
    const vu32 va = v_set1(pa), vb = v_set1(pb);
#if HERE_VEC
    const vu32 vs = v_set1(s);
#endif
    const vu32 la = v_set1(labels[pa]), lb = v_set1(labels[pb]);
    vu32 L[NV];
    uint32_t ok = 0, here = 0;
#if HERE_VEC
    vu32 U[NV], IX[NV];
#endif
    V_UNROLL
    for (uint32_t j = 0; j < NV; j++) {
        const vu32 P = v_load(labels + s + j * VW);
        const vu32 ea = v_eq(P, va), eab = v_or(ea, v_eq(P, vb));
        L[j] = v_and(v_select(ea, lb, la), eab);
        ok |= v_nz(eab) << (j * VW);
#if HERE_VEC
        /* P >= s and P != self: in the group (roots and area-0 spans have P == self) */
        U[j] = v_andnot(v_eq(P, v_add(v_set1(s + j * VW), v_iota())), v_eq(v_max(P, vs), P));
        IX[j] = v_sub(P, vs);
        here |= v_nz(U[j]) << (j * VW);
#endif
    }
    if (((ok | here) & walk) != walk) {
        number_scalar(labels, walk, s, next);
        return;
    }
#if HERE_VEC
    /* Pointer doubling: in-group pointers go to smaller lanes, so chains are shorter
     * than 16 and four rounds resolve them (the bound only guards against a hang). */
    for (int round = 0; here && round < 4; round++) {
        vu32 nl[NV], nu[NV], ni[NV];
        here = 0;
        V_UNROLL
        for (uint32_t j = 0; j < NV; j++) {
            nl[j] = v_select(U[j], L[j], g_perm(L, IX[j]));
            nu[j] = v_and(U[j], g_perm(U, IX[j]));
            ni[j] = g_perm(IX, IX[j]);
        }
        V_UNROLL
        for (uint32_t j = 0; j < NV; j++) {
            L[j] = nl[j];
            U[j] = nu[j];
            IX[j] = ni[j];
            here |= v_nz(U[j]) << (j * VW);
        }
    }
    if (here) {
        number_scalar(labels, walk, s, next);
        return;
    }
#endif
    V_UNROLL
    for (uint32_t j = 0; j < NV; j++)
        v_store(labels + s + j * VW, L[j]);
}

static int label_components_body(const op_label_view *graph, uint32_t *labels, uint32_t *count,
                                 op_arena *scratch)
{
    const uint32_t n = graph->count;
    const uint8_t *area = graph->area;
    const uint32_t *layer = graph->layer;
    *count = 0;
    if (n == 0)
        return 0;
    if (n > OP_SIMD_MAX_SPANS)
        return op_label_components_scalar(graph, labels, count, scratch);
    const int defer = layer ? join_all(graph, area, layer, 1, labels, n)
                            : join_all(graph, area, NULL, 0, labels, n);
    if (defer)
        join_upward(graph, area, layer, labels, n);
    /* Ids in order of first span: parent[s] <= s, roots are first spans. */
    uint32_t next = 0, s = 0;
    for (; n >= G && s <= n - G; s += G)
        number_group(area, labels, s, &next);
    for (; s < n; s++) {
        if (area[s] == 0)
            labels[s] = 0;
        else if (labels[s] == s)
            labels[s] = ++next;
        else
            labels[s] = labels[labels[s]];
    }
    *count = next;
    return 0;
}

int OP_FN(op_label_components)(const op_label_view *graph, uint32_t *labels, uint32_t *count,
                               op_arena *scratch)
{
    const int r = label_components_body(graph, labels, count, scratch);
    op_simd_leave();
    return r;
}
