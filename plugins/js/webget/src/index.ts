// A test plugin: GETs a URL with `fetch`, so the tests can see the host's
// HTTP allow-list govern a JavaScript guest.
import { defineTool, s, Denied, Failed } from "mcp-wasm-sdk";

defineTool(
  {
    name: "get",
    description: "GET a URL and return its status and body.",
    inputSchema: s.object({ url: s.string({ format: "uri" }) }),
    outputSchema: s.object({ status: s.integer(), body: s.string() }),
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  async ({ url }) => {
    let response: Response;
    try {
      response = await fetch(url);
    } catch (e) {
      // StarlingMonkey reports every refused or failed request alike.
      throw new Denied(`GET ${url} was refused or failed: ${e}`);
    }
    if (!response.ok && response.status >= 500) throw new Failed(`GET ${url}: status ${response.status}`);
    return { status: response.status, body: await response.text() };
  },
);
