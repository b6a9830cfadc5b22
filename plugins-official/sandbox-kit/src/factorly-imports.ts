// Loaded first in an engine's child process (`--import`, see `factorlyImportFlags`): registers the
// resolve hook that makes `factorly/sandbox-kit/child` (and every other `factorly` entry) resolve
// to the factorly that started the engine. The child of an engine installed with `factorly plugins
// install` lives in factorly's data dir, where Node alone finds no `factorly` (or an unrelated one).
// The package.json to resolve from comes in this module's own URL (`?package=`): the child's
// environment is empty on purpose.
import { register } from 'node:module';

const packageJson = new URL(import.meta.url).searchParams.get('package');
if (packageJson) register('./factorly-resolve-hooks.js', { parentURL: import.meta.url, data: { packageJson } });
