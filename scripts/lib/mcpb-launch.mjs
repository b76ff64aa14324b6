// Prints, as JSON, the command, args and env a desktop app runs for an
// unpacked MCP Bundle: the official @anthropic-ai/mcpb library's
// getMcpConfigForManifest (the substitution of ${__dirname}, ${HOME}, ...
// and ${user_config.*}, with the manifest's defaults, and the
// platform_overrides for this platform), or `null` when a required setting
// is missing and the app would not start the server.
//
//   node scripts/lib/mcpb-launch.mjs MCPB_PACKAGE_DIR BUNDLE_DIR USER_CONFIG_JSON [PLATFORM]
//
// MCPB_PACKAGE_DIR is the installed package (packaging/mcpb/node_modules/
// @anthropic-ai/mcpb); BUNDLE_DIR the unpacked bundle. PLATFORM (darwin,
// win32 or linux) resolves it as an app on that system would: the library
// picks the override by process.platform, which is set to PLATFORM first.
// The paths keep this system's separator. Used by scripts/lib/check-bundle.py
// and tests/python/test_bundle.py.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, sep } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, bundle, userConfig, platform] = process.argv.slice(2);
if (platform !== undefined) {
  if (!["darwin", "win32", "linux"].includes(platform)) {
    process.stderr.write(`mcpb-launch: unknown platform ${platform}: want darwin, win32 or linux\n`);
    process.exit(2);
  }
  Object.defineProperty(process, "platform", { value: platform });
}
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
