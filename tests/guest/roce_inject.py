# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Send one hand-made RoCEv2 packet, to test how a receiver drops it.

usage: python3 roce_inject.py SRC_IP DST_IP KIND [QPN PSN [VA RKEY LEN
                                                   [FLOOD_IP COUNT]]]
       python3 roce_inject.py SRC_IP DST_IP read_then QPN PSN VA RKEY LEN
                                                   NEXT_PSN COUNT

KIND is one of:
  truncated   a UDP datagram too short to hold a BTH and an ICRC
  bad_tver    a BTH with transport version 1
  bad_icrc    a well-formed RC SEND_ONLY whose ICRC is wrong
  no_qp       a well-formed RC SEND_ONLY, correct ICRC, to QPN 0xabcde
  ack         a well-formed RC ACKNOWLEDGE of PSN, correct ICRC, to QPN
  read        a well-formed RC RDMA READ request at PSN for LEN bytes at
              VA under RKEY, correct ICRC, to QPN
  read_flood  the same READ, then COUNT copies of it from FLOOD_IP, as
              fast as they go: a flood from a third host while the
              responder is busy with the peer's READ
  read_then   the same READ, then COUNT copies of an 8-byte READ at
              NEXT_PSN whose rkey is wrong, from SRC_IP: a peer that
              resends a request the responder will refuse, queued behind
              a READ it is busy with

The IP header is built here (raw socket, IP_HDRINCL) because the ICRC
covers fields the kernel would otherwise choose, such as the IP ID.
The ICRC is computed independently of the driver (roce_icrc.py).
"""
import socket
import struct
import sys

from roce_icrc import ROCE_PORT, icrc


def ipv4(src, dst, udp_payload):
    udp = struct.pack('>HHHH', 0xc000, ROCE_PORT, 8 + len(udp_payload), 0)
    total = 20 + len(udp) + len(udp_payload)
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, total, 0x1234, 0x4000, 64,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                     socket.inet_aton(dst))
    return ip + udp + udp_payload


def send_only(qpn, tver=0):
    # RC SEND_ONLY (0x04), pad 0, P_Key 0xffff, AckReq, PSN 1, 8 bytes.
    bth = struct.pack('>BBHII', 0x04, tver & 0xf, 0xffff, qpn & 0xffffff,
                      0x80000001)
    return bth + b'rxc-test'


def ack(qpn, psn):
    # RC ACKNOWLEDGE (0x11); AETH: ACK syndrome, no credit count, MSN 1.
    bth = struct.pack('>BBHII', 0x11, 0, 0xffff, qpn & 0xffffff,
                      psn & 0xffffff)
    return bth + struct.pack('>I', (0x1f << 24) | 1)


def read(qpn, psn, va, rkey, length):
    # RC RDMA_READ_REQUEST (0x0c), AckReq; RETH: VA, R_Key, DMA length.
    bth = struct.pack('>BBHII', 0x0c, 0, 0xffff, qpn & 0xffffff,
                      0x80000000 | (psn & 0xffffff))
    return bth + struct.pack('>QII', va, rkey, length)


def with_icrc(pkt):
    return pkt + struct.pack('<I', icrc(pkt))


def packet(src, dst, kind, args):
    if kind == 'ack':
        return with_icrc(ipv4(src, dst, ack(int(args[0], 0),
                                            int(args[1], 0)) + b'\0' * 4)[:-4])
    if kind == 'read':
        nums = [int(a, 0) for a in args[:5]]
        return with_icrc(ipv4(src, dst, read(*nums) + b'\0' * 4)[:-4])
    if kind == 'truncated':
        return ipv4(src, dst, b'\x04\x00')
    if kind == 'bad_tver':
        body = send_only(0xabcde, tver=1)
        return ipv4(src, dst, body + b'\0\0\0\0')
    body = send_only(0xabcde)
    pkt = ipv4(src, dst, body + b'\0\0\0\0')
    crc = icrc(pkt[:-4])
    if kind == 'bad_icrc':
        crc ^= 0x1
    elif kind != 'no_qp':
        raise SystemExit('unknown kind ' + kind)
    return pkt[:-4] + struct.pack('<I', crc)


def main():
    src, dst, kind = sys.argv[1:4]
    args = sys.argv[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    if kind == 'read_then':
        qpn, _, va, rkey = args[:4]
        first = packet(src, dst, 'read', args[:5])
        again = packet(src, dst, 'read',
                       [qpn, args[5], va, hex(int(rkey, 0) ^ 0x80), '8'])
        s.sendto(first, (dst, 0))
        for _ in range(int(args[6], 0)):
            s.sendto(again, (dst, 0))
        return
    if kind != 'read_flood':
        s.sendto(packet(src, dst, kind, args), (dst, 0))
        return
    # Both packets are built before the first is sent, so that the flood
    # follows the READ at once.
    flood_src, count = args[5], int(args[6], 0)
    first = packet(src, dst, 'read', args[:5])
    forged = packet(flood_src, dst, 'read', args[:5])
    s.sendto(first, (dst, 0))
    for _ in range(count):
        s.sendto(forged, (dst, 0))


if __name__ == '__main__':
    main()
