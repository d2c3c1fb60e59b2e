/* Faulting fresh memory in ahead of its first writes (docs/decisions/spans-speed.md,
 * round 16): one system call maps a range's pages, where writing them would take one
 * page fault (an exception into the kernel and back) per 4 KiB page. */
#ifndef ONEPATH_CORE_PREFAULT_H
#define ONEPATH_CORE_PREFAULT_H

#include <stddef.h>

/* Maps the whole pages inside [p, p + bytes) writable, contents unchanged (Linux
 * MADV_POPULATE_WRITE, kernel 5.14 and later). A hint only: elsewhere, on an older
 * kernel, or when it fails, nothing happens and the writes fault as before. The pages
 * at the range's ends that it shares with other memory are left alone. */
void op_mem_prefault(void *p, size_t bytes);

#endif
