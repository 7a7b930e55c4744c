"""PEP 517 build backend of the geno package that needs setuptools only.

Debian 12's `python3 -m venv` gives pip and setuptools but not the `wheel`
package, which setuptools' own backend (before setuptools 70.1) needs to
make a wheel; nothing may be downloaded. So the extension is compiled by
setuptools (``setup.py build_ext``, which also builds libgeno.a with CMake)
and this module packs the wheel itself: a zip of the package, the built
extension and the .dist-info files the wheel format (PEP 427) asks for.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _project() -> dict[str, str]:
    """name, version, description and requires-python from pyproject.toml's [project]."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"', section, re.M))


def _dist_name(p: dict[str, str]) -> str:
    return f"{p['name'].replace('-', '_')}-{p['version']}"


def _tag() -> str:
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{plat}"


def _write_dist_info(directory: str) -> str:
    p = _project()
    info = os.path.join(directory, _dist_name(p) + ".dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {p['name']}\nVersion: {p['version']}\n"
                f"Summary: {p.get('description', '')}\nRequires-Python: {p.get('requires-python', '')}\n")
    with open(os.path.join(info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(f"Wheel-Version: 1.0\nGenerator: geno build_backend\nRoot-Is-Purelib: false\nTag: {_tag()}\n")
    return os.path.basename(info)


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "lib")
        subprocess.check_call([sys.executable, "setup.py", "build_ext", "--build-lib", lib], cwd=HERE)
        for name in os.listdir(os.path.join(HERE, "geno")):
            if name.endswith((".py", ".pyi")) or name == "py.typed":
                shutil.copy(os.path.join(HERE, "geno", name), os.path.join(lib, "geno", name))
        info = _write_dist_info(lib)
        wheel = f"{_dist_name(_project())}-{_tag()}.whl"
        records = []
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
            for root, _, files in sorted(os.walk(lib)):
                for name in sorted(files):
                    path = os.path.join(root, name)
                    arc = os.path.relpath(path, lib)
                    with open(path, "rb") as f:
                        data = f.read()
                    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    records.append(f"{arc},sha256={digest},{len(data)}")
                    z.write(path, arc)
            records.append(f"{info}/RECORD,,")
            z.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    from setuptools import build_meta

    return build_meta.build_sdist(sdist_directory, config_settings)
