# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""A hostile responder: forge NAKs from its own address for a while.

usage: python3 roce_nak.py DEV SRC_IP DST_IP seq|rnr|ack|behind SECS QPN_MAP
                          [GAP_MS]

Run in the responder's namespace (t-liveness.sh).  It watches the RC
requests that arrive on DEV (an AF_PACKET socket, so the responder still
gets them) and, for SECS seconds, answers some of them from SRC_IP, the
responder's own address, to DST_IP:

  seq  a sequence NAK (PSN sequence error) naming the request's PSN: the
       requester goes back and sends again from there;
  rnr  an RNR NAK naming the request's PSN, with a random timer field
       (0 to 31: up to 655 ms): the requester waits, then sends again;
  ack  an ACK naming the PSN before the first request it saw on that QP,
       again and again: a peer that keeps answering and never accepts
       anything new (with the responder gone, t-liveness.sh), whose
       answers must not give the requester its retries back.
  behind  a responder left behind by a lie: it stands at the first PSN
       it saw on the QP, answers each far probe (an RDMA WRITE of
       nothing, half the PSN space less two behind the newest request;
       see rxc_req_far_probe()) as IBA has a duplicate answered, with an ACK
       of the PSN before the one it stands at, and drops the rest.  It
       checks each probe's PSN and length, and counts the probes.

It says "roce_nak: listening" once it watches (python takes seconds to
start on a busy guest).
The request's PSN, not an older one: a NAK acknowledges everything
before the PSN it names, and the responder has received all that as a
rule (a veth pair keeps order), so the forgery makes the requester
repeat work.  Not always: a packet the requester failed to send (its
send_errors) never arrives, and a NAK past it acknowledges what the
responder never got, a lie a hostile peer may tell
(Documentation/liveness.rst, "A responder left behind").  QPN_MAP says which requester QP each responder QP talks
to, "SRV:CLI,SRV:CLI" in hex.  At most one NAK per QP every GAP_MS
(default 20) milliseconds, so that the requester still moves between
them.  Prints how many it sent.
"""
import random
import socket
import struct
import sys
import time

from roce_icrc import ROCE_PORT, icrc

ETH_P_IP = 0x0800
# RC request opcodes: SEND, RDMA WRITE and READ request, atomics.
RC_REQUESTS = set(range(0x00, 0x0d)) | {0x13, 0x14}
ACKNOWLEDGE = 0x11
WRITE_ONLY = 0x0a
# A far probe's UDP payload: BTH, RETH, ICRC; its PSN half the PSN
# space less one before the next PSN to send, so this far behind the
# newest request sent.
FAR_PROBE_LEN = 12 + 16 + 4
FAR_BEHIND = (1 << 23) - 2
NEAR = 1 << 22


def psn_behind(newest, psn):
    # How far @psn lies before @newest, in the 24-bit PSN space.
    return (newest - psn) & 0xffffff


def nak(src, dst, qpn, psn, syndrome):
    # BTH: ACKNOWLEDGE, P_Key 0xffff; AETH: the syndrome, MSN 0.
    bth = struct.pack('>BBHII', ACKNOWLEDGE, 0, 0xffff, qpn & 0xffffff,
                      psn & 0xffffff)
    payload = bth + struct.pack('>I', syndrome << 24) + b'\0' * 4
    udp = struct.pack('>HHHH', 0xc000, ROCE_PORT, 8 + len(payload), 0)
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp) + len(payload),
                     0x4321, 0x4000, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    pkt = (ip + udp + payload)[:-4]
    return pkt + struct.pack('<I', icrc(pkt))


def main():
    dev, src, dst, kind, secs, qpn_map = sys.argv[1:7]
    gap = (int(sys.argv[7]) if len(sys.argv) > 7 else 20) / 1000.0
    peers = {}
    for pair in qpn_map.split(','):
        srv, cli = pair.split(':')
        peers[int(srv, 16)] = int(cli, 16)
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                          socket.htons(ETH_P_IP))
    sniff.bind((dev, ETH_P_IP))
    sniff.settimeout(0.1)
    out = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    out.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    rng = random.Random(7)
    print('roce_nak: listening', flush=True)
    end = time.monotonic() + float(secs)
    last = {}
    first = {}
    newest = {}
    sent = 0
    odd = 0
    while time.monotonic() < end:
        try:
            pkt, addr = sniff.recvfrom(2048)
        except socket.timeout:
            continue
        # Incoming IPv4 UDP to the RoCE port, a BTH behind it.
        if addr[2] == socket.PACKET_OUTGOING or len(pkt) < 40:
            continue
        if pkt[9] != socket.IPPROTO_UDP or pkt[0] != 0x45:
            continue
        if struct.unpack('>H', pkt[22:24])[0] != ROCE_PORT:
            continue
        opcode = pkt[28]
        qpn = struct.unpack('>I', pkt[32:36])[0] & 0xffffff
        psn = struct.unpack('>I', pkt[36:40])[0] & 0xffffff
        if opcode not in RC_REQUESTS or qpn not in peers:
            continue
        if kind == 'behind':
            if opcode == WRITE_ONLY and \
                    struct.unpack('>H', pkt[24:26])[0] == 8 + FAR_PROBE_LEN:
                if qpn not in newest:
                    continue    # nothing seen to stand at yet
                far = psn_behind(newest[qpn], psn)
                if not pkt[36] & 0x80 or far != FAR_BEHIND:
                    odd += 1
                    continue
                ack = (first[qpn] - 1) & 0xffffff
                out.sendto(nak(src, dst, peers[qpn], ack, 0x1f), (dst, 0))
                sent += 1
                continue
            first.setdefault(qpn, psn)
            if psn_behind(psn, newest.get(qpn, psn)) < NEAR:
                newest[qpn] = psn
            continue
        now = time.monotonic()
        if now - last.get(qpn, 0) < gap:
            continue
        last[qpn] = now
        if kind == 'seq':
            syndrome = 0x60
        elif kind == 'ack':
            syndrome = 0x1f
            psn = (first.setdefault(qpn, psn) - 1) & 0xffffff
        else:
            syndrome = 0x20 | rng.randrange(32)
        out.sendto(nak(src, dst, peers[qpn], psn, syndrome), (dst, 0))
        sent += 1
    if kind == 'behind':
        print('roce_nak: %d far probes answered, %d malformed' % (sent, odd))
        return
    print('roce_nak: %d %s %s sent' % (sent, kind,
                                       'ACKs' if kind == 'ack' else 'NAKs'))


if __name__ == '__main__':
    main()
