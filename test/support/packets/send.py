#!/usr/bin/python3
"""Sends crafted Ethernet frames with scapy (Debian's python3-scapy): the tests' attacks.

usage: send.py IFACE FRAME...   each FRAME a scapy expression, e.g.
  "Ether(src='52:54:00:00:0a:01', dst='02:fe:..')/IP(src='10.0.0.8', dst='10.0.0.6')/UDP(dport=9999)/Raw(b'x')"
Frames are sent in order, each once, at layer 2 (no ARP or ND of the sender's own: the tests give
the MACs), and the script exits when they are on the wire.
"""
import sys

from scapy.all import Ether, ARP, IP, IPv6, UDP, ICMP, Raw, BOOTP, DHCP, sendp  # noqa: F401
from scapy.all import fragment, fragment6  # noqa: F401
from scapy.layers.inet6 import (  # noqa: F401
    ICMPv6EchoRequest,
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6ND_RA,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptSrcLLAddr,
    IPv6ExtHdrDestOpt,
    IPv6ExtHdrFragment,
    IPv6ExtHdrHopByHop,
    IPv6ExtHdrSegmentRouting,
)

iface = sys.argv[1]
frames = [eval(expr) for expr in sys.argv[2:]]  # the tests' own expressions
sendp(frames, iface=iface, verbose=False)
print(f"sent {len(frames)}", flush=True)
