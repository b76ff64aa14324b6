// mcp-wasm-sdk: write MCP tools for mcp-wasm-host in TypeScript or JavaScript.
//
// A plugin calls `defineTool` (and `defineResource`, `defineResourceTemplate`,
// `defineView`, `definePrompt`, `defineCompletion`) at the top level of its
// module; the build (`mcp-wasm-sdk build`) bundles it with this file and
// exports `tools`, `resources`, `prompts` and `completions`, the interfaces
// of the WIT world `plugin-full`, from it. The definitions run once, when
// componentize-js pre-initializes the component, so listing them costs
// nothing at load time. Types: index.d.ts.
//
// A schema is an `s` schema, a Zod 4 schema (`z`, re-exported here from the
// `zod` package this SDK depends on) or a plain JSON Schema object. Zod
// schemas are converted once, at definition, by Zod's own JSON Schema
// conversion, and a tool's arguments are parsed with its Zod schema before
// its handler runs.

import { portable } from "./portable.js";
import { WIDTHS, has64, jsonText, parseArguments } from "./integers.js";
import { matchTemplate } from "./templates.js";

export { matchTemplate };
import { log as hostLog, reportProgress } from "mcp-wasm-host:plugin/host@0.2.1";
import { createMessage, elicit as hostElicit } from "mcp-wasm-host:plugin/client@0.2.1";

// ---------------------------------------------------------------- schemas

/** A JSON Schema under construction; `optional()` leaves it out of `required`. */
class Schema {
  constructor(json, optional = false) {
    this.json = json;
    this.isOptional = optional;
  }
  optional() {
    return new Schema(this.json, true);
  }
  describe(description) {
    return new Schema({ ...this.json, description }, this.isOptional);
  }
  default(value) {
    return new Schema({ ...this.json, default: value }, this.isOptional);
  }
}

const leaf = (type) => (opts = {}) => new Schema({ type, ...opts });
/** An integer of one width: its bounds unless `opts` narrows them. */
const integer = (width) => (opts = {}) => new Schema({ type: "integer", ...WIDTHS[width], ...opts });

/** The schema builder: each call returns a JSON Schema whose TypeScript type is known. */
export const s = {
  string: leaf("string"),
  number: leaf("number"),
  integer: integer("integer"),
  int32: integer("int32"),
  uint32: integer("uint32"),
  int64: integer("int64"),
  uint64: integer("uint64"),
  boolean: leaf("boolean"),
  enum: (values, opts = {}) => new Schema({ type: "string", enum: [...values], ...opts }),
  union: (...schemas) => new Schema({ anyOf: schemas.map((x) => x.json) }),
  array: (items, opts = {}) => new Schema({ type: "array", items: items.json, ...opts }),
  object: (properties, opts = {}) => {
    const props = {};
    const required = [];
    for (const [key, schema] of Object.entries(properties)) {
      props[key] = schema.json;
      if (!schema.isOptional) required.push(key);
    }
    const json = { type: "object", properties: props, additionalProperties: false, ...opts };
    if (required.length > 0) json.required = required;
    return new Schema(json);
  },
};

export { z } from "zod";

/** Whether `schema` is a Zod 4 schema (classic `zod` or `zod/mini`; Zod 3 has no `_zod`). */
const isZod = (schema) => schema !== null && typeof schema === "object" && "_zod" in schema;

/**
 * The JSON Schema of an `s` schema, a Zod 4 schema or a plain JSON Schema.
 * `io` is the side a Zod schema describes: "input" for what a tool is
 * called with (a field with a default is optional), "output" for what it
 * returns. A Zod schema's JSON is made portable (portable.js).
 */
function schemaJson(schema, io = "input") {
  if (schema instanceof Schema) return schema.json;
  if (isZod(schema)) {
    // Zod's `toJSONSchema`, reached through the schema's Standard JSON Schema
    // interface (Zod 4.2 and later): a plugin that uses no Zod carries none,
    // and a schema made by another copy of Zod converts itself.
    const convert = schema["~standard"]?.jsonSchema?.[io];
    if (typeof convert !== "function") {
      throw new Error("a Zod schema without JSON Schema conversion (zod/mini, or Zod before 4.2): use z from mcp-wasm-sdk");
    }
    return portable(convert({ target: "draft-2020-12" }));
  }
  if (schema !== null && typeof schema === "object" && "_def" in schema && "safeParse" in schema) {
    throw new Error("a Zod 3 schema: mcp-wasm-sdk takes Zod 4 schemas (import { z } from \"mcp-wasm-sdk\")");
  }
  return schema;
}

/** A Zod issue's path as a JSON Pointer (`/rows/0/name`), as the host writes its schema errors. */
const pointer = (path) => path.map((p) => `/${String(typeof p === "object" ? p.key : p)}`).join("");

/** Parses an empty object with `schema` and ignores the outcome (see defineTool). */
function warm(schema) {
  try {
    Promise.resolve(schema["~standard"].validate({})).catch(() => {});
  } catch {
    // A schema that throws on `{}` is warmed by its first call instead.
  }
}

/**
 * Parses `args` with the Zod schema `schema` (through its Standard Schema
 * interface, which every Zod 4 schema has): the parsed value, with defaults
 * and transforms applied, or an `InvalidArguments` listing every problem.
 */
async function parseArgs(schema, args) {
  const parsed = await schema["~standard"].validate(args);
  if (!parsed.issues) return parsed.value;
  const problems = parsed.issues.map((i) => `${pointer(i.path ?? []) || "/"}: ${i.message}`);
  throw new InvalidArguments(problems.join("; "));
}

// ----------------------------------------------------------------- errors

/** A failure the model sees as the call's result (`isError: true`). */
export class ToolError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = "ToolError";
    this.kind = kind;
  }
}
/** The arguments matched the schema but cannot be used. */
export class InvalidArguments extends ToolError {
  constructor(message) {
    super("invalid-arguments", message);
    this.name = "InvalidArguments";
  }
}
/** The sandbox denied a file, variable, origin or other capability. */
export class Denied extends ToolError {
  constructor(message) {
    super("denied", message);
    this.name = "Denied";
  }
}
/** No such resource or prompt (a tool that throws it fails as `failed`). */
export class NotFound extends ToolError {
  constructor(message) {
    super("not-found", message);
    this.name = "NotFound";
  }
}
/** Any other failure. */
export class Failed extends ToolError {
  constructor(message) {
    super("failed", message);
    this.name = "Failed";
  }
}

/** The WIT `tool-error` for anything a handler threw. */
function toolError(thrown) {
  if (thrown instanceof NotFound) return { tag: "failed", val: thrown.message };
  if (thrown instanceof ToolError) return { tag: thrown.kind, val: thrown.message };
  if (thrown instanceof Error) {
    const name = thrown.name && thrown.name !== "Error" ? `${thrown.name}: ` : "";
    return { tag: "failed", val: `${name}${thrown.message}` };
  }
  return { tag: "failed", val: String(thrown) };
}

// ---------------------------------------------------------------- content

const CONTENT = Symbol("mcp-wasm-sdk content");
const RESULT = Symbol("mcp-wasm-sdk result");

const block = (tag, val) => ({ [CONTENT]: true, tag, val });
const bytes = (data) => (typeof data === "string" ? new TextEncoder().encode(data) : data);
const annotations = (a) =>
  a && {
    audience: a.audience ?? [],
    priority: a.priority,
    lastModified: a.lastModified,
  };

/** A text block. */
export const text = (value, opts = {}) =>
  block("text", { text: String(value), annotations: annotations(opts.annotations) });
/** An image block from its raw bytes. */
export const image = (data, mimeType, opts = {}) =>
  block("image", { data: bytes(data), mimeType, annotations: annotations(opts.annotations) });
/** An audio block from its raw bytes. */
export const audio = (data, mimeType, opts = {}) =>
  block("audio", { data: bytes(data), mimeType, annotations: annotations(opts.annotations) });
/** An embedded resource: `text` for text contents, `blob` (bytes) for binary. */
export const resource = (uri, body, opts = {}) =>
  block("resource", {
    uri,
    mimeType: opts.mimeType,
    body: "blob" in body ? { tag: "blob", val: bytes(body.blob) } : { tag: "text", val: body.text },
    annotations: annotations(opts.annotations),
  });
/** A link to a resource the client may fetch. */
export const resourceLink = (uri, name, opts = {}) =>
  block("resource-link", {
    uri,
    name,
    title: opts.title,
    description: opts.description,
    mimeType: opts.mimeType,
    size: opts.size === undefined ? undefined : BigInt(opts.size),
    annotations: annotations(opts.annotations),
  });

/** A result with every part chosen: content blocks, structured content, error flag. */
export const result = ({ content = [], structured, isError = false }) => ({
  [RESULT]: true,
  content: content.map((c) => (c && c[CONTENT] ? c : text(c))),
  structured,
  isError,
});

const isBlock = (v) => v !== null && typeof v === "object" && v[CONTENT] === true;
const isPlainObject = (v) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);

/** The WIT `call-result` for what a handler returned. */
function callResult(value) {
  const wit = (blocks, structured, isError = false) => ({
    content: blocks.map(({ tag, val }) => ({ tag, val })),
    structuredContent: structured === undefined ? undefined : jsonText(structured),
    isError,
  });
  if (value === undefined) return wit([]);
  if (typeof value === "string") return wit([text(value)]);
  if (isBlock(value)) return wit([value]);
  if (Array.isArray(value) && value.length > 0 && value.every(isBlock)) return wit(value);
  if (value !== null && value[RESULT]) return wit(value.content, value.structured, value.isError);
  const json = jsonText(value, 2);
  // Structured content is a JSON object; other JSON values travel as text.
  return wit([text(json)], isPlainObject(value) ? value : undefined);
}

// ------------------------------------------------------------------ tools

const registry = new Map();

/** Whether a call of a tool may run as a task: the WIT `task-support` cases. */
const TASK_SUPPORT = ["forbidden", "optional", "required"];

/**
 * Declares a tool. `inputSchema` is a schema from `s` or a Zod 4 object
 * schema (the handler's argument type follows from either), or a plain JSON
 * Schema object. With a Zod schema the handler gets the arguments as Zod
 * parsed them.
 */
export function defineTool(def, handler) {
  if (registry.has(def.name)) throw new Error(`tool ${def.name} is defined twice`);
  const a = def.annotations ?? {};
  const taskSupport = def.taskSupport ?? "forbidden";
  if (!TASK_SUPPORT.includes(taskSupport)) {
    throw new Error(`tool ${def.name}: taskSupport must be one of ${TASK_SUPPORT.join(", ")}, not ${taskSupport}`);
  }
  const input = def.inputSchema ?? s.object({});
  const inputJson = schemaJson(input, "input");
  if (isZod(input) && inputJson.type !== "object") {
    throw new Error(`tool ${def.name}: a Zod inputSchema is an object schema (z.object({...})), not ${inputJson.type ?? "a union"}`);
  }
  // One parse at definition, which runs when the component is built: Zod
  // compiles its object parsers on first use, and this way the snapshot
  // holds them instead of every fresh instance compiling them again.
  if (isZod(input)) warm(input);
  if (def.view !== undefined) toolViews.push({ tool: def.name, resourceUri: def.view, modelVisible: !def.viewOnly });
  registry.set(def.name, {
    handler,
    zod: isZod(input) ? input : undefined,
    // Read with the numbers' text when it has 64-bit integers (BigInt).
    exactSchema: has64(inputJson) ? inputJson : undefined,
    definition: {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: jsonText(inputJson),
      outputSchema: def.outputSchema === undefined ? undefined : jsonText(schemaJson(def.outputSchema, "output")),
      annotations: {
        title: a.title,
        readOnlyHint: a.readOnlyHint,
        destructiveHint: a.destructiveHint,
        idempotentHint: a.idempotentHint,
        openWorldHint: a.openWorldHint,
      },
      icons: icons(def.icons),
      taskSupport,
    },
  });
}

/** The world's `tools` export; `mcp-wasm-sdk build` exports it from the component. */
export const tools = {
  listTools() {
    return [...registry.values()].map((t) => t.definition);
  },
  // A handler may be async (for `fetch`); componentize-js waits for the
  // promise. A thrown error becomes the WIT `tool-error` it names.
  async callTool(name, args) {
    const tool = registry.get(name);
    if (!tool) throw { tag: "unknown-tool", val: name };
    try {
      const given = tool.exactSchema
        ? parseArguments(args, tool.exactSchema, (message) => {
            throw new InvalidArguments(message);
          })
        : JSON.parse(args);
      return callResult(await tool.handler(tool.zod ? await parseArgs(tool.zod, given) : given));
    } catch (e) {
      throw toolError(e);
    }
  },
};

const icons = (list) =>
  (list ?? []).map((i) => ({ src: i.src, mimeType: i.mimeType, sizes: i.sizes ?? [], theme: i.theme }));

// ------------------------------------- resources, prompts and completions

const resourceRegistry = new Map();
const templateRegistry = new Map();
const promptRegistry = new Map();
const completionRegistry = new Map();
const toolViews = [];

/** The MIME type of an interactive view (MCP Apps). */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
/** The most values a completion sends; the rest set `hasMore`. */
export const MAX_COMPLETIONS = 100;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The WIT `serve-error` for anything a handler threw. */
function serveError(thrown) {
  if (thrown instanceof ToolError) return { tag: thrown.kind, val: thrown.message };
  return toolError(thrown);
}

const body = (b) =>
  typeof b === "string"
    ? { tag: "text", val: b }
    : b instanceof Uint8Array
      ? { tag: "blob", val: b }
      : "blob" in b
        ? { tag: "blob", val: bytes(b.blob) }
        : { tag: "text", val: String(b.text) };

/** A resource's contents for what its handler returned. */
function contents(uri, mimeType, value) {
  const parts = Array.isArray(value) ? value : [value];
  if (parts.length === 0) throw new Failed(`resource ${uri}: a handler returns at least one part`);
  return parts.map((p) =>
    typeof p === "string" || p instanceof Uint8Array
      ? { uri, mimeType, body: body(p) }
      : { uri: p.uri ?? uri, mimeType: p.mimeType ?? mimeType, body: body(p) },
  );
}

function addResource(def, view, handler) {
  if (typeof def.uri !== "string" || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(def.uri) || def.uri.length > 2048) {
    throw new Error(`resource ${def.uri}: the URI must be absolute, at most 2048 bytes`);
  }
  if (resourceRegistry.has(def.uri)) throw new Error(`resource ${def.uri} is defined twice`);
  if (!def.name) throw new Error(`resource ${def.uri} needs a name`);
  const fixed = "text" in def ? def.text : "blob" in def ? { blob: def.blob } : undefined;
  if (handler === undefined && fixed === undefined) {
    throw new Error(`resource ${def.uri}: give \`text\`, \`blob\` or a handler`);
  }
  resourceRegistry.set(def.uri, {
    handler: handler ?? (() => fixed),
    definition: {
      uri: def.uri,
      name: def.name,
      title: def.title,
      description: def.description,
      mimeType: def.mimeType,
      size: def.size === undefined ? undefined : BigInt(def.size),
      annotations: annotations(def.annotations),
      icons: icons(def.icons),
      view,
    },
  });
}

/**
 * Declares the resource `def.uri`: its contents are `def.text`, `def.blob`,
 * or what `handler(uri)` returns (a string, bytes, `{ text }`, `{ blob }`,
 * or a list of parts).
 */
export function defineResource(def, handler) {
  addResource(def, undefined, handler);
}

/**
 * Declares an interactive view (MCP Apps): the `ui://` resource `def.uri`,
 * of MIME type `text/html;profile=mcp-app`, whose text is `def.html` or
 * what `handler(uri)` returns. A tool shows its results in it with
 * `defineTool({ ..., view: uri })`.
 */
export function defineView(def, handler) {
  if (typeof def.uri !== "string" || !def.uri.startsWith("ui://")) {
    throw new Error(`view ${def.uri}: an interactive view's URI starts with ui://`);
  }
  const csp = def.csp && {
    connectDomains: def.csp.connectDomains ?? [],
    resourceDomains: def.csp.resourceDomains ?? [],
    frameDomains: def.csp.frameDomains ?? [],
    baseUriDomains: def.csp.baseUriDomains ?? [],
  };
  const p = def.permissions;
  const permissions = p && {
    camera: !!p.camera,
    microphone: !!p.microphone,
    geolocation: !!p.geolocation,
    clipboardWrite: !!p.clipboardWrite,
  };
  const view = { csp, permissions, domain: def.domain, prefersBorder: def.prefersBorder };
  addResource({ ...def, mimeType: VIEW_MIME_TYPE, text: def.html }, view, handler);
}

/**
 * Declares a family of resources whose URIs follow `def.uriTemplate`
 * (`{name}` matches one path segment, `{+name}` any text); a read of a
 * matching URI calls `handler(uri, variables)`.
 */
export function defineResourceTemplate(def, handler) {
  if (templateRegistry.has(def.uriTemplate)) throw new Error(`resource template ${def.uriTemplate} is defined twice`);
  templateRegistry.set(def.uriTemplate, {
    handler,
    definition: {
      uriTemplate: def.uriTemplate,
      name: def.name,
      title: def.title,
      description: def.description,
      mimeType: def.mimeType,
      annotations: annotations(def.annotations),
      icons: icons(def.icons),
    },
  });
}

/**
 * Declares a prompt. `def.arguments` lists its arguments (`required`
 * defaults to false); `handler(args)` returns a string (one user message),
 * a list of messages (each a string, a content block, or `{ role, content }`),
 * or `{ description, messages }`.
 */
export function definePrompt(def, handler) {
  if (!NAME.test(def.name ?? "")) throw new Error(`prompt name ${def.name} must be 1 to 128 of A-Z a-z 0-9 _ . -`);
  if (promptRegistry.has(def.name)) throw new Error(`prompt ${def.name} is defined twice`);
  promptRegistry.set(def.name, {
    handler,
    definition: {
      name: def.name,
      title: def.title,
      description: def.description,
      arguments: (def.arguments ?? []).map((a) => ({
        name: a.name,
        title: a.title,
        description: a.description,
        required: !!a.required,
      })),
      icons: icons(def.icons),
    },
  });
}

const promptMessage = (m) => {
  const { role, content } =
    typeof m === "string" || isBlock(m) ? { role: "user", content: m } : { role: m.role ?? "user", content: m.content };
  if (role !== "user" && role !== "assistant") throw new Failed(`a prompt message's role is user or assistant, not ${role}`);
  const b = typeof content === "string" ? text(content) : content;
  if (!isBlock(b)) throw new Failed("a prompt message's content is a string or a content block");
  return { role, content: { tag: b.tag, val: b.val } };
};

/**
 * Declares the suggestions for an argument: of the prompt `target.prompt`,
 * or a variable of the template `target.resourceTemplate`.
 * `handler(value, context)` gets what the user typed so far and the other
 * arguments already filled in, and returns the values, best first.
 */
export function defineCompletion(target, argument, handler) {
  const key = target.prompt !== undefined ? `prompt\0${target.prompt}` : `resource-template\0${target.resourceTemplate}`;
  if (target.prompt === undefined && target.resourceTemplate === undefined) {
    throw new Error("defineCompletion: the target is { prompt } or { resourceTemplate }");
  }
  completionRegistry.set(`${key}\0${argument}`, handler);
}

/** The world's `resources` export; `mcp-wasm-sdk build` exports it. */
export const resources = {
  listResources() {
    return [...resourceRegistry.values()].map((r) => r.definition);
  },
  listResourceTemplates() {
    return [...templateRegistry.values()].map((t) => t.definition);
  },
  listToolViews() {
    return toolViews;
  },
  async readResource(uri) {
    try {
      const r = resourceRegistry.get(uri);
      if (r) return contents(uri, r.definition.mimeType, await r.handler(uri));
      for (const t of templateRegistry.values()) {
        const vars = matchTemplate(t.definition.uriTemplate, uri);
        if (vars) return contents(uri, t.definition.mimeType, await t.handler(uri, vars));
      }
    } catch (e) {
      throw serveError(e);
    }
    throw { tag: "not-found", val: `no resource has the URI ${uri}` };
  },
};

/** The world's `prompts` export; `mcp-wasm-sdk build` exports it. */
export const prompts = {
  listPrompts() {
    return [...promptRegistry.values()].map((p) => p.definition);
  },
  async getPrompt(name, args) {
    const p = promptRegistry.get(name);
    if (!p) throw { tag: "not-found", val: `no prompt is called ${name}` };
    const given = Object.fromEntries(args);
    for (const a of p.definition.arguments) {
      if (a.required && !(a.name in given)) throw { tag: "invalid-arguments", val: `the argument ${a.name} is required` };
    }
    try {
      const value = await p.handler(given);
      const shaped =
        typeof value === "string" || isBlock(value)
          ? { messages: [value] }
          : Array.isArray(value)
            ? { messages: value }
            : value;
      return { description: shaped.description, messages: shaped.messages.map(promptMessage) };
    } catch (e) {
      throw serveError(e);
    }
  },
};

/** The world's `completions` export; `mcp-wasm-sdk build` exports it. */
export const completions = {
  async complete(request) {
    const handler = completionRegistry.get(`${request.target.tag}\0${request.target.val}\0${request.argument}`);
    if (!handler) return { values: [], total: undefined, hasMore: false };
    try {
      const values = (await handler(request.value, Object.fromEntries(request.context))).map(String);
      return { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS };
    } catch (e) {
      throw serveError(e);
    }
  },
};

// ------------------------------------------------------- host and client

const say = (level) => (...parts) =>
  hostLog(level, parts.map((p) => (typeof p === "string" ? p : jsonText(p))).join(" "));

/** Writes to the server's log, attributed to this plugin and tool. Never log secrets. */
export const log = {
  debug: say("debug"),
  info: say("info"),
  notice: say("notice"),
  warning: say("warning"),
  error: say("error"),
};

/** Reports how far the call has got; `progress` should increase. */
export function progress(progress, total, message) {
  reportProgress(progress, total, message);
}

/** Why a request to the client got no answer. */
export class ClientError extends Error {
  constructor(kind, message, code) {
    super(message);
    this.name = "ClientError";
    this.kind = kind;
    this.code = code;
  }
}

function clientCall(f) {
  try {
    return f();
  } catch (e) {
    const p = e && e.payload;
    if (!p) throw e;
    if (p.tag === "rejected") {
      throw new ClientError("rejected", `the client answered ${p.val.code}: ${p.val.message}`, Number(p.val.code));
    }
    throw new ClientError(p.tag, p.val);
  }
}

const samplingContent = (c) => (typeof c === "string" ? { tag: "text", val: c } : c);

/**
 * Asks the client's model for a completion (`sampling/createMessage`); the
 * policy must grant `sampling`. Returns the reply's text and the full answer.
 */
export function sample(request) {
  const req = typeof request === "string" ? { messages: [request] } : request;
  const messages = req.messages.map((m) =>
    typeof m === "string"
      ? { role: "user", content: [samplingContent(m)] }
      : { role: m.role, content: (Array.isArray(m.content) ? m.content : [m.content]).map(samplingContent) },
  );
  const prefs = req.modelPreferences;
  const answer = clientCall(() =>
    createMessage({
      messages,
      systemPrompt: req.systemPrompt,
      maxTokens: req.maxTokens ?? 1000,
      temperature: req.temperature,
      stopSequences: req.stopSequences ?? [],
      modelPreferences: prefs && {
        hints: prefs.hints ?? [],
        costPriority: prefs.costPriority,
        speedPriority: prefs.speedPriority,
        intelligencePriority: prefs.intelligencePriority,
      },
      includeContext: req.includeContext,
    }),
  );
  const textOf = answer.content.filter((c) => c.tag === "text").map((c) => c.val).join("");
  return { text: textOf, role: answer.role, model: answer.model, stopReason: answer.stopReason, content: answer.content };
}

/**
 * Asks the client's user to fill in a form (`elicitation/create`); the
 * policy must grant `elicitation`. `schema` is an `s.object(...)`, a Zod 4
 * object schema or a JSON Schema. Returns the action and, when accepted, the answers.
 */
export function elicit(message, schema) {
  const answer = clientCall(() => hostElicit(message, jsonText(schemaJson(schema))));
  return {
    action: answer.action,
    content: answer.content === undefined || answer.content === null ? undefined : JSON.parse(answer.content),
  };
}
