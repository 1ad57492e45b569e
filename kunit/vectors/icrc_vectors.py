#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Compute the ICRC test vectors of rxc_kunit.c independently of the driver.

The ICRC is CRC-32 (zlib.crc32) over 8 bytes of 0xff, then the IP, UDP and
BTH headers with their variant fields set to all ones, then the rest of the
packet.  Prints each packet and its ICRC as C initializers.
"""
import struct
import zlib


def ipv4_packet(payload, ttl=64, tos=0, csum=0x1234):
    bth = bytes([0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
                 0x80, 0x00, 0x00, 0x2a])  # SEND_ONLY, qpn 0x11, psn 42
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack('>HHHH', 0xc123, 4791, udp_len, 0)
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, tos, 20 + udp_len, 0x0001,
                     0x4000, ttl, 17, csum, bytes([10, 77, 0, 1]),
                     bytes([10, 77, 0, 2]))
    return ip + udp + bth + payload


def ipv6_packet(payload, tclass=0, flow=0, hops=64):
    bth = bytes([0x0a, 0x40, 0xff, 0xff, 0x00, 0x00, 0x01, 0x02,
                 0x00, 0x12, 0x34, 0x56])  # RDMA_WRITE_ONLY with RETH
    reth = struct.pack('>QII', 0x7f0000001000, 0xabcd, len(payload))
    udp_len = 8 + len(bth) + len(reth) + len(payload) + 4
    udp = struct.pack('>HHHH', 0xd00d, 4791, udp_len, 0xbeef)
    word0 = (6 << 28) | (tclass << 20) | flow
    src = bytes.fromhex('fe800000000000000200aafffe000001')
    dst = bytes.fromhex('fe800000000000000200aafffe000002')
    ip = struct.pack('>IHBB16s16s', word0, udp_len, 17, hops, src, dst)
    return ip + udp + bth + reth + payload


def icrc(pkt):
    v6 = pkt[0] >> 4 == 6
    iplen = 40 if v6 else 20
    hdr = bytearray(pkt[:iplen + 8 + 12])
    if v6:
        hdr[0] |= 0x0f
        hdr[1:4] = b'\xff\xff\xff'
        hdr[7] = 0xff
    else:
        hdr[1] = 0xff
        hdr[8] = 0xff
        hdr[10:12] = b'\xff\xff'
    hdr[iplen + 6:iplen + 8] = b'\xff\xff'
    hdr[iplen + 8 + 4] = 0xff
    return zlib.crc32(b'\xff' * 8 + bytes(hdr) + pkt[len(hdr):])


def show(name, pkt):
    body = ', '.join('0x%02x' % b for b in pkt)
    print('/* %s: %d bytes */' % (name, len(pkt)))
    print('static const u8 %s[] = { %s };' % (name, body))
    print('#define %s_ICRC 0x%08xU' % (name.upper(), icrc(pkt)))


if __name__ == '__main__':
    p4 = ipv4_packet(b'rxc icrc vector!')
    assert icrc(p4) == icrc(ipv4_packet(b'rxc icrc vector!', ttl=3,
                                        tos=0xb8, csum=0))
    p6 = ipv6_packet(bytes(range(32)))
    assert icrc(p6) == icrc(ipv6_packet(bytes(range(32)), tclass=0x2e,
                                        flow=0x12345, hops=1))
    show('icrc_v4_send', p4)
    show('icrc_v6_write', p6)
