import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { validateConfig } from '../config/validate.js';
import {
  allocateServiceAddresses,
  EMPTY_BOOK,
  ServiceAddressExhaustedError,
  type AddressBook,
  type AddressRequest,
  type AllocationInput,
} from './address-allocator.js';
import { AddressBookFileStore, SERVICE_ADDRESSES_FILE } from '../attachments/address-book-file-store.js';
import { ServiceAddresses } from './service-addresses.js';

const RANGE = { address: '169.252.252.0', len: 24 };
const HOLD_MS = 300_000;

function allocate(
  book: AddressBook,
  requests: AddressRequest[],
  now: number,
  extra: Partial<AllocationInput> = {},
) {
  return allocateServiceAddresses({ book, requests, range: RANGE, holdMs: HOLD_MS, now, ...extra });
}

const vm = (port: string, ip = '10.0.0.5', vpc = 'vpc-a'): AddressRequest => ({ port, vpc, ip });

void describe('allocateServiceAddresses', () => {
  void it('gives new ports the lowest free host addresses, in port name order', () => {
    const r = allocate(EMPTY_BOOK, [vm('vm2'), vm('vm1', '10.0.0.6')], 0);
    assert.deepEqual(
      [...r.addresses],
      [
        ['vm1', '169.252.252.1'],
        ['vm2', '169.252.252.2'],
      ],
    );
    assert.equal(r.changed, true);
    assert.deepEqual(r.exhausted, []);
  });

  void it('keeps every assignment while the port stays the same VM', () => {
    const first = allocate(EMPTY_BOOK, [vm('vm1'), vm('vm2', '10.0.0.6')], 0);
    // vm0 sorts first but arrives later: the others keep their addresses.
    const second = allocate(first.book, [vm('vm0', '10.0.0.7'), vm('vm2', '10.0.0.6'), vm('vm1')], 1000);
    assert.equal(second.addresses.get('vm1'), first.addresses.get('vm1'));
    assert.equal(second.addresses.get('vm2'), first.addresses.get('vm2'));
    assert.equal(second.addresses.get('vm0'), '169.252.252.3');
    const third = allocate(second.book, [vm('vm0', '10.0.0.7'), vm('vm2', '10.0.0.6'), vm('vm1')], 2000);
    assert.equal(third.changed, false, 'nothing to save when nothing changed');
  });

  void it('holds a released address back for the hold time, then reuses it', () => {
    const t0 = 1_000_000;
    const a = allocate(EMPTY_BOOK, [vm('vm1'), vm('vm2', '10.0.0.6')], t0);
    assert.equal(a.addresses.get('vm1'), '169.252.252.1');
    // vm1 is removed: .1 is held.
    const b = allocate(a.book, [vm('vm2', '10.0.0.6')], t0 + 1000);
    assert.deepEqual([...b.book.held], [['169.252.252.1', t0 + 1000]]);
    // A new VM just before the hold ends does not get .1.
    const c = allocate(b.book, [vm('vm2', '10.0.0.6'), vm('vm3', '10.0.0.9')], t0 + 1000 + HOLD_MS - 1);
    assert.equal(c.addresses.get('vm3'), '169.252.252.3');
    // Once the hold has run out the address is free again.
    const d = allocate(
      c.book,
      [vm('vm2', '10.0.0.6'), vm('vm3', '10.0.0.9'), vm('vm4', '10.0.0.10')],
      t0 + 1000 + HOLD_MS,
    );
    assert.equal(d.addresses.get('vm4'), '169.252.252.1');
    assert.equal(d.book.held.size, 0);
  });

  void it('treats a port that comes back with another VPC or IP as a new VM', () => {
    const a = allocate(EMPTY_BOOK, [vm('vm1')], 0);
    const b = allocate(a.book, [vm('vm1', '10.0.0.5', 'vpc-b')], 10);
    assert.equal(b.addresses.get('vm1'), '169.252.252.2');
    assert.equal(b.book.held.get('169.252.252.1'), 10);
  });

  void it('reports exhaustion per port, saying when a held address frees up', () => {
    const range = { address: '169.252.252.0', len: 30 }; // two host addresses
    const a = allocateServiceAddresses({
      book: EMPTY_BOOK,
      requests: [vm('a'), vm('b', '10.0.0.6')],
      range,
      holdMs: HOLD_MS,
      now: 0,
    });
    assert.deepEqual([...a.addresses.values()], ['169.252.252.1', '169.252.252.2']);
    const b = allocateServiceAddresses({
      book: a.book,
      requests: [vm('b', '10.0.0.6'), vm('c', '10.0.0.7')],
      range,
      holdMs: HOLD_MS,
      now: 5,
    });
    assert.equal(b.addresses.has('c'), false);
    assert.equal(b.exhausted.length, 1);
    const err = b.exhausted[0] as ServiceAddressExhaustedError;
    assert.ok(err instanceof ServiceAddressExhaustedError);
    assert.equal(err.code, 'VPPNET_ERR_SERVICE_ADDRESSES_EXHAUSTED');
    assert.equal(err.port, 'c');
    assert.match(err.message, /169\.252\.252\.0\/30/);
    assert.match(err.message, new RegExp(new Date(5 + HOLD_MS).toISOString().replace(/\./g, '\\.')));
    // The other ports are unaffected.
    assert.equal(b.addresses.get('b'), '169.252.252.2');
  });

  void it('adopts what VPP holds when the book is lost, and holds addresses of VMs that are gone', () => {
    const r = allocate(EMPTY_BOOK, [vm('vm1'), vm('vm9', '10.0.0.9')], 50, {
      recovered: [
        { port: 'vm1', vpc: 'vpc-a', ip: '10.0.0.5', address: '169.252.252.7' },
        { port: 'gone', vpc: 'vpc-a', ip: '10.0.0.8', address: '169.252.252.1' },
        { port: 'vm9', vpc: 'vpc-b', ip: '10.0.0.9', address: '169.252.252.2' }, // another VM now
        { port: 'x', vpc: undefined, ip: '10.0.0.3', address: '10.9.9.9' }, // outside the range
      ],
    });
    assert.equal(r.addresses.get('vm1'), '169.252.252.7');
    assert.equal(r.addresses.get('vm9'), '169.252.252.3');
    assert.deepEqual([...r.book.held.keys()].sort(), ['169.252.252.1', '169.252.252.2']);
  });

  void it('never hands out the network or broadcast address', () => {
    const range = { address: '10.1.0.0', len: 29 };
    const requests = Array.from({ length: 8 }, (_, i) => vm(`p${i}`, `10.0.0.${i + 10}`));
    const r = allocateServiceAddresses({ book: EMPTY_BOOK, requests, range, holdMs: 0, now: 0 });
    const given = [...r.addresses.values()];
    assert.equal(given.length, 6);
    assert.ok(!given.includes('10.1.0.0') && !given.includes('10.1.0.7'));
    assert.equal(r.exhausted.length, 2);
  });
});

void describe('ServiceAddresses (persisted)', () => {
  const config = (ports: string[], holdSeconds = 300) =>
    validateConfig({
      node: {
        name: 'hv1',
        underlay: { interface: 'eth0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
      // A port's IP and MAC follow from its number, so "vm2" is the same VM in every config.
      ports: ports.map((name) => ({
        name,
        vpc: 'vpc-a',
        mac: `52:54:00:00:00:${name.slice(2).padStart(2, '0')}`,
        ip: `10.0.0.${Number(name.slice(2)) + 4}`,
        attach: { type: 'vhost-user', socket: `/run/vppnet/vhost/${name}.sock` },
      })),
      remoteRoutes: [],
      services: { addressHoldSeconds: holdSeconds },
    });

  void it('keeps assignments and holds across agent restarts, through an atomic file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vppnet-addr-'));
    try {
      let now = 1_700_000_000_000;
      const clock = (): number => now;
      const first = new ServiceAddresses(new AddressBookFileStore(dir), clock);
      const a = await first.assign(config(['vm1', 'vm2']), []);
      assert.deepEqual(
        [...a.addresses],
        [
          ['vm1', '169.252.252.1'],
          ['vm2', '169.252.252.2'],
        ],
      );
      now += 1000;
      await first.assign(config(['vm2']), []); // vm1 removed: .1 held
      const saved = JSON.parse(await readFile(join(dir, SERVICE_ADDRESSES_FILE), 'utf8')) as {
        held: unknown[];
      };
      assert.equal(saved.held.length, 1);

      // "Restart": a new keeper over the same directory.
      now += 1000;
      const second = new ServiceAddresses(new AddressBookFileStore(dir), clock);
      const b = await second.assign(config(['vm2', 'vm3']), []);
      assert.equal(b.addresses.get('vm2'), '169.252.252.2');
      assert.equal(b.addresses.get('vm3'), '169.252.252.3', 'the held .1 is not reused after a restart');
      assert.deepEqual(
        second.serviceMap().map((e) => [e.serviceAddress, e.port, e.vpc, e.vpcId, e.vmIp]),
        [
          ['169.252.252.2', 'vm2', 'vpc-a', 10, '10.0.0.6'],
          ['169.252.252.3', 'vm3', 'vpc-a', 10, '10.0.0.7'],
        ],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('rebuilds from VPP when the file is unreadable, and says so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vppnet-addr-'));
    try {
      await writeFile(join(dir, SERVICE_ADDRESSES_FILE), '{ torn');
      const keeper = new ServiceAddresses(new AddressBookFileStore(dir), () => 0);
      const r = await keeper.assign(config(['vm1']), [
        { port: 'vm1', vpc: 'vpc-a', ip: '10.0.0.5', address: '169.252.252.9' },
      ]);
      assert.equal(r.addresses.get('vm1'), '169.252.252.9');
      assert.equal(r.problems.length, 1);
      assert.match(r.problems[0] ?? '', /unreadable/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('does not save or remember a dry run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vppnet-addr-'));
    try {
      const keeper = new ServiceAddresses(new AddressBookFileStore(dir), () => 0);
      await keeper.assign(config(['vm1']), [], { commit: false });
      await assert.rejects(readFile(join(dir, SERVICE_ADDRESSES_FILE)), { code: 'ENOENT' });
      assert.deepEqual(keeper.serviceMap(), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
