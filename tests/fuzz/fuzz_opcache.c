/* OPCACHE1 loader (the tile cache file, docs/formats.md): any bytes either decode or are
 * refused with a message. A decoded cache updates (every tile rebuilt from the file's
 * geometry, layers, volumes and obstacles) into a result whose build3d/tiles digest is
 * the one its tiles give, saves again (stored) and loads back into the same geometry.
 * Random bytes rarely keep a section's checksum, so each input is also tried "resealed"
 * (every section's checksum recomputed) to reach the checks behind the checksums.
 * Inputs whose tile window is wider than 300 cells are skipped (a legal window that
 * size allocates more than the fuzzer allows; the size checks are plain arithmetic). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void check(const uint8_t *data, size_t size, const char *what)
{
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_tile_cache c;
    op_status st = op_opcache_decode(&ctx, data, size, 1, &c);
    op_fuzz_status_ok(&ctx, st, what);
    if (st != OP_OK) {
        if (c.tiles || c.result.tiles)
            OP_FUZZ_FAIL("%s: a refused file left tiles in the cache", what);
        op_ctx_free(&ctx);
        return;
    }
    if (c.dirty_count != c.result.tile_count)
        OP_FUZZ_FAIL("%s: a loaded cache must have every tile dirty", what);
    st = op_tile_cache_update(&ctx, &c, 1, NULL);
    op_fuzz_status_ok(&ctx, st, "update of a loaded cache");
    if (st == OP_OK && op_digest_tiles(&c.result) != c.result.digest)
        OP_FUZZ_FAIL("%s: the result's digest is not its tiles' digest", what);
    unsigned char *buf = NULL;
    size_t len = 0;
    st = op_opcache_encode(&ctx, &c, 0, 1, &buf, &len);
    if (st != OP_OK && st != OP_NO_MEMORY)
        OP_FUZZ_FAIL("%s: a loaded cache does not save: %s", what, ctx.err);
    if (st == OP_OK) {
        op_tile_cache d;
        st = op_opcache_decode(&ctx, buf, len, 1, &d);
        if (st != OP_OK && st != OP_NO_MEMORY)
            OP_FUZZ_FAIL("%s: a saved cache does not load: %s", what, ctx.err);
        for (uint32_t i = 0; st == OP_OK && i < d.result.tile_count; i++)
            if (d.tiles[i].digest_geometry != c.tiles[i].digest_geometry ||
                d.tiles[i].layer_count != c.tiles[i].layer_count)
                OP_FUZZ_FAIL("%s: tile %u changed in a save and load", what, i);
        if (st == OP_OK && (d.obstacle_count != c.obstacle_count || strcmp(d.source, c.source)))
            OP_FUZZ_FAIL("%s: obstacles or source changed in a save and load", what);
        op_tile_cache_free(&d);
        op_free(&ctx, buf);
    }
    op_tile_cache_free(&c);
    op_ctx_free(&ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* SETS starts at 32: tile_size at +8, border_size at +12. */
    if (size >= 48 && (uint64_t)get32(data + 40) + 2ull * get32(data + 44) > 300)
        return 0;
    check(data, size, "decode");
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
