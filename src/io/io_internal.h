/* Helpers shared by the file formats' read and write wrappers (src/io). */
#ifndef ONEPATH_IO_INTERNAL_H
#define ONEPATH_IO_INTERNAL_H

#include "onepath/common.h"

/* A decoder's failure with the file's path in front ("PATH: offset N: reason"). Returns
 * st; OP_OK passes through untouched. */
op_status op_io_prefix_path(op_ctx *ctx, op_status st, const char *path);

/* The tail of every *_write: when the encoder succeeded (st == OP_OK), writes its len
 * bytes to path; frees buf (from ctx's allocator) either way. */
op_status op_io_write_encoded(op_ctx *ctx, op_status st, unsigned char *buf, size_t len,
                              const char *path);

#endif
