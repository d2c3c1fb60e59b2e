/* Checks on how the library itself is compiled. The public headers set no such
 * conditions, so a program compiled with -ffast-math can still include onepath.h; the
 * library's own code must not be (docs/decisions/package.md). Nothing is defined here. */
#include "onepath/common.h"

/* Determinism (supplement §5): fast math lets the compiler reassociate, contract and
 * assume finite values, which changes bytes between compilers and ISAs. The build
 * passes -fno-fast-math; this catches a -ffast-math given after it (a parent project's
 * target_compile_options, CFLAGS appended later). */
#ifdef __FAST_MATH__
#error "onepath must not be built with -ffast-math (determinism, supplement §5)"
#endif

/* ISO C forbids an empty translation unit. */
typedef int op_build_checks_nonempty;
