#!/usr/bin/python3
"""Sends, every INTERVAL_MS, one UDP datagram "TAG-i" to each DEST:PORT, each from a fresh
socket (a new random source port, as a DNS resolver does), for SECONDS; prints "sent N". DEST
may be an IPv6 address (fd00:ec2::253:9999: the port is after the last colon).

usage: paced-client.py INTERVAL_MS SECONDS TAG DEST:PORT...
"""
import socket
import sys
import time

interval, seconds, tag = int(sys.argv[1]) / 1000, float(sys.argv[2]), sys.argv[3]
dests = [(d.rsplit(":", 1)[0], int(d.rsplit(":", 1)[1])) for d in sys.argv[4:]]
start = time.monotonic()
i = 0
while time.monotonic() - start < seconds:
    for host, port in dests:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(f"{tag}-{i}".encode(), (host, port))
        s.close()
    i += 1
    time.sleep(max(0.0, start + i * interval - time.monotonic()))
print(f"sent {i}", flush=True)
