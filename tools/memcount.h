/* A counting allocator for the tool (issue 12): every allocation the library makes for
 * the tool's context goes through it (op_allocator), so the JSON summary can report the
 * peak of the library's live bytes during a bake, the input's own arrays apart.
 * Thread-safe (atomics): worker contexts and threads inside a grid share it. */
#ifndef ONEPATH_TOOL_MEMCOUNT_H
#define ONEPATH_TOOL_MEMCOUNT_H

#include "onepath/common.h"

#include <stdint.h>

/* The allocator (malloc/realloc/free with a 16-byte size header). */
const op_allocator *cli_mem_allocator(void);
/* Bytes live now (requested sizes). */
uint64_t cli_mem_live(void);
/* Marks the input loaded: its bytes are the live bytes now, and the peak starts over
 * from them. */
void cli_mem_mark_input(void);
/* The input's bytes (at the mark) and the peak of live bytes since the mark above them. */
uint64_t cli_mem_input_bytes(void);
/* The process's CPU time at the mark [ms] (op_cpu_ms): what loading the input cost. */
double cli_mem_input_cpu_ms(void);
uint64_t cli_mem_peak_bytes(void);

/* Debug trace: opens ONEPATH_MEMTRACE's file when that variable is set (before the
 * first allocation; the file stays open until exit); progress reports go into it too.
 * tools/memtrace.py lists each phase's peak and the arrays live there. */
void cli_mem_trace_open(void);
void cli_mem_trace_progress(const char *stage, double fraction);
int cli_mem_tracing(void);

#endif
