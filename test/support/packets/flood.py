#!/usr/bin/python3
"""Floods a UDP port from random source ports at a paced rate, through an AF_PACKET socket (scapy
is far too slow for this), and prints "sent N" when done. IPv4, or IPv6 when SRC and DST are IPv6
addresses (every datagram then has its UDP checksum: IPv6 requires one).

usage: flood.py IFACE SRC_MAC DST_MAC SRC DST DPORT PPS SECONDS PAYLOAD
"""
import random
import socket
import struct
import sys
import time

from inet_checksum import checksum

iface, smac, dmac, src, dst, dport, pps, seconds, payload = sys.argv[1:10]
pps, seconds, data = int(pps), float(seconds), payload.encode()


v6 = ":" in dst
macs = bytes.fromhex(dmac.replace(":", "")) + bytes.fromhex(smac.replace(":", ""))
udp_len = 8 + len(data)
ports = random.sample(range(1024, 65536), 60000)
if v6:
    eth = macs + b"\x86\xdd"
    s6, d6 = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    ip = struct.pack("!IHBB16s16s", 6 << 28, udp_len, 17, 64, s6, d6)
    pseudo = s6 + d6 + struct.pack("!IxxxB", udp_len, 17)

    def udp(port: int) -> bytes:
        u = struct.pack("!HHHH", port, int(dport), udp_len, 0) + data
        c = checksum(pseudo + u + (b"\0" if len(u) % 2 else b"")) or 0xFFFF
        return u[:6] + struct.pack("!H", c) + u[8:]
else:
    eth = macs + b"\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]

    def udp(port: int) -> bytes:
        # UDP checksum 0: none (allowed in IPv4).
        return struct.pack("!HHHH", port, int(dport), udp_len, 0) + data
# Every frame a source port of its own.
frames = [eth + ip + udp(port) for port in ports]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
batch = max(1, pps // 100)
start = time.monotonic()
sent = 0
while True:
    now = time.monotonic() - start
    if now >= seconds:
        break
    due = int(now * pps)
    while sent < due:
        for _ in range(min(batch, due - sent)):
            try:
                s.send(frames[sent % len(frames)])
            except BlockingIOError:
                pass
            sent += 1
    time.sleep(0.005)
print(f"sent {sent}", flush=True)
