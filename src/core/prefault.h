/* Faulting fresh memory in ahead of its first writes (docs/decisions/spans-speed.md,
 * round 16): one system call maps a range's pages, where writing them would take one
 * page fault (an exception into the kernel and back) per 4 KiB page. */
#ifndef ONEPATH_CORE_PREFAULT_H
#define ONEPATH_CORE_PREFAULT_H

#include "onepath/common.h"

#include <stddef.h>

/* Maps the whole pages inside [p, p + bytes) writable, contents unchanged (Linux
 * MADV_POPULATE_WRITE, kernel 5.14 and later), asking only for the pages mincore finds
 * missing (pages already mapped, as after a free and a new allocation in the same
 * process, cost no walk; bake-speed.md round 10). A hint only: elsewhere, on an older
 * kernel, or when it fails, nothing happens and the writes fault as before. The pages
 * at the range's ends that it shares with other memory are left alone. */
void op_mem_prefault(void *p, size_t bytes);

/* op_arena_alloc, its memory mapped by op_mem_prefault when the arena made a new block
 * for it (fresh pages, each a page fault at its first write); a kept block's pages are
 * mapped already and the call would only cost its walk over them. For scratch whose
 * every byte is written soon after (docs/decisions/bake-speed.md, round 8). */
void *op_arena_alloc_prefaulted(op_arena *a, size_t bytes);

/* op_scratch (overflow and failure reported to ctx) through op_arena_alloc_prefaulted
 * (core/arena.c, beside op_scratch). */
void *op_scratch_prefaulted(op_ctx *ctx, size_t n, size_t sz);

#endif
