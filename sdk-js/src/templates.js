// Resource template matching (no host imports, so that its tests run in
// plain Node): the behaviour tests/uri-templates.json gives the host and
// every SDK.

/**
 * The variables of `uri` if it matches `template` (`{name}`: one or more
 * characters other than `/`; `{+name}`: one or more of any), else undefined.
 */
export function matchTemplate(template, uri) {
  const names = [];
  const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  let pattern = "";
  let at = 0;
  for (const m of template.matchAll(/\{(\+?)([A-Za-z0-9_.]+)\}/g)) {
    pattern += escape(template.slice(at, m.index)) + (m[1] ? "([\\s\\S]+?)" : "([^/]+?)");
    names.push(m[2]);
    at = m.index + m[0].length;
  }
  pattern += escape(template.slice(at));
  const found = new RegExp(`^${pattern}$`).exec(uri);
  if (!found) return undefined;
  const vars = {};
  // A name used twice keeps its first value.
  names.forEach((n, i) => {
    if (!Object.hasOwn(vars, n)) vars[n] = found[i + 1];
  });
  return vars;
}
