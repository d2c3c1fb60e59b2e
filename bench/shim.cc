// onepath benchmarks — the C++ side of bench/shim.h: registers C cases with Google
// Benchmark and runs the timed loop for them.
//
// Keeping results observable (issue 5). With Debian's Google Benchmark 1.7.1 and g++ 12
// at -O3, DoNotOptimize has been seen to let the compiler drop a result that a check
// after the timed loop reads: for GCC its const& overload is `asm volatile("" : :
// "r,m"(value) : "memory")`, which only says the *value* (often a pointer or a copy in
// a register) is read, not the buffer behind it, and ClobberMemory is
// std::atomic_signal_fence, which orders atomics but does not make non-escaped stores
// observable. So the shim does not rely on either:
//   1. the timed work is a C function reached through a function pointer from this
//      separate translation unit (no LTO in this build), so its call and its stores
//      cannot be removed;
//   2. that function returns a witness read from its output, and the shim stores every
//      witness into a volatile sink (a volatile store is observable behaviour);
//   3. op_bench_escape(p) is an out-of-line function with an asm that takes p and
//      clobbers "memory", so every store to *p before it must have happened;
//   4. the output of the last timed iteration is compared with the scalar twin after
//      the loop (the case's after callback), so a dropped computation fails loudly.
#include "shim.h"

#include <benchmark/benchmark.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

struct op_bench_state {
    benchmark::State *st;
};

namespace {

volatile uint64_t g_sink;
bool g_failed;
double g_min_time;

struct Case {
    std::string name;
    op_bench_case c;
};

std::vector<Case> &cases()
{
    static std::vector<Case> v;
    return v;
}

void run_case(benchmark::State &state, const op_bench_case *c)
{
    op_bench_state s{&state};
    if (c->before && c->before(c->user, &s) != 0) {
        if (!state.error_occurred())
            op_bench_error(&s, "setup failed");
        return;
    }
    uint64_t local = 0;
    for (auto _ : state) {
        if (c->reset) {
            state.PauseTiming();
            c->reset(c->user);
            state.ResumeTiming();
        }
        uint64_t w = c->iter(c->user);
        local += w;
        g_sink = w;
    }
    g_sink = local;
    benchmark::ClobberMemory();
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(c->items_per_iter));
    state.counters["spans"] = static_cast<double>(c->items_per_iter);
    if (c->after && c->after(c->user, &s) != 0 && !state.error_occurred())
        op_bench_error(&s, "check after timing failed");
}

} // namespace

extern "C" int op_bench_register(const op_bench_case *c)
{
    if (!c || !c->name || !*c->name || !c->iter)
        return 1;
    cases().push_back(Case{c->name, *c});
    return 0;
}

extern "C" void op_bench_error(op_bench_state *st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_failed = true;
    std::fprintf(stderr, "onepath_bench: error: %s\n", buf);
    st->st->SkipWithError(buf); // 1.7.1 copies the message into the run report
}

extern "C" void op_bench_counter(op_bench_state *st, const char *name, double value)
{
    st->st->counters[name] = value;
}

extern "C" void op_bench_escape(const void *p)
{
#if defined(__GNUC__)
    asm volatile("" : : "r"(p) : "memory");
#else
    static const void *volatile keep;
    keep = p;
#endif
}

extern "C" int op_bench_run(int argc, char **argv, double min_time)
{
    g_min_time = min_time;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    // Registered only now: the vector no longer grows, so the case pointers are stable.
    for (Case &k : cases()) {
        const op_bench_case *c = &k.c;
        benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
            k.name.c_str(), [c](benchmark::State &state) { run_case(state, c); });
        // Wall time: the stages may run on several threads, and spans/s is what a
        // user waits for.
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        if (g_min_time > 0)
            b->MinTime(g_min_time);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return g_failed ? 1 : 0;
}
