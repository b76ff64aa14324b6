/*
 * world.c: the only file that includes the bindings wit-bindgen generates
 * (plugin.h): the `tools` exports over the plugin's mcp_tools table, and the
 * host and client imports behind mcp_log, mcp_progress, mcp_sample and
 * mcp_elicit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"
#include "plugin.h"

typedef exports_mcp_wasm_host_plugin_tools_tool_definition_t tool_definition;
typedef exports_mcp_wasm_host_plugin_tools_call_result_t call_result;
typedef exports_mcp_wasm_host_plugin_tools_tool_error_t tool_error;
typedef mcp_wasm_host_plugin_types_content_block_t content_block;

/* A string the caller owns (the bindings free it after the call). */
static void own(plugin_string_t *out, const char *s) {
    plugin_string_dup(out, s == NULL ? "" : s);
}

static plugin_option_string_t some_string(const char *s) {
    plugin_option_string_t o = {.is_some = s != NULL};
    if (s != NULL) own(&o.val, s);
    return o;
}

static plugin_option_bool_t hint(mcp_hint h) {
    plugin_option_bool_t o = {.is_some = h != MCP_UNSET, .val = h == MCP_YES};
    return o;
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
        own(&d->input_schema, t->input_schema);
        d->output_schema = some_string(t->output_schema);
        d->annotations.title = some_string(t->title);
        d->annotations.read_only_hint = hint(t->read_only);
        d->annotations.destructive_hint = hint(t->destructive);
        d->annotations.idempotent_hint = hint(t->idempotent);
        d->annotations.open_world_hint = hint(t->open_world);
    }
    ret->len = mcp_tool_count;
}

/* Moves a NUL-terminated or sized buffer into a WIT string/list (the
 * bindings free it after the call). */
static plugin_string_t take(char *data, size_t len) {
    plugin_string_t s = {.ptr = (uint8_t *)data, .len = len};
    return s;
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

/* Moves the handler's result into the WIT call-result. */
static bool success(mcp_result *r, call_result *ret, tool_error *err) {
    memset(ret, 0, sizeof *ret);
    ret->content.ptr = calloc(r->block_count == 0 ? 1 : r->block_count, sizeof(content_block));
    if (ret->content.ptr == NULL) {
        mcp__result_free(r);
        return error_result(err, MCP_FAILED, NULL);
    }
    for (size_t i = 0; i < r->block_count; i++) {
        mcp_block *b = &r->blocks[i];
        content_block *c = &ret->content.ptr[i];
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

bool exports_mcp_wasm_host_plugin_tools_call_tool(plugin_string_t *name,
                                                  plugin_string_t *arguments,
                                                  call_result *ret, tool_error *err) {
    const mcp_tool *tool = NULL;
    for (size_t i = 0; i < mcp_tool_count && tool == NULL; i++) {
        size_t n = strlen(mcp_tools[i].name);
        if (n == name->len && memcmp(mcp_tools[i].name, name->ptr, n) == 0) tool = &mcp_tools[i];
    }
    if (tool == NULL) {
        size_t shown = name->len > 128 ? 128 : name->len;
        char *message = mcp__format("no tool named \"%.*s\"", (int)shown, (const char *)name->ptr);
        plugin_string_free(name);
        plugin_string_free(arguments);
        error_result(err, MCP_FAILED, message);
        err->tag = MCP_WASM_HOST_PLUGIN_TYPES_TOOL_ERROR_UNKNOWN_TOOL;
        return false;
    }
    char parse_error[96];
    mcp_value *args = mcp_json_parse((const char *)arguments->ptr, arguments->len, parse_error,
                                    sizeof parse_error);
    plugin_string_free(name);
    plugin_string_free(arguments);
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

/* ---- host imports ---- */

void mcp_log(mcp_level level, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    size_t len = 0;
    char *text = mcp__vformat(&len, fmt, args);
    va_end(args);
    if (text == NULL) return;
    plugin_string_t message = take(text, len);
    mcp_wasm_host_plugin_host_log((mcp_wasm_host_plugin_host_log_level_t)level, &message);
    free(text);
}

void mcp_progress(double progress, double total, const char *message) {
    plugin_string_t text;
    if (message != NULL) plugin_string_set(&text, message);
    mcp_wasm_host_plugin_host_report_progress(progress, total < 0 ? NULL : &total,
                                              message == NULL ? NULL : &text);
}

/* ---- client requests ---- */

static void request_failed(mcp_result *error, const char *what,
                           mcp_wasm_host_plugin_client_request_error_t *e) {
    if (error != NULL) {
        const plugin_string_t *m = e->tag == MCP_WASM_HOST_PLUGIN_CLIENT_REQUEST_ERROR_REJECTED
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
    mcp_wasm_host_plugin_client_sampling_content_t content = {
        .tag = MCP_WASM_HOST_PLUGIN_CLIENT_SAMPLING_CONTENT_TEXT};
    plugin_string_set(&content.val.text, prompt == NULL ? "" : prompt);
    mcp_wasm_host_plugin_client_sampling_message_t message = {
        .role = MCP_WASM_HOST_PLUGIN_TYPES_ROLE_USER, .content = {&content, 1}};
    mcp_wasm_host_plugin_client_create_message_request_t request = {
        .messages = {&message, 1}, .max_tokens = max_tokens};
    if (system_prompt != NULL) {
        request.system_prompt.is_some = true;
        plugin_string_set(&request.system_prompt.val, system_prompt);
    }
    mcp_wasm_host_plugin_client_sampled_message_t reply;
    mcp_wasm_host_plugin_client_request_error_t e;
    if (!mcp_wasm_host_plugin_client_create_message(&request, &reply, &e)) {
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
    plugin_string_t m, schema;
    plugin_string_set(&m, message == NULL ? "" : message);
    plugin_string_set(&schema, requested_schema == NULL ? "{}" : requested_schema);
    mcp_wasm_host_plugin_client_elicit_result_t answer;
    mcp_wasm_host_plugin_client_request_error_t e;
    if (!mcp_wasm_host_plugin_client_elicit(&m, &schema, &answer, &e)) {
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
