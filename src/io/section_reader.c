/* The sectioned formats' byte reader (section_reader.h). */
#include "io/section_reader.h"
#include "onepath/digest.h"
#include "core/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

op_status op_sr_fail(op_section_reader *r, size_t off, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->st = op_fail(r->ctx, OP_BAD_INPUT, "offset %zu: %s", off, msg);
    return r->st;
}

const unsigned char *op_sr_take(op_section_reader *r, size_t n, const char *field)
{
    if (r->st != OP_OK)
        return NULL;
    if (n > r->end - r->pos) {
        op_sr_fail(r, r->pos, "%s section ends inside %s (%zu bytes left, %zu needed)",
                   r->what, field, r->end - r->pos, n);
        return NULL;
    }
    const unsigned char *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

uint8_t op_sr_u8(op_section_reader *r, const char *field)
{
    const unsigned char *p = op_sr_take(r, 1, field);
    return p ? *p : 0;
}
uint32_t op_sr_u32(op_section_reader *r, const char *field)
{
    const unsigned char *p = op_sr_take(r, 4, field);
    return p ? op_le_get32(p) : 0;
}
uint64_t op_sr_u64(op_section_reader *r, const char *field)
{
    const unsigned char *p = op_sr_take(r, 8, field);
    return p ? (uint64_t)op_le_get32(p) | (uint64_t)op_le_get32(p + 4) << 32 : 0;
}
float op_sr_f32(op_section_reader *r, const char *field)
{
    const unsigned char *p = op_sr_take(r, 4, field);
    return p ? op_le_get_f32(p) : 0.0f;
}
double op_sr_f64(op_section_reader *r, const char *field)
{
    const uint64_t u = op_sr_u64(r, field);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

op_status op_sr_open(op_section_reader *r, uint32_t want, const char *what, int check_sum,
                     size_t *start)
{
    const size_t at = r->end;
    r->what = what;
    if (r->len - at < OP_SECTION_HEAD)
        return op_sr_fail(r, at,
                          "truncated: the file ends before the %s section header (%zu of %u "
                          "bytes)",
                          what, r->len - at, OP_SECTION_HEAD);
    const unsigned char *h = r->buf + at;
    const uint32_t tag = op_le_get32(h);
    if (tag != want)
        return op_sr_fail(r, at, "expected a %s section, found tag 0x%08x", what, tag);
    if (op_le_get32(h + 4) != 0)
        return op_sr_fail(r, at + 4, "%s section: reserved field is not 0", what);
    const uint64_t len = (uint64_t)op_le_get32(h + 8) | (uint64_t)op_le_get32(h + 12) << 32;
    const size_t room = r->len - at - OP_SECTION_HEAD;
    if (room < OP_SECTION_TAIL || len > room - OP_SECTION_TAIL)
        return op_sr_fail(r, at + 8,
                          "truncated: %s section of %llu bytes (and its checksum) runs past "
                          "the end of the file (%zu bytes left)",
                          what, (unsigned long long)len, room);
    if (check_sum) {
        const uint64_t want_sum = op_digest_bytes(h, OP_SECTION_HEAD + (size_t)len);
        const unsigned char *t = h + OP_SECTION_HEAD + len;
        const uint64_t got = (uint64_t)op_le_get32(t) | (uint64_t)op_le_get32(t + 4) << 32;
        if (got != want_sum)
            return op_sr_fail(r, at,
                              "%s section: checksum mismatch (stored %016llx, computed "
                              "%016llx): the file is corrupted",
                              what, (unsigned long long)got, (unsigned long long)want_sum);
    }
    r->pos = at + OP_SECTION_HEAD;
    r->end = r->pos + (size_t)len;
    if (start)
        *start = at;
    return OP_OK;
}

op_status op_sr_close(op_section_reader *r)
{
    if (r->st != OP_OK)
        return r->st;
    if (r->pos != r->end)
        return op_sr_fail(r, r->pos, "%s section has %zu unexpected bytes at its end", r->what,
                          r->end - r->pos);
    r->end += OP_SECTION_TAIL;
    return OP_OK;
}
