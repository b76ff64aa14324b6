/*
 * sdk_test.c: unit tests of the SDK's parts that need no host (the JSON
 * reader, mcp_quote, results, UTF-8 repair, MCP_FIELDS schemas, the store
 * API over its in-memory store), compiled natively and run by
 * host/tests/c_plugins.rs. Prints one line per failure; exits non-zero if
 * any check failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

/* The SDK's sources reference the plugin's table; the tests have none. */
const mcp_tool mcp_tools[1];
const size_t mcp_tool_count = 0;

static int failures;

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static mcp_value *parse(const char *text, char *error) {
    return mcp_json_parse(text, strlen(text), error, 96);
}

static void values_are_read_by_key_with_fallbacks(void) {
    char error[96];
    mcp_value *v = parse("{\"s\": \"a\\u00e9\\ud83d\\ude00\\n\", \"n\": -1.5e2, \"b\": true,"
                         " \"z\": null, \"a\": [1, [2], {}], \"s\": \"last\"}",
                         error);
    CHECK(v != NULL);
    CHECK(strcmp(mcp_get_string(v, "s", "?"), "last") == 0);
    CHECK(mcp_get_number(v, "n", 0) == -150);
    CHECK(mcp_get_bool(v, "b", false));
    CHECK(!mcp_has(v, "z") && mcp_get(v, "z") != NULL);
    CHECK(strcmp(mcp_get_string(v, "n", "fallback"), "fallback") == 0);
    CHECK(mcp_get_number(v, "missing", 7) == 7);
    const mcp_value *a = mcp_get_array(v, "a");
    CHECK(mcp_array_len(a) == 3);
    CHECK(mcp_array_at(a, 1)->type == MCP_JSON_ARRAY);
    CHECK(mcp_array_at(a, 3) == NULL);
    CHECK(mcp_get(mcp_array_at(a, 0), "x") == NULL);
    mcp_json_free(v);

    v = parse("\"a\\u00e9\\ud83d\\ude00\"", error);
    CHECK(v != NULL && v->len == 7 && memcmp(v->string, "a\xC3\xA9\xF0\x9F\x98\x80", 7) == 0);
    mcp_json_free(v);
}

static void malformed_json_is_refused_with_the_offset(void) {
    const char *bad[] = {
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "1e", "-", "tru", "\"abc", "\"\\x\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"", "[1] 2", "{1: 2}", "nul", "\"\\u12\"",
        /* What cJSON alone would read, and RFC 8259 refuses. */
        "-.5", "1.e5", "-01", "[1-2]", "\"\\u12zz\"", "\xEF\xBB\xBF[1]", "[\x0b" "1]", "\x01" "1",
        "\"a\x7f\x01\"", "{\"a\": 1,}", "[1,,2]", "{\"a\"}", "\"\\ud800\\u0041\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char error[96] = "";
        mcp_value *v = parse(bad[i], error);
        if (v != NULL || strstr(error, "at byte") == NULL) {
            printf("accepted or unexplained: %s (%s)\n", bad[i], error);
            failures++;
        }
        mcp_json_free(v);
    }
    /* The length bounds the read: a valid prefix of a longer buffer. */
    char error[96];
    mcp_value *v = mcp_json_parse("[1]garbage", 3, error, sizeof error);
    CHECK(v != NULL && mcp_array_len(v) == 1);
    mcp_json_free(v);
}

static void numbers_of_any_length_and_nested_objects_are_read(void) {
    char error[96];
    /* Longer than the 63 characters cJSON 1.7.18 once stopped at. */
    mcp_value *v = parse("[12345678901234567890123456789012345678901234567890123456789012345678,"
                         " 1.5e-3, -0, 0.25E+2]",
                         error);
    CHECK(v != NULL && mcp_array_len(v) == 4);
    CHECK(v != NULL && mcp_array_at(v, 0)->number > 1.2e67 && mcp_array_at(v, 0)->number < 1.3e67);
    CHECK(v != NULL && mcp_array_at(v, 1)->number == 1.5e-3 && mcp_array_at(v, 3)->number == 25);
    mcp_json_free(v);
    v = parse("{\"a\": {\"b\": [true, false, null, \"x\"]}, \"\": {}}", error);
    const mcp_value *b = mcp_get_array(mcp_get(v, "a"), "b");
    CHECK(mcp_array_len(b) == 4 && mcp_array_at(b, 0)->boolean && !mcp_array_at(b, 1)->boolean);
    CHECK(mcp_array_at(b, 2)->type == MCP_JSON_NULL);
    CHECK(strcmp(mcp_array_at(b, 3)->string, "x") == 0);
    CHECK(mcp_get(v, "") != NULL && mcp_get(v, "")->type == MCP_JSON_OBJECT && mcp_get(v, "")->len == 0);
    mcp_json_free(v);
}

/* Reads `text` as the member "n" with mcp_get_int64 (or mcp_get_uint64 when
 * `unsigned_`): true with the value's decimal text in `got`, or false with
 * the error's message in `got`. */
static bool read_n(const char *text, bool unsigned_, char *got, size_t size) {
    char json[128], error[96];
    snprintf(json, sizeof json, "{\"s\": \"-1 \\\" 2\", \"k\": [1.5, -0], \"n\": %s}", text);
    mcp_value *v = parse(json, error);
    CHECK(v != NULL);
    mcp_result r = {0};
    bool ok;
    if (unsigned_) {
        uint64_t u = 7;
        ok = mcp_get_uint64(v, "n", &u, &r);
        if (ok) snprintf(got, size, "%llu", (unsigned long long)u);
    } else {
        int64_t i = 7;
        ok = mcp_get_int64(v, "n", &i, &r);
        if (ok) snprintf(got, size, "%lld", (long long)i);
    }
    if (!ok) {
        CHECK(r.status == MCP_INVALID_ARGUMENTS && r.message != NULL);
        snprintf(got, size, "%s", r.message == NULL ? "" : r.message);
        mcp__result_free(&r);
    }
    mcp_json_free(v);
    return ok;
}

static void integers_are_read_exactly_or_refused_naming_the_bounds(void) {
    static const struct {
        const char *text;
        bool unsigned_;
        const char *want; /* the value read, or NULL: refused */
    } cases[] = {
        {"-9223372036854775808", false, "-9223372036854775808"},
        {"9223372036854775807", false, "9223372036854775807"},
        {"9007199254740993", false, "9007199254740993"},
        {"-9007199254740993", false, "-9007199254740993"},
        {"-0", false, "0"},
        {"5.0", false, "5"},
        {"-1e3", false, "-1000"},
        {"9007199254740991.0", false, "9007199254740991"},
        {"null", false, "7"},
        {"18446744073709551615", true, "18446744073709551615"},
        {"9007199254740993", true, "9007199254740993"},
        {"0", true, "0"},
        {"-9223372036854775809", false, NULL},
        {"9223372036854775808", false, NULL},
        {"9007199254740992.0", false, NULL},
        {"9007199254740993.0", false, NULL},
        {"-9.223372036854776e18", false, NULL},
        {"1.5", false, NULL},
        {"1e-400", false, NULL},
        {"5.0000000000000001", false, NULL},
        {"0.5e1", false, "5"},
        {"\"5\"", false, NULL},
        {"18446744073709551616", true, NULL},
        {"1.8446744073709552e19", true, NULL},
        {"-1", true, NULL},
        {"1e400", true, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[256];
        bool ok = read_n(cases[i].text, cases[i].unsigned_, got, sizeof got);
        const char *bounds = cases[i].unsigned_ ? "from 0 to 18446744073709551615"
                                                : "from -9223372036854775808 to 9223372036854775807";
        if (cases[i].want != NULL ? !ok || strcmp(got, cases[i].want) != 0
                                  : ok || strstr(got, bounds) == NULL || strstr(got, "\"n\"") == NULL) {
            printf("%s:%d: %s: got %s\n", __FILE__, __LINE__, cases[i].text, got);
            failures++;
        }
    }
    /* The messages say what was wrong. */
    char got[256];
    read_n("-9223372036854775809", false, got, sizeof got);
    CHECK(strstr(got, "-9223372036854775809 is out of range") != NULL);
    read_n("9007199254740993.0", false, got, sizeof got);
    CHECK(strstr(got, "the number read as 9007199254740992 is beyond 2^53 - 1 in float form") != NULL);
    read_n("-9.223372036854776e18", false, got, sizeof got);
    CHECK(strstr(got, "-9.2233720368547758e+18 is beyond 2^53 - 1") != NULL);
    read_n("1.5", false, got, sizeof got);
    CHECK(strstr(got, "1.5 is not an integer") != NULL);

    /* Absent: untouched, no error. */
    char error[96];
    mcp_value *v = parse("{}", error);
    int64_t i = 42;
    CHECK(mcp_get_int64(v, "n", &i, NULL) && i == 42);
    mcp_json_free(v);

    /* The schema macros state each width's exact bounds. */
    v = parse(MCP_INT64, error);
    CHECK(v != NULL && mcp_get(v, "minimum")->integer && mcp_get(v, "minimum")->negative &&
          mcp_get(v, "minimum")->magnitude == (uint64_t)INT64_MAX + 1);
    CHECK(v != NULL && mcp_get(v, "maximum")->magnitude == INT64_MAX);
    mcp_json_free(v);
    v = parse(MCP_UINT64, error);
    CHECK(v != NULL && mcp_get(v, "maximum")->integer && mcp_get(v, "maximum")->magnitude == UINT64_MAX);
    mcp_json_free(v);
    v = parse(MCP_INTEGER, error);
    CHECK(v != NULL && mcp_get_number(v, "maximum", 0) == 9007199254740991.0 &&
          mcp_get_number(v, "minimum", 0) == -9007199254740991.0);
    mcp_json_free(v);
    v = parse(MCP_INT32, error);
    CHECK(v != NULL && mcp_get_number(v, "minimum", 0) == -2147483648.0 &&
          mcp_get_number(v, "maximum", 0) == 2147483647.0);
    mcp_json_free(v);
    v = parse(MCP_UINT32, error);
    CHECK(v != NULL && mcp_get_number(v, "maximum", 0) == 4294967295.0);
    mcp_json_free(v);
}

static void nesting_is_bounded(void) {
    size_t n = MCP_JSON_MAX_DEPTH + 1;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    char error[96];
    CHECK(parse(deep, error) == NULL && strstr(error, "too deep") != NULL);
    deep[n - 1] = ' ';
    deep[n] = ' ';
    mcp_value *v = parse(deep, error);
    CHECK(v != NULL);
    mcp_json_free(v);
    free(deep);

    /* Objects count as arrays do: {"a": {"a": ... 1 ...}}. */
    for (size_t levels = MCP_JSON_MAX_DEPTH; levels <= MCP_JSON_MAX_DEPTH + 1; levels++) {
        char *objects = malloc(levels * 7 + 2);
        size_t o = 0;
        for (size_t i = 0; i < levels; i++) o += (size_t)sprintf(objects + o, "{\"a\": ");
        objects[o++] = '1';
        memset(objects + o, '}', levels);
        objects[o + levels] = '\0';
        v = parse(objects, error);
        if (levels == MCP_JSON_MAX_DEPTH) {
            CHECK(v != NULL && mcp_get(v, "a") != NULL);
        } else {
            CHECK(v == NULL && strstr(error, "too deep at byte") != NULL);
        }
        mcp_json_free(v);
        free(objects);
    }
}

static void quote_escapes_what_json_requires(void) {
    const char *q = mcp_quote("he said \"hi\"\\\n\x01");
    CHECK(strcmp(q, "\"he said \\\"hi\\\"\\\\\\n\\u0001\"") == 0);
    char error[96];
    mcp_value *v = parse(q, error);
    CHECK(v != NULL && strcmp(v->string, "he said \"hi\"\\\n\x01") == 0);
    mcp_json_free(v);
    CHECK(strcmp(mcp_quote(NULL), "null") == 0);
    mcp__arena_release();
}

static void json_results_are_checked_and_errors_keep_their_case(void) {
    mcp_result r = mcp_json("{\"v\": %d}", 3);
    CHECK(r.status == MCP_OK && strcmp(r.structured, "{\"v\": 3}") == 0);
    CHECK(r.block_count == 1 && strcmp(r.blocks[0].data, r.structured) == 0);
    mcp__result_free(&r);
    r = mcp_json("{\"v\": %s}", "oops");
    CHECK(r.status == MCP_FAILED && strstr(r.message, "invalid JSON") != NULL);
    mcp__result_free(&r);
    r = mcp_invalid_arguments("bad %s", "date");
    CHECK(r.status == MCP_INVALID_ARGUMENTS && strcmp(r.message, "bad date") == 0);
    mcp__result_free(&r);
    r = mcp_text("a");
    CHECK(mcp_add_text(&r, "b%d", 2) && mcp_add_image(&r, "\x89PNG", 4, "image/png"));
    CHECK(r.block_count == 3 && r.blocks[2].kind == 1 && r.blocks[2].len == 4);
    mcp__result_free(&r);
}

static void invalid_utf8_is_repaired_and_valid_utf8_is_kept(void) {
    CHECK(mcp__utf8_valid("a\xC3\xA9\xF0\x9F\x98\x80", 7));
    const char *invalid[] = {"\xC3", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF", "\x80"};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        CHECK(!mcp__utf8_valid(invalid[i], strlen(invalid[i])));
    }
    size_t len;
    char *fixed = mcp__utf8_repair("a\xFF" "b\xC3", 4, &len);
    CHECK(fixed != NULL && len == 8 && strcmp(fixed, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD") == 0);
    free(fixed);
}

static void templates_match_one_segment_or_any_text(void) {
    mcp_value *vars = NULL;
    CHECK(mcp_match_template("test://template/{id}/data", "test://template/123/data", &vars));
    CHECK(strcmp(mcp_get_string(vars, "id", "?"), "123") == 0);
    mcp_json_free(vars);
    CHECK(!mcp_match_template("test://template/{id}/data", "test://template/1/2/data", NULL));
    CHECK(!mcp_match_template("test://template/{id}/data", "test://template//data", NULL));
    CHECK(mcp_match_template("file:///{+path}", "file:///a/b/c.txt", &vars));
    CHECK(strcmp(mcp_get_string(vars, "path", "?"), "a/b/c.txt") == 0);
    mcp_json_free(vars);
    CHECK(mcp_match_template("x://{a}-{b}", "x://1-2-3", &vars));
    CHECK(strcmp(mcp_get_string(vars, "a", "?"), "1") == 0);
    CHECK(strcmp(mcp_get_string(vars, "b", "?"), "2-3") == 0);
    mcp_json_free(vars);
    CHECK(mcp_match_template("x://fixed", "x://fixed", &vars) && vars->len == 0);
    mcp_json_free(vars);
    CHECK(!mcp_match_template("x://fixed", "x://other", NULL));
    mcp_result r = mcp_not_found("no %s", "thing");
    CHECK(r.status == MCP_NOT_FOUND && strcmp(r.message, "no thing") == 0);
    free(r.message);
}

/* The cases the host and every SDK share (tests/uri-templates.json, whose
 * path the test that compiles this file passes as MCP_URI_TEMPLATES). */
static void templates_match_as_the_shared_cases_say(void) {
    FILE *file = fopen(MCP_URI_TEMPLATES, "rb");
    CHECK(file != NULL);
    if (file == NULL) return;
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            text = realloc(text, cap);
            CHECK(text != NULL);
            if (text == NULL) {
                fclose(file);
                return;
            }
        }
        size_t n = fread(text + len, 1, cap - len, file);
        if (n == 0) break;
        len += n;
    }
    fclose(file);
    char error[128];
    mcp_value *corpus = mcp_json_parse(text, len, error, sizeof error);
    free(text);
    CHECK(corpus != NULL);
    const mcp_value *cases = mcp_get_array(corpus, "cases");
    CHECK(mcp_array_len(cases) > 20);
    for (size_t i = 0; i < mcp_array_len(cases); i++) {
        const mcp_value *c = mcp_array_at(cases, i);
        const char *template_ = mcp_get_string(c, "template", ""), *uri = mcp_get_string(c, "uri", "");
        const mcp_value *want = mcp_get(c, "vars");
        bool want_match = want != NULL && want->type == MCP_JSON_OBJECT;
        mcp_value *vars = NULL;
        bool matched = mcp_match_template(template_, uri, &vars);
        bool same = matched == want_match;
        if (same && matched) {
            same = vars != NULL && vars->len == want->len;
            for (size_t k = 0; same && k < want->len; k++) {
                same = strcmp(mcp_get_string(vars, want->keys[k], "\x01"), want->items[k].string) == 0;
            }
        }
        if (!same) {
            printf("mcp_match_template(\"%s\", \"%s\") disagrees with tests/uri-templates.json\n", template_, uri);
            failures++;
        }
        mcp_json_free(vars);
    }
    mcp_json_free(corpus);
}

static mcp_result no_handler(const mcp_value *args) {
    (void)args;
    return mcp_text("x");
}

/* MCP_TOOL takes MCP_FIELDS or JSON text as the input schema, in a table at
 * file scope (a constant initializer). */
static const mcp_tool tools[] = {
    MCP_TOOL("f", "Fields.",
             MCP_FIELDS(MCP_REQUIRED("numbers", MCP_ARRAY_OF(MCP_NUMBER), "The \"numbers\"."),
                        MCP_OPTIONAL("digits", MCP_INTEGER_IN(0, 10), "Digits."),
                        MCP_OPTIONAL("mode", MCP_ONE_OF("a", "b"), NULL),
                        MCP_OPTIONAL("any", MCP_JSON({ }), "Anything.")),
             no_handler, .output_fields = MCP_FIELDS(MCP_REQUIRED("count", MCP_INTEGER, "N."))),
    MCP_TOOL("j", "JSON.", MCP_JSON({"type": "object"}), no_handler),
};

static void fields_make_the_schemas_json_would(void) {
    CHECK(tools[0].input_schema == NULL && tools[0].input_fields != NULL);
    CHECK(tools[1].input_fields == NULL && strcmp(tools[1].input_schema, "{\"type\": \"object\"}") == 0);

    const char *bad = "unset";
    char *schema = mcp__fields_schema(tools[0].input_fields, true, &bad);
    CHECK(bad == NULL);
    CHECK(schema != NULL);
    char error[96];
    mcp_value *v = schema == NULL ? NULL : parse(schema, error);
    CHECK(v != NULL);
    const mcp_value *props = mcp_get(v, "properties");
    const mcp_value *numbers = mcp_get(props, "numbers");
    CHECK(strcmp(mcp_get_string(numbers, "description", ""), "The \"numbers\".") == 0);
    CHECK(strcmp(mcp_get_string(numbers, "type", ""), "array") == 0);
    CHECK(strcmp(mcp_get_string(mcp_get(numbers, "items"), "type", ""), "number") == 0);
    CHECK(mcp_get_number(mcp_get(props, "digits"), "maximum", -1) == 10);
    CHECK(mcp_get(mcp_get(props, "mode"), "description") == NULL);
    CHECK(mcp_array_len(mcp_get_array(mcp_get(props, "mode"), "enum")) == 2);
    CHECK(strcmp(mcp_get_string(mcp_get(props, "any"), "description", ""), "Anything.") == 0);
    const mcp_value *required = mcp_get_array(v, "required");
    CHECK(mcp_array_len(required) == 1);
    CHECK(strcmp(mcp_array_at(required, 0)->string, "numbers") == 0);
    CHECK(mcp_get(v, "additionalProperties") != NULL);
    mcp_json_free(v);
    free(schema);

    schema = mcp__fields_schema(tools[0].output_fields, false, &bad);
    CHECK(schema != NULL && strstr(schema, "additionalProperties") == NULL);
    free(schema);

    /* A field whose schema is not an object is named. */
    const mcp_field broken[] = {MCP_REQUIRED("ok", MCP_STRING, "."), MCP_REQUIRED("x", "[1]", "."), {0}};
    schema = mcp__fields_schema(broken, true, &bad);
    CHECK(schema == NULL);
    CHECK(bad != NULL && strcmp(bad, "x") == 0);

    /* No fields: an object without properties. */
    const mcp_field none[] = {{0}};
    schema = mcp__fields_schema(none, true, &bad);
    CHECK(schema != NULL && strcmp(schema, "{\"type\": \"object\", \"properties\": {}, \"required\": [], "
                                           "\"additionalProperties\": false}") == 0);
    free(schema);
}

/* ---- the store API, over the in-memory store of native builds ---- */

/* Whether `r` failed with `status` and exactly `message`; frees it. */
static bool fails_with(mcp_result r, mcp_status status, const char *message) {
    bool same = r.status == status && r.message != NULL && strcmp(r.message, message) == 0;
    if (!same) printf("    got status %d: %s\n", r.status, r.message == NULL ? "(null)" : r.message);
    mcp__result_free(&r);
    return same;
}

static void store_values_round_trip_and_delete(void) {
    mcp_result error = {0};
    mcp_bucket *b = mcp_store_open("round-trip", &error);
    CHECK(b != NULL && strcmp(mcp_store_name(b), "round-trip") == 0);
    const char *value = "unset";
    size_t len = 99;
    bool exists = true;
    CHECK(mcp_store_get(b, "k", &value, &len, &error) && value == NULL && len == 0);
    CHECK(mcp_store_exists(b, "k", &exists, &error) && !exists);
    CHECK(mcp_store_set_string(b, "k", "text", &error));
    CHECK(mcp_store_set(b, "bytes", "\xff\0x", 3, &error));
    CHECK(mcp_store_get_string(b, "k", &value, &error) && strcmp(value, "text") == 0);
    CHECK(mcp_store_exists(b, "k", &exists, &error) && exists);
    CHECK(mcp_store_get(b, "bytes", &value, &len, &error) && len == 3 &&
          memcmp(value, "\xff\0x\0", 4) == 0);
    CHECK(!mcp_store_get_string(b, "bytes", &value, &error));
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"round-trip\": get \"bytes\": the value is not UTF-8"));
    CHECK(mcp_store_set(b, "nul", "a\0b", 3, &error));
    CHECK(!mcp_store_get_string(b, "nul", &value, &error));
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"round-trip\": get \"nul\": the value holds a NUL byte"));
    CHECK(mcp_store_delete(b, "k", &error) && mcp_store_delete(b, "k", &error));
    CHECK(mcp_store_get(b, "k", &value, NULL, &error) && value == NULL);
    /* Another bucket is another namespace. */
    mcp_bucket *other = mcp_store_open("other", &error);
    CHECK(other != NULL && mcp_store_get(other, "bytes", &value, NULL, &error) && value == NULL);
    /* A key that is not UTF-8 never reaches the store. */
    CHECK(!mcp_store_set_string(b, "\xc3", "v", &error));
    CHECK(error.status == MCP_FAILED && strstr(error.message, "not UTF-8") != NULL);
    mcp__result_free(&error);
    CHECK(!mcp_store_get(b, "\xc3", &value, NULL, NULL)); /* `error` may be NULL */
    mcp__arena_release();
}

static void store_keys_walk_every_page(void) {
    mcp_result error = {0};
    mcp_bucket *b = mcp_store_open("pages", &error);
    const char *const *keys = NULL;
    size_t n = 99;
    CHECK(mcp_store_keys(b, &keys, &n, &error) && n == 0 && keys[0] == NULL);
    /* More keys than one native page holds, and a page boundary exactly. */
    const size_t counts[] = {1, 2, 5, 6};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        char key[24];
        for (size_t i = 0; i < counts[c]; i++) {
            snprintf(key, sizeof key, "k%zu", i);
            CHECK(mcp_store_set_string(b, key, "", &error));
        }
        CHECK(mcp_store_keys(b, &keys, &n, &error) && n == counts[c] && keys[n] == NULL);
        for (size_t i = 0; i < n; i++) {
            snprintf(key, sizeof key, "k%zu", i);
            CHECK(strcmp(keys[i], key) == 0);
        }
    }
    mcp__arena_release();
}

static void store_increment_counts_from_zero_and_refuses_text(void) {
    mcp_result error = {0};
    mcp_bucket *b = mcp_store_open("counts", &error);
    int64_t n = 0;
    CHECK(mcp_store_increment(b, "n", 1, &n, &error) && n == 1);
    CHECK(mcp_store_increment(b, "n", 41, &n, &error) && n == 42);
    CHECK(mcp_store_increment(b, "n", -50, &n, &error) && n == -8);
    const char *text = NULL;
    CHECK(mcp_store_get_string(b, "n", &text, &error) && strcmp(text, "-8") == 0);
    CHECK(mcp_store_set_string(b, "t", "x", &error));
    CHECK(!mcp_store_increment(b, "t", 1, &n, &error));
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"counts\": increment \"t\": the value is not a decimal "
                     "integer"));
    CHECK(mcp_store_set_string(b, "max", "9223372036854775807", &error));
    CHECK(!mcp_store_increment(b, "max", 1, NULL, &error));
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"counts\": increment \"max\": the sum overflows a 64-bit "
                     "integer"));
    mcp__arena_release();
}

/* An update's change: appends `data` (text) to the old value; the first
 * time, another writer sets the key in between. */
static int changes;
static char *append_racing(const char *old, size_t old_len, size_t *new_len, void *data) {
    if (changes++ == 0) {
        mcp_bucket *other = mcp_store_open("update", NULL);
        CHECK(other != NULL && mcp_store_set_string(other, "list", "a", NULL));
    }
    size_t add = strlen(data);
    char *out = malloc(old_len + add + 1);
    if (out == NULL) return NULL;
    if (old != NULL) memcpy(out, old, old_len);
    memcpy(out + old_len, data, add + 1);
    *new_len = old_len + add;
    return out;
}

/* A change that loses every time: it writes the key itself. */
static char *always_beaten(const char *old, size_t old_len, size_t *new_len, void *bucket) {
    (void)old, (void)old_len;
    changes++;
    CHECK(mcp_store_increment(bucket, "k", 1, NULL, NULL));
    *new_len = 0;
    return malloc(1);
}

static char *no_value(const char *old, size_t old_len, size_t *new_len, void *data) {
    (void)old, (void)old_len, (void)new_len, (void)data;
    return NULL;
}

static void store_update_retries_when_another_writer_wins_and_gives_up_in_time(void) {
    mcp_result error = {0};
    mcp_bucket *b = mcp_store_open("update", &error);
    const char *value = NULL;
    size_t len = 0;
    changes = 0;
    CHECK(mcp_store_update(b, "list", append_racing, "b", &value, &len, &error));
    CHECK(changes == 2 && len == 2 && strcmp(value, "ab") == 0);
    CHECK(mcp_store_get_string(b, "list", &value, &error) && strcmp(value, "ab") == 0);

    mcp_bucket *contended = mcp_store_open("contended", &error);
    changes = 0;
    CHECK(!mcp_store_update(contended, "k", always_beaten, contended, NULL, NULL, &error));
    CHECK(changes == MCP_STORE_UPDATE_ATTEMPTS);
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"contended\": \"k\" changed under 64 updates in a row "
                     "(other calls are writing it)"));

    CHECK(!mcp_store_update(b, "list", no_value, NULL, NULL, NULL, &error));
    CHECK(fails_with(error, MCP_FAILED,
                     "key-value bucket \"update\": update \"list\": the change gave no value"));
    CHECK(mcp_store_get_string(b, "list", &value, &error) && strcmp(value, "ab") == 0);
    mcp__arena_release();
}

static void store_faults_become_results_naming_the_policy_key(void) {
    mcp_result error = {0};
    mcp__kv_fault denied = {MCP__KV_ACCESS_DENIED, NULL};
    CHECK(!mcp__kv_error(&error, "notes", "open", NULL, &denied));
    CHECK(fails_with(error, MCP_DENIED,
                     "this plugin may not open the key-value bucket \"notes\": the server's "
                     "policy grants it with `[plugins.<this plugin>.keyvalue] buckets = "
                     "[\"notes\"]`"));
    const char *quota = "value of 9 bytes is over plugins.p.keyvalue.max_value_size (8 B)";
    mcp__kv_fault other = {MCP__KV_OTHER, strdup(quota)};
    CHECK(!mcp__kv_error(&error, "b", "set", "k", &other));
    CHECK(error.status == MCP_FAILED && strstr(error.message, quota) != NULL &&
          strncmp(error.message, "key-value bucket \"b\": set \"k\": ", 31) == 0);
    mcp__result_free(&error);
    mcp__kv_fault missing = {MCP__KV_NO_SUCH_STORE, NULL};
    CHECK(!mcp__kv_error(&error, "b", "open", NULL, &missing));
    CHECK(fails_with(error, MCP_FAILED, "the host has no store for the key-value bucket \"b\""));
    mcp__arena_release();
}

int main(void) {
    values_are_read_by_key_with_fallbacks();
    malformed_json_is_refused_with_the_offset();
    numbers_of_any_length_and_nested_objects_are_read();
    nesting_is_bounded();
    integers_are_read_exactly_or_refused_naming_the_bounds();
    quote_escapes_what_json_requires();
    json_results_are_checked_and_errors_keep_their_case();
    invalid_utf8_is_repaired_and_valid_utf8_is_kept();
    templates_match_one_segment_or_any_text();
    templates_match_as_the_shared_cases_say();
    fields_make_the_schemas_json_would();
    store_values_round_trip_and_delete();
    store_keys_walk_every_page();
    store_increment_counts_from_zero_and_refuses_text();
    store_update_retries_when_another_writer_wins_and_gives_up_in_time();
    store_faults_become_results_naming_the_policy_key();
    if (failures == 0) printf("sdk_test: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
