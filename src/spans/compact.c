/* Compact heightfield from the solid heightfield (supplement §1.5), streamed by rows:
 * row z + 1's cells and spans are written, then row z's links and mutual links (they read
 * the cells and spans of rows z - 1 .. z + 1: the link kernel derives the mutual bits from
 * the cells, op_link_cells), so each row is touched while it is in cache. */
#include "onepath/spans.h"
#include "spans/spans_internal.h"
#include "core/alloc.h"
#include "core/kernels.h"
#include "core/links16.h"
#include "core/prefault.h"
#include "parallel/parallel_internal.h"

#include <string.h>

/* Cells per block of the one-span path of fill_row. */
#define OP_FILL_BLOCK 8 /* the constant blocks in fill_block have 8 entries */

/* Cells [c, c + OP_FILL_BLOCK) hold one walkable span each, at consecutive slots (so
 * their compact spans are consecutive too, with h = 255): writes them as a block and
 * returns OP_FILL_BLOCK. Else nothing is written, and the result k < OP_FILL_BLOCK says
 * that the cells before c + k are one-span cells (the caller takes cells c .. c + k one
 * at a time and tries the next block after them, so a cell that breaks a block is met
 * by one try, not by up to eight). Loads before stores: in place the compact slots can
 * lie below the solid ones (never above), overlapping them. packed: hf->first is the
 * running sum of the counts, so counts of 1 put the spans at consecutive slots. ends:
 * op_heightfield_ends(hf). */
static unsigned fill_block(const op_heightfield *hf, const uint32_t *ends, op_chf *out, size_t c,
                           uint32_t idx, int packed)
{
    /* Every count ends - first is 1. */
    uint32_t e[OP_FILL_BLOCK], f[OP_FILL_BLOCK];
    memcpy(e, ends + c, sizeof e);
    memcpy(f, hf->first + c, sizeof f);
    uint32_t d = 0;
    for (int i = 0; i < OP_FILL_BLOCK; i++)
        d |= (e[i] - f[i]) ^ 1u;
    if (d) {
        if (!packed)
            return 0;
        /* The first count that is not 1. */
        unsigned k = 0;
        while (e[k] - f[k] == 1)
            k++;
        return k;
    }
    const uint32_t s0 = hf->first[c];
    if (!packed) {
        unsigned ok = 1;
        for (int i = 1; i < OP_FILL_BLOCK; i++)
            ok &= hf->first[c + i] == s0 + (uint32_t)i;
        if (!ok)
            return 0;
    }
    /* No zero area byte (the high bit after adding 0x7f to the low seven bits, or'ed
     * with the byte, is clear exactly for a zero byte). */
    uint64_t av;
    memcpy(&av, hf->area + s0, sizeof av);
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
    const uint64_t nz = (((av & lo7) + lo7) | av) & hi;
    if (nz != hi) {
        /* The first zero area byte: count bytes from the lowest address. */
        unsigned k = 0;
        while (hf->area[s0 + k] != OP_NULL_AREA)
            k++;
        return k;
    }
    uint16_t y[OP_FILL_BLOCK];
    memcpy(y, hf->smax + s0, sizeof y);
    /* Whole blocks through local arrays: the output arrays may alias each other for the
     * compiler, which then would store one element at a time. */
    static const uint8_t no_ceiling[OP_FILL_BLOCK] = {255, 255, 255, 255, 255, 255, 255, 255};
    uint32_t first[OP_FILL_BLOCK];
    for (int i = 0; i < OP_FILL_BLOCK; i++)
        first[i] = idx + (uint32_t)i;
    memcpy(out->cell_first + c, first, sizeof first);
    memcpy(out->h + idx, no_ceiling, sizeof no_ceiling);
    memcpy(out->y + idx, y, sizeof y);
    memcpy(out->area + idx, &av, sizeof av);
    return OP_FILL_BLOCK;
}

/* Cell c's spans from slot idx; returns the next slot. */
static inline uint32_t fill_cell(const op_heightfield *hf, const uint32_t *ends, op_chf *out,
                                 size_t c, uint32_t idx)
{
    /* Read before written: in place, cell_first is hf->first (compact_in_place), and
     * ends may be hf->first + 1 (cell c + 1 is written after). */
    const uint32_t s0 = hf->first[c], s1 = ends[c];
    out->cell_first[c] = idx;
    if (s1 - s0 == 1) {
        /* One span (most of an open world): no ceiling, h = 255. */
        const uint8_t a = hf->area[s0];
        if (a != OP_NULL_AREA) {
            out->y[idx] = hf->smax[s0];
            out->h[idx] = 255;
            out->area[idx] = a;
            idx++;
        }
        return idx;
    }
    for (uint32_t s = s0; s < s1; s++) {
        if (hf->area[s] == OP_NULL_AREA)
            continue;
        const int32_t y = hf->smax[s];
        int32_t h = 255;
        if (s + 1 < s1) {
            h = (int32_t)hf->smin[s + 1] - y;
            h = h < 0 ? 0 : (h > 255 ? 255 : h);
        }
        out->y[idx] = (uint16_t)y;
        out->h[idx] = (uint8_t)h;
        out->area[idx] = hf->area[s];
        idx++;
    }
    return idx;
}

/* Cells and spans of row z; idx: the first span index of the row. Returns the next. */
static uint32_t fill_row(const op_heightfield *hf, op_chf *out, uint32_t z, uint32_t idx)
{
    const uint32_t w = hf->width;
    const int packed = hf->packed;
    const uint32_t *ends = op_heightfield_ends(hf);
    const size_t c0 = (size_t)z * w, c1 = c0 + w;
    size_t c = c0;
    /* Blocks of one-span cells (most of an open world). */
    while (c + OP_FILL_BLOCK <= c1) {
        const unsigned k = fill_block(hf, ends, out, c, idx, packed);
        if (k == OP_FILL_BLOCK) {
            c += OP_FILL_BLOCK;
            idx += OP_FILL_BLOCK;
            continue;
        }
        for (const size_t e = c + k + 1; c < e; c++)
            idx = fill_cell(hf, ends, out, c, idx);
    }
    for (; c < c1; c++)
        idx = fill_cell(hf, ends, out, c, idx);
    return idx;
}

/* Spans per step of prefault_links: 1 MiB of each link array, one system call per array
 * for ~128 rows of the demo world. 16 K to all spans at once measured alike (1.14-1.25x
 * on the compare case, docs/decisions/spans-speed.md round 16). */
#define OP_PREFAULT_SPANS (1u << 18)

/* The link and mutual arrays' pages of spans [a, a + OP_PREFAULT_SPANS) faulted in by
 * one call each (op_mem_prefault) before the link rows write them: they are fresh
 * memory, about half of this stage's time in page faults. Returns the next a. */
static uint32_t prefault_links(op_chf *out, uint32_t a)
{
    const uint32_t n = out->span_count;
    const uint32_t b = n - a > OP_PREFAULT_SPANS ? a + OP_PREFAULT_SPANS : n;
    for (int d = 0; d < 4; d++)
        op_mem_prefault(out->dlink[d] + a, (size_t)(b - a) * sizeof(int16_t));
    op_mem_prefault(out->mutual + a, b - a);
    return b;
}

/* The cells and spans, links and mutual links of out, one thread: rows z + 1 and z + 2's
 * cells and spans, then row z's links and mutual links, while they are in cache. Row z's
 * links read the cell counts of row z + 1, and the last of them is
 * cell_first[(z + 2)·width] - cell_first[(z + 2)·width - 1]: the fill runs two rows
 * ahead (the sentinel cell_first[width·depth] = span_count after the last row).
 * In place (out's cells and spans are hf's arrays) this is exact too: a compact span's
 * index is at most its solid span's (compact spans are a subset, in the same order), so
 * fill_row writes only slots it has read, and row z + 2's spans land before the first
 * solid span of row z + 3, which is still to be read; the links of row z read only spans
 * of rows z - 1 .. z + 1, below the slots that row z + 2 writes. h (u8) lies in smin's
 * (u16) bytes: h[i] is byte i, inside smin[i / 2], and i <= the solid span s being read,
 * so it only overwrites smin[j] with j <= s / 2, never smin[s + 1] or later, the only
 * ones still to be read. */
static int compact_rows(const op_kernels *k, const op_heightfield *hf, op_chf *out)
{
    const uint32_t dpt = hf->depth;
    uint32_t idx = 0, faulted = 0, filled = 0;
    op_link_rowbuf rb = {0};
    int bad = 0;
    for (uint32_t z = 0; z < dpt; z++) {
        for (; filled < dpt && filled <= z + 2; filled++) {
            idx = fill_row(hf, out, filled, idx);
            if (filled + 1 == dpt)
                out->cell_first[(size_t)hf->width * dpt] = idx;
        }
        /* Row z's links write below idx (the end of row z + 2). */
        while (faulted < idx)
            faulted = prefault_links(out, faulted);
        if (!bad)
            bad = op_chf_link_rows(k, out, z, z + 1, out->mutual, &rb, out->far);
    }
    op_link_rowbuf_free(&out->alloc, &rb);
    return bad;
}

/* Bytes != 0 among area[0 .. n), eight at a time: a byte's high bit after adding 0x7f
 * to its low seven bits, or'ed with its own, is set exactly when the byte is not 0. */
static uint64_t count_walkable(const uint8_t *area, uint32_t n)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
    uint64_t count = 0;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, area + i, 8);
        const uint64_t t = ((((v & lo7) + lo7) | v) & hi) >> 7; /* 1 per nonzero byte */
        count += (t * 0x0101010101010101ull) >> 56;
    }
    for (; i < n; i++)
        count += area[i] != OP_NULL_AREA;
    return count;
}

static int same_allocator(const op_allocator *a, const op_allocator *b)
{
    return a->malloc_fn == b->malloc_fn && a->realloc_fn == b->realloc_fn &&
           a->free_fn == b->free_fn && a->user == b->user;
}

/* Shrinks a moved span array to the compact spans (no copy where the allocator can
 * shrink in place; the later stages must not carry the solid field's slack). */
static void *shrink(const op_allocator *a, void *p, size_t n)
{
    void *q = op_mem_realloc(a, p, n);
    return q ? q : p;
}

/* supplement §1.5 in place: hf's columns become the cells (first -> cell_first; count is
 * freed, the counts being cell_first's steps) and its span arrays the spans (smax -> y,
 * smin's bytes -> h, area -> area), so only the links and mutual links are new memory. Returns 0
 * (nothing done) when that is not possible; then hf is untouched. */
/* The compact field's grid and agent settings, from the solid field it is built from. */
static void set_grid(op_chf *out, const op_heightfield *hf, int walkable_height,
                     int walkable_climb)
{
    memcpy(out->bmin, hf->bmin, sizeof out->bmin);
    memcpy(out->bmax, hf->bmax, sizeof out->bmax);
    out->cs = hf->cs;
    out->ch = hf->ch;
    out->walkable_height = walkable_height;
    out->walkable_climb = walkable_climb;
    out->border_size = 0;
}

static int compact_in_place(op_ctx *ctx, op_heightfield *hf, int walkable_height,
                            int walkable_climb, op_chf *out, op_status *st)
{
    const op_allocator *a = op_ctx_allocator(ctx);
    static const op_allocator plain = {0};
    if (!same_allocator(&hf->alloc, a ? a : &plain) || !hf->packed || hf->span_used == 0 ||
        op_grid_threads(ctx, hf->depth / 16 + 1) > 1 ||
        (uint64_t)hf->width * hf->depth > 0x7fffffffull)
        return 0;
    const uint64_t count = count_walkable(hf->area, hf->span_used);
    if (count == 0 || count > OP_MAX_SPANS)
        return 0;
    const size_t n = (size_t)count;
    memset(out, 0, sizeof *out);
    out->alloc = hf->alloc;
    out->links_decode = ctx ? ctx->k->links.decode : NULL;
    int ok = 1;
    for (int d = 0; d < 4; d++)
        ok &= (out->dlink[d] = op_mem_array(&out->alloc, n, sizeof(int16_t))) != NULL;
    ok &= (out->mutual = op_mem_array(&out->alloc, n, 1)) != NULL;
    if (!ok) {
        op_chf_free(out);
        *st = op_fail(ctx, OP_NO_MEMORY, "out of memory allocating the links of %u spans",
                      (uint32_t)count);
        op_heightfield_free(hf);
        return 1;
    }
    out->width = hf->width;
    out->depth = hf->depth;
    out->span_count = (uint32_t)count;
    out->cell_first = hf->first; /* width·depth + 1 entries (op_heightfield_init) */
    out->y = hf->smax;
    out->h = (uint8_t *)(void *)hf->smin; /* h[i] is byte i (compact_rows) */
    out->area = hf->area;
    set_grid(out, hf, walkable_height, walkable_climb);
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    const int bad = compact_rows(k, hf, out);
    /* Column ends, if any, are cell_first's steps now. */
    op_mem_free(&out->alloc, hf->end);
    if (count < hf->span_cap) {
        out->y = shrink(&out->alloc, out->y, n * sizeof(uint16_t));
        out->h = shrink(&out->alloc, out->h, n);
        out->area = shrink(&out->alloc, out->area, n);
    }
    /* The arrays are out's now. */
    memset(hf, 0, sizeof *hf);
    *st = OP_OK;
    if (bad) {
        op_chf_free(out);
        *st = op_fail(ctx, OP_NO_MEMORY, "out of memory for the far links of %u spans",
                      (uint32_t)count);
    }
    return 1;
}

op_status op_build_compact_heightfield_in_place(op_ctx *ctx, op_heightfield *hf,
                                                int walkable_height, int walkable_climb,
                                                op_chf *out)
{
    memset(out, 0, sizeof *out);
    op_status st = OP_OK;
    if (walkable_height >= 1 && walkable_height <= 0xffff && walkable_climb >= 0 &&
        walkable_climb <= 0xffff &&
        compact_in_place(ctx, hf, walkable_height, walkable_climb, out, &st))
        return st;
    /* Threads, another allocator, an unpacked or empty field: a new field. */
    st = op_build_compact_heightfield(ctx, hf, walkable_height, walkable_climb, out);
    op_heightfield_free(hf);
    return st;
}

op_status op_build_compact_heightfield(op_ctx *ctx, const op_heightfield *hf,
                                       int walkable_height, int walkable_climb, op_chf *out)
{
    memset(out, 0, sizeof *out);
    if (walkable_height < 1 || walkable_height > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_height must be in [1, 65535] (got %d)",
                       walkable_height);
    if (walkable_climb < 0 || walkable_climb > 0xffff)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "walkable_climb must be in [0, 65535] (got %d)",
                       walkable_climb);
    const op_allocator *a = op_ctx_allocator(ctx);
    const uint32_t dpt = hf->depth, w = hf->width;
    const uint32_t *ends = op_heightfield_ends(hf);
    const int T = op_grid_threads(ctx, dpt / 16 + 1);
    uint64_t count = 0;
    uint32_t *row_first = NULL; /* threads: first span of each row, dpt + 1 */
    if (T > 1) {
        row_first = op_mem_array(a, (size_t)dpt + 1, sizeof(uint32_t));
        if (!row_first)
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u rows", dpt);
        OP_PRAGMA(omp parallel for num_threads(T) schedule(static))
        for (uint32_t z = 0; z < dpt; z++) {
            uint32_t n = 0;
            for (size_t c = (size_t)z * w; c < (size_t)(z + 1) * w; c++) {
                const uint32_t s0 = hf->first[c], s1 = ends[c];
                for (uint32_t sp = s0; sp < s1; sp++)
                    n += hf->area[sp] != OP_NULL_AREA;
            }
            row_first[z + 1] = n;
        }
        row_first[0] = 0;
        for (uint32_t z = 0; z < dpt; z++) {
            count += row_first[z + 1];
            row_first[z + 1] = count <= OP_MAX_SPANS ? (uint32_t)count : 0;
        }
    } else if (hf->packed) {
        count = count_walkable(hf->area, hf->span_used);
    } else {
        const size_t cells = (size_t)w * dpt;
        for (size_t c = 0; c < cells; c++) {
            const uint32_t s0 = hf->first[c], s1 = ends[c];
            for (uint32_t sp = s0; sp < s1; sp++)
                count += hf->area[sp] != OP_NULL_AREA;
        }
    }
    if (count > OP_MAX_SPANS) {
        op_mem_free(a, row_first);
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "%llu walkable spans exceed the 32-bit span index",
                       (unsigned long long)count);
    }
    /* Every array is written below: no clearing first. */
    op_status st = op_chf_alloc_uninit(ctx, out, hf->width, hf->depth, (uint32_t)count);
    if (st != OP_OK) {
        op_mem_free(a, row_first);
        return st;
    }
    set_grid(out, hf, walkable_height, walkable_climb);

    /* Cells x + z*width, spans bottom-up; cell_first is the running prefix sum, so an
     * empty cell holds the index of the next span. row_first[k]: first span of row k. */
    op_kernels scalar;
    const op_kernels *k = ctx ? ctx->k : op_spans_scalar_kernels(&scalar);
    if (T > 1) {
        /* Two passes over rows split between the threads: cells and spans (each row
         * knows where its spans start), links and mutual links (they read the rows
         * around). */
        const int chunks = 4 * T;
        /* Each chunk's far links (normally none), appended in chunk order after: the
         * chunks are ascending rows, so the field's tables come out in span order. */
        op_link_far *cfar = op_mem_calloc(a, (size_t)chunks * 4, sizeof(op_link_far));
        int bad = cfar == NULL;
        for (int pass = 0; pass < 2 && !bad; pass++) {
            OP_PRAGMA(omp parallel for num_threads(T) schedule(dynamic, 1))
            for (int q = 0; q < chunks; q++) {
                const uint32_t z0 = (uint32_t)((uint64_t)dpt * (uint64_t)q / (uint64_t)chunks);
                const uint32_t z1 =
                    (uint32_t)((uint64_t)dpt * (uint64_t)(q + 1) / (uint64_t)chunks);
                if (pass == 0) {
                    for (uint32_t z = z0; z < z1; z++)
                        fill_row(hf, out, z, row_first[z]);
                } else {
                    op_link_rowbuf rb = {0};
                    if (op_chf_link_rows(k, out, z0, z1, out->mutual, &rb, cfar + 4 * q) != 0) {
                        OP_PRAGMA(omp atomic write)
                        bad = 1;
                    }
                    op_link_rowbuf_free(&out->alloc, &rb);
                }
            }
            /* cell_first[width·depth] = span_count since op_chf_alloc_uninit. */
        }
        for (int q = 0; cfar && q < chunks; q++)
            for (int d = 0; d < 4; d++) {
                if (!bad && op_link_far_append(&out->alloc, &out->far[d], &cfar[4 * q + d]) != 0)
                    bad = 1;
                op_link_far_free(&out->alloc, &cfar[4 * q + d]);
            }
        op_mem_free(a, cfar);
        op_mem_free(a, row_first);
        if (bad) {
            op_chf_free(out);
            return op_fail(ctx, OP_NO_MEMORY, "out of memory for the links of %u spans",
                           (uint32_t)count);
        }
        return OP_OK;
    }
    if (compact_rows(k, hf, out) != 0) {
        op_chf_free(out);
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for the links of %u spans",
                       (uint32_t)count);
    }
    return OP_OK;
}
