#!/usr/bin/python3
"""Floods a UDP port from random source ports at a paced rate, through an AF_PACKET socket (scapy
is far too slow for this), and prints "sent N" when done.

usage: flood.py IFACE SRC_MAC DST_MAC SRC DST DPORT PPS SECONDS PAYLOAD
"""
import random
import socket
import struct
import sys
import time

iface, smac, dmac, src, dst, dport, pps, seconds, payload = sys.argv[1:10]
pps, seconds, data = int(pps), float(seconds), payload.encode()


def checksum(b: bytes) -> int:
    total = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


eth = bytes.fromhex(dmac.replace(":", "")) + bytes.fromhex(smac.replace(":", "")) + b"\x08\x00"
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(data), 0, 0, 64, 17, 0,
                 socket.inet_aton(src), socket.inet_aton(dst))
ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
# UDP checksum 0: none (allowed in IPv4); every frame a source port of its own.
frames = [eth + ip + struct.pack("!HHHH", port, int(dport), 8 + len(data), 0) + data
          for port in random.sample(range(1024, 65536), 60000)]
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
