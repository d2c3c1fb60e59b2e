/* onepath — whole-file reads and writes shared by the loaders and writers. */
#ifndef ONEPATH_FILE_H
#define ONEPATH_FILE_H

#include "onepath/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the whole file into a buffer from ctx's allocator (op_free(ctx, buf) it; non-NULL
 * even when empty).
 * OP_IO_ERROR with the path and errno text, OP_NO_MEMORY. */
op_status op_read_file(op_ctx *ctx, const char *path, unsigned char **buf, size_t *len);
/* Writes len bytes, replacing the file. OP_IO_ERROR with the path. */
op_status op_write_file(op_ctx *ctx, const char *path, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
