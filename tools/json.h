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
/* %.17g (round-trips binary64); non-finite values are written as null. */
void op_json_double(op_json *j, double v);
/* Fixed notation with 0..17 decimals (%.*f); non-finite as null. */
void op_json_double_fixed(op_json *j, double v, int decimals);
void op_json_bool(op_json *j, int v);
void op_json_null(op_json *j);
/* Key + value shorthands. */
void op_json_kv_string(op_json *j, const char *key, const char *v);
void op_json_kv_u64(op_json *j, const char *key, uint64_t v);
void op_json_kv_i64(op_json *j, const char *key, int64_t v);
void op_json_kv_double(op_json *j, const char *key, double v);
void op_json_kv_bool(op_json *j, const char *key, int v);
/* Ends the document (a newline) and reports: OP_OK, OP_INVALID_ARGUMENT (misuse or
 * unclosed containers, message in ctx) or OP_IO_ERROR (the stream failed). */
op_status op_json_finish(op_ctx *ctx, op_json *j);

#ifdef __cplusplus
}
#endif
#endif
