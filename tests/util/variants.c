#include "util/variants.h"

#include <stdio.h>
#include <string.h>

#ifndef OP_TEST_SIMD_VARIANTS
#error "OP_TEST_SIMD_VARIANTS must come from CMakeLists.txt"
#endif

const char *op_test_promised_variants_text(void)
{
    return OP_TEST_SIMD_VARIANTS;
}

int op_test_promised_variants(op_isa *out, int max)
{
    const char *p = OP_TEST_SIMD_VARIANTS;
    int n = 0;
    while (*p) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        char name[32];
        if (len == 0 || len >= sizeof name)
            return -1;
        memcpy(name, p, len);
        name[len] = 0;
        op_isa isa;
        if (op_isa_parse(name, &isa) != OP_OK || isa == OP_ISA_AUTO)
            return -1;
        if (n < max)
            out[n] = isa;
        n++;
        p += len + (e != NULL);
    }
    return n;
}

int op_test_simd_variants(op_isa *out, op_kernels *tables)
{
    op_isa_info info[OP_ISA_COUNT];
    const int n = op_isa_list(info, OP_ISA_COUNT);
    int count = 0;
    for (int i = 0; i < n && i < OP_ISA_COUNT; i++) {
        if (!info[i].available || info[i].isa == OP_ISA_SCALAR)
            continue;
        if (tables)
            op_kernels_init(&tables[count], info[i].isa, op_isa_flags(info[i].isa));
        out[count++] = info[i].isa;
    }
    return count;
}

int op_test_simd_skip(const char *test)
{
    op_isa promised[OP_ISA_COUNT];
    const int np = op_test_promised_variants(promised, OP_ISA_COUNT);
    if (np < 0) {
        fprintf(stderr, "%s: unknown variant in \"%s\"\n", test, op_test_promised_variants_text());
        return 1;
    }
    if (np == 0) {
        printf("%s: this build has no SIMD variants (OP_SIMD=OFF): skipped\n", test);
        return OP_TEST_SKIP;
    }
    return 0;
}
