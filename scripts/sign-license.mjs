#!/usr/bin/env node
// Signs a Cove license with an Ed25519 private key (PKCS#8 PEM) given on the command line. Keys
// never live in this repository: tests make their own pair and trust its public half through
// --license-public-keys.
//   node scripts/sign-license.mjs --key private.pem --kid KEY_ID [--features advanced_template_scheduling,user_limit=50]
//     [--feature-set enterprise] [--days 365] [--grace-days 30] [--trial] [--account-id acme] [--account-type salesforce]
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { licenseClaims, signLicense } from './license-token.mjs';

const { values } = parseArgs({
  options: {
    key: { type: 'string' },
    kid: { type: 'string' },
    features: { type: 'string', default: '' },
    'feature-set': { type: 'string', default: '' },
    days: { type: 'string', default: '365' },
    'grace-days': { type: 'string', default: '30' },
    'not-before-days': { type: 'string', default: '0' },
    trial: { type: 'boolean', default: false },
    'account-id': { type: 'string', default: 'test' },
    'account-type': { type: 'string', default: 'salesforce' },
  },
});
if (!values.key || !values.kid) {
  console.error('usage: sign-license.mjs --key PRIVATE_KEY.pem --kid KEY_ID [--features a,b=N] [--days N]');
  process.exit(2);
}
const features = Object.fromEntries(
  values.features
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [name, limit] = entry.split('=');
      return [name, limit === undefined ? 1 : Number(limit)];
    }),
);
const claims = licenseClaims({
  features,
  featureSet: values['feature-set'],
  days: Number(values.days),
  graceDays: Number(values['grace-days']),
  notBeforeDays: Number(values['not-before-days']),
  trial: values.trial,
  accountId: values['account-id'],
  accountType: values['account-type'],
});
const token = await signLicense(claims, createPrivateKey(readFileSync(values.key, 'utf8')), values.kid);
process.stdout.write(`${token}\n`);
