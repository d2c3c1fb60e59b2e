/* Layer partition (regions-contours §4, supplement §9.4), then §5.1 islands and §5.3
 * numbering.
 *
 * General path: the unfiltered monotone regions, then the merge loop. Overlap and
 * adjacency sets are lists of region ids made canonical lazily: merged ids are mapped
 * through a union-find whose root is always the surviving (smaller) id, and a region's
 * lists are mapped, sorted and deduplicated when it is visited. A merge appends the
 * smaller list to the larger one's storage, so a pass costs O(E log E) for E list
 * entries however many regions merge into one.
 *
 * Shortcut: when no column holds two walkable spans, the partition is the components of
 * "linked and same area" (the labelling kernel); when one is below MinRegionArea, the
 * whole field takes the general path (§9.4). */
#include "regions/regions_internal.h"
#include "core/kernels.h"

#include <stdlib.h>
#include <string.h>

typedef struct vec {
    uint32_t *p;
    uint32_t n, cap;
} vec;

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Map through find, sort, deduplicate, drop self. */
static void canon(vec *v, uint32_t *parent, uint32_t self)
{
    uint32_t *p = v->p;
    const uint32_t n = v->n;
    for (uint32_t i = 0; i < n; i++)
        p[i] = find(parent, p[i]);
    if (n <= 24) {
        for (uint32_t i = 1; i < n; i++) {
            const uint32_t x = p[i];
            uint32_t j = i;
            while (j > 0 && p[j - 1] > x) {
                p[j] = p[j - 1];
                j--;
            }
            p[j] = x;
        }
    } else {
        qsort(p, n, sizeof *p, cmp_u32);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (p[i] == self || (k && p[k - 1] == p[i]))
            continue;
        p[k++] = p[i];
    }
    v->n = k;
}

static int contains(const vec *v, uint32_t x)
{
    uint32_t lo = 0, hi = v->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (v->p[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n && v->p[lo] == x;
}

/* dst ∪= src by appending; the larger storage is kept. Returns 0 on no memory. */
static int vec_union(op_arena *a, vec *dst, vec *src)
{
    if (src->n > dst->n) {
        vec t = *dst;
        *dst = *src;
        *src = t;
    }
    if (src->n == 0)
        return 1;
    if ((uint64_t)dst->n + src->n > dst->cap) {
        uint64_t cap = (uint64_t)dst->cap * 2;
        if (cap < (uint64_t)dst->n + src->n)
            cap = (uint64_t)dst->n + src->n;
        if (cap > 0xffffffffu)
            return 0;
        uint32_t *p = op_arena_alloc(a, (size_t)cap * sizeof *p);
        if (!p)
            return 0;
        if (dst->n)
            memcpy(p, dst->p, (size_t)dst->n * sizeof *p);
        dst->p = p;
        dst->cap = (uint32_t)cap;
    }
    memcpy(dst->p + dst->n, src->p, (size_t)src->n * sizeof *src->p);
    dst->n += src->n;
    src->n = 0;
    return 1;
}

/* The general path on region[] holding the raw monotone ids 1..m. */
static op_status merge_layers(op_ctx *ctx, const op_chf *chf, uint32_t *region, uint32_t m)
{
    const uint32_t n = chf->span_count;
    const size_t nr = (size_t)m + 1;
    uint32_t *parent = op_scratch(ctx, nr, sizeof *parent);
    uint8_t *rarea = op_scratch(ctx, nr, 1);
    vec *adj = op_scratch(ctx, nr, sizeof *adj);
    vec *ovl = op_scratch(ctx, nr, sizeof *ovl);
    if (!parent || !rarea || !adj || !ovl)
        return OP_NO_MEMORY;
    for (size_t r = 0; r < nr; r++) {
        parent[r] = (uint32_t)r;
        adj[r].n = adj[r].cap = ovl[r].n = ovl[r].cap = 0;
        adj[r].p = ovl[r].p = NULL;
    }
    /* Count, allocate, fill: adjacency from mutual links, overlap from columns. */
    const uint32_t cells = chf->width * chf->depth;
    for (int fill = 0; fill < 2; fill++) {
        for (uint32_t s = 0; s < n; s++) {
            const uint32_t r = region[s];
            if (r == 0 || r > m)
                continue;
            rarea[r] = chf->area[s];
            const uint8_t ms = chf->mutual[s];
            for (int d = 0; d < 4; d++) {
                if (!(ms >> d & 1))
                    continue;
                const uint32_t q = region[chf->link[d][s]];
                if (q == 0 || q > m || q == r)
                    continue;
                if (fill)
                    adj[r].p[adj[r].n++] = q;
                else
                    adj[r].cap++;
            }
        }
        for (uint32_t c = 0; c < cells; c++) {
            const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
            for (uint32_t i = f; i < e; i++) {
                const uint32_t ri = region[i];
                if (ri == 0 || ri > m)
                    continue;
                for (uint32_t j = f; j < e; j++) {
                    const uint32_t rj = region[j];
                    if (j == i || rj == 0 || rj > m || rj == ri)
                        continue;
                    if (fill)
                        ovl[ri].p[ovl[ri].n++] = rj;
                    else
                        ovl[ri].cap++;
                }
            }
        }
        if (!fill) {
            uint64_t total = 0;
            for (size_t r = 1; r < nr; r++)
                total += (uint64_t)adj[r].cap + ovl[r].cap;
            if (total > SIZE_MAX / sizeof(uint32_t))
                return op_fail(ctx, OP_NO_MEMORY,
                               "layers: %llu region adjacencies do not fit in memory",
                               (unsigned long long)total);
            uint32_t *pool = op_scratch(ctx, (size_t)(total ? total : 1), sizeof *pool);
            if (!pool)
                return OP_NO_MEMORY;
            for (size_t r = 1; r < nr; r++) {
                adj[r].p = pool;
                pool += adj[r].cap;
                ovl[r].p = pool;
                pool += ovl[r].cap;
            }
        }
    }
    /* §4 with §9.4: for each alive a in increasing id, the first adjacent b (increasing
     * id) with the same area that does not overlap a merges (larger id into smaller);
     * then the next a. Passes repeat until one merges nothing. */
    for (int merged = 1; merged;) {
        merged = 0;
        for (uint32_t a = 1; a <= m; a++) {
            if (parent[a] != a)
                continue;
            canon(&adj[a], parent, a);
            canon(&ovl[a], parent, a);
            for (uint32_t i = 0; i < adj[a].n; i++) {
                const uint32_t b = adj[a].p[i];
                if (rarea[b] != rarea[a] || contains(&ovl[a], b))
                    continue;
                const uint32_t k = a < b ? a : b, d = a < b ? b : a;
                parent[d] = k;
                if (!vec_union(&ctx->arena, &adj[k], &adj[d]) ||
                    !vec_union(&ctx->arena, &ovl[k], &ovl[d]))
                    return op_fail(ctx, OP_NO_MEMORY,
                                   "layers: out of scratch memory merging regions %u and %u", k,
                                   d);
                merged = 1;
                break;
            }
        }
    }
    for (uint32_t s = 0; s < n; s++)
        if (region[s] && region[s] <= m)
            region[s] = find(parent, region[s]);
    return OP_OK;
}

/* Shortcut applies: no column holds two walkable non-band spans. */
static int single_floor(const op_chf *chf, const uint32_t *region)
{
    const uint32_t cells = chf->width * chf->depth;
    for (uint32_t c = 0; c < cells; c++) {
        const uint32_t f = chf->cell_first[c], e = f + chf->cell_count[c];
        uint32_t k = 0;
        for (uint32_t s = f; s < e; s++)
            k += chf->area[s] != 0 && region[s] != OP_BORDER_REGION;
        if (k > 1)
            return 0;
    }
    return 1;
}

/* The labelling kernel with band spans hidden (area 0 in a copy), band restored. */
static op_status label_masked(op_ctx *ctx, const op_chf *chf, const uint32_t *layer,
                              uint32_t *region, uint32_t *count)
{
    const uint32_t n = chf->span_count;
    const uint32_t band = op_regions_init_band(chf, region);
    const uint8_t *area = chf->area;
    if (band) {
        uint8_t *a = op_scratch(ctx, n, 1);
        if (!a)
            return OP_NO_MEMORY;
        for (uint32_t s = 0; s < n; s++)
            a[s] = region[s] == OP_BORDER_REGION ? 0 : chf->area[s];
        area = a;
    }
    if (ctx->k->label_components(chf, area, layer, region, count, &ctx->arena))
        return op_fail(ctx, OP_NO_MEMORY, "labelling: out of scratch memory");
    if (*count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_UNSUPPORTED, "labelling: more than %u regions", OP_MAX_REGION_ID);
    if (band) {
        for (uint32_t s = 0; s < n; s++)
            if (chf->area[s] != 0 && area[s] == 0)
                region[s] = OP_BORDER_REGION;
    }
    return OP_OK;
}

op_status op_regions_layers_unfiltered(op_ctx *ctx, const op_chf *chf, uint32_t min_area,
                                       int allow_shortcut, uint32_t *region, uint32_t *max_id)
{
    const uint32_t n = chf->span_count;
    *max_id = 0;
    if (n == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    op_status st;
    if (allow_shortcut) {
        op_regions_init_band(chf, region);
        if (single_floor(chf, region)) {
            uint32_t count = 0;
            st = label_masked(ctx, chf, NULL, region, &count);
            if (st != OP_OK) {
                op_arena_release(&ctx->arena, mark);
                return st;
            }
            int small = 0;
            if (min_area > 1) {
                uint32_t *size = op_scratch(ctx, (size_t)count + 1, sizeof *size);
                if (!size) {
                    op_arena_release(&ctx->arena, mark);
                    return OP_NO_MEMORY;
                }
                memset(size, 0, ((size_t)count + 1) * sizeof *size);
                for (uint32_t s = 0; s < n; s++)
                    if (region[s] && region[s] != OP_BORDER_REGION)
                        size[region[s]]++;
                for (uint32_t r = 1; r <= count && !small; r++)
                    small = size[r] < min_area;
            }
            op_arena_release(&ctx->arena, mark);
            if (!small) {
                *max_id = count;
                return OP_OK;
            }
        }
    }
    uint32_t m = 0;
    st = op_build_regions_monotone_raw(ctx, chf, region, &m);
    if (st == OP_OK && m > 0) {
        st = merge_layers(ctx, chf, region, m);
        if (st == OP_NO_MEMORY)
            op_fail(ctx, st, "layers: out of scratch memory merging %u regions", m);
    }
    op_arena_release(&ctx->arena, mark);
    if (st == OP_OK)
        *max_id = m;
    return st;
}

op_status op_build_regions_layers_ex(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                     int allow_shortcut, uint32_t *region,
                                     uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "layers");
    if (st != OP_OK)
        return st;
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    uint32_t m = 0;
    *region_count = 0;
    st = op_regions_layers_unfiltered(ctx, chf, s->min_region_area, allow_shortcut, region, &m);
    if (st != OP_OK)
        return st;
    *region_count = m;
    /* Only the island removal of §5, then §5.3 numbering (§9.4). */
    return op_regions_filter_impl(ctx, chf, s->min_region_area, 0, 0, region, region_count);
}

op_status op_build_regions_layers(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                                  uint32_t *region, uint32_t *region_count)
{
    return op_build_regions_layers_ex(ctx, chf, s, 1, region, region_count);
}

/* §4 "Layer-first partition" (supplement §3): components of linked + same layer + same
 * area (first-span order), then §5.1 islands and §5.3 numbering. */
op_status op_build_regions_layer_first(op_ctx *ctx, const op_chf *chf, const uint32_t *span_layer,
                                       const op_region_settings *s, uint32_t *region,
                                       uint32_t *region_count)
{
    op_status st = op_regions_check_args(ctx, chf, region, region_count, "layer-first");
    if (st != OP_OK)
        return st;
    if (!span_layer)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "layer-first: NULL span layers");
    if ((st = op_region_settings_validate(ctx, s)) != OP_OK)
        return st;
    *region_count = 0;
    if (chf->span_count == 0)
        return OP_OK;
    op_arena_mark mark = op_arena_get_mark(&ctx->arena);
    uint32_t count = 0;
    st = label_masked(ctx, chf, span_layer, region, &count);
    op_arena_release(&ctx->arena, mark);
    if (st != OP_OK)
        return st;
    *region_count = count;
    return op_regions_filter_impl(ctx, chf, s->min_region_area, 0, 0, region, region_count);
}
