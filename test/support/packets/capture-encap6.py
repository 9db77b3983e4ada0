#!/usr/bin/python3
"""Waits on an interface for one IPv6-in-IPv6 frame (H.Encaps with one SID: no SRH, next header
41) whose outer destination is SID, and prints "OUTER_SRC OUTER_DST INNER_SRC INNER_DST PAYLOAD"
(the inner UDP payload as text). Prints "ready" once listening; exits 1 after SECONDS without one.

usage: capture-encap6.py IFACE SID SECONDS
"""
import ipaddress
import select
import socket
import sys
import time

iface, sid, seconds = sys.argv[1], ipaddress.IPv6Address(sys.argv[2]).packed, float(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x86DD))
s.bind((iface, 0))
print("ready", flush=True)
end = time.monotonic() + seconds
while True:
    left = end - time.monotonic()
    if left <= 0:
        sys.exit(1)
    r, _, _ = select.select([s], [], [], left)
    if not r:
        continue
    frame = s.recv(65535)
    outer = frame[14:]
    if len(outer) < 80 or outer[6] != 41 or outer[24:40] != sid:
        continue
    inner = outer[40:]
    src = ipaddress.IPv6Address(outer[8:24])
    isrc, idst = ipaddress.IPv6Address(inner[8:24]), ipaddress.IPv6Address(inner[24:40])
    payload = inner[48:].decode(errors="replace") if inner[6] == 17 else ""
    print(f"{src} {ipaddress.IPv6Address(sid)} {isrc} {idst} {payload}", flush=True)
    sys.exit(0)
