/* Shared command-line pieces: exit codes, number parsing, progress line. */
#include "cli.h"
#include "memcount.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_exit_code(op_status st)
{
    switch (st) {
    case OP_OK: return EXIT_OK;
    case OP_INVALID_ARGUMENT: return EXIT_USAGE;
    case OP_BAD_INPUT:
    case OP_IO_ERROR:
    case OP_UNSUPPORTED: return EXIT_BAD_INPUT;
    case OP_NO_MEMORY:
    case OP_INTERNAL: return EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "onepath %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'onepath %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_fail(const char *cmd, op_ctx *ctx, op_status st)
{
    cli_progress_done();
    fprintf(stderr, "onepath %s: %s: %s\n", cmd, op_status_name(st),
            ctx->err[0] ? ctx->err : "(no detail)");
    return cli_exit_code(st);
}

int cli_parse_u32(const char *cmd, const char *opt, const char *s, uint32_t lo, uint32_t hi,
                  uint32_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return cli_usage_error(cmd, "%s needs a non-negative integer (got '%s')", opt, s ? s : "");
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return cli_usage_error(cmd, "%s must be an integer in [%u, %u] (got '%s')", opt, lo, hi, s);
    *out = (uint32_t)v;
    return 0;
}

int cli_parse_i32(const char *cmd, const char *opt, const char *s, int32_t lo, int32_t hi,
                  int32_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return cli_usage_error(cmd, "%s needs an integer", opt);
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return cli_usage_error(cmd, "%s must be an integer in [%d, %d] (got '%s')", opt, lo, hi, s);
    *out = (int32_t)v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi,
                     double *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return cli_usage_error(cmd, "%s needs a number", opt);
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return cli_usage_error(cmd, "%s must be a finite number in [%g, %g] (got '%s')", opt, lo,
                               hi, s);
    *out = v;
    return 0;
}

int cli_parse_float(const char *cmd, const char *opt, const char *s, double lo, double hi,
                    float *out)
{
    double v;
    int rc = cli_parse_double(cmd, opt, s, lo, hi, &v);
    if (rc == 0)
        *out = (float)v;
    return rc;
}

/* Progress: one line on stderr, rewritten in place, only on a terminal. */
static int progress_active;
static double progress_last;

static void progress_cb(void *user, const char *stage, double fraction)
{
    (void)user;
    double now = op_now_ms();
    if (fraction < 1.0 && now - progress_last < 100.0 && progress_active)
        return;
    progress_last = now;
    int width = 30, fill = (int)(fraction * width + 0.5);
    if (fill < 0)
        fill = 0;
    if (fill > width)
        fill = width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r%-9s [%s] %3d%%", stage, bar, (int)(fraction * 100 + 0.5));
    fflush(stderr);
    progress_active = 1;
}

/* With the memory trace on (memcount.h), every report goes into it as well. */
static void progress_traced(void *user, const char *stage, double fraction)
{
    cli_mem_trace_progress(stage, fraction);
    if (user)
        progress_cb(NULL, stage, fraction);
}

void cli_progress_install(op_ctx *ctx, int enabled)
{
    const int bar = enabled && isatty(STDERR_FILENO);
    if (cli_mem_tracing()) {
        ctx->progress = progress_traced;
        ctx->progress_user = bar ? ctx : NULL;
    } else if (bar) {
        ctx->progress = progress_cb;
        ctx->progress_user = NULL;
    }
}

void cli_progress_done(void)
{
    if (progress_active) {
        fprintf(stderr, "\r%60s\r", "");
        fflush(stderr);
        progress_active = 0;
    }
}
