#!/usr/bin/python3
"""Sends IPv4 UDP datagrams as Ethernet frames out of an interface, each built here (the standard
library only, where scapy is not installed): any source address, 0.0.0.0 too, which a UDP socket
cannot send from. From the interface's own MAC, source port 68, no UDP checksum (optional in
IPv4). One frame per PAYLOAD, in order; exits when they are on the wire.

usage: send-udp4.py IFACE DST_MAC SRC_IP DST_IP DST_PORT PAYLOAD...
"""
import socket
import struct
import sys

from inet_checksum import checksum

iface, dst_mac, src, dst, dport = sys.argv[1:6]
with open(f"/sys/class/net/{iface}/address") as f:
    src_mac = f.read().strip()


def frame(payload: bytes) -> bytes:
    udp = struct.pack("!HHHH", 68, int(dport), 8 + len(payload), 0) + payload
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, socket.IPPROTO_UDP, 0,
        socket.inet_aton(src), socket.inet_aton(dst),
    )
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    ether = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex(src_mac.replace(":", ""))
    return ether + b"\x08\x00" + ip + udp


s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
for payload in sys.argv[6:]:
    s.send(frame(payload.encode()))
print(f"sent {len(sys.argv) - 6}", flush=True)
