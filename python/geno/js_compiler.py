"""The JavaScript back end (the reference's ``geno.js_compiler`` entry points).

:func:`compile_to_js` and :func:`compile_to_html` take the reference's
arguments and give its kinds of results, made by geno-c's back end
(``geno_compile_js_ex`` / ``geno_compile_html``): a script for Node
(``node out.js [--cap NAME]...``) or a standalone HTML page whose program
draws on ``<canvas id="geno-canvas">``. The output is geno-c's own
JavaScript (docs/compatibility.md, "The JavaScript back end"): it prints
what ``geno run`` prints, denies every capability not granted with
``--cap`` (Node) or ``globalThis.__GENO_CAPS`` (a page), and carries the
default limits of ``geno compile``.

Compilation is build-time and trusted work; the *output* runs code, so
serve it as the reference's SECURITY.md advises (CSP, sandboxed iframe).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from . import _geno
from .diagnostics import Diagnostic, _from_c

__all__ = ["JSCompileError", "compile_to_js", "compile_to_html"]


class JSCompileError(Exception):
    """A program that does not compile: it does not parse, type-check (for
    the target's profile), or uses something the back end lacks.

    ``str(error)`` is the first diagnostic as ``file:line:col: message``;
    ``diagnostics`` holds them all. (The reference raises its lexer's,
    parser's or type checker's own exception classes; all are Exceptions.)
    """

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        first = diagnostics[0] if diagnostics else None
        if first is None:
            text = "compilation failed"
        elif first.location is not None:
            loc = first.location
            text = f"{loc.filename}:{loc.line}:{loc.column}: {first.message}"
        else:
            text = first.message
        super().__init__(text)


def _check_args(source: Any, filename: Any, typecheck: Any) -> None:
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    if not isinstance(filename, str):
        raise TypeError(f"filename must be a str, not {type(filename).__name__}")
    if not isinstance(typecheck, bool):
        raise TypeError(f"typecheck must be a bool, not {type(typecheck).__name__}")


def _raise_on_failure(result: Any) -> None:
    if not result.ok:
        raise JSCompileError([_from_c(t) for t in result.diagnostics])


def compile_to_js(source: str, filename: str = "<stdin>", typecheck: bool = True, source_map: bool = False,
                  source_map_file: Optional[str] = None, esm: bool = False,
                  target_profile: Any = None) -> Union[str, Tuple[str, str]]:
    """Compile Geno source code to JavaScript for Node.

    Returns the script, or ``(js_code, source_map_json)`` when *source_map*
    is true (a Source Map V3 whose ``file`` is *source_map_file*, default
    ``"output.js"``; each line where a statement starts maps to it). With
    *esm* the script is an ES module exporting the program's functions.

    The program is always type-checked, for the ``node-cli`` profile:
    geno-c's back end compiles the typed program, so ``typecheck=False``
    (the reference's way to skip its checker) checks all the same.
    *target_profile* may be None, ``"node-cli"`` or an object whose
    ``target`` is ``"node-cli"``; the browser needs :func:`compile_to_html`.

    Raises :class:`JSCompileError` when the program does not compile,
    TypeError or ValueError for bad arguments.
    """
    _check_args(source, filename, typecheck)
    for name, value in (("source_map", source_map), ("esm", esm)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    if source_map_file is not None and not isinstance(source_map_file, str):
        raise TypeError(f"source_map_file must be a str or None, not {type(source_map_file).__name__}")
    profile = getattr(target_profile, "target", target_profile)
    if profile not in (None, "node-cli"):
        raise ValueError(f"compile_to_js targets the node-cli profile, not {profile!r} "
                         "(use compile_to_html for the browser)")
    result, js, smap, _ = _geno.compile_js(source, filename, esm, source_map, source_map_file or "output.js", False)
    _raise_on_failure(result)
    assert js is not None
    if source_map:
        assert smap is not None
        return js, smap
    return js


def compile_to_html(source: str, filename: str = "<stdin>", typecheck: bool = True, width: int = 800,
                    height: int = 600, title: str = "Geno App", source_map: bool = False) -> str:
    """Compile Geno source code to a self-contained HTML page with a canvas.

    The page holds the script inline, a ``width`` x ``height`` canvas (1 to
    16384 pixels each), ``title`` HTML-escaped, and a Content-Security-Policy
    meta tag. An app (``init``, ``update``, ``render`` without ``main``)
    draws every animation frame; a program with ``main`` runs once and
    prints to the console. The program is type-checked for the browser
    profile (``typecheck=False`` checks all the same, as in
    :func:`compile_to_js`).

    With *source_map*, the page's script ends with its Source Map V3 inline
    (a ``//# sourceMappingURL=data:application/json;...;base64,`` line,
    ``file`` "app.js", lines counted from the ``<script>`` element), as the
    reference's page does.

    Raises :class:`JSCompileError` when the program does not compile,
    TypeError or ValueError for bad arguments.
    """
    _check_args(source, filename, typecheck)
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        if not 1 <= value <= 16384:
            raise ValueError(f"{name} must be between 1 and 16384, not {value}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, not {type(title).__name__}")
    if not isinstance(source_map, bool):
        raise TypeError(f"source_map must be a bool, not {type(source_map).__name__}")
    result, page = _geno.compile_html(source, filename, title, width, height, source_map)
    _raise_on_failure(result)
    assert page is not None
    return page
