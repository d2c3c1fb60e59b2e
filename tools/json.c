/* A tiny streaming JSON writer over FILE* (RFC 8259 output), used by the tool. */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void op_json_init(op_json *j, FILE *f, int indent)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->indent = indent < 0 ? 0 : indent > 16 ? 16 : indent;
}

static void newline(op_json *j)
{
    if (!j->indent)
        return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth * j->indent; i++)
        fputc(' ', j->f);
}

/* Separator and key bookkeeping before any value. */
static int before_value(op_json *j)
{
    if (j->error)
        return 0;
    if (j->depth == 0) {
        if (j->count[0]) {
            j->error = 1; /* one top-level value only */
            return 0;
        }
        j->count[0] = 1;
        return 1;
    }
    if (j->is_object[j->depth]) {
        if (!j->after_key) {
            j->error = 1;
            return 0;
        }
        j->after_key = 0;
        return 1;
    }
    if (j->count[j->depth])
        fputc(',', j->f);
    j->count[j->depth] = 1;
    newline(j);
    return 1;
}

static void put_escaped(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        const unsigned char c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            default: fprintf(f, "\\u%04x", c); break;
            }
            p++;
        } else if (c < 0x80) {
            fputc(c, f);
            p++;
        } else {
            /* Copy one well-formed UTF-8 sequence (no overlongs, no surrogates, <=
             * U+10FFFF); anything else becomes U+FFFD so the output stays valid JSON. */
            int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                  : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
            int ok = n > 0;
            for (int i = 1; ok && i < n; i++)
                ok = (p[i] & 0xc0) == 0x80; /* stops at the NUL, which is not 10xxxxxx */
            if (ok && n == 3)
                ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
            if (ok && n == 4)
                ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
            if (ok) {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            } else {
                fputs("\\ufffd", f);
                p++;
            }
        }
    }
    fputc('"', f);
}

static void open_container(op_json *j, int is_object)
{
    if (!before_value(j))
        return;
    if (j->depth + 1 >= OP_JSON_MAX_DEPTH) {
        j->error = 1;
        return;
    }
    fputc(is_object ? '{' : '[', j->f);
    j->depth++;
    j->count[j->depth] = 0;
    j->is_object[j->depth] = (uint8_t)is_object;
}

static void close_container(op_json *j, int is_object)
{
    if (j->error)
        return;
    if (j->depth == 0 || j->is_object[j->depth] != is_object || j->after_key) {
        j->error = 1;
        return;
    }
    const int had = j->count[j->depth];
    j->depth--;
    if (had)
        newline(j);
    fputc(is_object ? '}' : ']', j->f);
}

void op_json_begin_object(op_json *j) { open_container(j, 1); }
void op_json_end_object(op_json *j) { close_container(j, 1); }
void op_json_begin_array(op_json *j) { open_container(j, 0); }
void op_json_end_array(op_json *j) { close_container(j, 0); }

void op_json_key(op_json *j, const char *key)
{
    if (j->error)
        return;
    if (j->depth == 0 || !j->is_object[j->depth] || j->after_key || !key) {
        j->error = 1;
        return;
    }
    if (j->count[j->depth])
        fputc(',', j->f);
    j->count[j->depth] = 1;
    newline(j);
    put_escaped(j->f, key);
    fputs(j->indent ? ": " : ":", j->f);
    j->after_key = 1;
}

void op_json_string(op_json *j, const char *s)
{
    if (!s) {
        op_json_null(j);
        return;
    }
    if (before_value(j))
        put_escaped(j->f, s);
}

void op_json_u64(op_json *j, uint64_t v)
{
    if (before_value(j))
        fprintf(j->f, "%llu", (unsigned long long)v);
}

void op_json_i64(op_json *j, int64_t v)
{
    if (before_value(j))
        fprintf(j->f, "%lld", (long long)v);
}

/* Numbers: printf and strtod follow LC_NUMERIC (a decimal comma under de_DE), JSON wants
 * a point. Shortest texts are found in the current locale (printed and read back there, so
 * the round-trip test is consistent) and then written out digit by digit without it. */

/* The locale's decimal point replaced by '.' (fixed notation; %f never groups digits). */
static size_t to_c_locale(char *out, const char *tmp)
{
    const char *dp = localeconv()->decimal_point;
    const size_t dplen = dp && *dp ? strlen(dp) : 0;
    size_t n = 0;
    for (const char *p = tmp; *p && n + 1 < OP_JSON_NUMBER_MAX;) {
        if (dplen && !strncmp(p, dp, dplen)) {
            out[n++] = '.';
            p += dplen;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return n;
}

/* Writes the number whose %.*e text is e ("-d.ddde+XX", any decimal point): plain notation
 * for decimal exponents -4..15, else exponent notation (Python's repr rule): 10 not 1e+01,
 * 0.001, 1e-5, 1e30. */
static size_t compose(char *out, const char *e)
{
    char digits[24];
    int nd = 0, neg = 0;
    const char *p = e;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '0' && *p <= '9' && nd < (int)sizeof digits)
            digits[nd++] = *p;
    const int x = *p ? atoi(p + 1) : 0; /* the decimal exponent of the first digit */
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    /* At most 17 digits, a sign, a point and 4 leading or 15 trailing zeros, or
     * "e-324": always within OP_JSON_NUMBER_MAX. */
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    if (x < -4 || x > 15) {
        out[n++] = digits[0];
        if (nd > 1)
            out[n++] = '.';
        for (int i = 1; i < nd; i++)
            out[n++] = digits[i];
        n += (size_t)snprintf(out + n, OP_JSON_NUMBER_MAX - n, "e%d", x);
    } else if (x < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[n++] = '0';
        for (int i = 0; i < nd; i++)
            out[n++] = digits[i];
        out[n] = 0;
    } else {
        for (int i = 0; i < nd || i <= x; i++) {
            if (i == x + 1)
                out[n++] = '.';
            out[n++] = i < nd ? digits[i] : '0';
        }
        out[n] = 0;
    }
    return n;
}

size_t op_json_format_double(char *buf, double v)
{
    char tmp[64];
    buf[0] = 0;
    if (!isfinite(v))
        return 0;
    /* The fewest significant digits that read back to v; 17 always do. */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (prec == 17 || strtod(tmp, NULL) == v)
            break;
    }
    return compose(buf, tmp);
}

size_t op_json_format_float(char *buf, float v)
{
    char tmp[64];
    buf[0] = 0;
    if (!isfinite(v))
        return 0;
    /* strtof, not (float)strtod: rounding twice can miss the shortest text. 9 significant
     * digits always read back to the same binary32. */
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)v);
        if (prec == 9 || strtof(tmp, NULL) == v)
            break;
    }
    return compose(buf, tmp);
}

size_t op_json_format_fixed(char *buf, double v, int decimals)
{
    char tmp[64];
    buf[0] = 0;
    if (!isfinite(v))
        return 0;
    if (fabs(v) >= 1e17) /* fixed notation would run to hundreds of digits */
        return op_json_format_double(buf, v);
    if (decimals < 0)
        decimals = 0;
    if (decimals > 17)
        decimals = 17;
    snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
    return to_c_locale(buf, tmp);
}

static void put_number(op_json *j, const char *text, size_t len)
{
    if (!before_value(j))
        return;
    fputs(len ? text : "null", j->f);
}

void op_json_double(op_json *j, double v)
{
    char buf[OP_JSON_NUMBER_MAX];
    size_t n = op_json_format_double(buf, v);
    put_number(j, buf, n);
}

void op_json_float(op_json *j, float v)
{
    char buf[OP_JSON_NUMBER_MAX];
    size_t n = op_json_format_float(buf, v);
    put_number(j, buf, n);
}

void op_json_double_fixed(op_json *j, double v, int decimals)
{
    char buf[OP_JSON_NUMBER_MAX];
    size_t n = op_json_format_fixed(buf, v, decimals);
    put_number(j, buf, n);
}

void op_json_bool(op_json *j, int v)
{
    if (before_value(j))
        fputs(v ? "true" : "false", j->f);
}

void op_json_null(op_json *j)
{
    if (before_value(j))
        fputs("null", j->f);
}

void op_json_kv_string(op_json *j, const char *key, const char *v)
{
    op_json_key(j, key);
    op_json_string(j, v);
}
void op_json_kv_u64(op_json *j, const char *key, uint64_t v)
{
    op_json_key(j, key);
    op_json_u64(j, v);
}
void op_json_kv_i64(op_json *j, const char *key, int64_t v)
{
    op_json_key(j, key);
    op_json_i64(j, v);
}
void op_json_kv_double(op_json *j, const char *key, double v)
{
    op_json_key(j, key);
    op_json_double(j, v);
}
void op_json_kv_float(op_json *j, const char *key, float v)
{
    op_json_key(j, key);
    op_json_float(j, v);
}
void op_json_kv_bool(op_json *j, const char *key, int v)
{
    op_json_key(j, key);
    op_json_bool(j, v);
}

op_status op_json_finish(op_ctx *ctx, op_json *j)
{
    if (j->error)
        return op_fail(ctx, OP_INVALID_ARGUMENT,
                       "JSON writer misuse (value without key, unbalanced end or nesting > %d)",
                       OP_JSON_MAX_DEPTH - 1);
    if (j->depth != 0 || !j->count[0])
        return op_fail(ctx, OP_INVALID_ARGUMENT, "JSON document incomplete (%d open containers)",
                       j->depth);
    fputc('\n', j->f);
    if (fflush(j->f) != 0 || ferror(j->f))
        return op_fail(ctx, OP_IO_ERROR, "writing JSON failed");
    return OP_OK;
}
