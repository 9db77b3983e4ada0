import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildStreams,
  IMIX,
  internetChecksum,
  ip4UdpPacket,
  ip6UdpPacket,
  sizeLabelFor,
  udp6Checksum,
  maxframes,
  meanFrameBytes,
  pgData,
  pgPacketBytes,
  pgStreamCommand,
  SIZE_64,
  type Ip4Traffic,
  type Ip6Traffic,
  type Srv6Ip6Traffic,
  type Srv6Traffic,
} from './streams.js';

const vmTraffic: Ip4Traffic = {
  kind: 'ip4',
  srcMac: '02:00:00:00:01:0a',
  dstMac: '02:00:00:00:00:0a',
  src: '10.0.0.5',
  dst: '10.0.0.7',
  dport: 5201,
  flows: 256,
};

const remoteTraffic: Srv6Traffic = {
  kind: 'srv6',
  srcMac: '02:00:00:00:01:0c',
  dstMac: '02:00:00:00:00:0c',
  outerSrc: '2001:db8::2',
  sid: 'fc00:1::a',
  src: '10.0.0.7',
  dst: '10.0.0.5',
  dport: 5201,
};

describe('IMIX weights', () => {
  it('maxframe per stream in the ratio 7:4:1, the heaviest filling a frame as far as it goes', () => {
    assert.deepEqual(maxframes(IMIX.parts), [252, 144, 36]);
    assert.deepEqual(maxframes(SIZE_64.parts), [256]);
    assert.equal(meanFrameBytes(IMIX).toFixed(2), '353.83');
  });
});

describe('pgStreamCommand', () => {
  it('one 64 B stream from a VM port, in the syntax of packet-generator new', () => {
    const [s] = buildStreams({
      prefix: 'vppnet-vm-to-remote-64B',
      source: 10,
      traffic: vmTraffic,
      size: SIZE_64,
      workers: 0,
    });
    assert.equal(
      pgStreamCommand(s!),
      [
        'packet-generator new {',
        '  name vppnet-vm-to-remote-64B-64',
        '  limit 0',
        '  size 60-60',
        '  node ethernet-input',
        '  source pg10',
        '  data {',
        '    IP4: 02:00:00:00:01:0a -> 02:00:00:00:00:0a',
        '    UDP: 10.0.0.5 -> 10.0.0.7',
        '    UDP: 1024 - 1279 -> 5201 length 26 checksum 0',
        '    incrementing 18',
        '  }',
        '}',
      ].join('\n'),
    );
  });

  it('IMIX with two workers: three weighted streams per worker, sizes without FCS', () => {
    const streams = buildStreams({
      prefix: 'hand-vm-to-vm-IMIX',
      source: 20,
      traffic: { ...vmTraffic, flows: 1 },
      size: IMIX,
      workers: 2,
    });
    assert.deepEqual(
      streams.map((s) => [s.name, s.bytes, s.maxframe, s.worker]),
      [
        ['hand-vm-to-vm-IMIX-64-w0', 60, 252, 0],
        ['hand-vm-to-vm-IMIX-570-w0', 566, 144, 0],
        ['hand-vm-to-vm-IMIX-1518-w0', 1514, 36, 0],
        ['hand-vm-to-vm-IMIX-64-w1', 60, 252, 1],
        ['hand-vm-to-vm-IMIX-570-w1', 566, 144, 1],
        ['hand-vm-to-vm-IMIX-1518-w1', 1514, 36, 1],
      ],
    );
    const big = pgStreamCommand(streams[5]!);
    assert.match(
      big,
      /\n {2}size 1514-1514\n {2}maxframe 36\n {2}worker 1\n {2}node ethernet-input\n {2}source pg20\n/,
    );
    assert.match(big, /UDP: 1024 -> 5201 length 1480 checksum 0\n {4}incrementing 1472\n/);
    assert.ok(
      streams.every((s) => !pgStreamCommand(s).includes('rate')),
      'no rate: as fast as the thread can',
    );
  });

  it('refuses a stream name VPP would split', () => {
    assert.throws(
      () => buildStreams({ prefix: 'two words', source: 1, traffic: vmTraffic, size: SIZE_64, workers: 0 }),
      /one word/,
    );
  });
});

describe('SRv6-encapsulated traffic (remote → VM)', () => {
  it('outer IPv6 to the SID, next header IP_IN_IP, the inner IPv4/UDP packet as hex', () => {
    assert.equal(pgPacketBytes(remoteTraffic, 64), 100);
    assert.equal(pgPacketBytes(remoteTraffic, 1518), 1554);
    const data = pgData(remoteTraffic, 64);
    assert.deepEqual(data.slice(0, 2), [
      'IP6: 02:00:00:00:01:0c -> 02:00:00:00:00:0c',
      'IP_IN_IP: 2001:db8::2 -> fc00:1::a',
    ]);
    const m = /^hex 0x([0-9a-f]+)$/.exec(data[2]!);
    assert.ok(m);
    const inner = Buffer.from(m[1]!, 'hex');
    // 14 (Ethernet) + 40 (IPv6) + 46 = the 100-byte pg packet; 46 = the 60-byte VM frame minus Ethernet.
    assert.equal(inner.length, 46);
    assert.equal(inner[0], 0x45);
    assert.equal(inner.readUInt16BE(2), 46);
    assert.equal(inner[8], 64, 'TTL');
    assert.equal(inner[9], 17, 'UDP');
    assert.deepEqual([...inner.subarray(12, 20)], [10, 0, 0, 7, 10, 0, 0, 5]);
    assert.equal(internetChecksum(inner.subarray(0, 20)), 0, 'a valid header checksums to zero');
    assert.deepEqual(
      [inner.readUInt16BE(20), inner.readUInt16BE(22), inner.readUInt16BE(24), inner.readUInt16BE(26)],
      [1024, 5201, 26, 0],
    );
  });

  it('the checksum agrees with a worked example (RFC 1071 arithmetic)', () => {
    const header = Buffer.from('450000730000400040110000c0a80001c0a800c7', 'hex');
    assert.equal(internetChecksum(header), 0xb861);
    const p = ip4UdpPacket({
      src: '192.168.0.1',
      dst: '192.168.0.199',
      sport: 1,
      dport: 2,
      totalLength: 0x73,
    });
    assert.equal(
      p.readUInt16BE(10),
      internetChecksum(Buffer.concat([p.subarray(0, 10), Buffer.alloc(2), p.subarray(12, 20)])),
    );
  });

  it('refuses frames below 64 B', () => {
    assert.throws(() => pgData(vmTraffic, 60), /from 64/);
  });
});

const vm6Traffic: Ip6Traffic = {
  kind: 'ip6',
  srcMac: '02:00:00:00:01:0a',
  dstMac: '02:00:00:00:00:0a',
  src: '2001:db8:a::5',
  dst: '2001:db8:a::7',
  dport: 5201,
  flows: 256,
};

const remote6Traffic: Srv6Ip6Traffic = {
  kind: 'srv6-ip6',
  srcMac: '02:00:00:00:01:0c',
  dstMac: '02:00:00:00:00:0c',
  outerSrc: '2001:db8::2',
  sid: 'fc00:1::100:a',
  src: '2001:db8:a::7',
  dst: '2001:db8:a::5',
  dport: 5201,
};

describe('IPv6 traffic from a VM (H.Encaps of IPv6)', () => {
  it('IP6 and UDP headers in the syntax of ip6_pg, 78 B frames standing for the 64 B class', () => {
    const [s] = buildStreams({
      prefix: 'vppnet-vm-to-remote-ip6-64B',
      source: 10,
      traffic: vm6Traffic,
      size: SIZE_64,
      workers: 0,
    });
    assert.equal(
      pgStreamCommand(s!),
      [
        'packet-generator new {',
        '  name vppnet-vm-to-remote-ip6-64B-78',
        '  limit 0',
        '  size 74-74',
        '  node ethernet-input',
        '  source pg10',
        '  data {',
        '    IP6: 02:00:00:00:01:0a -> 02:00:00:00:00:0a',
        '    UDP: 2001:db8:a::5 -> 2001:db8:a::7',
        '    UDP: 1024 - 1279 -> 5201 length 20 checksum 0',
        '    incrementing 12',
        '  }',
        '}',
      ].join('\n'),
    );
    assert.equal(sizeLabelFor(vm6Traffic, SIZE_64), '78B');
    assert.equal(sizeLabelFor(vmTraffic, SIZE_64), '64B', 'IPv4 keeps its 64 B frames');
  });

  it('IMIX keeps 570 and 1518 B, only the small frames grow to 78 B', () => {
    const streams = buildStreams({ prefix: 'x', source: 10, traffic: vm6Traffic, size: IMIX, workers: 0 });
    assert.deepEqual(
      streams.map((s) => [s.name, s.bytes, s.maxframe]),
      [
        ['x-78', 74, 252],
        ['x-570', 566, 144],
        ['x-1518', 1514, 36],
      ],
    );
    assert.match(
      pgStreamCommand(streams[2]!),
      /UDP: 1024 - 1279 -> 5201 length 1460 checksum 0\n {4}incrementing 1452\n/,
    );
    assert.equal(sizeLabelFor(vm6Traffic, IMIX), 'IMIX');
  });
});

describe('SRv6-encapsulated IPv6 traffic (remote → VM, End.DT6)', () => {
  it('outer IPv6 to the DT6 SID, next header IPV6, the inner IPv6/UDP packet as hex', () => {
    assert.equal(pgPacketBytes(remote6Traffic, 64), 114, '78 B on the VM side + 40');
    assert.equal(pgPacketBytes(remote6Traffic, 1518), 1554);
    const data = pgData(remote6Traffic, 64);
    assert.deepEqual(data.slice(0, 2), [
      'IP6: 02:00:00:00:01:0c -> 02:00:00:00:00:0c',
      'IPV6: 2001:db8::2 -> fc00:1::100:a',
    ]);
    const m = /^hex 0x([0-9a-f]+)$/.exec(data[2]!);
    assert.ok(m);
    const inner = Buffer.from(m[1]!, 'hex');
    // 14 + 40 (outer) + 60 = the 114-byte pg packet; 60 = the 74-byte VM frame minus Ethernet.
    assert.equal(inner.length, 60);
    assert.equal(inner[0]! >> 4, 6, 'version');
    assert.equal(inner.readUInt16BE(4), 20, 'payload length');
    assert.equal(inner[6], 17, 'next header UDP');
    assert.equal(inner[7], 64, 'hop limit');
    assert.equal(inner.subarray(8, 24).toString('hex'), '20010db8000a00000000000000000007');
    assert.equal(inner.subarray(24, 40).toString('hex'), '20010db8000a00000000000000000005');
    assert.deepEqual(
      [inner.readUInt16BE(40), inner.readUInt16BE(42), inner.readUInt16BE(44)],
      [1024, 5201, 20],
    );
    assert.notEqual(inner.readUInt16BE(46), 0, 'IPv6 UDP must carry a checksum');
  });

  it('the UDP checksum verifies: the ones-complement sum over pseudo-header and datagram is 0xffff', () => {
    const p = ip6UdpPacket({ src: 'fe80::1', dst: 'ff02::1', sport: 1, dport: 2, totalLength: 53 });
    const pseudo = Buffer.alloc(40);
    p.copy(pseudo, 0, 8, 40);
    pseudo.writeUInt32BE(13, 32);
    pseudo[39] = 17;
    assert.equal(internetChecksum(Buffer.concat([pseudo, p.subarray(40)])), 0, 'odd length padded with zero');
    assert.equal(udp6Checksum(p), p.readUInt16BE(46), 'the field does not feed its own sum');
    assert.throws(
      () => ip6UdpPacket({ src: '::1', dst: '::1', sport: 1, dport: 2, totalLength: 47 }),
      /out of range/,
    );
  });
});
