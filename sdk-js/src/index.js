// mcp-wasm-sdk: write MCP tools for mcp-wasm-host in TypeScript or JavaScript.
//
// A plugin calls `defineTool` at the top level of its module; the build
// (`mcp-wasm-sdk build`) bundles it with this file and exports `tools`, the
// `mcp-wasm-host:plugin/tools` interface of the WIT world, from it. The
// definitions run once, when componentize-js pre-initializes the component,
// so listing the tools costs nothing at load time. Types: index.d.ts.

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

/** The schema builder: each call returns a JSON Schema whose TypeScript type is known. */
export const s = {
  string: leaf("string"),
  number: leaf("number"),
  integer: leaf("integer"),
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

const schemaJson = (schema) => (schema instanceof Schema ? schema.json : schema);

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
/** Any other failure. */
export class Failed extends ToolError {
  constructor(message) {
    super("failed", message);
    this.name = "Failed";
  }
}

/** The WIT `tool-error` for anything a handler threw. */
function toolError(thrown) {
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
    structuredContent: structured === undefined ? undefined : JSON.stringify(structured),
    isError,
  });
  if (value === undefined) return wit([]);
  if (typeof value === "string") return wit([text(value)]);
  if (isBlock(value)) return wit([value]);
  if (Array.isArray(value) && value.length > 0 && value.every(isBlock)) return wit(value);
  if (value !== null && value[RESULT]) return wit(value.content, value.structured, value.isError);
  const json = JSON.stringify(value, null, 2);
  // Structured content is a JSON object; other JSON values travel as text.
  return wit([text(json)], isPlainObject(value) ? value : undefined);
}

// ------------------------------------------------------------------ tools

const registry = new Map();

/** Whether a call of a tool may run as a task: the WIT `task-support` cases. */
const TASK_SUPPORT = ["forbidden", "optional", "required"];

/**
 * Declares a tool. `inputSchema` is a schema from `s` (the handler's
 * argument type follows from it) or a plain JSON Schema object.
 */
export function defineTool(def, handler) {
  if (registry.has(def.name)) throw new Error(`tool ${def.name} is defined twice`);
  const a = def.annotations ?? {};
  const taskSupport = def.taskSupport ?? "forbidden";
  if (!TASK_SUPPORT.includes(taskSupport)) {
    throw new Error(`tool ${def.name}: taskSupport must be one of ${TASK_SUPPORT.join(", ")}, not ${taskSupport}`);
  }
  registry.set(def.name, {
    handler,
    definition: {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: JSON.stringify(schemaJson(def.inputSchema ?? s.object({}))),
      outputSchema: def.outputSchema === undefined ? undefined : JSON.stringify(schemaJson(def.outputSchema)),
      annotations: {
        title: a.title,
        readOnlyHint: a.readOnlyHint,
        destructiveHint: a.destructiveHint,
        idempotentHint: a.idempotentHint,
        openWorldHint: a.openWorldHint,
      },
      icons: (def.icons ?? []).map((i) => ({
        src: i.src,
        mimeType: i.mimeType,
        sizes: i.sizes ?? [],
        theme: i.theme,
      })),
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
      return callResult(await tool.handler(JSON.parse(args)));
    } catch (e) {
      throw toolError(e);
    }
  },
};

// ------------------------------------------------------- host and client

const say = (level) => (...parts) =>
  hostLog(level, parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" "));

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
 * policy must grant `elicitation`. `schema` is an `s.object(...)` or a JSON
 * Schema. Returns the action and, when accepted, the answers.
 */
export function elicit(message, schema) {
  const answer = clientCall(() => hostElicit(message, JSON.stringify(schemaJson(schema))));
  return {
    action: answer.action,
    content: answer.content === undefined || answer.content === null ? undefined : JSON.parse(answer.content),
  };
}
