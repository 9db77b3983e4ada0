#!/usr/bin/python3
"""Prints, as hex, one line per frame arriving on an interface (whatever its destination MAC),
until a frame containing MARKER (hex) arrives: then exits 0. Prints "ready" once listening; exits
1 after SECONDS without the marker. So a test sends its attack, then a legitimate frame carrying the
marker on the same path, and reads everything that arrived before it: "not received" is never a
timeout alone.

usage: sniff.py IFACE MARKER_HEX SECONDS
"""
import select
import socket
import sys
import time

iface, marker, seconds = sys.argv[1], bytes.fromhex(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
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
    frame, addr = s.recvfrom(65535)
    if addr[2] == socket.PACKET_OUTGOING:
        continue  # what this end sent itself
    print(frame.hex(), flush=True)
    if marker in frame:
        sys.exit(0)
