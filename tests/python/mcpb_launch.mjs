// Prints, as JSON, the command, args and env a desktop app runs for an
// unpacked MCP Bundle: the official @anthropic-ai/mcpb library's
// getMcpConfigForManifest (the substitution of ${__dirname}, ${HOME}, ...
// and ${user_config.*}, with the manifest's defaults, and the
// platform_overrides for this platform), or `null` when a required setting
// is missing and the app would not start the server.
//
//   node tests/python/mcpb_launch.mjs MCPB_PACKAGE_DIR BUNDLE_DIR USER_CONFIG_JSON
//
// MCPB_PACKAGE_DIR is the installed package (packaging/mcpb/node_modules/
// @anthropic-ai/mcpb); BUNDLE_DIR the unpacked bundle.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, sep } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, bundle, userConfig] = process.argv.slice(2);
const { getMcpConfigForManifest } = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
const manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8"));
const home = homedir();
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: bundle,
  systemDirs: { HOME: home, DESKTOP: join(home, "Desktop"), DOCUMENTS: join(home, "Documents"), DOWNLOADS: join(home, "Downloads") },
  userConfig: JSON.parse(userConfig),
  pathSeparator: sep,
});
process.stdout.write(JSON.stringify(config ?? null));
