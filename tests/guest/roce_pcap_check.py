# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Check every RoCEv2 packet of a capture against the wire contract.

usage: python3 roce_pcap_check.py CAPTURE.pcap SRC_IP [SRC_IP ...]

Reads a classic pcap file of Ethernet frames (dumpcap -P) and, for each
UDP datagram to port 4791 over IPv4 or IPv6, checks what a receiver
relies on: the ICRC (recomputed here, see roce_icrc.py), lengths that
agree from the IP header down to the BTH, BTH transport version 0, and
the fields rdma_rxe 6.1 sets the same way (IPv4 DF, UDP checksum 0, UDP
source port in 0xc000-0xffff).  Prints one line per source address with
its packet count and the BTH opcodes seen, then every problem.  Exits 1
if a packet is wrong, or if an address given on the command line sent
no packet at all (so that an empty capture cannot pass).
"""
import collections
import ipaddress
import struct
import sys

from roce_icrc import ROCE_PORT, UDP_LEN, icrc_ok

ETH_LEN = 14
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86dd
IP_DF = 0x4000


def frames(path):
    """The frames of a classic pcap file, as (number, bytes)."""
    with open(path, 'rb') as f:
        data = f.read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        order = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        order = '>'
    else:
        raise SystemExit(f'{path}: not a classic pcap file')
    (linktype,) = struct.unpack(order + 'I', data[20:24])
    if linktype != 1:
        raise SystemExit(f'{path}: link type {linktype}, not Ethernet')
    off, num = 24, 0
    while off + 16 <= len(data):
        incl, orig = struct.unpack(order + 'II', data[off + 8:off + 16])
        num += 1
        frame = data[off + 16:off + 16 + incl]
        if incl != orig:
            raise SystemExit(f'frame {num}: captured {incl} of {orig} bytes')
        yield num, frame
        off += 16 + incl


def ip_fields(ip):
    """(source, total length, header length, problems) of an IP packet."""
    problems = []
    if ip[0] >> 4 == 4:
        if ip[0] & 0xf != 5:
            problems.append('IPv4 options')
        (total, frag) = struct.unpack('>H2xH', ip[2:8])
        if not frag & IP_DF:
            problems.append('IPv4 DF not set')
        return ipaddress.ip_address(ip[12:16]), total, 20, problems
    (payload,) = struct.unpack('>H', ip[4:6])
    if ip[6] != 17:
        problems.append(f'IPv6 next header {ip[6]}, not UDP')
    return ipaddress.ip_address(ip[8:24]), 40 + payload, 40, problems


def check(ip):
    """(source, opcode, problems) of one RoCEv2 IP packet."""
    src, total, ihl, problems = ip_fields(ip)
    sport, _, ulen, csum = struct.unpack('>HHHH', ip[ihl:ihl + UDP_LEN])
    if total != len(ip):
        problems.append(f'IP length {total}, packet {len(ip)} bytes')
    if ulen != len(ip) - ihl:
        problems.append(f'UDP length {ulen}, datagram {len(ip) - ihl}')
    if csum:
        problems.append(f'UDP checksum {csum:#06x}, not 0')
    if sport < 0xc000:
        problems.append(f'UDP source port {sport:#06x}')
    bth = ip[ihl + UDP_LEN:]
    if len(bth) < 16:
        return src, None, problems + ['too short for a BTH and an ICRC']
    if bth[1] & 0xf:
        problems.append(f'BTH transport version {bth[1] & 0xf}')
    if not icrc_ok(ip):
        problems.append('bad ICRC')
    return src, bth[0], problems


def main():
    path, want = sys.argv[1], [ipaddress.ip_address(a) for a in sys.argv[2:]]
    count = collections.Counter()
    opcodes = collections.defaultdict(set)
    bad = []
    for num, frame in frames(path):
        (etype,) = struct.unpack('>H', frame[12:14])
        if etype not in (ETH_P_IP, ETH_P_IPV6):
            continue
        ip = frame[ETH_LEN:]
        ihl = 20 if etype == ETH_P_IP else 40
        proto = ip[9] if etype == ETH_P_IP else ip[6]
        # Ethernet pads short frames: cut the IP packet to its own length.
        if etype == ETH_P_IP:
            ip = ip[:struct.unpack('>H', ip[2:4])[0]]
        else:
            ip = ip[:40 + struct.unpack('>H', ip[4:6])[0]]
        if proto != 17 or len(ip) < ihl + UDP_LEN:
            continue
        if struct.unpack('>H', ip[ihl + 2:ihl + 4])[0] != ROCE_PORT:
            continue
        src, opcode, problems = check(ip)
        count[src] += 1
        if opcode is not None:
            opcodes[src].add(opcode)
        bad.extend(f'frame {num} from {src}: {p}' for p in problems)
    for src in sorted(count, key=str):
        ops = ' '.join(f'{o:#04x}' for o in sorted(opcodes[src]))
        print(f'{src}: {count[src]} RoCEv2 packets, opcodes {ops}')
    missing = [a for a in want if not count[a]]
    for a in missing:
        print(f'{a}: no RoCEv2 packet captured')
    for line in bad[:20]:
        print(line)
    if len(bad) > 20:
        print(f'... {len(bad) - 20} more problems')
    sys.exit(1 if bad or missing else 0)


if __name__ == '__main__':
    main()
