/* The byte reader shared by the sectioned file formats (OPCACHE1, OPBAKE1; docs/formats.md):
 * a cursor over untrusted bytes that checks every read against the current section's
 * payload, and a failure that names the offset and the field. */
#ifndef ONEPATH_IO_SECTION_READER_H
#define ONEPATH_IO_SECTION_READER_H

#include "onepath/common.h"

#include <stddef.h>
#include <stdint.h>

/* A section: u32 tag, u32 0, u64 payload length, the payload, u64 checksum (XXH3 of the
 * header and payload). */
#define OP_SECTION_HEAD 16u
#define OP_SECTION_TAIL 8u

typedef struct op_section_reader {
    op_ctx *ctx;
    const unsigned char *buf;
    size_t len;
    size_t pos;       /* cursor in the current payload (absolute offset) */
    size_t end;       /* end of the current payload; the file cursor between sections */
    const char *what; /* the section being read, for messages */
    op_status st;     /* the first failure; every later read returns zeros */
} op_section_reader;

/* Records OP_BAD_INPUT "offset OFF: MESSAGE" in r->ctx and r->st; returns it. */
op_status op_sr_fail(op_section_reader *r, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* n bytes of the payload, or NULL (and a failure naming `field` when r had none). */
const unsigned char *op_sr_take(op_section_reader *r, size_t n, const char *field);

/* Little-endian values of the payload; 0 after a failure. */
uint8_t op_sr_u8(op_section_reader *r, const char *field);
uint32_t op_sr_u32(op_section_reader *r, const char *field);
uint64_t op_sr_u64(op_section_reader *r, const char *field);
float op_sr_f32(op_section_reader *r, const char *field);
double op_sr_f64(op_section_reader *r, const char *field);

/* The section header at the file cursor (r->end): checks its tag, reserved field, length
 * and (check_sum) checksum; r->pos/r->end become its payload and *start (may be NULL) the
 * header's offset. */
op_status op_sr_open(op_section_reader *r, uint32_t want, const char *what, int check_sum,
                     size_t *start);

/* The payload must be used up exactly; moves the file cursor past the checksum. */
op_status op_sr_close(op_section_reader *r);

#endif
