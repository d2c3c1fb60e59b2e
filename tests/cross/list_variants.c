/* Prints the kernel variants this build contains and this CPU runs (one line), for
 * ci/cross-aarch64.sh to show which variants the tests exercised under qemu. */
#include "onepath/common.h"

#include <stdio.h>

int main(void)
{
    printf("variants run by the tests:");
    for (int isa = 0; isa < OP_ISA_COUNT; isa++)
        if (op_isa_available((op_isa)isa))
            printf(" %s", op_isa_name((op_isa)isa));
    printf(" (auto = %s)\n", op_isa_name(op_isa_best()));
    return 0;
}
