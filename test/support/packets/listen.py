#!/usr/bin/python3
"""Receives UDP datagrams on a port and prints one line per datagram: "SOURCE PAYLOAD". Prints
"ready" once bound. Ends on a datagram whose payload is "stop", or when stdin closes (the test's
process ends).

usage: listen.py PORT [--hex] [--ipv4]
  --hex   print the payload as hex (binary protocols: DHCP)
  --ipv4  an IPv4 socket on 0.0.0.0 with SO_BROADCAST (receives broadcasts) instead of a
          dual-stack one on ::
"""
import select
import socket
import sys

port = int(sys.argv[1])
as_hex = "--hex" in sys.argv[2:]
if "--ipv4" in sys.argv[2:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
else:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
# A flood test delivers thousands of datagrams a second while this loop shares two cores with VPP
# and the flood's sender: the default buffer (~200 KiB, a few hundred small datagrams) overflowed
# in a stall of a few tens of ms, and the kernel dropped what VPP had delivered. 8 MiB holds
# seconds of it; SO_RCVBUFFORCE passes net.core.rmem_max (the tests run as root).
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux's; Python does not name it
try:
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
except PermissionError:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
print("ready", flush=True)
while True:
    r, _, _ = select.select([s, sys.stdin], [], [])
    if sys.stdin in r and not sys.stdin.readline():
        break
    if s in r:
        data, addr = s.recvfrom(4096)
        src = addr[0].removeprefix("::ffff:")
        text = data.hex() if as_hex else data.decode(errors="replace")
        print(f"{src} {text}", flush=True)
        if text == "stop":
            break
