import type { ImportOptions, SpecBlueprint, SpecSource } from '../../editing/contracts.js';
import { blueprintFromSpec } from './blueprint.js';
import { operationsOf } from './operations.js';
import { readSpec, type SpecOptions } from './spec.js';

/**
 * `factorly tools import openapi` and the web UI's Import page: reads an OpenAPI 3.x or Swagger 2.0
 * description and makes the blueprint of its operations (each a `rest` tool). Installing it is the
 * blueprint pipeline's (`planBlueprint`, `installBlueprint`), so list, show and uninstall treat an
 * import like any blueprint.
 */
export async function importOpenApi(
  source: SpecSource,
  options: ImportOptions,
  where: SpecOptions,
): Promise<SpecBlueprint> {
  const spec = await readSpec({ path: source.spec, text: source.text, label: source.label }, where);
  return blueprintFromSpec(spec, operationsOf(spec), options);
}
