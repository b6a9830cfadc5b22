import { describe, expect, it } from 'vitest';
import { envPassthroughProblems, isFactorlySecretName, toolEnvironment, userEnvironment } from '../src/environment.js';

/** A stand-in for factorly's own environment: what a person's shell might export. */
const FROM: NodeJS.ProcessEnv = {
  PATH: '/usr/bin',
  HOME: '/home/ada',
  LANG: 'C.UTF-8',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  EDITOR: 'vi',
  FACTORLY_VAULT_PASSWORD: 'vault-password',
  FACTORLY_HTTP_TOKEN: 'http-token',
  FACTORLY_SOMETHING_NEW: 'maybe-secret',
  FACTORLY_DEBUG: '1',
};

describe('the environment builder every provider uses', () => {
  it('a tool gets the base that is set, its passthrough names and its own env, which wins', () => {
    const env = toolEnvironment(
      { env: { LANG: 'de_DE.UTF-8', OWN: 'x' }, passthrough: ['AWS_SECRET_ACCESS_KEY', 'UNSET'] },
      FROM,
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/ada',
      LANG: 'de_DE.UTF-8',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      OWN: 'x',
    });
  });

  it('never takes a FACTORLY_* secret from factorly’s environment, even passed through or inherited', () => {
    const passed = toolEnvironment({ passthrough: ['FACTORLY_VAULT_PASSWORD', 'FACTORLY_SOMETHING_NEW'] }, FROM);
    expect(Object.keys(passed)).toEqual(['PATH', 'HOME', 'LANG']);
    const inherited = toolEnvironment({ inherit: true }, FROM);
    expect(Object.keys(inherited).sort()).toEqual([
      'AWS_SECRET_ACCESS_KEY',
      'EDITOR',
      'FACTORLY_DEBUG',
      'HOME',
      'LANG',
      'PATH',
    ]);
  });

  it('a command acting for the person keeps their environment minus factorly’s secrets, plus what factorly adds', () => {
    const env = userEnvironment({ FACTORLY_CHECKPOINT_SIZE: '7' }, FROM);
    expect(env).toMatchObject({ EDITOR: 'vi', AWS_SECRET_ACCESS_KEY: 'aws-secret', FACTORLY_CHECKPOINT_SIZE: '7' });
    expect(Object.keys(env).filter(isFactorlySecretName)).toEqual(['FACTORLY_CHECKPOINT_SIZE']);
    expect(Object.values(env)).not.toContain('vault-password');
    expect(Object.values(env)).not.toContain('http-token');
    expect(Object.values(env)).not.toContain('maybe-secret');
  });

  it('an unknown FACTORLY_* name is treated as a secret; the documented settings are not', () => {
    expect(
      ['FACTORLY_VAULT_PASSWORD', 'FACTORLY_HTTP_TOKEN', 'FACTORLY_X', 'factorly_vault_password'].map(
        isFactorlySecretName,
      ),
    ).toEqual([true, true, true, true]);
    expect(['FACTORLY_DEBUG', 'FACTORLY_DATA_DIR', 'PATH', 'MY_FACTORLY_X'].map(isFactorlySecretName)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('checks env_passthrough at load: a list of variable names, none of factorly’s own', () => {
    expect(envPassthroughProblems(undefined)).toEqual([]);
    expect(envPassthroughProblems(['AWS_PROFILE', 'FACTORLY_DEBUG'])).toEqual([]);
    expect(envPassthroughProblems('AWS_PROFILE')).toEqual([
      'has "env_passthrough" that is not a list of variable names (env_passthrough: [AWS_PROFILE])',
    ]);
    expect(envPassthroughProblems(['A B', 3, 'FACTORLY_VAULT_PASSWORD'], 'pipe has')).toEqual([
      'pipe has "env_passthrough" entry "A B", which is not a variable name (letters, digits, "_")',
      'pipe has "env_passthrough" entry 3, which is not a variable name (letters, digits, "_")',
      `pipe has "env_passthrough" entry "FACTORLY_VAULT_PASSWORD": factorly's own variables (FACTORLY_*) may hold its secrets and never reach a tool`,
    ]);
  });
});
