/* OPBAKE1 loader (docs/formats.md, supplement §4 "Bake output"): any bytes either decode
 * or are refused with a message. A decoded file is canonical: encoding what was read
 * with the file's flags gives back exactly the input bytes (a version 1 file: the same
 * bytes after the WRLD section, in a version 2 file), and its build3d/tiles digest is the
 * one recomputed from its tiles (0 in a partial file). Every tile section of a decoded
 * file, whole or partial, also goes through the streaming writer (what merge and the MPI
 * bake's rank 0 check), which must accept it and reach the same digest; a copy with one
 * byte changed must be refused. Random bytes rarely keep a section's checksum, so each
 * input is also tried "resealed" (every section's checksum recomputed) to reach the
 * checks behind the checksums. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Every held tile's section through the streaming writer (no file): accepted, the same
 * totals and digest; one byte changed in a copy: refused with a message. file is a
 * version 2 encoding of r. */
static void check_sections(op_ctx *ctx, const op_tiled_result *r, unsigned flags,
                           const uint8_t *file, size_t len, const char *what)
{
    op_opbake_writer *w;
    if (op_opbake_writer_open(ctx, r, flags & ~(OP_OPBAKE_VERSION1 | OP_OPBAKE_PART), NULL, &w) !=
        OP_OK)
        OP_FUZZ_FAIL("%s: writer: %s", what, ctx->err);
    size_t pos = 16 + 16 + le32(file + 16 + 8) + 8; /* after WRLD */
    if (r->held)
        pos += 16 + le32(file + pos + 8) + 8; /* PART */
    uint8_t *copy = NULL;
    for (uint32_t k = 0; k < r->tile_count; k++) {
        if (r->held && !r->held[k])
            continue;
        const size_t n = 16 + (size_t)le32(file + pos + 8) + 8;
        if (pos + n > len)
            OP_FUZZ_FAIL("%s: a tile section runs past the file", what);
        uint8_t *q = realloc(copy, n);
        if (!q)
            break;
        copy = q;
        memcpy(copy, file + pos, n);
        copy[(k * 7919u + 5) % n] ^= (uint8_t)(1u << (k % 8));
        const op_status bad = op_opbake_writer_put_section(w, copy, n);
        if (bad == OP_OK)
            OP_FUZZ_FAIL("%s: tile %u: a changed section was accepted", what, k);
        op_fuzz_status_ok(ctx, bad, what);
        if (op_opbake_writer_put_section(w, file + pos, n) != OP_OK)
            OP_FUZZ_FAIL("%s: tile %u: the writer refused a section the reader took: %s", what,
                         k, ctx->err);
        pos += n;
    }
    free(copy);
    op_tiled_result sum;
    if (op_opbake_writer_finish(w, &sum) != OP_OK)
        OP_FUZZ_FAIL("%s: writer finish: %s", what, ctx->err);
    if (sum.digest != r->digest || sum.spans != r->spans || sum.contour_verts != r->contour_verts)
        OP_FUZZ_FAIL("%s: the writer's digest or totals differ from the reader's", what);
    op_tiled_result_free(&sum);
}

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
    if ((r.held ? 0 : op_digest_tiles(&r)) != r.digest)
        OP_FUZZ_FAIL("%s: decoded digest is not the tiles' digest", what);
    if (!!r.held != !!(flags & OP_OPBAKE_PART))
        OP_FUZZ_FAIL("%s: PART flag and held tiles disagree", what);
    unsigned char *buf = NULL;
    size_t len = 0;
    const int v1 = (flags & OP_OPBAKE_VERSION1) != 0;
    st = op_opbake_encode(&ctx, &r, flags & ~OP_OPBAKE_VERSION1, &buf, &len);
    if (st != OP_OK)
        OP_FUZZ_FAIL("%s: a decoded file does not encode: %s", what, ctx.err);
    /* Version 1: WRLD grew by the two digests (16 bytes), the rest is the same. */
    const size_t skip_in = v1 ? 16 + 16 + 88 + 8 : 0, skip_out = v1 ? skip_in + 16 : 0;
    if (len - skip_out != size - skip_in ||
        memcmp(buf + skip_out, data + skip_in, size - skip_in) != 0)
        OP_FUZZ_FAIL("%s: re-encoding a decoded file changed its bytes (%zu vs %zu)", what,
                     len, size);
    if (!v1 && memcmp(buf, data, 16 + 16 + 88) != 0)
        OP_FUZZ_FAIL("%s: re-encoding changed the header or WRLD", what);
    check_sections(&ctx, &r, flags, buf, len, what);
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
