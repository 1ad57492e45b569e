#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""A barrier between the two guests of vm/run-pair.sh, over their link.

    wire_sync.py a|b PEER_IP TAG [SECONDS]

Guest b listens on TCP port 18700, guest a connects to it (retrying
while b is not there yet); each sends TAG and reads the other's.  Both
return once both have reached the barrier named TAG.

Exit status: 0 when the tags match, 1 when the peer waits at another
barrier (the two scripts have fallen out of step), 2 when the peer did
not come within SECONDS (default 600).
"""
import socket
import sys
import time

PORT = 18700


def exchange(sock, tag):
    """Send our tag, return the peer's (one line each)."""
    sock.sendall(tag.encode() + b'\n')
    got = b''
    while not got.endswith(b'\n'):
        chunk = sock.recv(256)
        if not chunk:
            raise ConnectionError('peer closed the barrier connection')
        got += chunk
    return got.decode().strip()


def serve(tag, deadline):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as ls:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(('', PORT))
        ls.listen(1)
        ls.settimeout(max(deadline - time.monotonic(), 1))
        conn, _ = ls.accept()
        with conn:
            conn.settimeout(30)
            return exchange(conn, tag)


def connect(peer, tag, deadline):
    while True:
        try:
            with socket.create_connection((peer, PORT), timeout=5) as s:
                s.settimeout(30)
                return exchange(s, tag)
        except (ConnectionRefusedError, socket.timeout, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ('a', 'b'):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    role, peer, tag = sys.argv[1:4]
    secs = float(sys.argv[4]) if len(sys.argv) == 5 else 600.0
    deadline = time.monotonic() + secs
    try:
        got = serve(tag, deadline) if role == 'b' else connect(peer, tag, deadline)
    except (OSError, ConnectionError) as e:
        print(f'wire_sync: barrier "{tag}": {e}', file=sys.stderr)
        return 2
    if got != tag:
        print(f'wire_sync: at barrier "{tag}", the peer is at "{got}"', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
