"""mcp_wasm_sdk: write MCP tools for mcp-wasm-host in a few lines of Python.

A plugin module (built into a component by componentize-py) declares its
tools with `@tool` (and its resources, prompts and completions with
`static_resource`, `resource_template`, `view`, `prompt` and `completion`)
and re-exports `Tools`, the `plugin-full` world's main export:

    from mcp_wasm_sdk import Tools, tool

    @tool(read_only=True)
    def shout(text: str, times: int = 1) -> str:
        \"\"\"Upper-cases a text.

        Args:
            text: The text to shout.
            times: How many times to repeat it.
        \"\"\"
        return " ".join([text.upper()] * times)

See docs/python.md for the reference.
"""

from .content import (Annotations, Audio, EmbeddedResource, Image, Result, ResourceLink, Text,
                      audio, image, resource, resource_link, text)
from .errors import ClientError, Denied, Failed, InvalidArguments, NotFound
from .serve import (Contents, PromptResult, ViewCsp, ViewPermissions, completion, prompt, resource_template,
                    static_resource, tool_view, view)
from .tool import Icon, tool
from .world import Completions, Prompts, Resources, Tools, elicit, log, progress, sample

__all__ = [
    "Tools", "tool", "Icon",
    "Result", "Text", "Image", "Audio", "ResourceLink", "EmbeddedResource", "Annotations",
    "text", "image", "audio", "resource_link", "resource",
    "InvalidArguments", "Denied", "Failed", "NotFound", "ClientError",
    "log", "progress", "sample", "elicit",
    "Resources", "Prompts", "Completions",
    "static_resource", "resource_template", "view", "tool_view", "Contents", "ViewCsp", "ViewPermissions",
    "prompt", "PromptResult", "completion",
]
