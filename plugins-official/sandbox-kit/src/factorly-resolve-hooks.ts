// The engine child's copy of factorly's own resolve hook (src/plugins/factorly-resolve-hooks.ts;
// a kit imports no factorly code): `factorly` and `factorly/<entry>` resolve as a self-reference of
// the factorly package whose package.json `initialize` is given, by that package's exports.

interface ResolveContext {
  parentURL?: string;
  conditions?: string[];
  importAttributes?: Record<string, string>;
}

type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

let factorlyPackageJson: string | undefined;

export function initialize(data: { packageJson: string }): void {
  factorlyPackageJson = data.packageJson;
}

export function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<unknown> {
  if (factorlyPackageJson !== undefined && (specifier === 'factorly' || specifier.startsWith('factorly/')))
    return nextResolve(specifier, { ...context, parentURL: factorlyPackageJson });
  return nextResolve(specifier, context);
}
