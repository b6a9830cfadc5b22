// The one glob matcher of factorly and its plugins: which tools an upstream MCP server contributes
// (`tools:` / `exclude:` on its entry), and the allow-lists of the governance rules to come.

/**
 * A test for names against one pattern: `*` stands for any run of characters (none included, dots
 * included: `git_*` covers `git_log`, `*` covers every name), `?` for exactly one; every other
 * character stands for itself (no ranges, no escapes; case counts). The whole name must match.
 */
export function globMatcher(pattern: string): (name: string) => boolean {
  if (!/[*?]/.test(pattern)) return (name) => name === pattern;
  const source = [...pattern]
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.+()[\]{}|]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^${source}$`, 'su');
  return (name) => regex.test(name);
}

/** Whether any of `patterns` matches `name`. */
export function matchesAnyGlob(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => globMatcher(pattern)(name));
}
