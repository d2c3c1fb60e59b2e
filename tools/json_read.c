/* The tool's JSON reader (json_read.h): a recursive descent over the bytes with a depth
 * limit, positions kept per value, every failure a message with line and column. */
#include "json_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p, *end;
    const char *line_start;
    int line;
    char *err;
    size_t err_len;
    int failed;
} parser;

static int col_of(const parser *ps, const char *at) { return (int)(at - ps->line_start) + 1; }

static int fail_at(parser *ps, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail_at(parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->err, ps->err_len, "line %d, column %d: %s", ps->line, col_of(ps, at), msg);
    return -1;
}

static void skip_space(parser *ps)
{
    while (ps->p < ps->end) {
        const char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ++ps->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ps->p++;
        } else {
            break;
        }
    }
}

static const char *describe(const parser *ps, char *buf, size_t n)
{
    if (ps->p >= ps->end)
        return "the end of the file";
    const unsigned char c = (unsigned char)*ps->p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

/* Growable buffer for strings. */
typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static int sb_put(sbuf *b, const char *data, size_t n)
{
    if (b->cap - b->n < n + 1) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap - b->n < n + 1)
            cap *= 2;
        char *q = realloc(b->s, cap);
        if (!q)
            return -1;
        b->s = q;
        b->cap = cap;
    }
    memcpy(b->s + b->n, data, n);
    b->n += n;
    b->s[b->n] = 0;
    return 0;
}

/* Length of a valid UTF-8 sequence at p (1..4), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    const unsigned c = p[0];
    int n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (end - p < n)
        return 0;
    unsigned cp = c & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static int put_utf8(sbuf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | cp >> 18);
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return sb_put(b, u, n);
}

static int hex4(parser *ps, const char *at, unsigned *out)
{
    if (ps->end - at < 4)
        return fail_at(ps, at, "\\u needs four hex digits");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        const char c = at[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail_at(ps, at + i, "\\u needs four hex digits");
    }
    *out = v;
    return 0;
}

/* A string at ps->p (the opening quote); *out is malloc'd. */
static int parse_string(parser *ps, char **out)
{
    const char *start = ps->p++;
    sbuf b = {NULL, 0, 0};
    if (sb_put(&b, "", 0))
        return fail_at(ps, start, "out of memory");
    for (;;) {
        if (ps->p >= ps->end) {
            free(b.s);
            return fail_at(ps, start, "string not closed");
        }
        const unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            *out = b.s;
            return 0;
        }
        if (c < 0x20) {
            free(b.s);
            return fail_at(ps, ps->p, "control character 0x%02x in a string (escape it)", c);
        }
        if (c == '\\') {
            const char *esc = ps->p;
            if (ps->end - ps->p < 2) {
                free(b.s);
                return fail_at(ps, esc, "string not closed");
            }
            const char e = ps->p[1];
            ps->p += 2;
            char ch = 0;
            switch (e) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                unsigned cp;
                if (hex4(ps, ps->p, &cp)) {
                    free(b.s);
                    return -1;
                }
                ps->p += 4;
                if (cp >= 0xdc00 && cp <= 0xdfff) {
                    free(b.s);
                    return fail_at(ps, esc, "lone low surrogate \\u%04x", cp);
                }
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
                        hex4(ps, ps->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                        free(b.s);
                        ps->failed = 0;
                        return fail_at(ps, esc, "high surrogate \\u%04x without its low half",
                                       cp);
                    }
                    ps->p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                if (cp == 0) {
                    free(b.s);
                    return fail_at(ps, esc, "\\u0000 is not allowed in a string");
                }
                if (put_utf8(&b, cp)) {
                    free(b.s);
                    return fail_at(ps, esc, "out of memory");
                }
                continue;
            }
            default:
                free(b.s);
                return fail_at(ps, esc, "unknown escape \\%c", e >= 0x20 && e < 0x7f ? e : '?');
            }
            if (sb_put(&b, &ch, 1)) {
                free(b.s);
                return fail_at(ps, esc, "out of memory");
            }
            continue;
        }
        const int n = utf8_len((const unsigned char *)ps->p, (const unsigned char *)ps->end);
        if (!n) {
            free(b.s);
            return fail_at(ps, ps->p, "invalid UTF-8 in a string");
        }
        if (sb_put(&b, ps->p, (size_t)n)) {
            free(b.s);
            return fail_at(ps, ps->p, "out of memory");
        }
        ps->p += n;
    }
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser *ps, op_jval *v)
{
    const char *s = ps->p, *q = s;
    if (q < ps->end && *q == '-')
        q++;
    if (q >= ps->end || !is_digit(*q))
        return fail_at(ps, s, "a number needs a digit here");
    if (*q == '0') {
        q++;
        if (q < ps->end && is_digit(*q))
            return fail_at(ps, s, "a number may not start with 0 followed by digits");
    } else {
        while (q < ps->end && is_digit(*q))
            q++;
    }
    v->integral = 1;
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || !is_digit(*q))
            return fail_at(ps, q, "a digit must follow the decimal point");
        while (q < ps->end && is_digit(*q))
            q++;
        v->integral = 0;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= ps->end || !is_digit(*q))
            return fail_at(ps, q, "an exponent needs digits");
        while (q < ps->end && is_digit(*q))
            q++;
        v->integral = 0;
    }
    const size_t n = (size_t)(q - s);
    char buf[64];
    if (n >= sizeof buf)
        return fail_at(ps, s, "number of %zu characters is too long", n);
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    v->number = strtod(buf, NULL); /* the C locale: the tool never calls setlocale */
    if (!isfinite(v->number))
        return fail_at(ps, s, "number %s is out of range", buf);
    ps->p = q;
    return 0;
}

static int literal(parser *ps, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail_at(ps, ps->p, "unexpected word (true, false or null?)");
    ps->p += n;
    return 0;
}

static int parse_value(parser *ps, op_jval *v, int depth);

static int grow(void **arr, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 0;
    const size_t ncap = *cap ? 2 * *cap : 8;
    void *q = realloc(*arr, ncap * size);
    if (!q)
        return -1;
    *arr = q;
    *cap = ncap;
    return 0;
}

static int parse_array(parser *ps, op_jval *v, int depth)
{
    const char *open = ps->p++;
    size_t cap = 0;
    v->type = OP_JARRAY;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (grow((void **)&v->items, &cap, v->count, sizeof *v->items))
            return fail_at(ps, open, "out of memory");
        op_jval *item = &v->items[v->count];
        memset(item, 0, sizeof *item);
        v->count++;
        if (parse_value(ps, item, depth + 1))
            return -1;
        skip_space(ps);
        char d[32];
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            skip_space(ps);
            if (ps->p < ps->end && *ps->p == ']')
                return fail_at(ps, ps->p, "trailing comma before ']'");
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return 0;
        }
        return fail_at(ps, ps->p, "expected ',' or ']' after an array item (the array opened at "
                                  "line %d), found %s",
                       v->line, describe(ps, d, sizeof d));
    }
}

static int parse_object(parser *ps, op_jval *v, int depth)
{
    const char *open = ps->p++;
    size_t cap = 0, kcap = 0;
    v->type = OP_JOBJECT;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        char d[32];
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            return fail_at(ps, ps->p, "expected a key in double quotes, found %s",
                           describe(ps, d, sizeof d));
        const char *kat = ps->p;
        if (grow((void **)&v->items, &cap, v->count, sizeof *v->items) ||
            grow((void **)&v->keys, &kcap, v->count, sizeof *v->keys))
            return fail_at(ps, open, "out of memory");
        op_jval *item = &v->items[v->count];
        memset(item, 0, sizeof *item);
        v->keys[v->count] = NULL;
        v->count++;
        if (parse_string(ps, &v->keys[v->count - 1]))
            return -1;
        for (size_t i = 0; i + 1 < v->count; i++)
            if (!strcmp(v->keys[i], v->keys[v->count - 1]))
                return fail_at(ps, kat, "key \"%s\" appears twice in this object", v->keys[i]);
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != ':')
            return fail_at(ps, ps->p, "expected ':' after the key, found %s",
                           describe(ps, d, sizeof d));
        ps->p++;
        if (parse_value(ps, item, depth + 1))
            return -1;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            skip_space(ps);
            if (ps->p < ps->end && *ps->p == '}')
                return fail_at(ps, ps->p, "trailing comma before '}'");
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return 0;
        }
        return fail_at(ps, ps->p, "expected ',' or '}' after a member (the object opened at "
                                  "line %d), found %s",
                       v->line, describe(ps, d, sizeof d));
    }
}

static int parse_value(parser *ps, op_jval *v, int depth)
{
    skip_space(ps);
    v->line = ps->line;
    v->col = col_of(ps, ps->p);
    if (depth > OP_JREAD_MAX_DEPTH)
        return fail_at(ps, ps->p, "nested deeper than %d levels", OP_JREAD_MAX_DEPTH);
    if (ps->p >= ps->end)
        return fail_at(ps, ps->p, "expected a value, found the end of the file");
    switch (*ps->p) {
    case '{': return parse_object(ps, v, depth);
    case '[': return parse_array(ps, v, depth);
    case '"':
        v->type = OP_JSTRING;
        return parse_string(ps, &v->string);
    case 't':
        v->type = OP_JBOOL;
        v->boolean = 1;
        return literal(ps, "true");
    case 'f':
        v->type = OP_JBOOL;
        return literal(ps, "false");
    case 'n':
        v->type = OP_JNULL;
        return literal(ps, "null");
    default:
        if (*ps->p == '-' || is_digit(*ps->p)) {
            v->type = OP_JNUMBER;
            return parse_number(ps, v);
        }
        {
            char d[32];
            return fail_at(ps, ps->p, "expected a value, found %s", describe(ps, d, sizeof d));
        }
    }
}

void op_jread_free(op_jval *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->items)
            op_jread_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof *v);
}

int op_jread_parse(const char *text, size_t len, op_jval *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    parser ps = {text, text + len, text, 1, err, err_len, 0};
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        ps.p = ps.line_start = text + 3;
    if (parse_value(&ps, out, 1) == 0) {
        skip_space(&ps);
        if (ps.p == ps.end)
            return 0;
        char d[32];
        fail_at(&ps, ps.p, "unexpected %s after the end of the value", describe(&ps, d, sizeof d));
    }
    op_jread_free(out);
    return -1;
}

const op_jval *op_jread_get(const op_jval *obj, const char *key)
{
    if (!obj || obj->type != OP_JOBJECT)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (obj->keys[i] && !strcmp(obj->keys[i], key))
            return &obj->items[i];
    return NULL;
}

const char *op_jread_type_name(op_jtype t)
{
    switch (t) {
    case OP_JNULL: return "null";
    case OP_JBOOL: return "a boolean";
    case OP_JNUMBER: return "a number";
    case OP_JSTRING: return "a string";
    case OP_JARRAY: return "an array";
    case OP_JOBJECT: return "an object";
    }
    return "?";
}
