/*
 * world.c: with store_host.c (the wasi:keyvalue imports), the only file
 * that includes the bindings wit-bindgen generates (plugin_full.h): the
 * `tools` exports over the plugin's mcp_tools table,
 * the `resources`, `prompts` and `completions` exports over mcp_resources
 * and mcp_prompts (empty unless the plugin defines them), and the host and
 * client imports behind mcp_log, mcp_progress, mcp_sample and mcp_elicit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"
#include "plugin_full.h"

typedef exports_mcp_wasm_host_plugin_tools_tool_definition_t tool_definition;
typedef exports_mcp_wasm_host_plugin_tools_call_result_t call_result;
typedef exports_mcp_wasm_host_plugin_tools_tool_error_t tool_error;
typedef mcp_wasm_host_plugin_types_content_block_t content_block;

/* Moves a malloc'd buffer into a WIT string (the bindings free it after
 * the call), repairing invalid UTF-8 (which would trap the call). */
static plugin_full_string_t take(char *data, size_t len) {
    if (data != NULL && !mcp__utf8_valid(data, len)) {
        size_t fixed_len = 0;
        char *fixed = mcp__utf8_repair(data, len, &fixed_len);
        free(data);
        data = fixed;
        len = fixed == NULL ? 0 : fixed_len;
    }
    plugin_full_string_t s = {.ptr = (uint8_t *)data, .len = data == NULL ? 0 : len};
    return s;
}

/* A copy of `s` as a WIT string the caller owns. */
static void own(plugin_full_string_t *out, const char *s) {
    if (s == NULL) s = "";
    char *copy = strdup(s);
    *out = take(copy, copy == NULL ? 0 : strlen(copy));
}

/* A borrowed WIT string for an import: `s` itself when it is valid UTF-8,
 * else a repaired copy in `*scratch` (free it after the import returns). */
static plugin_full_string_t borrow(const char *s, char **scratch) {
    *scratch = NULL;
    if (s == NULL) s = "";
    size_t len = strlen(s);
    if (!mcp__utf8_valid(s, len)) {
        *scratch = mcp__utf8_repair(s, len, &len);
        s = *scratch == NULL ? "" : *scratch;
        if (*scratch == NULL) len = 0;
    }
    plugin_full_string_t out = {.ptr = (uint8_t *)s, .len = len};
    return out;
}

static plugin_full_option_string_t some_string(const char *s) {
    plugin_full_option_string_t o = {.is_some = s != NULL};
    if (s != NULL) own(&o.val, s);
    return o;
}

static plugin_full_option_bool_t hint(mcp_hint h) {
    plugin_full_option_bool_t o = {.is_some = h != MCP_UNSET, .val = h == MCP_YES};
    return o;
}

/* Whether a tool's calls may run as tasks (forbidden for a value out of
 * range, as for none). */
static mcp_wasm_host_plugin_types_task_support_t task_support(mcp_task_support t) {
    switch (t) {
    case MCP_TASK_OPTIONAL: return MCP_WASM_HOST_PLUGIN_TYPES_TASK_SUPPORT_OPTIONAL;
    case MCP_TASK_REQUIRED: return MCP_WASM_HOST_PLUGIN_TYPES_TASK_SUPPORT_REQUIRED;
    default: return MCP_WASM_HOST_PLUGIN_TYPES_TASK_SUPPORT_FORBIDDEN;
    }
}

/* The icons of a tool (a table ended by an entry without `src`). */
static void icons(tool_definition *d, const mcp_icon *table) {
    size_t n = 0;
    while (table != NULL && table[n].src != NULL) n++;
    d->icons.len = 0;
    if (n == 0) return;
    d->icons.ptr = calloc(n, sizeof d->icons.ptr[0]);
    if (d->icons.ptr == NULL) return; /* The tool then has no icons. */
    for (size_t i = 0; i < n; i++) {
        const mcp_icon *in = &table[i];
        __typeof__(d->icons.ptr[0]) *out = &d->icons.ptr[i];
        own(&out->src, in->src);
        out->mime_type = some_string(in->mime_type);
        /* `sizes`: space-separated words. */
        const char *s = in->sizes == NULL ? "" : in->sizes;
        size_t words = 0;
        for (const char *p = s; *p != '\0'; p++)
            if (*p != ' ' && (p == s || p[-1] == ' ')) words++;
        out->sizes.ptr = words == 0 ? NULL : calloc(words, sizeof out->sizes.ptr[0]);
        out->sizes.len = 0;
        for (const char *p = s; out->sizes.ptr != NULL && *p != '\0';) {
            while (*p == ' ') p++;
            size_t len = strcspn(p, " ");
            if (len == 0) break;
            out->sizes.ptr[out->sizes.len++] = take(strndup(p, len), len);
            p += len;
        }
        out->theme.is_some = in->theme != MCP_THEME_ANY;
        out->theme.val = in->theme == MCP_THEME_DARK ? MCP_WASM_HOST_PLUGIN_TYPES_ICON_THEME_DARK
                                                     : MCP_WASM_HOST_PLUGIN_TYPES_ICON_THEME_LIGHT;
    }
    d->icons.len = n;
}

/* The schema of a tool's MCP_FIELDS. A field whose schema is not a JSON
 * object leaves it empty, which the host refuses at load; stderr (the
 * server's log) says which. */
static plugin_full_string_t fields_schema(const mcp_tool *t, const mcp_field *fields, bool closed) {
    const char *bad = NULL;
    char *schema = mcp__fields_schema(fields, closed, &bad);
    if (bad != NULL) {
        fprintf(stderr, "mcp_wasm_sdk: tool %s: the schema of field %s is not a JSON object\n",
                t->name, bad);
    }
    return take(schema, schema == NULL ? 0 : strlen(schema));
}

void exports_mcp_wasm_host_plugin_tools_list_tools(
    exports_mcp_wasm_host_plugin_tools_list_tool_definition_t *ret) {
    ret->len = 0;
    ret->ptr = calloc(mcp_tool_count == 0 ? 1 : mcp_tool_count, sizeof(tool_definition));
    if (ret->ptr == NULL) return; /* The host then sees no tools. */
    for (size_t i = 0; i < mcp_tool_count; i++) {
        const mcp_tool *t = &mcp_tools[i];
        tool_definition *d = &ret->ptr[i];
        own(&d->name, t->name);
        d->title = some_string(t->title);
        own(&d->description, t->description);
        if (t->input_schema == NULL && t->input_fields != NULL) {
            d->input_schema = fields_schema(t, t->input_fields, true);
        } else {
            own(&d->input_schema, t->input_schema);
        }
        if (t->output_schema == NULL && t->output_fields != NULL) {
            d->output_schema.is_some = true;
            d->output_schema.val = fields_schema(t, t->output_fields, false);
        } else {
            d->output_schema = some_string(t->output_schema);
        }
        d->annotations.title = some_string(t->title);
        d->annotations.read_only_hint = hint(t->read_only);
        d->annotations.destructive_hint = hint(t->destructive);
        d->annotations.idempotent_hint = hint(t->idempotent);
        d->annotations.open_world_hint = hint(t->open_world);
        icons(d, t->icons);
        d->task_support = task_support(t->task_support);
    }
    ret->len = mcp_tool_count;
}

static bool error_result(tool_error *err, mcp_status status, char *message) {
    static const uint8_t tags[] = {
        [MCP_INVALID_ARGUMENTS] = MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_INVALID_ARGUMENTS,
        [MCP_DENIED] = MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_DENIED,
        [MCP_FAILED] = MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_FAILED,
    };
    err->tag = status <= MCP_FAILED && status != MCP_OK
                   ? tags[status]
                   : MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_FAILED;
    /* Every case of tool-error holds one string at the same place. */
    if (message != NULL) {
        err->val.failed = take(message, strlen(message));
    } else {
        own(&err->val.failed, "out of memory");
    }
    return false;
}

/* Moves a block's buffers into a WIT content block. */
static void move_block(content_block *c, mcp_block *b) {
    if (b->kind == 0) {
        c->tag = MCP_WASM_HOST_PLUGIN_TYPES_CONTENT_BLOCK_TEXT;
        c->val.text.text = take(b->data, b->len);
    } else {
        c->tag = b->kind == 1 ? MCP_WASM_HOST_PLUGIN_TYPES_CONTENT_BLOCK_IMAGE
                              : MCP_WASM_HOST_PLUGIN_TYPES_CONTENT_BLOCK_AUDIO;
        c->val.image.data.ptr = (uint8_t *)b->data;
        c->val.image.data.len = b->len;
        c->val.image.mime_type = take(b->mime_type, strlen(b->mime_type));
    }
}

/* Moves the handler's result into the WIT call-result. */
static bool success(mcp_result *r, call_result *ret, tool_error *err) {
    memset(ret, 0, sizeof *ret);
    ret->content.ptr = calloc(r->block_count == 0 ? 1 : r->block_count, sizeof(content_block));
    if (ret->content.ptr == NULL) {
        mcp__result_free(r);
        return error_result(err, MCP_FAILED, NULL);
    }
    for (size_t i = 0; i < r->block_count; i++) move_block(&ret->content.ptr[i], &r->blocks[i]);
    ret->content.len = r->block_count;
    if (r->structured != NULL) {
        ret->structured_content.is_some = true;
        ret->structured_content.val = take(r->structured, strlen(r->structured));
    }
    ret->is_error = r->is_error;
    /* The blocks' buffers now belong to the WIT result. */
    free(r->blocks);
    free(r->message);
    return true;
}

bool exports_mcp_wasm_host_plugin_tools_call_tool(plugin_full_string_t *name,
                                                  plugin_full_string_t *arguments,
                                                  call_result *ret, tool_error *err) {
    const mcp_tool *tool = NULL;
    for (size_t i = 0; i < mcp_tool_count && tool == NULL; i++) {
        size_t n = strlen(mcp_tools[i].name);
        if (n == name->len && memcmp(mcp_tools[i].name, name->ptr, n) == 0) tool = &mcp_tools[i];
    }
    if (tool == NULL) {
        size_t shown = name->len > 128 ? 128 : name->len;
        char *message = mcp__format("no tool named \"%.*s\"", (int)shown, (const char *)name->ptr);
        plugin_full_string_free(name);
        plugin_full_string_free(arguments);
        error_result(err, MCP_FAILED, message);
        err->tag = MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_UNKNOWN_TOOL;
        return false;
    }
    char parse_error[96];
    mcp_value *args = mcp_json_parse((const char *)arguments->ptr, arguments->len, parse_error,
                                    sizeof parse_error);
    plugin_full_string_free(name);
    plugin_full_string_free(arguments);
    if (args == NULL) {
        char *message = mcp__format("the arguments are not JSON: %s", parse_error);
        return error_result(err, MCP_INVALID_ARGUMENTS, message);
    }
    mcp_result r = tool->handler(args);
    mcp_json_free(args);
    mcp__arena_release();
    if (r.status != MCP_OK) {
        mcp_status status = r.status;
        char *message = r.message;
        r.message = NULL;
        mcp__result_free(&r);
        return error_result(err, status, message);
    }
    return success(&r, ret, err);
}

/* ---- resources, prompts and completions ---- */

typedef exports_mcp_wasm_host_plugin_resources_resource_definition_t resource_definition;
typedef exports_mcp_wasm_host_plugin_resources_resource_template_t resource_template;
typedef exports_mcp_wasm_host_plugin_resources_resource_contents_t resource_contents;
typedef mcp_wasm_host_plugin_errors_serve_error_t serve_error;

/* The space-separated words of `s` as a list of WIT strings. */
static void words(plugin_full_list_string_t *out, const char *s) {
    out->ptr = NULL;
    out->len = 0;
    if (s == NULL) return;
    size_t n = 0;
    for (const char *p = s; *p != '\0'; p++)
        if (*p != ' ' && (p == s || p[-1] == ' ')) n++;
    if (n == 0 || (out->ptr = calloc(n, sizeof out->ptr[0])) == NULL) return;
    for (const char *p = s; *p != '\0';) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (len == 0) break;
        out->ptr[out->len++] = take(strndup(p, len), len);
        p += len;
    }
}

/* A serve-error with `status`'s case and `message` (taken; NULL: out of
 * memory). */
static bool serve_failed(serve_error *err, mcp_status status, char *message) {
    switch (status) {
    case MCP_NOT_FOUND: err->tag = MCP_WASM_HOST_PLUGIN_ERRORS_SERVE_ERROR_NOT_FOUND; break;
    case MCP_INVALID_ARGUMENTS:
        err->tag = MCP_WASM_HOST_PLUGIN_ERRORS_SERVE_ERROR_INVALID_ARGUMENTS;
        break;
    case MCP_DENIED: err->tag = MCP_WASM_HOST_PLUGIN_ERRORS_SERVE_ERROR_DENIED; break;
    default: err->tag = MCP_WASM_HOST_PLUGIN_ERRORS_SERVE_ERROR_FAILED;
    }
    /* Every case of serve-error holds one string at the same place. */
    if (message != NULL) {
        err->val.failed = take(message, strlen(message));
    } else {
        own(&err->val.failed, "out of memory");
    }
    return false;
}

/* A handler's error result as a serve-error. */
static bool result_failed(serve_error *err, mcp_result *r) {
    mcp_status status = r->status;
    char *message = r->message;
    r->message = NULL;
    mcp__result_free(r);
    return serve_failed(err, status, message);
}

/* A copy of a WIT string as a C string (the WIT string is freed). */
static char *c_string(plugin_full_string_t *s) {
    char *out = strndup((const char *)s->ptr, s->len);
    plugin_full_string_free(s);
    return out;
}

void exports_mcp_wasm_host_plugin_resources_list_resources(
    exports_mcp_wasm_host_plugin_resources_list_resource_definition_t *ret) {
    ret->len = 0;
    ret->ptr = calloc(mcp_resource_count == 0 ? 1 : mcp_resource_count,
                      sizeof(resource_definition));
    if (ret->ptr == NULL) return;
    for (size_t i = 0; i < mcp_resource_count; i++) {
        const mcp_resource *r = &mcp_resources[i];
        if (r->is_template) continue;
        resource_definition *d = &ret->ptr[ret->len++];
        own(&d->uri, r->uri);
        own(&d->name, r->name);
        d->title = some_string(r->title);
        d->description = some_string(r->description);
        d->mime_type = some_string(r->mime_type);
        if (r->is_view) {
            d->view.is_some = true;
            d->view.val.prefers_border = hint(r->prefers_border);
            if (r->connect_domains != NULL || r->resource_domains != NULL) {
                d->view.val.csp.is_some = true;
                words(&d->view.val.csp.val.connect_domains, r->connect_domains);
                words(&d->view.val.csp.val.resource_domains, r->resource_domains);
            }
        }
    }
}

void exports_mcp_wasm_host_plugin_resources_list_resource_templates(
    exports_mcp_wasm_host_plugin_resources_list_resource_template_t *ret) {
    ret->len = 0;
    ret->ptr = calloc(mcp_resource_count == 0 ? 1 : mcp_resource_count, sizeof(resource_template));
    if (ret->ptr == NULL) return;
    for (size_t i = 0; i < mcp_resource_count; i++) {
        const mcp_resource *r = &mcp_resources[i];
        if (!r->is_template) continue;
        resource_template *d = &ret->ptr[ret->len++];
        own(&d->uri_template, r->uri);
        own(&d->name, r->name);
        d->title = some_string(r->title);
        d->description = some_string(r->description);
        d->mime_type = some_string(r->mime_type);
    }
}

void exports_mcp_wasm_host_plugin_resources_list_tool_views(
    exports_mcp_wasm_host_plugin_resources_list_tool_view_t *ret) {
    ret->len = 0;
    ret->ptr = calloc(mcp_tool_count == 0 ? 1 : mcp_tool_count, sizeof ret->ptr[0]);
    if (ret->ptr == NULL) return;
    for (size_t i = 0; i < mcp_tool_count; i++) {
        if (mcp_tools[i].view == NULL) continue;
        __typeof__(ret->ptr[0]) *v = &ret->ptr[ret->len++];
        own(&v->tool, mcp_tools[i].name);
        own(&v->resource_uri, mcp_tools[i].view);
        v->model_visible = true;
    }
}

bool exports_mcp_wasm_host_plugin_resources_read_resource(
    plugin_full_string_t *uri_in,
    exports_mcp_wasm_host_plugin_resources_list_resource_contents_t *ret, serve_error *err) {
    char *uri = c_string(uri_in);
    if (uri == NULL) return serve_failed(err, MCP_FAILED, NULL);
    const mcp_resource *found = NULL;
    mcp_value *vars = NULL;
    for (size_t i = 0; i < mcp_resource_count && found == NULL; i++) {
        const mcp_resource *r = &mcp_resources[i];
        /* A plain resource's URI matches itself, with no variables. */
        if (!r->is_template && strcmp(r->uri, uri) == 0 && mcp_match_template(uri, uri, &vars))
            found = r;
    }
    for (size_t i = 0; i < mcp_resource_count && found == NULL; i++) {
        const mcp_resource *r = &mcp_resources[i];
        if (r->is_template && mcp_match_template(r->uri, uri, &vars)) found = r;
    }
    if (found == NULL) {
        char *message = mcp__format("no resource has the URI \"%s\"", uri);
        bool failed = serve_failed(err, MCP_NOT_FOUND, message);
        free(uri);
        return failed;
    }
    mcp_result r = found->read != NULL
                       ? found->read(uri, vars)
                       : mcp_text("%s", found->text == NULL ? "" : found->text);
    mcp_json_free(vars);
    mcp__arena_release();
    if (r.status != MCP_OK) {
        free(uri);
        return result_failed(err, &r);
    }
    if (r.block_count == 0) {
        free(uri);
        mcp__result_free(&r);
        return serve_failed(err, MCP_FAILED,
                            mcp__format("the resource's reader returned no contents"));
    }
    ret->len = 0;
    ret->ptr = calloc(r.block_count, sizeof(resource_contents));
    if (ret->ptr == NULL) {
        free(uri);
        mcp__result_free(&r);
        return serve_failed(err, MCP_FAILED, NULL);
    }
    for (size_t i = 0; i < r.block_count; i++) {
        mcp_block *b = &r.blocks[i];
        resource_contents *c = &ret->ptr[i];
        own(&c->uri, uri);
        if (b->kind == 0) {
            c->mime_type = some_string(found->mime_type);
            c->body.tag = MCP_WASM_HOST_PLUGIN_TYPES_RESOURCE_BODY_TEXT;
            c->body.val.text = take(b->data, b->len);
        } else {
            c->mime_type.is_some = true;
            c->mime_type.val = take(b->mime_type, strlen(b->mime_type));
            c->body.tag = MCP_WASM_HOST_PLUGIN_TYPES_RESOURCE_BODY_BLOB;
            c->body.val.blob.ptr = (uint8_t *)b->data;
            c->body.val.blob.len = b->len;
        }
    }
    ret->len = r.block_count;
    free(uri);
    free(r.blocks);
    free(r.message);
    free(r.structured);
    return true;
}

/* The number of arguments of a prompt (a table ended by an entry without
 * a name). */
static size_t argument_count(const mcp_prompt *p) {
    size_t n = 0;
    while (p->arguments != NULL && p->arguments[n].name != NULL) n++;
    return n;
}

void exports_mcp_wasm_host_plugin_prompts_list_prompts(
    exports_mcp_wasm_host_plugin_prompts_list_prompt_definition_t *ret) {
    ret->len = 0;
    ret->ptr = calloc(mcp_prompt_count == 0 ? 1 : mcp_prompt_count, sizeof ret->ptr[0]);
    if (ret->ptr == NULL) return;
    for (size_t i = 0; i < mcp_prompt_count; i++) {
        const mcp_prompt *p = &mcp_prompts[i];
        __typeof__(ret->ptr[0]) *d = &ret->ptr[i];
        own(&d->name, p->name);
        d->title = some_string(p->title);
        d->description = some_string(p->description);
        size_t n = argument_count(p);
        d->arguments.ptr = n == 0 ? NULL : calloc(n, sizeof d->arguments.ptr[0]);
        for (size_t a = 0; d->arguments.ptr != NULL && a < n; a++) {
            own(&d->arguments.ptr[a].name, p->arguments[a].name);
            d->arguments.ptr[a].description = some_string(p->arguments[a].description);
            d->arguments.ptr[a].required = p->arguments[a].required;
            d->arguments.len = a + 1;
        }
    }
    ret->len = mcp_prompt_count;
}

static const mcp_prompt *find_prompt(const char *name, size_t len) {
    for (size_t i = 0; i < mcp_prompt_count; i++) {
        if (strlen(mcp_prompts[i].name) == len && memcmp(mcp_prompts[i].name, name, len) == 0)
            return &mcp_prompts[i];
    }
    return NULL;
}

/* The name and value pairs as a JSON object of strings (NULL when out of
 * memory); `pairs` is freed. */
static mcp_value *pairs_object(plugin_full_list_tuple2_string_string_t *pairs) {
    mcp_value *obj = calloc(1, sizeof *obj);
    size_t n = pairs->len;
    if (obj != NULL) {
        obj->type = MCP_JSON_OBJECT;
        obj->keys = calloc(n == 0 ? 1 : n, sizeof obj->keys[0]);
        obj->items = calloc(n == 0 ? 1 : n, sizeof obj->items[0]);
        for (size_t i = 0; obj->keys != NULL && obj->items != NULL && i < n; i++) {
            obj->keys[i] = strndup((const char *)pairs->ptr[i].f0.ptr, pairs->ptr[i].f0.len);
            obj->items[i].type = MCP_JSON_STRING;
            obj->items[i].string =
                strndup((const char *)pairs->ptr[i].f1.ptr, pairs->ptr[i].f1.len);
            obj->items[i].len = pairs->ptr[i].f1.len;
            obj->len = i + 1;
        }
        if (obj->keys == NULL || obj->items == NULL || obj->len != n) {
            mcp_json_free(obj);
            obj = NULL;
        }
    }
    plugin_full_list_tuple2_string_string_free(pairs);
    return obj;
}

bool exports_mcp_wasm_host_plugin_prompts_get_prompt(
    plugin_full_string_t *name, plugin_full_list_tuple2_string_string_t *arguments,
    exports_mcp_wasm_host_plugin_prompts_prompt_result_t *ret, serve_error *err) {
    const mcp_prompt *p = find_prompt((const char *)name->ptr, name->len);
    if (p == NULL) {
        size_t shown = name->len > 128 ? 128 : name->len;
        char *message =
            mcp__format("no prompt is called \"%.*s\"", (int)shown, (const char *)name->ptr);
        plugin_full_string_free(name);
        plugin_full_list_tuple2_string_string_free(arguments);
        return serve_failed(err, MCP_NOT_FOUND, message);
    }
    plugin_full_string_free(name);
    mcp_value *args = pairs_object(arguments);
    if (args == NULL) return serve_failed(err, MCP_FAILED, NULL);
    for (size_t a = 0; a < argument_count(p); a++) {
        if (p->arguments[a].required && mcp_get(args, p->arguments[a].name) == NULL) {
            mcp_json_free(args);
            char *message = mcp__format("the argument \"%s\" is required", p->arguments[a].name);
            return serve_failed(err, MCP_INVALID_ARGUMENTS, message);
        }
    }
    mcp_result r = p->handler(args);
    mcp_json_free(args);
    mcp__arena_release();
    if (r.status != MCP_OK) return result_failed(err, &r);
    memset(ret, 0, sizeof *ret);
    ret->messages.ptr = calloc(r.block_count == 0 ? 1 : r.block_count, sizeof ret->messages.ptr[0]);
    if (ret->messages.ptr == NULL) {
        mcp__result_free(&r);
        return serve_failed(err, MCP_FAILED, NULL);
    }
    for (size_t i = 0; i < r.block_count; i++) {
        ret->messages.ptr[i].role = MCP_WASM_HOST_PLUGIN_TYPES_ROLE_USER;
        move_block(&ret->messages.ptr[i].content, &r.blocks[i]);
    }
    ret->messages.len = r.block_count;
    free(r.blocks);
    free(r.message);
    free(r.structured);
    return true;
}

/* Whether `value` starts with the text `typed`. */
static bool starts_with(const char *value, const plugin_full_string_t *typed) {
    return strlen(value) >= typed->len && memcmp(value, typed->ptr, typed->len) == 0;
}

bool exports_mcp_wasm_host_plugin_completions_complete(
    exports_mcp_wasm_host_plugin_completions_completion_request_t *request,
    exports_mcp_wasm_host_plugin_completions_completion_t *ret, serve_error *err) {
    (void)err;
    memset(ret, 0, sizeof *ret);
    const mcp_prompt *p = NULL;
    if (request->target.tag == EXPORTS_MCP_WASM_HOST_PLUGIN_COMPLETIONS_COMPLETION_TARGET_PROMPT)
        p = find_prompt((const char *)request->target.val.prompt.ptr,
                        request->target.val.prompt.len);
    const char *const *values = NULL;
    for (size_t a = 0; p != NULL && a < argument_count(p) && values == NULL; a++) {
        const plugin_full_string_t *arg = &request->argument;
        if (strlen(p->arguments[a].name) == arg->len &&
            memcmp(p->arguments[a].name, arg->ptr, arg->len) == 0)
            values = p->arguments[a].values;
    }
    size_t matching = 0;
    const plugin_full_string_t *typed = &request->value;
    for (size_t i = 0; values != NULL && values[i] != NULL; i++)
        if (starts_with(values[i], typed)) matching++;
    size_t sent = matching > 100 ? 100 : matching;
    ret->values.ptr = sent == 0 ? NULL : calloc(sent, sizeof ret->values.ptr[0]);
    for (size_t i = 0; ret->values.ptr != NULL && values[i] != NULL && ret->values.len < sent; i++)
        if (starts_with(values[i], typed)) own(&ret->values.ptr[ret->values.len++], values[i]);
    ret->total.is_some = matching > 0;
    ret->total.val = (uint32_t)matching;
    ret->has_more = matching > ret->values.len;
    exports_mcp_wasm_host_plugin_completions_completion_request_free(request);
    return true;
}

/* ---- host imports ---- */

void mcp_log(mcp_level level, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    size_t len = 0;
    char *text = mcp__vformat(&len, fmt, args);
    va_end(args);
    if (text == NULL) return;
    char *scratch;
    plugin_full_string_t message = borrow(text, &scratch);
    mcp_wasm_host_plugin_host_log((mcp_wasm_host_plugin_host_log_level_t)level, &message);
    free(scratch);
    free(text);
}

void mcp_progress(double progress, double total, const char *message) {
    char *scratch;
    plugin_full_string_t text = borrow(message, &scratch);
    mcp_wasm_host_plugin_host_report_progress(progress, total < 0 ? NULL : &total,
                                              message == NULL ? NULL : &text);
    free(scratch);
}

/* ---- client requests ---- */

static void request_failed(mcp_result *error, const char *what,
                           mcp_wasm_host_plugin_client_request_error_t *e) {
    if (error != NULL) {
        const plugin_full_string_t *m = e->tag == MCP_WASM_HOST_PLUGIN_CLIENT_REQUEST_ERROR_REJECTED
                                       ? &e->val.rejected.message
                                       : &e->val.failed;
        *error = e->tag == MCP_WASM_HOST_PLUGIN_CLIENT_REQUEST_ERROR_DENIED
                     ? mcp_denied("%s denied: %.*s", what, (int)m->len, (const char *)m->ptr)
                     : mcp_failed("%s failed: %.*s", what, (int)m->len, (const char *)m->ptr);
    }
    mcp_wasm_host_plugin_client_request_error_free(e);
}

const char *mcp_sample(const char *prompt, const char *system_prompt, uint32_t max_tokens,
                       mcp_result *error) {
    char *scratch_prompt, *scratch_system;
    mcp_wasm_host_plugin_client_sampling_content_t content = {
        .tag = MCP_WASM_HOST_PLUGIN_CLIENT_SAMPLING_CONTENT_TEXT};
    content.val.text = borrow(prompt, &scratch_prompt);
    mcp_wasm_host_plugin_client_sampling_message_t message = {
        .role = MCP_WASM_HOST_PLUGIN_TYPES_ROLE_USER, .content = {&content, 1}};
    mcp_wasm_host_plugin_client_create_message_request_t request = {
        .messages = {&message, 1}, .max_tokens = max_tokens};
    request.system_prompt.is_some = system_prompt != NULL;
    request.system_prompt.val = borrow(system_prompt, &scratch_system);
    mcp_wasm_host_plugin_client_sampled_message_t reply;
    mcp_wasm_host_plugin_client_request_error_t e;
    bool ok = mcp_wasm_host_plugin_client_create_message(&request, &reply, &e);
    free(scratch_prompt);
    free(scratch_system);
    if (!ok) {
        request_failed(error, "sampling", &e);
        return NULL;
    }
    /* The reply's text blocks, joined. */
    size_t total = 0;
    for (size_t i = 0; i < reply.content.len; i++) {
        if (reply.content.ptr[i].tag == MCP_WASM_HOST_PLUGIN_CLIENT_SAMPLING_CONTENT_TEXT)
            total += reply.content.ptr[i].val.text.len;
    }
    char *text = malloc(total + 1);
    if (text != NULL) {
        size_t at = 0;
        for (size_t i = 0; i < reply.content.len; i++) {
            if (reply.content.ptr[i].tag != MCP_WASM_HOST_PLUGIN_CLIENT_SAMPLING_CONTENT_TEXT)
                continue;
            memcpy(text + at, reply.content.ptr[i].val.text.ptr, reply.content.ptr[i].val.text.len);
            at += reply.content.ptr[i].val.text.len;
        }
        text[at] = '\0';
    } else if (error != NULL) {
        *error = mcp_failed("sampling failed: out of memory");
    }
    mcp_wasm_host_plugin_client_sampled_message_free(&reply);
    return mcp__arena_keep(text);
}

const mcp_value *mcp_elicit(const char *message, const char *requested_schema,
                           mcp_result *error) {
    char *scratch_message, *scratch_schema;
    plugin_full_string_t m = borrow(message, &scratch_message);
    plugin_full_string_t schema = borrow(requested_schema == NULL ? "{}" : requested_schema,
                                    &scratch_schema);
    mcp_wasm_host_plugin_client_elicit_result_t answer;
    mcp_wasm_host_plugin_client_request_error_t e;
    bool ok = mcp_wasm_host_plugin_client_elicit(&m, &schema, &answer, &e);
    free(scratch_message);
    free(scratch_schema);
    if (!ok) {
        request_failed(error, "elicitation", &e);
        return NULL;
    }
    mcp_value *content = NULL;
    if (answer.action == MCP_WASM_HOST_PLUGIN_CLIENT_ELICIT_ACTION_ACCEPT &&
        answer.content.is_some) {
        char parse_error[96];
        content = mcp_json_parse((const char *)answer.content.val.ptr, answer.content.val.len,
                                 parse_error, sizeof parse_error);
        if (content == NULL && error != NULL)
            *error = mcp_failed("elicitation failed: the answer is not JSON (%s)", parse_error);
    }
    mcp_wasm_host_plugin_client_elicit_result_free(&answer);
    return mcp__arena_keep_json(content);
}
