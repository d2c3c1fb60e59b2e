/* Heightmap loaders (supplement §1.2) from memory. Input: one mode byte, then the file:
 * mode even = a PNG file, odd = raw r16 samples with width 2 + (mode >> 1). Either it
 * loads (a mesh of 2 (w-1)(d-1) triangles, every vertex finite) or it is refused with a
 * message. PNGs claiming more than 2^22 samples are skipped: a valid 16-bit image that
 * large is not a loader bug, but its buffer exceeds libFuzzer's memory limit. */
#include "fuzz_common.h"

#include <math.h>
#include <string.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const unsigned mode = data[0];
    data++;
    size--;
    /* IHDR width and height at bytes 16..23 of a PNG file */
    if (!(mode & 1) && size >= 24 && (uint64_t)be32(data + 16) * be32(data + 20) > (1u << 22))
        return 0;
    op_ctx ctx;
    if (op_ctx_init(&ctx, OP_ISA_SCALAR) != OP_OK)
        OP_FUZZ_FAIL("context: %s", ctx.err);
    op_mesh m;
    const uint32_t width = 2 + (mode >> 1);
    op_status st = (mode & 1) ? op_parse_heightmap_r16(&ctx, data, size, width, NULL, NULL, &m)
                              : op_parse_heightmap_png(&ctx, data, size, NULL, NULL, &m);
    op_fuzz_status_ok(&ctx, st, (mode & 1) ? "r16" : "png");
    if (st == OP_OK) {
        if (m.vert_count < 4 || m.tri_count == 0)
            OP_FUZZ_FAIL("heightmap mesh with %u vertices, %u triangles", m.vert_count,
                         m.tri_count);
        for (uint64_t i = 0; i < 3ull * m.vert_count; i++)
            if (!isfinite(m.verts[i]))
                OP_FUZZ_FAIL("heightmap vertex %llu not finite", (unsigned long long)(i / 3));
        for (uint64_t i = 0; i < 3ull * m.tri_count; i++)
            if (m.tris[i] >= m.vert_count)
                OP_FUZZ_FAIL("heightmap triangle %llu out of range", (unsigned long long)(i / 3));
        if ((mode & 1) && (size_t)m.vert_count * 2 != size)
            OP_FUZZ_FAIL("r16 of %zu bytes gave %u vertices", size, m.vert_count);
    }
    op_mesh_free(&m);
    op_ctx_free(&ctx);
    return 0;
}
