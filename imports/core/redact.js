'use strict';
/**
 * Keep secrets out of anything printed or published: stats, logs, /api/health, the perf view.
 *
 *   const redactor = createRedactor(collectSecrets(settings, process.env));
 *   redactor.url('mqtt://u:p#ss@broker:1883')   // 'mqtt://[redacted]@broker:1883'
 *   redactor.text(`connect failed: ${message}`) // every configured secret replaced
 *   redactor.deep(healthDocument)               // a copy with every string redacted
 *   redactor.log(console)                       // a { info, warn, error } that redacts
 *
 * Two layers, because neither alone is enough:
 * - Structure: a URL's user-info (everything between `scheme://` and the LAST `@`, so a password
 *   holding `#`, `/`, `?` or `@` goes with it, whether or not the URL parses), credential-like
 *   query parameters, and values under secret-like names (password, apiKey, token, key ...).
 * - Values: every configured secret (and its percent-encoded and decoded forms) is replaced
 *   wherever it shows up, e.g. inside an error message from a library.
 *
 * Pure CommonJS, no meteor/* imports.
 */

const REDACTED = '[redacted]';

// Value-based replacement skips secrets shorter than this: replacing every "ab" in a log line
// would garble it. Such secrets are still removed by the structural layer.
const MIN_SECRET_LENGTH = 4;

// Walks stop this deep (health documents are a few levels; this only guards against cycles).
const MAX_DEPTH = 32;

const NAME_PARTS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'privatekey', 'credential', 'authorization'];
const PUBLIC_KEY_NAMES = new Set(['pubkey', 'publickey']);

/** True for setting/field names whose value is a secret: password, apiKey, token, key, channelKey ... */
function isSecretName(name) {
  if (typeof name !== 'string') return false;
  const plain = name.toLowerCase().replace(/[^a-z]/g, '');
  if (PUBLIC_KEY_NAMES.has(plain)) return false;
  if (plain === 'key' || plain === 'pass' || plain === 'pwd' || plain.endsWith('key')) return true;
  return NAME_PARTS.some((part) => plain.includes(part));
}

// scheme:// (or a bare //) up to the last @ of the same whitespace-free run.
const URL_USERINFO = /((?:\b[a-z][a-z0-9+.-]*:)?\/\/)[^\s@]*(?:@[^\s@]*)*@/gi;
// ?password=..., &token=..., ;apiKey=... in URLs and log text.
const SECRET_QUERY = /([?&;]([^=&#\s?;]*)=)([^&#\s;]*)/g;

function redactQuery(text) {
  return text.replace(SECRET_QUERY, (match, prefix, name, value) => (value && isSecretName(decodeSafely(name)) ? `${prefix}${REDACTED}` : match));
}

function decodeSafely(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Split `scheme://user:password@host...` into the URL without user-info and the credentials.
 * Works on strings WHATWG URL refuses (a raw `#`, `/` or `?` in the password): the user-info is
 * everything between `://` and the last `@`. Credentials come back percent-decoded.
 * @returns {{ url: string, username: string|null, password: string|null, rawPassword: string|null }}
 */
function splitCredentials(url) {
  const text = String(url);
  const schemeEnd = text.indexOf('://');
  const start = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  const at = text.lastIndexOf('@');
  if (at < start) return { url: text, username: null, password: null, rawPassword: null };
  const userinfo = text.slice(start, at);
  const colon = userinfo.indexOf(':');
  const username = decodeSafely(colon >= 0 ? userinfo.slice(0, colon) : userinfo);
  const rawPassword = colon >= 0 ? userinfo.slice(colon + 1) : null;
  return { url: text.slice(0, start) + text.slice(at + 1), username: username || null, password: rawPassword === null ? null : decodeSafely(rawPassword), rawPassword };
}

/** A URL (or anything configured as one) safe to print: no user-info, no secret query values. */
function redactUrl(url) {
  if (url === null || url === undefined) return url;
  const text = String(url);
  const schemeEnd = text.indexOf('://');
  const start = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  const at = text.lastIndexOf('@');
  const withoutUserinfo = at >= start ? `${text.slice(0, start)}${REDACTED}@${text.slice(at + 1)}` : text;
  return redactQuery(withoutUserinfo);
}

/** Every form a secret may be printed in: as configured, percent-decoded, percent-encoded. */
function secretForms(secret) {
  const text = String(secret);
  return [text, decodeSafely(text), encodeURIComponent(text), encodeURIComponent(decodeSafely(text))];
}

/**
 * Every secret value in a settings object (and env): strings under secret-like names, and the
 * passwords inside any URL with user-info (broker URLs, MONGO_URL).
 */
function collectSecrets(settings, env = {}) {
  const found = new Set();
  const visit = (value, name, depth) => {
    if (depth > MAX_DEPTH || value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (isSecretName(name) && value) found.add(value);
      if (value.includes('@')) {
        const { password, rawPassword } = splitCredentials(value);
        if (password) found.add(password).add(rawPassword); // as written, and decoded
      }
      return;
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      if (isSecretName(name)) found.add(String(value));
      return;
    }
    if (Array.isArray(value)) {
      // An array under a secret name (e.g. several keys) is secret element by element.
      for (const item of value) visit(item, name, depth + 1);
      return;
    }
    if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, key, depth + 1);
    }
  };
  visit(settings, '', 0);
  for (const name of ['MONGO_URL', 'MONGO_OPLOG_URL', 'MESHPULSE_API_KEY']) {
    if (env && env[name]) visit(env[name], name === 'MESHPULSE_API_KEY' ? 'apiKey' : 'url', 0);
  }
  return Array.from(found);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * @param {string[]} [secrets] values to scrub wherever they appear (see collectSecrets)
 */
function createRedactor(secrets = []) {
  const known = new Set();
  let pattern = null;

  function addSecrets(list) {
    for (const secret of list || []) {
      if (secret === null || secret === undefined) continue;
      for (const form of secretForms(secret)) if (form.length >= MIN_SECRET_LENGTH) known.add(form);
    }
    // Longest first, so a secret containing another one is replaced whole.
    const sorted = Array.from(known).sort((a, b) => b.length - a.length);
    pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null;
    return api;
  }

  /** Free text (log lines, error messages): URL user-info, secret query values, known secrets. */
  function text(value) {
    if (typeof value !== 'string') return value;
    let out = value;
    if (pattern) out = out.replace(pattern, REDACTED);
    if (out.includes('@')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
    if (out.includes('=')) out = redactQuery(out);
    return out;
  }

  /** A copy of `value` with every string (keys too) redacted and secret-named fields replaced. */
  function deep(value, depth = 0, seen = new WeakSet()) {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DEPTH || seen.has(value)) return REDACTED;
    if (value instanceof Error) return text(value.message);
    if (Array.isArray(value)) {
      seen.add(value);
      const out = value.map((item) => deep(item, depth + 1, seen));
      seen.delete(value);
      return out;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value; // Date, Buffer ...: printed as they are
    seen.add(value);
    const out = {};
    for (const [key, item] of Object.entries(value)) {
      // Numbers only under password-like names: a `maxTokens` count is not a secret.
      const secretValue = isSecretName(key) && ((typeof item === 'string' && item !== '') || (typeof item === 'number' && /pass|pwd|secret|apikey/i.test(key)));
      out[text(key)] = secretValue ? REDACTED : deep(item, depth + 1, seen);
    }
    seen.delete(value);
    return out;
  }

  /** A `{ info, warn, error }` logger that redacts every argument before passing it on. */
  function log(target) {
    const wrap = (method) => (...args) => {
      if (!target || typeof target[method] !== 'function') return;
      target[method](...args.map((arg) => (arg instanceof Error ? text(arg.stack || arg.message) : deep(arg))));
    };
    return { info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
  }

  const api = { addSecrets, text, deep, log, url: (value) => text(redactUrl(value)), secrets: () => Array.from(known) };
  addSecrets(secrets);
  return api;
}

module.exports = { REDACTED, MIN_SECRET_LENGTH, isSecretName, splitCredentials, redactUrl, collectSecrets, createRedactor };
