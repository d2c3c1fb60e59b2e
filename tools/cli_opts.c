/* The table-driven option parser and the --help it generates (cli_opts.h). */
#include "cli.h"

#include <string.h>

_Static_assert(sizeof(op_partition) == sizeof(int) && sizeof(op_stage) == sizeof(int) &&
                   sizeof(op_isa) == sizeof(int),
               "CLI_ENUM stores enums through an int");

static void *field_of(cli_args *a, const cli_opt *o)
{
    char *base = (o->flags & CLI_EXT) ? (char *)a->ext : (char *)a;
    return base + o->field;
}

static const void *cfield_of(const cli_args *a, const cli_opt *o)
{
    const char *base = (o->flags & CLI_EXT) ? (const char *)a->ext : (const char *)a;
    return base ? base + o->field : NULL;
}

static const cli_opt *find(const cli_command *cmd, const char *name, size_t len,
                           int positional)
{
    for (const cli_group *const *g = cmd->groups; *g; g++)
        for (const cli_opt *o = (*g)->opts; o->name; o++) {
            if (positional) {
                if (o->flags & CLI_POSITIONAL)
                    return o;
                continue;
            }
            if (o->flags & CLI_POSITIONAL)
                continue;
            if ((strlen(o->name) == len && !strncmp(o->name, name, len)) ||
                (o->alias && strlen(o->alias) == len && !strncmp(o->alias, name, len)))
                return o;
        }
    return NULL;
}

const cli_opt *cli_given(const cli_args *a, const char *name)
{
    for (int i = 0; i < a->ngiven; i++) {
        const cli_opt *o = a->given[i];
        if (!strcmp(o->name, name) || (o->alias && !strcmp(o->alias, name)))
            return o;
    }
    return NULL;
}

/* Records o; 1 when it was given before. */
static int note_given(cli_args *a, const cli_opt *o)
{
    for (int i = 0; i < a->ngiven; i++)
        if (a->given[i] == o)
            return 1;
    if (a->ngiven < CLI_MAX_GIVEN) /* the tables hold fewer distinct options than this */
        a->given[a->ngiven++] = o;
    return 0;
}

static int parse_enum(const char *cmd, const cli_opt *o, const char *v, int *out)
{
    for (const cli_choice *c = o->choices; c->name; c++)
        if (!strcmp(c->name, v)) {
            *out = c->value;
            return 0;
        }
    char list[512] = "";
    size_t n = 0;
    for (const cli_choice *c = o->choices; c->name && n < sizeof list; c++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", c == o->choices ? "" : ", ",
                              c->name);
    return cli_usage_error(cmd, "%s must be one of %s (got '%s')", o->name, list, v);
}

static int parse_vec3(const char *cmd, const cli_opt *o, const char *s, float out[3])
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return cli_usage_error(cmd, "%s needs x,y,z (got a %zu-character value)", o->name,
                               strlen(s));
    strcpy(buf, s);
    float v[3];
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < 3; i++) {
        if (!tok)
            return cli_usage_error(cmd, "%s needs three comma-separated numbers x,y,z (got '%s')",
                                   o->name, s);
        if (cli_parse_float(cmd, o->name, tok, o->lo, o->hi, &v[i]))
            return EXIT_USAGE;
        tok = strtok_r(NULL, ",", &save);
    }
    if (tok)
        return cli_usage_error(cmd, "%s needs exactly three numbers x,y,z (got '%s')", o->name, s);
    memcpy(out, v, sizeof v);
    return 0;
}

/* Converts v for o and stores it; 0 or EXIT_USAGE (printed). literal: v came after "--",
 * so it is no option whatever it looks like. */
static int store(const char *cmd, const cli_opt *o, const char *v, void *field, int literal)
{
    const char *name = (o->flags & CLI_POSITIONAL) ? o->metavar : o->name;
    switch (o->kind) {
    case CLI_FLAG:
        *(int *)field = o->set ? o->set : 1;
        return 0;
    case CLI_FILE:
        if (!*v)
            return cli_usage_error(cmd, "%s needs a file name (got an empty one)", name);
        /* "--json --quiet" would otherwise write a file named --quiet. */
        if (!literal && !strncmp(v, "--", 2))
            return cli_usage_error(cmd,
                                   "%s needs a file name, got '%s', which looks like an option "
                                   "(for a file of that name write ./%s)",
                                   name, v, v);
        *(const char **)field = v;
        return 0;
    case CLI_INT:
        return cli_parse_i32(cmd, name, v, (int32_t)o->lo, (int32_t)o->hi, (int32_t *)field);
    case CLI_UINT:
        return cli_parse_u32(cmd, name, v, (uint32_t)o->lo, (uint32_t)o->hi, (uint32_t *)field);
    case CLI_FLOAT:
        return cli_parse_float(cmd, name, v, o->lo, o->hi, (float *)field);
    case CLI_DOUBLE:
        return cli_parse_double(cmd, name, v, o->lo, o->hi, (double *)field);
    case CLI_VEC3:
        return parse_vec3(cmd, o, v, (float *)field);
    case CLI_ENUM:
        return parse_enum(cmd, o, v, (int *)field);
    case CLI_CUSTOM:
        return o->parse(cmd, o, v, field);
    }
    return cli_usage_error(cmd, "%s: option table entry has an unknown kind", name);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a)
{
    const char *c = cmd->name;
    /* --help wins wherever it is (and shows the defaults a still holds). */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (is_help(argv[i])) {
            cli_help(cmd, a, stdout);
            return EXIT_OK;
        }
    a->ngiven = 0;
    int options_end = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const cli_opt *o;
        const char *value = NULL;
        if (!options_end && !strcmp(arg, "--")) {
            options_end = 1;
            continue;
        }
        if (options_end || arg[0] != '-' || !arg[1]) {
            o = find(cmd, NULL, 0, 1);
            if (!o)
                return cli_usage_error(c, "unexpected argument '%s'", arg);
            if (note_given(a, o) && (o->flags & CLI_ONCE)) {
                if (o->kind == CLI_FILE)
                    return cli_usage_error(c, "more than one %s ('%s' and '%s')", o->metavar,
                                           *(const char *const *)cfield_of(a, o), arg);
                return cli_usage_error(c, "more than one %s ('%s' is extra)", o->metavar, arg);
            }
            if (store(c, o, arg, field_of(a, o), options_end))
                return EXIT_USAGE;
            continue;
        }
        const char *eq = strncmp(arg, "--", 2) ? NULL : strchr(arg, '=');
        o = find(cmd, arg, eq ? (size_t)(eq - arg) : strlen(arg), 0);
        if (!o)
            return cli_usage_error(c, "unknown option '%.*s'",
                                   (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
        if (o->kind == CLI_FLAG) {
            if (eq)
                return cli_usage_error(c, "%s takes no value (got '%s')", o->name, eq + 1);
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return cli_usage_error(c, "%s needs a value (%s)", o->name,
                                   o->metavar ? o->metavar : "see --help");
        }
        if (note_given(a, o) && (o->flags & CLI_ONCE))
            return cli_usage_error(c, "%s is given more than once", o->name);
        if (store(c, o, value, field_of(a, o), 0))
            return EXIT_USAGE;
    }
    return CLI_CONTINUE;
}

/* --help ------------------------------------------------------------------------------ */

enum { HELP_WIDTH = 80, HELP_COLUMN = 25 };

/* Writes text from column col, wrapped at word boundaries, continuation lines at indent. */
static void wrap(FILE *f, int col, int indent, const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (col > indent && col + 1 + (int)w > HELP_WIDTH - 1) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, w, f);
        col += (int)w;
        p += w;
    }
    fputc('\n', f);
}

static void default_text(const cli_opt *o, const cli_args *d, char *buf, size_t n)
{
    buf[0] = 0;
    if (o->deflt) {
        snprintf(buf, n, "%s", o->deflt);
        return;
    }
    const void *f = cfield_of(d, o);
    if (!f)
        return;
    char num[OP_JSON_NUMBER_MAX];
    switch (o->kind) {
    case CLI_INT: snprintf(buf, n, "%d", *(const int32_t *)f); break;
    case CLI_UINT: snprintf(buf, n, "%u", *(const uint32_t *)f); break;
    case CLI_FLOAT:
        op_json_format_float(num, *(const float *)f);
        snprintf(buf, n, "%s", num);
        break;
    case CLI_DOUBLE:
        op_json_format_double(num, *(const double *)f);
        snprintf(buf, n, "%s", num);
        break;
    case CLI_ENUM:
        for (const cli_choice *c = o->choices; c->name; c++)
            if (c->value == *(const int *)f) {
                snprintf(buf, n, "%s", c->name);
                break;
            }
        break;
    default: break; /* flags, files, vectors, custom: only what .deflt says */
    }
}

static void help_option(FILE *f, const cli_opt *o, const cli_args *d)
{
    char left[128], text[1024], def[256];
    if ((o->flags & CLI_POSITIONAL) || !o->metavar)
        snprintf(left, sizeof left, "%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "",
                 o->name);
    else
        snprintf(left, sizeof left, "%s %s", o->name, o->metavar);
    size_t n = (size_t)snprintf(text, sizeof text, "%s", o->help ? o->help : "");
    if (o->kind == CLI_ENUM && n < sizeof text) {
        for (const cli_choice *c = o->choices; c->name && n < sizeof text; c++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%s",
                                  c == o->choices ? (n ? ": " : "") : "|", c->name);
    }
    default_text(o, d, def, sizeof def);
    if (def[0] && n < sizeof text)
        snprintf(text + n, sizeof text - n, " (default: %s)", def);
    int col = fprintf(f, "  %s", left);
    if (col >= HELP_COLUMN - 1) {
        fprintf(f, "\n%*s", HELP_COLUMN, "");
    } else {
        fprintf(f, "%*s", HELP_COLUMN - col, "");
    }
    wrap(f, HELP_COLUMN, HELP_COLUMN, text);
}

void cli_help(const cli_command *cmd, const cli_args *d, FILE *f)
{
    fprintf(f, "usage: onepath %s %s\n", cmd->name, cmd->synopsis);
    if (cmd->about) {
        fputc('\n', f);
        /* Paragraphs: '\n' in about starts a new line. */
        const char *p = cmd->about;
        while (*p) {
            size_t len = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            wrap(f, 0, 0, line);
            p += len;
            if (*p)
                p++;
        }
    }
    for (const cli_group *const *g = cmd->groups; *g; g++) {
        if ((*g)->title)
            fprintf(f, "\n%s:\n", (*g)->title);
        for (const cli_opt *o = (*g)->opts; o->name; o++)
            help_option(f, o, d);
    }
    fprintf(f, "  -h, --help%*s", HELP_COLUMN - 12, ""); /* 12: the width of "  -h, --help" */
    wrap(f, HELP_COLUMN, HELP_COLUMN, "this text");
    if (cmd->footer) {
        fputc('\n', f);
        wrap(f, 0, 0, cmd->footer);
    }
}
