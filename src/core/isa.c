/* ISA variants: names, CPU detection, ONEPATH_ISA narrowing. The tables themselves are
 * in kernel_tables.c. */
#include "onepath/common.h"
#include "core/kernels.h"

#include <stdlib.h>
#include <string.h>

static const char *const isa_names[OP_ISA_COUNT] = {
    "scalar", "sse2", "sse41", "avx2", "avx512", "neon", "portable",
};

const char *op_isa_name(op_isa isa)
{
    if (isa == OP_ISA_AUTO)
        return "auto";
    if (isa < 0 || isa >= OP_ISA_COUNT)
        return "unknown";
    return isa_names[isa];
}

op_status op_isa_parse(const char *name, op_isa *out)
{
    if (!name)
        return OP_INVALID_ARGUMENT;
    if (!strcmp(name, "auto")) {
        *out = OP_ISA_AUTO;
        return OP_OK;
    }
    for (int i = 0; i < OP_ISA_COUNT; i++)
        if (!strcmp(name, isa_names[i])) {
            *out = (op_isa)i;
            return OP_OK;
        }
    return OP_INVALID_ARGUMENT;
}

/* Whether the CPU executes the instructions of a variant. */
static int cpu_has(op_isa isa)
{
    switch (isa) {
    case OP_ISA_SCALAR:
    case OP_ISA_PORTABLE:
        return 1;
#if defined(__x86_64__) || defined(__i386__)
    case OP_ISA_SSE2: return __builtin_cpu_supports("sse2");
    case OP_ISA_SSE41: return __builtin_cpu_supports("sse4.1");
    case OP_ISA_AVX2:
        /* cmake/simd.cmake builds this variant with -mavx2 -mbmi -mbmi2 -mpopcnt. */
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    case OP_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#endif
#if defined(__aarch64__)
    case OP_ISA_NEON: return 1;
#endif
    default: return 0;
    }
}

int op_isa_available(op_isa isa)
{
    if (isa < 0 || isa >= OP_ISA_COUNT)
        return 0;
    return op_kernels_for(isa) != NULL && cpu_has(isa);
}

int op_isa_list(op_isa_info *out, int max)
{
    for (int i = 0; i < OP_ISA_COUNT && i < max; i++) {
        out[i].isa = (op_isa)i;
        out[i].name = isa_names[i];
        out[i].compiled = op_kernels_for((op_isa)i) != NULL;
        out[i].cpu = cpu_has((op_isa)i) != 0;
        out[i].available = out[i].compiled && out[i].cpu;
    }
    return OP_ISA_COUNT;
}

op_isa_env_state op_isa_env(op_isa *isa, const char **value)
{
    const char *env = getenv("ONEPATH_ISA");
    op_isa v = OP_ISA_AUTO;
    op_isa_env_state st;
    if (!env || !*env)
        st = OP_ISA_ENV_UNSET;
    else if (op_isa_parse(env, &v) != OP_OK)
        st = OP_ISA_ENV_UNKNOWN, v = OP_ISA_AUTO;
    else if (v == OP_ISA_AUTO)
        st = OP_ISA_ENV_UNSET;
    else
        st = op_isa_available(v) ? OP_ISA_ENV_APPLIED : OP_ISA_ENV_UNAVAILABLE;
    if (isa)
        *isa = v;
    if (value)
        *value = env;
    return st;
}

op_isa op_isa_best(void)
{
    /* ONEPATH_ISA narrows the choice (libjpeg-turbo JSIMD_FORCENONE, simdjson
     * SIMDJSON_FORCE_IMPLEMENTATION). An unknown or unavailable value is ignored here;
     * op_isa_env lets the caller say so. */
    op_isa forced;
    if (op_isa_env(&forced, NULL) == OP_ISA_ENV_APPLIED)
        return forced;
    static const op_isa ladder[] = {OP_ISA_AVX512, OP_ISA_AVX2, OP_ISA_SSE41, OP_ISA_SSE2,
                                    OP_ISA_NEON};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        if (op_isa_available(ladder[i]))
            return ladder[i];
    return OP_ISA_SCALAR;
}
