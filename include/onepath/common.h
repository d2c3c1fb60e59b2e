/* onepath — common types: status codes, the context (kernel table, scratch arena,
 * error message, progress callback) that every stage takes first. */
#ifndef ONEPATH_COMMON_H
#define ONEPATH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "onepath/version.h" /* ONEPATH_VERSION_*, generated from CMake's project() */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH". It can differ
 * from the ONEPATH_VERSION_STRING a program was compiled with when a shared library of
 * another release is loaded. Never NULL; static storage. */
const char *op_version(void);

/* Stable numbers: they are also the tool's exit-code basis and appear in JSON. */
typedef enum op_status {
    OP_OK = 0,
    OP_INVALID_ARGUMENT = 1, /* a setting or argument is out of range */
    OP_BAD_INPUT = 2,        /* a malformed file or geometry */
    OP_NO_MEMORY = 3,        /* an allocation failed; nothing was left half-built */
    OP_IO_ERROR = 4,         /* open/read/write failed */
    OP_UNSUPPORTED = 5,      /* valid, but this build or format cannot express it */
    OP_INTERNAL = 6          /* a checker found a broken invariant */
} op_status;

const char *op_status_name(op_status s);

/* Instruction-set variants of the kernel tables (issue 5). AUTO picks the best the CPU
 * runs, narrowed by the environment variable ONEPATH_ISA. */
typedef enum op_isa {
    OP_ISA_AUTO = -1,
    OP_ISA_SCALAR = 0,
    OP_ISA_SSE2,
    OP_ISA_SSE41,
    OP_ISA_AVX2,
    OP_ISA_AVX512,
    OP_ISA_NEON,
    OP_ISA_PORTABLE, /* SIMDe with SIMDE_NO_NATIVE: the portable lowering */
    OP_ISA_COUNT
} op_isa;

const char *op_isa_name(op_isa isa);
/* Parses "auto", "scalar", "sse2", "sse41", "avx2", "avx512", "neon", "portable".
 * Returns OP_INVALID_ARGUMENT for anything else. */
op_status op_isa_parse(const char *name, op_isa *out);
/* 1 when this build contains the variant and this CPU can run it. */
int op_isa_available(op_isa isa);
/* The variant AUTO resolves to (after ONEPATH_ISA narrowing). */
op_isa op_isa_best(void);

/* What the environment variable ONEPATH_ISA asks of op_isa_best, so that a caller can
 * report a value the library ignores (op_isa_best never fails). */
typedef enum op_isa_env_state {
    OP_ISA_ENV_UNSET = 0,   /* unset, empty or "auto": no narrowing */
    OP_ISA_ENV_APPLIED,     /* an available variant: op_isa_best returns it */
    OP_ISA_ENV_UNKNOWN,     /* not a variant name: ignored */
    OP_ISA_ENV_UNAVAILABLE  /* a variant this build or CPU does not run: ignored */
} op_isa_env_state;
/* isa (may be NULL) receives the named variant (APPLIED, UNAVAILABLE; else OP_ISA_AUTO);
 * value (may be NULL) the variable's text (NULL when unset). */
op_isa_env_state op_isa_env(op_isa *isa, const char **value);

/* One line of the variant listing (style.md: "a listing call says what this CPU can
 * run"). available = compiled && cpu. */
typedef struct op_isa_info {
    op_isa isa;
    const char *name; /* as op_isa_name */
    int compiled;     /* this build contains the variant's kernel table */
    int cpu;          /* this CPU executes the variant's instructions */
    int available;    /* both: op_ctx_set_isa accepts it */
} op_isa_info;

/* Fills out[0 .. min(max, OP_ISA_COUNT)) with every variant in enum order (scalar
 * first) and returns OP_ISA_COUNT. out may be NULL when max is 0. */
int op_isa_list(op_isa_info *out, int max);

/* Allocator hook (like Recast's rcAllocSetCustom and zstd's ZSTD_customMem): every
 * allocation the library makes, results and scratch included, goes through the
 * allocator of the context it was made with; results remember it and are freed with it.
 * All three functions or none: a zeroed op_allocator means the C library's malloc,
 * realloc and free. realloc_fn(user, NULL, n) must act as malloc. The functions are
 * called from every thread that works for a context and its worker contexts, so they
 * must be thread-safe. A NULL return is reported as OP_NO_MEMORY. */
typedef struct op_allocator {
    void *(*malloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} op_allocator;

/* Scratch arena: a stack of blocks that are kept between uses, so a stage run per tile
 * allocates only while it grows. Kernels never allocate; drivers take scratch here. */
typedef struct op_arena_block {
    unsigned char *base;
    size_t size, used;
} op_arena_block;

typedef struct op_arena {
    op_arena_block *blocks;
    size_t count, cap, current;
    op_allocator alloc; /* where blocks come from (copied from the context) */
} op_arena;

typedef struct op_arena_mark {
    size_t block, used;
} op_arena_mark;

typedef void (*op_progress_fn)(void *user, const char *stage, double fraction);

struct op_kernels;

/* The context every call takes first.
 *
 * Threads: a context is used by one thread at a time. To work on several threads at
 * once, give each its own worker context (op_ctx_fork): same kernel table and
 * allocator, its own arena and error buffer. The progress callback belongs to the
 * context it is set on and is called only from calls made on that context, so only
 * from the thread that owns it; worker contexts have none, and a driver that runs
 * workers reports progress from its own thread.
 *
 * Errors: every function that takes a context and returns a status other than OP_OK
 * has written a message about that failure (place and reason) into err before it
 * returns, so op_ctx_error right after a failing call is never an earlier call's
 * message. After OP_OK the buffer is unspecified (it may hold an older message): read
 * it only after a failure. Functions without a context (op_isa_parse, op_stage_parse,
 * op_partition_parse) return a status alone. */
typedef struct op_ctx {
    const struct op_kernels *k; /* kernel tables in use (the context's own); see init */
    op_isa isa;                 /* the resolved variant */
    op_allocator alloc;         /* every allocation made for this context */
    op_arena arena;
    char err[512];              /* message of the last failure (see above) */
    op_progress_fn progress;    /* optional; called on the owning thread only */
    void *progress_user;
    int threads;                /* threads one call may use inside a grid; 0 or 1 = one
                                   (op_ctx_set_threads); workers start with one */
} op_ctx;

/* isa = OP_ISA_AUTO for the best available. A variant this CPU or build cannot run is
 * OP_UNSUPPORTED with a message; the context then keeps the scalar table and is usable.
 * The kernel table is allocated with the context's allocator: OP_NO_MEMORY when that
 * fails (k is then NULL). In every case, op_ctx_free releases what init took. */
op_status op_ctx_init(op_ctx *ctx, op_isa isa);
/* Same, with an allocator (NULL = the C library's). Set it here, before any allocation. */
op_status op_ctx_init_with_allocator(op_ctx *ctx, op_isa isa, const op_allocator *alloc);
/* A worker context for another thread (one per thread, reused across tiles): the same
 * kernel table (its own copy), variant and allocator as parent, its own arena and error
 * buffer, and no progress callback (progress is reported from the thread that owns
 * parent only). OP_NO_MEMORY when the table cannot be allocated.
 * Results made on a worker are owned like any other (they remember the allocator) and
 * may be handed to the parent's thread. Free it with op_ctx_free; parent must outlive
 * it only if the allocator's user data does. */
op_status op_ctx_fork(const op_ctx *parent, op_ctx *worker);
/* Hands a worker's failure to its parent: when status is not OP_OK, copies worker's
 * message into parent's error buffer. Returns status. Call it on parent's thread once
 * the workers are done, for the failure that comes first in a fixed order (e.g. tile
 * order), so that the message does not depend on scheduling. */
op_status op_ctx_take_error(op_ctx *parent, const op_ctx *worker, op_status status);
/* Threads that one call on ctx may run inside a single grid (supplement §2 last
 * sentence, issue 11): the rasterizer's row bands, the filters and the compaction by
 * rows. The bytes are the same for every count. 0 = OpenMP's default (OMP_NUM_THREADS,
 * else the cores), 1 = one thread (the default of op_ctx_init); a build without OpenMP
 * runs one. OP_INVALID_ARGUMENT for a negative count. */
op_status op_ctx_set_threads(op_ctx *ctx, int threads);
/* Switch the kernel table of an initialised context. */
op_status op_ctx_set_isa(op_ctx *ctx, op_isa isa);
void op_ctx_free(op_ctx *ctx);
const char *op_ctx_error(const op_ctx *ctx);

/* Frees a buffer or array that a library function handed to the caller for ctx
 * (op_read_file, the OPCHF1 and dump encoders and decoders) with ctx's allocator: pass a
 * context with the allocator the call was made with. NULL p is ignored; NULL ctx means
 * the C library's free, which also suits a context made with the default allocator.
 * Result structs (op_chf, op_mesh, op_scene, op_heightfield, op_contour_set,
 * op_bake_result) instead remember their allocator and have their own free function. */
void op_free(const op_ctx *ctx, void *p);

/* Record a failure: formats the message into ctx->err and returns status. ctx may be
 * NULL (the message is then dropped). */
op_status op_fail(op_ctx *ctx, op_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Arena: 64-byte aligned memory valid until op_arena_release to an earlier mark.
 * Returns NULL on out-of-memory (the caller reports OP_NO_MEMORY). */
void *op_arena_alloc(op_arena *a, size_t bytes);
op_arena_mark op_arena_get_mark(const op_arena *a);
void op_arena_release(op_arena *a, op_arena_mark m);
void op_arena_free(op_arena *a);
/* Frees the blocks that hold nothing (after a release to a mark): a long-lived context
 * keeps no more scratch than it still uses. */
void op_arena_trim(op_arena *a);

/* Convenience: allocate n elements of size sz from ctx's arena, failing on overflow. */
void *op_scratch(op_ctx *ctx, size_t n, size_t sz);

void op_progress(op_ctx *ctx, const char *stage, double fraction);

/* Milliseconds from CLOCK_MONOTONIC; for timings in reports only, never for output. */
double op_now_ms(void);
/* CPU milliseconds of the process (every thread) and of the calling thread; for cost
 * figures in reports only (they do not grow when a loaded machine makes a run wait). */
double op_cpu_ms(void);
double op_thread_cpu_ms(void);

#ifdef __cplusplus
}
#endif
#endif
