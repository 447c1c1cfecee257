import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyAwsIdentity } from '../../src/domain/instance-identity/aws.js';
import { AZURE_SIGNER_NAME, verifyAzureIdentity } from '../../src/domain/instance-identity/azure.js';
import { verifyInstanceIdentity } from '../../src/domain/instance-identity/exchange.js';
import { parseGoogleKeys, verifyGoogleIdentity } from '../../src/domain/instance-identity/google.js';
import { IdentityRejected } from '../../src/domain/instance-identity/identity-error.js';
import { Asn1Error, parseSignedData } from '../../src/domain/instance-identity/signed-data.js';
import { loadInstanceIdentityTrust, NO_TRUST } from '../../src/domain/instance-identity/trust.js';
import { HttpProblem } from '../../src/lib/errors.js';
import { readEchoFile } from '../../src/provisioner/echo/echo-file.js';
import { toPlannedResource } from '../../src/provisioner/native/expand-resources.js';
import { parseTemplateText } from '../../src/provisioner/native/template-file.js';
import {
  azureChain,
  der,
  jwks,
  makeCertificate,
  rsaKeyPair,
  signAwsDocument,
  signGoogleToken,
  signPkcs7,
  tlv,
  type TestCertificate,
} from '../helpers/instance-identity-fixtures.js';

const NOW = new Date('2026-01-05T10:00:00.000Z');
const NOW_SECONDS = NOW.getTime() / 1000;

/** Asserts that `run` rejects the identity (as `kind`), with a reason matching `reason`. */
function rejects(run: () => unknown, reason: RegExp, kind: 'invalid' | 'claims' = 'invalid'): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof IdentityRejected, `expected IdentityRejected, got ${String(error)}`);
    assert.equal(error.kind, kind);
    assert.match(error.message, reason);
    return true;
  });
}

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cove-identity-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

describe('PKCS#7 reader', () => {
  const contentInfo = (content: Buffer) => der.seq(der.oid('1.2.840.113549.1.7.2'), der.explicit(0, content));

  it('reads BER indefinite lengths as far as the structure goes', () => {
    // An indefinite-length content info without its content: decoded, then refused for what is missing.
    const indefinite = Buffer.concat([Buffer.from([0x30, 0x80]), der.oid('1.2.840.113549.1.7.2'), Buffer.from([0x00, 0x00])]);
    assert.throws(
      () => parseSignedData(indefinite),
      (error: unknown) => error instanceof Asn1Error && !/not valid BER/.test(error.message),
    );
  });

  it('refuses truncated, overlong, trailing and deeply nested input', () => {
    assert.throws(() => parseSignedData(Buffer.from([0x30, 0x05, 0x02, 0x01])), Asn1Error);
    assert.throws(() => parseSignedData(Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff])), Asn1Error);
    assert.throws(() => parseSignedData(Buffer.concat([contentInfo(der.null()), Buffer.from([0x00])])), /after it/);
    assert.throws(() => parseSignedData(Buffer.from([0x30, 0x80, 0x05, 0x00])), Asn1Error);
    let deep: Buffer = der.null();
    for (let i = 0; i < 100; i++) deep = der.seq(deep);
    assert.throws(() => parseSignedData(contentInfo(deep)), Asn1Error);
    // 100,000 nested indefinite-length sequences: refused, not a stack overflow.
    assert.throws(() => parseSignedData(Buffer.alloc(200_000).fill(Buffer.from([0x30, 0x80]))), Asn1Error);
    assert.throws(() => parseSignedData(tlv(0x1f, Buffer.alloc(0))), Asn1Error);
  });

  it('refuses a SignedData that is not one', () => {
    assert.throws(() => parseSignedData(contentInfo(der.seq(der.integer(1)))), /the SignedData is malformed/);
  });
});

describe('AWS instance identity', () => {
  const keys = rsaKeyPair();
  const other = rsaKeyPair();

  it('accepts a document signed by a trusted certificate and returns its instanceId', () => {
    const { document, signature } = signAwsDocument('i-0123456789abcdef0', keys.privateKey);
    assert.equal(verifyAwsIdentity({ document, signature }, [other.publicKey, keys.publicKey]), 'i-0123456789abcdef0');
    // The metadata service wraps the base64 signature over lines.
    const wrapped = signature.replace(/(.{64})/g, '$1\n');
    assert.equal(verifyAwsIdentity({ document, signature: wrapped }, [keys.publicKey]), 'i-0123456789abcdef0');
  });

  it('refuses forged, tampered and malformed documents', () => {
    const forged = signAwsDocument('i-0123456789abcdef0', other.privateKey);
    rejects(() => verifyAwsIdentity(forged, [keys.publicKey]), /does not match the document/);
    const good = signAwsDocument('i-0123456789abcdef0', keys.privateKey);
    rejects(
      () => verifyAwsIdentity({ ...good, document: good.document.replace('i-0123456789abcdef0', 'i-0fffffffffffffff0') }, [keys.publicKey]),
      /does not match/,
    );
    rejects(() => verifyAwsIdentity({ ...good, signature: 'not base64!' }, [keys.publicKey]), /not base64/);
    rejects(() => verifyAwsIdentity(good, []), /no AWS certificates/);
    const plain = 'plain text';
    rejects(
      () =>
        verifyAwsIdentity({ document: plain, signature: sign('sha256', Buffer.from(plain), keys.privateKey).toString('base64') }, [
          keys.publicKey,
        ]),
      /not JSON/,
    );
    const noId = signAwsDocument('', keys.privateKey);
    rejects(() => verifyAwsIdentity(noId, [keys.publicKey]), /no instanceId/);
  });
});

describe('Azure instance identity', () => {
  const content = JSON.stringify({
    licenseType: '',
    nonce: '20260105-100000',
    plan: {},
    timeStamp: {},
    vmId: 'a0b1c2d3-0000-4000-8000-000000000001',
  });
  const vmId = 'a0b1c2d3-0000-4000-8000-000000000001';
  let chain: ReturnType<typeof azureChain>;
  before(() => {
    chain = azureChain('eastus.metadata.azure.com');
  });
  const verify = (signature: string, roots: readonly TestCertificate[] = [chain.root], now = NOW) =>
    verifyAzureIdentity(
      signature,
      roots.map((root) => root.x509),
      now,
    );

  it('accepts a signature with signed attributes, without them, and naming the signer by key id', () => {
    const { leaf, intermediate } = chain;
    assert.equal(verify(signPkcs7(content, leaf, [leaf, intermediate])), vmId);
    assert.equal(verify(signPkcs7(content, leaf, [intermediate, leaf], { signedAttributes: false })), vmId);
    assert.equal(verify(signPkcs7(content, leaf, [leaf, intermediate], { sid: 'subject-key-identifier' })), vmId);
    // An intermediate may be trusted directly instead of travelling in the PKCS#7.
    assert.equal(verify(signPkcs7(content, leaf, [leaf]), [chain.intermediate]), vmId);
  });

  it('reads what openssl cms and smime write (DER and streamed BER)', () => {
    const { leaf, intermediate, root } = chain;
    const dir = scratch;
    const files = {
      content: join(dir, 'content.json'),
      leaf: join(dir, 'leaf.pem'),
      key: join(dir, 'leaf.key'),
      inter: join(dir, 'inter.pem'),
      out: join(dir, 'sig.der'),
    };
    return (async () => {
      await writeFile(files.content, content);
      await writeFile(files.leaf, leaf.pem);
      await writeFile(files.key, leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      await writeFile(files.inter, intermediate.pem);
      for (const [command, ...extra] of [
        ['cms'],
        ['cms', '-noattr'],
        ['cms', '-keyid'],
        ['cms', '-stream'],
        ['smime'],
        ['smime', '-noattr'],
      ] as const) {
        execFileSync('openssl', [
          command,
          '-sign',
          '-binary',
          '-nodetach',
          '-in',
          files.content,
          '-signer',
          files.leaf,
          '-inkey',
          files.key,
          '-certfile',
          files.inter,
          '-outform',
          'DER',
          '-out',
          files.out,
          ...extra,
        ]);
        const signature = (await readFile(files.out)).toString('base64');
        assert.equal(verifyAzureIdentity(signature, [root.x509], NOW), vmId, `openssl ${command} ${extra.join(' ')}`);
      }
    })();
  });

  it('refuses tampered content, a wrong digest and a signature by another key', () => {
    const { leaf, intermediate } = chain;
    const evil = JSON.stringify({ vmId: 'ffffffff-0000-4000-8000-000000000000' });
    rejects(() => verify(signPkcs7(content, leaf, [leaf, intermediate], { carriedContent: evil })), /message digest does not match/);
    rejects(
      () => verify(signPkcs7(content, leaf, [leaf, intermediate], { carriedContent: evil, signedAttributes: false })),
      /signature does not match/,
    );
    rejects(() => verify(signPkcs7(content, leaf, [leaf, intermediate], { digestOf: evil })), /message digest does not match/);
    rejects(
      () => verify(signPkcs7(content, leaf, [leaf, intermediate], { signingKey: rsaKeyPair().privateKey })),
      /signature does not match/,
    );
  });

  it('refuses a signer not named like the metadata service', () => {
    for (const name of ['metadata.azure.com.evil.com', 'evilmetadata.azure.com', 'metadata.azure.org', 'example.com']) {
      assert.equal(AZURE_SIGNER_NAME.test(name), false, name);
      const leaf = makeCertificate({ commonName: name, issuer: chain.intermediate });
      rejects(() => verify(signPkcs7(content, leaf, [leaf, chain.intermediate])), /is not Azure's metadata service/);
    }
    for (const name of [
      'metadata.azure.com',
      'westeurope.metadata.azure.com',
      'metadata.azure.us',
      'metadata.azure.cn',
      'metadata.microsoftazure.de',
    ]) {
      assert.equal(AZURE_SIGNER_NAME.test(name), true, name);
    }
  });

  it('refuses an untrusted root, a missing intermediate, and an intermediate that is no CA', () => {
    const { leaf, intermediate } = chain;
    const stranger = azureChain();
    rejects(() => verify(signPkcs7(content, leaf, [leaf, intermediate]), [stranger.root]), /does not chain to a trusted root/);
    rejects(() => verify(signPkcs7(content, leaf, [leaf])), /does not chain/);
    // A self-signed certificate with the right name is not trusted because of its name.
    const selfSigned = makeCertificate({ commonName: 'metadata.azure.com' });
    rejects(() => verify(signPkcs7(content, selfSigned, [selfSigned])), /does not chain/);
    const notCa = makeCertificate({ commonName: 'Not A CA', issuer: chain.root });
    const underNotCa = makeCertificate({ commonName: 'metadata.azure.com', issuer: notCa });
    rejects(() => verify(signPkcs7(content, underNotCa, [underNotCa, notCa])), /does not chain/);
    rejects(() => verify(signPkcs7(content, leaf, [leaf, intermediate]), []), /no Azure root certificates/);
  });

  it('checks validity dates against the given clock', () => {
    const { root } = chain;
    const shortLived = makeCertificate({
      commonName: 'metadata.azure.com',
      issuer: chain.intermediate,
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter: new Date('2026-02-01T00:00:00Z'),
    });
    const signature = signPkcs7(content, shortLived, [shortLived, chain.intermediate]);
    assert.equal(verify(signature, [root], NOW), vmId);
    rejects(() => verify(signature, [root], new Date('2026-03-01T00:00:00Z')), /not valid at 2026-03-01/);
    rejects(() => verify(signature, [root], new Date('2025-12-01T00:00:00Z')), /not valid at 2025-12-01/);
    const expiredIntermediate = makeCertificate({
      commonName: 'Old Intermediate',
      ca: true,
      issuer: root,
      notAfter: new Date('2025-06-01T00:00:00Z'),
    });
    const leaf = makeCertificate({ commonName: 'metadata.azure.com', issuer: expiredIntermediate });
    rejects(() => verify(signPkcs7(content, leaf, [leaf, expiredIntermediate]), [root], NOW), /does not chain/);
  });

  it('refuses what is not a PKCS#7 and content without a vmId', () => {
    const { leaf, intermediate } = chain;
    rejects(() => verify(Buffer.from('hello').toString('base64')), /not a PKCS#7/);
    rejects(() => verify('***'), /not base64/);
    rejects(() => verify(der.seq(der.oid('1.2.840.113549.1.7.1')).toString('base64')), /not SignedData/);
    rejects(() => verify(signPkcs7(content, leaf, [intermediate])), /does not carry its signer's certificate/);
    rejects(() => verify(signPkcs7('{"nonce":"x"}', leaf, [leaf, intermediate])), /no vmId/);
    rejects(() => verify(signPkcs7('not json', leaf, [leaf, intermediate])), /not JSON/);
  });
});

describe('Google instance identity', () => {
  const keys = rsaKeyPair();
  const other = rsaKeyPair();
  const exp = NOW_SECONDS + 3600;
  const google = parseGoogleKeys(
    jwks([
      { kid: 'key-1', publicKey: other.publicKey },
      { kid: 'key-2', publicKey: keys.publicKey },
    ]),
  );

  it('reads JWKS, PEM bundles and key-id maps', () => {
    assert.deepEqual(
      google.map((key) => key.kid),
      ['key-1', 'key-2'],
    );
    const certificate = makeCertificate({ commonName: 'Google Test', keys });
    assert.deepEqual(
      parseGoogleKeys(`${certificate.pem}\n${makeCertificate({ commonName: 'Other' }).pem}`).map((key) => key.kid),
      [undefined, undefined],
    );
    assert.deepEqual(
      parseGoogleKeys(JSON.stringify({ abc: certificate.pem })).map((key) => key.kid),
      ['abc'],
    );
    assert.throws(() => parseGoogleKeys('{"keys": []}'), /no RSA keys/);
    assert.throws(() => parseGoogleKeys('{"abc": 5}'), /not a PEM certificate/);
  });

  it('accepts a token by its kid, or by trying every key, whatever its audience', () => {
    assert.equal(
      verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '5551234', exp, kid: 'key-2' }), google, NOW),
      '5551234',
    );
    const pem = parseGoogleKeys(makeCertificate({ commonName: 'Google Test', keys }).pem);
    assert.equal(verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '5551234', exp }), pem, NOW), '5551234');
    assert.equal(
      verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '5551234', exp, kid: 'unknown' }), pem, NOW),
      '5551234',
    );
    assert.equal(
      verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '5551234', exp, claims: { aud: 'someone-else' } }), google, NOW),
      '5551234',
    );
  });

  it('refuses forged, tampered, expired and wrongly signed tokens', () => {
    rejects(
      () => verifyGoogleIdentity(signGoogleToken(other.privateKey, { instanceId: '1', exp, kid: 'key-2' }), google, NOW),
      /signature does not match/,
    );
    rejects(
      () => verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '1', exp, kid: 'key-9' }), google, NOW),
      /no trusted key has the id "key-9"/,
    );
    const token = signGoogleToken(keys.privateKey, { instanceId: '1', exp, kid: 'key-2' });
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify({ exp, google: { compute_engine: { instance_id: '2' } } })).toString('base64url');
    rejects(() => verifyGoogleIdentity(`${header}.${payload}.${signature}`, google, NOW), /signature does not match/);
    rejects(
      () => verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '1', exp: NOW_SECONDS - 1, kid: 'key-2' }), google, NOW),
      /expired/,
    );
    rejects(
      () => verifyGoogleIdentity(signGoogleToken(keys.privateKey, { instanceId: '1', exp, kid: 'key-2', alg: 'HS256' }), google, NOW),
      /RS256 is expected/,
    );
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    rejects(() => verifyGoogleIdentity(unsigned, google, NOW), /RS256 is expected/);
    rejects(() => verifyGoogleIdentity('not-a-jwt', google, NOW), /not a JWT/);
    rejects(
      () =>
        verifyGoogleIdentity(
          signGoogleToken(keys.privateKey, { instanceId: '1', exp: NOW_SECONDS + 60 }),
          google,
          new Date(NOW.getTime() + 61_000),
        ),
      /expired/,
    );
    rejects(() => verifyGoogleIdentity(token, [], NOW), /no Google keys/);
  });

  it('says the claims cannot be read when the instance id is missing', () => {
    rejects(
      () => verifyGoogleIdentity(signGoogleToken(keys.privateKey, { exp, kid: 'key-2' }), google, NOW),
      /google\.compute_engine\.instance_id/,
      'claims',
    );
    const numeric = signGoogleToken(keys.privateKey, { exp, kid: 'key-2', claims: { google: { compute_engine: { instance_id: 42 } } } });
    rejects(() => verifyGoogleIdentity(numeric, google, NOW), /instance_id/, 'claims');
  });
});

describe('instance identity trust', () => {
  it('loads nothing from empty settings, and names the flag of a file it cannot use', async () => {
    assert.deepEqual(
      await loadInstanceIdentityTrust({ awsInstanceIdentityCerts: '', azureInstanceIdentityRoots: '', googleInstanceIdentityCerts: '' }),
      NO_TRUST,
    );
    const empty = join(scratch, 'empty.pem');
    await writeFile(empty, 'nothing here');
    await assert.rejects(
      loadInstanceIdentityTrust({
        awsInstanceIdentityCerts: join(scratch, 'missing.pem'),
        azureInstanceIdentityRoots: '',
        googleInstanceIdentityCerts: '',
      }),
      /--aws-instance-identity-certs: cannot read/,
    );
    await assert.rejects(
      loadInstanceIdentityTrust({ awsInstanceIdentityCerts: '', azureInstanceIdentityRoots: empty, googleInstanceIdentityCerts: '' }),
      /--azure-instance-identity-roots: .* holds no PEM certificates/,
    );
    await assert.rejects(
      loadInstanceIdentityTrust({ awsInstanceIdentityCerts: '', azureInstanceIdentityRoots: '', googleInstanceIdentityCerts: empty }),
      /--google-instance-identity-certs: .*no RSA keys/,
    );
    const certificate = makeCertificate({ commonName: 'AWS Test' });
    const bundle = join(scratch, 'bundle.pem');
    await writeFile(bundle, `${certificate.pem}${makeCertificate({ commonName: 'AWS Test 2' }).pem}`);
    const trust = await loadInstanceIdentityTrust({
      awsInstanceIdentityCerts: bundle,
      azureInstanceIdentityRoots: bundle,
      googleInstanceIdentityCerts: bundle,
    });
    assert.equal(trust.aws.length, 2);
    assert.equal(trust.azure.length, 2);
    assert.equal(trust.google.length, 2);
  });

  it('answers 401 naming the setting when a cloud has no trust, and maps rejections to the reference answers', () => {
    const keys = rsaKeyPair();
    const problem = (run: () => unknown): HttpProblem => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof HttpProblem);
        return error;
      }
      assert.fail('expected an HttpProblem');
    };
    const aws = problem(() => verifyInstanceIdentity(NO_TRUST, { cloud: 'aws', ...signAwsDocument('i-1', keys.privateKey) }, NOW));
    assert.equal(aws.status, 401);
    assert.equal(aws.message, 'Invalid AWS identity.');
    assert.match(aws.detail ?? '', /--aws-instance-identity-certs \(COVE_AWS_INSTANCE_IDENTITY_CERTS\)/);
    assert.match(aws.detail ?? '', /does not bundle/);
    const azure = problem(() => verifyInstanceIdentity(NO_TRUST, { cloud: 'azure', signature: 'x' }, NOW));
    assert.equal(azure.message, 'Invalid Azure identity.');
    assert.match(azure.detail ?? '', /--azure-instance-identity-roots/);
    const trust = { ...NO_TRUST, aws: [keys.publicKey], google: [{ kid: undefined, key: keys.publicKey }] };
    const forged = problem(() => verifyInstanceIdentity(trust, { cloud: 'aws', ...signAwsDocument('i-1', rsaKeyPair().privateKey) }, NOW));
    assert.equal(forged.status, 401);
    assert.match(forged.detail ?? '', /^The signature does not match/);
    const google = problem(() => verifyInstanceIdentity(trust, { cloud: 'google', jsonWebToken: 'a.b.c' }, NOW));
    assert.equal(google.status, 401);
    assert.equal(google.message, 'Invalid GCP identity.');
    const claims = problem(() =>
      verifyInstanceIdentity(trust, { cloud: 'google', jsonWebToken: signGoogleToken(keys.privateKey, { exp: NOW_SECONDS + 60 }) }, NOW),
    );
    assert.equal(claims.status, 400);
    assert.equal(claims.message, 'Error decoding JWT claims.');
    assert.equal(verifyInstanceIdentity(trust, { cloud: 'aws', ...signAwsDocument('i-1', keys.privateKey) }, NOW), 'i-1');
  });
});

describe('agent instance ids in templates', () => {
  it('reads instance_id from a native template.yaml agent, empty when absent', () => {
    const { raw } = parseTemplateText(
      [
        'resources:',
        '  - name: vm',
        '    type: hook',
        '    start: ./start.sh',
        '    agents:',
        '      - name: main',
        '        instance_id: i-0abc',
        '      - name: other',
      ].join('\n'),
    );
    const [resource] = raw.resources ?? [];
    assert.ok(resource);
    assert.deepEqual(
      toPlannedResource(resource).agents.map((agent) => agent.instance_id),
      ['i-0abc', ''],
    );
  });

  it('reads instance_id from an echo.json agent, empty when absent', () => {
    const echo = readEchoFile({ apply: { resources: [{ agents: [{ name: 'main', instance_id: 'vm-1' }, { name: 'other' }] }] } });
    assert.deepEqual(
      echo.apply.all.resources?.[0]?.agents.map((agent) => agent.instance_id),
      ['vm-1', ''],
    );
    assert.throws(() => readEchoFile({ apply: { resources: [{ agents: [{ instance_id: 5 }] }] } }), /instance_id/);
  });
});
