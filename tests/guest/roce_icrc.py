# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The RoCEv2 ICRC, computed independently of any driver (with zlib).

The ICRC is a CRC-32 over 8 bytes of ones (standing in for the LRH) and
the packet from its IP header up to the ICRC itself, with every field a
router may change replaced by ones: IPv4 TOS, TTL and header checksum, or
IPv6 traffic class, flow label and hop limit; the UDP checksum; and the
BTH's reserved byte (FECN/BECN).  It sits little-endian in the packet's
last 4 bytes.
"""
import struct
import zlib

ROCE_PORT = 4791
UDP_LEN = 8
BTH_LEN = 12


def ip_header_len(ip_pkt):
    """20 for IPv4 (rxe and rxc send no options), 40 for IPv6."""
    return 20 if ip_pkt[0] >> 4 == 4 else 40


def icrc(ip_pkt):
    """The ICRC of an IP packet, given without its last 4 bytes."""
    ihl = ip_header_len(ip_pkt)
    hdr = bytearray(ip_pkt[:ihl + UDP_LEN + BTH_LEN])
    if ihl == 20:
        hdr[1] = 0xff                      # TOS
        hdr[8] = 0xff                      # TTL
        hdr[10:12] = b'\xff\xff'           # header checksum
    else:
        hdr[0] |= 0x0f                     # traffic class, high nibble
        hdr[1:4] = b'\xff\xff\xff'         # traffic class, flow label
        hdr[7] = 0xff                      # hop limit
    hdr[ihl + 6:ihl + 8] = b'\xff\xff'     # UDP checksum
    hdr[ihl + UDP_LEN + 4] = 0xff          # BTH reserved byte
    return zlib.crc32(b'\xff' * 8 + bytes(hdr) + ip_pkt[len(hdr):])


def icrc_ok(ip_pkt):
    """Whether the last 4 bytes of a whole RoCEv2 IP packet are its ICRC."""
    if len(ip_pkt) < ip_header_len(ip_pkt) + UDP_LEN + BTH_LEN + 4:
        return False
    (found,) = struct.unpack('<I', ip_pkt[-4:])
    return found == icrc(ip_pkt[:-4])
