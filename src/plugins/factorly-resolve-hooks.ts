// Module resolution hooks (node:module `register`), run on Node's hooks thread: a plugin's
// `import … from 'factorly'` (or `factorly/<entry>`) resolves to the factorly that is running, by
// its package's exports, wherever the plugin was installed from (a tarball, the registry, a link)
// and whatever `factorly` package sits in a node_modules above it (an author's dev copy, or an
// unrelated package of that name). See factorly-resolution.ts.

/** What `register` hands `initialize`: the URL of the running factorly's package.json. */
export interface ResolveHookData {
  packageJson: string;
}

interface ResolveContext {
  parentURL?: string;
  conditions?: string[];
  importAttributes?: Record<string, string>;
}

type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

let factorlyPackageJson: string | undefined;

export function initialize(data: ResolveHookData): void {
  factorlyPackageJson = data.packageJson;
}

export function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<unknown> {
  if (factorlyPackageJson !== undefined && (specifier === 'factorly' || specifier.startsWith('factorly/'))) {
    // Resolved as factorly resolves its own name (a package self-reference): the package's exports
    // decide what exists, so an entry it does not export is refused as it would be anywhere.
    return nextResolve(specifier, { ...context, parentURL: factorlyPackageJson });
  }
  return nextResolve(specifier, context);
}
