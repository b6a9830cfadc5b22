import { createRequire } from 'node:module';

type Jsdiff = typeof import('diff');
let jsdiff: Jsdiff | undefined;

/**
 * A unified diff of two texts, as `diff -u` and git print it: `before` undefined stands for a file
 * about to be created (`/dev/null`); `afterAs` names the new side when it is not `shownAs`. jsdiff
 * (its CommonJS build, nineteen modules as ESM) is loaded on the first diff, not by every command
 * that loads text-kit.
 */
export function unifiedDiff(shownAs: string, before: string | undefined, after: string, afterAs = shownAs): string {
  jsdiff ??= createRequire(import.meta.url)('diff') as Jsdiff;
  const patch = jsdiff.createTwoFilesPatch(
    before === undefined ? '/dev/null' : shownAs,
    afterAs,
    before ?? '',
    after,
    '',
    '',
    {
      context: 3,
    },
  );
  // Drop jsdiff's "Index:" and "====" banner.
  return patch.slice(patch.indexOf('---'));
}
