/* OPCHF1, the compact heightfield exchange format (supplement §4). Written and read
 * byte by byte in little-endian, so any host produces and accepts the same files. */
#include "onepath/opchf.h"
#include "onepath/config.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/io_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const unsigned char opchf_magic[8] = {'O', 'P', 'C', 'H', 'F', '1', 0, 0};

/* Neighbour cell of (x, z) in direction d, or -1 off-grid. */
static int64_t neighbour_cell(uint32_t x, uint32_t z, int d, uint32_t w, uint32_t dp)
{
    const int64_t nx = (int64_t)x + op_dir_dx(d), nz = (int64_t)z + op_dir_dz(d);
    if (nx < 0 || nz < 0 || nx >= (int64_t)w || nz >= (int64_t)dp)
        return -1;
    return nx + nz * (int64_t)w;
}

op_status op_opchf_encode(op_ctx *ctx, const op_chf *chf, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    const uint32_t w = chf->width, dp = chf->depth, n = chf->span_count;
    const uint64_t cells = (uint64_t)w * dp;
    if (w == 0 || dp == 0 || cells > OP_MAX_GRID_CELLS)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCHF1: grid of %u x %u cells", w, dp);
    /* The reader's rules, checked before writing so that nothing unreadable is written. */
    uint32_t sum = 0;
    for (uint64_t c = 0; c < cells; c++) {
        /* cell_first is the prefix sum (onepath/chf.h): every entry, the end included. */
        if (chf->cell_first[c] != sum)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "OPCHF1: cell %llu starts at span %u, expected %u (cells must list "
                           "the spans in order)",
                           (unsigned long long)c, chf->cell_first[c], sum);
        const uint32_t end = chf->cell_first[c + 1];
        if (end < sum || end > n)
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "OPCHF1: cell %llu ends at span %u, outside [%u, %u]",
                           (unsigned long long)c, end, sum, n);
        sum = end;
    }
    if (sum != n)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPCHF1: cells cover %u of %u spans", sum, n);
    const uint64_t total = OP_OPCHF_HEADER_SIZE + OP_OPCHF_CELL_SIZE * cells +
                           (uint64_t)OP_OPCHF_SPAN_SIZE * n;
    if (total > SIZE_MAX)
        return op_fail(ctx, OP_NO_MEMORY, "OPCHF1: %llu bytes do not fit in memory",
                       (unsigned long long)total);
    unsigned char *out = op_mem_alloc(op_ctx_allocator(ctx), (size_t)total);
    if (!out)
        return op_fail(ctx, OP_NO_MEMORY, "OPCHF1: out of memory for %llu bytes",
                       (unsigned long long)total);
    unsigned char *p = out;
    memcpy(p, opchf_magic, 8);
    op_le_put32(p + 8, w);
    op_le_put32(p + 12, dp);
    op_le_put32(p + 16, n);
    for (int i = 0; i < 3; i++) {
        op_le_put_f32(p + 20 + 4 * i, chf->bmin[i]);
        op_le_put_f32(p + 32 + 4 * i, chf->bmax[i]);
    }
    op_le_put_f32(p + 44, chf->cs);
    op_le_put_f32(p + 48, chf->ch);
    op_le_put32(p + 52, (uint32_t)chf->walkable_height);
    op_le_put32(p + 56, (uint32_t)chf->walkable_climb);
    op_le_put32(p + 60, (uint32_t)chf->border_size);
    p += OP_OPCHF_HEADER_SIZE;
    for (uint64_t c = 0; c < cells; c++, p += 8) {
        const uint32_t cnt = op_chf_cell_count(chf, (uint32_t)c);
        op_le_put32(p, cnt ? chf->cell_first[c] : 0); /* empty cell written (0, 0) */
        op_le_put32(p + 4, cnt);
    }
    op_status st = OP_OK;
    for (uint32_t z = 0; z < dp && st == OP_OK; z++) {
        for (uint32_t x = 0; x < w && st == OP_OK; x++) {
            const uint32_t c = x + z * w;
            const uint32_t s0 = chf->cell_first[c], s1 = chf->cell_first[c + 1];
            for (uint32_t s = s0; s < s1; s++, p += OP_OPCHF_SPAN_SIZE) {
                if (s > s0 && chf->y[s] <= chf->y[s - 1]) {
                    st = op_fail(ctx, OP_INVALID_ARGUMENT,
                                 "OPCHF1: span %u of cell (%u, %u): floors not increasing "
                                 "within the cell", s, x, z);
                    break;
                }
                op_le_put16(p, chf->y[s]);
                op_le_put16(p + 2, chf->h[s]);
                p[4] = chf->area[s];
                p[5] = 0;
                for (int d = 0; d < 4; d++) {
                    const uint32_t t = op_chf_link(chf, d, s);
                    int8_t li = -1;
                    if (t != OP_NO_LINK) {
                        const int64_t nc = neighbour_cell(x, z, d, w, dp);
                        const uint32_t t0 = nc >= 0 ? chf->cell_first[nc] : 0;
                        const uint32_t tn = nc >= 0 ? op_chf_cell_count(chf, (uint32_t)nc) : 0;
                        if (t < t0 || t - t0 >= tn) {
                            st = op_fail(ctx, OP_INVALID_ARGUMENT,
                                         "OPCHF1: span %u of cell (%u, %u) links in direction "
                                         "%d to span %u outside the neighbour cell",
                                         s, x, z, d, t);
                            break;
                        }
                        if (t - t0 >= 128) {
                            /* supplement §4: report, never truncate. */
                            st = op_fail(ctx, OP_UNSUPPORTED,
                                         "OPCHF1 cannot express span %u of cell (%u, %u) linking "
                                         "in direction %d to index %u of its neighbour cell "
                                         "(limit 127)",
                                         s, x, z, d, t - t0);
                            break;
                        }
                        li = (int8_t)(t - t0);
                    }
                    p[6 + d] = (unsigned char)li;
                }
                if (st != OP_OK)
                    break;
            }
        }
    }
    if (st != OP_OK) {
        op_free(ctx, out);
        return st;
    }
    *buf = out;
    *len = (size_t)total;
    return OP_OK;
}

op_status op_opchf_write(op_ctx *ctx, const op_chf *chf, const char *path)
{
    unsigned char *buf;
    size_t len;
    const op_status st = op_opchf_encode(ctx, chf, &buf, &len);
    return op_io_write_encoded(ctx, st, buf, len, path);
}

#define BAD(off, ...) \
    do { \
        char reason_[400]; \
        snprintf(reason_, sizeof reason_, __VA_ARGS__); \
        st = op_fail(ctx, OP_BAD_INPUT, "offset %llu: %s", (unsigned long long)(off), reason_); \
        goto fail; \
    } while (0)

op_status op_opchf_decode(op_ctx *ctx, const unsigned char *buf, size_t len, op_chf *out)
{
    memset(out, 0, sizeof *out);
    op_status st = OP_OK;
    if (len < 8)
        BAD(len, "file of %zu bytes is too short for the 8-byte magic", len);
    if (memcmp(buf, opchf_magic, 8) != 0)
        BAD(0, "bad magic (not an OPCHF1 file)");
    if (len < OP_OPCHF_HEADER_SIZE)
        BAD(len, "truncated header: %zu of %u bytes", len, OP_OPCHF_HEADER_SIZE);
    const uint32_t w = op_le_get32(buf + 8), dp = op_le_get32(buf + 12), n = op_le_get32(buf + 16);
    if (w == 0)
        BAD(8, "width 0");
    if (dp == 0)
        BAD(12, "depth 0");
    const uint64_t cells = (uint64_t)w * dp;
    if (cells > OP_MAX_GRID_CELLS)
        BAD(8, "grid of %u x %u cells exceeds the 32-bit cell index", w, dp);
    if (n > OP_MAX_SPANS)
        BAD(16, "span_count %u exceeds the 32-bit span index", n);
    /* Sizes in 64 bits: cells < 2^31 and n < 2^32, so no overflow. */
    const uint64_t span_off = OP_OPCHF_HEADER_SIZE + OP_OPCHF_CELL_SIZE * cells;
    const uint64_t total = span_off + (uint64_t)OP_OPCHF_SPAN_SIZE * n;
    if ((uint64_t)len < total)
        BAD(len, "truncated: %u x %u cells and %u spans need %llu bytes, the file has %zu", w,
            dp, n, (unsigned long long)total, len);
    if ((uint64_t)len > total)
        BAD(total, "%llu extra bytes after the last span", (unsigned long long)(len - total));
    float bmin[3], bmax[3];
    for (int i = 0; i < 3; i++) {
        bmin[i] = op_le_get_f32(buf + 20 + 4 * i);
        bmax[i] = op_le_get_f32(buf + 32 + 4 * i);
        if (!isfinite(bmin[i]))
            BAD(20 + 4 * i, "bmin[%d] is not finite", i);
        if (!isfinite(bmax[i]))
            BAD(32 + 4 * i, "bmax[%d] is not finite", i);
    }
    for (int i = 0; i < 3; i++)
        if (bmax[i] < bmin[i])
            BAD(32 + 4 * i, "bmax[%d] = %g is below bmin[%d] = %g", i, (double)bmax[i], i,
                (double)bmin[i]);
    const float cs = op_le_get_f32(buf + 44), ch = op_le_get_f32(buf + 48);
    if (!(isfinite(cs) && cs > 0.0f))
        BAD(44, "cs = %g must be finite and > 0", (double)cs);
    if (!(isfinite(ch) && ch > 0.0f))
        BAD(48, "ch = %g must be finite and > 0", (double)ch);
    const int32_t wh = (int32_t)op_le_get32(buf + 52), wc = (int32_t)op_le_get32(buf + 56),
                  bs = (int32_t)op_le_get32(buf + 60);
    if (wh < 1)
        BAD(52, "walkable_height %d < 1", wh);
    if (wc < 0)
        BAD(56, "walkable_climb %d < 0", wc);
    if (bs < 0)
        BAD(60, "border_size %d < 0", bs);

    st = op_chf_alloc(ctx, out, w, dp, n);
    if (st != OP_OK)
        return st;
    memcpy(out->bmin, bmin, sizeof bmin);
    memcpy(out->bmax, bmax, sizeof bmax);
    out->cs = cs;
    out->ch = ch;
    out->walkable_height = wh;
    out->walkable_climb = wc;
    out->border_size = bs;

    /* Cells: non-empty cells continue the spans exactly in order; empty cells take the
     * prefix sum whatever their first_span says. */
    uint32_t sum = 0;
    for (uint64_t c = 0; c < cells; c++) {
        const uint64_t off = OP_OPCHF_HEADER_SIZE + OP_OPCHF_CELL_SIZE * c;
        const uint32_t first = op_le_get32(buf + off), cnt = op_le_get32(buf + off + 4);
        if (cnt > n - sum)
            BAD(off + 4, "cell %llu: count %u runs past span_count %u (%u spans before it)",
                (unsigned long long)c, cnt, n, sum);
        if (cnt && first != sum)
            BAD(off, "cell %llu: first_span %u, expected %u (cells must cover the spans in order)",
                (unsigned long long)c, first, sum);
        out->cell_first[c] = sum;
        sum += cnt;
    }
    /* cell_first[cells] = n since op_chf_alloc; the check below makes it the sum. */
    if (sum != n)
        BAD(span_off, "cells cover %u of %u spans", sum, n);

    for (uint32_t z = 0; z < dp; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            const uint32_t s0 = out->cell_first[c], s1 = out->cell_first[c + 1];
            for (uint32_t s = s0; s < s1; s++) {
                const uint64_t off = span_off + (uint64_t)OP_OPCHF_SPAN_SIZE * s;
                const unsigned char *p = buf + off;
                out->y[s] = op_le_get16(p);
                /* u16 in the file, u8 in op_chf (supplement §1.5: at most 255). */
                const uint16_t h = op_le_get16(p + 2);
                out->h[s] = (uint8_t)h;
                out->area[s] = p[4];
                if (s > s0 && out->y[s] <= out->y[s - 1])
                    BAD(off, "span %u: floor y %u not above the floor %u of the span below", s,
                        out->y[s], out->y[s - 1]);
                if (h > 255)
                    BAD(off + 2, "span %u: clearance h %u > 255", s, h);
                if (p[5] != 0)
                    BAD(off + 5, "span %u: reserved byte is %u, must be 0", s, p[5]);
                for (int d = 0; d < 4; d++) {
                    const int li = (int8_t)p[6 + d];
                    if (li == -1)
                        continue;
                    if (li < 0)
                        BAD(off + 6 + d, "span %u: link[%d] = %d (must be -1 or an index)", s, d,
                            li);
                    const int64_t nc = neighbour_cell(x, z, d, w, dp);
                    if (nc < 0)
                        BAD(off + 6 + d,
                            "span %u of edge cell (%u, %u): link[%d] = %d points off the grid", s,
                            x, z, d, li);
                    const uint32_t ncount = op_chf_cell_count(out, (uint32_t)nc);
                    if ((uint32_t)li >= ncount)
                        BAD(off + 6 + d,
                            "span %u: link[%d] = %d but the neighbour cell holds %u spans", s, d,
                            li, ncount);
                    st = op_chf_set_link(ctx, out, d, s, out->cell_first[nc] + (uint32_t)li);
                    if (st != OP_OK)
                        goto fail;
                }
            }
        }
    }
    op_chf_build_mutual(ctx, out);
    return OP_OK;
fail:
    op_chf_free(out);
    return st;
}

op_status op_opchf_read(op_ctx *ctx, const char *path, op_chf *out)
{
    memset(out, 0, sizeof *out);
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_opchf_decode(ctx, buf, len, out);
    op_free(ctx, buf);
    return op_io_prefix_path(ctx, st, path); /* keeps "offset N: reason" */
}
