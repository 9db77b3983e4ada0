#!/usr/bin/python3
"""Receives UDP datagrams on a port, IPv4 and IPv6, and prints one line per datagram:
"SOURCE PAYLOAD". Prints "ready" once bound. Ends on a datagram whose payload is "stop", or when
stdin closes (the test's process ends).

usage: listen.py PORT
"""
import select
import socket
import sys

port = int(sys.argv[1])
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", port))
print("ready", flush=True)
while True:
    r, _, _ = select.select([s, sys.stdin], [], [])
    if sys.stdin in r and not sys.stdin.readline():
        break
    if s in r:
        data, addr = s.recvfrom(2048)
        src = addr[0].removeprefix("::ffff:")
        text = data.decode(errors="replace")
        print(f"{src} {text}", flush=True)
        if text == "stop":
            break
