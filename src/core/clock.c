/* The clocks of the library: stage timings and CPU costs in reports (never in output). */
#include "onepath/common.h"

#include <time.h>

double op_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double cpu_clock_ms(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double op_cpu_ms(void) { return cpu_clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

double op_thread_cpu_ms(void) { return cpu_clock_ms(CLOCK_THREAD_CPUTIME_ID); }
