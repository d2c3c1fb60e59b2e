/* Helpers for the tests/regions/test_regions_*.c files: hand-made single-floor fields from a
 * character map and small checks. Header-only (static inline) so no build change. */
#ifndef OP_REGIONS_TESTLIB_H
#define OP_REGIONS_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onepath/regions.h"
#include "util/testbuild.h"
#include "util/testutil.h"

/* rows[z] is row z (so the first string is z = 0); each char one cell:
 * '#' empty column, '0' an area-0 span, 'a'..'e' a walkable span of area 1..5.
 * All floors at y = 0, so every side-by-side pair links mutually. */
static inline void grid_chf(op_ctx *ctx, op_chf *chf, uint32_t w, uint32_t d,
                            const char *const *rows)
{
    uint32_t n = 0;
    for (uint32_t z = 0; z < d; z++)
        for (uint32_t x = 0; x < w; x++)
            n += rows[z][x] != '#';
    assert_int_equal(op_chf_alloc(ctx, chf, w, d, n), OP_OK);
    chf->walkable_height = 10;
    chf->walkable_climb = 4;
    chf->cs = chf->ch = 1.0f;
    uint32_t s = 0;
    for (uint32_t z = 0; z < d; z++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint32_t c = x + z * w;
            chf->cell_first[c] = s;
            const char ch = rows[z][x];
            if (ch == '#')
                continue;
            chf->y[s] = 0;
            chf->h[s] = 255;
            chf->area[s] = (uint8_t)(ch == '0' ? 0 : ch - 'a' + 1);
            s++;
        }
    }
    assert_int_equal(op_chf_build_links(ctx, chf), OP_OK);
}

/* Span of single-floor cell (x, z). */
static inline uint32_t grid_span(const op_chf *chf, uint32_t x, uint32_t z)
{
    const uint32_t c = x + z * chf->width;
    assert_int_equal(op_chf_cell_count(chf, c), 1);
    return chf->cell_first[c];
}

static inline void expect_regions(const uint32_t *got, const uint32_t *want, uint32_t n,
                                  const char *what)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: span %u has region %u, expected %u", what, i, got[i], want[i]);
}

static inline void check_ok(op_ctx *ctx, const op_chf *chf, const op_region_settings *s,
                            const uint32_t *region, uint32_t count, int filtered,
                            const char *what)
{
    op_region_report rep;
    op_status st = op_check_regions(ctx, chf, s, region, count, filtered, &rep);
    if (st != OP_OK)
        fail_msg("%s: checker %s: %s", what, op_status_name(st), op_ctx_error(ctx));
}

static inline uint32_t *u32_alloc(uint32_t n) { return op_test_u32s(n); }

#endif
