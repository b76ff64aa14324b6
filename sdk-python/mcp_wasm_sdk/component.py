"""The module componentize-py builds a plugin from (`componentize
mcp_wasm_sdk.component`): it imports the plugin's module, `app`, which
declares its tools, resources and prompts, and takes the `plugin-full`
world's four exports from it, or the SDK's own where `app` defines none.
So a plugin that serves only tools need not mention the other three."""

import app as _app

from . import world as _world

Tools = getattr(_app, "Tools", _world.Tools)
Resources = getattr(_app, "Resources", _world.Resources)
Prompts = getattr(_app, "Prompts", _world.Prompts)
Completions = getattr(_app, "Completions", _world.Completions)
