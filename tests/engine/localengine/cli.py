"""tests/engine/run: start the local Engine in the foreground (options in README.md)."""
import argparse
import ipaddress
import os
import shutil
import signal
import sys
import threading

import yaml

from . import seed
from .engine import Engine
from .faults import FaultError
from .options import OPTIONS, flag
from .haproxy import HAProxyError, HAProxyMode
from .knot import DnsMode, KnotError
from .seed import SeedError
from .server import EngineServer
from .store import StoreError


def listen_address(value):
    """(host, port) from HOST:PORT or [V6]:PORT; loopback only, since the admin API has no token."""
    host, sep, port = value.rpartition(":")
    host = "127.0.0.1" if host == "localhost" else host.strip("[]")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError("wants HOST:PORT, got %r" % value)
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise argparse.ArgumentTypeError("%s: the local Engine listens on loopback addresses only (127.0.0.0/8, ::1)"
                                         % value)
    return host, int(port)


def seconds(value):
    number = float(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must be >= 0, got %s" % value)
    return number


def parser():
    p = argparse.ArgumentParser(prog="tests/engine/run", description="The local Anexia Engine emulator.")
    p.add_argument("--listen", type=listen_address, default=("127.0.0.1", 8765),
                   help="HOST:PORT on loopback (port 0: any free port); default 127.0.0.1:8765")
    p.add_argument("--token", required=True, help="the API token clients must send (Authorization: Token ...)")
    p.add_argument("--state", help="SQLite file to keep state in across restarts (default: in memory)")
    p.add_argument("--seed", help="YAML file with load balancers, IPAM prefixes and CloudDNS zones to create if missing")
    p.add_argument("--deploy-delay", type=seconds, default=0.0, help="seconds new objects stay pending")
    p.add_argument("--update-delay", type=seconds, default=0.0, help="seconds updated objects stay Updating")
    p.add_argument("--delete-delay", type=seconds, default=0.0, help="seconds deleted objects stay readable")
    p.add_argument("--faults", help="JSON or YAML file with the initial fault injection")
    p.add_argument("--quiet", action="store_true", help="do not log each request to stderr")
    for name, (choices, text) in OPTIONS.items():   # strict by default, lenient by choice (README.md)
        p.add_argument(flag(name), choices=choices, default=choices[0], help="%s (default %s)" % (text, choices[0]))
    p.add_argument("--haproxy", action="store_true",
                   help="render each load balancer to HAProxy and run it, so binds on loopback carry traffic")
    p.add_argument("--haproxy-bin", default=shutil.which("haproxy") or "/usr/sbin/haproxy",
                   help="the HAProxy binary for --haproxy (default: haproxy on PATH, else /usr/sbin/haproxy)")
    p.add_argument("--haproxy-dir", help="work dir for --haproxy's configuration and sockets (default: a temp dir)")
    p.add_argument("--dns", type=listen_address, metavar="HOST:PORT",
                   help="serve the CloudDNS zones with knot on this loopback address, UDP and TCP (port 0: any free port)")
    p.add_argument("--dns-deploy-delay", type=seconds, default=0.0,
                   help="seconds a CloudDNS revision takes to validate and deploy (is_editable false meanwhile)")
    p.add_argument("--knot-bin", default=shutil.which("knotd") or "/usr/sbin/knotd",
                   help="knotd for --dns (default: knotd on PATH, else /usr/sbin/knotd); knotc is taken from its directory")
    p.add_argument("--dns-dir", help="work dir for --dns's configuration, zone files and socket (default: a temp dir)")
    return p


def knotc_of(knotd):
    """knotc beside knotd (Debian installs both in /usr/sbin), else the one on PATH."""
    beside = os.path.join(os.path.dirname(knotd), "knotc")
    return beside if os.path.isfile(beside) else shutil.which("knotc") or beside


def main(argv=None):
    args = parser().parse_args(argv)
    if not args.token:
        parser().error("--token must not be empty")
    engine = None
    try:
        faults = None
        if args.faults:
            with open(args.faults) as handle:
                faults = yaml.safe_load(handle) or {}   # YAML reads JSON too
        engine = Engine(args.state, args.deploy_delay, args.update_delay, args.delete_delay, faults,
                        dict((name, getattr(args, name)) for name in OPTIONS), dns_deploy_delay=args.dns_deploy_delay)
        if args.seed:
            seed.load(engine, args.seed)
        if args.haproxy:
            engine.haproxy = HAProxyMode(engine, args.haproxy_bin, args.haproxy_dir).start()
        if args.dns:
            # assigned before it starts, so a start that fails still removes its temp dir below
            engine.dns = DnsMode(engine, args.dns[0], args.dns[1], args.knot_bin, knotc_of(args.knot_bin), args.dns_dir)
            engine.dns.start()
        server = EngineServer(args.listen, engine, args.token, seed_path=args.seed, quiet=args.quiet)
    except (FaultError, SeedError, StoreError, HAProxyError, KnotError, OSError, yaml.YAMLError) as exc:
        if engine is not None and engine.haproxy:
            engine.haproxy.stop()
        if engine is not None and engine.dns:
            engine.dns.stop()
        print("tests/engine/run: error: %s" % exc, file=sys.stderr)
        return 2

    def stop(_signum, _frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.server_address[:2]
    print("local engine listening on http://%s:%d" % ("[%s]" % host if ":" in host else host, port), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if engine.haproxy:
            engine.haproxy.stop()
        if engine.dns:
            engine.dns.stop()
        engine.close()
    return 0
