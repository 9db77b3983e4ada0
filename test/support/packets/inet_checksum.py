"""The Internet checksum (RFC 1071) of an even-length byte string: IPv4 headers, and UDP and
ICMPv6 over their pseudo-headers. Shared by the raw-socket senders beside it (they run as scripts,
so their own directory is on the import path)."""
import struct


def checksum(b: bytes) -> int:
    total = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
