/* Per-stage dumps OPDST1 and OPREG1 (supplement §4), little-endian byte by byte. */
#include "onepath/dumps.h"
#include "onepath/chf.h"
#include "onepath/file.h"
#include "core/alloc.h"
#include "core/le.h"
#include "io/io_internal.h"

#include <stdio.h>
#include <string.h>

static const unsigned char dst_magic[8] = {'O', 'P', 'D', 'S', 'T', '1', 0, 0};
static const unsigned char reg_magic[8] = {'O', 'P', 'R', 'E', 'G', '1', 0, 0};


/* header bytes + n u32 values. */
static op_status encode_u32s(op_ctx *ctx, const unsigned char *hdr, size_t hdr_len,
                             const uint32_t *v, uint32_t n, unsigned char **buf, size_t *len)
{
    const uint64_t total = hdr_len + 4ull * n;
    if (total > SIZE_MAX)
        return op_fail(ctx, OP_NO_MEMORY, "dump of %u spans does not fit in memory", n);
    unsigned char *out = op_mem_alloc(op_ctx_allocator(ctx), (size_t)total);
    if (!out)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for a dump of %u spans", n);
    memcpy(out, hdr, hdr_len);
    for (uint32_t i = 0; i < n; i++)
        op_le_put32(out + hdr_len + 4ull * i, v[i]);
    *buf = out;
    *len = (size_t)total;
    return OP_OK;
}

/* Checks the magic, the header length and that the payload is exactly n u32 values. */
static op_status check_layout(op_ctx *ctx, const unsigned char *buf, size_t len,
                              const unsigned char magic[8], const char *what, size_t hdr_len,
                              uint32_t *n)
{
    if (len < 8)
        return op_fail(ctx, OP_BAD_INPUT, "offset %zu: %zu bytes are too short for the %s magic",
                       len, len, what);
    if (memcmp(buf, magic, 8) != 0)
        return op_fail(ctx, OP_BAD_INPUT, "offset 0: bad magic (not an %s file)", what);
    if (len < hdr_len)
        return op_fail(ctx, OP_BAD_INPUT, "offset %zu: truncated %s header (%zu of %zu bytes)",
                       len, what, len, hdr_len);
    *n = op_le_get32(buf + 8);
    const uint64_t total = hdr_len + 4ull * *n;
    if ((uint64_t)len < total)
        return op_fail(ctx, OP_BAD_INPUT,
                       "offset %zu: truncated: %u spans need %llu bytes, the file has %zu", len,
                       *n, (unsigned long long)total, len);
    if ((uint64_t)len > total)
        return op_fail(ctx, OP_BAD_INPUT, "offset %llu: %llu extra bytes after the last span",
                       (unsigned long long)total, (unsigned long long)(len - total));
    return OP_OK;
}

op_status op_dump_distance_encode(op_ctx *ctx, const uint32_t *dist, uint32_t span_count,
                                  unsigned char **buf, size_t *len)
{
    unsigned char hdr[12];
    memcpy(hdr, dst_magic, 8);
    op_le_put32(hdr + 8, span_count);
    *buf = NULL;
    *len = 0;
    return encode_u32s(ctx, hdr, sizeof hdr, dist, span_count, buf, len);
}

op_status op_dump_distance_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                                  uint32_t **dist, uint32_t *span_count)
{
    *dist = NULL;
    *span_count = 0;
    uint32_t n;
    op_status st = check_layout(ctx, buf, len, dst_magic, "OPDST1", 12, &n);
    if (st != OP_OK)
        return st;
    uint32_t *v = op_mem_array(op_ctx_allocator(ctx), n, 4);
    if (!v)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u distances", n);
    for (uint32_t i = 0; i < n; i++)
        v[i] = op_le_get32(buf + 12 + 4ull * i);
    *dist = v;
    *span_count = n;
    return OP_OK;
}

static int region_ok(uint32_t r, uint32_t region_count)
{
    return r <= region_count || r == OP_BORDER_REGION;
}

op_status op_dump_regions_encode(op_ctx *ctx, const uint32_t *region, uint32_t span_count,
                                 uint32_t region_count, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (region_count > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "OPREG1: region_count %u > %u", region_count,
                       OP_MAX_REGION_ID);
    for (uint32_t i = 0; i < span_count; i++)
        if (!region_ok(region[i], region_count))
            return op_fail(ctx, OP_INVALID_ARGUMENT,
                           "OPREG1: span %u has region %u outside 0..%u and not the border "
                           "region",
                           i, region[i], region_count);
    unsigned char hdr[16];
    memcpy(hdr, reg_magic, 8);
    op_le_put32(hdr + 8, span_count);
    op_le_put32(hdr + 12, region_count);
    return encode_u32s(ctx, hdr, sizeof hdr, region, span_count, buf, len);
}

op_status op_dump_regions_decode(op_ctx *ctx, const unsigned char *buf, size_t len,
                                 uint32_t **region, uint32_t *span_count,
                                 uint32_t *region_count)
{
    *region = NULL;
    *span_count = 0;
    *region_count = 0;
    uint32_t n;
    op_status st = check_layout(ctx, buf, len, reg_magic, "OPREG1", 16, &n);
    if (st != OP_OK)
        return st;
    const uint32_t rc = op_le_get32(buf + 12);
    if (rc > OP_MAX_REGION_ID)
        return op_fail(ctx, OP_BAD_INPUT, "offset 12: region_count %u > %u", rc,
                       OP_MAX_REGION_ID);
    uint32_t *v = op_mem_array(op_ctx_allocator(ctx), n, 4);
    if (!v)
        return op_fail(ctx, OP_NO_MEMORY, "out of memory for %u region ids", n);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = op_le_get32(buf + 16 + 4ull * i);
        if (!region_ok(v[i], rc)) {
            op_free(ctx, v);
            return op_fail(ctx, OP_BAD_INPUT,
                           "offset %llu: span %u has region %u outside 0..%u and not the border "
                           "region",
                           16 + 4ull * i, i, op_le_get32(buf + 16 + 4ull * i), rc);
        }
    }
    *region = v;
    *span_count = n;
    *region_count = rc;
    return OP_OK;
}

op_status op_dump_distance_write(op_ctx *ctx, const uint32_t *dist, uint32_t span_count,
                                 const char *path)
{
    unsigned char *buf;
    size_t len;
    const op_status st = op_dump_distance_encode(ctx, dist, span_count, &buf, &len);
    return op_io_write_encoded(ctx, st, buf, len, path);
}

op_status op_dump_distance_read(op_ctx *ctx, const char *path, uint32_t **dist,
                                uint32_t *span_count)
{
    *dist = NULL;
    *span_count = 0;
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_dump_distance_decode(ctx, buf, len, dist, span_count);
    op_free(ctx, buf);
    return op_io_prefix_path(ctx, st, path);
}

op_status op_dump_regions_write(op_ctx *ctx, const uint32_t *region, uint32_t span_count,
                                uint32_t region_count, const char *path)
{
    unsigned char *buf;
    size_t len;
    const op_status st =
        op_dump_regions_encode(ctx, region, span_count, region_count, &buf, &len);
    return op_io_write_encoded(ctx, st, buf, len, path);
}

op_status op_dump_regions_read(op_ctx *ctx, const char *path, uint32_t **region,
                               uint32_t *span_count, uint32_t *region_count)
{
    *region = NULL;
    *span_count = 0;
    *region_count = 0;
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_dump_regions_decode(ctx, buf, len, region, span_count, region_count);
    op_free(ctx, buf);
    return op_io_prefix_path(ctx, st, path);
}
