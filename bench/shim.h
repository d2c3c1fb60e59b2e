/* onepath benchmarks — a small C API over Google Benchmark (bench/shim.cc).
 *
 * The C benchmark code registers cases; the shim wraps benchmark::State, runs the
 * timed loop, reports items (spans) per second, and keeps each iteration's result
 * observable (see shim.cc for why DoNotOptimize alone is not trusted with Debian's
 * Google Benchmark 1.7.1 and g++ 12 -O3). */
#ifndef ONEPATH_BENCH_SHIM_H
#define ONEPATH_BENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct op_bench_state op_bench_state; /* a benchmark::State, opaque to C */

typedef struct op_bench_case {
    const char *name;        /* "kind/family/variant/size", copied by the shim */
    void *user;              /* handed to every callback; owned by the caller */
    uint64_t items_per_iter; /* spans processed by one iteration: items_per_second */
    /* Untimed, before the timed loop of every run of the case (the library calls a
     * case several times while it sizes the iteration count): prepares the inputs and
     * checks the output against the scalar twin. Nonzero skips the case with the
     * message given to op_bench_error. May be NULL. */
    int (*before)(void *user, op_bench_state *st);
    /* One timed iteration. Returns a witness derived from its output (e.g. a few
     * output words); the shim stores it into a volatile sink. The function should also
     * pass its output buffers to op_bench_escape. */
    uint64_t (*iter)(void *user);
    /* Untimed, after the timed loop: checks the output of the last timed iteration.
     * Nonzero marks the case as failed (op_bench_error). May be NULL. */
    int (*after)(void *user, op_bench_state *st);
    /* Untimed, before every timed iteration (the clock is paused around it): puts back
     * an input that an iteration changes in place (e.g. the areas a filter rewrites).
     * May be NULL (then nothing is paused). */
    void (*reset)(void *user);
} op_bench_case;

/* Registers a case; returns 0, or nonzero when the name is empty or iter is NULL. */
int op_bench_register(const op_bench_case *c);

/* Marks the running case as failed with a message (SkipWithError). */
void op_bench_error(op_bench_state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Adds a user counter to the running case's report (e.g. "spans"). */
void op_bench_counter(op_bench_state *st, const char *name, double value);

/* Makes the memory behind p observable: every store to it before the call must really
 * happen. An out-of-line function in another translation unit with an asm escape. */
void op_bench_escape(const void *p);

/* Runs the registered cases with Google Benchmark's command line (--benchmark_filter,
 * --benchmark_format=json, ...). min_time > 0 sets each case's minimum time in
 * seconds (the --quick mode), else the library default. Returns the process exit
 * status: 0, or 1 when a flag was not understood or any case failed. */
int op_bench_run(int argc, char **argv, double min_time);

#ifdef __cplusplus
}
#endif
#endif
