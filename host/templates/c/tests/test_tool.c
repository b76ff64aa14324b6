/*
 * Serves dist/@NAME@.wasm with mcp-wasm-host and calls its tool the way an
 * MCP client does: JSON-RPC messages, one per line, on the server's stdin and
 * stdout, read back with the SDK's JSON reader.
 *
 * Run by ./test.sh, after ./build.sh. The host is $MCP_WASM_HOST_BIN, else
 * mcp-wasm-host on PATH.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp_wasm_sdk.h"

static FILE *to_server, *from_server;
static pid_t server;
static int next_id = 1, failures = 0;

/* Starts `mcp-wasm-host serve` on the directory `plugins`. */
static void start(const char *plugins) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
        perror("pipe");
        exit(1);
    }
    server = fork();
    if (server == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        const char *host = getenv("MCP_WASM_HOST_BIN");
        if (host == NULL) host = "mcp-wasm-host";
        execlp(host, host, "serve", "--no-watch", "--log", "warn", "--plugins", plugins, (char *)NULL);
        fprintf(stderr, "cannot run %s: put mcp-wasm-host on PATH or set MCP_WASM_HOST_BIN\n", host);
        _exit(127);
    }
    close(in[0]), close(out[1]);
    to_server = fdopen(in[1], "w");
    from_server = fdopen(out[0], "r");
}

/* Sends a request (`params` is JSON text) and returns its response,
 * skipping notifications. */
static mcp_value *request(const char *method, const char *params) {
    int id = next_id++;
    fprintf(to_server, "{\"jsonrpc\": \"2.0\", \"id\": %d, \"method\": \"%s\", \"params\": %s}\n", id, method, params);
    fflush(to_server);
    char *line = NULL, error[128];
    size_t size = 0;
    ssize_t len;
    while ((len = getline(&line, &size, from_server)) > 0) {
        mcp_value *message = mcp_json_parse(line, (size_t)len, error, sizeof error);
        if (message == NULL) {
            fprintf(stderr, "not JSON (%s): %s", error, line);
            exit(1);
        }
        if (mcp_get_number(message, "id", -1) == id) {
            free(line);
            return message;
        }
        mcp_json_free(message);
    }
    fprintf(stderr, "the server exited\n");
    exit(1);
}

static mcp_value *call(const char *arguments) {
    char params[256];
    snprintf(params, sizeof params, "{\"name\": \"number_stats\", \"arguments\": %s}", arguments);
    return request("tools/call", params);
}

/* A JSON-RPC error, or a tool result with isError. */
static bool is_error(const mcp_value *response) {
    return mcp_get(response, "error") != NULL || mcp_get_bool(mcp_get(response, "result"), "isError", false);
}

static void check(bool ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

int main(int argc, char **argv) {
    start(argc > 1 ? argv[1] : "dist");
    mcp_value *init = request("initialize", "{\"protocolVersion\": \"2025-11-25\", \"capabilities\": {}, "
                                            "\"clientInfo\": {\"name\": \"@NAME@-test\", \"version\": \"0.1.0\"}}");
    if (mcp_get(init, "result") == NULL) {
        fprintf(stderr, "initialize failed\n");
        return 1;
    }
    fputs("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n", to_server);

    mcp_value *list = request("tools/list", "{}");
    const mcp_value *tools = mcp_get_array(mcp_get(list, "result"), "tools"), *tool = NULL;
    for (size_t i = 0; i < mcp_array_len(tools); i++) {
        if (strcmp(mcp_get_string(mcp_array_at(tools, i), "name", ""), "number_stats") == 0) tool = mcp_array_at(tools, i);
    }
    const mcp_value *required = mcp_get_array(mcp_get(tool, "inputSchema"), "required");
    check(mcp_array_len(required) == 1 && strcmp(mcp_array_at(required, 0)->string, "numbers") == 0,
          "the host lists number_stats with its input schema");

    mcp_value *good = call("{\"numbers\": [1, 2, 2]}");
    const mcp_value *stats = mcp_get(mcp_get(good, "result"), "structuredContent");
    check(!is_error(good) && mcp_get_number(stats, "count", 0) == 3 && mcp_get_number(stats, "mean", 0) == 1.67 &&
              mcp_get_number(stats, "min", 0) == 1 && mcp_get_number(stats, "max", 0) == 2,
          "number_stats counts and averages numbers");

    mcp_value *empty = call("{\"numbers\": []}");
    check(is_error(empty), "number_stats refuses an empty list");

    mcp_value *wrong = call("{\"numbers\": \"one, two\"}");
    check(is_error(wrong), "the host refuses arguments that do not fit the schema");

    mcp_json_free(init), mcp_json_free(list), mcp_json_free(good), mcp_json_free(empty), mcp_json_free(wrong);
    kill(server, SIGTERM);
    waitpid(server, NULL, 0);
    printf("%s\n", failures == 0 ? "all checks passed" : "some checks failed");
    return failures == 0 ? 0 : 1;
}
