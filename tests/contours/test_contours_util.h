/* Helpers shared by the contour tests (header only; not a test executable). */
#ifndef OP_TEST_CONTOURS_UTIL_H
#define OP_TEST_CONTOURS_UTIL_H

#include "onepath/contours.h"
#include "core/kernels.h"
#include "util/testutil.h"

#include <stdlib.h>
#include <string.h>

/* A single-floor field from rows of characters, row 0 at z = 0: '.' no span, '#' a
 * walkable span with region 0, 'a'+k region k+1 (area 63), 'A'+k region k+1 (area 1).
 * All floors at y = 0, so every side-by-side pair links. */
static inline op_status ct_map_chf(op_ctx *ctx, op_chf *chf, uint32_t **region,
                                   uint32_t *region_count, const char *const *rows,
                                   uint32_t nrows)
{
    const uint32_t w = (uint32_t)strlen(rows[0]), d = nrows;
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++)
            n += rows[z][x] != '.';
    op_status st = op_chf_alloc(ctx, chf, w, d, n);
    if (st != OP_OK)
        return st;
    chf->cs = 0.3f;
    chf->ch = 0.2f;
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    *region = calloc(n ? n : 1, sizeof **region);
    *region_count = 0;
    uint32_t s = 0;
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            const char ch = rows[z][x];
            chf->cell_first[c] = s;
            if (ch == '.')
                continue;
            chf->y[s] = 0;
            chf->h[s] = 255;
            chf->area[s] = 63;
            uint32_t r = 0;
            if (ch >= 'a' && ch <= 'z')
                r = (uint32_t)(ch - 'a') + 1;
            else if (ch >= 'A' && ch <= 'Z') {
                r = (uint32_t)(ch - 'A') + 1;
                chf->area[s] = 1;
            }
            (*region)[s] = r;
            if (r > *region_count)
                *region_count = r;
            s++;
        }
    return op_chf_build_links(ctx, chf);
}

/* Relabels "same key and mutually linked" into connected pieces, ids 1.. in order of
 * first span; key 0 stays 0. Returns the piece count. */
static inline uint32_t ct_relabel_connected(const op_chf *chf, const uint32_t *key,
                                            uint32_t *out)
{
    const uint32_t n = chf->span_count;
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    for (uint32_t s = 0; s < n; s++)
        out[s] = 0;
    uint32_t next = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (!key[s] || out[s])
            continue;
        out[s] = ++next;
        uint32_t sp = 0;
        stack[sp++] = s;
        while (sp) {
            const uint32_t a = stack[--sp];
            for (int d = 0; d < 4; d++) {
                if (!(chf->mutual[a] >> d & 1))
                    continue;
                const uint32_t b = op_chf_link(chf, d, a);
                if (key[b] == key[a] && !out[b]) {
                    out[b] = next;
                    stack[sp++] = b;
                }
            }
        }
    }
    free(stack);
    return next;
}

/* Regions for a random field: connected same-area components, optionally cut into
 * (x/bx, z/bz) blocks so region-region borders with the same area exist. */
static inline uint32_t ct_random_regions(op_ctx *ctx, const op_chf *chf, uint32_t bx,
                                         uint32_t bz, uint32_t *region)
{
    const uint32_t n = chf->span_count;
    uint32_t *lab = malloc((n ? n : 1) * sizeof *lab), count = 0;
    const op_label_view graph = op_label_view_of(chf, chf->area, NULL);
    ctx->k->label.components(&graph, lab, &count, &ctx->arena);
    if (bx && bz) {
        for (uint32_t z = 0; z < chf->depth; z++)
            for (uint32_t x = 0; x < chf->width; x++) {
                const uint32_t c = x + z * chf->width;
                for (uint32_t s = chf->cell_first[c]; s < chf->cell_first[c + 1]; s++)
                    if (lab[s])
                        lab[s] = lab[s] * 4096u + (x / bx) * 64u + (z / bz) + 1u;
            }
    }
    count = ct_relabel_connected(chf, lab, region);
    free(lab);
    return count;
}

#endif
