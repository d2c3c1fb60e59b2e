/* A small JSON reader for the tool's input files (RFC 8259): the whole text into a tree
 * of values, each with the line and column where it starts, so a caller can say where a
 * bad value is. Strict: no comments, no trailing commas, no duplicate keys, strings in
 * valid UTF-8 without control characters, numbers that binary64 can hold; nesting at most
 * OP_JREAD_MAX_DEPTH deep. Errors say "line L, column C: reason" (columns count bytes
 * from 1). */
#ifndef ONEPATH_TOOL_JSON_READ_H
#define ONEPATH_TOOL_JSON_READ_H

#include <stddef.h>

#define OP_JREAD_MAX_DEPTH 64

typedef enum op_jtype {
    OP_JNULL,
    OP_JBOOL,
    OP_JNUMBER,
    OP_JSTRING,
    OP_JARRAY,
    OP_JOBJECT
} op_jtype;

typedef struct op_jval {
    op_jtype type;
    int line, col;      /* where the value starts */
    int boolean;        /* OP_JBOOL */
    double number;      /* OP_JNUMBER */
    int integral;       /* OP_JNUMBER written without fraction or exponent */
    char *string;       /* OP_JSTRING, NUL-terminated (\u0000 is refused) */
    struct op_jval *items; /* OP_JARRAY items, OP_JOBJECT values */
    char **keys;        /* OP_JOBJECT keys, in file order */
    size_t count;
} op_jval;

/* Parses len bytes (a UTF-8 byte order mark is skipped). 0 and *out filled (free it
 * with op_jread_free), or -1 with the reason in err (out holds nothing). */
int op_jread_parse(const char *text, size_t len, op_jval *out, char *err, size_t err_len);
void op_jread_free(op_jval *v);
/* The value of key in an object, or NULL. */
const op_jval *op_jread_get(const op_jval *obj, const char *key);
const char *op_jread_type_name(op_jtype t);

#endif
