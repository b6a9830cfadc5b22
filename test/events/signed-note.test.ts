import { describe, expect, it } from 'vitest';
import { checkpointText, openCheckpoint, parseCheckpointText, signCheckpoint } from '../../src/events/checkpoint.js';
import { EMPTY_ROOT } from '../../src/events/merkle.js';
import {
  keyIdOf,
  newSignerKey,
  openNote,
  signerFromKey,
  signNote,
  verifierFromKey,
} from '../../src/events/signed-note.js';

// The example of https://c2sp.org/signed-note ("Verifier keys"): a key made elsewhere, and a note it signed.
const SPEC_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const SPEC_NOTE =
  'This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

describe('C2SP signed-note with Ed25519', () => {
  it('verifies the spec example note with the spec example verifier key', () => {
    const verifier = verifierFromKey(SPEC_VKEY);
    expect(verifier).toMatchObject({ name: 'example.com/foo', keyId: 0x530d903a });
    expect(openNote(SPEC_NOTE, [verifier])).toEqual({
      text: 'This is an example message.\n',
      verifiedBy: ['example.com/foo'],
    });
    expect(() => openNote(SPEC_NOTE.replace('example message', 'exemplary message'), [verifier])).toThrow(
      'the signature of example.com/foo does not verify',
    );
  });

  it('makes keys whose ID follows the spec, signs, and verifies with the printed verifier key', () => {
    const signer = signerFromKey(newSignerKey('factorly.local/log/abc'));
    const vkey = signer.verifierKey;
    expect(vkey).toMatch(/^factorly\.local\/log\/abc\+[0-9a-f]{8}\+A[A-Za-z0-9+/]{43}$/);
    const publicKey = Buffer.from(vkey.split('+').slice(2).join('+'), 'base64').subarray(1);
    expect(keyIdOf('factorly.local/log/abc', publicKey)).toBe(signer.keyId);
    const note = signNote('hello\nworld\n', signer);
    expect(note).toMatch(/^hello\nworld\n\n\u2014 factorly\.local\/log\/abc [A-Za-z0-9+/=]+\n$/);
    expect(openNote(note, [verifierFromKey(vkey)]).text).toBe('hello\nworld\n');
  });

  it('ignores signatures of unknown keys, and refuses a note no known key signed', () => {
    const one = signerFromKey(newSignerKey('one.example'));
    const other = signerFromKey(newSignerKey('other.example'));
    const both = `${signNote('text\n', one)}${signNote('text\n', other).split('\n\n')[1]}`;
    expect(openNote(both, [verifierFromKey(other.verifierKey)]).verifiedBy).toEqual(['other.example']);
    expect(() => openNote(signNote('text\n', one), [verifierFromKey(other.verifierKey)])).toThrow(
      'no signature by a known key',
    );
    // Same name, another key: its ID differs, so it is an unknown key, not a failed signature.
    const impostor = signerFromKey(newSignerKey('other.example'));
    expect(() => openNote(signNote('text\n', impostor), [verifierFromKey(other.verifierKey)])).toThrow(
      'no signature by a known key',
    );
  });

  it('refuses malformed notes and keys with a message naming the problem', () => {
    const verifier = verifierFromKey(SPEC_VKEY);
    expect(() => openNote('no blank line\n\u2014 x AAAA\n', [verifier])).toThrow('no blank line before the signatures');
    expect(() => openNote('text\n\nnot a signature\n', [verifier])).toThrow('not a signature line');
    expect(() => openNote('te\u0007xt\n\n\u2014 example.com/foo AAAAAAAA\n', [verifier])).toThrow('control characters');
    expect(() => verifierFromKey('example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k')).toThrow(
      'key ID does not match',
    );
    expect(() => verifierFromKey('garbage')).toThrow('not a verifier key');
    expect(() => signerFromKey(SPEC_VKEY)).toThrow('not a signer key');
  });
});

describe('C2SP tlog-checkpoint', () => {
  it('signs and opens a checkpoint, and reads the fields back', () => {
    const signer = signerFromKey(newSignerKey('factorly.local/log/x'));
    const note = signCheckpoint({ origin: 'factorly.local/log/x', size: 12, rootHash: EMPTY_ROOT }, signer);
    expect(
      note.startsWith(`factorly.local/log/x\n12\n${EMPTY_ROOT.toString('base64')}\n\n\u2014 factorly.local/log/x `),
    ).toBe(true);
    expect(openCheckpoint(note, [verifierFromKey(signer.verifierKey)])).toMatchObject({
      origin: 'factorly.local/log/x',
      size: 12,
      extensions: [],
      verifiedBy: ['factorly.local/log/x'],
    });
  });

  it('reads the spec example checkpoint text, and refuses bad sizes and roots', () => {
    const spec = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
    expect(parseCheckpointText(spec)).toMatchObject({
      origin: 'example.com/behind-the-sofa',
      size: 20852163,
      extensions: [],
    });
    expect(checkpointText(parseCheckpointText(spec))).toBe(spec);
    expect(() => parseCheckpointText('o\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n')).toThrow(
      'tree size "012"',
    );
    expect(() => parseCheckpointText('o\n12\nshort\n')).toThrow('root hash is not 32 bytes');
    expect(() => parseCheckpointText('o\n12\n')).toThrow('expected an origin, a tree size and a root hash');
  });
});
