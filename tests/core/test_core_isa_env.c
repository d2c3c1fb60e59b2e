/* op_isa_env: what ONEPATH_ISA asks of op_isa_best (unset, applied, unknown, unavailable),
 * and that op_isa_best follows exactly that report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "onepath/common.h"

static op_isa best_unset;

static void expect(const char *value, op_isa_env_state want, op_isa want_isa)
{
    if (value)
        setenv("ONEPATH_ISA", value, 1);
    else
        unsetenv("ONEPATH_ISA");
    op_isa isa = (op_isa)123;
    const char *seen = "sentinel";
    const op_isa_env_state st = op_isa_env(&isa, &seen);
    if (st != want || isa != want_isa)
        fail_msg("ONEPATH_ISA=%s: state %d isa %d, want %d and %d", value ? value : "(unset)",
                 (int)st, (int)isa, (int)want, (int)want_isa);
    if (value)
        assert_string_equal(seen, value);
    else
        assert_null(seen);
    assert_int_equal(op_isa_env(NULL, NULL), st); /* both outputs optional */
    /* op_isa_best narrows exactly when the report says APPLIED. */
    assert_int_equal(op_isa_best(), st == OP_ISA_ENV_APPLIED ? want_isa : best_unset);
}

static void test_isa_env(void **state)
{
    (void)state;
    const char *old = getenv("ONEPATH_ISA");
    char *saved = old ? strdup(old) : NULL;
    unsetenv("ONEPATH_ISA");
    best_unset = op_isa_best();

    expect(NULL, OP_ISA_ENV_UNSET, OP_ISA_AUTO);
    expect("", OP_ISA_ENV_UNSET, OP_ISA_AUTO);
    expect("auto", OP_ISA_ENV_UNSET, OP_ISA_AUTO);
    expect("no-such-isa", OP_ISA_ENV_UNKNOWN, OP_ISA_AUTO);
    expect("SCALAR", OP_ISA_ENV_UNKNOWN, OP_ISA_AUTO); /* names are lower case */
    int unavailable = 0;
    for (int i = 0; i < OP_ISA_COUNT; i++) {
        const int ok = op_isa_available((op_isa)i);
        expect(op_isa_name((op_isa)i), ok ? OP_ISA_ENV_APPLIED : OP_ISA_ENV_UNAVAILABLE,
               (op_isa)i);
        unavailable += !ok;
    }
#if defined(__x86_64__) || defined(__aarch64__)
    /* Neither architecture runs every variant (neon vs the x86 ones): the unavailable
     * branch was taken. */
    assert_true(unavailable > 0);
#endif
    if (saved) {
        setenv("ONEPATH_ISA", saved, 1);
        free(saved);
    } else {
        unsetenv("ONEPATH_ISA");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
