"""Chaos: mixed operations under kill -9 of daemons and restarts of RabbitMQ and PostgreSQL.

    .venv/bin/python benchmarks/chaos.py [--duration 300] [--seed 1] [--clients 4]
        [--kill-interval 20] [--outage 5] [--service-down-time 10] [--keep-logs]

Starts a private RabbitMQ node and a private PostgreSQL cluster (initdb) on ports of their
own, and on them the four daemons (API with 2 workers, scheduler, one volume service with
two `file` backends, backup service on posix). Client threads create, clone, extend,
snapshot, back up, attach, detach and delete for --duration seconds while a daemon chosen at
random is killed with kill -9 about every --kill-interval seconds (restarted 2-5 s later),
and RabbitMQ and PostgreSQL are each stopped once for --outage seconds; the schedule comes
from --seed. Once everything has settled (at most 2 × service_down_time) it prints one JSON
line (tests/functional/e2e/chaos.py result()) and exits 1 unless stuck_transitional,
quota_drift, capacity_drift, unfinished and bad_5xx are all 0. The machine's shared
servers are never touched; everything is removed afterwards.
"""

import argparse
import dataclasses
import json
import pathlib
import shutil
import sys
import tempfile

import deployment  # benchmarks/deployment.py, beside this script (it puts the root on sys.path)

from tests.functional.e2e import chaos


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = chaos.Options()
    for field in dataclasses.fields(chaos.Options):
        flag = f"--{field.name.replace('_', '-')}"
        if isinstance(field.default, bool):
            parser.add_argument(flag, action='store_true')
        else:
            parser.add_argument(flag, type=type(field.default), default=field.default)
    parser.add_argument('--keep-logs', action='store_true',
                        help='keep the work directory (config, daemon logs) and print it')
    args = parser.parse_args()
    options = chaos.Options(**{f.name: getattr(args, f.name)
                               for f in dataclasses.fields(defaults)})
    deployment.stop_on_sigterm()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix='cl-chaos-'))
    try:
        result = chaos.run(workdir, options)
    finally:
        if args.keep_logs:
            print(f'logs kept in {workdir}', file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result), flush=True)
    sys.exit(0 if chaos.passed(result) else 1)


if __name__ == '__main__':
    main()
