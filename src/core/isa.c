/* ISA variants: names, CPU flags, availability, ONEPATH_ISA narrowing. The tables
 * themselves are filled in kernel_tables.c. */
#include "onepath/common.h"
#include "core/kernels.h"

#include "op_isa_table.h"

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

/* What each variant needs comes from cmake/simd.cmake's table: OP_HAVE_ISA_<V> (this
 * build compiled it), OP_ISA_CPU_<V>() (the CPU has its features) and the native
 * ladder. */
int op_isa_compiled(op_isa isa)
{
    switch (isa) {
    case OP_ISA_SCALAR: return 1;
    case OP_ISA_SSE2: return OP_HAVE_ISA_SSE2;
    case OP_ISA_SSE41: return OP_HAVE_ISA_SSE41;
    case OP_ISA_AVX2: return OP_HAVE_ISA_AVX2;
    case OP_ISA_AVX512: return OP_HAVE_ISA_AVX512;
    case OP_ISA_NEON: return OP_HAVE_ISA_NEON;
    case OP_ISA_PORTABLE: return OP_HAVE_ISA_PORTABLE;
    default: return 0;
    }
}

uint32_t op_cpu_flags(void)
{
    uint32_t f = 0;
    f |= OP_ISA_CPU_SSE2() ? OP_CPU_SSE2 : 0;
    f |= OP_ISA_CPU_SSE41() ? OP_CPU_SSE41 : 0;
    f |= OP_ISA_CPU_AVX2() ? OP_CPU_AVX2 : 0;
    f |= OP_ISA_CPU_AVX512() ? OP_CPU_AVX512 : 0;
    f |= OP_ISA_CPU_NEON() ? OP_CPU_NEON : 0;
    f |= OP_ISA_CPU_PORTABLE() ? OP_CPU_PORTABLE : 0;
    return f;
}

static const op_isa native_ladder[] = {OP_ISA_NATIVE_LADDER};
#define NATIVE_RUNGS (sizeof native_ladder / sizeof native_ladder[0])

/* The flags of isa's rung and the rungs below it (0 for scalar). */
static uint32_t ladder_mask(op_isa isa)
{
    if (isa == OP_ISA_PORTABLE)
        return OP_CPU_PORTABLE;
    uint32_t m = 0;
    for (size_t i = 1; i < NATIVE_RUNGS; i++) {
        m |= 1u << native_ladder[i];
        if (native_ladder[i] == isa)
            return m;
    }
    return isa == OP_ISA_SCALAR ? 0 : 1u << isa; /* another architecture's variant */
}

uint32_t op_isa_flags(op_isa isa)
{
    if (isa < 0 || isa >= OP_ISA_COUNT)
        return 0;
    return op_cpu_flags() & ladder_mask(isa);
}

/* Whether the CPU runs a variant: its rung and every rung below it. */
static int cpu_has(op_isa isa)
{
    const uint32_t m = ladder_mask(isa);
    return (op_cpu_flags() & m) == m;
}

int op_isa_available(op_isa isa)
{
    if (isa < 0 || isa >= OP_ISA_COUNT)
        return 0;
    return op_isa_compiled(isa) && cpu_has(isa);
}

int op_isa_list(op_isa_info *out, int max)
{
    for (int i = 0; i < OP_ISA_COUNT && i < max; i++) {
        out[i].isa = (op_isa)i;
        out[i].name = isa_names[i];
        out[i].compiled = op_isa_compiled((op_isa)i);
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
    /* The highest rung of this architecture's ladder that the build and CPU have. */
    for (size_t i = NATIVE_RUNGS; i-- > 1;)
        if (op_isa_available(native_ladder[i]))
            return native_ladder[i];
    return OP_ISA_SCALAR;
}
