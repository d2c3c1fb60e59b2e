/* The onepath command-line tool: shared pieces. */
#ifndef ONEPATH_CLI_H
#define ONEPATH_CLI_H

#include "onepath/onepath.h"
#include "onepath/bake.h"
#include "image.h"
#include "json.h"
#include "svg.h"

#include <stdio.h>

/* Exit codes (documented in --help). */
enum {
    EXIT_OK = 0,
    EXIT_VERIFY_FAILED = 1, /* verify found a difference or a broken invariant */
    EXIT_USAGE = 2,         /* bad command line or setting */
    EXIT_BAD_INPUT = 3,     /* a malformed, unreadable or unsupported input file */
    EXIT_INTERNAL = 4       /* out of memory or an internal failure */
};

int cli_exit_code(op_status st);
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cli_fail(const char *cmd, op_ctx *ctx, op_status st);

/* Number parsing with range checks: 0 on success, else prints a usage error. */
int cli_parse_u32(const char *cmd, const char *opt, const char *s, uint32_t lo, uint32_t hi,
                  uint32_t *out);
int cli_parse_i32(const char *cmd, const char *opt, const char *s, int32_t lo, int32_t hi,
                  int32_t *out);
int cli_parse_float(const char *cmd, const char *opt, const char *s, double lo, double hi,
                    float *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi,
                     double *out);
int cli_parse_vec3(const char *cmd, const char *opt, const char *s, float out[3]);

/* Where the field comes from. */
typedef struct cli_input {
    int demo;              /* 1 = demo world, 2 = terrain-only demo world */
    uint32_t demo_size;
    const char *path;      /* .obj, .png, .r16, or (chf) .opchf */
    int is_chf;
    uint32_t r16_width;
    op_heightmap_opts hm;
} cli_input;

void cli_input_defaults(cli_input *in);
/* Consumes input options at argv[*i]; returns 1 if consumed, 0 if not an input option,
 * -1 on a usage error (printed). */
int cli_input_option(const char *cmd, cli_input *in, int argc, char **argv, int *i);
int cli_input_check(const char *cmd, const cli_input *in);
const char *cli_input_describe(const cli_input *in, char *buf, size_t n);

/* Loads the scene (mesh + volumes) for non-chf inputs; for the demo also overrides the
 * config's bounds (op_demo_world fills them). cfg_user_bounds: keep user-given bounds. */
op_status cli_load_scene(op_ctx *ctx, const cli_input *in, op_scene *scene, op_config *cfg);

/* Runs the bake for an input: scene or chf path. */
op_status cli_bake(op_ctx *ctx, const cli_input *in, const op_bake_settings *s,
                   op_bake_result *r);

/* Progress line on stderr when it is a terminal (and not --quiet). */
void cli_progress_install(op_ctx *ctx, int enabled);
void cli_progress_done(void);

/* Pictures: regions (and contours when present) seen from above. */
op_status cli_write_png(op_ctx *ctx, const op_bake_result *r, const char *path, int scale);
op_status cli_write_svg(op_ctx *ctx, const op_bake_result *r, const char *path);

/* Settings and --isa options shared by bake, verify and digest: 1 consumed, 0 not
 * theirs, -1 usage error (printed). */
int cli_settings_option(const char *cmd, op_bake_settings *s, int argc, char **argv, int *i);
int cli_isa_option(const char *cmd, op_isa *isa, int argc, char **argv, int *i);

int cmd_bake(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_isa(int argc, char **argv);
int cmd_digest(int argc, char **argv);

#endif
