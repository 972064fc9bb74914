'use strict';
/**
 * The packet filter grammar as a table: every valid expression with the transmissions it
 * matches, every invalid one with its exact error (position included).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { compileFilter, parseFilter, FILTER_LIMITS } = require('../../imports/core/packet-filter');

const obs1 = { id: 'obs1', name: 'Peak Observer', region: 'SFO' };
const obs2 = { id: 'obs2', name: 'Valley', region: 'SJC' };
const obs3 = { id: 'obs3', name: 'Hill', region: null };
const ADVERT_KEY = `a8f1${'0'.repeat(60)}`;

function transmission(fields) {
  return {
    hash: '', routeType: 1, payloadType: 5, size: 0, hashSize: 1, time: 0, path: [],
    srcHash: null, destHash: null, channelHash: null, advert: null, message: null, trace: null, observations: [], ...fields,
  };
}
const heard = (observer, snr, rssi, path) => ({ observer, snr, rssi, path, time: 0 });

// A: group message, B: advert, C: direct message, D: trace, E: group data on a transport flood.
const PACKETS = {
  A: transmission({
    hash: 'aa11bb22cc33dd44', payloadType: 5, routeType: 1, size: 40, time: 1000, channelHash: '11',
    message: { channel: 'Public', sender: 'Alice', text: 'hello mesh' },
    observations: [heard(obs1, -7, -110, ['a8', 'b2', 'c3']), heard(obs2, 5, -80, ['a8', 'b2', 'c3', 'd4'])],
  }),
  B: transmission({
    hash: 'bb11bb22cc33dd44', payloadType: 4, routeType: 1, size: 120, time: 2000,
    advert: { pubKey: ADVERT_KEY, name: 'Peak Repeater', role: 'repeater' },
    observations: [heard(obs2, 10, -60, [])],
  }),
  C: transmission({
    hash: 'cc11bb22cc33dd44', payloadType: 2, routeType: 2, size: 30, hashSize: 2, time: 3000, srcHash: 'a8', destHash: '5e',
    observations: [heard(obs3, null, null, ['a8f1', '77e0'])],
  }),
  D: transmission({
    hash: 'dd11bb22cc33dd44', payloadType: 9, routeType: 2, size: 20, time: 4000,
    observations: [heard(obs1, -12, -120, [])],
  }),
  E: transmission({
    hash: 'ee11bb22cc33dd44', payloadType: 5, routeType: 0, size: 60, hashSize: 3, time: 5000, channelHash: 'c4',
    observations: [heard(obs1, -3, -95, ['0102ab', 'a8aaaa', 'b2b2b2'])],
  }),
};

const VALID = [
  ['type == GRP_TXT', 'AE'],
  ['type == 5', 'AE'],
  ['type == grp_txt', 'AE'],
  ['Type == ADVERT', 'B'],
  ['type != GRP_TXT', 'BCD'],
  ['type >= 4', 'ABDE'],
  ['route == FLOOD', 'AB'],
  ['route == DIRECT || route == TRANSPORT_FLOOD', 'CDE'],
  ['hops >= 3', 'AE'],
  ['hops == 0', 'BD'],
  ['hops > 3', 'A'],
  ['snr < -5', 'AD'],
  ['snr<-5&&hops>=3', 'A'],
  ['snr < -5 && observer ~ "Peak"', 'AD'],
  ['type == GRP_TXT && hops >= 3 && snr < -5 && observer ~ "Peak"', 'A'],
  ['snr >= 10', 'B'],
  ['snr == -7', 'A'],
  ['snr != -7', 'BCDE'],
  ['snr', 'ABDE'],
  ['!snr', 'C'],
  ['!!snr', 'ABDE'],
  ['rssi <= -110', 'AD'],
  ['rssi > -100 && rssi < -50', 'ABE'],
  ['observer == obs2', 'AB'],
  ['observer == "valley"', 'AB'],
  ['observer != obs1', 'BC'],
  ['observer ~ "peak obs"', 'ADE'],
  ['region == SFO', 'ADE'],
  ["region ~ 'sj'", 'AB'],
  ['!region', 'C'],
  ['channel == Public', 'A'],
  ['channel == c4', 'E'],
  ['channel', 'AE'],
  ['path contains a8', 'ACE'],
  ['path contains a8f1', 'AC'],
  ['path ~ "b2,c3"', 'A'],
  ['path == "a8,b2,c3"', 'A'],
  ['path == ""', 'BD'],
  ['path', 'ACE'],
  ['node == a8', 'ABCE'],
  [`node == ${ADVERT_KEY}`, 'ABC'],
  ['src == a8 && dest == 5e', 'C'],
  ['dest', 'C'],
  ['hash == aa11', 'A'],
  ['hash ~ 33DD', 'ABCDE'],
  ['size > 50 && size < 100', 'E'],
  ['size >= 1e2', 'B'],
  ['hashSize == 2', 'C'],
  ['hashSize >= 2 || type == TRACE', 'CDE'],
  ['time >= 3000', 'CDE'],
  ['time < "1970-01-01T00:00:03Z"', 'AB'],
  ['name ~ peak', 'B'],
  ['name == alice', 'A'],
  ['text contains "MESH"', 'A'],
  ['!(type == GRP_TXT || type == ADVERT)', 'CD'],
  ['not type == ADVERT and hops >= 2', 'ACE'],
  ['type == ADVERT or type == TRACE and snr < 0', 'BD'],
  ['(type == ADVERT or type == TRACE) and snr < 0', 'D'],
  ['((route == 2)) && !(snr)', 'C'],
];

const INVALID = [
  ['', 'at 1: the filter is empty'],
  ['   ', 'at 4: the filter is empty'],
  ['type ==', "at 8: expected a value after '=='"],
  ['type == GRP_TXT && hops >=', "at 27: expected a value after '>='"],
  ['hops >= && snr < 0', "at 9: expected a value after '>=', got '&&'"],
  ['snr ~ 3', "at 5: '~' does not apply to numeric field 'snr'"],
  ['size contains 3', "at 6: 'contains' does not apply to numeric field 'size'"],
  ['type ~ GRP', "at 6: '~' does not apply to the field 'type'"],
  ['foo == 1', /^at 1: unknown field 'foo' \(fields: type, route, hops, /],
  ['type == GRP', /^at 9: 'GRP' is not a type \(REQ, RESPONSE, /],
  ['route == SIDEWAYS', /^at 10: 'SIDEWAYS' is not a route \(TRANSPORT_FLOOD, FLOOD, DIRECT, TRANSPORT_DIRECT\)$/],
  ['snr < abc', "at 7: 'abc' is not a number for 'snr'"],
  ['node == xyz', "at 9: 'xyz' is not hex (at most 64 digits) for 'node'"],
  [`hash == ${'1'.repeat(65)}`, `at 9: '${'1'.repeat(65)}' is not hex (at most 64 digits) for 'hash'`],
  ['observer < 5', "at 10: '<' does not apply to text field 'observer'"],
  ['src >= a8', "at 5: '>=' does not apply to hex field 'src'"],
  ['path > 3', "at 6: '>' does not apply to the path field 'path'"],
  ['path contains "a8,b2"', "at 15: 'a8,b2' is not a hop (hex) for 'path contains'"],
  ['path == "a8;b2"', "at 9: 'a8;b2' is not a path (hex hops separated by commas)"],
  ['time > "yesterday"', "at 8: 'yesterday' is not a date"],
  ['(type == ADVERT', "at 16: expected ')' to close '(' at 1, got the end"],
  ['type == ADVERT)', "at 15: ')' has no matching '('"],
  ['()', "at 2: expected a test inside '()'"],
  ['type == ADVERT &&', "at 18: expected a test after '&&', got the end"],
  ['snr || || hops', "at 8: expected a test after '||', got '||'"],
  ['! == 3', "at 3: expected a test after '!', got '=='"],
  ['type = 4', "at 6: '=' is not an operator: use '=='"],
  ['type == 4 & hops > 1', "at 11: '&' is not an operator: use '&&'"],
  ['observer ~ "Peak', 'at 12: string is not closed'],
  ['snr < -5 $', "at 10: unexpected character '$'"],
  ['snr < -5x', "at 7: '-5x' is not a number"],
  ['type GRP_TXT', "at 6: expected an operator after 'type' (== != < <= > >= ~ contains), got 'GRP_TXT'"],
  ['== 4', "at 1: expected a field name, '(' or '!', got '=='"],
  ['type == 4 hops', "at 11: expected '&&', '||' or the end, got 'hops'"],
  ['x'.repeat(513), 'at 513: filter is longer than 512 characters (513)'],
  [`${'!'.repeat(40)}snr`, 'at 33: nested deeper than 32 levels'],
  [`${'('.repeat(33)}snr${')'.repeat(33)}`, 'at 33: nested deeper than 32 levels'],
];

test('the table holds at least 40 expressions, valid and invalid', () => {
  assert.ok(VALID.length + INVALID.length >= 40);
  assert.ok(VALID.length >= 20 && INVALID.length >= 20);
});

for (const [expression, expected] of VALID) {
  test(`filter ${JSON.stringify(expression)} matches ${expected}`, () => {
    const compiled = compileFilter(expression);
    assert.equal(compiled.error, undefined, compiled.error && compiled.error.message);
    const matched = Object.keys(PACKETS).filter((id) => compiled.test(PACKETS[id])).join('');
    assert.equal(matched, expected);
  });
}

for (const [expression, expected] of INVALID) {
  test(`filter ${JSON.stringify(expression.length > 60 ? `${expression.slice(0, 60)}…` : expression)} is refused`, () => {
    const compiled = compileFilter(expression);
    assert.ok(compiled.error, 'expected an error');
    if (expected instanceof RegExp) assert.match(compiled.error.message, expected);
    else assert.equal(compiled.error.message, expected);
    assert.equal(compiled.error.message.startsWith(`at ${compiled.error.at}: `), true, 'the message names the position');
  });
}

test('a top-level `type ==` conjunct becomes an index hint', () => {
  assert.equal(compileFilter('type == ADVERT && snr < 0').hints.type, 4);
  assert.equal(compileFilter('snr < 0 && type == 9').hints.type, 9);
  assert.equal(compileFilter('type == ADVERT || snr < 0').hints.type, null);
  assert.equal(compileFilter('!(type == ADVERT)').hints.type, null);
});

test('limits are checked before any work, and nothing throws on odd input', () => {
  assert.equal(FILTER_LIMITS.maxLength, 512);
  assert.equal(parseFilter(null).error.message, 'filter must be a string');
  // The longest accepted filter parses; a deep chain of && and || is iterative, not nested.
  const chain = Array.from({ length: 40 }, (_, i) => `hops != ${i}`).join(' || ').slice(0, 512).replace(/\|\|\s*[^|]*$/, '').trim();
  assert.ok(compileFilter(chain).test);
  for (const odd of ['\u0000', '"\\', '\\', '"""', '-', '+.', '. == 1', 'snr < .5e', '\u2028snr']) {
    const result = compileFilter(odd);
    assert.ok(result.error || result.test, `${JSON.stringify(odd)} gives an error or a predicate`);
  }
});
