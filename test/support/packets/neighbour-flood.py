#!/usr/bin/python3
"""Asks VPP for an address from COUNT different source addresses, paced, through an AF_PACKET
socket (scapy is far too slow for this), and prints "sent N" when done: ARP requests whose sender
address counts up from FIRST (IPv4), or neighbour solicitations to the target's solicited-node
group whose IPv6 source counts up from FIRST, each with a source link-layer address option (IPv6).
VPP learns the sender of each as a neighbour: the frames a VM uses to fill VPP's neighbour table.

usage: neighbour-flood.py IFACE SRC_MAC DST_MAC TARGET FIRST COUNT PPS
  DST_MAC is the port's MAC for ARP (sent to broadcast) and ignored for IPv6 (the group's MAC).
"""
import socket
import struct
import sys
import time

from inet_checksum import checksum

iface, smac, dmac, target, first, count, pps = sys.argv[1:8]
count, pps = int(count), int(pps)
src_mac = bytes.fromhex(smac.replace(":", ""))


def arp_request(i: int) -> bytes:
    sender = struct.pack("!I", (struct.unpack("!I", socket.inet_aton(first))[0] + i) & 0xFFFFFFFF)
    eth = b"\xff" * 6 + src_mac + b"\x08\x06"
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + src_mac + sender + b"\0" * 6
    return eth + arp + socket.inet_aton(target)


def neighbour_solicitation(i: int) -> bytes:
    low = (struct.unpack("!I", first6[12:])[0] + i) & 0xFFFFFFFF
    src = first6[:12] + struct.pack("!I", low)
    eth = b"\x33\x33" + group[12:] + src_mac + b"\x86\xdd"
    icmp = struct.pack("!BBHI", 135, 0, 0, 0) + tgt6 + struct.pack("!BB", 1, 1) + src_mac
    pseudo = src + group + struct.pack("!IxxxB", len(icmp), 58)
    icmp = icmp[:2] + struct.pack("!H", checksum(pseudo + icmp)) + icmp[4:]
    ip = struct.pack("!IHBB", 6 << 28, len(icmp), 58, 255) + src + group
    return eth + ip + icmp


if ":" in target:
    tgt6 = socket.inet_pton(socket.AF_INET6, target)
    group = socket.inet_pton(socket.AF_INET6, "ff02::1:ff00:0")[:13] + tgt6[13:]
    first6 = socket.inet_pton(socket.AF_INET6, first)
make = neighbour_solicitation if ":" in target else arp_request
frames = [make(i) for i in range(count)]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
start = time.monotonic()
sent = 0
while sent < count:
    due = min(count, int((time.monotonic() - start) * pps) + 1)
    while sent < due:
        s.send(frames[sent])
        sent += 1
    time.sleep(0.001)
print(f"sent {sent}", flush=True)
