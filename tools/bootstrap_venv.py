"""Create the project's virtualenv with a working pip, using only the standard library.

Run by `make` with the system python3. Debian's python3 lacks ensurepip unless python3-venv
is installed, so `python3 -m venv` fails there; this falls back to a venv without pip and
installs pip from PyPI into it.
"""

import argparse
import importlib.util
import json
import pathlib
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import venv

PYPI_PIP = 'https://pypi.org/pypi/pip/json'


def _pip_wheel_url() -> str:
    """URL of the newest pip wheel on PyPI (what get-pip.py would install)."""
    with urllib.request.urlopen(PYPI_PIP, timeout=60) as response:
        release = json.load(response)
        base = response.geturl()
    for item in release['urls']:
        if item['packagetype'] == 'bdist_wheel':
            # NOTE(mirrors): some PyPI mirrors answer with URLs relative to this document.
            return urllib.parse.urljoin(base, item['url'])
    raise RuntimeError('PyPI lists no wheel for pip')


def install_pip(python: pathlib.Path) -> None:
    """Install pip into a venv that has none by running pip from its own wheel.

    NOTE(get-pip): get-pip.py lives on a host these machines cannot reach, while PyPI is
    reachable; a pip wheel is itself runnable (`python pip.whl/pip install pip.whl`).
    """
    url = _pip_wheel_url()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = pathlib.Path(tmp) / url.rsplit('/', 1)[-1]
        with urllib.request.urlopen(url, timeout=120) as response:
            wheel.write_bytes(response.read())
        subprocess.run([str(python), f'{wheel}/pip', 'install', '--no-index', str(wheel)],
                       check=True)


def create(target: pathlib.Path, *, use_ensurepip: bool = True) -> None:
    """Make *target* a venv with pip: ensurepip when the interpreter has it, PyPI otherwise."""
    if use_ensurepip and importlib.util.find_spec('ensurepip') is not None:
        venv.EnvBuilder(with_pip=True, clear=True).create(target)
        return
    print('ensurepip is not available (Debian without python3-venv?): creating the venv '
          'without pip and installing pip from PyPI', file=sys.stderr)
    venv.EnvBuilder(with_pip=False, clear=True).create(target)
    install_pip(target / 'bin' / 'python')


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('target', type=pathlib.Path, help='directory of the venv')
    parser.add_argument('--without-ensurepip', action='store_true',
                        help='take the PyPI route even where ensurepip exists (to test it)')
    args = parser.parse_args(argv)
    create(args.target, use_ensurepip=not args.without_ensurepip)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
