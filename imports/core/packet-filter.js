'use strict';
/**
 * Packet filter expressions, Wireshark-style, for the packets view (and anything else that
 * walks transmissions):
 *
 *   type == GRP_TXT && hops >= 3 && snr < -5 && observer ~ "Peak"
 *   path contains a8 || !(route == FLOOD)
 *
 * Grammar (a tokenizer, then recursive descent; `and`/`or`/`not` are aliases):
 *   filter     := or END
 *   or         := and ( '||' and )*
 *   and        := unary ( '&&' unary )*
 *   unary      := '!' unary | '(' or ')' | test
 *   test       := FIELD [ OP value ]          a bare FIELD tests that it has a value
 *   OP         := == | != | < | <= | > | >= | ~ | contains
 *   value      := NUMBER | "string" | 'string' | WORD
 *
 * Meaning: a transmission carries one value for some fields (type, size, hash) and one per
 * observation for others (snr, rssi, hops, observer, region, path). A test is true when ANY of
 * the field's values passes it, and `a != b` is exactly `!(a == b)` (no value equals b).
 * Text compares case-insensitively; `~` and `contains` are plain substring tests (no regular
 * expressions, so no input can make a filter slow). Hex identities (node, src, dest, hash, a
 * path hop) match on their common length: `node == a8` matches hop a8, hop a8f1 and an advert
 * from a8f1…, and a full public key matches its 1-, 2- and 3-byte hop prefixes.
 *
 * Nothing throws: parseFilter/compileFilter return { error: { message, at } } with the 1-based
 * character position in the message ("at 14: expected a value after '>='").
 */
const { PAYLOAD_TYPE_IDS, ROUTE_TYPES } = require('./decode');

const FILTER_LIMITS = Object.freeze({
  // Longest filter text accepted (characters).
  maxLength: 512,
  // Deepest nesting of '(' and '!' accepted.
  maxDepth: 32,
  // Longest hex value (a 32-byte public key).
  maxHexLength: 64,
});

const OPERATORS = ['==', '!=', '<', '<=', '>', '>=', '~', 'contains'];
const ORDERING = new Set(['<', '<=', '>', '>=']);
const KEYWORDS = { and: '&&', or: '||', not: '!', contains: 'contains' };
const ROUTE_IDS = Object.fromEntries(ROUTE_TYPES.map((name, id) => [name, id]));
const HEX_RE = /^[0-9a-f]+$/;
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const WORD_RE = /[A-Za-z0-9_.]/;

// ---- Field values ------------------------------------------------------------------------
// Each field enumerates a transmission's values into `test`, stopping at the first that passes.

function ofTransmission(read) {
  return (tx, test) => {
    const value = read(tx);
    return value !== null && value !== undefined && test(value);
  };
}

function ofObservations(read) {
  return (tx, test) => {
    for (const observation of tx.observations) {
      const value = read(observation);
      if (value !== null && value !== undefined && test(value)) return true;
    }
    return false;
  };
}

function eachHop(tx, test) {
  for (const observation of tx.observations) {
    for (const hop of observation.path) if (test(hop)) return true;
  }
  return false;
}

/**
 * Fields: kind decides the operators and how values parse (number, enum, text, hex, path).
 * `values(tx, test)` is true when some value of the field passes `test`.
 */
const FIELDS = {
  type: { kind: 'enum', names: PAYLOAD_TYPE_IDS, values: ofTransmission((tx) => tx.payloadType), doc: 'payload type: a name (GRP_TXT, ADVERT, TRACE …) or its number' },
  route: { kind: 'enum', names: ROUTE_IDS, values: ofTransmission((tx) => tx.routeType), doc: 'route type: FLOOD, DIRECT, TRANSPORT_FLOOD, TRANSPORT_DIRECT or 0-3' },
  hops: { kind: 'number', values: ofObservations((o) => o.path.length), doc: 'hop count of a path an observer heard' },
  hash: { kind: 'hex', values: ofTransmission((tx) => tx.hash), doc: 'content hash (a prefix matches)' },
  size: { kind: 'number', values: ofTransmission((tx) => tx.size), doc: 'packet size in bytes' },
  snr: { kind: 'number', values: ofObservations((o) => o.snr), doc: 'SNR of an observation (dB)' },
  rssi: { kind: 'number', values: ofObservations((o) => o.rssi), doc: 'RSSI of an observation (dBm)' },
  observer: {
    kind: 'text',
    repeats: true,
    ofObserver: (observer, test) => test(observer.id) || (observer.name !== null && observer.name !== undefined && test(observer.name)),
    doc: 'id or name of an observer that heard it',
  },
  region: {
    kind: 'text',
    repeats: true,
    ofObserver: (observer, test) => observer.region !== null && observer.region !== undefined && test(observer.region),
    doc: 'region of an observer that heard it',
  },
  channel: {
    kind: 'text',
    repeats: true,
    values: (tx, test) => (tx.channelHash !== null && test(tx.channelHash)) || (tx.message !== null && !!tx.message.channel && test(tx.message.channel)),
    doc: 'group channel: its hash (hex) or its name when the key is known',
  },
  path: { kind: 'path', values: eachHop, doc: 'observed paths: contains <hop>, ~ "a8,b2" (substring of the path written with commas), == "a8,b2,c3"' },
  src: { kind: 'hex', values: ofTransmission((tx) => tx.srcHash), doc: 'source hash' },
  dest: { kind: 'hex', values: ofTransmission((tx) => tx.destHash), doc: 'destination hash' },
  node: {
    kind: 'hex',
    values: (tx, test) => (tx.advert !== null && test(tx.advert.pubKey)) || (tx.srcHash !== null && test(tx.srcHash))
      || (tx.destHash !== null && test(tx.destHash)) || eachHop(tx, test),
    doc: 'a node key or prefix: advert key, source, destination or any hop',
  },
  hashSize: { kind: 'number', values: ofTransmission((tx) => tx.hashSize), doc: 'hop hash size in bytes (1-3)' },
  time: { kind: 'time', values: ofTransmission((tx) => tx.time), doc: 'first heard: epoch milliseconds or a quoted ISO date' },
  name: {
    kind: 'text',
    values: (tx, test) => (tx.advert !== null && !!tx.advert.name && test(tx.advert.name)) || (tx.message !== null && !!tx.message.sender && test(tx.message.sender)),
    doc: "advert name or a channel message's sender",
  },
  text: { kind: 'text', values: ofTransmission((tx) => (tx.message !== null ? tx.message.text : null)), doc: 'decrypted channel message text' },
};
const FIELDS_BY_LOWER = new Map(Object.keys(FIELDS).map((name) => [name.toLowerCase(), name]));
const FIELD_LIST = Object.keys(FIELDS).join(', ');

// ---- Tokens ------------------------------------------------------------------------------

function tokenize(source) {
  const tokens = [];
  let i = 0;
  const push = (kind, text, at, value) => tokens.push({ kind, text, at, value });
  while (i < source.length) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const two = source.slice(i, i + 2);
    if (two === '&&' || two === '||') { push(two, two, i); i += 2; continue; }
    if (two === '==' || two === '!=' || two === '<=' || two === '>=') { push('op', two, i); i += 2; continue; }
    if (c === '<' || c === '>' || c === '~') { push('op', c, i); i++; continue; }
    if (c === '!') { push('!', c, i); i++; continue; }
    if (c === '(' || c === ')') { push(c, c, i); i++; continue; }
    if (c === '=') return { error: at(i, "'=' is not an operator: use '=='") };
    if (c === '&' || c === '|') return { error: at(i, `'${c}' is not an operator: use '${c}${c}'`) };
    if (c === '"' || c === "'") {
      let text = '';
      let j = i + 1;
      for (; j < source.length && source[j] !== c; j++) {
        if (source[j] === '\\' && j + 1 < source.length) j++;
        text += source[j];
      }
      if (j >= source.length) return { error: at(i, 'string is not closed') };
      push('string', text, i, text);
      i = j + 1;
      continue;
    }
    const signed = (c === '-' || c === '+') && i + 1 < source.length && /[0-9.]/.test(source[i + 1]);
    if (WORD_RE.test(c) || signed) {
      let j = i + 1;
      while (j < source.length && WORD_RE.test(source[j])) j++;
      const text = source.slice(i, j);
      const keyword = KEYWORDS[text.toLowerCase()];
      if (keyword === 'contains') push('op', 'contains', i);
      else if (keyword) push(keyword, text, i);
      else if (NUMBER_RE.test(text)) push('number', text, i, Number(text));
      else if (signed) return { error: at(i, `'${text}' is not a number`) };
      else push('word', text, i, text);
      i = j;
      continue;
    }
    return { error: at(i, `unexpected character '${c}'`) };
  }
  tokens.push({ kind: 'end', text: 'the end', at: source.length });
  return { tokens };
}

/** An error at 0-based offset `offset`, reported 1-based. */
function at(offset, message) {
  return { at: offset + 1, message: `at ${offset + 1}: ${message}` };
}

function describeToken(token) {
  return token.kind === 'end' ? 'the end' : `'${token.text}'`;
}

// ---- Parser ------------------------------------------------------------------------------

class Parser {
  constructor(tokens) {
    this.tokens = tokens;
    this.index = 0;
    this.depth = 0;
  }

  peek() { return this.tokens[this.index]; }

  next() { return this.tokens[this.index++]; }

  fail(token, message) {
    const error = new Error(message);
    error.filterError = at(token.at, message);
    throw error;
  }

  enter(token) {
    if (++this.depth > FILTER_LIMITS.maxDepth) this.fail(token, `nested deeper than ${FILTER_LIMITS.maxDepth} levels`);
  }

  parseFilter() {
    if (this.peek().kind === 'end') this.fail(this.peek(), 'the filter is empty');
    const ast = this.parseOr();
    const token = this.peek();
    if (token.kind === ')') this.fail(token, "')' has no matching '('");
    if (token.kind !== 'end') this.fail(token, `expected '&&', '||' or the end, got ${describeToken(token)}`);
    return ast;
  }

  parseOr() {
    const terms = [this.parseAnd()];
    while (this.peek().kind === '||') {
      const operator = this.next();
      if (this.startsTerm()) terms.push(this.parseAnd());
      else this.fail(this.peek(), `expected a test after '${operator.text}', got ${describeToken(this.peek())}`);
    }
    return terms.length === 1 ? terms[0] : { kind: 'or', terms };
  }

  parseAnd() {
    const terms = [this.parseUnary()];
    while (this.peek().kind === '&&') {
      const operator = this.next();
      if (this.startsTerm()) terms.push(this.parseUnary());
      else this.fail(this.peek(), `expected a test after '${operator.text}', got ${describeToken(this.peek())}`);
    }
    return terms.length === 1 ? terms[0] : { kind: 'and', terms };
  }

  startsTerm() {
    const kind = this.peek().kind;
    return kind === '!' || kind === '(' || kind === 'word';
  }

  parseUnary() {
    const token = this.peek();
    if (token.kind === '!') {
      this.next();
      this.enter(token);
      if (!this.startsTerm()) this.fail(this.peek(), `expected a test after '${token.text}', got ${describeToken(this.peek())}`);
      const term = this.parseUnary();
      this.depth--;
      return { kind: 'not', term };
    }
    if (token.kind === '(') {
      this.next();
      this.enter(token);
      if (this.peek().kind === ')') this.fail(this.peek(), "expected a test inside '()'");
      const inner = this.parseOr();
      const close = this.peek();
      if (close.kind !== ')') this.fail(close, `expected ')' to close '(' at ${token.at + 1}, got ${describeToken(close)}`);
      this.next();
      this.depth--;
      return inner;
    }
    return this.parseTest();
  }

  parseTest() {
    const token = this.next();
    if (token.kind !== 'word') this.fail(token, `expected a field name, '(' or '!', got ${describeToken(token)}`);
    const field = FIELDS_BY_LOWER.get(token.text.toLowerCase());
    if (!field) this.fail(token, `unknown field '${token.text}' (fields: ${FIELD_LIST})`);
    const operator = this.peek();
    if (operator.kind !== 'op') {
      if (operator.kind === 'number' || operator.kind === 'string' || operator.kind === 'word') {
        this.fail(operator, `expected an operator after '${token.text}' (${OPERATORS.join(' ')}), got ${describeToken(operator)}`);
      }
      return { kind: 'exists', field, at: token.at + 1 };
    }
    this.next();
    const value = this.next();
    if (value.kind !== 'number' && value.kind !== 'string' && value.kind !== 'word') {
      this.fail(value, `expected a value after '${operator.text}'${value.kind === 'end' ? '' : `, got ${describeToken(value)}`}`);
    }
    return { kind: 'compare', field, op: operator.text, value: this.parseValue(field, operator, value), at: token.at + 1 };
  }

  /** The value as the field's kind needs it, or a positioned error. */
  parseValue(fieldName, operator, token) {
    const field = FIELDS[fieldName];
    const op = operator.text;
    const substring = op === '~' || op === 'contains';
    const refuse = (kindName) => this.fail(operator, `'${op}' does not apply to ${kindName} field '${fieldName}'`);
    switch (field.kind) {
      case 'number':
      case 'enum':
      case 'time': {
        if (substring) refuse(field.kind === 'enum' ? 'the' : 'numeric');
        if (token.kind === 'number') return token.value;
        if (field.kind === 'enum') {
          const id = field.names[token.text.toUpperCase()];
          if (id === undefined) this.fail(token, `'${token.text}' is not a ${fieldName} (${Object.keys(field.names).join(', ')})`);
          return id;
        }
        if (field.kind === 'time' && token.kind === 'string') {
          const time = Date.parse(token.text);
          if (!Number.isFinite(time)) this.fail(token, `'${token.text}' is not a date`);
          return time;
        }
        return this.fail(token, `'${token.text}' is not a number for '${fieldName}'`);
      }
      case 'text':
        if (ORDERING.has(op)) refuse('text');
        return token.text.toLowerCase();
      case 'hex': {
        if (ORDERING.has(op)) refuse('hex');
        const hex = token.text.toLowerCase();
        if (!HEX_RE.test(hex) || hex.length > FILTER_LIMITS.maxHexLength) this.fail(token, `'${token.text}' is not hex (at most ${FILTER_LIMITS.maxHexLength} digits) for '${fieldName}'`);
        return hex;
      }
      case 'path': {
        if (ORDERING.has(op)) refuse('the path');
        const text = token.text.toLowerCase().replace(/\s+/g, '');
        if (op === 'contains' && (!HEX_RE.test(text) || text.length > FILTER_LIMITS.maxHexLength)) this.fail(token, `'${token.text}' is not a hop (hex) for 'path contains'`);
        if (op !== 'contains' && !/^[0-9a-f,]*$/.test(text)) this.fail(token, `'${token.text}' is not a path (hex hops separated by commas)`);
        return text;
      }
      default:
        return this.fail(token, `field '${fieldName}' has no kind`);
    }
  }
}

/** Parse filter text into an AST: { ast } or { error: { message, at } }. */
function parseFilter(source) {
  if (typeof source !== 'string') return { error: { at: 0, message: 'filter must be a string' } };
  if (source.length > FILTER_LIMITS.maxLength) {
    return { error: at(FILTER_LIMITS.maxLength, `filter is longer than ${FILTER_LIMITS.maxLength} characters (${source.length})`) };
  }
  const lexed = tokenize(source);
  if (lexed.error) return { error: lexed.error };
  try {
    return { ast: new Parser(lexed.tokens).parseFilter() };
  } catch (err) {
    if (err.filterError) return { error: err.filterError };
    throw err;
  }
}

// ---- Compiler ----------------------------------------------------------------------------

/** Do two hex identities agree on their common length (one is a prefix of the other)? */
function sameIdentity(a, b) {
  return a.length <= b.length ? b.startsWith(a) : a.startsWith(b);
}

// Observer ids, names and regions repeat across every observation: their lower-case forms are
// kept here (bounded; cleared when full) so a filter over 200k observations lowers each once.
const LOWER_CACHE_LIMIT = 4096;
const lowerCache = new Map();

function lower(text) {
  let lowered = lowerCache.get(text);
  if (lowered === undefined) {
    lowered = text.toLowerCase();
    if (lowerCache.size >= LOWER_CACHE_LIMIT) lowerCache.clear();
    lowerCache.set(text, lowered);
  }
  return lowered;
}

function plainLower(text) {
  return text.toLowerCase();
}

/** A test of one value; `repeats`: the field's values recur (observers, regions), so cache their lower case. */
function valueTest(kind, op, value, repeats) {
  const lowerOf = repeats ? lower : plainLower;
  switch (kind) {
    case 'number':
    case 'enum':
    case 'time':
      switch (op) {
        case '<': return (v) => v < value;
        case '<=': return (v) => v <= value;
        case '>': return (v) => v > value;
        case '>=': return (v) => v >= value;
        default: return (v) => v === value;
      }
    case 'text':
      return op === '==' || op === '!=' ? (v) => lowerOf(v) === value : (v) => lowerOf(v).includes(value);
    case 'hex':
      return op === '==' || op === '!=' ? (v) => sameIdentity(v, value) : (v) => v.includes(value);
    default:
      throw new Error(`no test for kind ${kind}`);
  }
}

/** A path test runs over whole observed paths (== and ~) or over their hops (contains). */
function pathTest(op, value) {
  if (op === 'contains') return (tx) => eachHop(tx, (hop) => sameIdentity(hop, value));
  const whole = op === '~' ? (text) => text.includes(value) : (text) => text === value;
  return (tx) => tx.observations.some((o) => whole(o.path.join(',')));
}

/**
 * A test on the observers that heard a transmission. Observer records are shared by all their
 * observations, so the answer is kept per record (while its name and region stay the same):
 * one lookup per observation instead of string work.
 */
function observerTest(field, test) {
  const memo = new WeakMap(); // observer record -> { name, region, result }
  return (tx) => {
    for (const observation of tx.observations) {
      const observer = observation.observer;
      let known = memo.get(observer);
      if (known === undefined || known.name !== observer.name || known.region !== observer.region) {
        known = { name: observer.name, region: observer.region, result: field.ofObserver(observer, test) };
        memo.set(observer, known);
      }
      if (known.result) return true;
    }
    return false;
  };
}

function compileNode(node) {
  switch (node.kind) {
    case 'or': {
      const terms = node.terms.map(compileNode);
      return (tx) => terms.some((term) => term(tx));
    }
    case 'and': {
      const terms = node.terms.map(compileNode);
      return (tx) => terms.every((term) => term(tx));
    }
    case 'not': {
      const term = compileNode(node.term);
      return (tx) => !term(tx);
    }
    case 'exists': {
      const field = FIELDS[node.field];
      if (field.kind === 'path') return (tx) => tx.observations.some((o) => o.path.length > 0);
      if (field.ofObserver) return observerTest(field, () => true);
      return (tx) => field.values(tx, () => true);
    }
    case 'compare': {
      const field = FIELDS[node.field];
      const test = field.kind === 'path' ? null : valueTest(field.kind, node.op, node.value, field.repeats === true);
      const positive = field.kind === 'path' ? pathTest(node.op, node.value) : field.ofObserver ? observerTest(field, test) : (tx) => field.values(tx, test);
      return node.op === '!=' ? (tx) => !positive(tx) : positive;
    }
    default:
      throw new Error(`unknown filter node ${node.kind}`);
  }
}

/**
 * What an index could answer: the payload type every match must have, when a top-level
 * conjunct says `type == X` (the packets view then walks that type's index, not the FIFO).
 */
function hintsOf(ast) {
  const conjuncts = ast.kind === 'and' ? ast.terms : [ast];
  const typed = conjuncts.find((term) => term.kind === 'compare' && term.field === 'type' && term.op === '==');
  return { type: typed ? typed.value : null };
}

/**
 * Compile filter text: { test(tx) -> boolean, ast, hints } or { error: { message, at } }.
 * A transmission is a stored one (imports/core/store.js), with its observations.
 */
function compileFilter(source) {
  const parsed = parseFilter(source);
  if (parsed.error) return parsed;
  return { test: compileNode(parsed.ast), ast: parsed.ast, hints: hintsOf(parsed.ast) };
}

/** Field names with their kind and meaning, and the operators (for docs and the OpenAPI spec). */
function describeFilterGrammar() {
  return {
    fields: Object.entries(FIELDS).map(([name, field]) => ({ name, kind: field.kind, doc: field.doc })),
    operators: OPERATORS.slice(),
    combinators: ['&&', '||', '!', '(', ')', 'and', 'or', 'not'],
    limits: { ...FILTER_LIMITS },
  };
}

module.exports = { parseFilter, compileFilter, describeFilterGrammar, FILTER_LIMITS, FILTER_FIELDS: Object.keys(FIELDS), FILTER_OPERATORS: OPERATORS };
