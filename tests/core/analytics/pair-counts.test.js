'use strict';
// PairCounts against a Map of "owner,item" -> count under random adds, removals and growth.
const test = require('node:test');
const assert = require('node:assert');
const { PairCounts } = require('../../../imports/core/analytics/pair-counts');
const { createPrng } = require('../../../imports/core/prng');

test('pair-counts: entries, sums, owner lists and deletion match a brute-force Map', () => {
  const prng = createPrng(8);
  const random = () => prng.float();
  const table = new PairCounts(2);
  const lists = new Map(); // owner -> { head }
  const expected = new Map(); // "owner,item" -> [count, sum]
  const listOf = (owner) => {
    if (!lists.has(owner)) lists.set(owner, { head: -1 });
    return lists.get(owner);
  };
  for (let step = 0; step < 20000; step++) {
    // Few owners and items: probe runs collide and wrap; the table grows and shrinks back.
    const owner = Math.floor(random() * 40);
    const item = Math.floor(random() * 60);
    const key = `${owner},${item}`;
    const have = expected.get(key);
    if (have && random() < 0.45 + (step > 15000 ? 0.5 : 0)) {
      const entry = table.find(owner, item);
      assert.ok(entry >= 0, `find ${key}`);
      table.values[entry * 2] -= 1;
      table.values[entry * 2 + 1] -= item;
      have[0]--;
      have[1] -= item;
      if (have[0] === 0) {
        table.remove(entry, listOf(owner));
        expected.delete(key);
      }
    } else if (step <= 15000) {
      const entry = table.entry(owner, item, listOf(owner));
      table.values[entry * 2] += 1;
      table.values[entry * 2 + 1] += item;
      if (have) { have[0]++; have[1] += item; } else expected.set(key, [1, item]);
    }
  }
  assert.strictEqual(table.size, expected.size);
  for (let owner = 0; owner < 40; owner++) {
    for (let item = 0; item < 60; item++) {
      const entry = table.find(owner, item);
      const want = expected.get(`${owner},${item}`);
      if (!want) { assert.strictEqual(entry, -1); continue; }
      assert.deepStrictEqual([table.values[entry * 2], table.values[entry * 2 + 1]], want);
    }
    const listed = [];
    if (lists.has(owner)) table.forEachOf(lists.get(owner), (entry, item) => listed.push(item));
    const wanted = [...expected.keys()].filter((k) => k.startsWith(`${owner},`)).map((k) => Number(k.split(',')[1]));
    assert.deepStrictEqual(listed.sort((a, b) => a - b), wanted.sort((a, b) => a - b));
  }
  // Drain: every entry freed, every owner's list empty, and the table usable again after its reset.
  for (const [key] of expected) {
    const [owner, item] = key.split(',').map(Number);
    table.remove(table.find(owner, item), listOf(owner));
  }
  assert.strictEqual(table.size, 0);
  for (const list of lists.values()) assert.strictEqual(list.head, -1);
  const again = table.entry(3, 4, { head: -1 });
  assert.strictEqual(table.find(3, 4), again);
});
