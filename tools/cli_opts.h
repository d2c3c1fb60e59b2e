/* The command-line tool's option parser: every command describes its options as tables
 * (name, value kind, target field, help) and cli_parse does the rest: values, ranges,
 * file names, --help generated from the same tables.
 *
 * Adding an option: one line in a table, e.g.
 *     {"--cs", CLI_FLOAT, CLI_FIELD(s.config.cs), "F", .help = "cell size, world units",
 *      .lo = 1e-6, .hi = 1e6, .inputs = CLI_IN_SCENE},
 * (name, kind, field and metavar in order, the rest by name: -Wextra flags a table entry
 * that leaves fields out without naming any.)
 * Adding a command: a cli_command (name, synopsis, groups) and a line in onepath.c's
 * command table; its function calls cli_parse, then cli_args_check. */
#ifndef ONEPATH_CLI_OPTS_H
#define ONEPATH_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

typedef enum cli_kind {
    CLI_FLAG,   /* no value: stores .set (1 when 0) into an int */
    CLI_FILE,   /* a file name (const char *); refuses "" and values starting with "--" */
    CLI_INT,    /* int (int32) in [lo, hi] */
    CLI_UINT,   /* uint32_t in [lo, hi] */
    CLI_FLOAT,  /* float: a finite number in [lo, hi], rounded to binary32 */
    CLI_DOUBLE, /* double: a finite number in [lo, hi] */
    CLI_VEC3,   /* float[3] written x,y,z, each finite in [lo, hi] */
    CLI_ENUM,   /* one of .choices' names; stores its value into an int (or an enum) */
    CLI_CUSTOM  /* .parse converts and stores (repeatable lists, odd syntaxes) */
} cli_kind;

/* Which inputs an option applies to (cli_args_check refuses it with any other). */
enum {
    CLI_IN_DEMO = 1u << 0, /* --demo, --demo-terrain */
    CLI_IN_OBJ = 1u << 1,
    CLI_IN_PNG = 1u << 2,
    CLI_IN_R16 = 1u << 3,
    CLI_IN_CHF = 1u << 4 /* OPCHF1: starts after the spans stage */
};
#define CLI_IN_SCENE (CLI_IN_DEMO | CLI_IN_OBJ | CLI_IN_PNG | CLI_IN_R16) /* spans stage runs */
#define CLI_IN_HEIGHTMAP (CLI_IN_PNG | CLI_IN_R16)

/* Option flags. */
enum {
    CLI_POSITIONAL = 1u << 0, /* not an option: the (one) argument that does not start
                                 with '-'; name is what --help shows ("FILE") */
    CLI_ONCE = 1u << 1,       /* giving it twice is an error (else the last one wins) */
    CLI_EXT = 1u << 2         /* field is an offset into cli_args.ext, not cli_args */
};

typedef struct cli_choice {
    const char *name;
    int value;
} cli_choice;

struct cli_opt;
/* CLI_CUSTOM: converts value and stores it at field; 0, or EXIT_USAGE after printing a
 * message (cli_usage_error). */
typedef int (*cli_parse_fn)(const char *cmd, const struct cli_opt *o, const char *value,
                            void *field);

typedef struct cli_opt {
    const char *name;    /* "--cs"; NULL ends a table */
    cli_kind kind;
    size_t field;        /* CLI_FIELD(member) (or offsetof(ext struct, member) with CLI_EXT) */
    const char *metavar; /* the value in --help ("F", "N", "FILE"); NULL for flags; for
                            the positional argument the noun of messages ("input file") */
    const char *help;    /* one phrase; --help wraps it and adds choices and the default */
    double lo, hi;       /* range of CLI_INT, CLI_UINT, CLI_FLOAT, CLI_DOUBLE, CLI_VEC3 */
    const char *alias;   /* a second spelling ("-q") */
    int set;             /* CLI_FLAG: the value stored (0 means 1) */
    const cli_choice *choices; /* CLI_ENUM: {NULL, 0}-terminated */
    cli_parse_fn parse;  /* CLI_CUSTOM */
    unsigned inputs;     /* CLI_IN_* it applies to; 0 = every input */
    unsigned flags;      /* CLI_POSITIONAL, CLI_ONCE, CLI_EXT */
    const char *deflt;   /* --help's default: NULL = printed from the defaults, "" = none */
} cli_opt;

#define CLI_FIELD(member) offsetof(cli_args, member)
/* Ends a table. */
#define CLI_END {.name = NULL}

/* A titled table of options; title NULL continues the previous heading in --help. */
typedef struct cli_group {
    const char *title;
    const cli_opt *opts;
} cli_group;

typedef struct cli_command {
    const char *name;     /* "bake" */
    const char *synopsis; /* after "usage: onepath bake " */
    const char *about;    /* paragraph under the usage line, or NULL */
    const cli_group *const *groups; /* NULL-terminated */
    const char *footer;   /* last lines (exit codes), or NULL */
} cli_command;

/* cli_parse's "go on" result (else it returns an exit code). */
#define CLI_CONTINUE (-1)

struct cli_args;
/* Parses argv[1 .. argc-1] into a, which holds the defaults (--help prints them from it).
 * "--opt value" and "--opt=value"; "--" ends the options. Records each option given
 * (cli_given). Returns CLI_CONTINUE, EXIT_OK after --help/-h (printed on stdout), or
 * EXIT_USAGE after a usage error (printed on stderr). */
int cli_parse(const cli_command *cmd, int argc, char **argv, struct cli_args *a);
/* The option given on the command line under this name (or alias), or NULL. */
const cli_opt *cli_given(const struct cli_args *a, const char *name);
void cli_help(const cli_command *cmd, const struct cli_args *defaults, FILE *f);

#endif
