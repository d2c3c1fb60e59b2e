/* OPCHF1 loader (docs/formats.md): any bytes either decode or are refused with a
 * message. A decoded field encodes again and decodes to the same digest; a small one
 * bakes through contours (every partition, chosen by the input) and then keeps both
 * invariant checkers. */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_chf chf;
    op_status st = op_opchf_decode(&ctx, data, size, &chf);
    op_fuzz_status_ok(&ctx, st, "decode");
    if (st != OP_OK) {
        op_ctx_free(&ctx);
        return 0;
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    st = op_opchf_encode(&ctx, &chf, &buf, &len);
    /* A decoded field is valid, so it encodes (links to index >= 128 of a cell cannot be
     * read in the first place). */
    if (st != OP_OK)
        OP_FUZZ_FAIL("a decoded field does not encode: %s", ctx.err);
    op_chf again;
    st = op_opchf_decode(&ctx, buf, len, &again);
    if (st != OP_OK)
        OP_FUZZ_FAIL("an encoded field does not decode: %s", ctx.err);
    if (op_digest_chf(&again) != op_digest_chf(&chf))
        OP_FUZZ_FAIL("round trip changed the field's digest");
    op_free(&ctx, buf);
    op_chf_free(&again);

    if (chf.span_count <= 4096 && (uint64_t)chf.width * chf.depth <= 4096) {
        op_bake_settings s;
        op_bake_settings_defaults(&s);
        s.regions.partition = (op_partition)(size % 3);
        s.regions.min_region_area = (uint32_t)(size / 3 % 5);
        s.regions.merge_region_area = (uint32_t)(size / 15 % 7) * 4;
        s.contours.keep_raw = 1;
        op_bake_result r;
        st = op_bake_chf(&ctx, &chf, &s, &r);
        op_fuzz_status_ok(&ctx, st, "bake");
        if (st == OP_OK)
            op_fuzz_check_bake(&ctx, &s, &r, "OPCHF1 bake");
        op_bake_result_free(&r);
    }
    op_chf_free(&chf);
    op_ctx_free(&ctx);
    return 0;
}
