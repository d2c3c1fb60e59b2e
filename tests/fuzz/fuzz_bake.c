/* Structured bake harness: the input describes a small multi-floor compact heightfield
 * and the settings (tests/fuzz/README.md has the layout); the field gets the §1.5 link
 * rule and bakes through distance, regions (watershed, monotone or layers) and contours
 * on the scalar reference, which must keep both invariant checkers; then every variant
 * this build and CPU run bakes the same field and must give the scalar digests of all
 * four stages. */
#include "fuzz_common.h"

#include <string.h>

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned next(reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

#define MAX_EDGE 24
#define MAX_FLOORS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rd = {data, size};
    const uint32_t w = 1 + next(&rd) % MAX_EDGE, d = 1 + next(&rd) % MAX_EDGE;
    const unsigned floors = 1 + next(&rd) % MAX_FLOORS;
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = (op_partition)(next(&rd) % 3);
    static const double max_error[6] = {0.0, 0.5, 1.0, 1.3, 2.5, 100.0};
    static const int32_t max_edge[4] = {0, 1, 3, 12};
    static const uint32_t min_area[5] = {0, 1, 2, 8, 64}, merge_area[4] = {0, 2, 8, 400};
    s.contours.max_error = max_error[next(&rd) % 6];
    s.contours.max_edge_len = max_edge[next(&rd) % 4];
    const unsigned flags = next(&rd);
    s.contours.straight_region_borders = flags & 1;
    s.contours.keep_raw = flags >> 1 & 1;
    s.regions.min_region_area = min_area[next(&rd) % 5];
    s.regions.merge_region_area = merge_area[next(&rd) % 4];
    const int32_t wh = 1 + (int32_t)(next(&rd) % 12), climb = (int32_t)(next(&rd) % 6);
    const unsigned areas = 1 + next(&rd) % 3;

    /* Spans per cell, floors strictly increasing. */
    static uint8_t cnt[MAX_EDGE * MAX_EDGE];
    static uint16_t ys[MAX_EDGE * MAX_EDGE * MAX_FLOORS];
    static uint8_t ar[MAX_EDGE * MAX_EDGE * MAX_FLOORS];
    static const uint8_t ids[3] = {63, 1, 2};
    uint32_t n = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        cnt[c] = (uint8_t)(next(&rd) % (floors + 1));
        uint32_t y = next(&rd) % 16;
        for (unsigned k = 0; k < cnt[c]; k++) {
            const unsigned b = next(&rd);
            ys[n] = (uint16_t)y;
            ar[n] = (b & 7) == 7 ? 0 : ids[(b >> 3) % areas];
            y += 1 + next(&rd) % 40;
            n++;
        }
    }
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_chf chf;
    if (op_chf_alloc(&ctx, &chf, w, d, n) != OP_OK)
        OP_FUZZ_FAIL("chf_alloc: %s", ctx.err);
    chf.cs = 0.3f;
    chf.ch = 0.2f;
    chf.bmax[0] = (float)w * chf.cs;
    chf.bmax[1] = 20.0f;
    chf.bmax[2] = (float)d * chf.cs;
    chf.walkable_height = wh;
    chf.walkable_climb = climb;
    uint32_t sp = 0;
    for (uint32_t c = 0; c < w * d; c++) {
        chf.cell_first[c] = sp;
        for (unsigned k = 0; k < cnt[c]; k++, sp++) {
            chf.y[sp] = ys[sp];
            chf.h[sp] = (uint8_t)(k + 1 < cnt[c] ? (ys[sp + 1] - ys[sp] < 255 ? ys[sp + 1] - ys[sp] : 255)
                                                  : 255);
            chf.area[sp] = ar[sp];
        }
    }
    if (op_chf_build_links(&ctx, &chf) != OP_OK)
        OP_FUZZ_FAIL("links: %s", ctx.err);

    uint64_t ref[4] = {0, 0, 0, 0};
    for (int v = 0; v < OP_ISA_COUNT; v++) {
        if (!op_isa_available((op_isa)v))
            continue;
        if (op_ctx_set_isa(&ctx, (op_isa)v) != OP_OK)
            OP_FUZZ_FAIL("isa %s: %s", op_isa_name((op_isa)v), ctx.err);
        op_chf copy;
        if (op_chf_copy(&ctx, &copy, &chf) != OP_OK)
            OP_FUZZ_FAIL("chf_copy: %s", ctx.err);
        op_bake_result r;
        const op_status st = op_bake_chf(&ctx, &copy, &s, &r);
        if (st != OP_OK) /* a valid field and valid settings always bake */
            OP_FUZZ_FAIL("bake on %s: %s: %s", op_isa_name((op_isa)v), op_status_name(st), ctx.err);
        const uint64_t got[4] = {r.digest_spans, r.digest_distance, r.digest_regions,
                                 r.digest_contours};
        if (v == OP_ISA_SCALAR) {
            op_fuzz_check_bake(&ctx, &s, &r, "structured bake");
            memcpy(ref, got, sizeof ref);
        } else {
            for (int k = 0; k < 4; k++)
                if (got[k] != ref[k])
                    OP_FUZZ_FAIL("variant %s: stage %d digest %016llx, scalar %016llx",
                                 op_isa_name((op_isa)v), k, (unsigned long long)got[k],
                                 (unsigned long long)ref[k]);
        }
        op_bake_result_free(&r);
    }
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    return 0;
}
