/* Library code never calls the C library's allocator: every allocation goes through the
 * hook of src/core/alloc.h (common.h, op_allocator), and no digest allocates. This scans
 * every .c and .h under src/ (comments, strings and character literals skipped) for a
 * call to malloc, calloc, realloc, free, aligned_alloc, posix_memalign, strdup,
 * strndup, reallocarray, or an xxHash state constructor; src/core/alloc.c, the one
 * place that calls them, is exempt. test_core_alloc checks the same at run time.
 * Likewise XXH3's streaming calls have one home, src/io/digest.c (op_digest_stream), and
 * the update also the digest kernel's twins: a digest elsewhere uses that stream rather
 * than a state of its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/testutil.h"

/* A call and the files allowed to make it (space-separated; NULL: none). */
typedef struct rule {
    const char *call, *home;
} rule;

static int is_home(const char *name, const char *home)
{
    const size_t n = strlen(name);
    for (const char *h = home; h && *h;) {
        const char *end = strchr(h, ' ');
        const size_t len = end ? (size_t)(end - h) : strlen(h);
        if (len == n && !memcmp(h, name, n))
            return 1;
        h = end ? end + 1 : NULL;
    }
    return 0;
}

static const rule forbidden[] = {
    {"malloc", "src/core/alloc.c"},
    {"calloc", "src/core/alloc.c"},
    {"realloc", "src/core/alloc.c"},
    {"free", "src/core/alloc.c"},
    {"aligned_alloc", NULL},
    {"posix_memalign", NULL},
    {"strdup", NULL},
    {"strndup", NULL},
    {"reallocarray", NULL},
    {"XXH3_createState", NULL},
    {"XXH64_createState", NULL},
    {"XXH32_createState", NULL},
    {"XXH3_64bits_reset", "src/io/digest.c"},
    /* and the digest kernel's twins (core/kernels.h OP_DIGEST_UPDATE_FN), which update
     * the state of an op_digest_stream that src/io/digest.c hands them */
    {"XXH3_64bits_update", "src/io/digest.c src/scalar/digest_update.c src/simd/digest_update.c"},
    {"XXH3_64bits_digest", "src/io/digest.c"},
};

static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* Reports each forbidden call in text[0..n) as "name:line: call"; returns the count. */
static int scan(const char *name, const char *text, size_t n, char *first, size_t first_len)
{
    int found = 0;
    unsigned line = 1;
    for (size_t i = 0; i < n;) {
        const char c = text[i];
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            for (i += 2; i + 1 < n && !(text[i] == '*' && text[i + 1] == '/'); i++)
                line += text[i] == '\n';
            i += 2;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                i++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < n && text[i] != c; i++) {
                if (text[i] == '\\')
                    i++;
                else if (text[i] == '\n')
                    line++;
            }
            i++;
        } else if (is_ident((unsigned char)c) && (i == 0 || !is_ident((unsigned char)text[i - 1]))) {
            size_t e = i;
            while (e < n && is_ident((unsigned char)text[e]))
                e++;
            size_t k = e;
            while (k < n && (text[k] == ' ' || text[k] == '\t'))
                k++;
            /* A member (a.free(...), a->free(...)) is not the C library's function. */
            size_t b = i;
            while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t'))
                b--;
            const int member = (b > 0 && text[b - 1] == '.') ||
                               (b > 1 && text[b - 1] == '>' && text[b - 2] == '-');
            if (k < n && text[k] == '(' && !member) {
                for (size_t f = 0; f < sizeof forbidden / sizeof forbidden[0]; f++) {
                    const char *call = forbidden[f].call;
                    const size_t len = strlen(call);
                    if (e - i != len || memcmp(text + i, call, len) != 0)
                        continue;
                    if (is_home(name, forbidden[f].home))
                        continue;
                    if (!found && first)
                        snprintf(first, first_len, "%s:%u: %s(", name, line, call);
                    printf("%s:%u: calls %s\n", name, line, call);
                    found++;
                }
            }
            i = e;
        } else {
            i++;
        }
    }
    return found;
}

static int files_scanned;

static int scan_dir(const char *dir, const char *rel, char *first, size_t first_len)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024], relpath[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(relpath, sizeof relpath, "%s/%s", rel, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            found += scan_dir(path, relpath, first, first_len);
            continue;
        }
        const size_t len = strlen(e->d_name);
        if (len < 3 || e->d_name[len - 2] != '.' ||
            (e->d_name[len - 1] != 'c' && e->d_name[len - 1] != 'h'))
            continue;
        size_t size;
        unsigned char *text = op_test_read_file(path, &size);
        assert_non_null(text);
        files_scanned++;
        found += scan(relpath, (const char *)text, size, found ? NULL : first, first_len);
        free(text);
    }
    closedir(d);
    return found;
}

/* The scanner finds what it must and skips what it must (so a clean tree is evidence). */
static void test_scanner_sees_calls(void **state)
{
    (void)state;
    static const char bad[] = "int f(void) {\n  void *p = malloc (4);\n  free(p);\n"
                              "  XXH3_createState();\n  XXH3_64bits_reset(&s);\n  return 0; }\n";
    static const char good[] = "/* malloc(1) */ // free(p)\n const char *s = \"calloc(2)\";\n"
                               " a->free(p); b.malloc(3); op_mem_free(a, p); freelist(x);\n"
                               " char c = '('; my_realloc(p, 2);\n";
    char first[256] = "";
    assert_int_equal(scan("bad.c", bad, sizeof bad - 1, first, sizeof first), 4);
    assert_string_equal(first, "bad.c:2: malloc(");
    assert_int_equal(scan("good.c", good, sizeof good - 1, NULL, 0), 0);
    /* Each call's home may make it. */
    assert_int_equal(scan("src/core/alloc.c", bad, sizeof bad - 1, NULL, 0), 2);
    assert_int_equal(scan("src/io/digest.c", bad, sizeof bad - 1, NULL, 0), 3);
    /* A call with several homes: each of them, and nothing that only begins like one. */
    static const char upd[] = "void f(void *s) { XXH3_64bits_update(s, 0, 0); }\n";
    assert_int_equal(scan("src/io/digest.c", upd, sizeof upd - 1, NULL, 0), 0);
    assert_int_equal(scan("src/scalar/digest_update.c", upd, sizeof upd - 1, NULL, 0), 0);
    assert_int_equal(scan("src/simd/digest_update.c", upd, sizeof upd - 1, NULL, 0), 0);
    assert_int_equal(scan("src/simd/digest_update", upd, sizeof upd - 1, NULL, 0), 1);
    assert_int_equal(scan("src/simd/digest_update.c.orig", upd, sizeof upd - 1, NULL, 0), 1);
    assert_int_equal(scan("src/io/other.c", upd, sizeof upd - 1, NULL, 0), 1);
}

static void test_library_never_calls_the_c_allocator(void **state)
{
    (void)state;
    char first[512] = "";
    const int found = scan_dir(op_test_source_path("src"), "src", first, sizeof first);
    printf("%d files scanned under src/\n", files_scanned);
    assert_true(files_scanned >= 40); /* the tree was found */
    if (found)
        fail_msg("%d calls outside their home in src/, first %s (use core/alloc.h, or op_digest_stream for a digest)",
                 found, first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner_sees_calls),
        cmocka_unit_test(test_library_never_calls_the_c_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
