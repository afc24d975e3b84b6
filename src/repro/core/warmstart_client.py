"""The `python` that jobs find first on PATH while a warm server runs (repro.core.warmstart):
stdlib only, since it runs without site-packages; copied into the shim the server writes."""

import json
import os
import signal
import socket
import struct
import sys


def recv_exact(conn, n):
    """n bytes from the socket, or None if the other side closed first (the server uses it too)."""
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def _real(python, args):
    os.execv(python, [python, *args])


def main(python, sock, hashseed):
    """Run `python ARGS` as the server's fork where it can, else as the real interpreter."""
    args = sys.argv[1:]
    if (len(args) < 2 or args[0] != "-m" or not args[1].startswith("repro.")
            or os.environ.get("REPRO_WARMSTART") != sock
            or os.environ.get("PYTHONHASHSEED") != hashseed):
        _real(python, args)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(sock)
    except OSError:  # not serving (not ready yet, or gone): run as usual
        conn.close()
        _real(python, args)
    request = json.dumps({"argv": args[1:], "cwd": os.getcwd(), "env": dict(os.environ)})
    try:
        socket.send_fds(conn, [b"J"], [0, 1, 2])
        data = request.encode()
        conn.sendall(struct.pack("!I", len(data)) + data)
        raw = recv_exact(conn, 8)
    except OSError:
        raw = None
    if raw is None:  # the server did not take it: nothing ran yet
        conn.close()
        _real(python, args)
    (pid,) = struct.unpack("!q", raw)

    def forward(sig, _frame):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, forward)
    while True:
        try:
            raw = recv_exact(conn, 4)
            break
        except InterruptedError:
            continue
    if raw is None:  # the job died without reporting (killed by a signal)
        sys.exit(1)
    sys.exit(struct.unpack("!i", raw)[0])
