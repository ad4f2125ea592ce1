"""Make a venv of its own for a service the tests run (Keystone, tempest) from a requirements file.

`python3 tools/service_venv.py .venv-keystone tools/keystone/requirements.txt` creates the venv
(with tools/bootstrap_venv.py, so it works where python3 lacks ensurepip) and installs the
requirements; run again, it does nothing until the requirements file changes. Their
dependencies (oslo.*, SQLAlchemy, keystonemiddleware pins) would otherwise clash with
cinderlike's venv.
"""

import argparse
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import bootstrap_venv  # noqa: E402

STAMP = '.requirements-installed'


def ensure(target: pathlib.Path, requirements: pathlib.Path) -> pathlib.Path:
    """The venv at *target* with *requirements* installed; its bin directory is returned.

    NOTE(stamp): the stamp holds the requirements text installed last, so a changed pin
    reinstalls while an unchanged one costs nothing (mtimes differ in every fresh clone).
    """
    wanted = requirements.read_text()
    stamp = target / STAMP
    if stamp.exists() and stamp.read_text() == wanted:
        return target / 'bin'
    if not (target / 'bin' / 'python').exists():
        bootstrap_venv.create(target)
    subprocess.run([str(target / 'bin' / 'python'), '-m', 'pip', 'install', '-q',
                    '-r', str(requirements)], check=True)
    stamp.write_text(wanted)
    return target / 'bin'


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('target', type=pathlib.Path, help='directory of the venv')
    parser.add_argument('requirements', type=pathlib.Path, help='pip requirements file')
    args = parser.parse_args(argv)
    ensure(args.target, args.requirements)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
