/* Wavefront OBJ input (supplement §1.2): `v` and `f` only, polygons fan-triangulated,
 * 1-based and negative indices, every other statement ignored; a malformed file is
 * rejected with file, line and reason. The text is not NUL-terminated: every access is
 * bounded by the line's end. */
#include "onepath/obj.h"
#include "onepath/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct obj_line {
    const char *p, *end; /* cursor and end of the current line (no '\n', no '\r') */
} obj_line;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

static void skip_blank(obj_line *l)
{
    while (l->p < l->end && is_blank(*l->p))
        l->p++;
}

/* Next whitespace-separated token: [*tok, *tok + *n); 0 at the end of the line. */
static int next_token(obj_line *l, const char **tok, size_t *n)
{
    skip_blank(l);
    if (l->p >= l->end)
        return 0;
    const char *s = l->p;
    while (l->p < l->end && !is_blank(*l->p))
        l->p++;
    *tok = s;
    *n = (size_t)(l->p - s);
    return 1;
}

static int tok_is(const char *t, size_t n, const char *word)
{
    size_t m = strlen(word);
    return n == m && memcmp(t, word, m) == 0;
}

/* Statements of the OBJ format that onepath reads past (supplement §1.2: "other
 * statements ignored"); anything else is garbage. */
static int known_ignored(const char *t, size_t n)
{
    static const char *const words[] = {
        "vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib", "l", "p", "cstype", "deg",
        "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv", "sp",
        "end", "con", "mg", "bevel", "c_interp", "d_interp", "lod", "shadow_obj",
        "trace_obj", "ctech", "stech", "maplib", "usemap", "call", "csh", "lr"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (tok_is(t, n, words[i]))
            return 1;
    return 0;
}

/* supplement §1.2: "other statements ignored" — any keyword made of letters, digits and
 * '_' is a statement this loader skips; anything else (a number, punctuation) starting a
 * line is garbage. */
static int statement_keyword(const char *t, size_t n)
{
    if (n == 0 || !((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z') || t[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char c = t[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

static void show_token(char out[24], const char *t, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < 19; i++)
        out[k++] = (t[i] >= 0x20 && t[i] < 0x7f) ? t[i] : '?';
    if (n > 19) {
        out[k++] = '.';
        out[k++] = '.';
        out[k++] = '.';
    }
    out[k] = 0;
}

/* strtof on a bounded, NUL-terminated copy of the token (locale "C" assumed).
 * Returns 0 ok, 1 not a number, 2 non-finite, 3 too long. */
static int parse_float(const char *t, size_t n, float *out)
{
    char buf[64];
    if (n >= sizeof buf)
        return 3;
    memcpy(buf, t, n);
    buf[n] = 0;
    char *e = NULL;
    float v = strtof(buf, &e);
    if (e != buf + n || n == 0)
        return 1;
    if (!isfinite(v))
        return 2;
    *out = v;
    return 0;
}

/* Optional sign and 1..18 decimal digits at [*p, end); advances *p. */
static int parse_int(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    int neg = 0;
    if (s < end && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++;
    }
    const char *d0 = s;
    int64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (s - d0 >= 18)
            return 0;
        v = v * 10 + (*s - '0');
        s++;
    }
    if (s == d0)
        return 0;
    *p = s;
    *out = neg ? -v : v;
    return 1;
}

/* One face vertex `i`, `i/t`, `i//n` or `i/t/n`; t and n are checked for syntax only
 * (texture and normal data are not read). Returns 1 and the raw index i. */
static int parse_face_ref(const char *t, size_t n, int64_t *idx)
{
    const char *p = t, *end = t + n;
    int64_t dummy;
    if (!parse_int(&p, end, idx))
        return 0;
    if (p == end)
        return 1;
    if (*p++ != '/' || p == end)
        return 0; /* `i/` is truncated */
    if (*p != '/' && !parse_int(&p, end, &dummy))
        return 0;
    if (p == end)
        return 1; /* i/t */
    if (*p++ != '/')
        return 0;
    if (!parse_int(&p, end, &dummy))
        return 0; /* i/t/ or i// with nothing after: truncated */
    return p == end;
}

#define OBJ_FAIL(...) do { st = op_fail(ctx, OP_BAD_INPUT, __VA_ARGS__); goto fail; } while (0)

op_status op_parse_obj(op_ctx *ctx, const char *text, size_t len, const char *name,
                       op_mesh *out)
{
    op_mesh_init(out);
    if (!name)
        name = "<memory>";
    if (!text && len)
        return op_fail(ctx, OP_INVALID_ARGUMENT, "%s: no text", name);
    op_status st = OP_OK;
    size_t pos = 0;
    uint64_t line_no = 0;
    char shown[24];
    while (pos < len) {
        line_no++;
        const char *ls = text + pos;
        const char *nl = memchr(ls, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - ls) : len - pos;
        pos += ll + (nl ? 1 : 0);
        if (ll && ls[ll - 1] == '\r')
            ll--; /* CRLF */
        obj_line l = {ls, ls + ll};
        for (const char *c = ls; c < l.end; c++) {
            unsigned char u = (unsigned char)*c;
            if ((u < 0x20 && !is_blank(*c)) || u == 0x7f)
                OBJ_FAIL("%s:%llu: garbage: control byte 0x%02x", name,
                         (unsigned long long)line_no, u);
        }
        const char *tok;
        size_t tn;
        if (!next_token(&l, &tok, &tn) || tok[0] == '#')
            continue;
        if (tok_is(tok, tn, "v")) {
            float xyz[3];
            for (int i = 0; i < 3; i++) {
                if (!next_token(&l, &tok, &tn) || tok[0] == '#')
                    OBJ_FAIL("%s:%llu: truncated vertex: %d of 3 coordinates", name,
                             (unsigned long long)line_no, i);
                int r = parse_float(tok, tn, &xyz[i]);
                show_token(shown, tok, tn);
                if (r == 2)
                    OBJ_FAIL("%s:%llu: non-finite coordinate '%s'", name,
                             (unsigned long long)line_no, shown);
                if (r)
                    OBJ_FAIL("%s:%llu: coordinate '%s' is not a number", name,
                             (unsigned long long)line_no, shown);
            }
            /* Extra components (w, vertex colours) are allowed but must be numbers. */
            while (next_token(&l, &tok, &tn) && tok[0] != '#') {
                float extra;
                if (parse_float(tok, tn, &extra) == 1 || tn >= 64) {
                    show_token(shown, tok, tn);
                    OBJ_FAIL("%s:%llu: vertex component '%s' is not a number", name,
                             (unsigned long long)line_no, shown);
                }
            }
            st = op_mesh_add_vertex(ctx, out, xyz[0], xyz[1], xyz[2]);
            if (st != OP_OK) {
                if (st == OP_INVALID_ARGUMENT)
                    st = OP_BAD_INPUT;
                op_fail(ctx, st, "%s:%llu: %s", name, (unsigned long long)line_no,
                        st == OP_NO_MEMORY ? "out of memory" : "too many vertices");
                goto fail;
            }
        } else if (tok_is(tok, tn, "f")) {
            uint32_t first = 0, prev = 0, count = 0;
            while (next_token(&l, &tok, &tn) && tok[0] != '#') {
                int64_t raw;
                show_token(shown, tok, tn);
                if (!parse_face_ref(tok, tn, &raw))
                    OBJ_FAIL("%s:%llu: bad face vertex '%s'", name, (unsigned long long)line_no,
                             shown);
                if (raw == 0)
                    OBJ_FAIL("%s:%llu: vertex index 0 (indices start at 1)", name,
                             (unsigned long long)line_no);
                /* Positive: 1-based; negative: relative to the vertices read so far. */
                int64_t v = raw > 0 ? raw - 1 : (int64_t)out->vert_count + raw;
                if (v < 0 || v >= (int64_t)out->vert_count)
                    OBJ_FAIL("%s:%llu: vertex index %lld out of range (%u vertices so far)", name,
                             (unsigned long long)line_no, (long long)raw, out->vert_count);
                uint32_t vi = (uint32_t)v;
                if (count == 0)
                    first = vi;
                else if (count >= 2) {
                    st = op_mesh_add_triangle(ctx, out, first, prev, vi);
                    if (st != OP_OK) {
                        if (st == OP_INVALID_ARGUMENT)
                            st = OP_BAD_INPUT;
                        op_fail(ctx, st, "%s:%llu: %s", name, (unsigned long long)line_no,
                                st == OP_NO_MEMORY ? "out of memory" : "too many triangles");
                        goto fail;
                    }
                }
                prev = vi;
                if (count < 3)
                    count++;
            }
            if (count < 3)
                OBJ_FAIL("%s:%llu: face with %u vertices (needs at least 3)", name,
                         (unsigned long long)line_no, count);
        } else if (!known_ignored(tok, tn) && !statement_keyword(tok, tn)) {
            show_token(shown, tok, tn);
            OBJ_FAIL("%s:%llu: garbage: unknown statement '%s'", name,
                     (unsigned long long)line_no, shown);
        }
    }
    return OP_OK;
fail:
    op_mesh_free(out);
    return st;
}

op_status op_load_obj(op_ctx *ctx, const char *path, op_mesh *out)
{
    op_mesh_init(out);
    unsigned char *buf;
    size_t len;
    op_status st = op_read_file(ctx, path, &buf, &len);
    if (st != OP_OK)
        return st;
    st = op_parse_obj(ctx, (const char *)buf, len, path, out);
    op_free(ctx, buf);
    return st;
}
