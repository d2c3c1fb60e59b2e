/* Wavefront OBJ writer of the tool (bake --out-obj): a mesh as `v` and `f` lines, which
 * op_load_obj (or any OBJ reader with strtof) reads back to the same binary32 vertices. */
#ifndef ONEPATH_OBJ_WRITE_H
#define ONEPATH_OBJ_WRITE_H

#include "onepath/geometry.h"

/* Writes every vertex ("v x y z", %.9g: nine significant digits give back every binary32
 * exactly) and every triangle ("f a b c", 1-based, in mesh order, so a reader rasterizes
 * them in the same order). Area volumes are not triangles and are not written.
 * OP_IO_ERROR with the path in ctx when the file cannot be written. */
op_status cli_write_obj(op_ctx *ctx, const op_mesh *mesh, const char *path);

#endif
