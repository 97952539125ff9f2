"""tests/engine/run: start the local Engine in the foreground."""
import argparse
import ipaddress
import json
import signal
import sys
import threading

import yaml

from . import seed
from .engine import Engine
from .server import EngineServer


def parse_listen(value):
    host, sep, port = value.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError("--listen wants HOST:PORT, got %r" % value)
    host = host.strip("[]")
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise argparse.ArgumentTypeError("--listen %s: the local Engine listens on loopback addresses only "
                                         "(127.0.0.0/8, ::1)" % value)
    return ("127.0.0.1" if host == "localhost" else host), int(port)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tests/engine/run", description="The local Anexia Engine emulator.")
    parser.add_argument("--listen", type=parse_listen, default=("127.0.0.1", 8765), help="HOST:PORT on loopback")
    parser.add_argument("--token", required=True, help="the API token clients must send")
    parser.add_argument("--state", help="SQLite file to keep state in (default: memory)")
    parser.add_argument("--seed", help="YAML file with load balancers and IPAM prefixes to create")
    parser.add_argument("--deploy-delay", type=float, default=0.0, help="seconds objects stay NewlyCreated")
    parser.add_argument("--update-delay", type=float, default=0.0, help="seconds objects stay Updating")
    parser.add_argument("--delete-delay", type=float, default=0.0, help="seconds deleted objects stay readable")
    parser.add_argument("--faults", help="JSON or YAML file with initial fault injection")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    faults = None
    if args.faults:
        with open(args.faults) as handle:
            faults = yaml.safe_load(handle) if not args.faults.endswith(".json") else json.load(handle)
    engine = Engine(args.state, args.deploy_delay, args.update_delay, args.delete_delay, faults)
    if args.seed:
        seed.load(engine, args.seed)
    server = EngineServer(args.listen, engine, args.token, seed_path=args.seed, quiet=not args.verbose)
    host, port = server.server_address[:2]
    shown = "[%s]" % host if ":" in host else host
    print("local engine listening on http://%s:%d" % (shown, port), flush=True)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
