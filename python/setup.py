"""Builds geno._geno, the C extension of the geno package.

The extension is linked statically to libgeno. By default libgeno.a is
built here with CMake from the repository that holds this directory (the
package is built in place, so ../CMakeLists.txt is reachable); set
GENO_LIBGENO_DIR to a CMake build directory that already holds libgeno.a
and the `geno` executable (as `make python` does) to skip that. The `geno`
executable goes into the package as geno/bin/geno, for geno.server (the
hosted service is geno-c's C server). Nothing is downloaded.
"""
import os
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# libgeno's own, then those of the hosted service's pipeline (src/server,
# src/host: geno.server.create_handler): libmicrohttpd, Jansson; libcurl is
# opened with dlopen on first use.
SYSTEM_LIBS = ["gmp", "libutf8proc", "libpcre2-8", "libseccomp", "libmicrohttpd", "jansson"]
STATIC_LIBS = ["libgeno_server.a", "libgeno_host.a", "libgeno.a"]


def system_link_args():
    """The shared libraries libgeno needs, as pkg-config names them."""
    try:
        out = subprocess.run(["pkg-config", "--libs", *SYSTEM_LIBS], check=True,
                             capture_output=True, text=True).stdout
        return shlex.split(out) + ["-lm", "-lpthread", "-ldl"]
    except (OSError, subprocess.CalledProcessError):
        return ["-lgmp", "-lutf8proc", "-lpcre2-8", "-lseccomp", "-lmicrohttpd", "-ljansson", "-lm", "-lpthread",
                "-ldl"]


class BuildWithLibgeno(build_ext):
    """build_ext that first finds or builds libgeno.a."""

    def libgeno(self):
        """The CMake build directory holding libgeno.a and geno."""
        given = os.environ.get("GENO_LIBGENO_DIR")
        if given:
            build = os.path.abspath(given)
            for name in (*STATIC_LIBS, "geno"):
                if not os.path.isfile(os.path.join(build, name)):
                    raise RuntimeError(f"GENO_LIBGENO_DIR has no {name}: {build}")
            return build
        if not os.path.isfile(os.path.join(ROOT, "CMakeLists.txt")):
            raise RuntimeError("building geno needs the geno-c repository around python/ "
                               "(or GENO_LIBGENO_DIR pointing at a build with libgeno.a)")
        out = os.path.abspath(os.path.join(self.build_temp, "libgeno"))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", out, "-DCMAKE_BUILD_TYPE=Release"])
        subprocess.check_call(["cmake", "--build", out, "--target", "geno_static", "--target", "geno_server",
                               "--target", "geno_host", "--target", "geno",
                               "-j", os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)])
        return out

    def build_extensions(self):
        build = self.libgeno()
        libs = [os.path.join(build, name) for name in STATIC_LIBS]
        for ext in self.extensions:
            ext.extra_objects = libs
            ext.depends = libs
        super().build_extensions()
        bindir = os.path.join(self.build_lib, "geno", "bin")
        os.makedirs(bindir, exist_ok=True)
        shutil.copy2(os.path.join(build, "geno"), os.path.join(bindir, "geno"))


# Built against a given libgeno build: keep the intermediate files there
# too, so builds of several trees never share python/build.
OPTIONS = {}
if os.environ.get("GENO_LIBGENO_DIR"):
    OPTIONS = {"build": {"build_base": os.path.join(os.path.abspath(os.environ["GENO_LIBGENO_DIR"]),
                                                    "python-build")}}

setup(
    options=OPTIONS,
    ext_modules=[
        Extension(
            "geno._geno",
            sources=["src/_geno.c"],
            include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src")],
            extra_compile_args=["-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
            extra_link_args=system_link_args(),
        )
    ],
    cmdclass={"build_ext": BuildWithLibgeno},
)
