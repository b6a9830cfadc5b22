/**
 * Tool names as callable paths under `tools`: `github.search_issues` ⇄ `tools.github.search_issues`,
 * `my-app.x` ⇄ `tools["my-app"].x` (identifier segments use `.name`, others `["…"]`).
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function toolPath(name: string): string {
  return (
    'tools' +
    name
      .split('.')
      .map((segment) => (IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`))
      .join('')
  );
}

/** Accepts `github.x`, `tools.github.x` and `tools["github"].x`; returns the tool name `github.x`. */
export function canonicalName(path: string): string {
  let rest = path.trim();
  if (rest === 'tools') return '';
  if (rest.startsWith('tools.') || rest.startsWith('tools[')) rest = rest.slice(5);
  const segments: string[] = [];
  const pattern = /\.?([^.[\]]+)|\[("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(rest)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else segments.push(match[2]!.startsWith('"') ? (JSON.parse(match[2]!) as string) : match[2]!.slice(1, -1));
    if (pattern.lastIndex >= rest.length) break;
  }
  return segments.join('.');
}

/** The app a tool belongs to: the first segment of a dotted name, none for a bare name. */
export function namespaceOf(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : undefined;
}
