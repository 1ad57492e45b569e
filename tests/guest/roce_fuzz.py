# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Mutate live RoCEv2 packets and inject them at a device under test.

usage: python3 roce_fuzz.py --iface IF --target IP --peer IP
                            [--seed N] [--count N] [--seconds S]
                            [--stop-file PATH]

Captures the RoCEv2 packets (UDP port 4791, IPv4) that cross IF, keeps
the latest 64, and sends mutated copies to TARGET until COUNT packets
went out, SECONDS passed, or STOP-FILE exists.  Every mutation is one
that a correct receiver must drop without effect, whatever the packet
says:

  spoof     a field of the BTH or an extension header changed, the ICRC
            recomputed, sent from an address that is not PEER: an RC or
            UC QP must refuse it as not from its peer
  jitter    PSN or QPN moved a little, ICRC recomputed, from a spoofed
            address
  icrc      a byte anywhere after the UDP header flipped, sent from PEER
            with the old ICRC: the ICRC check must drop it
  truncate  cut short, from PEER: the length checks must drop it
  udplen    the UDP length made wrong, from PEER

The mutations follow the seed, printed first, so a failure reproduces
with the same captured traffic.  Prints a count per mutation at the end.
The ICRC is computed independently of any driver (roce_icrc.py).
"""
import argparse
import os
import random
import socket
import struct
import time

from roce_icrc import ROCE_PORT, icrc

ETH_P_IP = 0x0800
IP_LEN = 20
UDP_LEN = 8
BTH_LEN = 12
POOL = 64
BURST = 16     # mutations sent per look at the captured traffic


def capture_socket(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                      socket.htons(ETH_P_IP))
    s.bind((iface, 0))
    s.setblocking(False)
    return s


def is_roce(pkt):
    """An option-less IPv4 UDP datagram to port 4791 with room for a BTH."""
    return (len(pkt) >= IP_LEN + UDP_LEN + BTH_LEN + 4 and
            pkt[0] == 0x45 and pkt[9] == socket.IPPROTO_UDP and
            struct.unpack('>H', pkt[22:24])[0] == ROCE_PORT)


def with_addrs(pkt, src, dst):
    return (pkt[:12] + socket.inet_aton(src) + socket.inet_aton(dst) +
            pkt[20:])


def reseal(pkt):
    """The packet with its ICRC recomputed over what it now says."""
    return pkt[:-4] + struct.pack('<I', icrc(pkt[:-4]))


def spoofed(rng):
    return '10.77.%d.%d' % (rng.randrange(0, 255), rng.randrange(100, 250))


def mutate(pkt, rng, target, peer):
    """A (kind, packet) pair: @pkt changed so that it must be dropped."""
    kind = rng.choice(('spoof', 'jitter', 'icrc', 'truncate', 'udplen'))
    b = bytearray(pkt)
    hdr = IP_LEN + UDP_LEN
    if kind == 'spoof':
        # The BTH and whatever extension headers follow it.
        end = min(len(b) - 4, hdr + BTH_LEN + 28)
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(hdr, end)] ^= 1 << rng.randrange(8)
        return kind, reseal(with_addrs(bytes(b), spoofed(rng), target))
    if kind == 'jitter':
        psn = struct.unpack('>I', b[hdr + 8:hdr + 12])[0]
        qpn = struct.unpack('>I', b[hdr + 4:hdr + 8])[0]
        psn = (psn & 0xff000000) | ((psn + rng.randrange(-4, 5)) & 0xffffff)
        qpn = (qpn & 0xff000000) | ((qpn + rng.randrange(-2, 3)) & 0xffffff)
        b[hdr + 4:hdr + 12] = struct.pack('>II', qpn, psn)
        return kind, reseal(with_addrs(bytes(b), spoofed(rng), target))
    b = bytearray(with_addrs(bytes(b), peer, target))
    if kind == 'icrc':
        # Not the BTH's FECN/BECN byte: the ICRC masks it on purpose.
        pos = rng.randrange(hdr, len(b) - 1)
        pos += pos >= hdr + 4
        b[pos] ^= 1 << rng.randrange(8)
        return kind, bytes(b)
    if kind == 'truncate':
        cut = rng.randrange(hdr, len(b))
        if rng.random() < 0.5:
            # Say so in the UDP length too, so that only the ICRC and the
            # header lengths are left to notice.
            b[24:26] = struct.pack('>H', cut - IP_LEN)
        return kind, bytes(b[:cut])
    # udplen: longer than the datagram, or too short for a BTH and ICRC.
    real = len(b) - IP_LEN
    lie = rng.choice((real + rng.randrange(1, 64),
                      rng.randrange(0, UDP_LEN + BTH_LEN + 4)))
    b[24:26] = struct.pack('>H', lie & 0xffff)
    return kind, bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--iface', required=True)
    ap.add_argument('--target', required=True)
    ap.add_argument('--peer', required=True)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--stop-file', default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4),
                                                           'little')
    print('roce_fuzz: seed %d' % seed, flush=True)
    rng = random.Random(seed)

    cap = capture_socket(a.iface)
    out = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    out.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    pool, sent, counts = [], 0, {}
    deadline = time.monotonic() + a.seconds
    while sent < a.count and time.monotonic() < deadline:
        if a.stop_file and os.path.exists(a.stop_file):
            break
        try:
            while True:
                pkt = cap.recv(65535)
                if is_roce(pkt):
                    pool.append(pkt)
                    del pool[:-POOL]
        except BlockingIOError:
            pass
        if not pool:
            time.sleep(0.01)
            continue
        for _ in range(min(BURST, a.count - sent)):
            kind, pkt = mutate(rng.choice(pool), rng, a.target, a.peer)
            try:
                out.sendto(pkt, (a.target, 0))
            except OSError as e:
                # The kernel refuses some lengths outright: a drop too.
                kind += '-refused-' + e.__class__.__name__
            counts[kind] = counts.get(kind, 0) + 1
            sent += 1
    print('roce_fuzz: sent %d: %s' % (sent, ' '.join(
        '%s=%d' % kv for kv in sorted(counts.items()))), flush=True)


if __name__ == '__main__':
    main()
