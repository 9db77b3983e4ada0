import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContextTable } from './context-table.js';

class Entry {
  constructor(readonly context: number) {}
}

function addNew(table: ContextTable<Entry>): Entry {
  const e = new Entry(table.nextContext());
  table.add(e);
  return e;
}

describe('ContextTable: unsettled requests by context', () => {
  it('hands out 1, 2, 3, … and finds each entry by its context while it is in the table', () => {
    const t = new ContextTable<Entry>();
    const entries = Array.from({ length: 5_000 }, () => addNew(t));
    assert.deepEqual(
      entries.slice(0, 3).map((e) => e.context),
      [1, 2, 3],
    );
    assert.equal(t.size, 5_000);
    for (const e of entries) assert.equal(t.get(e.context), e);
    assert.equal(t.get(5_001), undefined);
    assert.equal(t.get(0), undefined);
  });

  it('does not answer for a context that only shares a slot with a stored one', () => {
    const t = new ContextTable<Entry>();
    const e = addNew(t); // context 1
    assert.equal(t.get(1 + 1024), undefined);
    assert.equal(t.get(1 + 4096), undefined);
    assert.equal(t.get(1), e);
  });

  it('deletes only the entry stored under its context, once', () => {
    const t = new ContextTable<Entry>();
    const e = addNew(t);
    assert.equal(t.delete(new Entry(e.context)), false, 'another object with the same context');
    assert.equal(t.delete(e), true);
    assert.equal(t.delete(e), false);
    assert.equal(t.get(e.context), undefined);
    assert.equal(t.size, 0);
  });

  it('skips a context whose slot a long-pending entry still holds, and keeps counting', () => {
    const t = new ContextTable<Entry>();
    const straggler = addNew(t); // context 1, slot 1 of 1,024
    const seen: number[] = [];
    // One in flight at a time: the table stays at its initial 1,024 slots.
    for (let i = 0; i < 1_100; i++) {
      const e = addNew(t);
      seen.push(e.context);
      t.delete(e);
    }
    assert.ok(!seen.includes(1025), 'context 1025 would share slot 1 with context 1');
    assert.deepEqual(seen.slice(1022, 1025), [1024, 1026, 1027]);
    assert.equal(t.get(1), straggler);
    assert.equal(t.size, 1);
  });

  it('wraps from 4,294,967,295 to 1, never handing out 0, and still skips taken slots', () => {
    const t = new ContextTable<Entry>(0xffff_fffe);
    const top = addNew(t);
    assert.equal(top.context, 0xffff_fffe);
    assert.equal(t.nextContext(), 0xffff_ffff);
    assert.equal(t.nextContext(), 1);
    // 0xffff_fffe & 1023 is slot 1022: context 1022 is skipped while the top entry is held.
    const seen = Array.from({ length: 1_100 }, () => t.nextContext());
    assert.ok(!seen.includes(0) && !seen.includes(1022));
    assert.equal(seen[1019], 1021);
    assert.equal(seen[1020], 1023);
  });

  it('keeps every entry findable across growth, and lists them oldest first', () => {
    const t = new ContextTable<Entry>();
    const live: Entry[] = [];
    // A window of 3,000 in flight (the table doubles to 8,192), settled in order of arrival.
    for (let i = 0; i < 20_000; i++) {
      live.push(addNew(t));
      if (live.length > 3_000) assert.equal(t.delete(live.shift() as Entry), true);
    }
    assert.equal(t.size, 3_000);
    for (const e of live) assert.equal(t.get(e.context), e);
    assert.deepEqual(
      t.values().map((e) => e.context),
      live.map((e) => e.context),
    );
  });

  it('lists a copy, so the caller may delete while walking it', () => {
    const t = new ContextTable<Entry>();
    for (let i = 0; i < 10; i++) addNew(t);
    let n = 0;
    for (const e of t.values()) {
      assert.equal(t.delete(e), true);
      n++;
    }
    assert.equal(n, 10);
    assert.equal(t.size, 0);
    assert.deepEqual(t.values(), []);
  });

  it('gives back a grown table once empty, and still finds what comes after', () => {
    const t = new ContextTable<Entry>();
    const burst = Array.from({ length: 100_000 }, () => addNew(t));
    for (const e of burst) t.delete(e);
    assert.equal(t.size, 0);
    const next = addNew(t);
    assert.equal(next.context, 100_001);
    assert.equal(t.get(next.context), next);
    assert.deepEqual(t.values(), [next]);
  });

  it('refuses an entry whose slot is taken (a context it did not hand out)', () => {
    const t = new ContextTable<Entry>();
    addNew(t); // context 1
    assert.throws(() => t.add(new Entry(1 + 1024)), /slot taken/);
  });
});
