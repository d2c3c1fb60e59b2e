/* The one clock of the library: stage timings in reports (never in output). */
#include "onepath/common.h"

#include <time.h>

double op_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
