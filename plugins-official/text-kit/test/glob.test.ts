import { describe, expect, it } from 'vitest';
import { globMatcher, matchesAnyGlob } from '../src/glob.js';

describe('globMatcher', () => {
  it('matches a name without wildcards exactly', () => {
    const exact = globMatcher('git_log');
    expect([exact('git_log'), exact('git_logs'), exact('a.git_log'), exact('GIT_LOG')]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it('lets * stand for any run (none, dots and slashes included) and ? for one character', () => {
    const star = globMatcher('delete_*');
    expect(['delete_', 'delete_repo', 'delete_a.b/c'].map(star)).toEqual([true, true, true]);
    expect(['delete', 'xdelete_repo'].map(star)).toEqual([false, false]);
    expect(['*'].map(globMatcher).map((match) => match(''))).toEqual([true]);
    const one = globMatcher('get-?');
    expect(['get-a', 'get-é', 'get-', 'get-ab'].map(one)).toEqual([true, true, false, false]);
  });

  it('takes every other character literally, regex syntax included', () => {
    const dotted = globMatcher('a.b*');
    expect(['a.bc', 'axbc'].map(dotted)).toEqual([true, false]);
    expect(globMatcher('(x|y)+[z]*')('(x|y)+[z]')).toBe(true);
    expect(globMatcher('(x|y)+[z]*')('x')).toBe(false);
    expect(globMatcher('back\\slash*')('back\\slash!')).toBe(true);
  });

  it('matchesAnyGlob: any of several patterns, none for an empty list', () => {
    expect(matchesAnyGlob(['echo', 'get-*'], 'get-sum')).toBe(true);
    expect(matchesAnyGlob(['echo', 'get-*'], 'add')).toBe(false);
    expect(matchesAnyGlob([], 'add')).toBe(false);
  });
});
