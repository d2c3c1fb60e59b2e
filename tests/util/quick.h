/* OP_TEST_QUICK=1 (set by ci/cross-aarch64.sh, where every test runs under qemu, about
 * ten times slower): the few slowest tests run a smaller but same-kind sample, named in
 * docs/decisions/hardening.md. Nothing that pins digests or compares variants shrinks. */
#ifndef OP_TEST_QUICK_H
#define OP_TEST_QUICK_H

#include <stdlib.h>

static inline int op_test_quick(void)
{
    const char *e = getenv("OP_TEST_QUICK");
    return e && e[0] == '1';
}

#endif
