/* JSON numbers (tools/json.c): the fewest significant digits that read back to the same
 * binary32 / binary64, plain notation for exponents -4..15, and nothing that depends on the
 * locale: the same bytes under a locale with a decimal comma (de_DE.UTF-8, generated with
 * localedef into a temporary LOCPATH when the system has none). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/quick.h"
#include "json.h"
#include "svg.h"
#include "util/testutil.h"

static const struct {
    float v;
    const char *text;
} float_cases[] = {
    {0.3f, "0.3"},           {0.2f, "0.2"},
    {0.1f, "0.1"},           {1.3f, "1.3"},
    {10.0f, "10"},           {45.0f, "45"},
    {0.5f, "0.5"},           {0.0f, "0"},
    {-0.0f, "-0"},           {-2.5f, "-2.5"},
    {0.01f, "0.01"},         {0.001f, "0.001"},
    {1e-4f, "0.0001"},       {1e-5f, "1e-5"},
    {1e-6f, "1e-6"},         {1e30f, "1e30"},
    {-1e30f, "-1e30"},       {123456792.0f, "123456790"},
    {16777216.0f, "16777216"}, {1e15f, "1000000000000000"},
    {1e16f, "1e16"},         {FLT_MAX, "3.4028235e38"},
    {FLT_MIN, "1.1754944e-38"}, {FLT_TRUE_MIN, "1e-45"},
    {3.0e-45f, "3e-45"},     {0.15f, "0.15"},
};

static const struct {
    double v;
    const char *text;
} double_cases[] = {
    {0.1, "0.1"},
    {1.3, "1.3"},
    {0.3, "0.3"},
    {0.1 + 0.2, "0.30000000000000004"},
    {10.0, "10"},
    {1e21, "1e21"},
    {123456789012345.0, "123456789012345"},
    {1234567890123456.0, "1234567890123456"},
    {12345678901234567.0, "1.2345678901234568e16"},
    {(double)0.3f, "0.30000001192092896"},
    {DBL_MAX, "1.7976931348623157e308"},
    {DBL_MIN, "2.2250738585072014e-308"},
    {4.9406564584124654e-324, "5e-324"},
    {-0.0, "-0"},
    {1e-5, "1e-5"},
    {2.5e-4, "0.00025"},
};

static void test_known_values(void **state)
{
    (void)state;
    char buf[OP_JSON_NUMBER_MAX];
    for (size_t i = 0; i < sizeof float_cases / sizeof float_cases[0]; i++) {
        size_t n = op_json_format_float(buf, float_cases[i].v);
        if (strcmp(buf, float_cases[i].text))
            fail_msg("float %a: got '%s', want '%s'", (double)float_cases[i].v, buf,
                     float_cases[i].text);
        assert_int_equal(n, strlen(buf));
    }
    for (size_t i = 0; i < sizeof double_cases / sizeof double_cases[0]; i++) {
        op_json_format_double(buf, double_cases[i].v);
        if (strcmp(buf, double_cases[i].text))
            fail_msg("double %a: got '%s', want '%s'", double_cases[i].v, buf,
                     double_cases[i].text);
    }
    assert_int_equal(op_json_format_float(buf, NAN), 0);
    assert_string_equal(buf, "");
    assert_int_equal(op_json_format_double(buf, -INFINITY), 0);
    op_json_format_fixed(buf, 2.0 / 3.0, 3);
    assert_string_equal(buf, "0.667");
    op_json_format_fixed(buf, 1e300, 3); /* no 300-digit fixed text */
    assert_string_equal(buf, "1e300");
}

/* Significant digits of a JSON number text (no leading zeros, up to the exponent). */
static int significant_digits(const char *s)
{
    int n = 0, started = 0, trailing_zeros = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0')
            started = 1;
        if (started) {
            n++;
            trailing_zeros = *s == '0' ? trailing_zeros + 1 : 0;
        }
    }
    /* Plain integers like 100: the zeros before the point are not significant. */
    return started ? n - trailing_zeros : 1;
}

/* Whether a JSON number text is valid RFC 8259 grammar. */
static int json_number_ok(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == 0;
}

/* Random binary32 bit patterns (and doubles): every text is valid JSON, reads back to the
 * same bits, and has as few significant digits as any text that does (checked against
 * %.{p-1}e for the next smaller p). */
static void test_random_round_trip(void **state)
{
    (void)state;
    op_rng rng = {20240611u};
    char buf[OP_JSON_NUMBER_MAX], shorter[64];
    const int scale = op_test_quick() ? 10 : 1; /* util/quick.h */
    for (int i = 0; i < 100000 / scale; i++) {
        uint32_t bits = (uint32_t)op_rng_next(&rng);
        float f;
        memcpy(&f, &bits, 4);
        if (!isfinite(f))
            continue;
        op_json_format_float(buf, f);
        if (!json_number_ok(buf))
            fail_msg("float %a: '%s' is not a JSON number", (double)f, buf);
        float back = strtof(buf, NULL);
        if (memcmp(&back, &f, 4))
            fail_msg("float %a: '%s' reads back as %a", (double)f, buf, (double)back);
        int p = significant_digits(buf);
        if (p > 1) {
            snprintf(shorter, sizeof shorter, "%.*e", p - 2, (double)f);
            if (strtof(shorter, NULL) == f)
                fail_msg("float %a: '%s' has %d digits but '%s' reads back too", (double)f, buf,
                         p, shorter);
        }
    }
    for (int i = 0; i < 50000 / scale; i++) {
        uint64_t bits = op_rng_next(&rng);
        double d;
        memcpy(&d, &bits, 8);
        if (!isfinite(d))
            continue;
        op_json_format_double(buf, d);
        if (!json_number_ok(buf))
            fail_msg("double %a: '%s' is not a JSON number", d, buf);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &d, 8))
            fail_msg("double %a: '%s' reads back as %a", d, buf, back);
        int p = significant_digits(buf);
        if (p > 1) {
            snprintf(shorter, sizeof shorter, "%.*e", p - 2, d);
            if (strtod(shorter, NULL) == d)
                fail_msg("double %a: '%s' has %d digits but '%s' reads back too", d, buf, p,
                         shorter);
        }
    }
}

/* Everything the writers print with numbers in it, as one string. */
static void write_sample(char *out, size_t cap)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    op_json j;
    op_json_init(&j, f, 0);
    op_json_begin_object(&j);
    op_json_kv_float(&j, "cs", 0.3f);
    op_json_kv_float(&j, "small", 1.5e-7f);
    op_json_kv_double(&j, "max_error", 1.3);
    op_json_kv_double(&j, "third", 1.0 / 3.0);
    op_json_key(&j, "ms");
    op_json_double_fixed(&j, 12.3456, 3);
    op_json_end_object(&j);
    op_ctx ctx;
    assert_int_equal(op_ctx_init(&ctx, OP_ISA_SCALAR), OP_OK);
    assert_int_equal(op_json_finish(&ctx, &j), OP_OK);
    op_ctx_free(&ctx);
    const int32_t pts[6] = {0, 0, 3, 0, 3, 2};
    const uint8_t white[3] = {255, 255, 255};
    op_svg_begin(f, 4, 3, 1.5);
    op_svg_polygon(f, pts, 3, NULL, white, 0.15);
    op_svg_end(f);
    fflush(f);
    long n = ftell(f);
    assert_true(n > 0 && (size_t)n < cap);
    rewind(f);
    size_t got = fread(out, 1, (size_t)n, f);
    out[got] = 0;
    fclose(f);
}

/* A directory of generated locales to remove at the end ("" when none). */
static char scratch_locales[512];

/* A locale whose decimal point is ',' (NULL when none can be had). */
static const char *comma_locale(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                        "fr_FR.utf8",  "nl_NL.UTF-8", "de_DE"};
    const char *env = getenv("OP_TEST_COMMA_LOCALE");
    if (env && setlocale(LC_NUMERIC, env) && !strcmp(localeconv()->decimal_point, ","))
        return env;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (setlocale(LC_NUMERIC, names[i]) && !strcmp(localeconv()->decimal_point, ","))
            return names[i];
    /* None installed: compile one (Debian's locales package holds the sources), kept in the
     * build tree for the next run. */
    static char dir[512];
    const char *bin = getenv("OP_BINARY_DIR");
    if (bin)
        snprintf(dir, sizeof dir, "%s/test-locales", bin);
    else
        snprintf(scratch_locales, sizeof scratch_locales, "%s",
                 strcpy(dir, op_test_tmp_path("-locales")));
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "test -f '%s/de_DE.UTF-8/LC_NUMERIC' || { mkdir -p '%s' && "
             "localedef -c -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1; }",
             dir, dir, dir);
    if (system(cmd) == -1)
        return NULL;
    setenv("LOCPATH", dir, 1);
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") && !strcmp(localeconv()->decimal_point, ","))
        return "de_DE.UTF-8 (generated)";
    return NULL;
}

static void test_locale_independent(void **state)
{
    (void)state;
    static char c_text[4096], comma_text[4096];
    assert_non_null(setlocale(LC_NUMERIC, "C"));
    write_sample(c_text, sizeof c_text);
    assert_string_equal(c_text,
                        "{\"cs\":0.3,\"small\":1.5e-7,\"max_error\":1.3,"
                        "\"third\":0.3333333333333333,\"ms\":12.346}\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"6\" height=\"4.5\" "
                        "viewBox=\"0 0 4 3\" shape-rendering=\"crispEdges\">\n"
                        "<rect x=\"0\" y=\"0\" width=\"4\" height=\"3\" fill=\"#000000\"/>\n"
                        "<polygon points=\"0,0 3,0 3,2\" fill=\"none\" stroke=\"#ffffff\" "
                        "stroke-width=\"0.15\"/>\n</svg>\n");

    const char *name = comma_locale();
    if (!name)
        fail_msg("no locale with a decimal comma: install Debian's 'locales' package "
                 "(ci/setup.sh does) so that localedef can make de_DE.UTF-8, or name one in "
                 "OP_TEST_COMMA_LOCALE");
    /* The locale is live: printf would write a comma now. */
    char probe[32];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    assert_string_equal(probe, "0,5");
    write_sample(comma_text, sizeof comma_text);
    setlocale(LC_NUMERIC, "C");
    if (scratch_locales[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_locales);
        if (system(cmd) != 0)
            print_message("could not remove %s\n", scratch_locales);
    }
    if (strcmp(c_text, comma_text))
        fail_msg("under %s the writers print\n%s\ninstead of\n%s", name, comma_text, c_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_locale_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
