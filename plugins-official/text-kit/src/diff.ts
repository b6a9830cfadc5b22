import { createTwoFilesPatch } from 'diff';

/**
 * A unified diff of two texts, as `diff -u` and git print it: `before` undefined stands for a file
 * about to be created (`/dev/null`); `afterAs` names the new side when it is not `shownAs`.
 */
export function unifiedDiff(shownAs: string, before: string | undefined, after: string, afterAs = shownAs): string {
  const patch = createTwoFilesPatch(
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
