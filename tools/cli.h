/* The onepath command-line tool: shared pieces. */
#ifndef ONEPATH_CLI_H
#define ONEPATH_CLI_H

#include "onepath/onepath.h"
#include "onepath/bake.h"
#include "image.h"
#include "json.h"
#include "svg.h"
#include "cli_opts.h"

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

/* Number parsing with range checks (the C locale: the tool never calls setlocale): 0 on
 * success, else prints a usage error. */
int cli_parse_u32(const char *cmd, const char *opt, const char *s, uint32_t lo, uint32_t hi,
                  uint32_t *out);
int cli_parse_i32(const char *cmd, const char *opt, const char *s, int32_t lo, int32_t hi,
                  int32_t *out);
int cli_parse_float(const char *cmd, const char *opt, const char *s, double lo, double hi,
                    float *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi,
                     double *out);

/* Where the field comes from. */
typedef struct cli_input {
    int demo;              /* 1 = demo world, 2 = terrain-only demo world */
    uint32_t demo_size;
    const char *path;      /* .obj, .png, .r16, or (chf) .opchf */
    const char *chf_path;  /* --chf FILE (cli_args_check moves it to path) */
    int is_chf;
    uint32_t r16_width;
    op_heightmap_opts hm;
    const char *out_obj;   /* bake --out-obj: cli_bake writes the loaded mesh there */
} cli_input;

void cli_input_defaults(cli_input *in);
const char *cli_input_describe(const cli_input *in, char *buf, size_t n);
/* CLI_IN_* of a checked input. */
unsigned cli_input_kind(const cli_input *in);

#define CLI_MAX_GIVEN 128

/* Everything the commands' options set (one struct, so that shared option tables have one
 * target). A command with fields of its own points ext at them (options flagged CLI_EXT). */
typedef struct cli_args {
    cli_input in;
    op_bake_settings s;
    op_isa isa;                   /* --isa of bake and digest */
    struct cli_isa_list {         /* --isa of verify, repeatable */
        op_isa v[OP_ISA_COUNT];
        int n;
    } isas;
    int quiet;
    const char *json, *out_chf, *out_dist, *out_regions, *out_contours, *png, *svg;
    int raw;
    uint32_t png_scale;
    /* Tiled bakes (supplement §2): --threads, --out FILE.opbake, --with-regions. The
     * tile size and border are s.config.tile_size / border_size. */
    int threads;
    const char *out;
    int with_regions;
    /* Shards and distributed bakes (issue 14): --tiles RANGE, --mpi, --gather-mib. */
    const char *tiles_range;
    int mpi;
    uint32_t gather_mib;
    /* The tile cache (issue 13): bake --out-cache FILE with zstd level cache_level. */
    const char *out_cache;
    int cache_level;
    void *ext;
    /* Filled by cli_parse: the distinct options given, in order. */
    const cli_opt *given[CLI_MAX_GIVEN];
    int ngiven;
} cli_args;

/* Defaults of every field (bake settings: op_bake_settings_defaults). */
void cli_args_defaults(cli_args *a);
/* After cli_parse: one input, options that apply to it (a spans-stage setting with an
 * OPCHF1 field is an error), --bmin with --bmax. 0, or EXIT_USAGE (printed). */
int cli_args_check(const char *cmd, cli_args *a);

/* Option tables shared by bake, verify and digest (cli_options.c). */
extern const cli_group cli_group_input, cli_group_spans, cli_group_regions,
    cli_group_contours, cli_group_run;
extern const cli_choice cli_isa_choices[], cli_stage_choices[];
/* --until of bake and digest (verify always goes through contours). */
#define CLI_OPT_UNTIL                                                                      \
    {"--until", CLI_ENUM, CLI_FIELD(s.until), "S", .choices = cli_stage_choices,           \
     .help = "stop after"}
/* --isa of bake and digest (verify's is repeatable: its own entry). */
#define CLI_OPT_ISA                                                                        \
    {"--isa", CLI_ENUM, CLI_FIELD(isa), "V",                                               \
     .help = "kernel variant (auto: the best this CPU runs, narrowed by ONEPATH_ISA; an "  \
             "unknown or unavailable name there is an error too)",                        \
     .choices = cli_isa_choices}

/* ONEPATH_ISA when isa is AUTO: an unknown or unavailable value is a usage error (it would
 * be ignored by the library, and a run that silently uses another variant than asked is
 * worse than none). 0 or EXIT_USAGE (printed). */
int cli_check_isa_env(const char *cmd, op_isa isa);
/* op_ctx_init with cli_check_isa_env first. EXIT_OK: ready (op_ctx_free it later); else
 * the exit code, the message printed and nothing to free. */
int cli_ctx_init(const char *cmd, op_ctx *ctx, op_isa isa);

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

/* Tile options of bake and verify (--tile-size, --border, --threads; cli_options.c). */
extern const cli_group cli_group_tiles;

/* bake with --tile-size > 0 (cmd_bake_tiled.c): after cli_args_check. */
int cli_bake_tiled(cli_args *a);
/* bake's --tiles and --mpi options (cmd_bake_shard.c), and bake --mpi (tools/mpi/, or a
 * usage error in a build without MPI). */
extern const cli_group cli_group_distributed;
int cli_bake_mpi(cli_args *a);
/* Peak resident memory of this process so far [MiB], 0 when unknown. */
double cli_peak_rss_mb(void);

int cmd_bake(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_isa(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
