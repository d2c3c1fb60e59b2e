/* The SIMD variants this build promises (issue 10: checkasm cannot pass vacuously). */
#ifndef OP_TEST_VARIANTS_H
#define OP_TEST_VARIANTS_H

#include "core/kernels.h"
#include "onepath/common.h"

/* The variants CMake compiled in (cmake/simd.cmake's OP_SIMD_VARIANTS, passed as
 * OP_TEST_SIMD_VARIANTS), in that order, into out[0..max); returns how many, or -1 when
 * the list names a variant op_isa_parse does not know. 0 means OP_SIMD=OFF. */
int op_test_promised_variants(op_isa *out, int max);
/* The same list as CMake wrote it ("sse2,sse41,..."; "" when none). */
const char *op_test_promised_variants_text(void);

/* The variants this machine runs that a kernel test compares with the scalar twin:
 * op_isa_list's available ones but OP_ISA_SCALAR, in its order, into
 * out[0..OP_ISA_COUNT). With tables non-NULL, tables[k] is out[k]'s kernel table
 * (op_kernels_init with the variant's flags: its ladder up to it). Returns how many. */
int op_test_simd_variants(op_isa *out, op_kernels *tables);

/* For a SIMD kernel test's main: 0 when this build promises SIMD variants; else the
 * exit status, with a line naming test: OP_TEST_SKIP when it has none (OP_SIMD=OFF:
 * nothing to compare, reported as skipped, never as passed), 1 when the list names an
 * unknown variant. */
int op_test_simd_skip(const char *test);

/* Exit status that CTest reports as "skipped" (SKIP_RETURN_CODE in CMakeLists.txt). */
#define OP_TEST_SKIP 77

#endif
