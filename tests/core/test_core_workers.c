/* Worker contexts (common.h, op_ctx_fork): forked contexts used on several threads at
 * once bake the same bytes as one context does alone; the progress callback is called
 * from the owning thread only; a worker's failure reaches the parent with its message
 * (op_ctx_take_error); one shared allocator sees every allocation and gets all of it
 * back. Threads are OpenMP's where the build has it, POSIX threads otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#else
#include <pthread.h>
#endif

#include "onepath/onepath.h"
#include "core/kernels.h"
#include "util/testalloc.h"
#include "util/testutil.h"

#define THREADS 4

/* One bake: a small random field or the demo world, through one partition. */
typedef struct job {
    int demo;           /* 0: random field of seed, 1: demo world of size */
    uint32_t seed, size;
    op_partition part;
    uint64_t digest[4]; /* spans, distance, regions, contours */
    op_status st;
} job;

static op_status run_job(op_ctx *ctx, job *j)
{
    op_bake_settings s;
    op_bake_settings_defaults(&s);
    s.regions.partition = j->part;
    s.regions.min_region_area = 4;
    s.regions.merge_region_area = 20;
    op_bake_result r;
    op_status st;
    if (j->demo) {
        op_scene scene;
        st = op_demo_world(ctx, j->size, &scene, &s.config);
        if (st != OP_OK)
            return st;
        st = op_bake_scene(ctx, &scene, &s, &r);
        op_scene_free(&scene);
    } else {
        op_chf chf;
        op_random_chf_opts o;
        op_random_chf_defaults(&o, 20 + j->seed % 23, 16 + j->seed % 19);
        st = op_random_chf(ctx, &chf, j->seed, &o);
        if (st != OP_OK)
            return st;
        st = op_bake_chf(ctx, &chf, &s, &r);
    }
    if (st == OP_OK) {
        j->digest[0] = r.digest_spans;
        j->digest[1] = r.digest_distance;
        j->digest[2] = r.digest_regions;
        j->digest[3] = r.digest_contours;
    }
    op_bake_result_free(&r);
    return st;
}

#define NJOBS 30

static void make_jobs(job *jobs)
{
    static const op_partition parts[] = {OP_PARTITION_WATERSHED, OP_PARTITION_MONOTONE,
                                         OP_PARTITION_LAYERS};
    memset(jobs, 0, NJOBS * sizeof *jobs);
    for (int i = 0; i < NJOBS; i++) {
        jobs[i].part = parts[i % 3];
        jobs[i].seed = 100 + (uint32_t)i;
        if (i % 10 == 9) { /* a few demo worlds (with volumes at 256) */
            jobs[i].demo = 1;
            jobs[i].size = i == 29 ? 256 : 64 + 32 * (uint32_t)(i / 10);
        }
    }
}

/* Progress of the parent: which thread called it. */
typedef struct progress_log {
    int calls, foreign_calls;
#ifdef _OPENMP
    int owner;
#else
    pthread_t owner;
#endif
} progress_log;

static int on_owner(const progress_log *log)
{
#ifdef _OPENMP
    return omp_get_thread_num() == log->owner && !omp_in_parallel();
#else
    return pthread_equal(pthread_self(), log->owner);
#endif
}

static void progress_cb(void *user, const char *stage, double fraction)
{
    (void)stage;
    (void)fraction;
    progress_log *log = user;
#ifdef _OPENMP
#pragma omp atomic
#endif
    log->calls++;
    if (!on_owner(log)) {
#ifdef _OPENMP
#pragma omp atomic
#endif
        log->foreign_calls++;
    }
}

#ifndef _OPENMP
typedef struct worker_arg {
    op_ctx *parent;
    job *jobs;
    int first;
    op_status fork_st;
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg *a = p;
    op_ctx w;
    a->fork_st = op_ctx_fork(a->parent, &w);
    if (a->fork_st == OP_OK)
        for (int i = a->first; i < NJOBS; i += THREADS)
            a->jobs[i].st = run_job(&w, &a->jobs[i]);
    op_ctx_free(&w);
    return NULL;
}
#endif

/* Every job on THREADS threads at once, each thread with its own worker context. */
static void run_parallel(op_ctx *parent, job *jobs)
{
#ifdef _OPENMP
    int forked = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : forked)
    {
        op_ctx w;
        if (op_ctx_fork(parent, &w) == OP_OK)
            forked++;
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < NJOBS; i++)
            jobs[i].st = run_job(&w, &jobs[i]);
        op_ctx_free(&w);
    }
    assert_true(forked >= 1);
#else
    pthread_t t[THREADS];
    worker_arg a[THREADS];
    for (int i = 0; i < THREADS; i++) {
        a[i] = (worker_arg){parent, jobs, i, OP_OK};
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &a[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(a[i].fork_st, OP_OK);
    }
#endif
}

static void test_workers_bake_the_same_bytes(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx ctx;
    assert_int_equal(op_test_alloc_ctx_init(&ctx, &ta, OP_ISA_AUTO), OP_OK);
    progress_log log = {0};
#ifdef _OPENMP
    log.owner = omp_get_thread_num();
#else
    log.owner = pthread_self();
#endif
    ctx.progress = progress_cb;
    ctx.progress_user = &log;

    /* One context alone, one job after another. */
    job want[NJOBS], got[NJOBS];
    make_jobs(want);
    for (int i = 0; i < NJOBS; i++) {
        const op_status st = run_job(&ctx, &want[i]);
        if (st != OP_OK)
            fail_msg("job %d: %s", i, op_ctx_error(&ctx));
    }
    assert_true(log.calls > 0);
    assert_int_equal(log.foreign_calls, 0);

    /* The same jobs on worker contexts, several threads at once. */
    const int calls_before = log.calls;
    make_jobs(got);
    run_parallel(&ctx, got);
    for (int i = 0; i < NJOBS; i++) {
        assert_int_equal(got[i].st, OP_OK);
        for (int k = 0; k < 4; k++)
            if (got[i].digest[k] != want[i].digest[k])
                fail_msg("job %d (%s, %s): digest %d differs on a worker", i,
                         got[i].demo ? "demo" : "random", op_partition_name(got[i].part), k);
    }
    /* Workers have no callback: the parent's was not called from the threads. */
    assert_int_equal(log.calls, calls_before);
    assert_int_equal(log.foreign_calls, 0);
    op_ctx_free(&ctx);
    /* The shared allocator saw the workers' allocations and got everything back. */
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.bad_frees, 0);
    printf("%d jobs on %d threads: %llu allocations through one hook\n", NJOBS, THREADS,
           (unsigned long long)ta.allocs);
}

static void test_fork_shares_table_and_allocator_not_state(void **state)
{
    (void)state;
    op_test_alloc ta;
    op_test_alloc_init(&ta);
    op_ctx parent, w;
    assert_int_equal(op_test_alloc_ctx_init(&parent, &ta, OP_ISA_SCALAR), OP_OK);
    progress_log log = {0};
    parent.progress = progress_cb;
    parent.progress_user = &log;
    assert_non_null(op_scratch(&parent, 100, 4));
    strcpy(parent.err, "parent message");
    assert_int_equal(op_ctx_fork(&parent, &w), OP_OK);
    /* the same table, as the worker's own copy */
    assert_true(w.k != parent.k && op_kernels_same(w.k, parent.k));
    assert_int_equal(w.isa, parent.isa);
    assert_ptr_equal(w.alloc.user, &ta);
    assert_null(w.progress);
    assert_int_equal(w.arena.count, 0); /* an arena of its own */
    assert_string_equal(w.err, "");
    op_ctx_free(&w);
    op_ctx_free(&parent);
    assert_int_equal(ta.live_bytes, 0);
}

/* A worker's failure reaches the parent with the worker's message, chosen in job order
 * whatever thread failed first. */
static void test_take_error(void **state)
{
    (void)state;
    op_ctx parent;
    assert_int_equal(op_ctx_init(&parent, OP_ISA_SCALAR), OP_OK);
    op_ctx w[THREADS];
    op_status st[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(op_ctx_fork(&parent, &w[i]), OP_OK);
#ifdef _OPENMP
#pragma omp parallel for num_threads(THREADS)
#endif
    for (int i = 0; i < THREADS; i++) {
        op_region_settings s;
        op_region_settings_defaults(&s);
        s.min_region_area = i >= 1 ? 0x80000000u + (uint32_t)i : 8; /* 1..3 fail */
        st[i] = op_region_settings_validate(&w[i], &s);
    }
    strcpy(parent.err, "stale");
    op_status first = OP_OK;
    int at = -1;
    for (int i = 0; i < THREADS && first == OP_OK; i++) {
        first = op_ctx_take_error(&parent, &w[i], st[i]);
        at = i;
    }
    assert_int_equal(first, OP_INVALID_ARGUMENT);
    assert_int_equal(at, 1);
    assert_string_equal(parent.err, w[1].err);
    assert_non_null(strstr(parent.err, "2147483649"));
    /* OP_OK leaves the parent's buffer alone. */
    strcpy(parent.err, "kept");
    assert_int_equal(op_ctx_take_error(&parent, &w[0], OP_OK), OP_OK);
    assert_string_equal(parent.err, "kept");
    for (int i = 0; i < THREADS; i++)
        op_ctx_free(&w[i]);
    op_ctx_free(&parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_shares_table_and_allocator_not_state),
        cmocka_unit_test(test_workers_bake_the_same_bytes),
        cmocka_unit_test(test_take_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
