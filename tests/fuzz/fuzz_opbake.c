/* OPBAKE1 loader (docs/formats.md, supplement §4 "Bake output"): any bytes either decode
 * or are refused with a message. A decoded file is canonical: encoding what was read
 * with the file's flags gives back exactly the input bytes, and its build3d/tiles
 * digest is the one recomputed from its tiles. Random bytes rarely keep a section's
 * checksum, so each input is also tried "resealed" (every section's checksum recomputed)
 * to reach the checks behind the checksums. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

static void check(const uint8_t *data, size_t size, const char *what)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_tiled_result r;
    unsigned flags = 0;
    op_status st = op_opbake_decode(&ctx, data, size, &r, &flags);
    op_fuzz_status_ok(&ctx, st, what);
    if (st != OP_OK) {
        if (r.tiles)
            OP_FUZZ_FAIL("%s: a refused file left tiles in the result", what);
        op_ctx_free(&ctx);
        return;
    }
    if (op_digest_tiles(&r) != r.digest)
        OP_FUZZ_FAIL("%s: decoded digest is not the tiles' digest", what);
    unsigned char *buf = NULL;
    size_t len = 0;
    st = op_opbake_encode(&ctx, &r, flags, &buf, &len);
    if (st != OP_OK)
        OP_FUZZ_FAIL("%s: a decoded file does not encode: %s", what, ctx.err);
    if (len != size || memcmp(buf, data, size) != 0)
        OP_FUZZ_FAIL("%s: re-encoding a decoded file changed its bytes (%zu vs %zu)", what,
                     len, size);
    op_free(&ctx, buf);
    op_tiled_result_free(&r);
    op_ctx_free(&ctx);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size, "decode");
    /* Walk the sections after the 16-byte header and recompute each checksum. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    size_t pos = 16;
    int changed = 0;
    while (size >= 24 && pos <= size - 24) {
        const uint64_t len = (uint64_t)get32(copy + pos + 8) | (uint64_t)get32(copy + pos + 12) << 32;
        if (len > size - pos - 24)
            break;
        const uint64_t sum = op_digest_bytes(copy + pos, 16 + (size_t)len);
        uint8_t *t = copy + pos + 16 + len;
        if (get32(t) != (uint32_t)sum || get32(t + 4) != (uint32_t)(sum >> 32))
            changed = 1;
        put32(t, (uint32_t)sum);
        put32(t + 4, (uint32_t)(sum >> 32));
        pos += 24 + (size_t)len;
    }
    if (changed)
        check(copy, size, "decode resealed");
    free(copy);
    return 0;
}
