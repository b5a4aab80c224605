"""Kernels compiled only to be linked into their callers get no machine code of their own.

numba compiles a kernel called from compiled code (a *callee*) as a library of its own: it links
the callee's own callees into it, optimizes the whole linked module and generates its machine code,
then the caller links that module in, optimizes it all again and generates machine code again. In
a deep call graph (the rules core: `try_step` > `apply_action` > `run` > `_dispatch` > `event_proc`
> ...) every level repeats the work of every level below it: in the cold compile of `v1919 demo`
the callees' own module optimization and code generation took half the time (32 of 65 s), and that
code is never run, since the callers inline it.

Here a callee that one of this project's kernels compiles (`Dispatcher.get_call_template`) stops
after its functions are optimized one by one and its own callees are linked in: its library is
ready for linking, nothing more. Its entry point is a `Deferred` marker that is not put in the
dispatcher's table and not written to the disk cache. Only when Python itself calls the kernel
(or asks for its compile result) is its module optimized in full and compiled to machine code, and
then it is cached like any kernel. A kernel's machine code is therefore always the full
optimization of its whole module, as before; what goes is the work on code that no one runs.

The cost: a callee is not in the disk cache, so a process that compiles a new caller of an
uncached callee types it again (the callers that Python calls are cached as before, so a warm
start compiles nothing). `V1919_LINK_ONLY=0` turns this off (numba's behaviour, for comparison).
"""
from __future__ import annotations

import ctypes
import os

from numba.core import caching, codegen, cpu, dispatcher
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock

PROJECT_PACKAGES = ["v1919_env", "agents", "training"]     # kernels whose callees are linked only
ENABLED = os.environ.get("V1919_LINK_ONLY", "1") != "0"
_linking: list[bool] = []      # one entry per get_call_template in progress: compiling a project callee?
_pending_env: dict = {}        # env global name -> env of a kernel compiled for linking (see _set_envs)


class Deferred:
    """The entry point of a kernel compiled only for linking: no machine code yet. Never in a
    dispatcher's table: a call from Python compiles the kernel in full first (`_executable`)."""

    __slots__ = ("library", "fndesc", "env")

    def __init__(self, library, fndesc, env):
        self.library, self.fndesc, self.env = library, fndesc, env

    def __call__(self, *args, **kwargs):        # pragma: no cover - the dispatcher never calls it
        raise RuntimeError(f"{self.fndesc.qualname} was compiled for linking only")


def _set_envs(cg) -> None:
    """Point the env globals of inlined link-only kernels at their envs once a module that defines
    them is in the engine (numba sets a kernel's env when it adds the kernel's own module, which a
    link-only kernel does not have; the env serves its exceptions with dynamic messages)."""
    for name, env in list(_pending_env.items()):
        addr = cg._engine.get_global_value_address(name)
        if addr:
            (ctypes.c_void_p * 1).from_address(addr)[0] = ctypes.c_void_p(id(env))
            del _pending_env[name]


def install() -> None:
    """Patch numba (idempotent; see the module docstring)."""
    if not ENABLED or getattr(dispatcher.Dispatcher.get_call_template, "_v1919_link_only", False):
        return
    orig_template = dispatcher.Dispatcher.get_call_template
    orig_executable = cpu.CPUContext.get_executable
    orig_finalize = codegen.CPUCodeLibrary.finalize
    orig_compile = dispatcher.Dispatcher.compile
    orig_add_overload = dispatcher._DispatcherBase.add_overload
    orig_result = dispatcher.Dispatcher.get_compile_result
    orig_save = caching.Cache.save_overload
    orig_final = codegen.CPUCodeLibrary._finalize_final_module

    def get_call_template(self, args, kws):
        module = getattr(self.py_func, "__module__", "") or ""
        _linking.append(module.split(".")[0] in PROJECT_PACKAGES)
        try:
            return orig_template(self, args, kws)
        finally:
            _linking.pop()

    def get_executable(self, library, fndesc, env):
        if _linking and _linking[-1] and not library._finalized and isinstance(library, codegen.JITCodeLibrary):
            library._v1919_link_only = True
            _pending_env[self.get_env_name(fndesc)] = env
            return Deferred(library, fndesc, env)
        return orig_executable(self, library, fndesc, env)

    def finalize(self):
        if not getattr(self, "_v1919_link_only", False):
            return orig_finalize(self)
        require_global_compiler_lock()         # numba's finalize up to the linking, no module passes
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                if hasattr(self, "_reload_init"):      # numba >= 0.62: the parent inherits reload_init
                    self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def _finalize_final_module(self):
        orig_final(self)
        if _pending_env and isinstance(self, codegen.JITCodeLibrary):
            _set_envs(self.codegen)

    def add_overload(self, cres):
        if isinstance(cres.entry_point, Deferred):
            self.overloads[tuple(cres.signature.args)] = cres
            return
        orig_add_overload(self, cres)

    def save_overload(self, sig, data):
        if not isinstance(getattr(data, "entry_point", None), Deferred):
            orig_save(self, sig, data)

    def compile(self, sig):
        entry = orig_compile(self, sig)
        if isinstance(entry, Deferred) and not (_linking and _linking[-1]):
            return _executable(self, entry)
        return entry

    def get_compile_result(self, sig):
        cres = orig_result(self, sig)
        if isinstance(cres.entry_point, Deferred):
            _executable(self, cres.entry_point)
            cres = self.overloads[tuple(cres.signature.args)]
        return cres

    def _executable(disp, entry: Deferred):
        """The full compile of a kernel first compiled for linking: optimize its module, generate its
        machine code, put it in the dispatcher's table and the disk cache."""
        with global_compiler_lock:
            args, cres = next((a, c) for a, c in disp.overloads.items() if c.entry_point is entry)
            lib = entry.library
            lib._v1919_link_only = False
            lib._dynamic_globals = []           # _finalize_final_module lists them again
            lib._optimize_final_module()
            lib._final_module.verify()
            lib._finalize_final_module()
            cfunc = orig_executable(disp.targetctx, lib, entry.fndesc, entry.env)
            disp.targetctx.insert_user_function(cfunc, entry.fndesc, [lib])
            full = cres._replace(entry_point=cfunc)
            orig_add_overload(disp, full)
            disp._cache.save_overload(args, full)      # keyed as compile() keys it: the argument types
            return cfunc

    get_call_template._v1919_link_only = True
    dispatcher.Dispatcher.get_call_template = get_call_template
    cpu.CPUContext.get_executable = get_executable
    codegen.CPUCodeLibrary.finalize = finalize
    codegen.CPUCodeLibrary._finalize_final_module = _finalize_final_module
    dispatcher._DispatcherBase.add_overload = add_overload
    caching.Cache.save_overload = save_overload
    dispatcher.Dispatcher.compile = compile
    dispatcher.Dispatcher.get_compile_result = get_compile_result
