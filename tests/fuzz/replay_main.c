/* Replay driver for the fuzz harnesses without libFuzzer (any C compiler): runs
 * LLVMFuzzerTestOneInput once on every file named, and on every file of every directory
 * named (sorted by name; a directory that does not exist is skipped). CTest runs each
 * harness over its committed seed corpus and crash reproducers (tests/fuzz/corpus/NAME,
 * tests/fuzz/crashes/NAME) this way, so a finding that was fixed stays fixed. Fails when
 * no input at all was found, so a lost corpus cannot pass. */
#include "fuzz_common.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long replayed;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "replay: out of memory reading %s\n", path);
            exit(1);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    fclose(f);
    /* An exact-size copy, so ASan sees a read past the input as libFuzzer would. */
    unsigned char *exact = malloc(n ? n : 1);
    if (!exact)
        exit(1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    replayed++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                exit(1);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            run_file(path);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue; /* e.g. no crash reproducers kept for this harness */
        if (S_ISDIR(st.st_mode))
            run_dir(argv[i]);
        else
            run_file(argv[i]);
    }
    printf("replayed %lu inputs\n", replayed);
    return replayed ? 0 : 1;
}
