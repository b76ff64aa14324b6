/*
 * mcp_wasm_sdk.h: the C guest SDK of mcp-wasm-host.
 *
 * A plugin declares a table of tools; the SDK implements the `plugin`
 * world's exports (list-tools, call-tool) over it, parses each call's
 * arguments into a JSON tree, and turns the handler's mcp_result into the
 * WIT result. A tool in full:
 *
 *     #include "mcp_wasm_sdk.h"
 *
 *     static mcp_result greet(const mcp_value *args) {
 *         const char *name = mcp_get_string(args, "name", "world");
 *         if (name[0] == '\0') return mcp_invalid_arguments("name is empty");
 *         mcp_log(MCP_INFO, "greeting %zu bytes", strlen(name));
 *         return mcp_text("Hello, %s!", name);
 *     }
 *
 *     MCP_TOOLS(
 *         MCP_TOOL("greet", "Greets someone by name.",
 *                  MCP_FIELDS(MCP_REQUIRED("name", MCP_STRING, "Whom to greet.")),
 *                  greet, .read_only = MCP_YES),
 *     )
 *
 * The input schema can also be JSON text: MCP_JSON({"type": "object", ...}).
 *
 * Each call runs in a fresh instance, so nothing persists between calls
 * except what a tool keeps in the host's key-value store (mcp_store_open).
 * Strings the SDK hands out (arguments, mcp_quote, stored values) stay
 * valid until the handler returns; the SDK frees them afterwards.
 *
 * See docs/c.md for the guide and the full reference.
 */
#ifndef MCP_WASM_SDK_H
#define MCP_WASM_SDK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MCP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MCP_PRINTF(fmt, args)
#endif

/* ---- JSON values (a call's arguments) -------------------------------- */

/** The type of a JSON value. */
typedef enum mcp_json_type {
    MCP_JSON_NULL,
    MCP_JSON_BOOL,
    MCP_JSON_NUMBER,
    MCP_JSON_STRING,
    MCP_JSON_ARRAY,
    MCP_JSON_OBJECT,
} mcp_json_type;

/** A parsed JSON value. Read it through the functions below. */
typedef struct mcp_value {
    mcp_json_type type;
    bool boolean;             /* MCP_JSON_BOOL */
    double number;            /* MCP_JSON_NUMBER */
    /* MCP_JSON_NUMBER, read exactly from its text (never through a double),
     * for mcp_get_int64: `integer` when it is an integer of at most 64 bits
     * (5, 5.0 and 5e0 are), with its sign and magnitude; `fraction` when it
     * is not an integer (neither: beyond 64 bits); `float_form` when it is
     * written with a fraction or an exponent. */
    bool integer, fraction, float_form, negative;
    uint64_t magnitude;
    char *string;             /* MCP_JSON_STRING: UTF-8, NUL-terminated */
    size_t len;               /* string bytes, or array/object members */
    struct mcp_value *items;   /* array items / object values */
    char **keys;              /* object keys (NUL-terminated) */
} mcp_value;

/** The member `key` of an object, or NULL (absent, or `obj` not an object). */
const mcp_value *mcp_get(const mcp_value *obj, const char *key);
/** Whether `obj` has the member `key` with a value other than null. */
bool mcp_has(const mcp_value *obj, const char *key);
/** The string member `key`, or `fallback` if absent or not a string. */
const char *mcp_get_string(const mcp_value *obj, const char *key, const char *fallback);
/** The number member `key`, or `fallback` if absent or not a number. */
double mcp_get_number(const mcp_value *obj, const char *key, double fallback);
/** The boolean member `key`, or `fallback` if absent or not a boolean. */
bool mcp_get_bool(const mcp_value *obj, const char *key, bool fallback);
/** The array member `key`, or NULL if absent or not an array. */
const mcp_value *mcp_get_array(const mcp_value *obj, const char *key);
/** The number of items of an array (0 for NULL or a non-array). */
size_t mcp_array_len(const mcp_value *array);
/** Item `i` of an array, or NULL if out of range or not an array. */
const mcp_value *mcp_array_at(const mcp_value *array, size_t i);

/** The deepest nesting mcp_json_parse accepts. */
#define MCP_JSON_MAX_DEPTH 128
/**
 * Parses `len` bytes of JSON (RFC 8259, UTF-8). Returns the value (free it
 * with mcp_json_free), or NULL with a message in `error` (which may be NULL)
 * naming the byte offset. Never reads past `len`; nesting deeper than
 * MCP_JSON_MAX_DEPTH is refused.
 */
mcp_value *mcp_json_parse(const char *text, size_t len, char *error, size_t error_size);
/** Frees a value returned by mcp_json_parse (NULL is fine). */
void mcp_json_free(mcp_value *value);

/**
 * `s` as a JSON string literal, quotes included (`he said "hi"` becomes
 * `"he said \"hi\""`), for building JSON with mcp_json(). Freed after the
 * call; returns "null" for NULL.
 */
const char *mcp_quote(const char *s);

/** A JSON text written as C tokens: MCP_JSON({"type": "object"}). */
#define MCP_JSON(...) #__VA_ARGS__

/* ---- Results ---------------------------------------------------------- */

/** How a call ended. */
typedef enum mcp_status {
    MCP_OK,
    /** The arguments matched the schema but cannot be used. */
    MCP_INVALID_ARGUMENTS,
    /** The sandbox denied access to something the tool needs. */
    MCP_DENIED,
    /** Any other failure. */
    MCP_FAILED,
    /** No such resource or prompt (mcp_not_found; a tool fails as MCP_FAILED). */
    MCP_NOT_FOUND,
} mcp_status;

/** One content block of a result (built by the functions below). */
typedef struct mcp_block {
    int kind;        /* 0 text, 1 image, 2 audio */
    char *data;      /* the text (NUL-terminated) or the bytes */
    size_t len;
    char *mime_type; /* image/audio */
} mcp_block;

/** What a handler returns: build it with mcp_text, mcp_value or an error. */
typedef struct mcp_result {
    mcp_status status;
    /** The error's message (status other than MCP_OK). */
    char *message;
    /** Structured content, a JSON text, or NULL. */
    char *structured;
    /** The tool ran but the result describes a failure (isError). */
    bool is_error;
    mcp_block *blocks;
    size_t block_count;
} mcp_result;

/** One text block, printf-formatted (use "%s" for arbitrary text). */
mcp_result mcp_text(const char *fmt, ...) MCP_PRINTF(1, 2);
/**
 * Structured content, printf-formatted JSON, also sent as a text block for
 * older clients. Quote strings with mcp_quote(). Give the tool an
 * `.output_schema` to describe it.
 */
mcp_result mcp_json(const char *fmt, ...) MCP_PRINTF(1, 2);
/** No content at all. */
mcp_result mcp_empty(void);
/** Adds a text block to `r`. Returns false (and fails `r`) when out of memory. */
bool mcp_add_text(mcp_result *r, const char *fmt, ...) MCP_PRINTF(2, 3);
/** Adds an image (`mime_type` e.g. "image/png"; the bytes are copied). */
bool mcp_add_image(mcp_result *r, const void *data, size_t len, const char *mime_type);
/** Adds an audio clip (`mime_type` e.g. "audio/wav"; the bytes are copied). */
bool mcp_add_audio(mcp_result *r, const void *data, size_t len, const char *mime_type);

/** The arguments cannot be used (e.g. a date that does not exist). */
mcp_result mcp_invalid_arguments(const char *fmt, ...) MCP_PRINTF(1, 2);
/** The tool failed (e.g. a computation without an answer). */
mcp_result mcp_failed(const char *fmt, ...) MCP_PRINTF(1, 2);
/** The sandbox denied access to something (e.g. a file). */
mcp_result mcp_denied(const char *fmt, ...) MCP_PRINTF(1, 2);

/* ---- Integer arguments, exactly --------------------------------------- */

/**
 * The integer member `key`, read exactly (never through a double): returns
 * true with `*out` set, or true with `*out` untouched when the member is
 * absent or null (set `*out` to the default first). Returns false, with
 * `*error` (if not NULL) set to an invalid-arguments result that names the
 * member and the bounds, when it is not an integer from INT64_MIN to
 * INT64_MAX: not a number, a fraction, out of range, or beyond 2^53 - 1 in
 * float form (`9007199254740993.0`, `1e19`; `5.0` and `1e3` are read), where
 * a double cannot tell neighbouring integers apart. Use it with MCP_INT64.
 */
bool mcp_get_int64(const mcp_value *obj, const char *key, int64_t *out, mcp_result *error);
/** As mcp_get_int64, for an integer from 0 to UINT64_MAX (MCP_UINT64). */
bool mcp_get_uint64(const mcp_value *obj, const char *key, uint64_t *out, mcp_result *error);

/* ---- Logging, progress, and requests to the client ------------------- */

/** Log levels, as in syslog and MCP. */
typedef enum mcp_level {
    MCP_DEBUG,
    MCP_INFO,
    MCP_NOTICE,
    MCP_WARNING,
    MCP_ERROR,
    MCP_CRITICAL,
    MCP_ALERT,
    MCP_EMERGENCY,
} mcp_level;

/** Logs to the server's log and the client. Never log secrets. */
void mcp_log(mcp_level level, const char *fmt, ...) MCP_PRINTF(2, 3);
/**
 * Reports progress: `total` < 0 means unknown, `message` may be NULL.
 * Reports that do not increase are dropped by the host.
 */
void mcp_progress(double progress, double total, const char *message);

/**
 * Asks the client's model to answer `prompt` (sampling). `system_prompt`
 * may be NULL. Returns the reply's text (freed after the call), or NULL with
 * `*error` set to a result to return (denied when the policy refused,
 * failed otherwise); `error` may be NULL.
 */
const char *mcp_sample(const char *prompt, const char *system_prompt, uint32_t max_tokens,
                       mcp_result *error);
/**
 * Asks the client's user for input (elicitation) with a form described by
 * `requested_schema` (JSON). Returns the answer object (freed after the
 * call), or NULL: declined or cancelled (`*error` untouched), or failed
 * (`*error` set as for mcp_sample).
 */
const mcp_value *mcp_elicit(const char *message, const char *requested_schema, mcp_result *error);

/* ---- Remembering things: the key-value store ------------------------- */

/*
 * A tool keeps what it must remember between calls (and restarts) in a
 * bucket of the host's key-value store, over the standard
 * wasi:keyvalue@0.2.0-draft2. The server's policy grants buckets by name,
 * per plugin, and nothing else opens:
 *
 *     [plugins.NAME.keyvalue]
 *     buckets = ["default"]
 *
 *     static mcp_result count(const mcp_value *args) {
 *         mcp_result error;
 *         int64_t calls;
 *         mcp_bucket *b = mcp_store_open("default", &error);
 *         if (b == NULL || !mcp_store_increment(b, "calls", 1, &calls, &error)) return error;
 *         return mcp_text("called %lld times", (long long)calls);
 *     }
 *
 * Keys and bucket names are UTF-8 text; values are bytes. Each function
 * returns false (mcp_store_open: NULL) on failure, with `*error` (which may
 * be NULL) set to the result to return: denied, naming the policy key that
 * grants the bucket, when the policy does not grant it; failed otherwise,
 * naming the bucket, the operation and the host's reason (a quota names its
 * policy key). A plugin that never calls these functions does not import
 * wasi:keyvalue and needs no grant.
 *
 * Memory: a bucket, and every value and key list these functions hand out,
 * stay valid until the handler returns; the SDK frees them (and gives the
 * bucket back to the host) afterwards. Never free them yourself.
 */

/** An open bucket of the host's key-value store. */
typedef struct mcp_bucket mcp_bucket;

/** How many times mcp_store_update tries before it gives up to other
 * writers of the same key (each try costs the host two store operations of
 * its `max_operations` per call). */
#define MCP_STORE_UPDATE_ATTEMPTS 64

/** Opens the bucket `name` if the policy grants it to this plugin
 * (`[plugins.NAME.keyvalue] buckets`); else NULL, with `*error` set. */
mcp_bucket *mcp_store_open(const char *name, mcp_result *error);
/** The bucket's name. */
const char *mcp_store_name(const mcp_bucket *bucket);

/**
 * The value of `key`: `*value` gets its `*len` bytes (`len` may be NULL),
 * followed by a NUL, or NULL (and 0) when the key has no value.
 */
bool mcp_store_get(mcp_bucket *bucket, const char *key, const char **value, size_t *len,
                   mcp_result *error);
/** The value of `key` as text (NULL when it has none); fails when the value
 * is not UTF-8 or holds a NUL byte. */
bool mcp_store_get_string(mcp_bucket *bucket, const char *key, const char **value,
                          mcp_result *error);
/** Sets `key` to the `len` bytes at `value` (copied). */
bool mcp_store_set(mcp_bucket *bucket, const char *key, const void *value, size_t len,
                   mcp_result *error);
/** Sets `key` to the text `value` (without its NUL). */
bool mcp_store_set_string(mcp_bucket *bucket, const char *key, const char *value,
                          mcp_result *error);
/** Deletes `key` (nothing happens if it has no value). */
bool mcp_store_delete(mcp_bucket *bucket, const char *key, mcp_result *error);
/** Whether `key` has a value, in `*exists`. */
bool mcp_store_exists(mcp_bucket *bucket, const char *key, bool *exists, mcp_result *error);
/**
 * Every key of the bucket, read from the host page by page: `*keys` gets
 * an array of `*count` strings (`count` may be NULL), ended by a NULL.
 */
bool mcp_store_keys(mcp_bucket *bucket, const char *const **keys, size_t *count,
                    mcp_result *error);
/** Adds `delta` to the number held in `key` (0 if it has no value), in one
 * atomic step; `*value` (may be NULL) gets the new number. Fails when the
 * value is not a decimal integer or the sum overflows. */
bool mcp_store_increment(mcp_bucket *bucket, const char *key, int64_t delta, int64_t *value,
                         mcp_result *error);

/**
 * The new value of a key from its current one, for mcp_store_update: `old`
 * is the current value (`old_len` bytes and a NUL; NULL when the key has
 * none), valid only during the call. Returns the new value in memory from
 * malloc (the SDK frees it), with its length in `*new_len`; NULL fails the
 * update.
 */
typedef char *(*mcp_store_change)(const char *old, size_t old_len, size_t *new_len, void *data);

/**
 * Replaces the value of `key` with `change(current value, data)`,
 * atomically: if another call writes the key in between, it reads the key
 * again and calls `change` again (up to MCP_STORE_UPDATE_ATTEMPTS times).
 * `*value` and `*len` (both may be NULL) get the value written.
 */
bool mcp_store_update(mcp_bucket *bucket, const char *key, mcp_store_change change, void *data,
                      const char **value, size_t *len, mcp_result *error);

/* ---- Declaring tools --------------------------------------------------- */

/** A behaviour hint: unset (the MCP default), no or yes. */
typedef enum mcp_hint { MCP_UNSET = 0, MCP_NO, MCP_YES } mcp_hint;

/** The theme an icon is drawn for: any (the default), light or dark. */
typedef enum mcp_icon_theme { MCP_THEME_ANY = 0, MCP_THEME_LIGHT, MCP_THEME_DARK } mcp_icon_theme;

/**
 * An icon clients may show for a tool. `src` is an `https:` URL or a
 * `data:` URI of an image (at most 64 KiB); `mime_type` (optional) e.g.
 * "image/png"; `sizes` (optional) space-separated `WxH` or `any`, e.g.
 * "48x48 96x96".
 */
typedef struct mcp_icon {
    const char *src;
    const char *mime_type;
    const char *sizes;
    mcp_icon_theme theme;
} mcp_icon;

/** A tool's icons for its `.icons` field: MCP_ICONS({.src = "..."}, ...). */
#define MCP_ICONS(...) ((const mcp_icon[]){__VA_ARGS__, {0}})

/**
 * Whether a call of a tool may run as an MCP task (the call returns at once
 * with a task id, the handler goes on running under the policy's
 * `task_timeout`, the client polls for the result): never (the default),
 * when the client supports tasks, or always. The handler is the same.
 */
typedef enum mcp_task_support {
    MCP_TASK_FORBIDDEN = 0,
    MCP_TASK_OPTIONAL,
    MCP_TASK_REQUIRED
} mcp_task_support;

/** A tool's handler: its arguments, validated against the input schema. */
typedef mcp_result (*mcp_handler)(const mcp_value *args);

/* ---- Schemas without JSON --------------------------------------------- */

/**
 * One argument of a tool (or one field of its structured result): its name,
 * the JSON Schema of its value (MCP_STRING, MCP_ARRAY_OF(MCP_NUMBER), ...,
 * or any MCP_JSON({...}) object), its description, and whether a call must
 * give it. MCP_REQUIRED and MCP_OPTIONAL write one; MCP_FIELDS lists them.
 */
typedef struct mcp_field {
    const char *name;
    const char *schema;
    const char *description;
    bool required;
} mcp_field;

/** A required argument or result field. */
#define MCP_REQUIRED(name_, schema_, description_) {(name_), (schema_), (description_), true}
/** An optional argument or result field. */
#define MCP_OPTIONAL(name_, schema_, description_) {(name_), (schema_), (description_), false}
/**
 * The fields of an object, for MCP_TOOL's input schema or `.output_fields`:
 * the SDK writes {"type": "object", "properties": ..., "required": [...]}
 * from them (the input schema also with "additionalProperties": false).
 */
#define MCP_FIELDS(...) ((const mcp_field[]){__VA_ARGS__, {0}})

/* The schemas of a field's value. */
#define MCP_STRING "{\"type\": \"string\"}"
#define MCP_NUMBER "{\"type\": \"number\"}"
/** An integer a double holds exactly, from -(2^53 - 1) to 2^53 - 1, as
 * mcp_get_number reads it (for all 64 bits: MCP_INT64, mcp_get_int64). */
#define MCP_INTEGER \
    "{\"type\": \"integer\", \"minimum\": -9007199254740991, \"maximum\": 9007199254740991}"
/** The integers of int32_t and uint32_t (read with mcp_get_number). */
#define MCP_INT32 "{\"type\": \"integer\", \"minimum\": -2147483648, \"maximum\": 2147483647}"
#define MCP_UINT32 "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 4294967295}"
/** The integers of int64_t and uint64_t (read with mcp_get_int64, mcp_get_uint64). */
#define MCP_INT64 \
    "{\"type\": \"integer\", \"minimum\": -9223372036854775808, \"maximum\": 9223372036854775807}"
#define MCP_UINT64 "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 18446744073709551615}"
#define MCP_BOOLEAN "{\"type\": \"boolean\"}"
/** An array whose items have the schema `items_` (e.g. MCP_NUMBER). */
#define MCP_ARRAY_OF(items_) "{\"type\": \"array\", \"items\": " items_ "}"
/** An integer from `min_` to `max_`, both included (numeric literals). */
#define MCP_INTEGER_IN(min_, max_) \
    "{\"type\": \"integer\", \"minimum\": " #min_ ", \"maximum\": " #max_ "}"
/** A number from `min_` to `max_`, both included (numeric literals). */
#define MCP_NUMBER_IN(min_, max_) \
    "{\"type\": \"number\", \"minimum\": " #min_ ", \"maximum\": " #max_ "}"
/** A string that is one of the given string literals: MCP_ONE_OF("a", "b"). */
#define MCP_ONE_OF(...) "{\"type\": \"string\", \"enum\": " MCP_JSON([__VA_ARGS__]) "}"

/** One tool. */
typedef struct mcp_tool {
    const char *name;          /* 1-128 of A-Z a-z 0-9 _ . - */
    const char *description;   /* for the model */
    const char *input_schema;  /* JSON Schema of an object */
    mcp_handler handler;
    const char *title;         /* optional: display name */
    const char *output_schema; /* optional: schema of mcp_value results */
    mcp_hint read_only, destructive, idempotent, open_world;
    const mcp_icon *icons;     /* optional: MCP_ICONS(...), at most 8 */
    mcp_task_support task_support; /* optional: MCP_TASK_FORBIDDEN by default */
    const char *view;          /* optional: the ui:// URI of an MCP_VIEW showing its results */
    const mcp_field *input_fields;  /* MCP_FIELDS given as the input schema */
    const mcp_field *output_fields; /* optional: MCP_FIELDS, instead of .output_schema */
} mcp_tool;

/**
 * A tool entry: name, description, input schema (MCP_FIELDS(...), or JSON
 * text: MCP_JSON helps), handler, then optional designated fields: .title,
 * .output_fields or .output_schema, .read_only, .destructive, .idempotent,
 * .open_world, .icons, .task_support, .view.
 */
#define MCP_TOOL(name_, description_, input_, handler_, ...)                                  \
    {.name = (name_), .description = (description_),                                          \
     .input_schema = _Generic((input_), const mcp_field *: (const char *)0,                   \
                              mcp_field *: (const char *)0, default: (input_)),               \
     .input_fields = _Generic((input_), const mcp_field *: (input_), mcp_field *: (input_),  \
                              default: (const mcp_field *)0),                                 \
     .handler = (handler_), __VA_ARGS__}

/** The plugin's tool table; use once, at file scope. */
#define MCP_TOOLS(...)                                                  \
    const mcp_tool mcp_tools[] = {__VA_ARGS__};                         \
    const size_t mcp_tool_count = sizeof(mcp_tools) / sizeof(mcp_tools[0]);

extern const mcp_tool mcp_tools[];
extern const size_t mcp_tool_count;

/* ---- Resources, prompts and completions (WIT 0.2.1) -------------------- */

/**
 * A resource's reader. `uri` is the URI read; `vars` holds a template's
 * variables (an object of strings; empty for a plain resource). Return the
 * contents: each text block of the result is a text part, each image or
 * audio block a binary part. An error result fails the read (MCP_FAILED,
 * MCP_DENIED, MCP_INVALID_ARGUMENTS; mcp_not_found for a URI that names
 * nothing).
 */
typedef mcp_result (*mcp_resource_reader)(const char *uri, const mcp_value *vars);

/** The MIME type of an interactive view (MCP Apps). */
#define MCP_VIEW_MIME_TYPE "text/html;profile=mcp-app"

/** One resource, resource template or interactive view. */
typedef struct mcp_resource {
    const char *uri;          /* an absolute URI; for a template, the URI template */
    const char *name;
    const char *text;         /* the contents, when there is no reader */
    mcp_resource_reader read; /* optional: the contents from a function */
    const char *title;        /* optional */
    const char *description;  /* optional */
    const char *mime_type;    /* optional */
    bool is_template;         /* `uri` is a template: {var} one path segment, {+var} any text */
    bool is_view;             /* an interactive view (MCP_VIEW) */
    mcp_hint prefers_border;  /* a view's border, for the client */
    const char *connect_domains;  /* a view's CSP: origins for fetch, space-separated */
    const char *resource_domains; /* a view's CSP: origins for images, scripts, styles */
} mcp_resource;

/** A resource whose contents are `text_` (or, with .read, a function's). */
#define MCP_RESOURCE(uri_, name_, text_, ...) \
    {.uri = (uri_), .name = (name_), .text = (text_), __VA_ARGS__}
/** A resource template whose reads `read_` answers. */
#define MCP_RESOURCE_TEMPLATE(uri_template_, name_, read_, ...) \
    {.uri = (uri_template_), .name = (name_), .read = (read_), .is_template = true, __VA_ARGS__}
/** An interactive view: a ui:// resource whose text is the HTML document `html_`. */
#define MCP_VIEW(uri_, name_, html_, ...)                                                  \
    {.uri = (uri_), .name = (name_), .text = (html_), .mime_type = MCP_VIEW_MIME_TYPE, \
     .is_view = true, __VA_ARGS__}

/** The plugin's resources, templates and views; use at most once, at file scope. */
#define MCP_RESOURCES(...)                                                       \
    const mcp_resource mcp_resources[] = {__VA_ARGS__};                          \
    const size_t mcp_resource_count = sizeof(mcp_resources) / sizeof(mcp_resources[0]);

extern const mcp_resource mcp_resources[];
extern const size_t mcp_resource_count;

/** One argument of a prompt. */
typedef struct mcp_prompt_argument {
    const char *name;
    const char *description;   /* optional */
    bool required;
    const char *const *values; /* optional: MCP_VALUES(...), its completions */
} mcp_prompt_argument;

/** The values an argument completes to, in order; those that start with
 * what the user typed are offered. */
#define MCP_VALUES(...) ((const char *const[]){__VA_ARGS__, NULL})
/** A prompt's arguments. */
#define MCP_ARGUMENTS(...) ((const mcp_prompt_argument[]){__VA_ARGS__, {0}})

/**
 * A prompt's handler: `args` is an object of the given arguments (strings;
 * every required one is present). Each text, image or audio block of the
 * result is one message from the user; an error result fails the request.
 */
typedef mcp_result (*mcp_prompt_handler)(const mcp_value *args);

/** One prompt. */
typedef struct mcp_prompt {
    const char *name;        /* 1-128 of A-Z a-z 0-9 _ . - */
    const char *description;
    mcp_prompt_handler handler;
    const char *title;                   /* optional */
    const mcp_prompt_argument *arguments; /* optional: MCP_ARGUMENTS(...) */
} mcp_prompt;

/** A prompt entry: name, description, handler, then optional .title, .arguments. */
#define MCP_PROMPT(name_, description_, handler_, ...) \
    {.name = (name_), .description = (description_), .handler = (handler_), __VA_ARGS__}

/** The plugin's prompts; use at most once, at file scope. */
#define MCP_PROMPTS(...)                                  \
    const mcp_prompt mcp_prompts[] = {__VA_ARGS__};       \
    const size_t mcp_prompt_count = sizeof(mcp_prompts) / sizeof(mcp_prompts[0]);

extern const mcp_prompt mcp_prompts[];
extern const size_t mcp_prompt_count;

/** No such resource or prompt (a resource reader's or prompt's error). */
mcp_result mcp_not_found(const char *fmt, ...) MCP_PRINTF(1, 2);

/**
 * Whether `uri` matches the URI template `template_` ({var}: one or more
 * characters but '/'; {+var}: one or more of any). When it does and `vars`
 * is not NULL, `*vars` gets an object of the variables (free it with
 * mcp_json_free).
 */
bool mcp_match_template(const char *template_, const char *uri, mcp_value **vars);

#ifdef __cplusplus
}
#endif

#endif /* MCP_WASM_SDK_H */
