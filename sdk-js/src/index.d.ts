// Types of mcp-wasm-sdk (src/index.js): typed tools for mcp-wasm-host.

import type { $ZodType, input as ZodInput, output as ZodOutput } from "zod/v4/core";

/** Zod 4 (the `zod` package this SDK depends on): `z.object({...})` and the rest. */
export { z } from "zod";

/** A JSON Schema object, as sent to the client. */
export type JsonSchema = { [key: string]: unknown };

/** A schema built with `s`; `T` is the TypeScript type of a value it accepts. */
export interface Schema<T, Optional extends boolean = false> {
  readonly json: JsonSchema;
  readonly isOptional: Optional;
  /** Leaves the property out of its object's `required`. */
  optional(): Schema<T, true>;
  /** Sets the schema's `description`, which the model reads. */
  describe(description: string): Schema<T, Optional>;
  /** Sets the schema's `default` (documentation for the model; not applied). */
  default(value: T): Schema<T, Optional>;
  /** Never set; carries `T` for `Infer`. */
  readonly __type?: T;
}

/** The TypeScript type of the values a schema accepts. */
export type Infer<S> = S extends Schema<infer T, boolean> ? T : never;

type Shape = { [key: string]: Schema<unknown, boolean> };
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type of a shape: optional schemas become optional properties. */
export type ObjectOf<P extends Shape> = Simplify<
  { [K in keyof P as P[K] extends Schema<unknown, true> ? never : K]: Infer<P[K]> } & {
    [K in keyof P as P[K] extends Schema<unknown, true> ? K : never]?: Infer<P[K]>;
  }
>;

/** Keywords every schema takes. */
export interface Common {
  description?: string;
  title?: string;
  [keyword: string]: unknown;
}
export interface StringOptions extends Common {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}
export interface NumberOptions extends Common {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}
/** The bounds of a 64-bit integer: BigInts, written into the schema digit for digit. */
export interface BigIntOptions extends Common {
  minimum?: bigint;
  maximum?: bigint;
  exclusiveMinimum?: bigint;
  exclusiveMaximum?: bigint;
}
export interface ArrayOptions extends Common {
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** The schema builder. */
export declare const s: {
  string(opts?: StringOptions): Schema<string>;
  number(opts?: NumberOptions): Schema<number>;
  /** An integer a JS number holds exactly: -(2^53 - 1) to 2^53 - 1 unless `opts` narrows it. */
  integer(opts?: NumberOptions): Schema<number>;
  /** An integer from -2^31 to 2^31 - 1. */
  int32(opts?: NumberOptions): Schema<number>;
  /** An integer from 0 to 2^32 - 1. */
  uint32(opts?: NumberOptions): Schema<number>;
  /** An integer from -2^63 to 2^63 - 1, which the handler gets as a BigInt read exactly from its text. */
  int64(opts?: BigIntOptions): Schema<bigint>;
  /** An integer from 0 to 2^64 - 1, which the handler gets as a BigInt read exactly from its text. */
  uint64(opts?: BigIntOptions): Schema<bigint>;
  boolean(opts?: Common): Schema<boolean>;
  /** A string that is one of `values`. */
  enum<const V extends readonly [string, ...string[]]>(values: V, opts?: Common): Schema<V[number]>;
  /** A value matching any of `schemas` (`anyOf`). */
  union<const S extends readonly Schema<unknown, boolean>[]>(...schemas: S): Schema<Infer<S[number]>>;
  array<T>(items: Schema<T, boolean>, opts?: ArrayOptions): Schema<T[]>;
  /** An object with exactly these properties (`additionalProperties: false`). */
  object<P extends Shape>(properties: P, opts?: Common): Schema<ObjectOf<P>>;
};

/** Behaviour hints for clients (MCP tool annotations). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * An icon clients may show for a tool: `src` is an `https:` URL or a
 * `data:` URI of an image (at most 64 KiB); `sizes` are `WxH` or `any`.
 */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface ToolDefinition<In, Out> {
  /** 1 to 128 characters of `A-Z a-z 0-9 _ . -`, unique in the plugin. */
  name: string;
  title?: string;
  /** What the tool does, written for the model. */
  description: string;
  /**
   * `s.object({...})` or a Zod 4 `z.object({...})` for typed arguments, or a
   * plain JSON Schema. Zod parses the arguments before the handler runs.
   */
  inputSchema?: In;
  /** The schema of the structured content the handler returns. */
  outputSchema?: Out;
  annotations?: ToolAnnotations;
  /** Icons for the tool (none by default; at most 8). */
  icons?: Icon[];
  /**
   * Whether a call may run as an MCP task, for a client that supports tasks
   * (default "forbidden"); the handler is the same either way.
   */
  taskSupport?: TaskSupport;
  /** The `ui://` URI of an interactive view (`defineView`) that shows the tool's results. */
  view?: string;
  /** With `view`: only the view may call the tool, not the model (default false). */
  viewOnly?: boolean;
}

/**
 * Whether a call of a tool may run as a task: never ("forbidden"), when the
 * client supports tasks ("optional"), or always ("required").
 */
export type TaskSupport = "forbidden" | "optional" | "required";

/** One content block; build it with `text`, `image`, `audio`, `resource` or `resourceLink`. */
export interface Content {
  readonly tag: "text" | "image" | "audio" | "resource" | "resource-link";
  readonly val: unknown;
}

/** What the handler of a tool whose output type is `O` may return. */
export type Returned<O> =
  | string
  | Content
  | Content[]
  | ToolResult
  | O
  | undefined;

type ArgsOf<In> = In extends $ZodType
  ? ZodOutput<In>
  : In extends Schema<infer T, boolean>
    ? T
    : { [key: string]: unknown };
type OutOf<Out> = [Out] extends [undefined]
  ? unknown
  : Out extends $ZodType
    ? ZodOutput<Out>
    : Out extends Schema<infer T, boolean>
      ? T
      : unknown;

/**
 * Declares a tool. The handler receives the arguments, already validated by
 * the host against `inputSchema` (and, for a Zod schema, parsed by Zod: its
 * defaults filled in, its refinements checked, a failure answered as
 * invalid arguments without calling the handler), and returns (or resolves to): a string
 * (one text block), content blocks, `result({...})`, or a JSON object (the
 * structured content, with the same JSON as text). A thrown
 * `InvalidArguments`, `Denied` or `Failed` becomes that tool error; any other
 * thrown error fails the call with its message.
 */
export declare function defineTool<
  In extends Schema<unknown, boolean> | $ZodType | JsonSchema = Schema<{}>,
  Out extends Schema<unknown, boolean> | $ZodType | JsonSchema | undefined = undefined,
>(
  def: ToolDefinition<In, Out>,
  handler: (args: ArgsOf<In>) => Returned<OutOf<Out>> | Promise<Returned<OutOf<Out>>>,
): void;

export interface ContentAnnotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}
interface BlockOptions {
  annotations?: ContentAnnotations;
}

export declare function text(value: string, opts?: BlockOptions): Content;
/** `data` is the raw bytes (a string is encoded as UTF-8); the host base64-encodes them. */
export declare function image(data: Uint8Array | string, mimeType: string, opts?: BlockOptions): Content;
export declare function audio(data: Uint8Array | string, mimeType: string, opts?: BlockOptions): Content;
export declare function resource(
  uri: string,
  body: { text: string } | { blob: Uint8Array | string },
  opts?: BlockOptions & { mimeType?: string },
): Content;
export declare function resourceLink(
  uri: string,
  name: string,
  opts?: BlockOptions & { title?: string; description?: string; mimeType?: string; size?: number },
): Content;

/** A result with every part chosen. */
export interface ToolResult {
  readonly content: Content[];
  readonly structured?: unknown;
  readonly isError: boolean;
}
export declare function result(parts: {
  content?: (Content | string)[];
  structured?: { [key: string]: unknown };
  isError?: boolean;
}): ToolResult;

/** A failure the model sees as the call's result. */
export declare class ToolError extends Error {
  readonly kind: "invalid-arguments" | "denied" | "failed" | "not-found";
}
/** No such resource or prompt (a tool that throws it fails as `failed`). */
export declare class NotFound extends ToolError {
  constructor(message: string);
}
/** The arguments matched the schema but cannot be used. */
export declare class InvalidArguments extends ToolError {
  constructor(message: string);
}
/** The sandbox denied a file, variable, origin or other capability. */
export declare class Denied extends ToolError {
  constructor(message: string);
}
/** Any other failure. */
export declare class Failed extends ToolError {
  constructor(message: string);
}

type Say = (...parts: unknown[]) => void;
/** The server's log, attributed to this plugin and tool. Never log secrets. */
export declare const log: { debug: Say; info: Say; notice: Say; warning: Say; error: Say };

/** Reports how far the call has got; `progress` should increase. */
export declare function progress(progress: number, total?: number, message?: string): void;

/** Why a request to the client (`sample`, `elicit`) got no answer. */
export declare class ClientError extends Error {
  /** `unsupported`: the client lacks the capability; `denied`: the policy does not grant it. */
  readonly kind: "unsupported" | "denied" | "rejected" | "failed";
  /** The JSON-RPC error code, when the client `rejected` the request. */
  readonly code?: number;
}

export type SamplingContent =
  | string
  | { tag: "text"; val: string }
  | { tag: "image" | "audio"; val: { data: Uint8Array; mimeType: string } };

export interface SampleRequest {
  /** A string is a user message. */
  messages: (string | { role: "user" | "assistant"; content: SamplingContent | SamplingContent[] })[];
  systemPrompt?: string;
  /** Default 1000. */
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: {
    hints?: string[];
    costPriority?: number;
    speedPriority?: number;
    intelligencePriority?: number;
  };
  includeContext?: "none" | "this-server" | "all-servers";
}

export interface Sampled {
  /** The reply's text blocks, joined. */
  text: string;
  role: "user" | "assistant";
  model: string;
  stopReason?: string;
  content: SamplingContent[];
}

/** Asks the client's model (`sampling/createMessage`); a string is one user message. Throws `ClientError`. */
export declare function sample(request: string | SampleRequest): Sampled;

/** Asks the client's user to fill in a form (`elicitation/create`). Throws `ClientError`. */
export declare function elicit<S extends Schema<unknown, boolean> | $ZodType | JsonSchema>(
  message: string,
  schema: S,
): {
  action: "accept" | "decline" | "cancel";
  /** The answers as the client sent them (a Zod schema is converted, not applied). */
  content?: S extends $ZodType ? ZodInput<S> : S extends Schema<infer T, boolean> ? T : { [key: string]: unknown };
};

/** The world's `tools` export (the build exports it; plugins need not touch it). */
export declare const tools: {
  listTools(): unknown[];
  callTool(name: string, args: string): Promise<unknown>;
};

// ------------------------------------- resources, prompts and completions

/** A resource's contents: text, bytes, or a list of parts (each may name its own URI and MIME type). */
export type ResourcePart = string | Uint8Array | { text: string; uri?: string; mimeType?: string } | { blob: Uint8Array | string; uri?: string; mimeType?: string };
export type ResourceContents = ResourcePart | ResourcePart[];

export interface ResourceDefinition {
  /** An absolute URI (at most 2048 bytes), unique in the plugin; put the plugin's name in it. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: ContentAnnotations;
  icons?: Icon[];
  /** Fixed text contents (instead of a handler). */
  text?: string;
  /** Fixed binary contents (instead of a handler). */
  blob?: Uint8Array | string;
}

/** Declares a resource: `resources/list` lists it, `resources/read` returns `def.text`, `def.blob` or what `handler` returns. */
export declare function defineResource(
  def: ResourceDefinition,
  handler?: (uri: string) => ResourceContents | Promise<ResourceContents>,
): void;

export interface ViewDefinition {
  /** A `ui://` URI, unique in the plugin. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** The HTML document (instead of a handler). */
  html?: string;
  /** Origins the view may reach. */
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  /** Browser permissions it asks for. */
  permissions?: { camera?: boolean; microphone?: boolean; geolocation?: boolean; clipboardWrite?: boolean };
  domain?: string;
  prefersBorder?: boolean;
}

/** Declares an interactive view (MCP Apps): a resource of MIME type `text/html;profile=mcp-app`. */
export declare function defineView(def: ViewDefinition, handler?: (uri: string) => string | Promise<string>): void;

export interface ResourceTemplateDefinition {
  /** `{name}` matches one path segment, `{+name}` any text: `notes://note/{id}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ContentAnnotations;
  icons?: Icon[];
}

/** Declares a resource template; a read of a URI it matches calls `handler(uri, variables)`. */
export declare function defineResourceTemplate(
  def: ResourceTemplateDefinition,
  handler: (uri: string, variables: { [name: string]: string }) => ResourceContents | Promise<ResourceContents>,
): void;

/** The variables of `uri` if it matches `template`, else undefined. */
export declare function matchTemplate(template: string, uri: string): { [name: string]: string } | undefined;

export interface PromptDefinition {
  /** 1 to 128 characters of `A-Z a-z 0-9 _ . -`, unique in the plugin. */
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; title?: string; description?: string; required?: boolean }[];
  icons?: Icon[];
}

/** One message of a prompt: a string or block from the user, or a role and its content. */
export type PromptMessage = string | Content | { role: "user" | "assistant"; content: string | Content };
export type PromptReturned = string | Content | PromptMessage[] | { description?: string; messages: PromptMessage[] };

/**
 * Declares a prompt. The host refuses a request without a required
 * argument; `handler` gets the arguments by name.
 */
export declare function definePrompt(
  def: PromptDefinition,
  handler: (args: { [name: string]: string }) => PromptReturned | Promise<PromptReturned>,
): void;

/**
 * Declares the suggestions for an argument of a prompt, or a variable of a
 * resource template: `handler(value, context)` returns values, best first
 * (the SDK sends at most 100 and sets `hasMore`).
 */
export declare function defineCompletion(
  target: { prompt: string } | { resourceTemplate: string },
  argument: string,
  handler: (value: string, context: { [name: string]: string }) => string[] | Promise<string[]>,
): void;

/** The world's other exports (the build exports them; plugins need not touch them). */
export declare const resources: { [f: string]: (...args: any[]) => unknown };
export declare const prompts: { [f: string]: (...args: any[]) => unknown };
export declare const completions: { [f: string]: (...args: any[]) => unknown };

/** The MIME type of an interactive view (MCP Apps). */
export declare const VIEW_MIME_TYPE: "text/html;profile=mcp-app";
/** The most values a completion sends. */
export declare const MAX_COMPLETIONS: 100;
