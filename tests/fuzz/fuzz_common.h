/* Shared by the fuzz harnesses (tests/fuzz/README.md): libFuzzer's entry point, a
 * context on the scalar reference, and the one way a harness reports a finding: a
 * message and abort(), which libFuzzer and the replay driver both treat as a crash.
 * A library call that returns an error status is never a finding by itself; a crash,
 * a sanitizer report, a status outside the documented ones, or a broken property is. */
#ifndef OP_FUZZ_COMMON_H
#define OP_FUZZ_COMMON_H

#include "onepath/onepath.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OP_FUZZ_FAIL(...)                                                                  \
    do {                                                                                   \
        fprintf(stderr, "fuzz finding (%s:%d): ", __FILE__, __LINE__);                     \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, "\n");                                                             \
        abort();                                                                           \
    } while (0)

/* Every status a loader or a bake may return for bad input or an unusual field. */
static inline void op_fuzz_status_ok(const op_ctx *ctx, op_status st, const char *what)
{
    switch (st) {
    case OP_OK:
    case OP_INVALID_ARGUMENT:
    case OP_BAD_INPUT:
    case OP_NO_MEMORY:
    case OP_UNSUPPORTED:
        if (st != OP_OK && !ctx->err[0])
            OP_FUZZ_FAIL("%s: status %s without a message", what, op_status_name(st));
        return;
    default:
        OP_FUZZ_FAIL("%s: status %s: %s", what, op_status_name(st), ctx->err);
    }
}

/* Both invariant checkers on a finished bake; a failure is a finding. */
static inline void op_fuzz_check_bake(op_ctx *ctx, const op_bake_settings *s,
                                      const op_bake_result *r, const char *what)
{
    op_region_report rr;
    if (op_check_regions(ctx, &r->chf, &s->regions, r->region, r->region_count, 1, &rr) != OP_OK)
        OP_FUZZ_FAIL("%s: region invariants: %s", what, ctx->err);
    op_contour_report cr;
    op_contour_settings cs = s->contours;
    if (r->chf.border_size > 0) /* the band was traced as BorderRegion (supplement §2) */
        cs.border_region = OP_BORDER_REGION;
    if (op_check_contours(ctx, &r->chf, r->region, r->region_count, &cs, &r->contours, &cr) !=
        OP_OK)
        OP_FUZZ_FAIL("%s: contour invariants: %s %s", what, ctx->err, cr.first_failures);
}

#endif
