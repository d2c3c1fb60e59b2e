/* onepath — a tiny streaming JSON writer over FILE* (the tool's summaries). */
#ifndef ONEPATH_JSON_H
#define ONEPATH_JSON_H

#include "onepath/common.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OP_JSON_MAX_DEPTH 64

typedef struct op_json {
    FILE *f;
    int indent;       /* spaces per level; 0 = compact, one line */
    int depth;
    int after_key;    /* a key was written, its value comes next */
    int error;        /* 1: misuse (value without key, unbalanced end, too deep) */
    uint8_t count[OP_JSON_MAX_DEPTH]; /* per level: 0 = empty so far */
    uint8_t is_object[OP_JSON_MAX_DEPTH];
} op_json;

void op_json_init(op_json *j, FILE *f, int indent);
void op_json_begin_object(op_json *j);
void op_json_end_object(op_json *j);
void op_json_begin_array(op_json *j);
void op_json_end_array(op_json *j);
/* In an object: the next value's key (escaped like a string). */
void op_json_key(op_json *j, const char *key);
/* Escapes ", \, control characters (\n, \t, ..., \u00XX) and invalid UTF-8 (as \ufffd);
 * NULL writes null. */
void op_json_string(op_json *j, const char *s);
void op_json_u64(op_json *j, uint64_t v);
void op_json_i64(op_json *j, int64_t v);
/* Numbers never depend on the locale (the decimal point is always '.'). Non-finite values
 * are written as null. */
/* The fewest significant digits that read back (strtod) to the same binary64; plain
 * notation for decimal exponents -4..15 (0.001, 10), else exponent notation (1e-5,
 * 1.5e30), as Python's repr. */
void op_json_double(op_json *j, double v);
/* The same for binary32 (strtof): 0.3f is "0.3", not the "0.30000001192092896" of
 * printing it as a double. For float fields (cs, ch, bounds). */
void op_json_float(op_json *j, float v);
/* Fixed notation with 0..17 decimals (%.*f). */
void op_json_double_fixed(op_json *j, double v, int decimals);
void op_json_bool(op_json *j, int v);
void op_json_null(op_json *j);
/* Key + value shorthands. */
void op_json_kv_string(op_json *j, const char *key, const char *v);
void op_json_kv_u64(op_json *j, const char *key, uint64_t v);
void op_json_kv_i64(op_json *j, const char *key, int64_t v);
void op_json_kv_double(op_json *j, const char *key, double v);
void op_json_kv_float(op_json *j, const char *key, float v);
void op_json_kv_bool(op_json *j, const char *key, int v);
/* The number texts above, for other writers (SVG, the tool's messages): at most
 * OP_JSON_NUMBER_MAX bytes with the NUL; non-finite values give "" (length 0). Return the
 * length. */
#define OP_JSON_NUMBER_MAX 40
size_t op_json_format_double(char *buf, double v);
size_t op_json_format_float(char *buf, float v);
size_t op_json_format_fixed(char *buf, double v, int decimals);

/* Ends the document (a newline) and reports: OP_OK, OP_INVALID_ARGUMENT (misuse or
 * unclosed containers, message in ctx) or OP_IO_ERROR (the stream failed). */
op_status op_json_finish(op_ctx *ctx, op_json *j);

#ifdef __cplusplus
}
#endif
#endif
