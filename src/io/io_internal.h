/* Helpers shared by the file formats' read and write wrappers (src/io). */
#ifndef ONEPATH_IO_INTERNAL_H
#define ONEPATH_IO_INTERNAL_H

#include "onepath/common.h"

#include <stdio.h>

/* A decoder's failure with the file's path in front ("PATH: offset N: reason"). Returns
 * st; OP_OK passes through untouched. */
op_status op_io_prefix_path(op_ctx *ctx, op_status st, const char *path);

/* The tail of every *_write: when the encoder succeeded (st == OP_OK), writes its len
 * bytes to path; frees buf (from ctx's allocator) either way. */
op_status op_io_write_encoded(op_ctx *ctx, op_status st, unsigned char *buf, size_t len,
                              const char *path);

/* A file written whole or not at all: the bytes go to a temporary next to path
 * ("PATH.tmp-PID-N", created exclusively), which op_atomic_commit flushes, syncs and
 * renames to path; op_atomic_abort (or a failed commit) removes it. A killed writer
 * leaves at most the temporary, never a file at path that looks whole. */
typedef struct op_atomic_file {
    FILE *f;
    const char *path;
    char *tmp;
    op_allocator alloc;
} op_atomic_file;
op_status op_atomic_open(op_ctx *ctx, const char *path, op_atomic_file *af);
op_status op_atomic_commit(op_ctx *ctx, op_atomic_file *af);
void op_atomic_abort(op_atomic_file *af);

#endif
